//! Kimi Code, as the surfaces see it (HOSTS.md, "Kimi Code"). Of its hook
//! events only `UserPromptSubmit`'s output reaches the model (measured on
//! 2.1.0), as the `message` of the hook's JSON.

use crate::host::Host;
use crate::hosts::profile::{
    CapUnit, Carrier, CheckFacts, ConfigFormat, ContextCap, HookEntries, HookEvent, HookOutput, Hooks,
    Install, NO_CHECKS, Profile, SessionFiles, VersionProbe,
};

/// What `install` says to `--settings project` or `--trust-hooks`: the
/// host has neither.
const REFUSED: &str = "Kimi Code takes neither `--settings project` (it never runs a project's hooks) nor `--trust-hooks` (it runs user hooks without a trust step)";

/// Kimi Code.
pub const PROFILE: Profile = Profile {
    host: Host::Kimi,
    name: "kimi",
    binds_as: Host::Kimi,
    display: "Kimi Code",
    home: super::home,
    variables: &["KIMI_CODE_HOME"],
    profile_inputs: |env| vec![("kimi_home", super::home(env))],
    project_dir: Some(".kimi-code"),
    evidence_names: &[],
    configurable_names: false,
    checked_by_default: true,
    chosen_by_evidence: true,
    memory_facts: false,
    hooks: Some(Hooks {
        // The prompt is the only event whose output Kimi sends on: the
        // paths it names bring their files there, with continuity.
        events: &[("UserPromptSubmit", HookEvent::Prompt)],
        tools: &[],
        // Measured on 2.1.0: no cap (500,000 characters arrive whole).
        // agentspine keeps its own 10,000 units.
        context_cap: ContextCap { limit: 10_000, unit: CapUnit::Utf16 },
        // Kimi's own label for a file.
        heading: |absolute, _| format!("<!-- From: {} -->", absolute.display()),
        session_files: SessionFiles::None,
        started_in: None,
        unnamed_event: None,
        output: HookOutput::Message,
    }),
    // Both files are in Kimi's home, which it reads for every project
    // without a trust step (measured on 2.1.0: user hooks run in a folder
    // never trusted, `$KIMI_CODE_HOME/mcp.json` always loads). A project's
    // `.kimi-code/config.toml` hooks never run, so there are no project
    // hook files; its `.mcp.json` and `.kimi-code/mcp.json` load only in a
    // trusted folder, and agentspine writes neither.
    install: Some(Install {
        carrier: Carrier::CommandHooks,
        user_hook_files: |env| super::home(env).map(|h| h.join("config.toml")).into_iter().collect(),
        project_hook_files: &[],
        user_mcp_files: |env| {
            super::home(env).map(|h| (h.join("mcp.json"), ConfigFormat::Json)).into_iter().collect()
        },
        project_mcp_files: &[],
        json_comments: false,
        project_settings: Err(REFUSED),
        hook_trust: Err(REFUSED),
        dir: |env| env.home.clone(),
        dir_unset: "HOME is not set",
        plugin: false,
        trust_note: None,
        hook_entries: Some(HookEntries {
            refused: super::hooks::refused,
            as_groups: super::hooks::as_groups,
        }),
    }),
    check: CheckFacts {
        follows_links: true,
        stops_at_link_loop: false,
        stops_at_unreadable: false,
        never_read_why: |_| None,
        checks: NO_CHECKS,
    },
    rules: RULES,
    version_probe: Some(VersionProbe { program: "kimi", args: &["--version"] }),
};

/// Kimi's rules: the git root, its names per directory.
const RULES: crate::hosts::Rules = crate::hosts::Rules {
    resolve: |ask, gather, _| {
        let located = crate::hosts::bind_by_git(ask)?;
        super::resolve(ask.env, &located, gather);
        Ok(located)
    },
    bind: crate::hosts::bind_by_git,
    render: |r| super::render(&r.parts),
    names: |_, _, _| super::NAMES.iter().map(|n| (*n).to_owned()).collect(),
};
