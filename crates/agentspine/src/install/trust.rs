//! Codex's hook trust. Codex 0.171 runs a hook from `hooks.json` only when
//! `config.toml` holds `[hooks.state."<key>"] trusted_hash = "sha256:…"`
//! for it, and skips an untrusted one silently. The key is
//! `<hooks.json path>:<event>:<group index>:<hook index>` (the event in
//! snake case); the hash is the SHA-256 of the hook's definition as Codex
//! normalizes it: `{"event_name", "matcher" (when the group has one),
//! "hooks": [{"type": "command", "command", "timeout", "async"}]}` with
//! its keys sorted, written compactly. A changed definition (a new binary
//! path, another timeout) no longer matches, and Codex asks again.
//!
//! Checked end to end against the real Codex (tests/e2e/hooks.py runs it
//! with only the records `install codex --trust-hooks` writes, and the
//! hooks run); `doctor --host codex` reports each of agentspine's hooks as
//! trusted, untrusted, changed since it was trusted, or disabled (an entry
//! with `enabled = false`, which Codex skips whatever its hash; install
//! leaves that choice alone).

use std::path::Path;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::hooks;

/// One of agentspine's hooks as Codex keys and hashes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The event, as in hooks.json (`SessionStart`, …).
    pub event: String,
    /// `[hooks.state."<key>"]`.
    pub key: String,
    /// `sha256:<hex>` of the hook's normalized definition.
    pub hash: String,
}

/// What config.toml says about one record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The stored hash is this definition's.
    Trusted,
    /// No trust record: Codex skips the hook.
    Untrusted,
    /// Trusted for another definition (the hook changed since): skipped.
    Changed,
    /// Turned off in Codex (`enabled = false`): skipped, whatever the hash.
    Disabled,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Trusted => "trusted",
            Status::Untrusted => "untrusted",
            Status::Changed => "changed since trusted",
            Status::Disabled => "disabled in Codex",
        }
    }
}

/// Codex's snake-case name of a hook event (`SessionStart` →
/// `session_start`).
fn label(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The trust records of agentspine's own hooks in `hooks_json` (the parsed
/// file), which Codex reads at `path`.
pub fn records(path: &Path, hooks_json: &Value) -> Vec<Record> {
    let mut out = Vec::new();
    for (event, groups) in hooks_json["hooks"].as_object().into_iter().flatten() {
        let label = label(event);
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            for (h, hook) in group["hooks"].as_array().into_iter().flatten().enumerate() {
                let Some(command) = hook["command"].as_str() else { continue };
                if !hooks::is_ours(command, "codex") {
                    continue;
                }
                let mut identity =
                    json!({ "event_name": label, "hooks": [normalized(hook, command, &label)] });
                if let Some(matcher) = group.get("matcher").filter(|m| !m.is_null()) {
                    identity["matcher"] = matcher.clone();
                }
                // serde_json's map is sorted by key: this is the compact,
                // key-sorted text Codex hashes.
                let text = serde_json::to_string(&identity).unwrap_or_default();
                out.push(Record {
                    event: event.clone(),
                    key: format!("{}:{label}:{g}:{h}", path.display()),
                    hash: format!("sha256:{}", hex::encode(Sha256::digest(text.as_bytes()))),
                });
            }
        }
    }
    out
}

/// One hook as Codex normalizes it before hashing: its timeout defaulted
/// (600 s; SessionEnd 1 s) and clamped (at least 1 s; SessionEnd at most
/// 3 s), `async` false unless set, a status message only when given.
fn normalized(hook: &Value, command: &str, label: &str) -> Value {
    let session_end = label == "session_end";
    let given = hook["timeout"].as_u64();
    let timeout = match (session_end, given) {
        (true, t) => t.unwrap_or(1).clamp(1, 3),
        (false, t) => t.unwrap_or(600).max(1),
    };
    let mut out = json!({
        "type": "command",
        "command": command,
        "timeout": timeout,
        "async": hook["async"].as_bool().unwrap_or(false),
    });
    if let Some(message) = hook["statusMessage"].as_str().filter(|m| !m.is_empty()) {
        out["statusMessage"] = json!(message);
    }
    out
}

/// Each record's status in `config` (config.toml, parsed).
pub fn statuses(records: &[Record], config: &toml_edit::DocumentMut) -> Vec<Status> {
    let state = config.get("hooks").and_then(|h| h.get("state"));
    records
        .iter()
        .map(|record| {
            let entry = state.and_then(|s| s.get(&record.key));
            if entry.and_then(|e| e.get("enabled")).and_then(|v| v.as_bool()) == Some(false) {
                return Status::Disabled;
            }
            match entry.and_then(|e| e.get("trusted_hash")).and_then(|v| v.as_str()) {
                Some(hash) if hash == record.hash => Status::Trusted,
                Some(_) => Status::Changed,
                None => Status::Untrusted,
            }
        })
        .collect()
}

/// Writes a trust record for each of `records` into `config` (replacing
/// the hash of one already there).
pub fn trust(records: &[Record], config: &mut toml_edit::DocumentMut) -> anyhow::Result<()> {
    let hooks = config.entry("hooks").or_insert_with(implicit_table);
    let Some(hooks) = hooks.as_table_like_mut() else { anyhow::bail!("`hooks` is not a table") };
    let state = hooks.entry("state").or_insert(implicit_table());
    let Some(state) = state.as_table_like_mut() else { anyhow::bail!("`hooks.state` is not a table") };
    for record in records {
        let entry = state.entry(&record.key).or_insert(toml_edit::Item::Table(toml_edit::Table::new()));
        let Some(entry) = entry.as_table_like_mut() else {
            anyhow::bail!("`hooks.state.\"{}\"` is not a table", record.key)
        };
        entry.insert("trusted_hash", toml_edit::value(&record.hash));
    }
    Ok(())
}

/// Removes the trust records of `records` that hold exactly their hash
/// (agentspine's own; a record the user changed is left), and the
/// `hooks.state` and `hooks` tables when that removal leaves them empty,
/// unless `had` says config.toml had them before install.
pub fn forget(records: &[Record], config: &mut toml_edit::DocumentMut, had: &dyn Fn(&[&str]) -> bool) {
    let Some(hooks) = config.get_mut("hooks").and_then(toml_edit::Item::as_table_like_mut) else { return };
    let mut removed = false;
    if let Some(state) = hooks.get_mut("state").and_then(toml_edit::Item::as_table_like_mut) {
        for record in records {
            let ours = state
                .get(&record.key)
                .and_then(|e| e.get("trusted_hash"))
                .and_then(|v| v.as_str())
                .is_some_and(|hash| hash == record.hash);
            if ours
                && let Some(entry) = state.get_mut(&record.key).and_then(toml_edit::Item::as_table_like_mut)
            {
                removed = true;
                entry.remove("trusted_hash");
                if entry.is_empty() {
                    state.remove(&record.key);
                }
            }
        }
        if removed && state.is_empty() && !had(&["hooks", "state"]) {
            hooks.remove("state");
        }
    }
    if removed && hooks.is_empty() && !had(&["hooks"]) {
        config.remove("hooks");
    }
}

fn implicit_table() -> toml_edit::Item {
    let mut table = toml_edit::Table::new();
    table.set_implicit(true);
    toml_edit::Item::Table(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hooks_json() -> Value {
        json!({ "hooks": {
            "SessionStart": [
                { "matcher": "startup", "hooks": [{ "type": "command", "command": "/usr/bin/other" }] },
                { "matcher": "startup|resume", "hooks": [
                    { "type": "command", "command": "/opt/x/agentspine hook codex", "timeout": 10 }
                ] }
            ],
            "SessionEnd": [{ "hooks": [{ "type": "command", "command": "agentspine hook codex", "timeout": 30 }] }],
            "UserPromptSubmit": [{ "hooks": [{ "type": "command", "command": "agentspine hook claude" }] }]
        } })
    }

    #[test]
    fn records_key_agentspines_hooks_by_position_and_hash_their_normalized_definition() {
        let records = records(Path::new("/h/.codex/hooks.json"), &hooks_json());
        let keys: Vec<&str> = records.iter().map(|r| r.key.as_str()).collect();
        // Another program's hook and a Claude Code command are not ours.
        assert_eq!(keys, ["/h/.codex/hooks.json:session_end:0:0", "/h/.codex/hooks.json:session_start:1:0"]);
        let text = r#"{"event_name":"session_start","hooks":[{"async":false,"command":"/opt/x/agentspine hook codex","timeout":10,"type":"command"}],"matcher":"startup|resume"}"#;
        assert_eq!(records[1].hash, format!("sha256:{}", hex::encode(Sha256::digest(text))));
        // SessionEnd's timeout is clamped to 3 s before hashing.
        let end = r#"{"event_name":"session_end","hooks":[{"async":false,"command":"agentspine hook codex","timeout":3,"type":"command"}]}"#;
        assert_eq!(records[0].hash, format!("sha256:{}", hex::encode(Sha256::digest(end))));
        assert_eq!(label("UserPromptSubmit"), "user_prompt_submit");
        assert_eq!(label("PostCompact"), "post_compact");
    }

    #[test]
    fn trust_then_statuses_then_forget_round_trip_and_keep_everything_else() {
        let records = records(Path::new("/h/.codex/hooks.json"), &hooks_json());
        let original =
            "# mine\nmodel = \"x\"\n\n[hooks.state.\"other:stop:0:0\"]\ntrusted_hash = \"sha256:1\"\n";
        let mut doc: toml_edit::DocumentMut = original.parse().unwrap();
        assert_eq!(statuses(&records, &doc), [Status::Untrusted, Status::Untrusted]);
        trust(&records, &mut doc).unwrap();
        assert_eq!(statuses(&records, &doc), [Status::Trusted, Status::Trusted]);
        let text = doc.to_string();
        assert!(text.starts_with("# mine\nmodel = \"x\"\n"), "{text}");
        // A definition that changed is no longer trusted.
        let mut moved = records.clone();
        moved[0].hash = "sha256:0".into();
        assert_eq!(statuses(&moved, &doc), [Status::Changed, Status::Trusted]);
        // Turned off in Codex's /hooks view: skipped, trusted or not
        // (Codex 0.171 runs no hook whose entry says `enabled = false`).
        let mut off = doc.clone();
        off["hooks"]["state"][&records[1].key]["enabled"] = toml_edit::value(false);
        assert_eq!(statuses(&records, &off), [Status::Trusted, Status::Disabled]);
        // Forgetting takes out exactly agentspine's records.
        forget(&records, &mut doc, &|_| false);
        let back: toml_edit::DocumentMut = doc.to_string().parse().unwrap();
        assert_eq!(statuses(&records, &back), [Status::Untrusted, Status::Untrusted]);
        assert_eq!(back["hooks"]["state"]["other:stop:0:0"]["trusted_hash"].as_str(), Some("sha256:1"));
        let mut alone: toml_edit::DocumentMut = "model = \"x\"\n".parse().unwrap();
        trust(&records, &mut alone).unwrap();
        forget(&records, &mut alone, &|_| false);
        assert_eq!(alone.to_string(), "model = \"x\"\n");
    }
}
