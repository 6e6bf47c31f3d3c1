//! Each host's profile: the facts every surface asks, checked against what
//! the surfaces rely on.

use std::path::Path;

use agentspine_core::hosts::profile::{CapUnit, Carrier, ConfigFormat, ContextCap, VERIFIED, verified};
use agentspine_core::hosts::{HookEvent, Profile};
use agentspine_core::{Environment, Host};

#[test]
fn every_host_has_its_own_profile_and_the_agents_were_verified() {
    for host in Host::ALL {
        let profile = host.profile();
        assert_eq!(profile.host, host, "{host}'s profile describes {}", profile.host);
        let versions: Vec<&str> = profile.verified().collect();
        // Every agent with hooks was measured on a pinned version; the
        // desktop and generic rules are agentspine's own.
        assert_eq!(!versions.is_empty(), profile.hooks.is_some(), "{host}: {versions:?}");
        for version in versions {
            assert!(
                version.split('.').all(|n| n.parse::<u32>().is_ok()),
                "{host}: {version:?} is no version"
            );
        }
    }
    // And the file names no host agentspine does not model.
    for line in VERIFIED.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let host = line.split_whitespace().next().unwrap_or_default();
        assert!(host.parse::<Host>().is_ok(), "verified-versions names {host:?}");
        assert_eq!(verified(host).count(), 1, "{host} is verified on one version");
    }
}

#[test]
fn hook_events_map_each_name_once_and_every_host_delivers_where_its_output_reaches_the_model() {
    for profile in Profile::with_hooks() {
        let hooks = profile.hooks.as_ref().expect("with_hooks");
        let names: Vec<&str> = hooks.events.iter().map(|(n, _)| *n).collect();
        let mut unique = names.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), names.len(), "{}: {names:?}", profile.host);
        // Kimi Code sends on only a prompt hook's output (measured on
        // 2.1.0): its profile asks nothing else.
        let wanted: &[HookEvent] = if profile.host == Host::Kimi {
            &[HookEvent::Prompt]
        } else {
            &[HookEvent::SessionStart, HookEvent::Prompt, HookEvent::Tool, HookEvent::Forget]
        };
        for wanted in wanted {
            assert!(hooks.events.iter().any(|(_, e)| e == wanted), "{}: no {wanted:?}", profile.host);
        }
        assert_eq!(hooks.events.len() == 1, profile.host == Host::Kimi, "{}", profile.host);
        assert!(hooks.context_cap.limit > 0);
    }
    assert_eq!(
        Host::Gemini.profile().hooks.as_ref().map(|h| h.event("AfterTool")),
        Some(Some(HookEvent::Tool))
    );
    assert_eq!(Host::Gemini.profile().hooks.as_ref().map(|h| h.event("BeforeTool")), Some(None));
    assert_eq!(
        Host::Codex.profile().hooks.as_ref().map(|h| h.event("PostCompact")),
        Some(Some(HookEvent::Forget))
    );
    assert_eq!(Host::Claude.profile().hooks.as_ref().map(|h| h.event("PostCompact")), Some(None));
    // The caps as measured (tests/e2e/HOOK-CONTEXT-MEASURED.md): Codex
    // counts bytes, Claude Code UTF-16 units.
    let cap = |host: Host| host.profile().hooks.as_ref().map(|h| h.context_cap);
    assert_eq!(cap(Host::Codex), Some(ContextCap { limit: 10_000, unit: CapUnit::Bytes }));
    assert_eq!(cap(Host::Claude), Some(ContextCap { limit: 10_000, unit: CapUnit::Utf16 }));
}

#[test]
fn the_host_loads_nested_files_only_for_the_tools_measured() {
    let loads = |host: Host, tool: &str| host.profile().loads_nested(tool);
    for tool in ["Read", "Edit", "MultiEdit", "Write", "NotebookEdit", "Bash"] {
        assert!(loads(Host::Claude, tool), "{tool}");
    }
    assert!(!loads(Host::Claude, "Grep") && !loads(Host::Claude, "Glob"));
    for tool in ["read_file", "read_many_files", "list_directory", "write_file", "replace"] {
        assert!(loads(Host::Gemini, tool), "{tool}");
    }
    assert!(!loads(Host::Gemini, "glob") && !loads(Host::Gemini, "grep_search"));
    // opencode: only `read` (measured on 1.18.33).
    assert!(loads(Host::Opencode, "read"));
    for tool in ["edit", "write", "glob", "grep", "bash"] {
        assert!(!loads(Host::Opencode, tool), "{tool}");
    }
    for host in [Host::Codex, Host::Pi, Host::Pi073] {
        for tool in ["apply_patch", "read", "edit", "Read", "shell"] {
            assert!(!loads(host, tool), "{host} {tool}");
        }
    }
}

#[test]
fn installed_files_live_in_each_host_s_home() {
    let env = Environment::from_vars(|name| (name == "HOME").then(|| "/h".into()));
    let root = Path::new("/p");
    let files = |host: Host| {
        let install = host.profile().install.as_ref().expect("installable");
        let hooks: Vec<String> =
            install.hook_files(&env, root).iter().map(|p| p.display().to_string()).collect();
        let mcp: Vec<String> =
            install.mcp_files(&env, root).iter().map(|(p, _)| p.display().to_string()).collect();
        (hooks, mcp)
    };
    assert_eq!(
        files(Host::Claude),
        (
            vec![
                "/h/.claude/settings.json".to_owned(),
                "/p/.claude/settings.json".to_owned(),
                "/p/.claude/settings.local.json".to_owned()
            ],
            vec!["/h/.claude.json".to_owned(), "/p/.mcp.json".to_owned()]
        )
    );
    assert_eq!(
        files(Host::Codex),
        (
            vec!["/h/.codex/hooks.json".to_owned(), "/h/.codex/config.toml".to_owned()],
            vec!["/h/.codex/config.toml".to_owned()]
        )
    );
    assert_eq!(
        files(Host::Gemini),
        (
            vec!["/h/.gemini/settings.json".to_owned(), "/p/.gemini/settings.json".to_owned()],
            vec!["/h/.gemini/settings.json".to_owned()]
        )
    );
    assert_eq!(
        files(Host::Pi),
        (vec!["/h/.pi/agent/extensions/agentspine.js".to_owned()], vec!["/h/.pi/agent/mcp.json".to_owned()])
    );
    // Kimi Code: `[[hooks]]` in its config.toml, the server in its mcp.json.
    assert_eq!(
        files(Host::Kimi),
        (vec!["/h/.kimi-code/config.toml".to_owned()], vec!["/h/.kimi-code/mcp.json".to_owned()])
    );
    let env = Environment::from_vars(|name| match name {
        "HOME" => Some("/h".into()),
        "KIMI_CODE_HOME" => Some("/k".into()),
        _ => None,
    });
    let install = Host::Kimi.profile().install.as_ref().expect("installable");
    assert_eq!(install.hook_files(&env, root), [Path::new("/k/config.toml")]);
    assert_eq!(install.mcp_files(&env, root), [(Path::new("/k/mcp.json").to_path_buf(), ConfigFormat::Json)]);
    assert_eq!(
        Host::Pi073.profile().install.as_ref().map(|i| i.carrier),
        Some(Carrier::Extension { mcp: false })
    );
    assert_eq!(
        files(Host::Copilot),
        (
            vec!["/h/.copilot/hooks/agentspine.json".to_owned(), "/h/.copilot/settings.json".to_owned()],
            vec!["/h/.copilot/mcp-config.json".to_owned()]
        )
    );
    // `$COPILOT_HOME` moves both (measured on 1.0.102).
    let moved = Environment::from_vars(|name| match name {
        "HOME" => Some("/h".into()),
        "COPILOT_HOME" => Some("/c".into()),
        _ => None,
    });
    let copilot = Host::Copilot.profile().install.as_ref().expect("installable");
    assert_eq!(
        copilot.hook_files(&moved, root),
        [Path::new("/c/hooks/agentspine.json"), Path::new("/c/settings.json")]
    );
    assert_eq!(copilot.mcp_files(&moved, root)[0].0, Path::new("/c/mcp-config.json"));
    assert!(Host::Desktop.profile().install.is_none() && Host::Generic.profile().install.is_none());
}

#[test]
fn a_host_s_name_is_its_profile_s_on_every_surface() {
    for host in Host::ALL {
        let profile = host.profile();
        assert_eq!(host.as_str(), profile.name);
        assert_eq!(serde_json::to_string(&host).unwrap(), format!("\"{}\"", profile.name));
        assert_eq!(profile.name.parse::<Host>(), Ok(host));
    }
    assert_eq!(Host::Pi073.binding_name(), "pi");
    assert_eq!(Host::Gemini.binding_name(), "gemini");
}
