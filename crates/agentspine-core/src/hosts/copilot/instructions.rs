//! Copilot's instruction directories (measured on 1.0.102:
//! tests/e2e/COPILOT-MEASURED.md, "Raw files and tables").
//!
//! - `.github/instructions/**/*.instructions.md` and
//!   `.claude/rules/**/*.md` (suffixes in any case) of the root and of the
//!   start directory, never of a directory between or below;
//!   `~/.copilot/instructions/**/*.instructions.md` for the user.
//! - Within one directory, files in byte order of their path under it.
//!   Links to files are read by their target (inside the root only);
//!   links to directories are not followed, as Copilot does not.
//! - A file's scope is its frontmatter's `applyTo` (in `.claude/rules`
//!   also `paths`): none, an empty value, or exactly `**`, `**/*` or `*`
//!   applies everywhere and the file is pasted whole (a raw part);
//!   anything else puts it in a table the model is told to open files
//!   from. `excludeAgent: "coding-agent"` leaves it out.
//! - User files: not valid UTF-8, over 1 MiB, or past 10 MiB in total
//!   are skipped whole, as Copilot skips them.

use agentspine_fs::{FileKind, Root};

use crate::text::{split_frontmatter, strip_bom};

/// The repository's instruction directory and the suffix its files carry.
pub const GITHUB_DIR: &str = ".github/instructions";
/// Claude Code's rules directory, which Copilot reads too.
pub const RULES_DIR: &str = ".claude/rules";
/// The user's directory, under Copilot's home.
pub const USER_DIR: &str = "instructions";
const INSTRUCTIONS_SUFFIX: &str = ".instructions.md";

/// How deep below an instruction directory agentspine looks.
const MAX_DEPTH: usize = 8;
/// Entries agentspine reads from one instruction tree (Copilot stops at
/// 10,000; agentspine's bound is lower and says so when it is reached).
const MAX_ENTRIES: usize = 2048;
/// Files agentspine takes from one instruction tree.
pub const MAX_FILES: usize = 256;
/// A user file over this many bytes is skipped by Copilot.
pub const USER_FILE_LIMIT: u64 = 1024 * 1024;
/// User files past this many bytes in total are skipped by Copilot.
pub const USER_TOTAL_LIMIT: u64 = 10 * 1024 * 1024;

/// Which kind of instruction directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tree {
    /// `.github/instructions`: `*.instructions.md`, scoped by `applyTo`.
    Github,
    /// `.claude/rules`: `*.md`, scoped by `applyTo` or `paths`.
    Rules,
    /// `~/.copilot/instructions`: `*.instructions.md`, scoped by `applyTo`.
    User,
}

impl Tree {
    fn takes(self, name: &str) -> bool {
        let lower = name.to_ascii_lowercase();
        match self {
            Tree::Github | Tree::User => lower.ends_with(INSTRUCTIONS_SUFFIX),
            Tree::Rules => lower.ends_with(".md"),
        }
    }

    fn keys(self) -> &'static [&'static str] {
        match self {
            Tree::Rules => &["applyTo", "paths"],
            Tree::Github | Tree::User => &["applyTo"],
        }
    }
}

/// What a walk of one instruction tree found.
#[derive(Debug, Default)]
pub(crate) struct Walk {
    /// Files (regular or links), relative to the tree, in byte order.
    pub(crate) files: Vec<String>,
    /// Directories that could not be listed, with the reader's verdict.
    pub(crate) unlisted: Vec<(String, crate::resolution::Verdict)>,
    /// A bound stopped the walk.
    pub(crate) truncated: bool,
}

/// Lists `tree` (a directory handle) recursively, bounded.
pub(crate) fn walk(tree: &Root, kind: Tree) -> Walk {
    let mut out = Walk::default();
    let mut entries = 0usize;
    descend(tree, kind, "", 0, &mut entries, &mut out);
    out.files.sort_unstable_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    out
}

fn descend(tree: &Root, kind: Tree, rel: &str, depth: usize, entries: &mut usize, out: &mut Walk) {
    if depth > MAX_DEPTH || *entries >= MAX_ENTRIES {
        out.truncated = true;
        return;
    }
    let listing = match tree.list(if rel.is_empty() { "." } else { rel }, MAX_ENTRIES - *entries) {
        Ok(listing) => listing,
        Err(e) => {
            out.unlisted.push((rel.to_owned(), crate::chain::verdict_of(&e)));
            return;
        }
    };
    *entries += listing.entries.len() + listing.hidden.len() + listing.symlinks.len();
    out.truncated |= listing.truncated;
    let join = |name: &str| if rel.is_empty() { name.to_owned() } else { format!("{rel}/{name}") };
    let all = listing.entries.iter().chain(&listing.hidden);
    for entry in all.clone() {
        if entry.kind == FileKind::Directory {
            descend(tree, kind, &join(&entry.name), depth + 1, entries, out);
        }
    }
    let files = all.filter(|e| e.kind != FileKind::Directory).map(|e| &e.name).chain(&listing.symlinks);
    for name in files {
        if kind.takes(name) {
            if out.files.len() >= MAX_FILES {
                out.truncated = true;
                return;
            }
            out.files.push(join(name));
        }
    }
}

/// Where a file applies, by its frontmatter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applies {
    /// Everywhere: pasted whole.
    Everywhere,
    /// Where these patterns match: listed in the table.
    Patterns(Vec<String>),
    /// Not for Copilot's coding agent (`excludeAgent: "coding-agent"`).
    Excluded,
}

/// A file's scope and description, read from its text (a leading BOM
/// already removed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Front {
    /// Where it applies.
    pub applies: Applies,
    /// The `description` value, or empty.
    pub description: String,
}

/// Reads the frontmatter of a file of `kind`.
pub fn front(text: &str, kind: Tree) -> Front {
    let (frontmatter, _) = split_frontmatter(strip_bom(text));
    let description = scalar(frontmatter, "description").unwrap_or_default();
    if scalar(frontmatter, "excludeAgent").as_deref() == Some("coding-agent") {
        return Front { applies: Applies::Excluded, description };
    }
    let patterns = kind.keys().iter().find_map(|key| list(frontmatter, key)).unwrap_or_default();
    let everywhere = match patterns.as_slice() {
        [] => true,
        [one] => matches!(one.as_str(), "**" | "**/*" | "*"),
        _ => false,
    };
    let applies = if everywhere { Applies::Everywhere } else { Applies::Patterns(patterns) };
    Front { applies, description }
}

/// The value of `key:` on a line of its own, unquoted, a trailing comment
/// dropped; `None` when the key is absent.
fn value<'a>(frontmatter: &'a str, key: &str) -> Option<(&'a str, std::str::Lines<'a>)> {
    let mut lines = frontmatter.lines();
    while let Some(line) = lines.next() {
        let line = line.trim_end_matches('\r');
        if let Some(rest) = line.strip_prefix(key).and_then(|r| r.strip_prefix(':')) {
            return Some((rest.trim(), lines));
        }
    }
    None
}

fn scalar(frontmatter: &str, key: &str) -> Option<String> {
    value(frontmatter, key).map(|(v, _)| unquote(drop_comment(v)).to_owned())
}

/// A string, a comma-separated string, a flow list or a block list.
fn list(frontmatter: &str, key: &str) -> Option<Vec<String>> {
    let (v, rest) = value(frontmatter, key)?;
    let v = drop_comment(v);
    let items: Vec<String> = if v.is_empty() {
        rest.map(|l| l.trim_end_matches('\r').trim_start())
            .map_while(|l| l.strip_prefix("- ").or_else(|| (l == "-").then_some("")))
            .map(|item| unquote(drop_comment(item.trim())).to_owned())
            .collect()
    } else if let Some(inner) = v.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        inner.split(',').map(|s| unquote(s.trim()).to_owned()).collect()
    } else {
        unquote(v).split(',').map(|s| s.trim().to_owned()).collect()
    };
    Some(items.into_iter().filter(|s| !s.is_empty()).collect())
}

/// A value without its `# comment` (one outside quotes, after a space).
fn drop_comment(v: &str) -> &str {
    let mut quote = None;
    let bytes = v.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match (quote, b) {
            (None, b'"' | b'\'') => quote = Some(b),
            (Some(q), _) if q == b => quote = None,
            (None, b'#') if i == 0 || bytes[i - 1] == b' ' || bytes[i - 1] == b'\t' => {
                return v[..i].trim_end();
            }
            _ => {}
        }
    }
    v.trim_end()
}

fn unquote(s: &str) -> &str {
    s.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .or_else(|| s.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
        .unwrap_or(s)
}

/// The words above Copilot's table of path-scoped instruction files.
const TABLE_HEAD: &str = "Here is a list of instruction files that contain rules for modifying or creating new code.\n\
These files are important for ensuring that the code is modified or created correctly.\n\
Please make sure to follow the rules specified in these files when working with the codebase.\n\
If you have not already read the file, use the `view` tool to acquire it.\n\
Make sure to acquire the instructions before making any changes to the code.\n\
| Pattern | File Path | Description |\n\
| ------- | --------- | ----------- |";

/// Copilot's table of path-scoped files: one row per file (patterns joined
/// by `, `, the path in single quotes, `|` escaped), no final newline.
pub fn table<'a>(rows: impl IntoIterator<Item = (&'a [String], &'a str, &'a str)>) -> Option<String> {
    let cell = |s: &str| s.replace('|', "\\|");
    let rows: Vec<String> = rows
        .into_iter()
        .map(|(patterns, path, description)| {
            format!("| {} | '{}' | {} |", cell(&patterns.join(", ")), cell(path), cell(description))
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    Some(format!("{TABLE_HEAD}\n{}", rows.join("\n")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn applies(text: &str, kind: Tree) -> Applies {
        front(text, kind).applies
    }

    fn pats(p: &[&str]) -> Applies {
        Applies::Patterns(p.iter().map(|s| (*s).to_owned()).collect())
    }

    #[test]
    fn everywhere_is_no_scope_an_empty_one_or_exactly_a_match_all_pattern() {
        for text in [
            "RAW\n",
            "---\napplyTo: \"**\"\n---\nX\n",
            "---\napplyTo: **\n---\nX\n",
            "---\napplyTo: \"**/*\"\n---\n",
            "---\napplyTo: \"*\"\n---\n",
            "---\ndescription: only\n---\n",
            "---\n---\nX\n",
            "---\napplyTo: \"\"\n---\n",
            "---\napplyTo: \"src/**\"\nUNCLOSED\n",
            "---\r\napplyTo: \"**\"\r\n---\r\nX\r\n",
            "\u{feff}---\napplyTo: \"**\"\n---\n",
            "---\napplyTo: \"**\"\nexcludeAgent: \"code-review\"\n---\n",
        ] {
            assert_eq!(applies(text, Tree::Github), Applies::Everywhere, "{text:?}");
        }
        assert_eq!(applies("---\npaths: []\n---\n", Tree::Rules), Applies::Everywhere);
        // `paths` is a rules key only.
        assert_eq!(applies("---\npaths: src/**\n---\n", Tree::Github), Applies::Everywhere);
    }

    #[test]
    fn patterns_come_in_every_yaml_form() {
        let g = Tree::Github;
        assert_eq!(applies("---\napplyTo: \"src/**/*.ts\"\n---\n", g), pats(&["src/**/*.ts"]));
        assert_eq!(applies("---\napplyTo: \"src/**,lib/**\"\n---\n", g), pats(&["src/**", "lib/**"]));
        assert_eq!(applies("---\napplyTo: [\"src/**\", \"lib/**\"]\n---\n", g), pats(&["src/**", "lib/**"]));
        assert_eq!(
            applies("---\napplyTo:\n  - \"src/**\"\n  - lib/**\n---\n", g),
            pats(&["src/**", "lib/**"])
        );
        assert_eq!(applies("---\napplyTo: \"src/**\" # a comment\n---\n", g), pats(&["src/**"]));
        assert_eq!(applies("---\napplyTo: 'docs/*.md'\n---\n", g), pats(&["docs/*.md"]));
        assert_eq!(applies("---\napplyTo: \"**,src/**\"\n---\n", g), pats(&["**", "src/**"]));
        assert_eq!(applies("\u{feff}---\napplyTo: \"src/**\"\n---\n", g), pats(&["src/**"]));
        assert_eq!(
            applies("---\npaths:\n  - \"src/**\"\n  - \"lib/**\"\n---\n", Tree::Rules),
            pats(&["src/**", "lib/**"])
        );
        assert_eq!(applies("---\napplyTo: \"src/**\"\n---\n", Tree::Rules), pats(&["src/**"]));
        assert_eq!(
            applies("---\napplyTo: \"**\"\nexcludeAgent: \"coding-agent\"\n---\n", g),
            Applies::Excluded
        );
    }

    #[test]
    fn the_table_escapes_pipes_and_ends_without_a_newline() {
        let p = ["a|b".to_owned()];
        let q = ["src/**".to_owned(), "lib/**".to_owned()];
        let text =
            table([(&p[..], ".github/instructions/16.instructions.md", "x | y"), (&q[..], "/h/u.md", "")])
                .unwrap();
        assert!(text.starts_with("Here is a list of instruction files"), "{text}");
        assert!(
            text.ends_with(
                "| Pattern | File Path | Description |\n| ------- | --------- | ----------- |\n\
                 | a\\|b | '.github/instructions/16.instructions.md' | x \\| y |\n\
                 | src/**, lib/** | '/h/u.md' |  |"
            ),
            "{text}"
        );
        assert_eq!(table(std::iter::empty()), None);
    }

    #[test]
    fn descriptions_are_unquoted() {
        assert_eq!(front("---\npaths: a/**\ndescription: DD\n---\n", Tree::Rules).description, "DD");
        assert_eq!(front("---\ndescription: \"x | y\"\n---\n", Tree::Github).description, "x | y");
    }
}
