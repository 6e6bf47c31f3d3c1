//! Argument parsing and dispatch for every subcommand. Each subcommand has
//! its own module; this one only wires them.

mod memory;
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
    Memory(memory::Args),
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let json = match &cli.command {
        Command::Resolve(args) => args.wants_json(),
        Command::Memory(args) => args.wants_json(),
    };
    let result = match cli.command {
        Command::Resolve(args) => resolve::run(args),
        Command::Memory(args) => memory::run(args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            report(&error, json);
            ExitCode::from(2)
        }
    }
}

/// Prints an error: one line on stderr, or a JSON object on stdout when the
/// command was asked for JSON (so scripts always get JSON).
fn report(error: &anyhow::Error, json: bool) {
    if json {
        let code = error
            .downcast_ref::<agentspine_core::ResolveError>()
            .map(agentspine_core::ResolveError::code)
            .unwrap_or("error");
        let value = serde_json::json!({ "error": { "code": code, "message": format!("{error:#}") } });
        println!("{value}");
    } else {
        eprintln!("agentspine: {error:#}");
    }
}
