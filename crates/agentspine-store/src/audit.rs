//! The audit log: append-only events that a user or an administrator may
//! need to see later (scan errors with event, phase, code and path;
//! required-preflight failures; bindings; records; a damaged database).
//!
//! Rows are only ever added. Triggers in the database refuse `UPDATE` on
//! the table, and `DELETE` of anything but the oldest problem rows that a
//! recorded prune names, with `audit is append-only`, whoever asks. Every
//! field is capped and the log is bounded: see [`crate::audit_bounds`].

use rusqlite::{OptionalExtension, Row, Transaction};
use serde::Serialize;

use sha2::{Digest, Sha256};

use crate::audit_bounds::{AUDIT_NAME_CAP, AUDIT_TEXT_CAP, AuditPrunes, cap, maybe_prune};
use crate::db::{Store, now_ms};

/// A failure to append to or read the audit log.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuditError {
    /// SQLite failed.
    #[error("audit: {operation}: {source}")]
    Database {
        /// `append` or `list`.
        operation: &'static str,
        /// The underlying error.
        #[source]
        source: rusqlite::Error,
    },
}

/// One event to record.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AuditEvent {
    /// The host the request came from (`claude`, `codex`, `pi`, ...).
    pub host: String,
    /// What happened (`scan-error`, `preflight-failed`, `bind`, ...).
    pub event: String,
    /// Where in the request it happened (`discovery`, `read`, ...).
    pub phase: String,
    /// A stable code, such as an `agentspine_fs::Code` string.
    pub code: String,
    /// The path concerned, if any.
    pub path: Option<String>,
    /// Anything else, in words.
    pub detail: Option<String>,
}

/// One recorded event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AuditRow {
    /// Position in the log; grows with every append.
    pub id: i64,
    /// When it was recorded, milliseconds since the Unix epoch.
    pub at_ms: i64,
    /// See [`AuditEvent::host`].
    pub host: String,
    /// See [`AuditEvent::event`].
    pub event: String,
    /// See [`AuditEvent::phase`].
    pub phase: String,
    /// See [`AuditEvent::code`].
    pub code: String,
    /// See [`AuditEvent::path`].
    pub path: Option<String>,
    /// See [`AuditEvent::detail`].
    pub detail: Option<String>,
}

impl Store {
    /// Records `event` with the current time (each field within its cap);
    /// returns its row as stored.
    pub fn audit_append(&self, event: &AuditEvent) -> Result<AuditRow, AuditError> {
        let at_ms = now_ms();
        let event = capped(event);
        let id = self
            .write(|tx| insert_capped(tx, &event, at_ms, Keep::Prunable))
            .map_err(|source| AuditError::Database { operation: "append", source })?;
        Ok(stored(id, at_ms, event))
    }

    /// Records `event` unless the same event (host, event, phase, code,
    /// path and detail alike, once capped) was recorded within the last
    /// `window_ms`; returns the new row, or `None` when it was a repeat. A
    /// problem that persists (a broken link met by every hook) is one row
    /// per window, not one per process: the log stays readable and bounded.
    pub fn audit_append_once(
        &self,
        event: &AuditEvent,
        window_ms: i64,
    ) -> Result<Option<AuditRow>, AuditError> {
        let at_ms = now_ms();
        let event = capped(event);
        let print = fingerprint(&event);
        let id = self
            .write(|tx| {
                let repeat = tx
                    .query_row(
                        "SELECT 1 FROM audit WHERE at_ms >= ?2 AND fingerprint = ?1 LIMIT 1",
                        (&print, at_ms.saturating_sub(window_ms)),
                        |_| Ok(()),
                    )
                    .optional()?
                    .is_some();
                if repeat { Ok(None) } else { insert_capped(tx, &event, at_ms, Keep::Prunable).map(Some) }
            })
            .map_err(|source| AuditError::Database { operation: "append", source })?;
        Ok(id.map(|id| stored(id, at_ms, event)))
    }

    /// What pruning has removed from the log so far.
    pub fn audit_prunes(&self) -> Result<AuditPrunes, AuditError> {
        self.read(crate::audit_bounds::prunes)
            .map_err(|source| AuditError::Database { operation: "list", source })
    }

    /// Recorded events in the order they were appended, only those at or
    /// after `since` (milliseconds since the Unix epoch) and only those of
    /// `host`, when given.
    pub fn audit_list(&self, since: Option<i64>, host: Option<&str>) -> Result<Vec<AuditRow>, AuditError> {
        self.read(|tx| {
            let mut stmt = tx.prepare(
                "SELECT id, at_ms, host, event, phase, code, path, detail FROM audit
                 WHERE (?1 IS NULL OR at_ms >= ?1) AND (?2 IS NULL OR host = ?2)
                 ORDER BY id",
            )?;
            let rows = stmt.query_map((since, host), audit_row)?;
            rows.collect()
        })
        .map_err(|source| AuditError::Database { operation: "list", source })
    }
}

/// Whether a row may ever be pruned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Keep {
    /// A problem row: the oldest go when the log is over its bound.
    Prunable,
    /// A binding, record or incident event: never pruned.
    Always,
}

/// Inserts `event` inside a write transaction another operation holds, so
/// that the event and its audit row are one change; returns the row id.
/// Fields are capped here, so every row is; a problem row may start a
/// prune (see [`crate::audit_bounds`]).
pub(crate) fn insert_audit(
    tx: &Transaction<'_>,
    event: &AuditEvent,
    at_ms: i64,
    keep: Keep,
) -> rusqlite::Result<i64> {
    insert_capped(tx, &capped(event), at_ms, keep)
}

/// [`insert_audit`] of an event already within its caps (capping twice
/// would cut the marker).
fn insert_capped(tx: &Transaction<'_>, event: &AuditEvent, at_ms: i64, keep: Keep) -> rusqlite::Result<i64> {
    tx.execute(
        "INSERT INTO audit (at_ms, host, event, phase, code, path, detail, kept, fingerprint)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        (
            at_ms,
            &event.host,
            &event.event,
            &event.phase,
            &event.code,
            &event.path,
            &event.detail,
            i64::from(keep == Keep::Always),
            fingerprint(event),
        ),
    )?;
    let id = tx.last_insert_rowid();
    if keep == Keep::Prunable {
        maybe_prune(tx, id, at_ms)?;
    }
    Ok(id)
}

/// Inserts a row salvaged from a damaged database, with its own id and
/// time, capped like any other; no prune (the repair prunes once at the
/// end). Returns how many rows were inserted (0: the id was taken).
pub(crate) fn insert_salvaged(
    tx: &Transaction<'_>,
    id: i64,
    at_ms: i64,
    event: &AuditEvent,
    keep: Keep,
) -> rusqlite::Result<usize> {
    let event = capped(event);
    tx.execute(
        "INSERT OR IGNORE INTO audit (id, at_ms, host, event, phase, code, path, detail, kept, fingerprint)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        (
            id,
            at_ms,
            &event.host,
            &event.event,
            &event.phase,
            &event.code,
            &event.path,
            &event.detail,
            i64::from(keep == Keep::Always),
            fingerprint(&event),
        ),
    )
}

fn stored(id: i64, at_ms: i64, event: AuditEvent) -> AuditRow {
    AuditRow {
        id,
        at_ms,
        host: event.host,
        event: event.event,
        phase: event.phase,
        code: event.code,
        path: event.path,
        detail: event.detail,
    }
}

fn audit_row(row: &Row<'_>) -> rusqlite::Result<AuditRow> {
    Ok(AuditRow {
        id: row.get(0)?,
        at_ms: row.get(1)?,
        host: row.get(2)?,
        event: row.get(3)?,
        phase: row.get(4)?,
        code: row.get(5)?,
        path: row.get(6)?,
        detail: row.get(7)?,
    })
}

/// `event` with every field within its cap.
pub(crate) fn capped(event: &AuditEvent) -> AuditEvent {
    AuditEvent {
        host: cap(&event.host, AUDIT_NAME_CAP).into_owned(),
        event: cap(&event.event, AUDIT_NAME_CAP).into_owned(),
        phase: cap(&event.phase, AUDIT_NAME_CAP).into_owned(),
        code: cap(&event.code, AUDIT_NAME_CAP).into_owned(),
        path: event.path.as_deref().map(|p| cap(p, AUDIT_TEXT_CAP).into_owned()),
        detail: event.detail.as_deref().map(|d| cap(d, AUDIT_TEXT_CAP).into_owned()),
    }
}

/// A digest of the (capped) fields: equal for identical rows, so a repeat
/// is one index lookup. Each field is length-prefixed, and a missing path
/// or detail differs from an empty one.
pub(crate) fn fingerprint(event: &AuditEvent) -> String {
    let mut hasher = Sha256::new();
    for field in [Some(&event.host), Some(&event.event), Some(&event.phase), Some(&event.code)]
        .into_iter()
        .chain([event.path.as_ref(), event.detail.as_ref()])
    {
        match field {
            Some(text) => {
                hasher.update([1]);
                hasher.update((text.len() as u64).to_be_bytes());
                hasher.update(text.as_bytes());
            }
            None => hasher.update([0]),
        }
    }
    let mut hex = hex::encode(hasher.finalize());
    hex.truncate(32);
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_tell_a_missing_field_from_an_empty_one() {
        let a = AuditEvent { host: "h".into(), path: None, ..AuditEvent::default() };
        let b = AuditEvent { host: "h".into(), path: Some(String::new()), ..AuditEvent::default() };
        let c = AuditEvent { host: "h".into(), detail: Some(String::new()), ..AuditEvent::default() };
        assert_ne!(fingerprint(&a), fingerprint(&b));
        assert_ne!(fingerprint(&b), fingerprint(&c));
        assert_eq!(fingerprint(&a), fingerprint(&a.clone()));
        assert_eq!(fingerprint(&a).len(), 32);
    }
}
