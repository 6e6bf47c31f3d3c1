//! The schema, as an append-only list of migrations.
//!
//! `PRAGMA user_version` holds how many migrations a database has had.
//! Opening applies the missing ones in order, all in one `BEGIN
//! IMMEDIATE` transaction that also sets the new version. So another
//! connection sees the schema as it was or as it is after, never one in
//! between (a new database: no table, then every table); a crash leaves
//! the database as it was; and of two processes opening a new database at
//! once, the second finds the version set once it has the write lock and
//! applies nothing. (With one transaction per migration, a process opening
//! a new database could prepare a statement while another committed two
//! of them: SQLite reads a changed schema again once, then gives up, and
//! the open failed with "no such table".) A migration is never edited
//! after release: a change is a new entry at the end.

use std::path::Path;

use rusqlite::{Connection, Transaction, TransactionBehavior};

use crate::db::{StoreError, retry_busy};

/// Every migration, in order; `MIGRATIONS[n]` takes a database from
/// version `n` to `n + 1`.
pub const MIGRATIONS: &[&str] = &[V1, V2, V3, V4, V5, V6, V7];

/// The version a fully migrated database has.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

const V1: &str = r#"
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value BLOB NOT NULL
);

CREATE TABLE cache (
    id          INTEGER PRIMARY KEY,
    root_digest TEXT    NOT NULL,
    rel_path    TEXT    NOT NULL,
    dev         INTEGER NOT NULL,
    ino         INTEGER NOT NULL,
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    ctime_ns    INTEGER NOT NULL,
    sha256      TEXT    NOT NULL,
    byte_len    INTEGER NOT NULL,
    last_used   INTEGER NOT NULL,
    binding_id  TEXT,
    bytes       BLOB    NOT NULL,
    UNIQUE (root_digest, rel_path)
);
CREATE INDEX cache_last_used ON cache (last_used);
CREATE INDEX cache_binding ON cache (binding_id) WHERE binding_id IS NOT NULL;

CREATE TABLE audit (
    id     INTEGER PRIMARY KEY,
    at_ms  INTEGER NOT NULL,
    host   TEXT    NOT NULL,
    event  TEXT    NOT NULL,
    phase  TEXT    NOT NULL,
    code   TEXT    NOT NULL,
    path   TEXT,
    detail TEXT
);
CREATE INDEX audit_at ON audit (at_ms);
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;

CREATE TABLE binding_events (
    seq         INTEGER PRIMARY KEY,
    kind        TEXT    NOT NULL CHECK (kind IN ('bind', 'rollback', 'purge')),
    binding_id  TEXT    NOT NULL,
    payload     TEXT    NOT NULL CHECK (json_valid(payload)),
    prev_sha256 TEXT    NOT NULL,
    sha256      TEXT    NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE INDEX binding_events_binding ON binding_events (binding_id);
CREATE TRIGGER binding_events_no_update BEFORE UPDATE ON binding_events
BEGIN SELECT RAISE(ABORT, 'binding_events is append-only'); END;
CREATE TRIGGER binding_events_no_delete BEFORE DELETE ON binding_events
BEGIN SELECT RAISE(ABORT, 'binding_events is append-only'); END;

CREATE TABLE scopes (
    root_digest   TEXT PRIMARY KEY,
    ids           TEXT    NOT NULL CHECK (json_valid(ids)),
    updated_at_ms INTEGER NOT NULL
);

CREATE TABLE session_sent (
    session_id TEXT    NOT NULL,
    source_id  TEXT    NOT NULL,
    sha256     TEXT    NOT NULL,
    sent_at_ms INTEGER NOT NULL,
    PRIMARY KEY (session_id, source_id, sha256)
);
CREATE INDEX session_sent_at ON session_sent (sent_at_ms);
"#;

/// Learning records, per project (keyed by the root digest). A record is
/// never deleted: it is retracted or superseded, so nothing acknowledged
/// is lost. Every change of status is one transaction with its audit row.
const V2: &str = r#"
CREATE TABLE records (
    id            INTEGER PRIMARY KEY,
    root_digest   TEXT    NOT NULL,
    kind          TEXT    NOT NULL CHECK (kind IN (
        'preference', 'no-go', 'correction', 'reference', 'person-relationship',
        'project-fact', 'task', 'attention-event', 'group-private', 'delegation-policy',
        'execution-grant', 'job', 'secret', 'trust-material')),
    text          TEXT    NOT NULL CHECK (length(text) > 0),
    status        TEXT    NOT NULL CHECK (status IN ('proposed', 'accepted', 'retracted', 'superseded')),
    supersedes    INTEGER REFERENCES records (id),
    superseded_by INTEGER REFERENCES records (id),
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);
CREATE INDEX records_root ON records (root_digest, status);
CREATE TRIGGER records_no_delete BEFORE DELETE ON records
BEGIN SELECT RAISE(ABORT, 'records are never deleted: retract them'); END;
"#;

/// Bounded audit log and damaged-state incidents.
///
/// - `audit.kept`: 1 for rows that are never pruned (binding, record and
///   incident events), 0 for problem rows; `audit.fingerprint`: a digest of
///   the row's fields, indexed after the time, so that a repeat within a
///   window is found in the index alone (and rows still go into the index
///   in time order: its pages fill the same way every run).
/// - `audit_prunes`: one row per prune; the delete trigger lets a row go
///   only when it is a problem row at or below a recorded prune's
///   `through_id`, so nothing else can remove a row unnoticed.
/// - Rows written before this version: binding and record events are
///   marked kept, and a path or detail longer than 512 characters is cut
///   (without the digest later rows carry: SQL has no SHA-256).
/// - `incidents`: a damaged database that was moved aside, what was
///   salvaged from it, and when the user acknowledged it.
const V3: &str = r#"
ALTER TABLE audit ADD COLUMN kept INTEGER NOT NULL DEFAULT 0 CHECK (kept IN (0, 1));
ALTER TABLE audit ADD COLUMN fingerprint TEXT;
DROP INDEX audit_at;
CREATE INDEX audit_at ON audit (at_ms, fingerprint);

DROP TRIGGER audit_no_update;
UPDATE audit SET kept = 1
 WHERE (phase = 'binding' AND event LIKE 'binding-%') OR (phase = 'record' AND event LIKE 'record-%');
UPDATE audit SET path = substr(path, 1, 512) || '…[cut when upgraded to schema 3]' WHERE length(path) > 512;
UPDATE audit SET detail = substr(detail, 1, 512) || '…[cut when upgraded to schema 3]' WHERE length(detail) > 512;
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit
BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;

CREATE TABLE audit_prunes (
    id         INTEGER PRIMARY KEY,
    at_ms      INTEGER NOT NULL,
    through_id INTEGER NOT NULL,
    rows       INTEGER NOT NULL
);
CREATE TRIGGER audit_prunes_no_update BEFORE UPDATE ON audit_prunes
BEGIN SELECT RAISE(ABORT, 'audit_prunes is append-only'); END;
CREATE TRIGGER audit_prunes_no_delete BEFORE DELETE ON audit_prunes
BEGIN SELECT RAISE(ABORT, 'audit_prunes is append-only'); END;

DROP TRIGGER audit_no_delete;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
WHEN OLD.kept != 0 OR OLD.id > COALESCE((SELECT MAX(through_id) FROM audit_prunes), 0)
BEGIN SELECT RAISE(ABORT, 'audit is append-only: only a recorded prune removes old problem rows'); END;

CREATE TABLE incidents (
    id              INTEGER PRIMARY KEY,
    at_ms           INTEGER NOT NULL,
    reason          TEXT    NOT NULL,
    damaged_copy    TEXT    NOT NULL,
    salvage         TEXT    NOT NULL CHECK (json_valid(salvage)),
    acknowledged_at INTEGER
);
CREATE TRIGGER incidents_no_delete BEFORE DELETE ON incidents
BEGIN SELECT RAISE(ABORT, 'incidents are kept'); END;
"#;

/// Applies the missing migrations to `conn` (the database at `path`), in
/// one transaction.
pub(crate) fn migrate(conn: &Connection, path: &Path) -> Result<(), StoreError> {
    let database = |source| StoreError::Database { path: path.to_path_buf(), source };
    let too_new = |found| StoreError::TooNew { path: path.to_path_buf(), found, known: SCHEMA_VERSION };
    let current = retry_busy(|| user_version(conn)).map_err(database)?;
    if current == SCHEMA_VERSION {
        return Ok(());
    }
    if current > SCHEMA_VERSION {
        return Err(too_new(current));
    }
    let found = retry_busy(|| {
        let tx = Transaction::new_unchecked(conn, TransactionBehavior::Immediate)?;
        // Read again under the write lock: another process may have
        // migrated it meanwhile.
        let found = user_version(&tx)?;
        if found >= SCHEMA_VERSION {
            return Ok(found);
        }
        let from = usize::try_from(found).unwrap_or(0);
        for sql in &MIGRATIONS[from..] {
            tx.execute_batch(sql)?;
        }
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        tx.commit()?;
        Ok(SCHEMA_VERSION)
    })
    .map_err(database)?;
    if found > SCHEMA_VERSION {
        return Err(too_new(found));
    }
    Ok(())
}

/// `PRAGMA user_version`.
pub(crate) fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
}

/// The latest compact `sourceResolution` report per project root and host
/// (see `reports.rs`).
const V4: &str = r#"
CREATE TABLE reports (
    root_digest  TEXT NOT NULL,
    host         TEXT NOT NULL,
    project_root TEXT NOT NULL,
    line         TEXT NOT NULL,
    at_ms        INTEGER NOT NULL,
    PRIMARY KEY (root_digest, host)
);
"#;

/// What each session was sent moved out of the database into files beside
/// it (`session.rs`): the table goes, so that no hook parses it.
const V5: &str = r#"
DROP TABLE session_sent;
"#;

/// No change to the tables: from this version on, every write that adds a
/// record or a binding event removes `state.db.no-continuity` in its
/// transaction (`quick.rs`). An agentspine that does not would trust a
/// database it cannot keep the file in step with; this version is newer
/// than any such agentspine opens.
const V6: &str = r#"
-- state.db.no-continuity is kept in step from here on.
"#;

/// The latest reports moved out of the database into files beside it
/// (`reports.rs`): the table goes. And from this version on, every write
/// that caches a snapshot removes `state.db.no-cache`, and every write that
/// stores a scope removes `state.db.no-scopes`, in its transaction
/// (`quick.rs`); no older agentspine, which does not, opens the database.
const V7: &str = r#"
DROP TABLE reports;
"#;

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// A database at each version an older agentspine left it at (`from`),
    /// made the way it made it: one migration per transaction.
    fn at_version(path: &Path, from: usize) -> Connection {
        let conn = Connection::open(path).unwrap();
        for (index, sql) in MIGRATIONS[..from].iter().enumerate() {
            conn.execute_batch(sql).unwrap();
            conn.pragma_update(None, "user_version", index as i64 + 1).unwrap();
        }
        conn
    }

    /// Whatever version a database is at, the missing migrations reach
    /// every other connection in one commit: none sees a schema half-way
    /// (a new database has no table, then every table). A current one is
    /// not written at all.
    #[test]
    fn every_missing_migration_is_committed_at_once() {
        for from in 0..=MIGRATIONS.len() {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("state.db");
            let mut conn = at_version(&path, from);
            let commits = Arc::new(AtomicUsize::new(0));
            let counted = Arc::clone(&commits);
            conn.commit_hook(Some(move || {
                counted.fetch_add(1, Ordering::SeqCst);
                false
            }))
            .unwrap();
            migrate(&conn, &path).unwrap();
            let expected = usize::from(from < MIGRATIONS.len());
            assert_eq!(commits.load(Ordering::SeqCst), expected, "from version {from}");
            assert_eq!(user_version(&conn).unwrap(), SCHEMA_VERSION, "from version {from}");
        }
    }

    /// A migration that fails leaves the database as it was: none of the
    /// migrations before it in the same open is kept.
    #[test]
    fn a_failed_migration_keeps_none_of_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.db");
        let conn = at_version(&path, 0);
        // V3 creates `incidents`: a table of that name already there fails it.
        conn.execute_batch("CREATE TABLE incidents (x)").unwrap();
        assert!(migrate(&conn, &path).is_err());
        assert_eq!(user_version(&conn).unwrap(), 0);
        let tables: i64 = conn
            .query_row("SELECT count(*) FROM sqlite_master WHERE type = 'table'", [], |row| row.get(0))
            .unwrap();
        assert_eq!(tables, 1, "only the table made before the migration");
    }
}
