//! One folder per host: its rules, its text format and its [`Profile`]
//! (what every surface needs to know of it). Shared mechanics live in
//! `chain`, `gather` and `locate`; a host's folder holds only what is true
//! of that host, and this module is the registry that finds it.

pub mod claude;
pub mod codex;
pub mod desktop;
pub mod gemini;
pub mod pi;
pub mod profile;
pub mod tools;
pub mod version;

pub use profile::{HookEvent, Hooks, Profile, SessionFiles};

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
            Host::Desktop => &desktop::profile::PROFILE,
            Host::Generic => &desktop::profile::GENERIC,
        }
    }
}

/// The project root by the git rule: the nearest directory at or above the
/// cwd holding `.git` (a directory or a file), else the cwd.
pub(crate) fn git_root(reader: &Reader, never: &NeverProjects, cwd: &Path) -> (PathBuf, String) {
    match find_marked_root(reader, never, cwd, &[".git".to_owned()]) {
        Some((root, _)) => (root, "nearest .git".to_owned()),
        None => (cwd.to_path_buf(), "the working directory (no .git above it)".to_owned()),
    }
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
    let bind = |find: &dyn Fn(&Path) -> (PathBuf, String)| {
        locate(reader, never, &request.cwd, request.root.as_deref(), request.target.as_deref(), find)
    };
    let (located, profile_home): (Located, Option<PathBuf>) = match request.host {
        Host::Codex => {
            let config = codex::load_config(reader, env, &mut warnings);
            let located = bind(&|cwd| codex::find_root(reader, never, &config, cwd))?;
            codex::resolve(env, &located, &config, &mut gather);
            (located, env.codex_home())
        }
        Host::Claude => {
            let located = bind(&|cwd| git_root(reader, never, cwd))?;
            let mut settings = claude::load_settings(reader, env, &located.root_path, &mut warnings);
            if let Some(mode) = claude_mode {
                settings.agents_md = mode;
            }
            claude::resolve(env, &located, &settings, &mut gather);
            (located, env.claude_home())
        }
        Host::Gemini => {
            let settings = gemini::load_settings(reader, env, &request.cwd, &mut warnings);
            let located = bind(&|cwd| gemini::find_root(reader, never, &settings, cwd))?;
            gemini::resolve(env, &located, &settings, &mut gather);
            (located, env.gemini_home())
        }
        Host::Pi | Host::Pi073 => {
            let located = bind(&|cwd| git_root(reader, never, cwd))?;
            let profile = if request.host == Host::Pi { &pi::current::RULES } else { &pi::v0_73::RULES };
            pi::resolve(profile, env, &located, &mut gather);
            (located, env.pi_home())
        }
        Host::Desktop => {
            let located = bind(&|cwd| git_root(reader, never, cwd))?;
            desktop::resolve(env, &located, true, &mut gather);
            (located, env.desktop_home())
        }
        Host::Generic => {
            let located = bind(&|cwd| git_root(reader, never, cwd))?;
            desktop::resolve(env, &located, false, &mut gather);
            (located, None)
        }
    };
    Ok(Resolution {
        host: request.host,
        profile_home,
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
    match resolution.host {
        Host::Codex => codex::render(&resolution.cwd, &resolution.parts),
        Host::Desktop | Host::Generic => desktop::render(&resolution.parts),
        Host::Gemini => gemini::render(&resolution.parts),
        Host::Pi => pi::current::render(&resolution.parts),
        Host::Pi073 => pi::v0_73::render(&resolution.parts),
        Host::Claude => claude::render(&resolution.parts),
    }
}

/// The file names `host` reads in a project directory, by default and by
/// the user's configuration (Codex's fallback names, Gemini's
/// `context.fileName` as a session at `root` sees it), with Claude Code's
/// `.claude` directory: what makes a directory worth checking.
pub(crate) fn instruction_names(host: Host, env: &Environment, reader: &Reader, root: &Path) -> Vec<String> {
    let mut warnings = Vec::new();
    let names: Vec<String> = match host {
        Host::Codex => {
            let config = codex::load_config(reader, env, &mut warnings);
            let mut names = vec!["AGENTS.override.md".to_owned(), "AGENTS.md".to_owned()];
            names.extend(config.fallback_filenames);
            names
        }
        Host::Claude => ["CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", ".claude"].map(str::to_owned).to_vec(),
        Host::Gemini => gemini::load_settings(reader, env, root, &mut warnings).names,
        Host::Pi => pi::current::RULES.candidates.iter().map(|n| (*n).to_owned()).collect(),
        Host::Pi073 => pi::v0_73::RULES.candidates.iter().map(|n| (*n).to_owned()).collect(),
        Host::Desktop | Host::Generic => {
            ["AGENTS.override.md", "AGENTS.md", "CLAUDE.md", ".claude"].map(str::to_owned).to_vec()
        }
    };
    names
}

/// Binds a request to its project root under its host's rule (explicit
/// root, Codex's root markers, or the git rule), without resolving a chain.
pub(crate) fn bind(
    request: &Request,
    env: &Environment,
    reader: &Reader,
    never: &NeverProjects,
) -> Result<Located, ResolveError> {
    let mut warnings = Vec::new();
    match request.host {
        Host::Codex => {
            let config = codex::load_config(reader, env, &mut warnings);
            locate(reader, never, &request.cwd, request.root.as_deref(), request.target.as_deref(), |cwd| {
                codex::find_root(reader, never, &config, cwd)
            })
        }
        Host::Gemini => {
            let settings = gemini::load_settings(reader, env, &request.cwd, &mut warnings);
            locate(reader, never, &request.cwd, request.root.as_deref(), request.target.as_deref(), |cwd| {
                gemini::find_root(reader, never, &settings, cwd)
            })
        }
        _ => locate(reader, never, &request.cwd, request.root.as_deref(), request.target.as_deref(), |cwd| {
            git_root(reader, never, cwd)
        }),
    }
}
