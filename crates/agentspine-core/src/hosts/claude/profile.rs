//! Claude Code, as the surfaces see it (HOSTS.md, "Claude Code").

use crate::host::Host;
use crate::hosts::profile::{
    CapUnit, Carrier, CheckFacts, ConfigFormat, ContextCap, HookEvent, HookOutput, Hooks, HostChecks,
    Install, Profile, SessionFiles, Tool, ToolPaths, VersionProbe,
};

/// Claude Code.
pub const PROFILE: Profile = Profile {
    host: Host::Claude,
    name: "claude",
    binds_as: Host::Claude,
    display: "Claude Code",
    home: super::home,
    variables: &["CLAUDE_CONFIG_DIR", "CLAUDE_CODE_PROJECT_DIR_NAME", "CLAUDE_PROJECT_DIR"],
    profile_inputs: |env| vec![("claude_home", super::home(env))],
    project_dir: Some(".claude"),
    evidence_names: &["CLAUDE.md", "CLAUDE.local.md", ".claude"],
    configurable_names: false,
    checked_by_default: true,
    chosen_by_evidence: true,
    memory_facts: true,
    hooks: Some(Hooks {
        events: &[
            ("SessionStart", HookEvent::SessionStart),
            ("UserPromptSubmit", HookEvent::Prompt),
            ("PreToolUse", HookEvent::Tool),
            ("SessionEnd", HookEvent::Forget),
        ],
        // Measured on 2.1.332: `Read` and `Write` load the nested
        // `CLAUDE.md` (and, through its AGENTS.md support, the nested
        // `AGENTS.md`) of directories below the directory it started in,
        // and the `.claude/rules` whose `paths:` match; `Edit` and
        // `MultiEdit` refuse a file that was not read first, so the `Read`
        // already loaded them. Nothing is loaded for a file outside the
        // start directory (a sibling package).
        tools: &[
            Tool {
                names: &["Read", "Edit", "MultiEdit", "Write"],
                paths: ToolPaths::Field(&["file_path"]),
                loads_nested: true,
            },
            Tool {
                names: &["NotebookEdit"],
                paths: ToolPaths::Field(&["notebook_path"]),
                loads_nested: true,
            },
            Tool { names: &["Grep", "Glob"], paths: ToolPaths::Field(&["path"]), loads_nested: false },
            // Measured on 2.1.332 (tests/e2e/first_edit.py): a file read
            // through the shell (`sed -n '1,80p' pkg/x.ts`) below the start
            // directory loads its nested `CLAUDE.md` as `Read` does.
            Tool {
                names: &["Bash"],
                paths: ToolPaths::Shell { command: &["command"], workdir: &[] },
                loads_nested: true,
            },
        ],
        // Measured on 2.1.332 (tests/e2e/HOOK-CONTEXT-MEASURED.md): a
        // context of more than 10,000 UTF-16 units is replaced with a
        // 2,000-unit preview and a file path.
        context_cap: ContextCap { limit: 10_000, unit: CapUnit::Utf16 },
        heading: |absolute, _| format!("Contents of {}:", absolute.display()),
        session_files: SessionFiles::ClaudeAgentsMd,
        started_in: Some(|env| env.var_path("CLAUDE_PROJECT_DIR")),
        unnamed_event: None,
        output: HookOutput::Specific,
    }),
    install: Some(Install {
        carrier: Carrier::CommandHooks,
        user_hook_files: |env| super::home(env).map(|h| h.join("settings.json")).into_iter().collect(),
        project_hook_files: &[".claude/settings.json", ".claude/settings.local.json"],
        user_mcp_files: |env| super::state_file(env).map(|f| (f, ConfigFormat::Json)).into_iter().collect(),
        project_mcp_files: &[(".mcp.json", ConfigFormat::Json)],
        json_comments: false,
        project_settings: Ok(()),
        hook_trust: Err("Claude Code has no hook trust to record: drop `--trust-hooks`"),
        dir: |env| env.home.clone(),
        dir_unset: "HOME is not set",
        plugin: true,
        trust_note: None,
        hook_entries: None,
    }),
    check: CheckFacts {
        follows_links: true,
        stops_at_link_loop: false,
        stops_at_unreadable: false,
        never_read_why: |name| {
            (name == "AGENTS.md").then(|| {
                "Claude Code leaves AGENTS.md out in this layout: in its default instructionFiles mode it reads \
                 AGENTS.md only when no non-blank CLAUDE.md, .claude/CLAUDE.md or CLAUDE.local.md is on the chain \
                 (and never in the claude-md mode)"
                    .to_owned()
            })
        },
        checks: HostChecks {
            per_dir: Some(super::check_rules::check),
            per_project: Some(super::check_memory::check),
        },
    },
    rules: RULES,
    version_probe: Some(VersionProbe { program: "claude", args: &["--version"] }),
};

/// Claude Code's rules: the git root, its settings, its chain.
const RULES: crate::hosts::Rules = crate::hosts::Rules {
    resolve: |ask, gather, warnings| {
        let located = crate::hosts::bind_by_git(ask)?;
        let mut settings = super::load_settings(ask.reader, ask.env, &located.root_path, warnings);
        if let Some(mode) = ask.claude_mode {
            settings.agents_md = mode;
        }
        super::resolve(ask.env, &located, &settings, gather);
        Ok(located)
    },
    bind: crate::hosts::bind_by_git,
    render: |r| super::render(&r.parts),
    names: |_, _, _| ["CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", ".claude"].map(str::to_owned).to_vec(),
};
