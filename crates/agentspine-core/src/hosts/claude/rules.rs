//! `.claude/rules/**/*.md`: bounded recursive enumeration in a sorted,
//! deterministic order, and `paths:` frontmatter matched with gitignore
//! semantics relative to the directory holding `.claude/`.

use std::path::Path;

use agentspine_fs::{FileKind, Root};
use ignore::gitignore::GitignoreBuilder;

/// How deep below `rules/` agentspine looks.
pub const MAX_DEPTH: usize = 8;
/// Entries read from one rules directory.
pub const MAX_ENTRIES: usize = 1024;
/// Rule files taken from one rules tree.
pub const MAX_FILES: usize = 256;

/// A rule file found, relative to the rules directory, or a link skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Found {
    File(String),
    Symlink(String),
    Truncated(String),
}

/// Lists `rules` (a directory handle) recursively: `.md` files in sorted
/// order, directories before files at the same level.
pub(crate) fn enumerate(rules: &Root) -> Vec<Found> {
    let mut out = Vec::new();
    walk(rules, "", 0, &mut out);
    out
}

fn walk(rules: &Root, rel: &str, depth: usize, out: &mut Vec<Found>) {
    if depth > MAX_DEPTH || out.len() >= MAX_FILES {
        out.push(Found::Truncated(rel.to_owned()));
        return;
    }
    let dir = if rel.is_empty() { "." } else { rel };
    let Ok(listing) = rules.list(dir, MAX_ENTRIES) else { return };
    let join = |name: &str| if rel.is_empty() { name.to_owned() } else { format!("{rel}/{name}") };
    for name in &listing.symlinks {
        out.push(Found::Symlink(join(name)));
    }
    for entry in &listing.entries {
        if entry.kind == FileKind::Directory {
            walk(rules, &join(&entry.name), depth + 1, out);
        }
    }
    for entry in &listing.entries {
        if entry.kind != FileKind::Directory && entry.name.ends_with(".md") {
            if out.len() >= MAX_FILES {
                out.push(Found::Truncated(rel.to_owned()));
                return;
            }
            out.push(Found::File(join(&entry.name)));
        }
    }
    if listing.truncated {
        out.push(Found::Truncated(rel.to_owned()));
    }
}

/// The `paths:` patterns of a frontmatter block: a string, a
/// comma-separated string, a flow list `[a, b]`, or a block list.
pub fn paths_patterns(frontmatter: &str) -> Option<Vec<String>> {
    let mut lines = frontmatter.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(value) = line.strip_prefix("paths:") else { continue };
        let value = value.trim();
        if value.is_empty() {
            let mut items = Vec::new();
            while let Some(next) = lines.peek() {
                let item = next.trim_start();
                let Some(item) = item.strip_prefix("- ").or_else(|| (item == "-").then_some("")) else {
                    break;
                };
                items.push(unquote(item.trim()).to_owned());
                lines.next();
            }
            return Some(items.into_iter().filter(|s| !s.is_empty()).collect());
        }
        let inner = value.strip_prefix('[').and_then(|v| v.strip_suffix(']')).unwrap_or(value);
        return Some(
            inner.split(',').map(|s| unquote(s.trim()).to_owned()).filter(|s| !s.is_empty()).collect(),
        );
    }
    None
}

fn unquote(s: &str) -> &str {
    s.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .or_else(|| s.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
        .unwrap_or(s)
}

/// Whether `target` (absolute) matches any pattern, with gitignore
/// semantics relative to `base` (the directory holding `.claude/`).
pub fn paths_match(base: &Path, patterns: &[String], target: &Path) -> bool {
    if target.strip_prefix(base).is_err() {
        return false;
    }
    let mut builder = GitignoreBuilder::new(base);
    for pattern in patterns {
        if builder.add_line(None, pattern).is_err() {
            return false;
        }
    }
    let Ok(matcher) = builder.build() else { return false };
    matcher.matched_path_or_any_parents(target, false).is_ignore()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_form_of_paths() {
        assert_eq!(paths_patterns("paths: src/**/*.ts\n"), Some(vec!["src/**/*.ts".to_owned()]));
        assert_eq!(paths_patterns("paths: \"a/**\", b\n"), Some(vec!["a/**".to_owned(), "b".to_owned()]));
        assert_eq!(paths_patterns("paths: [\"a\", 'b']\n"), Some(vec!["a".to_owned(), "b".to_owned()]));
        assert_eq!(
            paths_patterns("x: 1\npaths:\n  - \"api/**\"\n  - docs/*.md\ny: 2\n"),
            Some(vec!["api/**".to_owned(), "docs/*.md".to_owned()])
        );
        assert_eq!(paths_patterns("description: no paths\n"), None);
    }

    #[test]
    fn matches_with_gitignore_semantics() {
        let base = Path::new("/repo");
        let p = |s: &str| vec![s.to_owned()];
        assert!(paths_match(base, &p("src/**/*.ts"), Path::new("/repo/src/a/b.ts")));
        assert!(!paths_match(base, &p("src/**/*.ts"), Path::new("/repo/lib/b.ts")));
        assert!(paths_match(base, &p("*.md"), Path::new("/repo/deep/x.md")), "no slash: any depth");
        assert!(!paths_match(base, &p("/*.md"), Path::new("/repo/deep/x.md")), "anchored");
        assert!(
            paths_match(base, &p("api/"), Path::new("/repo/api/x.rs")),
            "a directory pattern covers its files"
        );
        assert!(!paths_match(base, &p("*.md"), Path::new("/elsewhere/x.md")));
    }
}
