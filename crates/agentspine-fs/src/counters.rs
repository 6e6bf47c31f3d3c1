//! Exact counts of what the reader did for one request.
//!
//! Every system call that touches a path is counted where it is made, so a
//! test (or a `sourceResolution` report) can assert the cost of a request.

use std::sync::atomic::{AtomicU64, Ordering};

use serde::Serialize;

use crate::error::Code;

/// A snapshot of the counters of one [`crate::Reader`].
///
/// - `opens`: open-family system calls that resolve a name (`openat`,
///   `openat2`), successful or not, including the directories a walk
///   passes through. A file read is one of them, `O_PATH`.
/// - `reopens`: `O_PATH` handles of regular files reopened for reading
///   through `/proc/self/fd` (no name is resolved; see the crate docs).
///   Where `/proc` is missing the name is opened again and counted in
///   `opens` instead.
/// - `reads`: `read` system calls on file contents, first reads only.
/// - `bytes_read`: bytes those calls returned.
/// - `stats`: `statx`/`fstat`/`fstatat` calls.
/// - `readlinks`: `readlinkat` calls (a link's text read to find the file
///   it names, never followed; see [`crate::Root::follow_link`]).
/// - `dir_enumerations`: directories listed (one per [`crate::Root::list`]).
/// - `dir_entries`: entries those listings returned to the reader.
/// - `retries`: read attempts repeated because the file changed.
/// - `confirmations`: files changed moments before they were read, read
///   a second time to confirm the first read (each one `lseek` and `pread`
///   calls for the same bytes, counted here and not in `reads` or
///   `bytes_read`; see the crate docs, guarantee 4).
/// - `refusals`: errors returned to callers, by code.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    /// Open-family system calls that resolve a name.
    pub opens: u64,
    /// `O_PATH` handles reopened for reading through `/proc/self/fd`.
    pub reopens: u64,
    /// `read` system calls.
    pub reads: u64,
    /// Bytes returned by `read`.
    pub bytes_read: u64,
    /// `statx`/`fstat`/`fstatat` system calls.
    pub stats: u64,
    /// `readlinkat` system calls.
    pub readlinks: u64,
    /// Directories enumerated.
    pub dir_enumerations: u64,
    /// Directory entries seen while enumerating.
    pub dir_entries: u64,
    /// Read attempts repeated after a change was seen.
    pub retries: u64,
    /// Second reads that confirmed (or refuted) a first read of a file
    /// changed moments before.
    pub confirmations: u64,
    /// Refusals returned to callers, by code.
    pub refusals: Refusals,
}

/// Refusals by [`Code`]. Field names are the codes, in kebab-case in JSON.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[allow(missing_docs)]
pub struct Refusals {
    pub not_found: u64,
    pub symlink: u64,
    pub escape: u64,
    pub not_regular: u64,
    pub not_directory: u64,
    pub too_large: u64,
    pub race: u64,
    pub permission_denied: u64,
    pub deadline: u64,
    pub budget_exhausted: u64,
    pub invalid_path: u64,
    pub io: u64,
    pub mount_crossing: u64,
    pub hard_link: u64,
}

impl Refusals {
    /// The count for one code.
    pub fn get(&self, code: Code) -> u64 {
        match code {
            Code::NotFound => self.not_found,
            Code::Symlink => self.symlink,
            Code::Escape => self.escape,
            Code::NotRegular => self.not_regular,
            Code::NotDirectory => self.not_directory,
            Code::TooLarge => self.too_large,
            Code::Race => self.race,
            Code::PermissionDenied => self.permission_denied,
            Code::Deadline => self.deadline,
            Code::BudgetExhausted => self.budget_exhausted,
            Code::InvalidPath => self.invalid_path,
            Code::Io => self.io,
            Code::MountCrossing => self.mount_crossing,
            Code::HardLink => self.hard_link,
        }
    }

    /// Sum over every code.
    pub fn total(&self) -> u64 {
        Code::ALL.iter().map(|c| self.get(*c)).sum()
    }

    fn set(&mut self, code: Code, value: u64) {
        let slot = match code {
            Code::NotFound => &mut self.not_found,
            Code::Symlink => &mut self.symlink,
            Code::Escape => &mut self.escape,
            Code::NotRegular => &mut self.not_regular,
            Code::NotDirectory => &mut self.not_directory,
            Code::TooLarge => &mut self.too_large,
            Code::Race => &mut self.race,
            Code::PermissionDenied => &mut self.permission_denied,
            Code::Deadline => &mut self.deadline,
            Code::BudgetExhausted => &mut self.budget_exhausted,
            Code::InvalidPath => &mut self.invalid_path,
            Code::Io => &mut self.io,
            Code::MountCrossing => &mut self.mount_crossing,
            Code::HardLink => &mut self.hard_link,
        };
        *slot = value;
    }
}

impl std::ops::Sub for Counters {
    type Output = Counters;

    /// The work done between two snapshots of the same reader.
    fn sub(self, earlier: Counters) -> Counters {
        let mut refusals = Refusals::default();
        for code in Code::ALL {
            refusals.set(code, self.refusals.get(code).saturating_sub(earlier.refusals.get(code)));
        }
        Counters {
            opens: self.opens.saturating_sub(earlier.opens),
            reopens: self.reopens.saturating_sub(earlier.reopens),
            reads: self.reads.saturating_sub(earlier.reads),
            bytes_read: self.bytes_read.saturating_sub(earlier.bytes_read),
            stats: self.stats.saturating_sub(earlier.stats),
            readlinks: self.readlinks.saturating_sub(earlier.readlinks),
            dir_enumerations: self.dir_enumerations.saturating_sub(earlier.dir_enumerations),
            dir_entries: self.dir_entries.saturating_sub(earlier.dir_entries),
            retries: self.retries.saturating_sub(earlier.retries),
            confirmations: self.confirmations.saturating_sub(earlier.confirmations),
            refusals,
        }
    }
}

/// The live, shared counters behind a reader.
#[derive(Debug, Default)]
pub(crate) struct LiveCounters {
    pub(crate) opens: AtomicU64,
    pub(crate) reopens: AtomicU64,
    pub(crate) reads: AtomicU64,
    pub(crate) bytes_read: AtomicU64,
    pub(crate) stats: AtomicU64,
    pub(crate) readlinks: AtomicU64,
    pub(crate) dir_enumerations: AtomicU64,
    pub(crate) dir_entries: AtomicU64,
    pub(crate) retries: AtomicU64,
    pub(crate) confirmations: AtomicU64,
    refusals: [AtomicU64; Code::ALL.len()],
}

impl LiveCounters {
    pub(crate) fn bump(counter: &AtomicU64, by: u64) {
        counter.fetch_add(by, Ordering::Relaxed);
    }

    pub(crate) fn refused(&self, code: Code) {
        Self::bump(&self.refusals[code.index()], 1);
    }

    pub(crate) fn snapshot(&self) -> Counters {
        let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
        let mut refusals = Refusals::default();
        for code in Code::ALL {
            refusals.set(code, load(&self.refusals[code.index()]));
        }
        Counters {
            opens: load(&self.opens),
            reopens: load(&self.reopens),
            reads: load(&self.reads),
            bytes_read: load(&self.bytes_read),
            stats: load(&self.stats),
            readlinks: load(&self.readlinks),
            dir_enumerations: load(&self.dir_enumerations),
            dir_entries: load(&self.dir_entries),
            retries: load(&self.retries),
            confirmations: load(&self.confirmations),
            refusals,
        }
    }
}
