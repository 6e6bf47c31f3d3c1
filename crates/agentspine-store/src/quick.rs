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

use std::path::Path;

use agentspine_fs::{FsError, PrivateDir};
use hmac::{KeyInit, Mac};

/// The key's copy beside the database.
pub const KEY_FILE: &str = "state.db.key";
/// Present while a damaged-state incident is unacknowledged.
pub const INCIDENT_FILE: &str = "state.db.incident";
/// Present while the database holds no record and no binding event.
pub const NO_CONTINUITY_FILE: &str = "state.db.no-continuity";

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
    /// Whether the no-continuity file is there; `None` when it could not
    /// be looked at.
    no_continuity: Option<bool>,
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
        let no_continuity = dir.modified(NO_CONTINUITY_FILE).map(|m| m.is_some()).ok();
        Ok(Quick { dir, key, incident, no_continuity })
    }

    /// The state directory, open.
    pub fn dir(&self) -> &PrivateDir {
        &self.dir
    }

    /// The key for `purpose` (as [`crate::Store::derived_key`] derives it),
    /// when the key's copy is there.
    pub fn derived_key(&self, purpose: &str) -> Option<[u8; 32]> {
        self.key.as_ref().map(|key| derive(key, purpose))
    }

    /// [`crate::Store::root_digest`], when the key's copy is there.
    pub fn root_digest(&self, canonical_root: &std::path::Path) -> Option<String> {
        self.key.as_ref().map(|key| crate::db::root_digest_with(key, canonical_root))
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
        self.no_continuity == Some(true)
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
    /// Whether the no-continuity file was there; `None` when not looked at.
    no_continuity: Option<bool>,
}

impl<'a> Seen<'a> {
    /// Nothing seen yet: an open reads the files.
    pub(crate) fn nothing(dir: &'a PrivateDir) -> Seen<'a> {
        Seen { dir, key: None, incident: None, no_continuity: None }
    }

    /// What `quick` read.
    pub(crate) fn by(quick: &'a Quick) -> Seen<'a> {
        Seen {
            dir: &quick.dir,
            key: Some(quick.key),
            incident: quick.incident,
            no_continuity: quick.no_continuity,
        }
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
    /// Whether the no-continuity file is there (looked at again only when
    /// it was not seen); `None` when it cannot be looked at.
    pub(crate) fn no_continuity(&self) -> Option<bool> {
        self.no_continuity.or_else(|| self.dir.modified(NO_CONTINUITY_FILE).map(|m| m.is_some()).ok())
    }
}

/// For a write that adds a record or a binding event, inside its
/// transaction and before the commit: the no-continuity file goes, and a
/// file that cannot be removed fails the write (a hook would go on
/// trusting it).
pub(crate) fn continuity_may_exist(dir: &Path) -> rusqlite::Result<()> {
    let removed = PrivateDir::open_existing(dir).and_then(|dir| dir.remove(NO_CONTINUITY_FILE));
    match removed {
        Ok(_) => Ok(()),
        // Carried as the transaction's error (shown as this text alone).
        Err(e) => Err(rusqlite::Error::ToSqlConversionFailure(
            format!("{e}; the record or binding is not stored while {NO_CONTINUITY_FILE} says there is none")
                .into(),
        )),
    }
}

/// The key for one purpose, derived from the state directory's key.
pub(crate) fn derive(key: &[u8; 32], purpose: &str) -> [u8; 32] {
    let mut mac =
        <hmac::Hmac<sha2::Sha256> as KeyInit>::new_from_slice(key).expect("HMAC takes a key of any length");
    mac.update(b"agentspine derived key v1\0");
    mac.update(purpose.as_bytes());
    mac.finalize().into_bytes().into()
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
