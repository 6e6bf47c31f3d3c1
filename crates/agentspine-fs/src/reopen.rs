//! Turning a held file into a readable one without resolving its name
//! again.
//!
//! A file to be read is first taken with `O_PATH`: no driver's `open` runs
//! and nothing can be read through the handle, but it can be looked at. Its
//! type, link count and mount are checked on that handle, and only then is
//! it opened for reading. On Linux the reading handle comes from the
//! kernel's own link to the held file, `/proc/self/fd/N`; following that
//! link (it has to be followed, so no `O_NOFOLLOW` here) opens exactly the
//! inode that was checked, whatever has happened to its name since.
//!
//! `/proc` is taken once per process and trusted only if it is a procfs
//! (`fstatfs`) whose `self/fd` links lead back to the handle they name (a
//! trial reopen of its own handle). Its `self/fd` directory is kept open
//! too: a reopen from it resolves one name, where `self/fd/N` from `/proc`
//! costs about 7 µs more (the `self` link and the process directory). A
//! child forked without `exec` has other descriptors behind that
//! directory, so it goes through `self/fd/N` again. The probe is not
//! counted, like the backend probe.
//!
//! Where `/proc` fails the probe (not mounted in a container or chroot, or
//! a security module refusing its links), the name is opened again in the
//! same parent directory, `O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY`,
//! through the same backend; callers compare the device and inode of that
//! handle with the held one before a byte is used. That keeps every
//! snapshot sound (another inode is never returned) but not the open
//! itself: a device renamed into place between the check and the second
//! open would have its driver's `open` run. It also costs a second open
//! that names the file (counted in `opens`, not `reopens`).

use std::ffi::OsStr;
use std::os::fd::{BorrowedFd, OwnedFd};

#[cfg(target_os = "linux")]
use crate::counters::LiveCounters;
use crate::error::FsError;
use crate::sys::Sys;

impl Sys<'_> {
    /// A readable handle on the file `held` (taken with
    /// [`crate::sys::FILE_HOLD`] as `name` in `parent`).
    pub(crate) fn reopen(
        &self,
        held: OwnedFd,
        parent: BorrowedFd<'_>,
        name: &OsStr,
        shown: &dyn Fn() -> String,
    ) -> Result<OwnedFd, FsError> {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            if let Some(proc) = proc() {
                LiveCounters::bump(&self.counters.reopens, 1);
                let flags = crate::sys::FILE_READ | rustix::fs::OFlags::CLOEXEC;
                let opened = if rustix::process::getpid() == proc.pid {
                    rustix::fs::openat(
                        &proc.fds,
                        held.as_raw_fd().to_string(),
                        flags,
                        rustix::fs::Mode::empty(),
                    )
                } else {
                    let link = format!("self/fd/{}", held.as_raw_fd());
                    rustix::fs::openat(&proc.root, link, flags, rustix::fs::Mode::empty())
                };
                return opened.map_err(|e| crate::sys::map_lookup_errno(e, shown));
            }
            drop(held);
            self.open_final(parent, name, crate::sys::FILE_READ, shown)
        }
        // Without O_PATH the held handle was opened for reading already.
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (parent, name, shown);
            Ok(held)
        }
    }
}

/// Whether reads reopen held files through `/proc` in this process (else
/// the name is opened again; see the module docs).
pub fn reopens_through_proc() -> bool {
    #[cfg(target_os = "linux")]
    {
        proc().is_some()
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// A `/proc` that passed the probe: its root, the probing process's
/// `self/fd` directory, and that process's id.
#[cfg(target_os = "linux")]
struct Proc {
    root: OwnedFd,
    fds: OwnedFd,
    pid: rustix::process::Pid,
}

#[cfg(target_os = "linux")]
fn proc() -> Option<&'static Proc> {
    static PROC: std::sync::OnceLock<Option<Proc>> = std::sync::OnceLock::new();
    PROC.get_or_init(probe).as_ref()
}

#[cfg(target_os = "linux")]
fn probe() -> Option<Proc> {
    use std::os::fd::AsRawFd;

    use rustix::fs::{Mode, OFlags};
    let dir = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let root = rustix::fs::open("/proc", dir, Mode::empty()).ok()?;
    if rustix::fs::fstatfs(&root).ok()?.f_type != rustix::fs::PROC_SUPER_MAGIC {
        return None;
    }
    let pid = rustix::process::getpid();
    let fds = rustix::fs::openat(&root, "self/fd", dir, Mode::empty()).ok()?;
    let again = rustix::fs::openat(
        &fds,
        root.as_raw_fd().to_string(),
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .ok()?;
    let (held, reopened) = (rustix::fs::fstat(&root).ok()?, rustix::fs::fstat(&again).ok()?);
    (held.st_dev == reopened.st_dev && held.st_ino == reopened.st_ino).then_some(Proc { root, fds, pid })
}
