//! Argument parsing and dispatch for every subcommand. Each subcommand has
//! its own module; this one only wires them.

mod resolve;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// agentspine decides, safely and fast, which instruction and memory files a
/// coding agent puts in front of its model.
///
/// It models each host's own loading rules (Claude Code, Codex CLI, pi, a
/// desktop app), reads only the files a bounded resolution proves relevant,
/// never follows a link out of the project, and reports what it did.
#[derive(Debug, Parser)]
#[command(name = "agentspine", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Resolve(resolve::Args),
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Resolve(args) => resolve::run(args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("agentspine: {error:#}");
            ExitCode::from(2)
        }
    }
}
