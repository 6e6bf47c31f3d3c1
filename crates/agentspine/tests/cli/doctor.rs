//! `agentspine source-status`, `agentspine doctor` and
//! `agentspine doctor --offline-memory-orphans`: the real binary, a real
//! state database, and exact counts.

use std::path::Path;

use serde_json::json;

use crate::support::Example;

impl Example {
    /// Points Claude Code's auto memory at the copied `examples/claude-memory`.
    fn with_memory_settings(self) -> Example {
        let settings = json!({ "autoMemoryDirectory": self.memory.display().to_string() });
        self.home_file(".claude/settings.json", &settings.to_string());
        self
    }
}

#[test]
fn source_status_prints_the_source_resolution() {
    let ex = Example::new();
    let out = ex.run(".", &["source-status", "--host", "codex", "--cwd", "packages/api", "--json"]);
    insta::assert_json_snapshot!(ex.json(&out), { ".sourceResolution.profile_digest" => "[digest]" }, @r#"
    {
      "bindings": {
        "active_for_host": 0,
        "chain": "verified",
        "list": []
      },
      "cwd": "[TREE]/packages/api",
      "root_evidence": "nearest project root marker `.git`",
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
      "state_incidents": []
    }
    "#);
    let text = ex.stdout(&ex.run(".", &["source-status", "--host", "codex", "--cwd", "packages/api"]));
    assert!(text.contains("project root  [TREE]  (nearest project root marker `.git`)"), "{text}");
    assert!(text.contains("sources       project 2\n"), "{text}");
}

#[test]
fn doctor_asks_for_the_install_until_it_is_done_once() {
    let ex = Example::new().with_memory_settings();
    let out = ex.run(".", &["doctor", "--host", "claude", "--cwd", "packages/api", "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let report = ex.json_any(&out);
    assert_eq!(report["verdict"], "action-needed");
    assert_eq!(
        report["install"]["summary"],
        "no agentspine hook for SessionStart; no agentspine hook for UserPromptSubmit; no agentspine hook for \
         PreToolUse; the MCP server is not registered"
    );
    assert_eq!(report["state"]["quick_check"], json!(["ok"]));

    // Installed twice: one hook per event, the MCP server registered.
    for _ in 0..2 {
        ex.stdout(&ex.run(".", &["install", "claude"]));
    }
    let out = ex.run(".", &["doctor", "--host", "claude", "--cwd", "packages/api", "--json"]);
    let report = ex.json_any(&out);
    // What is left is the example repository's own findings (check's).
    assert!(crate::support::only_repository_findings(&report), "{report}");
    assert_eq!(report["findings"].as_array().map(Vec::len), report["actions"].as_array().map(Vec::len));
    let per_event = report["install"]["commands_per_event"].as_object().unwrap();
    assert_eq!(
        per_event.keys().collect::<Vec<_>>(),
        ["PreToolUse", "SessionEnd", "SessionStart", "UserPromptSubmit"]
    );
    assert!(per_event.values().all(|c| c.as_array().unwrap().len() == 1), "{per_event:?}");
    assert_eq!(report["install"]["mcp_registered_in"], json!(["[HOME]/.claude.json"]));
    // The memory report and the per-scope view.
    assert_eq!(report["memory"]["indexed"], 6);
    assert_eq!(report["memory"]["live_directory_enumerations"], 0);
    assert_eq!(
        report["scopes"]["project"]["included"],
        json!(["CLAUDE.md", ".claude/rules/style.md", "packages/api/CLAUDE.md"])
    );
    assert_eq!(
        report["scopes"]["project"]["excluded"],
        json!([
            { "path": "docs/conventions.md", "why": "import external not approved" },
            { "path": ".claude/rules/api.md", "why": "paths-not-matched" }
        ])
    );

    // The human report ends with the one-line verdict.
    let out = ex.run(".", &["doctor", "--host", "claude", "--cwd", "packages/api"]);
    assert_eq!(out.status.code(), Some(1), "the example repository's own findings need action");
    let text = ex.filter(&String::from_utf8_lossy(&out.stdout));
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("action needed: AGENTS.md: Claude Code leaves AGENTS.md out"), "{last}");
    assert!(text.contains("What `agentspine check` finds for claude sessions here:"), "{text}");
    // Each action names what to do.
    for action in report["actions"].as_array().unwrap() {
        assert!(action.as_str().unwrap().contains("; to do: "), "{action}");
    }

    // A second, different hook command for one event: both would run.
    let settings = ex.home.join(".claude/settings.json");
    let mut value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    value["hooks"]["PreToolUse"].as_array_mut().unwrap().push(json!({
        "matcher": "Edit",
        "hooks": [{ "type": "command", "command": "/opt/old/agentspine hook claude" }]
    }));
    std::fs::write(&settings, value.to_string()).unwrap();
    let out = ex.run(".", &["doctor", "--host", "claude", "--cwd", "packages/api"]);
    assert_eq!(out.status.code(), Some(1));
    let text = ex.filter(&String::from_utf8(out.stdout).unwrap());
    // The old hook names a binary that no longer exists, too.
    assert!(
        text.contains(
            "action needed: 2 different agentspine hooks for PreToolUse (each runs): run `agentspine install \
             claude`; `/opt/old/agentspine` (hooks in [HOME]/.claude/settings.json) does not exist: the host \
             cannot run it; run `agentspine install claude` with the agentspine you mean to keep (or \
             `agentspine uninstall claude` with any)"
        ),
        "{text}"
    );
}

#[test]
fn doctor_shows_where_the_host_would_read_more() {
    let ex = Example::new();
    // A CLAUDE.md above the project root, and a linked one inside it.
    std::fs::write(ex.dir.path().join("CLAUDE.md"), "ABOVE THE ROOT\n").unwrap();
    std::fs::write(ex.dir.path().join("secret.md"), "SECRET\n").unwrap();
    std::fs::remove_file(ex.tree.join("packages/web/CLAUDE.md")).unwrap();
    std::os::unix::fs::symlink("../../../secret.md", ex.tree.join("packages/web/CLAUDE.md")).unwrap();
    let out = ex.run(".", &["doctor", "--host", "claude", "--cwd", "packages/web", "--json"]);
    let report = ex.json_any(&out);
    let differs: Vec<(String, String)> = report["host_differs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["path"].as_str().unwrap().to_owned(), d["verdict"].as_str().unwrap().to_owned()))
        .collect();
    assert!(differs.contains(&("[TMP]/CLAUDE.md".to_owned(), "outside-root".to_owned())), "{differs:?}");
    assert!(
        differs.iter().any(|(p, v)| p == "packages/web/CLAUDE.md" && v.starts_with("link-refused (outside")),
        "{differs:?}"
    );
    let link = report["host_differs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["verdict"].as_str().unwrap().starts_with("link-refused"))
        .unwrap();
    assert!(link["host_would"].as_str().unwrap().contains("follows this link"), "{link}");
    let text = serde_json::to_string(&report).unwrap();
    assert!(!text.contains("SECRET") && !text.contains("ABOVE THE ROOT"), "no content of either file");
}

#[test]
fn doctor_runs_a_full_check_and_reports_a_damaged_store() {
    let ex = Example::new().with_memory_settings();
    // A database with many cached rows after its schema and meta pages
    // (written as a user with the sqlite3 CLI would), then its last page
    // damaged: an open does not read that page, a full check does.
    ex.stdout(&ex.run(
        ".",
        &[
            "memory",
            "--host",
            "claude",
            "--scope",
            "project:blun,person:owner",
            "--prompt",
            "carbonara",
            "--json",
        ],
    ));
    let db = ex.state.join("state.db");
    let fill = std::process::Command::new("sqlite3")
        .arg(&db)
        .arg(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60) \
             INSERT INTO cache (root_digest, rel_path, dev, ino, size, mtime_ns, ctime_ns, sha256, byte_len, \
             last_used, bytes) SELECT 'r', 'f' || i, 1, i, 3000, 0, 0, '00', 3000, 0, zeroblob(3000) FROM n",
        )
        .status()
        .unwrap();
    assert!(fill.success());
    let mut bytes = std::fs::read(&db).unwrap();
    let page = u16::from_be_bytes([bytes[16], bytes[17]]) as usize;
    let pages = bytes.len() / page;
    for b in &mut bytes[(pages - 1) * page..] {
        *b = 0xA5;
    }
    std::fs::write(&db, &bytes).unwrap();
    // Doctor's full check finds it, and the store is repaired at once: the
    // report is about the new database and says what the old one cost.
    let out = ex.run(".", &["doctor", "--host", "codex", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report = ex.json_any(&out);
    let state = &report["state"];
    assert!(state["warnings"].to_string().contains("moved aside as state.db.corrupt-"), "{state}");
    assert_eq!(state["quick_check"], json!(["ok"]));
    let incidents = state["incidents"].as_array().unwrap();
    assert_eq!(incidents.len(), 1, "{state}");
    // What the check said (it lists the damage, or stops at the page).
    let reason = incidents[0]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("quick_check found damage") || reason == "database disk image is malformed",
        "{reason}"
    );
    let copy = incidents[0]["damaged_copy"].as_str().unwrap();
    assert!(copy.starts_with("[TMP]/state/state.db.corrupt-"), "{copy}");
    assert_eq!(std::fs::read(ex.filter_back(copy)).unwrap(), bytes, "the damaged copy is kept as it was");
    assert_eq!(incidents[0]["salvage"]["read"], "rows");
    let actions = report["actions"].as_array().unwrap();
    let damage: Vec<&str> = actions
        .iter()
        .filter_map(|a| a.as_str())
        .filter(|a| a.starts_with("the state database was damaged"))
        .collect();
    assert_eq!(damage.len(), 1, "{actions:?}");
    assert!(damage[0].ends_with("read this, then run `agentspine doctor --acknowledge`"), "{}", damage[0]);

    // Acknowledged: said once more, then no longer an action.
    let report = ex.json_any(&ex.run(".", &["doctor", "--host", "codex", "--acknowledge", "--json"]));
    assert_eq!(report["state"]["acknowledged"].as_array().unwrap().len(), 1);
    assert_eq!(report["state"]["incidents"], json!([]));
    let actions = report["actions"].to_string();
    assert!(!actions.contains("the state database was damaged"), "{actions}");
    let report = ex.json_any(&ex.run(".", &["doctor", "--host", "codex", "--json"]));
    assert_eq!(
        (report["state"]["incidents"].clone(), report["state"]["acknowledged"].clone()),
        (json!([]), json!([]))
    );
}

/// A memory directory with every kind of entry the orphan count sorts.
fn orphan_fixture(dir: &Path) {
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::create_dir_all(dir.join("deep/x")).unwrap();
    std::fs::write(
        dir.join("MEMORY.md"),
        "# Memory\n\n- [A](a.md) <!-- agentspine:always -->\n- [B](b.md)\n- [C](sub/c.md)\n- [L](link.md)\n\
         - [Out](../escape.md)\n- [A again](./a.md)\n",
    )
    .unwrap();
    for (rel, text) in [
        ("a.md", "a\n"),
        ("sub/c.md", "c\n"),
        ("orphan1.md", "ORPHAN CONTENT\n"),
        ("sub/orphan2.md", "ORPHAN CONTENT\n"),
        ("deep/x/y.md", "ORPHAN CONTENT\n"),
    ] {
        std::fs::write(dir.join(rel), text).unwrap();
    }
    std::os::unix::fs::symlink("a.md", dir.join("link.md")).unwrap();
    std::os::unix::fs::symlink("/etc", dir.join("ln-dir")).unwrap();
    let fifo = std::process::Command::new("mkfifo").arg(dir.join("pipe")).status().unwrap();
    assert!(fifo.success());
}

fn names(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in walkdir(dir) {
        out.push(entry.strip_prefix(dir).unwrap().display().to_string());
    }
    out.sort();
    out
}

fn walkdir(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        out.push(entry.path());
        if entry.file_type().unwrap().is_dir() {
            out.extend(walkdir(&entry.path()));
        }
    }
    out
}

#[test]
fn offline_memory_orphans_counts_without_reading_or_following_anything() {
    let ex = Example::new();
    let memory = ex.dir.path().join("orphans");
    orphan_fixture(&memory);
    let before = names(&memory);
    let index_len = std::fs::metadata(memory.join("MEMORY.md")).unwrap().len();
    let dir = memory.display().to_string();
    let out = ex.run(".", &["doctor", "--offline-memory-orphans", "--memory-dir", &dir, "--json"]);
    let report = ex.json(&out);
    assert_eq!(
        report["orphans"],
        json!({
            "indexed": 4,
            "unsafe_links": 1,
            "present_unindexed": 3,
            "indexed_missing": 1,
            "symlinks_skipped": 2,
            "other_skipped": 1,
            "directories": 4,
            "truncated": false,
        })
    );
    // The listing's own reader: MEMORY.md is the only file read, four
    // directories are listed, nothing is refused (no link or FIFO opened).
    let work = &report["work"];
    assert_eq!(work["reads"], 1);
    assert_eq!(work["bytes_read"], index_len);
    assert_eq!(work["dir_enumerations"], 4);
    assert_eq!(work["dir_entries"], 12);
    assert!(work["refusals"].as_object().unwrap().values().all(|v| v == 0), "{work}");
    assert!(!report.to_string().contains("ORPHAN"), "no content in the report");
    assert!(!report.to_string().contains("orphan1"), "no names in the report");
    assert_eq!(names(&memory), before, "nothing created or deleted");

    let text = ex.stdout(&ex.run(".", &["doctor", "--offline-memory-orphans", "--memory-dir", &dir]));
    assert!(
        text.contains("4 indexed, 3 present but unindexed, 1 indexed but missing, 2 links skipped"),
        "{text}"
    );
}

#[test]
fn offline_memory_orphans_stops_at_its_bound() {
    let ex = Example::new();
    let memory = ex.dir.path().join("many");
    std::fs::create_dir_all(&memory).unwrap();
    std::fs::write(memory.join("MEMORY.md"), "- [A](a.md)\n").unwrap();
    for i in 0..8_300 {
        std::fs::write(memory.join(format!("f{i}.md")), "").unwrap();
    }
    let dir = memory.display().to_string();
    let report =
        ex.json(&ex.run(".", &["doctor", "--offline-memory-orphans", "--memory-dir", &dir, "--json"]));
    assert_eq!(report["orphans"]["truncated"], true);
    assert_eq!(report["work"]["dir_entries"], 8_192, "exactly the bound, not one entry more");
    assert_eq!(report["work"]["reads"], 1);
}

#[test]
fn offline_memory_orphans_finds_claude_codes_directory_from_the_evidence() {
    let ex = Example::new().with_memory_settings();
    let report = ex.json(&ex.run(".", &["doctor", "--host", "claude", "--offline-memory-orphans", "--json"]));
    assert_eq!(report["memory_dir"], "[TMP]/memory");
    // examples/claude-memory: 6 links, README.md and unindexed.md unlinked.
    assert_eq!(report["orphans"]["indexed"], 6);
    assert_eq!(report["orphans"]["present_unindexed"], 2);
    assert_eq!(report["orphans"]["indexed_missing"], 0);
    let out = ex.run(".", &["doctor", "--host", "codex", "--offline-memory-orphans"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(
            "--host codex: this host keeps no memory directory agentspine reads; pass --host claude"
        )
    );
}

#[test]
fn doctor_counts_codex_hooks_in_hooks_json_and_config_toml() {
    let ex = Example::new();
    let statuses = |report: &serde_json::Value| -> Vec<String> {
        report["install"]["codex_trust"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| format!("{} {}", t["event"].as_str().unwrap(), t["status"].as_str().unwrap()))
            .collect()
    };
    // Installed, not yet trusted: Codex would skip every hook, and doctor
    // says what to do.
    ex.stdout(&ex.run(".", &["install", "codex"]));
    let out = ex.run(".", &["doctor", "--host", "codex", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report = ex.json_any(&out);
    assert_eq!(
        statuses(&report),
        [
            "PostCompact untrusted",
            "PreToolUse untrusted",
            "SessionEnd untrusted",
            "SessionStart untrusted",
            "UserPromptSubmit untrusted"
        ]
    );
    assert_eq!(report["install"]["codex_trust"][0]["key"], "[HOME]/.codex/hooks.json:post_compact:0:0");
    let actions = report["actions"].to_string();
    assert!(actions.contains("agentspine install codex --trust-hooks"), "{actions}");
    // Trusted: nothing to do.
    ex.stdout(&ex.run(".", &["install", "codex", "--trust-hooks"]));
    let out = ex.run(".", &["doctor", "--host", "codex", "--json"]);
    let report = ex.json_any(&out);
    assert!(crate::support::only_repository_findings(&report), "{report}");
    assert!(statuses(&report).iter().all(|s| s.ends_with(" trusted")), "{:?}", statuses(&report));
    assert_eq!(
        report["install"]["summary"],
        "hooks installed once per event and trusted; MCP server registered in [HOME]/.codex/config.toml"
    );
    // Turned off in Codex's /hooks view (`enabled = false`): Codex skips it
    // whatever its hash, and trusting again would not help.
    let config = ex.home.join(".codex/config.toml");
    let trusted = std::fs::read_to_string(&config).unwrap();
    let key = format!("[hooks.state.\"{}/.codex/hooks.json:pre_tool_use:0:0\"]\n", ex.home.display());
    let (head, tail) = trusted.split_once(&key).unwrap();
    let (hash_line, rest) = tail.split_once('\n').unwrap();
    std::fs::write(&config, format!("{head}{key}{hash_line}\nenabled = false\n{rest}")).unwrap();
    let out = ex.run(".", &["doctor", "--host", "codex", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report = ex.json_any(&out);
    assert!(
        statuses(&report).contains(&"PreToolUse disabled in Codex".to_owned()),
        "{:?}",
        statuses(&report)
    );
    let actions = report["actions"].to_string();
    assert!(
        actions.contains("turned off in Codex (PreToolUse disabled in Codex): turn them on"),
        "{actions}"
    );
    std::fs::write(&config, trusted).unwrap();
    assert_eq!(report["install"]["mcp_registered_in"], json!(["[HOME]/.codex/config.toml"]));
    assert_eq!(
        report["install"]["commands_per_event"].as_object().unwrap().keys().collect::<Vec<_>>(),
        ["PostCompact", "PreToolUse", "SessionEnd", "SessionStart", "UserPromptSubmit"]
    );
    // A second agentspine hook in config.toml's own [hooks] table.
    let config = ex.home.join(".codex/config.toml");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("\n[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"/usr/local/bin/agentspine hook codex\"\n");
    std::fs::write(&config, text).unwrap();
    let out = ex.run(".", &["doctor", "--host", "codex", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report = ex.json_any(&out);
    assert_eq!(report["install"]["summary"], "2 different agentspine hooks for PreToolUse (each runs)");
    let files = report["install"]["hook_files"].as_array().unwrap();
    assert_eq!(files[1]["path"], "[HOME]/.codex/config.toml");
    assert_eq!(files[1]["agentspine_hooks"], json!({ "PreToolUse": 1 }));
}

#[test]
fn doctor_in_the_home_directory_says_no_project_is_scanned_there() {
    let ex = Example::new();
    let home = ex.home.display().to_string();
    let out = ex.run(".", &["doctor", "--host", "desktop", "--cwd", &home, "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let report = ex.json_any(&out);
    assert_eq!(report["sourceResolution"]["reason"], "root-is-home");
    assert_eq!(report["sourceResolution"]["work"]["dir_enumerations"], 0);
    assert_eq!(report["install"]["applicable"], false);
    assert_eq!(
        report["actions"],
        json!([
            "the project root is your home directory, where agentspine scans no project: start the agent in a \
             project directory"
        ])
    );
}
