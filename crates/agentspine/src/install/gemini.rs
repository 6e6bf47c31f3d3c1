//! Gemini CLI's file: hooks and the MCP server both in
//! `~/.gemini/settings.json` (`$GEMINI_CLI_HOME/.gemini` when set), the
//! user's settings, which Gemini runs without asking (a project's
//! `.gemini/settings.json` hooks run only in a trusted folder).

use std::path::{Path, PathBuf};

use super::json::Json;
use super::{Change, claude, hooks, json_change};

/// The events agentspine answers, with Gemini's matcher for each (`None`:
/// every occurrence). AfterTool's is a regular expression over tool names:
/// the tools whose input can name a path, the profile's (Gemini adds a
/// hook's context to the tool's result there; BeforeTool's context is
/// dropped). Not PreCompress: Gemini 0.61 fires it before every check
/// whether to compress, on every turn, so it says nothing about what the
/// model still has.
pub fn events() -> Vec<(&'static str, Option<String>)> {
    let tools = agentspine_core::Host::Gemini.profile().tool_names().join("|");
    vec![
        ("SessionStart", None),
        ("BeforeAgent", None),
        ("AfterTool", Some(format!("^({tools})$"))),
        ("SessionEnd", None),
    ]
}

/// Gemini CLI's profile directory.
pub(super) fn profile(home: &Path) -> PathBuf {
    let base = std::env::var_os("GEMINI_CLI_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .unwrap_or_else(|| home.to_path_buf());
    base.join(".gemini")
}

/// Whether the JSON text `text` holds a hook of ours or our MCP server.
fn holds(text: &str) -> bool {
    hooks::holds(text, "gemini") || claude::holds_server(text)
}

/// The one change to install (`adding`) or uninstall agentspine.
pub(super) fn changes(home: &Path, bin: &str, adding: bool) -> anyhow::Result<Vec<Change>> {
    let dir = profile(home);
    let parent = dir.parent().map(Path::to_path_buf).unwrap_or_else(|| home.to_path_buf());
    let name = "settings.json";
    let path = dir.join(name);
    // Gemini starts a server with a `command` over stdio.
    let server = Json::object([("command", Json::str(bin)), ("args", Json::Array(vec![Json::str("mcp")]))]);
    let make_dir = Some((parent, ".gemini".to_owned()));
    let change = json_change(&dir, name, make_dir, 0o600, holds, adding, |edited, had| {
        hooks::edit(edited, &hooks::borrowed(&events()), bin, "gemini", adding, had, &path)?;
        claude::set_server(edited, &path, server, adding, had)
    })?;
    Ok(vec![change])
}
