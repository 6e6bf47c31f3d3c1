//! `agentspine record`: learning records of one project, through the real
//! binary and the real state database.

use std::path::PathBuf;
use std::process::Output;

use crate::support::Example;

/// A second project beside the example tree, where records are added.
pub fn project_a(ex: &Example) -> PathBuf {
    let a = ex.dir.path().join("a");
    std::fs::create_dir_all(a.join(".git")).unwrap();
    std::fs::write(a.join("AGENTS.md"), "# Project A\n").unwrap();
    a
}

/// `agentspine record ARGS --cwd DIR`.
pub fn record(ex: &Example, dir: &std::path::Path, args: &[&str]) -> Output {
    let mut all = vec!["record"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--cwd", dir.to_str().unwrap()]);
    ex.run("", &all)
}

/// The one line an error leaves on stderr (exit 2).
pub fn refusal(ex: &Example, out: &Output) -> String {
    assert_eq!(out.status.code(), Some(2), "stdout: {}", String::from_utf8_lossy(&out.stdout));
    assert!(out.stdout.is_empty());
    let stderr = ex.filter(&String::from_utf8(out.stderr.clone()).unwrap());
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    stderr.trim_end().to_owned()
}

/// Everything the state database holds that a refused command must leave
/// alone, as the sqlite3 CLI dumps it.
pub fn dump(ex: &Example) -> String {
    let out = std::process::Command::new("sqlite3")
        .arg(ex.state.join("state.db"))
        .arg(".dump records binding_events audit cache")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_record_is_proposed_then_accepted_corrected_and_retracted_and_each_step_says_so() {
    let ex = Example::new();
    let a = project_a(&ex);
    let out = record(&ex, &a, &["add", "--kind", "preference", "Answer in British English."]);
    insta::assert_snapshot!(ex.stdout(&out), @r"
    record 1 added to [TMP]/a as a proposed preference (portable: other projects can read it through `agentspine source-bind` once it is accepted).
    It is not context until you accept it: agentspine record accept 1
    ");
    let out = record(&ex, &a, &["accept", "1"]);
    insta::assert_snapshot!(ex.stdout(&out), @"record 1 accepted: this preference is now context in this project and wherever it is bound (`agentspine source-bind`).");
    let out = record(&ex, &a, &["add", "--kind", "secret", "The staging password is hunter2."]);
    insta::assert_snapshot!(ex.stdout(&out), @"
    record 2 added to [TMP]/a as a proposed secret (never context: kept for you here, never put before a model).
    It is not context until you accept it: agentspine record accept 2
    ");
    let out = record(&ex, &a, &["accept", "2"]);
    insta::assert_snapshot!(ex.stdout(&out), @"record 2 accepted: a secret is kept here and is never context, in this project or any other.");
    let out =
        record(&ex, &a, &["add", "--kind", "correction", "--supersedes", "1", "Answer in American English."]);
    insta::assert_snapshot!(ex.stdout(&out), @r"
    record 3 added to [TMP]/a as a proposed correction (portable: other projects can read it through `agentspine source-bind` once it is accepted).
    Once accepted, it supersedes record 1.
    It is not context until you accept it: agentspine record accept 3
    ");
    let out = record(&ex, &a, &["accept", "3"]);
    insta::assert_snapshot!(ex.stdout(&out), @"
    record 3 accepted: this correction is now context in this project and wherever it is bound (`agentspine source-bind`).
    It supersedes record 1, which is no longer context; 0 derived cache rows dropped.
    ");
    let out = record(&ex, &a, &["add", "--kind", "no-go", "Never push to main."]);
    ex.stdout(&out);
    let out = record(&ex, &a, &["retract", "4"]);
    insta::assert_snapshot!(ex.stdout(&out), @"record 4 retracted: it is no longer context anywhere; 0 derived cache rows dropped (the record is kept, marked retracted).");
    let out = record(&ex, &a, &["list"]);
    insta::assert_snapshot!(ex.stdout(&out), @r"
    [TMP]/a: 4 records, 2 accepted, 1 of them portable (read wherever this project is bound)
       1  superseded  preference           portable      Answer in British English.  (superseded by 3)
       2  accepted    secret               this project  The staging password is hunter2.
       3  accepted    correction           portable      Answer in American English.  (corrects 1)
       4  retracted   no-go                portable      Never push to main.
    ");
    let out = record(&ex, &a, &["list", "--json"]);
    insta::assert_json_snapshot!(ex.json(&out), {
        ".records[].created_at" => "[ms]", ".records[].updated_at" => "[ms]"
    }, @r#"
    {
      "project_root": "[TMP]/a",
      "records": [
        {
          "created_at": "[ms]",
          "id": 1,
          "kind": "preference",
          "portable": true,
          "status": "superseded",
          "superseded_by": 3,
          "supersedes": null,
          "text": "Answer in British English.",
          "updated_at": "[ms]"
        },
        {
          "created_at": "[ms]",
          "id": 2,
          "kind": "secret",
          "portable": false,
          "status": "accepted",
          "superseded_by": null,
          "supersedes": null,
          "text": "The staging password is hunter2.",
          "updated_at": "[ms]"
        },
        {
          "created_at": "[ms]",
          "id": 3,
          "kind": "correction",
          "portable": true,
          "status": "accepted",
          "superseded_by": null,
          "supersedes": 1,
          "text": "Answer in American English.",
          "updated_at": "[ms]"
        },
        {
          "created_at": "[ms]",
          "id": 4,
          "kind": "no-go",
          "portable": true,
          "status": "retracted",
          "superseded_by": null,
          "supersedes": null,
          "text": "Never push to main.",
          "updated_at": "[ms]"
        }
      ],
      "state_incidents": []
    }
    "#);
    // Records are kept per project: the example tree has none.
    let out = ex.run("", &["record", "list"]);
    insta::assert_snapshot!(ex.stdout(&out), @"[TREE]: no learning records (add one with `agentspine record add --kind preference TEXT`)");
    // The audit log names each change, never the text.
    let out = ex.run("", &["audit", "--host", "cli", "--json"]);
    let events = ex.json(&out)["events"].as_array().unwrap().clone();
    let got: Vec<String> = events.iter().map(|e| format!("{} {}", e["event"], e["detail"])).collect();
    assert_eq!(got.len(), 8, "4 adds, 3 accepts, 1 retract: {got:#?}");
    assert_eq!(got[5], r#""record-accept" "record 3 accepted; it supersedes record 1""#);
    assert!(!events.iter().any(|e| e.to_string().contains("hunter2")));
}

#[test]
fn bad_record_input_is_refused_in_one_line_and_changes_nothing() {
    let ex = Example::new();
    let a = project_a(&ex);
    ex.stdout(&record(&ex, &a, &["add", "--kind", "preference", "kept"]));
    let before = dump(&ex);
    let long = "x".repeat(4097);
    let cases: [(&[&str], &str); 8] = [
        (
            &["add", "--kind", "preference", "   "],
            "agentspine: the record text is empty: say what the agent should learn",
        ),
        (
            &["add", "--kind", "preference", &long],
            "agentspine: the record text is 4097 bytes; at most 4096 are allowed (keep one record to one point)",
        ),
        (
            &["add", "--kind", "correction", "x"],
            "agentspine: a correction names the record it corrects: add --supersedes ID",
        ),
        (
            &["add", "--kind", "task", "--supersedes", "1", "x"],
            "agentspine: only a correction supersedes a record; this one is a task",
        ),
        (
            &["add", "--kind", "correction", "--supersedes", "7", "x"],
            "agentspine: there is no record 7 in this project (`agentspine record list` shows them)",
        ),
        (
            &["accept", "7"],
            "agentspine: there is no record 7 in this project (`agentspine record list` shows them)",
        ),
        (
            &["retract", "7"],
            "agentspine: there is no record 7 in this project (`agentspine record list` shows them)",
        ),
        (
            &["retract", "0"],
            "agentspine: there is no record 0 in this project (`agentspine record list` shows them)",
        ),
    ];
    for (args, expected) in cases {
        assert_eq!(refusal(&ex, &record(&ex, &a, args)), expected, "{args:?}");
    }
    // Another project cannot accept this project's record.
    assert_eq!(
        refusal(&ex, &ex.run("", &["record", "accept", "1"])),
        "agentspine: there is no record 1 in this project (`agentspine record list` shows them)"
    );
    // An unknown kind is clap's refusal (exit 2), also before any write.
    let out = record(&ex, &a, &["add", "--kind", "opinion", "x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid value 'opinion' for '--kind <KIND>'"));
    assert_eq!(dump(&ex), before);
    ex.stdout(&record(&ex, &a, &["accept", "1"]));
    let accepted = dump(&ex);
    assert_eq!(
        refusal(&ex, &record(&ex, &a, &["accept", "1"])),
        "agentspine: record 1 is accepted; only a proposed record can be accepted"
    );
    assert_eq!(dump(&ex), accepted);
}

#[test]
fn the_json_of_add_accept_and_retract_is_stable() {
    let ex = Example::new();
    let a = project_a(&ex);
    let out = record(&ex, &a, &["add", "--kind", "reference", "See docs/style.md.", "--json"]);
    insta::assert_json_snapshot!(ex.json(&out), { ".record.created_at" => "[ms]", ".record.updated_at" => "[ms]" }, @r#"
    {
      "project_root": "[TMP]/a",
      "record": {
        "created_at": "[ms]",
        "id": 1,
        "kind": "reference",
        "portable": true,
        "status": "proposed",
        "superseded_by": null,
        "supersedes": null,
        "text": "See docs/style.md.",
        "updated_at": "[ms]"
      }
    }
    "#);
    ex.stdout(&record(&ex, &a, &["accept", "1"]));
    ex.stdout(&record(&ex, &a, &["add", "--kind", "correction", "--supersedes", "1", "See docs/STYLE.md."]));
    let out = record(&ex, &a, &["accept", "2", "--json"]);
    insta::assert_json_snapshot!(ex.json(&out), { ".change.record.created_at" => "[ms]", ".change.record.updated_at" => "[ms]" }, @r#"
    {
      "change": {
        "cache_rows_dropped": 0,
        "record": {
          "created_at": "[ms]",
          "id": 2,
          "kind": "correction",
          "portable": true,
          "status": "accepted",
          "superseded_by": null,
          "supersedes": 1,
          "text": "See docs/STYLE.md.",
          "updated_at": "[ms]"
        },
        "superseded": 1
      },
      "project_root": "[TMP]/a"
    }
    "#);
    let out = record(&ex, &a, &["retract", "2", "--json"]);
    insta::assert_json_snapshot!(ex.json(&out), { ".change.record.created_at" => "[ms]", ".change.record.updated_at" => "[ms]" }, @r#"
    {
      "change": {
        "cache_rows_dropped": 0,
        "record": {
          "created_at": "[ms]",
          "id": 2,
          "kind": "correction",
          "portable": true,
          "status": "retracted",
          "superseded_by": null,
          "supersedes": 1,
          "text": "See docs/STYLE.md.",
          "updated_at": "[ms]"
        },
        "superseded": null
      },
      "project_root": "[TMP]/a"
    }
    "#);
}
