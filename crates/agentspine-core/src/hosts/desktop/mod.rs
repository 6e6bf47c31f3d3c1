//! The desktop rule (ADR 0037) and `generic`, which is the same rule
//! without a profile.
//!
//! - Global `~/.pi/agent/AGENTS.md` first (desktop only; a fixed path).
//! - Per directory from the root down to the chain's end, the first
//!   non-blank of `AGENTS.override.md`, `AGENTS.md`, `CLAUDE.md`,
//!   `.claude/CLAUDE.md`.
//! - At most 32 KiB of UTF-8 content in all. Closer entries take
//!   precedence, so the cap is spent from the target back to the root:
//!   the closest files are kept whole, the file that crosses the cap keeps
//!   its beginning, cut on a character boundary, and says so in its label;
//!   the files nearer the root (and then the global file) are left out,
//!   each reported `budget-spent`.
//! - Each part is labelled with its path relative to the root; the text
//!   says that later, closer entries take precedence.

pub mod profile;
use std::path::PathBuf;

use crate::chain::{FILE_CAP, fetch};
use crate::env::Environment;
use crate::gather::Gather;
use crate::locate::Located;
use crate::paths::tilde;
use crate::resolution::{Part, Scope, Verdict};
use crate::text::{prefix_on_char_boundary, strip_bom};

/// Candidates per directory, in order.
pub const CANDIDATES: [&str; 4] = ["AGENTS.override.md", "AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md"];

/// Bytes of content in one chain.
pub const CAP: usize = 32 * 1024;

/// The desktop rule's fixed global file directory: `~/.pi/agent` (ADR
/// 0037 fixes the path; no variable moves it).
pub fn home(env: &Environment) -> Option<PathBuf> {
    env.home.as_ref().map(|h| h.join(".pi/agent"))
}

/// The text of a file as this rule keeps it: BOM dropped, trimmed.
fn clean(bytes: &[u8]) -> String {
    strip_bom(&String::from_utf8_lossy(bytes)).trim().to_owned()
}

/// Resolves the chain; `with_global` is false for `generic`.
pub(crate) fn resolve(env: &Environment, located: &Located, with_global: bool, gather: &mut Gather) {
    if with_global && let Some(home) = home(env) {
        let path = home.join("AGENTS.md");
        let label = tilde(&path, env.home.as_deref());
        match located.root.reader().open_root(&home) {
            Err(_) => gather.probe(label, Scope::User, Verdict::Missing),
            Ok(dir) => match fetch(&dir, "AGENTS.md", FILE_CAP) {
                Err(verdict) => gather.probe(label, Scope::User, verdict),
                Ok(snap) => match clean(&snap.bytes) {
                    text if text.is_empty() => gather.probe(label, Scope::User, Verdict::Empty),
                    text => gather.include(snap.part(Scope::User, path, label, text)),
                },
            },
        }
    }
    for dir in located.chain_dirs() {
        let handle = match &dir.dir {
            Ok(handle) => handle,
            Err(verdict) => {
                for name in CANDIDATES {
                    gather.probe(dir.label(name), Scope::Project, verdict.clone());
                }
                continue;
            }
        };
        let mut winner: Option<&str> = None;
        for name in CANDIDATES {
            let label = dir.label(name);
            if let Some(w) = winner {
                gather.probe(label, Scope::Project, crate::chain::shadowed(handle, name, w));
                continue;
            }
            match fetch(handle, name, FILE_CAP) {
                Err(verdict) => gather.probe(label, Scope::Project, verdict),
                Ok(snap) => match clean(&snap.bytes) {
                    text if text.is_empty() => gather.probe(label, Scope::Project, Verdict::Empty),
                    text => {
                        winner = Some(name);
                        let path = located.root_path.join(&label);
                        gather.include(snap.part(Scope::Project, path, label, text));
                    }
                },
            }
        }
    }
    gather.spend_cap_from_end(CAP, |text, room| prefix_on_char_boundary(text, room).to_owned());
}

/// The desktop text: a heading, the precedence rule, then each part under
/// its label. Empty when there are no parts.
pub fn render(parts: &[Part]) -> String {
    if parts.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "# Project instructions\n\nEntries run from the global file and the project root down to the \
         working directory. Where they disagree, later (closer) entries take precedence.\n",
    );
    for part in parts {
        out.push_str("\n## ");
        out.push_str(&part.label);
        if part.scope == Scope::User {
            out.push_str(" (global)");
        }
        if let Some(cut) = part.cut {
            out.push_str(&format!(" (cut at {} of {} bytes)", cut.kept, cut.total));
        }
        out.push_str("\n\n");
        out.push_str(&part.text);
        out.push('\n');
    }
    out
}
