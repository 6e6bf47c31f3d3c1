//! Repairing a damaged state database: the file is kept aside, what SQLite
//! can still read of it is salvaged into a new database, and the new
//! database says so (an incident and its audit row) until the user
//! acknowledges it.
//!
//! # Steps, under the directory lock held exclusive
//!
//! 1. `state.db.repair-pending` is written, naming the aside file.
//! 2. `state.db` (and its `-wal`, `-shm`) is moved to
//!    `state.db.corrupt-<unix seconds>`, never deleted.
//! 3. A new database is built as `state.db.salvage`: migrated, then in one
//!    transaction the salvaged rows (see [`crate::salvage`]), the binding
//!    chain's verified prefix, a rollback of every binding whose later
//!    events may be lost, the incident and its audit row.
//! 4. It is renamed to `state.db`; the pending file is removed.
//!
//! A process killed anywhere in between leaves the pending file, and the
//! next open, seeing it, finishes the repair from the aside file: no
//! database without the incident ever takes the damaged one's place.
//!
//! # The binding chain
//!
//! Salvaged binding events keep their `seq` and hashes, so the new chain
//! is verified from its first event as before, and only the longest run
//! from the first event that verifies is kept (an event after a missing
//! or altered one cannot be verified; it stays in the damaged copy). When
//! that is not the whole chain as it was (a page of it was unreadable, or
//! an event did not verify), a later rollback or purge may be lost, so
//! every binding the kept events leave active is rolled back by a new
//! event appended to the chain: a damaged database never turns into a
//! binding the user had ended. The user binds again to keep one.

use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use agentspine_fs::{Budget, FsError, Reader};
use rusqlite::types::Value;
use rusqlite::{Connection, Transaction, TransactionBehavior, params_from_iter};

use crate::audit::{AuditEvent, Keep, insert_audit, insert_salvaged};
use crate::bindings::{BindingKind, StoredRow, append_in, verified_prefix};
use crate::db::{DB_FILE, ROOT_KEY, StoreError, now_ms};
use crate::incident::{ChainSalvage, Incident, ReadMethod, Salvage, TableSalvage};
use crate::salvage::{self, Damaged, Rows};

/// Present while a repair is under way; holds the aside file's name and
/// the reason, one per line.
pub const REPAIR_PENDING: &str = "state.db.repair-pending";
/// The new database while it is built.
const BUILDING: &str = "state.db.salvage";

/// Repairs the damaged `state.db` in `dir` (the caller holds the lock
/// exclusive and no connection to it); returns the warning for the user.
pub(crate) fn repair(dir: &Path, reason: &str) -> Result<String, StoreError> {
    let aside = free_aside_name(dir)?;
    agentspine_fs::write_private_file_atomic(dir, REPAIR_PENDING, format!("{aside}\n{reason}\n").as_bytes())
        .map_err(|e| unavailable(&dir.join(REPAIR_PENDING), &e))?;
    move_db_aside(dir, &aside)?;
    finish(dir, &aside, reason)
}

/// Finishes a repair a killed process left (the caller holds the lock
/// exclusive): builds the new database from the aside file if it is not
/// in place yet. `None` when there was nothing left to do.
pub(crate) fn resume(dir: &Path) -> Result<Option<String>, StoreError> {
    let root = Reader::new(Budget::UNLIMITED).open_root(dir).map_err(|e| unavailable(dir, &e))?;
    let marker = match root.read(REPAIR_PENDING, 64 * 1024) {
        Ok(snapshot) => String::from_utf8_lossy(&snapshot.bytes).into_owned(),
        Err(FsError::NotFound { .. }) => return Ok(None),
        Err(e) => return Err(unavailable(&dir.join(REPAIR_PENDING), &e)),
    };
    let mut lines = marker.lines();
    let aside = lines.next().unwrap_or_default().to_owned();
    let reason = lines.next().unwrap_or("damaged").to_owned();
    let moved = !aside.is_empty() && root.stat(&aside).is_ok();
    let in_place = root.stat(DB_FILE).is_ok();
    if moved && !in_place {
        return finish(dir, &aside, &reason).map(Some);
    }
    // Either the new database is in place (only the marker was left) or
    // the file was never moved (the next check finds the damage again).
    clear_pending(dir)?;
    Ok(None)
}

fn finish(dir: &Path, aside: &str, reason: &str) -> Result<String, StoreError> {
    for stale in [BUILDING.to_owned(), format!("{BUILDING}-journal")] {
        match agentspine_fs::remove_file(dir, &stale) {
            Ok(()) | Err(FsError::NotFound { .. }) => {}
            Err(e) => return Err(unavailable(&dir.join(&stale), &e)),
        }
    }
    // What the damaged file held may come back: no hook trusts "none" until
    // the next open has asked the new database.
    for which in crate::quick::Empty::ALL {
        match agentspine_fs::remove_file(dir, which.file()) {
            Ok(()) | Err(FsError::NotFound { .. }) => {}
            Err(e) => return Err(unavailable(&dir.join(which.file()), &e)),
        }
    }
    let incident = build(dir, aside, reason)?;
    agentspine_fs::move_aside(dir, BUILDING, DB_FILE).map_err(|e| unavailable(&dir.join(DB_FILE), &e))?;
    clear_pending(dir)?;
    Ok(format!("{}: moved aside as {aside}: {}", dir.join(DB_FILE).display(), incident.summary()))
}

fn clear_pending(dir: &Path) -> Result<(), StoreError> {
    match agentspine_fs::remove_file(dir, REPAIR_PENDING) {
        Ok(()) | Err(FsError::NotFound { .. }) => Ok(()),
        Err(e) => Err(unavailable(&dir.join(REPAIR_PENDING), &e)),
    }
}

/// Builds `state.db.salvage` from the aside file; returns the incident.
fn build(dir: &Path, aside: &str, reason: &str) -> Result<Incident, StoreError> {
    let path = dir.join(BUILDING);
    let database = |source| StoreError::Database { path: path.clone(), source };
    let damaged = salvage::open(dir, aside);
    let conn = Connection::open_with_flags(&path, crate::db::OPEN_FLAGS).map_err(database)?;
    // A correction may name a record that could not be salvaged.
    conn.pragma_update(None, "foreign_keys", false).map_err(database)?;
    crate::migrations::migrate(&conn, &path)?;
    let tx = Transaction::new_unchecked(&conn, TransactionBehavior::Immediate).map_err(database)?;
    let mut salvage = match &damaged {
        Ok(damaged) => copy(&tx, damaged).map_err(database)?,
        Err(error) => nothing(error),
    };
    drop(damaged);
    let at_ms = now_ms();
    salvage.chain.suspended = suspend(&tx, &salvage).map_err(database)?;
    let mut incident = Incident {
        id: 0,
        at_ms,
        reason: reason.to_owned(),
        damaged_copy: dir.join(aside),
        salvage,
        acknowledged_at: None,
    };
    let json = serde_json::to_string(&incident.salvage).expect("the salvage account serializes");
    tx.execute(
        "INSERT INTO incidents (at_ms, reason, damaged_copy, salvage) VALUES (?1, ?2, ?3, ?4)",
        (at_ms, reason, aside, &json),
    )
    .map_err(database)?;
    incident.id = tx.last_insert_rowid();
    insert_audit(
        &tx,
        &AuditEvent {
            host: "store".to_owned(),
            event: "state-damaged".to_owned(),
            phase: "store".to_owned(),
            code: damage_code(reason).to_owned(),
            path: Some(incident.damaged_copy.display().to_string()),
            detail: Some(incident.summary()),
        },
        at_ms,
        Keep::Always,
    )
    .map_err(database)?;
    crate::audit_bounds::prune(&tx, at_ms).map_err(database)?;
    tx.commit().map_err(database)?;
    drop(conn);
    Ok(incident)
}

/// The account when the damaged copy could not be read at all.
fn nothing(error: &str) -> Salvage {
    let unread = || TableSalvage { error: Some("not read".to_owned()), ..TableSalvage::default() };
    Salvage {
        read: ReadMethod::Nothing,
        error: Some(error.to_owned()),
        wal_ignored: false,
        root_key: false,
        records: unread(),
        binding_events: unread(),
        audit: unread(),
        scopes: unread(),
        chain: ChainSalvage::default(),
    }
}

/// Copies every readable row into `tx`; the account of what was.
fn copy(tx: &Transaction<'_>, damaged: &Damaged) -> rusqlite::Result<Salvage> {
    let meta = damaged.rows("meta", &["key", "value"]);
    let key = meta.rows.iter().find_map(|row| match (&row[1], &row[2]) {
        (Value::Text(k), Value::Blob(v)) if k == ROOT_KEY && v.len() == 32 => Some(v.clone()),
        _ => None,
    });
    if let Some(key) = &key {
        tx.execute("INSERT INTO meta (key, value) VALUES (?1, ?2)", (ROOT_KEY, key))?;
    }
    let records = plain(
        tx,
        damaged.rows(
            "records",
            &["id", "root_digest", "kind", "text", "status", "supersedes", "superseded_by", "created_at", "updated_at"],
        ),
        "INSERT OR IGNORE INTO records (id, root_digest, kind, text, status, supersedes, superseded_by, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    let scopes = plain(
        tx,
        damaged.rows("scopes", &["root_digest", "ids", "updated_at_ms"]),
        "INSERT OR IGNORE INTO scopes (root_digest, ids, updated_at_ms) VALUES (?1, ?2, ?3)",
    )?;
    // Earlier incidents and prunes come along as they were.
    plain(
        tx,
        damaged.rows("incidents", &["id", "at_ms", "reason", "damaged_copy", "salvage", "acknowledged_at"]),
        "INSERT OR IGNORE INTO incidents (id, at_ms, reason, damaged_copy, salvage, acknowledged_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    plain(
        tx,
        damaged.rows("audit_prunes", &["id", "at_ms", "through_id", "rows"]),
        "INSERT OR IGNORE INTO audit_prunes (id, at_ms, through_id, rows) VALUES (?1, ?2, ?3, ?4)",
    )?;
    let audit = copy_audit(tx, damaged.rows("audit", &audit_columns()))?;
    let (binding_events, chain) = copy_chain(
        tx,
        damaged.rows(
            "binding_events",
            &["seq", "kind", "binding_id", "payload", "prev_sha256", "sha256", "created_at"],
        ),
    )?;
    Ok(Salvage {
        read: damaged.read,
        error: None,
        wal_ignored: damaged.wal_ignored,
        root_key: key.is_some(),
        records,
        binding_events,
        audit,
        scopes,
        chain,
    })
}

fn audit_columns() -> [&'static str; 9] {
    ["id", "at_ms", "host", "event", "phase", "code", "path", "detail", "kept"]
}

/// Inserts each row (its values after the rowid) with `sql`; a row the
/// new schema refuses is counted, not copied.
fn plain(tx: &Transaction<'_>, read: Rows, sql: &str) -> rusqlite::Result<TableSalvage> {
    let mut account = read.salvage;
    let mut stmt = tx.prepare(sql)?;
    for row in &read.rows {
        if row.iter().any(has_nul) {
            account.refused += 1;
            continue;
        }
        match stmt.execute(params_from_iter(&row[1..])) {
            Ok(1) => account.recovered += 1,
            Ok(_) | Err(_) => account.refused += 1,
        }
    }
    Ok(account)
}

fn copy_audit(tx: &Transaction<'_>, read: Rows) -> rusqlite::Result<TableSalvage> {
    let mut account = read.salvage;
    for row in &read.rows {
        if row.iter().any(has_nul) {
            account.refused += 1;
            continue;
        }
        let (Some(id), Some(at_ms), Some(host), Some(event), Some(phase), Some(code)) =
            (int(&row[1]), int(&row[2]), text(&row[3]), text(&row[4]), text(&row[5]), text(&row[6]))
        else {
            account.refused += 1;
            continue;
        };
        let keep = match int(&row[9]) {
            Some(1) => Keep::Always,
            Some(_) => Keep::Prunable,
            // Before schema 3: binding and record events were the kept ones.
            None if (phase == "binding" && event.starts_with("binding-"))
                || (phase == "record" && event.starts_with("record-")) =>
            {
                Keep::Always
            }
            None => Keep::Prunable,
        };
        let event = AuditEvent { host, event, phase, code, path: text(&row[7]), detail: text(&row[8]) };
        match insert_salvaged(tx, id, at_ms, &event, keep) {
            Ok(1) => account.recovered += 1,
            Ok(_) | Err(_) => account.refused += 1,
        }
    }
    Ok(account)
}

/// Keeps the longest verified run of events from the first.
fn copy_chain(tx: &Transaction<'_>, read: Rows) -> rusqlite::Result<(TableSalvage, ChainSalvage)> {
    let mut account = read.salvage;
    let mut stored = Vec::new();
    for row in &read.rows {
        let (
            Some(seq),
            Some(kind),
            Some(binding_id),
            Some(payload),
            Some(prev_sha256),
            Some(sha256),
            Some(created_at),
        ) = (
            int(&row[1]),
            text(&row[2]),
            text(&row[3]),
            text(&row[4]),
            text(&row[5]),
            text(&row[6]),
            int(&row[7]),
        )
        else {
            // A row that does not even have the types cannot verify: the
            // chain stops before it.
            break;
        };
        stored.push(StoredRow { seq, kind, binding_id, payload, prev_sha256, sha256, created_at });
    }
    let (verified, _) = verified_prefix(&stored);
    let mut kept = 0u64;
    {
        let mut stmt = tx.prepare(
            "INSERT INTO binding_events (seq, kind, binding_id, payload, prev_sha256, sha256, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for row in &stored[..verified] {
            if stmt
                .execute((
                    row.seq,
                    &row.kind,
                    &row.binding_id,
                    &row.payload,
                    &row.prev_sha256,
                    &row.sha256,
                    row.created_at,
                ))
                .is_err()
            {
                break;
            }
            kept += 1;
        }
    }
    account.recovered = kept;
    let read_rows = read.rows.len() as u64;
    let chain = ChainSalvage { kept, unverifiable: read_rows - kept, suspended: Vec::new() };
    Ok((account, chain))
}

/// Unless the whole chain was read and kept, rolls back every binding the
/// kept events leave active (see the module docs); their ids.
fn suspend(tx: &Transaction<'_>, salvage: &Salvage) -> rusqlite::Result<Vec<String>> {
    let whole = salvage.read != ReadMethod::Nothing
        && !salvage.wal_ignored
        && salvage.binding_events.complete()
        && salvage.chain.unverifiable == 0;
    if whole {
        return Ok(Vec::new());
    }
    let rows = crate::bindings::all_rows(tx)?;
    let active: Vec<(String, String)> = crate::registry::derive(&rows)
        .into_iter()
        .filter(|b| b.state == crate::BindingState::Active)
        .map(|b| (b.id, b.host))
        .collect();
    for (id, host) in &active {
        append_in(
            tx,
            BindingKind::Rollback,
            id,
            host,
            &serde_json::json!({ "cache_rows_dropped": 0, "reason": "state-damaged" }),
            format!(
                "binding:{id} rolled back by the repair of a damaged state database: a later rollback may be lost; \
                 bind again to keep it"
            ),
        )?;
    }
    Ok(active.into_iter().map(|(id, _)| id).collect())
}

/// Text holding a NUL byte: what a zeroed stretch of a page decodes to.
/// Records and binding events never hold one (command-line text cannot);
/// an audit row that did (a hostile path) is lost with the damaged ones.
fn has_nul(value: &Value) -> bool {
    matches!(value, Value::Text(t) if t.contains('\0'))
}

fn int(value: &Value) -> Option<i64> {
    match value {
        Value::Integer(n) => Some(*n),
        _ => None,
    }
}

fn text(value: &Value) -> Option<String> {
    match value {
        Value::Text(t) => Some(t.clone()),
        _ => None,
    }
}

/// A stable code for the audit row.
fn damage_code(reason: &str) -> &'static str {
    if reason.contains("not a database") {
        "not-a-database"
    } else if reason.contains("quick_check") {
        "quick-check"
    } else {
        "corrupt"
    }
}

/// `state.db.corrupt-<unix seconds>`, or `-N` after it when taken.
fn free_aside_name(dir: &Path) -> Result<String, StoreError> {
    let root = Reader::new(Budget::UNLIMITED).open_root(dir).map_err(|e| unavailable(dir, &e))?;
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    for n in 0..100u32 {
        let name = match n {
            0 => format!("{DB_FILE}.corrupt-{secs}"),
            n => format!("{DB_FILE}.corrupt-{secs}-{n}"),
        };
        let taken = ["", "-wal", "-shm"].iter().any(|extra| root.stat(format!("{name}{extra}")).is_ok());
        if !taken {
            return Ok(name);
        }
    }
    Err(StoreError::Unavailable {
        path: dir.join(DB_FILE),
        reason: "every name for the damaged copy is taken this second".to_owned(),
    })
}

/// Moves `state.db` and its `-wal`/`-shm` to `aside` (and its suffixes).
fn move_db_aside(dir: &Path, aside: &str) -> Result<(), StoreError> {
    agentspine_fs::move_aside(dir, DB_FILE, aside).map_err(|e| unavailable(&dir.join(DB_FILE), &e))?;
    for extra in ["-wal", "-shm"] {
        match agentspine_fs::move_aside(dir, &format!("{DB_FILE}{extra}"), &format!("{aside}{extra}")) {
            Ok(()) | Err(FsError::NotFound { .. }) => {}
            Err(e) => return Err(unavailable(&dir.join(format!("{DB_FILE}{extra}")), &e)),
        }
    }
    Ok(())
}

fn unavailable(path: &Path, error: &FsError) -> StoreError {
    StoreError::Unavailable { path: path.to_path_buf(), reason: error.to_string() }
}
