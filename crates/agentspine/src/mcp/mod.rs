//! `agentspine mcp`: an MCP server over stdio (rmcp), with four tools:
//! `session_briefing`, `delivery_knowledge_query`, `resolve_context` and
//! `read_document`.
//!
//! - `transport`: JSON lines on stdin/stdout, each line at most 1 MiB;
//! - `server`: identity, tool schemas and descriptions, error shaping;
//! - `params`: each tool's arguments (unknown fields refused);
//! - `tools`: the work, over agentspine-core;
//! - `notice`: a damaged state database, told to the user as a log
//!   message, never as model context.
//!
//! stdout carries protocol frames only; logs go to stderr (`AGENTSPINE_LOG`).

mod notice;
mod params;
mod server;
mod tools;
mod transport;

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use rmcp::ServiceExt;
use rmcp::service::ServerInitializeError;

/// Serve the MCP tools over stdio (for an MCP client to launch).
///
/// Tools: `session_briefing` (the instructions and memory that apply, as a
/// byte-budgeted briefing), `delivery_knowledge_query` (ranked passages for
/// a question), `resolve_context` (the instruction chain for one file) and
/// `read_document` (one source, by id). Every call names its project root
/// exactly (`project_root`, absolute); nothing is guessed.
///
/// The server resolves only the roots its launch gave it: the project of
/// the directory it was started in (its git root), the client's MCP roots
/// when the client offers them, and each `--root DIR`. A `project_root`
/// outside all of them is refused, and so is the home directory, any
/// directory above it and a host's profile, whatever the launch says.
///
/// Register it with a client, e.g.:
///
///   claude mcp add agentspine -- agentspine mcp
///
///   {"mcpServers": {"agentspine": {"command": "agentspine", "args": ["mcp", "--root", "/src/app"]}}}
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/mcp.md
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Also allow this project root (repeatable).
    #[arg(long = "root", value_name = "DIR")]
    roots: Vec<std::path::PathBuf>,
}

/// How long shutdown waits for a stdin read that cannot be cancelled.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(200);

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    // The server runs in a child process and this one relays its output:
    // a tool stuck in a file system that never answers is abandoned after
    // its bound (server.rs), but its thread would keep the server's process
    // from exiting, even after SIGKILL; the client waits for this one.
    let detached =
        agentspine_fs::run_detached(None, agentspine_fs::Output::Stream, move || match serve_here(args) {
            Ok(_) => 0,
            Err(error) => {
                // As the CLI reports every error.
                eprintln!("agentspine: {error:#}");
                2
            }
        })?;
    Ok(ExitCode::from(detached.code.unwrap_or(2)))
}

fn serve_here(args: Args) -> anyhow::Result<ExitCode> {
    let current = std::env::current_dir().ok();
    let roots = args
        .roots
        .iter()
        .map(|r| match &current {
            Some(current) if r.is_relative() => current.join(r),
            _ => r.clone(),
        })
        .collect();
    let tools = tools::Tools::open(roots, current);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let result = runtime.block_on(serve(tools));
    // A blocking stdin read (stdin not a pipe) cannot be cancelled; do not
    // wait for it.
    runtime.shutdown_timeout(SHUTDOWN_GRACE);
    result
}

async fn serve(tools: tools::Tools) -> anyhow::Result<ExitCode> {
    let (stdin, stdout) = rmcp::transport::stdio_pipes();
    let transport = transport::LineTransport::new(stdin, stdout);
    tracing::debug!("mcp: serving on stdio");
    let running = match server::Server::new(tools).serve(transport).await {
        Ok(running) => running,
        // The client went away before initializing: nothing to serve.
        Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(ExitCode::SUCCESS),
        Err(e) => return Err(e).context("MCP initialization failed"),
    };
    let reason = running.waiting().await.context("the MCP service stopped abnormally")?;
    tracing::debug!("mcp: stopped: {reason:?}");
    Ok(ExitCode::SUCCESS)
}
