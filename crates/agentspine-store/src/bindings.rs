//! The bindings registry: an append-only, hash-chained log of `bind`,
//! `rollback` and `purge` events, from which current bindings are derived.
//!
//! Each row's `sha256` covers the previous row's `sha256` and the row's own
//! fields, so changing, removing or reordering any row breaks the chain at
//! that row, and [`Store::binding_verify`] names it. Triggers refuse
//! `UPDATE` and `DELETE` on the table; the chain catches what gets past
//! them (a raw edit of the file, a dropped trigger).
//!
//! # The hashed bytes
//!
//! `sha256 = SHA-256(prev_sha256 ‖ field(seq) ‖ field(kind) ‖
//! field(binding_id) ‖ field(payload) ‖ field(created_at))`, where
//! `prev_sha256` is the previous row's 64 lowercase hex digits (64 `0`s
//! for the first row), `field(x)` is the length of `x` as 8 bytes big
//! endian followed by `x` as UTF-8, `seq` and `created_at` are written in
//! decimal, and `payload` is the JSON text exactly as stored.

use std::fmt;

use rusqlite::{OptionalExtension, Row};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::db::{Store, now_ms};

/// `prev_sha256` of the first event.
pub const GENESIS_SHA256: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// What a binding event does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BindingKind {
    /// A binding is made.
    Bind,
    /// A binding is undone.
    Rollback,
    /// A binding and what was derived through it are removed.
    Purge,
}

impl BindingKind {
    /// `"bind"`, `"rollback"` or `"purge"`, as stored.
    pub const fn as_str(self) -> &'static str {
        match self {
            BindingKind::Bind => "bind",
            BindingKind::Rollback => "rollback",
            BindingKind::Purge => "purge",
        }
    }

    pub(crate) fn parse(text: &str) -> Option<BindingKind> {
        [BindingKind::Bind, BindingKind::Rollback, BindingKind::Purge]
            .into_iter()
            .find(|k| k.as_str() == text)
    }
}

/// One event of the chain.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BindingEvent {
    /// Position in the chain, from 1, without gaps.
    pub seq: i64,
    /// What the event does.
    pub kind: BindingKind,
    /// The binding it concerns.
    pub binding_id: String,
    /// Event details.
    pub payload: serde_json::Value,
    /// `sha256` of the previous event ([`GENESIS_SHA256`] for the first).
    pub prev_sha256: String,
    /// This event's hash (see the module docs).
    pub sha256: String,
    /// When it was appended, milliseconds since the Unix epoch.
    pub created_at: i64,
}

/// The first row at which the chain does not hold, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FirstBadRow {
    /// Its `seq`.
    pub seq: i64,
    /// What is wrong with it, in words.
    pub reason: String,
}

impl fmt::Display for FirstBadRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "binding event {}: {}", self.seq, self.reason)
    }
}

/// A failure of a bindings operation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BindingError {
    /// The binding id is empty.
    #[error("binding: the binding id is empty")]
    EmptyId,
    /// The chain is broken at this row.
    #[error("the binding chain is broken: {0}")]
    Broken(FirstBadRow),
    /// SQLite failed.
    #[error("binding: {operation} {binding_id}: {source}")]
    Database {
        /// `append`, `list` or `verify`.
        operation: &'static str,
        /// The binding concerned (`*` for all).
        binding_id: String,
        /// The underlying error.
        #[source]
        source: rusqlite::Error,
    },
}

impl BindingError {
    /// The first bad row, when the error is a broken chain.
    pub fn first_bad_row(&self) -> Option<&FirstBadRow> {
        match self {
            BindingError::Broken(row) => Some(row),
            _ => None,
        }
    }
}

/// A row as stored, before its payload is parsed.
pub(crate) struct StoredRow {
    pub(crate) seq: i64,
    pub(crate) kind: String,
    pub(crate) binding_id: String,
    pub(crate) payload: String,
    pub(crate) prev_sha256: String,
    pub(crate) sha256: String,
    pub(crate) created_at: i64,
}

impl Store {
    /// Appends an event to the chain, hashing it under the write lock so
    /// that concurrent appends always chain onto each other.
    pub fn binding_append(
        &self,
        kind: BindingKind,
        binding_id: &str,
        payload: &serde_json::Value,
    ) -> Result<BindingEvent, BindingError> {
        if binding_id.is_empty() {
            return Err(BindingError::EmptyId);
        }
        let text = payload.to_string();
        let created_at = now_ms();
        let (seq, prev_sha256, sha256) = self
            .write(|tx| {
                crate::quick::continuity_may_exist(self.dir())?;
                chain_in(tx, kind, binding_id, &text, created_at)
            })
            .map_err(|source| BindingError::Database {
                operation: "append",
                binding_id: binding_id.to_owned(),
                source,
            })?;
        Ok(BindingEvent {
            seq,
            kind,
            binding_id: binding_id.to_owned(),
            payload: payload.clone(),
            prev_sha256,
            sha256,
            created_at,
        })
    }

    /// Every event, in chain order. Does not verify the chain.
    pub fn binding_events(&self) -> Result<Vec<BindingEvent>, BindingError> {
        let rows = self.stored_rows("list")?;
        rows.into_iter()
            .map(|row| {
                let seq = row.seq;
                parse_row(row).map_err(|reason| BindingError::Broken(FirstBadRow { seq, reason }))
            })
            .collect()
    }

    /// Walks the whole chain from the first event: `seq` runs 1, 2, 3, ...
    /// without gaps, each `prev_sha256` is the previous `sha256`, each
    /// `sha256` matches the row's contents, and each row parses. The first
    /// row where any of these fails is returned as [`BindingError::Broken`].
    pub fn binding_verify(&self) -> Result<(), BindingError> {
        let rows = self.stored_rows("verify")?;
        verify_rows(&rows).map_err(BindingError::Broken)
    }

    /// How many events the chain holds (for "row N of M").
    pub fn binding_event_count(&self) -> Result<u64, BindingError> {
        self.read(|tx| tx.query_row("SELECT COUNT(*) FROM binding_events", [], |row| row.get::<_, i64>(0)))
            .map(|n| u64::try_from(n).unwrap_or(0))
            .map_err(|source| BindingError::Database {
                operation: "count",
                binding_id: "*".to_owned(),
                source,
            })
    }

    pub(crate) fn stored_rows(&self, operation: &'static str) -> Result<Vec<StoredRow>, BindingError> {
        self.read(|tx| {
            let mut stmt = tx.prepare(
                "SELECT seq, kind, binding_id, payload, prev_sha256, sha256, created_at
                 FROM binding_events ORDER BY seq",
            )?;
            let rows = stmt.query_map([], stored_row)?;
            rows.collect()
        })
        .map_err(|source| BindingError::Database { operation, binding_id: "*".to_owned(), source })
    }
}

fn stored_row(row: &Row<'_>) -> rusqlite::Result<StoredRow> {
    Ok(StoredRow {
        seq: row.get(0)?,
        kind: row.get(1)?,
        binding_id: row.get(2)?,
        payload: row.get(3)?,
        prev_sha256: row.get(4)?,
        sha256: row.get(5)?,
        created_at: row.get(6)?,
    })
}

fn parse_row(row: StoredRow) -> Result<BindingEvent, String> {
    let kind = BindingKind::parse(&row.kind).ok_or_else(|| format!("unknown kind {:?}", row.kind))?;
    let payload = serde_json::from_str(&row.payload).map_err(|e| format!("payload is not JSON: {e}"))?;
    Ok(BindingEvent {
        seq: row.seq,
        kind,
        binding_id: row.binding_id,
        payload,
        prev_sha256: row.prev_sha256,
        sha256: row.sha256,
        created_at: row.created_at,
    })
}

/// The hash of one event (see the module docs for the exact bytes).
fn event_sha256(
    prev: &str,
    seq: i64,
    kind: &str,
    binding_id: &str,
    payload: &str,
    created_at: i64,
) -> String {
    let mut hasher = Sha256::new();
    hasher.update(prev.as_bytes());
    for field in [seq.to_string().as_str(), kind, binding_id, payload, created_at.to_string().as_str()] {
        hasher.update((field.len() as u64).to_be_bytes());
        hasher.update(field.as_bytes());
    }
    hex::encode(hasher.finalize())
}

/// The chain's rows, checked as [`Store::binding_verify`] checks them.
pub(crate) fn verify_rows(rows: &[StoredRow]) -> Result<(), FirstBadRow> {
    match verified_prefix(rows) {
        (_, None) => Ok(()),
        (_, Some(bad)) => Err(bad),
    }
}

/// How many rows from the first hold as a chain, and the first that does
/// not (none when all do).
pub(crate) fn verified_prefix(rows: &[StoredRow]) -> (usize, Option<FirstBadRow>) {
    let mut prev = GENESIS_SHA256.to_owned();
    for (index, (expected, row)) in (1i64..).zip(rows).enumerate() {
        let bad = |reason: String| (index, Some(FirstBadRow { seq: row.seq, reason }));
        if row.seq != expected {
            return bad(format!("expected seq {expected} here: an event is missing before it"));
        }
        if row.prev_sha256 != prev {
            return bad(format!(
                "prev_sha256 is {} but the previous event's sha256 is {prev}",
                row.prev_sha256
            ));
        }
        let computed =
            event_sha256(&row.prev_sha256, row.seq, &row.kind, &row.binding_id, &row.payload, row.created_at);
        if computed != row.sha256 {
            return bad(format!(
                "sha256 is {} but the event's contents hash to {computed}: it was altered",
                row.sha256
            ));
        }
        if BindingKind::parse(&row.kind).is_none() {
            return bad(format!("unknown kind {:?}", row.kind));
        }
        if serde_json::from_str::<serde_json::Value>(&row.payload).is_err() {
            return bad("payload is not JSON".to_owned());
        }
        prev.clone_from(&row.sha256);
    }
    (rows.len(), None)
}

pub(crate) fn all_rows(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<Vec<StoredRow>> {
    let mut stmt = tx.prepare(
        "SELECT seq, kind, binding_id, payload, prev_sha256, sha256, created_at FROM binding_events ORDER BY seq",
    )?;
    let rows = stmt.query_map([], stored_row)?;
    rows.collect()
}

/// Chains one event onto the last inside `tx` (which holds the write
/// lock): its sequence number, the previous event's hash and its own, as
/// inserted.
fn chain_in(
    tx: &rusqlite::Transaction<'_>,
    kind: BindingKind,
    binding_id: &str,
    payload: &str,
    created_at: i64,
) -> rusqlite::Result<(i64, String, String)> {
    let last: Option<(i64, String)> = tx
        .query_row("SELECT seq, sha256 FROM binding_events ORDER BY seq DESC LIMIT 1", [], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()?;
    let (seq, prev) = last.map_or((1, GENESIS_SHA256.to_owned()), |(seq, sha)| (seq + 1, sha));
    let sha = event_sha256(&prev, seq, kind.as_str(), binding_id, payload, created_at);
    tx.execute(
        "INSERT INTO binding_events (seq, kind, binding_id, payload, prev_sha256, sha256, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        (seq, kind.as_str(), binding_id, payload, &prev, &sha, created_at),
    )?;
    Ok((seq, prev, sha))
}

/// Appends one event inside `tx` (which holds the write lock), with its
/// audit row (`binding-KIND`, for `host`); returns both.
pub(crate) fn append_in(
    tx: &rusqlite::Transaction<'_>,
    kind: BindingKind,
    binding_id: &str,
    host: &str,
    payload: &serde_json::Value,
    detail: String,
) -> rusqlite::Result<(BindingEvent, i64)> {
    let text = payload.to_string();
    let created_at = now_ms();
    let (seq, prev, sha) = chain_in(tx, kind, binding_id, &text, created_at)?;
    crate::fault::inside_write("binding event");
    let audit_id = crate::audit::insert_audit(
        tx,
        &crate::AuditEvent {
            host: host.to_owned(),
            event: format!("binding-{}", kind.as_str()),
            phase: "binding".to_owned(),
            code: kind.as_str().to_owned(),
            path: None,
            detail: Some(detail),
        },
        created_at,
        crate::audit::Keep::Always,
    )?;
    let event = BindingEvent {
        seq,
        kind,
        binding_id: binding_id.to_owned(),
        payload: payload.clone(),
        prev_sha256: prev,
        sha256: sha,
        created_at,
    };
    Ok((event, audit_id))
}
