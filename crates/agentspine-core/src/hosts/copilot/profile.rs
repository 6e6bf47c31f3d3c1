//! GitHub Copilot CLI, as the surfaces see it (HOSTS.md, "GitHub Copilot
//! CLI"). Its command hooks (`~/.copilot/hooks/*.json`, camelCase events)
//! send on `{"additionalContext": …}` (measured on 1.0.102).

use crate::host::Host;
use crate::hosts::profile::{
    CapUnit, Carrier, CheckFacts, ConfigFormat, ContextCap, HookEvent, HookOutput, Hooks, Install, NO_CHECKS,
    Profile, SessionFiles, Tool, ToolPaths, VersionProbe,
};

/// What `install` says to `--settings project` or `--trust-hooks`: the
/// host has neither.
const REFUSED: &str = "GitHub Copilot CLI takes neither `--settings project` (a repository's .github/hooks run only in a folder Copilot trusts; agentspine installs for the user, whose hooks need no trust) nor `--trust-hooks`";

/// GitHub Copilot CLI.
pub const PROFILE: Profile = Profile {
    host: Host::Copilot,
    name: "copilot",
    binds_as: Host::Copilot,
    display: "GitHub Copilot CLI",
    home: super::home,
    variables: &["COPILOT_HOME", "COPILOT_CUSTOM_INSTRUCTIONS_DIRS"],
    profile_inputs: |env| vec![("copilot_home", super::home(env))],
    project_dir: Some(".github/instructions"),
    evidence_names: &[],
    configurable_names: false,
    checked_by_default: true,
    chosen_by_evidence: true,
    memory_facts: false,
    hooks: Some(Hooks {
        // Measured on 1.0.102: sessionStart's and userPromptSubmitted's
        // contexts reach the model uncapped; a postToolUse context is
        // appended to the tool's result (preToolUse's lands after the
        // tool ran too, so postToolUse it is).
        events: &[
            ("sessionStart", HookEvent::SessionStart),
            ("userPromptSubmitted", HookEvent::Prompt),
            ("postToolUse", HookEvent::Tool),
            ("sessionEnd", HookEvent::Forget),
        ],
        // Measured on 1.0.102: a `view` of a file adds the instruction
        // files of each directory from the file's up to the nearest one
        // read at start; no other tool (nor a view of a directory) loads
        // anything.
        tools: &[
            Tool { names: &["view"], paths: ToolPaths::Field(&["path"]), loads_nested: true },
            Tool { names: &["create", "edit"], paths: ToolPaths::Field(&["path"]), loads_nested: false },
            // Their argument is `paths` (COPILOT-MEASURED.md, the tools
            // offered); a string there names the searched path.
            Tool {
                names: &["grep", "glob"],
                paths: ToolPaths::Field(&["paths", "path"]),
                loads_nested: false,
            },
            Tool {
                names: &["bash"],
                paths: ToolPaths::Shell { command: &["command"], workdir: &[] },
                loads_nested: false,
            },
        ],
        // Measured on 1.0.102: the joined postToolUse contexts are cut
        // silently at 10,240 UTF-16 units; agentspine stays under it.
        context_cap: ContextCap { limit: 10_000, unit: CapUnit::Utf16 },
        // Copilot's own words for a file its `view` loads.
        heading: |_, relative| {
            format!("Custom instructions from {relative}. Apply these to any code you write here:")
        },
        session_files: SessionFiles::None,
        started_in: None,
        unnamed_event: Some(super::hooks::unnamed_event),
        output: HookOutput::AdditionalContext,
    }),
    // Measured on 1.0.102: user hook files (`$COPILOT_HOME/hooks/*.json`,
    // and the `hooks` key of its `settings.json`) run without a trust step;
    // the user's `mcp-config.json` is loaded without one too. A
    // repository's `.github/hooks/*.json` and `.mcp.json` count only in a
    // trusted folder, so agentspine installs for the user.
    install: Some(Install {
        carrier: Carrier::CommandHooks,
        user_hook_files: |env| {
            super::home(env)
                .map(|h| vec![h.join("hooks").join(HOOK_FILE), h.join("settings.json")])
                .unwrap_or_default()
        },
        project_hook_files: &[],
        user_mcp_files: |env| {
            super::home(env).map(|h| (h.join(MCP_FILE), ConfigFormat::Json)).into_iter().collect()
        },
        project_mcp_files: &[],
        json_comments: false,
        project_settings: Err(REFUSED),
        hook_trust: Err(REFUSED),
        dir: |env| super::home(env),
        dir_unset: "neither COPILOT_HOME nor HOME is set",
        plugin: false,
        trust_note: Some(
            "user hooks (~/.copilot/hooks) run without a trust step; a repository's .github/hooks run only in a trusted folder",
        ),
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
    version_probe: Some(VersionProbe { program: "copilot", args: &["--version"] }),
};

/// The hook file `install copilot` writes in `$COPILOT_HOME/hooks`.
pub const HOOK_FILE: &str = "agentspine.json";
/// The user's file that registers MCP servers, in `$COPILOT_HOME`.
pub const MCP_FILE: &str = "mcp-config.json";

/// Binds a request by Copilot's git rule ([`super::git_accepts`]).
fn bind(ask: &crate::hosts::Ask<'_>) -> Result<crate::locate::Located, crate::error::ResolveError> {
    crate::hosts::bind_by_git_where(ask, super::git_accepts)
}

/// Copilot's rules: the git root, its names at the root, the cwd and
/// between.
const RULES: crate::hosts::Rules = crate::hosts::Rules {
    resolve: |ask, gather, warnings| {
        let located = bind(ask)?;
        super::resolve(ask.env, &located, gather, warnings);
        Ok(located)
    },
    bind,
    render: super::render,
    names: |_, _, _| super::names(),
};
