//! The methods, by role.
//!
//! - Any connection: `host.authenticate {control_token}` (makes this
//!   connection the host's) and the sidecar's one method,
//!   `project.instructions.resolve {session_id, token, path}`.
//! - The host's connection only: `projects.*`, `session.*`,
//!   `instructions.global.*`, `project.agents_md.*`.
//!
//! The sidecar has no method that reads a file by path: it names a path
//! and gets back the chain that applies there, nothing else.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use agentspine_core::Environment;
use agentspine_fs::{Budget, Reader};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::sync::Semaphore;

use super::chain::{self, Chain, Failure, codes};
use super::files;
use super::sessions::{Registry, Session};
use super::wire::{self, Fault};

/// How long a path-specific resolution may take before the base chain
/// answers instead (ADR 0037).
pub const DEADLINE: Duration = agentspine_core::REQUEST_DEADLINE;

/// Resolutions running on workers at once, across all connections. A worker
/// stuck in the kernel keeps its slot until it returns; a request that
/// cannot get one before its deadline gets the base chain.
const WORKERS: usize = 32;

/// Everything the connections share.
pub struct Server {
    control_token: String,
    env: Environment,
    registry: Mutex<Registry>,
    writes: Mutex<()>,
    workers: Arc<Semaphore>,
    /// The state store, for audit rows and continuity; opened at the first
    /// need.
    state: Arc<OnceLock<Mutex<crate::state::State>>>,
}

/// What a connection has proved.
#[derive(Debug, Default)]
pub struct Role {
    pub host: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Authenticate {
    control_token: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Root {
    root: PathBuf,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Bind {
    session_id: String,
    project_root: PathBuf,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionId {
    session_id: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GlobalWrite {
    content: String,
    #[serde(default)]
    expected_sha256: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProjectRoot {
    project_root: PathBuf,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProjectWrite {
    project_root: PathBuf,
    content: String,
    #[serde(default)]
    expected_sha256: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Resolve {
    session_id: String,
    token: String,
    path: String,
}

fn params<T: DeserializeOwned>(method: &str, value: Value) -> Result<T, Fault> {
    let value = if value.is_null() { json!({}) } else { value };
    serde_json::from_value(value).map_err(|e| Fault::params(format!("Invalid params for {method}: {e}")))
}

/// Runs blocking disk work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, Fault> + Send + 'static,
) -> Result<T, Fault> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| Err(Fault::new(codes::FILE, "internal", format!("the work failed: {e}"))))
}

fn new_token() -> Result<String, Fault> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| {
        Fault::new(codes::FILE, "no-random", format!("no random source for the session token: {e}"))
    })?;
    Ok(hex::encode(bytes))
}

/// A directory the host named: absolute, opened exactly as spelled with no
/// link on its path (its handle is what a session holds), and named
/// canonical.
fn open_dir(path: &Path) -> Result<agentspine_fs::Root, Fault> {
    if !path.is_absolute() {
        return Err(Fault::params(format!("{}: a project root must be an absolute path", path.display())));
    }
    // The host names the root: taken as given, never through a link.
    let reader = Reader::new(Budget::with_timeout(DEADLINE));
    reader.open_root_without_links(path).map_err(|e| match e {
        agentspine_fs::FsError::Symlink { path: link } => Fault::new(
            codes::SYMLINK,
            "root-through-link",
            agentspine_core::ResolveError::RootThroughLink { path: path.to_path_buf(), link }.to_string(),
        ),
        e => Fault::new(codes::NOT_REGISTERED, "no-such-directory", format!("{e}")),
    })
}

fn canonical(path: &Path) -> Result<PathBuf, Fault> {
    open_dir(path).map(|root| root.host_path().to_path_buf())
}

/// Milliseconds, to the microsecond.
fn millis(since: Instant) -> f64 {
    (since.elapsed().as_micros() as f64) / 1000.0
}

impl Server {
    pub fn new(control_token: String, env: Environment) -> Server {
        Server {
            control_token,
            env,
            registry: Mutex::new(Registry::default()),
            writes: Mutex::new(()),
            workers: Arc::new(Semaphore::new(WORKERS)),
            state: Arc::default(),
        }
    }

    fn registry(&self) -> MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The canonical form of a root the host registered.
    fn registered(&self, given: &Path) -> Result<PathBuf, Fault> {
        let not_registered = |why: String| {
            Fault::new(
                codes::NOT_REGISTERED,
                "not-registered",
                format!(
                    "{}: not a registered project root{why} (projects.register it first)",
                    given.display()
                ),
            )
        };
        let root = canonical(given).map_err(|e| not_registered(format!(": {}", e.message)))?;
        if self.registry().is_registered(&root) { Ok(root) } else { Err(not_registered(String::new())) }
    }

    /// Whether a resolution's params name a bound session and carry its
    /// token: what makes a connection a sidecar's for the connection
    /// limits. Asked only while a connection has not yet authenticated.
    pub fn proves_sidecar(&self, params: &Value) -> bool {
        let field = |name: &str| params.get(name).and_then(Value::as_str);
        match (field("session_id"), field("token")) {
            (Some(id), Some(token)) => self.registry().authorize(id, token).is_ok(),
            _ => false,
        }
    }

    /// Carries out one request for a connection with `role`.
    pub async fn call(self: &Arc<Self>, role: &mut Role, method: &str, value: Value) -> Result<Value, Fault> {
        match method {
            "host.authenticate" => {
                let p: Authenticate = params(method, value)?;
                let (a, b) = (self.control_token.as_bytes(), p.control_token.as_bytes());
                let same = a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0;
                if !same {
                    return Err(Fault::new(
                        codes::UNAUTHORIZED,
                        "unauthorized",
                        "the control token is not this server's",
                    ));
                }
                role.host = true;
                let mut answer = json!({ "role": "host" });
                if let Some(incidents) = self.state_incidents().await {
                    answer["state_incidents"] = incidents;
                }
                return Ok(answer);
            }
            "project.instructions.resolve" => return self.resolve(params(method, value)?).await,
            _ => {}
        }
        let host_method = matches!(
            method,
            "projects.register"
                | "projects.unregister"
                | "projects.list"
                | "session.bind"
                | "session.prompt_begin"
                | "session.end"
                | "instructions.global.read"
                | "instructions.global.write"
                | "project.agents_md.read"
                | "project.agents_md.write"
        );
        if !host_method {
            return Err(Fault::new(
                wire::METHOD_NOT_FOUND,
                "method-not-found",
                format!("Method not found: {method}"),
            ));
        }
        if !role.host {
            return Err(Fault::new(
                codes::UNAUTHORIZED,
                "unauthorized",
                format!(
                    "{method} is the host's: call host.authenticate with the control token on this connection first"
                ),
            ));
        }
        match method {
            "projects.register" => {
                let p: Root = params(method, value)?;
                let root = blocking(move || {
                    let root = canonical(&p.root)?;
                    // Home, above it and a profile are never a project.
                    let resolver = crate::state::resolver(Reader::new(Budget::with_timeout(DEADLINE)));
                    let kind = resolver.classify(&root);
                    if let Some(reason) = kind.reason() {
                        return Err(Fault::new(
                            codes::NOT_A_PROJECT,
                            reason,
                            format!("{}: not registered: {}", root.display(), kind.explain()),
                        ));
                    }
                    Ok(root)
                })
                .await?;
                let added = self.registry().register(root.clone());
                Ok(json!({ "root": root, "registered": true, "already": !added }))
            }
            "projects.unregister" => {
                let p: Root = params(method, value)?;
                let root = self.registered(&p.root)?;
                let ended = self.registry().unregister(&root).unwrap_or(0);
                Ok(json!({ "root": root, "registered": false, "ended_sessions": ended }))
            }
            "projects.list" => {
                let _: NoParams = params(method, value)?;
                let registry = self.registry();
                let projects: Vec<Value> = registry
                    .projects()
                    .map(|r| json!({ "root": r, "sessions": registry.sessions_of(r) }))
                    .collect();
                Ok(json!({ "projects": projects }))
            }
            "session.bind" => self.bind(params(method, value)?).await,
            "session.prompt_begin" => self.prompt_begin(params(method, value)?).await,
            "session.end" => {
                let p: SessionId = params(method, value)?;
                if !self.registry().end(&p.session_id) {
                    return Err(self
                        .registry()
                        .session(&p.session_id)
                        .expect_err("the session was just found missing"));
                }
                Ok(json!({ "session_id": p.session_id, "ended": true }))
            }
            "instructions.global.read" => {
                let _: NoParams = params(method, value)?;
                let dir = self.global_dir()?;
                Ok(json!(blocking(move || files::read(&dir)).await?))
            }
            "instructions.global.write" => {
                let p: GlobalWrite = params(method, value)?;
                let home = self.home()?;
                let server = self.clone();
                let written = blocking(move || {
                    let _one_writer = server.writes.lock().unwrap_or_else(|p| p.into_inner());
                    let dir = files::ensure_global_dir(&home)?;
                    files::write(&dir, &p.content, p.expected_sha256.as_deref())
                })
                .await?;
                Ok(json!({ "path": written.path, "sha256": written.sha256, "bytes": written.bytes }))
            }
            "project.agents_md.read" => {
                let p: ProjectRoot = params(method, value)?;
                let root = self.registered(&p.project_root)?;
                Ok(json!(blocking(move || files::read(&root)).await?))
            }
            "project.agents_md.write" => {
                let p: ProjectWrite = params(method, value)?;
                let root = self.registered(&p.project_root)?;
                let server = self.clone();
                let written = blocking(move || {
                    let _one_writer = server.writes.lock().unwrap_or_else(|p| p.into_inner());
                    files::write(&root, &p.content, p.expected_sha256.as_deref())
                })
                .await?;
                Ok(json!({ "path": written.path, "sha256": written.sha256, "bytes": written.bytes }))
            }
            _ => unreachable!("every host method is matched above"),
        }
    }

    fn home(&self) -> Result<PathBuf, Fault> {
        self.env.home.clone().ok_or_else(|| {
            Fault::new(
                codes::FILE,
                "no-home",
                "HOME is not set (or not absolute): the global file ~/.pi/agent/AGENTS.md has no place",
            )
        })
    }

    fn global_dir(&self) -> Result<PathBuf, Fault> {
        Ok((super::HOST.profile().home)(&self.env).unwrap_or(self.home()?.join(".pi/agent")))
    }

    /// The root chain, resolved on a worker within [`DEADLINE`] (a worker
    /// stuck in the kernel is left behind, as for the sidecar's resolutions).
    async fn root_chain(&self, handle: &agentspine_fs::Root) -> Result<Chain, Fault> {
        let handle = handle.clone();
        let root = handle.host_path().to_path_buf();
        let deadline = Instant::now() + DEADLINE;
        let unavailable = |root: &Path, reason: String| {
            Fault::new(
                codes::FILE,
                "root-chain-unavailable",
                format!("{}: the root chain could not be resolved ({reason})", root.display()),
            )
        };
        let shown = root.clone();
        let work = blocking(move || {
            chain::root_chain(&root, &handle, deadline).map_err(|failure| match failure {
                Failure::Refused(fault) => fault,
                Failure::Fallback(reason) => unavailable(&root, reason),
            })
        });
        match tokio::time::timeout_at(tokio::time::Instant::from_std(deadline), work).await {
            Ok(outcome) => outcome,
            Err(_) => {
                Err(unavailable(&shown, format!("deadline: no answer within {} ms", DEADLINE.as_millis())))
            }
        }
    }

    async fn bind(&self, p: Bind) -> Result<Value, Fault> {
        if p.session_id.is_empty() || p.session_id.len() > 256 {
            return Err(Fault::params("session_id must be 1 to 256 bytes"));
        }
        let root = self.registered(&p.project_root)?;
        let handle = {
            let root = root.clone();
            blocking(move || open_dir(&root)).await?
        };
        let chain = self.root_chain(&handle).await?;
        let session = Session::new(p.session_id, handle, p.project_root.clone(), new_token()?, chain);
        let session = {
            let mut registry = self.registry();
            // The root may have been unregistered meanwhile.
            if !registry.is_registered(&root) {
                return Err(Fault::new(
                    codes::NOT_REGISTERED,
                    "not-registered",
                    format!("{}: unregistered while binding", root.display()),
                ));
            }
            registry.bind(session)
        };
        let base = session.prompt().base.clone();
        Ok(json!({
            "session_id": session.id,
            "project_root": session.root,
            "token": session.token(),
            "chain": *base,
            "continuity": self.continuity(&root).await,
        }))
    }

    /// The store's unacknowledged incidents for the host's
    /// `host.authenticate` answer (`state_incidents`, as `doctor --json`
    /// and `record list --json` show them, each with its `summary`), for
    /// the desktop app to show its user: the host's connection is the
    /// app's, never the model's, so no resolution a sidecar gets carries
    /// them. `None` when there is none, or the store does not answer
    /// within [`DEADLINE`].
    async fn state_incidents(&self) -> Option<Value> {
        let state = Arc::clone(&self.state);
        let read = tokio::task::spawn_blocking(move || {
            let state = state.get_or_init(|| Mutex::new(crate::state::State::open()));
            state.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).incidents()
        });
        match tokio::time::timeout(DEADLINE, read).await {
            Ok(Ok(incidents)) if !incidents.is_empty() => Some(crate::state::incidents_json(&incidents)),
            Ok(Ok(_)) => None,
            Ok(Err(e)) => {
                tracing::warn!("state incidents: {e}");
                None
            }
            Err(_) => {
                tracing::warn!(
                    "state incidents: no answer from the state store within {} ms",
                    DEADLINE.as_millis()
                );
                None
            }
        }
    }

    /// What a session of the project at `root` carries, asked of the same
    /// rule every other surface asks (`State::continuity_in`): the
    /// project's own accepted records (labelled `project/...`), then the
    /// accepted portable records the user's desktop bindings carry
    /// (labelled with their binding), as context only (they grant
    /// nothing). Read afresh for every bind and prompt, so a new record,
    /// a rollback or a purge holds from the next prompt. A store that
    /// cannot be read within [`DEADLINE`], or a binding chain that does
    /// not verify, gives none through bindings (and, for the chain, an
    /// audit row).
    async fn continuity(&self, root: &Path) -> Value {
        let state = Arc::clone(&self.state);
        let root = root.to_path_buf();
        let read = tokio::task::spawn_blocking(move || {
            let state = state.get_or_init(|| Mutex::new(crate::state::State::open()));
            let state = state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            state.continuity_in(super::HOST, &root)
        });
        let items = match tokio::time::timeout(DEADLINE, read).await {
            Ok(Ok(items)) => items,
            Ok(Err(e)) => {
                tracing::warn!("continuity: {e}");
                Vec::new()
            }
            Err(_) => {
                tracing::warn!(
                    "continuity: no answer from the state store within {} ms",
                    DEADLINE.as_millis()
                );
                Vec::new()
            }
        };
        Value::Array(
            items
                .iter()
                .map(|item| {
                    json!({
                        "label": item.label(),
                        "kind": item.kind,
                        "text": item.text,
                        "sha256": item.sha256(),
                    })
                })
                .collect(),
        )
    }

    /// A new prompt: the cache is dropped and the root chain resolved
    /// again. When it cannot be (the 2-second bound, a resolver error), the
    /// previous root chain stays the base, `rebuild` is false and
    /// `fallback` says why.
    async fn prompt_begin(&self, p: SessionId) -> Result<Value, Fault> {
        let session = self.registry().session(&p.session_id)?;
        let (chain, fallback) = match self.root_chain(&session.handle).await {
            Ok(chain) => (Some(chain), Value::Null),
            Err(fault) => (None, json!({ "reason": fault.message })),
        };
        let mut answer = {
            let mut prompt = session.prompt();
            let base = chain.unwrap_or_else(|| (*prompt.base).clone());
            let rebuild = prompt.begin(base);
            json!({
                "session_id": session.id,
                "prompt": prompt.number,
                "rebuild": rebuild,
                "chain": *prompt.base,
                "fallback": fallback,
            })
        };
        answer["continuity"] = self.continuity(&session.root).await;
        Ok(answer)
    }

    /// Records a fallback in the audit log (`agentspine audit --host
    /// desktop`), off the request's path: the answer does not wait for it.
    fn audit_fallback(self: &Arc<Self>, session: &Session, rel: &str, reason: &str) {
        let event = agentspine_store::AuditEvent {
            host: "desktop".to_owned(),
            event: "resolve-fallback".to_owned(),
            phase: "resolve".to_owned(),
            code: reason.split(':').next().unwrap_or(reason).to_owned(),
            path: Some(session.root.join(rel).display().to_string()),
            detail: Some(format!("session {:?}: the root chain answered instead ({reason})", session.id)),
        };
        let state = Arc::clone(&self.state);
        tokio::task::spawn_blocking(move || {
            let state = state.get_or_init(|| Mutex::new(crate::state::State::open()));
            state.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).audit(event);
        });
    }

    /// The sidecar's method: the complete chain for a path's directory,
    /// from this prompt's cache or resolved within [`DEADLINE`], else the
    /// base chain with the reason.
    async fn resolve(self: &Arc<Self>, p: Resolve) -> Result<Value, Fault> {
        let start = Instant::now();
        let deadline = start + DEADLINE;
        let session = self.registry().authorize(&p.session_id, &p.token)?;
        let names = chain::sidecar_path(&p.path, &session.root, &session.alias)?;
        let key = names.join("/");
        let (number, cached, base) = {
            let prompt = session.prompt();
            (prompt.number, prompt.by_path(&key), prompt.base.clone())
        };
        let answer = |chain: &Chain, cache: &str, fallback: Value| {
            json!({
                "session_id": session.id,
                "prompt": number,
                "path": if key.is_empty() { "." } else { key.as_str() },
                "chain": chain,
                "duration_ms": millis(start),
                "cache": cache,
                "fallback": fallback,
            })
        };
        if let Some(chain) = cached {
            return Ok(answer(&chain, "hit", Value::Null));
        }
        let work = {
            let session = session.clone();
            move || -> Result<(String, Arc<Chain>, bool), Failure> {
                let dir = chain::chain_dir(&session.root, &session.handle, &names, deadline, true)?;
                let dir_key = dir.join("/");
                {
                    let prompt = session.prompt();
                    if prompt.number == number
                        && let Some(chain) = prompt.by_dir(&dir_key)
                    {
                        return Ok((dir_key, chain, true));
                    }
                }
                let chain = chain::dir_chain(&session.root, &session.handle, &dir, deadline)?;
                Ok((dir_key, Arc::new(chain), false))
            }
        };
        let workers = self.workers.clone();
        let outcome = tokio::time::timeout_at(tokio::time::Instant::from_std(deadline), async move {
            let permit = workers.acquire_owned().await.expect("the worker semaphore is never closed");
            tokio::task::spawn_blocking(move || {
                let _permit = permit;
                work()
            })
            .await
        })
        .await;
        let reason = match outcome {
            Ok(Ok(Ok((dir, chain, hit)))) => {
                let mut prompt = session.prompt();
                if prompt.number == number {
                    prompt.remember(&key, &dir, (!hit).then(|| chain.clone()));
                }
                drop(prompt);
                return Ok(answer(&chain, if hit { "hit" } else { "miss" }, Value::Null));
            }
            Ok(Ok(Err(Failure::Refused(fault)))) => return Err(fault),
            Ok(Ok(Err(Failure::Fallback(reason)))) => reason,
            Ok(Err(e)) => format!("resolver-error: the worker failed: {e}"),
            Err(_) => format!("deadline: no answer within {} ms", DEADLINE.as_millis()),
        };
        tracing::info!("serve: session {}: {}: base chain instead ({reason})", session.id, p.path);
        let value = answer(&base, "miss", json!({ "reason": reason }));
        self.audit_fallback(&session, &key, &reason);
        Ok(value)
    }
}
