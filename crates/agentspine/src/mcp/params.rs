//! The arguments of each tool, as the client sees them in `tools/list`: the
//! field docs become the JSON schema's descriptions. Unknown fields are
//! refused (`deny_unknown_fields`): catalogs, environment variables and
//! state locations are internal and cannot be passed in.

use std::path::PathBuf;

use agentspine_core::Host;
use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of `session_briefing`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionBriefingParams {
    /// The exact absolute path of the project's root directory (the
    /// repository root, not a subdirectory). Used as given: agentspine never
    /// walks up from it or guesses another root.
    pub project_root: PathBuf,
    /// Whose loading rules to apply: your own agent if it is listed
    /// (codex: Codex CLI; claude: Claude Code, with its memory; pi: the pi
    /// agent; desktop: a desktop app, with the user's ~/.pi/agent/AGENTS.md),
    /// otherwise generic (project files only, no user profile).
    #[serde(default)]
    pub host: Host,
    /// The directory you are working in: absolute, or relative to
    /// project_root; must lie inside it. Default: project_root.
    pub cwd: Option<PathBuf>,
    /// Typed ids of the current work, e.g. ["project:blun", "person:owner"]
    /// (kinds: person, project, group, task). Memory facts scoped to one of
    /// them become relevant. Default: the scope stored for this project
    /// with `agentspine scope set`, if any. Never guessed.
    pub scope: Option<Vec<String>>,
    /// The user's request, verbatim; its words can make keyword-tagged
    /// memory facts relevant.
    pub prompt: Option<String>,
    /// Most bytes of briefing text to return (default 65536, at most
    /// 1048576). Sources that do not fit are listed in `omitted`.
    #[schemars(range(min = 1, max = 1048576))]
    pub budget_bytes: Option<usize>,
    /// true: fail, with no briefing, unless every required source (the
    /// instruction files the host loads natively, the memory index) resolved
    /// completely; on success the result carries a receipt.
    #[serde(default)]
    pub required: bool,
}

/// Arguments of `delivery_knowledge_query`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KnowledgeQueryParams {
    /// The exact absolute path of the project's root directory (the
    /// repository root, not a subdirectory). Used as given: agentspine never
    /// walks up from it or guesses another root.
    pub project_root: PathBuf,
    /// Whose loading rules to apply: your own agent if it is listed
    /// (codex: Codex CLI; claude: Claude Code, with its memory; pi: the pi
    /// agent; desktop: a desktop app, with the user's ~/.pi/agent/AGENTS.md),
    /// otherwise generic (project files only, no user profile).
    #[serde(default)]
    pub host: Host,
    /// What you want to know, in plain words (no query syntax), e.g. "how
    /// are releases tagged". Passages are ranked by shared words (BM25).
    #[schemars(length(min = 1, max = 2048))]
    pub query: String,
    /// How many passages to return, best first (default 5, at most 50).
    #[schemars(range(min = 1, max = 50))]
    pub k: Option<usize>,
    /// true: fail unless every required source resolved completely; on
    /// success the result carries a receipt.
    #[serde(default)]
    pub required: bool,
}

/// Arguments of `resolve_context`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveContextParams {
    /// The exact absolute path of the project's root directory (the
    /// repository root, not a subdirectory). Used as given: agentspine never
    /// walks up from it or guesses another root.
    pub project_root: PathBuf,
    /// Whose loading rules to apply: your own agent if it is listed
    /// (codex: Codex CLI; claude: Claude Code, with its memory; pi: the pi
    /// agent; desktop: a desktop app, with the user's ~/.pi/agent/AGENTS.md),
    /// otherwise generic (project files only, no user profile).
    #[serde(default)]
    pub host: Host,
    /// The file or directory you are about to work on: absolute, or
    /// relative to project_root. It must exist inside project_root and no
    /// symbolic link may be on its path.
    pub target_path: PathBuf,
}

/// Arguments of `read_document`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadDocumentParams {
    /// The exact absolute path of the project's root directory, the same
    /// one the source id came from.
    pub project_root: PathBuf,
    /// The same host the source id came from.
    #[serde(default)]
    pub host: Host,
    /// A `source_id` exactly as session_briefing or delivery_knowledge_query
    /// returned it (`src_…`). It is opaque: a path is never accepted.
    pub source_id: String,
}
