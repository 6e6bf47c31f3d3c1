//! pi, both versions, as the surfaces see them (HOSTS.md, "pi"). pi has no
//! command hooks: its extension (`plugins/pi`) carries pi's events to
//! `agentspine hook pi` in the same payload shape.

use crate::host::Host;
use crate::hosts::profile::{
    CapUnit, Carrier, CheckFacts, ConfigFormat, ContextCap, HookEvent, HookOutput, Hooks, Install, NO_CHECKS,
    Profile, SessionFiles, Tool, ToolPaths, VersionProbe,
};

/// What the extension carries: the same for both versions.
const HOOKS: Hooks = Hooks {
    events: &[
        ("SessionStart", HookEvent::SessionStart),
        ("UserPromptSubmit", HookEvent::Prompt),
        ("PreToolUse", HookEvent::Tool),
        ("SessionEnd", HookEvent::Forget),
    ],
    // pi's built-in tools that name a path (the same names in 0.73 and
    // 1.x), and `bash`'s reads. Nothing is loaded after the session
    // starts.
    tools: &[
        Tool {
            names: &["read", "write", "edit", "ls", "grep", "find"],
            paths: ToolPaths::Field(&["path"]),
            loads_nested: false,
        },
        Tool {
            names: &["bash"],
            paths: ToolPaths::Shell { command: &["command"], workdir: &[] },
            loads_nested: false,
        },
    ],
    // Measured on 1.6.0 and 0.73.1: no cap (500,000 characters arrive
    // whole). Until the budget is spent closest first, agentspine keeps
    // its own 10,000 units.
    context_cap: ContextCap { limit: 10_000, unit: CapUnit::Utf16 },
    // pi's own heading for a file: its absolute path.
    heading: |absolute, _| format!("## {}", absolute.display()),
    // pi reads both families itself (AGENTS.md, else CLAUDE.md).
    session_files: SessionFiles::None,
    started_in: None,
    unnamed_event: None,
    output: HookOutput::Specific,
};

/// What `install` says to `--settings project` or `--trust-hooks`: the
/// host has neither.
const PI_REFUSED: &str =
    "pi takes neither `--settings project` (project extensions need pi's project trust) nor `--trust-hooks`";

/// What `install pi` writes.
const PI_INSTALL: Install = Install {
    carrier: Carrier::Extension { mcp: true },
    user_hook_files: |env| {
        super::home(env).map(|h| h.join("extensions").join(EXTENSION)).into_iter().collect()
    },
    project_hook_files: &[],
    user_mcp_files: |env| {
        super::home(env).map(|h| (h.join("mcp.json"), ConfigFormat::Json)).into_iter().collect()
    },
    project_mcp_files: &[],
    json_comments: false,
    project_settings: Err(PI_REFUSED),
    hook_trust: Err(PI_REFUSED),
    dir: |env| super::home(env),
    dir_unset: "neither PI_CODING_AGENT_DIR nor HOME is set",
    plugin: false,
    trust_note: None,
    hook_entries: None,
};

/// pi 1.x.
pub const PROFILE: Profile = Profile {
    host: Host::Pi,
    name: "pi",
    binds_as: Host::Pi,
    display: "pi",
    home: super::home,
    variables: &["PI_CODING_AGENT_DIR"],
    profile_inputs: |env| vec![("pi_home", super::home(env))],
    project_dir: Some(".pi"),
    evidence_names: &[],
    configurable_names: false,
    checked_by_default: true,
    chosen_by_evidence: true,
    // pi keeps no memory of its own: the project memory directory
    // agentspine models is where its facts come from.
    memory_facts: true,
    hooks: Some(HOOKS),
    install: Some(PI_INSTALL),
    check: CheckFacts {
        follows_links: true,
        stops_at_link_loop: false,
        stops_at_unreadable: false,
        never_read_why: |_| None,
        checks: NO_CHECKS,
    },
    rules: RULES,
    version_probe: Some(VersionProbe { program: "pi", args: &["--version"] }),
};

/// The extension's file name in the agent directory's `extensions/`.
pub const EXTENSION: &str = "agentspine.js";

/// pi 0.73: the old pi, applied by `check` only when named. The same
/// extension serves it; it has no MCP client.
pub const PROFILE_0_73: Profile = Profile {
    host: Host::Pi073,
    name: "pi-0.73",
    display: "pi 0.73",
    chosen_by_evidence: false,
    install: Some(Install { carrier: Carrier::Extension { mcp: false }, ..PI_INSTALL }),
    rules: RULES_0_73,
    ..PROFILE
};

/// pi 1.x's rules: the git root, its candidates per directory.
const RULES: crate::hosts::Rules = crate::hosts::Rules {
    resolve: |ask, gather, _| {
        let located = crate::hosts::bind_by_git(ask)?;
        super::resolve(&super::current::RULES, ask.env, &located, gather);
        Ok(located)
    },
    bind: crate::hosts::bind_by_git,
    render: |r| super::current::render(&r.parts),
    names: |_, _, _| super::current::RULES.candidates.iter().map(|n| (*n).to_owned()).collect(),
};

/// pi 0.73's rules.
const RULES_0_73: crate::hosts::Rules = crate::hosts::Rules {
    resolve: |ask, gather, _| {
        let located = crate::hosts::bind_by_git(ask)?;
        super::resolve(&super::v0_73::RULES, ask.env, &located, gather);
        Ok(located)
    },
    bind: crate::hosts::bind_by_git,
    render: |r| super::v0_73::render(&r.parts),
    names: |_, _, _| super::v0_73::RULES.candidates.iter().map(|n| (*n).to_owned()).collect(),
};
