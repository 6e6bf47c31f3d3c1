//! Small files of agentspine's own inside its private state directory,
//! through one directory handle: append a line, read a file whole (up to a
//! cap), remove it, list what is there.
//!
//! These are for state that a hook writes on the way out and that may be
//! lost without harm (what a session was sent): no `fsync`, no temporary
//! file, one `write` per append. Every name is one plain name used
//! relative to the handle and never followed (`O_NOFOLLOW`); a file that is
//! not a regular file of this user with one name is refused, so nothing
//! placed there by another process (a link, a FIFO, a hard link to a file
//! elsewhere) is read or written through.

use std::ffi::OsStr;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use crate::error::FsError;
use crate::identity::FileKind;
use crate::state::{ensure_private_dir_fd, open_dir_nofollow, plain_name, write_all};
use crate::sys::map_lookup_errno;

/// Mode of a directory or file made here.
const DIR_MODE: Mode = Mode::RWXU;
const FILE_MODE: Mode = Mode::RUSR.union(Mode::WUSR);

/// A directory of agentspine's own, open: a private directory (see
/// [`crate::ensure_private_dir`]) or one made inside one with [`PrivateDir::subdir`].
#[derive(Debug)]
pub struct PrivateDir {
    fd: OwnedFd,
    path: PathBuf,
}

/// One entry of [`PrivateDir::entries`]: a regular file's name and when it
/// was last written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrivateEntry {
    /// The file's name inside the directory.
    pub name: String,
    /// Its modification time.
    pub modified: SystemTime,
}

impl PrivateDir {
    /// Opens (creating it when missing) the private directory `path`, with
    /// the checks of [`crate::ensure_private_dir`].
    pub fn open(path: &Path) -> Result<PrivateDir, FsError> {
        let fd = ensure_private_dir_fd(path)?;
        Ok(PrivateDir { fd, path: path.to_path_buf() })
    }

    /// Opens the existing directory `path` (a link at its last component
    /// refused), checking only that it belongs to this user: for a
    /// directory [`PrivateDir::open`] (or [`crate::ensure_private_dir`])
    /// has made sure of in this process, without doing it all again.
    pub fn open_existing(path: &Path) -> Result<PrivateDir, FsError> {
        let shown = || path.display().to_string();
        let fd = rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| match e {
            Errno::LOOP | Errno::NOTDIR => FsError::Symlink { path: shown() },
            other => map_lookup_errno(other, &shown),
        })?;
        let st = rustix::fs::fstat(&fd).map_err(|e| map_lookup_errno(e, &shown))?;
        ours(&st, "directory", &shown)?;
        Ok(PrivateDir { fd, path: path.to_path_buf() })
    }

    /// A second handle on the same directory.
    pub fn try_clone(&self) -> Result<PrivateDir, FsError> {
        let fd = self
            .fd
            .try_clone()
            .map_err(|e| FsError::Io { path: self.path.display().to_string(), error: e })?;
        Ok(PrivateDir { fd, path: self.path.clone() })
    }

    /// The directory `name` inside this one, made (mode `0700`) when
    /// `create` is set and it is missing; `None` when it is missing and not
    /// made. A link there is refused (`symlink`).
    pub fn subdir(&self, name: &str, create: bool) -> Result<Option<PrivateDir>, FsError> {
        let path = self.path.join(name);
        let shown = || path.display().to_string();
        plain_name(name, shown)?;
        if create {
            match rustix::fs::mkdirat(&self.fd, name, DIR_MODE) {
                Ok(()) | Err(Errno::EXIST) => {}
                Err(e) => return Err(map_lookup_errno(e, &shown)),
            }
        }
        match open_dir_nofollow(&self.fd, OsStr::new(name), &shown) {
            Ok(fd) => Ok(Some(PrivateDir { fd, path })),
            Err(FsError::NotFound { .. }) if !create => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The directory's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends `bytes` to the file `name` (created `0600` when missing) in
    /// one `write` call with `O_APPEND`, so that appends of other processes
    /// land whole before or after it on a local file system, unless the
    /// file would then hold more than `cap` bytes; whether it was written.
    /// Not synced.
    pub fn append_within(&self, name: &str, bytes: &[u8], cap: usize) -> Result<bool, FsError> {
        let shown = || self.path.join(name).display().to_string();
        plain_name(name, shown)?;
        let fd = rustix::fs::openat(
            &self.fd,
            name,
            OFlags::WRONLY
                | OFlags::APPEND
                | OFlags::CREATE
                | OFlags::NOFOLLOW
                | OFlags::NONBLOCK
                | OFlags::CLOEXEC,
            FILE_MODE,
        )
        .map_err(|e| self.refusal(name, e))?;
        let size = self.check_own_file(&fd, name)?;
        if usize::try_from(size).unwrap_or(usize::MAX).saturating_add(bytes.len()) > cap {
            return Ok(false);
        }
        write_all(&fd, bytes).map_err(|e| map_lookup_errno(e, &shown))?;
        Ok(true)
    }

    /// Replaces the file `name` with `bytes` whole: written to a new
    /// temporary file (`.<name>.<pid>.<nanoseconds>`, `0600`, created
    /// exclusively, never through a link) that is then renamed over
    /// `name`, so a reader sees the old bytes or the new ones, never a
    /// mix, and a process killed half-way leaves `name` as it was. Not
    /// synced. A link or anything else that is not a regular file at `name`
    /// is refused and left alone (a rename would replace the link itself,
    /// never its target). A temporary file that cannot be renamed is
    /// removed.
    pub fn replace(&self, name: &str, bytes: &[u8]) -> Result<(), FsError> {
        let shown = || self.path.join(name).display().to_string();
        plain_name(name, shown)?;
        self.regular_or_absent(name)?;
        let nanos = SystemTime::now().duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let temp = format!(".{name}.{}.{nanos}", std::process::id());
        let fd = rustix::fs::openat(
            &self.fd,
            temp.as_str(),
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            FILE_MODE,
        )
        .map_err(|e| self.refusal(&temp, e))?;
        let written = write_all(&fd, bytes).map_err(|e| map_lookup_errno(e, &shown)).and_then(|()| {
            rustix::fs::renameat(&self.fd, temp.as_str(), &self.fd, name)
                .map_err(|e| map_lookup_errno(e, &shown))
        });
        if written.is_err() {
            let _ = rustix::fs::unlinkat(&self.fd, temp.as_str(), AtFlags::empty());
        }
        written
    }

    /// The bytes of the file `name`, or `None` when it does not exist. At
    /// most `cap` bytes are read: a longer file gives its first `cap`.
    pub fn read(&self, name: &str, cap: usize) -> Result<Option<Vec<u8>>, FsError> {
        let shown = || self.path.join(name).display().to_string();
        plain_name(name, shown)?;
        let fd = match rustix::fs::openat(
            &self.fd,
            name,
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            Mode::empty(),
        ) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(None),
            Err(e) => return Err(self.refusal(name, e)),
        };
        let size = self.check_own_file(&fd, name)?;
        let want = usize::try_from(size).unwrap_or(usize::MAX).min(cap);
        let mut out = vec![0u8; want];
        let mut filled = 0;
        while filled < want {
            match rustix::io::read(fd.as_fd(), &mut out[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(Errno::INTR) => {}
                Err(e) => return Err(map_lookup_errno(e, &shown)),
            }
        }
        out.truncate(filled);
        Ok(Some(out))
    }

    /// Removes the file `name`; whether it was there. A link or anything
    /// else that is not a regular file is left alone (`symlink`,
    /// `not-regular`).
    pub fn remove(&self, name: &str) -> Result<bool, FsError> {
        let shown = || self.path.join(name).display().to_string();
        plain_name(name, shown)?;
        if !self.regular_or_absent(name)? {
            return Ok(false);
        }
        match rustix::fs::unlinkat(&self.fd, name, AtFlags::empty()) {
            Ok(()) => Ok(true),
            Err(Errno::NOENT) => Ok(false),
            Err(e) => Err(map_lookup_errno(e, &shown)),
        }
    }

    /// When the regular file `name` was last written; `None` when nothing
    /// is there. A link or anything else is refused as in [`PrivateDir::remove`].
    pub fn modified(&self, name: &str) -> Result<Option<SystemTime>, FsError> {
        let shown = || self.path.join(name).display().to_string();
        plain_name(name, shown)?;
        match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => match FileKind::from_file_type(FileType::from_raw_mode(st.st_mode)) {
                FileKind::File => Ok(Some(mtime(&st))),
                FileKind::Symlink => Err(FsError::Symlink { path: shown() }),
                kind => Err(FsError::NotRegular { path: shown(), kind }),
            },
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(map_lookup_errno(e, &shown)),
        }
    }

    /// Sets the modification time of the file `name` to now, creating it
    /// empty (`0600`) when missing.
    pub fn touch(&self, name: &str) -> Result<(), FsError> {
        let shown = || self.path.join(name).display().to_string();
        plain_name(name, shown)?;
        let fd = rustix::fs::openat(
            &self.fd,
            name,
            OFlags::WRONLY | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC,
            FILE_MODE,
        )
        .map_err(|e| self.refusal(name, e))?;
        self.check_own_file(&fd, name)?;
        let now = rustix::fs::Timespec { tv_sec: 0, tv_nsec: rustix::fs::UTIME_NOW };
        rustix::fs::futimens(&fd, &rustix::fs::Timestamps { last_access: now, last_modification: now })
            .map_err(|e| map_lookup_errno(e, &shown))
    }

    /// The regular files in the directory, at most `limit` of them (in the
    /// order the directory gives them), with their modification times.
    /// Anything else (links, directories) is skipped.
    pub fn entries(&self, limit: usize) -> Result<Vec<PrivateEntry>, FsError> {
        let shown = || self.path.display().to_string();
        let fd = rustix::fs::openat(
            &self.fd,
            ".",
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| map_lookup_errno(e, &shown))?;
        let mut dir = rustix::fs::Dir::new(fd).map_err(|e| map_lookup_errno(e, &shown))?;
        let mut out = Vec::new();
        while out.len() < limit {
            let Some(entry) = dir.read() else { break };
            let entry = entry.map_err(|e| map_lookup_errno(e, &shown))?;
            let Ok(name) = entry.file_name().to_str() else { continue };
            if name == "." || name == ".." {
                continue;
            }
            let Ok(st) = rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) else { continue };
            if FileKind::from_file_type(FileType::from_raw_mode(st.st_mode)) != FileKind::File {
                continue;
            }
            out.push(PrivateEntry { name: name.to_owned(), modified: mtime(&st) });
        }
        Ok(out)
    }

    /// Whether a regular file is at `name` (`false`: nothing is); a link or
    /// anything else there is refused (`symlink`, `not-regular`).
    fn regular_or_absent(&self, name: &str) -> Result<bool, FsError> {
        let shown = || self.path.join(name).display().to_string();
        match rustix::fs::statat(&self.fd, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => match FileKind::from_file_type(FileType::from_raw_mode(st.st_mode)) {
                FileKind::File => Ok(true),
                FileKind::Symlink => Err(FsError::Symlink { path: shown() }),
                kind => Err(FsError::NotRegular { path: shown(), kind }),
            },
            Err(Errno::NOENT) => Ok(false),
            Err(e) => Err(map_lookup_errno(e, &shown)),
        }
    }

    /// A regular file of this user with one name, or the refusal; its size.
    fn check_own_file(&self, fd: &OwnedFd, name: &str) -> Result<u64, FsError> {
        let shown = || self.path.join(name).display().to_string();
        let st = rustix::fs::fstat(fd).map_err(|e| map_lookup_errno(e, &shown))?;
        let kind = FileKind::from_file_type(FileType::from_raw_mode(st.st_mode));
        if kind != FileKind::File {
            return Err(FsError::NotRegular { path: shown(), kind });
        }
        #[allow(clippy::unnecessary_cast)]
        let links = st.st_nlink as u64;
        if links > 1 {
            return Err(FsError::HardLink { path: shown(), links });
        }
        ours(&st, "file", &shown)?;
        Ok(u64::try_from(st.st_size).unwrap_or(0))
    }

    /// The error for an `openat` of `name` that failed: a link is
    /// `symlink` (`O_NOFOLLOW` answers `ELOOP`).
    fn refusal(&self, name: &str, e: Errno) -> FsError {
        let shown = || self.path.join(name).display().to_string();
        match e {
            Errno::LOOP => FsError::Symlink { path: shown() },
            other => map_lookup_errno(other, &shown),
        }
    }
}

/// Refuses a directory or file (`what`) that another user owns.
fn ours(st: &rustix::fs::Stat, what: &str, shown: &dyn Fn() -> String) -> Result<(), FsError> {
    if st.st_uid == rustix::process::geteuid().as_raw() {
        return Ok(());
    }
    Err(FsError::Io {
        path: shown(),
        error: std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!("refused: the {what} is owned by uid {}, not by this user", st.st_uid),
        ),
    })
}

/// A file's modification time.
fn mtime(st: &rustix::fs::Stat) -> SystemTime {
    let secs = u64::try_from(st.st_mtime).unwrap_or(0);
    #[allow(clippy::unnecessary_cast)]
    let nanos = u32::try_from(st.st_mtime_nsec as i64).unwrap_or(0);
    SystemTime::UNIX_EPOCH + Duration::new(secs, nanos.min(999_999_999))
}
