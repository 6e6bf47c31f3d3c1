//! The paths a prompt names, found by reading it as text: when a user asks
//! for work on `packages/api/src/config.ts`, the instructions of that
//! directory belong in front of the agent before its first step. Nothing
//! here touches the disk; every path found is a candidate that the caller
//! looks up through a confined reader, and keeps only if it exists.
//!
//! How a prompt is read:
//!
//! - Only its first [`MAX_PROMPT_BYTES`] are read, cut on a character
//!   boundary; a word the cut falls inside is left out whole, so a path
//!   is never found by half.
//! - It is cut into words at whitespace, at quotes of every kind (`"`, `'`,
//!   `` ` ``, typographic and CJK ones), at `<`, `>`, `|`, `,`, `;`, `=`
//!   and at CJK punctuation. Code blocks are read like prose: their fences
//!   are backticks. A path with a space in it is therefore never found.
//! - A markdown link `[text](target)` gives both its text and its target,
//!   in that order, each read as a word.
//! - Around a word, trailing sentence punctuation (`.,;:!?`), unbalanced
//!   brackets (`see (src/a.rs).`), brackets wrapping the whole word and
//!   markdown emphasis (`**src/a.rs**`) are taken away. Brackets inside a
//!   name stay (`app/(auth)/page.tsx`), and so do the `.` and `..` that end
//!   a path (`src/..`); any other trailing dot ends a sentence
//!   (`Makefile.`).
//! - A leading `@` (a host's file mention) is dropped. A word with an `@`
//!   and no slash before it (`a@b.com`, `git@host:x`, `pkg@1.2`) is an
//!   address, not a path; `node_modules/@types/x` is a path.
//! - URLs (`scheme://…`, `www.…`) are never paths.
//! - A `#` and what follows (`#L10-L20`, a heading `#setup`) is dropped, then
//!   a line suffix `:LINE`, `:LINE:COL` or `:LINE-LINE`.
//! - What is left is a path only if it has a `/` in it and is not only
//!   numbers (`1/2`, `2024/01/05`), or is a file name: a non-empty stem, a
//!   dot and an extension of 1 to 10 ASCII letters and digits that begins
//!   with a letter (`config.ts`, not `1.5`, `v2.0`, `python3.11`), and not
//!   an abbreviation (`e.g.`). A word without a dot or a slash is prose.
//! - Never a path: a word longer than 4096 bytes (`PATH_MAX`), a name in it
//!   longer than 255 (`NAME_MAX`), globs (`*?[]{}`), `$`, control
//!   characters, a backslash (Windows), a `:` left over (`C:/x`,
//!   `std::fs`, `host:path`), a leading `~` (the home directory is no
//!   project's).
//!
//! Words that look like files but are not (`Node.js`, `self.name` in a
//! code block) are offered too; the caller's look-up drops them.

use std::path::{Path, PathBuf};

use crate::paths::lexical;
use crate::text::prefix_on_char_boundary;

/// The most candidates one prompt yields: each costs the caller a look-up
/// before the agent's first step.
pub const MAX_CANDIDATES: usize = 16;

/// How much of a prompt is read, in bytes from its start: a pasted log of
/// megabytes costs no more than a long question.
pub const MAX_PROMPT_BYTES: usize = 64 * 1024;

/// The longest word read as a path (Linux's `PATH_MAX`).
const MAX_WORD_BYTES: usize = 4096;

/// The longest name in a path (Linux's `NAME_MAX`).
const MAX_NAME_BYTES: usize = 255;

/// The longest extension of a bare file name.
const MAX_EXTENSION_CHARS: usize = 10;

/// Where a word ends besides whitespace: quotes of every kind, markup and
/// assignment (`--config=x.toml`), and CJK punctuation, which is written
/// without spaces. None of these is found in the names of a project's
/// files in practice.
const SEPARATORS: &[char] = &[
    '"', '\'', '`', '‘', '’', '‚', '‛', '“', '”', '„', '‟', '«', '»', '‹', '›', '<', '>', '|', ',', ';', '=',
    '「', '」', '『', '』', '【', '】', '，', '。', '、', '；', '：', '！', '？', '（', '）',
];

/// Brackets taken away around a word when unbalanced or wrapping it whole.
const BRACKETS: [(char, char); 3] = [('(', ')'), ('[', ']'), ('{', '}')];

/// Dotted abbreviations of prose that look like file names once their
/// last dot is read as a sentence end.
const ABBREVIATIONS: &[&str] = &["e.g", "i.e", "a.k.a", "n.b", "p.s", "q.v", "ph.d", "u.s"];

/// The paths `prompt` names that may lie within `root`: absolute, reduced
/// lexically, inside `root`, in the order they are first named, each once,
/// at most [`MAX_CANDIDATES`]. A relative mention gives the path below
/// `session_dir` and then, when it differs, the path below `root` (a user
/// may name a path from either); the caller keeps those that exist. An
/// absolute mention is kept only within `root`; whatever reduces outside
/// it is dropped. See the module's overview for what counts as a mention.
pub fn candidates(prompt: &str, session_dir: &Path, root: &Path) -> Vec<PathBuf> {
    let root = lexical(root);
    let session_dir = lexical(session_dir);
    let mut found = Vec::new();
    for mention in mentions(read_part(prompt)) {
        let paths = if mention.starts_with('/') {
            [Some(lexical(Path::new(mention))), None]
        } else {
            [Some(lexical(&session_dir.join(mention))), Some(lexical(&root.join(mention)))]
        };
        for path in paths.into_iter().flatten() {
            if path.starts_with(&root) && !found.contains(&path) {
                found.push(path);
                if found.len() == MAX_CANDIDATES {
                    return found;
                }
            }
        }
    }
    found
}

/// The part of the prompt that is read: its first [`MAX_PROMPT_BYTES`],
/// without the word the cut falls inside.
fn read_part(prompt: &str) -> &str {
    let head = prefix_on_char_boundary(prompt, MAX_PROMPT_BYTES);
    match prompt[head.len()..].chars().next() {
        Some(next) if !is_separator(next) => head.rfind(is_separator).map_or("", |end| &head[..end]),
        _ => head,
    }
}

fn is_separator(c: char) -> bool {
    c.is_whitespace() || SEPARATORS.contains(&c)
}

/// The paths named in `text`, as written (relative or absolute).
fn mentions(text: &str) -> impl Iterator<Item = &str> {
    text.split(is_separator)
        .filter(|word| word.len() <= MAX_WORD_BYTES)
        .flat_map(|word| word.split("]("))
        .filter_map(mention)
}

/// The path one word names, if it names one.
fn mention(word: &str) -> Option<&str> {
    let word = unwrap(word);
    let word = word.strip_prefix('@').unwrap_or(word);
    if is_address(word) || is_url(word) {
        return None;
    }
    let word = match word.find('#') {
        Some(anchor) if anchor > 0 => &word[..anchor],
        _ => word,
    };
    let word = without_line(word);
    looks_like_path(word).then_some(word)
}

/// `word` without what surrounds a path in prose (see the module's
/// overview). Every step takes a character or a run of them off an end
/// and brackets are counted once, so a word costs its length.
fn unwrap(word: &str) -> &str {
    let mut word = word;
    // Per bracket pair, how many more close than open.
    let mut excess = BRACKETS
        .map(|(open, close)| word.matches(close).count() as isize - word.matches(open).count() as isize);
    loop {
        let (Some(first), Some(last)) = (word.chars().next(), word.chars().next_back()) else {
            return word;
        };
        let opens = BRACKETS.iter().position(|&(open, _)| open == first);
        let closes = BRACKETS.iter().position(|&(_, close)| close == last);
        word = if last == '.' && !ends_in_dot_name(word) {
            word.trim_end_matches('.')
        } else if matches!(last, ',' | ';' | ':' | '!' | '?') {
            &word[..word.len() - 1]
        } else if let Some(pair) = closes
            && excess[pair] > 0
        {
            excess[pair] -= 1;
            &word[..word.len() - 1]
        } else if let Some(pair) = opens
            && excess[pair] < 0
        {
            excess[pair] += 1;
            &word[1..]
        } else if word.len() >= 2 && ((opens.is_some() && opens == closes) || (first == '*' && last == '*')) {
            &word[1..word.len() - 1]
        } else {
            return word;
        };
    }
}

/// Whether the dots that end `word` are a path's `.` or `..` (`src/..`,
/// `..`) rather than a sentence's end.
fn ends_in_dot_name(word: &str) -> bool {
    let before = word.trim_end_matches('.');
    word.len() - before.len() <= 2 && (before.is_empty() || before.ends_with('/'))
}

/// Whether `word` is an address (`a@b.com`, `git@host:x`, `pkg@1.2`): an
/// `@` past its first character with no slash before it.
fn is_address(word: &str) -> bool {
    word.find('@').is_some_and(|at| at > 0 && !word[..at].contains('/'))
}

fn is_url(word: &str) -> bool {
    word.contains("://") || word.get(..4).is_some_and(|start| start.eq_ignore_ascii_case("www."))
}

/// `word` without a `:LINE`, `:LINE:COL` or `:LINE-LINE` suffix.
fn without_line(word: &str) -> &str {
    let mut word = word;
    for _ in 0..2 {
        match word.rsplit_once(':') {
            Some((path, line)) if is_line(line) => word = path,
            _ => break,
        }
    }
    word
}

fn is_line(text: &str) -> bool {
    let (from, to) = text.split_once('-').unwrap_or((text, "0"));
    is_digits(from) && is_digits(to)
}

fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// Whether what is left of a word reads as a path (see the module's
/// overview).
fn looks_like_path(word: &str) -> bool {
    let refused =
        |c: char| c.is_control() || matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '$' | '\\' | ':');
    if word.is_empty() || word.starts_with('~') || word.contains(refused) {
        return false;
    }
    if word.split('/').any(|name| name.len() > MAX_NAME_BYTES) {
        return false;
    }
    if word.contains('/') {
        // A lone `/` (as in "and / or") is all numbers too: none.
        return !word.split('/').filter(|name| !name.is_empty()).all(is_number);
    }
    is_file_name(word)
}

/// Whether a name is a number (`1`, `2024`, `1.5`), as in fractions and
/// dates.
fn is_number(name: &str) -> bool {
    name.bytes().all(|b| b.is_ascii_digit() || b == b'.') && name.bytes().any(|b| b.is_ascii_digit())
}

/// Whether a word without a slash is a file name (`config.ts`), not a
/// version (`v2.0`), a quantity (`1.5GB`) or an abbreviation (`e.g`).
fn is_file_name(word: &str) -> bool {
    let Some((stem, extension)) = word.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty()
        && extension.len() <= MAX_EXTENSION_CHARS
        && extension.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && extension.bytes().all(|b| b.is_ascii_alphanumeric())
        && !ABBREVIATIONS.iter().any(|abbreviation| word.eq_ignore_ascii_case(abbreviation))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROOT: &str = "/w";

    /// What `prompt` names from the root, as names below it.
    fn named(prompt: &str) -> Vec<String> {
        named_from(prompt, ROOT)
    }

    fn named_from(prompt: &str, session_dir: &str) -> Vec<String> {
        candidates(prompt, Path::new(session_dir), Path::new(ROOT))
            .iter()
            .map(|path| {
                path.strip_prefix(ROOT).expect("a candidate lies within the root").display().to_string()
            })
            .collect()
    }

    fn check(cases: &[(&str, &[&str])]) {
        for (prompt, expected) in cases {
            assert_eq!(named(prompt), *expected, "{prompt:?}");
        }
    }

    #[test]
    fn the_prompts_users_write() {
        check(&[
            ("Add a comment to packages/api/src/config.ts.", &["packages/api/src/config.ts"]),
            ("In `web/f/v2/app.tsx:42` rename x", &["web/f/v2/app.tsx"]),
            ("see [the doc](docs/GUIDE.md#setup)", &["docs/GUIDE.md"]),
            ("email me at a@b.com", &[]),
            ("version 1.5 of node", &[]),
            ("http://example.com/a.ts", &[]),
            ("@packages/ui please", &["packages/ui"]),
            ("fix the bug in `web/f/v2/app.tsx:42`", &["web/f/v2/app.tsx"]),
            ("look at @packages/ui", &["packages/ui"]),
        ]);
    }

    #[test]
    fn quotes_brackets_and_punctuation_around_a_path_are_taken_away() {
        check(&[
            ("`src/a.rs`", &["src/a.rs"]),
            ("'src/a.rs'", &["src/a.rs"]),
            ("\"src/a.rs\"", &["src/a.rs"]),
            ("“src/a.rs” and ‘lib/b.rs’", &["src/a.rs", "lib/b.rs"]),
            ("«src/a.rs» „lib/b.rs“", &["src/a.rs", "lib/b.rs"]),
            ("(src/a.rs)", &["src/a.rs"]),
            ("[src/a.rs]", &["src/a.rs"]),
            ("{src/a.rs}", &["src/a.rs"]),
            ("<src/a.rs>", &["src/a.rs"]),
            ("(see src/a.rs).", &["src/a.rs"]),
            (
                "edit src/a.rs, src/b.rs; src/c.rs: src/d.rs! src/e.rs?",
                &["src/a.rs", "src/b.rs", "src/c.rs", "src/d.rs", "src/e.rs"],
            ),
            ("(in `src/a.rs`).", &["src/a.rs"]),
            ("\"src/a.rs\"),", &["src/a.rs"]),
            ("([src/a.rs])", &["src/a.rs"]),
            ("**src/a.rs** and *lib/b.rs*.", &["src/a.rs", "lib/b.rs"]),
            ("config.ts.", &["config.ts"]),
            ("config.ts...", &["config.ts"]),
            ("src/...", &["src"]),
            ("config/.env.", &["config/.env"]),
            ("config/.env", &["config/.env"]),
        ]);
    }

    #[test]
    fn brackets_and_dots_that_belong_to_a_path_stay() {
        check(&[
            ("app/(auth)/login/page.tsx", &["app/(auth)/login/page.tsx"]),
            ("(app/(auth)/page.tsx).", &["app/(auth)/page.tsx"]),
            ("see app/(auth)", &["app/(auth)"]),
            ("pkg/src/.", &["pkg/src"]),
            ("pkg/src/..", &["pkg"]),
            ("./pkg", &["pkg"]),
        ]);
    }

    #[test]
    fn a_sentence_end_is_not_an_extension() {
        check(&[("Then run the Makefile.", &[]), ("I am done.", &[]), ("See the README.", &[])]);
    }

    #[test]
    fn line_and_anchor_suffixes_are_dropped() {
        check(&[
            ("src/a.rs:42", &["src/a.rs"]),
            ("src/a.rs:42:7", &["src/a.rs"]),
            ("src/a.rs:10-20", &["src/a.rs"]),
            ("src/a.rs:42:", &["src/a.rs"]),
            ("(src/a.rs:42).", &["src/a.rs"]),
            ("src/a.rs#L10", &["src/a.rs"]),
            ("src/a.rs#L10-L20.", &["src/a.rs"]),
            ("README.md#setup", &["README.md"]),
            ("config.ts:3", &["config.ts"]),
        ]);
    }

    #[test]
    fn at_mentions_are_paths_and_addresses_are_not() {
        check(&[
            ("@packages/ui", &["packages/ui"]),
            ("@config.ts", &["config.ts"]),
            ("(@src/a.rs).", &["src/a.rs"]),
            ("a@b.com", &[]),
            ("<a@b.com>", &[]),
            ("mailto:a@b.com", &[]),
            ("@a@b.com", &[]),
            ("git@github.com:org/repo.git", &[]),
            ("lodash@4.17.21", &[]),
            ("node_modules/@types/node/index.d.ts", &["node_modules/@types/node/index.d.ts"]),
            ("@", &[]),
        ]);
    }

    #[test]
    fn links_give_their_text_and_target_and_urls_are_never_paths() {
        check(&[
            ("[the doc](docs/GUIDE.md)", &["docs/GUIDE.md"]),
            ("[src/a.rs](src/b.rs).", &["src/a.rs", "src/b.rs"]),
            ("[src/a.rs](https://github.com/o/r/blob/main/src/a.rs)", &["src/a.rs"]),
            ("[x](https://example.com/a.ts)", &[]),
            ("https://example.com/a.ts", &[]),
            ("HTTP://EXAMPLE.COM/A.TS", &[]),
            ("file:///w/src/a.rs", &[]),
            ("www.example.com/a.ts", &[]),
            ("WWW.example.com", &[]),
            ("<https://example.com/docs/a.md>", &[]),
        ]);
    }

    #[test]
    fn a_word_with_a_slash_or_an_extension_is_a_path() {
        check(&[
            ("src/a.rs", &["src/a.rs"]),
            ("./x", &["x"]),
            ("packages/api/", &["packages/api"]),
            ("config.ts", &["config.ts"]),
            ("AGENTS.md", &["AGENTS.md"]),
            ("Cargo.toml", &["Cargo.toml"]),
            ("404.html", &["404.html"]),
            ("a.abcdefghij", &["a.abcdefghij"]),
            ("v2/api", &["v2/api"]),
            ("docs/über.md", &["docs/über.md"]),
            ("über.md", &["über.md"]),
            // Looks like a file; the caller's look-up drops it.
            ("Node.js", &["Node.js"]),
        ]);
    }

    #[test]
    fn prose_numbers_versions_and_abbreviations_are_not_paths() {
        check(&[
            ("word", &[]),
            ("README", &[]),
            ("1.5", &[]),
            ("3.14.", &[]),
            ("v2.0", &[]),
            ("V1.2.3", &[]),
            ("1.5GB", &[]),
            ("python3.11", &[]),
            ("10.0.0.1", &[]),
            ("e.g.", &[]),
            ("E.g.,", &[]),
            ("i.e.", &[]),
            ("etc.", &[]),
            ("a.k.a.", &[]),
            ("a.abcdefghijk", &[]),
            ("a.t-s", &[]),
            ("a.", &[]),
            ("...", &[]),
            ("..", &[]),
            ("1/2", &[]),
            ("24/7", &[]),
            ("2024/01/05", &[]),
            ("and / or", &[]),
            ("//", &[]),
            // A bare dotfile has no stem; `./.env` names it.
            (".env", &[]),
            ("./.env", &[".env"]),
        ]);
    }

    #[test]
    fn globs_variables_home_windows_and_control_characters_are_not_paths() {
        check(&[
            ("src/*.rs", &[]),
            ("src/a?b.rs", &[]),
            ("app/[id]/page.tsx", &[]),
            ("src/{a,b}.rs", &[]),
            ("$HOME/src/a.rs", &[]),
            ("src/${name}.rs", &[]),
            ("~/src/a.rs", &[]),
            ("~user/a.rs", &[]),
            ("@~/a.rs", &[]),
            ("src\\a.rs", &[]),
            ("C:\\w\\a.rs", &[]),
            ("C:/w/a.rs", &[]),
            ("std::fs::read", &[]),
            ("host:src/a.rs", &[]),
            ("src/a\0b.rs", &[]),
            ("src/a\u{7}b.rs", &[]),
            ("src/a\u{7f}.rs", &[]),
        ]);
    }

    #[test]
    fn a_word_or_a_name_over_the_system_limits_is_not_a_path() {
        let name = "n".repeat(MAX_NAME_BYTES);
        let long_name = "n".repeat(MAX_NAME_BYTES + 1);
        assert_eq!(named(&format!("src/{name}")), [format!("src/{name}")]);
        assert!(named(&format!("src/{long_name}")).is_empty());
        assert!(named(&format!("{long_name}.rs")).is_empty());

        let word = |len: usize| {
            let mut word = format!("{}/", "n".repeat(200)).repeat(20);
            word.push_str(&"n".repeat(len - word.len()));
            word
        };
        let longest = word(MAX_WORD_BYTES);
        assert_eq!(longest.len(), MAX_WORD_BYTES);
        assert_eq!(named(&longest), [longest.as_str()]);
        assert!(named(&word(MAX_WORD_BYTES + 1)).is_empty());
        // Punctuation counts towards the word.
        assert!(named(&format!("{longest}.")).is_empty());
    }

    #[test]
    fn words_end_at_assignments_commas_and_markup() {
        check(&[
            ("cargo run -- --config=configs/dev.toml", &["configs/dev.toml"]),
            ("FOO=bar/baz make", &["bar/baz"]),
            ("a.ts,b.ts", &["a.ts", "b.ts"]),
            ("import x from './lib/x'", &["lib/x"]),
            ("require(\"./lib/y\")", &["lib/y"]),
            ("| src/a.rs | src/b.rs |", &["src/a.rs", "src/b.rs"]),
            ("|src/a.rs|", &["src/a.rs"]),
            ("fix config.ts's import", &["config.ts"]),
        ]);
    }

    #[test]
    fn code_blocks_are_read_like_prose() {
        let prompt = "Why does this fail?\n```rust\nuse crate::paths;\n// see src/lib.rs\nlet p = \"crates/core/Cargo.toml\";\n```\nThanks";
        assert_eq!(named(prompt), ["src/lib.rs", "crates/core/Cargo.toml"]);
        assert_eq!(named("```src/a.rs```"), ["src/a.rs"]);
    }

    #[test]
    fn text_in_other_scripts_around_paths() {
        check(&[
            ("请看 packages/api/src/config.ts。然后修复", &["packages/api/src/config.ts"]),
            ("修改「web/app.tsx」和『lib/a.rs』，谢谢", &["web/app.tsx", "lib/a.rs"]),
            ("ファイル（src/a.rs）を直して", &["src/a.rs"]),
            ("Überprüfe „src/a.rs“ bitte — danke", &["src/a.rs"]),
            ("→ docs/über.md ✓ 🎉", &["docs/über.md"]),
            ("Ünïcödé wörds ohne Pfad.", &[]),
        ]);
    }

    #[test]
    fn what_reduces_outside_the_root_is_dropped() {
        check(&[
            ("../../etc/passwd", &[]),
            ("../x.rs", &[]),
            ("/etc/passwd", &[]),
            ("/w/../etc", &[]),
            ("/wx/a.rs", &[]),
            ("src/../../etc/passwd", &[]),
            ("/w/src/a.rs", &["src/a.rs"]),
            ("/w/../w/src/./a.rs", &["src/a.rs"]),
            ("/w", &[""]),
        ]);
    }

    #[test]
    fn a_relative_mention_is_read_from_the_session_directory_then_from_the_root() {
        let from_pkg = |prompt: &str| named_from(prompt, "/w/pkg");
        assert_eq!(from_pkg("edit src/a.rs"), ["pkg/src/a.rs", "src/a.rs"]);
        assert_eq!(from_pkg("edit config.ts and /w/lib/b.rs"), ["pkg/config.ts", "config.ts", "lib/b.rs"]);
        // From the root, `..` leaves it: only the session's reading is kept.
        assert_eq!(from_pkg("see ../shared/x.ts"), ["shared/x.ts"]);
        assert_eq!(from_pkg("./"), ["pkg", ""]);
        assert_eq!(named_from("../../../etc/passwd", "/w/pkg"), Vec::<String>::new());
        // A session directory outside the root gives only the root's reading.
        assert_eq!(named_from("src/a.rs", "/elsewhere"), ["src/a.rs"]);
        // From the root, both readings are one.
        assert_eq!(named("src/a.rs"), ["src/a.rs"]);
    }

    #[test]
    fn each_path_is_given_once_in_the_order_first_named() {
        check(&[
            ("src/b.rs src/a.rs src/b.rs ./src/a.rs /w/src/b.rs src/x/../a.rs", &["src/b.rs", "src/a.rs"]),
            ("@src/a.rs `src/a.rs:3` [a](src/a.rs#L1)", &["src/a.rs"]),
        ]);
        // The root's reading of one mention is the session's reading of another.
        assert_eq!(
            named_from("src/a.rs pkg/src/a.rs", "/w/pkg"),
            ["pkg/src/a.rs", "src/a.rs", "pkg/pkg/src/a.rs"]
        );
    }

    #[test]
    fn at_most_max_candidates_are_given() {
        let prompt: String = (0..40).map(|i| format!("src/f{i}.rs ")).collect();
        let expected: Vec<String> = (0..MAX_CANDIDATES).map(|i| format!("src/f{i}.rs")).collect();
        assert_eq!(named(&prompt), expected);
        // Both readings count.
        let from_pkg = named_from(&prompt, "/w/pkg");
        assert_eq!(from_pkg.len(), MAX_CANDIDATES);
        assert_eq!(from_pkg[..2], ["pkg/src/f0.rs", "src/f0.rs"]);
        assert_eq!(from_pkg[MAX_CANDIDATES - 1], format!("src/f{}.rs", MAX_CANDIDATES / 2 - 1));
    }

    #[test]
    fn only_the_start_of_a_long_prompt_is_read() {
        let mut prompt = "src/early.rs ".to_owned();
        while prompt.len() < MAX_PROMPT_BYTES - 100 {
            prompt.push_str("some words of a pasted log ");
        }
        prompt.push_str("src/inside.rs ");
        while prompt.len() < 1024 * 1024 {
            prompt.push_str("more words after the bound ");
        }
        prompt.push_str("src/late.rs");
        assert_eq!(named(&prompt), ["src/early.rs", "src/inside.rs"]);
    }

    #[test]
    fn a_path_the_bound_cuts_is_not_found_by_half() {
        let filler = "x ".repeat((MAX_PROMPT_BYTES - 6) / 2);
        let prompt = format!("{filler}src/a/b/c.rs");
        assert!(prompt.len() > MAX_PROMPT_BYTES);
        assert!(named(&prompt).is_empty());
        // Ending right at the bound, it is whole.
        let prompt = format!("{}src/a.rs and more", "x ".repeat((MAX_PROMPT_BYTES - 8) / 2));
        assert_eq!(prompt.find(" and").expect("written above"), MAX_PROMPT_BYTES);
        assert_eq!(named(&prompt), ["src/a.rs"]);
    }

    #[test]
    fn the_bound_falls_between_characters() {
        // Two-byte characters put the bound inside one; the cut steps back.
        let prompt = format!("src/a.rs {}", "é".repeat(MAX_PROMPT_BYTES));
        assert_eq!(named(&prompt), ["src/a.rs"]);
        let prompt = format!("src/a.rs x{}", "日本".repeat(MAX_PROMPT_BYTES));
        assert_eq!(named(&prompt), ["src/a.rs"]);
    }
}
