//! `agentspine`: the command-line front end. It parses arguments, calls the
//! library crates, and prints; it holds no resolution logic of its own.

#![forbid(unsafe_code)]

mod cli;
mod config;
mod hook;
mod install;
mod lines;
mod mcp;
mod proxy;
mod state;

fn main() -> std::process::ExitCode {
    // stdout belongs to the output (and to hook and MCP protocols); logs go
    // to stderr. `AGENTSPINE_LOG=debug` shows more.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("AGENTSPINE_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .without_time()
        .with_target(false)
        .init();
    cli::main()
}
