//! The hook entries agentspine owns inside a host's JSON hook table
//! (`{"hooks": {"<Event>": [{"matcher", "hooks": [{"type", "command",
//! "timeout"}]}]}}`, the same shape for Claude Code, Codex and Gemini CLI).
//!
//! A hook is ours when its command is `<path>/agentspine hook <host>` (or
//! bare `agentspine hook <host>`). Install removes every hook of ours and
//! adds one group per event, in the place of the first group it removed
//! (so re-installing updates the path without moving anything). Uninstall
//! removes every hook of ours; a group, an event list or the `hooks` object
//! that the removal leaves empty is removed too (install creates each of
//! them when missing), unless the file had it before install (an event
//! list or `hooks` object the user kept empty stays).

use super::json::{Json, Object};

/// `events` with borrowed matchers, as [`edit`] takes them.
pub fn borrowed<'a>(events: &'a [(&'static str, Option<String>)]) -> Vec<(&'static str, Option<&'a str>)> {
    events.iter().map(|(event, matcher)| (*event, matcher.as_deref())).collect()
}

/// Adds `host`'s hooks for `events` to the hook table of the file at `path`
/// (its root object), running `bin`; or, without `adding`, takes every
/// hook of ours out (`had` says which containers the user's file had
/// before install). A refusal names the file.
pub fn edit(
    root: &mut Object,
    events: &[(&str, Option<&str>)],
    bin: &str,
    host: &str,
    adding: bool,
    had: &dyn Fn(&[&str]) -> bool,
    path: &std::path::Path,
) -> anyhow::Result<()> {
    if adding {
        install(root, events, &command(bin, host), host)
            .map_err(|e| anyhow::anyhow!("{}: refused: {e}", path.display()))?;
    } else {
        uninstall(root, host, had);
    }
    Ok(())
}

/// Seconds a host waits for one run of the hook.
pub const TIMEOUT: u64 = 10;

/// The `timeout` of one event: [`TIMEOUT`] seconds, except where the host
/// allows less (Codex 0.171 clamps a `SessionEnd` hook to 3 s and warns on
/// every run when asked for more); Gemini CLI counts it in milliseconds.
/// The hook itself never takes over 2 s.
pub fn timeout(host: &str, event: &str) -> u64 {
    match (host, event) {
        ("codex", "SessionEnd") => 3,
        ("gemini", _) => TIMEOUT * 1000,
        _ => TIMEOUT,
    }
}

/// Whether `command` runs an agentspine binary as `hook <host>`.
pub fn is_ours(command: &str, host: &str) -> bool {
    let Some(program) = command.trim().strip_suffix(&format!(" hook {host}")) else {
        return false;
    };
    let program = program.trim().trim_matches('\'').trim_matches('"');
    program == "agentspine" || program.ends_with("/agentspine")
}

/// The shell command for `bin hook <host>`, quoted when the path needs it
/// (`@`, as in npm's `node_modules/@agentspine/...`, needs none).
pub fn command(bin: &str, host: &str) -> String {
    let plain = bin.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+@".contains(&b));
    if plain { format!("{bin} hook {host}") } else { format!("'{}' hook {host}", bin.replace('\'', "'\\''")) }
}

/// Adds (or updates) one hook group per `(event, matcher)` in `root`.
/// Fails when `hooks` or an event's value is not the JSON type the host
/// expects (the file is then left alone).
pub fn install(
    root: &mut Object,
    events: &[(&str, Option<&str>)],
    command: &str,
    host: &str,
) -> anyhow::Result<()> {
    let hooks = root.entry("hooks".to_owned()).or_insert_with(|| Json::Object(Object::new()));
    let Json::Object(hooks) = hooks else { anyhow::bail!("`hooks` is not a JSON object") };
    for (event, matcher) in events {
        let list = hooks.entry((*event).to_owned()).or_insert_with(|| Json::Array(Vec::new()));
        let Json::Array(list) = list else { anyhow::bail!("`hooks.{event}` is not a JSON array") };
        let at = remove_ours(list, host).unwrap_or(list.len());
        let mut group = Object::new();
        if let Some(matcher) = matcher {
            group.insert("matcher".into(), Json::str(matcher));
        }
        let hook = Json::object([
            ("type", Json::str("command")),
            ("command", Json::str(command)),
            ("timeout", Json::Number(timeout(host, event).into())),
        ]);
        group.insert("hooks".into(), Json::Array(vec![hook]));
        list.insert(at.min(list.len()), Json::Object(group));
    }
    Ok(())
}

/// Removes every hook of ours, and the containers the removal empties but
/// `had` (the file before install had this key path) says to keep.
/// Returns how many hooks were removed.
pub fn uninstall(root: &mut Object, host: &str, had: &dyn Fn(&[&str]) -> bool) -> usize {
    let Some(Json::Object(hooks)) = root.get_mut("hooks") else { return 0 };
    let mut removed = 0;
    let mut emptied = Vec::new();
    for (event, list) in hooks.iter_mut() {
        let Json::Array(list) = list else { continue };
        let before = count_ours(list, host);
        if before == 0 {
            continue;
        }
        remove_ours(list, host);
        removed += before;
        if list.is_empty() && !had(&["hooks", event]) {
            emptied.push(event.clone());
        }
    }
    for event in emptied {
        hooks.shift_remove(&event);
    }
    if removed > 0 && hooks.is_empty() && !had(&["hooks"]) {
        root.shift_remove("hooks");
    }
    removed
}

/// How many hooks of ours `list` holds.
pub fn count_ours(list: &[Json], host: &str) -> usize {
    list.iter()
        .filter_map(|group| match group.get("hooks") {
            Some(Json::Array(hooks)) => Some(hooks),
            _ => None,
        })
        .flatten()
        .filter(|hook| is_our_hook(hook, host))
        .count()
}

/// Whether one hook entry runs agentspine's hook for `host`.
fn is_our_hook(hook: &Json, host: &str) -> bool {
    hook.get("command").and_then(Json::as_str).is_some_and(|c| is_ours(c, host))
}

/// Removes our hooks from every group of `list`, and each group left with
/// no hooks by that. Returns the index of the first group removed.
fn remove_ours(list: &mut Vec<Json>, host: &str) -> Option<usize> {
    let mut first = None;
    let mut index = 0;
    list.retain_mut(|group| {
        let here = index;
        index += 1;
        let Json::Object(group) = group else { return true };
        let Some(Json::Array(hooks)) = group.get_mut("hooks") else { return true };
        let before = hooks.len();
        hooks.retain(|hook| !is_our_hook(hook, host));
        if hooks.len() < before && hooks.is_empty() {
            first.get_or_insert(here);
            return false;
        }
        true
    });
    // Indexes after removal: every removed group before `first` is none.
    first
}

/// Whether the JSON text `text` holds a hook of ours for `host`.
pub fn holds(text: &str, host: &str) -> bool {
    let Ok(root) = serde_json::from_str::<serde_json::Value>(text) else { return false };
    commands(&root).any(|(_, command)| is_ours(command, host))
}

/// Every hook command of a hook table (`root["hooks"]`), with its event,
/// in file order, in either shape a host reads: groups holding `hooks`
/// with a `command` each (Claude Code, Codex, Gemini CLI), or entries
/// with a `bash` command of their own (GitHub Copilot CLI).
pub fn commands(root: &serde_json::Value) -> impl Iterator<Item = (&str, &str)> {
    let events = root.get("hooks").and_then(|h| h.as_object()).into_iter().flatten();
    events.flat_map(|(event, list)| {
        list.as_array().into_iter().flatten().flat_map(move |entry| {
            let grouped = entry.get("hooks").and_then(|h| h.as_array()).into_iter().flatten();
            let grouped = grouped.filter_map(|hook| hook.get("command").and_then(|c| c.as_str()));
            let own = entry.get("bash").and_then(|c| c.as_str());
            grouped.chain(own).map(move |command| (event.as_str(), command))
        })
    })
}
