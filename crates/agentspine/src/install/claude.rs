//! Claude Code's files: hooks in `settings.json`, the MCP server in
//! `.claude.json` (user scope, as `claude mcp add --scope user` writes it)
//! or `.mcp.json` (project scope).

use std::path::{Path, PathBuf};

use super::json::{Json, Object};
use super::{Change, hooks, parse_object, read_config, render_object};

/// The events agentspine answers, with Claude's matcher for each (`None`:
/// the event has no matcher). SessionStart's matcher is the session
/// source; PreToolUse's the file tools whose target may have a chain.
pub const EVENTS: &[(&str, Option<&str>)] = &[
    ("SessionStart", Some("startup|resume|clear|compact")),
    ("UserPromptSubmit", None),
    ("PreToolUse", Some("Read|Edit|MultiEdit|Write|NotebookEdit|Grep|Glob")),
    ("SessionEnd", None),
];

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
    let before = read_config(dir, name)?;
    let original = parse_object(before.as_deref(), &dir.join(name))?;
    let mut edited = original.clone();
    if adding {
        hooks::install(&mut edited, EVENTS, &hooks::command(bin, "claude"), "claude")
            .map_err(|e| anyhow::anyhow!("{}: refused: {e}", dir.join(name).display()))?;
    } else {
        hooks::uninstall(&mut edited, "claude");
    }
    let after = render_object(before.as_deref(), &original, edited)?;
    let dir_name = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
    Ok(Change {
        dir: dir.to_path_buf(),
        name: name.into(),
        make_dir: Some((parent.to_path_buf(), dir_name)),
        before,
        after,
        mode: 0o644,
    })
}

/// `mcpServers.agentspine = {"type": "stdio", "command": BIN, "args": ["mcp"]}`.
pub(super) fn mcp_change(
    dir: &Path,
    name: &str,
    mode: u32,
    bin: &str,
    adding: bool,
) -> anyhow::Result<Change> {
    let before = read_config(dir, name)?;
    let path = dir.join(name);
    let original = parse_object(before.as_deref(), &path)?;
    let mut edited = original.clone();
    let servers = edited.entry("mcpServers".to_owned()).or_insert_with(|| Json::Object(Object::new()));
    let Json::Object(servers) = servers else {
        anyhow::bail!("{}: refused: `mcpServers` is not a JSON object", path.display())
    };
    if adding {
        let server = Json::object([
            ("type", Json::str("stdio")),
            ("command", Json::str(bin)),
            ("args", Json::Array(vec![Json::str("mcp")])),
        ]);
        match servers.get_mut("agentspine") {
            Some(existing) => *existing = server,
            None => {
                servers.insert("agentspine".into(), server);
            }
        }
    } else {
        let removed = servers.shift_remove("agentspine").is_some();
        if servers.is_empty() && (removed || !original.contains_key("mcpServers")) {
            edited.shift_remove("mcpServers");
        }
    }
    let after = render_object(before.as_deref(), &original, edited)?;
    Ok(Change { dir: dir.to_path_buf(), name: name.into(), make_dir: None, before, after, mode })
}
