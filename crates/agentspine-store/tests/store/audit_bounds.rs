//! The audit log stays bounded: every field capped (with the whole value's
//! length and digest), repeats coalesced after capping, the oldest problem
//! rows pruned past the bound, kept rows never.

use std::path::Path;

use agentspine_store::{
    AUDIT_KEEP_ROWS, AUDIT_MAX_ROWS, AUDIT_NAME_CAP, AUDIT_TEXT_CAP, AuditEvent, AuditPrunes,
    PRUNE_CHECK_EVERY, RecordKind,
};
use sha2::{Digest, Sha256};

use crate::support::StateDir;

const HOUR: i64 = 60 * 60 * 1000;

fn hostile(path: &str) -> AuditEvent {
    AuditEvent {
        host: "claude".into(),
        event: "PreToolUse".into(),
        phase: "chain".into(),
        code: "invalid-path".into(),
        path: Some(path.to_owned()),
        detail: Some(format!("{path:?}: not a path agentspine resolves")),
    }
}

#[test]
fn every_field_is_cut_with_its_length_and_digest() {
    let store = StateDir::new().open();
    let path = format!("/repo/{}", "a".repeat(800_000));
    let event = AuditEvent { host: "h".repeat(1000), code: "é".repeat(100), ..hostile(&path) };
    let row = store.audit_append(&event).unwrap();
    assert_eq!(store.audit_list(None, None).unwrap(), std::slice::from_ref(&row), "returned as stored");
    let digest = hex::encode(Sha256::digest(path.as_bytes()));
    let stored = row.path.unwrap();
    assert_eq!(stored, format!("{}…[cut, 800006 bytes, sha256:{digest}]", &path[..AUDIT_TEXT_CAP]));
    let whole = event.detail.as_deref().unwrap();
    let detail = row.detail.unwrap();
    let digest = hex::encode(Sha256::digest(whole.as_bytes()));
    assert_eq!(detail, format!("{}…[cut, {} bytes, sha256:{digest}]", &whole[..AUDIT_TEXT_CAP], whole.len()));
    assert!(row.host.starts_with(&"h".repeat(AUDIT_NAME_CAP)) && row.host.len() < AUDIT_NAME_CAP + 110);
    // 'é' is two bytes: the cut falls on a character boundary.
    assert!(row.code.starts_with(&"é".repeat(AUDIT_NAME_CAP / 2)), "{}", row.code);
    assert_eq!(row.event, "PreToolUse", "short fields are untouched");
}

#[test]
fn repeats_are_coalesced_after_the_cut_and_paths_differing_past_it_are_not() {
    let store = StateDir::new().open();
    let long = "b".repeat(10_000);
    let first = store.audit_append_once(&hostile(&format!("/{long}/x")), HOUR).unwrap();
    assert!(first.is_some());
    assert_eq!(store.audit_append_once(&hostile(&format!("/{long}/x")), HOUR).unwrap(), None);
    // Same first 512 bytes, another digest: another row.
    assert!(store.audit_append_once(&hostile(&format!("/{long}/y")), HOUR).unwrap().is_some());
    assert_eq!(store.audit_list(None, None).unwrap().len(), 2);
}

#[test]
fn the_oldest_problem_rows_are_pruned_and_records_and_bindings_never() {
    let state = StateDir::new();
    let store = state.open();
    let root = store.root_digest(Path::new("/src/a"));
    for text in ["one", "two", "three"] {
        store.record_add(&root, RecordKind::Preference, text, None).unwrap();
    }
    // Ids 4 ..= 3 + n are problem rows.
    let n = AUDIT_MAX_ROWS as i64 + 2 * PRUNE_CHECK_EVERY;
    for i in 0..n {
        store.audit_append(&hostile(&format!("/repo/{i}"))).unwrap();
    }
    let rows = store.audit_list(None, None).unwrap();
    let kept: Vec<i64> = rows.iter().filter(|r| r.event == "record-add").map(|r| r.id).collect();
    assert_eq!(kept, [1, 2, 3], "record rows stay");
    // The first check past the bound is at id 2112 (2109 problem rows):
    // 2109 - 1536 = 573 go, ids 4 ..= 576; 67 rows follow, and the check
    // at 2176 finds 1600, under the bound.
    let problems: Vec<i64> = rows.iter().filter(|r| r.event == "PreToolUse").map(|r| r.id).collect();
    assert_eq!(problems.len(), 1536 + 67);
    assert_eq!(problems.first(), Some(&577));
    assert_eq!(problems.last(), Some(&(3 + n)));
    let prunes = store.audit_prunes().unwrap();
    assert_eq!(
        prunes,
        AuditPrunes { prunes: 1, rows: 573, through_id: Some(576), last_at_ms: prunes.last_at_ms }
    );
    assert!(prunes.last_at_ms.is_some());
    assert_eq!(AUDIT_KEEP_ROWS, 1536);

    // Nothing else can remove a row: not a problem row above the line,
    // not a kept row below it.
    let raw = state.raw();
    for id in [577, 2000, 1, 3] {
        let err = raw.execute("DELETE FROM audit WHERE id = ?1", [id]).unwrap_err();
        assert!(err.to_string().contains("audit is append-only"), "{id}: {err}");
    }
    let err = raw.execute("DELETE FROM audit_prunes", []).unwrap_err();
    assert!(err.to_string().contains("audit_prunes is append-only"), "{err}");
}

#[test]
fn rows_written_before_schema_3_are_cut_and_their_records_and_bindings_kept() {
    let state = StateDir::new();
    std::fs::create_dir(&state.dir).unwrap();
    let raw = state.raw();
    raw.execute_batch(agentspine_store::MIGRATIONS[0]).unwrap();
    raw.execute_batch(agentspine_store::MIGRATIONS[1]).unwrap();
    raw.pragma_update(None, "user_version", 2).unwrap();
    let huge = "z".repeat(2_000_000);
    raw.execute(
        "INSERT INTO audit (at_ms, host, event, phase, code, path, detail) VALUES
         (1, 'claude', 'PreToolUse', 'chain', 'invalid-path', ?1, ?1),
         (2, 'cli', 'record-add', 'record', 'preference', NULL, 'record 1 proposed'),
         (3, 'all', 'binding-bind', 'binding', 'bind', NULL, 'binding:x made'),
         (4, 'codex', 'continuity-read', 'binding', 'chain-broken', NULL, NULL)",
        [&huge],
    )
    .unwrap();
    drop(raw);
    let store = state.open();
    let rows = store.audit_list(None, None).unwrap();
    assert_eq!(rows.len(), 4);
    let cut = rows[0].path.as_deref().unwrap();
    assert_eq!(cut, format!("{}…[cut when upgraded to schema 3]", &huge[..512]));
    assert_eq!(rows[0].detail.as_deref(), Some(cut));
    let kept: Vec<i64> = state
        .raw()
        .prepare("SELECT id FROM audit WHERE kept = 1 ORDER BY id")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(kept, [2, 3], "the record and the binding event; a failed read is a problem row");
}
