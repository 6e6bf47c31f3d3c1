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

    fn parse(text: &str) -> Option<BindingKind> {
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
struct StoredRow {
    seq: i64,
    kind: String,
    binding_id: String,
    payload: String,
    prev_sha256: String,
    sha256: String,
    created_at: i64,
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
                let last: Option<(i64, String)> = tx
                    .query_row("SELECT seq, sha256 FROM binding_events ORDER BY seq DESC LIMIT 1", [], |row| {
                        Ok((row.get(0)?, row.get(1)?))
                    })
                    .optional()?;
                let (seq, prev) = last.map_or((1, GENESIS_SHA256.to_owned()), |(seq, sha)| (seq + 1, sha));
                let sha = event_sha256(&prev, seq, kind.as_str(), binding_id, &text, created_at);
                tx.execute(
                    "INSERT INTO binding_events (seq, kind, binding_id, payload, prev_sha256, sha256, created_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    (seq, kind.as_str(), binding_id, &text, &prev, &sha, created_at),
                )?;
                Ok((seq, prev, sha))
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

    fn stored_rows(&self, operation: &'static str) -> Result<Vec<StoredRow>, BindingError> {
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

/// The only binding scope: the binding attaches a project's state to the
/// local user of this state directory.
pub const BINDING_SCOPE: &str = "state-user";
/// The hosts a binding may be made for (`all`: every host, `generic` too).
pub const BINDING_HOSTS: [&str; 5] = ["all", "claude", "codex", "pi", "desktop"];
/// The most records read through all bindings for one request.
pub const MAX_CONTINUITY_RECORDS: usize = 64;

/// Where a binding stands, derived from its events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BindingState {
    /// Records are read through it.
    Active,
    /// Undone: nothing is read through it.
    RolledBack,
    /// Undone, and every cache row derived through it removed.
    Purged,
}

impl fmt::Display for BindingState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BindingState::Active => "active",
            BindingState::RolledBack => "rolled back",
            BindingState::Purged => "purged",
        })
    }
}

/// What a bind asks for. The paths are given as root digests
/// ([`Store::root_digest`]): no path is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindRequest {
    /// One of [`BINDING_HOSTS`].
    pub host: String,
    /// [`BINDING_SCOPE`].
    pub scope: String,
    /// The project whose state is bound (where continuity was configured).
    pub source_root: String,
    /// The project the user bound from.
    pub project: String,
    /// The host profile the user bound from.
    pub host_home: String,
}

/// A binding as its events make it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Binding {
    /// Its id (`binding:ID` names it on the command line).
    pub id: String,
    /// The host(s) it applies to.
    pub host: String,
    /// [`BINDING_SCOPE`].
    pub scope: String,
    /// Root digest of the bound project.
    pub source_root: String,
    /// Root digest of the project it was made from.
    pub project: String,
    /// Digest of the host profile it was made from.
    pub host_home: String,
    /// Where it stands.
    pub state: BindingState,
    /// `seq` of its bind event.
    pub bound_seq: i64,
    /// When it was made, milliseconds since the Unix epoch.
    pub bound_at: i64,
    /// When it was rolled back or purged.
    pub ended_at: Option<i64>,
}

impl Binding {
    /// Whether requests of `host` read through it.
    pub fn applies_to(&self, host: &str) -> bool {
        self.state == BindingState::Active && (self.host == "all" || self.host == host)
    }
}

/// What a bind, rollback or purge did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BindingChange {
    /// The binding, as it is now.
    pub binding: Binding,
    /// The event appended to the chain.
    pub event: BindingEvent,
    /// The audit row written with it.
    pub audit_id: i64,
    /// Cache rows derived through the binding that were removed.
    pub cache_rows_dropped: usize,
}

/// A refusal of a bind, rollback or purge: nothing was changed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BindingRefusal {
    /// The host is not one of [`BINDING_HOSTS`].
    #[error("--host {0:?} is not one of {hosts}", hosts = BINDING_HOSTS.join(", "))]
    Host(String),
    /// The scope is not [`BINDING_SCOPE`].
    #[error("--scope {0:?} is not supported; the only scope is {BINDING_SCOPE}")]
    Scope(String),
    /// The bound project has no learning records.
    #[error(
        "that project has no agentspine state to bind (no learning records); add some there first with `agentspine record add`"
    )]
    NoState,
    /// The same project is already bound for the same host.
    #[error("that project is already bound for --host {host} as binding:{id}")]
    AlreadyBound {
        /// The active binding.
        id: String,
        /// Its host.
        host: String,
    },
    /// No bind event has this id.
    #[error("there is no binding:{0} (`agentspine audit` lists binding events)")]
    Unknown(String),
    /// The binding is not in a state that allows the change.
    #[error("binding:{id} is already {state}")]
    Ended {
        /// The binding.
        id: String,
        /// Its state.
        state: BindingState,
    },
    /// The chain is broken: nothing new is bound onto it.
    #[error(
        "the binding registry does not verify ({0}); nothing is bound until it is repaired (see `agentspine audit --verify`)"
    )]
    Broken(FirstBadRow),
}

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

/// The chain's rows, checked as [`Store::binding_verify`] checks them.
fn verify_rows(rows: &[StoredRow]) -> Result<(), FirstBadRow> {
    let mut prev = GENESIS_SHA256.to_owned();
    for (expected, row) in (1i64..).zip(rows) {
        let bad = |reason: String| FirstBadRow { seq: row.seq, reason };
        if row.seq != expected {
            return Err(bad(format!("expected seq {expected} here: an event is missing before it")));
        }
        if row.prev_sha256 != prev {
            return Err(bad(format!(
                "prev_sha256 is {} but the previous event's sha256 is {prev}",
                row.prev_sha256
            )));
        }
        let computed =
            event_sha256(&row.prev_sha256, row.seq, &row.kind, &row.binding_id, &row.payload, row.created_at);
        if computed != row.sha256 {
            return Err(bad(format!(
                "sha256 is {} but the event's contents hash to {computed}: it was altered",
                row.sha256
            )));
        }
        if BindingKind::parse(&row.kind).is_none() {
            return Err(bad(format!("unknown kind {:?}", row.kind)));
        }
        if serde_json::from_str::<serde_json::Value>(&row.payload).is_err() {
            return Err(bad("payload is not JSON".to_owned()));
        }
        prev.clone_from(&row.sha256);
    }
    Ok(())
}

/// The bindings the events make, in the order they were made. A bind
/// event without the fields a binding needs makes no binding.
fn derive(rows: &[StoredRow]) -> Vec<Binding> {
    let mut bindings: Vec<Binding> = Vec::new();
    for row in rows {
        match BindingKind::parse(&row.kind) {
            Some(BindingKind::Bind) => {
                let Ok(payload) = serde_json::from_str::<serde_json::Value>(&row.payload) else { continue };
                let field = |name: &str| payload.get(name).and_then(|v| v.as_str()).map(str::to_owned);
                let (Some(host), Some(scope), Some(source_root)) =
                    (field("host"), field("scope"), field("source_root"))
                else {
                    continue;
                };
                if bindings.iter().any(|b| b.id == row.binding_id) {
                    continue;
                }
                bindings.push(Binding {
                    id: row.binding_id.clone(),
                    host,
                    scope,
                    source_root,
                    project: field("project").unwrap_or_default(),
                    host_home: field("host_home").unwrap_or_default(),
                    state: BindingState::Active,
                    bound_seq: row.seq,
                    bound_at: row.created_at,
                    ended_at: None,
                });
            }
            Some(kind @ (BindingKind::Rollback | BindingKind::Purge)) => {
                if let Some(b) = bindings.iter_mut().find(|b| b.id == row.binding_id) {
                    if b.state == BindingState::Purged {
                        continue;
                    }
                    b.state = if kind == BindingKind::Purge {
                        BindingState::Purged
                    } else {
                        BindingState::RolledBack
                    };
                    b.ended_at = Some(row.created_at);
                }
            }
            None => {}
        }
    }
    bindings
}

fn all_rows(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<Vec<StoredRow>> {
    let mut stmt = tx.prepare(
        "SELECT seq, kind, binding_id, payload, prev_sha256, sha256, created_at FROM binding_events ORDER BY seq",
    )?;
    let rows = stmt.query_map([], stored_row)?;
    rows.collect()
}

/// Appends one event inside `tx` (which holds the write lock), with its
/// audit row; returns both.
fn append_in(
    tx: &rusqlite::Transaction<'_>,
    kind: BindingKind,
    binding: &Binding,
    payload: &serde_json::Value,
    detail: String,
) -> rusqlite::Result<(BindingEvent, i64)> {
    let text = payload.to_string();
    let created_at = now_ms();
    let last: Option<(i64, String)> = tx
        .query_row("SELECT seq, sha256 FROM binding_events ORDER BY seq DESC LIMIT 1", [], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()?;
    let (seq, prev) = last.map_or((1, GENESIS_SHA256.to_owned()), |(seq, sha)| (seq + 1, sha));
    let sha = event_sha256(&prev, seq, kind.as_str(), &binding.id, &text, created_at);
    tx.execute(
        "INSERT INTO binding_events (seq, kind, binding_id, payload, prev_sha256, sha256, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        (seq, kind.as_str(), &binding.id, &text, &prev, &sha, created_at),
    )?;
    let audit_id = crate::audit::insert_audit(
        tx,
        &crate::AuditEvent {
            host: binding.host.clone(),
            event: format!("binding-{}", kind.as_str()),
            phase: "binding".to_owned(),
            code: kind.as_str().to_owned(),
            path: None,
            detail: Some(detail),
        },
        created_at,
    )?;
    let event = BindingEvent {
        seq,
        kind,
        binding_id: binding.id.clone(),
        payload: payload.clone(),
        prev_sha256: prev,
        sha256: sha,
        created_at,
    };
    Ok((event, audit_id))
}

impl Store {
    /// Makes a binding: the state of `request.source_root` is read, from
    /// the very next request on, by requests of `request.host`. Refused
    /// (nothing changes) when the host or scope is unknown, the project has
    /// no records, it is already bound for that host, or the chain does
    /// not verify. The bind event and its audit row are one transaction.
    pub fn binding_bind(
        &self,
        request: &BindRequest,
    ) -> Result<Result<BindingChange, BindingRefusal>, BindingError> {
        if !BINDING_HOSTS.contains(&request.host.as_str()) {
            return Ok(Err(BindingRefusal::Host(request.host.clone())));
        }
        if request.scope != BINDING_SCOPE {
            return Ok(Err(BindingRefusal::Scope(request.scope.clone())));
        }
        let mut id_bytes = [0u8; 8];
        getrandom::fill(&mut id_bytes).map_err(|e| BindingError::Database {
            operation: "bind",
            binding_id: "*".to_owned(),
            source: rusqlite::Error::ToSqlConversionFailure(format!("no randomness for an id: {e}").into()),
        })?;
        let id = hex::encode(id_bytes);
        self.write(|tx| {
            let rows = all_rows(tx)?;
            if let Err(bad) = verify_rows(&rows) {
                return Ok(Err(BindingRefusal::Broken(bad)));
            }
            let records: i64 = tx.query_row(
                "SELECT COUNT(*) FROM records WHERE root_digest = ?1",
                [&request.source_root],
                |row| row.get(0),
            )?;
            if records == 0 {
                return Ok(Err(BindingRefusal::NoState));
            }
            if let Some(b) = derive(&rows).into_iter().find(|b| {
                b.state == BindingState::Active
                    && b.source_root == request.source_root
                    && b.host == request.host
            }) {
                return Ok(Err(BindingRefusal::AlreadyBound { id: b.id, host: b.host }));
            }
            let payload = serde_json::json!({
                "host": request.host,
                "scope": request.scope,
                "source_root": request.source_root,
                "project": request.project,
                "host_home": request.host_home,
            });
            let mut binding = Binding {
                id: id.clone(),
                host: request.host.clone(),
                scope: request.scope.clone(),
                source_root: request.source_root.clone(),
                project: request.project.clone(),
                host_home: request.host_home.clone(),
                state: BindingState::Active,
                bound_seq: 0,
                bound_at: 0,
                ended_at: None,
            };
            let (event, audit_id) = append_in(
                tx,
                BindingKind::Bind,
                &binding,
                &payload,
                format!("binding:{id} made for host {} ({records} records in the bound state)", request.host),
            )?;
            binding.bound_seq = event.seq;
            binding.bound_at = event.created_at;
            Ok(Ok(BindingChange { binding, event, audit_id, cache_rows_dropped: 0 }))
        })
        .map_err(|source| BindingError::Database {
            operation: "bind",
            binding_id: id.clone(),
            source,
        })
    }

    /// Rolls `id` back: nothing is read through it from the very next
    /// request on, and the cache rows derived through it are dropped, in
    /// the same transaction as the event and its audit row.
    pub fn binding_rollback(&self, id: &str) -> Result<Result<BindingChange, BindingRefusal>, BindingError> {
        self.end(id, BindingKind::Rollback)
    }

    /// Purges `id`: as a rollback (an active binding is rolled back by the
    /// same event), and it can never be read through again; every cache
    /// row derived through it is removed. A rolled-back binding can be
    /// purged; a purged one cannot.
    pub fn binding_purge(&self, id: &str) -> Result<Result<BindingChange, BindingRefusal>, BindingError> {
        self.end(id, BindingKind::Purge)
    }

    fn end(
        &self,
        id: &str,
        kind: BindingKind,
    ) -> Result<Result<BindingChange, BindingRefusal>, BindingError> {
        if id.is_empty() {
            return Err(BindingError::EmptyId);
        }
        self.write(|tx| {
            let rows = all_rows(tx)?;
            let Some(mut binding) = derive(&rows).into_iter().find(|b| b.id == id) else {
                return Ok(Err(BindingRefusal::Unknown(id.to_owned())));
            };
            let allowed = match kind {
                BindingKind::Rollback => binding.state == BindingState::Active,
                _ => binding.state != BindingState::Purged,
            };
            if !allowed {
                return Ok(Err(BindingRefusal::Ended { id: id.to_owned(), state: binding.state }));
            }
            let dropped = tx.execute("DELETE FROM cache WHERE binding_id = ?1", [id])?;
            let verb = if kind == BindingKind::Purge { "purged" } else { "rolled back" };
            let payload = serde_json::json!({ "cache_rows_dropped": dropped });
            let (event, audit_id) = append_in(
                tx,
                kind,
                &binding,
                &payload,
                format!("binding:{id} {verb}; {dropped} derived cache rows removed"),
            )?;
            binding.state =
                if kind == BindingKind::Purge { BindingState::Purged } else { BindingState::RolledBack };
            binding.ended_at = Some(event.created_at);
            Ok(Ok(BindingChange { binding, event, audit_id, cache_rows_dropped: dropped }))
        })
        .map_err(|source| BindingError::Database {
            operation: kind.as_str(),
            binding_id: id.to_owned(),
            source,
        })
    }

    /// Every binding the chain makes, oldest first (the chain is not
    /// verified; see [`Store::binding_verify`]).
    pub fn bindings(&self) -> Result<Vec<Binding>, BindingError> {
        let rows = self.stored_rows("list")?;
        Ok(derive(&rows))
    }

    /// The cache rows derived through `id`.
    pub fn binding_cache_rows(&self, id: &str) -> Result<u64, BindingError> {
        self.read(|tx| {
            tx.query_row("SELECT COUNT(*) FROM cache WHERE binding_id = ?1", [id], |row| row.get::<_, i64>(0))
        })
        .map(|n| u64::try_from(n).unwrap_or(0))
        .map_err(|source| BindingError::Database {
            operation: "count",
            binding_id: id.to_owned(),
            source,
        })
    }

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
                        refresh_derived(tx, &binding, &rel, &record, &sha256)?;
                        keep.push(rel);
                        out.push(ContinuityRecord {
                            binding_id: binding.id.clone(),
                            record_id: record.id,
                            kind: record.kind,
                            text: record.text,
                            sha256,
                        });
                    }
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
