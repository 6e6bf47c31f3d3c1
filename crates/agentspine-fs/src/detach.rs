//! Work in a child process that the caller can abandon.
//!
//! A thread can be abandoned ([`crate::run_with_deadline`]) but its process
//! cannot leave without it: measured on Linux 6.18 with a FUSE file system
//! that never answers, a thread asleep in an `open` or `stat` the daemon
//! has received (and in every later `open` of a file whose page a stuck
//! `read` still locks) is in uninterruptible sleep; when the main thread
//! returns, and even after `SIGKILL`, the process stays a zombie that its
//! parent cannot reap, and the stuck thread keeps the whole descriptor
//! table, so the parent's pipes never reach end-of-file. A host that runs a
//! hook and waits for it would wait for ever.
//!
//! [`run_detached`] therefore forks: the child runs the work with its
//! standard output and standard error on pipes to the parent; the parent
//! forwards standard error as it comes, keeps standard output, and stops
//! waiting at the deadline. When the work is done the child calls
//! [`release`] (or returns from the closure, which does): it points its
//! standard output and error at `/dev/null`, sends its exit code and closes
//! the status pipe, so the parent sees end-of-file at once even if one of
//! the child's threads never comes back. The parent never waits for the
//! child's exit: a stuck child is left behind (reparented to init, reaped
//! when the file system answers or is unmounted).
//!
//! Cost: one `fork` of a process that has just started, three pipes and a
//! `poll` loop; no second `exec`. Fork only while the process has one
//! thread (before any worker or runtime starts).

use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::Mutex;
use std::time::Instant;

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::io::Errno;

/// What the parent does with the child's standard output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// Keep it and return it in [`Detached::stdout`] (a hook decides what
    /// to print once the child is done or late).
    Collect,
    /// Copy it to this process's standard output as it arrives (a command
    /// or a server whose output streams).
    Stream,
}

/// What the parent got from a detached child.
#[derive(Debug)]
pub struct Detached {
    /// Everything the child wrote to its standard output ([`Output::Collect`]).
    pub stdout: Vec<u8>,
    /// The child's exit code, when it released the parent before the
    /// deadline; `None` when the deadline passed first (or the child died
    /// without releasing).
    pub code: Option<u8>,
}

/// Why no child was started.
#[derive(Debug, thiserror::Error)]
pub enum DetachError {
    /// `pipe` or `fork` failed.
    #[error("cannot start a worker process: {0}")]
    Fork(#[from] Errno),
    /// The process already runs other threads: a forked child could
    /// inherit a lock one of them holds.
    #[error("not forking a worker process: {0} threads are running")]
    Threads(u64),
}

/// A pipe whose ends are closed on `exec`: atomically with `pipe2` where
/// the kernel has it, else (macOS) set right after `pipe`, before any
/// fork (the process has one thread here).
fn cloexec_pipe() -> rustix::io::Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC)
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let (r, w) = rustix::pipe::pipe()?;
        rustix::io::fcntl_setfd(&r, rustix::io::FdFlags::CLOEXEC)?;
        rustix::io::fcntl_setfd(&w, rustix::io::FdFlags::CLOEXEC)?;
        Ok((r, w))
    }
}

/// The child's end of the status pipe, set after the fork.
static STATUS: Mutex<Option<OwnedFd>> = Mutex::new(None);

/// Runs `work` in a forked child and waits for it until `deadline` at most
/// (`None`: until it releases the parent).
///
/// In the child, `work` runs and its result is the exit code; the child
/// then [`release`]s the parent and exits; this function never returns
/// there. In the parent, the child's standard error is copied to ours as it
/// arrives and its standard output is returned, with the exit code when
/// the child released the parent in time.
///
/// Call it while the process has exactly one thread.
pub fn run_detached<F: FnOnce() -> u8>(
    deadline: Option<Instant>,
    output: Output,
    work: F,
) -> Result<Detached, DetachError> {
    if let Some(threads) = threads().filter(|&n| n != 1) {
        return Err(DetachError::Threads(threads));
    }
    let (out_r, out_w) = cloexec_pipe()?;
    let (err_r, err_w) = cloexec_pipe()?;
    let (status_r, status_w) = cloexec_pipe()?;
    // SAFETY: the caller forks while the process has one thread, so no lock
    // (allocator, stdio) is held by a thread that would not exist in the
    // child; the child then runs ordinary Rust code, as a single-threaded
    // program may after fork.
    #[allow(unsafe_code)]
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(DetachError::Fork(
            Errno::from_io_error(&std::io::Error::last_os_error()).unwrap_or(Errno::AGAIN),
        ));
    }
    if pid == 0 {
        drop((out_r, err_r, status_r));
        let wired = rustix::stdio::dup2_stdout(&out_w).and_then(|()| rustix::stdio::dup2_stderr(&err_w));
        drop((out_w, err_w));
        if wired.is_err() {
            std::process::exit(70);
        }
        *STATUS.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(status_w);
        let code = work();
        let _ = std::io::stdout().flush();
        release(code);
        std::process::exit(i32::from(code));
    }
    drop((out_w, err_w, status_w));
    Ok(wait_for(deadline, output, out_r, err_r, status_r))
}

/// For a short process about to start its few worker threads (a hook):
/// they allocate from the main heap instead of each reserving an arena of
/// its own. glibc gives every new thread that allocates a fresh 64 MiB
/// arena, whose first pages each cost a page fault, which a process that
/// lives a few milliseconds pays for nothing (measured in BENCHMARKS.md).
/// Nothing happens with another C library.
pub fn share_one_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallopt only sets a tunable of glibc's allocator; with
        // M_ARENA_MAX it takes no pointer and is safe at any time.
        #[allow(unsafe_code)]
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 1);
        }
    }
}

/// How many threads this process runs (`/proc/self/stat`, field 20), when
/// the system says.
fn threads() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may hold spaces: count after its `)`.
    let (_, rest) = stat.rsplit_once(')')?;
    rest.split_whitespace().nth(17)?.parse().ok()
}

/// In a child of [`run_detached`]: lets the parent go with exit code `code`.
/// Standard output and error now go to `/dev/null`; flush what should reach
/// the parent first. Later calls, and calls outside such a child, do
/// nothing.
pub fn release(code: u8) {
    let Some(status) = STATUS.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take() else {
        return;
    };
    if let Ok(null) = rustix::fs::open(
        "/dev/null",
        rustix::fs::OFlags::WRONLY | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    ) {
        let _ = rustix::stdio::dup2_stdout(&null);
        let _ = rustix::stdio::dup2_stderr(&null);
    }
    let _ = rustix::io::write(&status, &[code]);
}

/// The parent's side: copy, collect and wait until every pipe is closed or
/// the deadline passes.
fn wait_for(
    deadline: Option<Instant>,
    output: Output,
    out: OwnedFd,
    err: OwnedFd,
    status: OwnedFd,
) -> Detached {
    let mut open = [Some(out), Some(err), Some(status)];
    let mut stdout = Vec::new();
    let mut code = None;
    let mut buf = vec![0u8; 64 * 1024];
    'relay: loop {
        let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
        if open.iter().all(Option::is_none) || left.is_some_and(|l| l.is_zero()) {
            break;
        }
        let which: Vec<usize> = (0..open.len()).filter(|&i| open[i].is_some()).collect();
        let mut polled: Vec<PollFd<'_>> =
            open.iter().flatten().map(|fd| PollFd::new(fd, PollFlags::IN)).collect();
        let timeout = left.map(|l| Timespec::try_from(l).unwrap_or(Timespec { tv_sec: 0, tv_nsec: 0 }));
        match poll(&mut polled, timeout.as_ref()) {
            Ok(_) | Err(Errno::INTR) => {}
            Err(_) => break,
        }
        let ready: Vec<usize> =
            which.iter().zip(&polled).filter(|(_, p)| !p.revents().is_empty()).map(|(&i, _)| i).collect();
        drop(polled);
        for i in ready {
            let Some(fd) = open[i].as_ref() else { continue };
            let n = match rustix::io::read(fd.as_fd(), &mut buf) {
                Ok(n) => n,
                Err(Errno::INTR | Errno::AGAIN) => continue,
                Err(_) => 0,
            };
            if n == 0 {
                open[i] = None;
                continue;
            }
            match i {
                0 if output == Output::Collect => stdout.extend_from_slice(&buf[..n]),
                0 => {
                    let mut ours = std::io::stdout().lock();
                    if ours.write_all(&buf[..n]).and_then(|()| ours.flush()).is_err() {
                        // Nobody reads our output any more: stop relaying.
                        break 'relay;
                    }
                }
                1 => {
                    let _ = std::io::stderr().write_all(&buf[..n]);
                }
                _ => code = Some(buf[n - 1]),
            }
        }
    }
    Detached { stdout, code }
}
