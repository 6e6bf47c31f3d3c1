//! Claude Code's files: hooks in `settings.json`, the MCP server in
//! `.claude.json` (user scope, as `claude mcp add --scope user` writes it)
//! or `.mcp.json` (project scope).

use std::path::{Path, PathBuf};

use super::json::{Json, Object};
use super::{Change, hooks, json_change};

/// The events agentspine answers, with Claude's matcher for each (`None`:
/// the event has no matcher). SessionStart's matcher is the session
/// source; PreToolUse's the tools whose input can name a path (the
/// profile's: `Read|Edit|MultiEdit|Write|NotebookEdit|Grep|Glob|Bash`).
pub fn events() -> Vec<(&'static str, Option<String>)> {
    vec![
        ("SessionStart", Some("startup|resume|clear|compact".to_owned())),
        ("UserPromptSubmit", None),
        ("PreToolUse", Some(agentspine_core::Host::Claude.profile().tool_names().join("|"))),
        ("SessionEnd", None),
    ]
}

/// The changes to install (`adding`) or uninstall agentspine: user scope
/// when `project` is `None`.
pub(super) fn changes(
    home: &Path,
    project: Option<&Path>,
    bin: &str,
    adding: bool,
) -> anyhow::Result<Vec<Change>> {
    let config_dir = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|v| !v.is_empty()).map(PathBuf::from);
    let (settings_dir, settings_parent, mcp_dir, mcp_name, mcp_mode) = match project {
        Some(project) => {
            (project.join(".claude"), project.to_path_buf(), project.to_path_buf(), ".mcp.json", 0o644)
        }
        None => match &config_dir {
            Some(dir) => (dir.clone(), parent(dir)?, dir.clone(), ".claude.json", 0o600),
            None => (home.join(".claude"), home.to_path_buf(), home.to_path_buf(), ".claude.json", 0o600),
        },
    };
    let settings = settings_change(&settings_dir, &settings_parent, bin, adding)?;
    let mcp = mcp_change(&mcp_dir, mcp_name, mcp_mode, bin, adding)?;
    Ok(vec![settings, mcp])
}

fn parent(dir: &Path) -> anyhow::Result<PathBuf> {
    dir.parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| anyhow::anyhow!("{}: no parent directory", dir.display()))
}

fn settings_change(dir: &Path, parent: &Path, bin: &str, adding: bool) -> anyhow::Result<Change> {
    let name = "settings.json";
    let path = dir.join(name);
    let dir_name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
    let make_dir = Some((parent.to_path_buf(), dir_name));
    json_change(
        dir,
        name,
        make_dir,
        0o644,
        |text| hooks::holds(text, "claude"),
        adding,
        |edited, had| hooks::edit(edited, &hooks::borrowed(&events()), bin, "claude", adding, had, &path),
    )
}

/// Whether the JSON text `text` registers agentspine's MCP server.
pub(super) fn holds_server(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text)
        .is_ok_and(|root| root.get("mcpServers").and_then(|s| s.get("agentspine")).is_some())
}

/// `mcpServers.agentspine = {"type": "stdio", "command": BIN, "args": ["mcp"]}`.
pub(super) fn mcp_change(
    dir: &Path,
    name: &str,
    mode: u32,
    bin: &str,
    adding: bool,
) -> anyhow::Result<Change> {
    let server = Json::object([
        ("type", Json::str("stdio")),
        ("command", Json::str(bin)),
        ("args", Json::Array(vec![Json::str("mcp")])),
    ]);
    let path = dir.join(name);
    json_change(dir, name, None, mode, holds_server, adding, |edited, had| {
        set_server(edited, &path, server, adding, had)
    })
}

/// Adds (`adding`) or removes `mcpServers.agentspine`; an `mcpServers`
/// the removal leaves empty goes too, unless `had` says the file had it
/// before install.
pub(super) fn set_server(
    edited: &mut Object,
    path: &Path,
    server: Json,
    adding: bool,
    had: &dyn Fn(&[&str]) -> bool,
) -> anyhow::Result<()> {
    let existed = edited.contains_key("mcpServers");
    let servers = edited.entry("mcpServers".to_owned()).or_insert_with(|| Json::Object(Object::new()));
    let Json::Object(servers) = servers else {
        anyhow::bail!("{}: refused: `mcpServers` is not a JSON object", path.display())
    };
    if adding {
        match servers.get_mut("agentspine") {
            Some(existing) => *existing = server,
            None => {
                servers.insert("agentspine".into(), server);
            }
        }
    } else {
        let removed = servers.shift_remove("agentspine").is_some();
        if servers.is_empty() && ((removed && !had(&["mcpServers"])) || !existed) {
            edited.shift_remove("mcpServers");
        }
    }
    Ok(())
}
