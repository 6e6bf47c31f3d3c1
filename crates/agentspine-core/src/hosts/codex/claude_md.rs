//! The CLAUDE.md family for a Codex session whose project has no file
//! Codex reads, when the user asks for it (`[codex]
//! session_start_claude_md`).

use std::path::PathBuf;

use crate::error::ResolveError;
use crate::host::{Host, Request};
use crate::hosts::claude::agents_md::is_agents_md;
use crate::resolution::{Part, Scope};
use crate::resolver::Resolver;

impl Resolver<'_> {
    /// Claude Code's project files (CLAUDE.md, .claude/CLAUDE.md, rules,
    /// CLAUDE.local.md) for a Codex session whose project has no file Codex
    /// reads (no AGENTS.md, override or fallback name); `None` when Codex
    /// has one.
    pub fn codex_claude_md(&self, session: &Request) -> Result<Option<(Vec<Part>, PathBuf)>, ResolveError> {
        let native = self.chain(&Request { host: Host::Codex, ..session.clone() })?;
        if native.parts.iter().any(|p| matches!(p.scope, Scope::Project | Scope::Local)) {
            return Ok(None);
        }
        let claude = self.chain(&Request { host: Host::Claude, ..session.clone() })?;
        let parts = claude
            .parts
            .into_iter()
            .filter(|p| matches!(p.scope, Scope::Project | Scope::Local) && !is_agents_md(&p.path))
            .collect();
        Ok(Some((parts, claude.project_root)))
    }
}
