//! `agentspine`: the command-line front end. It parses arguments, calls the
//! library crates, and prints; it holds no resolution logic of its own.

#![forbid(unsafe_code)]

mod cli;
mod config;
mod hook;
mod install;
mod lines;
mod mcp;
mod program;
mod proxy;
mod state;
mod surface;
mod version;

fn main() -> std::process::ExitCode {
    if version::asked(std::env::args_os().skip(1)) {
        use std::io::Write;
        return match std::io::stdout().write_all(version::OUTPUT.as_bytes()) {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(_) => std::process::ExitCode::from(2),
        };
    }
    // stdout belongs to the output (and to hook and MCP protocols); logs go
    // to stderr. `AGENTSPINE_LOG=debug` shows more.
    // Without AGENTSPINE_LOG the filter is a plain level: parsing filter
    // directives compiles regular expressions, a cost every hook process
    // would pay for nothing.
    let logs = tracing_subscriber::fmt().with_writer(std::io::stderr).without_time().with_target(false);
    match std::env::var_os("AGENTSPINE_LOG") {
        Some(_) => logs
            .with_env_filter(
                tracing_subscriber::EnvFilter::try_from_env("AGENTSPINE_LOG")
                    .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
            )
            .init(),
        None => logs.with_max_level(tracing::Level::WARN).init(),
    }
    cli::main()
}
