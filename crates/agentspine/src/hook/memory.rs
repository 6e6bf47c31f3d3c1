//! Memory facts for Claude Code: the host loads `MEMORY.md` itself, never
//! the facts it links; agentspine adds the ones a marker or the prompt
//! proves relevant, each once per session.

use agentspine_core::memory::{MemoryRequest, ScopeIds, SnapshotCache, load};
use agentspine_core::{Host, Request, Scope};

use super::context::Block;
use super::events::Hook;

/// Memory statuses that are not a failure: loaded, or nothing to load.
const FINE: [&str; 3] = ["loaded", "no-index", "no-memory-directory"];

impl Hook<'_> {
    /// The relevant facts not yet sent. `fresh` (startup, compaction) also
    /// drops the memory directory's cached snapshots first, so every fact
    /// is read again from disk.
    pub(super) fn memory_facts(&self, prompt: Option<&str>, fresh: bool) -> Vec<Block> {
        let mut request = Request::new(Host::Claude, self.session_dir.clone());
        request.transcript_path = self.payload.transcript_path.clone().filter(|p| p.is_absolute());
        let found = match agentspine_core::hosts::claude::memory_dir_for(&request, &self.env, &self.reader) {
            Ok((found, _warnings)) => found,
            Err(e) => {
                self.audit(
                    "memory",
                    e.code(),
                    Some(self.session_dir.display().to_string()),
                    Some(e.to_string()),
                );
                return Vec::new();
            }
        };
        let Some(found) = found else { return Vec::new() };
        let canonical = self.reader.open_root(&found.dir).ok().map(|root| root.host_path().to_path_buf());
        let scope = self.scope();
        // Written in one transaction when `cache` goes out of scope.
        let cache = canonical.as_deref().and_then(|dir| self.state.cache_for(dir));
        if fresh && let Some(cache) = &cache {
            cache.drop_all();
        }
        let loaded = load(
            &self.reader,
            &MemoryRequest {
                dir: &found.dir,
                scope: &scope,
                prompt,
                cache: cache.as_ref().map(|c| c as &dyn SnapshotCache),
            },
        );
        let index = found.dir.join(agentspine_core::memory::load::INDEX);
        if !FINE.contains(&loaded.status.as_str()) {
            self.audit("memory", &loaded.status, Some(index.display().to_string()), None);
        }
        for unloaded in &loaded.unloaded {
            use agentspine_core::memory::load::UnloadedWhy;
            if let UnloadedWhy::Refused { refused } = &unloaded.why
                && refused != "not-found"
            {
                let target = loaded.links.get(unloaded.position).map(|l| found.dir.join(&l.target));
                self.audit("memory", refused, target.map(|t| t.display().to_string()), None);
            }
        }
        let mut blocks = Vec::new();
        for fact in &loaded.facts {
            let text = fact.text.trim();
            if text.is_empty() {
                continue;
            }
            let source_id = self.ids.id(&found.dir, &fact.target, Scope::Memory);
            if self.was_sent(&source_id, &fact.sha256) {
                continue;
            }
            let path = found.dir.join(&fact.target);
            blocks.push(Block {
                heading: self.heading(&path, &fact.target),
                text: text.to_owned(),
                source_id,
                sha256: fact.sha256.clone(),
            });
        }
        blocks
    }

    /// `$AGENTSPINE_SCOPE`, else the project's stored scope; a malformed
    /// scope is an audit row and an empty scope (nothing is guessed).
    fn scope(&self) -> ScopeIds {
        match crate::cli::memory::current_scope(None, self.state, &self.session_dir) {
            Ok(scope) => scope,
            Err(e) => {
                self.audit("scope", "scope-malformed", None, Some(format!("{e:#}")));
                ScopeIds::default()
            }
        }
    }
}
