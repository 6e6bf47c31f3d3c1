//! `agentspine briefing`, `query` and `read` on the bundled example.

use crate::support::Example;

#[test]
fn briefing_json_labels_every_part_and_reports_the_resolution() {
    let ex = Example::new();
    let out = ex.run("packages/api", &["briefing", "--host", "codex", "--budget", "600", "--json"]);
    // The profile digest hashes the temporary home's path: redacted.
    insta::assert_json_snapshot!(ex.json(&out), { ".sourceResolution.profile_digest" => "[digest]" }, @r###"
    {
      "budget_bytes": 600,
      "omitted": [],
      "parts": [
        {
          "bytes": 162,
          "cut": null,
          "rel_path": "AGENTS.md",
          "scope": "project",
          "source_id": "src_[0]"
        },
        {
          "bytes": 95,
          "cut": null,
          "rel_path": "packages/api/AGENTS.override.md",
          "scope": "project",
          "source_id": "src_[1]"
        }
      ],
      "receipt": null,
      "sourceResolution": {
        "checked_scopes": [
          "user",
          "project"
        ],
        "counts": {
          "project": 2
        },
        "gaps": [],
        "host": "codex",
        "memory": null,
        "profile_digest": "[digest]",
        "project_root": "[TREE]",
        "reason": null,
        "root_kind": "project",
        "warnings": [],
        "work": {
          "bytes_read": 259,
          "confirmations": "[confirmations]",
          "dir_entries": 0,
          "dir_enumerations": 0,
          "opens": 14,
          "readlinks": 0,
          "reads": 2,
          "refusals": {
            "budget-exhausted": 0,
            "deadline": 0,
            "escape": 0,
            "hard-link": 0,
            "invalid-path": 0,
            "io": 0,
            "mount-crossing": 0,
            "not-directory": 0,
            "not-found": 6,
            "not-regular": 0,
            "permission-denied": 0,
            "race": 0,
            "symlink": 0,
            "too-large": 0
          },
          "reopens": 2,
          "retries": 0,
          "stats": 7
        }
      },
      "sources": [
        {
          "bytes": 163,
          "rel_path": "AGENTS.md",
          "required": true,
          "scope": "project",
          "sha256": "8734410af43096ccb3645a0dc923160c41fdad09ba5bf8bed05219224b419eb4",
          "source_id": "src_[0]"
        },
        {
          "bytes": 96,
          "rel_path": "packages/api/AGENTS.override.md",
          "required": true,
          "scope": "project",
          "sha256": "9d7f1aeccb7341dcffabe61a89409e94df1a04a335c5f4cd45c6b869430c5479",
          "source_id": "src_[1]"
        }
      ],
      "text": "## AGENTS.md · project · src_[0]\n\n# Monorepo conventions\n\n- Run `make check` before you commit; CI runs the same target.\n- Every package owns its tests; never import across `packages/*` internals.\n\n## packages/api/AGENTS.override.md · project · src_[1]\n\n# packages/api (override)\n\nDuring the v2 migration, new endpoints go in `src/handlers/v2` only.\n\n"
    }
    "###);
}

#[test]
fn a_query_ranks_passages_of_the_same_catalog() {
    let ex = Example::new();
    let out = ex.run(".", &["query", "where do new endpoints go", "--markdown", "--limit", "2", "--json"]);
    let answer = ex.json(&out);
    insta::assert_json_snapshot!(answer["hits"], @r#"
    [
      {
        "excerpt": "During the v2 migration, new endpoints go in `src/handlers/v2` only.",
        "line_end": 3,
        "line_start": 3,
        "rel_path": "packages/api/AGENTS.override.md",
        "score": 8.107,
        "source_id": "src_[6]"
      },
      {
        "excerpt": "Storybook stories accompany every new component.",
        "line_end": 3,
        "line_start": 3,
        "rel_path": "packages/web/CLAUDE.md",
        "score": 3.208,
        "source_id": "src_[9]"
      }
    ]
    "#);
    assert_eq!(answer["briefing"]["budget_bytes"], 65536);
}

#[test]
fn read_returns_a_source_by_id_and_refuses_others() {
    let ex = Example::new();
    let out = ex.run(".", &["briefing", "--host", "generic", "--json"]);
    let raw: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = raw["sources"][0]["source_id"].as_str().unwrap().to_owned();
    let doc = ex.json(&ex.run(".", &["read", &id, "--json"]));
    insta::assert_json_snapshot!(doc, @r##"
    {
      "bytes": 163,
      "changed": false,
      "rel_path": "AGENTS.md",
      "scope": "project",
      "sha256": "8734410af43096ccb3645a0dc923160c41fdad09ba5bf8bed05219224b419eb4",
      "source_id": "src_[0]",
      "text": "# Monorepo conventions\n\n- Run `make check` before you commit; CI runs the same target.\n- Every package owns its tests; never import across `packages/*` internals.\n"
    }
    "##);
    let bad = ex.run(".", &["read", "src_000000000000000000000000", "--json"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stdout).contains(
        "not a source of any catalog of [TREE]".replace("[TREE]", &ex.tree.display().to_string()).as_str()
    ));
}

/// The id of the first source of `scope` a briefing or query printed.
fn id_of(value: &serde_json::Value, list: &str, scope: &str) -> String {
    let found = value[list].as_array().unwrap().iter().find(|s| s["scope"] == scope);
    found.unwrap_or_else(|| panic!("no {scope} source in {value}"))["source_id"].as_str().unwrap().to_owned()
}

#[test]
fn ids_printed_for_another_host_with_markdown_or_a_prompt_are_read_back() {
    let ex = Example::new();
    ex.home_file(".claude/CLAUDE.md", "Answer in British English.\n");
    let settings = serde_json::json!({ "autoMemoryDirectory": ex.memory.display().to_string() });
    ex.home_file(".claude/settings.json", &settings.to_string());
    let read = |args: &[&str]| {
        let out = ex.run(".", args);
        let note = ex.filter(&String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stdout));
        (ex.json(&out), note)
    };

    // Raw JSON: `Example::json` numbers the ids.
    let raw =
        |args: &[&str]| -> serde_json::Value { serde_json::from_slice(&ex.run(".", args).stdout).unwrap() };

    // A user-wide file of Claude's briefing, read back without --host.
    let briefing = raw(&["briefing", "--host", "claude", "--json"]);
    let user = id_of(&briefing, "sources", "user");
    let (doc, note) = read(&["read", &user, "--json"]);
    assert_eq!(doc["text"], "Answer in British English.\n");
    assert_eq!(
        note,
        format!(
            "note: {} is a source of this project's catalog with --host claude; pass those flags to read it directly\n",
            ex.filter(&user)
        )
    );
    let (_, quiet) = read(&["read", &user, "--json", "--quiet"]);
    assert_eq!(quiet, "");
    let (_, direct) = read(&["read", &user, "--host", "claude", "--json"]);
    assert_eq!(direct, "");

    // A document of a query with project-wide Markdown.
    let answer = raw(&["query", "conventions", "--markdown", "--json"]);
    let docs = id_of(&answer["briefing"], "parts", "doc");
    let (doc, note) = read(&["read", &docs, "--json"]);
    assert_eq!(doc["scope"], "doc");
    assert!(
        note.ends_with("with --host generic --markdown; pass those flags to read it directly\n"),
        "{note}"
    );

    // A memory fact the prompt made relevant (link 4, pasta.md) needs the
    // same prompt.
    let briefing = raw(&["briefing", "--host", "claude", "--prompt", "carbonara", "--json"]);
    let fact = briefing["sources"].as_array().unwrap().iter().find(|s| s["rel_path"] == "memory:4");
    let fact = fact.unwrap()["source_id"].as_str().unwrap().to_owned();
    let without = ex.run(".", &["read", &fact, "--host", "claude", "--json"]);
    assert_eq!(without.status.code(), Some(2));
    assert_eq!(ex.json_any(&without)["error"]["code"], "unknown-source-id");
    let (doc, _) = read(&["read", &fact, "--host", "claude", "--prompt", "carbonara", "--json"]);
    assert_eq!(doc["scope"], "memory");
}

#[test]
fn a_required_preflight_exits_3_naming_each_cause_and_audits_it() {
    let ex = Example::new();
    let out = ex.run(
        "packages/api",
        &["briefing", "--host", "desktop", "--budget", "100000", "--required", "--json"],
    );
    let ok = ex.json(&out);
    assert!(ok["receipt"]["id"].as_str().unwrap().starts_with("rcpt_"));
    // A 40 KiB file on the chain is cut by the desktop rule's 32 KiB cap:
    // the model would not see it whole, so a required preflight fails.
    std::fs::write(ex.tree.join("packages/AGENTS.md"), "y".repeat(40 * 1024)).unwrap();
    let out = ex.run("packages/api", &["briefing", "--host", "desktop", "--required", "--json"]);
    assert_eq!(out.status.code(), Some(3));
    insta::assert_json_snapshot!(ex.json_any(&out), @r#"
    {
      "error": {
        "causes": [
          {
            "cause": "budget-exhausted",
            "required": true,
            "what": "AGENTS.md"
          },
          {
            "cause": "truncated",
            "required": true,
            "what": "packages/AGENTS.md"
          }
        ],
        "code": "preflight-incomplete",
        "message": "required preflight incomplete: AGENTS.md (budget-exhausted), packages/AGENTS.md (truncated)"
      }
    }
    "#);
    let audit = std::process::Command::new("sqlite3")
        .arg(ex.state.join("state.db"))
        .arg("SELECT host, event, phase, code, path FROM audit")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&audit.stdout),
        "desktop|preflight-failed|discovery|budget-exhausted|AGENTS.md\n"
    );
}

#[test]
fn with_only_a_root_the_working_directory_is_the_root() {
    let ex = Example::new();
    let root = ex.tree.join("packages/api").display().to_string();
    let out = ex.run("packages/web", &["query", "new endpoints", "--root", &root, "--limit", "1", "--json"]);
    let answer = ex.json(&out);
    assert_eq!(answer["hits"][0]["rel_path"], "AGENTS.override.md");
}

#[test]
fn a_markdown_bound_reached_is_one_audit_row_per_root_and_bound_an_hour() {
    let ex = Example::new();
    std::fs::create_dir_all(ex.tree.join("docs")).unwrap();
    for i in 0..241 {
        std::fs::write(ex.tree.join(format!("docs/note-{i:03}.md")), "a note\n").unwrap();
    }
    for _ in 0..2 {
        let out = ex.run(".", &["briefing", "--markdown", "--json"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let codes: Vec<&str> = value["sourceResolution"]["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["code"].as_str().unwrap())
            .collect();
        assert!(codes.contains(&"bounded-truncated"), "{codes:?}");
    }
    let audit = std::process::Command::new("sqlite3")
        .arg(ex.state.join("state.db"))
        .arg("SELECT host, event, phase, code, path FROM audit")
        .output()
        .unwrap();
    assert_eq!(
        ex.filter(&String::from_utf8_lossy(&audit.stdout)),
        "generic|catalog|discovery|bounded-truncated|[TREE]: 240-file\n",
        "two runs, one row"
    );
}
