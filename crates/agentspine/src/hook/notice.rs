//! What the user (never the model) is told by a hook: that the state
//! database was damaged, where the damaged copy is and what was recovered,
//! until `agentspine doctor --acknowledge`; and, at a session's start, that
//! installed entries name a missing or another agentspine.
//!
//! The notice goes in the host's user-visible field (top-level
//! `systemMessage` for Claude Code and Codex), never in
//! `additionalContext`. It is shown by the first hook of each session that
//! has not shown it yet, and marked in the session's record like a source,
//! so a session sees each incident once and a new session sees it again.

use super::events::Hook;
use agentspine_core::context::Block;

/// The id under which a session records that it was shown an incident.
fn shown_id(incident: &agentspine_store::Incident) -> String {
    format!("agentspine:state-incident:{}", incident.id)
}

impl Hook<'_> {
    /// The unacknowledged incidents this session has not been shown, as
    /// blocks to mark sent once printed (their text is the notice).
    pub(super) fn state_notices(&self) -> Vec<Block> {
        if self.payload.hook_event_name == "SessionEnd" {
            return Vec::new();
        }
        self.state
            .incidents()
            .iter()
            .map(|incident| {
                let id = shown_id(incident);
                Block::new(
                    id.clone(),
                    "notice".to_owned(),
                    String::new(),
                    crate::state::incident_notice(incident),
                    id,
                )
            })
            .filter(|block| !self.was_sent(&block.source_id, &block.sha256))
            .collect()
    }
}

impl Hook<'_> {
    /// On a session's first hook (`SessionStart` at `startup` or `resume`;
    /// not after `clear` or `compact`, within the same run of the host):
    /// what [`crate::install::startup`] finds wrong with the installed
    /// entries. Not recorded: each start looks again.
    pub(super) fn install_notice(&self) -> Option<String> {
        let first = self.payload.hook_event_name == "SessionStart"
            && matches!(self.payload.source.as_deref(), None | Some("startup" | "resume"));
        first
            .then(|| crate::install::startup::notice(self.host, self.resolver.env(), self.resolver.reader()))
            .flatten()
    }
}
