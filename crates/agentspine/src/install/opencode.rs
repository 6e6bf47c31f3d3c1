//! opencode's files, in its global configuration directory
//! (`$OPENCODE_CONFIG_DIR`, else `$XDG_CONFIG_HOME/opencode`, else
//! `~/.config/opencode`): agentspine's plugin as `plugins/agentspine.js`
//! (opencode loads every `*.js` there at start, for every project) and the
//! MCP server as `mcp.agentspine` in `opencode.json`, opencode's own shape:
//! `{"type": "local", "command": [BIN, "mcp"], "enabled": true}`.
//!
//! The plugin is `plugins/opencode/agentspine.js` with the binary's absolute
//! path written in (after `$AGENTSPINE_BIN`, which still wins), so opencode
//! finds the binary that installed it whatever its `PATH`.
//!
//! opencode writes `"$schema": "https://opencode.ai/config.json"` into a
//! config file that has none, the first time it reads it. A file install
//! creates starts with that line, so opencode leaves it as written; and one
//! with no original (install created it) that holds nothing else once
//! agentspine's server is out is removed, as a file left `{}` is.

use std::path::Path;

use super::json::{Json, Object};
use super::{Change, json_change, read_config};

/// The plugin's source, as shipped in `plugins/opencode`.
pub const PLUGIN: &str = include_str!("../../../../plugins/opencode/agentspine.js");
/// The line of [`PLUGIN`] that names the binary; install replaces it.
const BINARY_LINE: &str = "const AGENTSPINE = process.env.AGENTSPINE_BIN || \"agentspine\";";
/// The plugin's file name in opencode's `plugins/` directory.
pub const FILE: &str = agentspine_core::hosts::opencode::profile::PLUGIN;
/// The configuration file that registers MCP servers.
const CONFIG: &str = "opencode.json";
/// What opencode writes as a config file's `$schema`.
const SCHEMA: &str = "https://opencode.ai/config.json";

/// Whether `text` is an agentspine plugin for opencode (any version,
/// installed or copied from `plugins/opencode`), which uninstall removes.
fn holds_plugin(text: &str) -> bool {
    text.contains("const AGENTSPINE = ") && text.contains("const HOST = \"opencode\";")
}

/// Whether the JSON text `text` registers agentspine's MCP server.
pub(super) fn holds_server(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text).is_ok_and(|root| root["mcp"]["agentspine"].is_object())
}

/// The plugin's text with `bin` as the binary it runs.
pub fn plugin_for(bin: &str) -> String {
    let quoted = serde_json::to_string(bin).expect("a string always serializes");
    PLUGIN.replacen(
        BINARY_LINE,
        &format!(
            "const AGENTSPINE = process.env.AGENTSPINE_BIN || {quoted}; // written by `agentspine install opencode`"
        ),
        1,
    )
}

/// The changes to install (`adding`) or uninstall agentspine for opencode,
/// whose configuration directory is `config_dir`. The directory must exist
/// (opencode makes it on its first run); `plugins` inside it is created
/// when missing.
pub(super) fn changes(config_dir: &Path, bin: &str, adding: bool) -> anyhow::Result<Vec<Change>> {
    let reader = agentspine_fs::Reader::new(agentspine_fs::Budget::UNLIMITED);
    if let Err(e) = reader.open_root(config_dir) {
        anyhow::bail!(
            "{}: opencode's configuration directory cannot be opened ({e}); run opencode once or set \
             OPENCODE_CONFIG_DIR",
            config_dir.display()
        );
    }
    let dir = config_dir.join("plugins");
    let before = read_config(&dir, FILE)?;
    let after = match &before {
        _ if adding => Some(plugin_for(bin)),
        // A file of the user's own by this name is not agentspine's to remove.
        Some(text) if !holds_plugin(text) => before.clone(),
        // One agentspine's install replaced comes back.
        Some(_) => super::backup::original(&dir, FILE, holds_plugin),
        None => None,
    };
    let plugin = Change {
        dir,
        name: FILE.to_owned(),
        make_dir: Some((config_dir.to_path_buf(), "plugins".to_owned())),
        before,
        after,
        mode: 0o644,
        ours: holds_plugin,
    };
    let path = config_dir.join(CONFIG);
    let creating = adding && read_config(config_dir, CONFIG)?.is_none();
    let server = Json::object([
        ("type", Json::str("local")),
        ("command", Json::Array(vec![Json::str(bin), Json::str("mcp")])),
        ("enabled", Json::Bool(true)),
    ]);
    let config = json_change(config_dir, CONFIG, None, 0o600, holds_server, adding, |edited, had| {
        if creating {
            edited.insert("$schema".to_owned(), Json::str(SCHEMA));
        }
        set_server(edited, &path, server, adding, had)
    })?;
    Ok(vec![plugin, config])
}

/// Adds (`adding`) or removes `mcp.agentspine`. An `mcp` the removal
/// leaves empty goes too unless `had` says the file had it before install,
/// and a file without an original that holds only opencode's `$schema`
/// after the removal is emptied.
fn set_server(
    edited: &mut Object,
    path: &Path,
    server: Json,
    adding: bool,
    had: &dyn Fn(&[&str]) -> bool,
) -> anyhow::Result<()> {
    let existed = edited.contains_key("mcp");
    let servers = edited.entry("mcp".to_owned()).or_insert_with(|| Json::Object(Object::new()));
    let Json::Object(servers) = servers else {
        anyhow::bail!("{}: refused: `mcp` is not a JSON object", path.display())
    };
    if adding {
        match servers.get_mut("agentspine") {
            Some(existing) => *existing = server,
            None => {
                servers.insert("agentspine".into(), server);
            }
        }
        return Ok(());
    }
    let removed = servers.shift_remove("agentspine").is_some();
    if servers.is_empty() && ((removed && !had(&["mcp"])) || !existed) {
        edited.shift_remove("mcp");
    }
    let only_schema = edited.len() == 1 && edited.get("$schema").and_then(Json::as_str) == Some(SCHEMA);
    if removed && only_schema && !had(&[]) {
        edited.clear();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binary_line_is_replaced_exactly_once() {
        assert_eq!(
            PLUGIN.matches(BINARY_LINE).count(),
            1,
            "plugins/opencode/agentspine.js lost its binary line"
        );
        let text = plugin_for("/opt/a \"b\"/agentspine");
        assert!(!text.contains(BINARY_LINE));
        assert_eq!(
            text.matches(r#"const AGENTSPINE = process.env.AGENTSPINE_BIN || "/opt/a \"b\"/agentspine";"#)
                .count(),
            1
        );
        assert!(holds_plugin(PLUGIN) && holds_plugin(&text));
        assert!(!holds_plugin(super::super::pi::EXTENSION), "pi's extension is not opencode's plugin");
    }
}
