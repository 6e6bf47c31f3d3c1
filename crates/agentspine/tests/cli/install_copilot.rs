//! `agentspine install|uninstall copilot` and `doctor --host copilot`: the
//! hooks land in a hook file of their own in `~/.copilot/hooks` (Copilot's
//! shape: one list of hooks per camelCase event, no matcher groups), the MCP
//! server as `mcpServers.agentspine` in `~/.copilot/mcp-config.json`, both
//! moved by `$COPILOT_HOME`; twice is once, doctor tells the states apart,
//! and what does not apply is refused. (Every byte coming back is
//! `install.rs`'s cases.)

use serde_json::{Value, json};

use crate::support::Example;

const BIN: &str = env!("CARGO_BIN_EXE_agentspine");
const EVENTS: [&str; 4] = ["sessionStart", "userPromptSubmitted", "postToolUse", "sessionEnd"];

fn ok(out: &std::process::Output) -> String {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn doctor(ex: &Example) -> Value {
    let out = ex.run(".", &["doctor", "--host", "copilot", "--json"]);
    ex.json_any(&out)["install"].clone()
}

fn read(path: &std::path::Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The hook file install writes, for `bin`.
fn hook_file(bin: &str) -> Value {
    let hook = json!([{ "type": "command", "bash": format!("{bin} hook copilot"), "timeoutSec": 10 }]);
    json!({ "version": 1, "hooks": EVENTS.iter().map(|e| (e.to_string(), hook.clone())).collect::<serde_json::Map<_, _>>() })
}

#[test]
fn copilot_install_writes_its_hook_file_and_mcp_server_once_and_doctor_sees_them() {
    let ex = Example::new();
    let dot = ex.home.join(".copilot");
    assert_eq!(doctor(&ex)["ok"], false);
    for _ in 0..2 {
        ok(&ex.run(".", &["install", "copilot"]));
    }
    let hooks = dot.join("hooks/agentspine.json");
    assert_eq!(read(&hooks), hook_file(BIN));
    // Keys in the order Copilot documents them: `version` first.
    assert!(std::fs::read_to_string(&hooks).unwrap().starts_with("{\n  \"version\": 1,\n  \"hooks\": {\n"));
    assert_eq!(
        read(&dot.join("mcp-config.json")),
        json!({ "mcpServers": { "agentspine": { "type": "local", "command": BIN, "args": ["mcp"], "tools": ["*"] } } })
    );
    let report = doctor(&ex);
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["mcp_registered_in"], json!(["[HOME]/.copilot/mcp-config.json"]));
    assert_eq!(
        report["hook_files"][0]["agentspine_hooks"],
        json!({ "postToolUse": 1, "sessionEnd": 1, "sessionStart": 1, "userPromptSubmitted": 1 })
    );
    assert_eq!(report["hook_files"][1]["path"], "[HOME]/.copilot/settings.json");
    assert!(report["trust_note"].as_str().unwrap().starts_with("user hooks (~/.copilot/hooks) run without"));

    // A second copy of ours in Copilot's settings.json runs beside it.
    ex.home_file(
        ".copilot/settings.json",
        r#"{"hooks": {"postToolUse": [{"type": "command", "bash": "/old/agentspine hook copilot"}]}}"#,
    );
    let twice = doctor(&ex);
    assert_eq!(twice["ok"], false);
    assert_eq!(twice["summary"], "2 different agentspine hooks for postToolUse (each runs)", "{twice}");
    std::fs::remove_file(dot.join("settings.json")).unwrap();

    // A missing event, then a missing server.
    let mut partial = hook_file(BIN);
    partial["hooks"].as_object_mut().unwrap().remove("userPromptSubmitted");
    std::fs::write(&hooks, partial.to_string()).unwrap();
    assert_eq!(doctor(&ex)["summary"], "no agentspine hook for userPromptSubmitted");
    ok(&ex.run(".", &["install", "copilot"]));
    std::fs::write(dot.join("mcp-config.json"), "{}\n").unwrap();
    assert_eq!(doctor(&ex)["summary"], "the MCP server is not registered");

    ok(&ex.run(".", &["uninstall", "copilot"]));
    assert!(!hooks.exists());
    assert_eq!(std::fs::read_to_string(dot.join("mcp-config.json")).unwrap(), "{}\n");
    assert_eq!(doctor(&ex)["ok"], false);
}

#[test]
fn hooks_the_user_adds_to_agentspine_s_file_stay_and_its_version_with_them() {
    let ex = Example::new();
    ok(&ex.run(".", &["install", "copilot"]));
    let path = ex.home.join(".copilot/hooks/agentspine.json");
    let installed = std::fs::read_to_string(&path).unwrap();
    let mine = "    \"agentStop\": [{\"type\": \"command\", \"bash\": \"notify\"}],\n";
    std::fs::write(&path, installed.replacen("  \"hooks\": {\n", &format!("  \"hooks\": {{\n{mine}"), 1))
        .unwrap();
    ok(&ex.run(".", &["uninstall", "copilot"]));
    // The hook file keeps the `version` Copilot's format has, for the user's hook.
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "{\n  \"version\": 1,\n  \"hooks\": {\n    \"agentStop\": [{\"type\": \"command\", \"bash\": \"notify\"}]\n  }\n}\n"
    );
}

#[test]
fn copilot_install_follows_copilot_home_and_refuses_what_does_not_apply() {
    let ex = Example::new();
    let moved = ex.dir.path().join("copilot-home");
    let run = |args: &[&str]| ex.command(".", args).env("COPILOT_HOME", &moved).output().unwrap();
    ok(&run(&["install", "copilot"]));
    assert_eq!(read(&moved.join("hooks/agentspine.json")), hook_file(BIN));
    assert!(moved.join("mcp-config.json").is_file());
    assert!(!ex.home.join(".copilot").exists(), "nothing in ~/.copilot when COPILOT_HOME moves it");
    let report = run(&["doctor", "--host", "copilot", "--json"]);
    assert_eq!(ex.json_any(&report)["install"]["ok"], true);
    ok(&run(&["uninstall", "copilot"]));
    assert!(!moved.join("hooks/agentspine.json").exists() && !moved.join("mcp-config.json").exists());

    for flags in [&["--settings", "project"][..], &["--trust-hooks"]] {
        let out = ex.run(".", &[&["install", "copilot"][..], flags].concat());
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("GitHub Copilot CLI takes neither"));
    }
    // A hook table of another shape is refused, and nothing is written.
    ex.home_file(".copilot/hooks/agentspine.json", r#"{"hooks": []}"#);
    let out = ex.run(".", &["install", "copilot"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("/.copilot/hooks/agentspine.json: refused: `hooks` is not a JSON object"),
        "{stderr}"
    );
    assert!(!ex.home.join(".copilot/mcp-config.json").exists(), "nothing is written");
    // Nor is a linked hooks directory written through.
    std::fs::remove_dir_all(ex.home.join(".copilot/hooks")).unwrap();
    std::fs::create_dir_all(ex.home.join("dotfiles/hooks")).unwrap();
    std::os::unix::fs::symlink(ex.home.join("dotfiles/hooks"), ex.home.join(".copilot/hooks")).unwrap();
    let out = ex.run(".", &["install", "copilot"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("hooks: refused: it is a symbolic link"));
    assert_eq!(std::fs::read_dir(ex.home.join("dotfiles/hooks")).unwrap().count(), 0);
}

#[test]
fn copilot_install_json_output() {
    let ex = Example::new();
    ex.home_file(".copilot/mcp-config.json", "{\"mcpServers\": {}}\n");
    let out = ok(&ex.run(".", &["install", "copilot", "--json", "--dry-run"]));
    let value: Value = serde_json::from_str(&ex.filter(&out.replace(BIN, "[BIN]"))).unwrap();
    insta::assert_json_snapshot!(value, { ".diff" => "[diff]" }, @r#"
    {
      "action": "install",
      "command": "[BIN] hook copilot",
      "diff": "[diff]",
      "dry_run": true,
      "files": [
        {
          "backup": null,
          "change": "updated",
          "path": "[HOME]/.copilot/mcp-config.json"
        },
        {
          "backup": null,
          "change": "created",
          "path": "[HOME]/.copilot/hooks/agentspine.json"
        }
      ],
      "host": "copilot",
      "next_steps": []
    }
    "#);
    let diff = value["diff"].as_str().unwrap();
    assert!(diff.starts_with(
        "--- a[HOME]/.copilot/mcp-config.json\n+++ b[HOME]/.copilot/mcp-config.json\n@@ -1 +1 @@\n-{\"mcpServers\": {}}\n+{\"mcpServers\": {\"agentspine\": {\"type\": \"local\", \"command\": \"[BIN]\", \"args\": [\"mcp\"], \"tools\": [\"*\"]}}}\n--- /dev/null\n+++ b[HOME]/.copilot/hooks/agentspine.json\n"
    ), "{diff}");
    assert_eq!(diff.matches("\"bash\": \"[BIN] hook copilot\"").count(), 4, "{diff}");
    assert!(!ex.home.join(".copilot/hooks").exists(), "a dry run writes nothing");
}

#[test]
fn every_host_names_the_variables_its_directory_comes_from_when_none_is_set() {
    let ex = Example::new();
    for (host, why) in [
        ("copilot", "neither COPILOT_HOME nor HOME is set"),
        ("opencode", "neither OPENCODE_CONFIG_DIR, XDG_CONFIG_HOME nor HOME is set"),
        ("pi", "neither PI_CODING_AGENT_DIR nor HOME is set"),
        ("claude", "HOME is not set"),
        ("codex", "HOME is not set"),
    ] {
        let out = ex.command(".", &["install", host, "--json"]).env_remove("HOME").output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{host}: {out:?}");
        let error: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(error["error"]["message"], why, "{host}");
    }
}
