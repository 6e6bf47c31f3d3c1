//! Reading through bindings: what a request of one host gets from the
//! user's active bindings (the accepted records of the portable kinds of
//! each bound project, nothing else), and the cache rows derived through
//! each binding, kept up to date in the same transaction so that rollback,
//! purge, corrections and retractions have rows to drop.

use rusqlite::OptionalExtension;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::bindings::{BindingError, all_rows, verify_rows};
use crate::db::Store;
use crate::registry::{Binding, derive};

/// The most records read through all bindings for one request.
pub const MAX_CONTINUITY_RECORDS: usize = 64;

/// A record read through a binding: context only, with its provenance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContinuityRecord {
    /// The binding it was read through.
    pub binding_id: String,
    /// The record's id in the bound project.
    pub record_id: i64,
    /// Its kind (always portable).
    pub kind: crate::RecordKind,
    /// Its text.
    pub text: String,
    /// SHA-256 of the text.
    pub sha256: String,
}

impl Store {
    /// What requests of `host` read through the active bindings: the
    /// accepted records of the portable kinds of each bound project, at
    /// most [`MAX_CONTINUITY_RECORDS`] in all, each once. Nothing else of a
    /// bound project is ever returned.
    ///
    /// In the same transaction the cache rows derived through each binding
    /// are brought up to date (one per record read, under the bound
    /// project's root digest), so rollback and purge have rows to drop.
    /// A chain that does not verify is [`BindingError::Broken`]: nothing
    /// is read through an unverifiable registry.
    pub fn continuity_read(&self, host: &str) -> Result<Vec<ContinuityRecord>, BindingError> {
        // Most requests have no binding: answer those from a read
        // transaction, without taking the write lock every hook shares.
        // (Ended bindings keep no derived rows, so there is nothing to
        // tidy.) A broken chain is reported here as below.
        let rows = self.stored_rows("continuity")?;
        verify_rows(&rows).map_err(BindingError::Broken)?;
        if !derive(&rows).iter().any(|b| b.applies_to(host)) {
            return Ok(Vec::new());
        }
        let read = self
            .write(|tx| {
                let rows = all_rows(tx)?;
                if let Err(bad) = verify_rows(&rows) {
                    return Ok(Err(bad));
                }
                let mut out: Vec<ContinuityRecord> = Vec::new();
                let mut seen: Vec<(String, i64)> = Vec::new();
                for binding in derive(&rows).into_iter().filter(|b| b.applies_to(host)) {
                    let room = MAX_CONTINUITY_RECORDS.saturating_sub(out.len());
                    let records = crate::records::accepted_portable(tx, &binding.source_root, room)?;
                    let mut keep: Vec<String> = Vec::new();
                    for record in records {
                        if seen.contains(&(binding.source_root.clone(), record.id)) {
                            continue;
                        }
                        seen.push((binding.source_root.clone(), record.id));
                        let sha256 = hex::encode(Sha256::digest(record.text.as_bytes()));
                        let rel = crate::records::derived_rel_path(&binding.id, record.id);
                        refresh_derived(tx, self.dir(), &binding, &rel, &record, &sha256)?;
                        keep.push(rel);
                        out.push(ContinuityRecord {
                            binding_id: binding.id.clone(),
                            record_id: record.id,
                            kind: record.kind,
                            text: record.text,
                            sha256,
                        });
                    }
                    crate::fault::inside_write("continuity read");
                    // Rows of records that are no longer read through it.
                    let held: Vec<(i64, String)> = {
                        let mut stmt = tx.prepare("SELECT id, rel_path FROM cache WHERE binding_id = ?1")?;
                        let rows = stmt.query_map([&binding.id], |row| Ok((row.get(0)?, row.get(1)?)))?;
                        rows.collect::<rusqlite::Result<_>>()?
                    };
                    for (row_id, rel) in held {
                        if !keep.contains(&rel) {
                            tx.execute("DELETE FROM cache WHERE id = ?1", [row_id])?;
                        }
                    }
                }
                Ok(Ok(out))
            })
            .map_err(|source| BindingError::Database {
                operation: "continuity",
                binding_id: "*".to_owned(),
                source,
            })?;
        read.map_err(BindingError::Broken)
    }
}

/// Makes sure the cache holds the row derived from `record` through
/// `binding`, with its current digest.
fn refresh_derived(
    tx: &rusqlite::Transaction<'_>,
    dir: &std::path::Path,
    binding: &Binding,
    rel: &str,
    record: &crate::Record,
    sha256: &str,
) -> rusqlite::Result<()> {
    let current: Option<String> = tx
        .query_row(
            "SELECT sha256 FROM cache WHERE root_digest = ?1 AND rel_path = ?2 AND binding_id = ?3",
            (&binding.source_root, rel, &binding.id),
            |row| row.get(0),
        )
        .optional()?;
    if current.as_deref() == Some(sha256) {
        return Ok(());
    }
    tx.execute("DELETE FROM cache WHERE root_digest = ?1 AND rel_path = ?2", (&binding.source_root, rel))?;
    crate::quick::rows_may_exist(dir, crate::quick::Empty::Cache)?;
    let len = record.text.len() as u64;
    crate::cache::evict_for(tx, len)?;
    let last_used = crate::cache::next_use(tx)?;
    // A record is not a file: its identity is its id and the time of its
    // last change.
    tx.execute(
        "INSERT INTO cache (root_digest, rel_path, dev, ino, size, mtime_ns, ctime_ns, sha256,
                            byte_len, last_used, binding_id, bytes)
         VALUES (?1, ?2, 0, ?3, ?4, ?5, ?5, ?6, ?4, ?7, ?8, ?9)",
        rusqlite::params![
            &binding.source_root,
            rel,
            record.id,
            i64::try_from(len).unwrap_or(i64::MAX),
            record.updated_at.saturating_mul(1_000_000),
            sha256,
            last_used,
            &binding.id,
            record.text.as_bytes(),
        ],
    )?;
    Ok(())
}
