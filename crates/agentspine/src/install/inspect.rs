//! What agentspine installed into a host, as the installer knows it: the
//! settings and hook files it writes for that host, the hooks of ours each
//! holds per event, where the MCP server is registered, whether the
//! Claude Code plugin is enabled (its hooks and server are then the
//! installed set), whether each binary those entries name still exists and
//! is this version ([`super::drift`]), and (Codex) whether Codex trusts the
//! hooks. `agentspine doctor` asks this instead of knowing the file layouts
//! itself.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agentspine_core::hosts::HookEvent;
use agentspine_core::hosts::profile::{Carrier, ConfigFormat};
use agentspine_core::{Environment, Host};
use agentspine_fs::{Budget, Reader};
use serde_json::{Value, json};

/// Largest configuration file read (the hosts' own files are small).
const MAX_CONFIG: u64 = 16 << 20;

/// Whether agentspine's hooks are installed exactly once per event (and,
/// for Codex, trusted) and the MCP server registered, from the host's own
/// configuration files, for the project at `root`; what the user must do
/// is appended to `actions`.
pub fn inspect(host: Host, env: &Environment, root: &Path, actions: &mut Vec<String>) -> Value {
    let profile = host.profile();
    let (Some(install), Some(hooks)) = (&profile.install, &profile.hooks) else {
        return json!({
            "applicable": false,
            "summary": format!("{} runs no hooks; agentspine reaches it through `agentspine mcp` or `agentspine serve`", host),
        });
    };
    if let Carrier::Extension { mcp } = install.carrier {
        return extension(host, install, mcp, env, actions);
    }
    let settings = install.hook_files(env, root);
    let mcp_files = install.mcp_files(env, root);
    // Every event that adds something must have its hook.
    let required: Vec<&str> =
        hooks.events.iter().filter(|(_, e)| *e != HookEvent::Forget).map(|(name, _)| *name).collect();
    let word = host.as_str();
    let mut files = Vec::new();
    // Each program an entry names, with what names it.
    let mut named: Vec<(String, String)> = Vec::new();
    let plugin = if install.plugin { enabled_plugin(&settings) } else { None };
    // Distinct commands per event: Claude Code runs identical commands from
    // several settings files once.
    let mut per_event: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
    // Files whose hooks the host ignores altogether (an entry it refuses).
    let mut ignored: Vec<String> = Vec::new();
    for path in &settings {
        let (text, problem) = read_config(path);
        let mut counts = BTreeMap::new();
        if let Some(text) = &text {
            let parsed = if path.extension().is_some_and(|e| e == "toml") {
                text.parse::<toml_edit::DocumentMut>()
                    .map(|doc| {
                        let hooks = doc.get("hooks").map(toml_to_json).unwrap_or(Value::Null);
                        let Some(entries) = &install.hook_entries else { return json!({ "hooks": hooks }) };
                        // A list of entries, each naming its event: one the
                        // host refuses costs every hook.
                        let refused = (entries.refused)(&hooks);
                        if !refused.is_empty() {
                            actions.push(format!(
                                "{}: {} runs none of its hooks, agentspine's included, while it refuses {}: \
                                 fix or remove them",
                                path.display(),
                                profile.display,
                                refused.join("; ")
                            ));
                            ignored.push(path.display().to_string());
                        }
                        json!({ "hooks": (entries.as_groups)(&hooks).unwrap_or(hooks) })
                    })
                    .map_err(|e| format!("not valid TOML ({e})"))
            } else if install.json_comments {
                serde_json::from_str::<Value>(&agentspine_core::hosts::gemini::strip_comments(text))
                    .map_err(|e| format!("not valid JSON ({e})"))
            } else {
                serde_json::from_str::<Value>(text).map_err(|e| format!("not valid JSON ({e})"))
            };
            match parsed {
                Ok(value) => {
                    for (event, command) in super::hooks::commands(&value) {
                        if super::hooks::is_ours(command, word) {
                            *counts.entry(event.to_owned()).or_insert(0u64) += 1;
                            named.push((
                                super::drift::program_of(command),
                                format!("hooks in {}", path.display()),
                            ));
                            per_event.entry(event.to_owned()).or_default().insert(command.trim().to_owned());
                        }
                    }
                }
                Err(e) => actions.push(format!("{}: {e}; the host ignores its hooks", path.display())),
            }
        }
        if let Some(problem) = &problem {
            actions.push(format!("{}: {problem}", path.display()));
        }
        files.push(
            json!({ "path": path, "exists": text.is_some(), "agentspine_hooks": counts, "problem": problem }),
        );
    }
    let mut registered = Vec::new();
    for (path, kind) in &mcp_files {
        let (text, _) = read_config(path);
        let command = text.as_deref().and_then(|t| match kind {
            // Gemini's settings may hold comments; Claude Code's never do.
            ConfigFormat::Json => {
                serde_json::from_str::<Value>(&agentspine_core::hosts::gemini::strip_comments(t))
                    .ok()
                    .and_then(|v| {
                        let server = &v["mcpServers"]["agentspine"];
                        server.is_object().then(|| server["command"].as_str().unwrap_or_default().to_owned())
                    })
            }
            ConfigFormat::Toml => t.parse::<toml_edit::DocumentMut>().ok().and_then(|d| {
                let server = d.get("mcp_servers")?.get("agentspine")?;
                Some(server.get("command").and_then(|c| c.as_str()).unwrap_or_default().to_owned())
            }),
        });
        if let Some(command) = command {
            named.push((command, format!("MCP server in {}", path.display())));
            registered.push(path.display().to_string());
        }
    }
    if let Some(id) = &plugin {
        // The plugin's hooks and MCP server run `agentspine` from PATH.
        named.push(("agentspine".to_owned(), format!("plugin {id}")));
        registered.push(format!("plugin {id}"));
    }
    let mut problems = Vec::new();
    let mut fixes = format!("run `agentspine install {word}`");
    match &plugin {
        // The plugin's own hook set is one per event; hooks of ours in a
        // settings file run beside it, each event twice.
        Some(id) => {
            if !per_event.is_empty() {
                let events: Vec<&str> = per_event.keys().map(String::as_str).collect();
                problems.push(format!(
                    "the plugin {id} is enabled and agentspine hooks are in settings files too ({}): each \
                     runs, twice per event",
                    events.join(", ")
                ));
                fixes = format!("keep the plugin and run `agentspine uninstall {word}`");
            }
        }
        None => {
            for event in &required {
                match per_event.get(*event).map_or(0, |c| c.len()) {
                    0 => problems.push(format!("no agentspine hook for {event}")),
                    1 => {}
                    n => problems.push(format!("{n} different agentspine hooks for {event} (each runs)")),
                }
            }
            for (event, commands) in &per_event {
                if !required.contains(&event.as_str()) && commands.len() > 1 {
                    problems.push(format!(
                        "{} different agentspine hooks for {event} (each runs)",
                        commands.len()
                    ));
                }
            }
        }
    }
    if registered.is_empty() {
        problems.push("the MCP server is not registered".to_owned());
    }
    let (trust, untrusted, disabled) =
        if install.hook_trust.is_ok() { codex_trust(env) } else { (Value::Null, Vec::new(), Vec::new()) };
    let skipped: Vec<&String> = untrusted.iter().chain(&disabled).collect();
    let binaries = super::drift::check(&named);
    let stale: Vec<String> = binaries.iter().filter_map(|b| b.action(word)).collect();
    let summary = match (problems.is_empty(), skipped.is_empty()) {
        (true, true) if !stale.is_empty() => {
            let programs: Vec<&str> =
                binaries.iter().filter(|b| b.action(word).is_some()).map(|b| b.program.as_str()).collect();
            format!(
                "installed, but the entries name a binary that is missing or another version: {}",
                programs.join(", ")
            )
        }
        (true, true) => {
            let trusted = if install.hook_trust.is_ok() { " and trusted" } else { "" };
            match &plugin {
                Some(id) => format!("hooks and MCP server installed by the plugin {id}"),
                None => format!(
                    "hooks installed once per event{trusted}; MCP server registered in {}",
                    registered[0]
                ),
            }
        }
        _ => {
            let mut all = problems.clone();
            if !skipped.is_empty() {
                let skipped: Vec<&str> = skipped.iter().map(|s| s.as_str()).collect();
                all.push(format!(
                    "Codex skips these agentspine hooks without a word: {}",
                    skipped.join(", ")
                ));
            }
            all.join("; ")
        }
    };
    let summary = match ignored.as_slice() {
        [] => summary,
        files => format!("{} ignores every hook in {}; {summary}", host.profile().display, files.join(", ")),
    };
    if !problems.is_empty() {
        actions.push(format!("{}: {fixes}", problems.join("; ")));
    }
    actions.extend(stale.iter().cloned());
    if !untrusted.is_empty() {
        actions.push(format!(
            "Codex has not trusted agentspine's hooks ({}): trust them in `codex` (type `/hooks`), or run \
             `agentspine install codex --trust-hooks`",
            untrusted.join(", ")
        ));
    }
    if !disabled.is_empty() {
        actions.push(format!(
            "agentspine's hooks are turned off in Codex ({}): turn them on in `codex` (type `/hooks`)",
            disabled.join(", ")
        ));
    }
    let mut report = json!({
        "applicable": true,
        "summary": summary,
        "hook_files": files,
        "commands_per_event": per_event,
        "mcp_registered_in": registered,
        "codex_trust": trust,
        "plugin": plugin,
        "binaries": binaries,
        "ok": problems.is_empty() && skipped.is_empty() && stale.is_empty() && ignored.is_empty(),
    });
    if let Some(note) = install.trust_note {
        report["trust_note"] = json!(note);
    }
    report
}

/// Codex's trust records of agentspine's hooks in `$CODEX_HOME/hooks.json`
/// (see `install::trust`): each hook with its status, then the hooks Codex
/// would skip for want of trust, and those turned off in Codex.
fn codex_trust(env: &Environment) -> (Value, Vec<String>, Vec<String>) {
    use crate::install::trust;
    let Some(home) = (agentspine_core::Host::Codex.profile().home)(env) else {
        return (Value::Null, Vec::new(), Vec::new());
    };
    let hooks_path = home.join("hooks.json");
    let hooks: Value =
        read_config(&hooks_path).0.and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default();
    let records = trust::records(&hooks_path, &hooks);
    let config: toml_edit::DocumentMut =
        read_config(&home.join("config.toml")).0.and_then(|t| t.parse().ok()).unwrap_or_default();
    let statuses = trust::statuses(&records, &config);
    let report = records
        .iter()
        .zip(&statuses)
        .map(|(r, s)| json!({ "event": r.event, "key": r.key, "status": s.as_str() }))
        .collect();
    let named = |wanted: &dyn Fn(trust::Status) -> bool| -> Vec<String> {
        records
            .iter()
            .zip(&statuses)
            .filter(|(_, s)| wanted(**s))
            .map(|(r, s)| format!("{} {}", r.event, s.as_str()))
            .collect()
    };
    let untrusted = named(&|s| matches!(s, trust::Status::Untrusted | trust::Status::Changed));
    let disabled = named(&|s| s == trust::Status::Disabled);
    (Value::Array(report), untrusted, disabled)
}

/// A TOML item as JSON (tables, arrays of tables, plain values), so hook
/// tables read the same from config.toml as from hooks.json.
fn toml_to_json(item: &toml_edit::Item) -> Value {
    fn value(v: &toml_edit::Value) -> Value {
        match v {
            toml_edit::Value::String(s) => Value::String(s.value().clone()),
            toml_edit::Value::Integer(i) => json!(*i.value()),
            toml_edit::Value::Float(f) => json!(*f.value()),
            toml_edit::Value::Boolean(b) => json!(*b.value()),
            toml_edit::Value::Datetime(d) => Value::String(d.value().to_string()),
            toml_edit::Value::Array(a) => Value::Array(a.iter().map(value).collect()),
            toml_edit::Value::InlineTable(t) => {
                Value::Object(t.iter().map(|(k, v)| (k.to_owned(), value(v))).collect())
            }
        }
    }
    match item {
        toml_edit::Item::None => Value::Null,
        toml_edit::Item::Value(v) => value(v),
        toml_edit::Item::Table(t) => {
            Value::Object(t.iter().map(|(k, v)| (k.to_owned(), toml_to_json(v))).collect())
        }
        toml_edit::Item::ArrayOfTables(a) => Value::Array(
            a.iter()
                .map(|t| Value::Object(t.iter().map(|(k, v)| (k.to_owned(), toml_to_json(v))).collect()))
                .collect(),
        ),
    }
}

/// The id (`agentspine@<marketplace>`) of the agentspine plugin when a
/// Claude Code settings file enables it (`enabledPlugins`, as `claude
/// plugin install` records it); the last file that names it decides.
fn enabled_plugin(settings: &[PathBuf]) -> Option<String> {
    let mut enabled: BTreeMap<String, bool> = BTreeMap::new();
    for path in settings {
        let Some(value) = read_config(path).0.and_then(|t| serde_json::from_str::<Value>(&t).ok()) else {
            continue;
        };
        for (id, on) in value["enabledPlugins"].as_object().into_iter().flatten() {
            if id.split('@').next() == Some("agentspine") {
                enabled.insert(id.clone(), on.as_bool() == Some(true));
            }
        }
    }
    enabled.into_iter().find(|(_, on)| *on).map(|(id, _)| id)
}

/// A configuration file's text (`None` when missing), and a problem worth
/// telling (a link, unreadable), read through the confined reader.
pub(super) fn read_config(path: &Path) -> (Option<String>, Option<String>) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else { return (None, None) };
    let reader = Reader::new(Budget::UNLIMITED);
    let root = match reader.open_root(dir) {
        Ok(root) => root,
        Err(e) if e.code() == agentspine_fs::Code::NotFound => return (None, None),
        Err(e) => return (None, Some(e.to_string())),
    };
    match root.read(name, MAX_CONFIG) {
        Ok(snapshot) => match String::from_utf8(snapshot.bytes) {
            Ok(text) => (Some(text), None),
            Err(_) => (None, Some("not UTF-8".to_owned())),
        },
        Err(e) if e.code() == agentspine_fs::Code::NotFound => (None, None),
        Err(e) => (None, Some(e.to_string())),
    }
}

/// What `agentspine doctor --host pi|pi-0.73|opencode` reports: whether
/// the extension (opencode: the plugin) is installed and runs this binary
/// (an older copy is reported stale), and, for pi 1.x and opencode,
/// whether their configuration registers the MCP server; what to do goes
/// to `actions`.
fn extension(
    host: Host,
    install: &agentspine_core::hosts::profile::Install,
    wants_mcp: bool,
    env: &agentspine_core::Environment,
    actions: &mut Vec<String>,
) -> serde_json::Value {
    use serde_json::json;
    let Some(file) = super::extension_file(host) else {
        return json!({ "applicable": false, "summary": "not a host agentspine installs a file of its own into" });
    };
    let (Some(path), Some((mcp_path, _))) =
        ((install.user_hook_files)(env).pop(), (install.user_mcp_files)(env).pop())
    else {
        return json!({ "applicable": false, "summary": install.dir_unset });
    };
    let (text, problem) = read_config(&path);
    let current = super::command::running().ok().map(|bin| (file.text_for)(&bin));
    let state = match (&text, &current) {
        (None, _) => "missing",
        (Some(text), Some(current)) if text == current => "current",
        (Some(_), _) => "stale",
    };
    let registered = read_config(&mcp_path).0.is_some_and(|t| {
        let t = if install.json_comments { agentspine_core::hosts::gemini::strip_comments(&t) } else { t };
        (file.holds_server)(&t)
    });
    let (what, word) = (file.what, host.profile().binds_as.as_str());
    let mut problems = Vec::new();
    if let Some(problem) = &problem {
        problems.push(format!("{}: {problem}", path.display()));
    }
    match state {
        "missing" => problems.push(format!("no agentspine {what} at {}", path.display())),
        "stale" => problems.push(format!("{} is not the {what} this agentspine installs", path.display())),
        _ => {}
    }
    // pi 0.73 reads no mcp.json: nothing to register there.
    if wants_mcp && !registered {
        problems.push(format!("the MCP server is not registered in {}", mcp_path.display()));
    }
    if !problems.is_empty() {
        actions.push(format!("{}: run `agentspine install {word}`", problems.join("; ")));
    }
    let summary = if !problems.is_empty() {
        problems.join("; ")
    } else if wants_mcp {
        format!("{what} installed at {}; MCP server registered in {}", path.display(), mcp_path.display())
    } else {
        format!("extension installed at {} (pi 0.73 has no MCP client)", path.display())
    };
    json!({
        "applicable": true,
        "summary": summary,
        "extension": { "path": path, "state": state },
        "mcp_registered_in": if registered { vec![mcp_path] } else { Vec::new() },
        "ok": problems.is_empty(),
    })
}
