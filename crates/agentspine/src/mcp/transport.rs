//! The stdio framing of the MCP server: one JSON-RPC message per line, each
//! line at most [`MAX_LINE`] bytes.
//!
//! Why not rmcp's own stdio transport: it caps a line (16 MiB by default,
//! settable) but drops an oversized line and invalid JSON silently, so a
//! client that sent either waits forever for an answer. This transport
//! reads stdin itself, before rmcp sees a byte:
//!
//! - a line is collected through `fill_buf`/`consume` and never grows past
//!   [`MAX_LINE`]; the rest of a longer line is consumed and thrown away as
//!   it arrives, so memory stays bounded whatever the client sends. Once its
//!   newline is seen the line is answered with `-32600 Invalid Request`
//!   (id `null`: its id was never read); one cut short by end of input is
//!   dropped;
//! - a line that is not JSON is answered with `-32700 Parse error`, id
//!   `null`; well-formed JSON that is not an MCP message is answered with
//!   `-32600` (or `-32602` for a known method with bad params) under its own
//!   id; a notification (no id) is never answered;
//! - everything else goes to rmcp through a bounded channel.
//!
//! stdout is written only here, one whole frame at a time under one lock,
//! so error frames and rmcp's responses never interleave.

use std::io;
use std::sync::Arc;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, ClientRequest, InitializeRequestParams, JsonRpcMessage, PaginatedRequestParams,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

use crate::lines::{Line, next_line};
use tokio::sync::{Mutex, mpsc};
use tokio::task::JoinHandle;

/// The longest message line accepted, newline excluded: 1 MiB.
pub const MAX_LINE: usize = 1024 * 1024;

/// Messages read ahead of rmcp, at most (back-pressure beyond that).
const QUEUE: usize = 16;

/// JSON-RPC error codes this layer answers with.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const INVALID_PARAMS: i64 = -32602;

/// The one writer of protocol frames.
struct Output<W> {
    writer: Mutex<Option<W>>,
}

impl<W: AsyncWrite + Unpin + Send> Output<W> {
    /// Writes one frame (a line) and flushes it.
    async fn frame(&self, mut line: Vec<u8>) -> io::Result<()> {
        line.push(b'\n');
        let mut guard = self.writer.lock().await;
        let writer = guard.as_mut().ok_or_else(|| io::Error::new(io::ErrorKind::NotConnected, "closed"))?;
        writer.write_all(&line).await?;
        writer.flush().await
    }

    /// Answers a line rmcp never sees.
    async fn error(&self, id: Value, code: i64, message: String) {
        let frame = serde_json::json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": { "code": code, "message": message },
        });
        let bytes = serde_json::to_vec(&frame).expect("a JSON value always serializes");
        if let Err(e) = self.frame(bytes).await {
            tracing::warn!("mcp: cannot write an error frame: {e}");
        }
    }
}

/// JSON lines over a reader and a writer (stdin and stdout in production).
pub struct LineTransport<W> {
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleServer>>,
    output: Arc<Output<W>>,
    reader: JoinHandle<()>,
}

impl<W: AsyncWrite + Unpin + Send + 'static> LineTransport<W> {
    /// Starts reading `input` on a task of the current runtime.
    pub fn new<R: AsyncRead + Unpin + Send + 'static>(input: R, output: W) -> Self {
        let output = Arc::new(Output { writer: Mutex::new(Some(output)) });
        let (sender, incoming) = mpsc::channel(QUEUE);
        let reader = tokio::spawn(read_messages(input, output.clone(), sender));
        LineTransport { incoming, output, reader }
    }
}

impl<W> Drop for LineTransport<W> {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

impl<W: AsyncWrite + Unpin + Send + 'static> Transport<RoleServer> for LineTransport<W> {
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let output = self.output.clone();
        let bytes = serde_json::to_vec(&item).map_err(io::Error::from);
        async move { output.frame(bytes?).await }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        // Cancel-safe: rmcp polls this inside `select!`.
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.incoming.close();
        let mut guard = self.output.writer.lock().await;
        if let Some(mut writer) = guard.take() {
            writer.flush().await?;
        }
        Ok(())
    }
}

/// Reads messages until end of input (or until rmcp stops listening).
async fn read_messages<R, W>(
    input: R,
    output: Arc<Output<W>>,
    sender: mpsc::Sender<RxJsonRpcMessage<RoleServer>>,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin + Send,
{
    let mut input = BufReader::with_capacity(64 * 1024, input);
    let mut line = Vec::new();
    loop {
        match next_line(&mut input, &mut line, MAX_LINE).await {
            Ok(Line::Complete) => {
                if let Some(message) = decode(&line, &output).await
                    && sender.send(message).await.is_err()
                {
                    break;
                }
            }
            Ok(Line::Oversized) => {
                tracing::warn!("mcp: dropped a message line over {MAX_LINE} bytes");
                let message = format!(
                    "Invalid Request: the message is longer than {MAX_LINE} bytes; it was dropped unread"
                );
                output.error(Value::Null, INVALID_REQUEST, message).await;
            }
            Ok(Line::Eof) => break,
            Err(e) => {
                tracing::warn!("mcp: cannot read stdin: {e}");
                break;
            }
        }
    }
    tracing::debug!("mcp: end of input");
}

/// The message on one line, or `None` after answering (or ignoring) a line
/// that is not one.
async fn decode<W: AsyncWrite + Unpin + Send>(
    line: &[u8],
    output: &Output<W>,
) -> Option<RxJsonRpcMessage<RoleServer>> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let error = match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(message) => match misparsed(&message) {
            None => return Some(message),
            Some((id, method, detail)) => {
                output.error(id, INVALID_PARAMS, format!("Invalid params for {method}: {detail}")).await;
                return None;
            }
        },
        Err(e) => e,
    };
    let value = match serde_json::from_slice::<Value>(line) {
        Ok(value) => value,
        Err(e) => {
            output.error(Value::Null, PARSE_ERROR, format!("Parse error: {e}")).await;
            return None;
        }
    };
    let Some(object) = value.as_object() else {
        let message = "Invalid Request: a message must be one JSON object (batches are not supported)";
        output.error(Value::Null, INVALID_REQUEST, message.to_owned()).await;
        return None;
    };
    let method = object.get("method").and_then(Value::as_str);
    match (object.get("id"), method) {
        // A notification is never answered, even a malformed one.
        (None, _) => {
            tracing::debug!("mcp: ignored a malformed notification: {error}");
            None
        }
        // A response to a request this server never sent.
        (Some(_), None) if object.contains_key("result") || object.contains_key("error") => {
            tracing::debug!("mcp: ignored a malformed response: {error}");
            None
        }
        (Some(id), method) => {
            let id = if id.is_string() || id.is_number() { id.clone() } else { Value::Null };
            let (code, what) = match method {
                Some(_) if object.get("jsonrpc") == Some(&Value::from("2.0")) => {
                    (INVALID_PARAMS, "Invalid params")
                }
                _ => (INVALID_REQUEST, "Invalid Request"),
            };
            output.error(id, code, format!("{what}: {error}")).await;
            None
        }
    }
}

/// A request for a method this server serves (`initialize`, `tools/list`,
/// `tools/call`) whose params do not match that method's schema: its id,
/// method and what is wrong. rmcp parses such a request as a custom method
/// and would answer `-32601 Method not found`, which misleads the client.
fn misparsed(message: &RxJsonRpcMessage<RoleServer>) -> Option<(Value, String, String)> {
    let JsonRpcMessage::Request(request) = message else { return None };
    let ClientRequest::CustomRequest(custom) = &request.request else { return None };
    let params = custom.params.clone().unwrap_or(Value::Null);
    let error = match custom.method.as_str() {
        "initialize" => serde_json::from_value::<InitializeRequestParams>(params).err(),
        "tools/call" => serde_json::from_value::<CallToolRequestParams>(params).err(),
        "tools/list" => serde_json::from_value::<Option<PaginatedRequestParams>>(params).err(),
        _ => return None,
    };
    let detail = error.map_or_else(|| "they do not match the MCP schema".to_owned(), |e| e.to_string());
    let id = serde_json::to_value(&request.id).unwrap_or(Value::Null);
    Some((id, custom.method.clone(), detail))
}
