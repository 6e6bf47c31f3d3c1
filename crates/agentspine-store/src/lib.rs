//! The agentspine state directory: one SQLite database holding the snapshot
//! cache, the bindings registry, the audit log, configured scopes, learning
//! records and what each session was sent.
//!
//! The directory is found by [`state_dir`] (`$AGENTSPINE_STATE_DIR`, else
//! the platform's state directory) and created private (`0700`) through
//! agentspine-fs, the only crate that touches the disk. [`Store::open`]
//! opens `state.db` in it with WAL, a 5 s busy timeout, `synchronous =
//! NORMAL` and foreign keys on, checks it (`PRAGMA quick_check` once a day,
//! after damage was seen, and on demand), moves a corrupt file aside and
//! salvages what it can into a new one, and applies missing migrations
//! ([`MIGRATIONS`], counted by `PRAGMA user_version`).
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use agentspine_store::{AuditEvent, Store};
//! # let temp = tempfile::tempdir()?;
//! # let dir = temp.path().join("state");
//! let opened = Store::open(&dir)?;
//! assert!(opened.warnings.is_empty());
//! let store = opened.store;
//!
//! // Project roots are never stored by path, only by a keyed digest.
//! let root = store.root_digest(std::path::Path::new("/home/alice/src/blun"));
//! assert_eq!(root.len(), 32);
//!
//! store.scope_set(&root, &["person:alice".to_owned(), "project:blun".to_owned()])?;
//! assert_eq!(store.scope_get(&root)?.unwrap_or_default(), ["person:alice", "project:blun"]);
//!
//! store.audit_append(&AuditEvent {
//!     host: "claude".into(),
//!     event: "scan-error".into(),
//!     phase: "discovery".into(),
//!     code: "permission-denied".into(),
//!     path: Some("docs/private".into()),
//!     detail: None,
//! })?;
//! assert_eq!(store.audit_list(None, Some("claude"))?.len(), 1);
//! # Ok(()) }
//! ```
//!
//! # Guarantees
//!
//! - **Many processes at once.** Hooks run in parallel. Every write is one
//!   `BEGIN IMMEDIATE` transaction, started again a bounded number of times
//!   when SQLite answers busy, so "database is locked" does not reach a
//!   caller under ordinary contention.
//! - **A first use by many processes at once.** A user's first session
//!   starts several hooks and the MCP server together on a state directory
//!   nobody has used: the migrations are one transaction, so each of them
//!   finds no schema (and makes it under the write lock) or all of it, and
//!   none fails because another is migrating (`benches/first_open.py`
//!   races 32 of them, round after round).
//! - **A damaged file is kept, salvaged and told.** A file SQLite calls
//!   not-a-database or corrupt is moved aside (never deleted) as
//!   `state.db.corrupt-<unix seconds>`; what SQLite can still read of it
//!   (records, binding events, audit events, scopes) is copied row by row
//!   into the new database, with an [`Incident`] saying what happened and
//!   what was recovered until [`Store::incident_acknowledge`]; the caller
//!   gets a warning in [`Opened::warnings`] too. A damaged database never
//!   brings back a binding whose rollback may be lost. A state directory
//!   that cannot be created, written or trusted is
//!   [`StoreError::Unavailable`]: the caller may run uncached.
//! - **No project path is stored.** Roots are named by [`Store::root_digest`],
//!   an HMAC under a random key kept in the database.
//! - **Append-only logs.** Triggers refuse `UPDATE` and `DELETE` on the
//!   audit log and on the binding events; the binding events are also
//!   hash-chained, and [`Store::binding_verify`] finds the first altered row.
//! - **Bounded audit log.** Every field is capped, repeats are found by a
//!   fingerprint, and past [`AUDIT_MAX_ROWS`] problem rows the oldest are
//!   pruned by a recorded prune, the only delete the triggers allow;
//!   binding, record and incident rows are never pruned.
//! - **Bounded cache.** At most [`CACHE_CAP_BYTES`] of file bytes; the least
//!   recently used snapshots go first.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod audit;
mod audit_bounds;
mod bindings;
mod cache;
mod continuity;
mod db;
mod dir;
mod fault;
mod incident;
mod keys;
mod migrations;
mod open;
mod quick;
mod records;
mod registry;
mod repair;
mod reports;
mod salvage;
mod scope;
mod session;

pub use audit::{AuditError, AuditEvent, AuditRow};
pub use audit_bounds::{
    AUDIT_KEEP_ROWS, AUDIT_MAX_ROW_BYTES, AUDIT_MAX_ROWS, AUDIT_NAME_CAP, AUDIT_TEXT_CAP, AuditPrunes,
    PRUNE_CHECK_EVERY,
};
pub use bindings::{BindingError, BindingEvent, BindingKind, FirstBadRow, GENESIS_SHA256};
pub use cache::{CACHE_CAP_BYTES, CacheChange, CacheError, CacheStats, CachedSnapshot, TOUCH_EVERY};
pub use continuity::{ContinuityRecord, MAX_CONTINUITY_RECORDS};
pub use db::{
    BUSY_ATTEMPTS, BUSY_TIMEOUT, CHECK_INTERVAL, CHECK_MARKER, DB_FILE, HOOK_WAL_PAGES, OpenMode, Store,
    StoreError,
};
pub use dir::{Platform, state_dir, state_dir_path};
pub use incident::{ChainSalvage, IdRange, Incident, IncidentError, ReadMethod, Salvage, TableSalvage};
pub use migrations::{MIGRATIONS, SCHEMA_VERSION};
pub use open::Opened;
pub use quick::{
    CACHE_EPOCH_FILE, Empty, INCIDENT_FILE, KEY_FILE, NO_CACHE_FILE, NO_CONTINUITY_FILE, NO_SCOPES_FILE,
    Quick, cache_epoch_in,
};
pub use records::{
    MAX_RECORD_BYTES, NEVER_CONTEXT_KINDS, NON_PORTABLE_KINDS, PORTABLE_KINDS, Record, RecordChange,
    RecordError, RecordKind, RecordStatus,
};
pub use registry::{
    ALL_HOSTS, BINDING_HOSTS, BINDING_SCOPE, BindRequest, Binding, BindingChange, BindingRefusal,
    BindingState, BoundHosts,
};
pub use repair::REPAIR_PENDING;
pub use reports::{
    MAX_REPORT_FIELD, MAX_REPORT_FILE, MAX_REPORTS, REPORTS_DIR, ReportError, ReportFiles, StoredReport,
};
pub use scope::{MAX_SCOPE_ID_BYTES, SCOPE_KINDS, ScopeError, validate_scope_id};
pub use session::{
    Deferral, Deferred, MAX_SESSION_BYTES, Mark, PRUNE_EVERY, Recorded, SESSION_TTL, SESSIONS_DIR,
    SessionError, SessionMarks, SessionRecord,
};
