//! opencode, as the surfaces see it (HOSTS.md, "opencode"). opencode has no
//! command hooks: its plugin (`plugins/opencode`) carries its events to
//! `agentspine hook opencode` in the same payload shape as the others.

use crate::host::Host;
use crate::hosts::profile::{
    CapUnit, Carrier, CheckFacts, ConfigFormat, ContextCap, HookEvent, HookOutput, Hooks, Install, NO_CHECKS,
    Profile, SessionFiles, Tool, ToolPaths, VersionProbe,
};

/// What `install` says to `--settings project` or `--trust-hooks`: the
/// host has neither.
const REFUSED: &str = "opencode takes neither `--settings project` (agentspine installs its plugin for the user) nor `--trust-hooks`";

/// opencode.
pub const PROFILE: Profile = Profile {
    host: Host::Opencode,
    name: "opencode",
    binds_as: Host::Opencode,
    display: "opencode",
    home: super::home,
    variables: &[
        "OPENCODE_CONFIG_DIR",
        "OPENCODE_CONFIG",
        "OPENCODE_CONFIG_CONTENT",
        "OPENCODE_DISABLE_CLAUDE_CODE",
        "OPENCODE_DISABLE_CLAUDE_CODE_PROMPT",
        "OPENCODE_DISABLE_PROJECT_CONFIG",
    ],
    profile_inputs: |env| {
        vec![
            ("opencode_home", super::home(env)),
            ("opencode_config", env.var_path("OPENCODE_CONFIG")),
            ("opencode_claude_off", super::claude_off(env).then(|| "on".into())),
            ("opencode_project_config_off", super::project_config_off(env).then(|| "on".into())),
        ]
    },
    project_dir: Some(".opencode"),
    evidence_names: &["CONTEXT.md"],
    configurable_names: false,
    checked_by_default: true,
    chosen_by_evidence: true,
    memory_facts: false,
    hooks: Some(Hooks {
        events: &[
            ("SessionStart", HookEvent::SessionStart),
            ("UserPromptSubmit", HookEvent::Prompt),
            ("PreToolUse", HookEvent::Tool),
            ("SessionEnd", HookEvent::Forget),
        ],
        // Measured on 1.18.33: a `read` of a file appends the first name
        // of each directory from the file's up to (not including) the cwd
        // to the tool's result, each once a session; no other tool loads
        // anything (a read of a directory neither).
        tools: &[
            Tool { names: &["read"], paths: ToolPaths::Field(&["filePath"]), loads_nested: true },
            Tool { names: &["edit", "write"], paths: ToolPaths::Field(&["filePath"]), loads_nested: false },
            Tool { names: &["glob", "grep"], paths: ToolPaths::Field(&["path"]), loads_nested: false },
            Tool {
                names: &["bash"],
                paths: ToolPaths::Shell { command: &["command"], workdir: &["workdir"] },
                loads_nested: false,
            },
        ],
        // Measured on 1.18.33: no cap (a 200,000-byte file is sent whole,
        // and a plugin's text is the plugin's). agentspine keeps its own
        // 10,000 units.
        context_cap: ContextCap { limit: 10_000, unit: CapUnit::Utf16 },
        // opencode's own label for a file.
        heading: |absolute, _| format!("Instructions from: {}", absolute.display()),
        // opencode reads AGENTS.md, CLAUDE.md and CONTEXT.md itself.
        session_files: SessionFiles::None,
        started_in: None,
        unnamed_event: None,
        output: HookOutput::Specific,
    }),
    // opencode runs no command hooks: its plugin carries the events. Both
    // files are in its global configuration directory, which opencode
    // reads for every project without a trust step; its config is JSONC
    // (the server is `mcp.agentspine`, opencode's shape: install/opencode.rs).
    install: Some(Install {
        carrier: Carrier::Extension { mcp: true },
        user_hook_files: |env| super::home(env).map(|h| h.join("plugins").join(PLUGIN)).into_iter().collect(),
        project_hook_files: &[],
        user_mcp_files: |env| {
            super::home(env).map(|h| (h.join("opencode.json"), ConfigFormat::Json)).into_iter().collect()
        },
        project_mcp_files: &[],
        json_comments: true,
        project_settings: Err(REFUSED),
        hook_trust: Err(REFUSED),
        dir: |env| super::home(env),
        dir_unset: "neither OPENCODE_CONFIG_DIR, XDG_CONFIG_HOME nor HOME is set",
        plugin: false,
        trust_note: None,
        hook_entries: None,
    }),
    check: CheckFacts {
        follows_links: true,
        stops_at_link_loop: false,
        stops_at_unreadable: false,
        never_read_why: |_| None,
        checks: NO_CHECKS,
    },
    rules: RULES,
    version_probe: Some(VersionProbe { program: "opencode", args: &["--version"] }),
};

/// The plugin's file name in the configuration directory's `plugins/`.
pub const PLUGIN: &str = "agentspine.js";

/// opencode's rules: the git root, the first name found on the way up.
const RULES: crate::hosts::Rules = crate::hosts::Rules {
    resolve: |ask, gather, warnings| {
        let located = crate::hosts::bind_by_git(ask)?;
        let found_git = located.evidence == crate::hosts::GIT_EVIDENCE;
        super::resolve(ask.env, &located, found_git, gather, warnings);
        Ok(located)
    },
    bind: crate::hosts::bind_by_git,
    render: |r| super::render(&r.parts),
    names: |env, _, _| super::names(env).into_iter().map(str::to_owned).collect(),
};
