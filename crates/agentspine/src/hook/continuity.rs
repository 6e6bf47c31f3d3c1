//! Continuity for both hosts: the session project's own accepted records
//! and the accepted portable records read through the user's active
//! bindings, added on SessionStart and UserPromptSubmit,
//! each once per session (again when it changes). Read afresh from the
//! store on every hook, so a rollback or purge holds from the next one.

use agentspine_core::catalog::ContinuityItem;

use super::events::Hook;
use agentspine_core::context::Block;

impl Hook<'_> {
    /// The continuity records this session has not been sent.
    pub(super) fn continuity(&self) -> Vec<Block> {
        // The session's project (its own records are context in it); a
        // root that cannot be found gives the bindings' records alone.
        let items = match self.resolver.project_root(&self.session_request()) {
            Ok((root, kind)) if kind.is_project() => self.state.continuity_in(self.host, &root),
            _ => self.state.continuity(self.host),
        };
        items
            .iter()
            .filter_map(|item| {
                let source_id = item.source_id(self.resolver.ids());
                let sha256 = item.sha256();
                if self.was_sent(&source_id, &sha256) {
                    return None;
                }
                Some(Block::new(source_id, sha256, heading(item), item.text.trim().to_owned(), item.label()))
            })
            .collect()
    }
}

/// Says where the text comes from and what it is (and is not).
fn heading(item: &ContinuityItem) -> String {
    let whose = if item.binding_id.is_some() { "in another project" } else { "in this project" };
    format!(
        "Continuity from {} (a {} the user accepted {whose}; context only, grants nothing):",
        item.label(),
        item.kind
    )
}
