//! Kimi Code's files, in its home (`$KIMI_CODE_HOME`, else `~/.kimi-code`,
//! the profile's): one `[[hooks]]` entry per event in `config.toml`
//! (edited with `toml_edit`, see [`super::toml_doc`]) and the MCP server as
//! `mcpServers.agentspine` in `mcp.json`.
//!
//! Measured on 2.1.0 (tests/e2e/KIMI-MEASURED.md): Kimi reads an entry's
//! `event`, `command`, `matcher` and `timeout` and nothing else; one other
//! key, an unknown event or a timeout outside 1..600 s drops every hook
//! of the file, the user's too. So an entry of ours holds `event`,
//! `command` and `timeout` (and a `matcher` only if the user gave it one),
//! and the events are the profile's (only UserPromptSubmit's output
//! reaches the model). An entry is ours when its command is
//! `<path>/agentspine hook kimi`; install keeps the first of ours per
//! event where it is (updating its command, so a re-install moves
//! nothing), removes the rest, and adds one after the user's entries
//! where there is none; uninstall removes every entry of ours, and the
//! `hooks` array when that empties it and the original had none.

use std::path::{Path, PathBuf};

use agentspine_core::Environment;
use agentspine_core::hosts::{HookEvent, kimi};

use super::json::Json;
use super::{Change, claude, hooks, json_change, toml_doc};

/// The host's name in `hook kimi`.
const HOST: &str = "kimi";

/// The events agentspine hooks: those of the profile that add something.
fn events() -> Vec<&'static str> {
    let hooks = agentspine_core::Host::Kimi.profile().hooks.as_ref().expect("Kimi Code has hooks");
    hooks.events.iter().filter(|(_, e)| *e != HookEvent::Forget).map(|(name, _)| *name).collect()
}

/// Whether config.toml's text `text` holds a hook entry of ours.
fn holds_hook(text: &str) -> bool {
    text.parse::<toml_edit::DocumentMut>().is_ok_and(|doc| {
        doc.get("hooks")
            .and_then(toml_edit::Item::as_array_of_tables)
            .is_some_and(|entries| entries.iter().any(is_ours))
    })
}

/// Whether one `[[hooks]]` entry runs agentspine's hook for Kimi.
fn is_ours(entry: &toml_edit::Table) -> bool {
    entry.get("command").and_then(toml_edit::Item::as_str).is_some_and(|c| hooks::is_ours(c, HOST))
}

/// The changes to install (`adding`) or uninstall agentspine for Kimi
/// Code, in the home `env` names. `$KIMI_CODE_HOME` must name an existing
/// directory; `~/.kimi-code` is created when missing.
pub(super) fn changes(env: &Environment, bin: &str, adding: bool) -> anyhow::Result<Vec<Change>> {
    if let Some(set) = std::env::var_os("KIMI_CODE_HOME")
        && env.var_path("KIMI_CODE_HOME").is_none()
    {
        anyhow::bail!(
            "KIMI_CODE_HOME={:?} is not an absolute path (Kimi Code reads it relative to the directory it \
             starts in): set it to an absolute path, or unset it to use ~/.kimi-code",
            set
        );
    }
    let dir = (agentspine_core::Host::Kimi.profile().home)(env)
        .ok_or_else(|| anyhow::anyhow!("neither KIMI_CODE_HOME nor HOME is set"))?;
    let make_dir = match env.var_path("KIMI_CODE_HOME") {
        Some(_) => {
            let reader = agentspine_fs::Reader::new(agentspine_fs::Budget::UNLIMITED);
            if let Err(e) = reader.open_root(&dir)
                && e.code() == agentspine_fs::Code::NotFound
            {
                anyhow::bail!(
                    "KIMI_CODE_HOME={} does not exist: create it, or unset KIMI_CODE_HOME to use ~/.kimi-code",
                    dir.display()
                );
            }
            None
        }
        None => match (dir.parent(), dir.file_name().and_then(|n| n.to_str())) {
            (Some(parent), Some(name)) => Some((parent.to_path_buf(), name.to_owned())),
            _ => None,
        },
    };
    let command = hooks::command(bin, HOST);
    let path = dir.join("config.toml");
    let config = toml_doc::change(&dir, "config.toml", make_dir.clone(), holds_hook, adding, |doc, had| {
        set_hooks(doc, &events(), &command, adding, had)
            .map_err(|e| anyhow::anyhow!("{}: refused: {e}", path.display()))
    })?;
    Ok(vec![config, mcp_change(&dir, make_dir, bin, adding)?])
}

/// `mcpServers.agentspine = {"command": BIN, "args": ["mcp"]}` in
/// mcp.json: Kimi's stdio shape, nothing it does not read.
fn mcp_change(
    dir: &Path,
    make_dir: Option<(PathBuf, String)>,
    bin: &str,
    adding: bool,
) -> anyhow::Result<Change> {
    let server = Json::object([("command", Json::str(bin)), ("args", Json::Array(vec![Json::str("mcp")]))]);
    let path = dir.join("mcp.json");
    json_change(dir, "mcp.json", make_dir, 0o600, claude::holds_server, adding, |edited, had| {
        claude::set_server(edited, &path, server, adding, had)
    })
}

/// Adds one entry of ours per event of `events` to `doc`'s `[[hooks]]`
/// (or, without `adding`, removes every entry of ours). Fails when
/// `hooks` is not an array of tables (the file is then left alone).
fn set_hooks(
    doc: &mut toml_edit::DocumentMut,
    events: &[&str],
    command: &str,
    adding: bool,
    had: &dyn Fn(&[&str]) -> bool,
) -> anyhow::Result<()> {
    if adding && doc.get("hooks").is_none() {
        doc.insert("hooks", toml_edit::Item::ArrayOfTables(toml_edit::ArrayOfTables::new()));
    }
    let Some(item) = doc.get_mut("hooks") else { return Ok(()) };
    let Some(entries) = item.as_array_of_tables_mut() else {
        anyhow::bail!("`hooks` is not an array of tables (`[[hooks]]`)")
    };
    if !adding {
        let before = entries.len();
        entries.retain(|entry| !is_ours(entry));
        if entries.len() < before && entries.is_empty() && !had(&["hooks"]) {
            doc.remove("hooks");
        }
        return Ok(());
    }
    // The first entry of ours for each event stays where it is; any other
    // entry of ours goes (a second one, or one for an event no longer
    // hooked).
    let mut kept: Vec<&str> = Vec::new();
    entries.retain(|entry| {
        if !is_ours(entry) {
            return true;
        }
        let event = entry.get("event").and_then(toml_edit::Item::as_str);
        match event.and_then(|e| events.iter().find(|wanted| **wanted == e)) {
            Some(wanted) if !kept.contains(wanted) => {
                kept.push(wanted);
                true
            }
            _ => false,
        }
    });
    for entry in entries.iter_mut().filter(|entry| is_ours(entry)) {
        let event = entry.get("event").and_then(toml_edit::Item::as_str).unwrap_or_default().to_owned();
        set(entry, "command", toml_edit::value(command));
        set(entry, "timeout", toml_edit::value(timeout(&event)));
        // A key Kimi does not read would drop every hook; a matcher the
        // user gave the entry stays.
        let extra: Vec<String> = entry
            .iter()
            .map(|(key, _)| key.to_owned())
            .filter(|key| !kimi::HOOK_KEYS.contains(&key.as_str()))
            .collect();
        for key in extra {
            entry.remove(&key);
        }
    }
    for event in events.iter().filter(|e| !kept.contains(e)) {
        let mut entry = toml_edit::Table::new();
        entry.insert("event", toml_edit::value(*event));
        entry.insert("command", toml_edit::value(command));
        entry.insert("timeout", toml_edit::value(timeout(event)));
        entries.push(entry);
    }
    Ok(())
}

/// The `timeout` of an event's entry, in seconds (Kimi takes 1 to 600).
fn timeout(event: &str) -> i64 {
    i64::try_from(hooks::timeout(HOST, event)).expect("a few seconds fit an i64")
}

/// Sets `key` to `value` unless it already holds that value (so an entry
/// written before keeps its bytes).
fn set(entry: &mut toml_edit::Table, key: &str, value: toml_edit::Item) {
    let same = match (entry.get(key).and_then(toml_edit::Item::as_value), value.as_value()) {
        (Some(old), Some(new)) => match (old, new) {
            (toml_edit::Value::String(a), toml_edit::Value::String(b)) => a.value() == b.value(),
            (toml_edit::Value::Integer(a), toml_edit::Value::Integer(b)) => a.value() == b.value(),
            _ => false,
        },
        _ => false,
    };
    if !same {
        entry.insert(key, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edited(text: &str, adding: bool) -> String {
        let mut doc: toml_edit::DocumentMut = text.parse().unwrap();
        set_hooks(&mut doc, &["UserPromptSubmit"], "/bin/agentspine hook kimi", adding, &|_| false).unwrap();
        doc.to_string()
    }

    #[test]
    fn one_entry_per_event_with_kimi_s_keys_only() {
        let user = "# mine\ndefault_model = \"k2\"\n\n[[hooks]]\nevent = \"Stop\"\ncommand = \"notify\"\n";
        let once = edited(user, true);
        assert_eq!(
            once,
            format!(
                "{user}\n[[hooks]]\nevent = \"UserPromptSubmit\"\ncommand = \"/bin/agentspine hook kimi\"\ntimeout = 10\n"
            )
        );
        assert_eq!(edited(&once, true), once, "twice is once");
        assert_eq!(edited(&once, false), user);
        // A stale path is updated in place; a second entry of ours and a
        // key Kimi would refuse go, the user's matcher stays.
        let stale = "[[hooks]]\nevent = \"UserPromptSubmit\" # ours\ncommand = \"/old/agentspine hook kimi\"\nmatcher = \"x\"\nfail_mode = \"open\"\n\n[[hooks]]\nevent = \"Stop\"\ncommand = \"notify\"\n\n[[hooks]]\nevent = \"UserPromptSubmit\"\ncommand = \"agentspine hook kimi\"\n";
        assert_eq!(
            edited(stale, true),
            "[[hooks]]\nevent = \"UserPromptSubmit\" # ours\ncommand = \"/bin/agentspine hook kimi\"\nmatcher = \"x\"\ntimeout = 10\n\n[[hooks]]\nevent = \"Stop\"\ncommand = \"notify\"\n"
        );
        let mut doc: toml_edit::DocumentMut = "hooks = 1\n".parse().unwrap();
        assert!(set_hooks(&mut doc, &["UserPromptSubmit"], "c", true, &|_| false).is_err());
    }
}
