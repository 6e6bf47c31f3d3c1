//! The snapshot cache: what a file held when it was last read, keyed by an
//! opaque root digest and the path relative to that root.
//!
//! A hit is a promise about bytes, not about the file: the caller still
//! opens the path and compares the [`Identity`] before trusting the cached
//! bytes (DESIGN.md, State). The cache holds at most [`CACHE_CAP_BYTES`] of
//! file bytes in all; a put that would pass the cap first evicts the least
//! recently used rows (a get counts as a use; a put of the version already
//! held only counts as a use, its bytes are not written again; through
//! [`Store::cache_apply`], a use is recorded only when the last recorded
//! one is older than [`TOUCH_EVERY`], so a batch that finds every row as
//! it holds it writes nothing). Recency is
//! a counter that only grows, across processes: each use takes `max(now in
//! ns, largest so far + 1)` inside the write transaction.

use agentspine_fs::Identity;
use rusqlite::{OptionalExtension, Transaction};
use serde::Serialize;

use crate::db::{Store, now_ns};

/// The most file bytes the cache holds in all (16 MiB).
pub const CACHE_CAP_BYTES: u64 = 16 * 1024 * 1024;

/// A failure of a cache operation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CacheError {
    /// One snapshot larger than the whole cache is not stored.
    #[error("cache: {rel_path}: not stored: {size} bytes is over the cache's cap of {cap} bytes")]
    TooLarge {
        /// Path relative to its root.
        rel_path: String,
        /// Bytes offered.
        size: u64,
        /// [`CACHE_CAP_BYTES`].
        cap: u64,
    },
    /// SQLite failed.
    #[error("cache: {operation} {key}: {source}")]
    Database {
        /// What was being done (`get`, `put`, `drop`, ...).
        operation: &'static str,
        /// The key concerned (`root_digest/rel_path`, a binding id, or `*`).
        key: String,
        /// The underlying error.
        #[source]
        source: rusqlite::Error,
    },
}

/// One cached snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CachedSnapshot {
    /// The version of the file the bytes came from.
    pub identity: Identity,
    /// SHA-256 of `bytes`, lowercase hex.
    pub sha256: String,
    /// The file's bytes as they were read.
    #[serde(skip)]
    pub bytes: Vec<u8>,
    /// The binding the row was derived through, if any.
    pub binding_id: Option<String>,
    /// The recency stamp this get gave the row.
    pub last_used: i64,
}

impl CachedSnapshot {
    /// Whether a use of this snapshot should be recorded: its recency is
    /// older than [`TOUCH_EVERY`] (or from a clock ahead of this one).
    /// Within that, a use changes nothing worth a write: eviction is least
    /// recently used by the hour, and a hook that only reads snapshots
    /// then writes nothing.
    pub fn use_is_stale(&self) -> bool {
        let age = now_ns().saturating_sub(self.last_used);
        !(0..i64::try_from(TOUCH_EVERY.as_nanos()).unwrap_or(i64::MAX)).contains(&age)
    }
}

/// How long a recorded use of a snapshot counts as recent (see
/// [`CachedSnapshot::use_is_stale`]).
pub const TOUCH_EVERY: std::time::Duration = std::time::Duration::from_secs(60 * 60);

/// How full the cache is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CacheStats {
    /// Snapshots held.
    pub rows: u64,
    /// File bytes held (at most [`CACHE_CAP_BYTES`]).
    pub bytes: u64,
    /// Distinct roots with at least one snapshot.
    pub roots: u64,
}

impl Store {
    /// The snapshot of `rel` under `root_digest`, without marking it as
    /// used (its `last_used` is the stamp it holds). A reader that looks
    /// up several files marks them afterwards, all at once, with
    /// [`CacheChange::Touch`] in [`Store::cache_apply`].
    pub fn cache_peek(&self, root_digest: &str, rel: &str) -> Result<Option<CachedSnapshot>, CacheError> {
        self.read(|tx| {
            one(
                tx,
                "SELECT dev, ino, size, mtime_ns, ctime_ns, sha256, bytes, binding_id, last_used
                 FROM cache WHERE root_digest = ?1 AND rel_path = ?2",
                (root_digest, rel),
                |row| {
                    Ok(CachedSnapshot {
                        identity: identity_at(row, 0)?,
                        sha256: row.get(5)?,
                        bytes: row.get(6)?,
                        binding_id: row.get(7)?,
                        last_used: row.get(8)?,
                    })
                },
            )
            .optional()
        })
        .map_err(|source| CacheError::Database {
            operation: "get",
            key: key(root_digest, rel),
            source,
        })
    }

    /// Applies `changes` to the snapshots under `root_digest`, in order,
    /// in one write transaction (one commit instead of one per file);
    /// returns how many rows puts evicted. A put over [`CACHE_CAP_BYTES`]
    /// refuses the whole batch and nothing changes.
    pub fn cache_apply(&self, root_digest: &str, changes: &[CacheChange]) -> Result<usize, CacheError> {
        for change in changes {
            if let CacheChange::Put { rel, bytes, .. } = change
                && bytes.len() as u64 > CACHE_CAP_BYTES
            {
                return Err(CacheError::TooLarge {
                    rel_path: rel.clone(),
                    size: bytes.len() as u64,
                    cap: CACHE_CAP_BYTES,
                });
            }
        }
        if changes.is_empty() {
            return Ok(0);
        }
        // A load that found every snapshot as it holds it writes nothing
        // (no write lock, no WAL frames for the next process to read back):
        // the usual hook, whose `Retain` drops nothing, and a session start,
        // which drops the directory's snapshots and reads every file again
        // only to put the same versions back.
        if !changes.iter().any(|change| matches!(change, CacheChange::Touch(_))) {
            let held = self
                .read(|tx| {
                    let mut stmt = tx.prepare_cached(
                        "SELECT rel_path, dev, ino, size, mtime_ns, ctime_ns, sha256, byte_len, binding_id,
                                last_used
                         FROM cache WHERE root_digest = ?1",
                    )?;
                    let rows = stmt.query_map([root_digest], |row| {
                        Ok(Held {
                            rel: row.get(0)?,
                            identity: identity_at(row, 1)?,
                            sha256: row.get(6)?,
                            len: from_sql_u64(row.get(7)?),
                            binding_id: row.get(8)?,
                            last_used: row.get(9)?,
                        })
                    })?;
                    rows.collect::<rusqlite::Result<Vec<_>>>()
                })
                .map_err(|source| CacheError::Database {
                    operation: "apply",
                    key: key(root_digest, "*"),
                    source,
                })?;
            if changes_nothing(&held, changes, now_ns()) {
                return Ok(0);
            }
        }
        let puts = changes.iter().any(|change| matches!(change, CacheChange::Put { .. }));
        self.write(|tx| {
            if puts {
                crate::quick::rows_may_exist(self.dir(), crate::quick::Empty::Cache)?;
            }
            let mut evicted = 0;
            // A root dropped in the batch loses its rows at the end, except
            // those put again: an unchanged snapshot put again keeps its
            // row (only its recency moves), so its bytes are not written
            // again.
            let mut doomed: Option<std::collections::HashSet<String>> = None;
            for change in changes {
                match change {
                    CacheChange::Touch(rel) if doomed.as_ref().is_some_and(|d| d.contains(rel)) => {}
                    CacheChange::Touch(rel) => {
                        let last_used = next_use(tx)?;
                        run(
                            tx,
                            "UPDATE cache SET last_used = ?1 WHERE root_digest = ?2 AND rel_path = ?3",
                            (last_used, root_digest, rel),
                        )?;
                    }
                    CacheChange::Put { rel, identity, sha256, bytes, binding_id } => {
                        if let Some(doomed) = &mut doomed {
                            doomed.remove(rel);
                        }
                        evicted +=
                            put_in(tx, root_digest, rel, identity, sha256, bytes, binding_id.as_deref())?;
                    }
                    CacheChange::Drop(rel) => {
                        run(
                            tx,
                            "DELETE FROM cache WHERE root_digest = ?1 AND rel_path = ?2",
                            (root_digest, rel),
                        )?;
                    }
                    CacheChange::Retain(keep) => {
                        retain_in(tx, root_digest, keep)?;
                    }
                    CacheChange::DropRoot => {
                        let mut stmt = tx.prepare("SELECT rel_path FROM cache WHERE root_digest = ?1")?;
                        let rows = stmt.query_map([root_digest], |row| row.get(0))?;
                        doomed = Some(rows.collect::<rusqlite::Result<_>>()?);
                    }
                }
            }
            if let Some(doomed) = doomed {
                let mut delete = tx.prepare("DELETE FROM cache WHERE root_digest = ?1 AND rel_path = ?2")?;
                for rel in doomed {
                    delete.execute((root_digest, &rel))?;
                }
            }
            Ok(evicted)
        })
        .map_err(|source| CacheError::Database {
            operation: "apply",
            key: root_digest.to_owned(),
            source,
        })
    }

    /// The snapshot of `rel` under `root_digest`, marking it as just used.
    pub fn cache_get(&self, root_digest: &str, rel: &str) -> Result<Option<CachedSnapshot>, CacheError> {
        self.write(|tx| {
            let found = tx
                .query_row(
                    "SELECT id, dev, ino, size, mtime_ns, ctime_ns, sha256, bytes, binding_id
                     FROM cache WHERE root_digest = ?1 AND rel_path = ?2",
                    (root_digest, rel),
                    |row| {
                        let id: i64 = row.get(0)?;
                        let identity = identity_at(row, 1)?;
                        Ok((id, identity, row.get(6)?, row.get(7)?, row.get(8)?))
                    },
                )
                .optional()?;
            let Some((id, identity, sha256, bytes, binding_id)) = found else { return Ok(None) };
            let last_used = next_use(tx)?;
            run(tx, "UPDATE cache SET last_used = ?1 WHERE id = ?2", (last_used, id))?;
            Ok(Some(CachedSnapshot { identity, sha256, bytes, binding_id, last_used }))
        })
        .map_err(|source| CacheError::Database {
            operation: "get",
            key: key(root_digest, rel),
            source,
        })
    }

    /// Stores (or replaces) the snapshot of `rel` under `root_digest` and
    /// returns how many other rows were evicted to make room. A snapshot
    /// over [`CACHE_CAP_BYTES`] is refused and nothing changes.
    pub fn cache_put(
        &self,
        root_digest: &str,
        rel: &str,
        identity: &Identity,
        sha256: &str,
        bytes: &[u8],
        binding_id: Option<&str>,
    ) -> Result<usize, CacheError> {
        let len = bytes.len() as u64;
        if len > CACHE_CAP_BYTES {
            return Err(CacheError::TooLarge { rel_path: rel.to_owned(), size: len, cap: CACHE_CAP_BYTES });
        }
        self.write(|tx| {
            crate::quick::rows_may_exist(self.dir(), crate::quick::Empty::Cache)?;
            put_in(tx, root_digest, rel, identity, sha256, bytes, binding_id)
        })
        .map_err(|source| CacheError::Database {
            operation: "put",
            key: key(root_digest, rel),
            source,
        })
    }

    /// Drops the snapshot of `rel` under `root_digest`; returns rows removed
    /// (0 or 1).
    pub fn cache_drop(&self, root_digest: &str, rel: &str) -> Result<usize, CacheError> {
        self.write(|tx| {
            run(tx, "DELETE FROM cache WHERE root_digest = ?1 AND rel_path = ?2", (root_digest, rel))
        })
        .map_err(|source| CacheError::Database {
            operation: "drop",
            key: key(root_digest, rel),
            source,
        })
    }

    /// Drops every snapshot under `root_digest` (a purge of one
    /// directory: the cache gets a new epoch, see
    /// [`crate::CACHE_EPOCH_FILE`]); returns rows removed.
    pub fn cache_drop_root(&self, root_digest: &str) -> Result<usize, CacheError> {
        self.write(|tx| {
            crate::quick::new_cache_epoch(self.dir())?;
            run(tx, "DELETE FROM cache WHERE root_digest = ?1", [root_digest])
        })
        .map_err(|source| CacheError::Database {
            operation: "drop root",
            key: root_digest.to_owned(),
            source,
        })
    }

    /// Drops every snapshot derived through `binding_id`; returns rows
    /// removed.
    pub fn cache_drop_binding(&self, binding_id: &str) -> Result<usize, CacheError> {
        self.write(|tx| run(tx, "DELETE FROM cache WHERE binding_id = ?1", [binding_id])).map_err(|source| {
            CacheError::Database { operation: "drop binding", key: binding_id.to_owned(), source }
        })
    }

    /// Drops every snapshot under `root_digest` whose path is not in
    /// `keep` (say, files no longer linked from an index); returns rows
    /// removed.
    pub fn cache_retain(&self, root_digest: &str, keep: &[String]) -> Result<usize, CacheError> {
        self.write(|tx| retain_in(tx, root_digest, keep)).map_err(|source| CacheError::Database {
            operation: "retain",
            key: root_digest.to_owned(),
            source,
        })
    }

    /// Drops every snapshot (the cache gets a new epoch, see
    /// [`crate::CACHE_EPOCH_FILE`]); returns rows removed.
    pub fn cache_purge_all(&self) -> Result<usize, CacheError> {
        self.write(|tx| {
            crate::quick::new_cache_epoch(self.dir())?;
            run(tx, "DELETE FROM cache", [])
        })
        .map_err(|source| CacheError::Database { operation: "purge", key: "*".to_owned(), source })
    }

    /// Rows, bytes and roots held.
    pub fn cache_stats(&self) -> Result<CacheStats, CacheError> {
        self.read(|tx| {
            one(
                tx,
                "SELECT COUNT(*), COALESCE(SUM(byte_len), 0), COUNT(DISTINCT root_digest) FROM cache",
                [],
                |row| {
                    Ok(CacheStats {
                        rows: from_sql_u64(row.get(0)?),
                        bytes: from_sql_u64(row.get(1)?),
                        roots: from_sql_u64(row.get(2)?),
                    })
                },
            )
        })
        .map_err(|source| CacheError::Database { operation: "stats", key: "*".to_owned(), source })
    }
}

/// One change to a root's snapshots (see [`Store::cache_apply`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CacheChange {
    /// Marks the snapshot of this path as just used.
    Touch(String),
    /// Stores (or replaces) a snapshot, evicting the least recently used
    /// rows to make room.
    Put {
        /// Path relative to the root.
        rel: String,
        /// The version the bytes came from.
        identity: Identity,
        /// SHA-256 of `bytes`.
        sha256: String,
        /// The bytes read.
        bytes: Vec<u8>,
        /// The binding the row was derived through, if any.
        binding_id: Option<String>,
    },
    /// Drops the snapshot of this path.
    Drop(String),
    /// Drops every snapshot of the root whose path is not listed.
    Retain(Vec<String>),
    /// Drops every snapshot of the root.
    DropRoot,
}

/// A row as [`changes_nothing`] compares it.
#[derive(Debug, Clone)]
struct Held {
    rel: String,
    identity: Identity,
    sha256: String,
    len: u64,
    binding_id: Option<String>,
    last_used: i64,
}

/// Whether applying `changes` to the root's rows `held` would leave every
/// row as it is, recency included: each put is of the version a row
/// already holds (same identity, digest, length and binding) whose use is
/// recent (see [`CachedSnapshot::use_is_stale`]), and no drop, retain or
/// dropped root removes a row that is not put back. A touch always
/// writes (it is only asked for when the use is stale).
fn changes_nothing(held: &[Held], changes: &[CacheChange], now_ns: i64) -> bool {
    use std::collections::{HashMap, HashSet};
    let touch_every = i64::try_from(TOUCH_EVERY.as_nanos()).unwrap_or(i64::MAX);
    let rows: HashMap<&str, &Held> = held.iter().map(|row| (row.rel.as_str(), row)).collect();
    // Rows a dropped root will delete unless a put brings them back.
    let mut doomed: HashSet<&str> = HashSet::new();
    for change in changes {
        match change {
            CacheChange::Touch(_) => return false,
            CacheChange::Put { rel, identity, sha256, bytes, binding_id } => {
                let same = rows.get(rel.as_str()).is_some_and(|row| {
                    row.identity == *identity
                        && row.sha256 == *sha256
                        && row.len == bytes.len() as u64
                        && row.binding_id == *binding_id
                        && (0..touch_every).contains(&now_ns.saturating_sub(row.last_used))
                });
                if !same {
                    return false;
                }
                doomed.remove(rel.as_str());
            }
            CacheChange::Drop(rel) => {
                if rows.contains_key(rel.as_str()) {
                    return false;
                }
            }
            CacheChange::Retain(keep) => {
                if rows.keys().any(|rel| !keep.iter().any(|k| k == rel)) {
                    return false;
                }
            }
            CacheChange::DropRoot => doomed = rows.keys().copied().collect(),
        }
    }
    // What a dropped root took and no put brought back is deleted.
    doomed.is_empty()
}

/// Stores (or replaces) one snapshot inside `tx`; rows evicted.
fn put_in(
    tx: &Transaction<'_>,
    root_digest: &str,
    rel: &str,
    identity: &Identity,
    sha256: &str,
    bytes: &[u8],
    binding_id: Option<&str>,
) -> rusqlite::Result<usize> {
    let len = bytes.len() as u64;
    // The same version again (same identity, digest and binding): only
    // its recency moves; its bytes are not written a second time.
    let unchanged: Option<i64> = tx
        .query_row(
            "SELECT id FROM cache WHERE root_digest = ?1 AND rel_path = ?2 AND dev = ?3 AND ino = ?4
               AND size = ?5 AND mtime_ns = ?6 AND ctime_ns = ?7 AND sha256 = ?8 AND byte_len = ?9
               AND binding_id IS ?10",
            rusqlite::params![
                root_digest,
                rel,
                to_sql_u64(identity.dev),
                to_sql_u64(identity.ino),
                to_sql_u64(identity.size),
                identity.mtime_ns,
                identity.ctime_ns,
                sha256,
                to_sql_u64(len),
                binding_id,
            ],
            |row| row.get(0),
        )
        .optional()?;
    if let Some(id) = unchanged {
        let last_used = next_use(tx)?;
        run(tx, "UPDATE cache SET last_used = ?1 WHERE id = ?2", (last_used, id))?;
        return Ok(0);
    }
    run(tx, "DELETE FROM cache WHERE root_digest = ?1 AND rel_path = ?2", (root_digest, rel))?;
    let evicted = evict_for(tx, len)?;
    let last_used = next_use(tx)?;
    run(
        tx,
        "INSERT INTO cache (root_digest, rel_path, dev, ino, size, mtime_ns, ctime_ns, sha256,
                            byte_len, last_used, binding_id, bytes)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        rusqlite::params![
            root_digest,
            rel,
            to_sql_u64(identity.dev),
            to_sql_u64(identity.ino),
            to_sql_u64(identity.size),
            identity.mtime_ns,
            identity.ctime_ns,
            sha256,
            to_sql_u64(len),
            last_used,
            binding_id,
            bytes,
        ],
    )?;
    Ok(evicted)
}

/// Drops the root's snapshots whose path is not in `keep`, inside `tx`.
fn retain_in(tx: &Transaction<'_>, root_digest: &str, keep: &[String]) -> rusqlite::Result<usize> {
    let keep: std::collections::HashSet<&str> = keep.iter().map(String::as_str).collect();
    let held: Vec<(i64, String)> = {
        let mut stmt = tx.prepare("SELECT id, rel_path FROM cache WHERE root_digest = ?1")?;
        let rows = stmt.query_map([root_digest], |row| Ok((row.get(0)?, row.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut delete = tx.prepare("DELETE FROM cache WHERE id = ?1")?;
    let mut removed = 0;
    for (id, rel) in held {
        if !keep.contains(rel.as_str()) {
            removed += delete.execute([id])?;
        }
    }
    Ok(removed)
}

/// Evicts least recently used rows until `incoming` more bytes fit under the
/// cap; returns how many were evicted.
pub(crate) fn evict_for(tx: &Transaction<'_>, incoming: u64) -> rusqlite::Result<usize> {
    let held: i64 = one(tx, "SELECT COALESCE(SUM(byte_len), 0) FROM cache", [], |row| row.get(0))?;
    let mut excess = (from_sql_u64(held) + incoming).saturating_sub(CACHE_CAP_BYTES);
    if excess == 0 {
        return Ok(0);
    }
    let mut victims = Vec::new();
    {
        let mut oldest = tx.prepare("SELECT id, byte_len FROM cache ORDER BY last_used ASC, id ASC")?;
        let mut rows = oldest.query([])?;
        while excess > 0 {
            let Some(row) = rows.next()? else { break };
            let id: i64 = row.get(0)?;
            let len: i64 = row.get(1)?;
            victims.push(id);
            excess = excess.saturating_sub(from_sql_u64(len));
        }
    }
    let mut delete = tx.prepare("DELETE FROM cache WHERE id = ?1")?;
    for id in &victims {
        delete.execute([id])?;
    }
    Ok(victims.len())
}

/// The next recency stamp: now in ns, or one past the largest stamp so far.
pub(crate) fn next_use(tx: &Transaction<'_>) -> rusqlite::Result<i64> {
    let largest: Option<i64> = one(tx, "SELECT MAX(last_used) FROM cache", [], |row| row.get(0))?;
    Ok(largest.map_or(now_ns(), |largest| now_ns().max(largest.saturating_add(1))))
}

/// The identity held in the five columns from `first` on (`dev`, `ino`,
/// `size`, `mtime_ns`, `ctime_ns`, as every query here selects them).
fn identity_at(row: &rusqlite::Row<'_>, first: usize) -> rusqlite::Result<Identity> {
    Ok(Identity {
        dev: from_sql_u64(row.get(first)?),
        ino: from_sql_u64(row.get(first + 1)?),
        size: from_sql_u64(row.get(first + 2)?),
        mtime_ns: row.get(first + 3)?,
        ctime_ns: row.get(first + 4)?,
    })
}

fn key(root_digest: &str, rel: &str) -> String {
    format!("{root_digest}/{rel}")
}

/// SQLite integers are signed 64-bit: unsigned values are stored by bit
/// pattern and read back the same way.
fn to_sql_u64(value: u64) -> i64 {
    i64::from_ne_bytes(value.to_ne_bytes())
}

fn from_sql_u64(value: i64) -> u64 {
    u64::from_ne_bytes(value.to_ne_bytes())
}

/// `query_row` through the connection's statement cache: a batch of puts
/// (a session start re-reads every fact) parses each statement once.
fn one<T>(
    conn: &rusqlite::Connection,
    sql: &str,
    params: impl rusqlite::Params,
    f: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    conn.prepare_cached(sql)?.query_row(params, f)
}

/// `execute` through the connection's statement cache (see [`one`]).
fn run(conn: &rusqlite::Connection, sql: &str, params: impl rusqlite::Params) -> rusqlite::Result<usize> {
    conn.prepare_cached(sql)?.execute(params)
}
