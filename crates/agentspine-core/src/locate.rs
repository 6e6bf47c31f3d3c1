//! Finding the project root, and checking that a cwd or target lies
//! beneath it, without following links.

use std::path::{Component, Path, PathBuf};

use agentspine_fs::{Code, FileKind, Reader, Root};

use crate::error::ResolveError;

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
}

/// Opens `cwd` (the user's, trusted: links in its own path are allowed)
/// and returns its canonical path.
pub(crate) fn canonical_dir(reader: &Reader, path: &Path) -> Result<PathBuf, ResolveError> {
    let root = reader.open_root(path).map_err(|e| match e.code() {
        Code::NotFound => ResolveError::NoSuchDirectory { path: path.to_path_buf() },
        Code::NotDirectory => ResolveError::NotADirectory { path: path.to_path_buf() },
        _ => ResolveError::Fs(e),
    })?;
    Ok(root.host_path().to_path_buf())
}

/// Walks up from `cwd` (included) to the nearest directory holding any of
/// `markers` (file or directory; a link counts as present). Each marker is
/// looked at with one stat; nothing is read or listed.
pub(crate) fn find_marked_root(reader: &Reader, cwd: &Path, markers: &[String]) -> Option<(PathBuf, String)> {
    if markers.is_empty() {
        return None;
    }
    let system = reader.open_root(Path::new("/")).ok()?;
    let mut dir = Some(cwd);
    while let Some(at) = dir {
        let rel = at.strip_prefix("/").ok()?;
        for marker in markers {
            let probe = if rel.as_os_str().is_empty() { PathBuf::from(marker) } else { rel.join(marker) };
            if system.stat(&probe).is_ok() {
                return Some((at.to_path_buf(), marker.clone()));
            }
        }
        dir = at.parent();
    }
    None
}

/// Reduces an absolute path lexically (`.` dropped, `..` pops).
pub(crate) fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::Normal(name) => out.push(name),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// The names of `path` below `root`, if it lies beneath it.
pub(crate) fn names_below(root: &Path, path: &Path) -> Option<Vec<String>> {
    let rest = path.strip_prefix(root).ok()?;
    rest.components()
        .map(|c| match c {
            Component::Normal(n) => n.to_str().map(str::to_owned),
            _ => None,
        })
        .collect()
}

/// Binds a request to a root: `explicit` when given (it must contain the
/// cwd), else the host's rule `find`. Then checks the target.
pub(crate) fn locate(
    reader: &Reader,
    cwd: &Path,
    explicit: Option<&Path>,
    target: Option<&Path>,
    find: impl FnOnce(&Path) -> (PathBuf, String),
) -> Result<Located, ResolveError> {
    if !cwd.is_absolute() {
        return Err(ResolveError::Relative { what: "working directory", path: cwd.to_path_buf() });
    }
    let cwd = canonical_dir(reader, cwd)?;
    let (root_path, evidence) = match explicit {
        Some(root) => {
            if !root.is_absolute() {
                return Err(ResolveError::Relative { what: "project root", path: root.to_path_buf() });
            }
            (canonical_dir(reader, root)?, "given explicitly".to_owned())
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
    Ok(Located { root, root_path, evidence, cwd, chain_names, target_rel })
}

/// A target must lie beneath the root, lexically and without a link on the
/// way, and exist. A file's chain is its directory's.
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
    let meta = root.stat(&rel).map_err(|e| match e.code() {
        Code::Symlink => ResolveError::TargetThroughSymlink { target: target.to_path_buf() },
        Code::NotFound => ResolveError::TargetMissing { target: target.to_path_buf() },
        _ => ResolveError::Fs(e),
    })?;
    match meta.kind {
        FileKind::Directory => Ok((names, None)),
        FileKind::Symlink => Err(ResolveError::TargetThroughSymlink { target: target.to_path_buf() }),
        _ => {
            let mut dir = names;
            dir.pop();
            Ok((dir, Some(rel)))
        }
    }
}

/// `~/…` for paths under home, else the path itself: how labels show
/// profile files.
pub(crate) fn tilde(path: &Path, home: Option<&Path>) -> String {
    if let Some(rest) = home.and_then(|h| path.strip_prefix(h).ok()) {
        return format!("~/{}", rest.display());
    }
    path.display().to_string()
}
