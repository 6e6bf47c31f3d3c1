//! Instruction files the host does not read at all, added at session start
//! when the user asks for them in agentspine's configuration
//! ([`crate::config`]): Claude Code's missing AGENTS.md files, and the
//! CLAUDE.md family for Codex in a project with no AGENTS.md of its own.
//! Off by default: a host that reads a file natively never gets it twice,
//! and nothing is added the user did not ask for.

use std::path::PathBuf;

use agentspine_core::Part;

use super::HookHost;
use super::context::Block;
use super::events::Hook;
use crate::config::{self, AgentsMd, Config};

impl Hook<'_> {
    /// What the configuration asks SessionStart to add, not yet sent.
    pub(super) fn session_instructions(&self) -> Vec<Block> {
        let config = match config::load(self.resolver.reader()) {
            Ok(config) => config,
            Err(e) => {
                self.audit(
                    "config",
                    e.code(),
                    config::path().map(|p| p.display().to_string()),
                    Some(e.to_string()),
                );
                Config::default()
            }
        };
        let wanted = match self.host {
            HookHost::Claude => config.claude.session_start_agents_md != AgentsMd::Off,
            HookHost::Codex => config.codex.session_start_claude_md,
            // pi reads both families itself (AGENTS.md, else CLAUDE.md).
            HookHost::Pi | HookHost::Pi073 => false,
            // Gemini reads the names its own settings list; nothing to add.
            HookHost::Gemini => false,
        };
        if !wanted {
            return Vec::new();
        }
        let parts = match self.host {
            HookHost::Claude => self.claude_agents_md(config.claude.session_start_agents_md == AgentsMd::All),
            HookHost::Codex => self.codex_claude_md(),
            HookHost::Pi | HookHost::Pi073 => None,
            HookHost::Gemini => None,
        };
        let Some((parts, root)) = parts else { return Vec::new() };
        parts
            .iter()
            .filter_map(|part| self.block(part, &root))
            .filter(|block| !self.was_sent(&block.source_id, &block.sha256))
            .collect()
    }

    /// Claude Code's unread AGENTS.md files (core's rule), or an audit row.
    fn claude_agents_md(&self, all: bool) -> Option<(Vec<Part>, PathBuf)> {
        self.resolved(self.resolver.claude_agents_md_unread(&self.session_request(), all))
    }

    /// The CLAUDE.md family for a Codex project without its own file (core's
    /// rule), or an audit row.
    fn codex_claude_md(&self) -> Option<(Vec<Part>, PathBuf)> {
        self.resolved(self.resolver.codex_claude_md(&self.session_request())).flatten()
    }

    /// A result, or an audit row and `None`.
    fn resolved<T>(&self, result: Result<T, agentspine_core::ResolveError>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(e) => {
                self.audit(
                    "instructions",
                    e.code(),
                    Some(self.session_dir.display().to_string()),
                    Some(e.to_string()),
                );
                None
            }
        }
    }
}
