//! The audit log stays bounded under a model that sends hostile paths:
//! 10,000 refused `Read` calls recorded through the store entry point the
//! hook uses, in this process, with 8 KiB paths (10,000 hook processes
//! take minutes, and so does hashing 10,000 × 800 KB twice in a debug
//! build; the cut is the same for any length over the cap), then 200 real
//! `hook claude` processes with 800 KB paths; the state database stays
//! under [`BOUND`].

use std::time::Instant;

use agentspine_store::{AUDIT_MAX_ROWS, AuditEvent, PRUNE_CHECK_EVERY, Store};
use serde_json::json;

use crate::support::Example;

/// `state.db` and its WAL together stay under this (README, "State").
const BOUND: u64 = 4 << 20;
/// The hook's window for repeats (`AUDIT_REPEAT_MS` in src/state.rs).
const AUDIT_REPEAT_MS: i64 = 60 * 60 * 1000;

fn size(ex: &Example) -> u64 {
    ["state.db", "state.db-wal"]
        .iter()
        .filter_map(|name| std::fs::metadata(ex.state.join(name)).ok())
        .map(|m| m.len())
        .sum()
}

fn problem_rows(store: &Store) -> usize {
    store.audit_list(None, None).unwrap().iter().filter(|r| r.phase == "chain").count()
}

#[test]
fn ten_thousand_hostile_paths_then_200_hook_processes_keep_the_database_bounded() {
    let ex = Example::new();
    let started = Instant::now();
    {
        let store = Store::open(&ex.state).unwrap().store;
        // The row the hook writes for a Read of a path it refuses: the path,
        // and an error that quotes it. Each is distinct (no repeat).
        let long = "a".repeat(8 * 1024);
        for i in 0..10_000 {
            let path = format!("{}/{long}{i}", ex.tree.display());
            let event = AuditEvent {
                host: "claude".into(),
                event: "PreToolUse".into(),
                phase: "chain".into(),
                code: "invalid-path".into(),
                detail: Some(format!("{path:?}: the path is not valid")),
                path: Some(path),
            };
            assert!(store.audit_append_once(&event, AUDIT_REPEAT_MS).unwrap().is_some());
        }
        let rows = problem_rows(&store);
        assert!(rows <= (AUDIT_MAX_ROWS + PRUNE_CHECK_EVERY as u64) as usize, "{rows} rows");
        let pruned = store.audit_prunes().unwrap();
        assert_eq!(pruned.rows as usize + rows, 10_000, "every row is either kept or counted as pruned");
    }
    let in_process = size(&ex);
    eprintln!("10,000 rows in process: {:?}, {in_process} bytes", started.elapsed());
    assert!(in_process < BOUND, "{in_process} bytes");

    let started = Instant::now();
    let long = "b".repeat(800_000);
    for i in 0..200 {
        let payload = json!({
            "session_id": "hostile",
            "cwd": ex.tree,
            "hook_event_name": "PreToolUse",
            "tool_name": "Read",
            "tool_input": { "file_path": format!("{}/{long}{i}", ex.tree.display()) },
        });
        let out = ex.run_stdin("../home", &["hook", "claude"], payload.to_string().as_bytes(), &[]);
        assert_eq!(out.status.code(), Some(0));
        assert!(out.stdout.is_empty(), "{}", String::from_utf8_lossy(&out.stdout));
    }
    let after = size(&ex);
    eprintln!("200 hook processes: {:?}, {after} bytes", started.elapsed());
    assert!(after < BOUND, "{after} bytes");
    let store = Store::open(&ex.state).unwrap().store;
    let rows = store.audit_list(None, None).unwrap();
    let hooks: Vec<_> =
        rows.iter().filter(|r| r.path.as_deref().is_some_and(|p| p.contains("/tree/bbbb"))).collect();
    assert_eq!(hooks.len(), 200, "each hook's refusal is recorded, cut");
    assert!(hooks.iter().all(|r| r.path.as_ref().unwrap().len() < 700), "cut with its digest");
    assert!(
        hooks.iter().all(|r| r.code == "invalid-path" && r.path.as_ref().unwrap().contains("…[cut, 800"))
    );
    // `audit` says what was pruned, and only problem rows were.
    let pruned = store.audit_prunes().unwrap();
    assert_eq!(pruned.rows as usize + rows.len(), 10_200);
    let audit = ex.json(&ex.run("", &["audit", "--json"]));
    assert_eq!(audit["pruned"]["rows"], pruned.rows);
    assert_eq!(audit["pruned"]["through_id"], pruned.through_id.unwrap());
    let text = ex.stdout(&ex.run("", &["audit"]));
    let first = text.lines().next().unwrap();
    assert_eq!(
        &first[..first.find(" (ids").unwrap()],
        format!("{} older problem rows were pruned", pruned.rows)
    );
}
