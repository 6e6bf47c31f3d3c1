//! What a hook can know without opening the database: the state
//! directory's key, whether a damaged-state incident is unacknowledged and
//! whether the database holds no continuity at all, each kept in a small
//! file beside `state.db` that every open of the database brings in step
//! with it.
//!
//! Why: opening the database parses its whole schema (a quarter of a
//! hook's instructions, BENCHMARKS.md) before the first query, and most
//! hook events (a tool call) need only the key (source ids) and this one
//! bit. With these files such a hook reads one small file and checks
//! that another is absent; the database is opened only when it is needed
//! (memory, continuity, an audit row).
//!
//! - [`KEY_FILE`] (`0600`) holds the 32-byte key the database's `meta`
//!   table holds. The database stays the authority: each open compares the
//!   file with it and rewrites the file (whole, atomically) when it differs
//!   or is missing, so a repaired database's new key reaches the file at
//!   that open. A file of another length is no key: the database is opened.
//! - [`INCIDENT_FILE`] exists while an incident is unacknowledged: each
//!   open writes or removes it to match the `incidents` table, and
//!   acknowledging removes it. A hook trusts its absence unless it opens
//!   the database for another reason (then it asks the database). The open
//!   that records an incident writes the file before it returns, so only a
//!   process that dies between the two leaves it missing, and the next
//!   open writes it.
//! - [`NO_CONTINUITY_FILE`] exists only while neither a record nor a
//!   binding event has ever been stored (the `records` and
//!   `binding_events` tables are empty): a hook that finds it asks the
//!   database nothing about continuity, so a prompt hook of a user without
//!   records or bindings opens no database. An open creates it under the
//!   database's write lock, after asking the tables again; every write
//!   that adds a record or a binding event removes it inside its own
//!   transaction, before the commit, and fails if it cannot. So a writer
//!   and the file's creation never interleave, and a hook that trusts the
//!   file sees what the database held at a moment between its start and
//!   its look. An open that finds rows while the file is there removes it.
//!   The file's rules hold from schema version 6 on, which no older
//!   agentspine opens (one that does not keep the file could not add a
//!   record while it is there).
//! - [`NO_CACHE_FILE`] and [`NO_SCOPES_FILE`] follow the same rules for
//!   the `cache` table (no snapshot is held: a hook's session start or
//!   correction has nothing to drop there) and the `scopes` table (no
//!   project has a stored scope: a hook's memory scope is the
//!   environment's or none), from schema version 7 on. See [`Empty`].
//! - [`CACHE_EPOCH_FILE`] names the snapshot cache's epoch: every purge
//!   writes a new random one inside its transaction (and fails if it
//!   cannot). A session's file records each memory fact's version under
//!   the epoch it was read in, and a hook trusts a recorded version only
//!   under the same epoch, so a purge makes every session read its facts
//!   once more.

use std::path::Path;

use agentspine_fs::{FsError, PrivateDir};

/// The key's copy beside the database.
pub const KEY_FILE: &str = "state.db.key";
/// Present while a damaged-state incident is unacknowledged.
pub const INCIDENT_FILE: &str = "state.db.incident";
/// Present while the database holds no record and no binding event.
pub const NO_CONTINUITY_FILE: &str = "state.db.no-continuity";
/// Present while the database holds no cached snapshot.
pub const NO_CACHE_FILE: &str = "state.db.no-cache";
/// Present while no project has a stored scope.
pub const NO_SCOPES_FILE: &str = "state.db.no-scopes";
/// Rewritten (a new random name of the cache's contents) by every purge
/// of the snapshot cache; absent before the first.
pub const CACHE_EPOCH_FILE: &str = "state.db.cache-epoch";

/// The cache's epoch in the state directory `dir`: `"0"` before the first
/// purge, else the name the last purge wrote; `None` when it cannot be
/// read (then nothing recorded under an epoch is trusted).
pub fn cache_epoch_in(dir: &PrivateDir) -> Option<String> {
    match dir.read(CACHE_EPOCH_FILE, 64) {
        Ok(None) => Some("0".to_owned()),
        Ok(Some(bytes)) => {
            let text = String::from_utf8(bytes).ok()?;
            let text = text.trim();
            (!text.is_empty() && text.len() <= 32 && text.bytes().all(|b| b.is_ascii_hexdigit()))
                .then(|| text.to_owned())
        }
        Err(_) => None,
    }
}

/// Gives the cache a new epoch (inside a purge's transaction, before its
/// commit): what any session recorded under the old one is read again.
pub(crate) fn new_cache_epoch(dir: &Path) -> rusqlite::Result<()> {
    let mut nonce = [0u8; 16];
    let written = getrandom::fill(&mut nonce).map_err(|e| e.to_string()).and_then(|()| {
        let text = format!("{}\n", hex::encode(nonce));
        match agentspine_fs::write_private_file_atomic(dir, CACHE_EPOCH_FILE, text.as_bytes()) {
            // No state directory: no session's file to hold a version either.
            Ok(()) | Err(FsError::NotFound { .. }) => Ok(()),
            Err(e) => Err(e.to_string()),
        }
    });
    written.map_err(|e| {
        rusqlite::Error::ToSqlConversionFailure(
            format!("{e}; the snapshots are not dropped while {CACHE_EPOCH_FILE} cannot be renewed").into(),
        )
    })
}

/// What a file beside the database says is empty (see the module docs):
/// it exists only while the tables hold no row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Empty {
    /// `records` and `binding_events` ([`NO_CONTINUITY_FILE`]).
    Continuity,
    /// `cache` ([`NO_CACHE_FILE`]).
    Cache,
    /// `scopes` ([`NO_SCOPES_FILE`]).
    Scopes,
}

impl Empty {
    /// Every one, in the order of [`Empty::index`].
    pub const ALL: [Empty; 3] = [Empty::Continuity, Empty::Cache, Empty::Scopes];

    /// The file beside the database.
    pub fn file(self) -> &'static str {
        match self {
            Empty::Continuity => NO_CONTINUITY_FILE,
            Empty::Cache => NO_CACHE_FILE,
            Empty::Scopes => NO_SCOPES_FILE,
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }

    /// Whether the tables hold a row (one `SELECT`).
    pub(crate) fn rows_sql(self) -> &'static str {
        match self {
            Empty::Continuity => {
                "SELECT EXISTS (SELECT 1 FROM records) OR EXISTS (SELECT 1 FROM binding_events)"
            }
            Empty::Cache => "SELECT EXISTS (SELECT 1 FROM cache)",
            Empty::Scopes => "SELECT EXISTS (SELECT 1 FROM scopes)",
        }
    }

    /// The text the file holds.
    pub(crate) fn text(self) -> &'static [u8] {
        match self {
            Empty::Continuity => b"no records and no binding events are stored\n",
            Empty::Cache => b"no snapshots are cached\n",
            Empty::Scopes => b"no scopes are stored\n",
        }
    }

    /// What a write that fails on the file would have stored.
    fn stored(self) -> &'static str {
        match self {
            Empty::Continuity => "the record or binding",
            Empty::Cache => "the snapshot",
            Empty::Scopes => "the scope",
        }
    }
}

/// The state directory as a hook sees it before (or instead of) opening
/// the database.
#[derive(Debug)]
pub struct Quick {
    dir: PrivateDir,
    /// The key's copy; `None` when the file is missing or holds no key.
    key: Option<[u8; 32]>,
    /// Whether the incident file is there; `None` when it could not be
    /// looked at.
    incident: Option<bool>,
    /// Whether each file of [`Empty::ALL`] is there; `None` when it could
    /// not be looked at.
    empty: [Option<bool>; 3],
    /// The cache's epoch ([`cache_epoch_in`]).
    epoch: Option<String>,
}

impl Quick {
    /// Reads the key's copy and looks for the incident file in the state
    /// directory `dir` (created when missing, as a private directory).
    pub fn open(dir: &Path) -> Result<Quick, FsError> {
        Quick::read(PrivateDir::open(dir)?)
    }

    /// [`Quick::open`] for the platform's state directory (see
    /// [`crate::state_dir`]), reading the process environment.
    pub fn open_default() -> Result<Quick, crate::StoreError> {
        let dir = crate::state_dir_path(crate::Platform::CURRENT, |name| std::env::var_os(name))?;
        Quick::open(&dir).map_err(|e| crate::StoreError::Unavailable { path: dir, reason: e.to_string() })
    }

    fn read(dir: PrivateDir) -> Result<Quick, FsError> {
        let key = dir.read(KEY_FILE, 33)?.and_then(|bytes| <[u8; 32]>::try_from(bytes.as_slice()).ok());
        let incident = dir.modified(INCIDENT_FILE).map(|m| m.is_some()).ok();
        let empty = Empty::ALL.map(|which| dir.modified(which.file()).map(|m| m.is_some()).ok());
        let epoch = cache_epoch_in(&dir);
        Ok(Quick { dir, key, incident, empty, epoch })
    }

    /// The state directory, open.
    pub fn dir(&self) -> &PrivateDir {
        &self.dir
    }

    /// The key for `purpose` (as [`crate::Store::derived_key`] derives it),
    /// when the key's copy is there.
    pub fn derived_key(&self, purpose: &str) -> Option<[u8; 32]> {
        self.key.as_ref().map(|key| crate::keys::derive(key, purpose))
    }

    /// [`crate::Store::root_digest`], when the key's copy is there.
    pub fn root_digest(&self, canonical_root: &std::path::Path) -> Option<String> {
        self.key.as_ref().map(|key| crate::keys::root_digest_with(key, canonical_root))
    }

    /// Whether an unacknowledged incident may exist (the file is there, or
    /// could not be looked at): then the database must be asked.
    pub fn may_have_incident(&self) -> bool {
        self.incident != Some(false)
    }

    /// Whether the database holds no record and no binding event (the
    /// no-continuity file is there): then nothing is read through
    /// bindings and no project has records of its own, and continuity need
    /// not be asked.
    pub fn has_no_continuity(&self) -> bool {
        self.is_empty(Empty::Continuity)
    }

    /// The cache's epoch as read ([`cache_epoch_in`]).
    pub fn cache_epoch(&self) -> Option<&str> {
        self.epoch.as_deref()
    }

    /// Whether the file of `which` was there: the tables held no row when
    /// it was looked at.
    pub fn is_empty(&self, which: Empty) -> bool {
        self.empty[which.index()] == Some(true)
    }
}

/// The two files as a process saw them before it opened the database: what
/// an open compares with the database's answers so that it rereads and
/// rewrites only what is not known to be in step.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Seen<'a> {
    /// The state directory, open.
    pub(crate) dir: &'a PrivateDir,
    /// The key's copy as read (`Some(None)`: missing or no key); `None`
    /// when not read.
    key: Option<Option<[u8; 32]>>,
    /// Whether the incident file was there; `None` when not looked at.
    incident: Option<bool>,
    /// Whether each file of [`Empty::ALL`] was there; `None` when not
    /// looked at.
    empty: [Option<bool>; 3],
}

impl<'a> Seen<'a> {
    /// Nothing seen yet: an open reads the files.
    pub(crate) fn nothing(dir: &'a PrivateDir) -> Seen<'a> {
        Seen { dir, key: None, incident: None, empty: [None; 3] }
    }

    /// What `quick` read.
    pub(crate) fn by(quick: &'a Quick) -> Seen<'a> {
        Seen { dir: &quick.dir, key: Some(quick.key), incident: quick.incident, empty: quick.empty }
    }

    /// The same directory, with what was seen forgotten (a repair has
    /// changed the files since).
    pub(crate) fn forget(self) -> Seen<'a> {
        Seen::nothing(self.dir)
    }

    /// Brings the key's copy in step with the database's key: the file is
    /// read again only when it was not read, and written when what was read
    /// differs or was missing.
    pub(crate) fn sync_key(&self, key: &[u8; 32]) -> Result<(), FsError> {
        match self.key {
            Some(Some(seen)) if seen == *key => Ok(()),
            Some(_) => agentspine_fs::write_private_file_atomic(self.dir.path(), KEY_FILE, key),
            None => sync_key(self.dir, key),
        }
    }

    /// Brings the incident file in step with whether an incident is
    /// unacknowledged: looked at again only when it was not seen.
    pub(crate) fn sync_incident(&self, unacknowledged: bool) -> Result<(), FsError> {
        match self.incident {
            Some(present) => set_incident(self.dir, unacknowledged, present),
            None => sync_incident(self.dir, unacknowledged),
        }
    }
}

impl Seen<'_> {
    /// Whether the file of `which` is there (looked at again only when it
    /// was not seen); `None` when it cannot be looked at.
    pub(crate) fn empty(&self, which: Empty) -> Option<bool> {
        self.empty[which.index()].or_else(|| self.dir.modified(which.file()).map(|m| m.is_some()).ok())
    }
}

/// For a write that adds a record or a binding event, inside its
/// transaction and before the commit: the no-continuity file goes, and a
/// file that cannot be removed fails the write (a hook would go on
/// trusting it).
pub(crate) fn continuity_may_exist(dir: &Path) -> rusqlite::Result<()> {
    rows_may_exist(dir, Empty::Continuity)
}

/// For a write that adds a row to the tables of `which`, inside its
/// transaction and before the commit: their file goes, and a file that
/// cannot be removed fails the write.
pub(crate) fn rows_may_exist(dir: &Path, which: Empty) -> rusqlite::Result<()> {
    let removed = PrivateDir::open_existing(dir).and_then(|dir| dir.remove(which.file()));
    match removed {
        // No directory: no file in it either.
        Ok(_) | Err(FsError::NotFound { .. }) => Ok(()),
        // Carried as the transaction's error (shown as this text alone).
        Err(e) => Err(rusqlite::Error::ToSqlConversionFailure(
            format!("{e}; {} is not stored while {} says there is none", which.stored(), which.file()).into(),
        )),
    }
}

/// Brings the key's copy in step with the database's key.
fn sync_key(state: &PrivateDir, key: &[u8; 32]) -> Result<(), FsError> {
    if state.read(KEY_FILE, 33)?.as_deref() == Some(&key[..]) {
        return Ok(());
    }
    agentspine_fs::write_private_file_atomic(state.path(), KEY_FILE, key)
}

/// Brings the incident file in step with whether an incident is
/// unacknowledged.
pub(crate) fn sync_incident(state: &PrivateDir, unacknowledged: bool) -> Result<(), FsError> {
    let present = state.modified(INCIDENT_FILE)?.is_some();
    set_incident(state, unacknowledged, present)
}

/// Writes or removes the incident file, `present` or not, to match.
fn set_incident(state: &PrivateDir, unacknowledged: bool, present: bool) -> Result<(), FsError> {
    let dir = state.path();
    match (unacknowledged, present) {
        (true, false) => agentspine_fs::write_private_file_atomic(
            dir,
            INCIDENT_FILE,
            b"a damaged state database was replaced; run `agentspine doctor`\n",
        ),
        (false, true) => state.remove(INCIDENT_FILE).map(drop),
        _ => Ok(()),
    }
}
