//! The one entry point every front end asks: a [`Resolver`] holds the
//! environment, the confined reader, the source-id key and the snapshot
//! caches, and answers every question about a request the same way on
//! every surface (CLI, hooks, MCP, desktop socket): which root, what the
//! root is under the never-a-project rule, which chain the host loads
//! natively, which memory directory and facts apply, the whole catalog,
//! and what a hook must add for a tool's targets.
//!
//! ```no_run
//! use agentspine_core::{Environment, Host, Request, Resolver, render_native};
//! use agentspine_fs::{Budget, Reader};
//! let env = Environment::from_process();
//! let reader = Reader::new(Budget::with_timeout(std::time::Duration::from_secs(2)));
//! let resolver = Resolver::new(env, reader);
//! let chain = resolver.chain(&Request::new(Host::Codex, "/repo/pkg")).expect("a resolvable request");
//! print!("{}", render_native(&chain));
//! ```

use std::cell::{OnceCell, RefCell};
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentspine_fs::{Budget, Reader};

use crate::catalog::ids::SourceIds;
use crate::env::Environment;
use crate::error::ResolveError;
use crate::host::{Host, Request};
use crate::memory::claude_dir::MemoryDir;
use crate::memory::{MemoryLoad, MemoryRequest, ScopeIds, SnapshotCache};
use crate::policy::{AllowedRoots, NeverProjects, RootKind};
use crate::resolution::{Resolution, Warning};

/// Where snapshot caches come from (the state store implements it): one
/// cache per directory whose files are cached (a memory directory).
pub trait CacheProvider {
    /// The cache for `dir` (canonical), or `None` to read uncached.
    fn cache_for<'a>(&'a self, dir: &Path) -> Option<Box<dyn SnapshotCache + 'a>>;

    /// Whether any cache may hold a snapshot (`false`: the store says it
    /// holds none, so there is nothing to drop).
    fn may_hold_snapshots(&self) -> bool {
        true
    }
}

/// How long one request's reads may take (DESIGN.md: the two-second
/// budget): every surface's reader stops starting reads then.
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(2);

/// How long the never-a-project check may spend canonicalising the home
/// directory and the profiles.
const POLICY_DEADLINE: Duration = REQUEST_DEADLINE;

/// Why [`Resolver::check_root`] refused a root.
#[derive(Debug, thiserror::Error)]
pub enum RootCheck {
    /// It cannot be opened as a directory.
    #[error(transparent)]
    Resolve(ResolveError),
    /// The root policy refuses it.
    #[error(transparent)]
    Refused(crate::policy::RootRefused),
}

/// A chain a resolver remembers: its request, Claude Code's AGENTS.md mode
/// it was resolved under, and the resolution.
type RememberedChain = (Request, Option<crate::hosts::claude::AgentsMdMode>, Resolution);

/// The resolver of one process or request (see the module docs).
pub struct Resolver<'a> {
    env: Environment,
    reader: Reader,
    /// Set by [`Resolver::with_ids`], else keyed for the process when
    /// first asked (no randomness is drawn by a run that names nothing).
    ids: OnceCell<SourceIds>,
    caches: Option<&'a dyn CacheProvider>,
    never: OnceCell<NeverProjects>,
    /// Whether the never-a-project check reads through `reader` (counted,
    /// its remembered roots shared) instead of a reader of its own.
    policy_through_reader: bool,
    /// How the roots and working directories requests name are opened.
    named: crate::policy::NamedRoots,
    /// Whether chains explain themselves (see [`Resolver::explaining`]).
    explain: bool,
    /// The chains already resolved, by request and Claude Code's AGENTS.md
    /// mode (see [`Resolver::remembering_chains`]); `None`: every
    /// call resolves afresh.
    chains: Option<RefCell<Vec<RememberedChain>>>,
}

/// The memory a request has: the directory, and what was loaded from it.
#[derive(Debug)]
pub struct MemoryOutcome {
    /// The memory directory and its evidence.
    pub dir: MemoryDir,
    /// The index, the relevant facts and the report.
    pub load: MemoryLoad,
}

impl<'a> Resolver<'a> {
    /// A resolver over `env`, reading through `reader` (its budget and
    /// counters), naming sources with this process's key
    /// ([`SourceIds::for_process`]) until [`Resolver::with_ids`] gives it
    /// the state store's.
    pub fn new(env: Environment, reader: Reader) -> Resolver<'a> {
        Resolver {
            env,
            reader,
            ids: OnceCell::new(),
            caches: None,
            never: OnceCell::new(),
            policy_through_reader: false,
            named: crate::policy::NamedRoots::default(),
            explain: false,
            chains: None,
        }
    }

    /// Chains resolved once per request: a second [`Resolver::chain`] (or
    /// [`Resolver::chain_with_agents_md`]) of the same request answers
    /// with the first one's resolution. For one short run that asks the
    /// same question from two places (a hook's session start: the files
    /// it adds, then its report), never for a server, whose tree changes
    /// between requests.
    pub fn remembering_chains(mut self) -> Resolver<'a> {
        self.chains = Some(RefCell::default());
        self
    }

    /// `request`'s chain under Claude Code's AGENTS.md `mode` (`None`: the
    /// host's own rules), through the remembered chains when on.
    fn chain_in(
        &self,
        request: &Request,
        mode: Option<crate::hosts::claude::AgentsMdMode>,
    ) -> Result<Resolution, ResolveError> {
        let resolve = || {
            crate::hosts::resolve_as(
                request,
                &self.env,
                &self.reader,
                self.never_projects(),
                mode,
                self.explain,
            )
        };
        let Some(chains) = &self.chains else { return resolve() };
        if let Some((_, _, found)) = chains.borrow().iter().find(|(r, m, _)| *m == mode && r == request) {
            return Ok(found.clone());
        }
        let resolution = resolve()?;
        chains.borrow_mut().push((request.clone(), mode, resolution.clone()));
        Ok(resolution)
    }

    /// Chains that explain themselves (`resolve --explain`): host rules
    /// also look at the candidates they pass over without reading them
    /// (Claude Code's AGENTS.md beside a CLAUDE.md), one stat each, to
    /// say why. Hooks and servers never ask for this.
    pub fn explaining(mut self) -> Resolver<'a> {
        self.explain = true;
        self
    }

    /// How the roots and working directories of this resolver's requests
    /// are opened (see [`crate::policy::NamedRoots`]): a surface whose
    /// roots a client names (MCP, hooks, the desktop socket) takes them as
    /// given and refuses one through a link.
    pub fn with_named_roots(mut self, named: crate::policy::NamedRoots) -> Resolver<'a> {
        self.named = named;
        if let Some(never) = self.never.take() {
            let _ = self.never.set(never.with_named_roots(named));
        }
        self
    }

    /// Names sources with `ids` (the state store's key: the same ids in
    /// every process).
    pub fn with_ids(mut self, ids: SourceIds) -> Resolver<'a> {
        self.ids = OnceCell::from(ids);
        self
    }

    /// Changes the environment before anything was resolved (a command's
    /// flag that stands for a variable, e.g. Codex's `--profile`).
    pub fn with_env(mut self, change: impl FnOnce(&mut Environment)) -> Resolver<'a> {
        change(&mut self.env);
        self.never = OnceCell::new();
        if let Some(chains) = &self.chains {
            chains.borrow_mut().clear();
        }
        self
    }

    /// Snapshot caches (the state store) for memory directories.
    pub fn with_caches(mut self, caches: &'a dyn CacheProvider) -> Resolver<'a> {
        self.caches = Some(caches);
        self
    }

    /// The environment.
    pub fn env(&self) -> &Environment {
        &self.env
    }

    /// The reader (its budget and counters).
    pub fn reader(&self) -> &Reader {
        &self.reader
    }

    /// The source-id key.
    pub fn ids(&self) -> &SourceIds {
        self.ids.get_or_init(SourceIds::for_process)
    }

    /// The home directory and the profiles found once by the caller (a
    /// long-lived server, or a hook that canonicalises them through its
    /// own remembering reader), instead of once per resolver.
    pub fn with_never_projects(self, never: NeverProjects) -> Resolver<'a> {
        let cell = OnceCell::new();
        let _ = cell.set(never.with_named_roots(self.named));
        Resolver { never: cell, ..self }
    }

    /// Canonicalise the home directory and the profiles through this
    /// resolver's own reader (a hook's, which remembers the roots it opened:
    /// the profiles the host's rules read next are then opened once), its
    /// work counted with the request's.
    pub fn policy_through_reader(self) -> Resolver<'a> {
        Resolver { policy_through_reader: true, ..self }
    }

    /// The home directory and the profiles, canonical, found once per
    /// resolver unless given ([`Resolver::with_never_projects`]). This
    /// fixed work goes through a reader of its own, so a request's
    /// counters show only that request's work.
    pub fn never_projects(&self) -> &NeverProjects {
        self.never.get_or_init(|| {
            let never = if self.policy_through_reader {
                NeverProjects::new(&self.env, &self.reader)
            } else {
                NeverProjects::new(&self.env, &Reader::new(Budget::with_timeout(POLICY_DEADLINE)))
            };
            never.with_named_roots(self.named)
        })
    }

    /// What `dir` is under the never-a-project rule, after resolving its
    /// links (a directory that cannot be opened is judged as spelled).
    pub fn classify(&self, dir: &Path) -> RootKind {
        let canonical = self
            .reader
            .open_root(dir)
            .map(|r| r.host_path().to_path_buf())
            .unwrap_or_else(|_| crate::paths::lexical(dir));
        self.never_projects().classify(&canonical)
    }

    /// The chain the host loads natively for `request`: user-wide files,
    /// then, when the root is a project, the project chain root to target.
    pub fn chain(&self, request: &Request) -> Result<Resolution, ResolveError> {
        self.chain_in(request, None)
    }

    /// The chain Claude Code would read if its `instructionFiles` mode were
    /// `claude-md-and-agents-md` (AGENTS.md in every directory, after the
    /// CLAUDE.md family), whatever the user's setting says: what a session
    /// needs when its Claude Code version or mode leaves AGENTS.md out.
    /// Other hosts resolve as usual.
    pub fn chain_with_agents_md(&self, request: &Request) -> Result<Resolution, ResolveError> {
        self.chain_in(request, Some(crate::hosts::claude::AgentsMdMode::ClaudeAndAgents))
    }

    /// The project root `request` binds to (explicit, or by the host's
    /// rule) and what it is, without resolving a chain.
    pub fn project_root(&self, request: &Request) -> Result<(PathBuf, RootKind), ResolveError> {
        let located = crate::hosts::bind(request, &self.env, &self.reader, self.never_projects())?;
        Ok((located.root_path, located.kind))
    }

    /// The directory whose chain `request` wants, as names below its root:
    /// the working directory's, or the target's (its directory for a file,
    /// its nearest existing directory for a path not created yet).
    pub fn chain_dir(&self, request: &Request) -> Result<Vec<String>, ResolveError> {
        Ok(crate::hosts::bind(request, &self.env, &self.reader, self.never_projects())?.chain_names)
    }

    /// Claude Code's memory directory for `request`: keyed by the git root
    /// of the working directory whatever root the request is bound to (a
    /// session started in a package has its monorepo's memory), from
    /// evidence only (see [`crate::memory::claude_dir`]).
    pub fn memory_dir(&self, request: &Request) -> Result<(Option<MemoryDir>, Vec<Warning>), ResolveError> {
        crate::hosts::claude::memory_dir_for(request, &self.env, &self.reader, self.never_projects())
    }

    /// Claude Code's memory for `request`: the index and the facts that the
    /// scope or the prompt prove relevant, through the directory's snapshot
    /// cache. `fresh` forgets the directory's cached snapshots first (a new
    /// session or a compaction reads every fact from disk again).
    pub fn memory(
        &self,
        request: &Request,
        scope: &ScopeIds,
        prompt: Option<&str>,
        fresh: bool,
    ) -> Result<(Option<MemoryOutcome>, Vec<Warning>), ResolveError> {
        let (found, warnings) = self.memory_dir(request)?;
        let Some(dir) = found else { return Ok((None, warnings)) };
        let load = self.load_memory(&dir, scope, prompt, fresh);
        Ok((Some(MemoryOutcome { dir, load }), warnings))
    }

    /// Loads one memory directory (found by [`Resolver::memory_dir`], or
    /// named by the user) through its snapshot cache.
    pub fn load_memory(
        &self,
        dir: &MemoryDir,
        scope: &ScopeIds,
        prompt: Option<&str>,
        fresh: bool,
    ) -> MemoryLoad {
        let cache = self.store_cache(dir);
        if fresh && let Some(cache) = &cache {
            cache.forget_all();
        }
        self.load_memory_through(dir, scope, prompt, cache.as_deref())
    }

    /// [`Resolver::memory`] for a hook's session: the facts the session
    /// holds (`held`, by the memory directory and the path beneath it) are
    /// opened and compared, every other one read; the store's cache is
    /// opened only to drop what a change makes stale (see
    /// [`crate::memory::session`]).
    pub fn session_memory(
        &self,
        request: &Request,
        scope: &ScopeIds,
        prompt: Option<&str>,
        fresh: bool,
        held: &dyn Fn(&Path, &str) -> Option<crate::memory::HeldVersion>,
    ) -> Result<(Option<MemoryOutcome>, Vec<Warning>), ResolveError> {
        use crate::memory::session::SessionSnapshots;
        let (found, warnings) = self.memory_dir(request)?;
        let Some(dir) = found else { return Ok((None, warnings)) };
        let held_here = |rel: &str| held(&dir.dir, rel);
        let may_hold = self.caches.is_some_and(|caches| caches.may_hold_snapshots());
        let snapshots = SessionSnapshots::new(
            &held_here,
            Box::new(|| if may_hold { self.store_cache(&dir) } else { None }),
        );
        if fresh {
            snapshots.forget_all();
        }
        let load = self.load_memory_through(&dir, scope, prompt, Some(&snapshots));
        drop(snapshots);
        Ok((Some(MemoryOutcome { dir, load }), warnings))
    }

    /// The store's snapshot cache of a memory directory, if there is a store.
    fn store_cache(&self, dir: &MemoryDir) -> Option<Box<dyn SnapshotCache + '_>> {
        let caches = self.caches?;
        let canonical = crate::memory::load::open_dir(&self.reader, &dir.dir, dir.anchor.as_deref()).ok()?;
        caches.cache_for(canonical.host_path())
    }

    fn load_memory_through(
        &self,
        dir: &MemoryDir,
        scope: &ScopeIds,
        prompt: Option<&str>,
        cache: Option<&dyn SnapshotCache>,
    ) -> MemoryLoad {
        crate::memory::load(
            &self.reader,
            &MemoryRequest { dir: &dir.dir, anchor: dir.anchor.as_deref(), scope, prompt, cache },
        )
    }

    /// The working directory and root a command-line request means, one
    /// rule for every command: `--cwd` when given; else, with `--root`,
    /// the current directory when it lies inside that root and the root
    /// itself when it does not; else the current directory. The root stays
    /// as given (`None`: found by the host's rule).
    pub fn working_dir(&self, current: &Path, root: Option<&Path>, cwd: Option<&Path>) -> PathBuf {
        let absolute = |p: &Path| crate::paths::lexical(&current.join(p));
        if let Some(cwd) = cwd {
            return absolute(cwd);
        }
        let Some(root) = root else { return current.to_path_buf() };
        let root = absolute(root);
        let canonical = |p: &Path| {
            self.reader.open_root(p).map(|r| r.host_path().to_path_buf()).unwrap_or_else(|_| p.to_path_buf())
        };
        if canonical(current).starts_with(canonical(&root)) { current.to_path_buf() } else { root }
    }

    /// The project root of the directory a server was launched in (its
    /// git root), when that is a project: asked once, at the launch.
    pub fn launch_root(&self, launch: &Path) -> Option<PathBuf> {
        let (root, kind) = self.project_root(&Request::new(Host::default(), launch)).ok()?;
        kind.is_project().then_some(root)
    }

    /// The roots a server may resolve, from what its launch gave it (the
    /// launch directory's project, `--root` arguments, a client's MCP
    /// roots), used as they are. Each is canonicalised; home, above-home
    /// and profile roots are dropped, and so is a directory that cannot be
    /// opened.
    pub fn allowed_roots(&self, given: &[PathBuf]) -> AllowedRoots {
        let mut allowed = AllowedRoots::default();
        for dir in given {
            let Ok(root) = crate::locate::canonical_dir(&self.reader, self.named, dir) else { continue };
            allowed.add(self.never_projects(), root);
        }
        allowed
    }

    /// `asked` (absolute, an existing directory) in its canonical form, if
    /// `allowed` lets a request resolve it.
    pub fn check_root(&self, allowed: &AllowedRoots, asked: &Path) -> Result<PathBuf, RootCheck> {
        let canonical =
            crate::locate::canonical_dir(&self.reader, self.named, asked).map_err(RootCheck::Resolve)?;
        allowed.check(self.never_projects(), &canonical).map_err(RootCheck::Refused)?;
        Ok(canonical)
    }
}
