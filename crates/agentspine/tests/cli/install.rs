//! `agentspine install|uninstall claude|codex|gemini|pi|copilot` against a
//! throwaway home: every host's files in every style come back byte for
//! byte, what the user edits in between stays, a second install changes
//! nothing, the backup of the original survives, twice is one hook set, a
//! dry run writes nothing, links are refused.

use std::path::Path;

use serde_json::Value;

use crate::support::Example;

const BIN: &str = env!("CARGO_BIN_EXE_agentspine");

/// The user's settings before install: keys in a deliberate order and a
/// hook of their own.
const SETTINGS: &str = r#"{
  "zeta": 1,
  "permissions": {"allow": ["Bash(ls)"], "deny": []},
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/guard"}]}]
  },
  "alpha": "last"
}
"#;

const CONFIG_TOML: &str = r#"# Codex settings, by hand.
model = "o3" # the default model

[mcp_servers.other]
# keep this one
command = "other-server"

[profiles.fast]
model = "o4-mini"
"#;

fn parse(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// A JSON value with object keys in file order (`serde_json::Value` sorts
/// them in this build).
#[derive(Debug, serde::Deserialize)]
#[serde(untagged)]
enum Ordered {
    Null,
    Bool(#[allow(dead_code)] bool),
    Number(#[allow(dead_code)] serde_json::Number),
    String(String),
    Array(Vec<Ordered>),
    Object(indexmap::IndexMap<String, Ordered>),
}

fn ordered(path: &Path) -> Ordered {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Key paths in document order (the parsed values compare equal whatever
/// the order, so order is checked on its own).
fn key_order(path: &Path) -> Vec<String> {
    fn walk(value: &Ordered, prefix: &str, out: &mut Vec<String>) {
        match value {
            Ordered::Object(map) => {
                for (key, child) in map {
                    let path = format!("{prefix}/{key}");
                    out.push(path.clone());
                    walk(child, &path, out);
                }
            }
            Ordered::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    walk(child, &format!("{prefix}/{i}"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(&ordered(path), "", &mut out);
    out
}

/// Our hooks per event, in file order (commands ending ` hook HOST`).
fn ours(path: &Path, host: &str) -> Vec<(String, usize)> {
    let suffix = format!(" hook {host}");
    let Ordered::Object(root) = ordered(path) else { panic!("not an object") };
    let Some(Ordered::Object(events)) = root.get("hooks") else { return Vec::new() };
    let mut out = Vec::new();
    for (event, groups) in events {
        let Ordered::Array(groups) = groups else { panic!("{event} is not an array") };
        let mut n = 0;
        for group in groups {
            let Ordered::Object(group) = group else { panic!("group") };
            let Some(Ordered::Array(hooks)) = group.get("hooks") else { panic!("hooks") };
            for hook in hooks {
                let Ordered::Object(hook) = hook else { panic!("hook") };
                if let Some(Ordered::String(command)) = hook.get("command")
                    && command.ends_with(&suffix)
                {
                    n += 1;
                }
            }
        }
        if n > 0 {
            out.push((event.clone(), n));
        }
    }
    out
}

fn filter(ex: &Example, text: &str) -> String {
    let text = ex.filter(&text.replace(BIN, "[BIN]"));
    // Backup names carry the time in seconds.
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("agentspine-backup-") {
        let (head, tail) = rest.split_at(at + "agentspine-backup-".len());
        out.push_str(head);
        out.push_str("[SECS]");
        rest = tail.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

fn ok(out: &std::process::Output) -> String {
    assert!(out.status.success(), "exit {:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.map(|e| e.unwrap().file_name().into_string().unwrap()).collect(),
        Err(_) => Vec::new(),
    };
    names.sort();
    names
}

#[test]
fn claude_install_adds_hooks_and_uninstall_restores_every_other_key_in_order() {
    let ex = Example::new();
    ex.home_file(".claude/settings.json", SETTINGS);
    ex.home_file(".claude.json", "{\"numStartups\": 3, \"projects\": {\"/x\": {}}, \"theme\": \"dark\"}\n");
    let settings = ex.home.join(".claude/settings.json");
    let state = ex.home.join(".claude.json");
    let original = parse(&settings);
    let original_state = parse(&state);
    let original_order = key_order(&settings);
    let original_state_order = key_order(&state);

    ok(&ex.run(".", &["install", "claude"]));
    let installed = parse(&settings);
    assert_eq!(
        ours(&settings, "claude"),
        [
            ("PreToolUse".into(), 1),
            ("SessionStart".into(), 1),
            ("UserPromptSubmit".into(), 1),
            ("SessionEnd".into(), 1)
        ]
    );
    let command = format!("{BIN} hook claude");
    assert_eq!(installed["hooks"]["SessionStart"][0]["hooks"][0]["command"], command.as_str());
    assert_eq!(installed["hooks"]["SessionStart"][0]["hooks"][0]["timeout"], 10);
    assert_eq!(
        installed["hooks"]["PreToolUse"][1]["matcher"],
        "Read|Edit|MultiEdit|Write|NotebookEdit|Grep|Glob|Bash"
    );
    // The user's own hooks and keys are where they were.
    assert_eq!(installed["hooks"]["PreToolUse"][0], original["hooks"]["PreToolUse"][0]);
    assert_eq!(installed["hooks"]["Stop"], original["hooks"]["Stop"]);
    let Ordered::Object(top) = ordered(&settings) else { panic!() };
    assert_eq!(top.keys().collect::<Vec<_>>(), ["zeta", "permissions", "hooks", "alpha"]);
    let mcp = parse(&state);
    assert_eq!(
        mcp["mcpServers"]["agentspine"],
        serde_json::json!({"type": "stdio", "command": BIN, "args": ["mcp"]})
    );
    assert_eq!(mcp["numStartups"], 3);
    // One backup of each changed file, beside it.
    assert_eq!(
        files(&ex.home.join(".claude")).iter().filter(|n| n.contains(".agentspine-backup-")).count(),
        1
    );

    ok(&ex.run(".", &["uninstall", "claude"]));
    let restored = parse(&settings);
    assert_eq!(restored, original);
    assert_eq!(key_order(&settings), original_order);
    let restored_state = parse(&state);
    assert_eq!(restored_state, original_state);
    assert_eq!(key_order(&state), original_state_order);
}

#[test]
fn claude_install_twice_is_one_hook_set_and_updates_an_old_path() {
    let ex = Example::new();
    // An earlier install from another place.
    ex.home_file(
        ".claude/settings.json",
        r#"{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "/old/bin/agentspine hook claude"}]}]}}"#,
    );
    ok(&ex.run(".", &["install", "claude"]));
    let second = ok(&ex.run(".", &["install", "claude"]));
    assert!(second.contains("settings.json: unchanged"), "{second}");
    let path = ex.home.join(".claude/settings.json");
    let settings = parse(&path);
    for (event, n) in ours(&path, "claude") {
        assert_eq!(n, 1, "{event}");
        assert_eq!(settings["hooks"][&event].as_array().unwrap().len(), 1, "{event}");
    }
    assert_eq!(ours(&path, "claude").len(), 4);
    assert!(!std::fs::read_to_string(ex.home.join(".claude/settings.json")).unwrap().contains("/old/bin"));
}

#[test]
fn dry_run_prints_the_diff_and_writes_nothing() {
    let ex = Example::new();
    ex.home_file(".claude/settings.json", SETTINGS);
    let settings = ex.home.join(".claude/settings.json");
    let mtime = std::fs::metadata(&settings).unwrap().modified().unwrap();
    let out = ok(&ex.run(".", &["install", "claude", "--dry-run"]));
    assert!(out.contains("+++ b"), "{out}");
    assert!(out.contains(&format!("+            \"command\": \"{BIN} hook claude\",")), "{out}");
    assert!(out.contains("dry run: nothing was written"), "{out}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), SETTINGS);
    assert_eq!(std::fs::metadata(&settings).unwrap().modified().unwrap(), mtime);
    assert_eq!(files(&ex.home), [".claude"]);
    assert_eq!(files(&ex.home.join(".claude")), ["settings.json"]);

    let out = ok(&ex.run(".", &["install", "codex", "--dry-run"]));
    assert!(out.contains("--- /dev/null"), "{out}");
    assert_eq!(files(&ex.home), [".claude"]);
}

#[test]
fn a_linked_settings_file_or_directory_is_refused_and_nothing_is_written() {
    let ex = Example::new();
    ex.home_file("dotfiles/settings.json", SETTINGS);
    std::fs::create_dir_all(ex.home.join(".claude")).unwrap();
    std::os::unix::fs::symlink(ex.home.join("dotfiles/settings.json"), ex.home.join(".claude/settings.json"))
        .unwrap();
    let out = ex.run(".", &["install", "claude"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = filter(&ex, &String::from_utf8_lossy(&out.stderr));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("[HOME]/.claude/settings.json: refused: it is a symbolic link"), "{stderr}");
    assert_eq!(std::fs::read_to_string(ex.home.join("dotfiles/settings.json")).unwrap(), SETTINGS);
    assert_eq!(files(&ex.home.join(".claude")), ["settings.json"]);
    assert_eq!(files(&ex.home.join("dotfiles")), ["settings.json"]);
    assert!(!files(&ex.home).contains(&".claude.json".to_owned()));

    // A linked configuration directory too.
    let ex = Example::new();
    ex.home_file("dotfiles/codex/config.toml", CONFIG_TOML);
    std::os::unix::fs::symlink(ex.home.join("dotfiles/codex"), ex.home.join(".codex")).unwrap();
    let out = ex.run(".", &["install", "codex"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = filter(&ex, &String::from_utf8_lossy(&out.stderr));
    assert!(stderr.contains("[HOME]/.codex: refused: it is a symbolic link"), "{stderr}");
    assert_eq!(files(&ex.home.join("dotfiles/codex")), ["config.toml"]);
}

#[test]
fn codex_config_keeps_comments_and_hooks_json_comes_and_goes() {
    let ex = Example::new();
    ex.home_file(".codex/config.toml", CONFIG_TOML);
    let codex = ex.home.join(".codex");
    let out = ok(&ex.run(".", &["install", "codex"]));
    assert!(out.contains("hooks.json: created"), "{out}");
    assert!(out.contains("next: Codex runs a hook from hooks.json only once you trust it"), "{out}");
    let config = std::fs::read_to_string(codex.join("config.toml")).unwrap();
    // toml_edit puts the new table beside its siblings; every line of
    // the user's file, comments included, is still there in order.
    let block = format!("\n[mcp_servers.agentspine]\ncommand = \"{BIN}\"\nargs = [\"mcp\"]\n");
    assert!(config.contains(&block), "{config}");
    assert_eq!(config.replace(&block, ""), CONFIG_TOML, "{config}");
    let hooks = parse(&codex.join("hooks.json"));
    assert_eq!(
        ours(&codex.join("hooks.json"), "codex"),
        [
            ("SessionStart".into(), 1),
            ("UserPromptSubmit".into(), 1),
            ("PreToolUse".into(), 1),
            ("PostCompact".into(), 1),
            ("SessionEnd".into(), 1)
        ]
    );
    assert_eq!(hooks["hooks"]["SessionStart"][0]["matcher"], "startup|resume|clear|compact");
    // Twice: nothing changes.
    let again = ok(&ex.run(".", &["install", "codex"]));
    assert!(again.contains("hooks.json: unchanged") && again.contains("config.toml: unchanged"), "{again}");

    ok(&ex.run(".", &["uninstall", "codex"]));
    assert_eq!(std::fs::read_to_string(codex.join("config.toml")).unwrap(), CONFIG_TOML);
    let left = files(&codex);
    assert!(!left.contains(&"hooks.json".to_owned()), "{left:?}");
    assert!(left.iter().any(|n| n.starts_with("hooks.json.agentspine-backup-")), "{left:?}");
}

#[test]
fn trust_hooks_records_codex_trust_for_agentspines_hooks_only_and_uninstall_takes_it_out() {
    let ex = Example::new();
    let mine = "[hooks.state.\"/elsewhere/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:mine\"\n";
    ex.home_file(".codex/config.toml", &format!("{CONFIG_TOML}\n{mine}"));
    let codex = ex.home.join(".codex");
    let out = ok(&ex.run(".", &["install", "codex", "--trust-hooks"]));
    assert!(!out.contains("next:"), "nothing left to do: {out}");
    let config: toml_edit::DocumentMut =
        std::fs::read_to_string(codex.join("config.toml")).unwrap().parse().unwrap();
    let state = config["hooks"]["state"].as_table_like().unwrap();
    let mut keys: Vec<String> = state.iter().map(|(k, _)| filter(&ex, k)).collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "/elsewhere/hooks.json:stop:0:0",
            "[HOME]/.codex/hooks.json:post_compact:0:0",
            "[HOME]/.codex/hooks.json:pre_tool_use:0:0",
            "[HOME]/.codex/hooks.json:session_end:0:0",
            "[HOME]/.codex/hooks.json:session_start:0:0",
            "[HOME]/.codex/hooks.json:user_prompt_submit:0:0",
        ]
    );
    for (key, entry) in state.iter() {
        let hash = entry.get("trusted_hash").and_then(|v| v.as_str()).unwrap();
        assert!(key.starts_with('/') && (hash == "sha256:mine" || hash.len() == 71), "{key} = {hash}");
    }
    // Uninstall leaves the user's own trust record and nothing of ours.
    ok(&ex.run(".", &["uninstall", "codex"]));
    assert_eq!(std::fs::read_to_string(codex.join("config.toml")).unwrap(), format!("{CONFIG_TOML}\n{mine}"));
    // Claude Code has no such thing.
    let out = ex.run(".", &["install", "claude", "--trust-hooks"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Claude Code has no hook trust"), "{out:?}");
}

#[test]
fn claude_project_scope_writes_the_project_files() {
    let ex = Example::new();
    ok(&ex.run("services/billing", &["install", "claude", "--settings", "project"]));
    assert_eq!(ours(&ex.tree.join(".claude/settings.json"), "claude").len(), 4);
    let mcp = parse(&ex.tree.join(".mcp.json"));
    assert_eq!(mcp["mcpServers"]["agentspine"]["args"], serde_json::json!(["mcp"]));
    assert!(!ex.home.join(".claude").exists());
    // Committed files name the PATH command, never this machine's binary.
    let settings = parse(&ex.tree.join(".claude/settings.json"));
    for (event, _) in claude_events() {
        assert_eq!(settings["hooks"][event][0]["hooks"][0]["command"], "agentspine hook claude", "{event}");
    }
    assert_eq!(mcp["mcpServers"]["agentspine"]["command"], "agentspine");
    ok(&ex.run("services/billing", &["uninstall", "claude", "--settings", "project"]));
    assert!(!ex.tree.join(".mcp.json").exists());
    assert!(!ex.tree.join(".claude/settings.json").exists());
}

#[test]
fn install_json_output() {
    let ex = Example::new();
    ex.home_file(".codex/config.toml", CONFIG_TOML);
    let out = ex.run(".", &["install", "codex", "--json"]);
    let value: Value = serde_json::from_str(&filter(&ex, &ok(&out))).unwrap();
    insta::assert_json_snapshot!(value, @r#"
    {
      "action": "install",
      "command": "[BIN] hook codex",
      "dry_run": false,
      "files": [
        {
          "backup": null,
          "change": "created",
          "path": "[HOME]/.codex/hooks.json"
        },
        {
          "backup": "[HOME]/.codex/config.toml.agentspine-backup-[SECS]",
          "change": "updated",
          "path": "[HOME]/.codex/config.toml"
        }
      ],
      "host": "codex",
      "next_steps": [
        "Codex runs a hook from hooks.json only once you trust it, and skips untrusted hooks silently: start `codex`, type `/hooks`, and trust the agentspine hooks, or run `agentspine install codex --trust-hooks`"
      ]
    }
    "#);
    let out = ex.run(".", &["uninstall", "codex", "--json", "--dry-run"]);
    let value: Value = serde_json::from_str(&filter(&ex, &ok(&out))).unwrap();
    insta::assert_json_snapshot!(value, @r#"
    {
      "action": "uninstall",
      "command": "[BIN] hook codex",
      "diff": "--- a[HOME]/.codex/hooks.json\n+++ /dev/null\n@@ -1,60 +0,0 @@\n-{\n-  \"hooks\": {\n-    \"SessionStart\": [\n-      {\n-        \"matcher\": \"startup|resume|clear|compact\",\n-        \"hooks\": [\n-          {\n-            \"type\": \"command\",\n-            \"command\": \"[BIN] hook codex\",\n-            \"timeout\": 10\n-          }\n-        ]\n-      }\n-    ],\n-    \"UserPromptSubmit\": [\n-      {\n-        \"hooks\": [\n-          {\n-            \"type\": \"command\",\n-            \"command\": \"[BIN] hook codex\",\n-            \"timeout\": 10\n-          }\n-        ]\n-      }\n-    ],\n-    \"PreToolUse\": [\n-      {\n-        \"hooks\": [\n-          {\n-            \"type\": \"command\",\n-            \"command\": \"[BIN] hook codex\",\n-            \"timeout\": 10\n-          }\n-        ]\n-      }\n-    ],\n-    \"PostCompact\": [\n-      {\n-        \"hooks\": [\n-          {\n-            \"type\": \"command\",\n-            \"command\": \"[BIN] hook codex\",\n-            \"timeout\": 10\n-          }\n-        ]\n-      }\n-    ],\n-    \"SessionEnd\": [\n-      {\n-        \"hooks\": [\n-          {\n-            \"type\": \"command\",\n-            \"command\": \"[BIN] hook codex\",\n-            \"timeout\": 3\n-          }\n-        ]\n-      }\n-    ]\n-  }\n-}\n--- a[HOME]/.codex/config.toml\n+++ b[HOME]/.codex/config.toml\n@@ -5,9 +5,5 @@\n # keep this one\n command = \"other-server\"\n \n-[mcp_servers.agentspine]\n-command = \"[BIN]\"\n-args = [\"mcp\"]\n-\n [profiles.fast]\n model = \"o4-mini\"\n",
      "dry_run": true,
      "files": [
        {
          "backup": null,
          "change": "removed",
          "path": "[HOME]/.codex/hooks.json"
        },
        {
          "backup": null,
          "change": "updated",
          "path": "[HOME]/.codex/config.toml"
        }
      ],
      "host": "codex",
      "next_steps": []
    }
    "#);
}

#[test]
fn custom_claude_config_dir_and_codex_home_are_used_instead_of_home() {
    let ex = Example::new();
    let claude = ex.dir.path().join("claude-config");
    let codex = ex.dir.path().join("codex-home");
    // A CODEX_HOME that does not exist is a mistake worth a clear word.
    let out = ex.command(".", &["install", "codex"]).env("CODEX_HOME", &codex).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "agentspine: CODEX_HOME={} does not exist (Codex refuses a missing CODEX_HOME too): create it, \
             or unset CODEX_HOME to use ~/.codex\n",
            codex.display()
        )
    );
    assert!(!codex.exists());
    std::fs::create_dir_all(&codex).unwrap();
    let out = ex.command(".", &["install", "claude"]).env("CLAUDE_CONFIG_DIR", &claude).output().unwrap();
    ok(&out);
    let out = ex.command(".", &["install", "codex"]).env("CODEX_HOME", &codex).output().unwrap();
    ok(&out);
    // Claude keeps its user MCP servers in `.claude.json` inside the config
    // dir when CLAUDE_CONFIG_DIR is set (as `claude mcp add --scope user`).
    assert_eq!(files(&claude), [".claude.json", "settings.json"]);
    assert_eq!(ours(&claude.join("settings.json"), "claude").len(), 4);
    assert_eq!(files(&codex), ["config.toml", "hooks.json"]);
    assert!(files(&ex.home).is_empty(), "{:?}", files(&ex.home));
}

#[test]
fn gemini_install_puts_hooks_and_the_server_in_its_settings_once_and_uninstall_restores_them() {
    let ex = Example::new();
    let user = "{\"ui\": {\"theme\": \"GitHub\"}, \"hooks\": {\"AfterTool\": [{\"matcher\": \"read_file\", \
                \"hooks\": [{\"type\": \"command\", \"command\": \"lint-hook\"}]}]}, \"mcpServers\": {\"other\": \
                {\"command\": \"srv\"}}, \"context\": {\"fileName\": \"AGENTS.md\"}}\n";
    ex.home_file(".gemini/settings.json", user);
    let settings = ex.home.join(".gemini/settings.json");
    let (original, original_order) = (parse(&settings), key_order(&settings));
    ok(&ex.run(".", &["install", "gemini"]));
    ok(&ex.run(".", &["install", "gemini"]));
    assert_eq!(
        ours(&settings, "gemini"),
        [
            ("AfterTool".into(), 1),
            ("SessionStart".into(), 1),
            ("BeforeAgent".into(), 1),
            ("SessionEnd".into(), 1)
        ]
    );
    let installed = parse(&settings);
    assert_eq!(installed["hooks"]["AfterTool"][0], original["hooks"]["AfterTool"][0]);
    assert_eq!(
        installed["hooks"]["SessionStart"][0]["hooks"][0]["timeout"], 10_000,
        "Gemini counts milliseconds"
    );
    assert_eq!(
        installed["hooks"]["AfterTool"][1]["matcher"],
        "^(read_file|write_file|replace|list_directory|read_many_files|glob|grep_search)$"
    );
    assert_eq!(installed["mcpServers"]["agentspine"], serde_json::json!({"command": BIN, "args": ["mcp"]}));
    let Ordered::Object(top) = ordered(&settings) else { panic!() };
    assert_eq!(top.keys().collect::<Vec<_>>(), ["ui", "hooks", "mcpServers", "context"]);
    assert_eq!(
        files(&ex.home.join(".gemini")).iter().filter(|n| n.contains(".agentspine-backup-")).count(),
        1
    );
    ok(&ex.run(".", &["uninstall", "gemini"]));
    assert_eq!(parse(&settings), original);
    assert_eq!(key_order(&settings), original_order);

    // Never through a link.
    let ex = Example::new();
    ex.home_file("dotfiles/gemini/settings.json", "{}\n");
    std::os::unix::fs::symlink(ex.home.join("dotfiles/gemini"), ex.home.join(".gemini")).unwrap();
    let out = ex.run(".", &["install", "gemini"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = filter(&ex, &String::from_utf8_lossy(&out.stderr));
    assert!(stderr.contains("[HOME]/.gemini: refused: it is a symbolic link"), "{stderr}");
    assert_eq!(std::fs::read_to_string(ex.home.join("dotfiles/gemini/settings.json")).unwrap(), "{}\n");
}

fn claude_events() -> [(&'static str, ()); 4] {
    [("SessionStart", ()), ("UserPromptSubmit", ()), ("PreToolUse", ()), ("SessionEnd", ())]
}

#[test]
fn a_flag_that_does_not_apply_to_the_scope_is_an_error_and_nothing_is_written() {
    let ex = Example::new();
    let out = ex.run(".", &["install", "claude", "--project", "."]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("`--project` applies to `--settings project` only"),
        "{out:?}"
    );
    assert!(!ex.home.join(".claude").exists());
    assert!(!ex.home.join(".claude.json").exists());
}

#[test]
fn json_keeps_its_layout_and_what_install_adds_follows_it() {
    let ex = Example::new();
    // Four spaces, a one-line object inside, and no final newline.
    ex.home_file(".claude/settings.json", "{\n    \"model\": \"opus\",\n    \"env\": {\"A\": \"1\"}\n}");
    ok(&ex.run(".", &["install", "claude", "--command", "/opt/a/agentspine"]));
    let text = std::fs::read_to_string(ex.home.join(".claude/settings.json")).unwrap();
    let session_start = "{\n    \"model\": \"opus\",\n    \"env\": {\"A\": \"1\"},\n    \"hooks\": {\n        \
                         \"SessionStart\": [\n            {\n                \"matcher\": \
                         \"startup|resume|clear|compact\",\n                \"hooks\": [\n                    {\n\
                         \x20                       \"type\": \"command\",\n                        \"command\": \
                         \"/opt/a/agentspine hook claude\",\n                        \"timeout\": 10\n                    \
                         }\n                ]\n            }\n        ],\n        \"UserPromptSubmit\": [";
    assert!(text.starts_with(session_start), "{text}");
    assert!(text.ends_with("\n    }\n}"), "{text}");
    // A compact file gets compact entries, in its own `:` spacing.
    ex.home_file(".claude.json", r#"{"numStartups":3,"mcpServers":{"other":{"command":"o"}}}"#);
    ok(&ex.run(".", &["install", "claude", "--command", "/opt/a/agentspine"]));
    assert_eq!(
        std::fs::read_to_string(ex.home.join(".claude.json")).unwrap(),
        r#"{"numStartups":3,"mcpServers":{"other":{"command":"o"},"agentspine":{"type":"stdio","command":"/opt/a/agentspine","args":["mcp"]}}}"#
    );
}

/// Every file under `dir` (recursively) but agentspine's backups, with its
/// bytes.
fn snapshot(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut std::collections::BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            if path.is_dir() {
                walk(root, &path, out);
            } else if !rel.contains(".agentspine-backup-") {
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Every backup under `dir`, with its bytes.
fn backups(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut std::collections::BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(root, &path, out);
            } else if path.to_str().unwrap().contains(".agentspine-backup-") {
                out.insert(
                    path.strip_prefix(root).unwrap().display().to_string(),
                    std::fs::read(&path).unwrap(),
                );
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Whether every key and element of `old` is in `new` (elements in order).
fn kept(old: &Ordered, new: &Ordered) -> bool {
    match (old, new) {
        (Ordered::Object(old), Ordered::Object(new)) => {
            old.iter().all(|(k, v)| new.get(k).is_some_and(|n| kept(v, n)))
        }
        (Ordered::Array(old), Ordered::Array(new)) => {
            let mut rest = new.iter();
            old.iter().all(|v| rest.any(|n| kept(v, n)))
        }
        (old, new) => format!("{old:?}") == format!("{new:?}"),
    }
}

/// Whether every key of `old` is in `new` with its value.
fn kept_toml(old: &toml::Value, new: &toml::Value) -> bool {
    match (old, new) {
        (toml::Value::Table(old), toml::Value::Table(new)) => {
            old.iter().all(|(k, v)| new.get(k).is_some_and(|n| kept_toml(v, n)))
        }
        (old, new) => old == new,
    }
}

/// One host and scope, and the files of a user in one style: paths under
/// the example's directory (`home/…`, `tree/…`), `None` for a file the
/// user does not have.
struct Case {
    label: &'static str,
    install: &'static [&'static str],
    files: &'static [(&'static str, Option<&'static str>)],
}

/// The files install writes (every other file of a case is there to be
/// left alone).
const WRITTEN: &[&str] = &[
    ".claude/settings.json",
    ".claude.json",
    ".mcp.json",
    ".codex/hooks.json",
    ".codex/config.toml",
    ".gemini/settings.json",
    "agent/mcp.json",
    "extensions/agentspine.js",
    ".copilot/mcp-config.json",
    ".copilot/hooks/agentspine.json",
];

const CLAUDE: &[&str] = &["install", "claude"];
const CLAUDE_PROJECT: &[&str] = &["install", "claude", "--settings", "project"];
const CODEX: &[&str] = &["install", "codex"];
const CODEX_TRUST: &[&str] = &["install", "codex", "--trust-hooks"];
const GEMINI: &[&str] = &["install", "gemini"];
const PI: &[&str] = &["install", "pi"];
const COPILOT: &[&str] = &["install", "copilot"];

const CASES: &[Case] = &[
    Case {
        label: "claude, compact one-line files without a final newline",
        install: CLAUDE,
        files: &[
            (
                "home/.claude/settings.json",
                Some(
                    r#"{"model":"opus","hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]}}"#,
                ),
            ),
            ("home/.claude.json", Some(r#"{"numStartups":3,"mcpServers":{"other":{"command":"o"}}}"#)),
        ],
    },
    Case {
        label: "claude, two spaces, keys out of order, hooks and servers of other tools",
        install: CLAUDE,
        files: &[
            ("home/.claude/settings.json", Some(SETTINGS)),
            (
                "home/.claude.json",
                Some(
                    "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {\n    \"other\": {\n      \"type\": \"stdio\",\n      \
                     \"command\": \"other-server\"\n    }\n  },\n  \"numStartups\": 3\n}\n",
                ),
            ),
        ],
    },
    Case {
        label: "claude, four spaces, no final newline, an empty mcpServers",
        install: CLAUDE,
        files: &[
            (
                "home/.claude/settings.json",
                Some(
                    "{\n    \"hooks\": {\n        \"SessionStart\": [\n            {\n                \"hooks\": [\n\
                     \x20                   {\"type\": \"command\", \"command\": \"echo hi\"}\n                ]\n            \
                     }\n        ]\n    },\n    \"model\": \"opus\"\n}",
                ),
            ),
            ("home/.claude.json", Some("{\n    \"mcpServers\": {},\n    \"numStartups\": 1\n}")),
        ],
    },
    Case {
        label: "claude, tabs and CRLF, empty containers with space inside",
        install: CLAUDE,
        files: &[
            ("home/.claude/settings.json", Some("{\r\n\t\"hooks\": {\r\n\t},\r\n\t\"env\": {}\r\n}\r\n")),
            ("home/.claude.json", Some("{\r\n\t\"numStartups\": 3,\r\n\t\"mcpServers\": { }\r\n}\r\n")),
        ],
    },
    Case {
        label: "claude, an empty event list, an empty object, an empty file",
        install: CLAUDE,
        files: &[
            ("home/.claude/settings.json", Some("{ \"hooks\": { \"SessionStart\": [] } }\n")),
            ("home/.claude.json", Some("")),
        ],
    },
    Case {
        label: "claude, `{}` and no .claude.json",
        install: CLAUDE,
        files: &[("home/.claude/settings.json", Some("{}\n")), ("home/.claude.json", None)],
    },
    Case {
        label: "claude, no files at all",
        install: CLAUDE,
        files: &[("home/.claude/settings.json", None), ("home/.claude.json", None)],
    },
    Case {
        label: "claude project, committed files in two styles",
        install: CLAUDE_PROJECT,
        files: &[
            (
                "tree/.claude/settings.json",
                Some("{\n  \"permissions\": {\n    \"allow\": [\"Bash(npm test)\"]\n  }\n}\n"),
            ),
            ("tree/.mcp.json", Some(r#"{"mcpServers": {"docs": {"command": "docs-server", "args": []}}}"#)),
        ],
    },
    Case {
        label: "claude project, an empty .mcp.json object and no settings",
        install: CLAUDE_PROJECT,
        files: &[("tree/.claude/settings.json", None), ("tree/.mcp.json", Some("{\"mcpServers\": {}}\n"))],
    },
    Case {
        label: "codex, config.toml with comments, no hooks.json",
        install: CODEX,
        files: &[("home/.codex/config.toml", Some(CONFIG_TOML)), ("home/.codex/hooks.json", None)],
    },
    Case {
        label: "codex, trusted, config.toml with the user's trust record, hooks.json of their own",
        install: CODEX_TRUST,
        files: &[
            (
                "home/.codex/config.toml",
                Some(
                    "model = \"o3\"\n\n# trusted by hand\n[hooks.state.\"/elsewhere/hooks.json:stop:0:0\"]\n\
                     trusted_hash = \"sha256:mine\"\n",
                ),
            ),
            (
                "home/.codex/hooks.json",
                Some(
                    "{\n    \"hooks\": {\n        \"Stop\": [\n            {\n                \"hooks\": [\n                    \
                     {\n                        \"type\": \"command\",\n                        \"command\": \"notify\"\n\
                     \x20                   }\n                ]\n            }\n        ]\n    }\n}\n",
                ),
            ),
        ],
    },
    Case {
        label: "codex, trusted, CRLF and no final newline, empty [mcp_servers] and [hooks] tables",
        install: CODEX_TRUST,
        files: &[
            ("home/.codex/config.toml", Some("# mine\r\n[mcp_servers]\r\n\r\n[hooks]\r\nmodel = \"o3\"")),
            (
                "home/.codex/hooks.json",
                Some(r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"guard"}]}]}}"#),
            ),
        ],
    },
    Case {
        label: "codex, inline mcp_servers and an empty hooks.json",
        install: CODEX,
        files: &[
            ("home/.codex/config.toml", Some("mcp_servers = {}\nmodel = \"o3\" # inline\n")),
            ("home/.codex/hooks.json", Some("{}")),
        ],
    },
    Case {
        label: "codex, trusted, an empty config.toml",
        install: CODEX_TRUST,
        files: &[("home/.codex/config.toml", Some("")), ("home/.codex/hooks.json", None)],
    },
    Case {
        label: "codex, trusted, no files at all",
        install: CODEX_TRUST,
        files: &[("home/.codex/config.toml", None), ("home/.codex/hooks.json", None)],
    },
    Case {
        label: "gemini, one line with hooks and servers of other tools",
        install: GEMINI,
        files: &[(
            "home/.gemini/settings.json",
            Some(
                "{\"ui\": {\"theme\": \"GitHub\"}, \"hooks\": {\"AfterTool\": [{\"matcher\": \"read_file\", \"hooks\": \
                 [{\"type\": \"command\", \"command\": \"lint-hook\"}]}]}, \"mcpServers\": {\"other\": {\"command\": \
                 \"srv\"}}, \"context\": {\"fileName\": \"AGENTS.md\"}}\n",
            ),
        )],
    },
    Case {
        label: "gemini, two spaces, empty hooks and mcpServers",
        install: GEMINI,
        files: &[(
            "home/.gemini/settings.json",
            Some(
                "{\n  \"mcpServers\": {},\n  \"hooks\": {},\n  \"security\": {\n    \"auth\": \"oauth\"\n  }\n}\n",
            ),
        )],
    },
    Case {
        label: "gemini, tabs, CRLF, no final newline",
        install: GEMINI,
        files: &[(
            "home/.gemini/settings.json",
            Some("{\r\n\t\"general\": {\r\n\t\t\"vimMode\": true\r\n\t}\r\n}"),
        )],
    },
    Case { label: "gemini, no settings", install: GEMINI, files: &[("home/.gemini/settings.json", None)] },
    Case {
        label: "pi, an empty mcpServers",
        install: PI,
        files: &[
            ("home/.pi/agent/mcp.json", Some(r#"{"mcpServers": {}}"#)),
            ("home/.pi/agent/extensions/agentspine.js", None),
        ],
    },
    Case {
        label: "pi, servers of other tools, and other extensions",
        install: PI,
        files: &[
            (
                "home/.pi/agent/mcp.json",
                Some(
                    "{\n  \"mcpServers\": {\n    \"other\": {\n      \"command\": \"other-server\"\n    }\n  },\n  \"z\": 1\n}\n",
                ),
            ),
            ("home/.pi/agent/extensions/mine.ts", Some("export default function () {}\n")),
            ("home/.pi/agent/extensions/agentspine.js", None),
        ],
    },
    Case {
        label: "pi, `{}`, and a file of the user's own by the extension's name",
        install: PI,
        files: &[
            ("home/.pi/agent/mcp.json", Some("{}\n")),
            ("home/.pi/agent/extensions/agentspine.js", Some("// my own spine, not agentspine's\n")),
        ],
    },
    Case {
        label: "pi, no mcp.json",
        install: PI,
        files: &[
            ("home/.pi/agent/settings.json", Some("{\"theme\": \"dark\"}\n")),
            ("home/.pi/agent/mcp.json", None),
        ],
    },
    Case {
        label: "copilot, two spaces, a server of the user's, hook files of their own",
        install: COPILOT,
        files: &[
            (
                "home/.copilot/mcp-config.json",
                Some(
                    "{\n  \"mcpServers\": {\n    \"docs\": {\n      \"type\": \"local\",\n      \"command\": \
                     \"docs-server\",\n      \"tools\": [\"*\"]\n    }\n  }\n}\n",
                ),
            ),
            (
                "home/.copilot/hooks/lint.json",
                Some(
                    r#"{"version": 1, "hooks": {"postToolUse": [{"type": "command", "bash": "./lint.sh"}]}}"#,
                ),
            ),
            ("home/.copilot/hooks/agentspine.json", None),
            ("home/.copilot/settings.json", Some("{\n  \"model\": \"gpt-5\"\n}\n")),
        ],
    },
    Case {
        label: "copilot, one line, no final newline, an empty mcpServers",
        install: COPILOT,
        files: &[("home/.copilot/mcp-config.json", Some(r#"{"mcpServers":{}}"#))],
    },
    Case {
        label: "copilot, tabs and CRLF, a hook file of the user's own by agentspine's name",
        install: COPILOT,
        files: &[
            ("home/.copilot/mcp-config.json", Some("{\r\n\t\"mcpServers\": {}\r\n}\r\n")),
            (
                "home/.copilot/hooks/agentspine.json",
                Some(
                    "{\r\n\t\"hooks\": {\r\n\t\t\"agentStop\": [{\"type\": \"command\", \"bash\": \"notify\"}]\r\n\t}\r\n}",
                ),
            ),
        ],
    },
    Case {
        label: "copilot, `{}` and an empty hooks directory",
        install: COPILOT,
        files: &[
            ("home/.copilot/mcp-config.json", Some("{}\n")),
            ("home/.copilot/hooks/agentspine.json", None),
        ],
    },
    Case { label: "copilot, no ~/.copilot at all", install: COPILOT, files: &[] },
];

/// The case whose label starts with `label`.
fn case(label: &str) -> &'static Case {
    CASES.iter().find(|c| c.label.starts_with(label)).expect("a case of that label")
}

impl Case {
    fn setup(&self) -> Example {
        let ex = Example::new();
        for (rel, text) in self.files {
            let path = ex.dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            if let Some(text) = text {
                std::fs::write(&path, text).unwrap();
            }
        }
        ex
    }

    fn cwd(&self) -> &'static str {
        if self.install.contains(&"project") { "services/billing" } else { "." }
    }

    fn run(&self, ex: &Example, action: &str) -> String {
        let mut args = self.install.to_vec();
        args[0] = action;
        if action == "uninstall" {
            args.retain(|a| *a != "--trust-hooks");
        }
        ok(&ex.run(self.cwd(), &args))
    }
}

#[test]
fn every_host_gives_back_every_byte_of_every_file_and_a_second_install_changes_nothing() {
    for case in CASES {
        let ex = case.setup();
        let label = case.label;
        let before = snapshot(ex.dir.path());
        case.run(&ex, "install");
        let installed = snapshot(ex.dir.path());
        for (rel, text) in case.files.iter().filter(|(rel, _)| WRITTEN.iter().any(|w| rel.ends_with(w))) {
            let now = String::from_utf8(installed[*rel].clone()).unwrap();
            let ours = match text {
                Some(text) if !rel.ends_with(".json") && !rel.ends_with(".toml") => now != *text,
                _ => now.contains("agentspine"),
            };
            assert!(ours, "{label}: {rel} holds nothing of agentspine's:\n{now}");
            // The user's own entries are all still there.
            match text {
                Some(text) if rel.ends_with(".json") && !text.trim().is_empty() => {
                    let old: Ordered = serde_json::from_str(text).unwrap();
                    let new: Ordered = serde_json::from_str(&now).unwrap();
                    assert!(kept(&old, &new), "{label}: {rel} lost an entry:\n{now}");
                }
                Some(text) if rel.ends_with(".toml") => {
                    let old: toml::Table = text.parse().unwrap();
                    let new: toml::Table = now.parse().unwrap();
                    assert!(kept_toml(&old.into(), &new.into()), "{label}: {rel} lost an entry:\n{now}");
                    // Comments too.
                    for line in text.lines().filter(|l| l.trim_start().starts_with('#')) {
                        assert!(now.lines().any(|l| l == line), "{label}: {rel} lost {line:?}:\n{now}");
                    }
                }
                _ => {}
            }
        }
        let backups_once = backups(ex.dir.path());
        // Each file the user had and install changed is backed up as it was.
        for (rel, text) in case.files {
            if let Some(text) = text
                && installed[*rel] != text.as_bytes()
            {
                let copies = backups_once
                    .iter()
                    .filter(|(name, _)| name.starts_with(&format!("{rel}.agentspine-backup-")));
                assert_eq!(
                    copies.map(|(_, b)| b.as_slice()).collect::<Vec<_>>(),
                    [text.as_bytes()],
                    "{label}: {rel}"
                );
            }
        }

        let again = case.run(&ex, "install");
        assert!(
            again.lines().all(|l| l.ends_with(": unchanged") || l.starts_with("next: ")),
            "{label}: {again}"
        );
        assert_eq!(snapshot(ex.dir.path()), installed, "{label}: the second install changed a file");
        assert_eq!(backups(ex.dir.path()), backups_once, "{label}: the second install made a backup");

        case.run(&ex, "uninstall");
        let after = snapshot(ex.dir.path());
        for (rel, bytes) in &before {
            let now = after.get(rel).map(|b| String::from_utf8_lossy(b).into_owned());
            assert_eq!(now.as_deref(), Some(String::from_utf8_lossy(bytes).as_ref()), "{label}: {rel}");
        }
        let created: Vec<&String> = after.keys().filter(|rel| !before.contains_key(*rel)).collect();
        assert!(created.is_empty(), "{label}: left behind {created:?}");
        // The backups still hold each file as the user had it.
        let left = backups(ex.dir.path());
        for (rel, text) in case.files {
            if let Some(text) = text
                && installed[*rel] != text.as_bytes()
            {
                assert!(
                    left.iter().any(|(name, b)| name.starts_with(&format!("{rel}.agentspine-backup-"))
                        && b == text.as_bytes()),
                    "{label}: {rel}'s original is gone: {:?}",
                    left.keys()
                );
            }
        }
    }
}

#[test]
fn edits_made_between_install_and_uninstall_stay() {
    // (case, file, what the user changed after install: from, to)
    let edits: &[(&str, &str, &str, &str)] = &[
        (
            "claude, compact",
            "home/.claude/settings.json",
            r#""model":"opus""#,
            r#""model":"sonnet","effort":"high""#,
        ),
        ("claude, two spaces", "home/.claude/settings.json", "\"zeta\": 1,", "\"zeta\": 2,\n  \"beta\": [],"),
        ("claude, two spaces", "home/.claude.json", "\"numStartups\": 3", "\"numStartups\": 4"),
        ("claude, tabs and CRLF", "home/.claude.json", "\"numStartups\": 3", "\"numStartups\": 7"),
        (
            "claude project, committed",
            "tree/.claude/settings.json",
            "\"Bash(npm test)\"",
            "\"Bash(npm test)\", \"Bash(ls)\"",
        ),
        (
            "codex, config.toml with comments",
            "home/.codex/config.toml",
            "model = \"o3\" # the default model",
            "model = \"o4\" # changed",
        ),
        ("codex, trusted, config.toml", "home/.codex/config.toml", "model = \"o3\"", "model = \"o4\""),
        ("codex, trusted, config.toml", "home/.codex/hooks.json", "\"notify\"", "\"notify --loud\""),
        ("gemini, one line", "home/.gemini/settings.json", "\"GitHub\"", "\"Dracula\""),
        ("pi, servers of other tools", "home/.pi/agent/mcp.json", "\"z\": 1", "\"z\": 2"),
        ("copilot, two spaces", "home/.copilot/mcp-config.json", "\"docs-server\"", "\"docs-server-2\""),
        ("copilot, tabs and CRLF", "home/.copilot/hooks/agentspine.json", "\"notify\"", "\"notify --loud\""),
        (
            "pi, an empty mcpServers",
            "home/.pi/agent/mcp.json",
            "{\"mcpServers\": {",
            "{\"mine\": true, \"mcpServers\": {",
        ),
    ];
    for (label, rel, from, to) in edits {
        let case = case(label);
        let ex = case.setup();
        let path = ex.dir.path().join(rel);
        let original = std::fs::read_to_string(&path).unwrap();
        case.run(&ex, "install");
        let installed = std::fs::read_to_string(&path).unwrap();
        assert_eq!(installed.matches(from).count(), 1, "{}: {rel}: {installed}", case.label);
        std::fs::write(&path, installed.replacen(from, to, 1)).unwrap();
        case.run(&ex, "uninstall");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            original.replacen(from, to, 1),
            "{}: {rel}",
            case.label
        );
    }

    // A server the user adds beside agentspine's stays, in its place.
    let case = case("pi, an empty mcpServers");
    let ex = case.setup();
    let path = ex.home.join(".pi/agent/mcp.json");
    case.run(&ex, "install");
    let installed = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        installed.replacen("\"args\": [\"mcp\"]}", "\"args\": [\"mcp\"]}, \"mine\": {\"command\": \"m\"}", 1),
    )
    .unwrap();
    case.run(&ex, "uninstall");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), r#"{"mcpServers": {"mine": {"command": "m"}}}"#);
}

#[test]
fn the_backup_of_the_original_survives_later_installs_and_uninstall_gives_it_back() {
    let ex = Example::new();
    let original = r#"{"model":"opus","mcpServers":{}}"#;
    ex.home_file(".gemini/settings.json", original);
    let gemini = ex.home.join(".gemini");
    for program in ["/opt/a/agentspine", "/opt/b/agentspine", "/opt/c/agentspine"] {
        ok(&ex.run(".", &["install", "gemini", "--command", program]));
    }
    let kept = backups(&gemini);
    let texts: Vec<String> = kept.values().map(|b| String::from_utf8(b.clone()).unwrap()).collect();
    // The original, and the state before the last change (b's install).
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(texts.contains(&original.to_owned()), "{texts:?}");
    assert!(texts.iter().any(|t| t.contains("/opt/b/agentspine hook gemini")), "{texts:?}");
    ok(&ex.run(".", &["uninstall", "gemini"]));
    assert_eq!(std::fs::read_to_string(gemini.join("settings.json")).unwrap(), original);
    // Uninstall's own backup is of agentspine's version: the original stays.
    let texts: Vec<String> =
        backups(&gemini).values().map(|b| String::from_utf8(b.clone()).unwrap()).collect();
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(texts.contains(&original.to_owned()), "{texts:?}");

    // A file rewritten whole by an earlier agentspine (indented, a kept
    // backup of the user's compact original) comes back as the user had it.
    let ex = Example::new();
    ex.home_file(".claude.json", "{\n  \"mcpServers\": {\n    \"agentspine\": {\n      \"type\": \"stdio\",\n      \
                                  \"command\": \"/old/agentspine\",\n      \"args\": [\n        \"mcp\"\n      ]\n    \
                                  }\n  },\n  \"numStartups\": 3\n}\n");
    ex.home_file(".claude.json.agentspine-backup-1700000000", r#"{"mcpServers":{},"numStartups":3}"#);
    ok(&ex.run(".", &["uninstall", "claude"]));
    assert_eq!(
        std::fs::read_to_string(ex.home.join(".claude.json")).unwrap(),
        r#"{"mcpServers":{},"numStartups":3}"#
    );
}
