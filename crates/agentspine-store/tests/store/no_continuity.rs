//! `state.db.no-continuity`: there only while no record and no binding
//! event is stored, so that a hook that finds it can leave continuity (and
//! often the database) alone. Opens create it under the write lock; every
//! write that adds a record or a binding event removes it before its
//! commit, and fails when it cannot.

use agentspine_store::{BindingKind, NO_CONTINUITY_FILE, OpenMode, Quick, RecordKind, Store};

use crate::support::StateDir;

fn flag(state: &StateDir) -> bool {
    state.dir.join(NO_CONTINUITY_FILE).exists()
}

fn rows(state: &StateDir) -> (i64, i64) {
    let raw = state.raw();
    let count =
        |table: &str| raw.query_row(&format!("SELECT count(*) FROM {table}"), [], |row| row.get(0)).unwrap();
    (count("records"), count("binding_events"))
}

#[test]
fn an_open_of_a_store_without_records_or_bindings_says_so_and_a_hook_sees_it() {
    let state = StateDir::new();
    drop(state.open());
    assert!(flag(&state), "the first open finds both tables empty");
    let quick = Quick::open(&state.dir).unwrap();
    assert!(quick.has_no_continuity());

    // A hook's open that finds it as the database does leaves it.
    let ino =
        std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(state.dir.join(NO_CONTINUITY_FILE)).unwrap());
    drop(Store::open_after(&quick, OpenMode::Hook).unwrap().store);
    let again =
        std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(state.dir.join(NO_CONTINUITY_FILE)).unwrap());
    assert_eq!(again, ino, "not rewritten");
}

#[test]
fn adding_a_record_removes_it_in_the_same_write_and_no_open_brings_it_back() {
    let state = StateDir::new();
    let store = state.open();
    assert!(flag(&state));
    let root = store.root_digest(std::path::Path::new("/project"));
    store.record_add(&root, RecordKind::Preference, "Answer in British English.", None).unwrap();
    assert!(!flag(&state), "gone with the record's commit");
    drop(store);
    drop(state.open());
    let quick = Quick::open(&state.dir).unwrap();
    assert!(!quick.has_no_continuity());
    drop(Store::open_after(&quick, OpenMode::Hook).unwrap().store);
    assert!(!flag(&state), "a record is stored: no open says otherwise");
}

#[test]
fn appending_a_binding_event_removes_it() {
    let state = StateDir::new();
    let store = state.open();
    assert!(flag(&state));
    store.binding_append(BindingKind::Bind, "b1", &serde_json::json!({"source": "x"})).unwrap();
    assert!(!flag(&state));
    drop(store);
    drop(state.open());
    assert!(!flag(&state));
}

#[test]
fn a_write_that_cannot_remove_it_stores_nothing() {
    let state = StateDir::new();
    let store = state.open();
    // Something that is not a file at the name: the store refuses to
    // remove it, so the record is not stored and neither is the event.
    std::fs::remove_file(state.dir.join(NO_CONTINUITY_FILE)).unwrap();
    std::fs::create_dir(state.dir.join(NO_CONTINUITY_FILE)).unwrap();
    let root = store.root_digest(std::path::Path::new("/project"));
    let err = store.record_add(&root, RecordKind::Preference, "kept out", None).unwrap_err();
    assert!(err.to_string().contains(NO_CONTINUITY_FILE), "{err}");
    assert!(store.binding_append(BindingKind::Bind, "b1", &serde_json::json!({})).is_err());
    assert_eq!(rows(&state), (0, 0));
    // And a hook does not trust a name it cannot look at as a file.
    assert!(!Quick::open(&state.dir).unwrap().has_no_continuity());
}

#[test]
fn an_open_that_finds_rows_removes_a_file_that_says_none() {
    let state = StateDir::new();
    let store = state.open();
    let root = store.root_digest(std::path::Path::new("/project"));
    store.record_add(&root, RecordKind::Preference, "Answer in British English.", None).unwrap();
    drop(store);
    std::fs::write(state.dir.join(NO_CONTINUITY_FILE), b"stale\n").unwrap();
    // A hook that saw it, then opened the database for another reason.
    let quick = Quick::open(&state.dir).unwrap();
    assert!(quick.has_no_continuity());
    drop(Store::open_after(&quick, OpenMode::Hook).unwrap().store);
    assert!(!flag(&state), "removed by the hook's open");

    std::fs::write(state.dir.join(NO_CONTINUITY_FILE), b"stale\n").unwrap();
    drop(state.open());
    assert!(!flag(&state), "removed by the default open");
}

#[test]
fn a_repair_removes_it_until_the_new_database_is_asked() {
    let state = StateDir::new();
    drop(state.open());
    assert!(flag(&state));
    state.damage_and_repair();
    // The new database is empty of both, and the open after the repair
    // asked it.
    assert_eq!(rows(&state), (0, 0));
    assert!(flag(&state));
}
