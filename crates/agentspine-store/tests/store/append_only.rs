//! The audit log and the binding events refuse UPDATE and DELETE, even
//! from a raw connection to the file.

use agentspine_store::{AuditEvent, BindingKind};

use crate::support::StateDir;

fn refused(conn: &rusqlite::Connection, sql: &str, message: &str) {
    let err = conn.execute(sql, []).expect_err(sql);
    assert!(err.to_string().contains(message), "{sql}: {err}");
}

#[test]
fn audit_refuses_update_and_delete() {
    let state = StateDir::new();
    let store = state.open();
    let event = AuditEvent {
        host: "claude".into(),
        event: "scan-error".into(),
        phase: "discovery".into(),
        code: "permission-denied".into(),
        path: Some("secret/dir".into()),
        detail: Some("EACCES".into()),
    };
    let row = store.audit_append(&event).unwrap();
    let raw = state.raw();
    refused(&raw, "UPDATE audit SET code = 'ok'", "audit is append-only");
    refused(&raw, "DELETE FROM audit", "audit is append-only");
    refused(&raw, &format!("DELETE FROM audit WHERE id = {}", row.id), "audit is append-only");
    // Inserting stays possible, and the row is untouched.
    let rows = store.audit_list(None, None).unwrap();
    assert_eq!(rows, [row]);
    assert_eq!(rows[0].code, "permission-denied");
    assert_eq!(rows[0].path.as_deref(), Some("secret/dir"));
}

#[test]
fn binding_events_refuse_update_and_delete() {
    let state = StateDir::new();
    let store = state.open();
    store.binding_append(BindingKind::Bind, "b1", &serde_json::json!({"source": "x"})).unwrap();
    let raw = state.raw();
    refused(&raw, "UPDATE binding_events SET payload = '{}'", "binding_events is append-only");
    refused(&raw, "DELETE FROM binding_events", "binding_events is append-only");
    // The kind is checked too.
    refused(
        &raw,
        "INSERT INTO binding_events (seq, kind, binding_id, payload, prev_sha256, sha256, created_at)
         VALUES (9, 'steal', 'b1', '{}', '', '', 0)",
        "CHECK constraint failed",
    );
    assert_eq!(store.binding_events().unwrap().len(), 1);
    store.binding_verify().unwrap();
}

#[test]
fn audit_list_filters_by_time_and_host_in_append_order() {
    let state = StateDir::new();
    let store = state.open();
    let event = |host: &str, code: &str| AuditEvent {
        host: host.into(),
        event: "scan-error".into(),
        phase: "read".into(),
        code: code.into(),
        path: None,
        detail: None,
    };
    let a = store.audit_append(&event("claude", "a")).unwrap();
    let b = store.audit_append(&event("codex", "b")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(5));
    let c = store.audit_append(&event("claude", "c")).unwrap();
    assert!(a.id < b.id && b.id < c.id);
    assert_eq!(store.audit_list(None, None).unwrap(), [a.clone(), b.clone(), c.clone()]);
    assert_eq!(store.audit_list(None, Some("claude")).unwrap(), [a.clone(), c.clone()]);
    assert_eq!(store.audit_list(Some(c.at_ms), None).unwrap(), std::slice::from_ref(&c));
    assert_eq!(store.audit_list(Some(c.at_ms), Some("codex")).unwrap(), []);
    assert!(a.at_ms > 1_600_000_000_000, "milliseconds since the epoch");
}

#[test]
fn the_same_event_is_appended_once_per_window() {
    let store = StateDir::new().open();
    let event = |path: Option<&str>, detail: Option<&str>| AuditEvent {
        host: "claude".into(),
        event: "PreToolUse".into(),
        phase: "chain".into(),
        code: "symlink".into(),
        path: path.map(Into::into),
        detail: detail.map(Into::into),
    };
    let hour = 60 * 60 * 1000;
    let first = store.audit_append_once(&event(Some("a/CLAUDE.md"), None), hour).unwrap().unwrap();
    assert_eq!(store.audit_append_once(&event(Some("a/CLAUDE.md"), None), hour).unwrap(), None);
    // Any field that differs is another event, a missing path included.
    let other_path = store.audit_append_once(&event(Some("b/CLAUDE.md"), None), hour).unwrap().unwrap();
    let no_path = store.audit_append_once(&event(None, None), hour).unwrap().unwrap();
    let detail = store.audit_append_once(&event(Some("a/CLAUDE.md"), Some("why")), hour).unwrap().unwrap();
    assert_eq!(store.audit_list(None, None).unwrap(), [first, other_path, no_path, detail]);
    // Past the window, the same event is recorded again.
    std::thread::sleep(std::time::Duration::from_millis(5));
    assert!(store.audit_append_once(&event(Some("a/CLAUDE.md"), None), 1).unwrap().is_some());
    assert_eq!(store.audit_list(None, None).unwrap().len(), 5);
}
