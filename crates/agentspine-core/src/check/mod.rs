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
pub(crate) mod findings;
pub mod silence;

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use crate::error::ResolveError;
use crate::host::{Host, Request};
use crate::resolver::Resolver;

pub use budget::{Budget, Disagreement};
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

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// Something else worth knowing.
    Note,
    /// A file a host never reads.
    Warning,
    /// Content a host loses, or reads from outside the repository.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// The kind of a finding: its stable id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A host's byte budget cuts the file.
    BudgetCut,
    /// A host's byte budget is spent before the file.
    BudgetDropped,
    /// Claude Code cuts `MEMORY.md` (200 lines, 25,000 characters).
    MemoryCut,
    /// Over the per-file cap: the host skips it.
    TooLarge,
    /// A host never reads the file in this layout.
    NeverRead,
    /// An empty or blank winner hides the file.
    ShadowedByEmpty,
    /// An `@` import outside the start directory, dropped.
    ImportOutsideCwd,
    /// Files Claude Code leaves out that the repository means for it (a
    /// CLAUDE.md links to or imports AGENTS.md): agentspine's hooks
    /// deliver them.
    DeliveredByAgentspine,
    /// An `@` import beyond the host's depth limit, dropped.
    ImportDepth,
    /// An `@` import whose target is missing.
    ImportMissing,
    /// An `@` import of a file already included (a cycle or a repeat).
    ImportRepeated,
    /// More `@` imports than agentspine follows.
    ImportLimit,
    /// An `@path` inside inline code or a code block: not expanded.
    ImportInCode,
    /// An approved `@` import outside the project: the host reads it.
    ImportOutsideRoot,
    /// A `.claude/rules` file whose `paths:` match no file under the root.
    RulesPathsUnmatched,
    /// A `.claude/rules` file whose frontmatter does not parse.
    RulesFrontmatterMalformed,
    /// A link out of the repository (or into `.git`): the host follows
    /// it, agentspine does not.
    Symlink,
    /// A link to another file of the repository: every host that reads the
    /// name reads that file, and so does agentspine.
    LinkInside,
    /// A link to nothing, or a chain of links that never ends: the host
    /// reads nothing there.
    LinkBroken,
    /// A file with more than one name.
    HardLink,
    /// Not a regular file (a FIFO, a device, a directory).
    SpecialFile,
    /// Behind a mount point below the root.
    MountCrossing,
    /// The file cannot be read (permission, a race, another refusal).
    Unreadable,
    /// A host reads a file above the project root.
    AboveRoot,
    /// A `MEMORY.md` link no marker, label or file name can ever select.
    MemoryLinkUnselectable,
    /// A `MEMORY.md` link to a file that is not there.
    MemoryLinkMissing,
    /// A `MEMORY.md` link agentspine never opens (absolute, `..`, a scheme).
    MemoryLinkUnsafe,
    /// The discovery stopped at one of its bounds.
    BoundedTruncated,
}

impl Kind {
    /// The id as written in JSON, SARIF and the silencing table.
    pub fn id(self) -> &'static str {
        match self {
            Kind::BudgetCut => "budget-cut",
            Kind::BudgetDropped => "budget-dropped",
            Kind::MemoryCut => "memory-cut",
            Kind::TooLarge => "too-large",
            Kind::NeverRead => "never-read",
            Kind::ShadowedByEmpty => "shadowed-by-empty",
            Kind::ImportOutsideCwd => "import-outside-cwd",
            Kind::DeliveredByAgentspine => "delivered-by-agentspine",
            Kind::ImportDepth => "import-depth",
            Kind::ImportMissing => "import-missing",
            Kind::ImportRepeated => "import-repeated",
            Kind::ImportLimit => "import-limit",
            Kind::ImportInCode => "import-in-code",
            Kind::ImportOutsideRoot => "import-outside-root",
            Kind::RulesPathsUnmatched => "rules-paths-unmatched",
            Kind::RulesFrontmatterMalformed => "rules-frontmatter-malformed",
            Kind::Symlink => "symlink",
            Kind::LinkInside => "link-inside",
            Kind::LinkBroken => "link-broken",
            Kind::HardLink => "hard-link",
            Kind::SpecialFile => "special-file",
            Kind::MountCrossing => "mount-crossing",
            Kind::Unreadable => "unreadable",
            Kind::AboveRoot => "above-root",
            Kind::MemoryLinkUnselectable => "memory-link-unselectable",
            Kind::MemoryLinkMissing => "memory-link-missing",
            Kind::MemoryLinkUnsafe => "memory-link-unsafe",
            Kind::BoundedTruncated => "bounded-truncated",
        }
    }

    /// Every kind, in the order they are documented.
    pub const ALL: [Kind; 28] = [
        Kind::BudgetCut,
        Kind::BudgetDropped,
        Kind::MemoryCut,
        Kind::TooLarge,
        Kind::NeverRead,
        Kind::ShadowedByEmpty,
        Kind::ImportOutsideCwd,
        Kind::DeliveredByAgentspine,
        Kind::ImportDepth,
        Kind::ImportMissing,
        Kind::ImportRepeated,
        Kind::ImportLimit,
        Kind::ImportInCode,
        Kind::ImportOutsideRoot,
        Kind::RulesPathsUnmatched,
        Kind::RulesFrontmatterMalformed,
        Kind::Symlink,
        Kind::LinkInside,
        Kind::LinkBroken,
        Kind::HardLink,
        Kind::SpecialFile,
        Kind::MountCrossing,
        Kind::Unreadable,
        Kind::AboveRoot,
        Kind::MemoryLinkUnselectable,
        Kind::MemoryLinkMissing,
        Kind::MemoryLinkUnsafe,
        Kind::BoundedTruncated,
    ];

    /// Error for content lost or read from outside, warning for a file a
    /// host never reads, note otherwise.
    pub fn severity(self) -> Severity {
        match self {
            Kind::BudgetCut
            | Kind::BudgetDropped
            | Kind::MemoryCut
            | Kind::TooLarge
            | Kind::ImportOutsideCwd
            | Kind::ImportDepth
            | Kind::ImportOutsideRoot
            | Kind::Symlink
            | Kind::HardLink => Severity::Error,
            Kind::NeverRead
            | Kind::ShadowedByEmpty
            | Kind::ImportMissing
            | Kind::RulesPathsUnmatched
            | Kind::RulesFrontmatterMalformed
            | Kind::LinkBroken
            | Kind::SpecialFile
            | Kind::MountCrossing
            | Kind::Unreadable
            | Kind::MemoryLinkMissing
            | Kind::MemoryLinkUnsafe => Severity::Warning,
            Kind::ImportRepeated
            | Kind::ImportLimit
            | Kind::ImportInCode
            | Kind::AboveRoot
            | Kind::LinkInside
            | Kind::DeliveredByAgentspine
            | Kind::MemoryLinkUnselectable
            | Kind::BoundedTruncated => Severity::Note,
        }
    }

    /// What a maintainer does about a finding of this kind (`None` for a
    /// note: nothing needs doing).
    pub fn action(self) -> Option<&'static str> {
        Some(match self {
            Kind::BudgetCut | Kind::BudgetDropped => {
                "keep the files above it shorter (Codex sends 32 KiB in all, root first), or raise \
                 project_doc_max_bytes in ~/.codex/config.toml"
            }
            Kind::MemoryCut => "move detail out of MEMORY.md into the fact files it links",
            Kind::TooLarge => "split the file: the host skips it whole",
            Kind::NeverRead => {
                "merge its rules into the file this host reads in this directory; where both names must \
                 stay, make one a link to the other (`ln -s AGENTS.md CLAUDE.md`): every host reads a link's \
                 target"
            }
            Kind::ShadowedByEmpty => "delete the blank file, or write the rules into it",
            Kind::ImportOutsideCwd => {
                "copy the imported text into this file; for `@AGENTS.md`, make CLAUDE.md a link to it \
                 instead (`ln -s AGENTS.md CLAUDE.md`), which Claude Code reads in every directory"
            }
            Kind::ImportDepth => "import the file from a file nearer the top of the import chain",
            Kind::ImportMissing => "fix or remove the @ import",
            Kind::ImportOutsideRoot => "copy the file into the project",
            Kind::RulesPathsUnmatched => "fix the rule's paths: so they match files, or remove the rule",
            Kind::RulesFrontmatterMalformed => "close the frontmatter with a line of three dashes",
            Kind::Symlink => "replace the link with a copy of the file inside the project",
            Kind::LinkBroken => "point the link at a file of the project, or remove it",
            Kind::HardLink => "replace the hard link with a copy, or a symbolic link inside the project",
            Kind::SpecialFile => "replace it with a regular file",
            Kind::MountCrossing => "keep instruction files on the project's own file system",
            Kind::Unreadable => "make the file readable (e.g. `chmod 644`)",
            Kind::MemoryLinkMissing => "fix or remove the link in MEMORY.md",
            Kind::MemoryLinkUnsafe => "link facts inside the memory directory, by a relative path",
            Kind::ImportRepeated
            | Kind::ImportLimit
            | Kind::ImportInCode
            | Kind::AboveRoot
            | Kind::LinkInside
            | Kind::DeliveredByAgentspine
            | Kind::MemoryLinkUnselectable
            | Kind::BoundedTruncated => return None,
        })
    }

    /// Whether the finding is about safety (what is read from where): such
    /// a finding is never silenced.
    pub fn is_safety(self) -> bool {
        matches!(
            self,
            Kind::Symlink
                | Kind::HardLink
                | Kind::SpecialFile
                | Kind::MountCrossing
                | Kind::ImportOutsideRoot
                | Kind::MemoryLinkUnsafe
        )
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// One thing a host does with the repository's instruction files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Its kind (`id` in JSON).
    #[serde(rename = "id")]
    pub kind: Kind,
    /// How much it matters.
    pub severity: Severity,
    /// The host whose rule it is (`None`: agentspine's own, e.g. the
    /// discovery's bound or a memory link).
    pub host: Option<Host>,
    /// The file concerned, relative to the root (`~/…` for profile and
    /// memory files, `.` for the root, `dir/` for a directory).
    pub path: String,
    /// The line it concerns, where one applies (1-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// What the host does, in the host's own terms.
    pub message: String,
    /// What agentspine does instead, when it differs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agentspine: Option<String>,
    /// What to do about it (warnings and errors; see [`Kind::action`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// The directories (relative to the root) whose sessions this applies
    /// to, in check order.
    pub dirs: Vec<String>,
    /// The files this finding costs those sessions (a dropped pointer
    /// import: the AGENTS.md files the host then never reads), or that
    /// agentspine delivers in their place; relative to the root.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// Whether it is a safety finding (never silenced).
    pub safety: bool,
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
            check(resolver, &root_path, &mut sink)?;
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
