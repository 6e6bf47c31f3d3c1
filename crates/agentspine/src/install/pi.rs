//! pi's files (both versions share the agent directory): agentspine's
//! extension as
//! `<agent dir>/extensions/agentspine.js` (pi loads every `*.js` there at
//! start, for every project, without asking for project trust) and the
//! MCP server as `mcpServers.agentspine` in `<agent dir>/mcp.json` (read
//! by pi 1.x; pi 0.73 has no MCP client), where the agent directory is
//! `$PI_CODING_AGENT_DIR` or `~/.pi/agent`.
//!
//! The extension is `plugins/pi/agentspine.js` with the binary's absolute
//! path written in, so pi finds the binary that installed it whatever its
//! `PATH`; it asks `hook pi` or `hook pi-0.73` by the version of the pi
//! that loads it.

use std::path::Path;

use super::{Change, claude, read_config};

/// The extension's source, as shipped in `plugins/pi`.
pub const EXTENSION: &str = include_str!("../../../../plugins/pi/agentspine.js");
/// The line of [`EXTENSION`] that names the binary; install replaces it.
const BINARY_LINE: &str = "const AGENTSPINE = process.env.AGENTSPINE_BIN || \"agentspine\";";
/// The extension's file name in pi's extensions directory.
pub const FILE: &str = agentspine_core::hosts::pi::profile::EXTENSION;

/// Whether `text` is an agentspine extension (any version, installed or
/// copied from `plugins/pi`), which uninstall removes.
fn holds_extension(text: &str) -> bool {
    text.contains("const AGENTSPINE = ")
}

/// Whether `text` (pi's `mcp.json`) registers agentspine's server.
pub(super) fn holds_server(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text).is_ok_and(|v| v["mcpServers"]["agentspine"].is_object())
}

/// The extension's text with `bin` as the binary it runs.
pub fn extension_for(bin: &str) -> String {
    let quoted = serde_json::to_string(bin).expect("a string always serializes");
    EXTENSION.replacen(
        BINARY_LINE,
        &format!("const AGENTSPINE = {quoted}; // written by `agentspine install pi`"),
        1,
    )
}

/// The changes to install (`adding`) or uninstall agentspine for pi, whose
/// agent directory is `agent_dir`. The directory must exist (pi makes it
/// on its first run); `extensions` inside it is created when missing.
pub(super) fn changes(agent_dir: &Path, bin: &str, adding: bool) -> anyhow::Result<Vec<Change>> {
    let shown = agent_dir.display();
    let reader = agentspine_fs::Reader::new(agentspine_fs::Budget::UNLIMITED);
    if let Err(e) = reader.open_root(agent_dir) {
        anyhow::bail!(
            "{shown}: pi's agent directory cannot be opened ({e}); run pi once or set PI_CODING_AGENT_DIR"
        );
    }
    let dir = agent_dir.join("extensions");
    let before = read_config(&dir, FILE)?;
    let after = match &before {
        _ if adding => Some(extension_for(bin)),
        // A file of the user's own by this name is not agentspine's to remove.
        Some(text) if !holds_extension(text) => before.clone(),
        // One agentspine's install replaced comes back.
        Some(_) => super::backup::original(&dir, FILE, holds_extension),
        None => None,
    };
    let extension = Change {
        dir,
        name: FILE.to_owned(),
        make_dir: Some((agent_dir.to_path_buf(), "extensions".to_owned())),
        before,
        after,
        mode: 0o644,
        ours: holds_extension,
    };
    let mcp = claude::mcp_change(agent_dir, "mcp.json", 0o600, bin, adding)?;
    Ok(vec![extension, mcp])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binary_line_is_replaced_exactly_once() {
        assert_eq!(
            EXTENSION.matches(BINARY_LINE).count(),
            1,
            "plugins/pi/agentspine.js lost its binary line"
        );
        let text = extension_for("/opt/a \"b\"/agentspine");
        assert!(!text.contains(BINARY_LINE));
        assert_eq!(text.matches(r#"const AGENTSPINE = "/opt/a \"b\"/agentspine";"#).count(), 1);
        assert_eq!(
            text.len(),
            EXTENSION.len() - BINARY_LINE.len()
                + text.lines().find(|l| l.starts_with("const AGENTSPINE")).map_or(0, str::len)
        );
    }
}
