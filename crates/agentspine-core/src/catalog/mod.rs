//! The catalog: one bounded set of sources per request, built once and
//! shared by everything that answers it (briefing, knowledge query,
//! `read_document`). Nothing rediscovers.
//!
//! Sources, in order: the host's user-wide files and the project chain
//! (required), the memory index and its relevant facts (Claude only), then
//! optional project-wide Markdown in what budget is left.

pub mod briefing;
pub mod continuity;
pub mod document;
pub mod find;
pub mod ids;
pub mod markdown;
pub mod query;
pub mod receipt;
pub(crate) mod walk;

use std::path::{Path, PathBuf};

use agentspine_fs::{Code, Reader};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::env::Environment;
use crate::error::ResolveError;
use crate::host::{Host, Request};
use crate::memory::{MemoryReport, ScopeIds};
use crate::policy::RootKind;
use crate::resolution::{Cause, Scope, Verdict, Warning};
use crate::resolver::Resolver;

pub use briefing::{Briefing, briefing};
pub use continuity::ContinuityItem;
pub use document::{Document, DocumentError, read_document};
pub use find::{Lookup, Variant};
pub use ids::SourceIds;
pub use query::{QueryAnswer, query};
pub use receipt::{PreflightError, Receipt, preflight};

/// Bytes of all sources in one catalog.
pub const CATALOG_CAP: u64 = 4 * 1024 * 1024;

/// What to build a catalog for.
#[derive(Debug, Clone)]
pub struct CatalogRequest {
    /// Whose rules apply (`generic`: project sources only).
    pub host: Host,
    /// The exact project root: an existing absolute directory, used as is.
    pub project_root: PathBuf,
    /// The working directory (the root when absent).
    pub cwd: Option<PathBuf>,
    /// A file whose chain replaces the working directory's.
    pub target: Option<PathBuf>,
    /// The current scope.
    pub scope: ScopeIds,
    /// The prompt, whose words may make memory facts relevant.
    pub prompt: Option<String>,
    /// A hook's `transcript_path` (evidence for Claude's memory directory).
    pub transcript_path: Option<PathBuf>,
    /// Whether to add optional project-wide Markdown.
    pub markdown: bool,
    /// Records read through the user's bindings (context only).
    pub continuity: Vec<ContinuityItem>,
}

impl CatalogRequest {
    /// A request for `root` under `host`'s rules, nothing optional.
    pub fn new(host: Host, project_root: impl Into<PathBuf>) -> CatalogRequest {
        CatalogRequest {
            host,
            project_root: project_root.into(),
            cwd: None,
            target: None,
            scope: ScopeIds::default(),
            prompt: None,
            transcript_path: None,
            markdown: false,
            continuity: Vec::new(),
        }
    }
}

/// One file that may reach a model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Source {
    /// Opaque, stable id (a keyed digest; never a path).
    pub source_id: String,
    /// Where it comes from.
    pub scope: Scope,
    /// Path relative to its root (`~/…` for profile files).
    pub rel_path: String,
    /// Size on disk.
    pub bytes: u64,
    /// SHA-256 of its bytes.
    pub sha256: String,
    /// Whether the host loads it natively (a required source).
    pub required: bool,
    /// The text (as the host would show it).
    #[serde(skip)]
    pub text: String,
    /// Where to read it again.
    #[serde(skip)]
    pub(crate) origin: Origin,
}

/// The directory a source was read beneath and its name there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Origin {
    pub(crate) base: PathBuf,
    pub(crate) rel: String,
}

/// Something that kept a required source out, or a bound that was reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Gap {
    /// The candidate or bound (`AGENTS.md`, `markdown-files`, …).
    pub what: String,
    /// Why (`permission-denied`, `race`, `truncated`, `bounded-truncated`, …).
    pub cause: Cause,
    /// Whether it concerns a required source (a required preflight fails).
    pub required: bool,
}

/// Why a catalog is empty or closed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closed {
    /// The root is never a project (home, above it, a profile).
    Root(RootKind),
    /// Nothing was found.
    NoSources,
    /// The memory directory failed closed.
    Memory(crate::memory::MemoryStatus),
}

impl Closed {
    /// The stable word (`root-is-home`, `no-sources`, `index-changed`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Closed::Root(kind) => kind.reason().unwrap_or("root-is-project"),
            Closed::NoSources => "no-sources",
            Closed::Memory(status) => status.as_str(),
        }
    }
}

impl std::fmt::Display for Closed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Closed {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// The `sourceResolution` report: what was checked and found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceResolution {
    /// The host whose rules applied.
    pub host: Host,
    /// The project root.
    pub project_root: PathBuf,
    /// What the root is under the never-a-project rule.
    pub root_kind: RootKind,
    /// Scopes that were looked at.
    pub checked_scopes: Vec<Scope>,
    /// Sources per scope.
    pub counts: std::collections::BTreeMap<String, u64>,
    /// SHA-256 over the profile paths and settings that drove resolution.
    pub profile_digest: String,
    /// Warnings (malformed settings, bounds reached).
    pub warnings: Vec<Warning>,
    /// Memory counts (Claude only).
    pub memory: Option<MemoryReport>,
    /// Why the catalog is empty or closed, when it is.
    pub reason: Option<Closed>,
    /// What kept sources out.
    pub gaps: Vec<Gap>,
    /// The file system work the catalog cost (opens, reads, listings, …).
    pub work: agentspine_fs::Counters,
}

impl SourceResolution {
    /// The gaps every surface writes to the audit log even when nothing
    /// was required: each bound an optional discovery reached
    /// (`bounded-truncated`). A persistent one is coalesced by the store
    /// (one row per root and bound an hour). Required gaps are audited
    /// where a preflight fails on them, and by the hooks.
    pub fn audited_gaps(&self) -> impl Iterator<Item = &Gap> {
        self.gaps.iter().filter(|g| g.cause == Cause::BoundedTruncated)
    }
}

/// The bounded set of sources for one request.
#[derive(Debug, Clone)]
pub struct Catalog {
    /// The sources, in briefing order.
    pub sources: Vec<Source>,
    /// The report.
    pub resolution: SourceResolution,
}

impl Catalog {
    /// The source with this id.
    pub fn source(&self, source_id: &str) -> Option<&Source> {
        self.sources.iter().find(|s| s.source_id == source_id)
    }

    /// SHA-256 over every source's id and digest, in order.
    pub fn digest(&self) -> String {
        let mut hash = Sha256::new();
        for s in &self.sources {
            hash.update(s.source_id.as_bytes());
            hash.update(b":");
            hash.update(s.sha256.as_bytes());
            hash.update(b"\n");
        }
        hex::encode(hash.finalize())
    }
}

/// Builds the catalog for `request` (through [`crate::Resolver::catalog`]).
pub(crate) fn build(resolver: &Resolver<'_>, request: &CatalogRequest) -> Result<Catalog, ResolveError> {
    let reader = resolver.reader();
    let env = resolver.env();
    let ids = resolver.ids();
    let before = reader.counters();
    let root = exact_root(reader, resolver.never_projects().named_roots(), &request.project_root)?;
    let mut resolution = SourceResolution {
        host: request.host,
        project_root: root.clone(),
        root_kind: RootKind::Project,
        checked_scopes: Vec::new(),
        counts: Default::default(),
        profile_digest: String::new(),
        warnings: Vec::new(),
        memory: None,
        reason: None,
        gaps: Vec::new(),
        work: agentspine_fs::Counters::default(),
    };
    let mut sources: Vec<Source> = Vec::new();
    let chain_request = Request {
        host: request.host,
        cwd: request.cwd.clone().unwrap_or_else(|| root.clone()),
        root: Some(root.clone()),
        target: request.target.clone(),
        transcript_path: request.transcript_path.clone(),
    };
    let chain = resolver.chain(&chain_request)?;
    resolution.root_kind = chain.root_kind;
    resolution.reason = (!chain.root_kind.is_project()).then_some(Closed::Root(chain.root_kind));
    resolution.warnings.extend(chain.warnings.iter().cloned());
    if chain.profile_home.is_some() {
        resolution.checked_scopes.push(Scope::User);
    }
    if chain.root_kind.is_project() {
        resolution.checked_scopes.push(Scope::Project);
    }
    resolution.gaps.extend(gaps_of(&chain.probes));
    for part in chain.parts.iter().filter(|p| p.scope != Scope::Memory) {
        let (base, rel) = split_origin(&part.path, &part.label, &root);
        sources.push(Source {
            source_id: ids.id(&base, &rel, part.scope),
            scope: part.scope,
            rel_path: part.label.clone(),
            bytes: part.bytes,
            sha256: part.sha256.clone(),
            required: true,
            text: part.text.clone(),
            origin: Origin { base, rel },
        });
    }
    if request.host.profile().memory_facts {
        resolution.checked_scopes.push(Scope::Memory);
        memory_sources(resolver, &chain_request, request, &mut sources, &mut resolution)?;
    }
    continuity::add(&request.continuity, ids, &mut sources, &mut resolution);
    if request.markdown && chain.root_kind.is_project() {
        resolution.checked_scopes.push(Scope::Doc);
        markdown::discover(reader, &root, ids, &mut sources, &mut resolution);
    }
    for s in &sources {
        *resolution.counts.entry(s.scope.to_string()).or_default() += 1;
    }
    if sources.is_empty() && resolution.reason.is_none() {
        resolution.reason = Some(Closed::NoSources);
    }
    resolution.profile_digest = profile_digest(request.host, env);
    resolution.work = reader.counters() - before;
    Ok(Catalog { sources, resolution })
}

/// Every probe that kept a required source out, as a gap: one rule for
/// every surface (a required preflight fails on any of them, `--explain`
/// lists them, a hook audits them).
pub fn gaps_of(probes: &[crate::resolution::Probe]) -> Vec<Gap> {
    probes
        .iter()
        .filter_map(|probe| {
            gap_cause(&probe.verdict).map(|cause| Gap { what: probe.path.clone(), cause, required: true })
        })
        .collect()
}

fn memory_sources(
    resolver: &Resolver<'_>,
    chain_request: &Request,
    request: &CatalogRequest,
    sources: &mut Vec<Source>,
    resolution: &mut SourceResolution,
) -> Result<(), ResolveError> {
    let ids = resolver.ids();
    let (found, warnings) =
        resolver.memory(chain_request, &request.scope, request.prompt.as_deref(), false)?;
    resolution.warnings.extend(warnings);
    let Some(crate::resolver::MemoryOutcome { dir: found, load: loaded }) = found else { return Ok(()) };
    resolution.memory = Some(loaded.report);
    if let Some(closed) = loaded.closed_reason() {
        resolution.gaps.push(Gap {
            what: "MEMORY.md".to_owned(),
            cause: Cause::Memory(closed),
            required: true,
        });
        if resolution.reason.is_none() {
            resolution.reason = Some(Closed::Memory(closed));
        }
    }
    if let Some(index) = &loaded.index {
        sources.push(Source {
            source_id: ids.of_fact(&found.dir, crate::memory::load::INDEX),
            scope: Scope::Memory,
            rel_path: crate::memory::load::INDEX.to_owned(),
            bytes: index.bytes,
            sha256: index.sha256.clone(),
            required: true,
            text: index.text.clone(),
            origin: Origin { base: found.dir.clone(), rel: crate::memory::load::INDEX.to_owned() },
        });
    }
    for fact in loaded.facts {
        sources.push(Source {
            source_id: ids.of_fact(&found.dir, &fact.target),
            scope: Scope::Memory,
            rel_path: format!("memory:{}", fact.position + 1),
            bytes: fact.bytes,
            sha256: fact.sha256,
            required: false,
            text: fact.text,
            origin: Origin { base: found.dir.clone(), rel: fact.target },
        });
    }
    Ok(())
}

/// The root exactly as given: absolute, an existing directory, and its
/// own canonical path (no walking up, no guessing).
fn exact_root(
    reader: &Reader,
    named: crate::policy::NamedRoots,
    root: &Path,
) -> Result<PathBuf, ResolveError> {
    if !root.is_absolute() {
        return Err(ResolveError::Relative { what: "project root", path: root.to_path_buf() });
    }
    crate::locate::canonical_dir(reader, named, root)
}

impl SourceIds {
    /// The id of a chain part whose project root is `root`: the one rule
    /// for every surface (a hook's blocks and the catalog's sources name
    /// the same file with the same id).
    pub fn of_part(&self, part: &crate::resolution::Part, root: &Path) -> String {
        let (base, rel) = split_origin(&part.path, &part.label, root);
        self.id(&base, &rel, part.scope)
    }

    /// The id of a memory fact (`target`, as its index link names it) of
    /// the memory directory `dir`: the same for the catalog and a hook.
    pub fn of_fact(&self, dir: &Path, target: &str) -> String {
        self.id(dir, target, Scope::Memory)
    }
}

/// The directory a part was read beneath and its name there.
fn split_origin(path: &Path, label: &str, root: &Path) -> (PathBuf, String) {
    match path.strip_prefix(root) {
        Ok(rel) => (root.to_path_buf(), rel.display().to_string()),
        Err(_) => {
            let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| label.to_owned());
            (base, name)
        }
    }
}

/// Causes that keep a required source out (a cut counts: the model would
/// not see the whole file).
pub(crate) fn gap_cause(verdict: &Verdict) -> Option<Cause> {
    Some(match verdict {
        Verdict::PermissionDenied => Cause::Reader(Code::PermissionDenied),
        Verdict::Symlink => Cause::Reader(Code::Symlink),
        Verdict::NotRegular { .. } => Cause::Reader(Code::NotRegular),
        Verdict::Truncated { .. } => Cause::Truncated,
        Verdict::BudgetSpent => Cause::Reader(Code::BudgetExhausted),
        Verdict::TooLarge { .. } => Cause::Reader(Code::TooLarge),
        Verdict::HardLink => Cause::Reader(Code::HardLink),
        Verdict::MountCrossing => Cause::Reader(Code::MountCrossing),
        Verdict::Refused { code } => *code,
        _ => return None,
    })
}

/// SHA-256 over the profile paths and settings that drive this host.
pub(crate) fn profile_digest(host: Host, env: &Environment) -> String {
    let mut hash = Sha256::new();
    let mut add = |name: &str, value: Option<&Path>| {
        hash.update(name.as_bytes());
        hash.update(b"=");
        if let Some(v) = value {
            hash.update(v.as_os_str().as_encoded_bytes());
        }
        hash.update(b"\n");
    };
    add("host", Some(Path::new(host.as_str())));
    add("home", env.home.as_deref());
    for (name, value) in (host.profile().profile_inputs)(env) {
        add(name, value.as_deref());
    }
    hex::encode(hash.finalize())
}

impl Resolver<'_> {
    /// The catalog of `request`: required sources (user-wide files, the
    /// project chain), memory (Claude), continuity, optional Markdown.
    pub fn catalog(&self, request: &CatalogRequest) -> Result<Catalog, ResolveError> {
        build(self, request)
    }
}
