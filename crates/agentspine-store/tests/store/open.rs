//! Opening: migrations, reopening, the root digest, refusals.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use agentspine_store::{AuditEvent, SCHEMA_VERSION, Store, StoreError};

use crate::support::{StateDir, identity};

fn tables(conn: &rusqlite::Connection) -> Vec<String> {
    let mut stmt = conn.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").unwrap();
    stmt.query_map([], |row| row.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

#[test]
fn migrates_an_empty_file_and_sets_user_version() {
    let state = StateDir::new();
    std::fs::create_dir(&state.dir).unwrap();
    std::fs::write(state.db(), b"").unwrap();
    let store = state.open();
    drop(store);
    let raw = state.raw();
    let version: i64 = raw.pragma_query_value(None, "user_version", |row| row.get(0)).unwrap();
    assert_eq!(version, SCHEMA_VERSION);
    assert_eq!(
        tables(&raw),
        ["audit", "audit_prunes", "binding_events", "cache", "incidents", "meta", "records", "scopes"]
    );
    let mode: String = raw.pragma_query_value(None, "journal_mode", |row| row.get(0)).unwrap();
    assert_eq!(mode, "wal");
}

#[test]
fn creates_the_directory_0700_and_the_database_in_it() {
    let state = StateDir::new();
    let nested = state.temp.path().join("home/.local/state/agentspine");
    let opened = Store::open(&nested).unwrap();
    assert_eq!(opened.store.dir(), nested);
    assert_eq!(opened.store.db_path(), nested.join("state.db"));
    let meta = std::fs::symlink_metadata(&nested).unwrap();
    assert_eq!(meta.permissions().mode() & 0o777, 0o700);
    assert!(std::fs::symlink_metadata(nested.join("state.db")).unwrap().is_file());
}

#[test]
fn reopening_keeps_data_and_does_not_migrate_again() {
    let state = StateDir::new();
    let store = state.open();
    let root = store.root_digest(Path::new("/src/blun"));
    store.cache_put(&root, "AGENTS.md", &identity(1, 5), "ab", b"hello", None).unwrap();
    store.audit_append(&AuditEvent { host: "codex".into(), ..AuditEvent::default() }).unwrap();
    store.scope_set(&root, &["project:blun".to_owned()]).unwrap();
    drop(store);

    let store = state.open();
    let hit = store.cache_get(&root, "AGENTS.md").unwrap().unwrap();
    assert_eq!(hit.bytes, b"hello");
    assert_eq!(hit.identity, identity(1, 5));
    assert_eq!(store.audit_list(None, None).unwrap().len(), 1);
    assert_eq!(store.scope_get(&root).unwrap().unwrap(), ["project:blun"]);
    let version: i64 = state.raw().pragma_query_value(None, "user_version", |row| row.get(0)).unwrap();
    assert_eq!(version, SCHEMA_VERSION);
}

#[test]
fn root_digest_is_keyed_stable_per_state_dir_and_never_the_path() {
    let a = StateDir::new();
    let b = StateDir::new();
    let root = Path::new("/home/alice/src/blun");
    let first = a.open().root_digest(root);
    // Another process (another open) on the same state dir agrees.
    let again = a.open().root_digest(root);
    assert_eq!(first, again);
    assert_eq!(first.len(), 32);
    assert!(first.bytes().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    assert_ne!(first, a.open().root_digest(Path::new("/home/alice/src/blun2")));
    // Another state dir has another key, so another digest.
    assert_ne!(first, b.open().root_digest(root));
    // The key is 32 random bytes in meta; nothing stores the path.
    let key: Vec<u8> = a
        .raw()
        .query_row("SELECT value FROM meta WHERE key = 'root_digest_key'", [], |row| row.get(0))
        .unwrap();
    assert_eq!(key.len(), 32);
    let store = a.open();
    store.cache_put(&first, "AGENTS.md", &crate::support::identity(1, 1), "00", b"x", None).unwrap();
    drop(store);
    let bytes = std::fs::read(a.db()).unwrap();
    let wal = std::fs::read(a.dir.join("state.db-wal")).unwrap_or_default();
    for haystack in [&bytes, &wal] {
        assert!(!haystack.windows(8).any(|w| w == b"/home/al"), "the root path reached the database file");
    }
}

#[test]
fn a_newer_schema_is_refused_not_downgraded() {
    let state = StateDir::new();
    drop(state.open());
    state.raw().pragma_update(None, "user_version", SCHEMA_VERSION + 5).unwrap();
    match Store::open(&state.dir) {
        Err(StoreError::TooNew { found, known, .. }) => {
            assert_eq!((found, known), (SCHEMA_VERSION + 5, SCHEMA_VERSION));
        }
        other => panic!("expected TooNew, got {other:?}"),
    }
}

#[test]
fn a_link_or_a_directory_at_state_db_is_unavailable() {
    let state = StateDir::new();
    std::fs::create_dir(&state.dir).unwrap();
    let elsewhere = state.temp.path().join("elsewhere.db");
    std::os::unix::fs::symlink(&elsewhere, state.db()).unwrap();
    let err = Store::open(&state.dir).unwrap_err();
    assert!(matches!(err, StoreError::Unavailable { .. }), "{err:?}");
    assert!(err.to_string().contains("symbolic link"), "{err}");
    assert!(std::fs::symlink_metadata(&elsewhere).is_err(), "SQLite created the link's target");

    std::fs::remove_file(state.db()).unwrap();
    std::fs::create_dir(state.db()).unwrap();
    let err = Store::open(&state.dir).unwrap_err();
    assert!(matches!(err, StoreError::Unavailable { .. }), "{err:?}");
    assert!(err.to_string().contains("directory"), "{err}");
}

#[test]
fn an_unwritable_state_directory_is_unavailable() {
    let state = StateDir::new();
    std::fs::create_dir(&state.dir).unwrap();
    std::fs::set_permissions(&state.dir, std::fs::Permissions::from_mode(0o500)).unwrap();
    let dir = state.dir.clone();
    // Root ignores modes; the store runs without that power here.
    let err = crate::support::without_dac_override(move || Store::open(&dir).map(|_| ()).unwrap_err());
    match &err {
        StoreError::Unavailable { path, reason } => {
            assert!(path.starts_with(&state.dir), "{path:?}");
            assert!(!reason.is_empty());
        }
        other => panic!("expected Unavailable, got {other:?}"),
    }
    // And a missing parent that cannot be created.
    let blocked = state.dir.join("sub/state");
    let err = crate::support::without_dac_override(move || Store::open(&blocked).map(|_| ()).unwrap_err());
    assert!(matches!(err, StoreError::Unavailable { .. }), "{err:?}");
}
