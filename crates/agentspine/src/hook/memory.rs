//! Memory facts for Claude Code: the host loads `MEMORY.md` itself, never
//! the facts it links; agentspine adds the ones a marker or the prompt
//! proves relevant, each once per session.

use agentspine_core::MemoryOutcome;
use agentspine_core::memory::{HeldVersion, ScopeIds};
use sha2::{Digest, Sha256};

use super::events::Hook;
use agentspine_core::context::Block;

impl Hook<'_> {
    /// The relevant facts not yet sent. `fresh` (startup, compaction) also
    /// drops the memory directory's cached snapshots first, so every fact
    /// is read again from disk.
    pub(super) fn memory_facts(&self, prompt: Option<&str>, fresh: bool) -> Vec<Block> {
        self.memory_facts_with_report(prompt, fresh).0
    }

    /// The facts not yet sent, and what the memory load found.
    pub(super) fn memory_facts_with_report(
        &self,
        prompt: Option<&str>,
        fresh: bool,
    ) -> (Vec<Block>, Option<agentspine_core::memory::MemoryReport>) {
        let scope = self.scope();
        // What the session holds: a fact sent at a version that still
        // matches is neither read nor sent again (core's
        // `memory::session`). Read after a fresh start forgot the record.
        // A version recorded before the cache's last purge is not trusted.
        let ids = self.resolver.ids();
        let epoch = self.state.cache_epoch();
        let held = |dir: &std::path::Path, rel: &str| {
            let recorded = self.record()?.versions.get(&ids.of_fact(dir, rel))?;
            (Some(recorded.epoch.as_str()) == epoch.as_deref())
                .then(|| HeldVersion { identity: recorded.identity, sha256: recorded.sha256.clone() })
        };
        let request = self.session_request();
        let outcome = match self.resolver.session_memory(&request, &scope, prompt, fresh, &held) {
            Ok((outcome, _warnings)) => outcome,
            Err(e) => {
                self.audit(
                    "memory",
                    e.code(),
                    Some(self.session_dir.display().to_string()),
                    Some(e.to_string()),
                );
                return (Vec::new(), None);
            }
        };
        let Some(MemoryOutcome { dir: found, load: loaded }) = outcome else { return (Vec::new(), None) };
        let index = found.dir.join(agentspine_core::memory::load::INDEX);
        if let Some(closed) = loaded.closed_reason() {
            self.audit("memory", closed.as_str(), Some(index.display().to_string()), None);
        }
        for unloaded in &loaded.unloaded {
            use agentspine_core::memory::load::UnloadedWhy;
            if let UnloadedWhy::Refused { refused } = &unloaded.why
                && *refused != agentspine_fs::Code::NotFound
            {
                // The link's position and a digest of its target, never
                // the fact's path.
                let target = loaded.links.get(unloaded.position).map(|l| {
                    format!("MEMORY.md link {} (sha256:{})", unloaded.position + 1, short_digest(&l.target))
                });
                self.audit("memory", refused.as_str(), target, None);
            }
        }
        // The index's version goes into the record with what is sent: the
        // store's snapshots were kept in step with it by this load.
        if let Some(index_text) = &loaded.index {
            let source_id = ids.of_fact(&found.dir, agentspine_core::memory::load::INDEX);
            self.also_mark.borrow_mut().push((source_id, index_text.sha256.clone(), index_text.identity));
        }
        let mut blocks = Vec::new();
        for fact in &loaded.facts {
            if fact.held {
                continue;
            }
            let source_id = ids.of_fact(&found.dir, &fact.target);
            if self.was_sent(&source_id, &fact.sha256) {
                // The same bytes at a new version (a touch, a copy back):
                // recorded, so that the next load trusts it again.
                self.also_mark.borrow_mut().push((source_id, fact.sha256.clone(), fact.identity));
                continue;
            }
            let text = fact.text.trim();
            if text.is_empty() {
                continue;
            }
            self.versions.borrow_mut().insert(source_id.clone(), fact.identity);
            let path = found.dir.join(&fact.target);
            blocks.push(Block::new(
                source_id,
                fact.sha256.clone(),
                (self.hooks.heading)(&path, &fact.target),
                text.to_owned(),
                fact.target.clone(),
            ));
        }
        (blocks, Some(loaded.report))
    }

    /// `$AGENTSPINE_SCOPE`, else the project's stored scope; a malformed
    /// scope is an audit row and an empty scope (nothing is guessed).
    fn scope(&self) -> ScopeIds {
        match self.state.scope(None, || crate::surface::project_root(Some(&self.session_dir)).ok()) {
            Ok(scope) => scope,
            Err(e) => {
                self.audit("scope", "scope-malformed", None, Some(format!("{:#}", anyhow::Error::new(e))));
                ScopeIds::default()
            }
        }
    }
}

/// The first 16 hex digits of the SHA-256 of `text`: names a link in an
/// audit row without saying where it points.
fn short_digest(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))[..16].to_owned()
}
