//! `agentspine bindings`: every binding the registry holds, with its id,
//! the project it binds, its hosts, where it stands and what it carries,
//! so a lost id is found here and not in the audit log.

use std::io::Write;
use std::process::ExitCode;

use agentspine_store::{BindingState, RecordStatus};
use serde_json::json;

use crate::state::State;
use crate::surface::args::{OutputArgs, RootArgs};

/// List every binding: id, bound project, hosts, state and counts.
///
/// A bound project is stored as a keyed digest, never a path; the one you
/// are in (or name with --root/--cwd) is marked `this project`. The counts
/// are the accepted portable records of the bound project (what an active
/// binding carries) and the cache rows derived through the binding.
///
/// Examples:
///
///   agentspine bindings
///
///   agentspine bindings --json
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/continuity.md
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(flatten)]
    place: RootArgs,
    #[command(flatten)]
    out: OutputArgs,
}

impl Args {
    pub fn output(&self) -> &OutputArgs {
        &self.out
    }
}

fn state_word(state: BindingState) -> &'static str {
    match state {
        BindingState::Active => "active",
        BindingState::RolledBack => "rolled back",
        BindingState::Purged => "purged",
    }
}

/// One JSON row per binding, oldest first; `here` is the root digest of
/// the project the command runs for.
pub(crate) fn rows(
    store: &agentspine_store::Store,
    here: Option<&str>,
) -> anyhow::Result<Vec<serde_json::Value>> {
    let mut rows = Vec::new();
    for binding in store.bindings()? {
        let records = store.record_list(&binding.source_root)?;
        let portable = records.iter().filter(|r| r.portable && r.status == RecordStatus::Accepted).count();
        rows.push(json!({
            "id": format!("binding:{}", binding.id),
            "bound_project": binding.source_root,
            "this_project": here == Some(binding.source_root.as_str()),
            "hosts": binding.host,
            "state": state_word(binding.state),
            "bound_at": super::audit::iso(binding.bound_at),
            "ended_at": binding.ended_at.map(super::audit::iso),
            "accepted_portable_records": portable,
            "cache_rows": store.binding_cache_rows(&binding.id)?,
        }));
    }
    Ok(rows)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let state = State::open();
    let store = state.require_store()?;
    let here = args.place.project_root().ok().map(|root| store.root_digest(&root));
    let chain = match store.binding_verify() {
        Ok(()) => "verified".to_owned(),
        Err(e) => format!("does not verify: {e}"),
    };
    let rows = rows(store, here.as_deref())?;
    let mut out = std::io::stdout().lock();
    if args.out.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&json!({ "bindings": rows, "chain": chain }))?)?;
        return Ok(ExitCode::SUCCESS);
    }
    if rows.is_empty() {
        writeln!(
            out,
            "No bindings. Make one with `agentspine source-bind` (see `agentspine help bindings`)."
        )?;
    }
    for row in &rows {
        writeln!(out, "{}", line(row))?;
    }
    writeln!(out, "registry {chain}")?;
    Ok(ExitCode::SUCCESS)
}

/// One binding for people: id, state, hosts, the bound project's digest
/// (marked when it is this project), counts and times.
pub(crate) fn line(row: &serde_json::Value) -> String {
    let project = row["bound_project"].as_str().unwrap_or_default();
    format!(
        "{}  {:<11}  hosts {:<7}  project {}{}  {}, {} cache {}  bound {}{}",
        row["id"].as_str().unwrap_or_default(),
        row["state"].as_str().unwrap_or_default(),
        row["hosts"].as_str().unwrap_or_default(),
        &project[..project.len().min(16)],
        if row["this_project"] == true { " (this project)" } else { "" },
        crate::surface::output::count(
            usize::try_from(row["accepted_portable_records"].as_u64().unwrap_or(0)).unwrap_or(0),
            "accepted portable record",
            "accepted portable records"
        ),
        row["cache_rows"],
        if row["cache_rows"] == 1 { "row" } else { "rows" },
        row["bound_at"].as_str().unwrap_or_default(),
        row["ended_at"].as_str().map(|t| format!(", ended {t}")).unwrap_or_default(),
    )
}
