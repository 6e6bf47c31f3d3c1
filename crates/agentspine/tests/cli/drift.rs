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
