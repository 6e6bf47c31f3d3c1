//! Claude Code's `@path` imports, found with a Markdown parser: an `@` at
//! the start of a text run or after whitespace, outside code spans and
//! code blocks, followed by a path that runs to the next whitespace. An
//! `@path` inside code is not an import; [`find_code_imports`] lists the
//! ones that look like one, for `check` to point out.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// The import paths in `text`, in order of appearance (duplicates kept;
/// the caller includes each file once).
pub fn find_imports(text: &str) -> Vec<String> {
    find_imports_at(text).into_iter().map(|(path, _)| path).collect()
}

/// [`find_imports`] with the byte offset of each `@` in `text`.
pub fn find_imports_at(text: &str) -> Vec<(String, usize)> {
    let mut imports = Vec::new();
    let mut in_code_block = 0usize;
    let mut run: Option<std::ops::Range<usize>> = None;
    let flush = |run: &mut Option<std::ops::Range<usize>>, imports: &mut Vec<(String, usize)>| {
        if let Some(range) = run.take() {
            scan(text, range, imports);
        }
    };
    for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(_)) => {
                flush(&mut run, &mut imports);
                in_code_block += 1;
            }
            Event::End(TagEnd::CodeBlock) => in_code_block = in_code_block.saturating_sub(1),
            Event::Text(_) if in_code_block == 0 => match &mut run {
                Some(current) if current.end == range.start => current.end = range.end,
                _ => {
                    flush(&mut run, &mut imports);
                    run = Some(range);
                }
            },
            _ => flush(&mut run, &mut imports),
        }
    }
    flush(&mut run, &mut imports);
    imports
}

/// Finds `@path` tokens in `text[range]`, using the source byte before the
/// range to decide whether an `@` at its start follows whitespace.
fn scan(text: &str, range: std::ops::Range<usize>, imports: &mut Vec<(String, usize)>) {
    let slice = &text[range.clone()];
    let mut previous_is_space =
        range.start == 0 || text[..range.start].chars().next_back().is_some_and(char::is_whitespace);
    for (i, c) in slice.char_indices() {
        if c == '@' && previous_is_space {
            let rest = &slice[i + 1..];
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            let path = &rest[..end];
            if !path.is_empty() {
                imports.push((path.to_owned(), range.start + i));
            }
        }
        previous_is_space = c.is_whitespace();
    }
}

/// `@path` tokens inside inline code or a code block that look like an
/// import (a `.md` file, or a path starting `./`, `../` or `~/`), with the
/// byte offset of each `@`. Claude Code expands none of them.
pub fn find_code_imports(text: &str) -> Vec<(String, usize)> {
    let mut found = Vec::new();
    let mut in_code_block = 0usize;
    for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(_)) => in_code_block += 1,
            Event::End(TagEnd::CodeBlock) => in_code_block = in_code_block.saturating_sub(1),
            Event::Code(_) => scan_code(text, range, &mut found),
            Event::Text(_) if in_code_block > 0 => scan_code(text, range, &mut found),
            _ => {}
        }
    }
    found
}

/// The import-like `@path` tokens of `text[range]`: an `@` at the start,
/// after whitespace or after a backtick, up to whitespace or a backtick.
fn scan_code(text: &str, range: std::ops::Range<usize>, found: &mut Vec<(String, usize)>) {
    let slice = &text[range.clone()];
    let boundary = |c: char| c.is_whitespace() || c == '`';
    let mut previous_is_boundary = true;
    for (i, c) in slice.char_indices() {
        if c == '@' && previous_is_boundary {
            let rest = &slice[i + 1..];
            let path = &rest[..rest.find(boundary).unwrap_or(rest.len())];
            let looks_like_import = path.to_ascii_lowercase().ends_with(".md")
                || ["./", "../", "~/"].iter().any(|p| path.starts_with(p));
            if looks_like_import {
                found.push((path.to_owned(), range.start + i));
            }
        }
        previous_is_boundary = boundary(c);
    }
}

#[cfg(test)]
mod tests {
    use super::{find_code_imports, find_imports};

    #[test]
    fn finds_imports_at_line_start_and_after_whitespace() {
        assert_eq!(find_imports("@a.md\nsee @docs/b.md and @~/c.md"), vec!["a.md", "docs/b.md", "~/c.md"]);
    }

    #[test]
    fn ignores_code_spans_fences_and_emails() {
        let text = "use `@skip.md` here\n\n```\n@fenced.md\n```\n\n    @indented.md\n\nmail me@example.com\n";
        assert!(find_imports(text).is_empty(), "{:?}", find_imports(text));
    }

    #[test]
    fn finds_imports_in_lists_and_after_emphasis() {
        assert_eq!(find_imports("- @one.md\n- *note* @two_words.md"), vec!["one.md", "two_words.md"]);
    }

    #[test]
    fn lists_import_like_tokens_inside_code_only() {
        let text =
            "see `@docs/a.md` and `@types/node`\n\n```\n@./setup.sh\nnpm i @scope/pkg\n```\n\n@real.md\n";
        let found = find_code_imports(text);
        let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, vec!["docs/a.md", "./setup.sh"]);
        assert_eq!(found[0].1, 5, "the offset of the `@`");
        assert_eq!(find_imports(text), vec!["real.md"]);
    }
}
