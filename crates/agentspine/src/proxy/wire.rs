//! The wire format: JSON-RPC 2.0, one message per line, each line at most
//! [`MAX_LINE`] bytes.
//!
//! Lines are read by [`crate::lines`] and never grow past the cap; a longer
//! line is answered with `-32600` (id `null`: its id was never read). A
//! line that is not JSON is answered with `-32700`; a request without a
//! string `method` with `-32600`. Batches are not supported. A notification
//! (no `id`) is carried out but never answered.

use serde_json::Value;

/// The longest message line accepted, newline excluded: 1 MiB.
pub const MAX_LINE: usize = 1024 * 1024;

/// JSON-RPC's own error codes.
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;

pub use crate::lines::{Line, next_line, next_line_within};

/// A request as read off the wire.
#[derive(Debug)]
pub struct Request {
    /// `None` for a notification.
    pub id: Option<Value>,
    pub method: String,
    /// `null` when absent.
    pub params: Value,
}

/// An error answer: a JSON-RPC code, a stable `reason` word for programs
/// (`data.reason`) and a message for people that names the cause.
#[derive(Debug, Clone, PartialEq)]
pub struct Fault {
    pub code: i64,
    pub reason: &'static str,
    pub message: String,
}

impl Fault {
    pub fn new(code: i64, reason: &'static str, message: impl Into<String>) -> Fault {
        Fault { code, reason, message: message.into() }
    }

    pub fn params(message: impl Into<String>) -> Fault {
        Fault::new(INVALID_PARAMS, "invalid-params", message)
    }
}

/// Parses one line. `Err` carries the id to answer under (`null` when it
/// could not be read) and the fault.
pub fn parse(line: &[u8]) -> Result<Option<Request>, (Value, Fault)> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let value: Value = serde_json::from_slice(line)
        .map_err(|e| (Value::Null, Fault::new(PARSE_ERROR, "parse-error", format!("Parse error: {e}"))))?;
    let Value::Object(mut object) = value else {
        let message = "Invalid Request: a message must be one JSON object (batches are not supported)";
        return Err((Value::Null, Fault::new(INVALID_REQUEST, "invalid-request", message)));
    };
    let id = object.remove("id");
    let answer_id = match &id {
        Some(v @ (Value::String(_) | Value::Number(_))) => v.clone(),
        _ => Value::Null,
    };
    let invalid =
        |message: &str| (answer_id.clone(), Fault::new(INVALID_REQUEST, "invalid-request", message));
    if object.get("jsonrpc") != Some(&Value::from("2.0")) {
        return Err(invalid("Invalid Request: \"jsonrpc\" must be \"2.0\""));
    }
    if matches!(id, Some(ref v) if !(v.is_string() || v.is_number() || v.is_null())) {
        return Err(invalid("Invalid Request: \"id\" must be a string, a number or null"));
    }
    let Some(Value::String(method)) = object.remove("method") else {
        return Err(invalid("Invalid Request: \"method\" must be a string"));
    };
    let params = object.remove("params").unwrap_or(Value::Null);
    if !(params.is_object() || params.is_null()) {
        return Err((answer_id, Fault::params("Invalid params: \"params\" must be an object (by name)")));
    }
    Ok(Some(Request { id, method, params }))
}

/// A success frame.
pub fn result(id: &Value, result: Value) -> Vec<u8> {
    frame(serde_json::json!({ "jsonrpc": "2.0", "id": id, "result": result }))
}

/// An error frame.
pub fn error(id: &Value, fault: &Fault) -> Vec<u8> {
    frame(serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": fault.code, "message": fault.message, "data": { "reason": fault.reason } },
    }))
}

fn frame(value: Value) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(&value).expect("a JSON value always serializes");
    bytes.push(b'\n');
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_checked_before_dispatch() {
        assert!(matches!(parse(b"  "), Ok(None)));
        assert_eq!(parse(b"{").unwrap_err().1.code, PARSE_ERROR);
        assert_eq!(parse(b"[]").unwrap_err().1.code, INVALID_REQUEST);
        let (id, fault) = parse(br#"{"jsonrpc":"2.0","id":7,"method":1}"#).unwrap_err();
        assert_eq!((id, fault.code), (Value::from(7), INVALID_REQUEST));
        let (_, fault) = parse(br#"{"jsonrpc":"2.0","id":7,"method":"m","params":[1]}"#).unwrap_err();
        assert_eq!(fault.code, INVALID_PARAMS);
        let request = parse(br#"{"jsonrpc":"2.0","method":"m"}"#).unwrap().unwrap();
        assert_eq!((request.id, request.method.as_str(), request.params), (None, "m", Value::Null));
    }
}
