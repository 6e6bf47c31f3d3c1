//! Opening the state database: the private directory and its lock,
//! pragmas, corruption repair, migrations, the root-digest key and the
//! files a hook reads beside the database instead ([`crate::quick`]).

use std::path::Path;
use std::time::{Duration, Instant};

use agentspine_fs::{FileKind, FsError, LockMode, PrivateDir};
use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode, Transaction, TransactionBehavior};

use crate::db::{
    BUSY_TIMEOUT, CHECK_INTERVAL, CHECK_MARKER, CHECKED_KEY, DB_FILE, OPEN_FLAGS, OpenMode, ROOT_KEY, Store,
    StoreError, clear_check_marker, is_ok, last_check, now_ms, record_check, retry_busy, run_quick_check,
};
use crate::migrations;
use crate::quick::{Empty, Quick, Seen};

impl Store {
    /// Opens (creating if needed) the database in `dir`, creating `dir`
    /// itself as a private directory first.
    ///
    /// A file SQLite calls not-a-database or corrupt when it is opened, or
    /// on a `PRAGMA quick_check`, is repaired (see `repair`): moved aside
    /// as `state.db.corrupt-<unix seconds>` (its `-wal` and `-shm` beside
    /// it), what SQLite can still read of it salvaged into a new database
    /// with an [`crate::Incident`] saying so, and [`Opened::warnings`] says
    /// it too. Only one process repairs at a time, and none opens
    /// meanwhile; the others wait for it and open its new database. A
    /// repair a killed process left unfinished is finished by the next
    /// open.
    ///
    /// `quick_check` reads every page, so it is not made at every open: an
    /// open makes it when the last one is older than [`CHECK_INTERVAL`] (or
    /// never ran), or when a statement has met damage since
    /// ([`CHECK_MARKER`]); [`Store::quick_check`] makes it on demand
    /// (`agentspine doctor`). A file that is not a database, is cut short,
    /// or has a damaged schema fails at open itself and is repaired then.
    pub fn open(dir: &Path) -> Result<Opened, StoreError> {
        Store::open_with(dir, OpenMode::Default)
    }

    /// [`Store::open`] for one kind of process (see [`OpenMode`]).
    pub fn open_with(dir: &Path, mode: OpenMode) -> Result<Opened, StoreError> {
        let private = PrivateDir::open(dir).map_err(|e| unavailable(dir, &e))?;
        open_in(Seen::nothing(&private), mode)
    }

    /// [`Store::open_with`] in the state directory `quick` has open (a
    /// hook's, see [`Quick`]), with the same checks, repair and guarantees.
    /// What `quick` already did or read is not done again: the directory is
    /// not made sure of or opened a second time, the key's copy is not
    /// reread (it is rewritten when the database's key differs from what
    /// `quick` read, or `quick` found none), and the incident file is not
    /// looked at again (it is written or removed when what `quick` saw
    /// differs from the database's answer). After a repair, both files are
    /// read again as by any open.
    pub fn open_after(quick: &Quick, mode: OpenMode) -> Result<Opened, StoreError> {
        open_in(Seen::by(quick), mode)
    }

    /// Opens the database in the platform's state directory (see
    /// [`crate::state_dir`]), reading the process environment.
    pub fn open_default() -> Result<Opened, StoreError> {
        Store::open_default_with(OpenMode::Default)
    }

    /// [`Store::open_default`] for one kind of process (see [`OpenMode`]).
    pub fn open_default_with(mode: OpenMode) -> Result<Opened, StoreError> {
        // Made sure of (a private directory, created when missing) by
        // `open_with` itself.
        let dir = crate::state_dir_path(crate::Platform::CURRENT, |name| std::env::var_os(name))?;
        Store::open_with(&dir, mode)
    }
}

/// How long [`Store::open`] waits for the directory lock (held shared by
/// every open, exclusive by a repair).
const LOCK_WAIT: Duration = Duration::from_secs(30);

/// A store just opened, with anything the caller should tell the user
/// (a corrupt database that was moved aside and rebuilt).
#[derive(Debug)]
pub struct Opened {
    /// The open store.
    pub store: Store,
    /// Human-readable warnings, empty when nothing unusual happened.
    pub warnings: Vec<String>,
}

/// Why one attempt to open failed.
enum Attempt {
    /// SQLite says the file is not a database or is damaged.
    Corrupt(String),
    /// A repair was left unfinished by a process that died.
    Pending,
    /// Anything else; returned to the caller as is.
    Failed(StoreError),
}

/// Opens the database in `seen.dir` (see [`Store::open`]).
fn open_in(seen: Seen<'_>, mode: OpenMode) -> Result<Opened, StoreError> {
    let dir = seen.dir.path();
    // Opens hold the directory lock shared, a repair holds it
    // exclusive: no process is half-way through opening while files
    // are moved, so a new database's -wal is never moved by mistake.
    let first = {
        let _shared = wait_for_lock(dir, LockMode::Shared)?;
        attempt(seen, mode)
    };
    let reason = match first {
        Ok(store) => return Ok(Opened { store, warnings: Vec::new() }),
        Err(Attempt::Failed(e)) => return Err(e),
        Err(Attempt::Corrupt(reason)) => Some(reason),
        Err(Attempt::Pending) => None,
    };
    // A repair (this process's or another's) changes the key's copy and
    // the incident file: what was seen of them before no longer counts.
    let seen = seen.forget();
    let _exclusive = wait_for_lock(dir, LockMode::Exclusive)?;
    let mut warnings: Vec<String> = crate::repair::resume(dir)?.into_iter().collect();
    // Another process may have repaired it while we waited.
    let reason = match (attempt(seen, mode), reason) {
        (Ok(store), _) => return Ok(Opened { store, warnings }),
        (Err(Attempt::Failed(e)), _) => return Err(e),
        (Err(Attempt::Pending), _) => {
            return Err(StoreError::Unavailable {
                path: dir.join(crate::repair::REPAIR_PENDING),
                reason: "a repair of the state database could not be finished".to_owned(),
            });
        }
        (Err(Attempt::Corrupt(again)), Some(reason)) if again == reason => reason,
        (Err(Attempt::Corrupt(again)), Some(reason)) => format!("{reason}; then {again}"),
        (Err(Attempt::Corrupt(again)), None) => again,
    };
    warnings.push(crate::repair::repair(dir, &reason)?);
    match attempt(seen, mode) {
        Ok(store) => Ok(Opened { store, warnings }),
        Err(Attempt::Failed(e)) => Err(e),
        Err(Attempt::Corrupt(reason)) => Err(StoreError::Unavailable {
            path: dir.join(DB_FILE),
            reason: format!("a new database is reported corrupt as well: {reason}"),
        }),
        Err(Attempt::Pending) => Err(StoreError::Unavailable {
            path: dir.join(crate::repair::REPAIR_PENDING),
            reason: "a repair of the state database could not be finished".to_owned(),
        }),
    }
}

/// One attempt to open, configure, check and migrate the database.
fn attempt(seen: Seen<'_>, mode: OpenMode) -> Result<Store, Attempt> {
    let dir = seen.dir.path();
    let path = dir.join(DB_FILE);
    if is_there(seen.dir, crate::repair::REPAIR_PENDING) {
        return Err(Attempt::Pending);
    }
    let flagged = check_db_file(seen.dir, &path).map_err(Attempt::Failed)?;
    let conn = Connection::open_with_flags(&path, OPEN_FLAGS).map_err(|e| classify(&path, e))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(|e| classify(&path, e))?;
    // Until the file has passed its checks, closing this connection must
    // not checkpoint or delete a `-wal` file: if the database is damaged,
    // the WAL is moved aside with it, as it was.
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true).map_err(|e| classify(&path, e))?;
    conn.pragma_update(None, "synchronous", "NORMAL").map_err(|e| classify(&path, e))?;
    conn.pragma_update(None, "foreign_keys", true).map_err(|e| classify(&path, e))?;
    if mode == OpenMode::Hook {
        // No checkpoint in the middle of a hook's work: the closing hook
        // makes one when the WAL is long enough (see `Drop for Store`).
        conn.pragma_update(None, "wal_autocheckpoint", 0).map_err(|e| classify(&path, e))?;
    }
    // Reading the schema here is what finds a file that is not a
    // database, is cut short or has a damaged schema.
    let probe = retry_busy(|| probe(&conn)).map_err(|e| classify(&path, e))?;
    // WAL is a property of the file: set once, kept by every later open
    // (the file's header says so, and the probe's read of it told).
    if !probe.as_ref().is_some_and(|p| p.wal) {
        retry_busy(|| {
            conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0))
        })
        .map_err(|e| classify(&path, e))?;
    }
    // The probe's answers hold for a database of this schema version;
    // any other (new, older, newer) is asked step by step.
    let current = probe.filter(|p| p.version == migrations::SCHEMA_VERSION);
    let last = match &current {
        Some(p) => p.last_check,
        None => retry_busy(|| last_check(&conn)).map_err(|e| classify(&path, e))?,
    };
    let now = now_ms();
    let interval = i64::try_from(CHECK_INTERVAL.as_millis()).unwrap_or(i64::MAX);
    let due = flagged || last.is_none_or(|at| now.saturating_sub(at) >= interval || at > now);
    if due {
        let check = run_quick_check(&conn).map_err(|e| classify(&path, e))?;
        if !is_ok(&check) {
            return Err(Attempt::Corrupt(format!("quick_check found damage: {}", check.join("; "))));
        }
    }
    if current.is_none() {
        migrations::migrate(&conn, &path).map_err(|e| match e {
            StoreError::Database { path, source } => classify(&path, source),
            other => Attempt::Failed(other),
        })?;
    }
    let key = match current.as_ref().and_then(|p| p.key) {
        Some(key) => key,
        None => root_key(&conn).map_err(|e| classify(&path, e))?,
    };
    if due {
        record_check(&conn).map_err(|e| classify(&path, e))?;
        if flagged {
            clear_check_marker(dir);
        }
    }
    // What a hook reads instead of opening the database (see `quick.rs`):
    // best effort, and a copy that cannot be brought in step is removed,
    // so that no hook goes on with a stale one.
    if seen.sync_key(&key).is_err() {
        let _ = agentspine_fs::remove_file(dir, crate::quick::KEY_FILE);
    }
    let unacknowledged = match &current {
        Some(p) => p.unacknowledged,
        None => retry_busy(|| {
            conn.query_row(
                "SELECT EXISTS (SELECT 1 FROM incidents WHERE acknowledged_at IS NULL)",
                [],
                |row| row.get(0),
            )
        })
        .map_err(|e| classify(&path, e))?,
    };
    let _ = seen.sync_incident(unacknowledged);
    for which in Empty::ALL {
        let rows = match &current {
            Some(p) => p.rows[which.index()],
            None => retry_busy(|| conn.query_row(which.rows_sql(), [], |row| row.get(0)))
                .map_err(|e| classify(&path, e))?,
        };
        sync_empty(&conn, &seen, which, rows);
    }
    // Sessions that ended without a word (see `session.rs`).
    if mode == OpenMode::Default
        && let Ok(dir) = seen.dir.try_clone()
    {
        let _ = crate::SessionMarks::in_dir(dir).prune_old(crate::session::SESSION_TTL.as_secs());
    }
    // Healthy: the last connection to close checkpoints the WAL as usual,
    // except a hook's (see [`OpenMode::Hook`]).
    if mode == OpenMode::Default {
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, false)
            .map_err(|e| classify(&path, e))?;
    }
    Ok(Store { conn, dir: dir.to_path_buf(), key, mode, unacknowledged_at_open: unacknowledged })
}

/// Brings the file of `which` in step with its tables (`rows`: whether
/// they hold a row), best effort: rows with the file there remove it; no
/// rows and no file create it under the write lock, if it is free at once
/// (a hook does not wait for it), after asking the tables again (see
/// `quick.rs`). A file that cannot be looked at is left alone, and a hook
/// does not trust it either.
fn sync_empty(conn: &Connection, seen: &Seen<'_>, which: Empty, rows: bool) {
    match (rows, seen.empty(which)) {
        (true, Some(true)) => {
            let _ = seen.dir.remove(which.file());
        }
        (false, Some(false)) => {
            if conn.busy_timeout(Duration::ZERO).is_err() {
                return;
            }
            let _ = (|| -> rusqlite::Result<()> {
                let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
                let rows: bool = tx.query_row(which.rows_sql(), [], |row| row.get(0))?;
                if !rows {
                    let _ =
                        agentspine_fs::write_private_file_atomic(seen.dir.path(), which.file(), which.text());
                }
                tx.commit()
            })();
            let _ = conn.busy_timeout(BUSY_TIMEOUT);
        }
        _ => {}
    }
}

/// What one statement at open tells: the journal mode, the schema version
/// and, in a database of the current version, the last check, the key and
/// whether an incident is unacknowledged (each otherwise its own statement
/// and read transaction).
struct Probe {
    /// The file is in WAL mode already (its header says so).
    wal: bool,
    /// `PRAGMA user_version`.
    version: i64,
    /// As [`last_check`].
    last_check: Option<i64>,
    /// The root-digest key, when it is there and 32 bytes long.
    key: Option<[u8; 32]>,
    /// An incident is unacknowledged.
    unacknowledged: bool,
    /// Whether the tables of each of [`Empty::ALL`] hold a row (see
    /// `quick.rs`).
    rows: [bool; 3],
}

/// Asks the probe's one statement; `None` when the schema lacks a table it
/// names (a new file, or an older schema): SQLite's plain error, which the
/// open answers by asking step by step. Damage is SQLite's corrupt or
/// not-a-database error, returned as it is.
fn probe(conn: &Connection) -> rusqlite::Result<Option<Probe>> {
    let answer = conn.query_row(
        "SELECT (SELECT journal_mode FROM pragma_journal_mode),
                (SELECT user_version FROM pragma_user_version),
                (SELECT CAST(value AS BLOB) FROM meta WHERE key = ?1),
                (SELECT value FROM meta WHERE key = ?2),
                EXISTS (SELECT 1 FROM incidents WHERE acknowledged_at IS NULL),
                EXISTS (SELECT 1 FROM records) OR EXISTS (SELECT 1 FROM binding_events),
                EXISTS (SELECT 1 FROM cache),
                EXISTS (SELECT 1 FROM scopes)",
        [CHECKED_KEY, ROOT_KEY],
        |row| {
            let mode: Option<String> = row.get(0)?;
            let last_check = row
                .get_ref(2)?
                .as_blob_or_null()?
                .and_then(|v| std::str::from_utf8(v).ok().and_then(|t| t.parse().ok()));
            let key =
                row.get_ref(3)?.as_blob_or_null().ok().flatten().and_then(|v| <[u8; 32]>::try_from(v).ok());
            Ok(Probe {
                wal: mode.is_some_and(|m| m.eq_ignore_ascii_case("wal")),
                version: row.get(1)?,
                last_check,
                key,
                unacknowledged: row.get(4)?,
                rows: [row.get(5)?, row.get(6)?, row.get(7)?],
            })
        },
    );
    match answer {
        Ok(probe) => Ok(Some(probe)),
        Err(e) if e.sqlite_error_code() == Some(ErrorCode::Unknown) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Whether anything is at `name` in `dir` (a regular file, a link, any
/// other kind); a name that cannot be looked at counts as absent.
fn is_there(dir: &PrivateDir, name: &str) -> bool {
    matches!(dir.modified(name), Ok(Some(_)) | Err(FsError::Symlink { .. } | FsError::NotRegular { .. }))
}

/// Refuses a `state.db` that is not a regular file (a link, a FIFO, a
/// directory) before SQLite opens it; whether [`CHECK_MARKER`] asks for a
/// `quick_check`.
fn check_db_file(dir: &PrivateDir, path: &Path) -> Result<bool, StoreError> {
    let flagged = is_there(dir, CHECK_MARKER);
    let not_regular = |kind: FileKind| StoreError::Unavailable {
        path: path.to_path_buf(),
        reason: format!("it is a {kind}, not a regular file"),
    };
    match dir.modified(DB_FILE) {
        Ok(_) => Ok(flagged),
        Err(FsError::Symlink { .. }) => Err(not_regular(FileKind::Symlink)),
        Err(FsError::NotRegular { kind, .. }) => Err(not_regular(kind)),
        Err(e) => Err(unavailable(path, &e)),
    }
}

/// Sorts an SQLite error into corrupt, unavailable or other.
fn classify(path: &Path, error: rusqlite::Error) -> Attempt {
    match error.sqlite_error_code() {
        Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) => Attempt::Corrupt(error.to_string()),
        Some(
            ErrorCode::CannotOpen
            | ErrorCode::ReadOnly
            | ErrorCode::PermissionDenied
            | ErrorCode::SystemIoFailure
            | ErrorCode::DiskFull
            | ErrorCode::DatabaseBusy
            | ErrorCode::DatabaseLocked
            | ErrorCode::FileLockingProtocolFailed,
        ) => Attempt::Failed(StoreError::Unavailable { path: path.to_path_buf(), reason: error.to_string() }),
        _ => Attempt::Failed(StoreError::Database { path: path.to_path_buf(), source: error }),
    }
}

fn unavailable(path: &Path, error: &FsError) -> StoreError {
    StoreError::Unavailable { path: path.to_path_buf(), reason: error.to_string() }
}

/// Waits (bounded by [`LOCK_WAIT`]) for the directory lock in `mode`.
fn wait_for_lock(dir: &Path, mode: LockMode) -> Result<agentspine_fs::DirLock, StoreError> {
    let start = Instant::now();
    loop {
        match agentspine_fs::try_lock_dir(dir, mode) {
            Ok(Some(lock)) => return Ok(lock),
            Ok(None) if start.elapsed() < LOCK_WAIT => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                return Err(StoreError::Unavailable {
                    path: dir.to_path_buf(),
                    reason: format!(
                        "waited {LOCK_WAIT:?} for another process to finish opening or repairing the database"
                    ),
                });
            }
            Err(e) => return Err(unavailable(dir, &e)),
        }
    }
}

/// Reads the root-digest key, making it on first use. Two processes making
/// it at once agree: the first insert wins and both read it back.
fn root_key(conn: &Connection) -> rusqlite::Result<[u8; 32]> {
    let read = |conn: &Connection| -> rusqlite::Result<Option<Vec<u8>>> {
        use rusqlite::OptionalExtension;
        conn.query_row("SELECT value FROM meta WHERE key = ?1", [ROOT_KEY], |row| row.get(0)).optional()
    };
    let stored = match retry_busy(|| read(conn))? {
        Some(value) => value,
        None => retry_busy(|| {
            let mut fresh = [0u8; 32];
            getrandom::fill(&mut fresh).map_err(|e| {
                rusqlite::Error::ToSqlConversionFailure(format!("no randomness for the key: {e}").into())
            })?;
            let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
            tx.execute("INSERT OR IGNORE INTO meta (key, value) VALUES (?1, ?2)", (ROOT_KEY, &fresh[..]))?;
            let value = read(&tx)?;
            tx.commit()?;
            Ok(value.unwrap_or_default())
        })?,
    };
    <[u8; 32]>::try_from(stored.as_slice()).map_err(|_| {
        rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
            Some(format!("meta.{ROOT_KEY} holds {} bytes, not 32", stored.len())),
        )
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use rusqlite::hooks::{AuthAction, AuthContext, Authorization};

    use super::*;

    /// A connection to a new database in `dir` (as an opener that found
    /// the file empty) whose next statement is prepared while another
    /// connection migrates the file one version per transaction (as each
    /// process did before the migrations were one transaction, and an
    /// older agentspine still does): each time SQLite starts to prepare
    /// one (its `SELECT` authorization), the other commits the next of the
    /// first two migrations. So the probe's statement meets a schema
    /// without `meta`, and, prepared again, one without `incidents`.
    fn opener_racing_a_migration(dir: &Path) -> Connection {
        let path = dir.join(DB_FILE);
        let mut opener = Connection::open(&path).unwrap();
        opener.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0)).unwrap();
        assert!(probe(&opener).unwrap().is_none(), "the schema is read: empty");
        let other = Connection::open(&path).unwrap();
        let applied = AtomicUsize::new(0);
        opener
            .authorizer(Some(move |context: AuthContext<'_>| {
                if matches!(context.action, AuthAction::Select) {
                    let next = applied.load(Ordering::SeqCst);
                    if next < 2 {
                        let tx = other.unchecked_transaction().unwrap();
                        tx.execute_batch(migrations::MIGRATIONS[next]).unwrap();
                        tx.pragma_update(None, "user_version", next as i64 + 1).unwrap();
                        tx.commit().unwrap();
                        applied.store(next + 1, Ordering::SeqCst);
                    }
                }
                Authorization::Allow
            }))
            .unwrap();
        opener
    }

    /// The interleaving that failed a first open with "no such table:
    /// incidents": the schema changed while the probe was prepared and
    /// again while SQLite prepared it a second time, and SQLite gave up
    /// with `SQLITE_SCHEMA`. The open asks again, and then finds the
    /// tables missing (a database not yet migrated) or there.
    #[test]
    fn the_probe_is_asked_again_when_the_schema_changes_while_it_is_prepared() {
        let dir = tempfile::tempdir().unwrap();
        let raced = opener_racing_a_migration(dir.path());
        let e = probe(&raced).err().expect("SQLite alone gives up");
        assert_eq!(e.sqlite_error_code(), Some(ErrorCode::SchemaChanged), "{e}");
        assert!(e.to_string().contains("no such table: incidents"), "{e}");

        let dir = tempfile::tempdir().unwrap();
        let raced = opener_racing_a_migration(dir.path());
        let probe = retry_busy(|| probe(&raced)).expect("asked again");
        assert!(probe.is_none(), "version 2 has no incidents table yet");
    }

    /// The probe's one statement answers on a database of the current
    /// schema (were it to fail there, every open would quietly ask step by
    /// step and pay for it), and answers nothing on a new file.
    #[test]
    fn the_probe_answers_on_a_current_database_and_not_on_a_new_one() {
        let dir = tempfile::tempdir().unwrap();
        let fresh = Connection::open(dir.path().join("new.db")).unwrap();
        assert!(probe(&fresh).unwrap().is_none());

        let Opened { store, .. } = Store::open(dir.path()).unwrap();
        let key = store.key;
        drop(store);
        let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
        let probe = probe(&conn).unwrap().expect("a current database is probed in one statement");
        assert!(probe.wal);
        assert_eq!(probe.version, migrations::SCHEMA_VERSION);
        assert_eq!(probe.key, Some(key));
        assert_eq!(probe.last_check, last_check(&conn).unwrap());
        assert!(probe.last_check.is_some(), "the first open checks and records it");
        assert!(!probe.unacknowledged);
    }
}
