//! Claude Code's `AGENTS.md` files that its own `instructionFiles` mode
//! leaves out, and which of them agentspine adds (at session start, and
//! for each tool call the files of the directories it touches): the rule
//! the hooks and `check` both ask.

use std::collections::BTreeSet;
use std::path::Path;

use crate::resolution::{Part, Resolution, Scope};

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

/// Whether AGENTS.md files are added to this Claude Code session.
pub(crate) fn adds(which: ClaudeAgentsMd, native: &Resolution) -> bool {
    match which {
        ClaudeAgentsMd::Off => false,
        ClaudeAgentsMd::Skipped | ClaudeAgentsMd::All => true,
        ClaudeAgentsMd::Evidenced => agents_md_meant_for_claude(native),
    }
}

/// The project AGENTS.md parts of a chain and the files they import.
pub(crate) fn agents_md_parts(parts: Vec<Part>) -> Vec<Part> {
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

pub(crate) fn is_agents_md(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "AGENTS.md")
}
