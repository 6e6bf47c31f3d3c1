//! Many processes on one state directory at once, as parallel hooks are.
//!
//! The parent test re-runs this test binary 32 times with `child_worker`
//! selected and the state directory in an environment variable. The
//! children start together on a brand-new directory, so they also race to
//! create the database, migrate it and make the root-digest key.
//! `first_open_child` is the same for a first session's processes, round
//! after round (`benches/first_open.py` runs hundreds of rounds).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use agentspine_store::{AuditEvent, OpenMode, Quick, Store};

use crate::support::{StateDir, identity};

const CHILDREN: usize = 32;
const ROUNDS: usize = 50;
const DIR_VAR: &str = "AGENTSPINE_STORE_TEST_CHILD_DIR";
const INDEX_VAR: &str = "AGENTSPINE_STORE_TEST_CHILD_INDEX";
const START_VAR: &str = "AGENTSPINE_STORE_TEST_CHILD_START_MS";
const FIRST_OPEN_ROUNDS: usize = 5;
const FIRST_OPEN_CHILDREN: usize = 24;

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_millis() as u64
}

/// Runs `test` (an ignored child test of this binary) in `count` processes
/// on the state directory `dir`, all let go at the same moment; their
/// outputs.
fn run_children(test: &str, dir: &Path, count: usize, lead: Duration) -> Vec<std::process::Output> {
    let exe = std::env::current_exe().unwrap();
    let start = now_ms() + lead.as_millis() as u64;
    let children: Vec<_> = (0..count)
        .map(|index| {
            Command::new(&exe)
                .args([test, "--exact", "--ignored", "--nocapture", "--test-threads=1"])
                .env(DIR_VAR, dir)
                .env(INDEX_VAR, index.to_string())
                .env(START_VAR, start.to_string())
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    children.into_iter().map(|child| child.wait_with_output().unwrap()).collect()
}

/// A child's state directory and index, once every child may go.
fn child_setup() -> (std::path::PathBuf, u64) {
    let dir = std::env::var_os(DIR_VAR).expect("run by the parent test");
    let index: u64 = std::env::var(INDEX_VAR).unwrap().parse().unwrap();
    let start: u64 = std::env::var(START_VAR).unwrap().parse().unwrap();
    std::thread::sleep(Duration::from_millis(start.saturating_sub(now_ms())));
    (dir.into(), index)
}

/// A user's first session: the host starts hooks and the MCP server
/// together on a state directory nobody has used, and each opens it and
/// asks its first question at once. Every one of them succeeds, in every
/// round on a new directory: none meets a schema half-made by another
/// (which failed an open with "no such table: incidents").
#[test]
fn a_first_session_s_processes_all_open_a_new_state_dir() {
    for round in 0..FIRST_OPEN_ROUNDS {
        let state = StateDir::new();
        let outputs = run_children(
            "concurrency::first_open_child",
            &state.dir,
            FIRST_OPEN_CHILDREN,
            Duration::from_millis(500),
        );
        for (index, out) in outputs.iter().enumerate() {
            let stdout = String::from_utf8_lossy(&out.stdout);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "round {round}, child {index}: {}\n{stdout}\n{stderr}", out.status);
            assert!(stdout.contains("1 passed"), "round {round}, child {index} ran no test:\n{stdout}");
        }
        assert_eq!(state.open().incidents().unwrap().len(), 0, "round {round}");
    }
}

#[test]
#[ignore = "child half of a_first_session_s_processes_all_open_a_new_state_dir; run by it"]
fn first_open_child() {
    let (dir, index) = child_setup();
    // Half are hooks (through what they read beside the database), half
    // a server or a command.
    let opened = if index % 2 == 0 {
        let quick = Quick::open(&dir).unwrap_or_else(|e| panic!("quick: {e}"));
        Store::open_after(&quick, OpenMode::Hook)
    } else {
        Store::open(&dir)
    };
    let opened = opened.unwrap_or_else(|e| panic!("open: {e}"));
    assert!(opened.warnings.is_empty(), "{:?}", opened.warnings);
    let unacknowledged = opened.store.incidents_unacknowledged().unwrap_or_else(|e| panic!("incidents: {e}"));
    assert!(unacknowledged.is_empty());
}

#[test]
fn thirty_two_processes_share_one_state_dir_without_lock_errors() {
    let state = StateDir::new();
    // Give every child time to start, then let them all go at once.
    let outputs =
        run_children("concurrency::child_worker", &state.dir, CHILDREN, Duration::from_millis(1500));
    let mut digests = Vec::new();
    for (index, out) in outputs.into_iter().enumerate() {
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "child {index} failed: {}\n{stdout}\n{stderr}", out.status);
        assert!(stdout.contains("1 passed"), "child {index} ran no test:\n{stdout}");
        for text in [&stdout, &stderr] {
            assert!(!text.to_lowercase().contains("locked"), "child {index}:\n{text}");
        }
        // libtest prints "test ... " on the same line before the child's output.
        let digest = stdout.lines().find_map(|l| l.split_once("root-digest=")).unwrap().1.to_owned();
        digests.push(digest);
    }
    // Every process derived the same key, so the same digest.
    digests.dedup();
    assert_eq!(digests.len(), 1, "{digests:?}");

    let store = state.open();
    let rows = store.audit_list(None, Some("child")).unwrap();
    assert_eq!(rows.len(), CHILDREN * ROUNDS);
    for index in 0..CHILDREN {
        let phase = index.to_string();
        assert_eq!(rows.iter().filter(|r| r.phase == phase).count(), ROUNDS, "child {index}");
    }
    let stats = store.cache_stats().unwrap();
    assert_eq!(stats.rows as usize, CHILDREN * ROUNDS);
    assert_eq!(stats.roots, 1);
    assert_eq!(digests[0], store.root_digest(Path::new("/shared/root")));
}

#[test]
#[ignore = "child half of thirty_two_processes_share_one_state_dir_without_lock_errors; run by it"]
fn child_worker() {
    let (dir, index) = child_setup();
    let opened = Store::open(&dir).unwrap_or_else(|e| panic!("open: {e}"));
    assert!(opened.warnings.is_empty(), "{:?}", opened.warnings);
    let store = opened.store;
    let root = store.root_digest(Path::new("/shared/root"));
    println!("root-digest={root}");
    for round in 0..ROUNDS {
        let rel = format!("child{index}/file{round}.md");
        let bytes = format!("child {index} round {round}").into_bytes();
        store
            .cache_put(&root, &rel, &identity(index, bytes.len() as u64), "00", &bytes, None)
            .unwrap_or_else(|e| panic!("put: {e}"));
        let hit = store.cache_get(&root, &rel).unwrap_or_else(|e| panic!("get: {e}")).expect("just put");
        assert_eq!(hit.bytes, bytes);
        store
            .audit_append(&AuditEvent {
                host: "child".into(),
                event: "round".into(),
                phase: index.to_string(),
                code: round.to_string(),
                path: Some(rel),
                detail: None,
            })
            .unwrap_or_else(|e| panic!("audit: {e}"));
    }
}
