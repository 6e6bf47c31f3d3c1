//! pi's rules, one set of rules per measured version (HOSTS.md, "pi").
//!
//! Both versions share the walk; the rules say what differs:
//! - Home: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`; the first existing
//!   candidate there is the global file.
//! - Per directory from the project root down to the chain's end, the
//!   first existing candidate of the list. An existing file wins
//!   even when empty or blank and is kept as it is (no trimming);
//!   something that cannot be read as a file (a directory, a FIFO) is
//!   passed over.
//! - No byte cap.
//! - pi itself walks from `/`; agentspine stops at the project root (git
//!   root or cwd) and reports files above it as `outside-root`.
//!
//! [`current`] is pi 1.x (`--host pi`), [`v0_73`] the 0.73 rules
//! (`--host pi-0.73`), kept for users who have not upgraded.

pub mod current;
pub mod profile;
pub mod v0_73;

use std::path::{Path, PathBuf};

use crate::chain::{FILE_CAP, above_root, fetch};
use crate::env::Environment;
use crate::gather::Gather;
use crate::locate::Located;
use crate::paths::tilde;
use crate::resolution::{Scope, Verdict};
use crate::text::{lenient_utf8, strip_bom};

/// What one pi version does differently from the shared walk.
#[derive(Debug, Clone, Copy)]
pub struct Rules {
    /// The version measured, for `--explain` notes.
    pub version: &'static str,
    /// Candidates per directory and for the global file, in order (pi
    /// checks both spellings of the extension).
    pub candidates: &'static [&'static str],
    /// Whether a leading UTF-8 byte order mark is dropped.
    pub strips_bom: bool,
}

impl Rules {
    /// The text this version keeps of a file.
    fn text_of(&self, bytes: &[u8]) -> String {
        let text = lenient_utf8(bytes);
        if self.strips_bom { strip_bom(&text).to_owned() } else { text }
    }
}

/// pi's agent directory: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`.
pub fn home(env: &Environment) -> Option<PathBuf> {
    env.var_path("PI_CODING_AGENT_DIR").or_else(|| env.home.as_ref().map(|h| h.join(".pi/agent")))
}

pub(crate) fn resolve(rules: &Rules, env: &Environment, located: &Located, gather: &mut Gather) {
    let reader = located.root.reader();
    if let Some(home) = home(env) {
        match reader.open_root(&home) {
            Err(_) => gather.probe(
                tilde(&home.join(rules.candidates[0]), env.home.as_deref()),
                Scope::User,
                Verdict::Missing,
            ),
            Ok(dir) => first_of(
                rules,
                &dir,
                &home,
                |name| tilde(&home.join(name), env.home.as_deref()),
                Scope::User,
                gather,
            ),
        }
    }
    for path in above_root(reader, located, rules.candidates) {
        gather.probe_differs(
            path.display().to_string(),
            Scope::Project,
            Verdict::OutsideRoot,
            "pi reads instruction files up to `/`; agentspine stops at the project root".to_owned(),
        );
    }
    for dir in located.chain_dirs() {
        match &dir.dir {
            Ok(handle) => {
                let base = located.root_path.join(&dir.rel);
                first_of(rules, handle, &base, |name| dir.label(name), Scope::Project, gather);
            }
            Err(verdict) => {
                for name in rules.candidates {
                    gather.probe(dir.label(name), Scope::Project, verdict.clone());
                }
            }
        }
    }
}

/// The first existing candidate of a directory wins, empty or not.
fn first_of(
    rules: &Rules,
    dir: &agentspine_fs::Root,
    base: &Path,
    label: impl Fn(&str) -> String,
    scope: Scope,
    gather: &mut Gather,
) {
    let mut winner: Option<&str> = None;
    for name in rules.candidates {
        if let Some(w) = winner {
            gather.probe(label(name), scope, crate::chain::shadowed(dir, name, w));
            continue;
        }
        match fetch(dir, name, FILE_CAP) {
            // pi checks existence through the link: a link it can follow
            // wins the directory (agentspine reads its target when it stays
            // in the root); a dangling or looping one, like a directory, it
            // passes over.
            Err(not_read) if not_read.host_reads_it() => {
                winner = Some(name);
                let note = format!(
                    "pi {} follows this link and reads its target; agentspine never reads outside the root",
                    rules.version
                );
                gather.probe_differs(label(name), scope, not_read, note);
            }
            Err(not_read) => gather.probe(label(name), scope, not_read),
            Ok(snap) => {
                winner = Some(name);
                gather.include(snap.part(scope, base.join(name), label(name), rules.text_of(&snap.bytes)));
            }
        }
    }
}
