//! Writes to a host's own configuration files (the installer's only disk
//! access besides reads): replace a file whole, keep a backup copy beside
//! it, remove it, and create a missing configuration directory.
//!
//! The directory's *own* path is chosen by the user (`$HOME`,
//! `$CLAUDE_CONFIG_DIR`, a project), so its parents may pass through links;
//! the directory itself may not be a link, and every name in it is one plain
//! name used relative to the directory handle and never followed: a link at
//! the file's name is refused as `symlink` before anything is written.

use std::ffi::OsStr;
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use crate::error::FsError;
use crate::identity::FileKind;
use crate::state::{open_dir_nofollow, plain_name, write_all};
use crate::sys::map_lookup_errno;

/// Mode of a new file when the caller gives none (`0644`).
const NEW_FILE: u32 = 0o644;
/// Mode of a directory made by [`ensure_dir`] (`0755`).
const NEW_DIR: Mode = Mode::from_raw_mode(0o755);
/// Flags to open a directory whose entries we change.
const DIR_OPEN: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC);

/// The mode (permission bits) of the regular file `name` in `dir_fd`, or
/// `None` when nothing is there. A link is refused as `symlink`, anything
/// else that is not a regular file as `not-regular`.
fn existing_mode(dir_fd: &OwnedFd, name: &str, shown: &dyn Fn() -> String) -> Result<Option<u32>, FsError> {
    match rustix::fs::statat(dir_fd, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => match FileKind::from_file_type(FileType::from_raw_mode(st.st_mode)) {
            FileKind::File => {
                #[allow(clippy::unnecessary_cast)]
                let mode = st.st_mode as u32 & 0o7777;
                Ok(Some(mode))
            }
            FileKind::Symlink => Err(FsError::Symlink { path: shown() }),
            kind => Err(FsError::NotRegular { path: shown(), kind }),
        },
        Err(Errno::NOENT) => Ok(None),
        Err(e) => Err(map_lookup_errno(e, shown)),
    }
}

/// Replaces (or creates) `dir/name` with `bytes` so that a reader sees the
/// old file or the new one whole: a temporary file is created beneath the
/// handle on `dir` (`O_CREAT | O_EXCL | O_NOFOLLOW`), written, given the
/// old file's mode (or `mode`, default `0644`, for a new file), `fsync`ed,
/// renamed over `name`, and `dir` is `fsync`ed.
///
/// Refused before anything is written: `dir` being a link (`symlink`),
/// `name` being a link (`symlink`) or not a regular file (`not-regular`),
/// and a `name` that is not one plain name (`invalid-path`). On failure the
/// temporary file is removed and `name` is untouched.
pub fn replace_file_atomic(dir: &Path, name: &str, bytes: &[u8], mode: Option<u32>) -> Result<(), FsError> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let shown = || dir.join(name).display().to_string();
    plain_name(name, shown)?;
    let dir_fd = open_dir_itself(dir)?;
    let mode = existing_mode(&dir_fd, name, &shown)?.or(mode).unwrap_or(NEW_FILE);
    let temp = format!(
        ".{name}.agentspine-tmp-{}-{}",
        rustix::process::getpid().as_raw_nonzero(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    );
    let file = create_new(&dir_fd, &temp, mode, &|| dir.join(&temp).display().to_string())?;
    let written = write_all(&file, bytes)
        .and_then(|()| rustix::fs::fchmod(&file, mode_of(mode)))
        .and_then(|()| rustix::fs::fsync(&file))
        .and_then(|()| rustix::fs::renameat(&dir_fd, temp.as_str(), &dir_fd, name));
    drop(file);
    if let Err(e) = written {
        let _ = rustix::fs::unlinkat(&dir_fd, temp.as_str(), AtFlags::empty());
        return Err(map_lookup_errno(e, &shown));
    }
    rustix::fs::fsync(&dir_fd).map_err(|e| map_lookup_errno(e, &|| dir.display().to_string()))
}

/// Copies the current bytes of the regular file `dir/name` to a new file
/// `name.agentspine-backup-<unix seconds>` (with `-2`, `-3`, … when that
/// name is taken) beneath the same handle, with the same mode, and returns
/// the new name. The copy is created with `O_EXCL`, so nothing existing is
/// ever replaced. `name` being a link is refused as `symlink`; a missing
/// `name` as `not-found`.
pub fn backup_file(dir: &Path, name: &str) -> Result<String, FsError> {
    let shown = || dir.join(name).display().to_string();
    plain_name(name, shown)?;
    let dir_fd = open_dir_itself(dir)?;
    let Some(mode) = existing_mode(&dir_fd, name, &shown)? else {
        return Err(FsError::NotFound { path: shown() });
    };
    let source = rustix::fs::openat(
        &dir_fd,
        name,
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .map_err(|e| map_lookup_errno(e, &shown))?;
    let bytes = read_all(&source).map_err(|e| map_lookup_errno(e, &shown))?;
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    for n in 1..=100u32 {
        let backup = if n == 1 {
            format!("{name}.agentspine-backup-{secs}")
        } else {
            format!("{name}.agentspine-backup-{secs}-{n}")
        };
        let shown_backup = || dir.join(&backup).display().to_string();
        let file = match create_new(&dir_fd, &backup, mode, &shown_backup) {
            Ok(file) => file,
            Err(FsError::Io { error, .. }) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        };
        let written = write_all(&file, &bytes).and_then(|()| rustix::fs::fsync(&file));
        drop(file);
        if let Err(e) = written {
            let _ = rustix::fs::unlinkat(&dir_fd, backup.as_str(), AtFlags::empty());
            return Err(map_lookup_errno(e, &shown_backup));
        }
        return Ok(backup);
    }
    Err(FsError::Io {
        path: shown(),
        error: std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            "every backup name for this second is taken",
        ),
    })
}

/// Removes the regular file `dir/name` beneath the handle on `dir`. A link
/// at `name` is refused (`symlink`) rather than removed: the installer only
/// removes files it wrote.
pub fn remove_file(dir: &Path, name: &str) -> Result<(), FsError> {
    let shown = || dir.join(name).display().to_string();
    plain_name(name, shown)?;
    let dir_fd = open_dir_itself(dir)?;
    if existing_mode(&dir_fd, name, &shown)?.is_none() {
        return Err(FsError::NotFound { path: shown() });
    }
    rustix::fs::unlinkat(&dir_fd, name, AtFlags::empty()).map_err(|e| map_lookup_errno(e, &shown))?;
    rustix::fs::fsync(&dir_fd).map_err(|e| map_lookup_errno(e, &|| dir.display().to_string()))
}

/// Makes sure the directory `parent/name` exists (created with mode `0755`
/// if missing) and is a directory, not a link to one. Returns whether this
/// call created it. `parent` is the user's path (its links allowed) and
/// must exist.
pub fn ensure_dir(parent: &Path, name: &str) -> Result<bool, FsError> {
    let shown = || parent.join(name).display().to_string();
    plain_name(name, shown)?;
    let parent_fd = open_dir_itself(parent)?;
    let made = rustix::fs::mkdirat(&parent_fd, name, NEW_DIR);
    let created = match made {
        Ok(()) => true,
        Err(Errno::EXIST) => false,
        Err(e) => return Err(map_lookup_errno(e, &shown)),
    };
    open_dir_nofollow(&parent_fd, OsStr::new(name), &shown)?;
    Ok(created)
}

/// Creates `name` beneath `dir_fd`, failing if anything is there.
fn create_new(
    dir_fd: &OwnedFd,
    name: &str,
    mode: u32,
    shown: &dyn Fn() -> String,
) -> Result<OwnedFd, FsError> {
    rustix::fs::openat(
        dir_fd,
        name,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        mode_of(mode),
    )
    .map_err(|e| match e {
        Errno::EXIST => FsError::Io { path: shown(), error: e.into() },
        other => map_lookup_errno(other, shown),
    })
}

/// Reads a file to its end, retrying `EINTR`.
fn read_all(fd: &OwnedFd) -> Result<Vec<u8>, Errno> {
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match rustix::io::read(fd.as_fd(), &mut buf) {
            Ok(0) => return Ok(out),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(Errno::INTR) => {}
            Err(e) => return Err(e),
        }
    }
}

/// Opens `dir` (an absolute, user-chosen path without `..`) refusing a link
/// at its last component; its parents may be links.
fn open_dir_itself(dir: &Path) -> Result<OwnedFd, FsError> {
    let shown = || dir.display().to_string();
    if !dir.is_absolute() {
        return Err(FsError::InvalidPath { path: shown(), reason: "the directory must be an absolute path" });
    }
    if dir.as_os_str().as_bytes().contains(&0) {
        return Err(FsError::InvalidPath { path: shown(), reason: "the path holds a NUL byte" });
    }
    if dir.components().any(|c| c == Component::ParentDir) {
        return Err(FsError::InvalidPath { path: shown(), reason: "the path holds a `..` component" });
    }
    let (Some(parent), Some(name)) = (dir.parent(), dir.file_name()) else {
        return rustix::fs::open(dir, DIR_OPEN, Mode::empty()).map_err(|e| map_lookup_errno(e, &shown));
    };
    let parent_fd =
        rustix::fs::open(parent, DIR_OPEN, Mode::empty()).map_err(|e| map_lookup_errno(e, &shown))?;
    open_dir_nofollow(&parent_fd, name, &shown)
}

/// Permission bits as the platform's `Mode` (`mode_t` is 16 bits on macOS).
#[allow(clippy::unnecessary_cast)]
fn mode_of(bits: u32) -> Mode {
    Mode::from_raw_mode((bits & 0o7777) as rustix::fs::RawMode)
}
