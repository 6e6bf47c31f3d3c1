//! Finding the project root, and checking that a cwd or target lies
//! beneath it, without following links.

use std::path::{Path, PathBuf};

use agentspine_fs::{Code, FileKind, FsError, Reader, Root};

use crate::error::ResolveError;
use crate::paths::{lexical, names_below};
use crate::policy::{NamedRoots, NeverProjects};
use crate::resolution::RootKind;

/// A project root, the directory a chain ends in, and how they were found.
pub(crate) struct Located {
    pub(crate) root: Root,
    pub(crate) root_path: PathBuf,
    pub(crate) evidence: String,
    pub(crate) cwd: PathBuf,
    /// Names from the root down to the directory whose chain is wanted.
    pub(crate) chain_names: Vec<String>,
    /// The target, relative to the root, when one was given and is a file.
    pub(crate) target_rel: Option<String>,
    /// What the root is under the never-a-project rule: anything but a
    /// project gets no project file at all (user-wide files still load).
    pub(crate) kind: RootKind,
    /// The directories that are never a project, for later walks.
    pub(crate) never: NeverProjects,
}

/// Opens a directory a caller named (a working directory or a root) under
/// the rule `named` (see [`NamedRoots`]) and returns its canonical path.
pub(crate) fn canonical_dir(
    reader: &Reader,
    named: NamedRoots,
    path: &Path,
) -> Result<PathBuf, ResolveError> {
    let opened = match named {
        NamedRoots::FollowedOnce => reader.open_root(path),
        NamedRoots::TakenAsGiven => reader.open_root_without_links(path),
    };
    let root = opened.map_err(|e| match e {
        FsError::Symlink { path: link } => ResolveError::RootThroughLink { path: path.to_path_buf(), link },
        e if e.code() == Code::NotFound => ResolveError::NoSuchDirectory { path: path.to_path_buf() },
        e if e.code() == Code::NotDirectory => ResolveError::NotADirectory { path: path.to_path_buf() },
        e => ResolveError::Fs(e),
    })?;
    Ok(root.host_path().to_path_buf())
}

/// Walks up from `cwd` (included) to the nearest directory holding any of
/// `markers` (file or directory; a link counts as present). Each marker is
/// looked at with one stat; nothing is read or listed. A directory that is
/// never a project (home, above it, a profile) is passed over: its markers
/// make no root.
pub(crate) fn find_marked_root(
    reader: &Reader,
    never: &NeverProjects,
    cwd: &Path,
    markers: &[String],
) -> Option<(PathBuf, String)> {
    if markers.is_empty() {
        return None;
    }
    find_root_where(reader, never, cwd, |handle| markers.iter().find(|m| handle.stat(m).is_ok()).cloned())
}

/// Walks up from `cwd` (included) to the nearest directory that `found`
/// says holds a root's marker (its evidence), passing over one that is
/// never a project. Each directory is opened as its own root (its path is
/// the user's working directory and its ancestors): one open per level,
/// and what `found` looks at there.
pub(crate) fn find_root_where(
    reader: &Reader,
    never: &NeverProjects,
    cwd: &Path,
    found: impl Fn(&agentspine_fs::Root) -> Option<String>,
) -> Option<(PathBuf, String)> {
    let mut dir = Some(cwd);
    while let Some(at) = dir {
        dir = at.parent();
        if !never.may_root(at) {
            continue;
        }
        let Ok(handle) = reader.open_root(at) else { continue };
        if let Some(evidence) = found(&handle) {
            return Some((at.to_path_buf(), evidence));
        }
    }
    None
}

/// Binds a request to a root: `explicit` when given (it must contain the
/// cwd), else the host's rule `find`. Then checks the target.
pub(crate) fn locate(
    reader: &Reader,
    never: &NeverProjects,
    cwd: &Path,
    explicit: Option<&Path>,
    target: Option<&Path>,
    find: impl FnOnce(&Path) -> (PathBuf, String),
) -> Result<Located, ResolveError> {
    if !cwd.is_absolute() {
        return Err(ResolveError::Relative { what: "working directory", path: cwd.to_path_buf() });
    }
    let cwd = canonical_dir(reader, never.named, cwd)?;
    let (root_path, evidence) = match explicit {
        Some(root) => {
            if !root.is_absolute() {
                return Err(ResolveError::Relative { what: "project root", path: root.to_path_buf() });
            }
            (canonical_dir(reader, never.named, root)?, "given explicitly".to_owned())
        }
        None => find(&cwd),
    };
    let cwd_names = names_below(&root_path, &cwd)
        .ok_or_else(|| ResolveError::CwdOutsideRoot { cwd: cwd.clone(), root: root_path.clone() })?;
    let root = reader.open_root(&root_path).map_err(ResolveError::Fs)?;
    let (chain_names, target_rel) = match target {
        None => (cwd_names.clone(), None),
        Some(target) => check_target(&root, &root_path, &cwd, target)?,
    };
    let kind = never.classify(&root_path);
    Ok(Located { root, root_path, evidence, cwd, chain_names, target_rel, kind, never: never.clone() })
}

/// A target must lie beneath the root, lexically and without a link on the
/// way. A file's chain is its directory's; a path that does not exist yet
/// (a file about to be written) takes its nearest existing directory's
/// chain, and is still the target that `paths:` rules are matched against.
/// One stat per level looked at.
fn check_target(
    root: &Root,
    root_path: &Path,
    cwd: &Path,
    target: &Path,
) -> Result<(Vec<String>, Option<String>), ResolveError> {
    let absolute = if target.is_absolute() { target.to_path_buf() } else { cwd.join(target) };
    let reduced = lexical(&absolute);
    let names = names_below(root_path, &reduced).ok_or_else(|| ResolveError::TargetOutsideRoot {
        target: target.to_path_buf(),
        root: root_path.to_path_buf(),
    })?;
    if names.is_empty() {
        return Ok((names, None));
    }
    let rel = names.join("/");
    let symlink = || ResolveError::TargetThroughSymlink { target: target.to_path_buf() };
    let mut dir = names.clone();
    while !dir.is_empty() {
        let leaf = dir.len() == names.len();
        match root.stat(dir.join("/")) {
            Ok(meta) => match meta.kind {
                FileKind::Directory => return Ok((dir, (!leaf).then(|| rel.clone()))),
                FileKind::Symlink => return Err(symlink()),
                _ if leaf => {
                    dir.pop();
                    return Ok((dir, Some(rel)));
                }
                _ => return Err(ResolveError::NotADirectory { path: root_path.join(dir.join("/")) }),
            },
            Err(e) if e.code() == Code::Symlink => return Err(symlink()),
            Err(e) if matches!(e.code(), Code::NotFound | Code::NotDirectory) => {
                dir.pop();
            }
            Err(e) => return Err(ResolveError::Fs(e)),
        }
    }
    Ok((dir, Some(rel)))
}
