//! The two ways of reaching a name beneath a root, and the errno mapping.
//!
//! Every public operation first reduces its path to plain names (`path`),
//! then reaches the *parent directory* of the last name and works on the
//! last name relative to that parent's handle:
//!
//! - [`Backend::Openat2`] (Linux 5.6+): the parent is opened with one
//!   `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
//!   RESOLVE_NO_XDEV)` call, `O_PATH | O_DIRECTORY | O_CLOEXEC`; the kernel
//!   refuses any link and any mount point on the way. The last name is
//!   opened with the same resolve flags plus `O_NOFOLLOW`.
//! - [`Backend::Walk`]: each directory is opened from the previous one with
//!   `openat(O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)` (`O_RDONLY` and
//!   `O_NOFOLLOW_ANY` instead of `O_PATH` on macOS); when that fails with
//!   `ENOTDIR` or `ELOOP`, one `fstatat(AT_SYMLINK_NOFOLLOW)` tells a link
//!   from a non-directory. The last name is opened with `O_NOFOLLOW`. In
//!   place of `RESOLVE_NO_XDEV`, the deepest directory the walk reached is
//!   looked at once with `statx` and its mount id compared with the root's
//!   (looked at once when the root was opened), and so is whatever the last
//!   name opens: a walk that enters a mount never leaves it by descending,
//!   so one look at the end sees any crossing on the way.
//!
//! Both answer every path the same way; the test suite runs each path test
//! against both, and CI runs it again with `openat2` made to fail by seccomp.

use std::ffi::OsStr;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::OnceLock;

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;
use serde::Serialize;

use crate::counters::LiveCounters;
use crate::error::FsError;
use crate::identity::{FileKind, Look, Mount};

/// How names beneath a root are reached. See the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Backend {
    /// One `openat2` call with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`.
    Openat2,
    /// A component-by-component walk with `O_NOFOLLOW`.
    Walk,
}

impl Backend {
    /// The best backend this process can use: `openat2` unless the kernel
    /// lacks it or a seccomp filter refuses it (`ENOSYS`, `EPERM`, or
    /// `EINVAL`/`E2BIG` for unknown resolve flags). Probed once per process.
    pub fn detect() -> Backend {
        static DETECTED: OnceLock<Backend> = OnceLock::new();
        *DETECTED.get_or_init(|| if openat2_available() { Backend::Openat2 } else { Backend::Walk })
    }

    /// Whether this backend can be used in this process.
    pub fn available(self) -> bool {
        match self {
            Backend::Walk => true,
            Backend::Openat2 => Backend::detect() == Backend::Openat2,
        }
    }

    /// `"openat2"` or `"walk"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Openat2 => "openat2",
            Backend::Walk => "walk",
        }
    }
}

#[cfg(target_os = "linux")]
fn openat2_available() -> bool {
    match rustix::fs::openat2(
        rustix::fs::CWD,
        "/",
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
        rustix::fs::ResolveFlags::NO_SYMLINKS
            | rustix::fs::ResolveFlags::NO_MAGICLINKS
            | rustix::fs::ResolveFlags::NO_XDEV,
    ) {
        Ok(_) => true,
        Err(Errno::NOSYS | Errno::PERM | Errno::INVAL | Errno::TOOBIG) => false,
        // Anything else means the call exists and understood the flags.
        Err(_) => true,
    }
}

#[cfg(not(target_os = "linux"))]
fn openat2_available() -> bool {
    false
}

#[cfg(target_os = "linux")]
fn resolve_flags() -> rustix::fs::ResolveFlags {
    use rustix::fs::ResolveFlags;
    ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS | ResolveFlags::NO_XDEV
}

/// Flags for a directory handle used only as a base for further lookups.
#[cfg(target_os = "linux")]
const DIR_BASE: OFlags = OFlags::PATH.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC);
#[cfg(target_vendor = "apple")]
const DIR_BASE: OFlags =
    OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC).union(OFlags::NOFOLLOW_ANY);
#[cfg(not(any(target_os = "linux", target_vendor = "apple")))]
const DIR_BASE: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::CLOEXEC);

/// Extra flags on every open of a last component.
#[cfg(target_vendor = "apple")]
const FINAL_EXTRA: OFlags = OFlags::NOFOLLOW.union(OFlags::CLOEXEC).union(OFlags::NOFOLLOW_ANY);
#[cfg(not(target_vendor = "apple"))]
const FINAL_EXTRA: OFlags = OFlags::NOFOLLOW.union(OFlags::CLOEXEC);

/// Flags to open a file for reading: never blocks on a FIFO, never becomes
/// a controlling terminal.
pub(crate) const FILE_READ: OFlags = OFlags::RDONLY.union(OFlags::NONBLOCK).union(OFlags::NOCTTY);
/// Flags to take hold of a file without opening it (no driver's `open`
/// runs), so its type can be checked first. Systems without `O_PATH` open
/// it for reading at once.
#[cfg(target_os = "linux")]
pub(crate) const FILE_HOLD: OFlags = OFlags::PATH;
#[cfg(not(target_os = "linux"))]
pub(crate) const FILE_HOLD: OFlags = FILE_READ;
/// Flags to open a directory for listing.
pub(crate) const DIR_READ: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::NONBLOCK);
/// Flags to open a directory as a base for lookups.
pub(crate) const DIR_LOOKUP: OFlags = DIR_BASE;

/// A parent directory handle: the root's own, or one opened on the way.
pub(crate) enum DirFd<'a> {
    Borrowed(BorrowedFd<'a>),
    Owned(OwnedFd),
}

impl DirFd<'_> {
    pub(crate) fn fd(&self) -> BorrowedFd<'_> {
        match self {
            DirFd::Borrowed(fd) => *fd,
            DirFd::Owned(fd) => fd.as_fd(),
        }
    }
}

/// Counted system calls for one reader.
pub(crate) struct Sys<'c> {
    pub(crate) backend: Backend,
    pub(crate) counters: &'c LiveCounters,
    /// The root's mount, under the walk backend (the kernel checks mounts
    /// for `openat2`).
    pub(crate) root_mount: Option<Mount>,
}

impl Sys<'_> {
    /// Reaches the directory holding the last name. `names` are the parent
    /// names (possibly none: the root itself).
    pub(crate) fn open_parent<'r>(
        &self,
        root: BorrowedFd<'r>,
        names: &[&OsStr],
        shown: &dyn Fn() -> String,
    ) -> Result<DirFd<'r>, FsError> {
        if names.is_empty() {
            return Ok(DirFd::Borrowed(root));
        }
        match self.backend {
            #[cfg(target_os = "linux")]
            Backend::Openat2 => {
                let joined = crate::path::join(names);
                LiveCounters::bump(&self.counters.opens, 1);
                rustix::fs::openat2(
                    root,
                    <OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(&joined),
                    DIR_BASE,
                    Mode::empty(),
                    resolve_flags(),
                )
                .map(DirFd::Owned)
                .map_err(|e| map_lookup_errno(e, shown))
            }
            #[cfg(not(target_os = "linux"))]
            Backend::Openat2 => self.walk(root, names, shown),
            Backend::Walk => self.walk(root, names, shown),
        }
    }

    fn walk<'r>(
        &self,
        root: BorrowedFd<'r>,
        names: &[&OsStr],
        shown: &dyn Fn() -> String,
    ) -> Result<DirFd<'r>, FsError> {
        let mut current = DirFd::Borrowed(root);
        let mut failure = None;
        for name in names {
            LiveCounters::bump(&self.counters.opens, 1);
            match rustix::fs::openat(current.fd(), *name, DIR_BASE | OFlags::NOFOLLOW, Mode::empty()) {
                Ok(fd) => current = DirFd::Owned(fd),
                Err(Errno::NOTDIR | Errno::LOOP) => {
                    failure = Some(match self.kind_of(current.fd(), name) {
                        Some(FileKind::Symlink) => FsError::Symlink { path: shown() },
                        _ => FsError::NotFound { path: shown() },
                    });
                    break;
                }
                Err(e) => {
                    failure = Some(map_lookup_errno(e, shown));
                    break;
                }
            }
        }
        // A mount crossed on the way is reported first, as openat2 does.
        if let (Some(_), DirFd::Owned(fd)) = (self.root_mount, &current) {
            let look = self.look_fd(fd.as_fd(), shown)?;
            self.check_mount(&look, shown)?;
        }
        match failure {
            Some(e) => Err(e),
            None => Ok(current),
        }
    }

    /// Under the walk backend, refuses something reached through another
    /// mount than the root's.
    pub(crate) fn check_mount(&self, look: &Look, shown: &dyn Fn() -> String) -> Result<(), FsError> {
        match self.root_mount {
            Some(root) if root != look.mount => Err(FsError::MountCrossing { path: shown() }),
            _ => Ok(()),
        }
    }

    /// Opens the last name beneath `parent` with `flags` (plus `O_NOFOLLOW`
    /// and `O_CLOEXEC`). A link there is refused; something of the wrong
    /// type is reported with its kind.
    pub(crate) fn open_final(
        &self,
        parent: BorrowedFd<'_>,
        name: &OsStr,
        flags: OFlags,
        shown: &dyn Fn() -> String,
    ) -> Result<OwnedFd, FsError> {
        LiveCounters::bump(&self.counters.opens, 1);
        let opened = match self.backend {
            #[cfg(target_os = "linux")]
            Backend::Openat2 => {
                rustix::fs::openat2(parent, name, flags | FINAL_EXTRA, Mode::empty(), resolve_flags())
            }
            _ => rustix::fs::openat(parent, name, flags | FINAL_EXTRA, Mode::empty()),
        };
        let wants_dir = flags.contains(OFlags::DIRECTORY);
        opened.map_err(|e| match e {
            Errno::LOOP => FsError::Symlink { path: shown() },
            Errno::NOTDIR if wants_dir => match self.kind_of(parent, name) {
                Some(FileKind::Symlink) => FsError::Symlink { path: shown() },
                Some(kind) => FsError::NotDirectory { path: shown(), kind },
                None => FsError::NotFound { path: shown() },
            },
            // A socket cannot be opened at all (ENXIO); a device without a
            // driver, or one that would block, answers ENXIO/ENODEV/EAGAIN.
            Errno::NXIO | Errno::NODEV | Errno::AGAIN | Errno::OPNOTSUPP => {
                match self.kind_of(parent, name) {
                    Some(FileKind::Symlink) => FsError::Symlink { path: shown() },
                    Some(kind) if kind != FileKind::File => FsError::NotRegular { path: shown(), kind },
                    _ => FsError::Io { path: shown(), error: e.into() },
                }
            }
            other => map_lookup_errno(other, shown),
        })
    }

    /// `statx(parent, name, AT_SYMLINK_NOFOLLOW)` (`fstatat` where there is
    /// no `statx`).
    pub(crate) fn look_at(
        &self,
        parent: BorrowedFd<'_>,
        name: &OsStr,
        shown: &dyn Fn() -> String,
    ) -> Result<Look, FsError> {
        LiveCounters::bump(&self.counters.stats, 1);
        #[cfg(target_os = "linux")]
        match rustix::fs::statx(parent, name, AtFlags::SYMLINK_NOFOLLOW, STATX_WANTED) {
            Ok(st) => return Ok(Look::of_statx(&st)),
            Err(Errno::NOSYS) => {}
            Err(e) => return Err(map_lookup_errno(e, shown)),
        }
        rustix::fs::statat(parent, name, AtFlags::SYMLINK_NOFOLLOW)
            .map(|st| Look::of_stat(&st))
            .map_err(|e| map_lookup_errno(e, shown))
    }

    /// `statx(fd, "", AT_EMPTY_PATH)` (`fstat` where there is no `statx`).
    pub(crate) fn look_fd(&self, fd: BorrowedFd<'_>, shown: &dyn Fn() -> String) -> Result<Look, FsError> {
        LiveCounters::bump(&self.counters.stats, 1);
        #[cfg(target_os = "linux")]
        match rustix::fs::statx(fd, "", AtFlags::EMPTY_PATH, STATX_WANTED) {
            Ok(st) => return Ok(Look::of_statx(&st)),
            Err(Errno::NOSYS) => {}
            Err(e) => return Err(map_lookup_errno(e, shown)),
        }
        rustix::fs::fstat(fd).map(|st| Look::of_stat(&st)).map_err(|e| map_lookup_errno(e, shown))
    }

    /// What `name` is, without following it; `None` if it is gone.
    pub(crate) fn kind_of(&self, parent: BorrowedFd<'_>, name: &OsStr) -> Option<FileKind> {
        LiveCounters::bump(&self.counters.stats, 1);
        rustix::fs::statat(parent, name, AtFlags::SYMLINK_NOFOLLOW)
            .ok()
            .map(|st| FileKind::from_file_type(FileType::from_raw_mode(st.st_mode)))
    }
}

/// What every look asks of `statx`: the basic fields and the mount id.
#[cfg(target_os = "linux")]
const STATX_WANTED: rustix::fs::StatxFlags =
    rustix::fs::StatxFlags::BASIC_STATS.union(rustix::fs::StatxFlags::MNT_ID);

/// Maps the errno of a lookup to a refusal. `EXDEV` can only come from
/// `RESOLVE_NO_XDEV`: no `..` reaches the kernel and links are refused
/// before `RESOLVE_BENEATH` could see one leave.
pub(crate) fn map_lookup_errno(errno: Errno, shown: &dyn Fn() -> String) -> FsError {
    match errno {
        Errno::NOENT | Errno::NOTDIR => FsError::NotFound { path: shown() },
        Errno::LOOP => FsError::Symlink { path: shown() },
        Errno::XDEV => FsError::MountCrossing { path: shown() },
        Errno::ACCESS | Errno::PERM => FsError::PermissionDenied { path: shown() },
        Errno::AGAIN => FsError::Race { path: shown(), attempts: 1 },
        Errno::NAMETOOLONG => FsError::InvalidPath { path: shown(), reason: "a name is too long" },
        other => FsError::Io { path: shown(), error: other.into() },
    }
}
