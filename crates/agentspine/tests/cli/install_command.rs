//! Which program `install` writes: never a cargo build directory unless
//! `--command` (or `$AGENTSPINE_INSTALL_COMMAND`) names it, and only names
//! uninstall still knows as agentspine's.

use crate::support::Example;

const BIN: &str = env!("CARGO_BIN_EXE_agentspine");

/// `agentspine ARGS` with the example's home and no install override.
fn plain(ex: &Example, args: &[&str]) -> std::process::Output {
    let mut command = ex.command(".", args);
    command.env_remove("AGENTSPINE_INSTALL_COMMAND");
    command.output().unwrap()
}

#[test]
fn install_from_a_build_directory_is_refused_and_writes_nothing() {
    let ex = Example::new();
    for args in [&["install", "claude"][..], &["install", "codex", "--dry-run"], &["install", "gemini"]] {
        let out = plain(&ex, &[args, &["--json"]].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let error = ex.json_any(&out);
        assert_eq!(error["error"]["code"], "install-from-build-directory", "{args:?}");
        assert_eq!(error["error"]["path"], BIN, "{args:?}");
    }
    assert!(!ex.home.join(".claude").exists() && !ex.home.join(".codex").exists());
    assert!(!ex.home.join(".gemini").exists());

    // Uninstall writes no command: the build's binary may still remove.
    let out = plain(&ex, &["uninstall", "claude"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn command_names_the_program_the_entries_run() {
    let ex = Example::new();
    let out = plain(&ex, &["install", "claude", "--command", "/opt/tools/agentspine", "--json"]);
    let report = ex.json(&out);
    assert_eq!(report["command"], "/opt/tools/agentspine hook claude");
    let settings = std::fs::read_to_string(ex.home.join(".claude/settings.json")).unwrap();
    assert_eq!(settings.matches("\"/opt/tools/agentspine hook claude\"").count(), 4);
    let state = std::fs::read_to_string(ex.home.join(".claude.json")).unwrap();
    assert_eq!(state.matches("\"/opt/tools/agentspine\"").count(), 1);

    // The same through the environment, here the bare PATH name.
    let mut command = ex.command(".", &["install", "codex", "--json"]);
    let out = command.env("AGENTSPINE_INSTALL_COMMAND", "agentspine").output().unwrap();
    assert_eq!(ex.json(&out)["command"], "agentspine hook codex");

    // Uninstall knows both as agentspine's.
    for host in ["claude", "codex"] {
        assert_eq!(plain(&ex, &["uninstall", host]).status.code(), Some(0), "{host}");
    }
    assert!(!ex.home.join(".claude/settings.json").exists());
    assert!(!ex.home.join(".codex/hooks.json").exists());
}

#[test]
fn command_must_stay_recognisable_and_applies_to_user_settings_only() {
    let ex = Example::new();
    let cases: [(&[&str], &str); 3] = [
        (&["install", "claude", "--command", "bin/agentspine"], "an absolute path ending in `/agentspine`"),
        (
            &["install", "claude", "--command", "/opt/agentspine-dev"],
            "an absolute path ending in `/agentspine`",
        ),
        (
            &["install", "claude", "--settings", "project", "--command", BIN],
            "`--command` applies to user settings only",
        ),
    ];
    for (args, says) in cases {
        let out = plain(&ex, &[args, &["--json"]].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let error = ex.json_any(&out);
        assert_eq!(error["error"]["code"], "install-refused", "{args:?}");
        assert!(error["error"]["message"].as_str().unwrap().contains(says), "{args:?}: {error}");
    }
    assert!(!ex.home.join(".claude").exists());
}
