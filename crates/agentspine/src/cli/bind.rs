//! `agentspine source-bind`, `source-rollback` and `source-purge`: the
//! local user's bindings to the state of a project where continuity was
//! configured. Every refusal is one line and changes nothing.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use agentspine_store::{
    BINDING_HOSTS, BINDING_SCOPE, BindRequest, BindingChange, PORTABLE_KINDS, RecordStatus,
};
use anyhow::Context;

use crate::state::State;
use crate::surface::args::OutputArgs;
use crate::surface::errors::Coded;

/// Read the accepted portable learning of one project everywhere you work.
///
/// Attaches the agentspine state of the project at PATH (where you added
/// and accepted records with `agentspine record`) to you, the local user:
/// from the very next hook, MCP call or briefing on, its accepted
/// preference, no-go, correction, reference and person-relationship
/// records reach the host(s) you name as `continuity` sources, labelled
/// with the binding id. Nothing is copied; project facts, tasks, secrets
/// and every other kind stay in that project. A binding is context only:
/// it grants no identity, role, permission, delegation or trust.
///
/// Every flag but `--scope` is required, so that the binding is
/// deliberate; a refusal names every missing one at once.
///
/// Example:
///
///   agentspine source-bind ~/src/first-project --all-hosts \
///       --project ~/src/other-project --host-home ~/.claude --confirm-local-binding
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/continuity.md
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct BindArgs {
    /// The project whose state is bound (its git root is used).
    path: PathBuf,
    /// The host(s) that read through it, comma-separated: claude, codex, gemini,
    /// pi or desktop (one binding each).
    #[arg(long, value_name = "HOST", value_delimiter = ',')]
    host: Vec<String>,
    /// Every host reads through it.
    #[arg(long, conflicts_with = "host")]
    all_hosts: bool,
    /// Deprecated: `state-user` is the only binding scope, and the default.
    #[arg(long, value_name = "SCOPE", hide = true)]
    scope: Option<String>,
    /// The project you are binding from (an existing directory).
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
    /// The host profile you are binding from, e.g. ~/.claude (an existing
    /// directory).
    #[arg(long, value_name = "DIR")]
    host_home: Option<PathBuf>,
    /// Confirms that you mean to bind.
    #[arg(long)]
    confirm_local_binding: bool,
    #[command(flatten)]
    out: OutputArgs,
}

/// Undo a binding: nothing is read through it from the next call on.
///
/// Its derived cache rows are dropped at once; the bound project's records
/// are untouched. A rolled-back binding can still be purged.
///
/// Example:
///
///   agentspine source-rollback binding:0123456789abcdef --confirm-local-binding
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/continuity.md
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct EndArgs {
    /// The binding, as `binding:ID`.
    binding: String,
    /// Confirms that you mean it.
    #[arg(long)]
    confirm_local_binding: bool,
    #[command(flatten)]
    out: OutputArgs,
}

/// Purge a binding: undone for good, and every cache row derived through
/// it removed.
///
/// Works on an active or a rolled-back binding. The bound project's own
/// records are untouched; the binding's events stay in the audit chain.
///
/// Example:
///
///   agentspine source-purge binding:0123456789abcdef --confirm-local-binding
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/continuity.md
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct PurgeArgs {
    #[command(flatten)]
    end: EndArgs,
}

impl BindArgs {
    pub fn output(&self) -> &OutputArgs {
        &self.out
    }
}
impl EndArgs {
    pub fn output(&self) -> &OutputArgs {
        &self.out
    }
}
impl PurgeArgs {
    pub fn output(&self) -> &OutputArgs {
        &self.end.out
    }
}

const CONFIRM: &str =
    "a binding changes what your agents are told in every project: add --confirm-local-binding to confirm";

/// The hosts a `--host` list names, each once, in the order given; every
/// value that is not a host a binding serves is named at once. `all` is
/// the old spelling of `--all-hosts` (alone).
fn hosts(given: &[String]) -> anyhow::Result<Vec<String>> {
    let serves = &BINDING_HOSTS[1..];
    let bad: Vec<String> = given
        .iter()
        .filter(|h| {
            let old_all =
                agentspine_store::BoundHosts::of(h) == agentspine_store::BoundHosts::All && given.len() == 1;
            !(serves.contains(&h.as_str()) || old_all)
        })
        .map(|h| format!("{h:?}"))
        .collect();
    if !bad.is_empty() {
        return Err(Coded::new(
            "invalid-value",
            format!(
                "source-bind refused: --host {}: not {} a binding serves; give one or more of {} \
                 (comma-separated), or --all-hosts",
                bad.join(", "),
                if bad.len() == 1 { "a host" } else { "hosts" },
                serves.join(", ")
            ),
        )
        .into());
    }
    let mut hosts: Vec<String> = Vec::new();
    for host in given {
        if !hosts.contains(host) {
            hosts.push(host.clone());
        }
    }
    Ok(hosts)
}

pub fn bind(args: BindArgs) -> anyhow::Result<ExitCode> {
    let hosts =
        if args.all_hosts { vec![agentspine_store::ALL_HOSTS.to_owned()] } else { hosts(&args.host)? };
    let host = (!hosts.is_empty()).then_some(hosts);
    let mut missing = Vec::new();
    if host.is_none() {
        missing.push(format!("--host HOST (one of {}) or --all-hosts", BINDING_HOSTS[1..].join(", ")));
    }
    if args.project.is_none() {
        missing.push("--project DIR (the project you are binding from)".to_owned());
    }
    if args.host_home.is_none() {
        missing.push("--host-home DIR (the host profile you are binding from, e.g. ~/.claude)".to_owned());
    }
    if !args.confirm_local_binding {
        missing.push(
            "--confirm-local-binding (a binding changes what your agents are told in every project)"
                .to_owned(),
        );
    }
    let (Some(host), Some(project), Some(host_home), true) =
        (host, args.project, args.host_home, args.confirm_local_binding)
    else {
        let message = match missing.as_slice() {
            [_confirm] if !args.confirm_local_binding => format!("source-bind refused: {CONFIRM}"),
            _ => format!("source-bind refused: missing {}", missing.join(", ")),
        };
        return Err(Coded::new("missing-flags", message).into());
    };
    let scope = args.scope.unwrap_or_else(|| BINDING_SCOPE.to_owned());
    let dir = |flag: &str, path: &PathBuf| {
        crate::surface::canonical(path)
            .with_context(|| format!("source-bind refused: {flag} {}", path.display()))
    };
    let source = crate::surface::project_root(Some(&dir("PATH", &args.path)?))
        .with_context(|| format!("source-bind refused: PATH {}", args.path.display()))?;
    let project = dir("--project", &project)?;
    let host_home = dir("--host-home", &host_home)?;
    if project.starts_with(&source) {
        let message = format!(
            "source-bind refused: {}: that is the project you are binding from; its own accepted records \
             are already context in it, so there is nothing to bind (bind it from another project)",
            source.display()
        );
        return Err(Coded::at("binding-refused", &source, message).into());
    }
    let state = State::open();
    let store = state.require_store()?;
    let source_root = store.root_digest(&source);
    let requests: Vec<BindRequest> = host
        .iter()
        .map(|host| BindRequest {
            host: host.clone(),
            scope: scope.clone(),
            source_root: source_root.clone(),
            project: store.root_digest(&project),
            host_home: store.root_digest(&host_home),
        })
        .collect();
    let refused = |refusal: agentspine_store::BindingRefusal| -> anyhow::Error {
        let message = format!("source-bind refused: {}: {refusal}", source.display());
        Coded::at("binding-refused", &source, message).into()
    };
    // A list is refused whole, before any binding is made, when one of its
    // hosts is bound already (the registry refuses each bind alone).
    if requests.len() > 1 {
        let active = store.bindings()?;
        if let Some(b) = requests.iter().find_map(|r| {
            active.iter().find(|b| {
                b.state == agentspine_store::BindingState::Active
                    && b.source_root == r.source_root
                    && b.host == r.host
            })
        }) {
            return Err(refused(agentspine_store::BindingRefusal::AlreadyBound {
                id: b.id.clone(),
                host: b.host.clone(),
            }));
        }
    }
    let mut changes = Vec::new();
    for request in &requests {
        match store.binding_bind(request)? {
            Ok(change) => changes.push(change),
            Err(refusal) => return Err(refused(refusal)),
        }
    }
    let records = store.record_list(&source_root)?;
    let readable = records.iter().filter(|r| r.portable && r.status == RecordStatus::Accepted).count();
    let staying = records.iter().filter(|r| !r.portable).count();
    let mut out = std::io::stdout().lock();
    if args.out.json {
        // `change` is the first binding made (the only one for one host),
        // `changes` every one, in the order of --host.
        let value = serde_json::json!({
            "bound": source,
            "change": changes.first(),
            "changes": changes,
            "accepted_portable_records": readable,
            "records_staying_in_their_project": staying,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let kinds: Vec<&str> = PORTABLE_KINDS.iter().map(|k| k.as_str()).collect();
    for change in &changes {
        writeln!(
            out,
            "bound: binding:{} lets {} read the accepted {} records of {} from the next hook, MCP call or briefing on.",
            change.binding.id,
            match change.binding.hosts() {
                agentspine_store::BoundHosts::All => "every host".to_owned(),
                agentspine_store::BoundHosts::One(host) => format!("host {host}"),
            },
            kinds.join(", "),
            source.display()
        )?;
    }
    writeln!(
        out,
        "Now readable: {readable} accepted portable {}; {staying} {} of other kinds {} in that project. Nothing was copied.",
        plural(readable, "record"),
        plural(staying, "record"),
        if staying == 1 { "stays" } else { "stay" },
    )?;
    writeln!(out, "Context only: it grants no identity, role, permission, delegation or trust.")?;
    for change in &changes {
        writeln!(
            out,
            "Undo with: agentspine source-rollback binding:{} --confirm-local-binding",
            change.binding.id
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

pub fn rollback(args: EndArgs) -> anyhow::Result<ExitCode> {
    end(args, "source-rollback")
}

pub fn purge(args: PurgeArgs) -> anyhow::Result<ExitCode> {
    end(args.end, "source-purge")
}

fn end(args: EndArgs, command: &str) -> anyhow::Result<ExitCode> {
    if !args.confirm_local_binding {
        return Err(Coded::new(
            "missing-flags",
            format!("{command} refused: this changes what your agents are told: add --confirm-local-binding to confirm"),
        )
        .into());
    }
    let id = binding_id(&args.binding).with_context(|| format!("{command} refused"))?;
    let state = State::open();
    let store = state.require_store()?;
    let result =
        if command == "source-purge" { store.binding_purge(id)? } else { store.binding_rollback(id)? };
    let change: BindingChange = match result {
        Ok(change) => change,
        Err(refusal) => {
            return Err(Coded::new("binding-refused", format!("{command} refused: {refusal}")).into());
        }
    };
    let mut out = std::io::stdout().lock();
    if args.out.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&serde_json::json!({ "change": change }))?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let dropped = change.cache_rows_dropped;
    if command == "source-purge" {
        writeln!(
            out,
            "purged: binding:{id} can never be read through again; {dropped} derived cache {} removed.",
            plural(dropped, "row")
        )?;
        writeln!(
            out,
            "The bound project's own records are untouched; the binding's events stay in the audit chain."
        )?;
    } else {
        writeln!(
            out,
            "rolled back: nothing is read through binding:{id} from the next hook, MCP call or briefing on; {dropped} derived cache {} dropped.",
            plural(dropped, "row")
        )?;
        writeln!(
            out,
            "The bound project's records are untouched. Remove the binding for good with: agentspine source-purge binding:{id} --confirm-local-binding"
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `binding:ID` (the bare id is accepted too): 1 to 64 hex digits.
fn binding_id(given: &str) -> anyhow::Result<&str> {
    let id = given.strip_prefix("binding:").unwrap_or(given);
    if id.is_empty() || id.len() > 64 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(Coded::new(
            "bad-binding-id",
            format!("{given:?} is not a binding id; expected binding:ID as `agentspine source-bind` or `agentspine bindings` printed it"),
        )
        .into());
    }
    Ok(id)
}

fn plural(n: usize, noun: &str) -> String {
    if n == 1 { noun.to_owned() } else { format!("{noun}s") }
}
