//! `agentspine doctor`: everything a user needs to tell whether agentspine
//! works for a host in a directory, and what to do when it does not.
//!
//! One report: the `sourceResolution` of [`super::status`]; per scope what
//! was found, included and excluded (with the verdict); where the host
//! itself would behave differently; the memory report; the state store's
//! health (a full `PRAGMA quick_check`, repairing a damaged file at once;
//! what a damaged file cost, until `--acknowledge`; the cache, the
//! bindings registry);
//! and whether agentspine's hooks are installed exactly once (for Codex,
//! and trusted) and its MCP server registered. A one-line verdict closes it; the exit code is 1
//! when something needs the user's action.
//!
//! `--offline-memory-orphans` is a separate, explicit mode: see
//! [`orphans`].

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use agentspine_core::{Host, Scope, Verdict};

use crate::surface::args::{HostArg, OutputArgs, RootArgs, ScopeArg};
use serde::Serialize;
use serde_json::{Value, json};

use super::status::{self, Gathered};
use crate::state::State;

/// Check that agentspine works for a host in a directory.
///
/// Shows what was found, included and excluded per scope and why, where
/// the host itself would read more (links it follows, files above the
/// root), the memory report, the state store's health, and whether the
/// hooks are installed exactly once (for Codex, and trusted: Codex skips
/// an untrusted hook without a word) and the MCP server registered. Ends
/// with a one-line verdict; exits 1 when something needs your action.
///
/// A damaged state database is moved aside and what can be read of it
/// salvaged (by any command, or by doctor's own full check); doctor says
/// what it cost, and keeps saying it (as do `source-status`, `record list`,
/// `audit` and the first hook of each session) until you run it with
/// `--acknowledge`.
///
/// `--offline-memory-orphans` instead lists Claude Code's memory directory
/// (bounded, links never followed, no fact file read, nothing deleted) and
/// counts files no index link names, links whose file is missing, and links
/// skipped. Hooks never do this.
///
/// Examples:
///
///   agentspine doctor --host claude --cwd ~/src/app
///
///   agentspine doctor --acknowledge
///
///   agentspine doctor --host claude --cwd ~/src/app --offline-memory-orphans --json
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/doctor.md
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(flatten)]
    host: HostArg,
    #[command(flatten)]
    place: RootArgs,
    #[command(flatten)]
    scope: ScopeArg,
    /// Count orphans in the memory directory instead (see above).
    #[arg(long)]
    offline_memory_orphans: bool,
    /// With --offline-memory-orphans: this memory directory instead of
    /// Claude Code's for the working directory.
    #[arg(long, value_name = "DIR", requires = "offline_memory_orphans")]
    memory_dir: Option<PathBuf>,
    /// Say that you have read what a damaged state database cost (the
    /// state store section): agentspine stops telling you about it.
    #[arg(long, conflicts_with = "offline_memory_orphans")]
    acknowledge: bool,
    #[command(flatten)]
    out: OutputArgs,
}

impl Args {
    pub fn output(&self) -> &OutputArgs {
        &self.out
    }

    /// The directory whose files the command reads: `--memory-dir` (with
    /// `--offline-memory-orphans`), else `--cwd`.
    pub fn place(&self) -> Option<&std::path::Path> {
        self.memory_dir.as_deref().or(self.place.cwd.as_deref())
    }
}

/// How long the command may take before it gives up on a read that never
/// returns: its resolution stops starting reads at 2 s, then the install
/// and store checks read the host's settings; the host's own program,
/// asked its version from the start on its own thread, has 3 s
/// (`--offline-memory-orphans`: two readers of 2 s each, one after the
/// other).
pub const BOUND: std::time::Duration = std::time::Duration::from_secs(5);

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let host: Host = args.host.host;
    if args.offline_memory_orphans {
        return orphans::run(host, &args.place, args.memory_dir.as_deref(), args.out.json);
    }
    // The host's program answers while the rest is read (a Node CLI takes
    // a second or two to start).
    let asked_version = std::thread::spawn(move || host_version(host));
    let (state, check) = checked(State::open());
    let acknowledged = match state.store() {
        Some(store) if args.acknowledge => store.incident_acknowledge()?,
        _ => Vec::new(),
    };
    let g = status::gather(host, &args.place, args.scope.scope.as_deref(), state)?;
    let mut actions: Vec<String> = Vec::new();

    let scopes = scopes(&g);
    let differs = host_differs(&g);
    let store = store_health(&g, check, &acknowledged, &mut actions);
    let install = crate::install::inspect::inspect(g.host, &g.env, &g.resolution.project_root, &mut actions);
    let host_version = asked_version.join().unwrap_or(Value::Null);
    let (findings, check_problem) = session_findings(&g);
    if let Some(problem) = check_problem {
        actions.push(problem);
    }
    for f in findings.iter().filter(|f| f.severity >= agentspine_core::check::Severity::Warning) {
        let what = f.action.as_deref().unwrap_or("see `agentspine check`");
        actions.push(format!("{}: {}; to do: {what}", f.path, f.message));
    }
    let r = &g.catalog.resolution;
    for gap in r.gaps.iter().filter(|gap| gap.required) {
        // A finding above already names the file, its cause and the fix.
        if findings.iter().any(|f| f.path == gap.what) {
            continue;
        }
        actions.push(format!(
            "{}: {} (a required source is not delivered whole); to do: {}",
            gap.what,
            gap.cause,
            gap_action(gap.cause)
        ));
    }
    if let Some(reason) = r.reason
        && reason != agentspine_core::catalog::Closed::NoSources
        && !r.gaps.iter().any(|gap| gap.cause.as_str() == reason.as_str())
    {
        use agentspine_core::RootKind;
        use agentspine_core::catalog::Closed;
        actions.push(match reason {
            Closed::Root(RootKind::Home) => {
                "the project root is your home directory, where agentspine scans no \
                                             project: start the agent in a project directory"
                    .to_owned()
            }
            Closed::Root(RootKind::Profile) => {
                "the project root is a host's profile directory, where agentspine \
                                                scans no project: start the agent in a project directory"
                    .to_owned()
            }
            other => format!("the catalog is closed: {other}"),
        });
    }
    let verdict = if actions.is_empty() {
        format!(
            "ok: {} for {host} in {}; nothing needs your action",
            crate::surface::output::count(g.catalog.sources.len(), "source", "sources"),
            r.project_root.display()
        )
    } else {
        format!("action needed: {}", actions.join("; "))
    };
    let mut out = std::io::stdout().lock();
    if args.out.json {
        let value = json!({
            "verdict": if actions.is_empty() { "ok" } else { "action-needed" },
            "summary": verdict,
            "actions": actions,
            "host": host,
            "cwd": g.cwd,
            "root_evidence": g.resolution.root_evidence,
            "sourceResolution": r,
            "scopes": scopes,
            "host_differs": differs,
            "findings": findings,
            "memory": r.memory,
            "state": store,
            "install": install,
            "host_version": host_version,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
    } else {
        let mut s = status::human(r, &g.resolution.root_evidence);
        s.push_str("\nPer scope (found: included, excluded with why):\n");
        for (scope, v) in &scopes {
            let names = if v.included.is_empty() { "none".to_owned() } else { v.included.join(", ") };
            s.push_str(&format!("  {scope:<8} included {}: {names}\n", v.included.len()));
            for ex in &v.excluded {
                s.push_str(&format!("  {:<8} excluded {}: {}\n", "", ex.path, ex.why));
            }
        }
        if !differs.is_empty() {
            s.push_str("\nWhere the host itself would do otherwise:\n");
            for d in &differs {
                s.push_str(&format!("  {}: {}\n", d.path, d.host_would));
            }
        }
        if !findings.is_empty() {
            s.push_str(&format!("\nWhat `agentspine check` finds for {host} sessions here:\n"));
            for f in &findings {
                s.push_str(&format!(
                    "  {:<7} {} {}: {}\n",
                    f.severity.to_string(),
                    f.kind,
                    f.path,
                    f.message
                ));
                if let Some(ours) = &f.agentspine {
                    s.push_str(&format!("          {ours}\n"));
                }
            }
        }
        s.push_str(&format!(
            "\nState store    {} ({}); quick_check {}\n",
            store.dir.as_ref().map_or("none".to_owned(), |d| d.display().to_string()),
            if store.open.is_some() { "open" } else { "unavailable" },
            store.open.as_ref().map(|o| o.quick_check.join("; ")).unwrap_or_default()
        ));
        for incident in store.open.iter().flat_map(|o| &o.incidents) {
            s.push_str(&format!(
                "State damaged  on {}: {}\n",
                super::audit::iso(incident.at_ms),
                incident.summary()
            ));
        }
        for incident in &acknowledged {
            s.push_str(&format!(
                "Acknowledged   the damage of {} (the copy stays at {})\n",
                super::audit::iso(incident.at_ms),
                incident.damaged_copy.display()
            ));
        }
        s.push_str(&format!("Installation   {}\n", install["summary"].as_str().unwrap_or("")));
        if let Some(meaning) = host_version["meaning"].as_str() {
            s.push_str(&format!("Host version   {meaning}\n"));
        }
        s.push_str(&format!("\n{verdict}\n"));
        out.write_all(s.as_bytes())?;
    }
    Ok(if actions.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::surface::errors::exit::ACTION_NEEDED)
    })
}

/// Which version of the host the user runs (its own program, found on
/// `PATH` and asked as its profile says, bounded by
/// [`crate::program::ANSWER`]), judged against the versions agentspine was
/// verified on; `null` for a host without a program (the desktop and
/// generic rules). Never an action: another version is worth knowing, not
/// an error.
fn host_version(host: Host) -> Value {
    let profile = host.profile();
    let Some(probe) = &profile.version_probe else { return Value::Null };
    let verified: Vec<&str> = profile.verified().collect();
    let Some(path) = crate::program::locate(probe.program) else {
        return json!({
            "program": probe.program,
            "path": null,
            "check": "not-found",
            "verified": verified,
            "meaning": format!(
                "no `{}` on PATH: agentspine cannot tell which {} you run, and assumes {}",
                probe.program,
                profile.display,
                verified.join(", ")
            ),
        });
    };
    match crate::program::ask(&path, probe.args, crate::program::Streams::Both) {
        Ok(answer) => {
            let judged = agentspine_core::hosts::version::judge(profile, &answer);
            json!({
                "program": probe.program,
                "path": path,
                "found": judged.found,
                "check": judged.check,
                "verified": judged.verified,
                "meaning": judged.meaning(profile),
            })
        }
        Err(why) => json!({
            "program": probe.program,
            "path": path,
            "check": "no-answer",
            "verified": verified,
            "meaning": format!(
                "{} did not say its version ({why}); agentspine assumes {}",
                path.display(),
                verified.join(", ")
            ),
        }),
    }
}

/// What one scope found: what is included, what is excluded and why, and
/// how many candidates do not exist.
#[derive(Debug, Default, Serialize)]
struct ScopeView {
    included: Vec<String>,
    excluded: Vec<Excluded>,
    missing_candidates: u64,
}

/// A candidate that exists and is left out.
#[derive(Debug, Serialize)]
struct Excluded {
    path: String,
    why: String,
}

/// Per scope: the candidates that exist, split into included and excluded
/// (with the verdict as the reason); missing candidates are only counted.
fn scopes(g: &Gathered) -> BTreeMap<String, ScopeView> {
    let mut by: BTreeMap<String, ScopeView> = BTreeMap::new();
    for probe in &g.resolution.probes {
        let entry = by.entry(probe.scope.to_string()).or_default();
        match &probe.verdict {
            Verdict::Included => entry.included.push(probe.path.clone()),
            Verdict::Missing => entry.missing_candidates += 1,
            other => entry.excluded.push(Excluded { path: probe.path.clone(), why: other.to_string() }),
        }
    }
    // Memory facts: counts only (fact paths are never reported).
    if let Some(m) = &g.catalog.resolution.memory {
        let entry = by.entry(Scope::Memory.to_string()).or_default();
        let skipped = m.indexed.saturating_sub(m.loaded);
        if m.loaded > 0 {
            entry.included.push(crate::surface::output::count(m.loaded as usize, "fact", "facts"));
        }
        if skipped > 0 {
            entry.excluded.push(Excluded {
                path: format!("{skipped} indexed facts"),
                why: format!(
                    "not relevant or not loadable ({} out of scope, {} missing, {} unsafe, {} links, {} too large, {} races)",
                    m.scope_omissions, m.missing_targets, m.path_escapes, m.symlinks, m.size_rejections, m.races
                ),
            });
        }
    }
    by
}

/// What `check` finds for the sessions of this host started in the
/// directories from the root down to the working directory: the same
/// findings, for one host and one chain (no walk of the repository).
/// Also what keeps `check` from running there at all (a configuration file
/// it cannot use), as an action naming it.
fn session_findings(g: &Gathered) -> (Vec<agentspine_core::check::Finding>, Option<String>) {
    let r = &g.resolution;
    if !r.root_kind.is_project() {
        return (Vec::new(), None);
    }
    let mut dirs = Vec::new();
    let mut at = std::path::PathBuf::new();
    for name in r.chain_dir.split('/').filter(|n| !n.is_empty() && *n != ".") {
        at.push(name);
        dirs.push(r.project_root.join(&at));
    }
    let chain: Vec<String> = std::iter::once(".".to_owned())
        .chain(
            dirs.iter().filter_map(|d| d.strip_prefix(&r.project_root).ok()).map(|d| d.display().to_string()),
        )
        .collect();
    let reader = crate::state::reader();
    let claude_agents_md =
        crate::config::load(&reader).map(|c| c.claude.session_start_agents_md).unwrap_or_default();
    let user_config = g.env.user_config_file();
    let silence =
        match agentspine_core::check::Silence::load(&reader, &r.project_root, user_config.as_deref()) {
            Ok(silence) => silence,
            Err(e) => {
                return (Vec::new(), Some(format!("{e} (`agentspine check` cannot run here until it is)")));
            }
        };
    let resolver = crate::state::resolver(reader);
    let request = agentspine_core::check::CheckRequest {
        paths: dirs,
        claude_agents_md,
        walk: false,
        silence,
        ..agentspine_core::check::CheckRequest::new(r.project_root.clone(), vec![g.host])
    };
    match resolver.check(&request) {
        Ok(check) => (
            check
                .findings
                .into_iter()
                .filter(|f| f.dirs.is_empty() || f.dirs.iter().any(|d| chain.contains(d)))
                .collect(),
            None,
        ),
        Err(e) => {
            (Vec::new(), Some(format!("`agentspine check` cannot run for {}: {e}", r.project_root.display())))
        }
    }
}

/// What to do about a required source that was not delivered whole, by
/// its cause.
fn gap_action(cause: agentspine_core::Cause) -> &'static str {
    use agentspine_core::Cause;
    use agentspine_fs::Code;
    match cause {
        Cause::Reader(Code::Symlink | Code::Escape) => {
            "replace the link with a copy of the file inside the project"
        }
        Cause::Reader(Code::TooLarge) | Cause::Truncated => "split the file",
        Cause::Reader(Code::Race) => "it changed while it was read: run again",
        Cause::Reader(Code::PermissionDenied) => "make it readable (e.g. `chmod 644`)",
        Cause::Reader(Code::Deadline) => "the file system did not answer in time: check the mount",
        Cause::Reader(Code::HardLink) => "replace the hard link with a copy",
        Cause::Reader(Code::MountCrossing) => "keep instruction files on the project's own file system",
        _ => "see `agentspine resolve --explain` for the file",
    }
}

/// A candidate the host itself treats otherwise, and what it would do.
#[derive(Debug, Serialize)]
struct Differs {
    path: String,
    verdict: String,
    host_would: String,
}

/// Candidates the host itself treats differently (links it follows, files
/// above the root it reads), with what it would do.
fn host_differs(g: &Gathered) -> Vec<Differs> {
    g.resolution
        .probes
        .iter()
        .filter(|p| p.host_differs.is_some() || matches!(p.verdict, Verdict::OutsideRoot | Verdict::Symlink))
        .map(|p| {
            let would = p.host_differs.clone().unwrap_or_else(|| match p.verdict {
                Verdict::OutsideRoot => {
                    "reads this file above the project root; agentspine does not".to_owned()
                }
                _ => "follows this link; agentspine does not".to_owned(),
            });
            Differs { path: p.path.clone(), verdict: p.verdict.to_string(), host_would: would }
        })
        .collect()
}

/// Doctor's full `quick_check`. Damage it finds is repaired at once: the
/// store is opened again, and that open moves the file aside, salvages
/// what it can read into a new database and records the incident, so the
/// report is about the new database and says what the old one cost.
/// Returns the state to report on and its check.
fn checked(state: State) -> (State, Vec<String>) {
    fn check(state: &State) -> Vec<String> {
        match state.store().map(agentspine_store::Store::quick_check) {
            Some(Ok(lines)) => lines,
            Some(Err(e)) => vec![format!("could not run: {e}")],
            None => Vec::new(),
        }
    }
    let first = check(&state);
    if state.store().is_none() || first == ["ok"] {
        return (state, first);
    }
    drop(state);
    let reopened = State::open();
    let again = check(&reopened);
    (reopened, again)
}

/// The store: where, whether it opened, its full `quick_check` (`check`),
/// what a damaged database cost (incidents), the cache, the audit log and
/// the bindings registry.
fn store_health(
    g: &Gathered,
    check: Vec<String>,
    acknowledged: &[agentspine_store::Incident],
    actions: &mut Vec<String>,
) -> StoreHealth {
    let Some(store) = g.state.store() else {
        actions.push(format!("the state store is unavailable: {}", g.state.warnings.join("; ")));
        return StoreHealth { dir: None, warnings: g.state.warnings.clone(), open: None };
    };
    if check != ["ok"] {
        actions.push(format!(
            "the state database is damaged ({}) and could not be repaired now; the next agentspine run tries again",
            check.join("; ")
        ));
    }
    let incidents = g.state.incidents();
    for incident in &incidents {
        actions
            .push(format!("{}: read this, then run `agentspine doctor --acknowledge`", incident.summary()));
    }
    let (last_check, flagged) = store.check_state();
    let cache = store.cache_stats().ok();
    let audit_rows = store.audit_list(None, None).map(|rows| rows.len()).ok();
    let bindings = status::bindings(&g.state, g.host, g.project.as_deref());
    if let Some(chain) = bindings.as_ref().and_then(|b| b["chain"].as_str())
        && chain != "verified"
    {
        actions.push(format!(
            "the bindings registry does not verify ({chain}); see `agentspine audit --verify`"
        ));
    }
    StoreHealth {
        dir: Some(store.dir().to_path_buf()),
        warnings: g.state.warnings.clone(),
        open: Some(OpenStore {
            quick_check: check,
            incidents,
            acknowledged: crate::state::incidents_json(acknowledged),
            last_healthy_check_ms: last_check,
            check_requested: flagged,
            cache,
            audit_rows,
            bindings,
        }),
    }
}

/// The state store's health, as doctor reports it.
#[derive(Debug)]
struct StoreHealth {
    /// The state directory; `None` when there is no store.
    dir: Option<PathBuf>,
    warnings: Vec<String>,
    /// What the open store says; `None` when it is unavailable.
    open: Option<OpenStore>,
}

/// What an open store says of itself.
#[derive(Debug)]
struct OpenStore {
    quick_check: Vec<String>,
    incidents: Vec<agentspine_store::Incident>,
    acknowledged: Value,
    last_healthy_check_ms: Option<i64>,
    check_requested: bool,
    cache: Option<agentspine_store::CacheStats>,
    audit_rows: Option<usize>,
    bindings: Option<Value>,
}

impl Serialize for StoreHealth {
    /// `available`, `dir` and `warnings`, then (when open) the rest, as
    /// `--json` has always printed it.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut value =
            json!({ "available": self.open.is_some(), "dir": self.dir, "warnings": self.warnings });
        if let Some(open) = &self.open {
            value["quick_check"] = json!(open.quick_check);
            value["incidents"] = crate::state::incidents_json(&open.incidents);
            value["acknowledged"] = open.acknowledged.clone();
            value["last_healthy_check_ms"] = json!(open.last_healthy_check_ms);
            value["check_requested"] = json!(open.check_requested);
            value["cache"] = json!(open.cache);
            value["audit_rows"] = json!(open.audit_rows);
            value["bindings"] = json!(open.bindings);
        }
        value.serialize(serializer)
    }
}

pub mod orphans {
    //! `agentspine doctor --offline-memory-orphans`: a bounded listing of a
    //! memory directory that reports counts only.
    //!
    //! Reads `MEMORY.md` (to know what is indexed) and no other file; lists
    //! directories through the confined reader, which reports links without
    //! following them; descends at most [`MAX_DEPTH`] levels and lists at
    //! most [`MAX_ENTRIES`] entries in all; deletes nothing. Live hooks
    //! never list a memory directory: this runs only when asked.

    use std::collections::BTreeSet;
    use std::io::Write;
    use std::path::Path;
    use std::process::ExitCode;

    use agentspine_core::Host;
    use agentspine_fs::{FileKind, Reader};
    use anyhow::Context;
    use serde::Serialize;

    /// Entries listed in all, at most.
    pub const MAX_ENTRIES: usize = 8_192;
    /// Directory levels below the memory directory descended, at most.
    pub const MAX_DEPTH: usize = 8;
    /// The index's size cap (as the live loader's).
    const MAX_INDEX: u64 = 4 << 20;

    /// Counts, never names.
    #[derive(Debug, Default, Serialize)]
    pub struct Orphans {
        /// Direct links of `MEMORY.md` to a safe relative target.
        pub indexed: u64,
        /// Links whose target would leave the directory (never looked at).
        pub unsafe_links: u64,
        /// Regular files present that no link names (`MEMORY.md` aside).
        pub present_unindexed: u64,
        /// Links whose target is not present as a file or link.
        pub indexed_missing: u64,
        /// Links (symbolic) met in the listing: skipped, never followed.
        pub symlinks_skipped: u64,
        /// Entries that are neither files, directories nor links.
        pub other_skipped: u64,
        /// Directories listed.
        pub directories: u64,
        /// Whether a bound stopped the listing (counts are then partial).
        pub truncated: bool,
    }

    pub fn run(
        host: Host,
        place: &crate::surface::args::RootArgs,
        memory_dir: Option<&Path>,
        json: bool,
    ) -> anyhow::Result<ExitCode> {
        let current = std::env::current_dir().context("cannot read the current directory")?;
        // Finding the directory reads the host's settings; the listing gets
        // a reader of its own, so its counters are the listing's alone.
        let finder = crate::state::reader();
        let dir = match memory_dir {
            Some(dir) => {
                let dir = current.join(dir);
                crate::cli::memory::given_dir(&dir)?;
                dir
            }
            None => {
                if !host.profile().memory_facts {
                    return Err(crate::surface::errors::Coded::new(
                        "host-without-memory",
                        format!(
                            "--host {host}: this host keeps no memory directory agentspine reads; pass \
                             --host claude, or name the directory with --memory-dir DIR"
                        ),
                    )
                    .into());
                }
                let resolver = crate::state::resolver(finder);
                let request = place.request(&resolver, &current, host);
                let (found, _) = resolver.memory_dir(&request)?;
                match found {
                    Some(found) => found.dir,
                    None => {
                        return Err(crate::surface::errors::Coded::new(
                            "no-memory-dir",
                            "no Claude Code memory directory for this project (no autoMemoryDirectory, no \
                             CLAUDE_CODE_PROJECT_DIR_NAME, and no projects/<encoded path>/memory in the config \
                             home); give one with --memory-dir DIR",
                        )
                        .into());
                    }
                }
            }
        };
        let reader = crate::state::reader();
        let counts = count(&reader, &dir)?;
        let work = reader.counters();
        let mut out = std::io::stdout().lock();
        if json {
            let value = serde_json::json!({ "memory_dir": dir, "orphans": counts, "work": work });
            writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
        } else {
            writeln!(
                out,
                "{}: {} indexed, {} present but unindexed, {} indexed but missing, {} links skipped, {} other \
                 entries skipped, {} unsafe index links; {} directories listed{}. No file but MEMORY.md was read; \
                 nothing was changed.",
                dir.display(),
                counts.indexed,
                counts.present_unindexed,
                counts.indexed_missing,
                counts.symlinks_skipped,
                counts.other_skipped,
                counts.unsafe_links,
                counts.directories,
                if counts.truncated { " (stopped at a bound: counts are partial)" } else { "" }
            )?;
        }
        Ok(ExitCode::SUCCESS)
    }

    /// The counts for `dir`.
    pub fn count(reader: &Reader, dir: &Path) -> anyhow::Result<Orphans> {
        let root = reader.open_root(dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
        let mut counts = Orphans::default();
        let mut indexed: BTreeSet<String> = BTreeSet::new();
        match root.read(agentspine_core::memory::load::INDEX, MAX_INDEX) {
            Ok(snapshot) => {
                let text = String::from_utf8_lossy(&snapshot.bytes);
                for link in agentspine_core::memory::index::parse(&text).links {
                    match link.escape {
                        Some(_) => counts.unsafe_links += 1,
                        None => {
                            indexed.insert(normal(&link.target));
                        }
                    }
                }
            }
            Err(e) if e.code() == agentspine_fs::Code::NotFound => {}
            Err(e) => anyhow::bail!("{}: {e}", dir.join(agentspine_core::memory::load::INDEX).display()),
        }
        counts.indexed = indexed.len() as u64;
        let mut present: BTreeSet<String> = BTreeSet::new();
        let mut links: BTreeSet<String> = BTreeSet::new();
        let mut queue: Vec<(String, usize)> = vec![(String::new(), 0)];
        let mut budget = MAX_ENTRIES;
        while let Some((rel, depth)) = queue.pop() {
            if budget == 0 {
                counts.truncated = true;
                break;
            }
            let listing = root.list(if rel.is_empty() { "." } else { rel.as_str() }, budget)?;
            counts.directories += 1;
            counts.truncated |= listing.truncated;
            let seen = listing.entries.len() + listing.hidden.len() + listing.symlinks.len();
            budget = budget.saturating_sub(seen);
            let join = |name: &str| if rel.is_empty() { name.to_owned() } else { format!("{rel}/{name}") };
            for name in &listing.symlinks {
                counts.symlinks_skipped += 1;
                links.insert(join(name));
            }
            for entry in listing.entries.iter().chain(&listing.hidden) {
                match entry.kind {
                    FileKind::File => {
                        present.insert(join(&entry.name));
                    }
                    FileKind::Directory if depth < MAX_DEPTH => queue.push((join(&entry.name), depth + 1)),
                    FileKind::Directory => counts.truncated = true,
                    _ => counts.other_skipped += 1,
                }
            }
        }
        present.remove(agentspine_core::memory::load::INDEX);
        counts.present_unindexed = present.iter().filter(|p| !indexed.contains(*p)).count() as u64;
        counts.indexed_missing =
            indexed.iter().filter(|t| !present.contains(*t) && !links.contains(*t)).count() as u64;
        Ok(counts)
    }

    /// A link target as a listing names it: `./` and empty parts dropped.
    fn normal(target: &str) -> String {
        target.split('/').filter(|p| !p.is_empty() && *p != ".").collect::<Vec<_>>().join("/")
    }
}
