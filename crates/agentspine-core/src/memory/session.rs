//! A hook's memory load: the versions its session already holds first,
//! then the state store's snapshot cache, which is opened only when it is
//! needed.
//!
//! A hook knows what its session was sent: each fact's digest and the
//! version (identity) it was read at are in the session's record. A fact
//! the session holds is opened and its identity compared, as on a cache
//! hit; when it matches, it is loaded as held (no read, no hash, no text)
//! and the hook sends nothing for it. So a prompt whose relevant facts the
//! session already has asks the store nothing, and a process that never
//! asks it never opens the database (about a millisecond of a hook's run,
//! BENCHMARKS.md).
//!
//! The store's cache is still asked, at once, wherever it must be kept
//! right:
//! - a held fact whose version changed (a correction) or that is gone (a
//!   deletion): its snapshot is replaced or dropped as on any load;
//! - an index that is not the version the session's record holds (a link
//!   may have been removed): the snapshots of links no longer in it are
//!   dropped;
//! - a fresh session (startup, compaction) drops the directory's
//!   snapshots, as always.
//!
//! At a prompt ([`StoreUse::Changes`]), a relevant fact the session does
//! not hold is read from disk and neither looked up in nor put into the
//! store: it is read once, sent, and held from then on, and a read of a
//! fact (at most 4 MiB, most a few hundred bytes) costs less than opening
//! the database. A session start ([`StoreUse::All`]) opens the store
//! anyway (its report is kept there) and uses it for every fact it does
//! not hold.

use std::cell::{OnceCell, RefCell};
use std::collections::HashSet;

use agentspine_fs::{Identity, Snapshot};

use crate::memory::load::{CachedSnapshot, HeldVersion, INDEX, SnapshotCache};

/// What a session's load asks the store's cache for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreUse {
    /// Every fact the session does not hold (a session start).
    All,
    /// Only what a change makes necessary (a prompt; see the module docs).
    Changes,
}

impl StoreUse {
    /// What a hook's load at a session start (`true`) or a prompt asks.
    pub fn for_event(session_start: bool) -> StoreUse {
        if session_start { StoreUse::All } else { StoreUse::Changes }
    }
}

/// The versions a session holds, by path relative to the memory directory
/// (`MEMORY.md` included: the index version its record was made with).
pub type HeldLookup<'a> = &'a dyn Fn(&str) -> Option<HeldVersion>;

/// A function that opens the store's cache of the memory directory (the
/// database is opened then, not before).
pub type OpenStore<'a> = Box<dyn FnOnce() -> Option<Box<dyn SnapshotCache + 'a>> + 'a>;

/// The snapshot cache a hook's load goes through (see the module docs).
pub struct SessionSnapshots<'a> {
    held: HeldLookup<'a>,
    store_use: StoreUse,
    open: RefCell<Option<OpenStore<'a>>>,
    store: OnceCell<Option<Box<dyn SnapshotCache + 'a>>>,
    /// Facts the session holds a version of: a later `get`, `put` or
    /// `forget` of one means that version no longer matches.
    asked: RefCell<HashSet<String>>,
}

impl<'a> SessionSnapshots<'a> {
    /// The snapshots of one memory directory: `held` first, then the store
    /// that `open` opens, as `store_use` says.
    pub fn new(held: HeldLookup<'a>, store_use: StoreUse, open: OpenStore<'a>) -> SessionSnapshots<'a> {
        SessionSnapshots {
            held,
            store_use,
            open: RefCell::new(Some(open)),
            store: OnceCell::new(),
            asked: RefCell::default(),
        }
    }

    /// Whether the store was opened (for tests and counts).
    pub fn store_opened(&self) -> bool {
        self.store.get().is_some_and(Option::is_some)
    }

    fn store(&self) -> Option<&dyn SnapshotCache> {
        self.store.get_or_init(|| self.open.borrow_mut().take().and_then(|open| open())).as_deref()
    }

    /// The store, if this fact's state makes it needed.
    fn store_for(&self, rel: &str) -> Option<&dyn SnapshotCache> {
        match self.store_use {
            StoreUse::All => self.store(),
            StoreUse::Changes if self.asked.borrow().contains(rel) => self.store(),
            // Already open for another reason: kept in step as usual.
            StoreUse::Changes => self.store.get().and_then(|s| s.as_deref()),
        }
    }
}

impl SnapshotCache for SessionSnapshots<'_> {
    fn held(&self, rel: &str) -> Option<HeldVersion> {
        let held = (self.held)(rel)?;
        // Asked again (`get`) only when the version no longer matches.
        self.asked.borrow_mut().insert(rel.to_owned());
        Some(held)
    }

    fn get(&self, rel: &str) -> Option<CachedSnapshot> {
        self.store_for(rel)?.get(rel)
    }

    fn put(&self, rel: &str, snapshot: &Snapshot, sha256: &str) {
        if let Some(store) = self.store_for(rel) {
            store.put(rel, snapshot, sha256);
        }
    }

    fn forget(&self, rel: &str) {
        if let Some(store) = self.store_for(rel) {
            store.forget(rel);
        }
    }

    fn retain(&self, index: &Identity, linked: &[String]) {
        let in_step = (self.held)(INDEX).is_some_and(|held| held.identity == *index);
        let store = match self.store_use {
            StoreUse::Changes if in_step => self.store.get().and_then(|s| s.as_deref()),
            _ => self.store(),
        };
        if let Some(store) = store {
            store.retain(index, linked);
        }
    }

    fn forget_all(&self) {
        if let Some(store) = self.store() {
            store.forget_all();
        }
    }
}
