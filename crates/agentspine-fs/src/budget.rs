//! Deadlines and byte limits for one request, and a way to stop waiting for
//! a system call that the kernel does not return from.
//!
//! A [`Budget`] is checked before every step: before each open, before each
//! `read` call and before each directory entry. A step that would start
//! after the deadline returns [`crate::Code::Deadline`] instead. That bounds
//! the work a request *starts*; it cannot interrupt a system call already in
//! the kernel (a read from a hung network filesystem can sleep for minutes
//! and is not interruptible by a signal). For that, run the whole request
//! through [`run_with_deadline`]: the work runs on its own thread and the
//! caller stops waiting at the deadline. The abandoned thread finishes (or
//! stays stuck) on its own; its result is dropped. At most
//! [`MAX_ABANDONED`] such threads may be stuck at once; beyond that,
//! [`run_with_deadline`] refuses at once rather than piling up threads.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Limits for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// No step starts after this instant.
    pub deadline: Option<Instant>,
    /// Total file bytes the request may read.
    pub max_bytes: Option<u64>,
}

impl Budget {
    /// No deadline, no byte limit.
    pub const UNLIMITED: Budget = Budget { deadline: None, max_bytes: None };

    /// A deadline `timeout` from now and no byte limit.
    pub fn with_timeout(timeout: Duration) -> Self {
        Budget { deadline: Instant::now().checked_add(timeout), max_bytes: None }
    }

    /// This budget with a total byte limit.
    pub fn max_bytes(self, max_bytes: u64) -> Self {
        Budget { max_bytes: Some(max_bytes), ..self }
    }

    /// Whether the deadline has passed.
    pub fn expired(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Time left before the deadline (`None` when there is none).
    pub fn remaining(&self) -> Option<Duration> {
        self.deadline.map(|d| d.saturating_duration_since(Instant::now()))
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget::UNLIMITED
    }
}

/// How many abandoned workers may still be running before
/// [`run_with_deadline`] refuses new work.
pub const MAX_ABANDONED: usize = 32;

static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// Why [`run_with_deadline`] returned without a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Abandoned {
    /// The deadline passed; the worker was left to finish on its own.
    #[error("the work did not finish before its deadline and was abandoned")]
    Deadline,
    /// Too many earlier workers are still stuck; nothing was started.
    #[error("too many earlier requests are still stuck in the kernel; not starting another")]
    Saturated,
    /// The worker panicked.
    #[error("the work panicked")]
    Panicked,
}

/// Runs `work` on a worker thread and waits for it until `deadline` at most.
///
/// If the deadline passes first, the caller gets [`Abandoned::Deadline`] and
/// goes on; the worker keeps its own resources (open files close when it
/// ends). Give `work` a [`Budget`] with the same deadline so that it starts
/// no new step once it is late.
pub fn run_with_deadline<T, F>(deadline: Instant, work: F) -> Result<T, Abandoned>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    if RUNNING.fetch_add(1, Ordering::AcqRel) >= MAX_ABANDONED {
        RUNNING.fetch_sub(1, Ordering::AcqRel);
        return Err(Abandoned::Saturated);
    }
    struct Finished;
    impl Drop for Finished {
        fn drop(&mut self) {
            RUNNING.fetch_sub(1, Ordering::AcqRel);
        }
    }
    let (tx, rx) = mpsc::sync_channel(1);
    let spawned = std::thread::Builder::new().name("agentspine-bounded".into()).spawn(move || {
        let _finished = Finished;
        let _ = tx.send(work());
    });
    if spawned.is_err() {
        RUNNING.fetch_sub(1, Ordering::AcqRel);
        return Err(Abandoned::Saturated);
    }
    let wait = deadline.saturating_duration_since(Instant::now());
    match rx.recv_timeout(wait) {
        Ok(value) => Ok(value),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(Abandoned::Deadline),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(Abandoned::Panicked),
    }
}

/// Workers started by [`run_with_deadline`] that have not finished yet.
pub fn running_workers() -> usize {
    RUNNING.load(Ordering::Acquire)
}
