//! pi's rules (HOSTS.md, "pi (coding agent)", as measured on 0.73).
//!
//! - Home: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`; its `AGENTS.md`,
//!   else its `CLAUDE.md`, is the global file.
//! - Per directory from the project root down to the chain's end, the
//!   first readable of `AGENTS.md`, `AGENTS.MD`, `CLAUDE.md`, `CLAUDE.MD`.
//!   An existing file wins even when empty, and is kept as it is (an empty
//!   one renders as a bare heading); something that cannot be read as a
//!   file (a directory) is passed over.
//! - No byte cap.
//! - pi itself walks from `/`; agentspine stops at the project root (git
//!   root or cwd) and reports files above it as `outside-root`.

use std::path::Path;

use crate::chain::{FILE_CAP, above_root, fetch};
use crate::env::Environment;
use crate::gather::{Gather, part};
use crate::locate::{Located, tilde};
use crate::resolution::{Part, Scope, Verdict};

/// Candidates per directory and for the global file, in order (pi checks
/// both spellings of the extension).
pub const CANDIDATES: [&str; 4] = ["AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"];

/// The text pi keeps of a file.
fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub(crate) fn resolve(env: &Environment, located: &Located, gather: &mut Gather) {
    let reader = located.root.reader();
    if let Some(home) = env.pi_home() {
        match reader.open_root(&home) {
            Err(_) => gather.probe(
                tilde(&home.join("AGENTS.md"), env.home.as_deref()),
                Scope::User,
                Verdict::Missing,
            ),
            Ok(dir) => first_of(
                &dir,
                &home,
                |name| tilde(&home.join(name), env.home.as_deref()),
                Scope::User,
                gather,
            ),
        }
    }
    for path in above_root(reader, located, &CANDIDATES) {
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
                first_of(handle, &base, |name| dir.label(name), Scope::Project, gather);
            }
            Err(verdict) => {
                for name in CANDIDATES {
                    gather.probe(dir.label(name), Scope::Project, verdict.clone());
                }
            }
        }
    }
}

/// The first existing candidate of a directory wins, empty or not.
fn first_of(
    dir: &agentspine_fs::Root,
    base: &Path,
    label: impl Fn(&str) -> String,
    scope: Scope,
    gather: &mut Gather,
) {
    let mut winner: Option<&str> = None;
    for name in CANDIDATES {
        if let Some(w) = winner {
            gather.probe(label(name), scope, Verdict::ShadowedBy { winner: w.to_owned() });
            continue;
        }
        match fetch(dir, name, FILE_CAP) {
            // pi checks existence through the link, so the link wins the
            // directory; agentspine reads neither it nor its siblings.
            Err(Verdict::Symlink) => {
                winner = Some(name);
                let note = "pi follows this link and reads its target; agentspine does not".to_owned();
                gather.probe_differs(label(name), scope, Verdict::Symlink, note);
            }
            Err(verdict) => gather.probe(label(name), scope, verdict),
            Ok(snap) => {
                winner = Some(name);
                gather.include(part(scope, base.join(name), label(name), &snap, text_of(&snap.bytes)));
            }
        }
    }
}

/// pi's `# Project Context` section: a `## <absolute path>` heading per
/// file, then its text.
pub fn render(parts: &[Part]) -> String {
    if parts.is_empty() {
        return String::new();
    }
    let mut out = String::from("# Project Context\n\nProject-specific instructions and guidelines:\n\n");
    for part in parts {
        out.push_str(&format!("## {}\n\n{}\n\n", part.path.display(), part.text));
    }
    out
}
