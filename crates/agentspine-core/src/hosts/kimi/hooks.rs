//! Kimi Code's `[[hooks]]` entries in config.toml, as `doctor` reads
//! them (parsed to JSON): which ones Kimi refuses, each of which costs
//! every hook (measured on 2.1.0, tests/e2e/KIMI-MEASURED.md), and the
//! entries grouped by event as the other hosts' hook tables are.

/// Why Kimi Code would run none of the hooks in config.toml's `hooks`
/// (as JSON): each entry it refuses, with the reason; empty when it takes
/// them all.
pub fn refused(hooks: &serde_json::Value) -> Vec<String> {
    let Some(entries) = hooks.as_array() else { return Vec::new() };
    let mut out = Vec::new();
    for (n, entry) in entries.iter().enumerate() {
        let Some(entry) = entry.as_object() else { continue };
        let mut why: Vec<String> = entry
            .keys()
            .filter(|key| !super::HOOK_KEYS.contains(&key.as_str()))
            .map(|key| format!("key `{key}`"))
            .collect();
        match entry.get("event").and_then(serde_json::Value::as_str) {
            Some(event) if super::HOOK_EVENTS.contains(&event) => {}
            Some(event) => why.push(format!("event `{event}`")),
            None => why.push("no event".to_owned()),
        }
        if entry.get("command").and_then(serde_json::Value::as_str).is_none() {
            why.push("no command".to_owned());
        }
        if let Some(timeout) = entry.get("timeout")
            && !timeout.as_i64().is_some_and(|t| super::HOOK_TIMEOUT.contains(&t))
        {
            why.push(format!("timeout {timeout} (1 to 600 seconds)"));
        }
        if !why.is_empty() {
            out.push(format!("entry {} ({})", n + 1, why.join(", ")));
        }
    }
    out
}

/// Kimi's `[[hooks]]` entries grouped by event, in the shape the other
/// hosts' hook tables have (`{"<Event>": [{"hooks": [{"command"}]}]}`),
/// so `doctor` counts them as it counts theirs. `None` when `hooks` is not
/// Kimi's array of entries.
pub fn as_groups(hooks: &serde_json::Value) -> Option<serde_json::Value> {
    let entries = hooks.as_array()?;
    let mut groups = serde_json::Map::new();
    for entry in entries {
        let Some(event) = entry["event"].as_str() else { continue };
        let group = serde_json::json!({ "hooks": [{ "command": entry["command"] }] });
        if let serde_json::Value::Array(list) =
            groups.entry(event.to_owned()).or_insert_with(|| serde_json::Value::Array(Vec::new()))
        {
            list.push(group);
        }
    }
    Some(serde_json::Value::Object(groups))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_read_as_the_other_hosts_groups() {
        let hooks = serde_json::json!([
            { "event": "Stop", "command": "notify" },
            { "event": "UserPromptSubmit", "command": "a hook kimi", "timeout": 10 },
            { "command": "no event" },
        ]);
        assert_eq!(
            as_groups(&hooks),
            Some(serde_json::json!({
                "Stop": [{ "hooks": [{ "command": "notify" }] }],
                "UserPromptSubmit": [{ "hooks": [{ "command": "a hook kimi" }] }],
            }))
        );
        assert_eq!(as_groups(&serde_json::json!({})), None);
    }

    #[test]
    fn an_entry_kimi_refuses_is_named_with_why() {
        let hooks = serde_json::json!([
            { "event": "Stop", "command": "notify", "matcher": "x", "timeout": 600 },
            { "event": "BeforeTool", "command": "a", "fail_mode": "open" },
            { "event": "Stop", "timeout": 0 },
        ]);
        assert_eq!(
            refused(&hooks),
            [
                "entry 2 (key `fail_mode`, event `BeforeTool`)",
                "entry 3 (no command, timeout 0 (1 to 600 seconds))"
            ]
        );
        assert!(refused(&serde_json::json!({ "PreToolUse": [] })).is_empty(), "Codex's table");
    }
}
