//! Findings read off one resolution: every probe verdict a host module
//! decided (cut, dropped, shadowed, a link, an import left out) restated
//! with the host's own rule as the reason, and the instruction files the
//! discovery saw in the directory that the host's rules never probed.

use std::collections::BTreeMap;

use agentspine_fs::{FileKind, LinkRefusal};

use super::discover::{Discovered, label};
use super::finding::{Finding, Kind, Severity};
use super::silence::Silence;
use crate::host::Host;
use crate::resolution::{Resolution, Scope, Verdict};

/// A host's name as its users know it.
pub(crate) fn host_name(host: Host) -> &'static str {
    host.profile().display
}

/// A host's own check of one directory's chain (see
/// [`crate::hosts::profile::CheckFacts`]).
pub(crate) type DirCheck = fn(&agentspine_fs::Root, &std::path::Path, &Resolution, &Discovered, &mut Sink);
/// A host's own check of the whole project.
pub(crate) type ProjectCheck = fn(&ProjectContext<'_>, &mut Sink) -> Result<(), crate::error::ResolveError>;

/// What a host's check of the whole project may use.
pub(crate) struct ProjectContext<'a> {
    /// The user's environment.
    pub env: &'a crate::env::Environment,
    /// The check's reader.
    pub reader: &'a agentspine_fs::Reader,
    /// The never-a-project rule of this check.
    pub never: &'a crate::policy::NeverProjects,
    /// The project root (canonical).
    pub root: &'a std::path::Path,
}

/// A finding before it is merged with the same finding of other
/// directories.
pub(crate) struct Raw {
    pub(crate) kind: Kind,
    pub(crate) host: Option<Host>,
    pub(crate) path: String,
    pub(crate) line: Option<u64>,
    pub(crate) message: String,
    pub(crate) agentspine: Option<String>,
    /// Where the host's measured behaviour makes the finding weigh more
    /// than its kind's default (Codex and an unreadable file).
    pub(crate) severity: Option<Severity>,
    /// The files it costs, or that agentspine delivers (merged over the
    /// sessions it applies to).
    pub(crate) files: Vec<String>,
}

impl Raw {
    pub(crate) fn new(kind: Kind, host: Option<Host>, path: impl Into<String>, message: String) -> Raw {
        Raw {
            kind,
            host,
            path: path.into(),
            line: None,
            message,
            agentspine: None,
            severity: None,
            files: Vec::new(),
        }
    }

    fn line(self, line: Option<u64>) -> Raw {
        Raw { line, ..self }
    }

    fn agentspine(self, text: impl Into<String>) -> Raw {
        Raw { agentspine: Some(text.into()), ..self }
    }

    fn severity(self, severity: Severity) -> Raw {
        Raw { severity: Some(severity), ..self }
    }
}

/// What makes two findings the same: path, line, host, kind, message.
type Key = (String, Option<u64>, Option<&'static str>, Kind, String);

/// Findings collected over every directory and host, merged by what they
/// say (the directories they apply to are listed once each).
#[derive(Default)]
pub(crate) struct Sink {
    /// Rules files already looked at (`rules`).
    pub(crate) rules_seen: std::collections::BTreeSet<String>,
    found: BTreeMap<Key, Finding>,
}

impl Sink {
    /// Adds `raw`, found for the session started in `dir` (`None`: not
    /// tied to one).
    pub(crate) fn add(&mut self, raw: Raw, dir: Option<&str>) {
        let key = (raw.path.clone(), raw.line, raw.host.map(Host::as_str), raw.kind, raw.message.clone());
        let severity = raw.severity.unwrap_or_else(|| raw.kind.severity());
        let action = (severity >= Severity::Warning).then(|| raw.kind.action()).flatten().map(str::to_owned);
        let finding = self.found.entry(key).or_insert_with(|| Finding {
            kind: raw.kind,
            severity,
            action,
            host: raw.host,
            path: raw.path,
            line: raw.line,
            message: raw.message,
            agentspine: raw.agentspine,
            dirs: Vec::new(),
            files: Vec::new(),
            safety: raw.kind.is_safety(),
        });
        for file in raw.files {
            if !finding.files.contains(&file) {
                finding.files.push(file);
            }
        }
        if let Some(dir) = dir
            && !finding.dirs.iter().any(|d| d == dir)
        {
            finding.dirs.push(dir.to_owned());
        }
    }

    /// The findings in path, line, host and id order, less the silenced
    /// ones, how many were silenced, and the entries refused because they
    /// name a safety finding.
    pub(crate) fn finish(self, silence: &Silence) -> (Vec<Finding>, u64, Vec<super::RefusedSilence>) {
        let mut silenced = 0;
        let mut kept = Vec::new();
        let mut refused: Vec<super::RefusedSilence> = Vec::new();
        for finding in self.found.into_values() {
            if silence.silences(&finding) {
                silenced += 1;
                continue;
            }
            for (id, path) in silence.refusing(&finding) {
                let entry = super::RefusedSilence { id, path, finding: finding.path.clone() };
                if !refused.contains(&entry) {
                    refused.push(entry);
                }
            }
            kept.push(finding);
        }
        (kept, silenced, refused)
    }
}

/// Everything one resolution (the session started in `dir`) says.
pub(crate) fn of_resolution(
    chain: &Resolution,
    dir: &str,
    found: &Discovered,
    agents_md: crate::hosts::claude::agents_md::ClaudeAgentsMd,
    sink: &mut Sink,
) {
    let host = chain.host;
    let name = host_name(host);
    let at = Some(dir);
    let mut blocked = false;
    let claude_agents = ClaudeAgents::of(chain, dir, found, agents_md);
    for (i, probe) in chain.probes.iter().enumerate() {
        let path = probe.path.clone();
        let differs = probe.host_differs.clone();
        let raw = match &probe.verdict {
            Verdict::Truncated { kept, total } => {
                let line = chain
                    .parts
                    .iter()
                    .find(|p| p.label == probe.path)
                    .map(|p| p.text.matches('\n').count() as u64 + 1);
                let from = line.map(|l| format!(": from line {l} on")).unwrap_or_default();
                Raw::new(
                    Kind::BudgetCut,
                    Some(host),
                    path,
                    format!(
                        "{name} sends only the first {kept} of {total} bytes: its byte budget runs out in this file{from} the model never sees it"
                    ),
                )
                .line(line)
            }
            Verdict::BudgetSpent => {
                blocked |= probe.path.is_empty() || probe.path == format!("{dir}/");
                let path = if probe.path.is_empty() { ".".to_owned() } else { path };
                Raw::new(
                    Kind::BudgetDropped,
                    Some(host),
                    path,
                    format!("{name}'s byte budget is spent before this file: it is never sent"),
                )
            }
            Verdict::TooLarge { size, cap } => Raw::new(
                Kind::TooLarge,
                Some(host),
                path,
                format!("{name} skips a file of {size} bytes (over its {cap}-byte cap per file)"),
            ),
            Verdict::Symlink => Raw::new(
                Kind::Symlink,
                Some(host),
                path,
                differs.unwrap_or_else(|| format!("{name} follows this link and reads its target")),
            )
            .agentspine("agentspine never follows a link: the file is left out"),
            // The desktop rule and `generic` are agentspine's own: no host
            // follows anything there.
            Verdict::LinkRefused { refusal: LinkRefusal::Outside | LinkRefusal::IntoGit, .. }
                if !host.profile().check.follows_links =>
            {
                continue;
            }
            Verdict::LinkRefused { target, refusal: LinkRefusal::Outside } => Raw::new(
                Kind::Symlink,
                Some(host),
                path,
                format!("{name} follows this link out of the repository (to {target}) and sends what it finds there"),
            )
            .agentspine("agentspine never reads through a link out of the project: the file is left out"),
            Verdict::LinkRefused { target, refusal: LinkRefusal::IntoGit } => Raw::new(
                Kind::Symlink,
                Some(host),
                path,
                format!("{name} follows this link into the repository's .git directory (to {target}) and sends that file"),
            )
            .agentspine("agentspine never reads inside .git: the file is left out"),
            Verdict::LinkRefused { target, refusal: LinkRefusal::Loop }
                if host.profile().check.stops_at_link_loop =>
            {
                Raw::new(
                    Kind::LinkBroken,
                    Some(host),
                    path,
                    format!(
                        "{name} stops at this link loop ({target}) and then sends none of the project's \
                         AGENTS.md files, only the global one"
                    ),
                )
                .severity(Severity::Error)
            }
            Verdict::RuleLinkOutsideCwd { target } => Raw::new(
                Kind::NeverRead,
                Some(host),
                path,
                format!(
                    "{name} drops this linked rule: its target ({target}) lies outside the directory the session \
                     starts in"
                ),
            ),
            Verdict::LinkRefused { target, refusal } => Raw::new(
                Kind::LinkBroken,
                None,
                path,
                match refusal {
                    LinkRefusal::Loop => format!(
                        "the link ({target}) leads through more than {} links without reaching a file: no host reads anything here",
                        agentspine_fs::MAX_LINK_HOPS
                    ),
                    _ => format!("the link leads to nothing ({target}): no host reads anything here"),
                },
            ),
            Verdict::Included | Verdict::Duplicate if probe.link.is_some() && probe.imported_by.is_none() => {
                let target = probe.link.as_ref().map(|l| l.target.as_str()).unwrap_or_default();
                Raw::new(
                    Kind::LinkInside,
                    None,
                    path,
                    format!(
                        "a link to {target}, inside the project: every host that reads this name sends {target}'s text under this name"
                    ),
                )
                .agentspine(format!("agentspine reads {target} by its own path, as the hosts do"))
            }
            Verdict::HardLink => Raw::new(
                Kind::HardLink,
                Some(host),
                path,
                format!("{name} reads this file like any other; it has another name, which may lie outside the repository"),
            )
            .agentspine("agentspine never reads a file with more than one name"),
            Verdict::NotRegular { kind } => Raw::new(
                Kind::SpecialFile,
                Some(host),
                path,
                format!("{name} skips it: it is a {kind}, not a regular file"),
            )
            .agentspine("agentspine never opens it for reading"),
            // One finding per directory: agentspine does not look past the
            // mount, so it cannot tell which of the host's names are there.
            Verdict::MountCrossing => Raw::new(
                Kind::MountCrossing,
                Some(host),
                mounted_dir(&probe.path),
                format!("{name} reads its instruction files in this directory through a mount point below the root"),
            )
            .agentspine("agentspine never crosses a mount point below the root: it reads none of them"),
            // The others skip the file.
            Verdict::PermissionDenied if host.profile().check.stops_at_unreadable => Raw::new(
                Kind::Unreadable,
                Some(host),
                path,
                format!(
                    "{name} cannot read it (permission denied) and then sends none of the project's AGENTS.md \
                     files, only the global one"
                ),
            )
            .severity(Severity::Error),
            Verdict::PermissionDenied => Raw::new(
                Kind::Unreadable,
                Some(host),
                path,
                format!("{name} cannot read it either (permission denied) and leaves it out"),
            ),
            Verdict::Refused { code: crate::resolution::Cause::BoundedTruncated } => Raw::new(
                Kind::BoundedTruncated,
                Some(host),
                path,
                "the listing of this rules directory stopped at its bound; later rules are not checked".to_owned(),
            ),
            Verdict::Refused { code } => Raw::new(
                Kind::Unreadable,
                Some(host),
                path,
                format!("the confined reader refused it ({code}); {name} may read it"),
            ),
            Verdict::OutsideRoot => Raw::new(
                Kind::AboveRoot,
                Some(host),
                path,
                differs.unwrap_or_else(|| format!("{name} reads this file above the project root")),
            ),
            Verdict::Empty => {
                shadowed_by_empty(chain, i, dir, found, sink);
                continue;
            }
            Verdict::ShadowedBy { winner } => {
                let dir_of = probe.path.rsplit_once('/').map_or("", |(d, _)| d);
                let winner_label = if dir_of.is_empty() { winner.clone() } else { format!("{dir_of}/{winner}") };
                // A blank winner's siblings are `shadowed-by-empty` (below).
                let blank = chain.probes.iter().any(|p| p.path == winner_label && p.verdict == Verdict::Empty);
                if probe.scope == Scope::Project
                    && !blank
                    && is_present(found, &probe.path)
                    && !sent_anyway(chain, found, &probe.path)
                    && !claude_agents.covers(&probe.path, sink, dir)
                {
                    sink.add(
                        Raw::new(
                            Kind::NeverRead,
                            Some(host),
                            path,
                            format!("{name} reads one file per directory and {winner} wins here: this one is never read"),
                        ),
                        at,
                    );
                }
                continue;
            }
            Verdict::ImportExternalNotApproved if claude_agents.pointer(probe) => {
                claude_agents.pointer_finding(probe)
            }
            Verdict::ImportExternalNotApproved => import(host, probe, Kind::ImportOutsideCwd, format!(
                "{name} drops the import of {}: it lies outside the directory the session starts in and the project has not approved external imports (`-p` never asks)",
                probe.path
            )),
            Verdict::ImportDepth => import(host, probe, Kind::ImportDepth, format!(
                "{name} drops the import of {}: it is beyond its {} import hops",
                probe.path,
                crate::hosts::claude::MAX_IMPORT_DEPTH
            )),
            Verdict::Missing if probe.imported_by.is_some() => {
                import(host, probe, Kind::ImportMissing, format!("the import of {} names no file", probe.path))
            }
            Verdict::Duplicate if probe.imported_by.is_some() => import(host, probe, Kind::ImportRepeated, format!(
                "the import of {} names a file already included (an import cycle or a repeat): {name} includes it once",
                probe.path
            )),
            Verdict::ImportLimit => import(host, probe, Kind::ImportLimit, format!(
                "{name} reads every import; agentspine follows at most {} imports per resolution, so {} are neither checked nor in its own chain",
                crate::hosts::claude::MAX_IMPORTS,
                probe.path
            )),
            Verdict::ImportOutsideRoot => import(host, probe, Kind::ImportOutsideRoot, differs.unwrap_or_else(|| {
                format!("{name} reads the approved import of {}, outside the project", probe.path)
            }))
            .agentspine("agentspine never reads outside the project root or the config home"),
            Verdict::Disabled { .. } => {
                blocked = true;
                continue;
            }
            _ => continue,
        };
        sink.add(raw, at);
    }
    if !blocked {
        never_probed(chain, dir, found, &claude_agents, sink);
    }
}

/// Claude Code's AGENTS.md files in one session: which of them its mode
/// leaves out, whether the repository means them for it (a CLAUDE.md that
/// links to or imports AGENTS.md: core's
/// [`crate::hosts::claude::agents_md::agents_md_meant_for_claude`]), and whether agentspine's
/// hooks deliver them. A dropped pointer import and the files Claude Code
/// therefore never reads are one finding.
pub(crate) struct ClaudeAgents {
    /// The host whose chain this is.
    host: Host,
    /// The AGENTS.md files of the session's chain Claude Code never reads.
    unread: Vec<String>,
    evidenced: bool,
    delivered: bool,
    /// Whether the session has a dropped `@…AGENTS.md` import.
    pointer: bool,
}

impl ClaudeAgents {
    fn of(
        chain: &Resolution,
        dir: &str,
        found: &Discovered,
        which: crate::hosts::claude::agents_md::ClaudeAgentsMd,
    ) -> ClaudeAgents {
        use crate::hosts::claude::agents_md::ClaudeAgentsMd as W;
        let host = chain.host;
        let none =
            ClaudeAgents { host, unread: Vec::new(), evidenced: false, delivered: false, pointer: false };
        if !host.profile().leaves_agents_md_out() {
            return none;
        }
        let evidenced = crate::hosts::claude::agents_md::agents_md_meant_for_claude(chain);
        let delivered = match which {
            W::Off => false,
            W::Skipped | W::All => true,
            W::Evidenced => evidenced,
        };
        let chain_dirs: Vec<String> = std::iter::once(".".to_owned())
            .chain(dir.split('/').filter(|d| *d != ".").scan(String::new(), |at, name| {
                if !at.is_empty() {
                    at.push('/');
                }
                at.push_str(name);
                Some(at.clone())
            }))
            .collect();
        let unread = chain_dirs
            .iter()
            .filter(|d| {
                found.names_in(d).any(|(n, k)| n == "AGENTS.md" && matches!(k, Some(FileKind::File) | None))
            })
            .map(|d| label(d, "AGENTS.md"))
            .filter(|l| !sent_anyway(chain, found, l) && !chain.parts.iter().any(|p| &p.label == l))
            .collect();
        let pointer = chain.probes.iter().any(|p| {
            p.verdict == Verdict::ImportExternalNotApproved
                && p.path.rsplit('/').next() == Some("AGENTS.md")
                && p.imported_by.as_deref().is_some_and(|by| by.rsplit('/').next() == Some("CLAUDE.md"))
        });
        ClaudeAgents { host, unread, evidenced, delivered, pointer }
    }

    /// Whether `probe` is the dropped pointer import of this session.
    fn pointer(&self, probe: &crate::resolution::Probe) -> bool {
        self.pointer
            && probe.path.rsplit('/').next() == Some("AGENTS.md")
            && probe.imported_by.as_deref().is_some_and(|by| by.rsplit('/').next() == Some("CLAUDE.md"))
    }

    /// The one finding of a dropped pointer import, with its consequences.
    fn pointer_finding(&self, probe: &crate::resolution::Probe) -> Raw {
        let mut lost: Vec<String> = vec![probe.path.clone()];
        lost.extend(self.unread.iter().filter(|f| **f != probe.path).cloned());
        let what = format!(
            "Claude Code sessions started here get only this pointer: it drops the import of {} (the file lies \
             above the directory the session starts in, and `-p` never approves external imports), and with a \
             CLAUDE.md on the chain it reads no AGENTS.md itself",
            probe.path
        );
        let raw = if self.delivered {
            Raw::new(Kind::DeliveredByAgentspine, Some(self.host), by_of(probe), what).agentspine(
                "agentspine's Claude Code hooks deliver these AGENTS.md files: at session start, and each \
                 package's when a tool touches it",
            )
        } else {
            Raw::new(Kind::ImportOutsideCwd, Some(self.host), by_of(probe), what)
        };
        Raw { files: lost, ..raw }.line(probe.imported_at)
    }

    /// Whether the never-read AGENTS.md `label` is accounted for here (the
    /// pointer finding lists it, or agentspine delivers it: then a note
    /// says so).
    fn covers(&self, label: &str, sink: &mut Sink, dir: &str) -> bool {
        if label.rsplit('/').next() != Some("AGENTS.md") || !self.unread.iter().any(|u| u == label) {
            return false;
        }
        if self.pointer {
            return true;
        }
        if !self.delivered {
            return false;
        }
        let why = if self.evidenced {
            "this repository's CLAUDE.md links to or imports AGENTS.md"
        } else {
            "your configuration asks for them (session_start_agents_md)"
        };
        sink.add(
            Raw::new(
                Kind::DeliveredByAgentspine,
                Some(self.host),
                label.to_owned(),
                "Claude Code never reads this file in sessions started here: a CLAUDE.md is on the chain"
                    .to_owned(),
            )
            .agentspine(format!("agentspine's Claude Code hooks deliver it ({why})")),
            Some(dir),
        );
        true
    }
}

/// The file that holds an import probe's `@` line.
fn by_of(probe: &crate::resolution::Probe) -> String {
    probe.imported_by.clone().unwrap_or_else(|| probe.path.clone())
}

/// An import finding, named after the file that imports, at the line of
/// its `@` import.
fn import(host: Host, probe: &crate::resolution::Probe, kind: Kind, message: String) -> Raw {
    Raw::new(kind, Some(host), probe.imported_by.clone().unwrap_or_else(|| probe.path.clone()), message)
        .line(probe.imported_at)
}

/// The directory a mount-crossing candidate lies in, as `dir/` (a
/// `.claude/` candidate counts for its holder).
fn mounted_dir(label: &str) -> String {
    let dir = label.rsplit_once('/').map_or("", |(d, _)| d);
    let dir = if dir == ".claude" { "" } else { dir.strip_suffix("/.claude").unwrap_or(dir) };
    if dir.is_empty() { ".".to_owned() } else { format!("{dir}/") }
}

/// Each `@path` inside code of a part that looks like an import (Claude
/// Code's rules find them): the host sends the text as written and
/// imports nothing.
pub(crate) fn code_imports(chain: &Resolution, dir: &str, sink: &mut Sink) {
    for part in chain.parts.iter().filter(|p| matches!(p.scope, Scope::Project | Scope::Local)) {
        for (path, line) in &part.code_imports {
            sink.add(
                Raw::new(
                    Kind::ImportInCode,
                    Some(chain.host),
                    part.label.clone(),
                    format!(
                        "Claude Code does not expand @{path} here: it is inside inline code or a code block, so the \
                         file is not imported (write it outside code to import it)"
                    ),
                )
                .line(Some(*line)),
                Some(dir),
            );
        }
    }
}

/// Whether the host sends the file `label` names under another name: the
/// file itself through a link to it (`CLAUDE.md -> AGENTS.md`: Claude Code
/// never probes AGENTS.md, but sends it), or, when `label` is a link, the
/// file it names (Codex sends AGENTS.md, and so the text of CLAUDE.md).
fn sent_anyway(chain: &Resolution, found: &Discovered, label: &str) -> bool {
    // A CLAUDE.md that only points at an AGENTS.md the host reads.
    if let Some(target) = found.pointer(label)
        && chain
            .parts
            .iter()
            .any(|p| p.label == target || p.link.as_ref().is_some_and(|l| l.target == target))
    {
        return true;
    }
    let file = match found.links.get(label) {
        Some(Some(target)) => target.as_str(),
        Some(None) => return false,
        None => label,
    };
    chain.parts.iter().any(|p| p.label == file || p.link.as_ref().is_some_and(|l| l.target == file))
}

/// Whether the discovery saw the file a probe names.
fn is_present(found: &Discovered, probe_path: &str) -> bool {
    let (dir, name) = probe_path.rsplit_once('/').unwrap_or((".", probe_path));
    found.names_in(dir).any(|(n, _)| n == name)
}

/// The files an empty winner hides: the later candidates of its directory
/// that are there.
fn shadowed_by_empty(chain: &Resolution, at: usize, dir: &str, found: &Discovered, sink: &mut Sink) {
    let winner = &chain.probes[at].path;
    let winner_name = winner.rsplit('/').next().unwrap_or(winner);
    for probe in &chain.probes[at + 1..] {
        let Verdict::ShadowedBy { winner: w } = &probe.verdict else { continue };
        if w != winner_name || probe.scope != Scope::Project || !is_present(found, &probe.path) {
            continue;
        }
        sink.add(
            Raw::new(
                Kind::ShadowedByEmpty,
                Some(chain.host),
                probe.path.clone(),
                format!(
                    "{} takes the blank {winner} in this directory and then drops it: this file is never read",
                    host_name(chain.host)
                ),
            ),
            Some(dir),
        );
    }
}

/// Instruction files in `dir` that the host's rules never looked at.
fn never_probed(
    chain: &Resolution,
    dir: &str,
    found: &Discovered,
    claude_agents: &ClaudeAgents,
    sink: &mut Sink,
) {
    for (name, kind) in found.names_in(dir) {
        if !matches!(kind, Some(FileKind::File) | None)
            || !super::discover::SHARED_NAMES.contains(&name.as_str())
        {
            continue;
        }
        let label = label(dir, name);
        if chain.probes.iter().any(|p| p.path == label)
            || sent_anyway(chain, found, &label)
            || claude_agents.covers(&label, sink, dir)
        {
            continue;
        }
        sink.add(
            Raw::new(Kind::NeverRead, Some(chain.host), label, never_read_reason(chain.host, name)),
            Some(dir),
        );
    }
}

/// Why a host's rules never look at `name` (the resolution decided that;
/// this only says it in the host's terms).
fn never_read_reason(host: Host, name: &str) -> String {
    (host.profile().check.never_read_why)(name)
        .unwrap_or_else(|| format!("{} never reads {name} in a project directory", host_name(host)))
}
