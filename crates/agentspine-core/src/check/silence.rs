//! Silencing findings by id and path, from a `[check]` table in the
//! repository's `.agentspine.toml` or the user's
//! `~/.config/agentspine/config.toml`:
//!
//! ```toml
//! [[check.silence]]
//! id = "never-read"
//! path = "packages/web/AGENTS.md"   # or "*" for every path
//! ```
//!
//! A safety finding (a link, a hard link, a special file, a mount, an
//! import or memory link that leaves the project) is never silenced,
//! whatever the table says.

use std::path::{Path, PathBuf};

use agentspine_fs::Reader;

use super::finding::Finding;

/// The repository's own configuration file, at the root.
pub const REPO_CONFIG: &str = ".agentspine.toml";

/// Which findings to leave out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Silence {
    entries: Vec<(String, String)>,
}

/// A configuration file that cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("{}: {reason}", .file.display())]
pub struct SilenceError {
    /// The file.
    pub file: PathBuf,
    /// What is wrong.
    pub reason: String,
    /// Whether the file could not be read at all (a link out of its
    /// directory or the project, a FIFO, a device, a directory, over 1 MiB,
    /// permission): `config-unreadable`; else its text is wrong:
    /// `config-malformed`.
    pub unreadable: bool,
}

impl SilenceError {
    /// The stable code: `config-unreadable` or `config-malformed`.
    pub fn code(&self) -> &'static str {
        if self.unreadable { "config-unreadable" } else { "config-malformed" }
    }
}

/// The largest configuration file read.
pub const MAX_CONFIG: u64 = 1024 * 1024;

impl Silence {
    /// The `[check]` table of `text` (from `file`); no table, nothing silenced.
    pub fn parse(file: &Path, text: &str) -> Result<Silence, SilenceError> {
        let error = |reason: String| SilenceError { file: file.to_path_buf(), reason, unreadable: false };
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| error(e.message().to_owned()))?;
        let Some(check) = table.get("check") else { return Ok(Silence::default()) };
        let Some(list) = check.get("silence") else { return Ok(Silence::default()) };
        let list = list.as_array().ok_or_else(|| error("check.silence must be an array of tables".into()))?;
        let mut entries = Vec::new();
        for item in list {
            let field = |name: &str| item.get(name).and_then(|v| v.as_str()).map(str::to_owned);
            match (field("id"), field("path")) {
                (Some(id), Some(path)) => entries.push((id, path)),
                _ => {
                    return Err(error("each check.silence entry needs a string id and a string path".into()));
                }
            }
        }
        Ok(Silence { entries })
    }

    /// The repository's `.agentspine.toml` and the user's file, merged.
    /// Each is read beneath its directory by the confined reader: a link
    /// that stays inside the project (the user's file: inside its own
    /// directory) is read by its target's path, as instruction files are;
    /// a link out of it, a FIFO, a device, a directory or a file over
    /// [`MAX_CONFIG`] is a `config-unreadable` error naming the file and
    /// the cause, never a hang and never a read outside.
    pub fn load(reader: &Reader, root: &Path, user_config: Option<&Path>) -> Result<Silence, SilenceError> {
        let mut silence = Silence::default();
        let mut files: Vec<(PathBuf, String)> = vec![(root.to_path_buf(), REPO_CONFIG.to_owned())];
        if let Some(user) = user_config
            && let (Some(dir), Some(name)) = (user.parent(), user.file_name())
        {
            files.push((dir.to_path_buf(), name.to_string_lossy().into_owned()));
        }
        for (dir, name) in files {
            let file = dir.join(&name);
            let Ok(handle) = reader.open_root(&dir) else { continue };
            match crate::chain::fetch(&handle, &name, MAX_CONFIG) {
                Ok(snap) => {
                    let text = String::from_utf8_lossy(&snap.bytes);
                    silence.entries.extend(Silence::parse(&file, &text)?.entries);
                }
                Err(not_read) if not_read.verdict == crate::resolution::Verdict::Missing => {}
                Err(not_read) => {
                    use crate::resolution::Verdict as V;
                    let via = not_read
                        .link
                        .as_ref()
                        .map(|l| format!(" (a link to {})", l.target))
                        .unwrap_or_default();
                    let why = match &not_read.verdict {
                        V::NotRegular { kind } => format!("it is a {kind}{via}, not a regular file"),
                        V::LinkRefused { target, refusal: agentspine_fs::LinkRefusal::Outside } => {
                            format!(
                                "it is a link out of its directory's tree (to {target}), which is never read through"
                            )
                        }
                        V::LinkRefused { target, refusal } => {
                            format!("it is a link ({target}) that is {}", refusal.as_str())
                        }
                        V::TooLarge { size, .. } => format!(
                            "{size} bytes{via} is over the {MAX_CONFIG} a configuration file may have"
                        ),
                        V::PermissionDenied => format!("permission denied{via}"),
                        other => format!("{other}{via}"),
                    };
                    let fix = match &not_read.verdict {
                        V::TooLarge { .. } => "shorten it, or remove it",
                        V::PermissionDenied => "make it readable, or remove it",
                        _ => "make it a regular file, or remove it",
                    };
                    let reason = format!("not read: {why}; {fix}");
                    return Err(SilenceError { file, reason, unreadable: true });
                }
            }
        }
        Ok(silence)
    }

    /// The entries that name `finding` when it is a safety finding (and so
    /// stays): `(id, path)` each.
    pub fn refusing(&self, finding: &Finding) -> Vec<(String, String)> {
        if !finding.safety {
            return Vec::new();
        }
        self.entries
            .iter()
            .filter(|(id, path)| id == finding.kind.id() && (path == "*" || *path == finding.path))
            .cloned()
            .collect()
    }

    /// Whether `finding` is silenced (never a safety finding).
    pub fn silences(&self, finding: &Finding) -> bool {
        !finding.safety
            && self
                .entries
                .iter()
                .any(|(id, path)| id == finding.kind.id() && (path == "*" || *path == finding.path))
    }
}
