//! Argument parsing and dispatch for every subcommand.

use std::process::ExitCode;

use clap::Parser;

/// agentspine decides, safely and fast, which instruction and memory files a
/// coding agent puts in front of its model.
///
/// It models each host's own loading rules (Claude Code, Codex CLI, pi, a
/// desktop app), reads only the files a bounded resolution proves relevant,
/// never follows a link out of the project, and reports what it did.
#[derive(Debug, Parser)]
#[command(name = "agentspine", version, about, long_about)]
struct Cli {}

pub fn main() -> ExitCode {
    let _cli = Cli::parse();
    ExitCode::SUCCESS
}
