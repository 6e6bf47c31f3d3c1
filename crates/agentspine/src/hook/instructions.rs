//! Instruction files the host does not read at all, added at session start
//! when the user asks for them in agentspine's configuration
//! ([`crate::config`]): Claude Code's missing AGENTS.md files, and the
//! CLAUDE.md family for Codex in a project with no AGENTS.md of its own.
//! Off by default: a host that reads a file natively never gets it twice,
//! and nothing is added the user did not ask for.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use agentspine_core::{Host, Part, Request, Resolution, Scope};

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
        };
        if !wanted {
            return Vec::new();
        }
        let parts = match self.host {
            HookHost::Claude => self.claude_agents_md(config.claude.session_start_agents_md == AgentsMd::All),
            HookHost::Codex => self.codex_claude_md(),
        };
        let Some((parts, root)) = parts else { return Vec::new() };
        parts
            .iter()
            .filter_map(|part| self.block(part, &root))
            .filter(|block| !self.was_sent(&block.source_id, &block.sha256))
            .collect()
    }

    fn request(&self, host: Host) -> Request {
        Request { host, ..self.session_request() }
    }

    /// The AGENTS.md files (and their imports) Claude Code would read with
    /// AGENTS.md included, minus the ones it reads itself (`all`: minus
    /// none).
    fn claude_agents_md(&self, all: bool) -> Option<(Vec<Part>, PathBuf)> {
        let request = self.request(Host::Claude);
        let with = self.resolved(self.resolver.chain_with_agents_md(&request))?;
        let native: BTreeSet<PathBuf> = if all {
            BTreeSet::new()
        } else {
            self.resolved(self.resolver.chain(&request))?.parts.into_iter().map(|p| p.path).collect()
        };
        let mut agents_labels = BTreeSet::new();
        let mut parts = Vec::new();
        for part in with.parts {
            let own = is_agents_md(&part.path);
            let imported = part.imported_by.as_ref().is_some_and(|by| agents_labels.contains(by));
            if !(own || imported) || part.scope == Scope::User {
                continue;
            }
            agents_labels.insert(part.label.clone());
            if !native.contains(&part.path) {
                parts.push(part);
            }
        }
        Some((parts, with.project_root))
    }

    /// Claude Code's project files (CLAUDE.md, .claude/CLAUDE.md, rules,
    /// CLAUDE.local.md) when Codex finds no project file of its own.
    fn codex_claude_md(&self) -> Option<(Vec<Part>, PathBuf)> {
        let native = self.resolved(self.resolver.chain(&self.request(Host::Codex)))?;
        if native.parts.iter().any(|p| matches!(p.scope, Scope::Project | Scope::Local)) {
            return None;
        }
        let claude = self.resolved(self.resolver.chain(&self.request(Host::Claude)))?;
        let parts = claude
            .parts
            .into_iter()
            .filter(|p| matches!(p.scope, Scope::Project | Scope::Local) && !is_agents_md(&p.path))
            .collect();
        Some((parts, claude.project_root))
    }

    /// A resolution, or an audit row and `None`.
    fn resolved(&self, result: Result<Resolution, agentspine_core::ResolveError>) -> Option<Resolution> {
        match result {
            Ok(resolution) => Some(resolution),
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

fn is_agents_md(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "AGENTS.md")
}
