//! `agentspine cache`: what the snapshot cache holds, and emptying it.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;

use crate::state::State;
use crate::surface::args::OutputArgs;

/// Inspect or empty the snapshot cache.
///
/// The cache keeps integrity-checked snapshots of memory facts in
/// agentspine's state directory (at most 16 MiB), put there by `memory`,
/// `briefing`, `query`, the MCP server and the desktop socket. A cached
/// fact is still opened and its identity compared on every use; only its
/// bytes are not read again. Hooks never put snapshots here (each session's
/// file keeps the versions it was sent), but drop those a change made
/// stale. Purging is always safe: the next use reads from disk, hooks
/// included (a purge renews the cache's epoch, and a session trusts only
/// the versions it recorded since).
///
/// Examples:
///
///   agentspine cache stats
///
///   agentspine cache purge --memory-dir ~/.claude/projects/-home-me-app/memory
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/state.md
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(subcommand)]
    action: Option<Action>,
    #[command(flatten)]
    out: OutputArgs,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// Rows, bytes and directories held (what `agentspine cache` alone does).
    Stats,
    /// Drop cached snapshots: of one memory directory with --memory-dir,
    /// else all.
    Purge {
        /// The memory directory whose snapshots to drop.
        #[arg(long, value_name = "DIR", alias = "root")]
        memory_dir: Option<PathBuf>,
    },
}

impl Args {
    pub fn output(&self) -> &OutputArgs {
        &self.out
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let state = State::open();
    let store = state.require_store()?;
    let mut out = std::io::stdout().lock();
    match args.action.unwrap_or(Action::Stats) {
        Action::Stats => {
            let stats = store.cache_stats()?;
            if args.out.json {
                writeln!(out, "{}", serde_json::json!({ "state_dir": store.dir(), "cache": stats }))?;
            } else {
                writeln!(
                    out,
                    "{}, {} (of 16 MiB), {}, in {}",
                    crate::surface::output::count(stats.rows as usize, "snapshot", "snapshots"),
                    crate::surface::output::count(stats.bytes as usize, "byte", "bytes"),
                    crate::surface::output::count(stats.roots as usize, "directory", "directories"),
                    store.dir().display()
                )?;
            }
        }
        Action::Purge { memory_dir } => {
            let dropped = match &memory_dir {
                Some(dir) => {
                    // The same rule as `memory --memory-dir`: never through a link.
                    let absolute =
                        if dir.is_absolute() { dir.clone() } else { std::env::current_dir()?.join(dir) };
                    super::memory::given_dir(&absolute)?;
                    let canonical = crate::surface::canonical(dir)?;
                    store.cache_drop_root(&store.root_digest(&canonical))?
                }
                None => store.cache_purge_all()?,
            };
            if args.out.json {
                writeln!(out, "{}", serde_json::json!({ "dropped": dropped }))?;
            } else {
                writeln!(out, "dropped {dropped} cached snapshots")?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
