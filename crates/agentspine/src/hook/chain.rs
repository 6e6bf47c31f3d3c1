//! Instruction files for a tool's targets: the target directory's chain
//! under the host's own rules, minus what the host loaded at start (the
//! chain of the session's directory, its user files and its memory index).
//! That leaves the nested files below the session directory and, for
//! Claude Code, the `.claude/rules` whose `paths:` match only the target.
//!
//! When the tool makes the host load nested files itself (Claude Code's
//! `Read`, `Write`, `Edit`: see [`super::targets::host_loads_nested`]), the
//! files it loads (those below the session directory, and the `paths:`
//! rules of the `.claude` directories it started under) are not sent but
//! recorded as the session's, so a later tool call never repeats them; the
//! rest (a sibling package's files) are sent.
//!
//! Nothing is added for a target outside the project root or reached
//! through a link (the resolver refuses both), nor when the project would
//! be the home directory or a host profile.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use agentspine_core::{Part, Request, Resolution, ResolveError, Scope, Verdict, resolve};

use super::context::Block;
use super::events::Hook;

impl Hook<'_> {
    /// The chain files of `targets` not yet in this session: those to
    /// send, and those the tool makes the host load itself (when
    /// `host_loads` says it loads nested files).
    pub(super) fn chain_files(&self, targets: &[PathBuf], host_loads: bool) -> Chained {
        let base = Request {
            host: self.host.host(),
            cwd: self.session_dir.clone(),
            root: None,
            target: None,
            transcript_path: self.payload.transcript_path.clone().filter(|p| p.is_absolute()),
        };
        if self.excluded(&self.session_dir) {
            return Chained::default();
        }
        let native = match resolve(&base, &self.env, &self.reader) {
            Ok(native) => native,
            Err(e) => {
                self.resolve_failed(&e, &self.session_dir);
                return Chained::default();
            }
        };
        if self.excluded(&native.project_root) {
            return Chained::default();
        }
        let session_dir = self.canonical(&self.session_dir);
        let mut known: BTreeSet<PathBuf> = native.parts.iter().map(|p| p.path.clone()).collect();
        let base = Request { root: Some(native.project_root.clone()), ..base };
        let mut out = Chained::default();
        let mut audited = BTreeSet::new();
        for target in targets {
            let Some(chain) = self.target_chain(&base, target) else { continue };
            for probe in &chain.probes {
                if let Some(code) = incomplete(&probe.verdict)
                    && audited.insert(probe.path.clone())
                {
                    self.audit("chain", &code, Some(probe.path.clone()), None);
                }
            }
            for part in &chain.parts {
                if matches!(part.scope, Scope::User | Scope::Memory) || !known.insert(part.path.clone()) {
                    continue;
                }
                let Some(block) = self.block(part, &chain.project_root) else { continue };
                if self.was_sent(&block.source_id, &block.sha256) {
                    continue;
                }
                if host_loads && loaded_by_host(part, &chain.parts, &session_dir) {
                    out.host_loaded.push(block);
                } else {
                    out.send.push(block);
                }
            }
        }
        out
    }

    /// `dir` without links (as the resolver names files), else as given.
    /// Each directory is looked up once per run (an open and a `readlink`
    /// each time otherwise): the session directory, for one, is asked
    /// about three times.
    fn canonical(&self, dir: &Path) -> PathBuf {
        if let Some(known) = self.canonical.borrow().get(dir) {
            return known.clone();
        }
        let found = self
            .reader
            .open_root(dir)
            .map(|r| r.host_path().to_path_buf())
            .unwrap_or_else(|_| dir.to_path_buf());
        self.canonical.borrow_mut().insert(dir.to_path_buf(), found.clone());
        found
    }

    /// The target's chain; for a file that does not exist yet (a `Write`,
    /// a patch's `Add File`), its nearest existing directory's. `None` when
    /// there is nothing to add (outside the root, through a link, …).
    fn target_chain(&self, base: &Request, target: &Path) -> Option<Resolution> {
        let root = base.root.as_deref()?;
        let mut at = target.to_path_buf();
        loop {
            let request = Request { target: Some(at.clone()), ..base.clone() };
            match resolve(&request, &self.env, &self.reader) {
                Ok(chain) => return Some(chain),
                Err(ResolveError::TargetMissing { .. }) if at != root && at.pop() && at.starts_with(root) => {
                }
                Err(ResolveError::TargetMissing { .. } | ResolveError::TargetOutsideRoot { .. }) => {
                    return None;
                }
                Err(e) => {
                    self.resolve_failed(&e, target);
                    return None;
                }
            }
        }
    }

    /// A resolution that could not be made: an audit row (a link on the
    /// path is a refusal worth recording), never output.
    fn resolve_failed(&self, e: &ResolveError, path: &Path) {
        tracing::debug!("hook: nothing to add for {}: {e}", path.display());
        self.audit("chain", e.code(), Some(path.display().to_string()), Some(e.to_string()));
    }

    pub(super) fn block(&self, part: &Part, root: &Path) -> Option<Block> {
        let text = part.text.trim();
        if text.is_empty() {
            return None;
        }
        let (base, rel) = match part.path.strip_prefix(root) {
            Ok(rel) => (root.to_path_buf(), rel.display().to_string()),
            Err(_) => {
                (part.path.parent()?.to_path_buf(), part.path.file_name()?.to_string_lossy().into_owned())
            }
        };
        Some(Block {
            source_id: self.ids.id(&base, &rel, part.scope),
            sha256: part.sha256.clone(),
            heading: self.heading(&part.path, &part.label),
            text: text.to_owned(),
        })
    }

    /// The home directory, a directory above it, or a host's profile is
    /// never a project (DESIGN.md): no project chain at all.
    pub(super) fn excluded(&self, dir: &Path) -> bool {
        let dir = self.canonical(dir);
        let never = self.never_projects.get_or_init(|| NeverProjects {
            home: self.env.home.as_deref().map(|home| self.canonical(home)),
            profiles: [self.env.codex_home(), self.env.claude_home(), self.env.pi_home()]
                .into_iter()
                .flatten()
                .map(|profile| self.canonical(&profile))
                .collect(),
        });
        never.home.as_ref().is_some_and(|home| home.starts_with(&dir)) || never.profiles.contains(&dir)
    }
}

/// The home directory and the hosts' profiles, without links: never a
/// project. Found once per run (each costs an open and a `readlink`).
#[derive(Debug)]
pub(super) struct NeverProjects {
    home: Option<PathBuf>,
    profiles: Vec<PathBuf>,
}

/// The chain files of a tool call's targets that the session lacks.
#[derive(Debug, Default)]
pub(super) struct Chained {
    /// Files the host does not load: sent.
    pub send: Vec<Block>,
    /// Files the tool makes the host load itself: recorded, not sent.
    pub host_loaded: Vec<Block>,
}

/// Whether the host loads `part` itself when a file tool touches its
/// directory: a file below the session directory, a `.claude/rules` file
/// of a directory the session started in or under, or a file imported by
/// one of those.
fn loaded_by_host(part: &Part, parts: &[Part], session_dir: &Path) -> bool {
    if part.path.starts_with(session_dir) {
        return true;
    }
    if let Some(holder) = rules_holder(&part.path)
        && session_dir.starts_with(holder)
    {
        return true;
    }
    part.imported_by.as_deref().is_some_and(|importer| {
        parts
            .iter()
            .any(|p| p.label == importer && p.path != part.path && loaded_by_host(p, parts, session_dir))
    })
}

/// The directory holding the `.claude/rules` directory `path` lies in.
fn rules_holder(path: &Path) -> Option<&Path> {
    let mut at = path.parent();
    while let Some(dir) = at {
        if dir.file_name().is_some_and(|n| n == "rules")
            && let Some(claude) = dir.parent()
            && claude.file_name().is_some_and(|n| n == ".claude")
        {
            return claude.parent();
        }
        at = dir.parent();
    }
    None
}

/// The audit code of a candidate the scan could not complete.
fn incomplete(verdict: &Verdict) -> Option<String> {
    match verdict {
        Verdict::PermissionDenied => Some("permission-denied".to_owned()),
        Verdict::HardLink => Some("hard-link".to_owned()),
        Verdict::MountCrossing => Some("mount-crossing".to_owned()),
        Verdict::Refused { code } => Some(code.clone()),
        _ => None,
    }
}
