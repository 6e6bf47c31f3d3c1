//! The few writes agentspine makes: its own private state directory.
//!
//! Everything else in this crate reads. The state directory (where
//! agentspine-store keeps its database) is the one place agentspine writes,
//! and these operations are all it needs there:
//!
//! - [`ensure_private_dir`]: create the directory (and missing parents) with
//!   mode `0700`, refuse it if it is a link or belongs to another user, and
//!   narrow a wider mode back to `0700`;
//! - [`move_aside`]: rename one entry to another name in the same directory
//!   handle (a corrupt database is kept for inspection, never deleted);
//! - [`write_private_file_atomic`]: write a `0600` file whole or not at all;
//! - [`try_lock_dir`]: an advisory lock on the directory, so that nothing
//!   opens what is in it while one process repairs it.
//!
//! The state directory's *own* path is chosen by the user (an environment
//! variable or the platform rule), like a root's: its parents may pass
//! through links (`/var` on macOS is one). The directory itself may not be a
//! link, and names inside it are never followed: each is a single plain name
//! used relative to the directory handle, with `O_NOFOLLOW`, and `renameat`
//! never follows a link at either name.

use std::ffi::OsStr;
use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, FileType, FlockOperation, Mode, OFlags, RenameFlags};
use rustix::io::Errno;

use crate::error::FsError;
use crate::identity::FileKind;
use crate::sys::map_lookup_errno;

/// Mode of the state directory and of directories created on the way to it
/// (the XDG base directory specification asks for `0700`).
const PRIVATE_DIR: Mode = Mode::RWXU;
/// Mode of a file written by [`write_private_file_atomic`] (`0600`).
const PRIVATE_FILE: Mode = Mode::RUSR.union(Mode::WUSR);

/// Flags to open a directory we may change (`fchmod`, `flock`): a real
/// descriptor, not `O_PATH`.
const DIR_OPEN: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC);

/// Creates `path` as a private directory if it is missing, with any missing
/// parents, and returns it.
///
/// Guarantees, on success: `path` is a directory (not a link to one) owned
/// by the effective uid, with no group or other permission bits. Missing
/// directories are created with mode `0700`. An existing directory of ours
/// with a wider mode is narrowed to `0700` (a narrower one, say `0500`, is
/// left as the user made it). Refused: a relative path or one with `..`
/// (`invalid-path`), a link at the last component (`symlink`), something
/// other than a directory there (`not-directory`), and a directory owned by
/// another uid (`io`, with a message naming both uids).
pub fn ensure_private_dir(path: &Path) -> Result<PathBuf, FsError> {
    ensure_private_dir_fd(path)?;
    Ok(path.to_path_buf())
}

/// [`ensure_private_dir`], keeping the directory open.
pub(crate) fn ensure_private_dir_fd(path: &Path) -> Result<OwnedFd, FsError> {
    let shown = || path.display().to_string();
    let (parent, name) = split_absolute(path, shown)?;
    let parent_fd = open_or_create_dirs(parent)?;
    let fd = make_and_open(&parent_fd, name, &shown)?;
    let stat = rustix::fs::fstat(&fd).map_err(|e| map_lookup_errno(e, &shown))?;
    let ours = rustix::process::geteuid().as_raw();
    if stat.st_uid != ours {
        return Err(FsError::Io {
            path: shown(),
            error: io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!(
                    "refused: the directory is owned by uid {}, not by this user (uid {ours})",
                    stat.st_uid
                ),
            ),
        });
    }
    #[allow(clippy::unnecessary_cast)]
    let mode = stat.st_mode as u32 & 0o7777;
    if mode & 0o077 != 0 {
        rustix::fs::fchmod(&fd, PRIVATE_DIR).map_err(|e| map_lookup_errno(e, &shown))?;
    }
    Ok(fd)
}

/// Renames `name` to `new_name` inside `dir`, both relative to one handle
/// on `dir`. Neither name is followed if it is a link (the link itself is
/// moved), `dir` itself may not be a link, and an existing `new_name` is
/// never replaced (`io`, "File exists"). Each name must be one plain name:
/// no `/`, not `.` or `..`, not empty.
pub fn move_aside(dir: &Path, name: &str, new_name: &str) -> Result<(), FsError> {
    let shown = || dir.join(name).display().to_string();
    plain_name(name, shown)?;
    plain_name(new_name, || dir.join(new_name).display().to_string())?;
    let dir_fd = open_dir_itself(dir)?;
    rustix::fs::renameat_with(&dir_fd, name, &dir_fd, new_name, RenameFlags::NOREPLACE).map_err(|e| match e {
        Errno::EXIST => FsError::Io { path: dir.join(new_name).display().to_string(), error: e.into() },
        other => map_lookup_errno(other, &shown),
    })
}

/// Writes `bytes` to `dir/name` so that a reader sees the old file or the
/// new one whole, never a part: a new temporary file (`O_CREAT | O_EXCL |
/// O_NOFOLLOW`, mode `0600`) is written and `fsync`ed, then renamed over
/// `name` beneath the handle on `dir`, and `dir` is `fsync`ed. A link at
/// `name` is replaced, not followed. `dir` itself may not be a link. On
/// failure the temporary file is removed.
pub fn write_private_file_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), FsError> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let shown = || dir.join(name).display().to_string();
    plain_name(name, shown)?;
    let dir_fd = open_dir_itself(dir)?;
    let temp = format!(
        ".{name}.tmp-{}-{}",
        rustix::process::getpid().as_raw_nonzero(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let file = rustix::fs::openat(
        &dir_fd,
        temp.as_str(),
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        PRIVATE_FILE,
    )
    .map_err(|e| map_lookup_errno(e, &|| dir.join(&temp).display().to_string()))?;
    let written = write_all(&file, bytes)
        .and_then(|()| rustix::fs::fchmod(&file, PRIVATE_FILE))
        .and_then(|()| rustix::fs::fsync(&file))
        .and_then(|()| rustix::fs::renameat(&dir_fd, temp.as_str(), &dir_fd, name));
    drop(file);
    if let Err(e) = written {
        let _ = rustix::fs::unlinkat(&dir_fd, temp.as_str(), AtFlags::empty());
        return Err(map_lookup_errno(e, &shown));
    }
    rustix::fs::fsync(&dir_fd).map_err(|e| map_lookup_errno(e, &|| dir.display().to_string()))
}

/// An advisory lock (`flock`) on a directory, released when dropped. It
/// excludes only other holders of this lock: processes that open what is
/// in the directory take it shared, a process that repairs it takes it
/// exclusive, so nothing is opened while files are moved.
#[derive(Debug)]
pub struct DirLock {
    _fd: OwnedFd,
}

/// How a [`DirLock`] is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockMode {
    /// Any number of holders at once, but not beside an exclusive one.
    Shared,
    /// One holder, alone.
    Exclusive,
}

/// Takes a [`DirLock`] on `dir` without waiting: `None` if it is held in a
/// conflicting mode (by another process, or another handle in this one).
/// `dir` itself may not be a link.
pub fn try_lock_dir(dir: &Path, mode: LockMode) -> Result<Option<DirLock>, FsError> {
    let fd = open_dir_itself(dir)?;
    let operation = match mode {
        LockMode::Shared => FlockOperation::NonBlockingLockShared,
        LockMode::Exclusive => FlockOperation::NonBlockingLockExclusive,
    };
    match rustix::fs::flock(&fd, operation) {
        Ok(()) => Ok(Some(DirLock { _fd: fd })),
        Err(Errno::WOULDBLOCK) => Ok(None),
        Err(e) => Err(map_lookup_errno(e, &|| dir.display().to_string())),
    }
}

/// Splits an absolute path without `..` into its parent and last name.
fn split_absolute(path: &Path, shown: impl Fn() -> String) -> Result<(&Path, &OsStr), FsError> {
    if !path.is_absolute() {
        return Err(FsError::InvalidPath {
            path: shown(),
            reason: "the state directory must be an absolute path",
        });
    }
    if path.as_os_str().as_bytes().contains(&0) {
        return Err(FsError::InvalidPath { path: shown(), reason: "the path holds a NUL byte" });
    }
    if path.components().any(|c| c == Component::ParentDir) {
        return Err(FsError::InvalidPath { path: shown(), reason: "the path holds a `..` component" });
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => Ok((parent, name)),
        _ => Err(FsError::InvalidPath { path: shown(), reason: "the path names no directory below `/`" }),
    }
}

/// Checks that `name` is one plain name.
pub(crate) fn plain_name(name: &str, shown: impl Fn() -> String) -> Result<(), FsError> {
    let reason = if name.is_empty() {
        "the name is empty"
    } else if name == "." || name == ".." {
        "the name is `.` or `..`"
    } else if name.contains('/') {
        "the name holds a `/`: only a name inside the directory is allowed"
    } else if name.contains('\0') {
        "the name holds a NUL byte"
    } else {
        return Ok(());
    };
    Err(FsError::InvalidPath { path: shown(), reason })
}

/// Opens `dir` (an absolute, user-chosen path) refusing a link at its last
/// component; its parents may be links.
fn open_dir_itself(dir: &Path) -> Result<OwnedFd, FsError> {
    let shown = || dir.display().to_string();
    let (parent, name) = split_absolute(dir, shown)?;
    let parent_fd =
        rustix::fs::open(parent, DIR_OPEN, Mode::empty()).map_err(|e| map_lookup_errno(e, &shown))?;
    open_dir_nofollow(&parent_fd, name, &shown)
}

/// Opens the directory `name` beneath `parent` without following a link.
pub(crate) fn open_dir_nofollow(
    parent: &OwnedFd,
    name: &OsStr,
    shown: &dyn Fn() -> String,
) -> Result<OwnedFd, FsError> {
    rustix::fs::openat(parent, name, DIR_OPEN | OFlags::NOFOLLOW, Mode::empty()).map_err(|e| match e {
        Errno::LOOP | Errno::NOTDIR => {
            match rustix::fs::statat(parent, name, AtFlags::SYMLINK_NOFOLLOW)
                .map(|st| FileKind::from_file_type(FileType::from_raw_mode(st.st_mode)))
            {
                Ok(FileKind::Symlink) => FsError::Symlink { path: shown() },
                Ok(kind) => FsError::NotDirectory { path: shown(), kind },
                Err(_) => FsError::NotFound { path: shown() },
            }
        }
        other => map_lookup_errno(other, shown),
    })
}

/// Opens `dir`, creating it and its missing parents (mode `0700`) first.
/// Existing parents are opened as the user named them (links allowed);
/// a directory this call had to create is opened without following links.
fn open_or_create_dirs(dir: &Path) -> Result<OwnedFd, FsError> {
    let shown = || dir.display().to_string();
    match rustix::fs::open(dir, DIR_OPEN, Mode::empty()) {
        Ok(fd) => return Ok(fd),
        Err(Errno::NOENT) => {}
        Err(e) => return Err(map_lookup_errno(e, &shown)),
    }
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        return Err(FsError::NotFound { path: shown() });
    };
    let parent_fd = open_or_create_dirs(parent)?;
    make_and_open(&parent_fd, name, &shown)
}

/// Creates the directory `name` beneath `parent` (mode `0700`) unless it
/// exists, then opens it without following a link. A directory that
/// exists is opened even where creating one would fail (a read-only
/// filesystem, a parent we may not write); the creation error is reported
/// only when there is nothing to open.
fn make_and_open(parent: &OwnedFd, name: &OsStr, shown: &dyn Fn() -> String) -> Result<OwnedFd, FsError> {
    let made = rustix::fs::mkdirat(parent, name, PRIVATE_DIR);
    match (open_dir_nofollow(parent, name, shown), made) {
        (Ok(fd), _) => Ok(fd),
        (Err(FsError::NotFound { .. }), Err(e)) if e != Errno::EXIST => Err(map_lookup_errno(e, shown)),
        (Err(e), _) => Err(e),
    }
}

/// Writes all of `bytes`, retrying short writes and `EINTR`.
pub(crate) fn write_all(fd: &OwnedFd, mut bytes: &[u8]) -> Result<(), Errno> {
    while !bytes.is_empty() {
        match rustix::io::write(fd.as_fd(), bytes) {
            Ok(0) => return Err(Errno::IO),
            Ok(n) => bytes = &bytes[n..],
            Err(Errno::INTR) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
