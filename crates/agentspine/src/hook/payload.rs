//! The host's hook payload: one JSON object on stdin, read to at most
//! [`MAX_PAYLOAD`] bytes. Anything else is refused before a path in it is
//! looked at.

use std::io::Read;
use std::path::PathBuf;

use agentspine_core::Host;
use serde::Deserialize;
use serde_json::Value;

/// The largest payload read (1 MiB); one byte more makes it oversized.
pub const MAX_PAYLOAD: u64 = 1024 * 1024;

/// The fields agentspine uses; hosts send more, which are ignored.
/// GitHub Copilot CLI's camelCase events spell them `sessionId`,
/// `toolName`, `toolArgs` and name no event: its profile tells which
/// (`Hooks::unnamed_event`).
#[derive(Debug, Clone, Deserialize)]
pub struct Payload {
    /// The host's session id: the key of what was already sent.
    #[serde(alias = "sessionId")]
    pub session_id: String,
    /// The host's working directory (absolute).
    pub cwd: PathBuf,
    /// `SessionStart`, `UserPromptSubmit`, `PreToolUse`, `SessionEnd`, ...
    pub hook_event_name: String,
    /// Claude Code: the session transcript (evidence for the memory
    /// directory). Codex may send `null`.
    #[serde(default)]
    pub transcript_path: Option<PathBuf>,
    /// `SessionStart`: `startup`, `resume`, `clear` or `compact`.
    #[serde(default)]
    pub source: Option<String>,
    /// `UserPromptSubmit`: the prompt (Kimi Code sends a list of content
    /// parts: their texts, joined by line breaks).
    #[serde(default, deserialize_with = "prompt_text")]
    pub prompt: Option<String>,
    /// Tool events: the tool's name.
    #[serde(default, alias = "toolName")]
    pub tool_name: Option<String>,
    /// Tool events: the tool's arguments (Copilot's `toolArgs`: an object,
    /// or the same as a JSON string).
    #[serde(default, alias = "toolArgs", deserialize_with = "tool_args")]
    pub tool_input: Option<Value>,
}

/// Why a payload was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PayloadError {
    /// More than [`MAX_PAYLOAD`] bytes.
    #[error("the payload is over {MAX_PAYLOAD} bytes")]
    Oversized,
    /// Not a JSON object with the fields every event carries.
    #[error("the payload is malformed: {reason}")]
    Malformed {
        /// The event, when the payload names one plausibly.
        event: Option<String>,
        /// What is wrong.
        reason: String,
    },
}

impl PayloadError {
    /// The audit code.
    pub fn code(&self) -> &'static str {
        match self {
            PayloadError::Oversized => "oversized",
            PayloadError::Malformed { .. } => "malformed",
        }
    }

    /// The event for the audit row, when known.
    pub fn event(&self) -> Option<&str> {
        match self {
            PayloadError::Oversized => None,
            PayloadError::Malformed { event, .. } => event.as_deref(),
        }
    }
}

/// Reads at most [`MAX_PAYLOAD`] + 1 bytes from `input` and parses them
/// as `host` sends them.
pub fn read(input: impl Read, host: Host) -> Result<Payload, PayloadError> {
    let mut bytes = Vec::new();
    input
        .take(MAX_PAYLOAD + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| PayloadError::Malformed { event: None, reason: format!("stdin: {e}") })?;
    if bytes.len() as u64 > MAX_PAYLOAD {
        return Err(PayloadError::Oversized);
    }
    parse(&bytes, host)
}

/// Parses one payload as `host` sends it: a payload that names no event
/// gets the one `host`'s profile tells by its fields, if any.
pub fn parse(bytes: &[u8], host: Host) -> Result<Payload, PayloadError> {
    let mut value: Value = serde_json::from_slice(bytes)
        .map_err(|e| PayloadError::Malformed { event: None, reason: format!("not JSON: {e}") })?;
    let unnamed_event = host.profile().hooks.as_ref().and_then(|hooks| hooks.unnamed_event);
    if let Some(object) = value.as_object_mut()
        && !object.contains_key("hook_event_name")
        && let Some(event) = unnamed_event.and_then(|event_of| event_of(&|field| object.contains_key(field)))
    {
        object.insert("hook_event_name".to_owned(), Value::from(event));
    }
    let event = value.get("hook_event_name").and_then(Value::as_str).filter(|e| plausible_event(e));
    let event = event.map(str::to_owned);
    let malformed = |reason: String| PayloadError::Malformed { event: event.clone(), reason };
    if !value.is_object() {
        return Err(malformed("not a JSON object".to_owned()));
    }
    let payload: Payload = serde_json::from_value(value).map_err(|e| malformed(e.to_string()))?;
    if payload.session_id.is_empty() {
        return Err(malformed("session_id is empty".to_owned()));
    }
    if !payload.cwd.is_absolute() {
        return Err(malformed("cwd is not an absolute path".to_owned()));
    }
    if !plausible_event(&payload.hook_event_name) {
        return Err(malformed("hook_event_name is not an event name".to_owned()));
    }
    Ok(payload)
}

/// An event name as hosts spell them (`PreToolUse`): short, letters only.
/// Anything else is not written to the audit log as an event.
fn plausible_event(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphabetic())
}

/// A tool's arguments as an object, or as a JSON string holding one.
fn tool_args<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Option<Value>, D::Error> {
    Ok(match Option::<Value>::deserialize(de)? {
        Some(Value::String(text)) => Some(serde_json::from_str(&text).unwrap_or(Value::String(text))),
        other => other,
    })
}

/// A prompt given as a string, or as a list of content parts
/// (`[{"type": "text", "text": …}]`): the texts of its text parts.
fn prompt_text<'de, D: serde::Deserializer<'de>>(de: D) -> Result<Option<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Prompt {
        Text(String),
        Parts(Vec<Value>),
    }
    Ok(match Option::<Prompt>::deserialize(de)? {
        None => None,
        Some(Prompt::Text(text)) => Some(text),
        Some(Prompt::Parts(parts)) => Some(
            parts
                .iter()
                .filter(|p| p.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_shaped_payload_parses_and_extra_fields_are_ignored() {
        let parse = |bytes: &[u8]| parse(bytes, Host::Claude);
        let p = parse(
            br#"{"session_id":"s1","transcript_path":null,"cwd":"/w","hook_event_name":"PreToolUse",
                "model":"m","permission_mode":"default","tool_name":"Edit","tool_input":{"file_path":"/w/a"},
                "tool_use_id":"t"}"#,
        )
        .unwrap();
        assert_eq!(p.hook_event_name, "PreToolUse");
        assert_eq!(p.transcript_path, None);
        assert_eq!(p.tool_input.unwrap()["file_path"], "/w/a");
    }

    #[test]
    fn refusals_name_the_event_when_they_can() {
        let parse = |bytes: &[u8]| parse(bytes, Host::Claude);
        let missing_cwd = parse(br#"{"session_id":"s","hook_event_name":"SessionStart"}"#).unwrap_err();
        assert_eq!(missing_cwd.event(), Some("SessionStart"));
        assert_eq!(missing_cwd.code(), "malformed");
        let relative = parse(br#"{"session_id":"s","cwd":"w","hook_event_name":"Stop"}"#).unwrap_err();
        assert_eq!(relative.event(), Some("Stop"));
        let odd_event = parse(br#"{"session_id":"s","cwd":"/w","hook_event_name":"a b\n"}"#).unwrap_err();
        assert_eq!(odd_event.event(), None);
        assert_eq!(parse(b"[1]").unwrap_err().code(), "malformed");
        assert_eq!(parse(b"\xff").unwrap_err().code(), "malformed");
        assert_eq!(parse(b"").unwrap_err().code(), "malformed");
    }

    #[test]
    fn copilot_camel_case_payloads_map_to_their_events_and_fields() {
        let parse = |bytes: &[u8]| parse(bytes, Host::Copilot);
        let post = parse(
            br#"{"sessionId":"c1","timestamp":1,"cwd":"/w","toolName":"view","toolArgs":{"path":"/w/a.ts"},
                "toolResult":{"resultType":"success","textResultForLlm":"x"}}"#,
        )
        .unwrap();
        assert_eq!((post.session_id.as_str(), post.hook_event_name.as_str()), ("c1", "postToolUse"));
        assert_eq!(post.tool_name.as_deref(), Some("view"));
        assert_eq!(post.tool_input.unwrap()["path"], "/w/a.ts");
        let pre =
            parse(br#"{"sessionId":"c1","cwd":"/w","toolName":"bash","toolArgs":"{\"command\":\"ls\"}"}"#)
                .unwrap();
        assert_eq!(pre.hook_event_name, "preToolUse");
        assert_eq!(pre.tool_input.unwrap()["command"], "ls");
        let prompt = parse(br#"{"sessionId":"c1","cwd":"/w","prompt":"hi"}"#).unwrap();
        assert_eq!(prompt.hook_event_name, "userPromptSubmitted");
        let start = parse(br#"{"sessionId":"c1","cwd":"/w","source":"new","initialPrompt":"hi"}"#).unwrap();
        assert_eq!(start.hook_event_name, "sessionStart");
        let end = parse(br#"{"sessionId":"c1","cwd":"/w","reason":"complete"}"#).unwrap();
        assert_eq!(end.hook_event_name, "sessionEnd");
        assert_eq!(parse(br#"{"sessionId":"c1","cwd":"/w"}"#).unwrap_err().code(), "malformed");
    }

    #[test]
    fn only_a_host_whose_profile_tells_unnamed_events_gets_one() {
        let camel = br#"{"sessionId":"c1","cwd":"/w","prompt":"hi"}"#;
        assert_eq!(parse(camel, Host::Copilot).unwrap().hook_event_name, "userPromptSubmitted");
        for host in [Host::Claude, Host::Codex, Host::Kimi, Host::Opencode] {
            let refused = parse(camel, host).unwrap_err();
            assert_eq!((refused.code(), refused.event()), ("malformed", None), "{host:?}");
        }
    }

    #[test]
    fn one_byte_over_the_cap_is_oversized() {
        let exact = vec![b' '; MAX_PAYLOAD as usize];
        assert_eq!(read(&exact[..], Host::Claude).unwrap_err().code(), "malformed");
        let over = vec![b' '; MAX_PAYLOAD as usize + 1];
        assert_eq!(read(&over[..], Host::Claude).unwrap_err(), PayloadError::Oversized);
    }
}
