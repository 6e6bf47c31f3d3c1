//! Instruction files for a tool's targets: what core's
//! [`agentspine_core::Resolver::tool_delta`] says the session lacks, as
//! blocks, minus what this session was already sent. The files the tool
//! makes the host load itself are recorded as the session's, not sent.

use std::path::{Path, PathBuf};

use agentspine_core::{Part, Request};

use super::events::Hook;
use agentspine_core::context::Block;

impl Hook<'_> {
    /// The session's request: the directory whose chain the host loaded
    /// at start, the root found by the host's own rule.
    pub(super) fn session_request(&self) -> Request {
        Request {
            host: self.host,
            cwd: self.session_dir.clone(),
            root: None,
            target: None,
            transcript_path: self.payload.transcript_path.clone().filter(|p| p.is_absolute()),
        }
    }

    /// The chain files of `targets` not yet in this session: those to
    /// send, and those the tool makes the host load itself (when
    /// `host_loads` says it loads nested files).
    pub(super) fn chain_files(&self, targets: &[PathBuf], host_loads: bool) -> Chained {
        let agents_md = self.config().claude.session_start_agents_md;
        let delta = self.resolver.tool_delta(&self.session_request(), targets, host_loads, agents_md);
        self.blocks_of(delta)
    }

    /// `delta`'s files as blocks, minus what this session was sent; what
    /// could not be read is audited.
    fn blocks_of(&self, delta: agentspine_core::delta::ToolDelta) -> Chained {
        for (path, e) in &delta.failed {
            tracing::debug!("hook: nothing to add for {}: {e}", path.display());
            self.audit("chain", e.code(), Some(path.display().to_string()), Some(e.to_string()));
        }
        for (label, code) in &delta.incomplete {
            self.audit("chain", code.as_str(), Some(label.clone()), None);
        }
        let Some(root) = delta.project_root else { return Chained::default() };
        let fresh = |parts: &[Part]| -> Vec<Block> {
            parts
                .iter()
                .filter_map(|part| {
                    let block = self.block(part, &root)?;
                    // Deferred by the target that brought it.
                    Some(match delta.reached_from.get(&part.path) {
                        Some(target) => block.of_file(target.clone()),
                        None => block,
                    })
                })
                .filter(|block| !self.was_sent(&block.source_id, &block.sha256))
                .collect()
        };
        Chained { send: fresh(&delta.send), host_loaded: fresh(&delta.host_loaded) }
    }

    /// The instruction files of the paths `prompt` names that the session
    /// lacks (core's [`agentspine_core::Resolver::prompt_delta`]).
    pub(super) fn prompt_files(&self, prompt: &str) -> Vec<Block> {
        let agents_md = self.config().claude.session_start_agents_md;
        let delta = self.resolver.prompt_delta(&self.session_request(), prompt, agents_md);
        self.blocks_of(delta).send
    }

    /// The instruction files earlier events deferred for lack of room,
    /// resolved again through the targets that brought them (at most
    /// [`agentspine_core::hosts::tools::MAX_TARGETS`] of them, oldest
    /// first), minus what `already` holds.
    pub(super) fn deferred_files(&self, already: &[Block]) -> Vec<Block> {
        let Some(record) = self.record() else { return Vec::new() };
        let mut targets: Vec<PathBuf> = Vec::new();
        for path in record.deferred.iter().filter_map(|d| d.path.as_ref()) {
            if !targets.contains(path) {
                targets.push(path.clone());
            }
            if targets.len() == agentspine_core::hosts::tools::MAX_TARGETS {
                break;
            }
        }
        if targets.is_empty() {
            return Vec::new();
        }
        // Only what was deferred: the rest of those chains is the host's
        // own, or was sent, or is left to the host's own load.
        let chained = self.chain_files(&targets, false);
        chained
            .send
            .into_iter()
            .filter(|b| record.deferred.iter().any(|d| d.source_id == b.source_id))
            .filter(|b| !already.iter().any(|a| a.source_id == b.source_id))
            .collect()
    }

    pub(super) fn block(&self, part: &Part, root: &Path) -> Option<Block> {
        let text = part.text.trim();
        if text.is_empty() {
            return None;
        }
        Some(Block::new(
            self.resolver.ids().of_part(part, root),
            part.sha256.clone(),
            (self.hooks.heading)(&part.path, &part.label),
            text.to_owned(),
            part.label.clone(),
        ))
    }
}

/// The chain files of a tool call's targets that the session lacks.
#[derive(Debug, Default)]
pub(super) struct Chained {
    /// Files the host does not load: sent.
    pub send: Vec<Block>,
    /// Files the tool makes the host load itself: recorded, not sent.
    pub host_loaded: Vec<Block>,
}
