//! Codex CLI, as the surfaces see it (HOSTS.md, "Codex").

use crate::host::Host;
use crate::hosts::profile::{
    CapUnit, Carrier, CheckFacts, ConfigFormat, ContextCap, HookEvent, HookOutput, Hooks, Install, NO_CHECKS,
    Profile, SessionFiles, Tool, ToolPaths, VersionProbe,
};

/// Codex CLI.
pub const PROFILE: Profile = Profile {
    host: Host::Codex,
    name: "codex",
    binds_as: Host::Codex,
    display: "Codex",
    home: super::home,
    variables: &["CODEX_HOME"],
    profile_inputs: |env| {
        vec![
            ("codex_home", super::home(env)),
            ("codex_profile", env.codex_profile.as_deref().map(Into::into)),
        ]
    },
    project_dir: Some(".codex"),
    evidence_names: &["AGENTS.md", "AGENTS.override.md"],
    configurable_names: true,
    checked_by_default: true,
    chosen_by_evidence: true,
    memory_facts: false,
    hooks: Some(Hooks {
        events: &[
            ("SessionStart", HookEvent::SessionStart),
            ("UserPromptSubmit", HookEvent::Prompt),
            ("PreToolUse", HookEvent::Tool),
            ("SessionEnd", HookEvent::Forget),
            // Codex summarises its history away when it compacts (and
            // starts no new session): what the session was sent is gone.
            ("PostCompact", HookEvent::Forget),
        ],
        // Codex loads no nested file for any tool (HOSTS.md).
        tools: &[
            Tool {
                names: &["apply_patch"],
                paths: ToolPaths::Patch(&["command", "input", "patch"]),
                loads_nested: false,
            },
            // Its shell tool (`exec_command`, reported to hooks as `Bash`
            // with `command`; `shell` takes an argv array): Codex never
            // loads a nested file, so a `cat` or `rg` of a package gets
            // that package's files with its output.
            Tool {
                names: &["Bash", "exec_command", "shell", "shell_command", "local_shell"],
                paths: ToolPaths::Shell { command: &["command", "cmd"], workdir: &["workdir"] },
                loads_nested: false,
            },
            Tool { names: &[], paths: ToolPaths::Field(&["path", "file_path"]), loads_nested: false },
        ],
        // Measured on 0.171.0 (tests/e2e/HOOK-CONTEXT-MEASURED.md): more
        // than 10,000 bytes (not characters) loses its middle.
        context_cap: ContextCap { limit: 10_000, unit: CapUnit::Bytes },
        heading: |_, relative| format!("## {relative}"),
        session_files: SessionFiles::CodexClaudeMd,
        started_in: None,
        unnamed_event: None,
        output: HookOutput::Specific,
    }),
    install: Some(Install {
        carrier: Carrier::CommandHooks,
        // Codex reads hooks from hooks.json and from `[hooks]` in
        // config.toml.
        user_hook_files: |env| {
            super::home(env).iter().flat_map(|h| [h.join("hooks.json"), h.join("config.toml")]).collect()
        },
        project_hook_files: &[],
        user_mcp_files: |env| {
            super::home(env).map(|h| (h.join("config.toml"), ConfigFormat::Toml)).into_iter().collect()
        },
        project_mcp_files: &[],
        json_comments: false,
        project_settings: Err("Codex has no project settings here: drop `--settings project`"),
        hook_trust: Ok(()),
        dir: |env| env.home.clone(),
        dir_unset: "HOME is not set",
        plugin: false,
        trust_note: None,
        hook_entries: None,
    }),
    check: CheckFacts {
        follows_links: true,
        // Measured: Codex stops at the ELOOP and sends no project file.
        stops_at_link_loop: true,
        // Measured (tests/e2e, unreadable_files): Codex stops at the error
        // and sends none of the project's docs.
        stops_at_unreadable: true,
        never_read_why: |name| {
            Some(format!(
                "Codex reads AGENTS.override.md, AGENTS.md and the project_doc_fallback_filenames it is \
                 configured with; {name} is none of them"
            ))
        },
        checks: NO_CHECKS,
    },
    rules: RULES,
    version_probe: Some(VersionProbe { program: "codex", args: &["--version"] }),
};

/// Codex's rules: its root markers and fallback names from its config.
const RULES: crate::hosts::Rules = crate::hosts::Rules {
    resolve: |ask, gather, warnings| {
        let config = super::load_config(ask.reader, ask.env, warnings);
        let located = bind_with(ask, &config)?;
        super::resolve(ask.env, &located, &config, gather);
        Ok(located)
    },
    bind: |ask| bind_with(ask, &super::load_config(ask.reader, ask.env, &mut Vec::new())),
    render: |r| super::render(&r.cwd, &r.parts),
    names: |env, reader, _| {
        let config = super::load_config(reader, env, &mut Vec::new());
        let mut names = vec!["AGENTS.override.md".to_owned(), "AGENTS.md".to_owned()];
        names.extend(config.fallback_filenames);
        names
    },
};

/// Binds `ask` by Codex's root markers.
fn bind_with(
    ask: &crate::hosts::Ask<'_>,
    config: &super::CodexConfig,
) -> Result<crate::locate::Located, crate::error::ResolveError> {
    crate::hosts::bind_by(ask, |cwd| super::find_root(ask.reader, ask.never, config, cwd))
}
