//! The hosts agentspine models, and the request every front end builds.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// An agent that consumes context: the one host type, parsed by the
/// command line (feature `clap`), described to MCP clients (feature
/// `schemars`) and read from JSON.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Host {
    /// Codex CLI: AGENTS.override.md / AGENTS.md per directory, 32 KiB total.
    Codex,
    /// Claude Code: CLAUDE.md family, .claude/rules, @imports, its memory.
    Claude,
    /// Gemini CLI: GEMINI.md (or `context.fileName`) from the git root to the cwd, `@` imports inlined.
    Gemini,
    /// The current pi coding agent (1.x): AGENTS.override.md, AGENTS.md or
    /// CLAUDE.md per directory, BOM dropped, a `<project_context>` section.
    Pi,
    /// pi 0.73, whose rules differ from 1.x: AGENTS.md or CLAUDE.md per
    /// directory, BOM kept, a `# Project Context` section. A host of its
    /// own rather than a version flag, so every surface that names a host
    /// (CLI, MCP schema, JSON) offers it without a second option.
    #[serde(rename = "pi-0.73")]
    #[cfg_attr(feature = "clap", value(name = "pi-0.73"))]
    Pi073,
    /// opencode: the first of AGENTS.md, CLAUDE.md, CONTEXT.md found from
    /// the cwd up to the git root, all its copies, closest first.
    Opencode,
    /// Kimi Code: `.kimi-code/AGENTS.md`, then AGENTS.md (or agents.md) in
    /// every directory from the git root to the cwd.
    Kimi,
    /// GitHub Copilot CLI: `~/.copilot/copilot-instructions.md`, then
    /// `.github/copilot-instructions.md`, AGENTS.md, CLAUDE.md, GEMINI.md
    /// of the git root, the cwd and the directories between.
    Copilot,
    /// A desktop app (ADR 0037): first non-blank file per directory, labelled, 32 KiB.
    Desktop,
    /// Project files only, by the desktop rule, with no profile.
    #[default]
    Generic,
}

impl Host {
    /// Every host, in the order `--help` lists them.
    pub const ALL: [Host; 10] = [
        Host::Codex,
        Host::Claude,
        Host::Gemini,
        Host::Pi,
        Host::Pi073,
        Host::Opencode,
        Host::Kimi,
        Host::Copilot,
        Host::Desktop,
        Host::Generic,
    ];

    /// The host a continuity binding names (`source-bind --host`): both pi
    /// versions are one agent to the user, so a binding for `pi` reaches
    /// `pi-0.73` too.
    pub fn binding_name(self) -> &'static str {
        self.profile().binds_as.as_str()
    }

    /// The name used on the command line and in JSON.
    pub fn as_str(self) -> &'static str {
        self.profile().name
    }
}

/// Plain strings in the schema (no `$ref`, no `oneOf`), so every MCP
/// client shows the choices.
#[cfg(feature = "schemars")]
impl schemars::JsonSchema for Host {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Host".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = Host::ALL.iter().map(|h| h.as_str()).collect();
        schemars::json_schema!({ "type": "string", "enum": names })
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Host {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Host::ALL.into_iter().find(|h| h.as_str() == s).ok_or_else(|| {
            format!("unknown host {s:?} (expected codex, claude, gemini, pi, pi-0.73, desktop or generic)")
        })
    }
}

/// What to resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// Whose rules apply.
    pub host: Host,
    /// The working directory (absolute).
    pub cwd: PathBuf,
    /// An explicit project root (absolute). When absent the host's own rule
    /// finds it from `cwd`.
    pub root: Option<PathBuf>,
    /// A file or directory whose complete chain is wanted instead of the
    /// chain for `cwd` (absolute, or relative to `cwd`).
    pub target: Option<PathBuf>,
    /// A hook's `transcript_path`, as the host gave it. Not evidence for
    /// Claude Code's memory directory (see [`crate::memory::claude_dir`]).
    pub transcript_path: Option<PathBuf>,
}

impl Request {
    /// A request for the chain of `cwd`, the root found by the host's rule.
    pub fn new(host: Host, cwd: impl Into<PathBuf>) -> Request {
        Request { host, cwd: cwd.into(), root: None, target: None, transcript_path: None }
    }
}
