//! Instruction files the host does not read at all, added at session start:
//! Claude Code's AGENTS.md files where the repository shows they are meant
//! for it (a CLAUDE.md that links to or imports AGENTS.md: core's
//! [`agentspine_core::delta::agents_md_meant_for_claude`]), or wherever the
//! user's configuration ([`crate::config`]) asks; the CLAUDE.md family for
//! Codex in a project with no AGENTS.md of its own, when asked. A host that
//! reads a file natively never gets it twice.

use std::path::PathBuf;

use agentspine_core::Part;

use super::events::Hook;
use crate::config::{self, Config};
use agentspine_core::context::Block;
use agentspine_core::hosts::SessionFiles;

impl Hook<'_> {
    /// agentspine's configuration, read once a run; a file that cannot be
    /// used is an audit row and the defaults apply.
    pub(super) fn config(&self) -> &Config {
        self.config.get_or_init(|| match config::load(self.resolver.reader()) {
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
        })
    }

    /// What SessionStart adds past what the host reads, not yet sent:
    /// Claude Code's AGENTS.md files the repository means for it (or the
    /// configuration asks for), the CLAUDE.md family for Codex when asked.
    pub(super) fn session_instructions(&self) -> Vec<Block> {
        let parts = match self.hooks.session_files {
            SessionFiles::ClaudeAgentsMd => self
                .resolved(self.resolver.claude_agents_md_added(
                    &self.session_request(),
                    self.config().claude.session_start_agents_md,
                ))
                .flatten(),
            SessionFiles::CodexClaudeMd if self.config().codex.session_start_claude_md => {
                self.codex_claude_md()
            }
            SessionFiles::CodexClaudeMd | SessionFiles::None => None,
        };
        let Some((parts, root)) = parts else { return Vec::new() };
        parts
            .iter()
            .filter_map(|part| self.block(part, &root))
            .filter(|block| !self.was_sent(&block.source_id, &block.sha256))
            .collect()
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
