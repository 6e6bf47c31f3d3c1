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
    /// A directory of the tree that could not be listed (permission
    /// denied, a race, the deadline), with the reader's verdict.
    Unlisted(String, crate::resolution::Verdict),
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
    let listing = match rules.list(dir, MAX_ENTRIES) {
        Ok(listing) => listing,
        Err(e) => {
            out.push(Found::Unlisted(rel.to_owned(), crate::chain::verdict_of(&e)));
            return;
        }
    };
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
    let Ok(rel) = target.strip_prefix(base) else { return false };
    // Matched directly when the patterns are ones `globs` models (ASCII,
    // few alternatives), else by the `ignore` crate.
    match super::globs::matches(patterns, rel) {
        Some(matched) => matched,
        None => gitignore_match(base, patterns, target),
    }
}

/// [`paths_match`] by the `ignore` crate's `Gitignore`.
fn gitignore_match(base: &Path, patterns: &[String], target: &Path) -> bool {
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

    /// A small deterministic generator (no dependency for one test).
    struct Lcg(u64);

    impl Lcg {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((self.0 >> 33) % n as u64) as usize
        }

        fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
            from[self.below(from.len())]
        }
    }

    #[test]
    fn the_direct_matcher_agrees_with_gitignore_on_random_lines_and_paths() {
        // Pieces that exercise every token, the line syntax (`!`, leading
        // and trailing `/`, `#`, escapes, trailing spaces) and malformed
        // globs (unclosed `[` and `{`, a stray `}`, a reversed range).
        let pieces = [
            "a",
            "b",
            "src",
            "x.ts",
            ".md",
            "*",
            "**",
            "?",
            "/",
            "/**",
            "**/",
            "/**/",
            "[a-c]",
            "[!a]",
            "[^/]",
            "[]a]",
            "[a-]",
            "[[:digit:]]",
            "[[:bogus:]]",
            "[",
            "{a,b}",
            "{src,lib}",
            "{,a}",
            "{a,**}",
            "{",
            "}",
            ",",
            "\\*",
            "\\",
            "!",
            "#",
            " ",
            "\\ ",
            "[z-a]",
            "-",
            ".",
            "é",
        ];
        let names = ["a", "b", "src", "lib", "x.ts", "y.md", "a.md", "-", "]", "é", "**", ".", "c1"];
        let mut rng = Lcg(0x9e3779b97f4a7c15);
        let base = Path::new("/repo");
        let (mut direct, mut matched) = (0, 0);
        for case in 0..20_000 {
            let patterns: Vec<String> = (0..1 + rng.below(3))
                .map(|_| (0..1 + rng.below(5)).map(|_| rng.pick(&pieces)).collect::<String>())
                .collect();
            let depth = 1 + rng.below(4);
            let rel: Vec<&str> = (0..depth).map(|_| rng.pick(&names)).collect();
            let target = base.join(rel.join("/"));
            let expected = gitignore_match(base, &patterns, &target);
            if let Some(got) = crate::hosts::claude::globs::matches(&patterns, Path::new(&rel.join("/"))) {
                direct += 1;
                matched += usize::from(got);
                assert_eq!(got, expected, "case {case}: {patterns:?} against {}", rel.join("/"));
            }
        }
        // Most lines are ASCII and simple: the direct matcher decides them.
        assert!(direct > 15_000, "{direct}");
        // And both answers are common, so agreeing says something.
        assert!(matched > 1_500 && direct - matched > 1_500, "{matched} of {direct} matched");
    }
}
