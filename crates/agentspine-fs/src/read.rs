//! Reading one regular file: holding it before opening it, checking what it
//! is, reading it, and making sure the bytes are one version of it (crate
//! docs, guarantees 3 and 4).

use std::ffi::OsStr;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::Path;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::counters::LiveCounters;
use crate::error::FsError;
use crate::identity::{FileKind, Identity, Look, Snapshot};
use crate::root::Root;
use crate::sys::{DirFd, FILE_HOLD, Sys};

/// A file whose mtime or ctime is less than this before a read started
/// (or later than the read's start: a clock that went back) is read a
/// second time to confirm the first read; see the crate docs, guarantee 4.
/// Longer than any filesystem's timestamp granularity (FAT's 2 s) plus the
/// time one write takes to copy its data.
pub const RACY_WINDOW: Duration = Duration::from_secs(3);

/// How much of a file a read may return.
#[derive(Clone, Copy)]
pub(crate) enum Limit {
    /// The whole file, refused if it is larger.
    Cap(u64),
    /// At most this many bytes from the start.
    Head(u64),
}

/// Which read of an attempt a system call belongs to (they are counted
/// apart).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    First,
    Confirming,
}

impl Root {
    pub(crate) fn read_with(&self, rel: &Path, limit: Limit) -> Result<Snapshot, FsError> {
        self.regular_with_retries(rel, |parents, name, shown| self.read_once(parents, name, limit, shown))
    }

    /// Takes the last name with `O_PATH`, refuses anything but a regular
    /// file with one name on the root's mount, then opens that same file
    /// for reading (see `reopen`). Returns the reading handle and the look
    /// taken on the held one.
    pub(crate) fn open_regular(
        &self,
        sys: &Sys<'_>,
        parent: BorrowedFd<'_>,
        name: &OsStr,
        shown: &dyn Fn() -> String,
    ) -> Result<(OwnedFd, Look), FsError> {
        let held = sys.open_final(parent, name, FILE_HOLD, shown)?;
        let look = sys.look_fd(held.as_fd(), shown)?;
        sys.check_mount(&look, shown)?;
        match look.kind {
            FileKind::File => {}
            FileKind::Symlink => return Err(FsError::Symlink { path: shown() }),
            kind => return Err(FsError::NotRegular { path: shown(), kind }),
        }
        if look.links > 1 {
            return Err(FsError::HardLink { path: shown(), links: look.links });
        }
        Ok((sys.reopen(held, parent, name, shown)?, look))
    }

    /// One attempt: `Ok(None)` when the file changed during the attempt.
    fn read_once(
        &self,
        parents: &[&OsStr],
        name: &OsStr,
        limit: Limit,
        shown: &dyn Fn() -> String,
    ) -> Result<Option<Snapshot>, FsError> {
        let started = SystemTime::now();
        let sys = self.sys();
        let parent: DirFd<'_> = sys.open_parent(self.fd.as_fd(), parents, shown)?;
        let (fd, look) = self.open_regular(&sys, parent.fd(), name, shown)?;
        let identity = look.identity;
        let want = match limit {
            Limit::Cap(cap) if identity.size > cap => {
                return Err(FsError::TooLarge { path: shown(), size: identity.size, cap });
            }
            Limit::Cap(_) => identity.size,
            Limit::Head(head) => identity.size.min(head),
        };
        self.reader.charge(want, shown)?;
        let racy = want > 0 && changed_within_window(&identity, started);
        match self.read_and_verify(&sys, &parent, name, &fd, identity, want, racy, shown) {
            Ok(Some(bytes)) => Ok(Some(Snapshot { bytes, identity })),
            other => {
                self.reader.refund(want);
                other.map(|_| None)
            }
        }
    }

    /// Reads `want` bytes, confirms them with a second read if the file
    /// changed moments ago, then looks at the handle and the name again.
    #[allow(clippy::too_many_arguments)]
    fn read_and_verify(
        &self,
        sys: &Sys<'_>,
        parent: &DirFd<'_>,
        name: &OsStr,
        fd: &OwnedFd,
        identity: Identity,
        want: u64,
        racy: bool,
        shown: &dyn Fn() -> String,
    ) -> Result<Option<Vec<u8>>, FsError> {
        let size = usize::try_from(want).map_err(|_| FsError::TooLarge {
            path: shown(),
            size: identity.size,
            cap: usize::MAX as u64,
        })?;
        let Some(bytes) = self.read_exact(fd, size, Pass::First, shown)? else {
            return Ok(None); // shrank under us
        };
        let mut confirmed = true;
        if racy {
            LiveCounters::bump(&self.reader.shared.counters.confirmations, 1);
            wait_for_writer(fd);
            confirmed =
                self.read_exact(fd, size, Pass::Confirming, shown)?.is_some_and(|again| again == bytes);
        }
        // The same inode (the reopened handle is the held one), unchanged
        // since the first look, and still the file at that name.
        if sys.look_fd(fd.as_fd(), shown)?.identity != identity {
            return Ok(None);
        }
        match sys.look_at(parent.fd(), name, shown) {
            Ok(now) if now.identity == identity && now.kind == FileKind::File => {}
            // Renamed over, replaced by a link or a FIFO, or removed: retry.
            Ok(_) | Err(FsError::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(e),
        }
        Ok(confirmed.then_some(bytes))
    }

    /// `size` bytes from offset 0: `read` calls on the fresh handle for the
    /// first pass, `pread` for the confirming one. `None` if the file
    /// ended early.
    fn read_exact(
        &self,
        fd: &OwnedFd,
        size: usize,
        pass: Pass,
        shown: &dyn Fn() -> String,
    ) -> Result<Option<Vec<u8>>, FsError> {
        let counters = &self.reader.shared.counters;
        let mut bytes = vec![0u8; size];
        let mut filled = 0;
        while filled < size {
            self.reader.check_deadline(shown)?;
            #[cfg(feature = "fault-injection")]
            if let Some(delay) = self.reader.shared.read_delay.lock().ok().and_then(|d| *d) {
                std::thread::sleep(delay);
            }
            let result = match pass {
                Pass::First => {
                    LiveCounters::bump(&counters.reads, 1);
                    rustix::io::read(fd, &mut bytes[filled..])
                }
                Pass::Confirming => rustix::io::pread(fd, &mut bytes[filled..], filled as u64),
            };
            match result {
                Ok(0) => return Ok(None),
                Ok(n) => {
                    if pass == Pass::First {
                        LiveCounters::bump(&counters.bytes_read, n as u64);
                    }
                    filled += n;
                }
                Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(crate::sys::map_lookup_errno(e, shown)),
            }
        }
        Ok(Some(bytes))
    }
}

/// Whether the file's last change (mtime or ctime, whichever is later) is
/// less than [`RACY_WINDOW`] before `started`, or after it.
fn changed_within_window(identity: &Identity, started: SystemTime) -> bool {
    let Ok(now) = started.duration_since(UNIX_EPOCH) else { return true };
    let now_ns = i128::try_from(now.as_nanos()).unwrap_or(i128::MAX);
    let changed_ns = i128::from(identity.mtime_ns.max(identity.ctime_ns));
    now_ns - changed_ns < i128::try_from(RACY_WINDOW.as_nanos()).unwrap_or(i128::MAX)
}

/// Waits for a write to `fd`'s file that is copying its data right now, on
/// the filesystems where that is possible: ext4, tmpfs, btrfs and overlayfs
/// hold the inode lock that a buffered write holds while they look for a
/// hole, so `lseek(SEEK_HOLE)` returns only once such a write is done. The
/// answer is not used. XFS needs no wait (a read there waits for a write
/// in progress by itself); elsewhere the call returns at once and the
/// confirming read stands alone (see the crate docs, guarantee 4).
fn wait_for_writer(fd: &OwnedFd) {
    #[cfg(any(target_os = "linux", target_vendor = "apple"))]
    let _ = rustix::fs::seek(fd, rustix::fs::SeekFrom::Hole(0));
    #[cfg(not(any(target_os = "linux", target_vendor = "apple")))]
    let _ = fd;
}
