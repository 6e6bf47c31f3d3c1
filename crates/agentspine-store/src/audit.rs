//! The audit log: append-only events that a user or an administrator may
//! need to see later (scan errors with event, phase, code and path;
//! required-preflight failures; bindings).
//!
//! Rows are only ever added. Triggers in the database refuse `UPDATE` and
//! `DELETE` on the table with `audit is append-only`, whoever asks.

use rusqlite::{OptionalExtension, Row, Transaction};
use serde::Serialize;

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
    /// Records `event` with the current time; returns its row.
    pub fn audit_append(&self, event: &AuditEvent) -> Result<AuditRow, AuditError> {
        let at_ms = now_ms();
        let id = self
            .write(|tx| insert_audit(tx, event, at_ms))
            .map_err(|source| AuditError::Database { operation: "append", source })?;
        Ok(AuditRow {
            id,
            at_ms,
            host: event.host.clone(),
            event: event.event.clone(),
            phase: event.phase.clone(),
            code: event.code.clone(),
            path: event.path.clone(),
            detail: event.detail.clone(),
        })
    }

    /// Records `event` unless the same event (host, event, phase, code,
    /// path and detail alike) was recorded within the last `window_ms`;
    /// returns the new row, or `None` when it was a repeat. A problem that
    /// persists (a broken link met by every hook) is one row per window,
    /// not one per process: the log stays readable and bounded.
    pub fn audit_append_once(
        &self,
        event: &AuditEvent,
        window_ms: i64,
    ) -> Result<Option<AuditRow>, AuditError> {
        let at_ms = now_ms();
        let id = self
            .write(|tx| {
                let repeat = tx
                    .query_row(
                        "SELECT 1 FROM audit WHERE at_ms >= ?1 AND host = ?2 AND event = ?3 AND phase = ?4
                           AND code = ?5 AND path IS ?6 AND detail IS ?7 LIMIT 1",
                        (
                            at_ms.saturating_sub(window_ms),
                            &event.host,
                            &event.event,
                            &event.phase,
                            &event.code,
                            &event.path,
                            &event.detail,
                        ),
                        |_| Ok(()),
                    )
                    .optional()?
                    .is_some();
                if repeat { Ok(None) } else { insert_audit(tx, event, at_ms).map(Some) }
            })
            .map_err(|source| AuditError::Database { operation: "append", source })?;
        Ok(id.map(|id| AuditRow {
            id,
            at_ms,
            host: event.host.clone(),
            event: event.event.clone(),
            phase: event.phase.clone(),
            code: event.code.clone(),
            path: event.path.clone(),
            detail: event.detail.clone(),
        }))
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

/// Inserts `event` inside a write transaction another operation holds, so
/// that the event and its audit row are one change; returns the row id.
pub(crate) fn insert_audit(tx: &Transaction<'_>, event: &AuditEvent, at_ms: i64) -> rusqlite::Result<i64> {
    tx.execute(
        "INSERT INTO audit (at_ms, host, event, phase, code, path, detail)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        (at_ms, &event.host, &event.event, &event.phase, &event.code, &event.path, &event.detail),
    )?;
    Ok(tx.last_insert_rowid())
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
