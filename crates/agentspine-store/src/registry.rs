//! The bindings themselves, derived from the chain's events: making one
//! (`bind`), undoing it (`rollback`), and removing it with everything
//! derived through it (`purge`). Each change is one transaction holding the
//! chain event, its audit row and the cache rows it drops, so a crash
//! leaves all of it or none of it.
//!
//! A binding is context only: it never creates identity equivalence,
//! roles, permissions, delegation, host trust or a right to start anything.

use std::fmt;

use serde::Serialize;

use crate::bindings::{
    BindingError, BindingEvent, BindingKind, FirstBadRow, StoredRow, all_rows, append_in, verify_rows,
};
use crate::db::Store;

/// The only binding scope: the binding attaches a project's state to the
/// local user of this state directory.
pub const BINDING_SCOPE: &str = "state-user";
/// The word for a binding that every host reads through.
pub const ALL_HOSTS: &str = "all";
/// The hosts a binding may be made for (`all`: every host, `generic` too).
pub const BINDING_HOSTS: [&str; 6] = [ALL_HOSTS, "claude", "codex", "gemini", "pi", "desktop"];

/// Which hosts read through a binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoundHosts<'a> {
    /// Every host (`all`).
    All,
    /// One host, by its binding name.
    One(&'a str),
}

impl BoundHosts<'_> {
    /// The hosts a stored host word names.
    pub fn of(word: &str) -> BoundHosts<'_> {
        if word == ALL_HOSTS { BoundHosts::All } else { BoundHosts::One(word) }
    }

    /// Whether requests of `host` are among them.
    pub fn include(self, host: &str) -> bool {
        match self {
            BoundHosts::All => true,
            BoundHosts::One(one) => one == host,
        }
    }
}

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
        self.state == BindingState::Active && self.hosts().include(host)
    }

    /// The hosts that read through it.
    pub fn hosts(&self) -> BoundHosts<'_> {
        BoundHosts::of(&self.host)
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

/// The bindings the events make, in the order they were made. A bind
/// event without the fields a binding needs makes no binding.
pub(crate) fn derive(rows: &[StoredRow]) -> Vec<Binding> {
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
            crate::quick::continuity_may_exist(self.dir())?;
            let (event, audit_id) = append_in(
                tx,
                BindingKind::Bind,
                &binding.id,
                &binding.host,
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
            crate::quick::continuity_may_exist(self.dir())?;
            let (event, audit_id) = append_in(
                tx,
                kind,
                &binding.id,
                &binding.host,
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
}
