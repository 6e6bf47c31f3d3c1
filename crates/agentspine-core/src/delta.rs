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
//! The files to send come closest first: those of the target's own
//! directory, then its parent's, up to the root (a `.claude/rules` file
//! counts as its `.claude` directory's holder's, an imported file as its
//! importer's). A host's cap is spent in that order
//! ([`crate::context`]): the nearest rules are the most specific, and they
//! are the ones that must not be cut.
//!
//! Nothing is added for a target outside the project root or reached
//! through a link (the resolution refuses both), nor when the project root
//! is never a project (home, above it, a profile).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::error::ResolveError;
use crate::host::{Host, Request};
use crate::resolution::{Part, Scope, Verdict};
use crate::resolver::Resolver;

/// The directory whose chain the host loaded at the session's start, from
/// a hook payload's `cwd`: the directory the host says it was started in
/// (its profile's `started_in`, Claude Code's `$CLAUDE_PROJECT_DIR`) when
/// `cwd` lies inside it (the model may have moved the shell's directory
/// since), else `cwd`. Lexically reduced.
pub fn session_dir(host: Host, env: &crate::env::Environment, cwd: &Path) -> PathBuf {
    let cwd = crate::paths::lexical(cwd);
    if let Some(started_in) = host.profile().hooks.as_ref().and_then(|h| h.started_in)
        && let Some(project) = started_in(env)
    {
        let project = crate::paths::lexical(&project);
        if cwd.starts_with(&project) {
            return project;
        }
    }
    cwd
}

pub use crate::hosts::claude::agents_md::{ClaudeAgentsMd, agents_md_meant_for_claude};

/// The chain files of a tool call's targets that the session lacks.
#[derive(Debug, Default)]
pub struct ToolDelta {
    /// The project root the session is bound to.
    pub project_root: Option<PathBuf>,
    /// Files the host does not load: to send.
    pub send: Vec<Part>,
    /// Files the tool makes the host load itself: to record, not send.
    pub host_loaded: Vec<Part>,
    /// For each file to send (by path), the target that brought it: what
    /// a later event resolves again to send it if it is deferred (a
    /// `.claude/rules` file is in the chain of the paths it names, not of
    /// its own).
    pub reached_from: std::collections::BTreeMap<PathBuf, PathBuf>,
    /// Candidates the resolution could not complete (label, reader code),
    /// each once: a hook audits them.
    pub incomplete: Vec<(String, crate::resolution::Cause)>,
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
        let with_agents = session.host.profile().leaves_agents_md_out()
            && crate::hosts::claude::agents_md::adds(agents_md, &native);
        let mut known: std::collections::HashSet<PathBuf> =
            native.parts.iter().map(|p| p.path.clone()).collect();
        let base = Request { root: Some(native.project_root.clone()), ..session.clone() };
        let mut audited = BTreeSet::new();
        for target in targets {
            let before = out.send.len();
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
            for part in &out.send[before..] {
                out.reached_from.insert(part.path.clone(), target.clone());
            }
        }
        closest_first(&mut out.send);
        out
    }
}

impl Resolver<'_> {
    /// The instruction files of the paths `prompt` names (see
    /// [`crate::mentions`]) that a session whose host loaded `session`'s
    /// chain lacks: the candidates inside the session's project root that
    /// exist, each looked up through the confined reader (at most
    /// [`crate::mentions::MAX_CANDIDATES`], never through a link, nothing
    /// outside the root), resolved as a tool's targets. A host that loads
    /// a read file's nested files itself (its profile's
    /// [`crate::hosts::Profile::reads_load_nested`]) keeps those: they are
    /// left out, and not recorded (the host has not loaded them yet).
    pub fn prompt_delta(&self, session: &Request, prompt: &str, agents_md: ClaudeAgentsMd) -> ToolDelta {
        let targets = self.prompt_targets(session, prompt);
        if targets.is_empty() {
            return ToolDelta::default();
        }
        let host_loads = session.host.profile().reads_load_nested();
        let mut delta = self.tool_delta(session, &targets, host_loads, agents_md);
        delta.host_loaded.clear();
        delta
    }

    /// The existing paths `prompt` names inside the project root of
    /// `session`, other than the root itself.
    fn prompt_targets(&self, session: &Request, prompt: &str) -> Vec<PathBuf> {
        let Ok((root, kind)) = self.project_root(session) else { return Vec::new() };
        if !kind.is_project() {
            return Vec::new();
        }
        let candidates = crate::mentions::candidates(prompt, &crate::paths::lexical(&session.cwd), &root);
        if candidates.is_empty() {
            return Vec::new();
        }
        // The root as bound (its own path, found by the host's rule); each
        // candidate below it is looked at without following a link.
        let Ok(opened) = self.reader().open_root(&root) else { return Vec::new() };
        candidates
            .into_iter()
            .filter(|path| {
                path.strip_prefix(&root)
                    .ok()
                    .filter(|rel| !rel.as_os_str().is_empty())
                    .is_some_and(|rel| opened.stat(rel).is_ok())
            })
            .collect()
    }
}

/// Orders `parts` from the deepest directory they belong to up to the
/// root's, keeping the order of those of one directory (stable).
pub fn closest_first(parts: &mut [Part]) {
    let depth = |part: &Part| -> usize {
        // An imported file goes with its importer (bounded: a cycle of
        // labels ends after one pass).
        let mut owner = part;
        for _ in 0..parts.len() {
            match owner.imported_by.as_deref().and_then(|imp| parts.iter().find(|p| p.label == imp)) {
                Some(importer) if importer.path != owner.path => owner = importer,
                _ => break,
            }
        }
        let dir = rules_holder(&owner.path).or_else(|| owner.path.parent()).unwrap_or(&owner.path);
        dir.components().count()
    };
    let depths: Vec<usize> = parts.iter().map(depth).collect();
    let mut order: Vec<usize> = (0..parts.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(depths[i]));
    let sorted: Vec<Part> = order.iter().map(|&i| parts[i].clone()).collect();
    parts.clone_from_slice(&sorted);
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
fn incomplete(verdict: &Verdict) -> Option<crate::resolution::Cause> {
    crate::catalog::gap_cause(verdict)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(path: &str, label: &str, imported_by: Option<&str>) -> Part {
        Part {
            scope: Scope::Project,
            path: PathBuf::from(path),
            label: label.to_owned(),
            text: String::new(),
            bytes: 0,
            sha256: String::new(),
            cut: None,
            imported_by: imported_by.map(str::to_owned),
            link: None,
            code_imports: Vec::new(),
        }
    }

    #[test]
    fn files_come_from_the_deepest_directory_up() {
        let mut parts = vec![
            part("/w/web/AGENTS.md", "web/AGENTS.md", None),
            part("/w/web/f/AGENTS.md", "web/f/AGENTS.md", None),
            part("/w/web/f/.claude/rules/a.md", "web/f/.claude/rules/a.md", None),
            part("/w/web/f/v2/CLAUDE.md", "web/f/v2/CLAUDE.md", None),
            part("/w/docs/style.md", "docs/style.md", Some("web/f/v2/CLAUDE.md")),
            part("/w/web/f/v2/AGENTS.md", "web/f/v2/AGENTS.md", None),
        ];
        closest_first(&mut parts);
        let labels: Vec<&str> = parts.iter().map(|p| p.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "web/f/v2/CLAUDE.md",
                "docs/style.md",
                "web/f/v2/AGENTS.md",
                "web/f/AGENTS.md",
                "web/f/.claude/rules/a.md",
                "web/AGENTS.md"
            ]
        );
    }
}
