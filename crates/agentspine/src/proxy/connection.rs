//! One connection: the peer's uid is checked, then requests are read line
//! by line. Requests start in the order they arrive; host methods finish
//! before the next line is read (so `session.prompt_begin` is in effect
//! for every later request), while resolutions run concurrently (at most
//! [`IN_FLIGHT`] per connection) and may answer out of order, under their
//! own ids. Answers are written whole, one line each.

use std::sync::Arc;

use serde_json::Value;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::sync::{Semaphore, mpsc};

use super::chain::codes;
use super::methods::{Role, Server};
use super::wire::{self, Fault, Line, MAX_LINE};

/// Resolutions one connection may have running at once.
const IN_FLIGHT: usize = 16;

/// Tells a peer that the server is at its connection limit, and hangs up.
pub async fn refuse_busy(mut stream: UnixStream) {
    let fault = Fault::new(
        codes::BUSY,
        "busy",
        "refused: the server has as many connections open as it serves; close one and retry",
    );
    let _ = stream.write_all(&wire::error(&Value::Null, &fault)).await;
}

/// Serves one connection until the peer closes it.
pub async fn serve(stream: UnixStream, server: Arc<Server>) {
    let ours = rustix::process::geteuid().as_raw();
    let peer = stream.peer_cred().map(|cred| cred.uid());
    let (read, mut write) = stream.into_split();
    match peer {
        Ok(uid) if uid == ours => {}
        outcome => {
            let who = outcome.map_or_else(|e| format!("unknown ({e})"), |uid| uid.to_string());
            tracing::warn!("serve: refused a connection from uid {who} (this server runs as uid {ours})");
            let fault = Fault::new(
                codes::UNAUTHORIZED,
                "peer-uid",
                format!("refused: the peer's uid {who} is not this server's uid {ours}"),
            );
            let _ = write.write_all(&wire::error(&Value::Null, &fault)).await;
            return;
        }
    }
    let (frames, mut outgoing) = mpsc::channel::<Vec<u8>>(64);
    let writer = tokio::spawn(async move {
        while let Some(frame) = outgoing.recv().await {
            if write.write_all(&frame).await.is_err() {
                break;
            }
        }
    });
    let mut input = BufReader::with_capacity(64 * 1024, read);
    let mut line = Vec::new();
    let mut role = Role::default();
    let in_flight = Arc::new(Semaphore::new(IN_FLIGHT));
    loop {
        let request = match wire::next_line(&mut input, &mut line, MAX_LINE).await {
            Ok(Line::Complete) => match wire::parse(&line) {
                Ok(Some(request)) => request,
                Ok(None) => continue,
                Err((id, fault)) => {
                    let _ = frames.send(wire::error(&id, &fault)).await;
                    continue;
                }
            },
            Ok(Line::Oversized) => {
                let fault = Fault::new(
                    wire::INVALID_REQUEST,
                    "line-too-long",
                    format!(
                        "Invalid Request: the message is longer than {MAX_LINE} bytes; it was dropped unread"
                    ),
                );
                let _ = frames.send(wire::error(&Value::Null, &fault)).await;
                continue;
            }
            Ok(Line::Eof) => break,
            Err(e) => {
                tracing::debug!("serve: connection read failed: {e}");
                break;
            }
        };
        let reply = |id: Option<Value>, outcome: Result<Value, Fault>| {
            id.map(|id| match outcome {
                Ok(result) => wire::result(&id, result),
                Err(fault) => wire::error(&id, &fault),
            })
        };
        if request.method == "project.instructions.resolve" {
            let Ok(permit) = in_flight.clone().acquire_owned().await else { break };
            let (server, frames) = (server.clone(), frames.clone());
            tokio::spawn(async move {
                let mut sidecar = Role::default();
                let outcome = server.call(&mut sidecar, &request.method, request.params).await;
                if let Some(frame) = reply(request.id, outcome) {
                    let _ = frames.send(frame).await;
                }
                drop(permit);
            });
        } else {
            let outcome = server.call(&mut role, &request.method, request.params).await;
            if let Some(frame) = reply(request.id, outcome) {
                let _ = frames.send(frame).await;
            }
        }
    }
    drop(frames);
    let _ = writer.await;
}
