//! GitHub Copilot CLI's files, in its home (`$COPILOT_HOME`, else
//! `~/.copilot`): agentspine's hooks in a hook file of their own,
//! `hooks/agentspine.json` (Copilot runs every `*.json` there for every
//! project, without a trust step), and the MCP server as
//! `mcpServers.agentspine` in `mcp-config.json` (measured on 1.0.102:
//! tests/e2e/COPILOT-MEASURED.md, "Hooks" and "MCP").
//!
//! Copilot's hook files have their own shape, a list of hooks per event
//! with no matcher groups: `{"version": 1, "hooks": {"sessionStart":
//! [{"type": "command", "bash": CMD, "timeoutSec": 10}]}}`. A hook is ours
//! when its `bash` runs `agentspine hook copilot` ([`super::hooks::is_ours`]).
//! The events are the profile's: the ones whose context Copilot sends on
//! (`sessionStart`, `userPromptSubmitted`, `postToolUse`) and `sessionEnd`,
//! which forgets the session.

use std::path::Path;

use agentspine_core::Host;
use agentspine_core::hosts::copilot::profile::{HOOK_FILE, MCP_FILE};

use super::json::{Json, Object};
use super::{Change, claude, hooks, json_change};

/// The word `agentspine hook` takes for Copilot.
const HOST: &str = "copilot";
/// The hook file format Copilot reads.
const VERSION: u64 = 1;

/// The events agentspine answers, in the profile's order.
fn events() -> Vec<&'static str> {
    Host::Copilot
        .profile()
        .hooks
        .as_ref()
        .map(|h| h.events.iter().map(|(name, _)| *name).collect())
        .unwrap_or_default()
}

/// Whether the JSON text `text` holds a hook of ours.
fn holds_hooks(text: &str) -> bool {
    hooks::holds(text, HOST)
}

/// The changes to install (`adding`) or uninstall agentspine for Copilot,
/// whose home is `home`: the MCP file first, whose change makes the home
/// when it is missing (the hook file's makes `hooks` inside it).
pub(super) fn changes(home: &Path, bin: &str, adding: bool) -> anyhow::Result<Vec<Change>> {
    let home_name = home.file_name().and_then(|n| n.to_str()).map(str::to_owned);
    let (Some(parent), Some(home_name)) = (home.parent(), home_name) else {
        anyhow::bail!("{}: not a directory agentspine can write into", home.display())
    };
    let mcp_path = home.join(MCP_FILE);
    // Copilot starts a `local` server with a `command` over stdio and
    // offers the tools `tools` lists.
    let server = Json::object([
        ("type", Json::str("local")),
        ("command", Json::str(bin)),
        ("args", Json::Array(vec![Json::str("mcp")])),
        ("tools", Json::Array(vec![Json::str("*")])),
    ]);
    let make_home = Some((parent.to_path_buf(), home_name));
    let mcp = json_change(home, MCP_FILE, make_home, 0o600, claude::holds_server, adding, |edited, had| {
        claude::set_server(edited, &mcp_path, server, adding, had)
    })?;
    let dir = home.join("hooks");
    let hook_path = dir.join(HOOK_FILE);
    let command = hooks::command(bin, HOST);
    let make_hooks = Some((home.to_path_buf(), "hooks".to_owned()));
    let hook_file = json_change(&dir, HOOK_FILE, make_hooks, 0o644, holds_hooks, adding, |edited, had| {
        if adding {
            install(edited, &events(), &command)
                .map_err(|e| anyhow::anyhow!("{}: refused: {e}", hook_path.display()))
        } else {
            uninstall(edited, had);
            Ok(())
        }
    })?;
    Ok(vec![mcp, hook_file])
}

/// One hook entry of ours for `event`.
fn entry(command: &str, event: &str) -> Json {
    Json::object([
        ("type", Json::str("command")),
        ("bash", Json::str(command)),
        ("timeoutSec", Json::Number(hooks::timeout(HOST, event).into())),
    ])
}

/// Whether one hook entry runs agentspine's hook for Copilot.
fn is_our_entry(entry: &Json) -> bool {
    entry.get("bash").and_then(Json::as_str).is_some_and(|c| hooks::is_ours(c, HOST))
}

/// Adds (or updates) one hook of ours per event, in the place of the
/// first of ours it removes; `version` goes first when the file has none.
fn install(root: &mut Object, events: &[&str], command: &str) -> anyhow::Result<()> {
    if !root.contains_key("version") {
        root.shift_insert(0, "version".to_owned(), Json::Number(VERSION.into()));
    }
    let table = root.entry("hooks".to_owned()).or_insert_with(|| Json::Object(Object::new()));
    let Json::Object(table) = table else { anyhow::bail!("`hooks` is not a JSON object") };
    for event in events {
        let list = table.entry((*event).to_owned()).or_insert_with(|| Json::Array(Vec::new()));
        let Json::Array(list) = list else { anyhow::bail!("`hooks.{event}` is not a JSON array") };
        let at = list.iter().position(is_our_entry).unwrap_or(list.len());
        list.retain(|e| !is_our_entry(e));
        list.insert(at.min(list.len()), entry(command, event));
    }
    Ok(())
}

/// Removes every hook of ours, then what install made for them and the
/// file did not have before install (`had`; `had(&[])`: the file has an
/// original): an event list or `hooks` the removal empties, and
/// `version`.
fn uninstall(root: &mut Object, had: &dyn Fn(&[&str]) -> bool) {
    let Some(Json::Object(table)) = root.get_mut("hooks") else { return };
    let mut removed = 0;
    let mut emptied = Vec::new();
    for (event, list) in table.iter_mut() {
        let Json::Array(list) = list else { continue };
        let before = list.len();
        list.retain(|e| !is_our_entry(e));
        if list.len() == before {
            continue;
        }
        removed += before - list.len();
        if list.is_empty() && !had(&["hooks", event]) {
            emptied.push(event.clone());
        }
    }
    for event in emptied {
        table.shift_remove(&event);
    }
    if removed == 0 {
        return;
    }
    if table.is_empty() && !had(&["hooks"]) {
        root.shift_remove("hooks");
    }
    // A file install created keeps `version` while hooks of the user's
    // remain; one the user had without it gets none.
    if !had(&["version"]) && (had(&[]) || !root.contains_key("hooks")) {
        root.shift_remove("version");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_events_are_the_profile_s_in_copilot_s_camel_case() {
        assert_eq!(events(), ["sessionStart", "userPromptSubmitted", "postToolUse", "sessionEnd"]);
    }

    #[test]
    fn install_twice_is_once_and_uninstall_leaves_the_user_s_hooks() {
        let mine = Json::object([("type", Json::str("command")), ("bash", Json::str("./lint.sh"))]);
        let mut root = Object::new();
        root.insert("hooks".into(), Json::object([("postToolUse", Json::Array(vec![mine.clone()]))]));
        for bin in ["/old/agentspine", "/new/agentspine"] {
            install(&mut root, &events(), &hooks::command(bin, HOST)).unwrap();
        }
        let text = serde_json::to_string(&root).unwrap();
        assert_eq!(text.matches("agentspine hook copilot").count(), 4, "{text}");
        assert!(!text.contains("/old/"), "{text}");
        assert!(
            text.starts_with(
                r#"{"version":1,"hooks":{"postToolUse":[{"type":"command","bash":"./lint.sh"},"#
            )
        );
        // The file's original: the user's hook, no `version`.
        let had = |path: &[&str]| path.is_empty() || path == ["hooks"] || path == ["hooks", "postToolUse"];
        uninstall(&mut root, &had);
        assert_eq!(
            serde_json::to_string(&root).unwrap(),
            r#"{"hooks":{"postToolUse":[{"type":"command","bash":"./lint.sh"}]}}"#
        );
    }
}
