//! The snapshot cache: round trips, LRU eviction under the 16 MiB cap,
//! drops and their counts.

use std::path::Path;

use agentspine_fs::Identity;
use agentspine_store::{CACHE_CAP_BYTES, CacheError, CacheStats, Store};

use crate::support::{StateDir, identity};

const MIB: usize = 1024 * 1024;

fn put(store: &Store, root: &str, rel: &str, len: usize) -> usize {
    store.cache_put(root, rel, &identity(0, len as u64), "00", &vec![b'x'; len], None).unwrap()
}

fn present(store: &Store, root: &str, rel: &str) -> bool {
    store.cache_get(root, rel).unwrap().is_some()
}

#[test]
fn a_put_round_trips_every_field() {
    let store = StateDir::new().open();
    let root = store.root_digest(Path::new("/src/blun"));
    let id = Identity { dev: u64::MAX, ino: u64::MAX - 1, size: 11, mtime_ns: -5, ctime_ns: i64::MAX };
    assert_eq!(
        store.cache_put(&root, "docs/AGENTS.md", &id, "abc123", b"be brief\n\0x", Some("bind-1")).unwrap(),
        0
    );
    let hit = store.cache_get(&root, "docs/AGENTS.md").unwrap().unwrap();
    assert_eq!(hit.identity, id);
    assert_eq!(hit.sha256, "abc123");
    assert_eq!(hit.bytes, b"be brief\n\0x");
    assert_eq!(hit.binding_id.as_deref(), Some("bind-1"));
    assert!(store.cache_get(&root, "docs/other.md").unwrap().is_none());
    assert!(store.cache_get("another-root", "docs/AGENTS.md").unwrap().is_none());
    // A put of the same key replaces the row; its bytes are counted once.
    store.cache_put(&root, "docs/AGENTS.md", &identity(2, 3), "def", b"new", None).unwrap();
    let hit = store.cache_get(&root, "docs/AGENTS.md").unwrap().unwrap();
    assert_eq!((hit.bytes.as_slice(), hit.binding_id), (&b"new"[..], None));
    assert_eq!(store.cache_stats().unwrap(), CacheStats { rows: 1, bytes: 3, roots: 1 });
}

#[test]
fn filling_past_the_cap_evicts_the_least_recently_used_first() {
    let store = StateDir::new().open();
    let root = "r";
    // 16 snapshots of 1 MiB fill the cache exactly: nothing is evicted.
    for i in 0..16 {
        assert_eq!(put(&store, root, &format!("f{i:02}"), MIB), 0, "f{i:02}");
    }
    assert_eq!(store.cache_stats().unwrap(), CacheStats { rows: 16, bytes: CACHE_CAP_BYTES, roots: 1 });
    // A get refreshes f00: it is now the most recently used.
    assert!(present(&store, root, "f00"));
    // Each further MiB evicts exactly the oldest-used row: f01, then f02.
    assert_eq!(put(&store, root, "f16", MIB), 1);
    assert_eq!(put(&store, root, "f17", MIB), 1);
    let stats = store.cache_stats().unwrap();
    assert_eq!(stats.rows, 16);
    assert!(stats.bytes <= CACHE_CAP_BYTES);
    assert!(!present(&store, root, "f01"));
    assert!(!present(&store, root, "f02"));
    for kept in ["f00", "f03", "f15", "f16", "f17"] {
        assert!(present(&store, root, kept), "{kept}");
    }
    // A 3.5 MiB snapshot evicts the four oldest-used (f04..f07: f03 was
    // just used above, after f00 and before f15).
    assert_eq!(put(&store, root, "big", 3 * MIB + MIB / 2), 4);
    for gone in ["f04", "f05", "f06", "f07"] {
        assert!(!present(&store, root, gone), "{gone}");
    }
    assert!(present(&store, root, "f08"));
    assert!(store.cache_stats().unwrap().bytes <= CACHE_CAP_BYTES);
}

#[test]
fn many_small_puts_never_hold_more_than_the_cap() {
    let store = StateDir::new().open();
    let len = 300 * 1024;
    for i in 0..120 {
        put(&store, &format!("root{}", i % 3), &format!("f{i:03}"), len);
        assert!(store.cache_stats().unwrap().bytes <= CACHE_CAP_BYTES, "after put {i}");
    }
    let stats = store.cache_stats().unwrap();
    let fits = CACHE_CAP_BYTES / len as u64;
    assert_eq!(stats.rows, fits);
    assert_eq!(stats.roots, 3);
    // The survivors are exactly the newest `fits` puts.
    let oldest_kept = 120 - fits as usize;
    assert!(!present(&store, &format!("root{}", (oldest_kept - 1) % 3), &format!("f{:03}", oldest_kept - 1)));
    assert!(present(&store, &format!("root{}", oldest_kept % 3), &format!("f{oldest_kept:03}")));
}

#[test]
fn a_snapshot_larger_than_the_cache_is_refused_and_changes_nothing() {
    let store = StateDir::new().open();
    put(&store, "r", "small", 10);
    let too_big = vec![0u8; CACHE_CAP_BYTES as usize + 1];
    match store.cache_put("r", "huge", &identity(1, too_big.len() as u64), "00", &too_big, None) {
        Err(CacheError::TooLarge { rel_path, size, cap }) => {
            assert_eq!((rel_path.as_str(), size, cap), ("huge", CACHE_CAP_BYTES + 1, CACHE_CAP_BYTES));
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
    assert!(present(&store, "r", "small"));
    assert_eq!(store.cache_stats().unwrap().rows, 1);
    // Exactly the cap is accepted, and evicts everything else.
    assert_eq!(put(&store, "r", "exact", CACHE_CAP_BYTES as usize), 1);
    assert_eq!(store.cache_stats().unwrap(), CacheStats { rows: 1, bytes: CACHE_CAP_BYTES, roots: 1 });
}

#[test]
fn drops_remove_what_they_name_and_count_it() {
    let store = StateDir::new().open();
    for (root, rel, binding) in [
        ("r1", "a", None),
        ("r1", "b", Some("bind-1")),
        ("r1", "c", Some("bind-2")),
        ("r2", "a", Some("bind-1")),
        ("r2", "b", None),
        ("r3", "a", None),
    ] {
        store.cache_put(root, rel, &identity(0, 1), "00", b"x", binding).unwrap();
    }
    assert_eq!(store.cache_stats().unwrap(), CacheStats { rows: 6, bytes: 6, roots: 3 });
    assert_eq!(store.cache_drop("r1", "a").unwrap(), 1);
    assert_eq!(store.cache_drop("r1", "a").unwrap(), 0);
    assert_eq!(store.cache_drop_binding("bind-1").unwrap(), 2);
    assert_eq!(store.cache_drop_binding("bind-1").unwrap(), 0);
    assert!(present(&store, "r1", "c"));
    assert_eq!(store.cache_drop_root("r2").unwrap(), 1);
    assert_eq!(store.cache_drop_root("r2").unwrap(), 0);
    assert_eq!(store.cache_stats().unwrap(), CacheStats { rows: 2, bytes: 2, roots: 2 });
    assert_eq!(store.cache_purge_all().unwrap(), 2);
    assert_eq!(store.cache_purge_all().unwrap(), 0);
    assert_eq!(store.cache_stats().unwrap(), CacheStats { rows: 0, bytes: 0, roots: 0 });
}

#[test]
fn retain_keeps_only_the_named_paths_of_one_root() {
    let store = StateDir::new().open();
    for (root, rel) in [("r1", "a.md"), ("r1", "b.md"), ("r1", "c.md"), ("r2", "a.md")] {
        put(&store, root, rel, 1);
    }
    assert_eq!(store.cache_retain("r1", &["a.md".to_owned(), "gone.md".to_owned()]).unwrap(), 2);
    assert!(present(&store, "r1", "a.md"));
    assert!(!present(&store, "r1", "b.md"));
    assert!(!present(&store, "r1", "c.md"));
    assert!(present(&store, "r2", "a.md"), "another root is untouched");
    assert_eq!(store.cache_retain("r1", &["a.md".to_owned()]).unwrap(), 0);
    assert_eq!(store.cache_retain("r1", &[]).unwrap(), 1);
    assert_eq!(store.cache_stats().unwrap().rows, 1);
}

#[test]
fn stats_serialize_as_plain_numbers() {
    let store = StateDir::new().open();
    put(&store, "r", "a", 7);
    assert_eq!(
        serde_json::to_value(store.cache_stats().unwrap()).unwrap(),
        serde_json::json!({"rows": 1, "bytes": 7, "roots": 1})
    );
}

#[test]
fn a_peek_does_not_mark_a_use_and_a_batch_applies_in_order() {
    use agentspine_store::CacheChange;
    let store = StateDir::new().open();
    let root = "r";
    put(&store, root, "a", 1);
    put(&store, root, "b", 1);
    let before = store.cache_peek(root, "a").unwrap().unwrap().last_used;
    assert_eq!(store.cache_peek(root, "a").unwrap().unwrap().last_used, before, "a peek is not a use");
    assert!(store.cache_peek(root, "missing").unwrap().is_none());
    let changes = [
        CacheChange::Touch("a".to_owned()),
        CacheChange::Put {
            rel: "c".to_owned(),
            identity: identity(7, 2),
            sha256: "cc".to_owned(),
            bytes: b"cc".to_vec(),
            binding_id: None,
        },
        CacheChange::Drop("b".to_owned()),
        // Kept: a and c; d is put after the retain and stays too.
        CacheChange::Retain(vec!["a".to_owned(), "c".to_owned()]),
        CacheChange::Put {
            rel: "d".to_owned(),
            identity: identity(8, 1),
            sha256: "dd".to_owned(),
            bytes: b"d".to_vec(),
            binding_id: Some("bind".to_owned()),
        },
    ];
    assert_eq!(store.cache_apply(root, &changes).unwrap(), 0);
    assert!(store.cache_peek(root, "a").unwrap().unwrap().last_used > before, "the touch marked a use");
    assert!(store.cache_peek(root, "b").unwrap().is_none());
    assert_eq!(store.cache_peek(root, "c").unwrap().unwrap().bytes, b"cc");
    assert_eq!(store.cache_peek(root, "d").unwrap().unwrap().binding_id.as_deref(), Some("bind"));
    assert_eq!(store.cache_stats().unwrap(), CacheStats { rows: 3, bytes: 4, roots: 1 });
    // DropRoot empties this root only.
    put(&store, "other", "x", 1);
    assert_eq!(store.cache_apply(root, &[CacheChange::DropRoot]).unwrap(), 0);
    assert_eq!(store.cache_stats().unwrap(), CacheStats { rows: 1, bytes: 1, roots: 1 });
    // A put over the cap refuses the whole batch: nothing changes.
    let huge = CacheChange::Put {
        rel: "huge".to_owned(),
        identity: identity(9, CACHE_CAP_BYTES + 1),
        sha256: "h".to_owned(),
        bytes: vec![0; CACHE_CAP_BYTES as usize + 1],
        binding_id: None,
    };
    let err = store.cache_apply("other", &[CacheChange::Drop("x".to_owned()), huge]).unwrap_err();
    assert!(matches!(err, CacheError::TooLarge { .. }), "{err}");
    assert!(store.cache_peek("other", "x").unwrap().is_some());
}

#[test]
fn putting_the_same_version_again_keeps_its_row_and_a_root_drop_keeps_only_what_is_put_again() {
    use agentspine_store::CacheChange;
    let state = StateDir::new();
    let store = state.open();
    let row_id = |rel: &str| -> Option<i64> {
        state
            .raw()
            .query_row("SELECT id FROM cache WHERE root_digest = 'r' AND rel_path = ?1", [rel], |row| {
                row.get(0)
            })
            .ok()
    };
    let put_change = |rel: &str, bytes: &[u8]| CacheChange::Put {
        rel: rel.to_owned(),
        identity: identity(1, bytes.len() as u64),
        sha256: format!("sha-{}", String::from_utf8_lossy(bytes)),
        bytes: bytes.to_vec(),
        binding_id: None,
    };
    store.cache_apply("r", &[put_change("a", b"one"), put_change("b", b"two")]).unwrap();
    // (Row ids: a replaced row would get a new, larger one.)
    let a = row_id("a").unwrap();
    assert!(row_id("b").unwrap() > a);
    let used = store.cache_peek("r", "a").unwrap().unwrap().last_used;
    // The same version again, used within the hour: nothing changes.
    store.cache_apply("r", &[put_change("a", b"one")]).unwrap();
    assert_eq!(row_id("a"), Some(a));
    assert_eq!(store.cache_peek("r", "a").unwrap().unwrap().last_used, used);
    // Used longer ago: the same row, used just now.
    let hour = i64::try_from(agentspine_store::TOUCH_EVERY.as_nanos()).unwrap();
    state
        .raw()
        .execute("UPDATE cache SET last_used = last_used - ?1 WHERE rel_path = 'a'", [hour + 1])
        .unwrap();
    store.cache_apply("r", &[put_change("a", b"one")]).unwrap();
    assert_eq!(row_id("a"), Some(a));
    assert!(store.cache_peek("r", "a").unwrap().unwrap().last_used > used);
    // A new version replaces the row.
    store.cache_apply("r", &[put_change("b", b"TWO")]).unwrap();
    assert_eq!(store.cache_peek("r", "b").unwrap().unwrap().bytes, b"TWO");
    // A root drop keeps what is put again unchanged (same row), replaces
    // what changed and removes the rest.
    store.cache_apply("r", &[put_change("c", b"three")]).unwrap();
    let changes = [CacheChange::DropRoot, put_change("a", b"one"), put_change("c", b"THREE")];
    store.cache_apply("r", &changes).unwrap();
    assert_eq!(row_id("a"), Some(a));
    assert_eq!(store.cache_peek("r", "c").unwrap().unwrap().bytes, b"THREE");
    assert!(store.cache_peek("r", "b").unwrap().is_none());
    assert_eq!(store.cache_stats().unwrap(), CacheStats { rows: 2, bytes: 8, roots: 1 });
}

/// What a hook's load of unchanged memory asks: a `Retain` of every row
/// it found writes nothing (no commit: the database's data version stays),
/// one that drops a row writes; a use within the hour is not worth
/// recording, an older one is.
#[test]
fn a_retain_that_drops_nothing_writes_nothing_and_a_recent_use_is_not_stale() {
    use agentspine_store::CacheChange;
    let state = StateDir::new();
    let store = state.open();
    put(&store, "r", "a", 1);
    put(&store, "r", "b", 1);
    let watcher = state.raw();
    let version = || watcher.pragma_query_value(None, "data_version", |row| row.get::<_, i64>(0)).unwrap();
    let before = version();
    let keep = |names: &[&str]| CacheChange::Retain(names.iter().map(|n| (*n).to_owned()).collect());
    assert_eq!(store.cache_apply("r", &[keep(&["a", "b", "c"])]).unwrap(), 0);
    assert_eq!(store.cache_apply("r", &[keep(&["a", "b"]), keep(&["b", "a"])]).unwrap(), 0);
    assert_eq!(version(), before, "nothing was committed");
    assert!(present(&store, "r", "a") && present(&store, "r", "b"));
    store.cache_apply("r", &[keep(&["a"])]).unwrap();
    assert_ne!(version(), before, "the drop was committed");
    assert!(!present(&store, "r", "b"));

    let mut row = store.cache_peek("r", "a").unwrap().unwrap();
    assert!(!row.use_is_stale(), "just put");
    row.last_used -= i64::try_from(agentspine_store::TOUCH_EVERY.as_nanos()).unwrap() + 1;
    assert!(row.use_is_stale(), "more than an hour ago");
    row.last_used += 2 * i64::try_from(agentspine_store::TOUCH_EVERY.as_nanos()).unwrap();
    assert!(row.use_is_stale(), "from a clock ahead of this one");
}

/// What a session start asks of unchanged memory: it drops the directory's
/// snapshots, reads every file again and puts the same versions back.
/// That batch commits nothing; a batch that changes one version, puts a
/// new file, leaves out one that was held, or drops one, commits.
#[test]
fn a_dropped_root_put_back_unchanged_writes_nothing() {
    use agentspine_store::CacheChange;
    let state = StateDir::new();
    let store = state.open();
    let snapshot = |rel: &str, ino: u64, bytes: &[u8]| CacheChange::Put {
        rel: rel.to_owned(),
        identity: identity(ino, bytes.len() as u64),
        sha256: format!("sha-{rel}-{ino}"),
        bytes: bytes.to_vec(),
        binding_id: None,
    };
    let keep = |names: &[&str]| CacheChange::Retain(names.iter().map(|n| (*n).to_owned()).collect());
    let fresh = |puts: Vec<CacheChange>, kept: &[&str]| {
        let mut batch = vec![CacheChange::DropRoot];
        batch.extend(puts);
        batch.push(keep(kept));
        batch
    };
    store
        .cache_apply("r", &fresh(vec![snapshot("a", 1, b"one"), snapshot("b", 2, b"two")], &["a", "b"]))
        .unwrap();
    let watcher = state.raw();
    let version = || watcher.pragma_query_value(None, "data_version", |row| row.get::<_, i64>(0)).unwrap();
    let before = version();
    // The same versions back, in either order, and a Retain that keeps them.
    for puts in [
        vec![snapshot("a", 1, b"one"), snapshot("b", 2, b"two")],
        vec![snapshot("b", 2, b"two"), snapshot("a", 1, b"one")],
    ] {
        assert_eq!(store.cache_apply("r", &fresh(puts, &["a", "b"])).unwrap(), 0);
    }
    assert_eq!(version(), before, "nothing was committed");
    // Another root's rows do not count.
    store.cache_apply("other", &[snapshot("z", 9, b"zz")]).unwrap();
    let before = version();
    assert_eq!(
        store
            .cache_apply("r", &fresh(vec![snapshot("a", 1, b"one"), snapshot("b", 2, b"two")], &["a", "b"]))
            .unwrap(),
        0
    );
    assert_eq!(version(), before, "nothing was committed");

    let changed: [(&str, Vec<CacheChange>); 4] = [
        ("a new version of b", fresh(vec![snapshot("a", 1, b"one"), snapshot("b", 3, b"two")], &["a", "b"])),
        ("b no longer put back", fresh(vec![snapshot("a", 1, b"one")], &["a"])),
        ("a new file c", fresh(vec![snapshot("a", 1, b"one"), snapshot("c", 4, b"three")], &["a", "c"])),
        ("a dropped", vec![CacheChange::Drop("a".to_owned())]),
    ];
    for (what, batch) in changed {
        let before = version();
        store.cache_apply("r", &batch).unwrap();
        assert_ne!(version(), before, "{what}: committed");
    }
    assert!(store.cache_peek("r", "a").unwrap().is_none());
    assert_eq!(store.cache_peek("r", "c").unwrap().unwrap().bytes, b"three");
    assert!(store.cache_peek("r", "b").unwrap().is_none(), "b was left out of the third batch");
}
