//! Gemini CLI's `@path` imports, inlined in place.
//!
//! - An import is `@` at the start of the text or after a space, tab, CR
//!   or LF, running to the next of those; the path must start with `.`,
//!   `/` or an ASCII letter (so `@~/x` and `me@example.com` stay text).
//! - Inside a backtick code region (a run of backticks up to the next run
//!   of as many) it stays literal.
//! - It resolves against the importing file's directory and must stay
//!   within the boundary (the marked project root, the file's own
//!   directory without a marker, the profile for global files); URLs and
//!   escapes become `<!-- Import failed: P - Path traversal attempt -->`.
//! - A file already imported on the way down becomes
//!   `<!-- File already processed: P -->`; the top file is not on that
//!   path, so it may come back once.
//! - Text at depth 5 is taken as it is, its own imports unread.
//! - An inlined file reads `<!-- Imported from: P -->\n…\n<!-- End of
//!   import from: P -->`, its text untrimmed.
//! - A missing file reads as Node's error; anything agentspine does not
//!   read (a link, a device, a hard link) gets a note saying so instead.

use std::path::{Path, PathBuf};

use agentspine_fs::{FileKind, LinkRefusal, Root};

use crate::chain::{FILE_CAP, NotRead, fetch};
use crate::gather::Gather;
use crate::paths::{lexical, names_below};

use crate::resolution::{Scope, Verdict};
use crate::text::lenient_utf8;

/// How deep Gemini inlines imports.
pub const MAX_DEPTH: usize = 5;

/// How many imports agentspine reads for one context file; the rest get a
/// note (a file of 10,000 imports stays cheap).
pub const MAX_IMPORTS: usize = 256;

/// Where one context file's imports may be read.
pub(crate) struct Context<'a> {
    pub(crate) boundary: &'a Root,
    pub(crate) boundary_path: &'a Path,
    pub(crate) scope: Scope,
    pub(crate) count: usize,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The imports of `text`: byte range of `@path` and the path.
pub fn find_imports(text: &str) -> Vec<(usize, usize, &str)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(at) = bytes[i..].iter().position(|&b| b == b'@').map(|p| p + i) {
        if at > 0 && !is_space(bytes[at - 1]) {
            i = at + 1;
            continue;
        }
        let mut end = at + 1;
        while end < bytes.len() && !is_space(bytes[end]) {
            end += 1;
        }
        let path = &text[at + 1..end];
        if path.bytes().next().is_some_and(|c| c == b'.' || c == b'/' || c.is_ascii_alphabetic()) {
            out.push((at, end, path));
        }
        i = end + 1;
        if i >= bytes.len() {
            break;
        }
    }
    out
}

/// Backtick code regions as byte ranges: from a run of backticks to the
/// next run of as many (the longest opening that has a closing wins).
pub fn code_regions(text: &str) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
        let close = (1..=run).rev().find_map(|n| {
            (i + n..bytes.len().saturating_sub(n - 1))
                .find(|&q| bytes[q..q + n].iter().all(|&b| b == b'`'))
                .map(|q| q + n)
        });
        match close {
            Some(end) => {
                out.push((i, end));
                i = end;
            }
            None => i += 1,
        }
    }
    out
}

fn failed(path: &str, why: &str) -> String {
    format!("<!-- Import failed: {path} - {why} -->")
}

/// `text` with its imports inlined, as Gemini builds it. `seen` holds the
/// files imported on the way down.
pub(crate) fn inline(
    text: &str,
    base: &Path,
    depth: usize,
    seen: &[PathBuf],
    context: &mut Context<'_>,
    gather: &mut Gather,
) -> String {
    if depth >= MAX_DEPTH {
        return text.to_owned();
    }
    let regions = code_regions(text);
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for (start, end, path) in find_imports(text) {
        out.push_str(&text[last..start]);
        last = end;
        if regions.iter().any(|&(s, e)| start >= s && start < e) {
            out.push('@');
            out.push_str(path);
            continue;
        }
        let url = ["file://", "http://", "https://"].iter().any(|p| path.starts_with(p));
        let full = lexical(&base.join(path));
        let Some(names) = names_below(context.boundary_path, &full).filter(|_| !url) else {
            out.push_str(&failed(path, "Path traversal attempt"));
            gather.probe(full.display().to_string(), context.scope, Verdict::ImportOutsideRoot);
            continue;
        };
        if seen.contains(&full) {
            out.push_str(&format!("<!-- File already processed: {path} -->"));
            continue;
        }
        context.count += 1;
        if context.count > MAX_IMPORTS {
            out.push_str(&failed(path, &format!("not read by agentspine: more than {MAX_IMPORTS} imports")));
            if context.count == MAX_IMPORTS + 1 {
                gather.probe(format!("{path} and later imports"), context.scope, Verdict::ImportLimit);
            }
            continue;
        }
        let label = full.display().to_string();
        let read = if names.is_empty() {
            Err(Verdict::NotRegular { kind: FileKind::Directory }.into())
        } else {
            fetch(context.boundary, &names.join("/"), FILE_CAP)
        };
        match read {
            Ok(snap) => {
                let mut below = seen.to_vec();
                below.push(full.clone());
                let dir = full.parent().map_or_else(|| base.to_path_buf(), Path::to_path_buf);
                let inner = inline(&lenient_utf8(&snap.bytes), &dir, depth + 1, &below, context, gather);
                out.push_str(&format!(
                    "<!-- Imported from: {path} -->\n{inner}\n<!-- End of import from: {path} -->"
                ));
                gather.probe(
                    label,
                    context.scope,
                    NotRead { verdict: Verdict::Included, link: snap.link.clone() },
                );
            }
            Err(not_read) => match &not_read.verdict {
                Verdict::Missing | Verdict::LinkRefused { refusal: LinkRefusal::Dangling, .. } => {
                    let why = format!("ENOENT: no such file or directory, access '{}'", full.display());
                    out.push_str(&failed(path, &why));
                    gather.probe(label, context.scope, not_read);
                }
                Verdict::NotRegular { kind: FileKind::Directory } => {
                    out.push_str(&failed(path, "EISDIR: illegal operation on a directory, read"));
                    gather.probe(label, context.scope, not_read);
                }
                verdict => {
                    out.push_str(&failed(path, &format!("not read by agentspine ({verdict})")));
                    let note =
                        "Gemini CLI would read this import (following links); agentspine does not".to_owned();
                    gather.probe_differs(label, context.scope, not_read, note);
                }
            },
        }
    }
    out.push_str(&text[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_imports_after_whitespace_with_a_path_like_start() {
        let found: Vec<&str> =
            find_imports("@a.md x@b.md @~/c.md @./d.md\t@/e @_f @G.md").into_iter().map(|i| i.2).collect();
        assert_eq!(found, ["a.md", "./d.md", "/e", "G.md"]);
    }

    #[test]
    fn code_regions_pair_runs_of_backticks() {
        assert_eq!(code_regions("a `x` b"), [(2, 5)]);
        assert_eq!(code_regions("```\n@f\n```"), [(0, 10)]);
        assert_eq!(code_regions("``a```"), [(0, 5)]);
        assert_eq!(code_regions("` lone"), []);
        assert_eq!(code_regions("```x"), [(0, 2)]);
    }
}
