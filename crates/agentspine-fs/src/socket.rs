//! The desktop socket's file (`agentspine serve`): check that a directory
//! the user named for it is private, narrow the socket's mode after
//! `bind(2)` made it, and remove it, a stale one or our own at shutdown.
//!
//! The socket lives in a private directory (see [`crate::ensure_private_dir`])
//! whose own path the user chose; the directory may not be a link, and the
//! socket's name is one plain name used relative to a handle on it. Only a
//! socket is ever changed or removed: a link, a regular file or anything
//! else at the name is refused, so a mistyped `--socket` never deletes a
//! user's file.

use std::ffi::OsStr;
use std::os::fd::OwnedFd;
use std::path::Path;

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use crate::error::FsError;
use crate::identity::FileKind;
use crate::state::{open_dir_nofollow, plain_name};
use crate::sys::map_lookup_errno;

/// Mode of the socket once narrowed (`0600`).
const PRIVATE_SOCKET: Mode = Mode::RUSR.union(Mode::WUSR);

/// Opens `dir` (absolute, no `..`) refusing a link at its last component.
fn open_dir(dir: &Path) -> Result<OwnedFd, FsError> {
    let shown = || dir.display().to_string();
    if !dir.is_absolute() || dir.components().any(|c| c == std::path::Component::ParentDir) {
        return Err(FsError::InvalidPath {
            path: shown(),
            reason: "the directory must be absolute, without `..`",
        });
    }
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        return rustix::fs::open(dir, flags, Mode::empty()).map_err(|e| map_lookup_errno(e, &shown));
    };
    let parent_fd =
        rustix::fs::open(parent, flags, Mode::empty()).map_err(|e| map_lookup_errno(e, &shown))?;
    open_dir_nofollow(&parent_fd, OsStr::new(name), &shown)
}

/// Checks that the existing directory `dir` (not a link at its last
/// component) is private: owned by the effective uid, with no group or
/// other permission bits. Nothing is changed: a directory the user chose is
/// never narrowed behind their back. A missing directory is `not-found`; a
/// wider or foreign one is refused (`io`, permission denied) with a message
/// that names its mode or owner.
pub fn check_private_dir(dir: &Path) -> Result<(), FsError> {
    let shown = || dir.display().to_string();
    let fd = open_dir(dir)?;
    let stat = rustix::fs::fstat(&fd).map_err(|e| map_lookup_errno(e, &shown))?;
    let ours = rustix::process::geteuid().as_raw();
    #[allow(clippy::unnecessary_cast)]
    let mode = stat.st_mode as u32 & 0o7777;
    let refusal = if stat.st_uid != ours {
        format!("refused: the directory is owned by uid {}, not by this user (uid {ours})", stat.st_uid)
    } else if mode & 0o077 != 0 {
        format!(
            "refused: the directory has mode {mode:04o}; it must be private to you (`chmod 700` it, or choose another)"
        )
    } else {
        return Ok(());
    };
    Err(FsError::Io {
        path: shown(),
        error: std::io::Error::new(std::io::ErrorKind::PermissionDenied, refusal),
    })
}

/// What is at `name` in `dir_fd`: `Ok(true)` a socket, `Ok(false)` nothing,
/// an error for anything else.
fn is_socket(dir_fd: &OwnedFd, name: &str, shown: &dyn Fn() -> String) -> Result<bool, FsError> {
    match rustix::fs::statat(dir_fd, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => match FileKind::from_file_type(FileType::from_raw_mode(st.st_mode)) {
            FileKind::Socket => Ok(true),
            FileKind::Symlink => Err(FsError::Symlink { path: shown() }),
            kind => Err(FsError::NotRegular { path: shown(), kind }),
        },
        Err(Errno::NOENT) => Ok(false),
        Err(e) => Err(map_lookup_errno(e, shown)),
    }
}

/// Removes the socket `dir/name`; returns whether one was there. Anything
/// but a socket at the name is refused (`symlink`, `not-regular` naming
/// what it is) and left in place.
pub fn remove_socket(dir: &Path, name: &str) -> Result<bool, FsError> {
    let shown = || dir.join(name).display().to_string();
    plain_name(name, shown)?;
    let dir_fd = open_dir(dir)?;
    if !is_socket(&dir_fd, name, &shown)? {
        return Ok(false);
    }
    match rustix::fs::unlinkat(&dir_fd, name, AtFlags::empty()) {
        Ok(()) | Err(Errno::NOENT) => Ok(true),
        Err(e) => Err(map_lookup_errno(e, &shown)),
    }
}

/// Narrows the socket `dir/name` to mode `0600`. Refused unless a socket
/// is there. (Linux cannot change a mode without following a link at the
/// name; the kind is checked first, inside a directory only we may write.)
pub fn restrict_socket(dir: &Path, name: &str) -> Result<(), FsError> {
    let shown = || dir.join(name).display().to_string();
    plain_name(name, shown)?;
    let dir_fd = open_dir(dir)?;
    if !is_socket(&dir_fd, name, &shown)? {
        return Err(FsError::NotFound { path: shown() });
    }
    rustix::fs::chmodat(&dir_fd, name, PRIVATE_SOCKET, AtFlags::empty())
        .map_err(|e| map_lookup_errno(e, &shown))
}
