//! `check`: what each host will miss, cut, shadow or follow out of the
//! repository, as findings a team can run in CI. One more renderer over
//! the one resolution: the directories that hold instruction files are
//! found by the catalog's bounded walk, each is resolved under each host's
//! own rules ([`crate::Resolver::chain`]), and the probes, parts and
//! memory index of those resolutions become [`Finding`]s. No host rule is
//! written here: a finding only restates what a host module decided.
//!
//! ```no_run
//! use agentspine_core::check::CheckRequest;
//! use agentspine_core::{Environment, Host, Resolver};
//! use agentspine_fs::{Budget, Reader};
//! let env = Environment::from_vars(|name| std::env::var_os(name));
//! let reader = Reader::new(Budget::with_timeout(std::time::Duration::from_secs(2)));
//! let resolver = Resolver::new(env, reader);
//! let check = resolver.check(&CheckRequest::new("/repo", vec![Host::Codex, Host::Claude])).expect("a root");
//! for finding in &check.findings {
//!     println!("{} {} {}", finding.severity, finding.path, finding.message);
//! }
//! ```

mod budget;
pub(crate) mod discover;
pub(crate) mod finding;
pub(crate) mod findings;
pub mod silence;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::error::ResolveError;
use crate::host::{Host, Request};
use crate::resolver::Resolver;

pub use budget::{Budget, Disagreement};
pub use finding::{Finding, Kind, Severity};
pub use silence::{Silence, SilenceError};

/// What to check.
#[derive(Debug, Clone)]
pub struct CheckRequest {
    /// The project root: an existing absolute directory.
    pub root: PathBuf,
    /// Whose rules apply, in this order; empty: the hosts the repository
    /// addresses and the hosts installed for this user ([`chosen_hosts`]).
    pub hosts: Vec<Host>,
    /// Directories to check besides the ones the discovery finds
    /// (absolute, inside the root).
    pub paths: Vec<PathBuf>,
    /// Whether to list the directories where hosts disagree.
    pub compare: bool,
    /// Findings silenced by id and path (never a safety finding).
    pub silence: Silence,
    /// Which AGENTS.md files agentspine's hooks add for Claude Code (the
    /// user's `[claude] session_start_agents_md`): those are reported as
    /// delivered, not lost.
    pub claude_agents_md: crate::delta::ClaudeAgentsMd,
    /// Whether the repository is walked for directories to check (else
    /// only the root and `paths`, each listed once: what `doctor` asks for
    /// one session's directories).
    pub walk: bool,
}

impl CheckRequest {
    /// A check of `root` under `hosts`, nothing silenced.
    pub fn new(root: impl Into<PathBuf>, hosts: Vec<Host>) -> CheckRequest {
        CheckRequest {
            root: root.into(),
            hosts,
            paths: Vec::new(),
            compare: false,
            silence: Silence::default(),
            claude_agents_md: crate::delta::ClaudeAgentsMd::default(),
            walk: true,
        }
    }
}

/// The hosts `check` applies by default: every agent host agentspine
/// models (the `generic` rule is agentspine's own, no agent's).
pub fn default_hosts() -> Vec<Host> {
    Host::ALL.into_iter().filter(|h| h.profile().checked_by_default).collect()
}

/// A host `check` applies without being asked, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChosenHost {
    /// The host.
    pub host: Host,
    /// What shows it applies (`CLAUDE.md in the repository`, `installed:
    /// ~/.codex`).
    pub why: String,
}

/// The hosts a check applies when none are named: each host the repository
/// addresses (a file it reads by name, its configuration directory at the
/// root) and each installed for this user (its profile directory exists).
fn chosen_hosts(
    env: &crate::env::Environment,
    reader: &agentspine_fs::Reader,
    root: &agentspine_fs::Root,
    found: &discover::Discovered,
    names: &[(Host, Vec<String>)],
) -> Vec<ChosenHost> {
    let mut out = Vec::new();
    // The agent hosts a user runs, in check order (the desktop rule and
    // `generic` are agentspine's own, and pi 0.73 is the old pi: each
    // only when asked).
    for profile in Host::ALL.iter().map(|h| h.profile()).filter(|p| p.chosen_by_evidence) {
        let host = profile.host;
        let own = profile.evidence_names;
        let configured: Vec<&str> = names
            .iter()
            .filter(|(h, _)| *h == host && profile.configurable_names)
            .flat_map(|(_, n)| n.iter().map(String::as_str))
            .collect();
        let named = found
            .present
            .values()
            .flat_map(|names| names.keys())
            .find(|n| own.contains(&n.as_str()) || configured.contains(&n.as_str()));
        let why = if let Some(name) = named {
            let shown = if name.starts_with('.') { format!("{name}/") } else { name.clone() };
            Some(format!("{shown} in the repository"))
        } else if let Some(dir) = profile.project_dir.filter(|dir| root.stat(dir).is_ok()) {
            Some(format!("{dir}/ in the repository"))
        } else {
            (profile.home)(env)
                .filter(|p| reader.open_root(p).is_ok())
                .map(|p| format!("installed: {}", crate::paths::tilde(&p, env.home.as_deref())))
        };
        if let Some(why) = why {
            out.push(ChosenHost { host, why });
        }
    }
    out
}

/// How many findings a check left, by severity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Findings per severity, after silencing.
    pub counts: BTreeMap<Severity, u64>,
    /// Findings silenced by the configuration.
    pub silenced: u64,
    /// `[[check.silence]]` entries that name a safety finding, which is
    /// never silenced: each reported, with the finding it would have hidden.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<RefusedSilence>,
}

/// A `[[check.silence]]` entry refused because it names a safety finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RefusedSilence {
    /// The entry's `id`.
    pub id: String,
    /// The entry's `path`.
    pub path: String,
    /// The safety finding's path it matched.
    pub finding: String,
}

/// Everything one check found.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// The project root (canonical).
    pub root: PathBuf,
    /// The hosts applied.
    pub hosts: Vec<Host>,
    /// When no host was named: why each applied host was chosen.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hosts_chosen: Vec<ChosenHost>,
    /// The directories checked, relative to the root (`.` first).
    pub dirs: Vec<String>,
    /// The findings, sorted by path, line, host and id.
    pub findings: Vec<Finding>,
    /// Per host, the bytes it sends for the root and the deepest directory.
    pub budgets: Vec<Budget>,
    /// With `compare`: the directories where hosts disagree on what applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disagreements: Option<Vec<Disagreement>>,
    /// Counts per severity and silenced findings.
    pub summary: Summary,
    /// The file system work the check cost.
    pub work: agentspine_fs::Counters,
}

impl Check {
    /// Whether any finding is at least `severity` (for `--deny`).
    pub fn has_at_least(&self, severity: Severity) -> bool {
        self.findings.iter().any(|f| f.severity >= severity)
    }
}

/// Why a check could not run at all.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The root or a directory cannot be resolved.
    #[error(transparent)]
    Resolve(#[from] ResolveError),
    /// The root is no project under the never-a-project rule.
    #[error("{}: {} is never a project; agentspine checks nothing there", .root.display(), .kind.what())]
    NotAProject {
        /// The root, canonical.
        root: PathBuf,
        /// What it is instead.
        kind: crate::policy::RootKind,
    },
    /// A directory of `--paths` lies outside the root.
    #[error("{}: outside the project root {}", .path.display(), .root.display())]
    PathOutsideRoot {
        /// The directory as given.
        path: PathBuf,
        /// The root.
        root: PathBuf,
    },
    /// A directory of `--paths` is, or passes through, a link.
    #[error("{}: a link is on the path; name the directory itself (check reads no directory through a link)", .path.display())]
    PathThroughLink {
        /// The directory as given.
        path: PathBuf,
    },
}

impl CheckError {
    /// A stable code for JSON output.
    pub fn code(&self) -> &'static str {
        match self {
            CheckError::Resolve(e) => e.code(),
            CheckError::NotAProject { .. } => "not-a-project",
            CheckError::PathOutsideRoot { .. } => "path-outside-root",
            CheckError::PathThroughLink { .. } => "path-through-link",
        }
    }
}

/// The `bounded-truncated` message: the bound, and the subtrees it left
/// unchecked (the first ten, then how many more).
fn unchecked(stopped: &crate::catalog::walk::Stopped) -> String {
    const SHOWN: usize = 10;
    let bound = stopped.bound;
    let mut dirs: Vec<String> = stopped
        .unvisited
        .iter()
        .take(SHOWN)
        .map(|d| if d.is_empty() { "./".to_owned() } else { format!("{d}/") })
        .collect();
    if stopped.unvisited.len() > SHOWN {
        dirs.push(format!("and {} more", stopped.unvisited.len() - SHOWN));
    }
    if dirs.is_empty() {
        format!(
            "the discovery of instruction files stopped at its {bound} bound; directories beyond it are not checked"
        )
    } else {
        format!(
            "the discovery of instruction files stopped at its {bound} bound; these subtrees are not checked: {} \
             (check them with --paths)",
            dirs.join(", ")
        )
    }
}

/// Runs a check (through [`Resolver::check`]).
pub(crate) fn run(resolver: &Resolver<'_>, request: &CheckRequest) -> Result<Check, CheckError> {
    let reader = resolver.reader();
    let before = reader.counters();
    if !request.root.is_absolute() {
        return Err(ResolveError::Relative { what: "project root", path: request.root.clone() }.into());
    }
    let root_path =
        crate::locate::canonical_dir(reader, resolver.never_projects().named_roots(), &request.root)?;
    let kind = resolver.classify(&root_path);
    if !kind.is_project() {
        return Err(CheckError::NotAProject { root: root_path, kind });
    }
    let root = reader.open_root(&root_path).map_err(ResolveError::from)?;
    let mut extra = Vec::new();
    for path in &request.paths {
        let rel = crate::paths::lexical(path);
        match rel.strip_prefix(&root_path).or_else(|_| rel.strip_prefix(&request.root)) {
            // Named beneath the root, it must also be reached there without
            // a link (a directory link out of the project names no directory
            // of it).
            Ok(rel) => match root.subdir(rel) {
                Err(agentspine_fs::FsError::Symlink { .. }) => {
                    return Err(CheckError::PathThroughLink { path: path.clone() });
                }
                _ => extra.push(rel.display().to_string()),
            },
            Err(_) => return Err(CheckError::PathOutsideRoot { path: path.clone(), root: root_path }),
        }
    }
    let asked = !request.hosts.is_empty();
    let looked_for: Vec<Host> = if asked {
        request.hosts.clone()
    } else {
        Host::ALL.into_iter().filter(|h| h.profile().chosen_by_evidence).collect()
    };
    let names: Vec<(Host, Vec<String>)> = looked_for
        .iter()
        .map(|h| (*h, crate::hosts::instruction_names(*h, resolver.env(), reader, &root_path)))
        .collect();
    let all_names: Vec<String> = names.iter().flat_map(|(_, n)| n.iter().cloned()).collect();
    let found = if request.walk {
        discover::discover(&root, &root_path, &all_names, &extra)
    } else {
        discover::listed(&root, &all_names, &extra)
    };
    let hosts_chosen =
        if asked { Vec::new() } else { chosen_hosts(resolver.env(), reader, &root, &found, &names) };
    let hosts: Vec<Host> =
        if asked { request.hosts.clone() } else { hosts_chosen.iter().map(|c| c.host).collect() };
    let mut sink = findings::Sink::default();
    if let Some(stopped) = &found.stopped {
        sink.add(findings::Raw::new(Kind::BoundedTruncated, None, ".", unchecked(stopped)), None);
    }
    let mut resolutions: Vec<(Host, String, crate::Resolution)> = Vec::new();
    for host in &hosts {
        for dir in &found.dirs {
            let cwd = if dir == "." { root_path.clone() } else { root_path.join(dir) };
            let chain = resolver.chain(&Request {
                host: *host,
                cwd: cwd.clone(),
                root: Some(root_path.clone()),
                target: None,
                transcript_path: None,
            })?;
            findings::of_resolution(&chain, dir, &found, request.claude_agents_md, &mut sink);
            findings::code_imports(&chain, dir, &mut sink);
            // The host's own checks of a directory (Claude Code's
            // `.claude/rules`), when the check walks the tree.
            if let Some(check) = host.profile().check.checks.per_dir.filter(|_| request.walk) {
                check(&root, &root_path, &chain, &found, &mut sink);
            }
            resolutions.push((*host, dir.clone(), chain));
        }
        // And of the project as a whole (Claude Code's memory directory).
        if let Some(check) = host.profile().check.checks.per_project {
            let at = findings::ProjectContext {
                env: resolver.env(),
                reader: resolver.reader(),
                never: resolver.never_projects(),
                root: &root_path,
            };
            check(&at, &mut sink)?;
        }
    }
    let budgets = budget::budgets(&hosts, &found.dirs, &resolutions);
    let disagreements = request.compare.then(|| budget::disagreements(&found.dirs, &resolutions));
    let (findings, silenced, refused) = sink.finish(&request.silence);
    let mut counts = BTreeMap::new();
    for finding in &findings {
        *counts.entry(finding.severity).or_default() += 1;
    }
    Ok(Check {
        root: root_path,
        hosts,
        hosts_chosen,
        dirs: found.dirs,
        findings,
        budgets,
        disagreements,
        summary: Summary { counts, silenced, refused },
        work: reader.counters() - before,
    })
}

impl Resolver<'_> {
    /// What each host of `request` will miss, cut, shadow or follow out of
    /// the repository: the findings of `agentspine check` (see
    /// [`crate::check`]).
    pub fn check(&self, request: &CheckRequest) -> Result<Check, CheckError> {
        run(self, request)
    }
}
