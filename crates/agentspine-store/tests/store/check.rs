//! When an open makes `PRAGMA quick_check` (a new file, once a day, after
//! damage was met), and how a hook's open closes (its WAL stays).

use agentspine_store::{CHECK_MARKER, OpenMode, Opened, Store};

use crate::support::{StateDir, identity};

/// Fills the cache so the file has many pages past the schema.
fn filled(state: &StateDir) {
    let store = state.open();
    for i in 0..60 {
        store.cache_put("r", &format!("f{i}"), &identity(i, 3000), "00", &[i as u8; 3000], None).unwrap();
    }
}

#[test]
fn a_new_file_is_checked_and_the_check_is_recorded() {
    let state = StateDir::new();
    let store = state.open();
    let (last, flagged) = store.check_state();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let last = last.expect("the first open checks the new file");
    assert!((now - last).abs() < 60_000, "{last} vs {now}");
    assert!(!flagged);
    assert_eq!(store.quick_check().unwrap(), ["ok"]);
}

#[test]
fn a_hook_open_leaves_the_wal_and_a_default_open_checkpoints_it() {
    let state = StateDir::new();
    drop(state.open());
    let Opened { store, warnings } = Store::open_with(&state.dir, OpenMode::Hook).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    store.cache_put("r", "a", &identity(1, 10), "00", b"hook", None).unwrap();
    drop(store);
    assert!(state.names().contains(&"state.db-wal".to_owned()), "{:?}", state.names());
    // The next process reads what the hook wrote, from the WAL.
    let store = state.open();
    assert_eq!(store.cache_get("r", "a").unwrap().unwrap().bytes, b"hook");
    drop(store);
    assert!(!state.names().contains(&"state.db-wal".to_owned()), "{:?}", state.names());
}

#[test]
fn damage_past_the_schema_is_found_by_the_check_and_repaired_at_the_next_open() {
    let state = StateDir::new();
    filled(&state);
    let mut bytes = std::fs::read(state.db()).unwrap();
    let page = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
    let pages = bytes.len() / page;
    assert!(pages > 40, "{pages} pages");
    // The last page: cache rows, never read by an open.
    for b in &mut bytes[(pages - 1) * page..] {
        *b = 0xA5;
    }
    std::fs::write(state.db(), &bytes).unwrap();

    // Checked less than a day ago: the open does not read every page.
    let store = state.open();
    let report = store.quick_check().unwrap();
    assert_ne!(report, ["ok"], "quick_check finds the damaged page");
    assert!(state.names().contains(&CHECK_MARKER.to_owned()), "{:?}", state.names());
    drop(store);

    // The marker makes the next open check, and the file is moved aside.
    let Opened { store, warnings } = Store::open(&state.dir).unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("moved aside"), "{warnings:?}");
    assert!(!state.names().contains(&CHECK_MARKER.to_owned()), "{:?}", state.names());
    assert!(store.cache_get("r", "f1").unwrap().is_none(), "a new, empty database");
}

#[test]
fn a_check_older_than_a_day_is_made_again_at_open() {
    let state = StateDir::new();
    filled(&state);
    let day_ago = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis()
        as i64
        - 24 * 60 * 60 * 1000
        - 1;
    state
        .raw()
        .execute(
            "UPDATE meta SET value = CAST(?1 AS BLOB) WHERE key = 'quick_check_ok_at_ms'",
            [day_ago.to_string()],
        )
        .unwrap();
    let store = state.open();
    let (last, _) = store.check_state();
    assert!(last.unwrap() > day_ago + 1000, "the open checked again and recorded it");
}

#[test]
fn a_hook_that_leaves_a_long_wal_checkpoints_and_truncates_it() {
    let state = StateDir::new();
    drop(state.open());
    let wal = || std::fs::metadata(state.dir.join("state.db-wal")).map(|m| m.len()).unwrap_or(0);
    let hook = || Store::open_with(&state.dir, OpenMode::Hook).unwrap().store;
    let store = hook();
    store.cache_put("r", "small", &identity(1, 10), "00", b"x", None).unwrap();
    drop(store);
    let short = wal();
    assert!(short > 0 && short < 64 * 4120, "a short WAL stays for the next hook ({short} bytes)");
    let store = hook();
    for i in 0..80 {
        store.cache_put("r", &format!("f{i}"), &identity(i, 3000), "00", &[i as u8; 3000], None).unwrap();
    }
    assert!(wal() > u64::from(agentspine_store::HOOK_WAL_PAGES) * 4120, "{} bytes", wal());
    drop(store);
    assert_eq!(wal(), 0, "checkpointed into the database and truncated");
    let store = state.open();
    assert_eq!(store.cache_get("r", "f79").unwrap().unwrap().bytes, vec![79u8; 3000]);
    assert_eq!(store.cache_get("r", "small").unwrap().unwrap().bytes, b"x");
}
