//! The state store under abuse, through the real binary: SIGKILL in the
//! middle of binding, rollback, purge, record and continuity writes, 200
//! times; and 32 processes binding, reading and writing at once.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use agentspine_store::{BindingState, RecordStatus, Store};

use crate::records::{project_a, record};
use crate::support::Example;

fn store(ex: &Example) -> Store {
    Store::open(&ex.state).unwrap().store
}

fn sqlite(ex: &Example, sql: &str) -> String {
    let out = std::process::Command::new("sqlite3").arg(ex.state.join("state.db")).arg(sql).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// A small deterministic generator (no dependency, same run every time).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// What a killed run printed before it died, if it acknowledged anything.
#[derive(Debug)]
enum Ack {
    Bound(String),
    RolledBack(String),
    Purged(String),
    Added(i64, String),
    Accepted(i64),
}

fn bind_args(ex: &Example, source: &Path, host: &str) -> Vec<String> {
    let mut v: Vec<String> = vec!["source-bind".into(), source.display().to_string()];
    match host {
        "all" => v.push("--all-hosts".into()),
        host => v.extend(["--host".to_owned(), host.to_owned()]),
    }
    for (flag, value) in
        [("--project", ex.tree.display().to_string()), ("--host-home", ex.home.display().to_string())]
    {
        v.push(flag.into());
        v.push(value);
    }
    v.push("--confirm-local-binding".into());
    v
}

/// What one killed run left: stdout (what it acknowledged) and whether
/// it had reached the inside of a write transaction.
struct Killed {
    stdout: String,
    inside: bool,
}

/// Runs `args` with the fault-injection binary, pausing `pause` inside each
/// write transaction; kills it with SIGKILL after `delay` unless it
/// finished.
fn run_killed(ex: &Example, args: &[String], delay: Duration, pause: Duration) -> Killed {
    let mut child = std::process::Command::new(crate::support::fault_binary())
        .args(args)
        .current_dir(&ex.tree)
        .env_clear()
        .env("HOME", &ex.home)
        .env("AGENTSPINE_STATE_DIR", &ex.state)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        // The fault-injection build pauses this long inside every record
        // and binding write transaction and says so on stderr, so kills
        // land inside transactions, not only around them.
        .env("AGENTSPINE_FAULT_WRITE_DELAY_MS", pause.as_millis().to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() >= delay {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    let out = child.wait_with_output().unwrap();
    Killed {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        inside: String::from_utf8_lossy(&out.stderr).contains("agentspine fault-injection: inside the"),
    }
}

fn first_word_after<'a>(text: &'a str, marker: &str) -> Option<&'a str> {
    text.split(marker).nth(1)?.split_whitespace().next()
}

#[test]
fn sigkill_during_bind_rollback_purge_and_record_writes_200_times_loses_nothing_acknowledged() {
    let ex = Example::new();
    let a = project_a(&ex);
    assert!(record(&ex, &a, &["add", "--kind", "preference", "seed"]).status.success());
    assert!(record(&ex, &a, &["accept", "1"]).status.success());
    let store = store(&ex);
    let digest = store.root_digest(&a.canonicalize().unwrap());
    let hosts = ["claude", "codex", "pi", "desktop", "all"];

    // How long one run takes here with a 10 ms pause inside its write, so
    // that kills land before, inside and after the transaction.
    let pause = Duration::from_millis(10);
    crate::support::fault_binary();
    let started = Instant::now();
    for _ in 0..3 {
        let list = ["record".to_owned(), "list".to_owned(), "--cwd".to_owned(), a.display().to_string()];
        assert!(run_killed(&ex, &list, Duration::from_secs(5), pause).stdout.contains("seed"));
    }
    let typical = started.elapsed() / 3 + pause;

    let mut rng = Lcg(0x5eed);
    let mut acks: Vec<Ack> = Vec::new();
    let mut unacknowledged = 0;
    let mut inside = 0;
    // Kills land within `span` of the start. It follows the machine's
    // load: widened when almost every run dies first, narrowed when almost
    // every run finishes, so both keep happening however busy CI is.
    let mut span = (typical.as_micros() as u64 * 3 / 2).max(1);
    let mut window: Vec<bool> = Vec::new();
    for i in 0..200u64 {
        let bindings = store.bindings().unwrap();
        let active: Vec<&str> =
            bindings.iter().filter(|b| b.state == BindingState::Active).map(|b| b.id.as_str()).collect();
        let rolled: Vec<&str> =
            bindings.iter().filter(|b| b.state == BindingState::RolledBack).map(|b| b.id.as_str()).collect();
        let proposed: Vec<i64> = store
            .record_list(&digest)
            .unwrap()
            .into_iter()
            .filter(|r| r.status == RecordStatus::Proposed)
            .map(|r| r.id)
            .collect();
        let cwd = ["--cwd".to_owned(), a.display().to_string()];
        let text = format!("learned #{i}");
        let args: Vec<String> = match rng.below(6) {
            0 => bind_args(&ex, &a, hosts[rng.below(5) as usize]),
            1 if !active.is_empty() => {
                let id = active[rng.below(active.len() as u64) as usize];
                vec!["source-rollback".into(), format!("binding:{id}"), "--confirm-local-binding".into()]
            }
            2 if !rolled.is_empty() || !active.is_empty() => {
                let pool = if rolled.is_empty() { &active } else { &rolled };
                let id = pool[rng.below(pool.len() as u64) as usize];
                vec!["source-purge".into(), format!("binding:{id}"), "--confirm-local-binding".into()]
            }
            3 if !proposed.is_empty() => {
                let mut v = vec!["record".into(), "accept".into(), proposed[0].to_string()];
                v.extend(cwd);
                v
            }
            // A briefing writes too: it refreshes the derived cache rows.
            4 => vec!["briefing".into(), "--host".into(), hosts[rng.below(4) as usize].into()],
            _ => {
                let mut v =
                    vec!["record".into(), "add".into(), "--kind".into(), "no-go".into(), text.clone()];
                v.extend(cwd);
                v
            }
        };
        let delay = Duration::from_micros(rng.below(span));
        let killed = run_killed(&ex, &args, delay, pause);
        let stdout = killed.stdout;
        let ack = if let Some(id) = first_word_after(&stdout, "bound: binding:") {
            Some(Ack::Bound(id.to_owned()))
        } else if stdout.starts_with("rolled back:") {
            Some(Ack::RolledBack(args[1].trim_start_matches("binding:").to_owned()))
        } else if stdout.starts_with("purged:") {
            Some(Ack::Purged(args[1].trim_start_matches("binding:").to_owned()))
        } else if stdout.starts_with("record ") && stdout.contains(" added to ") {
            Some(Ack::Added(first_word_after(&stdout, "record ").unwrap().parse().unwrap(), text))
        } else if stdout.starts_with("record ") && stdout.contains(" accepted") {
            Some(Ack::Accepted(args[2].parse().unwrap()))
        } else {
            None
        };
        if args[0] != "briefing" {
            window.push(ack.is_some());
        }
        if ack.is_none() && killed.inside && args[0] != "briefing" {
            inside += 1;
        }
        match ack {
            Some(ack) => acks.push(ack),
            None if args[0] != "briefing" => unacknowledged += 1,
            None => {}
        }
        if window.len() == 20 {
            match window.iter().filter(|acked| **acked).count() {
                0..=3 => span = span * 3 / 2,
                17.. => span = (span * 2 / 3).max(1),
                _ => {}
            }
            window.clear();
        }
    }
    let acked_adds: Vec<&str> =
        acks.iter().filter_map(|a| if let Ack::Added(_, t) = a { Some(t.as_str()) } else { None }).collect();
    let committed_unacked = store
        .record_list(&digest)
        .unwrap()
        .iter()
        .filter(|r| r.text.starts_with("learned #") && !acked_adds.contains(&r.text.as_str()))
        .count();
    eprintln!(
        "200 runs killed at random: {} writes acknowledged, {unacknowledged} killed first, {inside} of them \
         inside a write transaction ({committed_unacked} record adds committed but killed before saying so)",
        acks.len()
    );
    assert!(acks.len() >= 10 && unacknowledged >= 10, "kills must land both before and after the commit");
    assert!(inside >= 10, "kills must land inside write transactions: {inside}");

    // The chain verifies, with no half event: every event has its audit
    // row from the same transaction, and ended bindings keep no rows.
    let out = ex.run("", &["audit", "--verify"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(sqlite(&ex, "PRAGMA integrity_check"), "ok");
    let events = store.binding_events().unwrap();
    let audit = store.audit_list(None, None).unwrap();
    let per_kind = |prefix: &str| audit.iter().filter(|r| r.event == prefix).count();
    for kind in ["bind", "rollback", "purge"] {
        let n = events.iter().filter(|e| e.kind.as_str() == kind).count();
        assert_eq!(per_kind(&format!("binding-{kind}")), n, "{kind}: one audit row per event");
    }
    let records = store.record_list(&digest).unwrap();
    assert_eq!(per_kind("record-add"), records.len());
    let accepted = records.iter().filter(|r| r.status == RecordStatus::Accepted).count();
    assert_eq!(per_kind("record-accept"), accepted);
    let bindings: HashMap<String, BindingState> =
        store.bindings().unwrap().into_iter().map(|b| (b.id, b.state)).collect();
    for (id, state) in &bindings {
        if *state != BindingState::Active {
            assert_eq!(store.binding_cache_rows(id).unwrap(), 0, "binding:{id} is {state}");
        }
    }
    // Nothing acknowledged is lost.
    for ack in &acks {
        match ack {
            Ack::Bound(id) => assert!(bindings.contains_key(id), "{ack:?}"),
            Ack::RolledBack(id) => assert_ne!(bindings[id], BindingState::Active, "{ack:?}"),
            Ack::Purged(id) => assert_eq!(bindings[id], BindingState::Purged, "{ack:?}"),
            Ack::Added(id, text) => {
                assert!(records.iter().any(|r| r.id == *id && r.text == *text), "{ack:?}")
            }
            Ack::Accepted(id) => {
                assert!(records.iter().any(|r| r.id == *id && r.status == RecordStatus::Accepted), "{ack:?}");
            }
        }
    }
}

/// What one of the 32 concurrent workers ran: every command's output.
fn worker(ex: &Example, k: usize, sources: &[PathBuf], w: &Path) -> Vec<(Vec<String>, Output)> {
    let mut done = Vec::new();
    let mut go = |args: Vec<String>| {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = ex.run("", &refs);
        done.push((args, out));
        done.last().unwrap().1.stdout.clone()
    };
    let cwd = || ["--cwd".to_owned(), w.display().to_string()];
    match k % 4 {
        // Binders (8): each its own project, so nothing is refused.
        0 => {
            let source = &sources[k / 4];
            for last in ["source-rollback", "source-purge"] {
                let stdout = String::from_utf8(go(bind_args(ex, source, "all"))).unwrap();
                let id = first_word_after(&stdout, "bound: binding:").unwrap_or("missing").to_owned();
                go(vec![last.into(), format!("binding:{id}"), "--confirm-local-binding".into()]);
            }
        }
        // Record writers (16): three records each in the shared project W.
        1 | 2 => {
            for n in 0..3 {
                let mut add: Vec<String> =
                    ["record", "add", "--kind", "preference"].map(str::to_owned).to_vec();
                add.push(format!("worker {k} record {n}"));
                add.extend(cwd());
                let stdout = String::from_utf8(go(add)).unwrap();
                let id = first_word_after(&stdout, "record ").unwrap_or("0").to_owned();
                let mut accept: Vec<String> = vec!["record".into(), "accept".into(), id];
                accept.extend(cwd());
                go(accept);
            }
        }
        // Readers (8): briefings (which write derived rows) and the audit log.
        _ => {
            for host in ["claude", "codex", "generic"] {
                go(["briefing", "--host", host, "--json"].map(str::to_owned).to_vec());
            }
            go(["audit", "--json"].map(str::to_owned).to_vec());
            go(["audit", "--verify"].map(str::to_owned).to_vec());
        }
    }
    done
}

#[test]
fn thirty_two_processes_binding_reading_and_writing_records_at_once_lose_nothing() {
    let ex = Example::new();
    let w = project_a(&ex);
    let sources: Vec<PathBuf> = (0..8)
        .map(|i| {
            let dir = ex.dir.path().join(format!("source-{i}"));
            std::fs::create_dir_all(dir.join(".git")).unwrap();
            assert!(
                record(&ex, &dir, &["add", "--kind", "reference", &format!("source {i}")]).status.success()
            );
            assert!(record(&ex, &dir, &["accept", &(i + 1).to_string()]).status.success());
            dir
        })
        .collect();
    let barrier = std::sync::Barrier::new(32);
    let runs: Vec<Vec<(Vec<String>, Output)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..32)
            .map(|k| {
                let (ex, sources, w, barrier) = (&ex, &sources, &w, &barrier);
                scope.spawn(move || {
                    barrier.wait();
                    worker(ex, k, sources, w)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut commands = 0;
    for (args, out) in runs.iter().flatten() {
        commands += 1;
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {stderr}");
        assert!(!stderr.contains("locked") && !stderr.contains("busy"), "{args:?}: {stderr}");
        if args.contains(&"--json".to_owned()) {
            let _: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        }
    }
    assert_eq!(commands, 8 * 4 + 16 * 6 + 8 * 5);
    let store = store(&ex);
    // 8 binders × (bind, rollback, bind, purge): exactly 32 events, chained.
    store.binding_verify().unwrap();
    let events = store.binding_events().unwrap();
    assert_eq!(events.len(), 32);
    let bindings = store.bindings().unwrap();
    assert_eq!(bindings.len(), 16);
    assert_eq!(bindings.iter().filter(|b| b.state == BindingState::RolledBack).count(), 8);
    assert_eq!(bindings.iter().filter(|b| b.state == BindingState::Purged).count(), 8);
    assert_eq!(sqlite(&ex, "SELECT COUNT(*) FROM cache WHERE binding_id IS NOT NULL"), "0");
    // 16 writers × 3 records, every one accepted.
    let records = store.record_list(&store.root_digest(&w.canonicalize().unwrap())).unwrap();
    assert_eq!(records.len(), 48);
    assert!(records.iter().all(|r| r.status == RecordStatus::Accepted));
    let audit = store.audit_list(None, None).unwrap();
    assert_eq!(audit.iter().filter(|r| r.phase == "binding").count(), 32);
    assert_eq!(audit.iter().filter(|r| r.event == "record-accept").count(), 48 + 8);
}
