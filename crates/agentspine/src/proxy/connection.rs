//! One connection: the peer's uid is checked, then requests are read line
//! by line. Requests start in the order they arrive; host methods finish
//! before the next line is read (so `session.prompt_begin` is in effect
//! for every later request), while resolutions run concurrently (at most
//! [`IN_FLIGHT`] per connection) and may answer out of order, under their
//! own ids. Answers are written whole, one line each.
//!
//! A connection lives in two phases (see [`super::admission`]):
//!
//! - *pending*, until it authenticates: lines of at most [`PENDING_LINE`]
//!   bytes, and the whole phase bounded by the admission deadline and by
//!   eviction; every request it may make here is answered at once;
//! - *authenticated*, in the host's or the sidecars' pool: lines of up to
//!   [`MAX_LINE`], no idle limit, but a line that has begun must end
//!   within [`LINE_TIMEOUT`].
//!
//! A connection the server closes is told why first, in one error line
//! with id `null` (`auth-timeout`, `evicted`, `line-timeout`), if its
//! socket takes the line at once (a peer that stopped reading gets none).

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinHandle;

use super::admission::{self, Place, Pool, Ticket};
use super::chain::codes;
use super::methods::{Role, Server};
use super::wire::{self, Fault, Line, MAX_LINE, Request};

/// Resolutions one connection may have running at once.
const IN_FLIGHT: usize = 16;

/// The longest line a connection may send before it authenticates: an
/// authentication or a first resolution is a small fraction of it.
pub const PENDING_LINE: usize = 64 * 1024;

/// How long the rest of a line may take, once its first byte has arrived,
/// on an authenticated connection.
pub const LINE_TIMEOUT: Duration = Duration::from_secs(3);

/// How long answers still owed may take to reach the peer when an
/// authenticated connection ends (a resolution answers within 2 s).
const FLUSH: Duration = Duration::from_secs(3);

/// Why a connection ended.
enum End {
    /// The peer closed it, or it could not be read.
    Closed,
    /// Pending past the admission deadline.
    TimedOut,
    /// Pending, and a newer connection took its place.
    Evicted,
    /// A line began and did not end in time.
    SlowLine,
    /// Authenticated, but its pool was full; the request was answered.
    Busy,
}

impl End {
    /// The last line the peer is sent, if any.
    fn farewell(&self) -> Option<Fault> {
        let fault = match self {
            End::Closed | End::Busy => return None,
            End::TimedOut => Fault::new(
                codes::UNAUTHORIZED,
                "auth-timeout",
                format!(
                    "closed: the connection did not authenticate within {} s of connecting (host.authenticate, or a sidecar's project.instructions.resolve)",
                    admission::PENDING_TIMEOUT.as_secs()
                ),
            ),
            End::Evicted => Fault::new(
                codes::BUSY,
                "evicted",
                format!(
                    "closed: {} newer connections were waiting to authenticate and this one was the oldest; connect again and authenticate at once",
                    admission::PENDING
                ),
            ),
            End::SlowLine => Fault::new(
                wire::INVALID_REQUEST,
                "line-timeout",
                format!("closed: a line did not end within {} s of its first byte", LINE_TIMEOUT.as_secs()),
            ),
        };
        Some(fault)
    }
}

/// What made a pending connection an authenticated one.
enum Proof {
    /// `host.authenticate` succeeded; its answer is sent once the
    /// connection has its place.
    Host { id: Option<Value>, answer: Value },
    /// A resolution for a bound session with its token, carried out once
    /// the connection has its place.
    Sidecar(Request),
}

/// Serves one connection until the peer closes it or a limit does.
///
/// The ticket is dropped last, after the socket: a pending connection's
/// slot comes back only once its descriptor is closed.
pub async fn serve(stream: UnixStream, server: Arc<Server>, mut ticket: Ticket) {
    let ours = rustix::process::geteuid().as_raw();
    let peer = stream.peer_cred().map(|cred| cred.uid());
    let (read, write) = stream.into_split();
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
            last_words(&write, &wire::error(&Value::Null, &fault));
            return;
        }
    }
    let mut peer = Peer {
        input: BufReader::with_capacity(64 * 1024, read),
        line: Vec::new(),
        role: Role::default(),
        output: Output::Direct(write),
        in_flight: Arc::new(Semaphore::new(IN_FLIGHT)),
        server,
    };
    // An authenticated connection's place, like a pending one's slot, is
    // given back once its socket is closed.
    let (end, _place) = match peer.authenticate(&mut ticket).await {
        Ok(place) => (peer.serve().await, Some(place)),
        Err(end) => (end, None),
    };
    let farewell = end.farewell();
    match peer.output {
        Output::Direct(write) => {
            if let Some(fault) = farewell {
                last_words(&write, &wire::error(&Value::Null, &fault));
            }
        }
        Output::Gone => {}
        Output::Queued { frames, mut writer } => {
            if let Some(fault) = farewell {
                let _ = frames.try_send(wire::error(&Value::Null, &fault));
            }
            drop(frames);
            // Resolutions still running answer within their 2 s.
            if tokio::time::timeout(FLUSH, &mut writer).await.is_err() {
                writer.abort();
            }
        }
    }
}

/// Writes a pending connection's last line if the socket takes it at
/// once: closing it never waits on the peer (the accept loop waits for
/// an evicted connection to close).
fn last_words(write: &OwnedWriteHalf, frame: &[u8]) {
    let _ = write.try_write(frame);
}

async fn write_frames(mut write: OwnedWriteHalf, mut outgoing: mpsc::Receiver<Vec<u8>>) {
    while let Some(frame) = outgoing.recv().await {
        if write.write_all(&frame).await.is_err() {
            break;
        }
    }
}

/// Where answers go: written in place while the connection is pending
/// (every answer there is immediate, and the phase's deadline bounds the
/// write), through a writer task once it is authenticated (resolutions
/// answer out of order).
enum Output {
    Direct(OwnedWriteHalf),
    Queued {
        frames: mpsc::Sender<Vec<u8>>,
        writer: JoinHandle<()>,
    },
    /// Only while one becomes the other.
    Gone,
}

/// One connection's reading side and what it has proved.
struct Peer {
    input: BufReader<OwnedReadHalf>,
    line: Vec<u8>,
    role: Role,
    output: Output,
    in_flight: Arc<Semaphore>,
    server: Arc<Server>,
}

impl Peer {
    /// The pending phase: requests until one proves a role, within the
    /// ticket's deadline and until a newer connection evicts this one;
    /// then the place in the role's pool.
    async fn authenticate(&mut self, ticket: &mut Ticket) -> Result<Place, End> {
        let deadline = ticket.deadline;
        let proof = tokio::select! {
            biased;
            () = ticket.evicted() => Err(End::Evicted),
            () = tokio::time::sleep_until(deadline) => Err(End::TimedOut),
            proof = self.until_proved() => proof,
        }?;
        let (pool, id) = match &proof {
            Proof::Host { id, .. } => (Pool::Host, id.clone()),
            Proof::Sidecar(request) => (Pool::Sidecar, request.id.clone()),
        };
        let Some(place) = ticket.authenticate(pool) else {
            let role = if pool == Pool::Host { "host" } else { "sidecar" };
            tracing::warn!("serve: {} {role} connections are open; refused one more", pool.capacity());
            let fault = Fault::new(
                codes::BUSY,
                "busy",
                format!(
                    "refused: {} {role} connections are open, as many as the server serves; close one and retry",
                    pool.capacity()
                ),
            );
            if let (Output::Direct(write), Some(id)) = (&mut self.output, id) {
                last_words(write, &wire::error(&id, &fault));
            }
            return Err(End::Busy);
        };
        if let Output::Direct(write) = std::mem::replace(&mut self.output, Output::Gone) {
            let (frames, outgoing) = mpsc::channel::<Vec<u8>>(64);
            let writer = tokio::spawn(write_frames(write, outgoing));
            self.output = Output::Queued { frames, writer };
        }
        match proof {
            Proof::Host { id, answer } => self.answer(id, Ok(answer)).await,
            Proof::Sidecar(request) => self.dispatch(request).await,
        }
        Ok(place)
    }

    async fn until_proved(&mut self) -> Result<Proof, End> {
        loop {
            let Some(request) = self.next_request(PENDING_LINE, None).await? else { continue };
            match request.method.as_str() {
                "host.authenticate" => {
                    match self.server.call(&mut self.role, &request.method, request.params).await {
                        Ok(answer) => return Ok(Proof::Host { id: request.id, answer }),
                        Err(fault) => self.answer(request.id, Err(fault)).await,
                    }
                }
                "project.instructions.resolve" if self.server.proves_sidecar(&request.params) => {
                    return Ok(Proof::Sidecar(request));
                }
                // Refused before any work: not the host's, no valid session.
                _ => {
                    let outcome = self.server.call(&mut self.role, &request.method, request.params).await;
                    self.answer(request.id, outcome).await;
                }
            }
        }
    }

    /// The authenticated phase, until the connection ends.
    async fn serve(&mut self) -> End {
        loop {
            match self.next_request(MAX_LINE, Some(LINE_TIMEOUT)).await {
                Ok(Some(request)) => self.dispatch(request).await,
                Ok(None) => {}
                Err(end) => return end,
            }
        }
    }

    /// The next request; `None` for a line that was answered already (bad
    /// JSON, too long) or blank.
    async fn next_request(
        &mut self,
        cap: usize,
        line_timeout: Option<Duration>,
    ) -> Result<Option<Request>, End> {
        let read = match line_timeout {
            Some(limit) => wire::next_line_within(&mut self.input, &mut self.line, cap, limit).await,
            None => wire::next_line(&mut self.input, &mut self.line, cap).await,
        };
        match read {
            Ok(Line::Complete) => match wire::parse(&self.line) {
                Ok(request) => Ok(request),
                Err((id, fault)) => {
                    self.send(wire::error(&id, &fault)).await;
                    Ok(None)
                }
            },
            Ok(Line::Oversized) => {
                let fault = Fault::new(
                    wire::INVALID_REQUEST,
                    "line-too-long",
                    format!("Invalid Request: the message is longer than {cap} bytes; it was dropped unread"),
                );
                self.send(wire::error(&Value::Null, &fault)).await;
                Ok(None)
            }
            Ok(Line::Eof) => Err(End::Closed),
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => Err(End::SlowLine),
            Err(e) => {
                tracing::debug!("serve: connection read failed: {e}");
                Err(End::Closed)
            }
        }
    }

    /// Carries out one request: a resolution concurrently, anything else
    /// before the next line is read.
    async fn dispatch(&mut self, request: Request) {
        if request.method == "project.instructions.resolve" {
            let permit = self
                .in_flight
                .clone()
                .acquire_owned()
                .await
                .expect("the in-flight semaphore is never closed");
            let Output::Queued { frames, .. } = &self.output else {
                unreachable!("a connection is authenticated before it dispatches a resolution")
            };
            let (server, frames) = (self.server.clone(), frames.clone());
            tokio::spawn(async move {
                let mut sidecar = Role::default();
                let outcome = server.call(&mut sidecar, &request.method, request.params).await;
                if let Some(frame) = frame(request.id, outcome) {
                    let _ = frames.send(frame).await;
                }
                drop(permit);
            });
        } else {
            let outcome = self.server.call(&mut self.role, &request.method, request.params).await;
            self.answer(request.id, outcome).await;
        }
    }

    async fn answer(&mut self, id: Option<Value>, outcome: Result<Value, Fault>) {
        if let Some(frame) = frame(id, outcome) {
            self.send(frame).await;
        }
    }

    /// A failed write means the peer stopped reading for good; the next
    /// read ends the connection.
    async fn send(&mut self, frame: Vec<u8>) {
        match &mut self.output {
            Output::Direct(write) => {
                let _ = write.write_all(&frame).await;
            }
            Output::Queued { frames, .. } => {
                let _ = frames.send(frame).await;
            }
            Output::Gone => {}
        }
    }
}

/// The answer's line; none for a notification.
fn frame(id: Option<Value>, outcome: Result<Value, Fault>) -> Option<Vec<u8>> {
    id.map(|id| match outcome {
        Ok(result) => wire::result(&id, result),
        Err(fault) => wire::error(&id, &fault),
    })
}
