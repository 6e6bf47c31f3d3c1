//! A damaged state database holding records, bindings and audit rows, met
//! first by a hook through the real binary, for four kinds of damage: the
//! user is told (the hook's `systemMessage`, then `doctor`, `record list`,
//! `audit`, `source-status`), the damaged copy is kept, what was readable
//! is recovered (counted against SQLite's own page statistics taken before
//! the damage), the binding chain verifies, and `doctor --acknowledge`
//! ends the telling.

use std::path::{Path, PathBuf};

use agentspine_store::{BindRequest, RecordKind, Store};
use serde_json::{Value, json};

use crate::records::project_a;
use crate::support::Example;

/// What the fixture holds: 200 records in project a (every other one
/// accepted), bindings of a for claude and codex (codex rolled back), and
/// 600 problem rows, written in that order (the schema's own pages come
/// first: about twenty).
struct Fixture {
    ex: Example,
    a: PathBuf,
}

fn fixture() -> Fixture {
    let ex = Example::new();
    let a = project_a(&ex);
    let store = Store::open(&ex.state).unwrap().store;
    let root = store.root_digest(&a.canonicalize().unwrap());
    for i in 0..200 {
        let text = format!("record {i:03}: {}", "keep answers short and plain ".repeat(5));
        let record = store.record_add(&root, RecordKind::Preference, &text, None).unwrap();
        if i % 2 == 0 {
            store.record_accept(&root, record.id).unwrap();
        }
    }
    let mut ids = Vec::new();
    for host in ["claude", "codex"] {
        let request = BindRequest {
            host: host.into(),
            scope: "state-user".into(),
            source_root: root.clone(),
            project: store.root_digest(&ex.tree.canonicalize().unwrap()),
            host_home: "home".into(),
        };
        ids.push(store.binding_bind(&request).unwrap().unwrap().binding.id);
    }
    store.binding_rollback(&ids[1]).unwrap().unwrap();
    for i in 0..600 {
        store
            .audit_append(&agentspine_store::AuditEvent {
                host: "claude".into(),
                event: "PreToolUse".into(),
                phase: "chain".into(),
                code: "symlink".into(),
                path: Some(format!("pkg/{i:03}/CLAUDE.md")),
                detail: None,
            })
            .unwrap();
    }
    drop(store);
    Fixture { ex, a }
}

/// Rows per table that lie on leaf pages for which `keep(page)` holds, as
/// SQLite's `dbstat` counts them (read before the damage).
fn cells(db: &Path, table: &str, keep: impl Fn(u64) -> bool) -> u64 {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt =
        conn.prepare("SELECT pageno, ncell FROM dbstat WHERE name = ?1 AND pagetype = 'leaf'").unwrap();
    let rows: Vec<(i64, i64)> = stmt
        .query_map([table], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    rows.into_iter().filter(|(page, _)| keep(*page as u64)).map(|(_, n)| n as u64).sum()
}

/// The leaf pages of `table`.
fn leaves(db: &Path, table: &str) -> Vec<u64> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn
        .prepare("SELECT pageno FROM dbstat WHERE name = ?1 AND pagetype = 'leaf' ORDER BY pageno")
        .unwrap();
    stmt.query_map([table], |row| row.get::<_, i64>(0)).unwrap().map(|p| p.unwrap() as u64).collect()
}

/// What the repair should recover: records, kept binding events, audit
/// rows (the incident's own row aside).
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
struct Counts {
    records: u64,
    events: u64,
    audit: u64,
}

/// Everything: 600 problem rows, 200 record adds, 100 accepts, 3 binding
/// events' rows.
const ALL: Counts = Counts { records: 200, events: 3, audit: 600 + 200 + 100 + 3 };

fn start(ex: &Example, session: &str) -> Value {
    json!({
        "session_id": session,
        "transcript_path": ex.home.join(".claude/projects/-tree/0b6c.jsonl"),
        "cwd": ex.tree,
        "hook_event_name": "SessionStart",
        "source": "startup",
    })
}

/// `hook claude` with `payload`: exit 0, the output JSON (`Null` for none).
fn hook(ex: &Example, payload: &Value) -> Value {
    let out = ex.run_stdin("../home", &["hook", "claude"], payload.to_string().as_bytes(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    if stdout.is_empty() {
        return Value::Null;
    }
    assert_eq!(stdout.matches('\n').count(), 1, "{stdout:?}");
    serde_json::from_str(&ex.filter(&stdout)).unwrap()
}

/// Runs the flow for one kind of damage: `damage` changes the file (and
/// returns the counts the pages say survive); everything the user sees is
/// checked.
fn told_and_salvaged(damage: impl FnOnce(&Path) -> Counts) {
    let Fixture { ex, a } = fixture();
    let db = ex.state.join("state.db");
    let expected = damage(&db);
    let damaged = std::fs::read(&db).unwrap();

    // 1. The first hook of a session: the notice, for the user only.
    let first = hook(&ex, &start(&ex, "s1"));
    let message = first["systemMessage"].as_str().unwrap_or_else(|| panic!("{first}"));
    assert!(message.starts_with("agentspine: the state database was damaged ("), "{message}");
    assert!(message.contains("the damaged copy is kept at [TMP]/state/state.db.corrupt-"), "{message}");
    let context = first["hookSpecificOutput"]["additionalContext"].as_str().unwrap_or_default();
    assert!(!context.contains("damaged"), "never model context: {context}");
    let copy = message.split("kept at ").nth(1).unwrap().split(';').next().unwrap();
    let copy = ex.filter_back(copy);
    assert_eq!(std::fs::read(&copy).unwrap(), damaged, "the damaged copy is kept as it was");
    // Once per session; a new session is told again.
    let prompt = json!({
        "session_id": "s1",
        "transcript_path": ex.home.join(".claude/projects/-tree/0b6c.jsonl"),
        "cwd": ex.tree,
        "hook_event_name": "UserPromptSubmit",
        "prompt": "carry on",
    });
    assert_eq!(hook(&ex, &prompt).get("systemMessage"), None);
    assert!(hook(&ex, &start(&ex, "s2"))["systemMessage"].is_string());

    // 2. doctor: what happened and what was recovered; exit 1.
    let out = ex.run("", &["doctor", "--host", "claude", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report = ex.json_any(&out);
    let incidents = report["state"]["incidents"].as_array().unwrap().clone();
    assert_eq!(incidents.len(), 1, "{}", report["state"]);
    let incident = &incidents[0];
    assert_eq!(ex.filter_back(incident["damaged_copy"].as_str().unwrap()), copy);
    let s = &incident["salvage"];
    let got = Counts {
        records: s["records"]["recovered"].as_u64().unwrap(),
        events: s["chain"]["kept"].as_u64().unwrap(),
        audit: s["audit"]["recovered"].as_u64().unwrap(),
    };
    assert_eq!(got, expected, "{s}");
    assert_ne!(report["verdict"], "ok");
    let summary = incident["summary"].as_str().unwrap();
    assert!(message.contains(summary), "the hook and doctor say the same: {summary}");
    assert!(summary.contains(&format!("recovered {} records", expected.records)), "{summary}");
    let text = ex.filter(&String::from_utf8(ex.run("", &["doctor", "--host", "claude"]).stdout).unwrap());
    assert!(text.contains("State damaged  on ") && text.contains(summary), "{text}");

    // 3. record list, audit, audit --verify, source-status say it too.
    let list = ex.json(&crate::records::record(&ex, &a, &["list", "--json"]));
    assert_eq!(list["records"].as_array().unwrap().len() as u64, expected.records);
    assert_eq!(list["state_incidents"][0]["summary"], summary);
    let text = ex.stdout(&crate::records::record(&ex, &a, &["list"]));
    assert!(text.starts_with("state damaged on ") && text.contains(summary), "{text}");
    let audit = ex.json(&ex.run("", &["audit", "--json"]));
    assert_eq!(audit["state_incidents"][0]["summary"], summary);
    let events: Vec<&str> =
        audit["events"].as_array().unwrap().iter().map(|e| e["event"].as_str().unwrap()).collect();
    assert_eq!(events.iter().filter(|e| **e == "state-damaged").count(), 1);
    let verify = ex.run("", &["audit", "--verify", "--json"]);
    assert_eq!(verify.status.code(), Some(0), "the chain verifies");
    let verify = ex.json(&verify);
    assert_eq!(verify["verified"], true);
    assert_eq!(verify["state_incidents"][0]["summary"], summary);
    let status = ex.json(&ex.run("", &["source-status", "--host", "claude", "--json"]));
    assert_eq!(status["state_incidents"][0]["summary"], summary);

    // 4. Acknowledged: no notice anywhere any more.
    let out = ex.run("", &["doctor", "--host", "claude", "--acknowledge", "--json"]);
    let report = ex.json_any(&out);
    assert_eq!(report["state"]["acknowledged"][0]["summary"], summary);
    assert_eq!(report["state"]["incidents"], json!([]));
    assert!(!report["actions"].to_string().contains("damaged"), "{}", report["actions"]);
    assert_eq!(hook(&ex, &start(&ex, "s3")).get("systemMessage"), None);
    let list = ex.json(&crate::records::record(&ex, &a, &["list", "--json"]));
    assert_eq!(list["state_incidents"], json!([]));
    let text = ex.stdout(&crate::records::record(&ex, &a, &["list"]));
    assert!(!text.contains("state damaged"), "{text}");
    assert_eq!(ex.json(&ex.run("", &["audit", "--json"]))["state_incidents"], json!([]));
    let audit = ex.stdout(&ex.run("", &["audit"]));
    assert!(!audit.starts_with("state damaged") && audit.contains("state-damage-acknowledged"), "{audit}");
}

fn page_size(db: &Path) -> usize {
    let bytes = std::fs::read(db).unwrap();
    usize::from(u16::from_be_bytes([bytes[16], bytes[17]]))
}

#[test]
fn random_bytes_are_told_with_nothing_recovered() {
    told_and_salvaged(|db| {
        let len = std::fs::metadata(db).unwrap().len() as usize;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let random: Vec<u8> = (0..len)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed as u8
            })
            .collect();
        std::fs::write(db, random).unwrap();
        Counts { records: 0, events: 0, audit: 0 }
    });
}

#[test]
fn a_zeroed_header_is_told_with_everything_recovered() {
    told_and_salvaged(|db| {
        let mut bytes = std::fs::read(db).unwrap();
        bytes[..100].fill(0);
        std::fs::write(db, bytes).unwrap();
        ALL
    });
}

#[test]
fn a_file_cut_to_half_is_told_with_its_first_half_recovered() {
    told_and_salvaged(|db| {
        let bytes = std::fs::read(db).unwrap();
        let kept = (bytes.len() / 2 / page_size(db)) as u64;
        let survive = |table| cells(db, table, |page| page <= kept);
        let counts = Counts {
            records: survive("records"),
            events: survive("binding_events"),
            audit: survive("audit"),
        };
        // The cut runs through the records and the audit log: the pages
        // before it hold 119 of the 200 records, every binding event, and
        // 160 audit rows (the record rows written between the records).
        assert_eq!(counts, Counts { records: 119, events: 3, audit: 160 });
        std::fs::write(db, &bytes[..bytes.len() / 2]).unwrap();
        counts
    });
}

#[test]
fn one_flipped_page_in_the_middle_is_told_with_the_rest_recovered() {
    told_and_salvaged(|db| {
        // The daily check is due, so the hook's open reads every page.
        let conn = rusqlite::Connection::open(db).unwrap();
        conn.execute("UPDATE meta SET value = CAST('0' AS BLOB) WHERE key = 'quick_check_ok_at_ms'", [])
            .unwrap();
        drop(conn);
        let page = page_size(db);
        let mut bytes = std::fs::read(db).unwrap();
        let middle = (bytes.len() / page / 2) as u64;
        let records = leaves(db, "records");
        let flipped = *records.iter().min_by_key(|p| p.abs_diff(middle)).unwrap();
        assert!(flipped.abs_diff(middle) <= middle / 3, "page {flipped} of {}", bytes.len() / page);
        let lost = cells(db, "records", |p| p == flipped);
        assert_eq!(lost, 17, "one leaf of records");
        let start = (flipped as usize - 1) * page;
        for b in &mut bytes[start..start + page] {
            *b = !*b;
        }
        std::fs::write(db, bytes).unwrap();
        Counts { records: ALL.records - lost, ..ALL }
    });
}

/// The desktop socket tells the desktop app (the host's connection), never
/// a sidecar (whose answers are model context): `host.authenticate` carries
/// the unacknowledged incidents until `doctor --acknowledge`.
#[test]
fn the_desktop_socket_tells_the_host_at_authenticate_and_never_a_sidecar() {
    let ex = crate::support::Example::new();
    std::fs::create_dir_all(&ex.state).unwrap();
    std::fs::write(ex.state.join("state.db"), b"this is not a database").unwrap();
    let run_dir = tempfile::Builder::new().tempdir_in("/tmp").unwrap();
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_agentspine"));
    command
        .arg("serve")
        .arg("--socket")
        .arg(run_dir.path().join("run/agentspine.sock"))
        .arg("--json")
        .env_clear()
        .env("HOME", &ex.home)
        .env("AGENTSPINE_STATE_DIR", &ex.state)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let served = crate::serve::Served::start(command.spawn().unwrap());
    let token = served.token();
    let mut host = served.client();
    let answer = host.ok("host.authenticate", json!({ "control_token": token }));
    let incidents = answer["state_incidents"].as_array().unwrap_or_else(|| panic!("{answer}"));
    assert_eq!((answer["role"].clone(), incidents.len()), (json!("host"), 1), "{answer}");
    let summary = incidents[0]["summary"].as_str().unwrap();
    assert!(summary.starts_with("the state database was damaged ("), "{summary}");
    let copy = PathBuf::from(incidents[0]["damaged_copy"].as_str().unwrap());
    assert_eq!(std::fs::read(&copy).unwrap(), b"this is not a database", "the damaged copy is kept");

    let root = ex.tree.to_str().unwrap();
    host.ok("projects.register", json!({ "root": root }));
    let bound = host.ok("session.bind", json!({ "session_id": "d1", "project_root": root }));
    assert!(!bound.to_string().contains("damaged"), "{bound}");
    let mut sidecar = served.client();
    let resolved = sidecar.ok(
        "project.instructions.resolve",
        json!({ "session_id": "d1", "token": bound["token"], "path": "." }),
    );
    assert!(resolved["chain"].is_object(), "{resolved}");
    assert!(!resolved.to_string().contains("damaged"), "never model context: {resolved}");

    // Acknowledged: the next host connection is told nothing.
    let out = ex.run("", &["doctor", "--acknowledge", "--json"]);
    assert_eq!(ex.json_any(&out)["state"]["acknowledged"][0]["summary"], json!(ex.filter(summary)));
    let mut again = served.client();
    assert_eq!(again.ok("host.authenticate", json!({ "control_token": token })), json!({ "role": "host" }));
}
