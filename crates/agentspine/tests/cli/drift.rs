//! `doctor` on installs that drifted from the running binary: the binary
//! the hooks name moved away, was replaced by another version, or the
//! Claude Code plugin is the installed hook set.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

use crate::support::Example;

/// A copy of the agentspine under test at `[HOME]/bin/agentspine`.
fn copy_binary(ex: &Example) -> PathBuf {
    let bin = ex.home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let copy = bin.join("agentspine");
    std::fs::copy(env!("CARGO_BIN_EXE_agentspine"), &copy).unwrap();
    copy
}

/// `install <host>` run by `program` instead of the binary under test.
fn install_with(ex: &Example, program: &Path, host: &str) {
    let out = Command::new(program)
        .args(["install", host])
        .current_dir(&ex.tree)
        .env_clear()
        .env("HOME", &ex.home)
        .env("AGENTSPINE_STATE_DIR", &ex.state)
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

fn doctor(ex: &Example, host: &str) -> (Option<i32>, serde_json::Value) {
    let out = ex.run(".", &["doctor", "--host", host, "--json"]);
    (out.status.code(), ex.json_any(&out))
}

#[test]
fn doctor_names_a_hook_binary_that_moved_away() {
    let ex = Example::new();
    let copy = copy_binary(&ex);
    install_with(&ex, &copy, "claude");
    let (_, report) = doctor(&ex, "claude");
    assert!(crate::support::only_repository_findings(&report), "{report}");
    assert_eq!(report["install"]["binaries"][0]["status"], "this-version");

    std::fs::remove_file(&copy).unwrap();
    let (code, report) = doctor(&ex, "claude");
    assert_eq!(code, Some(1));
    assert_eq!(
        report["install"]["binaries"],
        json!([{
            "program": "[HOME]/bin/agentspine",
            "named_by": ["hooks in [HOME]/.claude/settings.json", "MCP server in [HOME]/.claude.json"],
            "status": "missing",
        }])
    );
    assert_eq!(
        report["install"]["summary"],
        "installed, but the entries name a binary that is missing or another version: [HOME]/bin/agentspine"
    );
    let setup = crate::support::setup_actions(&report);
    let actions = setup.as_array().unwrap();
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert!(actions[0].as_str().unwrap().starts_with("`[HOME]/bin/agentspine` (hooks in "), "{actions:?}");
}

#[test]
fn doctor_names_a_hook_binary_of_another_version() {
    let ex = Example::new();
    let copy = copy_binary(&ex);
    install_with(&ex, &copy, "codex");
    std::fs::write(&copy, "#!/bin/sh\necho 'agentspine 0.0.1 (commit 000000000000, elsewhere)'\n").unwrap();
    std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, report) = doctor(&ex, "codex");
    assert_eq!(code, Some(1));
    let binaries = report["install"]["binaries"].as_array().unwrap();
    assert_eq!(binaries.len(), 1, "{binaries:?}");
    assert_eq!(binaries[0]["status"], "other-version");
    assert_eq!(binaries[0]["version"], "agentspine 0.0.1 (commit 000000000000, elsewhere)");
    assert_eq!(binaries[0]["path"], "[HOME]/bin/agentspine");
    assert_eq!(report["install"]["ok"], false);
}

#[test]
fn the_enabled_plugin_is_the_installed_hook_set_and_a_second_install_is_named() {
    let ex = Example::new();
    let copy = copy_binary(&ex);
    ex.home_file(".claude/settings.json", r#"{"enabledPlugins": {"agentspine@agentspine": true}}"#);
    let path = format!("{}:{}", copy.parent().unwrap().display(), std::env::var("PATH").unwrap());
    let doctor = |ex: &Example| {
        let out =
            ex.command(".", &["doctor", "--host", "claude", "--json"]).env("PATH", &path).output().unwrap();
        (out.status.code(), ex.json_any(&out))
    };
    let (_, report) = doctor(&ex);
    assert!(crate::support::only_repository_findings(&report), "{report}");
    assert_eq!(
        report["install"]["summary"],
        "hooks and MCP server installed by the plugin agentspine@agentspine"
    );
    assert_eq!(report["install"]["plugin"], "agentspine@agentspine");
    assert_eq!(
        report["install"]["binaries"],
        json!([{
            "program": "agentspine",
            "named_by": ["plugin agentspine@agentspine"],
            "status": "this-version",
            "path": "[HOME]/bin/agentspine",
        }])
    );

    // Installed into settings as well: every event would run twice.
    ex.stdout(&ex.run(".", &["install", "claude"]));
    let (code, report) = doctor(&ex);
    assert_eq!(code, Some(1));
    assert_eq!(
        crate::support::setup_actions(&report),
        json!([
            "the plugin agentspine@agentspine is enabled and agentspine hooks are in settings files too \
             (PreToolUse, SessionEnd, SessionStart, UserPromptSubmit): each runs, twice per event: keep the \
             plugin and run `agentspine uninstall claude`"
        ])
    );
}

/// A stand-in for a host's own program at `[HOME]/hosts/NAME`: a shell
/// script with `body`, and the `PATH` that finds it first.
fn host_program(ex: &Example, name: &str, body: &str) -> String {
    let dir = ex.home.join("hosts");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    format!("{}:{}", dir.display(), std::env::var("PATH").unwrap())
}

/// The version agentspine was verified on for `host`, from the one file
/// that says it.
fn verified(host: &str) -> String {
    agentspine_core::hosts::profile::verified(host).next().unwrap().to_owned()
}

#[test]
fn doctor_asks_the_host_for_its_version_and_says_what_another_one_means() {
    let ex = Example::new();
    let doctor = |host: &str, path: &str| {
        let out = ex.command(".", &["doctor", "--host", host, "--json"]).env("PATH", path).output().unwrap();
        let report = ex.json_any(&out);
        (out.status.code(), report["actions"].clone(), report["host_version"].clone())
    };
    let claude = verified("claude");

    // The verified version, as Claude Code prints it.
    let path = host_program(&ex, "claude", &format!("echo '{claude} (Claude Code)'"));
    let (code, actions, version) = doctor("claude", &path);
    assert_eq!(version["check"], "verified", "{version}");
    assert_eq!(version["found"], claude.as_str());
    assert_eq!(version["verified"], json!([claude]));
    assert_eq!(version["path"], "[HOME]/hosts/claude");

    // A newer one: said, with what it means, and never an action.
    host_program(&ex, "claude", "echo '99.0.1 (Claude Code)'");
    let (newer_code, newer_actions, version) = doctor("claude", &path);
    assert_eq!((version["check"].as_str(), version["found"].as_str()), (Some("newer"), Some("99.0.1")));
    let meaning = version["meaning"].as_str().unwrap();
    assert!(
        meaning.starts_with(&format!(
            "Claude Code 99.0.1 is newer than the version agentspine was verified on ({claude})"
        )),
        "{meaning}"
    );
    assert_eq!((newer_code, newer_actions), (code, actions));

    // pi says its version on standard error when its input is no terminal.
    let path = host_program(&ex, "pi", &format!("echo '{}' >&2", verified("pi")));
    let (_, _, version) = doctor("pi", &path);
    assert_eq!(version["check"], "verified", "{version}");
    // pi 0.73 is the same program: the 1.x answer is another version.
    let (_, _, version) = doctor("pi-0.73", &path);
    assert_eq!(version["check"], "newer", "{version}");

    // A program that fails, and none at all.
    let path = host_program(&ex, "codex", "exit 3");
    let (_, _, version) = doctor("codex", &path);
    assert_eq!(version["check"], "no-answer", "{version}");
    assert!(version["meaning"].as_str().unwrap().contains("did not say its version (exit"), "{version}");
    let (_, _, version) = doctor("gemini", "/nonexistent");
    assert_eq!(version["check"], "not-found");
    assert_eq!(version["path"], serde_json::Value::Null);
    assert_eq!(
        version["meaning"],
        format!(
            "no `gemini` on PATH: agentspine cannot tell which Gemini CLI you run, and assumes {}",
            verified("gemini")
        )
    );
    // The desktop rule has no program to ask.
    let (_, _, version) = doctor("desktop", &path);
    assert_eq!(version, serde_json::Value::Null);
}
