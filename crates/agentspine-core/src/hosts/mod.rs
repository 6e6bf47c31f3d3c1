//! One folder per host: its rules, its text format and its [`Profile`]
//! (what every surface needs to know of it). Shared mechanics live in
//! `chain`, `gather` and `locate`; a host's folder holds only what is true
//! of that host, and this module is the registry that finds it.
//!
//! A new host is:
//! - a folder here with its rules (`mod.rs`: candidates, root rule, chain,
//!   text format, how its home is found) and its `profile.rs` (names, home,
//!   the process variables it reads, hook events and tools, context cap,
//!   install files, check facts, version probe, and the [`Rules`] the
//!   registry calls);
//! - a variant of [`Host`] with its name (`host.rs`: the enum, `ALL`) and
//!   one arm in [`Host::profile`] below;
//! - a line in `verified-versions` (the version its profile was measured
//!   on, which the parity suite installs);
//! - in the binary, only what its surfaces need that is not data: the
//!   installer's file editing (`install/`), and a wire adapter when its
//!   hook output differs in shape;
//! - its parity fixtures and end-to-end runs (tests/e2e).

pub mod claude;
pub mod codex;
pub mod copilot;
pub mod desktop;
pub mod gemini;
pub mod kimi;
pub mod opencode;
pub mod pi;
pub mod profile;
pub mod shell;
pub mod tools;
pub mod version;

pub use profile::{HookEvent, HookOutput, Hooks, Profile, SessionFiles};

use std::path::{Path, PathBuf};

use agentspine_fs::Reader;

use crate::env::Environment;
use crate::error::ResolveError;
use crate::gather::Gather;
use crate::host::{Host, Request};
use crate::locate::{Located, find_marked_root, locate};
use crate::policy::NeverProjects;
use crate::resolution::{Resolution, Warning};

impl Host {
    /// Everything agentspine knows of this host, in its folder.
    pub fn profile(self) -> &'static Profile {
        match self {
            Host::Codex => &codex::profile::PROFILE,
            Host::Claude => &claude::profile::PROFILE,
            Host::Gemini => &gemini::profile::PROFILE,
            Host::Pi => &pi::profile::PROFILE,
            Host::Pi073 => &pi::profile::PROFILE_0_73,
            Host::Opencode => &opencode::profile::PROFILE,
            Host::Kimi => &kimi::profile::PROFILE,
            Host::Copilot => &copilot::profile::PROFILE,
            Host::Desktop => &desktop::profile::PROFILE,
            Host::Generic => &desktop::profile::GENERIC,
        }
    }
}

/// The evidence of a root found by the git rule.
pub(crate) const GIT_EVIDENCE: &str = "nearest .git";

/// The project root by the git rule: the nearest directory at or above the
/// cwd holding `.git` (a directory or a file), else the cwd.
pub(crate) fn git_root(reader: &Reader, never: &NeverProjects, cwd: &Path) -> (PathBuf, String) {
    match find_marked_root(reader, never, cwd, &[".git".to_owned()]) {
        Some((root, _)) => (root, GIT_EVIDENCE.to_owned()),
        None => (cwd.to_path_buf(), "the working directory (no .git above it)".to_owned()),
    }
}

/// What resolving one request under a host's rules is given.
pub(crate) struct Ask<'a> {
    pub request: &'a Request,
    pub env: &'a Environment,
    pub reader: &'a Reader,
    pub never: &'a NeverProjects,
    /// Claude Code's `instructionFiles` mode taken as given instead of the
    /// user's setting.
    pub claude_mode: Option<claude::AgentsMdMode>,
}

/// A host's rules as every caller reaches them: each host's folder fills
/// one in ([`Profile`]'s `rules`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Rules {
    /// Binds the request to its root by the host's rule and gathers its
    /// chain, with the warnings its settings gave.
    pub resolve: fn(&Ask<'_>, &mut Gather, &mut Vec<Warning>) -> Result<Located, ResolveError>,
    /// Binds the request to its root by the host's rule, nothing read.
    pub bind: fn(&Ask<'_>) -> Result<Located, ResolveError>,
    /// The exact text the host puts in its model request for a chain.
    pub render: fn(&Resolution) -> String,
    /// The names the host reads in a project directory, by default and
    /// by the user's configuration as a session at the root sees it, with
    /// the directories that hold more (Claude Code's `.claude`): what
    /// makes a directory worth checking.
    pub names: fn(&Environment, &Reader, &Path) -> Vec<String>,
}

/// Binds `ask` to its root: the explicit root, else the one `find` finds
/// from the working directory (the host's root rule).
pub(crate) fn bind_by(
    ask: &Ask<'_>,
    find: impl Fn(&Path) -> (PathBuf, String),
) -> Result<Located, ResolveError> {
    let r = ask.request;
    locate(ask.reader, ask.never, &r.cwd, r.root.as_deref(), r.target.as_deref(), find)
}

/// Binds `ask` to its root by the git rule.
pub(crate) fn bind_by_git(ask: &Ask<'_>) -> Result<Located, ResolveError> {
    bind_by(ask, |cwd| git_root(ask.reader, ask.never, cwd))
}

/// Whether a host counts the `.git` of a directory (opened as `dir`; the
/// `.git` entry is of `kind`, never followed) as a repository's.
pub(crate) type GitAccepts = fn(dir: &agentspine_fs::Root, kind: agentspine_fs::FileKind) -> bool;

/// Binds `ask` to its root by a host's own git rule: the nearest directory
/// at or above the cwd holding a `.git` that `accepts` counts (one that it
/// does not is passed over, and the walk goes on up), else the cwd.
pub(crate) fn bind_by_git_where(ask: &Ask<'_>, accepts: GitAccepts) -> Result<Located, ResolveError> {
    bind_by(ask, |cwd| {
        let git = |handle: &agentspine_fs::Root| {
            let kind = handle.stat(".git").ok()?.kind;
            accepts(handle, kind).then(|| GIT_EVIDENCE.to_owned())
        };
        crate::locate::find_root_where(ask.reader, ask.never, cwd, git)
            .unwrap_or_else(|| (cwd.to_path_buf(), "the working directory (no .git above it)".to_owned()))
    })
}

/// Resolves the chain `request` asks for under its host's rules (with
/// `claude_mode`, Claude Code's `instructionFiles` mode is taken as given
/// instead of the user's setting).
pub(crate) fn resolve_as(
    request: &Request,
    env: &Environment,
    reader: &Reader,
    never: &NeverProjects,
    claude_mode: Option<claude::AgentsMdMode>,
    explain: bool,
) -> Result<Resolution, ResolveError> {
    let mut warnings: Vec<Warning> = Vec::new();
    let mut gather = Gather { explain, ..Gather::default() };
    let profile = request.host.profile();
    let ask = Ask { request, env, reader, never, claude_mode };
    let located = (profile.rules.resolve)(&ask, &mut gather, &mut warnings)?;
    Ok(Resolution {
        host: request.host,
        profile_home: (profile.home)(env),
        project_root: located.root_path.clone(),
        root_evidence: located.evidence.clone(),
        cwd: located.cwd.clone(),
        chain_dir: if located.chain_names.is_empty() {
            ".".to_owned()
        } else {
            located.chain_names.join("/")
        },
        root_kind: located.kind,
        parts: gather.parts,
        probes: gather.probes,
        warnings,
        counters: reader.counters(),
    })
}

pub(crate) fn render(resolution: &Resolution) -> String {
    (resolution.host.profile().rules.render)(resolution)
}

/// The file names `host` reads in a project directory ([`Rules::names`]).
pub(crate) fn instruction_names(host: Host, env: &Environment, reader: &Reader, root: &Path) -> Vec<String> {
    (host.profile().rules.names)(env, reader, root)
}

/// Binds a request to its project root under its host's rule (explicit
/// root, Codex's root markers, or the git rule), without resolving a chain.
pub(crate) fn bind(
    request: &Request,
    env: &Environment,
    reader: &Reader,
    never: &NeverProjects,
) -> Result<Located, ResolveError> {
    (request.host.profile().rules.bind)(&Ask { request, env, reader, never, claude_mode: None })
}
