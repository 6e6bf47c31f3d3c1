//! The state database, open: its handle, its errors, and the retried
//! transactions every operation uses (opening it is [`crate::open`]).
//!
//! Many agentspine processes use one database at once (hooks run in
//! parallel). SQLite's WAL mode lets readers proceed beside one writer; a
//! write starts with `BEGIN IMMEDIATE` (so it never has to upgrade a read
//! lock, which is what turns into an immediate `SQLITE_BUSY`), waits up to
//! [`BUSY_TIMEOUT`] for the write lock, and is tried again a bounded number
//! of times ([`BUSY_ATTEMPTS`]) if SQLite still answers busy or locked, or
//! that the schema changed while the statement was prepared.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use agentspine_fs::{Budget, Reader};
use rusqlite::{Connection, ErrorCode, OpenFlags, Transaction, TransactionBehavior};

/// How the state database is opened, here and when a repair builds its
/// replacement: read-write, created when missing, never through a link,
/// one connection per thread.
pub(crate) const OPEN_FLAGS: OpenFlags = OpenFlags::SQLITE_OPEN_READ_WRITE
    .union(OpenFlags::SQLITE_OPEN_CREATE)
    .union(OpenFlags::SQLITE_OPEN_NOFOLLOW)
    .union(OpenFlags::SQLITE_OPEN_NO_MUTEX);

/// File name of the database inside the state directory.
pub const DB_FILE: &str = "state.db";
/// How long one statement waits for another process's lock.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// How many times a transaction is started when SQLite keeps answering
/// busy or locked (each attempt waits up to [`BUSY_TIMEOUT`] first).
pub const BUSY_ATTEMPTS: u32 = 6;
/// Name of the root-digest key in the `meta` table.
pub(crate) const ROOT_KEY: &str = "root_digest_key";

/// A failure to find, create or open the state database.
///
/// [`StoreError::Unavailable`] is the one a caller is expected to survive:
/// the directory or file cannot be created, written or trusted, and the
/// caller may carry on without a cache.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// No state directory can be named from the environment.
    #[error("no state directory: {reason}")]
    NoStateDir {
        /// What is missing or wrong.
        reason: String,
    },
    /// The state directory or database cannot be created, written or
    /// trusted (permissions, read-only filesystem, a link, another owner).
    #[error("{}: the state database is unavailable: {reason}", path.display())]
    Unavailable {
        /// The directory or file concerned.
        path: PathBuf,
        /// Why, in words.
        reason: String,
    },
    /// The database holds a schema from a newer agentspine.
    #[error("{}: the state database has schema version {found}; this agentspine knows up to {known}", path.display())]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// `PRAGMA user_version` found in the file.
        found: i64,
        /// The newest version this build can write.
        known: i64,
    },
    /// Any other SQLite failure while opening.
    #[error("{}: {source}", path.display())]
    Database {
        /// The database file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: rusqlite::Error,
    },
}

/// The state database, open. One per thread: it is `Send`, not `Sync`.
pub struct Store {
    pub(crate) conn: Connection,
    pub(crate) dir: PathBuf,
    pub(crate) key: [u8; 32],
    pub(crate) mode: OpenMode,
    /// Whether the open found an unacknowledged incident.
    pub(crate) unacknowledged_at_open: bool,
}

impl Drop for Store {
    /// A hook's connection leaves the WAL in place (see [`OpenMode::Hook`]);
    /// once it holds more than [`HOOK_WAL_PAGES`] frames, the closing hook
    /// checkpoints it and truncates it to nothing, if no other process is
    /// using the database at that moment (otherwise a later hook does).
    fn drop(&mut self) {
        self.trim_hook_wal();
    }
}

impl Store {
    /// For a process that exits next (a hook): what closing does for a
    /// hook's connection (see `Drop`), without closing it. Freeing the
    /// parsed schema and the page cache is a tenth of a hook's own work
    /// (BENCHMARKS.md) and buys nothing a moment before the process exits:
    /// the kernel then closes the files and releases the locks, as after
    /// any exit. Every transaction has ended by then (each operation
    /// commits or rolls back before it returns), and a hook's close
    /// neither checkpoints nor removes the WAL anyway. Any other mode
    /// closes as usual.
    pub fn leave_open_at_exit(self) {
        if self.mode != OpenMode::Hook {
            return;
        }
        self.trim_hook_wal();
        std::mem::forget(self);
    }

    fn trim_hook_wal(&self) {
        if self.mode != OpenMode::Hook {
            return;
        }
        let page: i64 = self.conn.pragma_query_value(None, "page_size", |row| row.get(0)).unwrap_or(4096);
        let page = u64::try_from(page).unwrap_or(4096);
        let frames = Reader::new(Budget::UNLIMITED)
            .open_root(&self.dir)
            .and_then(|root| root.stat(format!("{DB_FILE}-wal")))
            .map_or(0, |meta| meta.identity.size / (page + 24));
        if frames <= u64::from(HOOK_WAL_PAGES) {
            return;
        }
        // Never wait for another process here: the host is waiting.
        let _ = self.conn.busy_timeout(Duration::ZERO);
        let _ = self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    }
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("dir", &self.dir).finish_non_exhaustive()
    }
}

impl Store {
    /// Runs `PRAGMA quick_check` now and returns what it reports (`["ok"]`
    /// for a healthy file; SQLite's corrupt error, when the check cannot
    /// even finish, is reported the same way). A healthy result is recorded
    /// as the last check; damage makes the next open check again and move
    /// the file aside. Reads every page: `agentspine doctor` calls it,
    /// hooks do not.
    pub fn quick_check(&self) -> rusqlite::Result<Vec<String>> {
        let check = match run_quick_check(&self.conn) {
            Err(e)
                if matches!(
                    e.sqlite_error_code(),
                    Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt)
                ) =>
            {
                Ok(vec![e.to_string()])
            }
            other => other,
        };
        match &check {
            Ok(lines) if is_ok(lines) => {
                let _ = record_check(&self.conn);
                clear_check_marker(&self.dir);
            }
            Ok(_) => flag_for_check(&self.dir),
            Err(_) => {}
        }
        check
    }

    /// When the last healthy `quick_check` ran (ms since the Unix epoch),
    /// and whether a statement has met damage since ([`CHECK_MARKER`]).
    pub fn check_state(&self) -> (Option<i64>, bool) {
        let last = retry_busy(|| last_check(&self.conn)).ok().flatten();
        (last, check_marker_present(&self.dir))
    }

    /// After a statement failed: if SQLite found damage, the next open
    /// makes a `quick_check` (and repairs the file if it fails).
    pub(crate) fn note_damage(&self, error: &rusqlite::Error) {
        if matches!(error.sqlite_error_code(), Some(ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt)) {
            flag_for_check(&self.dir);
        }
    }

    /// Whether this connection's open found an unacknowledged incident (its
    /// first look at the `incidents` table, after any repair it made). For
    /// a short-lived process (a hook) that would otherwise ask again: an
    /// incident is recorded only by the repair that replaces the file this
    /// connection has open.
    pub fn had_unacknowledged_incident_at_open(&self) -> bool {
        self.unacknowledged_at_open
    }

    /// The state directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The database file.
    pub fn db_path(&self) -> PathBuf {
        self.dir.join(DB_FILE)
    }

    /// The opaque digest that stands for `canonical_root` in every table:
    /// HMAC-SHA256 of the path's bytes under a random 32-byte key made
    /// once per state directory and kept in its database, as 32 lowercase
    /// hex digits. The same root gives the same digest in every process
    /// using this state directory; nothing in the database names the path,
    /// and the digest cannot be recomputed without the key.
    pub fn root_digest(&self, canonical_root: &Path) -> String {
        crate::keys::root_digest_with(&self.key, canonical_root)
    }

    /// A 32-byte key for one purpose (e.g. `"source-id"`), derived from the
    /// state directory's key: stable across processes, useless without it.
    pub fn derived_key(&self, purpose: &str) -> [u8; 32] {
        crate::keys::derive(&self.key, purpose)
    }

    /// Runs `op` in a `BEGIN IMMEDIATE` transaction and commits it, starting
    /// again from scratch (up to [`BUSY_ATTEMPTS`] times) if SQLite answers
    /// busy or locked.
    pub(crate) fn write<T>(
        &self,
        mut op: impl FnMut(&Transaction<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        let result = retry_busy(|| {
            let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)?;
            let value = op(&tx)?;
            tx.commit()?;
            Ok(value)
        });
        if let Err(e) = &result {
            self.note_damage(e);
        }
        result
    }

    /// Runs `op` in a read transaction (one consistent snapshot), retried
    /// like [`Store::write`].
    pub(crate) fn read<T>(
        &self,
        mut op: impl FnMut(&Transaction<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        let result = retry_busy(|| {
            let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Deferred)?;
            let value = op(&tx)?;
            tx.commit()?;
            Ok(value)
        });
        if let Err(e) = &result {
            self.note_damage(e);
        }
        result
    }
}

/// What kind of process opens the store, which decides how it closes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum OpenMode {
    /// CLI commands and servers: the last connection to close checkpoints
    /// the WAL into the database and removes it (SQLite's default).
    #[default]
    Default,
    /// Hooks: one short process per host event, each paid for by the host
    /// in latency. The WAL is left in place for the next process to append
    /// to, instead of being checkpointed and removed at every close (a
    /// checkpoint and a new WAL file cost four `fsync` calls per run). The
    /// hook that closes with more than [`HOOK_WAL_PAGES`] frames in it
    /// checkpoints it and truncates it (`wal_checkpoint(TRUNCATE)`): every
    /// process rebuilds the WAL index by reading the whole WAL, so it must
    /// stay short, and without the truncation it would never restart.
    /// Durability is the same as in the default mode (`synchronous =
    /// NORMAL` under WAL).
    Hook,
}

/// Frames the WAL may hold before a closing hook checkpoints and truncates it.
/// Every hook process reads the whole WAL back (SQLite rebuilds its index
/// when no other process has the database open), so this bounds that read
/// at 64 KiB; hooks rarely write (session marks live in files, an
/// unchanged cache or report writes nothing), so the checkpoint is rare.
pub const HOOK_WAL_PAGES: u32 = 16;
/// How long a healthy `quick_check` counts: an open older than this makes
/// a new one.
pub const CHECK_INTERVAL: Duration = Duration::from_secs(24 * 60 * 60);
/// File beside the database that asks the next open for a `quick_check`:
/// written when a statement meets SQLite's corrupt or not-a-database error.
pub const CHECK_MARKER: &str = "state.db.check-needed";
/// Name of the last healthy check's time in the `meta` table.
pub(crate) const CHECKED_KEY: &str = "quick_check_ok_at_ms";

pub(crate) fn run_quick_check(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    retry_busy(|| {
        let mut stmt = conn.prepare("PRAGMA quick_check")?;
        let rows = stmt.query_map([], |row| row.get::<_, String>(0))?;
        rows.collect()
    })
}

pub(crate) fn is_ok(lines: &[String]) -> bool {
    lines.first().map(String::as_str) == Some("ok")
}

/// The last healthy check's time; `None` when none is recorded (or the
/// `meta` table does not exist yet: a new file).
pub(crate) fn last_check(conn: &Connection) -> rusqlite::Result<Option<i64>> {
    use rusqlite::OptionalExtension;
    let exists: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta')",
        [],
        |row| row.get(0),
    )?;
    if !exists {
        return Ok(None);
    }
    let value: Option<Vec<u8>> = conn
        .query_row("SELECT CAST(value AS BLOB) FROM meta WHERE key = ?1", [CHECKED_KEY], |row| row.get(0))
        .optional()?;
    Ok(value.and_then(|v| std::str::from_utf8(&v).ok().and_then(|t| t.parse().ok())))
}

pub(crate) fn record_check(conn: &Connection) -> rusqlite::Result<()> {
    retry_busy(|| {
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?1, CAST(?2 AS BLOB))
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (CHECKED_KEY, now_ms().to_string()),
        )
        .map(drop)
    })
}

pub(crate) fn check_marker_present(dir: &Path) -> bool {
    Reader::new(Budget::UNLIMITED).open_root(dir).and_then(|root| root.stat(CHECK_MARKER)).is_ok()
}

pub(crate) fn flag_for_check(dir: &Path) {
    // Best effort: without the marker, the scheduled check still comes.
    let _ = agentspine_fs::replace_file_atomic(dir, CHECK_MARKER, b"quick_check needed\n", Some(0o600));
}

pub(crate) fn clear_check_marker(dir: &Path) {
    // Best effort: a marker left behind costs one more check, no more.
    let _ = agentspine_fs::remove_file(dir, CHECK_MARKER);
}

/// Repeats `op` while SQLite answers busy or locked, or that the schema
/// changed, at most [`BUSY_ATTEMPTS`] times, with a short growing pause
/// between attempts.
///
/// The schema's change: SQLite prepares a statement again when another
/// connection changed the schema meanwhile, but only once. When the schema
/// changes once more during that second preparation (an older agentspine
/// migrates one version per transaction; this one migrates in one, see
/// `migrations.rs`), the statement fails with `SQLITE_SCHEMA`, having done
/// nothing, and is prepared anew here against the schema as it is then.
pub(crate) fn retry_busy<T>(mut op: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let mut attempt = 1;
    loop {
        match op() {
            Err(e)
                if attempt < BUSY_ATTEMPTS
                    && matches!(
                        e.sqlite_error_code(),
                        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked | ErrorCode::SchemaChanged)
                    ) =>
            {
                // Spread the processes apart: the pause depends on the pid.
                let jitter = u64::from(std::process::id() % 17);
                std::thread::sleep(Duration::from_millis(10 * u64::from(attempt) + jitter));
                attempt += 1;
            }
            other => return other,
        }
    }
}

/// Now, in milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Now, in nanoseconds since the Unix epoch.
pub(crate) fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX))
}
