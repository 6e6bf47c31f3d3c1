//! GitHub Copilot CLI's rules (HOSTS.md, "GitHub Copilot CLI"; measured on
//! 1.0.102: tests/e2e/COPILOT-MEASURED.md).
//!
//! - Root: the nearest directory at or above the cwd holding a `.git`.
//!   Copilot counts only a `.git` git itself would accept (a directory with
//!   `HEAD`, `objects/` and `refs/`, or a file starting `gitdir: `);
//!   agentspine's git rule, shared by every host, counts any `.git`, so an
//!   empty or half-made `.git` binds a root here that Copilot passes over.
//!   Without a root only the cwd is read.
//! - Elements, in order: `$COPILOT_HOME/copilot-instructions.md` (else
//!   `~/.copilot/…`); the root's `.github/copilot-instructions.md`, then the
//!   cwd's; the root's `AGENTS.md`, `CLAUDE.md`, `GEMINI.md`, then the
//!   cwd's; then each directory between them, nearest the cwd first:
//!   `.github/copilot-instructions.md`, `AGENTS.md`, `CLAUDE.md`,
//!   `.claude/CLAUDE.md`, `GEMINI.md`. Nothing below the cwd at start.
//! - Copilot matches these names case-insensitively (`agents.md` counts,
//!   and with several spellings in one directory the first in listing
//!   order wins); agentspine reads the exact names only.
//! - The text is the file as read: a leading BOM removed, CRLF kept, not
//!   trimmed, invalid UTF-8 replaced per byte; an empty file is an empty
//!   element. The user file is skipped when it is not valid UTF-8. A file
//!   whose text equals an earlier element's is left out. No byte cap
//!   (agentspine keeps its own 4 MiB).
//! - Each is `<custom_instruction>\n<text>\n</custom_instruction>`, joined
//!   by a blank line.
//! - Not modelled yet: the always-applied and path-scoped instruction files
//!   (`.github/instructions/**/*.instructions.md`, `.claude/rules/**/*.md`,
//!   `~/.copilot/instructions/**`, `$COPILOT_CUSTOM_INSTRUCTIONS_DIRS`),
//!   which Copilot pastes after the elements or lists in tables: `resolve`
//!   warns (`not-modelled`) when a directory holding them exists.
//! - Copilot follows links anywhere, out of the project too; agentspine
//!   reads a link inside the root by its target and never one out of it,
//!   and says so per candidate.

pub mod profile;

use std::path::{Path, PathBuf};

use crate::chain::{ChainDir, FILE_CAP, fetch};
use crate::env::Environment;
use crate::gather::Gather;
use crate::locate::Located;
use crate::paths::tilde;
use crate::resolution::{Part, Scope, Verdict, Warning};
use crate::text::{lenient_utf8, strip_bom};

/// The instruction file Copilot reads in its home.
pub const USER_FILE: &str = "copilot-instructions.md";
/// The repository's own file.
pub const GITHUB_FILE: &str = ".github/copilot-instructions.md";
/// The names read at the root and in the cwd after the `.github` files.
pub const END_NAMES: [&str; 3] = ["AGENTS.md", "CLAUDE.md", "GEMINI.md"];
/// The names read in each directory between the root and the cwd.
pub const BETWEEN_NAMES: [&str; 5] =
    [GITHUB_FILE, "AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md", "GEMINI.md"];
/// Directories of instruction files Copilot reads that agentspine does not
/// model yet, relative to the root and to the cwd.
const UNMODELLED_DIRS: [&str; 2] = [".github/instructions", ".claude/rules"];

/// Every name Copilot reads in some project directory.
pub fn names() -> Vec<String> {
    BETWEEN_NAMES.iter().map(|n| (*n).to_owned()).collect()
}

/// The text Copilot keeps of a project file.
fn text_of(bytes: &[u8]) -> String {
    strip_bom(&lenient_utf8(bytes)).to_owned()
}

pub(crate) fn resolve(
    env: &Environment,
    located: &Located,
    gather: &mut Gather,
    warnings: &mut Vec<Warning>,
) {
    let mut sent: Vec<String> = Vec::new();
    if let Some(home) = env.copilot_home() {
        user(located, env, &home, gather, &mut sent);
    }
    let dirs = located.chain_dirs();
    let Some(last) = dirs.len().checked_sub(1) else { return };
    let mut slots: Vec<(usize, &[&str])> = vec![(0, &[GITHUB_FILE])];
    if last > 0 {
        slots.push((last, &[GITHUB_FILE]));
    }
    slots.push((0, &END_NAMES));
    if last > 0 {
        slots.push((last, &END_NAMES));
    }
    slots.extend((1..last).rev().map(|i| (i, &BETWEEN_NAMES[..])));
    for (i, names) in slots {
        for name in names {
            take(&dirs[i], located, name, gather, &mut sent);
        }
    }
    unmodelled(env, located, &dirs, last, warnings);
}

/// `~/.copilot/copilot-instructions.md`: skipped when it is not UTF-8.
fn user(located: &Located, env: &Environment, home: &Path, gather: &mut Gather, sent: &mut Vec<String>) {
    let path = home.join(USER_FILE);
    let label = tilde(&path, env.home.as_deref());
    let Ok(handle) = located.root.reader().open_root(home) else {
        gather.probe(label, Scope::User, Verdict::Missing);
        return;
    };
    match fetch(&handle, USER_FILE, FILE_CAP) {
        Ok(fetched) => match std::str::from_utf8(&fetched.snap.bytes) {
            Ok(text) => {
                let text = strip_bom(text).to_owned();
                keep(fetched.part(Scope::User, path, label, text), gather, sent);
            }
            Err(_) => gather.probe(
                label,
                Scope::User,
                Verdict::Skipped { reason: "Copilot skips a user file that is not valid UTF-8".to_owned() },
            ),
        },
        Err(not_read) if not_read.host_reads_it() => gather.probe_differs(
            label,
            Scope::User,
            not_read,
            "GitHub Copilot CLI follows this link and reads its target; agentspine never reads outside the root"
                .to_owned(),
        ),
        Err(not_read) => gather.probe(label, Scope::User, not_read),
    }
}

/// Reads `name` in the chain directory `dir` and keeps it unless its text
/// was sent already.
fn take(dir: &ChainDir, located: &Located, name: &str, gather: &mut Gather, sent: &mut Vec<String>) {
    let handle = match &dir.dir {
        Ok(handle) => handle,
        Err(verdict) => {
            gather.probe(dir.label(name), Scope::Project, verdict.clone());
            return;
        }
    };
    let path: PathBuf = located.root_path.join(&dir.rel).join(name);
    match fetch(handle, name, FILE_CAP) {
        Ok(fetched) => {
            let text = text_of(&fetched.snap.bytes);
            keep(fetched.part(Scope::Project, path, dir.label(name), text), gather, sent);
        }
        Err(not_read) if not_read.host_reads_it() => gather.probe_differs(
            dir.label(name),
            Scope::Project,
            not_read,
            "GitHub Copilot CLI follows this link and reads its target; agentspine never reads outside the root"
                .to_owned(),
        ),
        Err(not_read) => gather.probe(dir.label(name), Scope::Project, not_read),
    }
}

/// Includes `part` unless an earlier element has exactly its text (Copilot
/// sends each text once).
fn keep(part: Part, gather: &mut Gather, sent: &mut Vec<String>) {
    if sent.contains(&part.text) {
        gather.probe(part.label, part.scope, Verdict::Duplicate);
        return;
    }
    sent.push(part.text.clone());
    gather.include(part);
}

/// Warns when a directory of instruction files Copilot reads and
/// agentspine does not model yet exists (one stat each).
fn unmodelled(
    env: &Environment,
    located: &Located,
    dirs: &[ChainDir],
    last: usize,
    warnings: &mut Vec<Warning>,
) {
    let mut found: Vec<PathBuf> = Vec::new();
    if let Some(home) = env.copilot_home()
        && let Ok(handle) = located.root.reader().open_root(&home)
        && handle.stat("instructions").is_ok()
    {
        found.push(home.join("instructions"));
    }
    let mut levels = vec![0];
    if last > 0 {
        levels.push(last);
    }
    for i in levels {
        let Ok(handle) = &dirs[i].dir else { continue };
        for dir in UNMODELLED_DIRS {
            if handle.stat(dir).is_ok() {
                found.push(located.root_path.join(&dirs[i].rel).join(dir));
            }
        }
    }
    for dir in found {
        warnings.push(Warning {
            code: "not-modelled".to_owned(),
            message: format!(
                "GitHub Copilot CLI also sends the instruction files under {} (pasted whole or listed in a \
                 table); agentspine does not model them yet, so this text lacks them",
                dir.display()
            ),
            file: Some(dir),
        });
    }
}

/// Copilot's instruction section: `<custom_instruction>\n<text>\n</custom_instruction>`
/// per file, joined by a blank line.
pub fn render(parts: &[Part]) -> String {
    parts
        .iter()
        .map(|p| format!("<custom_instruction>\n{}\n</custom_instruction>", p.text))
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_keeps_crlf_and_whitespace_drops_the_bom_and_replaces_invalid_bytes() {
        assert_eq!(text_of(b"\xef\xbb\xbf  S1\r\nS2\r\n\n"), "  S1\r\nS2\r\n\n");
        assert_eq!(text_of(b"LATIN1 \xe9\xe8\n"), "LATIN1 \u{fffd}\u{fffd}\n");
        assert_eq!(text_of(b""), "");
    }
}
