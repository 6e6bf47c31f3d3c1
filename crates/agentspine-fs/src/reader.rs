//! The per-request context: backend, budget, counters.

use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::Mode;

use crate::budget::Budget;
use crate::counters::{Counters, LiveCounters};
use crate::error::FsError;
use crate::identity::{FileKind, Mount};
use crate::root::{HostPath, Root};
use crate::sys::{Backend, DIR_LOOKUP, Sys};

/// Default number of times a read is repeated after the file changed under
/// it, before it is refused as a race.
pub const DEFAULT_RACE_RETRIES: u32 = 3;

/// The context of one request: which [`Backend`] reaches names, the
/// [`Budget`] every step checks, and the [`Counters`] of everything done.
/// Every [`Root`] opened from a reader shares these.
///
/// ```
/// # fn main() -> Result<(), agentspine_fs::FsError> {
/// use agentspine_fs::{Budget, Reader};
/// let dir = std::env::temp_dir();
/// let reader = Reader::new(Budget::UNLIMITED);
/// let root = reader.open_root(&dir)?;
/// match root.read("surely-not-here.md", 4096) {
///     Err(e) => assert_eq!(e.code().as_str(), "not-found"),
///     Ok(_) => unreachable!(),
/// }
/// assert_eq!(reader.counters().refusals.not_found, 1);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Reader {
    pub(crate) shared: Arc<Shared>,
}

pub(crate) struct Shared {
    pub(crate) backend: Backend,
    pub(crate) budget: Budget,
    pub(crate) spent: AtomicU64,
    pub(crate) counters: LiveCounters,
    pub(crate) race_retries: u32,
    /// Roots already opened, by the path asked for (see
    /// [`Reader::remembering_roots`]); `None` when each open opens.
    roots: Option<std::sync::Mutex<RootMemo>>,
    /// Whole files already read with [`crate::Root::read_remembered`] (see
    /// [`Reader::remembering_reads`]); `None` when each read reads.
    pub(crate) files: Option<std::sync::Mutex<FileMemo>>,
    #[cfg(feature = "fault-injection")]
    pub(crate) read_delay: std::sync::Mutex<Option<std::time::Duration>>,
}

/// A root's handle and link-free path, by the path it was opened from, and
/// whether it was reached with no link on that path (what
/// [`Reader::open_root_without_links`] may reuse).
type RootMemo = std::collections::HashMap<PathBuf, (Arc<OwnedFd>, Arc<HostPath>, Option<Mount>, bool)>;

/// Files read whole, by the handle of the directory they were read beneath
/// (kept alive here, so that its address names that directory) and the
/// relative path.
pub(crate) type FileMemo = std::collections::HashMap<(usize, PathBuf), (Arc<OwnedFd>, crate::Snapshot)>;

/// The requested backend cannot be used in this process.
#[derive(Debug, thiserror::Error)]
#[error("the {} backend is not available here (the kernel lacks it or a seccomp filter refuses it)", .0.as_str())]
pub struct BackendUnavailable(pub Backend);

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("backend", &self.shared.backend)
            .field("budget", &self.shared.budget)
            .field("counters", &self.counters())
            .finish()
    }
}

impl Reader {
    /// A reader with the best available backend.
    pub fn new(budget: Budget) -> Reader {
        Reader::build(Backend::detect(), budget, DEFAULT_RACE_RETRIES)
    }

    /// A reader with a chosen backend (tests run every path test against
    /// each one).
    pub fn with_backend(backend: Backend, budget: Budget) -> Result<Reader, BackendUnavailable> {
        if !backend.available() {
            return Err(BackendUnavailable(backend));
        }
        Ok(Reader::build(backend, budget, DEFAULT_RACE_RETRIES))
    }

    /// This reader, repeating a changed read `retries` times before refusing.
    pub fn with_race_retries(self, retries: u32) -> Reader {
        let shared = &self.shared;
        Reader::build(shared.backend, shared.budget, retries).remembering(shared.roots.is_some())
    }

    /// This reader (new, nothing opened yet), opening each root path once:
    /// a later [`Reader::open_root`] of the same path returns the same
    /// directory handle, without a system call. For a short request that
    /// resolves several chains over the same directories (a hook run): the
    /// tree is taken as it was at the first open, for the whole request.
    /// Not for a long-lived reader, which would keep a directory that was
    /// since replaced.
    pub fn remembering_roots(self) -> Reader {
        let shared = &self.shared;
        Reader::build(shared.backend, shared.budget, shared.race_retries).remembering(true)
    }

    /// This reader (new, nothing read yet), also remembering what
    /// [`crate::Root::read_remembered`] reads: a second read of the same
    /// file beneath the same directory handle gives the first snapshot,
    /// without a system call. For the files one short request consults
    /// from several places (a hook run reads Claude Code's settings for the
    /// memory directory, the resolution and the installed entries, and a
    /// tool call's two chains share their upper levels and the memory
    /// index): one version of each, read once. Not for a long-lived reader.
    pub fn remembering_reads(self) -> Reader {
        let shared = &self.shared;
        let mut reader = Reader::build(shared.backend, shared.budget, shared.race_retries)
            .remembering(shared.roots.is_some());
        if let Some(shared) = Arc::get_mut(&mut reader.shared) {
            shared.files = Some(std::sync::Mutex::default());
        }
        reader
    }

    /// This reader (new, nothing opened yet), answering
    /// [`Reader::open_root`] of `root`'s own path and of each of `aliases`
    /// with `root`'s handle, without a system call: a session bound to a
    /// directory keeps resolving that very directory, even after its path
    /// was renamed or replaced by a link. Other paths open as usual, each
    /// once (as with [`Reader::remembering_roots`]).
    pub fn bound_to(self, root: &Root, aliases: &[&Path]) -> Reader {
        let reader = self.remembering_roots();
        if let Some(memo) = &reader.shared.roots {
            let mut memo = memo.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let entry = (root.shared_fd(), root.shared_host_path(), root.mount(), true);
            memo.insert(root.host_path().to_path_buf(), entry.clone());
            for alias in aliases {
                memo.insert(alias.to_path_buf(), entry.clone());
            }
        }
        reader
    }

    fn remembering(mut self, yes: bool) -> Reader {
        if let Some(shared) = Arc::get_mut(&mut self.shared) {
            shared.roots = yes.then(std::sync::Mutex::default);
        }
        self
    }

    fn build(backend: Backend, budget: Budget, race_retries: u32) -> Reader {
        Reader {
            shared: Arc::new(Shared {
                backend,
                budget,
                spent: AtomicU64::new(0),
                counters: LiveCounters::default(),
                race_retries,
                roots: None,
                files: None,
                #[cfg(feature = "fault-injection")]
                read_delay: std::sync::Mutex::new(None),
            }),
        }
    }

    /// The backend in use.
    pub fn backend(&self) -> Backend {
        self.shared.backend
    }

    /// The request's budget.
    pub fn budget(&self) -> Budget {
        self.shared.budget
    }

    /// File bytes read so far against the budget.
    pub fn bytes_spent(&self) -> u64 {
        self.shared.spent.load(Ordering::Relaxed)
    }

    /// A snapshot of everything counted so far.
    pub fn counters(&self) -> Counters {
        self.shared.counters.snapshot()
    }

    /// Test-only fault injection: sleep this long before every `read`
    /// system call, as a stuck network filesystem would.
    #[cfg(feature = "fault-injection")]
    pub fn inject_read_delay(&self, delay: Option<std::time::Duration>) {
        if let Ok(mut slot) = self.shared.read_delay.lock() {
            *slot = delay;
        }
    }

    /// Opens `path` (an absolute host path chosen by the user or the host,
    /// never by a model) as a root. The root's own path may pass through
    /// links (it is the trust anchor, e.g. `/tmp` on macOS); nothing beneath
    /// it may. Costs one open (and one look under the walk backend, for
    /// the root's mount).
    pub fn open_root(&self, path: &Path) -> Result<Root, FsError> {
        self.check_root_path(path)?;
        let memo =
            self.shared.roots.as_ref().map(|m| m.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        if let Some((fd, host_path, mount, _)) = memo.as_ref().and_then(|m| m.get(path)) {
            return Ok(Root::new(self.clone(), Arc::clone(fd), Arc::clone(host_path), String::new(), *mount));
        }
        drop(memo);
        let shown = || path.display().to_string();
        LiveCounters::bump(&self.shared.counters.opens, 1);
        let fd: OwnedFd = match rustix::fs::open(path, DIR_LOOKUP, Mode::empty()) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::NOTDIR) => {
                return Err(self.refused(FsError::NotDirectory { path: shown(), kind: FileKind::Unknown }));
            }
            Err(e) => return Err(self.refused(crate::sys::map_lookup_errno(e, &shown))),
        };
        self.opened_root(fd, path, false)
    }

    /// Opens `path` as a root only if no name on it is a link (a `/proc`
    /// magic link included): for a root a client names (an MCP client's
    /// roots and `project_root`, a hook's `cwd`, the desktop socket's
    /// `projects.register`), which is taken as given and never through a
    /// link. `..` is reduced lexically first. Mount points on the way are
    /// allowed (a root's own path crosses them). A link is refused as
    /// `symlink`, naming the path up to the link. Costs one `openat2`, or
    /// under the walk backend one open per name.
    pub fn open_root_without_links(&self, path: &Path) -> Result<Root, FsError> {
        self.check_root_path(path)?;
        let reduced = crate::path::lexical_absolute(path);
        if let Some(memo) = &self.shared.roots {
            let memo = memo.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            // A root this run opened by the same name is reused when it was
            // reached with no link, or when the kernel names it by exactly
            // that path (so no link was on the way).
            if let Some((fd, host_path, mount, as_given)) = memo.get(&reduced)
                && (*as_given || host_path.get() == reduced)
            {
                return Ok(Root::new(
                    self.clone(),
                    Arc::clone(fd),
                    Arc::clone(host_path),
                    String::new(),
                    *mount,
                ));
            }
        }
        let fd = self.open_without_links(&reduced).map_err(|e| self.refused(e))?;
        self.opened_root(fd, &reduced, true)
    }

    /// Refuses a root path that is not absolute, or a request past its
    /// deadline.
    fn check_root_path(&self, path: &Path) -> Result<(), FsError> {
        let shown = || path.display().to_string();
        if !path.is_absolute() {
            return Err(self
                .refused(FsError::InvalidPath { path: shown(), reason: "a root must be an absolute path" }));
        }
        if self.shared.budget.expired() {
            return Err(self.refused(FsError::Deadline { path: shown() }));
        }
        Ok(())
    }

    /// A root of the directory `fd`, opened at `path`: its mount looked at
    /// under the walk backend (which checks mounts itself, against the
    /// root's: see `sys`), remembered by that path when this reader
    /// remembers roots (`as_given`: reached with no link on it).
    fn opened_root(&self, fd: OwnedFd, path: &Path, as_given: bool) -> Result<Root, FsError> {
        let shown = || path.display().to_string();
        let mount = match self.shared.backend {
            Backend::Walk => {
                let sys = Sys { backend: Backend::Walk, counters: &self.shared.counters, root_mount: None };
                Some(sys.look_fd(fd.as_fd(), &shown).map_err(|e| self.refused(e))?.mount)
            }
            Backend::Openat2 => None,
        };
        let fd = Arc::new(fd);
        let host_path = HostPath::opened(&fd, path);
        if let Some(memo) = &self.shared.roots {
            memo.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(path.to_path_buf(), (Arc::clone(&fd), Arc::clone(&host_path), mount, as_given));
        }
        Ok(Root::new(self.clone(), fd, host_path, String::new(), mount))
    }

    /// The directory `reduced` (absolute, reduced), reached from `/` with
    /// no link followed.
    fn open_without_links(&self, reduced: &Path) -> Result<OwnedFd, FsError> {
        use std::path::Component;
        let counters = &self.shared.counters;
        #[cfg(target_os = "linux")]
        if self.shared.backend == Backend::Openat2 {
            use rustix::fs::ResolveFlags;
            let shown = || reduced.display().to_string();
            LiveCounters::bump(&counters.opens, 1);
            let flags = ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
            match rustix::fs::openat2(rustix::fs::CWD, reduced, DIR_LOOKUP, Mode::empty(), flags) {
                Ok(dir) => return Ok(dir),
                // Which name is the link (or not a directory): the walk says.
                Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => {}
                Err(e) => return Err(crate::sys::map_lookup_errno(e, &shown)),
            }
        }
        LiveCounters::bump(&counters.opens, 1);
        let fd = rustix::fs::open("/", DIR_LOOKUP, Mode::empty())
            .map_err(|e| crate::sys::map_lookup_errno(e, &|| "/".to_owned()))?;
        let names: Vec<&std::ffi::OsStr> = reduced
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n),
                _ => None,
            })
            .collect();
        walk_names(fd, &names, counters)
    }

    /// Counts a refusal on its way to the caller.
    pub(crate) fn refused(&self, error: FsError) -> FsError {
        self.shared.counters.refused(error.code());
        error
    }

    pub(crate) fn check_deadline(&self, shown: &dyn Fn() -> String) -> Result<(), FsError> {
        if self.shared.budget.expired() {
            return Err(FsError::Deadline { path: shown() });
        }
        Ok(())
    }

    /// Reserves `size` bytes of the budget, or refuses.
    pub(crate) fn charge(&self, size: u64, shown: &dyn Fn() -> String) -> Result<(), FsError> {
        let Some(max) = self.shared.budget.max_bytes else {
            self.shared.spent.fetch_add(size, Ordering::Relaxed);
            return Ok(());
        };
        let mut spent = self.shared.spent.load(Ordering::Relaxed);
        loop {
            let remaining = max.saturating_sub(spent);
            if size > remaining {
                return Err(FsError::BudgetExhausted { path: shown(), size, remaining });
            }
            match self.shared.spent.compare_exchange_weak(
                spent,
                spent + size,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return Ok(()),
                Err(now) => spent = now,
            }
        }
    }

    /// Gives back a reservation that was not used (a read that failed).
    pub(crate) fn refund(&self, size: u64) {
        self.shared.spent.fetch_sub(size, Ordering::Relaxed);
    }
}

/// Readers and roots are shared across threads (hooks, the MCP server).
const _: () = {
    const fn is<T: Send + Sync>() {}
    is::<Reader>();
    is::<Root>();
};

/// Opens each of `names` from `fd` in turn with `O_NOFOLLOW | O_DIRECTORY`
/// and gives the last. A link is refused naming the path up to it.
fn walk_names(
    mut fd: OwnedFd,
    names: &[&std::ffi::OsStr],
    counters: &LiveCounters,
) -> Result<OwnedFd, FsError> {
    let mut at = PathBuf::from("/");
    for name in names {
        at.push(name);
        let shown = || at.display().to_string();
        LiveCounters::bump(&counters.opens, 1);
        match rustix::fs::openat(&fd, *name, DIR_LOOKUP | rustix::fs::OFlags::NOFOLLOW, Mode::empty()) {
            Ok(next) => fd = next,
            Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => {
                LiveCounters::bump(&counters.stats, 1);
                let kind = rustix::fs::statat(&fd, *name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
                    .ok()
                    .map(|st| FileKind::of(&st));
                return Err(match kind {
                    Some(FileKind::Symlink) => FsError::Symlink { path: shown() },
                    Some(kind) => FsError::NotDirectory { path: shown(), kind },
                    None => FsError::NotFound { path: shown() },
                });
            }
            Err(e) => return Err(crate::sys::map_lookup_errno(e, &shown)),
        }
    }
    Ok(fd)
}
