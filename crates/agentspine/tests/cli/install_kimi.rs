//! `agentspine install|uninstall kimi` and `doctor --host kimi`: one
//! `[[hooks]]` entry (UserPromptSubmit, with only the keys Kimi Code
//! reads) in `~/.kimi-code/config.toml` beside the user's own entries and
//! comments, the MCP server as `mcpServers.agentspine` in its `mcp.json`,
//! twice is once, uninstall gives every file back byte for byte (and
//! removes the ones install created), and doctor tells the states apart.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};

use crate::support::Example;

const BIN: &str = env!("CARGO_BIN_EXE_agentspine");

/// The user's Kimi settings: comments, a value, a hook of their own and a
/// table after it.
const CONFIG: &str = r#"# Kimi Code, by hand.
default_model = "kimi-k2" # the one I use

[[hooks]]
event = "Stop"
command = "notify-send done"
timeout = 5

[loop_control]
max_steps_per_turn = 100
"#;

const MCP: &str =
    "{\n  \"mcpServers\": {\n    \"docs\": {\n      \"url\": \"https://docs.example/mcp\"\n    }\n  }\n}\n";

fn ok(out: &std::process::Output) -> String {
    assert!(out.status.success(), "exit {:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn doctor(ex: &Example) -> Value {
    let out = ex.run(".", &["doctor", "--host", "kimi", "--json"]);
    ex.json_any(&out)["install"].clone()
}

/// The `[[hooks]]` entries of a config.toml, each as its keys and values
/// in file order.
fn entries(text: &str) -> Vec<Vec<(String, String)>> {
    let doc: toml_edit::DocumentMut = text.parse().unwrap();
    let Some(hooks) = doc.get("hooks") else { return Vec::new() };
    hooks
        .as_array_of_tables()
        .unwrap()
        .iter()
        .map(|t| {
            t.iter()
                .map(|(k, v)| (k.to_owned(), v.as_value().unwrap().to_string().trim().to_owned()))
                .collect()
        })
        .collect()
}

/// Our entry as install writes it, with `nl` line endings.
fn block(nl: &str) -> String {
    format!("[[hooks]]\nevent = \"UserPromptSubmit\"\ncommand = \"{BIN} hook kimi\"\ntimeout = 10\n")
        .replace('\n', nl)
}

fn ours() -> Vec<(String, String)> {
    [
        ("event", "\"UserPromptSubmit\"".to_owned()),
        ("command", format!("\"{BIN} hook kimi\"")),
        ("timeout", "10".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect()
}

/// Files by path relative to a directory, with their bytes.
type Files = BTreeMap<String, Vec<u8>>;

/// Every file under `dir` (recursively), agentspine's backups apart; and
/// the backups. A missing directory has none.
fn snapshot(dir: &Path) -> (Files, Files) {
    fn walk(root: &Path, dir: &Path, out: &mut (Files, Files)) {
        let Ok(listing) = std::fs::read_dir(dir) else { return };
        for entry in listing {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            if path.is_dir() {
                walk(root, &path, out);
            } else if rel.contains(".agentspine-backup-") {
                out.1.insert(rel, std::fs::read(&path).unwrap());
            } else {
                out.0.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = Default::default();
    walk(dir, dir, &mut out);
    out
}

#[test]
fn kimi_install_writes_one_prompt_hook_and_the_mcp_server_and_uninstall_takes_out_only_those() {
    let ex = Example::new();
    ex.home_file(".kimi-code/config.toml", CONFIG);
    ex.home_file(".kimi-code/mcp.json", MCP);
    let home = ex.home.join(".kimi-code");
    let before = doctor(&ex);
    assert_eq!(before["ok"], false);
    assert_eq!(
        before["summary"], "no agentspine hook for UserPromptSubmit; the MCP server is not registered",
        "{before}"
    );
    for _ in 0..2 {
        ok(&ex.run(".", &["install", "kimi"]));
    }
    let config = std::fs::read_to_string(home.join("config.toml")).unwrap();
    // The user's file as it was, and one entry of ours after their own.
    assert_eq!(config, CONFIG.replacen("timeout = 5\n", &format!("timeout = 5\n\n{}", block("\n")), 1));
    assert_eq!(entries(&config)[1], ours());
    let mcp: Value = serde_json::from_str(&std::fs::read_to_string(home.join("mcp.json")).unwrap()).unwrap();
    assert_eq!(
        mcp,
        json!({ "mcpServers": {
            "docs": { "url": "https://docs.example/mcp" },
            "agentspine": { "command": BIN, "args": ["mcp"] },
        }})
    );
    let report = doctor(&ex);
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["commands_per_event"], json!({ "UserPromptSubmit": [format!("{BIN} hook kimi")] }));
    assert_eq!(report["mcp_registered_in"], json!(["[HOME]/.kimi-code/mcp.json"]));
    assert_eq!(
        report["summary"],
        "hooks installed once per event; MCP server registered in [HOME]/.kimi-code/mcp.json"
    );
    assert_eq!(report["hook_files"][0]["path"], "[HOME]/.kimi-code/config.toml");

    // A second entry of ours with another binary: both would run.
    std::fs::write(
        home.join("config.toml"),
        format!(
            "{config}\n[[hooks]]\nevent = \"UserPromptSubmit\"\ncommand = \"/old/agentspine hook kimi\"\n"
        ),
    )
    .unwrap();
    let twice = doctor(&ex);
    assert_eq!(twice["ok"], false);
    assert!(
        twice["summary"]
            .as_str()
            .unwrap()
            .contains("2 different agentspine hooks for UserPromptSubmit (each runs)"),
        "{twice}"
    );
    // Install takes the second one out again.
    ok(&ex.run(".", &["install", "kimi"]));
    assert_eq!(std::fs::read_to_string(home.join("config.toml")).unwrap(), config);

    // One entry of the user's that Kimi refuses costs every hook, ours too.
    let refused = config.replacen("timeout = 5\n", "timeout = 5\nfail_mode = \"open\"\n", 1);
    std::fs::write(home.join("config.toml"), &refused).unwrap();
    let out = ex.run(".", &["doctor", "--host", "kimi", "--json"]);
    let report = ex.json_any(&out);
    assert_eq!(report["install"]["ok"], false);
    assert_eq!(
        report["install"]["summary"],
        "Kimi Code ignores every hook in [HOME]/.kimi-code/config.toml; hooks installed once per event; MCP \
         server registered in [HOME]/.kimi-code/mcp.json"
    );
    assert!(
        report["actions"].as_array().unwrap().iter().any(|a| a
            == "[HOME]/.kimi-code/config.toml: Kimi Code runs none of its hooks, agentspine's included, while \
                it refuses entry 1 (key `fail_mode`): fix or remove them"),
        "{report}"
    );
    std::fs::write(home.join("config.toml"), &config).unwrap();

    ok(&ex.run(".", &["uninstall", "kimi"]));
    assert_eq!(std::fs::read_to_string(home.join("config.toml")).unwrap(), CONFIG);
    assert_eq!(std::fs::read_to_string(home.join("mcp.json")).unwrap(), MCP);
    assert_eq!(doctor(&ex)["ok"], false);
}

/// The user's Kimi home, in one style: files relative to it (`None`: the
/// user does not have it); `None` for the layout: no `~/.kimi-code` at all.
type Layout = Option<&'static [(&'static str, Option<&'static str>)]>;

const CASES: &[(&str, Layout)] = &[
    ("no ~/.kimi-code", None),
    ("an empty ~/.kimi-code", Some(&[("config.toml", None), ("mcp.json", None)])),
    ("the user's files, by hand", Some(&[("config.toml", Some(CONFIG)), ("mcp.json", Some(MCP))])),
    (
        "CRLF, hooks of the user's only, compact JSON without a final newline",
        Some(&[
            (
                "config.toml",
                Some(
                    "[[hooks]]\r\nevent = \"PreToolUse\"\r\nmatcher = \"^Bash$\"\r\ncommand = \"guard\"\r\n",
                ),
            ),
            ("mcp.json", Some(r#"{"mcpServers":{"o":{"command":"o","args":[]}}}"#)),
        ]),
    ),
    (
        "an empty config.toml, `{}`, an AGENTS.md of the user's",
        Some(&[("config.toml", Some("")), ("mcp.json", Some("{}\n")), ("AGENTS.md", Some("user rules\n"))]),
    ),
    (
        "an empty mcpServers, config.toml with comments only",
        Some(&[
            ("config.toml", Some("# nothing yet\n\n# really\n")),
            ("mcp.json", Some("{\n\t\"mcpServers\": {}\n}\n")),
        ]),
    ),
];

#[test]
fn every_file_comes_back_byte_for_byte_and_a_second_install_changes_nothing() {
    for (label, layout) in CASES {
        let ex = Example::new();
        let home = ex.home.join(".kimi-code");
        if let Some(files) = layout {
            std::fs::create_dir_all(&home).unwrap();
            for (rel, text) in *files {
                if let Some(text) = text {
                    std::fs::write(home.join(rel), text).unwrap();
                }
            }
        }
        let (before, _) = snapshot(&home);
        ok(&ex.run(".", &["install", "kimi"]));
        let (installed, backups_once) = snapshot(&home);
        let config = String::from_utf8(installed["config.toml"].clone()).unwrap();
        let ours_now: Vec<_> = entries(&config).into_iter().filter(|e| *e == ours()).collect();
        assert_eq!(ours_now.len(), 1, "{label}: {config}");
        let mcp: Value = serde_json::from_slice(&installed["mcp.json"]).unwrap();
        assert_eq!(mcp["mcpServers"]["agentspine"], json!({ "command": BIN, "args": ["mcp"] }), "{label}");
        // The user's bytes stay: without our entry, the file is theirs.
        let old =
            before.get("config.toml").map(|b| String::from_utf8(b.clone()).unwrap()).unwrap_or_default();
        let nl = if old.contains("\r\n") { "\r\n" } else { "\n" };
        let without = config.replacen(&format!("{nl}{}", block(nl)), "", 1);
        let without = if without == config { config.replacen(&block(nl), "", 1) } else { without };
        assert_eq!(without, old, "{label}: {config}");
        // Each file the user had and install changed is backed up as it was.
        for (rel, bytes) in &before {
            if installed[rel] != *bytes {
                let copies: Vec<&Vec<u8>> = backups_once
                    .iter()
                    .filter(|(name, _)| name.starts_with(&format!("{rel}.agentspine-backup-")))
                    .map(|(_, b)| b)
                    .collect();
                assert_eq!(copies, [bytes], "{label}: {rel}");
            }
        }

        let again = ok(&ex.run(".", &["install", "kimi"]));
        assert!(again.lines().all(|l| l.ends_with(": unchanged")), "{label}: {again}");
        assert_eq!(snapshot(&home), (installed, backups_once), "{label}: the second install changed a file");

        ok(&ex.run(".", &["uninstall", "kimi"]));
        let (after, _) = snapshot(&home);
        assert_eq!(after, before, "{label}: uninstall did not give every file back");
        let again = ok(&ex.run(".", &["uninstall", "kimi"]));
        assert!(again.lines().all(|l| l.ends_with(": unchanged")), "{label}: {again}");
    }
}

#[test]
fn what_the_user_adds_between_install_and_uninstall_stays() {
    let ex = Example::new();
    ex.home_file(".kimi-code/config.toml", CONFIG);
    ok(&ex.run(".", &["install", "kimi"]));
    let path = ex.home.join(".kimi-code/config.toml");
    let mine = "\n[[hooks]]\nevent = \"SessionStart\"\ncommand = \"echo hi\"\n";
    let edited = format!("{}{mine}", std::fs::read_to_string(&path).unwrap());
    std::fs::write(&path, &edited).unwrap();
    ok(&ex.run(".", &["uninstall", "kimi"]));
    let after = std::fs::read_to_string(&path).unwrap();
    assert_eq!(after, format!("{CONFIG}{mine}"));
    // mcp.json did not exist: install made it, uninstall removes it.
    assert!(!ex.home.join(".kimi-code/mcp.json").exists());
}

#[test]
fn kimi_install_follows_kimi_code_home_and_refuses_what_does_not_apply() {
    let ex = Example::new();
    let kh = ex.dir.path().join("kh");
    let with_home = |args: &[&str], value: &std::ffi::OsStr| {
        ex.command(".", args).env("KIMI_CODE_HOME", value).output().unwrap()
    };
    // A KIMI_CODE_HOME that does not exist, or is not absolute, is refused.
    let out = with_home(&["install", "kimi"], kh.as_os_str());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does not exist"), "{out:?}");
    for relative in ["kh", ""] {
        let out = with_home(&["install", "kimi"], relative.as_ref());
        assert_eq!(out.status.code(), Some(2), "{relative:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("is not an absolute path"), "{out:?}");
    }
    std::fs::create_dir_all(&kh).unwrap();
    ok(&with_home(&["install", "kimi"], kh.as_os_str()));
    assert!(kh.join("config.toml").is_file() && kh.join("mcp.json").is_file());
    let report = with_home(&["doctor", "--host", "kimi", "--json"], kh.as_os_str());
    assert_eq!(ex.json_any(&report)["install"]["ok"], true);
    assert!(!ex.home.join(".kimi-code").exists(), "~/.kimi-code is not touched");
    ok(&with_home(&["uninstall", "kimi"], kh.as_os_str()));
    assert!(
        !kh.join("config.toml").exists() && !kh.join("mcp.json").exists(),
        "install created both files: both go"
    );

    for flags in [&["--settings", "project"][..], &["--trust-hooks"]] {
        let out = ex.run(".", &[&["install", "kimi"][..], flags].concat());
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
    }
    // A `hooks` Kimi would not read as entries is refused, nothing written.
    ex.home_file(".kimi-code/config.toml", "hooks = 1\n");
    let out = ex.run(".", &["install", "kimi"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("config.toml: refused"), "{out:?}");
    assert_eq!(std::fs::read_dir(ex.home.join(".kimi-code")).unwrap().count(), 1, "nothing is written");
}

#[test]
fn kimi_install_json_output() {
    let ex = Example::new();
    ex.home_file(".kimi-code/config.toml", "default_model = \"k2\"\n");
    let out = ok(&ex.run(".", &["install", "kimi", "--json", "--dry-run"]));
    let value: Value = serde_json::from_str(&ex.filter(&out.replace(BIN, "[BIN]"))).unwrap();
    insta::assert_json_snapshot!(value, @r#"
    {
      "action": "install",
      "command": "[BIN] hook kimi",
      "diff": "--- a[HOME]/.kimi-code/config.toml\n+++ b[HOME]/.kimi-code/config.toml\n@@ -1 +1,6 @@\n default_model = \"k2\"\n+\n+[[hooks]]\n+event = \"UserPromptSubmit\"\n+command = \"[BIN] hook kimi\"\n+timeout = 10\n--- /dev/null\n+++ b[HOME]/.kimi-code/mcp.json\n@@ -0,0 +1,10 @@\n+{\n+  \"mcpServers\": {\n+    \"agentspine\": {\n+      \"command\": \"[BIN]\",\n+      \"args\": [\n+        \"mcp\"\n+      ]\n+    }\n+  }\n+}\n",
      "dry_run": true,
      "files": [
        {
          "backup": null,
          "change": "updated",
          "path": "[HOME]/.kimi-code/config.toml"
        },
        {
          "backup": null,
          "change": "created",
          "path": "[HOME]/.kimi-code/mcp.json"
        }
      ],
      "host": "kimi",
      "next_steps": []
    }
    "#);
    assert_eq!(std::fs::read_dir(ex.home.join(".kimi-code")).unwrap().count(), 1, "a dry run writes nothing");
    ok(&ex.run(".", &["install", "kimi"]));
    let out = ok(&ex.run(".", &["uninstall", "kimi", "--json"]));
    let value: Value = serde_json::from_str(&ex.filter(&out.replace(BIN, "[BIN]"))).unwrap();
    let changes: Vec<(&str, bool)> = value["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["change"].as_str().unwrap(), f["backup"].is_string()))
        .collect();
    assert_eq!(changes, [("updated", true), ("removed", true)]);
}
