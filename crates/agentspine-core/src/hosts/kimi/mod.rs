//! Kimi Code's rules (HOSTS.md, "Kimi Code"; measured on 2.1.0:
//! tests/e2e/KIMI-MEASURED.md).
//!
//! - User files: `$KIMI_CODE_HOME/AGENTS.md` (else
//!   `~/.kimi-code/AGENTS.md`), then the first of `~/.agents/AGENTS.md`,
//!   `~/.agents/agents.md` that has text.
//! - Project: every directory from the git root down to the cwd (the cwd
//!   alone without git); in each, `.kimi-code/AGENTS.md`, then the first
//!   of `AGENTS.md`, `agents.md` that has text. A file that cannot be read
//!   as a regular file, or is blank once trimmed, gives way to the next
//!   name. Nothing below the cwd at start; no `CLAUDE.md`.
//! - The text: bytes that are not valid UTF-8 are dropped, then the text
//!   is trimmed as JavaScript trims (the BOM included). No byte cap.
//! - Each file is `<!-- From: <path> -->\n<text>`, joined by a blank line.
//! - Kimi follows links anywhere and labels a file with the link's path;
//!   agentspine reads a link inside the root by its target and never one
//!   out of it, and says so per candidate.

pub mod hooks;
pub mod profile;

use std::path::{Path, PathBuf};

use crate::chain::{FILE_CAP, NotRead, fetch};
use crate::env::Environment;
use crate::gather::Gather;
use crate::hosts::gemini::js_trim;
use crate::locate::Located;
use crate::paths::tilde;
use crate::resolution::{Part, Scope, Verdict};

/// The names read in each project directory: Kimi's own first, then the
/// first of the others that has text.
pub const NAMES: [&str; 3] = [".kimi-code/AGENTS.md", "AGENTS.md", "agents.md"];

/// The keys a `[[hooks]]` entry of Kimi's config.toml may hold (measured
/// on 2.1.0): one other key in any entry makes Kimi drop every hook.
pub const HOOK_KEYS: [&str; 4] = ["event", "command", "matcher", "timeout"];

/// The events a `[[hooks]]` entry may name (2.1.0's list, from its config
/// error): one other event drops every hook too.
pub const HOOK_EVENTS: [&str; 20] = [
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionRequest",
    "PermissionResult",
    "UserPromptSubmit",
    "UserPromptQueued",
    "TurnStarted",
    "Stop",
    "StopFailure",
    "Interrupt",
    "SessionStart",
    "SessionEnd",
    "SessionHeartbeat",
    "SubagentStart",
    "SubagentStop",
    "TaskStarted",
    "PreCompact",
    "PostCompact",
    "Notification",
];

/// The seconds a `timeout` may give (outside them every hook is dropped).
pub const HOOK_TIMEOUT: std::ops::RangeInclusive<i64> = 1..=600;

/// The text Kimi keeps of a file: invalid bytes dropped, trimmed as
/// JavaScript trims.
/// Kimi Code's home: `$KIMI_CODE_HOME`, else `~/.kimi-code`.
pub fn home(env: &Environment) -> Option<PathBuf> {
    env.var_path("KIMI_CODE_HOME").or_else(|| env.home.as_ref().map(|h| h.join(".kimi-code")))
}

fn text_of(bytes: &[u8]) -> String {
    let decoded: String = bytes.utf8_chunks().map(|chunk| chunk.valid()).collect();
    js_trim(&decoded).to_owned()
}

pub(crate) fn resolve(env: &Environment, located: &Located, gather: &mut Gather) {
    let reader = located.root.reader();
    if let Some(home) = home(env) {
        read_first(reader, &home, &["AGENTS.md"], env, Scope::User, gather);
    }
    if let Some(home) = &env.home {
        read_first(reader, &home.join(".agents"), &["AGENTS.md", "agents.md"], env, Scope::User, gather);
    }
    for dir in located.chain_dirs() {
        let handle = match &dir.dir {
            Ok(handle) => handle,
            Err(verdict) => {
                for name in NAMES {
                    gather.probe(dir.label(name), Scope::Project, verdict.clone());
                }
                continue;
            }
        };
        let base = located.root_path.join(&dir.rel);
        take(handle, &base, NAMES[0], dir.label(NAMES[0]), Scope::Project, gather);
        let mut won: Option<&str> = None;
        for name in &NAMES[1..] {
            match won {
                Some(winner) => gather.probe(
                    dir.label(name),
                    Scope::Project,
                    crate::chain::shadowed(handle, name, winner),
                ),
                None => {
                    if take(handle, &base, name, dir.label(name), Scope::Project, gather) {
                        won = Some(name);
                    }
                }
            }
        }
    }
}

/// The first of `names` in the directory `dir` that has text.
fn read_first(
    reader: &agentspine_fs::Reader,
    dir: &Path,
    names: &[&str],
    env: &Environment,
    scope: Scope,
    gather: &mut Gather,
) {
    let Ok(handle) = reader.open_root(dir) else {
        gather.probe(tilde(&dir.join(names[0]), env.home.as_deref()), scope, Verdict::Missing);
        return;
    };
    let mut won: Option<&str> = None;
    for name in names {
        let label = tilde(&dir.join(name), env.home.as_deref());
        match won {
            Some(winner) => gather.probe(label, scope, crate::chain::shadowed(&handle, name, winner)),
            None => {
                if take(&handle, dir, name, label, scope, gather) {
                    won = Some(name);
                }
            }
        }
    }
}

/// Reads `name` in `dir` and includes it when it has text; whether it did.
fn take(
    dir: &agentspine_fs::Root,
    base: &Path,
    name: &str,
    label: String,
    scope: Scope,
    gather: &mut Gather,
) -> bool {
    match fetch(dir, name, FILE_CAP) {
        Ok(fetched) => {
            let text = text_of(&fetched.snap.bytes);
            if text.is_empty() {
                gather.probe(label, scope, Verdict::Empty);
                return false;
            }
            gather.include(fetched.part(scope, base.join(name), label, text));
            true
        }
        Err(not_read) if not_read.host_reads_it() => {
            note_link(label, scope, not_read, gather);
            false
        }
        Err(not_read) => {
            gather.probe(label, scope, not_read);
            false
        }
    }
}

/// A link Kimi would follow and agentspine does not.
fn note_link(label: String, scope: Scope, not_read: NotRead, gather: &mut Gather) {
    gather.probe_differs(
        label,
        scope,
        not_read,
        "Kimi Code follows this link and reads its target; agentspine never reads outside the root"
            .to_owned(),
    );
}

/// Kimi's instruction text: `<!-- From: <path> -->\n<text>` per file,
/// joined by a blank line.
pub fn render(parts: &[Part]) -> String {
    parts
        .iter()
        .map(|p| format!("<!-- From: {} -->\n{}", p.path.display(), p.text))
        .collect::<Vec<_>>()
        .join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_bytes_are_dropped_and_the_text_trimmed_as_javascript_does() {
        assert_eq!(text_of(b"ok \xff\xfe bytes \xc3( end caf\xe9"), "ok  bytes ( end caf");
        assert_eq!(text_of("\u{feff}\r\n x\r\ny \u{3000}".as_bytes()), "x\r\ny");
        assert_eq!(text_of("\u{85}x\u{200b}".as_bytes()), "\u{85}x\u{200b}");
    }
}
