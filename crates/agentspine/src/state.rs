//! The state store as the front ends use it: opened once per process, and
//! when it cannot be (an unwritable state directory), everything runs
//! uncached with a warning instead of failing.

use std::path::Path;

use agentspine_core::memory::{CachedSnapshot, SnapshotCache};
use agentspine_fs::Snapshot;
use agentspine_store::Store;

/// The store, or why there is none.
pub struct State {
    pub store: Option<Store>,
    pub warnings: Vec<String>,
}

impl State {
    /// Opens the default state directory.
    pub fn open() -> State {
        State::open_with(agentspine_store::OpenMode::Default)
    }

    /// Opens the default state directory for one kind of process (hooks
    /// open it in [`agentspine_store::OpenMode::Hook`]).
    pub fn open_with(mode: agentspine_store::OpenMode) -> State {
        match Store::open_default_with(mode) {
            Ok(opened) => State { store: Some(opened.store), warnings: opened.warnings },
            Err(e) => State {
                store: None,
                warnings: vec![format!("{e}; continuing without the cache (nothing is stored)")],
            },
        }
    }

    /// Source ids keyed by the state directory (stable across processes);
    /// without a store, keyed at random for this process only.
    pub fn source_ids(&self) -> agentspine_core::catalog::SourceIds {
        let key = match &self.store {
            Some(store) => store.derived_key("source-id"),
            None => {
                let mut key = [0u8; 32];
                if getrandom::fill(&mut key).is_err() {
                    tracing::warn!("no random key available; source ids are predictable in this process");
                }
                key
            }
        };
        agentspine_core::catalog::SourceIds::new(key)
    }

    /// Appends an audit row; a store problem is logged, never fatal.
    pub fn audit(&self, event: agentspine_store::AuditEvent) {
        if let Some(store) = &self.store
            && let Err(e) = store.audit_append(&event)
        {
            tracing::warn!("audit: {e}");
        }
    }

    /// What requests of `host` read through the user's active bindings:
    /// accepted portable records only, as continuity sources (context
    /// only). Read afresh on every call, so a bind, rollback or purge
    /// takes effect for the very next hook or MCP call. A registry that
    /// does not verify, or a store problem, gives nothing (fail closed)
    /// and an audit row.
    pub fn continuity(&self, host: agentspine_core::Host) -> Vec<agentspine_core::catalog::ContinuityItem> {
        let Some(store) = &self.store else { return Vec::new() };
        match store.continuity_read(host.as_str()) {
            Ok(records) => records
                .into_iter()
                .map(|r| agentspine_core::catalog::ContinuityItem {
                    binding_id: r.binding_id,
                    record_id: r.record_id,
                    kind: r.kind.as_str().to_owned(),
                    text: r.text,
                })
                .collect(),
            Err(e) => {
                tracing::warn!("continuity: {e}; nothing is read through bindings");
                self.audit(agentspine_store::AuditEvent {
                    host: host.as_str().to_owned(),
                    event: "continuity-read".into(),
                    phase: "binding".into(),
                    code: if e.first_bad_row().is_some() { "chain-broken" } else { "store-error" }.into(),
                    path: None,
                    detail: Some(e.to_string()),
                });
                Vec::new()
            }
        }
    }

    /// The cache for one directory (a memory directory or a project root).
    pub fn cache_for(&self, dir: &Path) -> Option<StoreCache<'_>> {
        let store = self.store.as_ref()?;
        Some(StoreCache { store, root: store.root_digest(dir) })
    }
}

/// Snapshots of one directory, kept in the store.
pub struct StoreCache<'a> {
    store: &'a Store,
    root: String,
}

impl SnapshotCache for StoreCache<'_> {
    fn get(&self, rel: &str) -> Option<CachedSnapshot> {
        let row = self.store.cache_get(&self.root, rel).ok()??;
        Some(CachedSnapshot { identity: row.identity, sha256: row.sha256, bytes: row.bytes })
    }

    fn put(&self, rel: &str, snapshot: &Snapshot, sha256: &str) {
        if let Err(e) =
            self.store.cache_put(&self.root, rel, &snapshot.identity, sha256, &snapshot.bytes, None)
        {
            tracing::warn!("cache: {e}");
        }
    }

    fn forget(&self, rel: &str) {
        if let Err(e) = self.store.cache_drop(&self.root, rel) {
            tracing::warn!("cache: {e}");
        }
    }

    fn retain(&self, linked: &[String]) {
        if let Err(e) = self.store.cache_retain(&self.root, linked) {
            tracing::warn!("cache: {e}");
        }
    }
}
