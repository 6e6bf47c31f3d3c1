//! `source-bind --host a,b`: one binding per host named, each with its
//! own id, made only when every host can be bound.

use serde_json::Value;

use crate::continuity::{NO_GO, PREFERENCE, bind_args, briefing, configured, redact, run, text};

#[test]
fn a_host_list_makes_one_binding_per_host_and_each_reads_through_its_own() {
    let (ex, a) = configured();
    // Named twice, bound once.
    let args = bind_args(&ex, &a, "codex,claude,codex");
    let out = run(&ex, &args);
    let printed = text(&out);
    let ids: Vec<String> = printed
        .lines()
        .filter(|l| l.starts_with("bound: binding:"))
        .map(|l| l["bound: binding:".len()..].split_whitespace().next().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 2, "{printed}");
    let mut shown = ex.filter(&printed);
    for (n, id) in ids.iter().enumerate() {
        shown = redact(&shown, id).replace("[ID]", &format!("[ID{}]", n + 1));
    }
    insta::assert_snapshot!(shown, @r"
    bound: binding:[ID1] lets host codex read the accepted preference, no-go, correction, reference, person-relationship records of [TMP]/a from the next hook, MCP call or briefing on.
    bound: binding:[ID2] lets host claude read the accepted preference, no-go, correction, reference, person-relationship records of [TMP]/a from the next hook, MCP call or briefing on.
    Now readable: 2 accepted portable records; 2 records of other kinds stay in that project. Nothing was copied.
    Context only: it grants no identity, role, permission, delegation or trust.
    Undo with: agentspine source-rollback binding:[ID1] --confirm-local-binding
    Undo with: agentspine source-rollback binding:[ID2] --confirm-local-binding
    ");
    // Each host reads through its own; the desktop through none.
    for host in ["codex", "claude"] {
        let told = text(&briefing(&ex, host));
        assert!(told.contains(PREFERENCE) && told.contains(NO_GO), "{host}");
    }
    assert!(!text(&briefing(&ex, "desktop")).contains(PREFERENCE));
    let listed = ex.json(&ex.run("", &["bindings", "--json"]));
    let hosts: Vec<(String, String)> = listed["bindings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["id"].as_str().unwrap().to_owned(), b["hosts"].as_str().unwrap().to_owned()))
        .collect();
    let mut expected = vec![
        (format!("binding:{}", ids[0]), "codex".to_owned()),
        (format!("binding:{}", ids[1]), "claude".to_owned()),
    ];
    expected.sort();
    let mut hosts = hosts;
    hosts.sort();
    assert_eq!(hosts, expected);
    // source-status lists them as `bindings` does, one line each.
    let status = text(&ex.run("", &["source-status", "--host", "codex"]));
    let listed: Vec<&str> = status.lines().filter(|l| l.starts_with("  binding:")).collect();
    assert_eq!(listed.len(), 2, "{status}");
    let all = text(&ex.run("", &["bindings"]));
    for line in &listed {
        assert!(all.lines().any(|l| l == line.trim_start()), "{line} not in: {all}");
    }
    assert!(status.contains("bindings      1 active for codex; registry verified"), "{status}");
    // Rolling one back leaves the other.
    let out = ex.run("", &["source-rollback", &format!("binding:{}", ids[0]), "--confirm-local-binding"]);
    assert!(out.status.success());
    assert!(!text(&briefing(&ex, "codex")).contains(PREFERENCE));
    assert!(text(&briefing(&ex, "claude")).contains(PREFERENCE));
}

#[test]
fn the_json_of_a_host_list_has_every_change_and_the_first_as_change() {
    let (ex, a) = configured();
    let mut args = bind_args(&ex, &a, "pi,desktop");
    args.push("--json".into());
    let bound: Value = ex.json(&run(&ex, &args));
    let changes = bound["changes"].as_array().unwrap();
    let hosts: Vec<&str> = changes.iter().map(|c| c["binding"]["host"].as_str().unwrap()).collect();
    assert_eq!(hosts, ["pi", "desktop"]);
    assert_eq!(bound["change"], changes[0]);
    assert_ne!(changes[0]["binding"]["id"], changes[1]["binding"]["id"]);
    assert_eq!(bound["accepted_portable_records"], 2);
}
