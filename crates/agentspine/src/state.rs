//! The state store as the front ends use it: opened once per process, and
//! when it cannot be (an unwritable state directory), everything runs
//! uncached with a warning instead of failing.

use std::cell::{OnceCell, RefCell};
use std::path::{Path, PathBuf};

use agentspine_core::memory::{CachedSnapshot, SnapshotCache};
use agentspine_fs::Snapshot;
use agentspine_store::{CacheChange, Store};

/// The same audit row is not appended again within this long (one hour).
pub const AUDIT_REPEAT_MS: i64 = 60 * 60 * 1000;

/// The store, or why there is none.
pub struct State {
    /// The database, opened at once ([`State::open_with`]) or at the first
    /// question that needs it ([`State::open_for_hook`]).
    store: OnceCell<Option<Store>>,
    pub warnings: Vec<String>,
    /// How a store opened later is opened.
    mode: agentspine_store::OpenMode,
    /// What a hook knows without the database (see
    /// [`agentspine_store::Quick`]); `None` when the store was opened at once.
    quick: Option<agentspine_store::Quick>,
    /// What each session was sent (beside the database), opened at the
    /// first question.
    marks: OnceCell<Option<agentspine_store::SessionMarks>>,
    /// The latest report of each root (beside the database), opened at the
    /// first question.
    reports: OnceCell<Option<agentspine_store::ReportFiles>>,
}

impl State {
    /// The open store, or the error that says why there is none (the
    /// warnings of the open, joined), for commands that cannot work without it.
    pub fn require_store(&self) -> anyhow::Result<&Store> {
        self.store().ok_or_else(|| {
            crate::surface::errors::Coded::new("state-unavailable", self.warnings.join("; ")).into()
        })
    }

    /// The store, opened now if it was not yet; `None` when it cannot be.
    pub fn store(&self) -> Option<&Store> {
        self.store
            .get_or_init(|| {
                let opened = match &self.quick {
                    // The hook's view of the state directory, reused.
                    Some(quick) => Store::open_after(quick, self.mode),
                    None => Store::open_default_with(self.mode),
                };
                match opened {
                    Ok(opened) => {
                        for warning in &opened.warnings {
                            tracing::warn!("{warning}");
                        }
                        Some(opened.store)
                    }
                    Err(e) => {
                        tracing::warn!("{e}; continuing without the cache (nothing is stored)");
                        None
                    }
                }
            })
            .as_ref()
    }

    /// Opens the default state directory.
    pub fn open() -> State {
        State::open_with(agentspine_store::OpenMode::Default)
    }

    /// Opens the default state directory for one kind of process.
    pub fn open_with(mode: agentspine_store::OpenMode) -> State {
        let (store, warnings) = match Store::open_default_with(mode) {
            Ok(opened) => (Some(opened.store), opened.warnings),
            Err(e) => (None, vec![format!("{e}; continuing without the cache (nothing is stored)")]),
        };
        State {
            store: OnceCell::from(store),
            warnings,
            mode,
            quick: None,
            marks: OnceCell::new(),
            reports: OnceCell::new(),
        }
    }

    /// The state directory as a hook uses it: the database is opened only
    /// when a question needs it (memory, continuity, an audit row, an
    /// incident that may be there); the key and the session files are read
    /// beside it (see [`agentspine_store::Quick`]). Without a state
    /// directory, as [`State::open_with`].
    pub fn open_for_hook() -> State {
        let mode = agentspine_store::OpenMode::Hook;
        let quick = agentspine_store::Quick::open_default().inspect_err(|e| tracing::warn!("{e}")).ok();
        match quick {
            Some(quick) => State {
                store: OnceCell::new(),
                warnings: Vec::new(),
                mode,
                quick: Some(quick),
                marks: OnceCell::new(),
                reports: OnceCell::new(),
            },
            None => State::open_with(mode),
        }
    }

    /// For a process that exits next (a hook): the store, if it was
    /// opened, is not closed (see [`Store::leave_open_at_exit`]).
    pub fn leave_open_at_exit(self) {
        if let Some(Some(store)) = self.store.into_inner() {
            store.leave_open_at_exit();
        }
    }

    /// What each session was sent: the session files of the state
    /// directory; none without one (then everything is sent).
    pub fn session_marks(&self) -> Option<&agentspine_store::SessionMarks> {
        self.marks.get_or_init(|| self.state_dir().map(agentspine_store::SessionMarks::in_dir)).as_ref()
    }

    /// The latest `sourceResolution` report of each root and host (files
    /// beside the database); none without a state directory.
    pub fn report_files(&self) -> Option<&agentspine_store::ReportFiles> {
        self.reports.get_or_init(|| self.state_dir().map(agentspine_store::ReportFiles::in_dir)).as_ref()
    }

    /// A handle on the state directory: the hook's own, or the store's
    /// directory opened (and checked) now; `None` with a warning when
    /// there is none.
    fn state_dir(&self) -> Option<agentspine_fs::PrivateDir> {
        let opened = match &self.quick {
            Some(quick) => quick.dir().try_clone(),
            None => agentspine_fs::PrivateDir::open(self.store()?.dir()),
        };
        opened.inspect_err(|e| tracing::warn!("{e}")).ok()
    }

    /// Whether the tables of `which` may hold a row: always, unless this is
    /// a hook's state whose look beside the database found them empty and
    /// that has not opened the database since.
    pub fn may_have(&self, which: agentspine_store::Empty) -> bool {
        self.store.get().is_some() || !self.quick.as_ref().is_some_and(|quick| quick.is_empty(which))
    }

    /// The snapshot cache's epoch (`agentspine_store::cache_epoch_in`):
    /// the one a hook read beside the database, else read now; `None`
    /// when it cannot be read or there is no state directory.
    pub fn cache_epoch(&self) -> Option<String> {
        match &self.quick {
            Some(quick) => quick.cache_epoch().map(str::to_owned),
            None => agentspine_store::cache_epoch_in(&self.state_dir()?),
        }
    }

    /// The digest that stands for `canonical_root` ([`Store::root_digest`]),
    /// from the key's copy when a hook has it, else from the store.
    pub fn root_digest(&self, canonical_root: &Path) -> Option<String> {
        let quick = self.quick.as_ref().and_then(|quick| quick.root_digest(canonical_root));
        quick.or_else(|| self.store().map(|store| store.root_digest(canonical_root)))
    }

    /// The scope of a request, one rule on every surface: the request's
    /// own argument (`(its name, its text)`), else `$AGENTSPINE_SCOPE`,
    /// else the scope stored for the project at `root()` (asked only then,
    /// and only when a scope may be stored: core's
    /// [`ScopeIds::resolve`](agentspine_core::memory::ScopeIds::resolve)).
    /// A store that cannot answer leaves the stored scope out, with a
    /// warning: fewer facts open, never more.
    pub fn scope(
        &self,
        argument: Option<(&'static str, &str)>,
        root: impl FnOnce() -> Option<PathBuf>,
    ) -> Result<agentspine_core::memory::ScopeIds, agentspine_core::memory::relevance::ScopeSourceError> {
        let environment = std::env::var("AGENTSPINE_SCOPE").ok();
        agentspine_core::memory::ScopeIds::resolve(argument, environment.as_deref(), || {
            // No project has a stored scope (`state.db.no-scopes`): nothing
            // to ask the database.
            if !self.may_have(agentspine_store::Empty::Scopes) {
                return None;
            }
            let store = self.store()?;
            let root = root()?;
            store.scope_get(&store.root_digest(&root)).unwrap_or_else(|e| {
                tracing::warn!("scope: {e}; continuing with no stored scope");
                None
            })
        })
    }

    /// The catalog request every surface builds from what it was asked
    /// (`ask`): the scope by [`State::scope`] and the continuity records
    /// of the root by [`State::continuity_in`], the rest as asked.
    pub fn catalog_request(
        &self,
        ask: CatalogAsk<'_>,
    ) -> Result<agentspine_core::catalog::CatalogRequest, agentspine_core::memory::relevance::ScopeSourceError>
    {
        let root = ask.root;
        let scope = self.scope(ask.scope, || Some(root.clone()))?;
        Ok(agentspine_core::catalog::CatalogRequest {
            cwd: ask.cwd,
            target: ask.target,
            scope,
            prompt: ask.prompt,
            markdown: ask.markdown,
            continuity: self.continuity_in(ask.host, &root),
            ..agentspine_core::catalog::CatalogRequest::new(ask.host, root)
        })
    }

    /// A required preflight of `catalog` (core's rule): its receipt, or the
    /// error naming every cause, after one audit row that names the first
    /// (`surface` says who asked).
    pub fn preflight(
        &self,
        catalog: &agentspine_core::catalog::Catalog,
        surface: &str,
    ) -> Result<agentspine_core::catalog::Receipt, agentspine_core::catalog::PreflightError> {
        agentspine_core::catalog::preflight(catalog).inspect_err(|e| {
            self.audit(agentspine_store::AuditEvent {
                host: catalog.resolution.host.to_string(),
                event: "preflight-failed".into(),
                phase: "discovery".into(),
                code: e.causes.first().map(|g| g.cause.to_string()).unwrap_or_default(),
                path: e.causes.first().map(|g| g.what.clone()),
                detail: Some(if surface.is_empty() { e.to_string() } else { format!("{surface}: {e}") }),
            });
        })
    }

    /// Source ids keyed by the state directory (stable across processes);
    /// without a store, keyed at random for this process only.
    pub fn source_ids(&self) -> agentspine_core::catalog::SourceIds {
        let quick = self.quick.as_ref().and_then(|quick| quick.derived_key("source-id"));
        match quick.or_else(|| self.store().map(|store| store.derived_key("source-id"))) {
            Some(key) => agentspine_core::catalog::SourceIds::new(key),
            None => agentspine_core::catalog::SourceIds::for_process(),
        }
    }

    /// Appends an audit row, unless the same row was appended within the
    /// last [`AUDIT_REPEAT_MS`] (a problem every hook meets is recorded once
    /// an hour, not once per process); a store problem is logged, never
    /// fatal.
    pub fn audit(&self, event: agentspine_store::AuditEvent) {
        if let Some(store) = self.store()
            && let Err(e) = store.audit_append_once(&event, AUDIT_REPEAT_MS)
        {
            tracing::warn!("audit: {e}");
        }
    }

    /// One audit row per gap a catalog's resolution says is audited
    /// (core's rule: the bounds an optional discovery reached), named by
    /// the root and the bound.
    pub fn audit_gaps(&self, event: &str, resolution: &agentspine_core::catalog::SourceResolution) {
        for gap in resolution.audited_gaps() {
            self.audit(agentspine_store::AuditEvent {
                host: resolution.host.as_str().to_owned(),
                event: event.to_owned(),
                phase: "discovery".into(),
                code: gap.cause.to_string(),
                path: Some(format!("{}: {}", resolution.project_root.display(), gap.what)),
                detail: None,
            });
        }
    }

    /// What requests of `host` read through the user's active bindings:
    /// accepted portable records only, as continuity sources (context
    /// only). Read afresh on every call, so a bind, rollback or purge
    /// takes effect for the very next hook or MCP call. A registry that
    /// does not verify, or a store problem, gives nothing (fail closed)
    /// and an audit row.
    pub fn continuity(&self, host: agentspine_core::Host) -> Vec<agentspine_core::catalog::ContinuityItem> {
        if self.has_no_continuity() {
            return Vec::new();
        }
        let Some(store) = self.store() else { return Vec::new() };
        match store.continuity_read(host.binding_name()) {
            Ok(records) => records
                .into_iter()
                .map(|r| agentspine_core::catalog::ContinuityItem {
                    binding_id: Some(r.binding_id),
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

    /// What requests for the project at `root` carry: its own accepted
    /// records (every kind that is context in its own project, see
    /// `RecordKind::is_context_in_own_project`), then what `host` reads
    /// through the user's bindings ([`State::continuity`]), a record read
    /// both ways once. A store problem gives none of the project's own.
    pub fn continuity_in(
        &self,
        host: agentspine_core::Host,
        root: &std::path::Path,
    ) -> Vec<agentspine_core::catalog::ContinuityItem> {
        if self.has_no_continuity() {
            return Vec::new();
        }
        let Some(store) = self.store() else { return Vec::new() };
        let own = match store.record_list(&store.root_digest(root)) {
            Ok(records) => records,
            Err(e) => {
                tracing::warn!("continuity: {e}; the project's own records are left out");
                Vec::new()
            }
        };
        let mut items: Vec<agentspine_core::catalog::ContinuityItem> = own
            .into_iter()
            .filter(|r| {
                r.status == agentspine_store::RecordStatus::Accepted && r.kind.is_context_in_own_project()
            })
            .take(agentspine_store::MAX_CONTINUITY_RECORDS)
            .map(|r| agentspine_core::catalog::ContinuityItem {
                binding_id: None,
                record_id: r.id,
                kind: r.kind.as_str().to_owned(),
                text: r.text,
            })
            .collect();
        let own_ids: Vec<i64> = items.iter().map(|i| i.record_id).collect();
        items.extend(self.continuity(host).into_iter().filter(|i| !own_ids.contains(&i.record_id)));
        items
    }

    /// Whether a hook saw that the database holds no record and no binding
    /// (see [`agentspine_store::Quick::has_no_continuity`]): then
    /// continuity is empty without asking it.
    fn has_no_continuity(&self) -> bool {
        self.quick.as_ref().is_some_and(agentspine_store::Quick::has_no_continuity)
    }

    /// The incidents of a damaged state database the user has not
    /// acknowledged (see [`agentspine_store::Incident`]); none without a
    /// store, or when they cannot be read (logged).
    pub fn incidents(&self) -> Vec<agentspine_store::Incident> {
        // A hook asks the database only when the incident file is there
        // or the database is open anyway (its open may just have repaired
        // it, after the file was looked for).
        if self.store.get().is_none() && self.quick.as_ref().is_some_and(|quick| !quick.may_have_incident()) {
            return Vec::new();
        }
        let Some(store) = self.store() else { return Vec::new() };
        // A hook's open already asked (see `had_unacknowledged_incident_at_open`).
        if self.quick.is_some() && !store.had_unacknowledged_incident_at_open() {
            return Vec::new();
        }
        store.incidents_unacknowledged().unwrap_or_else(|e| {
            tracing::warn!("{e}");
            Vec::new()
        })
    }

    /// The cache for one directory (a memory directory or a project root).
    pub fn cache_for(&self, dir: &Path) -> Option<StoreCache<'_>> {
        let store = self.store()?;
        Some(StoreCache { store, root: store.root_digest(dir), changes: RefCell::default() })
    }
}

/// What to tell the user about an incident wherever they meet it: what
/// happened, where the damaged copy is, what was recovered, and how to
/// stop being told.
pub fn incident_notice(incident: &agentspine_store::Incident) -> String {
    format!(
        "agentspine: {}. Run `agentspine doctor` for the details, and `agentspine doctor --acknowledge` once you \
         have read this.",
        incident.summary()
    )
}

/// Incidents as the `--json` surfaces show them: as stored, with their
/// summary.
pub fn incidents_json(incidents: &[agentspine_store::Incident]) -> serde_json::Value {
    incidents
        .iter()
        .map(|incident| {
            let mut value = serde_json::to_value(incident).expect("incidents serialize");
            value["summary"] = serde_json::Value::String(incident.summary());
            value
        })
        .collect()
}

/// Snapshots of one directory, kept in the store. Lookups read the store
/// as they come; what they change (recency, new snapshots, snapshots
/// dropped) is kept in order and written in one transaction when the
/// cache is dropped, or at [`StoreCache::flush`]: one commit per process
/// instead of one per file. Lost changes (a process killed first) cost
/// only a later re-read, since a snapshot is trusted only when the file's
/// identity still matches.
pub struct StoreCache<'a> {
    store: &'a Store,
    root: String,
    changes: RefCell<Vec<CacheChange>>,
}

impl StoreCache<'_> {
    /// Drops every snapshot of this directory (written at the flush; no
    /// lookup finds one from now on).
    pub fn drop_all(&self) {
        self.changes.borrow_mut().push(CacheChange::DropRoot);
    }

    /// Writes the changes kept so far, in one transaction.
    pub fn flush(&self) {
        let changes = std::mem::take(&mut *self.changes.borrow_mut());
        if let Err(e) = self.store.cache_apply(&self.root, &changes) {
            tracing::warn!("{e}");
        }
    }

    /// What the changes kept so far say about `rel`: `Some(snapshot)` or
    /// `Some(None)` when they decide it, `None` when the store does.
    fn pending(&self, rel: &str) -> Option<Option<CachedSnapshot>> {
        self.changes.borrow().iter().rev().find_map(|change| match change {
            CacheChange::Put { rel: put, identity, sha256, bytes, .. } if put == rel => {
                Some(Some(CachedSnapshot {
                    identity: *identity,
                    sha256: sha256.clone(),
                    bytes: bytes.clone(),
                }))
            }
            CacheChange::Drop(dropped) if dropped == rel => Some(None),
            CacheChange::Retain(keep) if !keep.iter().any(|k| k == rel) => Some(None),
            CacheChange::DropRoot => Some(None),
            _ => None,
        })
    }
}

impl Drop for StoreCache<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}

impl SnapshotCache for StoreCache<'_> {
    fn get(&self, rel: &str) -> Option<CachedSnapshot> {
        if let Some(decided) = self.pending(rel) {
            return decided;
        }
        let row = self.store.cache_peek(&self.root, rel).ok()??;
        if row.use_is_stale() {
            self.changes.borrow_mut().push(CacheChange::Touch(rel.to_owned()));
        }
        Some(CachedSnapshot { identity: row.identity, sha256: row.sha256, bytes: row.bytes })
    }

    fn put(&self, rel: &str, snapshot: &Snapshot, sha256: &str) {
        if snapshot.bytes.len() as u64 > agentspine_store::CACHE_CAP_BYTES {
            tracing::warn!(
                "cache: {rel}: not stored: {} bytes is over the cache's cap of {} bytes",
                snapshot.bytes.len(),
                agentspine_store::CACHE_CAP_BYTES
            );
            return;
        }
        self.changes.borrow_mut().push(CacheChange::Put {
            rel: rel.to_owned(),
            identity: snapshot.identity,
            sha256: sha256.to_owned(),
            bytes: snapshot.bytes.clone(),
            binding_id: None,
        });
    }

    fn forget(&self, rel: &str) {
        self.changes.borrow_mut().push(CacheChange::Drop(rel.to_owned()));
    }

    fn retain(&self, _index: &agentspine_fs::Identity, linked: &[String]) {
        self.changes.borrow_mut().push(CacheChange::Retain(linked.to_vec()));
    }

    fn forget_all(&self) {
        self.drop_all();
    }
}

impl agentspine_core::CacheProvider for State {
    fn cache_for<'a>(&'a self, dir: &Path) -> Option<Box<dyn SnapshotCache + 'a>> {
        State::cache_for(self, dir).map(|c| Box::new(c) as Box<dyn SnapshotCache + 'a>)
    }

    /// A hook trusts `state.db.no-cache` unless it opened the database
    /// anyway (then the database answers when asked).
    fn may_hold_snapshots(&self) -> bool {
        self.may_have(agentspine_store::Empty::Cache)
    }
}

impl State {
    /// The one resolver of a request: the process environment, `reader`,
    /// this store's source-id key and snapshot caches.
    pub fn resolver(&self, reader: agentspine_fs::Reader) -> agentspine_core::Resolver<'_> {
        resolver(reader).with_ids(self.source_ids()).with_caches(self)
    }
}

/// What a surface was asked for a catalog ([`State::catalog_request`]).
#[derive(Debug)]
pub struct CatalogAsk<'a> {
    /// Whose rules apply.
    pub host: agentspine_core::Host,
    /// The project root (canonical).
    pub root: PathBuf,
    /// The working directory, when given.
    pub cwd: Option<PathBuf>,
    /// A file or directory whose chain is wanted instead.
    pub target: Option<PathBuf>,
    /// The request's own scope argument (its name, its text).
    pub scope: Option<(&'static str, &'a str)>,
    /// The prompt, for relevance.
    pub prompt: Option<String>,
    /// Whether project Markdown is discovered.
    pub markdown: bool,
}

/// The reader of one request: bounded by core's two-second budget
/// ([`agentspine_core::REQUEST_DEADLINE`]).
pub fn reader() -> agentspine_fs::Reader {
    agentspine_fs::Reader::new(agentspine_fs::Budget::with_timeout(agentspine_core::REQUEST_DEADLINE))
}

/// The one way the binary builds a resolver: this process's environment,
/// read through `reader`, sources named with this process's key (a command
/// that shows no source id needs no store). [`State::resolver`] adds the
/// store's key, the same in every process, and its caches.
pub fn resolver<'a>(reader: agentspine_fs::Reader) -> agentspine_core::Resolver<'a> {
    agentspine_core::Resolver::new(agentspine_core::Environment::from_process(), reader)
}

#[cfg(test)]
mod tests {
    use agentspine_fs::Identity;

    use super::*;

    fn snapshot(bytes: &[u8], ino: u64) -> Snapshot {
        Snapshot {
            identity: Identity { dev: 1, ino, size: bytes.len() as u64, mtime_ns: 0, ctime_ns: 0 },
            bytes: bytes.to_vec(),
        }
    }

    #[test]
    fn changes_are_seen_at_once_and_written_when_the_cache_goes() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap().store;
        let state = State {
            store: OnceCell::from(Some(store)),
            warnings: Vec::new(),
            mode: agentspine_store::OpenMode::Default,
            quick: None,
            marks: OnceCell::new(),
            reports: OnceCell::new(),
        };
        let memory = Path::new("/memory");
        {
            let cache = state.cache_for(memory).unwrap();
            assert!(cache.get("a.md").is_none());
            cache.put("a.md", &snapshot(b"one", 1), "sha-one");
            cache.put("b.md", &snapshot(b"two", 2), "sha-two");
            // Seen by this process before anything is written...
            assert_eq!(cache.get("a.md").unwrap().bytes, b"one");
            let stored = state.store().unwrap();
            let root = stored.root_digest(memory);
            assert!(stored.cache_peek(&root, "a.md").unwrap().is_none(), "nothing written yet");
            cache.forget("b.md");
            assert!(cache.get("b.md").is_none());
        }
        // ...and written when the cache goes.
        let stored = state.store().unwrap();
        let root = stored.root_digest(memory);
        assert_eq!(stored.cache_peek(&root, "a.md").unwrap().unwrap().sha256, "sha-one");
        assert!(stored.cache_peek(&root, "b.md").unwrap().is_none());
        {
            let cache = state.cache_for(memory).unwrap();
            assert_eq!(cache.get("a.md").unwrap().bytes, b"one", "read from the store");
            cache.retain(&snapshot(b"index", 9).identity, &["c.md".to_owned()]);
            assert!(cache.get("a.md").is_none(), "not kept by the retain");
            cache.put("c.md", &snapshot(b"three", 3), "sha-three");
            cache.drop_all();
            assert!(cache.get("c.md").is_none(), "dropped with the rest");
            cache.put("d.md", &snapshot(b"four", 4), "sha-four");
        }
        assert!(stored.cache_peek(&root, "a.md").unwrap().is_none());
        assert!(stored.cache_peek(&root, "c.md").unwrap().is_none());
        assert_eq!(stored.cache_peek(&root, "d.md").unwrap().unwrap().bytes, b"four");
    }
}
