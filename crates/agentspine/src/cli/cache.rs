//! `agentspine cache`: what the snapshot cache holds, and emptying it.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;

use crate::state::State;

/// Inspect or empty the snapshot cache.
///
/// The cache keeps integrity-checked snapshots of memory facts in
/// agentspine's state directory (at most 16 MiB). A cached fact is still
/// opened and its identity compared on every use; only its bytes are not
/// read again. Purging is always safe: the next use reads from disk.
///
/// Examples:
///
///   agentspine cache stats
///
///   agentspine cache purge --root ~/.claude/projects/-home-me-app/memory
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
    /// Print JSON.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// Rows, bytes and directories held.
    Stats,
    /// Drop cached snapshots: of one directory with --root, else all.
    Purge {
        /// The directory whose snapshots to drop (a memory directory or a
        /// project root).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
    },
}

impl Args {
    pub fn wants_json(&self) -> bool {
        self.json
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let state = State::open();
    let store = state.store.as_ref().with_context(|| state.warnings.join("; "))?;
    let mut out = std::io::stdout().lock();
    match args.action {
        Action::Stats => {
            let stats = store.cache_stats()?;
            if args.json {
                writeln!(out, "{}", serde_json::json!({ "state_dir": store.dir(), "cache": stats }))?;
            } else {
                writeln!(
                    out,
                    "{} snapshots, {} bytes (of 16 MiB), {} directories, in {}",
                    stats.rows,
                    stats.bytes,
                    stats.roots,
                    store.dir().display()
                )?;
            }
        }
        Action::Purge { root } => {
            let dropped = match &root {
                Some(dir) => {
                    let canonical = super::canonical(dir)?;
                    store.cache_drop_root(&store.root_digest(&canonical))?
                }
                None => store.cache_purge_all()?,
            };
            if args.json {
                writeln!(out, "{}", serde_json::json!({ "dropped": dropped }))?;
            } else {
                writeln!(out, "dropped {dropped} cached snapshots")?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
