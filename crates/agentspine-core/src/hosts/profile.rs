//! What agentspine knows of one host, as data: each host's folder holds one
//! [`Profile`], and shared code asks it instead of matching on the host.
//! The rules that walk a chain (candidates, roots, imports, the text
//! format) stay as code in the host's folder; this is everything the
//! surfaces need around them: its names, its hook events and what each
//! adds, the tools that name paths and what the host loads for them, how
//! it labels a file it loads lazily, its cap on a hook's text, where its
//! profile lives and which file its installer edits, and the versions it
//! was measured on.

use std::path::{Path, PathBuf};

use crate::env::Environment;
use crate::host::Host;

/// One named input of a host's user files (`("claude_home", path)`).
pub type ProfileInput = (&'static str, Option<PathBuf>);

/// One host, as every surface needs it.
#[derive(Debug)]
pub struct Profile {
    /// The host this describes.
    pub host: Host,
    /// Its name on the command line, in JSON and in the MCP schema.
    pub name: &'static str,
    /// The host a continuity binding for this one names (`source-bind
    /// --host`): both pi versions are one agent to the user.
    pub binds_as: Host,
    /// The name a user knows it by, in sentences ("Claude Code").
    pub display: &'static str,
    /// The user-level home (`~/.claude`, `$CODEX_HOME`…), from the
    /// environment; `None` for a host without one.
    pub home: fn(&Environment) -> Option<PathBuf>,
    /// The process variables its folder reads through
    /// [`Environment::var`] (`$OPENCODE_CONFIG`, `$COPILOT_HOME`), by
    /// name: what [`Environment::from_vars`] keeps for it.
    pub variables: &'static [&'static str],
    /// What of the environment decides which user files this host
    /// reads (its home, Codex's profile name), by name: part of a
    /// catalog's digest.
    pub profile_inputs: fn(&Environment) -> Vec<ProfileInput>,
    /// Whether `check` applies this host when none is named (every agent
    /// host; not agentspine's own `generic` rule).
    pub checked_by_default: bool,
    /// Whether `check` applies this host, with none named, when the
    /// repository addresses it or the user has it installed (the agent
    /// hosts a user runs; not pi 0.73, the desktop rule or `generic`,
    /// which apply only when named).
    pub chosen_by_evidence: bool,
    /// The directory names a project holds for this host besides its
    /// instruction files (`.claude`, `.codex`, `.gemini`): evidence that a
    /// repository addresses it.
    pub project_dir: Option<&'static str>,
    /// The instruction file names that are evidence a repository addresses
    /// this host (its own names, not the shared `AGENTS.md`).
    pub evidence_names: &'static [&'static str],
    /// The user's configuration can add names the host reads (Codex's
    /// `project_doc_fallback_filenames`, Gemini's `context.fileName`): an
    /// `AGENTS.md` is then evidence too.
    pub configurable_names: bool,
    /// Whether a hook adds memory facts (Claude Code reads its memory
    /// index but never the facts it links; pi keeps none of its own and
    /// shares the project memory agentspine models). Also what a briefing
    /// for this host carries.
    pub memory_facts: bool,
    /// What the host's hooks (or extension) carry, when it has them.
    pub hooks: Option<Hooks>,
    /// How the host's own `--version` is asked for and read, for `doctor`.
    pub version_probe: Option<VersionProbe>,
    /// What `agentspine install` writes for this host, and where `doctor`
    /// looks for it; `None` for a host it does not install into.
    pub install: Option<Install>,
    /// What `check` reports for this host past what its chains show.
    pub check: CheckFacts,
    /// Its rules, as the registry calls them.
    pub(crate) rules: super::Rules,
}

/// What `check` knows of a host past its chains: how it meets a link or a
/// file it cannot read, why it never reads a name, and checks of its own.
#[derive(Debug)]
pub struct CheckFacts {
    /// Whether the host follows links (out of the project, into `.git`):
    /// agentspine's own rules (desktop, generic) follow none, so a link
    /// agentspine refuses costs their users nothing.
    pub follows_links: bool,
    /// Whether a link loop stops the host from sending any project file
    /// (Codex, measured), rather than costing the one file.
    pub stops_at_link_loop: bool,
    /// Whether a file it cannot read stops it from sending any project
    /// file (Codex, measured: only the global file is sent).
    pub stops_at_unreadable: bool,
    /// Why the host never reads `name` in a project directory, in its own
    /// terms, when its rules say more than that it does not.
    pub never_read_why: fn(&str) -> Option<String>,
    /// Its own checks.
    pub(crate) checks: HostChecks,
}

/// Checks a host's folder adds to `check`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HostChecks {
    /// For each checked directory's chain, when the check walks the tree.
    pub per_dir: Option<crate::check::findings::DirCheck>,
    /// Once per check.
    pub per_project: Option<crate::check::findings::ProjectCheck>,
}

/// No checks of its own.
pub(crate) const NO_CHECKS: HostChecks = HostChecks { per_dir: None, per_project: None };

/// The host's configuration files that agentspine's installer edits, and
/// the host's ways of running what it installed.
#[derive(Debug)]
pub struct Install {
    /// How the host runs agentspine.
    pub carrier: Carrier,
    /// The user's files holding hooks the host runs (the first is the one
    /// `install` writes).
    pub user_hook_files: fn(&Environment) -> Vec<PathBuf>,
    /// A project's files holding hooks too, relative to its root.
    pub project_hook_files: &'static [&'static str],
    /// Where the user's MCP server may be registered, and in which format.
    pub user_mcp_files: fn(&Environment) -> Vec<(PathBuf, ConfigFormat)>,
    /// A project's files that may register it, relative to its root.
    pub project_mcp_files: &'static [(&'static str, ConfigFormat)],
    /// The host's JSON settings may hold comments.
    pub json_comments: bool,
    /// `Ok`: `install --settings project` writes a project's settings
    /// (Claude Code); `Err`: what `install` says when asked to (the host is
    /// installed for the user only).
    pub project_settings: Result<(), &'static str>,
    /// `Ok`: the host skips hooks the user has not trusted (Codex), and
    /// `install --trust-hooks` records the trust; `Err`: what `install`
    /// says to `--trust-hooks` (there is no trust to record).
    pub hook_trust: Result<(), &'static str>,
    /// The directory the user's files `install` writes lie in (`$HOME`,
    /// pi's agent directory, opencode's and Copilot's config directories),
    /// from the environment.
    pub dir: fn(&Environment) -> Option<PathBuf>,
    /// Why [`Install::dir`] is `None`: the variables it comes from.
    pub dir_unset: &'static str,
    /// A plugin of the host's own can carry agentspine's hooks and server
    /// (Claude Code's marketplace plugin).
    pub plugin: bool,
    /// What the user should know of how the host trusts hooks, if anything.
    pub trust_note: Option<&'static str>,
    /// How a host whose hook files hold a list of entries (Kimi Code's
    /// `[[hooks]]`) reads them; `None` for the hosts whose `hooks` is a
    /// table of events.
    pub hook_entries: Option<HookEntries>,
}

/// A hook file's `hooks` as a list of entries, each naming its event
/// (parsed to JSON).
#[derive(Debug, Clone, Copy)]
pub struct HookEntries {
    /// Each entry the host refuses, with why; the host then runs none of
    /// the file's hooks. Empty when it takes them all.
    pub refused: fn(&serde_json::Value) -> Vec<String>,
    /// The entries grouped by event, in the shape of the other hosts' hook
    /// tables (`{"<Event>": [{"hooks": [{"command"}]}]}`); `None` when
    /// `hooks` is not such a list.
    pub as_groups: fn(&serde_json::Value) -> Option<serde_json::Value>,
}

impl Install {
    /// The files holding hooks the host runs for the project at `root`:
    /// the user's, then the project's.
    pub fn hook_files(&self, env: &Environment, root: &Path) -> Vec<PathBuf> {
        let mut files = (self.user_hook_files)(env);
        files.extend(self.project_hook_files.iter().map(|f| root.join(f)));
        files
    }

    /// Where the MCP server may be registered for the project at `root`:
    /// the user's files, then the project's.
    pub fn mcp_files(&self, env: &Environment, root: &Path) -> Vec<(PathBuf, ConfigFormat)> {
        let mut files = (self.user_mcp_files)(env);
        files.extend(self.project_mcp_files.iter().map(|(f, format)| (root.join(f), *format)));
        files
    }
}

/// How a host runs agentspine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carrier {
    /// Command hooks in its settings (`agentspine hook HOST`).
    CommandHooks,
    /// An extension file that calls `agentspine hook HOST` (pi); `mcp`
    /// says whether the host has an MCP client to register the server
    /// with.
    Extension {
        /// Whether the server is registered too.
        mcp: bool,
    },
}

/// The format of a configuration file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigFormat {
    /// JSON (`mcpServers.agentspine`).
    Json,
    /// TOML (`mcp_servers.agentspine`).
    Toml,
}

/// A host's command hooks (or the extension that carries its events to
/// `agentspine hook`).
#[derive(Debug)]
pub struct Hooks {
    /// What each event name the host sends means to agentspine; an event
    /// not listed adds nothing.
    pub events: &'static [(&'static str, HookEvent)],
    /// The tools whose input names paths, first match wins; a tool not
    /// listed names none.
    pub tools: &'static [Tool],
    /// The most one hook's context may hold without the host cutting or
    /// replacing it, as the host counts it.
    pub context_cap: ContextCap,
    /// How the host labels a file it loads lazily: the heading agentspine
    /// gives a file it adds (absolute path, path relative to the root).
    pub heading: fn(&Path, &str) -> String,
    /// What a session start adds that the host never reads itself.
    pub session_files: SessionFiles,
    /// Where the host says it was started, when it says so in its hooks'
    /// environment (Claude Code's `$CLAUDE_PROJECT_DIR`): the directory
    /// whose chain it loaded, whatever the shell's directory is now.
    pub started_in: Option<fn(&Environment) -> Option<PathBuf>>,
    /// The event of a payload that names none (no `hook_event_name`), by
    /// the fields it holds (asked one name at a time): GitHub Copilot
    /// CLI's camelCase events. `None`: such a payload is malformed.
    pub unnamed_event: Option<UnnamedEvent>,
    /// The shape of what a hook prints.
    pub output: HookOutput,
}

/// Tells a payload's event by its fields: given whether the payload holds
/// a field, the event's name, or `None`.
pub type UnnamedEvent = fn(&dyn Fn(&str) -> bool) -> Option<&'static str>;

impl Hooks {
    /// What `event_name` means to agentspine; `None` adds nothing.
    pub fn event(&self, event_name: &str) -> Option<HookEvent> {
        self.events.iter().find(|(name, _)| *name == event_name).map(|(_, event)| *event)
    }
}

/// A host's cap on one hook's context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextCap {
    /// The most the host takes whole.
    pub limit: usize,
    /// What it counts.
    pub unit: CapUnit,
}

/// What a host counts a hook's context in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapUnit {
    /// UTF-16 code units (JavaScript string length).
    Utf16,
    /// UTF-8 bytes.
    Bytes,
}

/// What one hook event is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookEvent {
    /// A session starts, resumes or was compacted (`source` says which).
    SessionStart,
    /// The user submitted a prompt; the hook's context reaches the turn.
    Prompt,
    /// A tool call: the instruction files of the paths it names.
    Tool,
    /// What the session was sent is gone (it ended, or its history was
    /// summarised away).
    Forget,
}

/// Instruction files a session start adds past what the host reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionFiles {
    /// None.
    None,
    /// Claude Code's AGENTS.md files its mode leaves out, as the user's
    /// configuration says (core's `claude_agents_md_added`).
    ClaudeAgentsMd,
    /// The CLAUDE.md family for a Codex project without a file of its own,
    /// when the user asks for it (core's `codex_claude_md`).
    CodexClaudeMd,
}

/// A tool (or family of tools) and the input fields that name its paths.
#[derive(Debug)]
pub struct Tool {
    /// The tool names this entry covers; empty covers every tool.
    pub names: &'static [&'static str],
    /// Where the paths are.
    pub paths: ToolPaths,
    /// Whether the host itself loads the instruction files below its
    /// session directory when this tool touches a file there.
    pub loads_nested: bool,
}

/// Where a tool's input names paths.
#[derive(Debug, Clone, Copy)]
pub enum ToolPaths {
    /// It names none.
    None,
    /// A shell command in the first of the `command` fields (a string, or
    /// an argv array such as `["bash", "-lc", "cat a.rs"]`), run in the
    /// first `workdir` field present (relative to the payload's cwd), else
    /// the cwd: the files its read and search commands name
    /// ([`super::shell`]; a word that needs the shell to expand it is
    /// never guessed).
    Shell {
        /// The fields that may hold the command.
        command: &'static [&'static str],
        /// The fields that may hold its directory.
        workdir: &'static [&'static str],
    },
    /// The first of these string fields present.
    Field(&'static [&'static str]),
    /// A patch in the first of these fields; its file headers name the
    /// paths (Codex's `apply_patch`).
    Patch(&'static [&'static str]),
}

/// The JSON a host reads from a hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookOutput {
    /// `{"hookSpecificOutput": {"hookEventName", "additionalContext"},
    /// "systemMessage"}` (Claude Code, Codex, Gemini CLI; what pi's and
    /// opencode's adapters read).
    Specific,
    /// `{"message": …}`: Kimi Code sends the message on to the model and
    /// reads no `additionalContext`.
    Message,
    /// `{"additionalContext": …}`: GitHub Copilot CLI reads it for every
    /// event, camelCase or PascalCase, and ignores `hookSpecificOutput`
    /// for its camelCase events (measured on 1.0.102).
    AdditionalContext,
}

/// How a host says its version: `program args…` prints it somewhere in
/// its output (either stream).
#[derive(Debug)]
pub struct VersionProbe {
    /// The command's name, looked up on `PATH`.
    pub program: &'static str,
    /// Its arguments.
    pub args: &'static [&'static str],
}

impl Profile {
    /// The entry for `tool_name`, if its input can name paths.
    pub fn tool(&self, tool_name: &str) -> Option<&Tool> {
        self.hooks.as_ref()?.tools.iter().find(|t| t.names.is_empty() || t.names.contains(&tool_name))
    }

    /// Whether the host loads nested instruction files itself when
    /// `tool_name` touches a file below its session directory.
    pub fn loads_nested(&self, tool_name: &str) -> bool {
        self.tool(tool_name).is_some_and(|t| t.loads_nested)
    }

    /// The names of the host's tools whose input can name a path, in the
    /// profile's order: what an installed tool hook's matcher lists.
    pub fn tool_names(&self) -> Vec<&'static str> {
        self.hooks.iter().flat_map(|h| h.tools.iter()).flat_map(|t| t.names.iter().copied()).collect()
    }

    /// Whether reading a file with one of its tools makes this host load
    /// the nested instruction files of the file's directory itself (Claude
    /// Code's `Read`, Gemini's `read_file`): the files of a path a prompt
    /// names that it will load when the agent opens the path are left to
    /// it.
    pub fn reads_load_nested(&self) -> bool {
        self.hooks.as_ref().is_some_and(|h| h.tools.iter().any(|t| t.loads_nested))
    }

    /// Whether this host reads AGENTS.md only in some layouts (Claude
    /// Code's `instructionFiles` mode), so that agentspine may add the ones
    /// it leaves out (core's `ClaudeAgentsMd`).
    pub fn leaves_agents_md_out(&self) -> bool {
        self.hooks.as_ref().is_some_and(|h| h.session_files == SessionFiles::ClaudeAgentsMd)
    }

    /// The versions this host was verified on ([`VERIFIED`]).
    pub fn verified(&self) -> impl Iterator<Item = &'static str> {
        verified(self.host.as_str())
    }

    /// The hosts `agentspine install` configures.
    pub fn installable() -> impl Iterator<Item = &'static Profile> {
        Host::ALL.iter().map(|h| h.profile()).filter(|p| p.install.is_some())
    }

    /// The hosts with hooks, by name, for messages.
    pub fn with_hooks() -> impl Iterator<Item = &'static Profile> {
        Host::ALL.iter().map(|h| h.profile()).filter(|p| p.hooks.is_some())
    }
}

/// The pinned host versions the parity suite runs (one line per host:
/// `host version`), the one place they are written.
pub const VERIFIED: &str = include_str!("verified-versions");

/// The versions `host` was verified on, from [`VERIFIED`].
pub fn verified(host: &str) -> impl Iterator<Item = &'static str> + '_ {
    VERIFIED.lines().filter(|line| !line.starts_with('#')).filter_map(move |line| {
        let mut words = line.split_whitespace();
        (words.next() == Some(host)).then(|| words.next()).flatten()
    })
}
