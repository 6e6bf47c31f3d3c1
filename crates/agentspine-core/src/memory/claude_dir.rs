//! Which directory holds Claude Code's memory for a project, from evidence
//! only, in this order:
//!
//! 1. `autoMemoryDirectory` in the user's `settings.json` (absolute, or
//!    `~/…` for `$HOME`). A project's own settings are not evidence: a
//!    repository must not point agentspine at a directory of its choosing.
//! 2. `CLAUDE_CODE_PROJECT_DIR_NAME` (1–64 of `[A-Za-z0-9_-]`), only when
//!    `CLAUDE_CONFIG_DIR` is set: `<config>/projects/<name>/memory`.
//! 3. Claude Code's encoding of the canonical git root (or the cwd outside
//!    git): `<config>/projects/<enc>/memory`, used only if it exists.
//!
//! A hook's `transcript_path` is not evidence: Claude Code files a
//! session's transcript under the encoding of the directory it started in,
//! and memory under the git root's (measured on 2.1.332, started in a
//! package of a monorepo), so the two differ whenever the session starts
//! below the root.

use std::path::{Path, PathBuf};

use serde::Serialize;

/// The memory directory and the evidence for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemoryDir {
    /// The directory.
    pub dir: PathBuf,
    /// `autoMemoryDirectory`, `CLAUDE_CODE_PROJECT_DIR_NAME`,
    /// or `project-path-encoding`.
    pub evidence: &'static str,
    /// The trusted directory `dir` is opened beneath, without following a
    /// link: Claude Code's config home for a directory found there; `None`
    /// for `autoMemoryDirectory`, which the user named (its own path is
    /// the trust anchor).
    #[serde(skip)]
    pub anchor: Option<PathBuf>,
}

/// The inputs the evidence comes from.
pub struct Evidence<'a> {
    /// `$HOME`.
    pub home: Option<&'a Path>,
    /// Claude Code's config home.
    pub config: &'a Path,
    /// Whether `CLAUDE_CONFIG_DIR` is set.
    pub config_dir_set: bool,
    /// `autoMemoryDirectory` from the user's settings.
    pub auto_memory_directory: Option<&'a str>,
    /// `CLAUDE_CODE_PROJECT_DIR_NAME`.
    pub project_dir_name: Option<&'a str>,
    /// The canonical git root (main repository of a worktree), else the cwd.
    pub project_path: &'a Path,
}

/// Decides the directory; `exists` is asked only for the last rule.
pub fn memory_dir(e: &Evidence<'_>, exists: impl Fn(&MemoryDir) -> bool) -> Option<MemoryDir> {
    if let Some(setting) = e.auto_memory_directory {
        let dir = match setting.strip_prefix("~/") {
            Some(rest) => e.home.map(|h| h.join(rest)),
            None => Some(PathBuf::from(setting)).filter(|p| p.is_absolute()),
        };
        if let Some(dir) = dir {
            return Some(MemoryDir { dir, evidence: "autoMemoryDirectory", anchor: None });
        }
    }
    if e.config_dir_set
        && let Some(name) = e.project_dir_name.filter(|n| valid_dir_name(n))
    {
        return Some(MemoryDir {
            dir: e.config.join("projects").join(name).join("memory"),
            evidence: "CLAUDE_CODE_PROJECT_DIR_NAME",
            anchor: Some(e.config.to_path_buf()),
        });
    }
    let dir = e.config.join("projects").join(encode(&e.project_path.display().to_string())).join("memory");
    let found = MemoryDir { dir, evidence: "project-path-encoding", anchor: Some(e.config.to_path_buf()) };
    exists(&found).then_some(found)
}

fn valid_dir_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Claude Code's project directory name: every character outside
/// `[A-Za-z0-9]` becomes `-`; past 200 characters the name is cut to 200
/// and followed by `-` and a base-36 hash of the path.
pub fn encode(path: &str) -> String {
    let name: String = path.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    if name.chars().count() <= 200 {
        return name;
    }
    let cut: String = name.chars().take(200).collect();
    format!("{cut}-{}", base36(java_hash(path).unsigned_abs()))
}

/// Java's `String.hashCode` over UTF-16 code units.
fn java_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, unit| h.wrapping_mul(31).wrapping_add(i32::from(unit)))
}

fn base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".to_owned();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8(out).expect("base-36 digits are ASCII")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evidence<'a>(config: &'a Path, project: &'a Path) -> Evidence<'a> {
        Evidence {
            home: Some(Path::new("/home/u")),
            config,
            config_dir_set: false,
            auto_memory_directory: None,
            project_dir_name: None,
            project_path: project,
        }
    }

    #[test]
    fn encodes_like_claude_code() {
        assert_eq!(encode("/tmp/ase2e/claude_auto_memory/tree"), "-tmp-ase2e-claude-auto-memory-tree");
        let long = format!("/{}", "a".repeat(250));
        let enc = encode(&long);
        assert!(enc.starts_with(&format!("-{}", "a".repeat(199))));
        assert_eq!(enc.len(), 200 + 1 + base36(java_hash(&long).unsigned_abs()).len());
        assert_eq!(java_hash("hello"), 99162322);
        assert_eq!(base36(99162322), "1n1e4y");
    }

    #[test]
    fn evidence_in_order() {
        let config = Path::new("/home/u/.claude");
        let project = Path::new("/repo");
        let never = |_: &MemoryDir| false;
        let always = |_: &MemoryDir| true;
        let mut e = evidence(config, project);
        assert_eq!(memory_dir(&e, never), None, "the encoding only counts if the directory exists");
        assert_eq!(memory_dir(&e, always).unwrap().dir, Path::new("/home/u/.claude/projects/-repo/memory"));
        e.project_dir_name = Some("custom_1");
        assert_eq!(memory_dir(&e, never), None, "the name counts only with CLAUDE_CONFIG_DIR set");
        e.config_dir_set = true;
        assert_eq!(memory_dir(&e, never).unwrap().dir, Path::new("/home/u/.claude/projects/custom_1/memory"));
        e.auto_memory_directory = Some("~/mem");
        assert_eq!(
            memory_dir(&e, never).unwrap(),
            MemoryDir { dir: "/home/u/mem".into(), evidence: "autoMemoryDirectory", anchor: None }
        );
    }
}
