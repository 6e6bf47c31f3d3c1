//! opencode's rules (HOSTS.md, "opencode"; measured on 1.18.33:
//! tests/e2e/OPENCODE-MEASURED.md).
//!
//! - Global: the first of `<config>/AGENTS.md` and `~/.claude/CLAUDE.md`
//!   that exists, where `<config>` is `$OPENCODE_CONFIG_DIR`, else
//!   `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`. Existing is
//!   enough to take the slot: an empty or unreadable file sends nothing
//!   and the next is not looked at. `OPENCODE_DISABLE_CLAUDE_CODE` (or
//!   `…_PROMPT`) drops every `CLAUDE.md`, global and project.
//! - Project: the names `AGENTS.md`, `CLAUDE.md`, `CONTEXT.md` in that
//!   order, case-sensitive. For each name, every directory from the cwd up
//!   to the worktree root (the git root; without one opencode walks up to
//!   `/`) that holds it; the first name with any hit is used with all its
//!   hits and the others are never read. A hit is anything that exists by
//!   that name (an empty or unreadable file, a directory, a link to a
//!   directory: they win the name and send nothing); a dangling link
//!   does not exist. A link loop by a name anywhere from the cwd up to the
//!   root makes opencode's search for that name fail: none of its copies
//!   are sent and the next name is tried.
//! - The text is the file as read: no trimming, CRLF kept, a leading BOM
//!   dropped, invalid UTF-8 replaced per byte; an empty file gives no
//!   entry. No byte cap (agentspine reads at most 32 MiB of one file).
//! - Order: the global file, then the project files closest to the cwd
//!   first. Each is `Instructions from: <absolute path>\n<content>`,
//!   joined by `\n`, after its `<env>` block.
//! - opencode follows every link, out of the project too, and labels the
//!   file with the link's path; agentspine reads a link inside the root by
//!   its target and never one out of it, and says so per candidate.
//! - `OPENCODE_DISABLE_PROJECT_CONFIG` set to `1` drops every project
//!   file (and the project's configs); the global file stays.
//! - Then the files its configs' `instructions` name (`instructions`): the
//!   ones inside the root read as above, the ones out of the project
//!   (`~/…`, absolute paths elsewhere, `../` past the root, URLs) listed
//!   `outside-root` and never opened.

pub mod instructions;
pub mod profile;

use std::path::{Path, PathBuf};

use crate::chain::{ChainDir, NotRead, above_root, fetch};
use crate::env::Environment;
use crate::gather::Gather;
use crate::locate::Located;
use crate::paths::tilde;
use agentspine_fs::LinkRefusal;

use crate::resolution::{Part, Scope, Verdict, Warning};
use crate::text::{lenient_utf8, strip_bom};

/// The most agentspine reads of one file for opencode, which has no cap
/// (a 5 MiB `CLAUDE.md` is sent whole: claude_too_large).
pub(crate) const CAP: u64 = 32 * 1024 * 1024;

/// The project names, in the order opencode tries them.
pub const NAMES: [&str; 3] = ["AGENTS.md", "CLAUDE.md", "CONTEXT.md"];

/// The names opencode reads under `env` (without `CLAUDE.md` when its
/// Claude Code compatibility is turned off).
pub fn names(env: &Environment) -> Vec<&'static str> {
    NAMES.into_iter().filter(|n| *n != "CLAUDE.md" || !claude_off(env)).collect()
}

/// opencode's configuration directory: `$OPENCODE_CONFIG_DIR`, else
/// `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`.
pub fn home(env: &Environment) -> Option<PathBuf> {
    if let Some(dir) = env.var_path("OPENCODE_CONFIG_DIR") {
        return Some(dir);
    }
    let base = env.config_home.clone().or_else(|| env.home.as_ref().map(|h| h.join(".config")))?;
    Some(base.join("opencode"))
}

/// `$OPENCODE_DISABLE_CLAUDE_CODE` or `$OPENCODE_DISABLE_CLAUDE_CODE_PROMPT`
/// on: opencode reads no `CLAUDE.md`.
pub(crate) fn claude_off(env: &Environment) -> bool {
    env.var_on("OPENCODE_DISABLE_CLAUDE_CODE") || env.var_on("OPENCODE_DISABLE_CLAUDE_CODE_PROMPT")
}

/// `$OPENCODE_DISABLE_PROJECT_CONFIG` on: opencode reads no project
/// instruction file and no project config.
pub(crate) fn project_config_off(env: &Environment) -> bool {
    env.var_on("OPENCODE_DISABLE_PROJECT_CONFIG")
}

/// Whether a candidate that was not read exists for opencode (it takes
/// the name or the slot): everything but nothing there, a dangling link
/// and a link loop.
fn exists(not_read: &NotRead) -> bool {
    use agentspine_fs::LinkRefusal::{Dangling, Loop};
    !matches!(not_read.verdict, Verdict::Missing | Verdict::LinkRefused { refusal: Dangling | Loop, .. })
}

/// The text opencode keeps of a file.
fn text_of(bytes: &[u8]) -> String {
    strip_bom(&lenient_utf8(bytes)).to_owned()
}

pub(crate) fn resolve(
    env: &Environment,
    located: &Located,
    found_git: bool,
    gather: &mut Gather,
    warnings: &mut Vec<Warning>,
) {
    global(env, located, gather);
    let dirs = located.chain_dirs();
    project(env, located, &dirs, found_git, gather);
    instructions::resolve(env, located, &dirs, gather, warnings);
}

/// The project files: the first name found from the cwd up to the root
/// (`dirs`: the chain's directories from the root down).
fn project(env: &Environment, located: &Located, dirs: &[ChainDir], found_git: bool, gather: &mut Gather) {
    let names = names(env);
    if project_config_off(env) {
        for dir in dirs.iter().rev() {
            for name in &names {
                if let Ok(handle) = &dir.dir
                    && handle.stat(name).is_ok()
                {
                    gather.probe(
                        dir.label(name),
                        Scope::Project,
                        Verdict::Disabled {
                            reason: "OPENCODE_DISABLE_PROJECT_CONFIG: opencode reads no project file"
                                .to_owned(),
                        },
                    );
                }
            }
        }
        return;
    }
    let reader = located.root.reader();
    // Without a git root opencode walks on up to `/`.
    if !found_git {
        for path in above_root(reader, located, &names) {
            gather.probe_differs(
                path.display().to_string(),
                Scope::Project,
                Verdict::OutsideRoot,
                "without a git repository opencode reads these names up to `/`; agentspine stops at the \
                 project root"
                    .to_owned(),
            );
        }
    }
    let dirs: Vec<&ChainDir> = dirs.iter().rev().collect();
    let mut winner: Option<&str> = None;
    for name in names {
        if let Some(won) = winner {
            for dir in &dirs {
                let verdict = match &dir.dir {
                    Ok(handle) => crate::chain::shadowed(handle, name, won),
                    Err(verdict) => verdict.clone(),
                };
                gather.probe(dir.label(name), Scope::Project, verdict);
            }
            continue;
        }
        // opencode's search for a name fails whole on a link loop by that
        // name anywhere on the way up (its `exists` throws on ELOOP): none
        // of that name's hits count, and the next name is tried (measured:
        // links_loop, links_loop_below_root).
        let mut found = Vec::with_capacity(dirs.len());
        for dir in &dirs {
            match &dir.dir {
                Ok(handle) => found.push((dir, Ok(fetch(handle, name, CAP)))),
                Err(verdict) => found.push((dir, Err(verdict.clone()))),
            }
        }
        let looped = found.iter().any(|(_, r)| {
            matches!(
                r,
                Ok(Err(NotRead { verdict: Verdict::LinkRefused { refusal: LinkRefusal::Loop, .. }, .. }))
            )
        });
        if looped {
            for (dir, r) in found {
                let reason =
                    format!("a link loop named {name} on the way up makes opencode's search for {name} fail");
                match r {
                    Ok(Err(not_read))
                        if !exists(&not_read) || matches!(not_read.verdict, Verdict::LinkRefused { .. }) =>
                    {
                        gather.probe(dir.label(name), Scope::Project, not_read)
                    }
                    Ok(_) => gather.probe(dir.label(name), Scope::Project, Verdict::Skipped { reason }),
                    Err(verdict) => gather.probe(dir.label(name), Scope::Project, verdict),
                }
            }
            continue;
        }
        for (dir, r) in found {
            let r = match r {
                Ok(r) => r,
                Err(verdict) => {
                    gather.probe(dir.label(name), Scope::Project, verdict);
                    continue;
                }
            };
            let path = located.root_path.join(&dir.rel).join(name);
            match r {
                Ok(fetched) => {
                    winner = Some(name);
                    let text = text_of(&fetched.snap.bytes);
                    if text.is_empty() {
                        gather.probe(dir.label(name), Scope::Project, Verdict::Empty);
                    } else {
                        gather.include(fetched.part(Scope::Project, path, dir.label(name), text));
                    }
                }
                Err(not_read) if not_read.host_reads_it() => {
                    winner = Some(name);
                    gather.probe_differs(
                        dir.label(name),
                        Scope::Project,
                        not_read,
                        "opencode follows this link and reads its target; agentspine never reads outside the \
                         root"
                            .to_owned(),
                    );
                }
                Err(not_read) => {
                    if exists(&not_read) {
                        winner = Some(name);
                    }
                    gather.probe(dir.label(name), Scope::Project, not_read);
                }
            }
        }
    }
}

/// The global file: the first candidate that exists takes the slot.
fn global(env: &Environment, located: &Located, gather: &mut Gather) {
    let reader = located.root.reader();
    let mut candidates: Vec<PathBuf> = home(env).map(|c| c.join("AGENTS.md")).into_iter().collect();
    if !claude_off(env)
        && let Some(home) = &env.home
    {
        candidates.push(home.join(".claude").join("CLAUDE.md"));
    }
    let mut taken = false;
    for path in candidates {
        let label = tilde(&path, env.home.as_deref());
        if taken {
            gather.probe(
                label,
                Scope::User,
                Verdict::ShadowedBy { winner: "an earlier global file".to_owned() },
            );
            continue;
        }
        let (Some(dir), Some(name)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
            continue;
        };
        let Ok(handle) = reader.open_root(dir) else {
            gather.probe(label, Scope::User, Verdict::Missing);
            continue;
        };
        match fetch(&handle, name, CAP) {
            Ok(fetched) => {
                taken = true;
                let text = text_of(&fetched.snap.bytes);
                if text.is_empty() {
                    gather.probe(label, Scope::User, Verdict::Empty);
                } else {
                    gather.include(fetched.part(Scope::User, path.clone(), label, text));
                }
            }
            Err(not_read) => {
                taken |= exists(&not_read);
                gather.probe(label, Scope::User, not_read);
            }
        }
    }
}

/// opencode's instruction text: `Instructions from: <path>\n<content>` per
/// file, joined by a line break (the global file first, then the project
/// files closest to the cwd first, as gathered).
pub fn render(parts: &[Part]) -> String {
    parts
        .iter()
        .map(|p| format!("Instructions from: {}\n{}", display(&p.path), p.text))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A path as opencode prints it.
fn display(path: &Path) -> String {
    path.display().to_string()
}
