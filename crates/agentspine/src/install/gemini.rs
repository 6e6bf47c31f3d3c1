//! Gemini CLI's file: hooks and the MCP server both in
//! `~/.gemini/settings.json` (`$GEMINI_CLI_HOME/.gemini` when set), the
//! user's settings, which Gemini runs without asking (a project's
//! `.gemini/settings.json` hooks run only in a trusted folder).

use std::path::{Path, PathBuf};

use super::json::{Json, Object};
use super::{Change, hooks, parse_object, read_config, render_object};

/// The events agentspine answers, with Gemini's matcher for each (`None`:
/// every occurrence). AfterTool's is a regular expression over tool names:
/// the path tools (Gemini adds a hook's context to the tool's result
/// there; BeforeTool's context is dropped). Not PreCompress: Gemini 0.61
/// fires it before every check whether to compress, on every turn, so it
/// says nothing about what the model still has.
pub const EVENTS: &[(&str, Option<&str>)] = &[
    ("SessionStart", None),
    ("BeforeAgent", None),
    ("AfterTool", Some("^(read_file|read_many_files|list_directory|write_file|replace|glob|grep_search)$")),
    ("SessionEnd", None),
];

/// Gemini CLI's profile directory.
pub(super) fn profile(home: &Path) -> PathBuf {
    let base = std::env::var_os("GEMINI_CLI_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .unwrap_or_else(|| home.to_path_buf());
    base.join(".gemini")
}

/// The one change to install (`adding`) or uninstall agentspine.
pub(super) fn changes(home: &Path, bin: &str, adding: bool) -> anyhow::Result<Vec<Change>> {
    let dir = profile(home);
    let parent = dir.parent().map(Path::to_path_buf).unwrap_or_else(|| home.to_path_buf());
    let name = "settings.json";
    let path = dir.join(name);
    let before = read_config(&dir, name)?;
    let original = parse_object(before.as_deref(), &path)?;
    let mut edited = original.clone();
    if adding {
        hooks::install(&mut edited, EVENTS, &hooks::command(bin, "gemini"), "gemini")
            .map_err(|e| anyhow::anyhow!("{}: refused: {e}", path.display()))?;
    } else {
        hooks::uninstall(&mut edited, "gemini");
    }
    mcp_server(&mut edited, &original, &path, bin, adding)?;
    let after = render_object(before.as_deref(), &original, edited)?;
    Ok(vec![Change {
        dir: dir.clone(),
        name: name.into(),
        make_dir: Some((parent, ".gemini".to_owned())),
        before,
        after,
        mode: 0o600,
    }])
}

/// `mcpServers.agentspine = {"command": BIN, "args": ["mcp"]}` (Gemini
/// starts a server with a `command` over stdio).
fn mcp_server(
    edited: &mut Object,
    original: &Object,
    path: &Path,
    bin: &str,
    adding: bool,
) -> anyhow::Result<()> {
    let servers = edited.entry("mcpServers".to_owned()).or_insert_with(|| Json::Object(Object::new()));
    let Json::Object(servers) = servers else {
        anyhow::bail!("{}: refused: `mcpServers` is not a JSON object", path.display())
    };
    if adding {
        let server =
            Json::object([("command", Json::str(bin)), ("args", Json::Array(vec![Json::str("mcp")]))]);
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
    Ok(())
}
