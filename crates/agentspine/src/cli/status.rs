//! `agentspine source-status`: the `sourceResolution` report for one host
//! and working directory (what was checked, what was found, why a catalog
//! is empty or closed), the same report briefings carry, and what a
//! damaged state database cost until the user acknowledges it. `doctor`
//! builds on [`gather`].

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agentspine_core::catalog::{Catalog, SourceResolution};
use agentspine_core::{Environment, Host, Resolution};
use anyhow::Context;

use crate::state::State;
use crate::surface::args::{HostArg, OutputArgs, RootArgs, ScopeArg};

/// Show what agentspine resolves for a host in a directory, and why.
///
/// Prints the `sourceResolution` report a briefing or hook would carry:
/// the scopes checked, sources per scope, the profile digest, the project
/// root, what kept a required source out, and the reason when nothing (or
/// nothing safe) was found; plus the bindings that apply to the host.
///
/// Example:
///
///   agentspine source-status --host claude --cwd ~/src/app --json
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/doctor.md#source-status
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(flatten)]
    host: HostArg,
    #[command(flatten)]
    place: RootArgs,
    #[command(flatten)]
    scope: ScopeArg,
    #[command(flatten)]
    out: OutputArgs,
}

impl Args {
    pub fn output(&self) -> &OutputArgs {
        &self.out
    }

    /// The directory whose files the command reads: `--cwd`.
    pub fn place(&self) -> Option<&std::path::Path> {
        self.place.cwd.as_deref()
    }
}

/// One host's view of one working directory: the chain resolution (every
/// candidate probed, with its verdict) and the catalog built from it.
pub(crate) struct Gathered {
    pub host: Host,
    pub cwd: PathBuf,
    /// The project the flags name, for marking its bindings: `--root`
    /// (canonical), else the git root of the working directory.
    pub project: Option<PathBuf>,
    pub resolution: Resolution,
    pub catalog: Catalog,
    pub state: State,
    pub env: Environment,
}

/// Resolves `host`'s chain for the directory `place` means (`--root`, or
/// the root the host's rule finds from `--cwd`, as for resolve and
/// briefing) and builds its catalog, memory included for Claude.
pub(crate) fn gather(
    host: Host,
    place: &RootArgs,
    scope: Option<&str>,
    state: State,
) -> anyhow::Result<Gathered> {
    let current = std::env::current_dir().context("cannot read the current directory")?;
    let env = Environment::from_vars(|name| std::env::var_os(name));
    let reader = crate::state::reader();
    let (cwd, resolution, catalog) = {
        // Its cache changes are written when it goes, before `state` moves.
        let resolver = state.resolver(reader);
        let mut request = place.request(&resolver, &current, host);
        request.cwd = crate::surface::canonical(&request.cwd)?;
        let cwd = request.cwd.clone();
        let resolution = resolver.chain(&request)?;
        let request = state.catalog_request(crate::state::CatalogAsk {
            host,
            root: resolution.project_root.clone(),
            cwd: Some(cwd.clone()),
            target: None,
            scope: scope.map(|s| ("--scope", s)),
            prompt: None,
            markdown: false,
        })?;
        let catalog = resolver.catalog(&request)?;
        (cwd, resolution, catalog)
    };
    let project = place.project_root().ok();
    Ok(Gathered { host, cwd, project, resolution, catalog, state, env })
}

/// The bindings that apply to `host`, for status and doctor: their count
/// and whether the registry's hash chain verifies. `None` without a store.
pub(crate) fn bindings(state: &State, host: Host, project: Option<&Path>) -> Option<serde_json::Value> {
    let store = state.store()?;
    let chain = match store.binding_verify() {
        Ok(()) => "verified".to_owned(),
        Err(e) => format!("broken: {e}"),
    };
    let active = match store.bindings() {
        Ok(all) => all.iter().filter(|b| b.applies_to(host.as_str())).count(),
        Err(_) => 0,
    };
    let here = project.map(|root| store.root_digest(root));
    let list = super::bindings::rows(store, here.as_deref()).unwrap_or_default();
    Some(serde_json::json!({ "active_for_host": active, "chain": chain, "list": list }))
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let host = args.host.host;
    let state = State::open();
    for warning in &state.warnings {
        crate::surface::output::warn(warning);
    }
    let g = gather(host, &args.place, args.scope.scope.as_deref(), state)?;
    let bindings = bindings(&g.state, host, g.project.as_deref());
    let incidents = g.state.incidents();
    let mut out = std::io::stdout().lock();
    if args.out.json {
        let value = serde_json::json!({
            "sourceResolution": g.catalog.resolution,
            "cwd": g.cwd,
            "root_evidence": g.resolution.root_evidence,
            "bindings": bindings,
            "state_incidents": crate::state::incidents_json(&incidents),
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
    } else {
        out.write_all(super::incident_lines(&incidents).as_bytes())?;
        out.write_all(human(&g.catalog.resolution, &g.resolution.root_evidence).as_bytes())?;
        if let Some(b) = bindings {
            writeln!(
                out,
                "bindings      {} active for {host}; registry {}",
                b["active_for_host"],
                b["chain"].as_str().unwrap_or("unknown")
            )?;
            // Every binding, as `agentspine bindings` lists it.
            for row in b["list"].as_array().into_iter().flatten() {
                writeln!(out, "  {}", super::bindings::line(row))?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The report for people, one fact per line.
pub(crate) fn human(r: &SourceResolution, evidence: &str) -> String {
    let mut s = String::new();
    s.push_str(&format!("host          {}\n", r.host));
    s.push_str(&format!("project root  {}  ({evidence})\n", r.project_root.display()));
    let scopes: Vec<String> = r.checked_scopes.iter().map(ToString::to_string).collect();
    s.push_str(&format!(
        "checked       {}\n",
        if scopes.is_empty() { "nothing".into() } else { scopes.join(", ") }
    ));
    let counts: Vec<String> = r.counts.iter().map(|(k, v)| format!("{k} {v}")).collect();
    s.push_str(&format!(
        "sources       {}\n",
        if counts.is_empty() { "none".into() } else { counts.join(", ") }
    ));
    s.push_str(&format!("profile       sha256 {}\n", &r.profile_digest[..r.profile_digest.len().min(16)]));
    if let Some(reason) = &r.reason {
        s.push_str(&format!("reason        {reason}\n"));
    }
    for gap in &r.gaps {
        let kind = if gap.required { "required" } else { "optional" };
        s.push_str(&format!("gap           {} ({}, {kind})\n", gap.what, gap.cause));
    }
    if let Some(m) = &r.memory {
        s.push_str(&format!(
            "memory        {} indexed, {} relevant, {} loaded, {} missing, {} directory listings\n",
            m.indexed, m.relevant, m.loaded, m.missing_targets, m.live_directory_enumerations
        ));
    }
    for w in &r.warnings {
        s.push_str(&format!("warning       {}\n", w.message));
    }
    let w = &r.work;
    let n = |n: u64, one: &str, many: &str| crate::surface::output::count(n as usize, one, many);
    s.push_str(&format!(
        "work          {}, {} ({}), {}, {}\n",
        n(w.opens, "open", "opens"),
        n(w.reads, "read", "reads"),
        n(w.bytes_read, "byte", "bytes"),
        n(w.stats, "stat", "stats"),
        n(w.dir_enumerations, "directory listing", "directory listings"),
    ));
    s
}
