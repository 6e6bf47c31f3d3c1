//! Shared machinery of every host's rules: opening the directories from
//! the root down to the chain's end once each, fetching a candidate, and
//! turning a reader refusal into a probe verdict.

use agentspine_fs::{FsError, Root, Snapshot};
use sha2::{Digest, Sha256};

use crate::resolution::Verdict;

/// One directory of a chain: its path relative to the root (`""` for the
/// root) and its handle, or why it could not be opened.
pub(crate) struct ChainDir {
    pub(crate) rel: String,
    pub(crate) dir: Result<Root, Verdict>,
}

impl ChainDir {
    /// `name` inside this directory, relative to the root.
    pub(crate) fn label(&self, name: &str) -> String {
        if self.rel.is_empty() { name.to_owned() } else { format!("{}/{name}", self.rel) }
    }
}

/// Opens each directory from the root down along `names`, each from the
/// previous one (one open per level). A level that cannot be opened, and
/// every level below it, carries the verdict.
pub(crate) fn open_chain(root: &Root, names: &[String]) -> Vec<ChainDir> {
    let mut out = vec![ChainDir { rel: String::new(), dir: Ok(root.clone()) }];
    let mut rel = String::new();
    for name in names {
        if !rel.is_empty() {
            rel.push('/');
        }
        rel.push_str(name);
        let dir = match &out.last().expect("the root is always first").dir {
            Ok(parent) => parent.subdir(name).map_err(|e| verdict_of(&e)),
            Err(v) => Err(v.clone()),
        };
        out.push(ChainDir { rel: rel.clone(), dir });
    }
    out
}

/// The verdict for a candidate the reader refused.
pub(crate) fn verdict_of(e: &FsError) -> Verdict {
    match e {
        FsError::NotFound { .. } => Verdict::Missing,
        FsError::Symlink { .. } => Verdict::Symlink,
        FsError::NotRegular { kind, .. } | FsError::NotDirectory { kind, .. } => {
            Verdict::NotRegular { kind: *kind }
        }
        FsError::TooLarge { size, cap, .. } => Verdict::TooLarge { size: *size, cap: *cap },
        FsError::PermissionDenied { .. } => Verdict::PermissionDenied,
        FsError::HardLink { .. } => Verdict::HardLink,
        FsError::MountCrossing { .. } => Verdict::MountCrossing,
        other => Verdict::Refused { code: other.code().as_str().to_owned() },
    }
}

/// Reads `name` in `dir` whole if at most `cap` bytes. With a reader that
/// remembers reads (a hook run, see
/// [`agentspine_fs::Reader::remembering_reads`]), a file already read
/// beneath the same directory handle in this run is not read again: the
/// chains one request resolves (a tool call's session and target chains,
/// the memory index of both) share one version of each file, whole or
/// cut ([`fetch_head`]).
pub(crate) fn fetch(dir: &Root, name: &str, cap: u64) -> Result<Snapshot, Verdict> {
    dir.read_remembered(name, cap).map_err(|e| verdict_of(&e))
}

/// Reads at most the first `limit` bytes of `name` in `dir`, remembered
/// as [`fetch`] is.
pub(crate) fn fetch_head(dir: &Root, name: &str, limit: u64) -> Result<Snapshot, Verdict> {
    dir.read_head_remembered(name, limit).map_err(|e| verdict_of(&e))
}

/// SHA-256 of bytes, lowercase hex.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Per-file cap for instruction files (Claude's 4 MiB; no host reads more).
pub(crate) const FILE_CAP: u64 = 4 * 1024 * 1024;

/// For hosts that walk up to `/`: which of `names` exist in the
/// directories above the project root (outermost first). Each is looked at
/// with one stat and never read; the caller reports them `outside-root`.
pub(crate) fn above_root(
    reader: &agentspine_fs::Reader,
    located: &crate::locate::Located,
    names: &[&str],
) -> Vec<std::path::PathBuf> {
    if !located.kind.is_project() {
        return Vec::new();
    }
    let root_path = &located.root_path;
    let Ok(system) = reader.open_root(std::path::Path::new("/")) else { return Vec::new() };
    let mut dirs: Vec<&std::path::Path> = root_path.ancestors().skip(1).collect();
    dirs.reverse();
    let mut found = Vec::new();
    for dir in dirs {
        let rel = dir.strip_prefix("/").unwrap_or(dir);
        for name in names {
            let probe = rel.join(name);
            if system.stat(&probe).is_ok() {
                found.push(dir.join(name));
            }
        }
    }
    found
}
