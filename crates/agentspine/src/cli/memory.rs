//! `agentspine memory`: which memory facts a request would load, and why
//! each link of the index was or was not opened.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use agentspine_core::memory::claude_dir::MemoryDir;
use agentspine_core::memory::{MemoryLoad, ScopeIds};
use agentspine_fs::{Budget, Reader};
use anyhow::Context;

use crate::state::State;
use crate::surface::args::{HostArg, OutputArgs, RootArgs, ScopeArg};
use crate::surface::errors::Coded;
use crate::surface::output;

/// Show which memory facts would be loaded, and why.
///
/// `MEMORY.md` is the only index. A linked fact is opened only when a marker
/// proves it relevant: `<!-- agentspine:always -->`, a scope marker equal to
/// an id of the current scope (`project=project:ID`, `group=group:ID`,
/// `entity=person:ID`, `task=task:ID`), or a word of the prompt equal to a
/// word of the link's label, file name or `keywords=`. At most 8 facts are
/// opened; the directory is never listed.
///
/// The memory directory is Claude Code's for the working directory (from
/// `autoMemoryDirectory`, `CLAUDE_CODE_PROJECT_DIR_NAME`, or the project
/// path encoding), or the one given with `--memory-dir`.
///
/// Examples:
///
///   agentspine memory --memory-dir examples/claude-memory \
///       --scope project:blun,person:owner --prompt "what goes in a carbonara?"
///
///   agentspine memory --host claude --cwd ~/src/app --json
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/memory.md
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(flatten)]
    host: HostArg,
    #[command(flatten)]
    place: RootArgs,
    /// Use this memory directory instead of finding Claude Code's.
    #[arg(long, value_name = "DIR")]
    memory_dir: Option<PathBuf>,
    #[command(flatten)]
    scope: ScopeArg,
    /// A prompt whose words may make facts relevant.
    #[arg(long, value_name = "TEXT")]
    prompt: Option<String>,
    #[command(flatten)]
    out: OutputArgs,
}

impl Args {
    /// How the command prints (its JSON: counts and reasons, no fact
    /// contents or paths).
    pub fn output(&self) -> &OutputArgs {
        &self.out
    }

    /// The directory whose files the command reads: `--memory-dir`, else `--cwd`.
    pub fn place(&self) -> Option<&std::path::Path> {
        self.memory_dir.as_deref().or(self.place.cwd.as_deref())
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let current = std::env::current_dir().context("cannot read the current directory")?;
    let absolute = |p: PathBuf| if p.is_absolute() { p } else { current.join(p) };
    let state = State::open();
    for warning in &state.warnings {
        output::warn(warning);
    }
    let reader = crate::state::reader();
    let resolver = state.resolver(reader);
    let request = args.place.request(&resolver, &current, args.host.host);
    let cwd = request.cwd.clone();
    let scope = state.scope(args.scope.scope.as_deref().map(|s| ("--scope", s)), || {
        crate::surface::project_root(Some(&cwd)).ok()
    })?;
    let found = match args.memory_dir.map(absolute) {
        Some(dir) => {
            given_dir(&dir)?;
            MemoryDir { dir, evidence: "--memory-dir", anchor: None }
        }
        None if !args.host.host.profile().memory_facts => {
            return Err(Coded::new(
                "host-without-memory",
                format!(
                    "--host {}: this host keeps no memory directory agentspine reads; pass --host claude, \
                     or name the directory with --memory-dir DIR",
                    args.host.host
                ),
            )
            .into());
        }
        None => {
            let (found, warnings) = resolver.memory_dir(&request)?;
            for w in warnings {
                output::warn(&w.message);
            }
            match found {
                Some(found) => found,
                None => {
                    return Err(Coded::at(
                        "no-memory-dir",
                        &cwd,
                        format!(
                            "{}: no Claude Code memory directory for this project (no autoMemoryDirectory, no \
                             CLAUDE_CODE_PROJECT_DIR_NAME, and no projects/<encoded path>/memory in the config \
                             home); give one with --memory-dir DIR",
                            cwd.display()
                        ),
                    )
                    .into());
                }
            }
        }
    };
    let loaded = resolver.load_memory(&found, &scope, args.prompt.as_deref(), false);
    let (dir, evidence) = (found.dir, found.evidence.to_owned());
    let mut out = std::io::stdout().lock();
    if args.out.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&json(&loaded, &evidence, &scope))?)?;
    } else {
        out.write_all(human(&loaded, &dir, &evidence, &scope).as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Refuses a `--memory-dir` that names something other than a directory,
/// or one reached through a link: whoever names a memory directory, nothing
/// is read (or stored) through a link. A missing one is not an error: the
/// report says the index is absent.
pub(crate) fn given_dir(dir: &std::path::Path) -> anyhow::Result<()> {
    let reader = Reader::new(Budget::UNLIMITED);
    match reader.open_root_without_links(dir) {
        Err(e) if e.code() == agentspine_fs::Code::NotDirectory => Err(Coded::at(
            "memory-dir-not-a-directory",
            dir,
            format!(
                "--memory-dir {}: not a directory; name the directory that holds MEMORY.md \
                 (Claude Code's is ~/.claude/projects/<encoded project path>/memory)",
                dir.display()
            ),
        )
        .into()),
        Err(agentspine_fs::FsError::Symlink { path }) => Err(Coded::at(
            "memory-dir-through-link",
            dir,
            format!(
                "--memory-dir {}: refused: {path} is a symbolic link; agentspine never reads a memory \
                 directory through a link (name the directory it points to)",
                dir.display()
            ),
        )
        .into()),
        _ => Ok(()),
    }
}

/// Counts and reasons, by index position: no fact contents, no fact paths.
fn json(loaded: &MemoryLoad, evidence: &str, scope: &ScopeIds) -> serde_json::Value {
    serde_json::json!({
        "status": loaded.status,
        "evidence": evidence,
        "scope": scope.0,
        "index": loaded.index.as_ref().map(|i| serde_json::json!({ "bytes": i.bytes, "sha256": i.sha256 })),
        "loaded": loaded.facts.iter().map(|f| serde_json::json!({
            "position": f.position, "why": f.why, "bytes": f.bytes, "sha256": f.sha256,
        })).collect::<Vec<_>>(),
        "not_loaded": loaded.unloaded,
        "report": loaded.report,
    })
}

fn why_text(why: &agentspine_core::memory::relevance::Selected) -> String {
    use agentspine_core::memory::relevance::Selected;
    match why {
        Selected::Always => "always".to_owned(),
        Selected::Scope(id) => format!("scope {id}"),
        Selected::Keyword(w) => format!("prompt word \"{w}\""),
    }
}

fn unloaded_text(why: &agentspine_core::memory::load::UnloadedWhy) -> String {
    use agentspine_core::memory::load::UnloadedWhy;
    use agentspine_core::memory::relevance::Skipped;
    match why {
        UnloadedWhy::Skipped(Skipped::PathEscape(r)) => format!("never opened: the target is unsafe ({r})"),
        UnloadedWhy::Skipped(Skipped::OutOfScope) => {
            "not opened: scoped to ids outside the current scope".to_owned()
        }
        UnloadedWhy::Skipped(Skipped::NotRelevant) => {
            "not opened: no marker or prompt word proves it relevant".to_owned()
        }
        UnloadedWhy::Skipped(Skipped::OverLimit) => "not opened: 8 facts were already chosen".to_owned(),
        UnloadedWhy::Refused { refused } => format!("opened and refused: {refused}"),
    }
}

fn human(loaded: &MemoryLoad, dir: &std::path::Path, evidence: &str, scope: &ScopeIds) -> String {
    let mut s = String::new();
    s.push_str(&format!("memory directory  {}  ({evidence})\n", dir.display()));
    let ids: Vec<&str> = scope.0.iter().map(String::as_str).collect();
    s.push_str(&format!(
        "scope             {}\n",
        if ids.is_empty() { "(none)".to_owned() } else { ids.join(", ") }
    ));
    match &loaded.index {
        Some(index) => s.push_str(&format!(
            "index             MEMORY.md, {}, {}\n",
            crate::surface::output::count(index.bytes as usize, "byte", "bytes"),
            crate::surface::output::count(loaded.links.len(), "link", "links")
        )),
        None => s.push_str(&format!("index             not loaded: {}\n", loaded.status)),
    }
    let label = |position: usize| {
        loaded.links.get(position).map(|l| format!("{} ({})", l.label, l.target)).unwrap_or_default()
    };
    s.push_str(&format!("\nLoaded ({}):\n", loaded.facts.len()));
    for f in &loaded.facts {
        s.push_str(&format!("  {:>3}. {}  ← {}\n", f.position + 1, label(f.position), why_text(&f.why)));
    }
    s.push_str(&format!("\nNot loaded ({}):\n", loaded.unloaded.len()));
    for u in &loaded.unloaded {
        s.push_str(&format!("  {:>3}. {}  ← {}\n", u.position + 1, label(u.position), unloaded_text(&u.why)));
    }
    let r = &loaded.report;
    s.push_str(&format!(
        "\nReport: {} indexed, {} relevant, {} loaded; cache {}, {}; {} missing, {} out of scope, \
         {} unsafe targets, {} links, {} too large, {} races, {} not regular; {} directory listings.\n",
        r.indexed,
        r.relevant,
        r.loaded,
        crate::surface::output::count(r.cache_hits as usize, "hit", "hits"),
        crate::surface::output::count(r.cache_misses as usize, "miss", "misses"),
        r.missing_targets,
        r.scope_omissions,
        r.path_escapes,
        r.symlinks,
        r.size_rejections,
        r.races,
        r.not_regular,
        r.live_directory_enumerations
    ));
    s
}
