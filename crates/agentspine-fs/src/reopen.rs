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
//! trial reopen of its own handle). That probe is not counted, like the
//! backend probe.
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
            if let Some(proc) = proc_dir() {
                LiveCounters::bump(&self.counters.reopens, 1);
                let link = format!("self/fd/{}", held.as_raw_fd());
                let flags = crate::sys::FILE_READ | rustix::fs::OFlags::CLOEXEC;
                return rustix::fs::openat(proc, link.as_str(), flags, rustix::fs::Mode::empty())
                    .map_err(|e| crate::sys::map_lookup_errno(e, shown));
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
        proc_dir().is_some()
    }
    #[cfg(not(target_os = "linux"))]
    {
        false
    }
}

/// The process's handle on a `/proc` that passed the probe.
#[cfg(target_os = "linux")]
fn proc_dir() -> Option<BorrowedFd<'static>> {
    use std::os::fd::AsFd;
    static PROC: std::sync::OnceLock<Option<OwnedFd>> = std::sync::OnceLock::new();
    PROC.get_or_init(probe).as_ref().map(|fd| fd.as_fd())
}

#[cfg(target_os = "linux")]
fn probe() -> Option<OwnedFd> {
    use std::os::fd::AsRawFd;

    use rustix::fs::{Mode, OFlags};
    let proc =
        rustix::fs::open("/proc", OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty()).ok()?;
    if rustix::fs::fstatfs(&proc).ok()?.f_type != rustix::fs::PROC_SUPER_MAGIC {
        return None;
    }
    let link = format!("self/fd/{}", proc.as_raw_fd());
    let again = rustix::fs::openat(
        &proc,
        link.as_str(),
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .ok()?;
    let (held, reopened) = (rustix::fs::fstat(&proc).ok()?, rustix::fs::fstat(&again).ok()?);
    (held.st_dev == reopened.st_dev && held.st_ino == reopened.st_ino).then_some(proc)
}
