//! Codex's files: `$CODEX_HOME/hooks.json` and `[mcp_servers.agentspine]`
//! in `$CODEX_HOME/config.toml` (edited with `toml_edit`: comments and
//! formatting stay).
//!
//! Codex 0.171 runs a hook from `hooks.json` only once the user has trusted
//! it (`[hooks.state."<key>"] trusted_hash` in config.toml, see [`trust`]).
//! Install tells the user to trust the hooks in Codex's `/hooks` view, or
//! writes those records itself when asked (`--trust-hooks`); uninstall
//! removes agentspine's records.

use std::path::{Path, PathBuf};

use super::{Change, hooks, json_change, toml_doc, trust};

/// The events agentspine answers, with Codex's matcher for each.
pub const EVENTS: &[(&str, Option<&str>)] = &[
    ("SessionStart", Some("startup|resume|clear|compact")),
    ("UserPromptSubmit", None),
    ("PreToolUse", None),
    ("PostCompact", None),
    ("SessionEnd", None),
];

/// What Codex needs the user to do after install.
const TRUST_STEP: &str = "Codex runs a hook from hooks.json only once you trust it, and skips untrusted \
                          hooks silently: start `codex`, type `/hooks`, and trust the agentspine hooks, \
                          or run `agentspine install codex --trust-hooks`";

pub(super) fn changes(
    home: &Path,
    bin: &str,
    adding: bool,
    trust_hooks: bool,
) -> anyhow::Result<(Vec<Change>, Vec<String>)> {
    let (dir, make_dir) = match std::env::var_os("CODEX_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            let reader = agentspine_fs::Reader::new(agentspine_fs::Budget::UNLIMITED);
            if let Err(e) = reader.open_root(&dir)
                && e.code() == agentspine_fs::Code::NotFound
            {
                anyhow::bail!(
                    "CODEX_HOME={} does not exist (Codex refuses a missing CODEX_HOME too): create it, or \
                     unset CODEX_HOME to use ~/.codex",
                    dir.display()
                );
            }
            (dir, None)
        }
        None => (home.join(".codex"), Some((home.to_path_buf(), ".codex".to_owned()))),
    };
    let hooks_change = hooks_change(&dir, make_dir.clone(), bin, adding)?;
    // The records of agentspine's hooks as they will be (to trust them) or
    // as they were (to forget them).
    let hooks_text = if adding { &hooks_change.after } else { &hooks_change.before };
    let hooks_value: serde_json::Value =
        hooks_text.as_deref().and_then(|t| serde_json::from_str(t).ok()).unwrap_or_default();
    let records = trust::records(&dir.join("hooks.json"), &hooks_value);
    let trusting = match (adding, trust_hooks) {
        (true, true) => Trusting::Trust(&records),
        (true, false) => Trusting::Leave,
        (false, _) => Trusting::Forget(&records),
    };
    let config_change = config_change(&dir, make_dir, bin, adding, trusting)?;
    let steps = if adding && !trust_hooks { vec![TRUST_STEP.to_owned()] } else { Vec::new() };
    Ok((vec![hooks_change, config_change], steps))
}

/// What install does with Codex's trust records of agentspine's hooks.
enum Trusting<'a> {
    Leave,
    Trust(&'a [trust::Record]),
    Forget(&'a [trust::Record]),
}

fn hooks_change(
    dir: &Path,
    make_dir: Option<(PathBuf, String)>,
    bin: &str,
    adding: bool,
) -> anyhow::Result<Change> {
    let name = "hooks.json";
    let path = dir.join(name);
    json_change(
        dir,
        name,
        make_dir,
        0o644,
        |text| hooks::holds(text, "codex"),
        adding,
        |edited, had| hooks::edit(edited, EVENTS, bin, "codex", adding, had, &path),
    )
}

/// Whether config.toml's text `text` registers agentspine's MCP server
/// (install writes it with any trust records).
fn holds_server(text: &str) -> bool {
    text.parse::<toml_edit::DocumentMut>()
        .is_ok_and(|doc| doc.get("mcp_servers").and_then(|s| s.get("agentspine")).is_some())
}

/// The change to config.toml: the MCP server and the trust records (see
/// [`super::toml_doc`] for what stays and what comes back).
fn config_change(
    dir: &Path,
    make_dir: Option<(PathBuf, String)>,
    bin: &str,
    adding: bool,
    trusting: Trusting<'_>,
) -> anyhow::Result<Change> {
    let path = dir.join("config.toml");
    toml_doc::change(dir, "config.toml", make_dir, holds_server, adding, |doc, had| {
        if adding {
            let servers = doc.entry("mcp_servers").or_insert_with(|| {
                let mut table = toml_edit::Table::new();
                table.set_implicit(true);
                toml_edit::Item::Table(table)
            });
            let Some(servers) = servers.as_table_like_mut() else {
                anyhow::bail!("{}: refused: `mcp_servers` is not a table", path.display())
            };
            if servers.get("agentspine").is_none() {
                servers.insert("agentspine", toml_edit::Item::Table(toml_edit::Table::new()));
            }
            let Some(server) = servers.get_mut("agentspine").and_then(toml_edit::Item::as_table_like_mut)
            else {
                anyhow::bail!("{}: refused: `mcp_servers.agentspine` is not a table", path.display())
            };
            server.insert("command", toml_edit::value(bin));
            let mut args = toml_edit::Array::new();
            args.push("mcp");
            server.insert("args", toml_edit::value(args));
        } else if let Some(servers) = doc.get_mut("mcp_servers").and_then(toml_edit::Item::as_table_like_mut)
            && servers.remove("agentspine").is_some()
            && servers.is_empty()
            && !had(&["mcp_servers"])
        {
            doc.remove("mcp_servers");
        }
        match trusting {
            Trusting::Leave => {}
            Trusting::Trust(records) => {
                trust::trust(records, doc).map_err(|e| anyhow::anyhow!("{}: refused: {e}", path.display()))?
            }
            Trusting::Forget(records) => trust::forget(records, doc, had),
        }
        Ok(())
    })
}
