//! Claude Code's rules (HOSTS.md, "Claude Code").
//!
//! - Config home: `$CLAUDE_CONFIG_DIR`, else `~/.claude`: the user's
//!   `CLAUDE.md` (with imports) and `rules/**/*.md`.
//! - Per directory from the project root (the git root, else the cwd) down
//!   to the chain's end: `CLAUDE.md` (+imports), `.claude/CLAUDE.md`
//!   (+imports), the unconditional `.claude/rules/**/*.md` (sorted),
//!   `CLAUDE.local.md` (+imports). Claude Code walks from `/`; files above
//!   the root are reported `outside-root` and not read.
//! - `AGENTS.md` and `.claude/AGENTS.md` by the user's `instructionFiles`
//!   mode (default `claude-md-or-agents-md`: only when no non-blank
//!   `CLAUDE.md`, `.claude/CLAUDE.md` or `CLAUDE.local.md` is on the chain).
//! - Text: YAML frontmatter and block-level HTML comments stripped, then
//!   trimmed; a blank file is dropped with its imports; 4 MiB per file.
//! - `@path` imports (see `imports`): relative to the importing file, `~/`
//!   is `$HOME`, at most 4 hops, each file once; a target outside the cwd
//!   only when the project approved external imports, and never outside
//!   the project root or the config home.
//! - Rules with `paths:` frontmatter join the chain only for a target that
//!   matches them (gitignore semantics, relative to the directory holding
//!   `.claude/`); an empty `paths:` list, like none, loads the rule always.

pub mod agents_md;
pub(crate) mod check_memory;
pub(crate) mod check_rules;
mod delivery;
mod globs;
pub mod imports;
pub mod memory;
pub mod profile;
pub mod rules;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use agentspine_fs::{Reader, Root};
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use crate::chain::{ChainDir, FILE_CAP, Fetched, NotRead, above_root, fetch};
use crate::config::{parse_json, read_config};
use crate::env::Environment;
use crate::gather::Gather;
use crate::locate::Located;
use crate::paths::{lexical, tilde};
use crate::resolution::{Part, Scope, Verdict, Warning};
use crate::text::{split_frontmatter, strip_bom};

/// How many import hops Claude Code follows.
pub const MAX_IMPORT_DEPTH: usize = 4;

/// How many `@` imports agentspine follows in one resolution; the rest are
/// reported once as `import limit` (a file of 10,000 imports stays cheap).
pub const MAX_IMPORTS: usize = 256;

/// `pluginConfigs["agents-md@builtin"].options.instructionFiles`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentsMdMode {
    /// `claude-md-or-agents-md` (the default).
    ClaudeOrAgents,
    /// `claude-md-and-agents-md`.
    ClaudeAndAgents,
    /// `claude-md`.
    ClaudeOnly,
    /// `managed-only`.
    ManagedOnly,
}

/// The user settings that drive discovery.
#[derive(Debug, Clone)]
pub(crate) struct ClaudeSettings {
    pub(crate) agents_md: AgentsMdMode,
    pub(crate) external_imports_approved: bool,
    pub(crate) auto_memory_directory: Option<String>,
}

/// Claude Code's config home: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub fn home(env: &Environment) -> Option<PathBuf> {
    env.var_path("CLAUDE_CONFIG_DIR").or_else(|| env.home.as_ref().map(|h| h.join(".claude")))
}

/// Claude Code's global state file: `~/.claude.json`, or
/// `$CLAUDE_CONFIG_DIR/.claude.json` when the config dir is set.
pub fn state_file(env: &Environment) -> Option<PathBuf> {
    match env.var_path("CLAUDE_CONFIG_DIR") {
        Some(dir) => Some(dir.join(".claude.json")),
        None => env.home.as_ref().map(|h| h.join(".claude.json")),
    }
}

pub(crate) fn load_settings(
    reader: &Reader,
    env: &Environment,
    root: &Path,
    warnings: &mut Vec<Warning>,
) -> ClaudeSettings {
    let mut settings = ClaudeSettings {
        agents_md: AgentsMdMode::ClaudeOrAgents,
        external_imports_approved: false,
        auto_memory_directory: None,
    };
    if let Some(home) = home(env) {
        let file = home.join("settings.json");
        if let Some(text) = read_config(reader, &home, "settings.json", warnings)
            && let Some(json) = parse_json(&file, &text, warnings)
        {
            settings.auto_memory_directory =
                json.get("autoMemoryDirectory").and_then(|v| v.as_str()).map(str::to_owned);
            let mode = json
                .pointer("/pluginConfigs/agents-md@builtin/options/instructionFiles")
                .and_then(|v| v.as_str());
            settings.agents_md = match mode {
                None | Some("claude-md-or-agents-md") => AgentsMdMode::ClaudeOrAgents,
                Some("claude-md-and-agents-md") => AgentsMdMode::ClaudeAndAgents,
                Some("claude-md") => AgentsMdMode::ClaudeOnly,
                Some("managed-only") => AgentsMdMode::ManagedOnly,
                Some(other) => {
                    warnings.push(crate::config::malformed(
                        &file,
                        format!("unknown instructionFiles mode {other:?}"),
                    ));
                    AgentsMdMode::ClaudeOrAgents
                }
            };
        }
    }
    if let Some(state) = state_file(env)
        && let (Some(dir), Some(name)) = (state.parent(), state.file_name().and_then(|n| n.to_str()))
        && let Some(text) = read_config(reader, dir, name, warnings)
        && let Some(json) = parse_json(&state, &text, warnings)
    {
        let key = root.display().to_string();
        settings.external_imports_approved = json
            .get("projects")
            .and_then(|p| p.get(&key))
            .and_then(|p| p.get("hasClaudeMdExternalIncludesApproved"))
            .and_then(|v| v.as_bool())
            .unwrap_or(false);
    }
    settings
}

/// A directory the resolution may read beneath: its handle, its host path,
/// and its path relative to the project root (labels are built from it).
#[derive(Clone)]
struct Base<'a> {
    root: &'a Root,
    path: PathBuf,
    prefix: String,
}

impl Base<'_> {
    /// `rel` (relative to this base) relative to the project root.
    fn project_rel(&self, rel: &str) -> String {
        if self.prefix.is_empty() { rel.to_owned() } else { format!("{}/{rel}", self.prefix) }
    }
}

/// The state of one resolution.
struct Walk<'a> {
    env: &'a Environment,
    located: &'a Located,
    settings: &'a ClaudeSettings,
    home: Option<Base<'a>>,
    /// Claude Code's config home (`home(env)`), once per walk: a
    /// label says `~/…` for a file beneath it.
    claude_home: Option<PathBuf>,
    /// Paths looked at so far (membership only: hashed, not ordered).
    seen: std::collections::HashSet<PathBuf>,
    /// Files included so far, by device and inode: Claude Code sends a file
    /// once, under the first name it meets (a link and its target, two
    /// links to one file).
    files: std::collections::HashSet<(u64, u64)>,
    /// Project files already read to decide the AGENTS.md mode, by label,
    /// so the walk does not read them twice.
    prefetched: std::collections::HashMap<String, Result<Fetched, NotRead>>,
    /// Imports looked at so far (bounded by [`MAX_IMPORTS`]).
    imports: usize,
}

pub(crate) fn resolve(env: &Environment, located: &Located, settings: &ClaudeSettings, gather: &mut Gather) {
    let reader = located.root.reader();
    let home_path = home(env);
    let home_root = home_path.as_ref().and_then(|h| reader.open_root(h).ok());
    let mut walk = Walk {
        env,
        located,
        settings,
        home: match (&home_root, &home_path) {
            (Some(root), Some(path)) => Some(Base { root, path: path.clone(), prefix: String::new() }),
            _ => None,
        },
        claude_home: home_path.clone(),
        seen: std::collections::HashSet::new(),
        files: std::collections::HashSet::new(),
        prefetched: std::collections::HashMap::new(),
        imports: 0,
    };
    if settings.agents_md == AgentsMdMode::ManagedOnly {
        gather.probe(
            "CLAUDE.md",
            Scope::Project,
            Verdict::Disabled { reason: "instructionFiles is managed-only".to_owned() },
        );
        return;
    }
    walk.user(gather);
    for path in above_root(reader, located, &["CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"]) {
        gather.probe_differs(
            path.display().to_string(),
            Scope::Project,
            Verdict::OutsideRoot,
            "Claude Code reads instruction files up to `/`; agentspine stops at the project root".to_owned(),
        );
    }
    let dirs = located.chain_dirs();
    let agents = match settings.agents_md {
        AgentsMdMode::ClaudeOnly | AgentsMdMode::ManagedOnly => false,
        AgentsMdMode::ClaudeAndAgents => true,
        AgentsMdMode::ClaudeOrAgents => !walk.has_claude_md(&dirs),
    };
    for dir in &dirs {
        walk.project_dir(dir, agents, gather);
        if !agents && gather.explain {
            skipped_agents_md(dir, settings.agents_md, gather);
        }
    }
    if settings.agents_md == AgentsMdMode::ClaudeAndAgents {
        drop_agents_md_repeating_claude_md(gather);
    }
    memory::index_part(env, located, settings, gather);
}

/// For an explanation: the AGENTS.md files of `dir` that Claude Code's
/// mode passes over, each with why (looked at, never read).
fn skipped_agents_md(dir: &ChainDir, mode: AgentsMdMode, gather: &mut Gather) {
    let Ok(handle) = &dir.dir else { return };
    let reason = match mode {
        AgentsMdMode::ClaudeOnly => {
            "instructionFiles is claude-md: Claude Code reads no AGENTS.md".to_owned()
        }
        _ => "a non-blank CLAUDE.md, .claude/CLAUDE.md or CLAUDE.local.md is on the chain: in its default \
              instructionFiles mode Claude Code reads AGENTS.md only without one"
            .to_owned(),
    };
    for name in ["AGENTS.md", ".claude/AGENTS.md"] {
        if handle.stat(name).is_ok() {
            gather.probe(dir.label(name), Scope::Project, Verdict::Skipped { reason: reason.clone() });
        }
    }
}

/// In `claude-md-and-agents-md` mode Claude Code leaves out an `AGENTS.md`
/// (or `.claude/AGENTS.md`) whose text equals that of a project
/// `CLAUDE.md`, `.claude/CLAUDE.md` or `CLAUDE.local.md` anywhere on the
/// chain, plain files as well as links (measured,
/// tests/e2e/LINKS-MEASURED.md); two equal `AGENTS.md` both stay.
fn drop_agents_md_repeating_claude_md(gather: &mut Gather) {
    let name = |p: &Part| p.label.rsplit('/').next().unwrap_or(&p.label).to_owned();
    let claude_texts: BTreeSet<String> = gather
        .parts
        .iter()
        .filter(|p| p.scope != Scope::User && p.imported_by.is_none())
        .filter(|p| matches!(name(p).as_str(), "CLAUDE.md" | "CLAUDE.local.md"))
        .map(|p| p.text.clone())
        .collect();
    let repeated: Vec<String> = gather
        .parts
        .iter()
        .filter(|p| p.scope == Scope::Project && p.imported_by.is_none() && name(p) == "AGENTS.md")
        .filter(|p| claude_texts.contains(&p.text))
        .map(|p| p.label.clone())
        .collect();
    for label in repeated {
        gather.parts.retain(|p| p.label != label);
        gather.set_verdict(&label, Verdict::Duplicate);
    }
}

impl<'a> Walk<'a> {
    fn project_base(&self) -> Base<'a> {
        Base { root: &self.located.root, path: self.located.root_path.clone(), prefix: String::new() }
    }

    /// The user's `CLAUDE.md` and `rules/**/*.md`.
    fn user(&mut self, gather: &mut Gather) {
        let Some(home) = self.home.clone() else {
            if let Some(path) = home(self.env) {
                gather.probe(
                    tilde(&path.join("CLAUDE.md"), self.env.home.as_deref()),
                    Scope::User,
                    Verdict::Missing,
                );
            }
            return;
        };
        self.file(&home, "CLAUDE.md", Scope::User, 0, None, gather);
        self.rules(&home, "rules", Scope::User, gather);
    }

    /// Whether a non-blank CLAUDE.md, .claude/CLAUDE.md or CLAUDE.local.md
    /// is on the chain (which keeps AGENTS.md out in the default mode).
    fn has_claude_md(&mut self, dirs: &[ChainDir]) -> bool {
        for dir in dirs {
            let Ok(handle) = &dir.dir else { continue };
            for name in ["CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"] {
                let fetched = fetch(handle, name, FILE_CAP);
                // A link out of the project agentspine refuses is still a
                // CLAUDE.md to Claude Code, which reads it.
                let found = match &fetched {
                    Ok(snap) => !clean(&snap.bytes).is_empty(),
                    Err(not_read) => not_read.host_reads_it(),
                };
                self.prefetched.insert(dir.label(name), fetched);
                if found {
                    return true;
                }
            }
        }
        false
    }

    fn project_dir(&mut self, dir: &ChainDir, agents: bool, gather: &mut Gather) {
        let handle = match &dir.dir {
            Ok(handle) => handle,
            Err(verdict) => {
                let names = [
                    ("CLAUDE.md", Scope::Project),
                    (".claude/CLAUDE.md", Scope::Project),
                    ("CLAUDE.local.md", Scope::Local),
                ];
                for (name, scope) in names {
                    gather.probe(dir.label(name), scope, verdict.clone());
                }
                return;
            }
        };
        let base =
            Base { root: handle, path: self.located.root_path.join(&dir.rel), prefix: dir.rel.clone() };
        let agents_first = agents && self.settings.agents_md == AgentsMdMode::ClaudeOrAgents;
        if agents_first {
            self.file(&base, "AGENTS.md", Scope::Project, 0, None, gather);
            self.file(&base, ".claude/AGENTS.md", Scope::Project, 0, None, gather);
        }
        self.file(&base, "CLAUDE.md", Scope::Project, 0, None, gather);
        self.file(&base, ".claude/CLAUDE.md", Scope::Project, 0, None, gather);
        self.rules(&base, ".claude/rules", Scope::Project, gather);
        self.file(&base, "CLAUDE.local.md", Scope::Local, 0, None, gather);
        if agents && !agents_first {
            self.file(&base, "AGENTS.md", Scope::Project, 0, None, gather);
            self.file(&base, ".claude/AGENTS.md", Scope::Project, 0, None, gather);
        }
    }

    /// `rules/**/*.md` beneath `base`: unconditional ones always, ones
    /// with `paths:` only when the target matches.
    fn rules(&mut self, base: &Base<'_>, rel: &str, scope: Scope, gather: &mut Gather) {
        let rules_dir = match base.root.subdir(rel) {
            Ok(dir) => dir,
            Err(e) if e.code() == agentspine_fs::Code::NotFound => return,
            Err(e) => {
                gather.probe(label_for(base, self.env, rel), scope, crate::chain::verdict_of(&e));
                return;
            }
        };
        // `paths:` match from the directory holding `.claude/` (the user's
        // rules are in the config home itself: they match from the root).
        let holder = match self.home.as_ref() {
            Some(home) if home.path == base.path => Some(self.located.root_path.clone()),
            _ => base.path.join(rel).parent().and_then(Path::parent).map(Path::to_path_buf),
        };
        for found in rules::enumerate(&rules_dir) {
            match found {
                rules::Found::Symlink(name) => {
                    self.linked_rule(base, &format!("{rel}/{name}"), scope, holder.clone(), gather);
                }
                rules::Found::Unlisted(name, verdict) => {
                    let shown = if name.is_empty() { rel.to_owned() } else { format!("{rel}/{name}") };
                    gather.probe(label_for(base, self.env, &shown), scope, verdict);
                }
                rules::Found::Truncated(name) => gather.probe(
                    label_for(base, self.env, &format!("{rel}/{name}")),
                    scope,
                    Verdict::Refused { code: crate::resolution::Cause::BoundedTruncated },
                ),
                rules::Found::File(name) => {
                    let rel_file = format!("{rel}/{name}");
                    let condition = holder.clone();
                    self.file(base, &rel_file, scope, 0, Some(condition), gather);
                }
            }
        }
    }

    /// A rule that is a link. Claude Code names it by its target's path
    /// (measured, tests/e2e/LINKS-MEASURED.md), and drops a project rule
    /// whose target lies outside the directory the session starts in.
    fn linked_rule(
        &mut self,
        base: &Base<'_>,
        rel: &str,
        scope: Scope,
        holder: Option<PathBuf>,
        gather: &mut Gather,
    ) {
        let label = label_for(base, self.env, rel);
        let target = match base.root.follow_link(rel) {
            Ok(target) => target,
            Err(e) => {
                let not_read = NotRead::from(crate::chain::verdict_of(&e));
                if not_read.host_reads_it() {
                    let note =
                        "Claude Code follows this link and reads its target; agentspine does not".to_owned();
                    gather.probe_differs(label, scope, not_read, note);
                } else {
                    gather.probe(label, scope, not_read);
                }
                return;
            }
        };
        let owner = match (scope, self.home.clone()) {
            (Scope::User, Some(home)) => home,
            _ => self.project_base(),
        };
        let path = lexical(&owner.path.join(&target.path));
        if scope != Scope::User && !path.starts_with(&self.located.cwd) {
            let verdict = Verdict::RuleLinkOutsideCwd { target: label_for(&owner, self.env, &target.path) };
            gather.probe(label, scope, verdict);
            return;
        }
        self.file(&owner, &target.path, scope, 0, Some(holder), gather);
    }

    /// One instruction file and, recursively, its imports. `rule_holder`
    /// is set for rules files: their `paths:` are matched from there.
    fn file(
        &mut self,
        base: &Base<'_>,
        rel: &str,
        scope: Scope,
        depth: usize,
        rule_holder: Option<Option<PathBuf>>,
        gather: &mut Gather,
    ) {
        let path = lexical(&base.path.join(rel));
        let label = self.label_of(base, &path, rel);
        if !self.seen.insert(path.clone()) {
            gather.probe(label, scope, Verdict::Duplicate);
            return;
        }
        let prefetched =
            if base.root.prefix() == base.prefix && self.home.as_ref().is_none_or(|h| h.path != base.path) {
                self.prefetched.remove(&base.project_rel(rel))
            } else {
                None
            };
        let fetched = match prefetched {
            Some(fetched) => fetched,
            None => fetch(base.root, rel, FILE_CAP),
        };
        let snap = match fetched {
            Ok(snap) if !self.files.insert((snap.identity.dev, snap.identity.ino)) => {
                gather.probe(label, scope, NotRead { verdict: Verdict::Duplicate, link: snap.link.clone() });
                return;
            }
            Ok(snap) => snap,
            Err(not_read) if not_read.host_reads_it() => {
                let note =
                    "Claude Code follows this link and reads its target; agentspine does not".to_owned();
                gather.probe_differs(label, scope, not_read, note);
                return;
            }
            Err(not_read) => {
                gather.probe(label, scope, not_read);
                return;
            }
        };
        let decoded = String::from_utf8_lossy(&snap.bytes);
        let (front, _) = split_frontmatter(&decoded);
        // An empty `paths:` list makes the rule unconditional, as in Claude
        // Code (measured: tests/e2e, claude_rules_frontmatter).
        if let Some(Some(holder)) = &rule_holder
            && let Some(patterns) = rules::paths_patterns(front).filter(|p| !p.is_empty())
        {
            let target = self.located.target_rel.as_ref().map(|t| self.located.root_path.join(t));
            let matched = target.is_some_and(|t| rules::paths_match(holder, &patterns, &t));
            if !matched {
                gather.probe(label, scope, Verdict::PathsNotMatched);
                return;
            }
        }
        let text = clean(&snap.bytes);
        if text.is_empty() {
            gather.probe(label, scope, Verdict::Empty);
            return;
        }
        // Imports are relative to the importing file's real directory: a
        // link's target's.
        let real = snap.link.as_ref().map_or(path.as_path(), |l| l.path.as_path());
        let importer_dir = real.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("/"));
        let found = imports::find_imports(&text);
        let (lines, code_imports) = import_lines(&decoded, &found);
        let mut included = snap.part(scope, path, label.clone(), text);
        included.code_imports = code_imports;
        gather.include(included);
        for (import, line) in found.into_iter().zip(lines) {
            self.import(&importer_dir, &import, scope, depth + 1, (&label, line), gather);
        }
    }

    /// One `@import`, checked against the boundaries before anything is read.
    fn import(
        &mut self,
        from_dir: &Path,
        import: &str,
        scope: Scope,
        depth: usize,
        (by, line): (&str, Option<u64>),
        gather: &mut Gather,
    ) {
        let first = gather.probes.len();
        self.import_unmarked(from_dir, import, scope, depth, by, gather);
        for probe in &mut gather.probes[first..] {
            if probe.imported_by.is_none() {
                probe.imported_by = Some(by.to_owned());
                probe.imported_at = line;
            }
        }
    }

    /// [`Walk::import`] before its probes are marked with the importer.
    fn import_unmarked(
        &mut self,
        from_dir: &Path,
        import: &str,
        scope: Scope,
        depth: usize,
        by: &str,
        gather: &mut Gather,
    ) {
        self.imports += 1;
        if self.imports > MAX_IMPORTS {
            if self.imports == MAX_IMPORTS + 1 {
                gather.probe(format!("{import} and later imports"), scope, Verdict::ImportLimit);
            }
            return;
        }
        let target = match import.strip_prefix("~/") {
            Some(rest) => match &self.env.home {
                Some(home) => home.join(rest),
                None => return,
            },
            None if import.starts_with('/') => PathBuf::from(import),
            None => from_dir.join(import),
        };
        let target = lexical(&target);
        let shown = match target.strip_prefix(&self.located.root_path) {
            Ok(rel) => rel.display().to_string(),
            Err(_) => tilde(&target, self.env.home.as_deref()),
        };
        if depth > MAX_IMPORT_DEPTH {
            gather.probe(shown, scope, Verdict::ImportDepth);
            return;
        }
        // Claude Code holds project files' imports to the cwd unless the
        // user approved external imports; the user's own files may import
        // from anywhere. Either way agentspine reads only beneath the
        // project root or the config home (below).
        let inside_cwd = target.starts_with(&self.located.cwd);
        if scope != Scope::User && !inside_cwd && !self.settings.external_imports_approved {
            gather.probe(shown, scope, Verdict::ImportExternalNotApproved);
            return;
        }
        let project = self.project_base();
        let base = if target.starts_with(&project.path) {
            project
        } else if let Some(home) = self.home.clone().filter(|h| target.starts_with(&h.path)) {
            home
        } else {
            gather.probe_differs(
                shown,
                scope,
                Verdict::ImportOutsideRoot,
                "Claude Code would read this approved import; agentspine never reads outside the project root or the config home".to_owned(),
            );
            return;
        };
        let rel = target.strip_prefix(&base.path).map(|p| p.display().to_string()).unwrap_or_default();
        let before = gather.parts.len();
        self.file(&base, &rel, scope, depth, None, gather);
        if let Some(part) = gather.parts.get_mut(before) {
            part.imported_by = Some(by.to_owned());
        }
    }
}

/// The line (1-based) in the file of each import `found` in its cleaned
/// text, and the import-like `@path` tokens inside its code. The body
/// after the frontmatter is parsed again with offsets into the file; each
/// import takes the first unused occurrence of its path there (`None`
/// when the stripping moved it out of reach).
fn import_lines(decoded: &str, found: &[String]) -> (Vec<Option<u64>>, Vec<(String, u64)>) {
    if !decoded.contains('@') {
        return (vec![None; found.len()], Vec::new()); // no second parse for a file without `@`
    }
    let (_, body) = split_frontmatter(strip_bom(decoded));
    let start = decoded.len() - body.len();
    let line_of = |at: usize| decoded[..start + at].matches('\n').count() as u64 + 1;
    let mut at: Vec<Option<(String, usize)>> = imports::find_imports_at(body).into_iter().map(Some).collect();
    let lines = found
        .iter()
        .map(|path| {
            let slot = at.iter_mut().find(|s| s.as_ref().is_some_and(|(p, _)| p == path))?;
            slot.take().map(|(_, offset)| line_of(offset))
        })
        .collect();
    let code = imports::find_code_imports(body).into_iter().map(|(p, offset)| (p, line_of(offset))).collect();
    (lines, code)
}

fn label_for(base: &Base<'_>, env: &Environment, rel: &str) -> String {
    label_of(base, env, home(env).as_deref(), &lexical(&base.path.join(rel)), rel)
}

/// The label of `rel` beneath `base`, whose lexically reduced absolute
/// path is `path`: `~/…` beneath Claude Code's config home `claude_home`,
/// else relative to the project root.
fn label_of(
    base: &Base<'_>,
    env: &Environment,
    claude_home: Option<&Path>,
    path: &Path,
    rel: &str,
) -> String {
    match claude_home {
        Some(home) if path.starts_with(home) => tilde(path, env.home.as_deref()),
        _ => base.project_rel(rel),
    }
}

impl Walk<'_> {
    /// [`label_of`] with this walk's config home.
    fn label_of(&self, base: &Base<'_>, path: &Path, rel: &str) -> String {
        label_of(base, self.env, self.claude_home.as_deref(), path, rel)
    }
}

/// Claude Code's text of a file: frontmatter and block-level HTML
/// comments removed, then trimmed.
pub fn clean(bytes: &[u8]) -> String {
    let decoded = String::from_utf8_lossy(bytes);
    let (_, body) = split_frontmatter(strip_bom(&decoded));
    strip_html_comment_blocks(body).trim().to_owned()
}

/// Removes HTML blocks that consist only of comments, with the blank
/// lines that follow them.
fn strip_html_comment_blocks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut block_start: Option<usize> = None;
    for (event, range) in Parser::new_ext(text, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(Tag::HtmlBlock) => block_start = Some(range.start),
            Event::End(TagEnd::HtmlBlock) => {
                if let Some(start) = block_start.take() {
                    let block = &text[start..range.end];
                    if is_only_comments(block) {
                        out.push_str(&text[last..start]);
                        last = range.end + blank_lines_at(&text[range.end..]);
                    }
                }
            }
            _ => {}
        }
    }
    out.push_str(&text[last..]);
    out
}

/// Length of the blank lines at the start of `text`.
fn blank_lines_at(text: &str) -> usize {
    let mut len = 0;
    for line in text.split_inclusive('\n') {
        if !line.ends_with('\n') || !line.trim().is_empty() {
            break;
        }
        len += line.len();
    }
    len
}

fn is_only_comments(block: &str) -> bool {
    let mut rest = block.trim();
    while let Some(after) = rest.strip_prefix("<!--") {
        match after.find("-->") {
            Some(end) => rest = after[end + 3..].trim_start(),
            None => return false,
        }
    }
    rest.is_empty()
}

/// The scope words Claude Code puts after each path.
fn scope_text(scope: Scope) -> &'static str {
    match scope {
        Scope::User => "user's private global instructions for all projects",
        Scope::Project => "project instructions, checked into the codebase",
        Scope::Local => "user's private project instructions, not checked in",
        Scope::Memory => "user's auto-memory, persists across conversations",
        Scope::Doc | Scope::Continuity => "project instructions, checked into the codebase",
    }
}

/// Claude Code's `<system-reminder>` block: a preamble, then per file
/// `Contents of <abs path> (<scope>):` and its text, joined by a blank line.
pub fn render(parts: &[Part]) -> String {
    if parts.is_empty() {
        return String::new();
    }
    let entries: Vec<String> = parts
        .iter()
        .map(|p| format!("Contents of {} ({}):\n\n{}", p.path.display(), scope_text(p.scope), p.text))
        .collect();
    format!(
        "<system-reminder>\nCodebase and user instructions are shown below. Be sure to adhere to these \
         instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them \
         exactly as written.\n\n{}\n</system-reminder>",
        entries.join("\n\n")
    )
}

/// The Claude Code memory directory for a request, from evidence (see
/// [`crate::memory::claude_dir`]), with any warnings about the settings read.
pub(crate) fn memory_dir_for(
    request: &crate::host::Request,
    env: &Environment,
    reader: &Reader,
    never: &crate::policy::NeverProjects,
) -> Result<(Option<crate::memory::claude_dir::MemoryDir>, Vec<Warning>), crate::error::ResolveError> {
    let request = crate::host::Request { host: crate::host::Host::Claude, target: None, ..request.clone() };
    let located = crate::hosts::bind(&request, env, reader, never)?;
    let mut warnings = Vec::new();
    let settings = load_settings(reader, env, &located.root_path, &mut warnings);
    Ok((memory::find(env, &located, &settings), warnings))
}

#[cfg(test)]
mod tests {
    use super::clean;

    #[test]
    fn strips_frontmatter_and_comment_blocks_then_trims() {
        let text = b"---\ndescription: x\n---\n\n<!-- a note\nfor humans -->\n\nKeep this.\n\nInline <!-- stays --> here.\n";
        assert_eq!(clean(text), "Keep this.\n\nInline <!-- stays --> here.");
    }
}
