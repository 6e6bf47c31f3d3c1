//! `agentspine serve`: the desktop app's instruction proxy (ADR 0037) on a
//! local socket.
//!
//! - `socket`: where the socket lives, its private directory, the control
//!   token file, stale sockets;
//! - `admission`: how many connections are held and for how long, by what
//!   they have proved;
//! - `connection`: one peer (uid check, line framing, ordering, the time a
//!   line may take);
//! - `wire`: JSON-RPC 2.0 lines, 1 MiB each at most;
//! - `methods`: the host's methods and the sidecar's one method;
//! - `sessions`: registered roots, bound sessions, the per-prompt cache;
//! - `chain`: the desktop chains themselves, over agentspine-core;
//! - `files`: the two `AGENTS.md` files the host may edit.
//!
//! Limits, so that the user's other processes (an agent's shell can open
//! connections too) cannot lock the host out:
//!
//! | what | limit |
//! |---|---|
//! | a connection that has not authenticated (`host.authenticate`, or a sidecar's resolution naming a bound session and its token) | closed 3 s after it was accepted (`auth-timeout`) |
//! | unauthenticated connections | 64; one more closes the oldest (`evicted`) |
//! | its lines | 64 KiB each |
//! | host connections | 16, sidecar connections 256; a full pool answers `busy` |
//! | an authenticated connection | no idle limit; lines of 1 MiB; a line must end within 3 s of its first byte (`line-timeout`) |
//! | resolutions | 16 at once per connection, 32 on workers in all, 2 s each |
//!
//! So the server holds at most 336 connections (and as many descriptors,
//! beyond its own few), and the accept loop never waits on a peer.

mod admission;
mod chain;
mod connection;
mod files;
mod methods;
mod sessions;
mod socket;
mod wire;

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use tokio::net::UnixListener;
use tokio::signal::unix::{SignalKind, signal};

/// Serve project instructions to a desktop app over a local socket.
///
/// The desktop app's main process (the host) registers project roots and
/// binds sessions; its agent sidecar then asks, before each file tool, for
/// the instruction chain of the path it is about to touch and never reads
/// an instruction file itself (ADR 0037). Messages are JSON-RPC 2.0, one
/// per line, each line at most 1 MiB.
///
/// The socket is created in a private directory (0700), with mode 0600,
/// and only a peer running as this user is answered. The control token
/// that makes a connection the host's is written beside the socket
/// (`<socket>.token`, mode 0600), or read from stdin with
/// --control-token-stdin. The sidecar gets only a per-session token from
/// `session.bind`.
///
/// Host methods: host.authenticate {control_token}, projects.register
/// {root}, projects.unregister {root}, projects.list, session.bind
/// {session_id, project_root}, session.prompt_begin {session_id},
/// session.end {session_id}, instructions.global.read,
/// instructions.global.write {content, expected_sha256},
/// project.agents_md.read {project_root}, project.agents_md.write
/// {project_root, content, expected_sha256}.
///
/// Sidecar method: project.instructions.resolve {session_id, token, path}:
/// the complete chain for the path's directory (cached for the current
/// prompt), or after 2 seconds or any error the session's root chain with
/// `fallback: {reason}` (also written to `agentspine audit --host
/// desktop`); every answer has `duration_ms`, `cache` and `fallback`.
///
/// Limits: a connection must authenticate (host.authenticate, or a
/// sidecar's first resolve) within 3 s of connecting, and at most 64 may
/// be waiting to (one more closes the oldest), with lines of 64 KiB; host
/// (16) and sidecar (256) connections have places of their own, no idle
/// limit, and 3 s for a line to end once begun. A connection closed by a
/// limit is told why (`auth-timeout`, `evicted`, `line-timeout`, `busy`).
///
/// Stops cleanly on SIGTERM or SIGINT (the socket and the token file are
/// removed). A client for Node.js is in clients/node/.
///
/// Examples:
///
///   agentspine serve
///
///   agentspine serve --socket /run/user/1000/myapp/agentspine.sock --json
///
///   openssl rand -hex 32 | agentspine serve --control-token-stdin
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/desktop.md
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The socket to listen on [default: $XDG_RUNTIME_DIR/agentspine/agentspine.sock].
    /// A missing directory is created with mode 0700; an existing one must
    /// already be private to you (0700 or narrower), or the server refuses.
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// Read the control token from the first line of stdin (at least 32
    /// characters) instead of creating one and writing it beside the socket.
    #[arg(long)]
    control_token_stdin: bool,
    // With --json the ready line is {"event":"listening", "socket",
    // "token_file", "pid"}.
    #[command(flatten)]
    out: crate::surface::args::OutputArgs,
}

impl Args {
    pub fn output(&self) -> &crate::surface::args::OutputArgs {
        &self.out
    }
}

/// How long shutdown waits for work still running.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(500);

/// Whose rules the socket answers with: a desktop app's (ADR 0037).
pub const HOST: agentspine_core::Host = agentspine_core::Host::Desktop;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    // The server runs in a child process and this one relays its output
    // and passes SIGTERM/SIGINT on: a resolution stuck in a file system
    // that never answers is abandoned after its bound (methods.rs), but
    // its thread would keep the server's process from exiting, even after
    // SIGKILL; whoever started the server waits for this one.
    let json = args.out.json;
    let detached = agentspine_fs::serve_detached(move || match serve_here(args) {
        Ok(code) if code == ExitCode::SUCCESS => 0,
        Ok(_) => 1,
        Err(error) => {
            // The server's refusals (a socket directory not private to
            // you, a short token) under their code; errors of a known kind
            // keep theirs. Reported as the CLI reports every error.
            let error = match crate::surface::errors::classify(&error) {
                ("unclassified", _) => {
                    crate::surface::errors::Coded::new("serve-refused", format!("{error:#}")).into()
                }
                _ => error,
            };
            crate::surface::errors::report(&error, json);
            2
        }
    })?;
    Ok(ExitCode::from(detached.code.unwrap_or(2)))
}

fn serve_here(args: Args) -> anyhow::Result<ExitCode> {
    let socket = socket::path(args.socket.as_deref())?;
    let (dir, name) = socket::split(&socket)?;
    let token_name = socket::token_name(&name);
    let (token, token_file) = if args.control_token_stdin {
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line).context("cannot read the control token from stdin")?;
        let token = line.trim().to_owned();
        if token.len() < 32 || token.chars().any(char::is_whitespace) {
            bail!(
                "the control token on stdin must be one word of at least 32 characters (e.g. `openssl rand -hex 32`)"
            );
        }
        (token, None)
    } else {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).context("no random source for the control token")?;
        (hex::encode(bytes), Some(dir.join(&token_name)))
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let env = agentspine_core::Environment::from_vars(|name| std::env::var_os(name));
    let server = Arc::new(methods::Server::new(token.clone(), env));
    let result = runtime.block_on(async {
        socket::prepare(&dir, &name, args.socket.is_some())?;
        let listener =
            UnixListener::bind(&socket).with_context(|| format!("{}: cannot listen", socket.display()))?;
        agentspine_fs::restrict_socket(&dir, &name)
            .with_context(|| format!("{}: cannot narrow the socket to mode 0600", socket.display()))?;
        let cleanup = Cleanup { dir: dir.clone(), name: name.clone(), token_name: token_name.clone() };
        match &token_file {
            Some(_) => {
                agentspine_fs::write_private_file_atomic(&dir, &token_name, format!("{token}\n").as_bytes())
                    .with_context(|| {
                    format!("{}: cannot write the control token", dir.join(&token_name).display())
                })?
            }
            // A token file from an earlier run would only mislead.
            None => match agentspine_fs::remove_file(&dir, &token_name) {
                Err(e) if e.code() != agentspine_fs::Code::NotFound => {
                    tracing::warn!("serve: cannot remove an old token file: {e}")
                }
                _ => {}
            },
        }
        // A host that does not read stdout (closed it, or never piped it)
        // still gets a server.
        if let Err(e) = ready(&socket, token_file.as_deref(), args.out.json) {
            tracing::warn!("serve: cannot print the ready line: {e}");
        }
        let outcome = accept(listener, server).await;
        drop(cleanup);
        outcome
    });
    runtime.shutdown_timeout(SHUTDOWN_GRACE);
    result
}

/// Removes the socket and the token file when the server stops.
struct Cleanup {
    dir: PathBuf,
    name: String,
    token_name: String,
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        if let Err(e) = agentspine_fs::remove_socket(&self.dir, &self.name) {
            tracing::warn!("serve: cannot remove the socket: {e}");
        }
        match agentspine_fs::remove_file(&self.dir, &self.token_name) {
            Err(e) if e.code() != agentspine_fs::Code::NotFound => {
                tracing::warn!("serve: cannot remove the token file: {e}")
            }
            _ => {}
        }
    }
}

/// Says on stdout that the socket accepts connections.
fn ready(socket: &std::path::Path, token_file: Option<&std::path::Path>, json: bool) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        let line = serde_json::json!({
            "event": "listening",
            "socket": socket,
            "token_file": token_file,
            "pid": std::process::id(),
        });
        writeln!(out, "{line}")?;
    } else {
        let token = token_file.map_or("read from stdin".to_owned(), |f| format!("in {}", f.display()));
        writeln!(
            out,
            "agentspine serve: listening on {} (control token {token}); SIGTERM stops it",
            socket.display()
        )?;
    }
    out.flush()?;
    Ok(())
}

/// Accepts connections until SIGTERM or SIGINT.
async fn accept(listener: UnixListener, server: Arc<methods::Server>) -> anyhow::Result<ExitCode> {
    let mut term = signal(SignalKind::terminate()).context("cannot handle SIGTERM")?;
    let mut int = signal(SignalKind::interrupt()).context("cannot handle SIGINT")?;
    let admission = admission::Admission::new();
    loop {
        tokio::select! {
            _ = term.recv() => break,
            _ = int.recv() => break,
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        tracing::warn!("serve: accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                // At the cap the oldest pending connection is told to go,
                // and its slot comes back once it has closed, which waits
                // for nothing (its farewell is written only if the socket
                // takes it at once): never a wait on a peer.
                let ticket = admission.admit().await;
                tokio::spawn(connection::serve(stream, server.clone(), ticket));
            }
        }
    }
    tracing::info!("serve: stopping");
    Ok(ExitCode::SUCCESS)
}
