//! Shared machinery of every host's rules: opening the directories from
//! the root down to the chain's end once each, fetching a candidate, and
//! turning a reader refusal into a probe verdict.

use std::path::PathBuf;

use agentspine_fs::{FsError, LinkTarget, Root, Snapshot};
use sha2::{Digest, Sha256};

use crate::resolution::{Cause, Link, Part, Scope, Verdict};

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

/// A candidate read: the snapshot of the file, and where it led when the
/// candidate is a link inside its root.
#[derive(Debug, Clone)]
pub(crate) struct Fetched {
    pub(crate) snap: Snapshot,
    pub(crate) link: Option<Link>,
}

impl std::ops::Deref for Fetched {
    type Target = Snapshot;

    fn deref(&self) -> &Snapshot {
        &self.snap
    }
}

impl Fetched {
    /// A part made of this file, labelled as the candidate (`path`,
    /// `label`), naming the file a link led to.
    pub(crate) fn part(&self, scope: Scope, path: PathBuf, label: String, text: String) -> Part {
        let mut part = part(scope, path, label, &self.snap, text);
        part.link = self.link.clone();
        part
    }
}

/// Why a candidate was not read, and the file it links to when it is a
/// link inside its root (the verdict is then that file's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotRead {
    pub(crate) verdict: Verdict,
    pub(crate) link: Option<Link>,
}

impl From<Verdict> for NotRead {
    fn from(verdict: Verdict) -> NotRead {
        NotRead { verdict, link: None }
    }
}

impl NotRead {
    /// Whether the host itself would read something here that agentspine
    /// refuses: a link out of the root or into `.git` (hosts follow every
    /// link). A dangling or looping link, like a link to a directory, is
    /// nothing to the host either.
    pub(crate) fn host_reads_it(&self) -> bool {
        matches!(
            self.verdict,
            Verdict::Symlink
                | Verdict::LinkRefused {
                    refusal: agentspine_fs::LinkRefusal::Outside | agentspine_fs::LinkRefusal::IntoGit,
                    ..
                }
        )
    }
}

/// The verdict for a candidate the reader refused.
pub(crate) fn verdict_of(e: &FsError) -> Verdict {
    match e {
        FsError::NotFound { .. } => Verdict::Missing,
        FsError::Symlink { .. } => Verdict::Symlink,
        FsError::Link { target, refusal, .. } => {
            Verdict::LinkRefused { target: target.clone(), refusal: *refusal }
        }
        FsError::NotRegular { kind, .. } | FsError::NotDirectory { kind, .. } => {
            Verdict::NotRegular { kind: *kind }
        }
        FsError::TooLarge { size, cap, .. } => Verdict::TooLarge { size: *size, cap: *cap },
        FsError::PermissionDenied { .. } => Verdict::PermissionDenied,
        FsError::HardLink { .. } => Verdict::HardLink,
        FsError::MountCrossing { .. } => Verdict::MountCrossing,
        other => Verdict::Refused { code: Cause::Reader(other.code()) },
    }
}

/// Reads `name` in `dir` whole if at most `cap` bytes. With a reader that
/// remembers reads (a hook run, see
/// [`agentspine_fs::Reader::remembering_reads`]), a file already read
/// beneath the same directory handle in this run is not read again: the
/// chains one request resolves (a tool call's session and target chains,
/// the memory index of both) share one version of each file, whole or
/// cut ([`fetch_head`]).
///
/// A candidate that is a link inside the root `dir` was opened from is
/// read as the hosts read it: the file it names
/// ([`Root::follow_link`]), by that file's own path, under every rule of
/// the reader. A link out of the root, dangling, looping or into `.git`
/// is refused with [`Verdict::LinkRefused`].
pub(crate) fn fetch(dir: &Root, name: &str, cap: u64) -> Result<Fetched, NotRead> {
    match dir.read_remembered(name, cap) {
        Ok(snap) => Ok(Fetched { snap, link: None }),
        Err(FsError::Symlink { .. }) => fetch_linked(dir, name, |at, rel| at.read_remembered(rel, cap)),
        Err(e) => Err(verdict_of(&e).into()),
    }
}

/// Reads at most the first `limit` bytes of `name` in `dir`, remembered
/// as [`fetch`] is, links inside the root included.
pub(crate) fn fetch_head(dir: &Root, name: &str, limit: u64) -> Result<Fetched, NotRead> {
    match dir.read_head_remembered(name, limit) {
        Ok(snap) => Ok(Fetched { snap, link: None }),
        Err(FsError::Symlink { .. }) => {
            fetch_linked(dir, name, |at, rel| at.read_head_remembered(rel, limit))
        }
        Err(e) => Err(verdict_of(&e).into()),
    }
}

/// The file the link `name` in `dir` names, read with `read` beneath `dir`
/// when it lies there (so a file read both by its own name and through a
/// link beside it is one remembered read), else beneath the top-level root.
fn fetch_linked(
    dir: &Root,
    name: &str,
    read: impl Fn(&Root, &str) -> Result<Snapshot, FsError>,
) -> Result<Fetched, NotRead> {
    let target: LinkTarget = dir.follow_link(name).map_err(|e| NotRead::from(verdict_of(&e)))?;
    let top = dir.top();
    let link =
        Link { path: top.host_path().join(&target.path), target: target.path.clone(), hops: target.hops };
    let within = match dir.prefix() {
        "" => Some(target.path.as_str()),
        prefix => target.path.strip_prefix(prefix).and_then(|rest| rest.strip_prefix('/')),
    };
    let read = match within {
        Some(rel) => read(dir, rel),
        None => read(&top, &target.path),
    };
    match read {
        Ok(snap) => Ok(Fetched { snap, link: Some(link) }),
        Err(e) => Err(NotRead { verdict: verdict_of(&e), link: Some(link) }),
    }
}

/// The verdict of a candidate an earlier one in its directory hides:
/// `shadowed-by` when something is there (one stat, never read), `missing`
/// when nothing is, so an explanation names only files that exist.
pub(crate) fn shadowed(dir: &Root, name: &str, winner: &str) -> Verdict {
    match dir.stat(name) {
        Err(FsError::NotFound { .. }) => Verdict::Missing,
        _ => Verdict::ShadowedBy { winner: winner.to_owned() },
    }
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

impl crate::locate::Located {
    /// The chain's directories from the root down, each opened from the
    /// previous one; none when the root is never a project.
    pub(crate) fn chain_dirs(&self) -> Vec<ChainDir> {
        if !self.kind.is_project() {
            return Vec::new();
        }
        open_chain(&self.root, &self.chain_names)
    }
}

/// A part made from a snapshot.
pub(crate) fn part(scope: Scope, path: PathBuf, label: String, snapshot: &Snapshot, text: String) -> Part {
    Part {
        scope,
        path,
        label,
        text,
        bytes: snapshot.identity.size,
        sha256: sha256_hex(&snapshot.bytes),
        cut: None,
        imported_by: None,
        link: None,
        code_imports: Vec::new(),
    }
}
