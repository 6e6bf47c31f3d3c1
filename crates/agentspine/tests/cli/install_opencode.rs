//! `agentspine install|uninstall opencode` and `doctor --host opencode`:
//! the plugin lands in opencode's `plugins/` with this binary's path, the
//! MCP server as `mcp.agentspine` in its `opencode.json` beside the user's
//! own keys (in their order), twice is once, uninstall gives every file
//! back byte for byte, and doctor tells the states apart.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::support::Example;

const BIN: &str = env!("CARGO_BIN_EXE_agentspine");

fn ok(out: &std::process::Output) -> String {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn doctor(ex: &Example) -> Value {
    let out = ex.run(".", &["doctor", "--host", "opencode", "--json"]);
    ex.json_any(&out)["install"].clone()
}

/// The line install writes into the plugin.
fn binary_line() -> String {
    format!(
        "const AGENTSPINE = process.env.AGENTSPINE_BIN || {}; // written by `agentspine install opencode`",
        serde_json::to_string(BIN).unwrap()
    )
}

/// Top-level keys of a JSON object file, in file order.
fn keys(text: &str) -> Vec<String> {
    let map: indexmap::IndexMap<String, serde::de::IgnoredAny> = serde_json::from_str(text).unwrap();
    map.keys().cloned().collect()
}

/// Files by path relative to a directory, with their bytes.
type Files = BTreeMap<String, Vec<u8>>;

/// Every file under `dir` (recursively), agentspine's backups apart; and
/// the backups.
fn snapshot(dir: &Path) -> (Files, Files) {
    fn walk(root: &Path, dir: &Path, out: &mut (Files, Files)) {
        for entry in std::fs::read_dir(dir).unwrap() {
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
fn opencode_install_writes_the_plugin_and_mcp_server_and_uninstall_takes_out_only_those() {
    let ex = Example::new();
    let refused = ex.run(".", &["install", "opencode"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&refused.stderr)
            .contains("opencode's configuration directory cannot be opened")
    );
    assert!(!ex.home.join(".config").exists(), "nothing is created when opencode never ran");

    let user = "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"theme\": \"tokyonight\",\n  \"mcp\": {\n    \"docs\": {\n      \"type\": \"remote\",\n      \"url\": \"https://docs.example/mcp\"\n    }\n  },\n  \"plugin\": [\"opencode-wakatime\"],\n  \"autoupdate\": false\n}\n";
    ex.home_file(".config/opencode/opencode.json", user);
    ex.home_file(".config/opencode/plugins/mine.js", "export const Mine = async () => ({});\n");
    assert_eq!(doctor(&ex)["extension"]["state"], "missing");
    for _ in 0..2 {
        ok(&ex.run(".", &["install", "opencode"]));
    }
    let config = ex.home.join(".config/opencode");
    let mut names: Vec<String> = std::fs::read_dir(config.join("plugins"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, vec!["agentspine.js", "mine.js"]);
    let plugin = std::fs::read_to_string(config.join("plugins/agentspine.js")).unwrap();
    assert_eq!(plugin.matches(&binary_line()).count(), 1, "{plugin}");
    assert!(plugin.contains("[\"hook\", HOST]") && plugin.contains("const HOST = \"opencode\";"));
    let text = std::fs::read_to_string(config.join("opencode.json")).unwrap();
    assert_eq!(keys(&text), ["$schema", "theme", "mcp", "plugin", "autoupdate"], "{text}");
    let value: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        value["mcp"]["agentspine"],
        serde_json::json!({ "type": "local", "command": [BIN, "mcp"], "enabled": true })
    );
    assert_eq!(value["mcp"]["docs"]["url"], "https://docs.example/mcp");
    assert_eq!(value["plugin"], serde_json::json!(["opencode-wakatime"]));
    let report = doctor(&ex);
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["extension"]["state"], "current");
    assert_eq!(report["mcp_registered_in"], serde_json::json!(["[HOME]/.config/opencode/opencode.json"]));

    // opencode's config may hold comments: doctor reads through them.
    let commented = text.replacen("{\n", "{\n  // the user's note\n", 1);
    std::fs::write(config.join("opencode.json"), &commented).unwrap();
    assert_eq!(doctor(&ex)["ok"], true);
    std::fs::write(config.join("opencode.json"), user).unwrap();
    assert_eq!(doctor(&ex)["ok"], false, "the MCP server is missing");
    ok(&ex.run(".", &["install", "opencode"]));

    let older =
        "const AGENTSPINE = process.env.AGENTSPINE_BIN || \"/old/agentspine\";\nconst HOST = \"opencode\";\n";
    std::fs::write(config.join("plugins/agentspine.js"), older).unwrap();
    let stale = doctor(&ex);
    assert_eq!(stale["extension"]["state"], "stale");
    assert!(
        stale["summary"].as_str().unwrap().contains("is not the plugin this agentspine installs"),
        "{stale}"
    );

    ok(&ex.run(".", &["uninstall", "opencode"]));
    assert!(!config.join("plugins/agentspine.js").exists());
    assert_eq!(std::fs::read_to_string(config.join("opencode.json")).unwrap(), user);
    assert_eq!(
        std::fs::read_to_string(config.join("plugins/mine.js")).unwrap(),
        "export const Mine = async () => ({});\n"
    );
    assert_eq!(doctor(&ex)["ok"], false);
}

/// The user's opencode configuration directory, in one style: files
/// relative to it (`None`: the user does not have it).
type Layout = &'static [(&'static str, Option<&'static str>)];

const CASES: &[(&str, Layout)] = &[
    (
        "compact, one line, no final newline, servers and plugins of the user's",
        &[(
            "opencode.json",
            Some(
                r#"{"$schema":"https://opencode.ai/config.json","mcp":{"other":{"type":"local","command":["o"]}},"plugin":["x"]}"#,
            ),
        )],
    ),
    (
        "two spaces, keys in the user's order, an empty mcp",
        &[(
            "opencode.json",
            Some(
                "{\n  \"theme\": \"dark\",\n  \"mcp\": {},\n  \"$schema\": \"https://opencode.ai/config.json\",\n  \"model\": \"a/b\"\n}\n",
            ),
        )],
    ),
    (
        "tabs and CRLF, a plugin of the user's own by agentspine's name",
        &[
            (
                "opencode.json",
                Some(
                    "{\r\n\t\"$schema\": \"https://opencode.ai/config.json\",\r\n\t\"share\": \"disabled\"\r\n}\r\n",
                ),
            ),
            ("plugins/agentspine.js", Some("// my own spine, not agentspine's\n")),
        ],
    ),
    ("`{}`", &[("opencode.json", Some("{}\n")), ("plugins/agentspine.js", None)]),
    (
        "no opencode.json, other plugins",
        &[("opencode.json", None), ("plugins/mine.ts", Some("export const M = 1;\n"))],
    ),
    ("nothing but the directory", &[("AGENTS.md", Some("global rules\n")), ("opencode.json", None)]),
];

#[test]
fn every_file_comes_back_byte_for_byte_and_a_second_install_changes_nothing() {
    for (label, files) in CASES {
        let ex = Example::new();
        let config = ex.home.join(".config/opencode");
        for (rel, text) in *files {
            std::fs::create_dir_all(config.join(rel).parent().unwrap()).unwrap();
            if let Some(text) = text {
                std::fs::write(config.join(rel), text).unwrap();
            }
        }
        let (before, _) = snapshot(&config);
        ok(&ex.run(".", &["install", "opencode"]));
        let (installed, backups_once) = snapshot(&config);
        let plugin = String::from_utf8(installed["plugins/agentspine.js"].clone()).unwrap();
        assert_eq!(plugin.matches(&binary_line()).count(), 1, "{label}");
        let text = String::from_utf8(installed["opencode.json"].clone()).unwrap();
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["mcp"]["agentspine"]["command"], serde_json::json!([BIN, "mcp"]), "{label}");
        match before.get("opencode.json") {
            // The user's keys, in their order, with agentspine's `mcp` last
            // when the file had none.
            Some(old) => {
                let old = String::from_utf8(old.clone()).unwrap();
                let mut want = keys(&old);
                if !want.iter().any(|k| k == "mcp") {
                    want.push("mcp".to_owned());
                }
                assert_eq!(keys(&text), want, "{label}: {text}");
            }
            // A file install creates starts with opencode's `$schema`, which
            // opencode would otherwise write into it.
            None => assert_eq!(keys(&text), ["$schema", "mcp"], "{label}: {text}"),
        }
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

        let again = ok(&ex.run(".", &["install", "opencode"]));
        assert!(again.lines().all(|l| l.ends_with(": unchanged")), "{label}: {again}");
        assert_eq!(
            snapshot(&config),
            (installed, backups_once),
            "{label}: the second install changed a file"
        );

        ok(&ex.run(".", &["uninstall", "opencode"]));
        let (after, left) = snapshot(&config);
        assert_eq!(after, before, "{label}: uninstall did not give every file back");
        for (rel, bytes) in &before {
            if rel.ends_with("opencode.json") || rel.ends_with("agentspine.js") {
                let kept = left
                    .iter()
                    .any(|(n, b)| n.starts_with(&format!("{rel}.agentspine-backup-")) && b == bytes);
                let untouched = !left.keys().any(|n| n.starts_with(&format!("{rel}.agentspine-backup-")));
                assert!(kept || untouched, "{label}: {rel}'s original is gone: {:?}", left.keys());
            }
        }
    }
}

#[test]
fn what_the_user_adds_between_install_and_uninstall_stays() {
    let ex = Example::new();
    ex.home_file(".config/opencode/opencode.json", "{\n  \"theme\": \"dark\"\n}\n");
    ok(&ex.run(".", &["install", "opencode"]));
    let path = ex.home.join(".config/opencode/opencode.json");
    let text = std::fs::read_to_string(&path).unwrap();
    // opencode adds its `$schema`; the user adds a server of their own.
    let edited =
        text.replacen("{\n", "{\n  \"$schema\": \"https://opencode.ai/config.json\",\n", 1).replacen(
            "\"mcp\": {\n",
            "\"mcp\": {\n    \"mine\": {\"type\": \"local\", \"command\": [\"m\"]},\n",
            1,
        );
    std::fs::write(&path, &edited).unwrap();
    ok(&ex.run(".", &["uninstall", "opencode"]));
    let after = std::fs::read_to_string(&path).unwrap();
    let value: Value = serde_json::from_str(&after).unwrap();
    assert_eq!(keys(&after), ["$schema", "theme", "mcp"], "{after}");
    assert_eq!(value["mcp"], serde_json::json!({ "mine": { "type": "local", "command": ["m"] } }));

    // A file install created, which opencode then gave its `$schema`, goes.
    let ex = Example::new();
    std::fs::create_dir_all(ex.home.join(".config/opencode")).unwrap();
    ok(&ex.run(".", &["install", "opencode"]));
    let path = ex.home.join(".config/opencode/opencode.json");
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .starts_with("{\n  \"$schema\": \"https://opencode.ai/config.json\",")
    );
    ok(&ex.run(".", &["uninstall", "opencode"]));
    assert!(!path.exists());
}

#[test]
fn opencode_install_follows_its_config_dir_and_refuses_what_does_not_apply() {
    let ex = Example::new();
    for (var, dir, file) in
        [("OPENCODE_CONFIG_DIR", "oc-dir", "oc-dir"), ("XDG_CONFIG_HOME", "xdg", "xdg/opencode")]
    {
        let target = ex.dir.path().join(file);
        std::fs::create_dir_all(&target).unwrap();
        let out =
            ex.command(".", &["install", "opencode"]).env(var, ex.dir.path().join(dir)).output().unwrap();
        ok(&out);
        assert!(target.join("plugins/agentspine.js").is_file(), "{var}");
        assert!(target.join("opencode.json").is_file(), "{var}");
        let report = ex
            .command(".", &["doctor", "--host", "opencode", "--json"])
            .env(var, ex.dir.path().join(dir))
            .output()
            .unwrap();
        assert_eq!(ex.json_any(&report)["install"]["ok"], true, "{var}");
    }
    assert!(!ex.home.join(".config").exists());
    std::fs::create_dir_all(ex.home.join(".config/opencode")).unwrap();
    for flags in [&["--settings", "project"][..], &["--trust-hooks"]] {
        let out = ex.run(".", &[&["install", "opencode"][..], flags].concat());
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
    }
    // A config with comments is refused, never rewritten without them.
    ex.home_file(".config/opencode/opencode.json", "{\n  // mine\n  \"theme\": \"dark\"\n}\n");
    let out = ex.run(".", &["install", "opencode"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("opencode.json: refused"));
    assert!(!ex.home.join(".config/opencode/plugins").exists(), "nothing is written");
}

#[test]
fn opencode_install_json_output() {
    let ex = Example::new();
    ex.home_file(".config/opencode/opencode.json", "{\"theme\": \"dark\"}\n");
    let out = ok(&ex.run(".", &["install", "opencode", "--json", "--dry-run"]));
    let value: Value = serde_json::from_str(&ex.filter(&out.replace(BIN, "[BIN]"))).unwrap();
    let diff = value["diff"].as_str().unwrap().to_owned();
    assert!(diff.contains(&binary_line().replace(BIN, "[BIN]")), "{diff}");
    insta::assert_json_snapshot!(value, { ".diff" => "[diff]" }, @r#"
    {
      "action": "install",
      "command": "[BIN] hook opencode",
      "diff": "[diff]",
      "dry_run": true,
      "files": [
        {
          "backup": null,
          "change": "created",
          "path": "[HOME]/.config/opencode/plugins/agentspine.js"
        },
        {
          "backup": null,
          "change": "updated",
          "path": "[HOME]/.config/opencode/opencode.json"
        }
      ],
      "host": "opencode",
      "next_steps": []
    }
    "#);
    assert!(diff.ends_with(
        "--- a[HOME]/.config/opencode/opencode.json\n+++ b[HOME]/.config/opencode/opencode.json\n@@ -1 +1 @@\n-{\"theme\": \"dark\"}\n+{\"theme\": \"dark\", \"mcp\": {\"agentspine\": {\"type\": \"local\", \"command\": [\"[BIN]\", \"mcp\"], \"enabled\": true}}}\n"
    ), "{diff}");
    assert!(!ex.home.join(".config/opencode/plugins").exists(), "a dry run writes nothing");
}
