//! What keeps the audit log bounded whatever a model sends: a cap on every
//! stored field, a fingerprint that finds a repeat through an index, and
//! pruning of the oldest problem rows.
//!
//! # Field caps
//!
//! `host`, `event`, `phase` and `code` keep at most [`AUDIT_NAME_CAP`]
//! bytes, `path` and `detail` at most [`AUDIT_TEXT_CAP`]. A longer value
//! keeps its first bytes (cut on a character boundary) followed by
//! `…[cut, N bytes, sha256:HEX]`, the length and digest of the whole value,
//! so two long paths that differ only past the cut are still two rows, and
//! a user holding the original can tell which it was.
//!
//! # Pruning
//!
//! Rows are `kept` (binding, record and incident events: never pruned) or
//! problem rows (scan errors, refused paths, hook deadlines, ...). Every
//! [`PRUNE_CHECK_EVERY`]th problem row counts the problem rows above the
//! last prune; past [`AUDIT_MAX_ROWS`] the oldest go, down to
//! [`AUDIT_KEEP_ROWS`], in the same transaction as a row of `audit_prunes`
//! saying through which id and how many. The delete trigger refuses
//! anything else: a kept row, or a problem row above the recorded line.
//! The audit log is not hash-chained (the binding events are, in their own
//! table, which is never pruned), so `audit --verify` means the same after
//! a prune; `audit` says which ids are gone and when.
//!
//! So the log holds at most `AUDIT_MAX_ROWS + PRUNE_CHECK_EVERY - 1`
//! problem rows of at most [`AUDIT_MAX_ROW_BYTES`] each, plus the kept
//! rows, which only a user's own commands add.

use rusqlite::{OptionalExtension, Transaction};
use serde::Serialize;
use sha2::{Digest, Sha256};

/// Bytes kept of `host`, `event`, `phase` and `code`.
pub const AUDIT_NAME_CAP: usize = 128;
/// Bytes kept of `path` and `detail`.
pub const AUDIT_TEXT_CAP: usize = 512;
/// Problem rows above the last prune that start a prune.
pub const AUDIT_MAX_ROWS: u64 = 2048;
/// Problem rows a prune leaves.
pub const AUDIT_KEEP_ROWS: u64 = 1536;
/// A prune is considered at every this many problem rows (by id).
pub const PRUNE_CHECK_EVERY: i64 = 64;
/// The most one stored row takes, fields and marker included (an upper
/// bound: 4 names and 2 texts at their caps, each with its marker, the
/// fingerprint and the integers).
pub const AUDIT_MAX_ROW_BYTES: usize =
    4 * (AUDIT_NAME_CAP + MARKER_BYTES) + 2 * (AUDIT_TEXT_CAP + MARKER_BYTES) + 96;
/// The longest marker: `…[cut, ` + 20 digits + ` bytes, sha256:` + 64 + `]`.
const MARKER_BYTES: usize = 3 + 6 + 20 + 15 + 64 + 1;

/// `text` cut to at most `cap` bytes on a character boundary, with the
/// marker naming the whole value's length and digest; unchanged when it fits.
pub(crate) fn cap(text: &str, cap: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= cap {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut end = cap;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let digest = hex::encode(Sha256::digest(text.as_bytes()));
    std::borrow::Cow::Owned(format!("{}…[cut, {} bytes, sha256:{digest}]", &text[..end], text.len()))
}

/// What pruning has removed from the log so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct AuditPrunes {
    /// How many prunes ran.
    pub prunes: u64,
    /// Problem rows removed in all.
    pub rows: u64,
    /// Problem rows with an id up to this one are gone (kept rows stay).
    pub through_id: Option<i64>,
    /// When the last prune ran, milliseconds since the Unix epoch.
    pub last_at_ms: Option<i64>,
}

/// The recorded prunes, read inside `tx`.
pub(crate) fn prunes(tx: &Transaction<'_>) -> rusqlite::Result<AuditPrunes> {
    tx.query_row(
        "SELECT COUNT(*), COALESCE(SUM(rows), 0), MAX(through_id), MAX(at_ms) FROM audit_prunes",
        [],
        |row| {
            Ok(AuditPrunes {
                prunes: u64::try_from(row.get::<_, i64>(0)?).unwrap_or(0),
                rows: u64::try_from(row.get::<_, i64>(1)?).unwrap_or(0),
                through_id: row.get(2)?,
                last_at_ms: row.get(3)?,
            })
        },
    )
}

/// After the problem row `id` was inserted: every [`PRUNE_CHECK_EVERY`]th
/// id, prunes if the log is over its bound. Returns the rows removed.
pub(crate) fn maybe_prune(tx: &Transaction<'_>, id: i64, at_ms: i64) -> rusqlite::Result<u64> {
    if id % PRUNE_CHECK_EVERY != 0 {
        return Ok(0);
    }
    prune(tx, at_ms)
}

/// Removes the oldest problem rows while more than [`AUDIT_MAX_ROWS`] are
/// above the last prune, leaving [`AUDIT_KEEP_ROWS`]; records the prune.
pub(crate) fn prune(tx: &Transaction<'_>, at_ms: i64) -> rusqlite::Result<u64> {
    let line: i64 =
        tx.query_row("SELECT COALESCE(MAX(through_id), 0) FROM audit_prunes", [], |row| row.get(0))?;
    let above: i64 =
        tx.query_row("SELECT COUNT(*) FROM audit WHERE id > ?1 AND kept = 0", [line], |row| row.get(0))?;
    if u64::try_from(above).unwrap_or(0) <= AUDIT_MAX_ROWS {
        return Ok(0);
    }
    // The newest row that goes: AUDIT_KEEP_ROWS newer problem rows stay.
    let through: Option<i64> = tx
        .query_row(
            "SELECT id FROM audit WHERE id > ?1 AND kept = 0 ORDER BY id DESC LIMIT 1 OFFSET ?2",
            (line, i64::try_from(AUDIT_KEEP_ROWS).unwrap_or(i64::MAX)),
            |row| row.get(0),
        )
        .optional()?;
    let Some(through) = through else { return Ok(0) };
    let rows: i64 = tx.query_row(
        "SELECT COUNT(*) FROM audit WHERE id > ?1 AND id <= ?2 AND kept = 0",
        (line, through),
        |row| row.get(0),
    )?;
    // The line is recorded first: the delete trigger allows exactly these.
    tx.execute(
        "INSERT INTO audit_prunes (at_ms, through_id, rows) VALUES (?1, ?2, ?3)",
        (at_ms, through, rows),
    )?;
    let removed = tx.execute("DELETE FROM audit WHERE id > ?1 AND id <= ?2 AND kept = 0", (line, through))?;
    Ok(removed as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_value_keeps_its_start_length_and_digest() {
        assert_eq!(cap("short", 8), "short");
        let long = format!("{}é{}", "a".repeat(7), "b".repeat(100));
        let cut = cap(&long, 8);
        let digest = hex::encode(Sha256::digest(long.as_bytes()));
        // 'é' is two bytes and does not fit in the 8th: the cut goes before it.
        assert_eq!(cut, format!("aaaaaaa…[cut, 109 bytes, sha256:{digest}]"));
        let huge = "x".repeat(1 << 20);
        assert!(cap(&huge, AUDIT_TEXT_CAP).len() <= AUDIT_TEXT_CAP + MARKER_BYTES);
    }
}
