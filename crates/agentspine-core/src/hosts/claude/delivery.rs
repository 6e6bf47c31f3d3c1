//! How agentspine delivers the `AGENTS.md` files Claude Code's mode leaves
//! out (the rule is [`super::agents_md`]): at session start, and for each
//! tool call the files of the directories it touches.

use std::collections::BTreeSet;
use std::path::PathBuf;

use super::agents_md::{ClaudeAgentsMd, adds, agents_md_parts};
use crate::delta::ToolDelta;
use crate::error::ResolveError;
use crate::host::{Host, Request};
use crate::resolution::{Part, Resolution};
use crate::resolver::Resolver;

impl Resolver<'_> {
    /// The AGENTS.md files (and what they import) of `request`'s chain
    /// that Claude Code's own mode leaves out: to send, each once.
    pub(crate) fn agents_md_of(
        &self,
        request: &Request,
        native: &Resolution,
        known: &mut std::collections::HashSet<PathBuf>,
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
