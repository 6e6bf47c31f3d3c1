//! Learning records and reading them through bindings: only accepted
//! records of the portable kinds, from active bindings, with the cache rows
//! derived through a binding dropped at once when they stop being context.

use agentspine_store::{
    BindRequest, BindingRefusal, BindingState, NON_PORTABLE_KINDS, PORTABLE_KINDS, RecordError, RecordKind,
    RecordStatus, Store,
};

use crate::support::StateDir;

fn bind_request(store: &Store, host: &str, source: &str) -> BindRequest {
    BindRequest {
        host: host.to_owned(),
        scope: "state-user".to_owned(),
        source_root: store.root_digest(std::path::Path::new(source)),
        project: store.root_digest(std::path::Path::new("/projects/other")),
        host_home: store.root_digest(std::path::Path::new("/home/u/.claude")),
    }
}

/// Counts of every table a refused operation must leave alone.
fn counts(state: &StateDir) -> (i64, i64, i64, i64) {
    let raw = state.raw();
    let n = |table: &str| raw.query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0)).unwrap();
    (n("records"), n("binding_events"), n("audit"), n("cache"))
}

#[test]
fn the_kinds_are_split_exactly_as_the_issue_lists_them() {
    let portable: Vec<&str> = PORTABLE_KINDS.iter().map(|k| k.as_str()).collect();
    assert_eq!(portable, ["preference", "no-go", "correction", "reference", "person-relationship"]);
    let other: Vec<&str> = NON_PORTABLE_KINDS.iter().map(|k| k.as_str()).collect();
    assert_eq!(
        other,
        [
            "project-fact",
            "task",
            "attention-event",
            "group-private",
            "delegation-policy",
            "execution-grant",
            "job",
            "secret",
            "trust-material"
        ]
    );
    for kind in PORTABLE_KINDS.into_iter().chain(NON_PORTABLE_KINDS) {
        assert_eq!(RecordKind::parse(kind.as_str()), Some(kind));
        assert_eq!(kind.is_portable(), PORTABLE_KINDS.contains(&kind));
    }
    assert_eq!(RecordKind::parse("Preference"), None);
}

#[test]
fn only_accepted_portable_records_are_read_through_an_active_binding() {
    let state = StateDir::new();
    let store = state.open();
    let a = store.root_digest(std::path::Path::new("/projects/a"));
    let mut accepted = Vec::new();
    for kind in PORTABLE_KINDS.into_iter().chain(NON_PORTABLE_KINDS) {
        if kind == RecordKind::Correction {
            continue;
        }
        let r = store.record_add(&a, kind, &format!("text of {kind}"), None).unwrap();
        assert_eq!(r.status, RecordStatus::Proposed);
        store.record_accept(&a, r.id).unwrap();
        accepted.push((kind, r.id));
    }
    let proposed = store.record_add(&a, RecordKind::Preference, "never accepted", None).unwrap();
    let change = store.binding_bind(&bind_request(&store, "claude", "/projects/a")).unwrap().unwrap();
    assert_eq!(change.binding.state, BindingState::Active);

    let read = store.continuity_read("claude").unwrap();
    let kinds: Vec<&str> = read.iter().map(|r| r.kind.as_str()).collect();
    assert_eq!(kinds, ["preference", "no-go", "reference", "person-relationship"]);
    assert!(read.iter().all(|r| r.binding_id == change.binding.id));
    assert!(!read.iter().any(|r| r.record_id == proposed.id));
    // One derived cache row per record read, tagged with the binding.
    assert_eq!(store.binding_cache_rows(&change.binding.id).unwrap(), 4);
    // Another host reads nothing through a claude binding.
    assert_eq!(store.continuity_read("codex").unwrap(), []);
    // Reading again changes nothing.
    assert_eq!(store.continuity_read("claude").unwrap(), read);
    assert_eq!(store.binding_cache_rows(&change.binding.id).unwrap(), 4);
}

#[test]
fn an_accepted_correction_supersedes_its_record_and_drops_its_cache_rows_at_once() {
    let state = StateDir::new();
    let store = state.open();
    let a = store.root_digest(std::path::Path::new("/projects/a"));
    let tabs = store.record_add(&a, RecordKind::Preference, "Indent with tabs.", None).unwrap();
    store.record_accept(&a, tabs.id).unwrap();
    let other = store.record_add(&a, RecordKind::NoGo, "Never force-push.", None).unwrap();
    store.record_accept(&a, other.id).unwrap();
    let id = store.binding_bind(&bind_request(&store, "all", "/projects/a")).unwrap().unwrap().binding.id;
    assert_eq!(store.continuity_read("pi").unwrap().len(), 2);
    assert_eq!(store.binding_cache_rows(&id).unwrap(), 2);

    let fix =
        store.record_add(&a, RecordKind::Correction, "Indent with four spaces.", Some(tabs.id)).unwrap();
    // Proposed, the correction changes nothing yet.
    assert_eq!(store.binding_cache_rows(&id).unwrap(), 2);
    let change = store.record_accept(&a, fix.id).unwrap();
    assert_eq!(change.superseded, Some(tabs.id));
    assert_eq!(change.cache_rows_dropped, 1);
    assert_eq!(store.binding_cache_rows(&id).unwrap(), 1);
    let list = store.record_list(&a).unwrap();
    assert_eq!(list[0].status, RecordStatus::Superseded);
    assert_eq!(list[0].superseded_by, Some(fix.id));
    let texts: Vec<String> = store.continuity_read("pi").unwrap().into_iter().map(|r| r.text).collect();
    assert_eq!(texts, ["Never force-push.", "Indent with four spaces."]);

    let change = store.record_retract(&a, other.id).unwrap();
    assert_eq!(change.cache_rows_dropped, 1);
    let texts: Vec<String> = store.continuity_read("pi").unwrap().into_iter().map(|r| r.text).collect();
    assert_eq!(texts, ["Indent with four spaces."]);
}

#[test]
fn bad_record_input_is_refused_and_changes_nothing() {
    let state = StateDir::new();
    let store = state.open();
    let a = store.root_digest(std::path::Path::new("/projects/a"));
    let b = store.root_digest(std::path::Path::new("/projects/b"));
    let kept = store.record_add(&a, RecordKind::Preference, "kept", None).unwrap();
    let before = counts(&state);
    let cases: Vec<(RecordError, &str)> = vec![
        (store.record_add(&a, RecordKind::Preference, "  \n ", None).unwrap_err(), "empty"),
        (store.record_add(&a, RecordKind::Preference, &"x".repeat(4097), None).unwrap_err(), "4097 bytes"),
        (store.record_add(&a, RecordKind::Correction, "no target", None).unwrap_err(), "--supersedes"),
        (store.record_add(&a, RecordKind::Task, "t", Some(kept.id)).unwrap_err(), "only a correction"),
        (store.record_add(&a, RecordKind::Correction, "x", Some(999)).unwrap_err(), "no record 999"),
        // Another project's record cannot be named, accepted or retracted.
        (store.record_add(&b, RecordKind::Correction, "x", Some(kept.id)).unwrap_err(), "no record"),
        (store.record_accept(&b, kept.id).unwrap_err(), "no record"),
        (store.record_retract(&b, kept.id).unwrap_err(), "no record"),
    ];
    for (err, expected) in cases {
        assert!(err.to_string().contains(expected), "{err} lacks {expected}");
    }
    store.record_accept(&a, kept.id).unwrap();
    let after_accept = counts(&state);
    assert_eq!(
        store.record_accept(&a, kept.id).unwrap_err().to_string(),
        format!("record {} is accepted; only a proposed record can be accepted", kept.id)
    );
    store.record_retract(&a, kept.id).unwrap();
    let err = store.record_retract(&a, kept.id).unwrap_err();
    assert!(err.to_string().contains("is retracted"), "{err}");
    assert_eq!(before.0, after_accept.0);
    assert_eq!(after_accept.2, before.2 + 1, "one audit row for the one accepted change");
    // Records are never deleted, even by hand.
    let err = state.raw().execute("DELETE FROM records", []).unwrap_err();
    assert!(err.to_string().contains("never deleted"), "{err}");
}

#[test]
fn bind_refusals_change_nothing_and_rollback_and_purge_follow_the_states() {
    let state = StateDir::new();
    let store = state.open();
    let a = store.root_digest(std::path::Path::new("/projects/a"));
    let before = counts(&state);
    let refusal = |r: Result<_, BindingRefusal>| r.unwrap_err().to_string();
    assert!(
        refusal(store.binding_bind(&bind_request(&store, "all", "/projects/a")).unwrap())
            .contains("no agentspine state")
    );
    assert!(
        refusal(store.binding_bind(&bind_request(&store, "vim", "/projects/a")).unwrap()).contains("\"vim\"")
    );
    let mut wrong_scope = bind_request(&store, "all", "/projects/a");
    wrong_scope.scope = "project".into();
    assert!(refusal(store.binding_bind(&wrong_scope).unwrap()).contains("state-user"));
    assert_eq!(counts(&state), before);

    let r = store.record_add(&a, RecordKind::Preference, "p", None).unwrap();
    store.record_accept(&a, r.id).unwrap();
    let id = store.binding_bind(&bind_request(&store, "all", "/projects/a")).unwrap().unwrap().binding.id;
    let again = refusal(store.binding_bind(&bind_request(&store, "all", "/projects/a")).unwrap());
    assert_eq!(again, format!("that project is already bound for --host all as binding:{id}"));
    store.continuity_read("claude").unwrap();
    assert_eq!(store.binding_cache_rows(&id).unwrap(), 1);

    let change = store.binding_rollback(&id).unwrap().unwrap();
    assert_eq!((change.binding.state, change.cache_rows_dropped), (BindingState::RolledBack, 1));
    assert_eq!(store.continuity_read("claude").unwrap(), []);
    assert_eq!(store.binding_cache_rows(&id).unwrap(), 0);
    assert_eq!(refusal(store.binding_rollback(&id).unwrap()), format!("binding:{id} is already rolled back"));
    let change = store.binding_purge(&id).unwrap().unwrap();
    assert_eq!(change.binding.state, BindingState::Purged);
    assert_eq!(refusal(store.binding_purge(&id).unwrap()), format!("binding:{id} is already purged"));
    assert_eq!(
        refusal(store.binding_purge("0123").unwrap()),
        "there is no binding:0123 (`agentspine audit` lists binding events)"
    );
    let kinds: Vec<String> =
        store.binding_events().unwrap().into_iter().map(|e| e.kind.as_str().to_owned()).collect();
    assert_eq!(kinds, ["bind", "rollback", "purge"]);
    store.binding_verify().unwrap();
    let audit: Vec<String> = store.audit_list(None, None).unwrap().into_iter().map(|r| r.event).collect();
    assert_eq!(audit, ["record-add", "record-accept", "binding-bind", "binding-rollback", "binding-purge"]);
    // A purge of an active binding ends it and drops its rows too.
    let id = store.binding_bind(&bind_request(&store, "claude", "/projects/a")).unwrap().unwrap().binding.id;
    assert_eq!(store.continuity_read("claude").unwrap().len(), 1);
    let change = store.binding_purge(&id).unwrap().unwrap();
    assert_eq!(change.cache_rows_dropped, 1);
    assert_eq!(store.continuity_read("claude").unwrap(), []);
}

#[test]
fn a_broken_chain_is_read_through_by_nothing_and_bound_onto_by_nothing() {
    let state = StateDir::new();
    let store = state.open();
    let a = store.root_digest(std::path::Path::new("/projects/a"));
    let r = store.record_add(&a, RecordKind::Preference, "p", None).unwrap();
    store.record_accept(&a, r.id).unwrap();
    store.binding_bind(&bind_request(&store, "all", "/projects/a")).unwrap().unwrap();
    assert_eq!(store.continuity_read("codex").unwrap().len(), 1);
    let raw = state.raw();
    raw.execute_batch("DROP TRIGGER binding_events_no_update;").unwrap();
    raw.execute(
        r#"UPDATE binding_events SET payload = replace(payload, '"all"', '"codex"') WHERE seq = 1"#,
        [],
    )
    .unwrap();
    let err = store.continuity_read("codex").unwrap_err();
    assert_eq!(err.first_bad_row().map(|b| b.seq), Some(1));
    let refusal = store.binding_bind(&bind_request(&store, "claude", "/projects/a")).unwrap().unwrap_err();
    assert!(refusal.to_string().contains("does not verify (binding event 1:"), "{refusal}");
}

#[test]
fn without_a_binding_for_the_host_reading_continuity_takes_no_write_lock() {
    let state = StateDir::new();
    let store = state.open();
    let a = store.root_digest(std::path::Path::new("/projects/a"));
    let r = store.record_add(&a, RecordKind::Preference, "p", None).unwrap();
    store.record_accept(&a, r.id).unwrap();
    store.binding_bind(&bind_request(&store, "codex", "/projects/a")).unwrap().unwrap();
    // Another process holds the write lock.
    let raw = state.raw();
    raw.execute_batch("BEGIN IMMEDIATE; INSERT INTO meta (key, value) VALUES ('held', x'00');").unwrap();
    let started = std::time::Instant::now();
    assert_eq!(store.continuity_read("claude").unwrap(), []);
    assert!(started.elapsed() < std::time::Duration::from_secs(1), "{:?}", started.elapsed());
    raw.execute_batch("ROLLBACK").unwrap();
    assert_eq!(store.continuity_read("codex").unwrap().len(), 1);
}
