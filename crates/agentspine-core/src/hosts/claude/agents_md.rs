//! Claude Code's `AGENTS.md` files that its own `instructionFiles` mode
//! leaves out, and which of them agentspine adds (at session start, and
//! for each tool call the files of the directories it touches): the rule
//! the hooks and `check` both ask.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::delta::ToolDelta;
use crate::error::ResolveError;
use crate::host::{Host, Request};
use crate::resolution::{Part, Resolution, Scope};
use crate::resolver::Resolver;

/// Which `AGENTS.md` files agentspine adds for Claude Code past what its
/// own `instructionFiles` mode reads (`[claude] session_start_agents_md`
/// in the user's configuration): at session start, and for each tool call
/// the files of the directories it touches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClaudeAgentsMd {
    /// Where the repository shows its AGENTS.md files are meant for Claude
    /// Code ([`agents_md_meant_for_claude`]): the ones its mode leaves out.
    /// The default.
    #[default]
    Evidenced,
    /// Never.
    Off,
    /// The ones its mode leaves out (e.g. beside a CLAUDE.md), whatever the
    /// repository shows.
    Skipped,
    /// Every AGENTS.md on the chain (Claude Code before 2.1.277 reads none).
    All,
}

/// Whether a Claude Code chain shows that the repository means its
/// AGENTS.md files for Claude Code too: a `CLAUDE.md` on it that is a link
/// to an `AGENTS.md`, or that imports one with `@` (the pointer Anthropic's
/// documentation recommends for AGENTS.md repositories). Claude Code then
/// reads the pointer but, in a package, neither the import (it lies above
/// the start directory) nor any AGENTS.md (a CLAUDE.md is on the chain).
pub fn agents_md_meant_for_claude(chain: &Resolution) -> bool {
    let named = |path: &str, name: &str| path.rsplit('/').next() == Some(name);
    chain.parts.iter().any(|p| {
        named(&p.label, "CLAUDE.md") && p.link.as_ref().is_some_and(|l| named(&l.target, "AGENTS.md"))
    }) || chain.probes.iter().any(|p| {
        p.imported_by.as_deref().is_some_and(|by| named(by, "CLAUDE.md")) && named(&p.path, "AGENTS.md")
    })
}

impl Resolver<'_> {
    /// The AGENTS.md files (and what they import) of `request`'s chain
    /// that Claude Code's own mode leaves out: to send, each once.
    pub(crate) fn agents_md_of(
        &self,
        request: &Request,
        native: &Resolution,
        known: &mut BTreeSet<PathBuf>,
        out: &mut ToolDelta,
    ) {
        let Ok(with) = self.chain_with_agents_md(request) else { return };
        let own: BTreeSet<&PathBuf> = native.parts.iter().map(|p| &p.path).collect();
        for part in agents_md_parts(with.parts) {
            if own.contains(&part.path) || !known.insert(part.path.clone()) {
                continue;
            }
            out.send.push(part);
        }
    }
}

/// Whether AGENTS.md files are added to this Claude Code session.
pub(crate) fn adds(which: ClaudeAgentsMd, native: &Resolution) -> bool {
    match which {
        ClaudeAgentsMd::Off => false,
        ClaudeAgentsMd::Skipped | ClaudeAgentsMd::All => true,
        ClaudeAgentsMd::Evidenced => agents_md_meant_for_claude(native),
    }
}

/// The project AGENTS.md parts of a chain and the files they import.
fn agents_md_parts(parts: Vec<Part>) -> Vec<Part> {
    let mut agents_labels = BTreeSet::new();
    let mut out = Vec::new();
    for part in parts {
        let own = is_agents_md(&part.path);
        let imported = part.imported_by.as_ref().is_some_and(|by| agents_labels.contains(by));
        if !(own || imported) || part.scope == Scope::User {
            continue;
        }
        agents_labels.insert(part.label.clone());
        out.push(part);
    }
    out
}

impl Resolver<'_> {
    /// The AGENTS.md files (and what they import) that Claude Code would
    /// read with AGENTS.md included in every directory, minus those it
    /// reads itself under the user's `instructionFiles` mode (`all`: minus
    /// none, for a Claude Code that reads no AGENTS.md at all), and the
    /// project root they belong to; `None` when `which` adds none to this
    /// session (off, or `evidenced` without the evidence).
    pub fn claude_agents_md_added(
        &self,
        session: &Request,
        which: ClaudeAgentsMd,
    ) -> Result<Option<(Vec<Part>, PathBuf)>, ResolveError> {
        let request = Request { host: Host::Claude, ..session.clone() };
        let native = self.chain(&request)?;
        if !native.root_kind.is_project() || !adds(which, &native) {
            return Ok(None);
        }
        let with = self.chain_with_agents_md(&request)?;
        let own: BTreeSet<PathBuf> = match which {
            ClaudeAgentsMd::All => BTreeSet::new(),
            _ => native.parts.into_iter().map(|p| p.path).collect(),
        };
        let parts = agents_md_parts(with.parts).into_iter().filter(|p| !own.contains(&p.path)).collect();
        Ok(Some((parts, with.project_root)))
    }
}

pub(crate) fn is_agents_md(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "AGENTS.md")
}
