//! The install check a session's first hook makes: whether the host's hook
//! file names an agentspine that is missing, or another file than the one
//! running. Its answer goes to the user (the host's user-visible message
//! field), never to the model.
//!
//! It runs on the hook's hot path, once per session (SessionStart), so it
//! is kept to a few system calls: one confined read of the one file
//! `agentspine install` writes the hooks into (Claude Code's user
//! `settings.json`, Codex's `hooks.json`, Gemini CLI's `settings.json`,
//! which also holds its MCP entry), the running binary's path, and one
//! look at each other absolute program named. A bare `agentspine` (found
//! on `PATH`), and MCP entries kept in other files (`~/.claude.json`,
//! Codex's `config.toml`), are left to `agentspine doctor`, which also
//! asks each program its version.

use std::path::Path;

use agentspine_core::hosts::profile::Carrier;
use agentspine_core::{Environment, Host};
use agentspine_fs::{FileKind, Reader};

use super::json::Json;

/// Largest hook file looked at; a larger one is left to `doctor`.
const MAX_HOOK_FILE: u64 = 1 << 20;

/// One program the hook file names that will not run this agentspine.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stray {
    program: String,
    /// false: nothing there; true: another file than the running one.
    other_file: bool,
}

/// What one look at a program's path found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Look {
    Missing,
    /// A regular file: `(device, inode)`.
    File(u64, u64),
    /// A link or anything else: it exists, and what it runs is told apart
    /// by `doctor` (which runs it), not here.
    Other,
}

/// The user-visible notice for `host`'s installed entries, if any names a
/// missing binary or another file than `running`.
///
/// `reader` is the hook's own: a root it already opened (Claude Code's
/// config home, read for the host's settings) is not opened again.
pub fn notice(host: Host, env: &Environment, reader: &Reader) -> Option<String> {
    let install = host.profile().install.as_ref().filter(|i| i.carrier == Carrier::CommandHooks)?;
    // The file `install` writes: the host's first user file.
    let file = (install.user_hook_files)(env).into_iter().next()?;
    let (dir, name) = (file.parent()?, file.file_name()?.to_str()?);
    let text = read(reader, dir, name)?;
    let running = std::env::current_exe().ok()?;
    // The file may hold the MCP entry too (Gemini CLI's settings).
    let mcp_here = (install.user_mcp_files)(env).iter().any(|(f, _)| *f == file);
    let strays = strays(reader, host, mcp_here, &text, &running);
    if strays.is_empty() {
        return None;
    }
    let what: Vec<String> = strays
        .iter()
        .map(|s| {
            if s.other_file {
                format!("`{}` is another binary than this one ({})", s.program, running.display())
            } else {
                format!("`{}` does not exist", s.program)
            }
        })
        .collect();
    Some(format!(
        "agentspine: {} names {}; those entries fail or answer with another build. Run `agentspine install {}` \
         with the agentspine you keep, and `agentspine doctor --host {}` for the details",
        dir.join(name).display(),
        what.join(", "),
        host.as_str(),
        host.as_str()
    ))
}

/// The file's text; `None` when missing, unreadable, too large or not UTF-8
/// (nothing is reported then: `doctor` says why).
fn read(reader: &Reader, dir: &Path, name: &str) -> Option<String> {
    let snapshot = reader.open_root(dir).and_then(|root| root.read_remembered(name, MAX_HOOK_FILE)).ok()?;
    String::from_utf8(snapshot.bytes).ok()
}

/// The distinct absolute programs of agentspine's entries in `text` that
/// are missing or another file than `running`, in file order.
fn strays(reader: &Reader, host: Host, mcp_here: bool, text: &str, running: &Path) -> Vec<Stray> {
    let Ok(Json::Object(root)) = serde_json::from_str::<Json>(text) else { return Vec::new() };
    let mut programs: Vec<String> = Vec::new();
    let mut add = |program: String| {
        if !programs.contains(&program) {
            programs.push(program);
        }
    };
    if let Some(Json::Object(hooks)) = root.get("hooks") {
        for list in hooks.values() {
            let Json::Array(groups) = list else { continue };
            for group in groups {
                let Some(Json::Array(entries)) = group.get("hooks") else { continue };
                for command in entries.iter().filter_map(|h| h.get("command").and_then(Json::as_str)) {
                    if super::hooks::is_ours(command, host.as_str()) {
                        add(super::drift::program_of(command));
                    }
                }
            }
        }
    }
    if mcp_here
        && let Some(command) =
            root.get("mcpServers").and_then(|m| m.get("agentspine")).and_then(|s| s.get("command"))
        && let Some(command) = command.as_str()
    {
        add(command.to_owned());
    }
    let running_text = running.to_str().unwrap_or_default();
    let mut running_id = None;
    let mut out = Vec::new();
    for program in programs {
        // Same path: the file running now. A bare name: PATH's business.
        if program == running_text || !Path::new(&program).is_absolute() {
            continue;
        }
        match look(reader, Path::new(&program)) {
            Look::Missing => out.push(Stray { program, other_file: false }),
            Look::Other => {}
            file => {
                if *running_id.get_or_insert_with(|| look(reader, running)) != file {
                    out.push(Stray { program, other_file: true });
                }
            }
        }
    }
    out
}

/// One look at `path` (the last component not followed).
fn look(reader: &Reader, path: &Path) -> Look {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else { return Look::Missing };
    match reader.open_root(dir).and_then(|root| root.stat(name)) {
        Ok(meta) if meta.kind == FileKind::File => Look::File(meta.identity.dev, meta.identity.ino),
        Ok(_) => Look::Other,
        Err(e) if e.code() == agentspine_fs::Code::NotFound => Look::Missing,
        // Unreadable, a link on the way: not something to claim here.
        Err(_) => Look::Other,
    }
}
