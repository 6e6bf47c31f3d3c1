//! The binding events' hash chain.

use agentspine_store::{BindingError, BindingKind, GENESIS_SHA256};
use serde_json::json;

use crate::support::StateDir;

fn three(state: &StateDir) {
    let store = state.open();
    let a = store.binding_append(BindingKind::Bind, "b1", &json!({"target": "alice", "n": 1})).unwrap();
    let b = store.binding_append(BindingKind::Rollback, "b1", &json!({"reason": "oops"})).unwrap();
    let c = store.binding_append(BindingKind::Purge, "b2", &json!([1, 2, 3])).unwrap();
    assert_eq!((a.seq, b.seq, c.seq), (1, 2, 3));
    assert_eq!(a.prev_sha256, GENESIS_SHA256);
    assert_eq!(b.prev_sha256, a.sha256);
    assert_eq!(c.prev_sha256, b.sha256);
    assert_eq!(store.binding_events().unwrap(), [a, b, c]);
    store.binding_verify().unwrap();
}

/// A raw connection with the append-only triggers dropped, as someone
/// editing the file by hand would have.
fn tamper(state: &StateDir, sql: &str) {
    let raw = state.raw();
    raw.execute_batch(
        "DROP TRIGGER IF EXISTS binding_events_no_update; DROP TRIGGER IF EXISTS binding_events_no_delete;",
    )
    .unwrap();
    assert_eq!(raw.execute(sql, []).unwrap(), 1, "{sql}");
}

fn first_bad(state: &StateDir) -> (i64, String) {
    let err = state.open().binding_verify().unwrap_err();
    let bad = err.first_bad_row().unwrap_or_else(|| panic!("expected a broken chain, got {err}"));
    assert!(matches!(err, BindingError::Broken(_)));
    (bad.seq, bad.reason.clone())
}

#[test]
fn an_empty_chain_verifies() {
    StateDir::new().open().binding_verify().unwrap();
}

#[test]
fn an_altered_payload_is_named_by_its_seq() {
    let state = StateDir::new();
    three(&state);
    tamper(&state, r#"UPDATE binding_events SET payload = '{"reason":"fine"}' WHERE seq = 2"#);
    let (seq, reason) = first_bad(&state);
    assert_eq!(seq, 2);
    assert!(reason.contains("altered"), "{reason}");
}

/// The documented hash of one event (module docs of `bindings`).
fn documented_sha256(
    prev: &str,
    seq: i64,
    kind: &str,
    binding_id: &str,
    payload: &str,
    created_at: i64,
) -> String {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    hasher.update(prev.as_bytes());
    for field in [seq.to_string().as_str(), kind, binding_id, payload, created_at.to_string().as_str()] {
        hasher.update((field.len() as u64).to_be_bytes());
        hasher.update(field.as_bytes());
    }
    hex::encode(hasher.finalize())
}

#[test]
fn the_stored_hashes_follow_the_documented_formula() {
    let state = StateDir::new();
    three(&state);
    for event in state.open().binding_events().unwrap() {
        let payload = event.payload.to_string();
        let kind = serde_json::to_value(event.kind).unwrap();
        let expected = documented_sha256(
            &event.prev_sha256,
            event.seq,
            kind.as_str().unwrap(),
            &event.binding_id,
            &payload,
            event.created_at,
        );
        assert_eq!(event.sha256, expected, "seq {}", event.seq);
    }
}

#[test]
fn a_rehashed_row_breaks_the_link_of_the_next_one() {
    let state = StateDir::new();
    three(&state);
    // Someone who knows the formula alters row 2 and gives it a correct
    // hash of its new contents: row 2 is self-consistent, but row 3 still
    // points at the old hash.
    let row2 = state.open().binding_events().unwrap().remove(1);
    let forged = documented_sha256(
        &row2.prev_sha256,
        2,
        "rollback",
        "evil",
        &row2.payload.to_string(),
        row2.created_at,
    );
    tamper(
        &state,
        &format!("UPDATE binding_events SET binding_id = 'evil', sha256 = '{forged}' WHERE seq = 2"),
    );
    let (seq, reason) = first_bad(&state);
    assert_eq!(seq, 3);
    assert!(reason.contains("prev_sha256"), "{reason}");
}

#[test]
fn an_altered_first_row_is_found_first() {
    let state = StateDir::new();
    three(&state);
    tamper(&state, &format!("UPDATE binding_events SET sha256 = '{}' WHERE seq = 1", "f".repeat(64)));
    let (seq, reason) = first_bad(&state);
    assert_eq!(seq, 1);
    assert!(reason.contains("altered"), "{reason}");
}

#[test]
fn a_deleted_row_is_found_at_the_gap() {
    let state = StateDir::new();
    three(&state);
    tamper(&state, "DELETE FROM binding_events WHERE seq = 2");
    let (seq, reason) = first_bad(&state);
    assert_eq!(seq, 3);
    assert!(reason.contains("missing"), "{reason}");
}

#[test]
fn a_deleted_last_row_leaves_a_valid_shorter_chain_and_appends_continue() {
    // The chain proves order and contents, not length: truncation at the
    // end is undetectable by design (the audit log records bindings too).
    let state = StateDir::new();
    three(&state);
    tamper(&state, "DELETE FROM binding_events WHERE seq = 3");
    let store = state.open();
    store.binding_verify().unwrap();
    let next = store.binding_append(BindingKind::Bind, "b3", &json!({})).unwrap();
    assert_eq!(next.seq, 3);
    store.binding_verify().unwrap();
}

#[test]
fn an_empty_binding_id_is_refused() {
    let store = StateDir::new().open();
    assert!(matches!(store.binding_append(BindingKind::Bind, "", &json!({})), Err(BindingError::EmptyId)));
    assert!(store.binding_events().unwrap().is_empty());
}
