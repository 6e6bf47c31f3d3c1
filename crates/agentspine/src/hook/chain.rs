//! Instruction files for a tool's targets: the target directory's chain
//! under the host's own rules, minus what the host loaded at start (the
//! chain of the session's directory, its user files and its memory index).
//! That leaves the nested files below the session directory and, for
//! Claude Code, the `.claude/rules` whose `paths:` match only the target.
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
    /// The chain files of `targets` the host has not loaded, each once,
    /// not yet sent in this session.
    pub(super) fn chain_files(&self, targets: &[PathBuf]) -> Vec<Block> {
        let base = Request {
            host: self.host.host(),
            cwd: self.session_dir.clone(),
            root: None,
            target: None,
            transcript_path: self.payload.transcript_path.clone().filter(|p| p.is_absolute()),
        };
        if self.excluded(&self.session_dir) {
            return Vec::new();
        }
        let native = match resolve(&base, &self.env, &self.reader) {
            Ok(native) => native,
            Err(e) => {
                self.resolve_failed(&e, &self.session_dir);
                return Vec::new();
            }
        };
        if self.excluded(&native.project_root) {
            return Vec::new();
        }
        let mut known: BTreeSet<PathBuf> = native.parts.iter().map(|p| p.path.clone()).collect();
        let base = Request { root: Some(native.project_root.clone()), ..base };
        let mut blocks = Vec::new();
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
                if !self.was_sent(&block.source_id, &block.sha256) {
                    blocks.push(block);
                }
            }
        }
        blocks
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

    fn block(&self, part: &Part, root: &Path) -> Option<Block> {
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
    fn excluded(&self, dir: &Path) -> bool {
        let canonical =
            |p: PathBuf| self.reader.open_root(&p).map(|r| r.host_path().to_path_buf()).unwrap_or(p);
        let dir = canonical(dir.to_path_buf());
        if let Some(home) = self.env.home.clone().map(canonical)
            && home.starts_with(&dir)
        {
            return true;
        }
        [self.env.codex_home(), self.env.claude_home(), self.env.pi_home()]
            .into_iter()
            .flatten()
            .map(canonical)
            .any(|profile| profile == dir)
    }
}

/// The audit code of a candidate the scan could not complete.
fn incomplete(verdict: &Verdict) -> Option<String> {
    match verdict {
        Verdict::PermissionDenied => Some("permission-denied".to_owned()),
        Verdict::Refused { code } => Some(code.clone()),
        _ => None,
    }
}
