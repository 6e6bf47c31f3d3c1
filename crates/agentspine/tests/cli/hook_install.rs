//! The first hook of a session tells the user (the top-level
//! `systemMessage`, never `additionalContext`) when the installed hook
//! file names an agentspine that is missing or another file than the one
//! running; later hooks of the session say nothing of it.

use serde_json::{Value, json};

use crate::support::Example;

const BIN: &str = env!("CARGO_BIN_EXE_agentspine");

fn install(ex: &Example, host: &str, program: &str) {
    let out = ex.run(".", &["install", host, "--command", program]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// The hook's output line for `event` (with `source` for SessionStart).
fn hook(ex: &Example, host: &str, event: &str, source: Option<&str>) -> Value {
    let mut payload = json!({
        "session_id": "s1",
        "transcript_path": null,
        "cwd": ex.tree,
        "hook_event_name": event,
        "prompt": "hello",
    });
    if let Some(source) = source {
        payload["source"] = json!(source);
    }
    let out = ex.run_stdin("../home", &["hook", host], payload.to_string().as_bytes(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    if out.stdout.is_empty() { json!({}) } else { serde_json::from_slice(&out.stdout).unwrap() }
}

fn message(ex: &Example, value: &Value) -> Option<String> {
    value.get("systemMessage").and_then(Value::as_str).map(|m| ex.filter(&m.replace(BIN, "[BIN]")))
}

#[test]
fn an_install_naming_this_binary_adds_no_message() {
    let ex = Example::new();
    install(&ex, "claude", BIN);
    assert_eq!(message(&ex, &hook(&ex, "claude", "SessionStart", Some("startup"))), None);
}

#[test]
fn a_missing_binary_is_named_at_the_start_of_a_session_only() {
    let ex = Example::new();
    install(&ex, "claude", "/gone/agentspine");
    let start = hook(&ex, "claude", "SessionStart", Some("startup"));
    assert_eq!(
        message(&ex, &start).as_deref(),
        Some(
            "agentspine: [HOME]/.claude/settings.json names `/gone/agentspine` does not exist; those entries fail \
             or answer with another build. Run `agentspine install claude` with the agentspine you keep, and \
             `agentspine doctor --host claude` for the details"
        )
    );
    let context = start["hookSpecificOutput"]["additionalContext"].as_str().unwrap_or_default();
    assert!(!context.contains("/gone/agentspine"), "never model context: {context}");
    assert_eq!(message(&ex, &hook(&ex, "claude", "UserPromptSubmit", None)), None);
    assert_eq!(message(&ex, &hook(&ex, "claude", "SessionStart", Some("compact"))), None);
    assert!(message(&ex, &hook(&ex, "claude", "SessionStart", Some("resume"))).is_some());
}

#[test]
fn another_copy_of_agentspine_is_named_for_codex_too() {
    let ex = Example::new();
    let copy = ex.home.join("bin/agentspine");
    std::fs::create_dir_all(copy.parent().unwrap()).unwrap();
    std::fs::copy(BIN, &copy).unwrap();
    install(&ex, "codex", &copy.display().to_string());
    let start = hook(&ex, "codex", "SessionStart", Some("startup"));
    assert_eq!(
        message(&ex, &start).as_deref(),
        Some(
            "agentspine: [HOME]/.codex/hooks.json names `[HOME]/bin/agentspine` is another binary than this one \
             ([BIN]); those entries fail or answer with another build. Run `agentspine install codex` with the \
             agentspine you keep, and `agentspine doctor --host codex` for the details"
        )
    );
    // The bare PATH name is PATH's business (doctor looks it up).
    install(&ex, "codex", "agentspine");
    assert_eq!(message(&ex, &hook(&ex, "codex", "SessionStart", Some("startup"))), None);
}
