//! Gemini CLI, as the surfaces see it (HOSTS.md, "Gemini CLI").

use crate::host::Host;
use crate::hosts::profile::{
    CapUnit, Carrier, CheckFacts, ConfigFormat, ContextCap, HookEvent, HookOutput, Hooks, Install, NO_CHECKS,
    Profile, SessionFiles, Tool, ToolPaths, VersionProbe,
};

/// Gemini CLI.
pub const PROFILE: Profile = Profile {
    host: Host::Gemini,
    name: "gemini",
    binds_as: Host::Gemini,
    display: "Gemini CLI",
    home: super::home,
    variables: &["GEMINI_CLI_HOME", "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"],
    profile_inputs: |env| vec![("gemini_home", super::home(env))],
    project_dir: Some(".gemini"),
    evidence_names: &["GEMINI.md"],
    configurable_names: true,
    checked_by_default: true,
    chosen_by_evidence: true,
    memory_facts: false,
    hooks: Some(Hooks {
        events: &[
            ("SessionStart", HookEvent::SessionStart),
            ("BeforeAgent", HookEvent::Prompt),
            // Gemini adds a hook's context only to a tool's result
            // (AfterTool); what BeforeTool answers is dropped, so it is
            // not asked there.
            ("AfterTool", HookEvent::Tool),
            // Not PreCompress: 0.61 fires it on every turn, before it
            // checks whether to compress at all.
            ("SessionEnd", HookEvent::Forget),
        ],
        // 0.61 appends the context files between the touched path and its
        // root to the result of `read_file`, `read_many_files`,
        // `list_directory`, `write_file` and `replace` when the path lies
        // in its workspace, and of no other tool (`glob` and `grep_search`
        // load nothing); `read_many_files` takes glob patterns, which are
        // never expanded here.
        tools: &[
            Tool {
                names: &["read_file", "write_file", "replace"],
                paths: ToolPaths::Field(&["file_path"]),
                loads_nested: true,
            },
            Tool { names: &["list_directory"], paths: ToolPaths::Field(&["dir_path"]), loads_nested: true },
            Tool { names: &["read_many_files"], paths: ToolPaths::None, loads_nested: true },
            Tool {
                names: &["glob", "grep_search"],
                paths: ToolPaths::Field(&["dir_path"]),
                loads_nested: false,
            },
            // Not `run_shell_command`: Gemini loads a file's context files
            // itself when its agent edits the file (`replace`,
            // `write_file`), so files sent with a shell read would reach
            // the model twice (tests/e2e/first_edit.py).
        ],
        // Measured on 0.61.0: no cap on these events (500,000 characters
        // arrive whole; a shell tool's result is cut above 40,000). Until
        // the budget is spent closest first, agentspine keeps its own
        // 10,000 units.
        context_cap: ContextCap { limit: 10_000, unit: CapUnit::Utf16 },
        heading: |absolute, _| format!("--- Context from: {} ---", absolute.display()),
        session_files: SessionFiles::None,
        started_in: None,
        unnamed_event: None,
        output: HookOutput::Specific,
    }),
    install: Some(Install {
        carrier: Carrier::CommandHooks,
        // The user's settings hold what `install gemini` writes; a
        // project's `.gemini/settings.json` may hold hooks too (run only in
        // a trusted folder).
        user_hook_files: |env| super::home(env).map(|h| h.join("settings.json")).into_iter().collect(),
        project_hook_files: &[".gemini/settings.json"],
        user_mcp_files: |env| {
            super::home(env).map(|h| (h.join("settings.json"), ConfigFormat::Json)).into_iter().collect()
        },
        project_mcp_files: &[],
        json_comments: true,
        project_settings: Err("Gemini CLI is installed for the user only here: drop `--settings project`"),
        hook_trust: Err("Gemini CLI runs user hooks without a trust step: drop `--trust-hooks`"),
        dir: |env| env.home.clone(),
        dir_unset: "HOME is not set",
        plugin: false,
        trust_note: Some(
            "user hooks run without a trust step; hooks in a project's .gemini/settings.json run only in a trusted folder",
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
    version_probe: Some(VersionProbe { program: "gemini", args: &["--version"] }),
};

/// Gemini CLI's rules: its settings (as a session at the cwd sees them),
/// its root rule, its chain.
const RULES: crate::hosts::Rules = crate::hosts::Rules {
    resolve: |ask, gather, warnings| {
        let settings = super::load_settings(ask.reader, ask.env, &ask.request.cwd, warnings);
        let located = bind_with(ask, &settings)?;
        super::resolve(ask.env, &located, &settings, gather);
        Ok(located)
    },
    bind: |ask| bind_with(ask, &super::load_settings(ask.reader, ask.env, &ask.request.cwd, &mut Vec::new())),
    render: |r| super::render(&r.parts),
    names: |env, reader, root| super::load_settings(reader, env, root, &mut Vec::new()).names,
};

/// Binds `ask` by Gemini CLI's root rule.
fn bind_with(
    ask: &crate::hosts::Ask<'_>,
    settings: &super::GeminiSettings,
) -> Result<crate::locate::Located, crate::error::ResolveError> {
    crate::hosts::bind_by(ask, |cwd| super::find_root(ask.reader, ask.never, settings, cwd))
}
