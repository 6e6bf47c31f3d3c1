//! A damaged state database is moved aside, byte for byte, and replaced by
//! a new one that says so (see salvage.rs for what is recovered).

use std::path::Path;

use agentspine_store::{AuditEvent, Opened, Store};

use crate::support::{StateDir, identity};

/// The database files moved aside (`state.db.corrupt-<secs>`, without
/// their `-wal` and `-shm` companions).
fn asides(state: &StateDir) -> Vec<String> {
    state
        .names()
        .into_iter()
        .filter(|n| n.starts_with("state.db.corrupt-") && !n.ends_with("-wal") && !n.ends_with("-shm"))
        .collect()
}

/// Opens a damaged database and checks the repair: one warning naming the
/// aside file, that file holding `damaged` unchanged, one unacknowledged
/// incident naming it, a working new store.
fn assert_repaired(state: &StateDir, damaged: &[u8]) -> Store {
    let Opened { store, warnings } = Store::open(&state.dir).unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let asides = asides(state);
    assert_eq!(asides.len(), 1, "{:?}", state.names());
    let aside = &asides[0];
    assert!(warnings[0].contains(aside.as_str()), "{warnings:?}");
    assert!(warnings[0].contains("moved aside"), "{warnings:?}");
    let secs: u64 = aside.trim_start_matches("state.db.corrupt-").parse().unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    assert!(secs <= now && now - secs < 60, "{aside}");
    assert_eq!(std::fs::read(state.dir.join(aside)).unwrap(), damaged);
    let incidents = store.incidents_unacknowledged().unwrap();
    assert_eq!(incidents.len(), 1);
    assert_eq!(incidents[0].damaged_copy, state.dir.join(aside));
    assert!(
        !state.names().iter().any(|n| n.contains("repair-pending") || n.contains("salvage")),
        "{:?}",
        state.names()
    );

    // The new database works and survives a reopen without a warning.
    let root = store.root_digest(Path::new("/src/blun"));
    store.cache_put(&root, "AGENTS.md", &identity(1, 2), "00", b"ok", None).unwrap();
    store.audit_append(&AuditEvent { host: "claude".into(), ..AuditEvent::default() }).unwrap();
    drop(store);
    let store = state.open();
    assert_eq!(store.cache_get(&root, "AGENTS.md").unwrap().unwrap().bytes, b"ok");
    let events: Vec<String> = store.audit_list(None, None).unwrap().into_iter().map(|r| r.event).collect();
    assert_eq!(events, ["state-damaged", ""], "the incident, then the new row");
    store
}

#[test]
fn a_garbage_file_is_moved_aside_unchanged_and_rebuilt() {
    let state = StateDir::new();
    std::fs::create_dir(&state.dir).unwrap();
    let garbage: Vec<u8> = b"this is not an SQLite database, just text\n".repeat(200);
    std::fs::write(state.db(), &garbage).unwrap();
    std::fs::write(state.dir.join("state.db-wal"), b"stale wal").unwrap();
    assert_repaired(&state, &garbage);
    let wal = asides(&state)[0].clone() + "-wal";
    assert_eq!(std::fs::read(state.dir.join(wal)).unwrap(), b"stale wal");
}

#[test]
fn a_truncated_database_is_moved_aside_unchanged_and_rebuilt() {
    let state = StateDir::new();
    let store = state.open();
    store.cache_put("r", "a", &identity(1, 5000), "00", &[7u8; 5000], None).unwrap();
    drop(store);
    // Closing the last connection checkpoints the WAL into the main file.
    assert!(std::fs::symlink_metadata(state.dir.join("state.db-wal")).is_err());
    let real = std::fs::read(state.db()).unwrap();
    assert!(real.starts_with(b"SQLite format 3\0"));
    let truncated = real[..100].to_vec();
    std::fs::write(state.db(), &truncated).unwrap();
    let store = assert_repaired(&state, &truncated);
    // The new database starts empty.
    assert!(store.cache_get("r", "a").unwrap().is_none());
}

#[test]
fn a_damaged_page_inside_a_real_database_is_moved_aside() {
    let state = StateDir::new();
    let store = state.open();
    for i in 0..50 {
        store.cache_put("r", &format!("f{i}"), &identity(i, 3000), "00", &[i as u8; 3000], None).unwrap();
    }
    drop(store);
    let mut bytes = std::fs::read(state.db()).unwrap();
    // Keep the header page, scribble over the rest of the first pages
    // (schema, table and index b-trees).
    let page = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
    for b in &mut bytes[page..page * 6] {
        *b = 0xA5;
    }
    std::fs::write(state.db(), &bytes).unwrap();
    assert_repaired(&state, &bytes);
}

#[test]
fn processes_opening_a_corrupt_database_at_once_repair_it_once() {
    let state = StateDir::new();
    std::fs::create_dir(&state.dir).unwrap();
    std::fs::write(state.db(), b"garbage, not a database".repeat(100)).unwrap();
    let dir = state.dir.clone();
    let handles: Vec<_> = (0..8)
        .map(|_| {
            let dir = dir.clone();
            std::thread::spawn(move || {
                let Opened { store, warnings } = Store::open(&dir).unwrap();
                store.audit_append(&AuditEvent { host: "t".into(), ..AuditEvent::default() }).unwrap();
                warnings.len()
            })
        })
        .collect();
    let warned: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert_eq!(warned, 1, "exactly one opener repairs and warns");
    assert_eq!(asides(&state).len(), 1, "{:?}", state.names());
    let store = state.open();
    assert_eq!(store.audit_list(None, None).unwrap().len(), 1 + 8, "the incident, then every opener's row");
    assert_eq!(store.incidents().unwrap().len(), 1, "one repair, one incident");
}
