//! The key's copy (`state.db.key`) and the incident file
//! (`state.db.incident`) are brought in step with the database by every
//! open: the default one, which reads both files, and a hook's
//! (`Store::open_after`), which trusts what its `Quick` read and touches a
//! file only where that differs from the database.

use std::os::unix::fs::MetadataExt;

use agentspine_store::{INCIDENT_FILE, KEY_FILE, OpenMode, Opened, Quick, Store};

use crate::support::StateDir;

/// The key in the database's `meta` table, read by hand.
fn db_key(state: &StateDir) -> Vec<u8> {
    state
        .raw()
        .query_row("SELECT value FROM meta WHERE key = 'root_digest_key'", [], |row| row.get(0))
        .unwrap()
}

fn key_file(state: &StateDir) -> Option<Vec<u8>> {
    std::fs::read(state.dir.join(KEY_FILE)).ok()
}

fn inode(state: &StateDir, name: &str) -> u64 {
    std::fs::symlink_metadata(state.dir.join(name)).unwrap().ino()
}

fn incident_file(state: &StateDir) -> bool {
    state.dir.join(INCIDENT_FILE).exists()
}

/// A hook's open: `Quick` first, then the database through it.
fn open_as_hook(state: &StateDir) -> (Quick, Store, Vec<String>) {
    let quick = Quick::open(&state.dir).unwrap();
    let Opened { store, warnings } = Store::open_after(&quick, OpenMode::Hook).unwrap();
    (quick, store, warnings)
}

#[test]
fn the_default_open_rewrites_a_missing_or_stale_key_file() {
    let state = StateDir::new();
    drop(state.open());
    let key = db_key(&state);
    assert_eq!(key.len(), 32);
    assert_eq!(key_file(&state), Some(key.clone()), "the first open writes it");
    let ino = inode(&state, KEY_FILE);
    drop(state.open());
    assert_eq!(inode(&state, KEY_FILE), ino, "a copy in step is not rewritten");

    std::fs::remove_file(state.dir.join(KEY_FILE)).unwrap();
    drop(state.open());
    assert_eq!(key_file(&state), Some(key.clone()), "a missing copy is written again");

    for stale in [vec![7u8; 32], vec![7u8; 31], vec![7u8; 33], Vec::new()] {
        std::fs::write(state.dir.join(KEY_FILE), &stale).unwrap();
        drop(state.open());
        assert_eq!(key_file(&state), Some(key.clone()), "{} bytes of another key", stale.len());
    }
}

#[test]
fn the_default_open_after_a_repair_writes_the_new_key_and_the_incident_file() {
    let state = StateDir::new();
    drop(state.open());
    let old = db_key(&state);
    assert!(!incident_file(&state));
    state.damage();
    let Opened { store, warnings } = Store::open(&state.dir).unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    drop(store);
    let new = db_key(&state);
    assert_ne!(new, old, "the new database has a key of its own");
    assert_eq!(key_file(&state), Some(new));
    assert!(incident_file(&state));
}

#[test]
fn a_hooks_open_rewrites_the_key_file_only_when_its_quick_read_another() {
    let state = StateDir::new();
    drop(state.open());
    let key = db_key(&state);

    // Quick read the right key: the file is left as it is.
    let ino = inode(&state, KEY_FILE);
    let (quick, store, warnings) = open_as_hook(&state);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(quick.derived_key("source-id"), Some(store.derived_key("source-id")));
    drop(store);
    assert_eq!(inode(&state, KEY_FILE), ino, "not rewritten");
    assert_eq!(key_file(&state), Some(key.clone()));

    // Quick read another key, a key of another length, or none.
    for stale in [Some(vec![9u8; 32]), Some(vec![9u8; 5]), None] {
        match &stale {
            Some(bytes) => std::fs::write(state.dir.join(KEY_FILE), bytes).unwrap(),
            None => std::fs::remove_file(state.dir.join(KEY_FILE)).unwrap(),
        }
        let (quick, store, _) = open_as_hook(&state);
        assert_eq!(quick.derived_key("source-id").is_some(), stale.as_ref().is_some_and(|s| s.len() == 32));
        drop(store);
        assert_eq!(key_file(&state), Some(key.clone()), "{stale:?}");
    }
}

#[test]
fn a_hooks_open_after_a_repair_writes_the_new_key_though_its_quick_read_the_old() {
    let state = StateDir::new();
    drop(state.open());
    let old = db_key(&state);
    state.damage();
    let quick = Quick::open(&state.dir).unwrap();
    assert!(!quick.may_have_incident());
    let Opened { store, warnings } = Store::open_after(&quick, OpenMode::Hook).unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(store.incidents_unacknowledged().unwrap().len(), 1);
    drop(store);
    let new = db_key(&state);
    assert_ne!(new, old);
    assert_eq!(key_file(&state), Some(new), "the repaired database's key, not the one Quick read");
    assert!(incident_file(&state), "the incident Quick did not see is told");
}

#[test]
fn a_hooks_open_keeps_the_incident_file_in_step_with_the_database() {
    let state = StateDir::new();
    drop(state.open());
    state.damage();
    drop(Store::open(&state.dir).unwrap().store);
    assert!(incident_file(&state));

    // Quick saw the file and the database agrees: left as it is.
    let ino = inode(&state, INCIDENT_FILE);
    let (quick, store, _) = open_as_hook(&state);
    assert!(quick.may_have_incident());
    drop(store);
    assert_eq!(inode(&state, INCIDENT_FILE), ino, "not rewritten");

    // The file went missing while the incident is unacknowledged: Quick
    // sees none, the database says otherwise, and the file comes back.
    std::fs::remove_file(state.dir.join(INCIDENT_FILE)).unwrap();
    let (quick, store, _) = open_as_hook(&state);
    assert!(!quick.may_have_incident());
    drop(store);
    assert!(incident_file(&state));

    // Acknowledged: the file goes, and a stale one is removed by the next
    // hook's open.
    let store = state.open();
    assert_eq!(store.incident_acknowledge().unwrap().len(), 1);
    drop(store);
    assert!(!incident_file(&state));
    std::fs::write(state.dir.join(INCIDENT_FILE), b"stale\n").unwrap();
    let (quick, store, _) = open_as_hook(&state);
    assert!(quick.may_have_incident());
    drop(store);
    assert!(!incident_file(&state), "a file no incident stands behind is removed");

    // Absent, and nothing unacknowledged: still absent.
    let (quick, store, _) = open_as_hook(&state);
    assert!(!quick.may_have_incident());
    drop(store);
    assert!(!incident_file(&state));
}
