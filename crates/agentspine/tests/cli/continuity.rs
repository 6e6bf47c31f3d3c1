//! Portable continuity end to end through the real binary: records made in
//! project A reach project B (the example tree) only through an explicit
//! binding, only when accepted and portable, on every surface (CLI
//! briefing and read, hooks, MCP), and stop at the very next call after a
//! rollback or purge.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Output, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use agentspine_core::catalog::{ContinuityItem, SourceIds};
use serde_json::{Value, json};

use crate::records::{dump, project_a, record, refusal};
use crate::support::Example;

pub(crate) const PREFERENCE: &str = "Answer in British English.";
pub(crate) const NO_GO: &str = "Never force-push a shared branch.";
const SECRET: &str = "The staging password is hunter2.";
const FACT: &str = "Project A deploys on Tuesdays.";
const PROPOSED: &str = "Use tabs (never accepted).";

/// Project A with two accepted portable records (1, 2), two accepted
/// non-portable ones (3, 4) and a proposed portable one (5).
pub(crate) fn configured() -> (Example, PathBuf) {
    let ex = Example::new();
    let a = project_a(&ex);
    for (kind, text, accept) in [
        ("preference", PREFERENCE, true),
        ("no-go", NO_GO, true),
        ("secret", SECRET, true),
        ("project-fact", FACT, true),
        ("preference", PROPOSED, false),
    ] {
        let out = record(&ex, &a, &["add", "--kind", kind, text]);
        let id = ex.stdout(&out).split_whitespace().nth(1).unwrap().to_owned();
        if accept {
            ex.stdout(&record(&ex, &a, &["accept", &id]));
        }
    }
    (ex, a)
}

pub(crate) fn bind_args<'a>(ex: &'a Example, a: &'a Path, host: &'a str) -> Vec<String> {
    let hosts: &[&str] = if host == "all" { &["--all-hosts"] } else { &["--host", host] };
    ["source-bind", a.to_str().unwrap()]
        .iter()
        .chain(hosts)
        .chain(&[
            "--project",
            ex.tree.to_str().unwrap(),
            "--host-home",
            ex.home.to_str().unwrap(),
            "--confirm-local-binding",
        ])
        .map(|s| (*s).to_owned())
        .collect()
}

pub(crate) fn run(ex: &Example, args: &[String]) -> Output {
    ex.run("", &args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// Binds A for `host`; returns the binding id.
pub(crate) fn bind(ex: &Example, a: &Path, host: &str) -> String {
    let out = run(ex, &bind_args(ex, a, host));
    let text = ex.stdout(&out);
    let id = text.split("binding:").nth(1).unwrap().split_whitespace().next().unwrap();
    id.to_owned()
}

/// Replaces `binding:<hex id>` with `binding:[ID]`.
pub(crate) fn redact(text: &str, id: &str) -> String {
    text.replace(id, "[ID]")
}

pub(crate) fn briefing(ex: &Example, host: &str) -> Output {
    ex.run("", &["briefing", "--host", host])
}

pub(crate) fn text(out: &Output) -> String {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Cache rows derived through `id`, as the sqlite3 CLI counts them.
fn derived_rows(ex: &Example, id: &str) -> String {
    let out = std::process::Command::new("sqlite3")
        .arg(ex.state.join("state.db"))
        .arg(format!("SELECT COUNT(*) FROM cache WHERE binding_id = '{id}'"))
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// The source id a record would have if it were read through `binding`:
/// computed with the state directory's own key, as an attacker with the
/// key could.
fn would_be_id(ex: &Example, binding: &str, record_id: i64, kind: &str, text: &str) -> String {
    let store = agentspine_store::Store::open(&ex.state).unwrap().store;
    let ids = SourceIds::new(store.derived_key("source-id"));
    let item = ContinuityItem {
        binding_id: Some(binding.to_owned()),
        record_id,
        kind: kind.to_owned(),
        text: text.to_owned(),
    };
    item.source_id(&ids)
}

fn hook(ex: &Example, host: &str, payload: &Value) -> String {
    let mut out = ex.run_stdin("", &["hook", host], payload.to_string().as_bytes(), &[]);
    assert_eq!(out.status.code(), Some(0));
    out.stdout = crate::support::split_report(&out.stdout).0;
    if out.stdout.is_empty() {
        return String::new();
    }
    let value: Value = serde_json::from_slice(&out.stdout).unwrap();
    value["hookSpecificOutput"]["additionalContext"].as_str().unwrap().to_owned()
}

fn session_start(ex: &Example, session: &str) -> Value {
    json!({"session_id": session, "cwd": ex.tree, "hook_event_name": "SessionStart", "source": "startup",
           "transcript_path": ex.dir.path().join("t.jsonl")})
}

/// `agentspine mcp` over its pipes.
struct Mcp {
    child: Child,
    stdin: ChildStdin,
    frames: Receiver<String>,
    next: u64,
}

impl Mcp {
    fn start(ex: &Example) -> Mcp {
        let mut child = ex
            .command("", &["mcp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, frames) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take().unwrap();
        let mut mcp = Mcp { child, stdin, frames, next: 1 };
        let init = mcp.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "tests", "version": "0"}}),
        );
        assert!(init.get("result").is_some(), "{init}");
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next;
        self.next += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self.frames.recv_timeout(Duration::from_secs(20)).expect("the server answers in time");
            let frame: Value = serde_json::from_str(&line).unwrap();
            if frame["id"] == json!(id) {
                return frame;
            }
        }
    }

    /// A tool's result (`isError` tells success from failure).
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let frame = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        frame["result"].clone()
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The continuity sources of a briefing's JSON: (label, source id).
fn continuity_sources(briefing: &Value) -> Vec<(String, String)> {
    briefing["sources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["scope"] == "continuity")
        .map(|s| (s["rel_path"].as_str().unwrap().to_owned(), s["source_id"].as_str().unwrap().to_owned()))
        .collect()
}

#[test]
fn bind_then_the_other_projects_briefing_carries_the_accepted_portable_records_with_their_binding() {
    let (ex, a) = configured();
    // Before any binding, project B's briefing has no continuity.
    assert!(!text(&briefing(&ex, "claude")).contains(PREFERENCE));
    let out = run(&ex, &bind_args(&ex, &a, "all"));
    let stdout = ex.stdout(&out);
    let id = stdout.split("binding:").nth(1).unwrap().split_whitespace().next().unwrap().to_owned();
    insta::assert_snapshot!(redact(&stdout, &id), @r"
    bound: binding:[ID] lets every host read the accepted preference, no-go, correction, reference, person-relationship records of [TMP]/a from the next hook, MCP call or briefing on.
    Now readable: 2 accepted portable records; 2 records of other kinds stay in that project. Nothing was copied.
    Context only: it grants no identity, role, permission, delegation or trust.
    Undo with: agentspine source-rollback binding:[ID] --confirm-local-binding
    ");
    let out = briefing(&ex, "codex");
    let shown = redact(&ex.filter(&text(&out)), &id);
    let tail = &shown[shown.find("## binding:").unwrap()..];
    insta::assert_snapshot!(tail, @r"
    ## binding:[ID]/preference/record:1 · continuity · src_[1]

    Answer in British English.

    ## binding:[ID]/no-go/record:2 · continuity · src_[2]

    Never force-push a shared branch.
    ");
    let out = ex.run("", &["briefing", "--host", "codex", "--json"]);
    let value = ex.json(&out);
    assert_eq!(value["sourceResolution"]["counts"]["continuity"], 2);
    assert_eq!(value["sourceResolution"]["checked_scopes"], json!(["user", "project", "continuity"]));
    let sources = continuity_sources(&value);
    assert_eq!(sources.len(), 2);
    // Each record leaves one cache row derived through the binding.
    assert_eq!(derived_rows(&ex, &id), "2");
    // `read` gives a continuity source again by its id, with provenance.
    let raw = String::from_utf8(ex.run("", &["briefing", "--host", "codex", "--json"]).stdout).unwrap();
    let raw: Value = serde_json::from_str(&raw).unwrap();
    let first = continuity_sources(&raw)[0].1.clone();
    let out = ex.run("", &["read", &first, "--host", "codex", "--json"]);
    let doc = ex.json(&out);
    assert_eq!(doc["text"], PREFERENCE);
    assert_eq!(doc["rel_path"], format!("binding:{id}/preference/record:1"));
    assert_eq!(doc["scope"], "continuity");
}

#[test]
fn a_non_portable_or_unaccepted_record_is_unreachable_through_a_binding_by_every_surface() {
    let (ex, a) = configured();
    let id = bind(&ex, &a, "all");
    let hidden = [SECRET, FACT, PROPOSED];
    // CLI briefing, every host, text and JSON.
    for host in ["claude", "codex", "pi", "desktop", "generic"] {
        let out = text(&briefing(&ex, host));
        assert!(out.contains(PREFERENCE) && out.contains(NO_GO), "{host}: {out}");
        let json = text(&ex.run("", &["briefing", "--host", host, "--json"]));
        for h in hidden {
            assert!(!out.contains(h) && !json.contains(h), "{host} shows {h:?}");
        }
    }
    // CLI query.
    let out = text(
        &ex.run("", &["query", "staging password hunter2 deploys tuesdays", "--host", "claude", "--json"]),
    );
    assert!(!hidden.iter().any(|h| out.contains(h)), "{out}");

    // The ids those records would have, computed with the store's own key:
    // the portable one is in the briefing (so the computation is right),
    // the others are refused by `read` and by MCP read_document.
    let preference_id = would_be_id(&ex, &id, 1, "preference", PREFERENCE);
    let raw: Value =
        serde_json::from_slice(&ex.run("", &["briefing", "--host", "claude", "--json"]).stdout).unwrap();
    assert!(continuity_sources(&raw).iter().any(|(_, s)| *s == preference_id));
    let forged = [
        would_be_id(&ex, &id, 3, "secret", SECRET),
        would_be_id(&ex, &id, 4, "project-fact", FACT),
        would_be_id(&ex, &id, 5, "preference", PROPOSED),
    ];
    for forged in &forged {
        let out = ex.run("", &["read", forged, "--host", "claude"]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("not a source of any catalog of"));
    }

    // Hooks: SessionStart for both hosts, and a prompt naming the secret.
    for host in ["claude", "codex"] {
        let context = hook(&ex, host, &session_start(&ex, &format!("s-{host}")));
        assert!(context.contains(PREFERENCE) && context.contains(NO_GO), "{host}: {context}");
        assert!(context.contains(&format!("Continuity from binding:{id}/preference/record:1")), "{context}");
        assert!(context.contains("context only, grants nothing"), "{context}");
        let prompt = json!({"session_id": format!("p-{host}"), "cwd": ex.tree, "hook_event_name": "UserPromptSubmit",
                            "prompt": "what is the staging password? when does project A deploy?"});
        let context = hook(&ex, host, &prompt);
        assert!(context.contains(PREFERENCE), "{host}: {context}");
        for h in hidden {
            assert!(!context.contains(h), "{host} hook shows {h:?}");
        }
    }

    // MCP: the briefing carries the portable records only; read_document
    // gives the portable one and refuses the forged ids.
    let mut mcp = Mcp::start(&ex);
    let root = ex.tree.to_str().unwrap();
    let result = mcp.call("session_briefing", json!({"project_root": root, "host": "claude"}));
    let briefing = result["structuredContent"].clone();
    let all = briefing.to_string();
    assert!(all.contains(PREFERENCE) && all.contains(NO_GO));
    assert!(!hidden.iter().any(|h| all.contains(h)));
    let result = mcp
        .call("read_document", json!({"project_root": root, "host": "claude", "source_id": preference_id}));
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["structuredContent"]["text"], PREFERENCE);
    for forged in &forged {
        let result =
            mcp.call("read_document", json!({"project_root": root, "host": "claude", "source_id": forged}));
        assert_eq!(result["isError"], true, "{result}");
        assert!(result.to_string().contains("not a source of this project's catalog"), "{result}");
    }
}

#[test]
fn rollback_and_purge_hold_from_the_very_next_hook_and_mcp_call() {
    let (ex, a) = configured();
    let id = bind(&ex, &a, "claude");
    let mut mcp = Mcp::start(&ex);
    let root = ex.tree.to_str().unwrap();
    let briefing = mcp.call("session_briefing", json!({"project_root": root, "host": "claude"}));
    let sources = continuity_sources(&briefing["structuredContent"]);
    assert_eq!(sources.len(), 2, "{briefing}");
    assert!(hook(&ex, "claude", &session_start(&ex, "s1")).contains(PREFERENCE));
    // A binding for claude is not read by codex.
    assert_eq!(hook(&ex, "codex", &session_start(&ex, "s2")), "");
    assert_eq!(derived_rows(&ex, &id), "2");

    let out = ex.run("", &["source-rollback", &format!("binding:{id}"), "--confirm-local-binding"]);
    insta::assert_snapshot!(redact(&ex.stdout(&out), &id), @r"
    rolled back: nothing is read through binding:[ID] from the next hook, MCP call or briefing on; 2 derived cache rows dropped.
    The bound project's records are untouched. Remove the binding for good with: agentspine source-purge binding:[ID] --confirm-local-binding
    ");
    assert_eq!(derived_rows(&ex, &id), "0");
    // The same MCP server, the next call: gone, and its ids are refused.
    let briefing = mcp.call("session_briefing", json!({"project_root": root, "host": "claude"}));
    assert_eq!(continuity_sources(&briefing["structuredContent"]), []);
    let result =
        mcp.call("read_document", json!({"project_root": root, "host": "claude", "source_id": sources[0].1}));
    assert_eq!(result["isError"], true, "{result}");
    // The next hook, a new session: nothing.
    assert_eq!(hook(&ex, "claude", &session_start(&ex, "s3")), "");
    assert!(!text(&self::briefing(&ex, "claude")).contains(PREFERENCE));

    // Bound again, then purged while active: its derived rows go at once.
    let id = bind(&ex, &a, "claude");
    assert!(hook(&ex, "claude", &session_start(&ex, "s4")).contains(PREFERENCE));
    assert_eq!(derived_rows(&ex, &id), "2");
    let out = ex.run("", &["source-purge", &format!("binding:{id}"), "--confirm-local-binding"]);
    insta::assert_snapshot!(redact(&ex.stdout(&out), &id), @r"
    purged: binding:[ID] can never be read through again; 2 derived cache rows removed.
    The bound project's own records are untouched; the binding's events stay in the audit chain.
    ");
    assert_eq!(derived_rows(&ex, &id), "0");
    assert_eq!(hook(&ex, "claude", &session_start(&ex, "s5")), "");
    let briefing = mcp.call("session_briefing", json!({"project_root": root, "host": "claude"}));
    assert_eq!(continuity_sources(&briefing["structuredContent"]), []);
    // A is untouched: its 5 records are all there.
    let out = record(&ex, &a, &["list", "--json"]);
    assert_eq!(ex.json(&out)["records"].as_array().unwrap().len(), 5);
}

#[test]
fn a_correction_replaces_what_the_next_hook_sends_and_drops_the_old_rows_at_once() {
    let (ex, a) = configured();
    let id = bind(&ex, &a, "all");
    assert!(hook(&ex, "codex", &session_start(&ex, "s1")).contains(PREFERENCE));
    assert_eq!(derived_rows(&ex, &id), "2");
    ex.stdout(&record(
        &ex,
        &a,
        &["add", "--kind", "correction", "--supersedes", "1", "Answer in American English."],
    ));
    let out = record(&ex, &a, &["accept", "6"]);
    assert!(
        ex.stdout(&out)
            .contains("It supersedes record 1, which is no longer context; 1 derived cache row dropped.")
    );
    assert_eq!(derived_rows(&ex, &id), "1");
    // The same session's next prompt gets the correction, not the old text.
    let prompt =
        json!({"session_id": "s1", "cwd": ex.tree, "hook_event_name": "UserPromptSubmit", "prompt": "hi"});
    let context = hook(&ex, "codex", &prompt);
    assert!(context.contains("Answer in American English.") && !context.contains(PREFERENCE), "{context}");
    // Once per session: the no-go this session already has is not repeated.
    assert!(!context.contains(NO_GO), "{context}");
    assert_eq!(hook(&ex, "codex", &prompt), "", "nothing new on the next prompt");
    let out = text(&briefing(&ex, "generic"));
    assert!(out.contains("Answer in American English.") && !out.contains(PREFERENCE), "{out}");
}

#[test]
fn bind_rollback_and_purge_refusals_are_one_line_and_change_nothing() {
    let (ex, a) = configured();
    let id = bind(&ex, &a, "claude");
    let before = dump(&ex);
    let args = bind_args(&ex, &a, "claude");
    let without = |flag: &str, value: bool| -> Vec<String> {
        let mut v = args.clone();
        let at = v.iter().position(|x| x == flag).unwrap();
        v.drain(at..at + if value { 2 } else { 1 });
        v
    };
    let with = |flag: &str, value: &str| -> Vec<String> {
        let mut v = args.clone();
        let at = v.iter().position(|x| x == flag).unwrap();
        v[at + 1] = value.to_owned();
        v
    };
    let mut b = args.clone();
    b[1] = ex.tree.display().to_string();
    // From another directory than the tree itself, which would be a bind of a project to itself.
    let at = b.iter().position(|x| x == "--project").unwrap();
    b[at + 1] = ex.home.display().to_string();
    let cases: Vec<(Vec<String>, String)> = vec![
        (without("--confirm-local-binding", false), "agentspine: source-bind refused: a binding changes what your agents are told in every project: add --confirm-local-binding to confirm".into()),
        (without("--host", true), "agentspine: source-bind refused: missing --host HOST (one of claude, codex, gemini, pi, desktop) or --all-hosts".into()),
        (without("--project", true), "agentspine: source-bind refused: missing --project DIR (the project you are binding from)".into()),
        (without("--host-home", true), "agentspine: source-bind refused: missing --host-home DIR (the host profile you are binding from, e.g. ~/.claude)".into()),
        (["source-bind", a.to_str().unwrap()].map(str::to_owned).to_vec(), "agentspine: source-bind refused: missing --host HOST (one of claude, codex, gemini, pi, desktop) or --all-hosts, --project DIR (the project you are binding from), --host-home DIR (the host profile you are binding from, e.g. ~/.claude), --confirm-local-binding (a binding changes what your agents are told in every project)".into()),
        (with("--host", "vim"), "agentspine: source-bind refused: --host \"vim\": not a host a binding serves; give one or more of claude, codex, gemini, pi, desktop (comma-separated), or --all-hosts".into()),
        // Every bad value of a list at once.
        (with("--host", "claude,vim,,emacs"), "agentspine: source-bind refused: --host \"vim\", \"\", \"emacs\": not hosts a binding serves; give one or more of claude, codex, gemini, pi, desktop (comma-separated), or --all-hosts".into()),
        // A list with one host bound already is refused whole: codex is not bound either.
        (with("--host", "codex,claude"), "agentspine: source-bind refused: [TMP]/a: that project is already bound for --host claude as binding:[ID]".into()),
        // The deprecated --scope is still checked; --quiet keeps its notice off stderr.
        ([args.clone(), vec!["--scope".into(), "project".into(), "--quiet".into()]].concat(), "agentspine: source-bind refused: [TMP]/a: --scope \"project\" is not supported; the only scope is state-user".into()),
        (b, "agentspine: source-bind refused: [TREE]: that project has no agentspine state to bind (no learning records); add some there first with `agentspine record add`".into()),
        (args.clone(), "agentspine: source-bind refused: [TMP]/a: that project is already bound for --host claude as binding:[ID]".into()),
        (["source-rollback", &format!("binding:{id}")].map(str::to_owned).to_vec(), "agentspine: source-rollback refused: this changes what your agents are told: add --confirm-local-binding to confirm".into()),
        (["source-rollback", "binding:zz", "--confirm-local-binding"].map(str::to_owned).to_vec(), "agentspine: source-rollback refused: \"binding:zz\" is not a binding id; expected binding:ID as `agentspine source-bind` or `agentspine bindings` printed it".into()),
        (["source-purge", "binding:0123abcd", "--confirm-local-binding"].map(str::to_owned).to_vec(), "agentspine: source-purge refused: there is no binding:0123abcd (`agentspine audit` lists binding events)".into()),
    ];
    for (args, expected) in cases {
        let out = run(&ex, &args);
        assert_eq!(redact(&refusal(&ex, &out), &id), expected, "{args:?}");
    }
    let missing = with("--project", "/nonexistent/dir");
    let line = refusal(&ex, &run(&ex, &missing));
    assert!(line.starts_with("agentspine: source-bind refused: --project /nonexistent/dir: "), "{line}");
    assert_eq!(dump(&ex), before);
    // Ended bindings refuse to end again, also without a change.
    ex.stdout(&ex.run("", &["source-rollback", &id, "--confirm-local-binding"]));
    let rolled = dump(&ex);
    let line =
        refusal(&ex, &ex.run("", &["source-rollback", &format!("binding:{id}"), "--confirm-local-binding"]));
    assert_eq!(
        redact(&line, &id),
        "agentspine: source-rollback refused: binding:[ID] is already rolled back"
    );
    assert_eq!(dump(&ex), rolled);
}

#[test]
fn audit_lists_binding_events_and_verify_names_a_row_tampered_with_the_sqlite3_cli() {
    let (ex, a) = configured();
    let first = bind(&ex, &a, "claude");
    ex.stdout(&ex.run("", &["source-rollback", &format!("binding:{first}"), "--confirm-local-binding"]));
    let second = bind(&ex, &a, "all");
    ex.stdout(&ex.run("", &["source-purge", &format!("binding:{second}"), "--confirm-local-binding"]));
    let out = ex.run("", &["audit", "--verify"]);
    insta::assert_snapshot!(ex.stdout(&out), @"binding chain verified: 4 events, each hash-linked to the one before; 2 bindings, 0 active.");

    // --host claude: the claude binding's events and the one for all hosts.
    let out = ex.run("", &["audit", "--host", "claude", "--json"]);
    let events: Vec<String> = ex.json(&out)["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| format!("{} {}", e["host"].as_str().unwrap(), e["event"].as_str().unwrap()))
        .collect();
    assert_eq!(
        events,
        ["claude binding-bind", "claude binding-rollback", "all binding-bind", "all binding-purge"]
    );
    let out = ex.run("", &["audit", "--host", "codex", "--since", "1h"]);
    let lines: Vec<String> = ex.stdout(&out).lines().map(|l| l[26..].to_owned()).collect();
    let lines: Vec<String> = lines.iter().map(|l| redact(&redact(l, &first), &second)).collect();
    insta::assert_snapshot!(lines.join("\n"), @r"
    all      binding-bind  phase=binding code=bind  binding:[ID] made for host all (5 records in the bound state)
    all      binding-purge  phase=binding code=purge  binding:[ID] purged; 0 derived cache rows removed
    ");
    let out = ex.run("", &["audit", "--since", "2999-01-01"]);
    assert_eq!(ex.stdout(&out), "no audit events match\n");
    assert_eq!(
        refusal(&ex, &ex.run("", &["audit", "--since", "yesterday"])),
        "agentspine: --since \"yesterday\": expected an age such as 15m, 2h or 7d, a date such as 2026-11-30, or a UTC time such as 2026-11-30T05:00:00Z"
    );

    // Someone edits event 2 with the sqlite3 CLI (dropping the trigger
    // that refuses updates first).
    let sql = "DROP TRIGGER binding_events_no_update; \
               UPDATE binding_events SET payload = '{\"cache_rows_dropped\":7}' WHERE seq = 2;";
    let status =
        std::process::Command::new("sqlite3").arg(ex.state.join("state.db")).arg(sql).status().unwrap();
    assert!(status.success());
    let out = ex.run("", &["audit", "--verify"]);
    assert_eq!(out.status.code(), Some(1));
    let line = String::from_utf8(out.stdout).unwrap();
    assert!(line.starts_with("binding chain BROKEN at event 2 of 4: sha256 is "), "{line}");
    assert!(
        line.contains("but the event's contents hash to")
            && line.contains(": it was altered. Nothing is read through any binding until it is repaired."),
        "{line}"
    );
    let out = ex.run("", &["audit", "--verify", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let value: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (value["verified"].clone(), value["first_bad_row"]["seq"].clone(), value["events"].clone()),
        (json!(false), json!(2), json!(4))
    );

    // A broken registry is read through by nothing, and bound onto by
    // nothing; the refusal and the failed read are in the audit log.
    let third = bind_args(&ex, &a, "codex");
    let line = refusal(&ex, &run(&ex, &third));
    assert!(line.contains("the binding registry does not verify (binding event 2: sha256 is"), "{line}");
    assert_eq!(hook(&ex, "codex", &session_start(&ex, "s1")), "");
    let out = ex.run("", &["audit", "--host", "codex", "--json"]);
    let last = ex.json(&out)["events"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (last["event"].as_str(), last["code"].as_str()),
        (Some("continuity-read"), Some("chain-broken"))
    );
}

#[test]
fn the_json_of_bind_rollback_purge_and_audit_is_stable() {
    let (ex, a) = configured();
    let mut args = bind_args(&ex, &a, "codex");
    args.push("--json".into());
    let mut bound = ex.json(&run(&ex, &args));
    // One host: `changes` is that one change (snapshotted as `change`).
    assert_eq!(bound["changes"], json!([bound["change"].clone()]));
    bound.as_object_mut().unwrap().remove("changes");
    let id = bound["change"]["binding"]["id"].as_str().unwrap().to_owned();
    let hex = |v: &Value, len: usize| {
        let text = v.as_str().unwrap();
        text.len() == len && text.bytes().all(|b| b.is_ascii_hexdigit())
    };
    // Digests are keyed by the state directory and hashes cover times:
    // checked for shape here, redacted in the snapshot.
    let change = &bound["change"];
    assert!(hex(&change["binding"]["source_root"], 32) && hex(&change["binding"]["project"], 32));
    assert!(hex(&change["event"]["sha256"], 64) && hex(&id.clone().into(), 16));
    let clean = |v: &Value| -> Value { serde_json::from_str(&redact(&v.to_string(), &id)).unwrap() };
    insta::assert_json_snapshot!(clean(&bound), {
        ".change.binding.source_root" => "[digest]", ".change.binding.project" => "[digest]",
        ".change.binding.host_home" => "[digest]", ".change.event.payload.source_root" => "[digest]",
        ".change.event.payload.project" => "[digest]", ".change.event.payload.host_home" => "[digest]",
        ".change.event.sha256" => "[sha256]", ".change.binding.bound_at" => "[ms]",
        ".change.event.created_at" => "[ms]", ".change.audit_id" => "[n]"
    }, @r#"
    {
      "accepted_portable_records": 2,
      "bound": "[TMP]/a",
      "change": {
        "audit_id": "[n]",
        "binding": {
          "bound_at": "[ms]",
          "bound_seq": 1,
          "ended_at": null,
          "host": "codex",
          "host_home": "[digest]",
          "id": "[ID]",
          "project": "[digest]",
          "scope": "state-user",
          "source_root": "[digest]",
          "state": "active"
        },
        "cache_rows_dropped": 0,
        "event": {
          "binding_id": "[ID]",
          "created_at": "[ms]",
          "kind": "bind",
          "payload": {
            "host": "codex",
            "host_home": "[digest]",
            "project": "[digest]",
            "scope": "state-user",
            "source_root": "[digest]"
          },
          "prev_sha256": "0000000000000000000000000000000000000000000000000000000000000000",
          "seq": 1,
          "sha256": "[sha256]"
        }
      },
      "records_staying_in_their_project": 2
    }
    "#);
    let out = ex.run("", &["source-rollback", &format!("binding:{id}"), "--confirm-local-binding", "--json"]);
    let rolled = ex.json(&out);
    assert_eq!(rolled["change"]["event"]["prev_sha256"], change["event"]["sha256"]);
    insta::assert_json_snapshot!(clean(&rolled), {
        ".change.binding.source_root" => "[digest]", ".change.binding.project" => "[digest]",
        ".change.binding.host_home" => "[digest]", ".change.event.prev_sha256" => "[sha256]",
        ".change.event.sha256" => "[sha256]", ".change.binding.bound_at" => "[ms]",
        ".change.binding.ended_at" => "[ms]", ".change.event.created_at" => "[ms]", ".change.audit_id" => "[n]"
    }, @r#"
    {
      "change": {
        "audit_id": "[n]",
        "binding": {
          "bound_at": "[ms]",
          "bound_seq": 1,
          "ended_at": "[ms]",
          "host": "codex",
          "host_home": "[digest]",
          "id": "[ID]",
          "project": "[digest]",
          "scope": "state-user",
          "source_root": "[digest]",
          "state": "rolled-back"
        },
        "cache_rows_dropped": 0,
        "event": {
          "binding_id": "[ID]",
          "created_at": "[ms]",
          "kind": "rollback",
          "payload": {
            "cache_rows_dropped": 0
          },
          "prev_sha256": "[sha256]",
          "seq": 2,
          "sha256": "[sha256]"
        }
      }
    }
    "#);
    let out = ex.run("", &["audit", "--verify", "--json"]);
    insta::assert_json_snapshot!(ex.json(&out), @r#"
    {
      "active": 0,
      "bindings": 1,
      "events": 2,
      "first_bad_row": null,
      "state_incidents": [],
      "verified": true
    }
    "#);
    let out = ex.run("", &["audit", "--host", "codex", "--json"]);
    insta::assert_json_snapshot!(clean(&ex.json(&out)), {
        ".events[].at" => "[time]", ".events[].at_ms" => "[ms]", ".events[].id" => "[n]"
    }, @r#"
    {
      "events": [
        {
          "at": "[time]",
          "at_ms": "[ms]",
          "code": "bind",
          "detail": "binding:[ID] made for host codex (5 records in the bound state)",
          "event": "binding-bind",
          "host": "codex",
          "id": "[n]",
          "path": null,
          "phase": "binding"
        },
        {
          "at": "[time]",
          "at_ms": "[ms]",
          "code": "rollback",
          "detail": "binding:[ID] rolled back; 0 derived cache rows removed",
          "event": "binding-rollback",
          "host": "codex",
          "id": "[n]",
          "path": null,
          "phase": "binding"
        }
      ],
      "pruned": {
        "last_at_ms": null,
        "prunes": 0,
        "rows": 0,
        "through_id": null
      },
      "reports": [],
      "state_incidents": []
    }
    "#);
}

/// `agentspine serve` on a socket in `run_dir`, with the example's home
/// and state directory.
fn serve(ex: &Example, run_dir: &tempfile::TempDir) -> crate::serve::Served {
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
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    crate::serve::Served::start(command.spawn().unwrap())
}

/// The labels of a socket answer's continuity items.
fn socket_labels(answer: &Value) -> Vec<String> {
    answer["continuity"].as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn a_desktop_session_in_a_project_carries_its_own_accepted_records_as_the_cli_does() {
    let (ex, a) = configured();
    let root = a.to_str().unwrap();
    let run_dir = tempfile::Builder::new().tempdir_in("/tmp").unwrap();
    let served = serve(&ex, &run_dir);
    let mut host = served.host();
    host.ok("projects.register", json!({ "root": root }));
    let bound = host.ok("session.bind", json!({ "session_id": "own", "project_root": root }));
    let own = ["project/preference/record:1", "project/no-go/record:2", "project/project-fact/record:4"];
    assert_eq!(socket_labels(&bound), own, "{bound}");
    // The same records, in the same order, as the CLI's briefing for the
    // desktop in A: one rule, asked by both.
    let briefing = ex.json(&ex.run("", &["briefing", "--host", "desktop", "--cwd", root, "--json"]));
    let cli: Vec<String> = continuity_sources(&briefing).into_iter().map(|(label, _)| label).collect();
    assert_eq!(socket_labels(&bound), cli);
    let whole = bound.to_string();
    for kept in [SECRET, PROPOSED] {
        assert!(!whole.contains(kept), "{kept} came through: {whole}");
    }
    // A record accepted now is there from the next prompt.
    let out = record(&ex, &a, &["add", "--kind", "no-go", "Never skip the changelog."]);
    let id = ex.stdout(&out).split_whitespace().nth(1).unwrap().to_owned();
    ex.stdout(&record(&ex, &a, &["accept", &id]));
    let next = host.ok("session.prompt_begin", json!({ "session_id": "own" }));
    assert_eq!(socket_labels(&next).len(), 4, "{next}");
    assert_eq!(socket_labels(&next)[3], format!("project/no-go/record:{id}"));
    // Bound for the desktop as well (from A to the example tree): still
    // each record once, as A's own.
    bind(&ex, &a, "desktop");
    let again = host.ok("session.prompt_begin", json!({ "session_id": "own" }));
    assert_eq!(socket_labels(&again), socket_labels(&next));
}

#[test]
fn the_desktop_socket_carries_a_desktop_binding_from_the_next_prompt_and_drops_it_after_a_rollback() {
    let (ex, a) = configured();
    // A binding for codex is not the desktop's.
    bind(&ex, &a, "codex");
    let run_dir = tempfile::Builder::new().tempdir_in("/tmp").unwrap();
    let served = serve(&ex, &run_dir);
    let mut host = served.host();
    let root = ex.tree.to_str().unwrap();
    host.ok("projects.register", json!({ "root": root }));
    let bound = host.ok("session.bind", json!({ "session_id": "d1", "project_root": root }));
    assert_eq!(bound["continuity"], json!([]), "{bound}");

    let id = bind(&ex, &a, "desktop");
    let next = host.ok("session.prompt_begin", json!({ "session_id": "d1" }));
    let items: Vec<(String, String, String)> = next["continuity"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            let field = |name: &str| item[name].as_str().unwrap().to_owned();
            (redact(&field("label"), &id), field("kind"), field("text"))
        })
        .collect();
    assert_eq!(
        items,
        [
            ("binding:[ID]/preference/record:1".to_owned(), "preference".to_owned(), PREFERENCE.to_owned()),
            ("binding:[ID]/no-go/record:2".to_owned(), "no-go".to_owned(), NO_GO.to_owned()),
        ]
    );
    let whole = next.to_string();
    for kept in [SECRET, FACT, PROPOSED] {
        assert!(!whole.contains(kept), "{kept} came through: {whole}");
    }
    // A new session bound now gets them with its root chain.
    let again = host.ok("session.bind", json!({ "session_id": "d2", "project_root": root }));
    assert_eq!(again["continuity"], next["continuity"]);

    let out = ex.run("", &["source-rollback", &format!("binding:{id}"), "--confirm-local-binding"]);
    assert!(out.status.success());
    let after = host.ok("session.prompt_begin", json!({ "session_id": "d1" }));
    assert_eq!(after["continuity"], json!([]), "{after}");
}

#[test]
fn a_binding_for_pi_reaches_both_pi_versions_and_no_other_host() {
    let (ex, a) = configured();
    bind(&ex, &a, "pi");
    for host in ["pi", "pi-0.73"] {
        assert!(text(&briefing(&ex, host)).contains(PREFERENCE), "{host}");
    }
    for host in ["claude", "codex", "desktop"] {
        assert!(!text(&briefing(&ex, host)).contains(PREFERENCE), "{host}");
    }
}

#[test]
fn bindings_lists_every_binding_with_its_id_project_hosts_state_and_counts() {
    let (ex, a) = configured();
    let first = bind(&ex, &a, "claude");
    let second = bind(&ex, &a, "codex");
    ex.stdout(&run(
        &ex,
        &["source-rollback".into(), format!("binding:{first}"), "--confirm-local-binding".into()],
    ));
    let redacted = |text: String| {
        let text = redact(&redact(&text, &first), &second);
        // Times and the bound project's digest change from run to run.
        let time = |s: &str| {
            s.split(|c: char| c == '"' || c == ',' || c.is_whitespace())
                .filter(|w| w.ends_with('Z') && w.contains('T'))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        let mut text = text.clone();
        for t in time(&text) {
            text = text.replace(&t, "[TIME]");
        }
        text
    };
    let json = ex.json(&ex.run("", &["bindings", "--json", "--cwd", a.to_str().unwrap()]));
    let rows = json["bindings"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    let digest = rows[0]["bound_project"].as_str().unwrap().to_owned();
    assert_eq!(digest.len(), 32);
    let value = redacted(serde_json::to_string_pretty(&json).unwrap().replace(&digest, "[DIGEST]"));
    insta::assert_snapshot!(value, @r#"
    {
      "bindings": [
        {
          "accepted_portable_records": 2,
          "bound_at": "[TIME]",
          "bound_project": "[DIGEST]",
          "cache_rows": 0,
          "ended_at": "[TIME]",
          "hosts": "claude",
          "id": "binding:[ID]",
          "state": "rolled back",
          "this_project": true
        },
        {
          "accepted_portable_records": 2,
          "bound_at": "[TIME]",
          "bound_project": "[DIGEST]",
          "cache_rows": 0,
          "ended_at": null,
          "hosts": "codex",
          "id": "binding:[ID]",
          "state": "active",
          "this_project": true
        }
      ],
      "chain": "verified"
    }
    "#);
    let human = redacted(ex.stdout(&ex.run("", &["bindings"])).replace(&digest[..16], "[DIGEST]"));
    insta::assert_snapshot!(human, @"
    binding:[ID]  rolled back  hosts claude   project [DIGEST]  2 accepted portable records, 0 cache rows  bound [TIME], ended [TIME]
    binding:[ID]  active       hosts codex    project [DIGEST]  2 accepted portable records, 0 cache rows  bound [TIME]
    registry verified
    ");
}

#[test]
fn a_projects_own_accepted_records_are_context_in_it_and_authority_never() {
    let (ex, a) = configured();
    let kinds = |out: &Output| -> Vec<String> {
        let value = ex.json(out);
        let sources = value["sources"].as_array().unwrap();
        sources
            .iter()
            .filter(|s| s["scope"] == "continuity")
            .map(|s| s["rel_path"].as_str().unwrap().to_owned())
            .collect()
    };
    // In A itself, without any binding: the accepted preference, no-go and
    // project fact; not the secret, not the proposed preference.
    let own = kinds(&ex.run("", &["briefing", "--cwd", a.to_str().unwrap(), "--json"]));
    assert_eq!(
        own,
        ["project/preference/record:1", "project/no-go/record:2", "project/project-fact/record:4"]
    );
    // In another project, nothing until it is bound.
    assert_eq!(kinds(&ex.run("", &["briefing", "--json"])), Vec::<String>::new());
    // Bound (for every host) and briefed in A again: each record once, as A's own.
    bind(&ex, &a, "all");
    let again = kinds(&ex.run("", &["briefing", "--cwd", a.to_str().unwrap(), "--json"]));
    assert_eq!(again, own);
    // The hooks of a session in A carry them too, saying whose they are.
    let mut start = session_start(&ex, "own");
    start["cwd"] = json!(a);
    let context = hook(&ex, "claude", &start);
    assert!(
        context.contains(
            "Continuity from project/preference/record:1 (a preference the user accepted in this project"
        ),
        "{context}"
    );
    assert!(!context.contains("hunter2"), "{context}");
    // Binding A from A itself says why there is nothing to bind.
    let mut args = bind_args(&ex, &a, "claude");
    let at = args.iter().position(|x| x == "--project").unwrap();
    args[at + 1] = a.display().to_string();
    let line = refusal(&ex, &run(&ex, &args));
    assert_eq!(
        line,
        "agentspine: source-bind refused: [TMP]/a: that is the project you are binding from; its own accepted records are already context in it, so there is nothing to bind (bind it from another project)"
    );
}

/// A binding made for Gemini CLI reaches Gemini's briefing and hook, and
/// only Gemini's.
#[test]
fn a_binding_for_gemini_reaches_gemini_only() {
    let (ex, a) = configured();
    bind(&ex, &a, "gemini");
    assert!(text(&briefing(&ex, "gemini")).contains(PREFERENCE));
    assert!(!text(&briefing(&ex, "codex")).contains(PREFERENCE));
    let start =
        json!({"session_id": "g", "cwd": ex.tree, "hook_event_name": "SessionStart", "source": "startup"});
    assert!(hook(&ex, "gemini", &start).contains(PREFERENCE));
}
