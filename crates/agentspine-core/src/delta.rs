//! What a hook must add for a tool's targets: each target directory's
//! chain under the host's own rules, minus what the host loaded at start
//! (the chain of the session's directory, its user files and its memory
//! index). That leaves the nested files below the session directory and,
//! for Claude Code, the `.claude/rules` whose `paths:` match only the
//! target.
//!
//! When the tool makes the host load nested files itself (Claude Code's
//! `Read`, `Write`, `Edit`: see its profile's
//! [`crate::hosts::Profile::loads_nested`]), the files it loads
//! (those below the session directory, and the `paths:` rules of the
//! `.claude` directories it started under) are returned apart, so the
//! caller records them as the session's and never repeats them; the rest
//! (a sibling package's files) are to be sent.
//!
//! Nothing is added for a target outside the project root or reached
//! through a link (the resolution refuses both), nor when the project root
//! is never a project (home, above it, a profile).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::error::ResolveError;
use crate::host::{Host, Request};
use crate::resolution::{Part, Resolution, Scope, Verdict};
use crate::resolver::Resolver;

/// The directory whose chain the host loaded at the session's start, from
/// a hook payload's `cwd`: for Claude Code, the directory it was started
/// in (`$CLAUDE_PROJECT_DIR`) when `cwd` lies inside it (the model may
/// have moved the shell's directory since), else `cwd`. Lexically
/// reduced.
pub fn session_dir(host: Host, env: &crate::env::Environment, cwd: &Path) -> PathBuf {
    let cwd = crate::locate::lexical(cwd);
    if host == Host::Claude
        && let Some(project) = env.claude_project_dir.as_deref()
    {
        let project = crate::locate::lexical(project);
        if cwd.starts_with(&project) {
            return project;
        }
    }
    cwd
}

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

/// The chain files of a tool call's targets that the session lacks.
#[derive(Debug, Default)]
pub struct ToolDelta {
    /// The project root the session is bound to.
    pub project_root: Option<PathBuf>,
    /// Files the host does not load: to send.
    pub send: Vec<Part>,
    /// Files the tool makes the host load itself: to record, not send.
    pub host_loaded: Vec<Part>,
    /// Candidates the resolution could not complete (label, reader code),
    /// each once: a hook audits them.
    pub incomplete: Vec<(String, String)>,
    /// Resolutions that could not be made at all (path, error).
    pub failed: Vec<(PathBuf, ResolveError)>,
}

impl Resolver<'_> {
    /// What `targets` (absolute, lexically reduced) add to a session whose
    /// host loaded `session`'s chain at start. For Claude Code, `agents_md`
    /// says whether the AGENTS.md files its mode leaves out are added too
    /// (see [`ClaudeAgentsMd`]); they are never the host's own.
    pub fn tool_delta(
        &self,
        session: &Request,
        targets: &[PathBuf],
        host_loads: bool,
        agents_md: ClaudeAgentsMd,
    ) -> ToolDelta {
        let mut out = ToolDelta::default();
        let native = match self.chain(session) {
            Ok(native) => native,
            Err(e) => {
                out.failed.push((session.cwd.clone(), e));
                return out;
            }
        };
        if !native.root_kind.is_project() {
            return out;
        }
        out.project_root = Some(native.project_root.clone());
        let session_dir = native.cwd.clone();
        let with_agents = session.host.profile().leaves_agents_md_out() && adds_agents_md(agents_md, &native);
        let mut known: BTreeSet<PathBuf> = native.parts.iter().map(|p| p.path.clone()).collect();
        let base = Request { root: Some(native.project_root.clone()), ..session.clone() };
        let mut audited = BTreeSet::new();
        for target in targets {
            let request = Request { target: Some(target.clone()), ..base.clone() };
            let chain = match self.chain(&request) {
                Ok(chain) => chain,
                Err(ResolveError::TargetOutsideRoot { .. }) => continue,
                Err(e) => {
                    out.failed.push((target.clone(), e));
                    continue;
                }
            };
            for probe in &chain.probes {
                if let Some(code) = incomplete(&probe.verdict)
                    && audited.insert(probe.path.clone())
                {
                    out.incomplete.push((probe.path.clone(), code));
                }
            }
            for part in &chain.parts {
                if matches!(part.scope, Scope::User | Scope::Memory) || !known.insert(part.path.clone()) {
                    continue;
                }
                if host_loads && loaded_by_host(part, &chain.parts, &session_dir) {
                    out.host_loaded.push(part.clone());
                } else {
                    out.send.push(part.clone());
                }
            }
            if with_agents {
                self.agents_md_of(&request, &chain, &mut known, &mut out);
            }
        }
        out
    }

    /// The AGENTS.md files (and what they import) of `request`'s chain
    /// that Claude Code's own mode leaves out: to send, each once.
    fn agents_md_of(
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
fn adds_agents_md(which: ClaudeAgentsMd, native: &Resolution) -> bool {
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
        if !native.root_kind.is_project() || !adds_agents_md(which, &native) {
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

fn is_agents_md(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == "AGENTS.md")
}

/// Whether the host loads `part` itself when a file tool touches its
/// directory: a file below the session directory, a `.claude/rules` file
/// of a directory the session started in or under, or a file imported by
/// one of those.
fn loaded_by_host(part: &Part, parts: &[Part], session_dir: &Path) -> bool {
    if part.path.starts_with(session_dir) {
        return true;
    }
    if let Some(holder) = rules_holder(&part.path)
        && session_dir.starts_with(holder)
    {
        return true;
    }
    part.imported_by.as_deref().is_some_and(|importer| {
        parts
            .iter()
            .any(|p| p.label == importer && p.path != part.path && loaded_by_host(p, parts, session_dir))
    })
}

/// The directory holding the `.claude/rules` directory `path` lies in.
fn rules_holder(path: &Path) -> Option<&Path> {
    let mut at = path.parent();
    while let Some(dir) = at {
        if dir.file_name().is_some_and(|n| n == "rules")
            && let Some(claude) = dir.parent()
            && claude.file_name().is_some_and(|n| n == ".claude")
        {
            return claude.parent();
        }
        at = dir.parent();
    }
    None
}

/// The audit code of a candidate the resolution could not complete: the
/// same causes that make a required preflight fail (one rule).
fn incomplete(verdict: &Verdict) -> Option<String> {
    crate::catalog::gap_cause(verdict)
}
