//! Codex CLI's rules (HOSTS.md, "Codex CLI").
//!
//! - Home: `$CODEX_HOME`, else `~/.codex`.
//! - Global: the first of `AGENTS.override.md`, `AGENTS.md` in the home
//!   whose trimmed text is non-empty, kept trimmed.
//! - Root: the nearest directory at or above the cwd holding one of
//!   `project_root_markers` (default `.git`); none (or `[]`): the cwd.
//!   Markers come from the user's and the system's config only.
//! - Per directory from the root to the chain's end: the first candidate
//!   that is a regular file among `AGENTS.override.md`, `AGENTS.md` and
//!   `project_doc_fallback_filenames` (plain names only). A blank winner
//!   still takes the slot and is then dropped.
//! - `project_doc_max_bytes` (default 32768) is one total for all project
//!   files, spent root first; the file that crosses it is cut at the byte
//!   and decoded leniently; later files are dropped; `0` turns project docs
//!   off, as does `trust_level = "untrusted"` for the project.

mod claude_md;
pub mod profile;
use std::path::{Path, PathBuf};

use agentspine_fs::{LinkRefusal, Reader};

use crate::chain::{FILE_CAP, NotRead, fetch, fetch_head};
use crate::config::{parse_toml, read_config, wrong_type};
use crate::env::Environment;
use crate::gather::Gather;
use crate::locate::{Located, find_marked_root};
use crate::paths::tilde;
use crate::resolution::{Cut, Part, Scope, Verdict, Warning};
use crate::text::lenient_utf8;

/// Codex's default `project_doc_max_bytes`.
pub const DEFAULT_MAX_BYTES: u64 = 32 * 1024;

/// The settings of Codex's config files that drive discovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodexConfig {
    /// `project_doc_max_bytes`.
    pub max_bytes: u64,
    /// `project_doc_fallback_filenames`, plain names only.
    pub fallback_filenames: Vec<String>,
    /// `project_root_markers`.
    pub root_markers: Vec<String>,
    /// Projects marked `trust_level = "untrusted"`.
    pub untrusted: Vec<PathBuf>,
}

impl Default for CodexConfig {
    fn default() -> Self {
        CodexConfig {
            max_bytes: DEFAULT_MAX_BYTES,
            fallback_filenames: Vec::new(),
            root_markers: vec![".git".to_owned()],
            untrusted: Vec::new(),
        }
    }
}

/// Codex's home: `$CODEX_HOME`, else `~/.codex`.
pub fn home(env: &Environment) -> Option<PathBuf> {
    env.var_path("CODEX_HOME").or_else(|| env.home.as_ref().map(|h| h.join(".codex")))
}

/// Reads the system config, the user's config, then the profile's, later
/// layers overriding earlier ones key by key.
pub(crate) fn load_config(reader: &Reader, env: &Environment, warnings: &mut Vec<Warning>) -> CodexConfig {
    let mut config = CodexConfig::default();
    let mut layers: Vec<(PathBuf, String)> = vec![(env.codex_system_dir.clone(), "config.toml".to_owned())];
    if let Some(home) = home(env) {
        layers.push((home.clone(), "config.toml".to_owned()));
        if let Some(profile) = &env.codex_profile {
            layers.push((home, format!("{profile}.config.toml")));
        }
    }
    for (dir, name) in layers {
        let file = dir.join(&name);
        let Some(text) = read_config(reader, &dir, &name, warnings) else { continue };
        let Some(table) = parse_toml(&file, &text, warnings) else { continue };
        apply(&mut config, &file, &table, warnings);
    }
    config
}

fn apply(config: &mut CodexConfig, file: &Path, table: &toml::Table, warnings: &mut Vec<Warning>) {
    if let Some(value) = table.get("project_doc_max_bytes") {
        match value.as_integer().and_then(|n| u64::try_from(n).ok()) {
            Some(n) => config.max_bytes = n,
            None => wrong_type(file, "project_doc_max_bytes", "a non-negative integer", warnings),
        }
    }
    if let Some(value) = table.get("project_doc_fallback_filenames") {
        match strings(value) {
            Some(names) => {
                config.fallback_filenames = names
                    .into_iter()
                    .filter(|n| !n.is_empty() && n != "." && n != ".." && !n.contains('/'))
                    .collect()
            }
            None => wrong_type(file, "project_doc_fallback_filenames", "an array of strings", warnings),
        }
    }
    if let Some(value) = table.get("project_root_markers") {
        match strings(value) {
            Some(markers) => config.root_markers = markers,
            None => wrong_type(file, "project_root_markers", "an array of strings", warnings),
        }
    }
    if let Some(projects) = table.get("projects").and_then(|p| p.as_table()) {
        for (path, settings) in projects {
            if settings.get("trust_level").and_then(|t| t.as_str()) == Some("untrusted") {
                config.untrusted.push(PathBuf::from(path));
            }
        }
    }
}

fn strings(value: &toml::Value) -> Option<Vec<String>> {
    value.as_array()?.iter().map(|v| v.as_str().map(str::to_owned)).collect()
}

/// Codex's root rule, for [`crate::locate::locate`].
pub(crate) fn find_root(
    reader: &Reader,
    never: &crate::policy::NeverProjects,
    config: &CodexConfig,
    cwd: &Path,
) -> (PathBuf, String) {
    match find_marked_root(reader, never, cwd, &config.root_markers) {
        Some((root, marker)) => (root, format!("nearest project root marker `{marker}`")),
        None if config.root_markers.is_empty() => {
            (cwd.to_path_buf(), "the working directory (project_root_markers is empty)".to_owned())
        }
        None => (cwd.to_path_buf(), "the working directory (no project root marker above it)".to_owned()),
    }
}

/// The project candidates per directory.
fn candidates(config: &CodexConfig) -> Vec<String> {
    let mut names = vec!["AGENTS.override.md".to_owned(), "AGENTS.md".to_owned()];
    for name in &config.fallback_filenames {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    names
}

pub(crate) fn resolve(env: &Environment, located: &Located, config: &CodexConfig, gather: &mut Gather) {
    let reader = located.root.reader();
    if let Some(home) = home(env) {
        global(reader, env, &home, gather);
    }
    let untrusted = config.untrusted.iter().any(|p| p == &located.root_path || p == &located.cwd);
    if untrusted || config.max_bytes == 0 {
        let reason = if untrusted {
            "the project is marked trust_level = \"untrusted\"".to_owned()
        } else {
            "project_doc_max_bytes is 0".to_owned()
        };
        gather.probe("AGENTS.md", Scope::Project, Verdict::Disabled { reason });
        return;
    }
    let names = candidates(config);
    let mut remaining = config.max_bytes;
    // Set once a candidate loops: Codex stops there and sends no project
    // file, so every candidate after it is reported off for that reason.
    let mut stopped: Option<String> = None;
    for dir in located.chain_dirs() {
        if let Some(reason) = &stopped {
            for name in &names {
                gather.probe(dir.label(name), Scope::Project, Verdict::Disabled { reason: reason.clone() });
            }
            continue;
        }
        if remaining == 0 {
            gather.probe(dir.label(""), Scope::Project, Verdict::BudgetSpent);
            continue;
        }
        let handle = match &dir.dir {
            Ok(handle) => handle,
            Err(verdict) => {
                for name in &names {
                    gather.probe(dir.label(name), Scope::Project, verdict.clone());
                }
                continue;
            }
        };
        let mut winner: Option<&str> = None;
        for name in &names {
            let label = dir.label(name);
            if let Some(w) = winner {
                gather.probe(label, Scope::Project, crate::chain::shadowed(handle, name, w));
                continue;
            }
            match fetch_head(handle, name, remaining) {
                Err(not_read) if not_read.host_reads_it() => {
                    winner = Some(name);
                    gather.probe_differs(
                        label,
                        Scope::Project,
                        not_read,
                        "Codex follows this link and reads its target; agentspine does not".to_owned(),
                    );
                }
                Err(NotRead {
                    verdict: Verdict::LinkRefused { target, refusal: LinkRefusal::Loop },
                    link,
                }) => {
                    // Codex stops at the error (ELOOP) and sends no project
                    // file at all, only the global one (measured,
                    // tests/e2e/LINKS-MEASURED.md).
                    let looped = NotRead {
                        verdict: Verdict::LinkRefused { target, refusal: LinkRefusal::Loop },
                        link,
                    };
                    gather.probe(label.clone(), Scope::Project, looped);
                    stopped = Some(drop_project_files(gather, &label));
                    break;
                }
                Err(not_read) => gather.probe(label, Scope::Project, not_read),
                Ok(snap) => {
                    winner = Some(name);
                    let text = lenient_utf8(&snap.bytes);
                    if text.trim().is_empty() {
                        gather.probe(label, Scope::Project, Verdict::Empty);
                        continue;
                    }
                    remaining -= snap.bytes.len() as u64;
                    let path = located.root_path.join(&label);
                    let mut p = snap.part(Scope::Project, path, label.clone(), text);
                    if (snap.bytes.len() as u64) < snap.identity.size {
                        let cut = Cut { kept: snap.bytes.len() as u64, total: snap.identity.size };
                        p.cut = Some(cut);
                        gather.include(p);
                        gather.set_verdict(&label, Verdict::Truncated { kept: cut.kept, total: cut.total });
                    } else {
                        gather.include(p);
                    }
                }
            }
        }
    }
}

/// Codex read a candidate it cannot stat (`looped`): every project file
/// of the chain is dropped. Returns the reason the later ones are off.
fn drop_project_files(gather: &mut Gather, looped: &str) -> String {
    let dropped: Vec<String> =
        gather.parts.iter().filter(|p| p.scope != Scope::User).map(|p| p.label.clone()).collect();
    gather.parts.retain(|p| p.scope == Scope::User);
    let reason = format!("Codex stops at the link loop at {looped} and sends no project file");
    for label in dropped {
        gather.set_verdict(&label, Verdict::Disabled { reason: reason.clone() });
    }
    reason
}

fn global(reader: &Reader, env: &Environment, home: &Path, gather: &mut Gather) {
    let Ok(dir) = reader.open_root(home) else {
        gather.probe(tilde(&home.join("AGENTS.md"), env.home.as_deref()), Scope::User, Verdict::Missing);
        return;
    };
    let mut found = false;
    for name in ["AGENTS.override.md", "AGENTS.md"] {
        let path = home.join(name);
        let label = tilde(&path, env.home.as_deref());
        if found {
            gather.probe(label, Scope::User, Verdict::ShadowedBy { winner: "AGENTS.override.md".to_owned() });
            continue;
        }
        match fetch(&dir, name, FILE_CAP) {
            Err(verdict) => gather.probe(label, Scope::User, verdict),
            Ok(snap) => {
                let text = lenient_utf8(&snap.bytes).trim().to_owned();
                if text.is_empty() {
                    gather.probe(label, Scope::User, Verdict::Empty);
                } else {
                    found = true;
                    gather.include(snap.part(Scope::User, path, label, text));
                }
            }
        }
    }
}

/// Codex's text: the global text; then, when project files contributed,
/// the separator (only after global text) and the project files joined by
/// a blank line; wrapped in the `# AGENTS.md instructions` user message.
pub fn render(cwd: &Path, parts: &[Part]) -> String {
    let global: Vec<&str> =
        parts.iter().filter(|p| p.scope == Scope::User).map(|p| p.text.as_str()).collect();
    let project: Vec<&str> =
        parts.iter().filter(|p| p.scope != Scope::User).map(|p| p.text.as_str()).collect();
    if global.is_empty() && project.is_empty() {
        return String::new();
    }
    let mut body = global.join("\n\n");
    if !project.is_empty() {
        if !body.is_empty() {
            body.push_str("\n\n--- project-doc ---\n\n");
        }
        body.push_str(&project.join("\n\n"));
    }
    let heading = if project.is_empty() {
        "# AGENTS.md instructions".to_owned()
    } else {
        format!("# AGENTS.md instructions for {}", cwd.display())
    };
    format!("{heading}\n\n<INSTRUCTIONS>\n{body}\n</INSTRUCTIONS>")
}
