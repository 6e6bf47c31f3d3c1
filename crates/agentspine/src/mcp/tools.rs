//! What each tool does: checks its arguments, asks agentspine-core, and
//! returns the JSON the client gets. Nothing here knows JSON-RPC; the
//! handlers in `server.rs` run these functions off the async loop.
//!
//! The project root is used exactly as given: an absolute path to an
//! existing directory, never walked up from, never guessed, and it must be
//! one of the roots this server was started for (or inside one): the
//! client's MCP roots, the project of the directory it was launched in,
//! and `--root` arguments ([`agentspine_core::Resolver::check_root`]).
//! Paths inside it (`cwd`, `target_path`) may be relative to it; `..` is
//! refused everywhere. No call holds shared state while it reads: each
//! opens the state store for itself.

use std::collections::VecDeque;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use agentspine_core::catalog::{self, Catalog, CatalogRequest, DocumentError, PreflightError, SourceIds};
use agentspine_core::policy::{NamedRoots, NeverProjects};
use agentspine_core::resolver::RootCheck;
use agentspine_core::{Host, Request, ResolveError, Resolver, render_native};
use agentspine_fs::{Budget, Reader};
use serde_json::Value;

use super::params::{KnowledgeQueryParams, ReadDocumentParams, ResolveContextParams, SessionBriefingParams};
use crate::state::{CatalogAsk, State};

/// How long one tool call may spend reading before it stops starting reads.
const DEADLINE: Duration = agentspine_core::REQUEST_DEADLINE;
/// Largest `budget_bytes`.
pub const MAX_BUDGET: usize = 1024 * 1024;
/// Default and largest `k`.
pub const DEFAULT_K: usize = 5;
pub const MAX_K: usize = 50;
/// Longest query, in bytes (ranking cost grows with its words).
pub const MAX_QUERY: usize = 2048;
/// Catalogs kept for `read_document`, newest last.
const REMEMBERED: usize = 4;

/// Why a tool call failed; shown to the client as one line.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// An argument is unusable; the message names it.
    #[error("{0}")]
    Argument(String),
    /// The request cannot be resolved (root, target, reader refusal).
    #[error(transparent)]
    Resolve(#[from] ResolveError),
    /// The root is not one this server may resolve.
    #[error(transparent)]
    Root(#[from] agentspine_core::policy::RootRefused),
    /// `required: true` and discovery was incomplete.
    #[error("{0}; no briefing or receipt is given (fix the cause and call again)")]
    Preflight(#[from] PreflightError),
    /// The source id is unknown or its file cannot be read again.
    #[error(transparent)]
    Document(#[from] DocumentError),
}

impl ToolError {
    /// The message on one line.
    pub fn one_line(&self) -> String {
        self.to_string().split_whitespace().collect::<Vec<_>>().join(" ")
    }
}

/// A catalog built earlier in this session, so that `read_document` finds
/// the ids a briefing or query returned (memory facts picked by a prompt
/// included) without rediscovering.
struct Remembered {
    root: PathBuf,
    host: Host,
    catalog: Arc<Catalog>,
}

/// Everything the tools share for the life of the server.
pub struct Tools {
    ids: SourceIds,
    recent: Mutex<VecDeque<Remembered>>,
    /// `--root` arguments.
    roots: Vec<PathBuf>,
    /// The directory the server was launched in.
    launch_dir: Option<PathBuf>,
    /// Found at the first call (inside its bound, never at start) and kept
    /// for the life of the server: the launch directory's project root,
    /// and the home directory and profiles that are never a project.
    launch: OnceLock<(Option<PathBuf>, NeverProjects)>,
    /// The `--root` arguments in the link-free form each named when it was
    /// first found (`None` until then: one named before it exists is
    /// looked for again on each call).
    given: Mutex<Vec<Option<PathBuf>>>,
}

/// The roots a client offers (`roots/list`), when it has the capability.
pub type ClientRoots = Option<Vec<PathBuf>>;

impl Tools {
    /// Checks the state store once (or runs uncached, with a warning); the
    /// server may resolve `roots`, the launch directory's project and the
    /// client's MCP roots.
    pub fn open(roots: Vec<PathBuf>, launch_dir: Option<PathBuf>) -> Tools {
        let state = State::open();
        for warning in &state.warnings {
            tracing::warn!("{warning}");
        }
        // One key for the whole session, so ids stay valid between calls
        // even when there is no store to derive it from.
        let ids = state.source_ids();
        let given = Mutex::new(vec![None; roots.len()]);
        Tools { ids, recent: Mutex::new(VecDeque::new()), roots, launch_dir, launch: OnceLock::new(), given }
    }

    /// The state store for one call (never shared across a read).
    fn state(&self) -> State {
        State::open()
    }

    /// A resolver for one call (`state`: with the store's caches), with
    /// what the launch fixed.
    fn resolver<'a>(&self, state: Option<&'a State>) -> Resolver<'a> {
        let resolver =
            crate::state::resolver(Reader::new(Budget::with_timeout(DEADLINE))).with_ids(self.ids.clone());
        let (_, never) = self.launch.get_or_init(|| {
            let never = resolver.never_projects().clone();
            (self.launch_dir.as_deref().and_then(|dir| resolver.launch_root(dir)), never)
        });
        // The user named the `--root` arguments: a link on one is followed
        // once, when it is first found, and the server keeps that form.
        {
            let mut given = self.given.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            for (slot, named) in given.iter_mut().zip(&self.roots) {
                if slot.is_none() {
                    *slot = resolver.allowed_roots(std::slice::from_ref(named)).roots().first().cloned();
                }
            }
        }
        // Every root a call names, and every client root, is taken as
        // given: a link on its path is refused, on every call.
        let resolver = resolver.with_never_projects(never.clone()).with_named_roots(NamedRoots::TakenAsGiven);
        match state {
            Some(state) => resolver.with_caches(state),
            None => resolver,
        }
    }

    /// `project_root` as given, canonical, if this server may resolve it.
    /// Checked through a reader of its own, so the call's counters show
    /// the call's work only.
    fn root(&self, client: &ClientRoots, asked: &Path) -> Result<PathBuf, ToolError> {
        let asked = exact_root(asked)?;
        let resolver = self.resolver(None);
        let launch = self.launch.get().and_then(|(root, _)| root.clone());
        let named = self.given.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        let mut given: Vec<PathBuf> = launch.into_iter().chain(named.into_iter().flatten()).collect();
        given.extend(client.iter().flatten().cloned());
        let allowed = resolver.allowed_roots(&given);
        resolver.check_root(&allowed, &asked).map_err(|e| match e {
            RootCheck::Resolve(ResolveError::NoSuchDirectory { path }) => {
                ToolError::Argument(format!("project_root {}: no such directory", path.display()))
            }
            RootCheck::Resolve(ResolveError::NotADirectory { path }) => {
                ToolError::Argument(format!("project_root {}: not a directory", path.display()))
            }
            RootCheck::Resolve(e) => ToolError::Resolve(e),
            RootCheck::Refused(e) => ToolError::Root(e),
        })
    }

    /// `session_briefing`: the byte-budgeted briefing of the catalog.
    pub fn session_briefing(
        &self,
        client: &ClientRoots,
        p: SessionBriefingParams,
    ) -> Result<Value, ToolError> {
        let state = self.state();
        let root = self.root(client, &p.project_root)?;
        let resolver = self.resolver(Some(&state));
        let budget = p.budget_bytes.unwrap_or(catalog::briefing::DEFAULT_BUDGET);
        if budget == 0 || budget > MAX_BUDGET {
            return Err(ToolError::Argument(format!(
                "budget_bytes must be between 1 and {MAX_BUDGET}, got {budget}"
            )));
        }
        let cwd = p.cwd.as_deref().map(|c| inside(&root, c, "cwd")).transpose()?;
        let joined = p.scope.as_deref().map(|ids| ids.join(" "));
        let request = catalog_request(
            &state,
            CatalogAsk {
                host: p.host,
                root,
                cwd,
                target: None,
                scope: joined.as_deref().map(|j| ("scope", j)),
                prompt: p.prompt,
                markdown: true,
            },
        )?;
        let catalog = resolver.catalog(&request)?;
        state.audit_gaps("mcp", &catalog.resolution);
        let receipt = if p.required { Some(required(&state, &catalog)?) } else { None };
        let briefing = catalog::briefing(&catalog, budget);
        let mut value = to_json(&briefing);
        value["sources"] = to_json(&catalog.sources);
        value["receipt"] = to_json(&receipt);
        self.remember(catalog);
        Ok(value)
    }

    /// `delivery_knowledge_query`: ranked passages of the same catalog.
    pub fn knowledge_query(&self, client: &ClientRoots, p: KnowledgeQueryParams) -> Result<Value, ToolError> {
        let state = self.state();
        let root = self.root(client, &p.project_root)?;
        let resolver = self.resolver(Some(&state));
        let text = p.query.trim();
        if text.is_empty() {
            return Err(ToolError::Argument("query is empty: say what you want to know in words".into()));
        }
        if text.len() > MAX_QUERY {
            return Err(ToolError::Argument(format!(
                "query is {} bytes; at most {MAX_QUERY} (ask in a few words)",
                text.len()
            )));
        }
        let k = p.k.unwrap_or(DEFAULT_K);
        if k == 0 || k > MAX_K {
            return Err(ToolError::Argument(format!("k must be between 1 and {MAX_K}, got {k}")));
        }
        let request = catalog_request(
            &state,
            CatalogAsk {
                host: p.host,
                root,
                cwd: None,
                target: None,
                scope: None,
                prompt: Some(text.to_owned()),
                markdown: true,
            },
        )?;
        let catalog = resolver.catalog(&request)?;
        state.audit_gaps("mcp", &catalog.resolution);
        let receipt = if p.required { Some(required(&state, &catalog)?) } else { None };
        let answer = catalog::query(&catalog, text, k, catalog::briefing::DEFAULT_BUDGET);
        let mut value = to_json(&answer);
        value["receipt"] = to_json(&receipt);
        self.remember(catalog);
        Ok(value)
    }

    /// `resolve_context`: the host's chain for one target, as the CLI's
    /// `resolve --json` shows it.
    pub fn resolve_context(&self, client: &ClientRoots, p: ResolveContextParams) -> Result<Value, ToolError> {
        let state = self.state();
        let root = self.root(client, &p.project_root)?;
        let resolver = self.resolver(Some(&state));
        let target = inside(&root, &p.target_path, "target_path")?;
        let request = Request {
            host: p.host,
            cwd: root.clone(),
            root: Some(root),
            target: Some(target),
            transcript_path: None,
        };
        let resolution = resolver.chain(&request)?;
        let native = render_native(&resolution);
        let mut value = to_json(&resolution);
        value["native_bytes"] = Value::from(native.len());
        value["native"] = Value::String(native);
        Ok(value)
    }

    /// `read_document`: one source of the project's catalog, read again.
    pub fn read_document(&self, client: &ClientRoots, p: ReadDocumentParams) -> Result<Value, ToolError> {
        let state = self.state();
        let root = self.root(client, &p.project_root)?;
        let resolver = self.resolver(Some(&state));
        let host = p.host;
        let id = p.source_id.trim();
        if !id.starts_with("src_") || id.len() > 64 {
            return Err(ToolError::Argument(
                "source_id must be an id returned by session_briefing or delivery_knowledge_query (src_…); \
                 paths are not accepted"
                    .into(),
            ));
        }
        let remembered = {
            let recent = self.recent.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            recent
                .iter()
                .rev()
                // A continuity source is looked up afresh: a rollback or
                // purge since the briefing takes effect on this call.
                .find(|r| {
                    r.root == root
                        && r.host == host
                        && r.catalog.source(id).is_some_and(|s| s.scope != agentspine_core::Scope::Continuity)
                })
                .map(|r| r.catalog.clone())
        };
        let catalog = match remembered {
            Some(catalog) => catalog,
            None => {
                let request = catalog_request(
                    &state,
                    CatalogAsk {
                        host,
                        root,
                        cwd: None,
                        target: None,
                        scope: None,
                        prompt: None,
                        markdown: true,
                    },
                )?;
                {
                    let catalog = resolver.catalog(&request)?;
                    state.audit_gaps("mcp", &catalog.resolution);
                    Arc::new(catalog)
                }
            }
        };
        let document = catalog::read_document(&catalog, resolver.reader(), id)?;
        Ok(to_json(&document))
    }

    fn remember(&self, catalog: Catalog) {
        let mut recent = self.recent.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let root = catalog.resolution.project_root.clone();
        let host = catalog.resolution.host;
        recent.push_back(Remembered { root, host, catalog: Arc::new(catalog) });
        while recent.len() > REMEMBERED {
            recent.pop_front();
        }
    }
}

/// With `required: true`: the receipt, or the error naming every cause
/// (and an audit row, as the CLI writes).
fn required(state: &State, catalog: &Catalog) -> Result<catalog::Receipt, ToolError> {
    state.preflight(catalog, "mcp").map_err(ToolError::Preflight)
}

/// The project root exactly as given, in its canonical form: absolute, no
/// `..`, an existing directory.
fn exact_root(path: &Path) -> Result<PathBuf, ToolError> {
    if !path.is_absolute() {
        return Err(ToolError::Argument(format!(
            "project_root must be the absolute path of the project root directory, got {:?} \
             (nothing is guessed: pass the exact root)",
            path.display().to_string()
        )));
    }
    if has_parent(path) {
        return Err(ToolError::Argument(format!(
            "project_root must not contain `..`, got {:?}",
            path.display().to_string()
        )));
    }
    // Opened (and held to the no-link rule) by the resolver's root check.
    Ok(path.to_path_buf())
}

/// A path inside the root: absolute, or relative to the root; no `..`.
/// Whether it really lies inside is checked by the resolution itself.
fn inside(root: &Path, path: &Path, what: &str) -> Result<PathBuf, ToolError> {
    if path.as_os_str().is_empty() || has_parent(path) {
        return Err(ToolError::Argument(format!(
            "{what} must be a path inside project_root without `..`, got {:?}",
            path.display().to_string()
        )));
    }
    Ok(if path.is_absolute() { path.to_path_buf() } else { root.join(path) })
}

fn has_parent(path: &Path) -> bool {
    path.components().any(|c| c == Component::ParentDir)
}

/// The catalog request of this call ([`State::catalog_request`]): MCP
/// tools always discover project Markdown; a malformed scope argument is
/// the caller's error.
fn catalog_request(state: &State, ask: CatalogAsk<'_>) -> Result<CatalogRequest, ToolError> {
    state.catalog_request(ask).map_err(|e| ToolError::Argument(e.to_string()))
}

fn to_json<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("tool results always serialize")
}
