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
    /// The child's process id (for [`crate::blocked_on`] when it is late).
    pub pid: i32,
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
    detach(deadline, output, None, work)
}

/// [`run_detached`] for a server that runs until it is told to stop: no
/// deadline, its output streamed, and the stop signals this process gets
/// (`SIGTERM`, `SIGINT`, `SIGHUP`) passed on to the child, so that whoever
/// started the server stops it as usual and sees this process exit once
/// the child has cleaned up, even when one of the child's threads never
/// comes back from a file system. On Linux the child is also sent
/// `SIGTERM` if this process dies first (`PR_SET_PDEATHSIG`), so a killed
/// launcher leaves no server behind.
pub fn serve_detached<F: FnOnce() -> u8>(work: F) -> Result<Detached, DetachError> {
    let (signal_r, signal_w) = cloexec_pipe()?;
    rustix::io::ioctl_fionbio(&signal_w, true)?;
    forward::install(&signal_w);
    let detached = detach(None, Output::Stream, Some(signal_r), work);
    forward::uninstall();
    // Closed only now: the handler writes to it until `uninstall`.
    drop(signal_w);
    detached
}

fn detach<F: FnOnce() -> u8>(
    deadline: Option<Instant>,
    output: Output,
    signals: Option<OwnedFd>,
    work: F,
) -> Result<Detached, DetachError> {
    let forked = fork_child(signals, work)?;
    let signals = forked.signals.map(|signal_r| (signal_r, forked.pid));
    Ok(Detached {
        pid: forked.pid,
        ..wait_for(deadline, output, forked.out, forked.err, forked.status, signals)
    })
}

/// The parent's side of a fork: the child's pid and the read ends of its
/// pipes (and of the stop-signal pipe, when one was given).
struct Forked {
    pid: i32,
    out: OwnedFd,
    err: OwnedFd,
    status: OwnedFd,
    signals: Option<OwnedFd>,
}

/// Forks a child that runs `work` with its standard output and error on
/// pipes, releases the parent and exits; returns the parent's side.
fn fork_child<F: FnOnce() -> u8>(signals: Option<OwnedFd>, work: F) -> Result<Forked, DetachError> {
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
    let parent = rustix::process::getpid();
    #[allow(unsafe_code)]
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(DetachError::Fork(
            Errno::from_io_error(&std::io::Error::last_os_error()).unwrap_or(Errno::AGAIN),
        ));
    }
    if pid == 0 {
        drop((out_r, err_r, status_r));
        if let Some(signal_r) = signals {
            drop(signal_r);
            forward::in_child(parent);
        }
        let wired = rustix::stdio::dup2_stdout(&out_w).and_then(|()| rustix::stdio::dup2_stderr(&err_w));
        drop((out_w, err_w));
        if wired.is_err() {
            std::process::exit(70);
        }
        *STATUS.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(status_w);
        let code = work();
        let _ = std::io::stdout().flush();
        release(code);
        // The parent has all it waits for and has just been woken, often
        // onto this CPU: it goes first, and this process's exit (unmapping
        // its memory, a few hundred microseconds) comes after. Measured
        // (BENCHMARKS.md): 0.05 to 0.13 ms off a hook's whole run.
        rustix::thread::sched_yield();
        std::process::exit(i32::from(code));
    }
    drop((out_w, err_w, status_w));
    Ok(Forked { pid, out: out_r, err: err_r, status: status_r, signals })
}

/// For a short process about to start its few worker threads (a hook):
/// they allocate from the main heap instead of each reserving an arena of
/// its own. glibc can give a new thread that allocates a fresh 64 MiB
/// arena (a reservation, then a page fault for each first page), which a
/// process that lives a few milliseconds pays for nothing.
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
    // One read into a buffer that holds any stat line: a growing read
    // (`read_to_string`) takes six system calls for this size-0 file.
    let file = rustix::fs::open(
        "/proc/self/stat",
        rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    )
    .ok()?;
    let mut buf = [0u8; 4096];
    let n = rustix::io::read(&file, &mut buf).ok()?;
    let stat = std::str::from_utf8(&buf[..n]).ok()?;
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
    signals: Option<(OwnedFd, libc::pid_t)>,
) -> Detached {
    let child = signals.as_ref().map(|(_, pid)| *pid);
    let mut pipes = Pipes {
        open: [Some(out), Some(err), Some(status), signals.map(|(fd, _)| fd)],
        output,
        child,
        stdout: Vec::new(),
        code: None,
    };
    pipes.wait(deadline);
    Detached { stdout: pipes.stdout, code: pipes.code, pid: 0 }
}

/// The parent's ends of a child's pipes (standard output, standard error,
/// status, and for a server the stop-signal pipe) and what came through.
#[derive(Debug)]
struct Pipes {
    open: [Option<OwnedFd>; 4],
    output: Output,
    /// Where stop signals are passed on (a server's child).
    child: Option<libc::pid_t>,
    stdout: Vec<u8>,
    code: Option<u8>,
}

impl Pipes {
    /// Whether the child's three pipes are all closed.
    fn closed(&self) -> bool {
        self.open[..3].iter().all(Option::is_none)
    }

    /// Copies, collects and waits until the child's pipes are closed or
    /// `deadline` passes.
    fn wait(&mut self, deadline: Option<Instant>) {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let left = deadline.map(|d| d.saturating_duration_since(Instant::now()));
            // The signal pipe alone keeps nothing waiting: the child is done
            // once its three pipes are closed.
            if self.closed() || left.is_some_and(|l| l.is_zero()) {
                break;
            }
            let open = &mut self.open;
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
                let Some(fd) = self.open[i].as_ref() else { continue };
                let n = match rustix::io::read(fd.as_fd(), &mut buf) {
                    Ok(n) => n,
                    Err(Errno::INTR | Errno::AGAIN) => continue,
                    Err(_) => 0,
                };
                if n == 0 {
                    self.open[i] = None;
                    continue;
                }
                match i {
                    0 if self.output == Output::Collect => self.stdout.extend_from_slice(&buf[..n]),
                    0 => {
                        let mut ours = std::io::stdout().lock();
                        if ours.write_all(&buf[..n]).and_then(|()| ours.flush()).is_err() {
                            // Nobody reads our output any more: stop relaying
                            // and close the child's end, so that its next
                            // write fails as ours did and it ends with its own
                            // code, which is still waited for.
                            self.open[0] = None;
                        }
                    }
                    1 => {
                        let _ = std::io::stderr().write_all(&buf[..n]);
                    }
                    2 => self.code = Some(buf[n - 1]),
                    _ => {
                        for &signal in &buf[..n] {
                            if let Some(child) = self.child {
                                forward::pass_on(child, signal);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// A child of [`fork_worker`], as its parent waits for it.
#[derive(Debug)]
pub struct Worker {
    pipes: Pipes,
    pid: i32,
}

/// What a [`Worker::wait`] saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waited {
    /// The child released its parent with this exit code.
    Released(u8),
    /// The child's pipes closed without a release (it died).
    Died,
    /// The time given passed first.
    Late,
}

impl Worker {
    /// Waits until the child releases this process (or dies) or `until`
    /// passes, collecting its standard output and copying its standard
    /// error meanwhile. Can be called again with a later time.
    pub fn wait(&mut self, until: Instant) -> Waited {
        self.pipes.wait(Some(until));
        match (self.pipes.code, self.pipes.closed()) {
            (Some(code), _) => Waited::Released(code),
            (None, true) => Waited::Died,
            (None, false) => Waited::Late,
        }
    }

    /// What the child wrote to its standard output so far.
    pub fn stdout(&self) -> &[u8] {
        &self.pipes.stdout
    }

    /// The child's process id (for [`crate::blocked_on`] when it is late).
    pub fn pid(&self) -> i32 {
        self.pid
    }
}

/// Runs `work` in a forked child, as [`run_detached`] does with
/// [`Output::Collect`], and returns at once: the caller waits with
/// [`Worker::wait`], as long as it chooses and in as many steps (a hook
/// waits until its deadline, then decides what to do, then waits a little
/// longer). The child never returns from here.
///
/// Call it while the process has exactly one thread.
pub fn fork_worker<F: FnOnce() -> u8>(work: F) -> Result<Worker, DetachError> {
    let forked = fork_child(None, work)?;
    let pipes = Pipes {
        open: [Some(forked.out), Some(forked.err), Some(forked.status), None],
        output: Output::Collect,
        child: None,
        stdout: Vec::new(),
        code: None,
    };
    Ok(Worker { pipes, pid: forked.pid })
}

/// Passing stop signals from the parent of [`serve_detached`] to its child:
/// a handler writes each signal's number to a pipe the parent's wait polls.
mod forward {
    use std::os::fd::{AsRawFd, OwnedFd};
    use std::sync::atomic::{AtomicI32, Ordering};

    /// The signals passed on.
    const SIGNALS: [libc::c_int; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];

    /// The pipe's write end while the handler is installed, else -1.
    static PIPE: AtomicI32 = AtomicI32::new(-1);

    extern "C" fn on_signal(signal: libc::c_int) {
        let fd = PIPE.load(Ordering::Relaxed);
        if fd >= 0 {
            let byte = u8::try_from(signal).unwrap_or(0);
            // SAFETY: write(2) is async-signal-safe; the buffer is a local.
            // A full pipe drops the byte (the write end is non-blocking).
            #[allow(unsafe_code)]
            unsafe {
                libc::write(fd, (&raw const byte).cast(), 1);
            }
        }
    }

    fn set(signal: libc::c_int, handler: libc::sighandler_t) {
        // SAFETY: a zeroed sigaction with an empty mask is valid; the
        // handler only calls write(2).
        #[allow(unsafe_code)]
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = handler;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }

    /// Before the fork: the stop signals write to `pipe` (kept open by the
    /// caller until [`uninstall`]).
    pub(super) fn install(pipe: &OwnedFd) {
        PIPE.store(pipe.as_raw_fd(), Ordering::Relaxed);
        for signal in SIGNALS {
            set(signal, on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t);
        }
    }

    /// After the wait: the default actions again.
    pub(super) fn uninstall() {
        for signal in SIGNALS {
            set(signal, libc::SIG_DFL);
        }
        PIPE.store(-1, Ordering::Relaxed);
    }

    /// In the child, first thing: the default actions (the server installs
    /// its own), and on Linux a `SIGTERM` when the parent dies.
    pub(super) fn in_child(parent: rustix::process::Pid) {
        PIPE.store(-1, Ordering::Relaxed);
        for signal in SIGNALS {
            set(signal, libc::SIG_DFL);
        }
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::TERM));
            // The parent may have died before the line above.
            if rustix::process::getppid() != Some(parent) {
                std::process::exit(0);
            }
        }
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        let _ = parent;
    }

    /// In the parent: passes `signal` on to `child`.
    pub(super) fn pass_on(child: libc::pid_t, signal: u8) {
        // SAFETY: kill(2) with a pid this process forked and a signal
        // number it received.
        #[allow(unsafe_code)]
        unsafe {
            libc::kill(child, libc::c_int::from(signal));
        }
    }
}
