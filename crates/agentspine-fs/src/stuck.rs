//! Which file a process or thread that stopped answering is waiting on.
//!
//! A read that never returns is abandoned (see `detach` and
//! [`crate::run_with_deadline`]); the error should still name the file, not
//! only the root. The worker cannot say it (it is asleep in the kernel), and
//! recording every path before every system call would cost every request
//! for the rare one that hangs. So the one that gave up asks the kernel
//! afterwards: `/proc/<pid>/task/<tid>/syscall` names the system call a
//! sleeping thread is in and its arguments; a descriptor argument is
//! resolved through `/proc/<pid>/fd/<n>`, a name argument is read from the
//! sleeper's memory (`/proc/<pid>/mem`, allowed for a process's own
//! threads and for its children). Linux only; elsewhere nothing is named.

use std::path::PathBuf;

/// Whose wait to look at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sleeper {
    /// Every thread of a process (a detached child).
    Process(i32),
    /// One thread of this process, by its kernel thread id.
    Thread(i32),
}

/// The kernel thread id of the calling thread (to be named later by
/// [`blocked_on`] with [`Sleeper::Thread`]).
pub fn thread_id() -> i32 {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        rustix::thread::gettid().as_raw_nonzero().get()
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        0
    }
}

/// The file `sleeper` waits on in a file system call (a read, an open, a
/// stat, a listing), when the kernel says; `None` when it is not in such a
/// call, has gone, or the system cannot say.
pub fn blocked_on(sleeper: Sleeper) -> Option<PathBuf> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        linux::blocked_on(sleeper)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = sleeper;
        None
    }
}

#[cfg(any(target_os = "linux", target_os = "android"))]
mod linux {
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::fs::FileExt;
    use std::path::{Path, PathBuf};

    use super::Sleeper;

    /// `AT_FDCWD` as the kernel prints it (a 64-bit register).
    const AT_FDCWD: u64 = (-100i64) as u64;

    pub(super) fn blocked_on(sleeper: Sleeper) -> Option<PathBuf> {
        let (pid, tasks) = match sleeper {
            Sleeper::Thread(tid) => ("self".to_owned(), vec![tid.to_string()]),
            Sleeper::Process(pid) => {
                let dir = format!("/proc/{pid}/task");
                let mut tasks: Vec<String> = std::fs::read_dir(&dir)
                    .ok()?
                    .filter_map(|e| e.ok().and_then(|e| e.file_name().to_str().map(str::to_owned)))
                    .collect();
                tasks.sort();
                (pid.to_string(), tasks)
            }
        };
        tasks.iter().find_map(|tid| in_call(&pid, tid))
    }

    /// The file of the call thread `tid` of process `pid` is in.
    fn in_call(pid: &str, tid: &str) -> Option<PathBuf> {
        let line = std::fs::read_to_string(format!("/proc/{pid}/task/{tid}/syscall")).ok()?;
        let mut words = line.split_whitespace();
        let nr: i64 = words.next()?.parse().ok()?;
        let args: Vec<u64> =
            words.take(6).filter_map(|w| u64::from_str_radix(w.trim_start_matches("0x"), 16).ok()).collect();
        let (first, second) = (*args.first()?, *args.get(1)?);
        let by_descriptor = [
            libc::SYS_read,
            libc::SYS_pread64,
            libc::SYS_readv,
            libc::SYS_preadv,
            libc::SYS_fstat,
            libc::SYS_getdents64,
            libc::SYS_fcntl,
            libc::SYS_flock,
            libc::SYS_fsync,
            libc::SYS_fdatasync,
        ];
        let by_name = [
            libc::SYS_openat,
            libc::SYS_openat2,
            libc::SYS_statx,
            libc::SYS_newfstatat,
            libc::SYS_readlinkat,
        ];
        if by_descriptor.contains(&nr) {
            return descriptor(pid, first);
        }
        if by_name.contains(&nr) {
            let name = name_at(pid, second)?;
            if name.is_absolute() {
                return Some(name);
            }
            let dir = if first == AT_FDCWD {
                std::fs::read_link(format!("/proc/{pid}/cwd")).ok()?
            } else {
                descriptor(pid, first)?
            };
            // A file reopened through `/proc/self/fd/<n>` (see `reopen`):
            // the file is that descriptor's.
            if dir.starts_with("/proc") && dir.ends_with("fd") {
                let n: u64 = name.to_str()?.parse().ok()?;
                return descriptor(pid, n);
            }
            return Some(dir.join(name));
        }
        None
    }

    fn descriptor(pid: &str, fd: u64) -> Option<PathBuf> {
        let target = std::fs::read_link(format!("/proc/{pid}/fd/{fd}")).ok()?;
        target.is_absolute().then_some(target)
    }

    /// The NUL-terminated name at `address` in the memory of `pid`.
    fn name_at(pid: &str, address: u64) -> Option<PathBuf> {
        let mem = std::fs::File::open(format!("/proc/{pid}/mem")).ok()?;
        let mut buf = vec![0u8; 4096];
        let n = mem.read_at(&mut buf, address).ok()?;
        let end = buf[..n].iter().position(|&b| b == 0)?;
        (end > 0).then(|| Path::new(std::ffi::OsStr::from_bytes(&buf[..end])).to_path_buf())
    }
}
