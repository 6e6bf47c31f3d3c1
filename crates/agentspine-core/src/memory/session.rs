//! A hook's memory load: the versions its session already holds, and the
//! state store's snapshot cache only to drop what a change made stale (the
//! database is opened then, never before).
//!
//! A hook knows what its session was sent: each fact's digest and the
//! version (identity) it was read at are in the session's record (trusted
//! only until the next purge of the cache: the front end's lookup gives
//! none recorded before it). A fact
//! the session holds is opened and its identity compared, as on a cache
//! hit; when it matches, it is loaded as held (no read, no hash, no text)
//! and the hook sends nothing for it. So a prompt whose relevant facts the
//! session already has asks the store nothing, and a process that never
//! asks it never opens the database (about a millisecond of a hook's run,
//! BENCHMARKS.md).
//!
//! A hook never fills the store's cache (the session's record is its
//! own), and reads every fact its session does not hold (a read of a fact,
//! at most 4 MiB and most a few hundred bytes, costs less than opening the
//! database). The store is asked, at once, only to drop what a change makes
//! stale, and only when it may hold snapshots at all
//! ([`crate::CacheProvider::may_hold_snapshots`]):
//! - a held fact whose version changed (a correction) or that is gone (a
//!   deletion): its snapshot is dropped;
//! - an index that is not the version the session's record holds (a link
//!   may have been removed): the snapshots of links no longer in it are
//!   dropped;
//! - a fresh session (startup, compaction): the directory's snapshots are
//!   dropped.

use std::cell::{OnceCell, RefCell};
use std::collections::HashSet;

use agentspine_fs::{Identity, Snapshot};

use crate::memory::load::{CachedSnapshot, HeldVersion, INDEX, SnapshotCache};

/// The versions a session holds, by path relative to the memory directory
/// (`MEMORY.md` included: the index version its record was made with).
pub type HeldLookup<'a> = &'a dyn Fn(&str) -> Option<HeldVersion>;

/// A function that opens the store's cache of the memory directory (the
/// database is opened then, not before).
pub type OpenStore<'a> = Box<dyn FnOnce() -> Option<Box<dyn SnapshotCache + 'a>> + 'a>;

/// The snapshot cache a hook's load goes through (see the module docs).
pub struct SessionSnapshots<'a> {
    held: HeldLookup<'a>,
    open: RefCell<Option<OpenStore<'a>>>,
    store: OnceCell<Option<Box<dyn SnapshotCache + 'a>>>,
    /// Facts the session holds a version of: a later `put` or `forget` of
    /// one means that version no longer matches.
    asked: RefCell<HashSet<String>>,
}

impl<'a> SessionSnapshots<'a> {
    /// The snapshots of one memory directory: `held` first; the store that
    /// `open` opens (`None`: it holds nothing) only to drop what is stale.
    pub fn new(held: HeldLookup<'a>, open: OpenStore<'a>) -> SessionSnapshots<'a> {
        SessionSnapshots {
            held,
            open: RefCell::new(Some(open)),
            store: OnceCell::new(),
            asked: RefCell::default(),
        }
    }

    fn store(&self) -> Option<&dyn SnapshotCache> {
        self.store.get_or_init(|| self.open.borrow_mut().take().and_then(|open| open())).as_deref()
    }

    /// Drops the snapshot of `rel` when the session held a version of it
    /// that no longer matches.
    fn drop_if_held(&self, rel: &str) {
        if self.asked.borrow().contains(rel)
            && let Some(store) = self.store()
        {
            store.forget(rel);
        }
    }
}

impl SnapshotCache for SessionSnapshots<'_> {
    fn held(&self, rel: &str) -> Option<HeldVersion> {
        let held = (self.held)(rel)?;
        self.asked.borrow_mut().insert(rel.to_owned());
        Some(held)
    }

    /// Never: a fact the session does not hold is read.
    fn get(&self, _rel: &str) -> Option<CachedSnapshot> {
        None
    }

    /// Not kept; a held version it replaces is dropped from the store.
    fn put(&self, rel: &str, _snapshot: &Snapshot, _sha256: &str) {
        self.drop_if_held(rel);
    }

    fn forget(&self, rel: &str) {
        self.drop_if_held(rel);
    }

    fn retain(&self, index: &Identity, linked: &[String]) {
        if (self.held)(INDEX).is_some_and(|held| held.identity == *index) {
            return;
        }
        if let Some(store) = self.store() {
            store.retain(index, linked);
        }
    }

    fn forget_all(&self) {
        if let Some(store) = self.store() {
            store.forget_all();
        }
    }
}
