//! Gemini CLI's rules (HOSTS.md, "Gemini CLI (0.61)", measured on 0.61.0).
//!
//! - Profile: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`.
//! - Names: `context.fileName` (a string or a list; each trimmed, empty
//!   ones dropped) followed by `GEMINI.md` when the list lacks it: Gemini
//!   adds its default to whatever is configured. Settings are layered
//!   system defaults < user (`~/.gemini/settings.json`) < workspace
//!   (`<cwd>/.gemini/settings.json`, not when the cwd is the home) <
//!   system (`/etc/gemini-cli/settings.json`).
//! - Global: `<profile>/<name>` for each name, in list order.
//! - Root: the nearest directory at or above the cwd holding one of
//!   `context.memoryBoundaryMarkers` (default `.git`); none, or `[]`: the
//!   cwd alone. Every name is read in every directory from the root to
//!   the chain's end; the files found are ordered by their absolute path
//!   as strings (UTF-16 code units), not by depth.
//! - Each file's `@` imports are inlined in place (see `imports`), then
//!   the whole text is trimmed (JavaScript's whitespace, BOM included);
//!   a blank result is dropped. No byte cap.
//! - Text: the global files inside `<loaded_context>` (Gemini puts it in
//!   the system instruction), a blank line, then the project files inside
//!   `<loaded_context><project_context>` (its first user message); each
//!   file framed by `--- Context from: <path> ---` and
//!   `--- End of Context from: <path> ---`, files apart by a blank line.
//! - Gemini follows links (a linked context file, an import through a
//!   link); agentspine reads neither and says so per candidate.

pub mod imports;
pub mod profile;
mod settings;

use std::path::{Path, PathBuf};

use agentspine_fs::{Reader, Root};

use crate::chain::{FILE_CAP, NotRead, fetch};
use crate::env::Environment;
use crate::gather::Gather;
use crate::locate::{Located, find_marked_root};
use crate::paths::tilde;
use crate::policy::NeverProjects;
use crate::resolution::{Part, Scope, Verdict};
use crate::text::lenient_utf8;

pub(crate) use settings::load_settings;
pub use settings::{GeminiSettings, strip_comments};

/// Gemini's default context file name, always among the names read.
pub const DEFAULT_NAME: &str = "GEMINI.md";

/// Gemini CLI's user home: `$GEMINI_CLI_HOME` (it replaces `$HOME` for
/// Gemini CLI), else `$HOME`.
pub fn user_home(env: &Environment) -> Option<PathBuf> {
    env.var_path("GEMINI_CLI_HOME").or_else(|| env.home.clone())
}

/// Gemini CLI's profile: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`.
pub fn home(env: &Environment) -> Option<PathBuf> {
    user_home(env).map(|h| h.join(".gemini"))
}

/// Gemini CLI's system defaults file (the lowest settings layer):
/// `$GEMINI_CLI_SYSTEM_DEFAULTS_PATH`, else `system-defaults.json` beside
/// its system settings file.
pub fn system_defaults_file(env: &Environment) -> PathBuf {
    env.var_path("GEMINI_CLI_SYSTEM_DEFAULTS_PATH").unwrap_or_else(|| {
        env.gemini_system_settings.parent().unwrap_or(std::path::Path::new("/")).join("system-defaults.json")
    })
}

/// Gemini CLI's root rule, for [`crate::locate::locate`].
pub(crate) fn find_root(
    reader: &Reader,
    never: &NeverProjects,
    settings: &GeminiSettings,
    cwd: &Path,
) -> (PathBuf, String) {
    match find_marked_root(reader, never, cwd, &settings.markers) {
        Some((root, marker)) => (root, format!("nearest memory boundary marker `{marker}`")),
        None if settings.markers.is_empty() => {
            (cwd.to_path_buf(), "the working directory (context.memoryBoundaryMarkers is empty)".to_owned())
        }
        None => (cwd.to_path_buf(), "the working directory (no memory boundary marker above it)".to_owned()),
    }
}

/// A context file found, waiting to be read in Gemini's order.
struct Found {
    path: PathBuf,
    label: String,
    key: Vec<u16>,
    dir: Root,
    dir_path: PathBuf,
    name: String,
}

pub(crate) fn resolve(env: &Environment, located: &Located, settings: &GeminiSettings, gather: &mut Gather) {
    let reader = located.root.reader();
    if let Some(home) = home(env) {
        global(reader, env, &home, settings, gather);
    }
    let root_marked = settings.markers.iter().any(|m| located.root.stat(m).is_ok());
    let mut found = Vec::new();
    for dir in located.chain_dirs() {
        let handle = match &dir.dir {
            Ok(handle) => handle,
            Err(verdict) => {
                for name in &settings.names {
                    gather.probe(dir.label(name), Scope::Project, verdict.clone());
                }
                continue;
            }
        };
        let dir_path = located.root_path.join(&dir.rel);
        for name in &settings.names {
            let label = dir.label(name);
            // Gemini asks only whether the name is there (through a link);
            // what it is decides when it is read.
            match handle.stat(name) {
                Err(e) if e.code() != agentspine_fs::Code::Symlink => {
                    gather.probe(label, Scope::Project, crate::chain::verdict_of(&e))
                }
                _ => {
                    let path = dir_path.join(name);
                    let key = path.to_string_lossy().encode_utf16().collect();
                    found.push(Found {
                        path,
                        label,
                        key,
                        dir: handle.clone(),
                        dir_path: dir_path.clone(),
                        name: name.clone(),
                    });
                }
            }
        }
    }
    found.sort_by(|a, b| a.key.cmp(&b.key));
    let mut files = Files::default();
    for file in found {
        // Imports may reach up to the marked root; without a marker, Gemini
        // holds them to the importing file's own directory.
        let (boundary, boundary_path) = if root_marked {
            (&located.root, located.root_path.as_path())
        } else {
            (&file.dir, file.dir_path.as_path())
        };
        let mut context = imports::Context { boundary, boundary_path, scope: Scope::Project, count: 0 };
        let at = (&file.dir, file.dir_path.as_path(), file.name.as_str());
        one_file(at, file.path, file.label, &mut context, &mut files, gather);
    }
}

/// The files read so far, by device and inode: Gemini reads a file once
/// however many of its names (a link and its target) it finds, under the
/// name it finds first.
#[derive(Default)]
struct Files(std::collections::HashSet<(u64, u64)>);

fn global(reader: &Reader, env: &Environment, home: &Path, settings: &GeminiSettings, gather: &mut Gather) {
    let Ok(dir) = reader.open_root(home) else {
        for name in &settings.names {
            gather.probe(tilde(&home.join(name), env.home.as_deref()), Scope::User, Verdict::Missing);
        }
        return;
    };
    let mut files = Files::default();
    for name in &settings.names {
        let path = home.join(name);
        let label = tilde(&path, env.home.as_deref());
        let mut context =
            imports::Context { boundary: &dir, boundary_path: home, scope: Scope::User, count: 0 };
        one_file((&dir, home, name), path, label, &mut context, &mut files, gather);
    }
}

/// Reads one context file, inlines its imports, trims it; included when
/// something is left.
fn one_file(
    (dir, dir_path, name): (&Root, &Path, &str),
    path: PathBuf,
    label: String,
    context: &mut imports::Context<'_>,
    files: &mut Files,
    gather: &mut Gather,
) {
    let scope = context.scope;
    match fetch(dir, name, FILE_CAP) {
        Err(not_read) if not_read.host_reads_it() => gather.probe_differs(
            label,
            scope,
            not_read,
            "Gemini CLI follows this link and reads its target; agentspine does not".to_owned(),
        ),
        Err(not_read) => gather.probe(label, scope, not_read),
        Ok(snap) if !files.0.insert((snap.identity.dev, snap.identity.ino)) => {
            gather.probe(label, scope, NotRead { verdict: Verdict::Duplicate, link: snap.link.clone() })
        }
        Ok(snap) => {
            let raw = lenient_utf8(&snap.bytes);
            let base = path.parent().map_or_else(|| dir_path.to_path_buf(), Path::to_path_buf);
            let mut inner = Gather::default();
            let processed = imports::inline(&raw, &base, 0, &[], context, &mut inner);
            let text = js_trim(&processed).to_owned();
            if text.is_empty() {
                gather.probe(label, scope, Verdict::Empty);
            } else {
                gather.include(snap.part(scope, path, label.clone(), text));
            }
            for probe in inner.probes {
                gather.probes.push(probe);
            }
        }
    }
}

/// JavaScript's `String.prototype.trim`: its whitespace is Unicode's
/// without U+0085, plus the byte-order mark U+FEFF.
pub fn js_trim(text: &str) -> &str {
    text.trim_matches(|c: char| (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}')
}

fn frame(parts: &[&Part]) -> String {
    parts
        .iter()
        .map(|p| {
            let path = p.path.display();
            format!("--- Context from: {path} ---\n{}\n--- End of Context from: {path} ---", p.text)
        })
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Gemini's text: the global block (its system instruction), a blank
/// line, the project block (its first user message); either may be
/// absent.
pub fn render(parts: &[Part]) -> String {
    let global: Vec<&Part> = parts.iter().filter(|p| p.scope == Scope::User).collect();
    let project: Vec<&Part> = parts.iter().filter(|p| p.scope != Scope::User).collect();
    let mut blocks = Vec::new();
    if !global.is_empty() {
        blocks.push(format!("<loaded_context>\n{}\n</loaded_context>", frame(&global)));
    }
    if !project.is_empty() {
        blocks.push(format!(
            "<loaded_context>\n<project_context>\n{}\n</project_context>\n</loaded_context>",
            frame(&project)
        ));
    }
    blocks.join("\n\n")
}

/// The framed text Gemini appends to a file tool's result for context
/// files it loads just in time (the same frame, no wrapper).
pub fn render_just_in_time(parts: &[Part]) -> String {
    frame(&parts.iter().collect::<Vec<_>>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_like_javascript() {
        assert_eq!(js_trim("\u{feff}  text\r\n\t"), "text");
        assert_eq!(js_trim("\u{85}x\u{85}"), "\u{85}x\u{85}");
        assert_eq!(js_trim("\u{3000}x\u{a0}"), "x");
    }
}
