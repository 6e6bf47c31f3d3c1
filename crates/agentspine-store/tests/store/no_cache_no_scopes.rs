//! `state.db.no-cache` and `state.db.no-scopes`: there only while the
//! `cache` and `scopes` tables hold no row, so that a hook that finds them
//! has no snapshot to drop and no stored scope to ask for, and opens no
//! database for either. The rules of `state.db.no-continuity`: opens create
//! them under the write lock; every write that adds such a row removes the
//! file before its commit, and fails when it cannot.

use agentspine_fs::Identity;
use agentspine_store::{CacheChange, Empty, NO_CACHE_FILE, NO_SCOPES_FILE, OpenMode, Quick, Store};

use crate::support::StateDir;

fn there(state: &StateDir, name: &str) -> bool {
    state.dir.join(name).exists()
}

fn count(state: &StateDir, table: &str) -> i64 {
    state.raw().query_row(&format!("SELECT count(*) FROM {table}"), [], |row| row.get(0)).unwrap()
}

fn identity(n: u64) -> Identity {
    Identity { dev: 1, ino: n, size: 3, mtime_ns: 10, ctime_ns: 10 }
}

/// A batch's put of `b.md`.
fn put_b() -> CacheChange {
    CacheChange::Put {
        rel: "b.md".into(),
        identity: identity(2),
        sha256: "sha-b".into(),
        bytes: b"two".to_vec(),
        binding_id: None,
    }
}

#[test]
fn an_open_of_an_empty_store_says_so_and_a_hook_sees_both() {
    let state = StateDir::new();
    drop(state.open());
    assert!(there(&state, NO_CACHE_FILE) && there(&state, NO_SCOPES_FILE));
    let quick = Quick::open(&state.dir).unwrap();
    assert!(
        quick.is_empty(Empty::Cache) && quick.is_empty(Empty::Scopes) && quick.is_empty(Empty::Continuity)
    );
}

#[test]
fn a_snapshot_put_either_way_removes_no_cache_in_its_write_and_no_open_brings_it_back() {
    let state = StateDir::new();
    let store = state.open();
    let root = store.root_digest(std::path::Path::new("/memory"));
    store.cache_put(&root, "a.md", &identity(1), "sha-a", b"one", None).unwrap();
    assert!(!there(&state, NO_CACHE_FILE), "gone with the put's commit");
    assert!(there(&state, NO_SCOPES_FILE), "the other file stays");
    drop(store);
    drop(state.open());
    assert!(!there(&state, NO_CACHE_FILE));

    // Emptied again: the next open says so, and a batch put removes it.
    let store = state.open();
    store.cache_apply(&root, &[CacheChange::DropRoot]).unwrap();
    drop(store);
    let store = state.open();
    assert!(there(&state, NO_CACHE_FILE), "an open that finds the table empty creates it");
    let put = put_b();
    store.cache_apply(&root, &[put]).unwrap();
    assert!(!there(&state, NO_CACHE_FILE));
    assert_eq!(count(&state, "cache"), 1);
}

#[test]
fn a_stored_scope_removes_no_scopes_in_its_write() {
    let state = StateDir::new();
    let store = state.open();
    let root = store.root_digest(std::path::Path::new("/project"));
    store.scope_set(&root, &["project:blun".to_owned()]).unwrap();
    assert!(!there(&state, NO_SCOPES_FILE));
    drop(store);
    let quick = Quick::open(&state.dir).unwrap();
    assert!(!quick.is_empty(Empty::Scopes));
    drop(Store::open_after(&quick, OpenMode::Hook).unwrap().store);
    assert!(!there(&state, NO_SCOPES_FILE), "a scope is stored: no open says otherwise");
}

#[test]
fn a_write_that_cannot_remove_a_file_stores_nothing() {
    let state = StateDir::new();
    let store = state.open();
    for name in [NO_CACHE_FILE, NO_SCOPES_FILE] {
        std::fs::remove_file(state.dir.join(name)).unwrap();
        std::fs::create_dir(state.dir.join(name)).unwrap();
    }
    let root = store.root_digest(std::path::Path::new("/project"));
    let err = store.cache_put(&root, "a.md", &identity(1), "sha-a", b"one", None).unwrap_err();
    assert!(err.to_string().contains(NO_CACHE_FILE), "{err}");
    let put = put_b();
    assert!(store.cache_apply(&root, &[put]).is_err());
    let err = store.scope_set(&root, &["project:blun".to_owned()]).unwrap_err();
    assert!(err.to_string().contains(NO_SCOPES_FILE), "{err}");
    assert_eq!((count(&state, "cache"), count(&state, "scopes")), (0, 0));
    let quick = Quick::open(&state.dir).unwrap();
    assert!(!quick.is_empty(Empty::Cache) && !quick.is_empty(Empty::Scopes), "a directory is not trusted");
}

#[test]
fn an_open_that_finds_rows_removes_a_stale_file_and_a_repair_removes_both() {
    let state = StateDir::new();
    let store = state.open();
    let root = store.root_digest(std::path::Path::new("/project"));
    store.cache_put(&root, "a.md", &identity(1), "sha-a", b"one", None).unwrap();
    store.scope_set(&root, &["project:blun".to_owned()]).unwrap();
    drop(store);
    for name in [NO_CACHE_FILE, NO_SCOPES_FILE] {
        std::fs::write(state.dir.join(name), b"stale\n").unwrap();
    }
    let quick = Quick::open(&state.dir).unwrap();
    drop(Store::open_after(&quick, OpenMode::Hook).unwrap().store);
    assert!(!there(&state, NO_CACHE_FILE) && !there(&state, NO_SCOPES_FILE), "removed by the hook's open");

    state.damage_and_repair();
    // The new database holds no snapshot; its scopes are salvaged.
    assert!(there(&state, NO_CACHE_FILE));
    assert_eq!(there(&state, NO_SCOPES_FILE), count(&state, "scopes") == 0);
}

#[test]
fn every_purge_renews_the_cache_epoch_and_an_unreadable_one_is_none() {
    use agentspine_store::{CACHE_EPOCH_FILE, cache_epoch_in};
    let state = StateDir::new();
    let store = state.open();
    let dir = agentspine_fs::PrivateDir::open_existing(&state.dir).unwrap();
    assert_eq!(cache_epoch_in(&dir).as_deref(), Some("0"), "before the first purge");
    assert_eq!(Quick::open(&state.dir).unwrap().cache_epoch(), Some("0"));
    let root = store.root_digest(std::path::Path::new("/memory"));
    store.cache_put(&root, "a.md", &identity(1), "sha-a", b"one", None).unwrap();
    store.cache_purge_all().unwrap();
    let first = cache_epoch_in(&dir).unwrap();
    assert_eq!(first.len(), 32, "{first}");
    assert_eq!(Quick::open(&state.dir).unwrap().cache_epoch(), Some(first.as_str()));
    store.cache_drop_root(&root).unwrap();
    let second = cache_epoch_in(&dir).unwrap();
    assert_ne!(second, first, "a purge of one directory renews it too");
    // A retain or a batch drop is no purge.
    store.cache_retain(&root, &[]).unwrap();
    store.cache_apply(&root, &[CacheChange::DropRoot]).unwrap();
    assert_eq!(cache_epoch_in(&dir).unwrap(), second);
    // Something that is not an epoch is no epoch: nothing recorded under
    // one is trusted.
    std::fs::write(state.dir.join(CACHE_EPOCH_FILE), b"not hex\n").unwrap();
    assert_eq!(cache_epoch_in(&dir), None);
    std::fs::remove_file(state.dir.join(CACHE_EPOCH_FILE)).unwrap();
    std::os::unix::fs::symlink(state.db(), state.dir.join(CACHE_EPOCH_FILE)).unwrap();
    assert_eq!(cache_epoch_in(&dir), None);
    // And a purge that cannot renew it drops nothing.
    store.cache_put(&root, "b.md", &identity(2), "sha-b", b"two", None).unwrap();
    std::fs::remove_file(state.dir.join(CACHE_EPOCH_FILE)).unwrap();
    std::fs::create_dir(state.dir.join(CACHE_EPOCH_FILE)).unwrap();
    let err = store.cache_purge_all().unwrap_err();
    assert!(err.to_string().contains(CACHE_EPOCH_FILE), "{err}");
    assert_eq!(count(&state, "cache"), 1);
}
