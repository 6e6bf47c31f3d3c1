//! The MCP surface: server identity, the four tools and their descriptions.
//! Each handler runs its tool (`tools.rs`) on the blocking pool, so a slow
//! disk never stalls the protocol loop, and turns a tool failure into an
//! `isError` result. Malformed arguments and unknown tools never reach a
//! handler: rmcp answers them with JSON-RPC errors.

use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, tool, tool_handler, tool_router};
use serde_json::Value;

use super::params::{KnowledgeQueryParams, ReadDocumentParams, ResolveContextParams, SessionBriefingParams};
use super::tools::{ClientRoots, ToolError, Tools};

const INSTRUCTIONS: &str = "agentspine tells you which instructions and memory apply to a project, exactly \
as your host (Claude Code, Codex CLI, Gemini CLI, pi, a desktop app) would load them, read safely. Call \
session_briefing once at the start of a session with the exact absolute project root; call \
resolve_context before working in a directory you have not seen; use delivery_knowledge_query for a \
specific question and read_document for the full text of a source the other tools named. Nothing is \
guessed: paths you pass are used as given, and only the project this server was started for (and your \
client's roots) can be resolved.";

const SESSION_BRIEFING: &str = "Start here: call once at the beginning of a session, and again when \
you switch project, task or scope. Returns the instructions and memory that apply to the project as \
one byte-budgeted text (`text`), each part headed `## <path> · <scope> · <source_id>`, in priority \
order: your user-level instruction files, the project's instruction chain from the root down to cwd, \
the memory index and the memory facts proven relevant (host claude), then project Markdown (README, \
docs) in what budget is left. Also returns `parts` (what each part holds, and whether the budget cut \
it), `omitted` (source ids that did not fit; read them with read_document), `sources` (every source \
with its scope, size and SHA-256), and `sourceResolution` (which scopes were checked, counts, \
warnings, and `reason` when nothing could be loaded, e.g. root-is-home). Arguments: project_root is \
required and must be the exact absolute path of the project root (the repository root, not a \
subdirectory); it is used as given, never walked up from or guessed. host is whose loading rules to \
apply (codex, claude, gemini, pi, pi-0.73, desktop or generic; default generic = project files only). cwd is where you \
work (absolute or relative to project_root). scope lists typed ids (person:ID, project:ID, group:ID, \
task:ID) that make scoped memory facts relevant; prompt is the user's request, whose words make \
keyword-tagged facts relevant. budget_bytes caps the text (default 65536). required=true fails with \
no briefing unless every required source resolved completely, and returns a `receipt` (proof of what \
was resolved, never a permission) when it did.";

const KNOWLEDGE_QUERY: &str = "Search the project's instructions, memory and Markdown documentation \
for a specific question: a convention, a decision, how to build, test, review, release or deploy. \
Call it when the briefing did not answer something, instead of reading files at random. Returns \
`hits`, best first: each a passage (up to 20 lines) with its `source_id`, `rel_path`, `line_start`, \
`line_end`, BM25 `score` and `excerpt`; plus the `briefing` of the same sources. Only passages that \
share a word with the query are hits; an empty list means the project's instructions, memory and \
docs say nothing about it (source code is not searched). Arguments: project_root is required and \
must be the exact absolute path of the project root, used as given, never guessed. query is what \
you want to know in plain words (no syntax, at most 2048 bytes). host is whose rules apply (codex, \
claude, gemini, pi, pi-0.73, desktop or generic; default generic). k is how many passages (default 5, at most 50). \
required=true fails unless every required source resolved completely, and then returns a \
`receipt`. Pass a hit's source_id to read_document for the whole file.";

const RESOLVE_CONTEXT: &str = "Returns the complete instruction chain that applies to one file or \
directory: every instruction file (AGENTS.md, CLAUDE.md, rules, ...) from the project root down to \
target_path's directory, under the host's own rules. Call it before you edit or create files in a \
directory you have not worked in yet, above all in monorepos where packages carry their own rules: \
this chain replaces the one for your working directory, so a sibling directory's rules never apply. \
Returns `native` (the exact text the host would put in front of its model for that target; empty when \
no instruction file applies), `parts` (each file with scope, label, bytes, and any cut), `probes` \
(every candidate looked at, with its verdict: included, missing, shadowed-by, symlink, \
outside-root, too-large, ...), `warnings` and the file-system `counters`. Arguments: project_root is \
required and must be the exact absolute path of the project root, used as given, never guessed. \
target_path is the file or directory you are about to work on, absolute or relative to project_root; \
it must lie inside project_root (a file not created yet gets its nearest existing directory's chain), \
and a symbolic link on its path is refused. host is whose rules \
apply (codex, claude, gemini, pi, pi-0.73, desktop or generic; default generic).";

const READ_DOCUMENT: &str = "Returns the full, current text of one source that session_briefing or \
delivery_knowledge_query named by its source_id, read again safely as one whole version of the file. \
Call it when a briefing part was cut or omitted by the budget, or a query hit showed only an \
excerpt. Returns `source_id`, `rel_path`, `scope`, `text`, `bytes`, `sha256`, and `changed` (true \
when the file changed since the briefing or query that named it). Arguments: project_root and host \
must be the same as in the call that returned the id; project_root is the exact absolute path of \
the project root, used as given. source_id is the opaque id exactly as returned (src_ followed by \
24 hex digits); it is not a path, and paths are never accepted, so only sources of this project's \
catalog can be read.";

/// How long one tool call may take before its answer is an error (its
/// reads stop starting at 2 s; this covers one that never returns).
const CALL_BOUND: Duration = Duration::from_millis(2500);
/// How long the server waits for a client's answer to `roots/list`.
const ROOTS_TIMEOUT: Duration = Duration::from_secs(2);

/// The `agentspine` MCP server.
#[derive(Clone)]
pub struct Server {
    tools: Arc<Tools>,
    /// The client's roots as last listed (`None`: not asked yet, or the
    /// client said they changed).
    client_roots: Arc<tokio::sync::Mutex<Option<ClientRoots>>>,
}

impl Server {
    pub fn new(tools: Tools) -> Server {
        Server { tools: Arc::new(tools), client_roots: Arc::default() }
    }

    /// The client's MCP roots, when it offers them: asked once, and again
    /// after it says they changed. A client without the capability, or one
    /// that does not answer in time, gives none (only the launch's roots
    /// apply). MCP roots are deprecated in newer protocol drafts, but the
    /// clients our users run offer them, and they are the client's own
    /// word on which projects this session is about.
    #[allow(deprecated)]
    async fn client_roots(&self, context: &RequestContext<RoleServer>) -> ClientRoots {
        let mut known = self.client_roots.lock().await;
        if let Some(roots) = known.as_ref() {
            return roots.clone();
        }
        let offers = context.peer.peer_info().is_some_and(|info| info.capabilities.roots.is_some());
        if !offers {
            *known = Some(None);
            return None;
        }
        let listed = match tokio::time::timeout(ROOTS_TIMEOUT, context.peer.list_roots()).await {
            Ok(Ok(result)) => result.roots.iter().filter_map(|root| file_uri_path(&root.uri)).collect(),
            Ok(Err(e)) => {
                tracing::warn!("mcp: roots/list failed: {e}; only the launch's roots apply");
                return None;
            }
            Err(_) => {
                tracing::warn!(
                    "mcp: the client did not answer roots/list in time; only the launch's roots apply"
                );
                return None;
            }
        };
        *known = Some(Some(listed));
        known.clone().flatten()
    }

    /// Runs one tool on the blocking pool and shapes its answer.
    ///
    /// A tool that does not answer within [`CALL_BOUND`] (a file system
    /// that never returns a read) is left running on its blocking thread
    /// and the call gets an `isError` result naming the root; other calls
    /// and roots go on, since a tool holds no shared state while it reads.
    async fn call<P, F>(
        &self,
        context: RequestContext<RoleServer>,
        root: std::path::PathBuf,
        params: P,
        tool: F,
    ) -> Result<CallToolResult, ErrorData>
    where
        P: Send + 'static,
        F: FnOnce(&Tools, &ClientRoots, P) -> Result<Value, ToolError> + Send + 'static,
    {
        let tools = self.tools.clone();
        let roots = self.client_roots(&context).await;
        let worker = std::sync::Arc::new(std::sync::atomic::AtomicI32::new(0));
        let seen = std::sync::Arc::clone(&worker);
        let task = tokio::task::spawn_blocking(move || {
            seen.store(agentspine_fs::thread_id(), std::sync::atomic::Ordering::Relaxed);
            tool(&tools, &roots, params)
        });
        let Ok(joined) = tokio::time::timeout(CALL_BOUND, task).await else {
            let tid = worker.load(std::sync::atomic::Ordering::Relaxed);
            let file =
                (tid != 0).then(|| agentspine_fs::blocked_on(agentspine_fs::Sleeper::Thread(tid))).flatten();
            let message = format!(
                "{}: reading {} did not finish within {} s (a file system that does not answer?); the call was \
                 abandoned, other projects are not affected",
                root.display(),
                file.map_or_else(|| "the project's files".to_owned(), |f| f.display().to_string()),
                CALL_BOUND.as_secs_f32()
            );
            tracing::warn!("mcp: {message}");
            return Ok(CallToolResult::error(vec![ContentBlock::text(message)]));
        };
        let outcome =
            joined.map_err(|e| ErrorData::internal_error(format!("the tool stopped: {e}"), None))?;
        Ok(match outcome {
            Ok(value) => CallToolResult::structured(value),
            Err(error) => {
                tracing::info!("mcp: tool error: {error}");
                CallToolResult::error(vec![ContentBlock::text(error.one_line())])
            }
        })
    }
}

#[tool_router]
impl Server {
    #[tool(name = "session_briefing", description = SESSION_BRIEFING)]
    async fn session_briefing(
        &self,
        Parameters(p): Parameters<SessionBriefingParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.call(context, p.project_root.clone(), p, Tools::session_briefing).await
    }

    #[tool(name = "delivery_knowledge_query", description = KNOWLEDGE_QUERY)]
    async fn delivery_knowledge_query(
        &self,
        Parameters(p): Parameters<KnowledgeQueryParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.call(context, p.project_root.clone(), p, Tools::knowledge_query).await
    }

    #[tool(name = "resolve_context", description = RESOLVE_CONTEXT)]
    async fn resolve_context(
        &self,
        Parameters(p): Parameters<ResolveContextParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.call(context, p.project_root.clone(), p, Tools::resolve_context).await
    }

    #[tool(name = "read_document", description = READ_DOCUMENT)]
    async fn read_document(
        &self,
        Parameters(p): Parameters<ReadDocumentParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.call(context, p.project_root.clone(), p, Tools::read_document).await
    }
}

/// The path of a `file://` URI (percent-escapes decoded), else `None`.
fn file_uri_path(uri: &str) -> Option<std::path::PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    use std::os::unix::ffi::OsStringExt;
    Some(std::path::PathBuf::from(std::ffi::OsString::from_vec(out)))
}

#[tool_handler]
impl ServerHandler for Server {
    async fn on_roots_list_changed(&self, _context: rmcp::service::NotificationContext<RoleServer>) {
        *self.client_roots.lock().await = None;
    }

    /// Once per connection: an unacknowledged incident of the state store,
    /// as a warning log for the user (`notice`).
    #[allow(deprecated)] // MCP logging: see `notice`.
    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        if let Some(warning) = super::notice::incidents().await
            && let Err(e) = context.peer.notify_logging_message(warning).await
        {
            tracing::warn!("mcp: the damaged-state warning was not sent: {e}");
        }
    }

    /// Accepted: the one message this server logs goes out at
    /// initialization (`notice`), so there is no level to apply later.
    #[allow(deprecated)] // MCP logging: see `notice`.
    async fn set_level(
        &self,
        _request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Ok(())
    }

    #[allow(deprecated)] // MCP logging: see `notice`.
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_logging().enable_tools().build())
            .with_server_info(Implementation::new("agentspine", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }
}
