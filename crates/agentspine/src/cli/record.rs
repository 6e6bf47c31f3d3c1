//! `agentspine record`: learning records of one project (preferences,
//! no-gos, corrections, ...), proposed, accepted, listed and retracted.

use std::io::Write;
use std::process::ExitCode;

use agentspine_store::{NON_PORTABLE_KINDS, PORTABLE_KINDS, Record, RecordKind};
use anyhow::Context;
use clap::Subcommand;

use crate::state::State;
use crate::surface::args::{OutputArgs, RootArgs};

/// Keep what the agent should learn in this project: preferences, no-gos,
/// corrections, references, and more.
///
/// Records are stored per project (the git root of the working directory)
/// in agentspine's state directory, never in the project. A record is added
/// `proposed` and is context only once accepted: in this project (every
/// kind but the five below), and, for the portable kinds (preference,
/// no-go, correction, reference, person-relationship), in other projects
/// through `agentspine source-bind`. project-fact, task, attention-event
/// and group-private stay in this project. delegation-policy,
/// execution-grant, job, secret and trust-material are never context
/// anywhere: secrets must not reach a prompt, and authority is never
/// granted by context.
///
/// Examples:
///
///   agentspine record add --kind preference "Answer in British English."
///
///   agentspine record accept 1
///
///   agentspine record add --kind correction --supersedes 1 "Answer in American English."
///
///   agentspine record list --json
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/continuity.md
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(subcommand)]
    action: Option<Action>,
    #[command(flatten)]
    place: RootArgs,
    #[command(flatten)]
    out: OutputArgs,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// Add a proposed record (not context until accepted).
    Add {
        /// What it is about.
        #[arg(long, value_name = "KIND", value_parser = kinds())]
        kind: String,
        /// With --kind correction: the record it corrects (superseded once
        /// the correction is accepted).
        #[arg(long, value_name = "ID")]
        supersedes: Option<i64>,
        /// What the agent should learn (at most 4,096 bytes).
        text: String,
    },
    /// Accept a proposed record: from now on it is context.
    Accept {
        /// The record's id (from `record add` or `record list`).
        id: i64,
    },
    /// List the project's records, oldest first.
    List,
    /// Retract a record: it is no longer context (it is kept, marked
    /// retracted).
    Retract {
        /// The record's id.
        id: i64,
    },
}

fn kinds() -> clap::builder::PossibleValuesParser {
    let names: Vec<&'static str> =
        PORTABLE_KINDS.iter().chain(&NON_PORTABLE_KINDS).map(|k| k.as_str()).collect();
    clap::builder::PossibleValuesParser::new(names)
}

impl Args {
    pub fn output(&self) -> &OutputArgs {
        &self.out
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let root = args.place.project_root()?;
    let state = State::open();
    let store = state.require_store()?;
    let digest = store.root_digest(&root);
    let mut out = std::io::stdout().lock();
    let json = |value: serde_json::Value| -> anyhow::Result<()> {
        let mut out = std::io::stdout().lock();
        writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
        Ok(())
    };
    match args.action.unwrap_or(Action::List) {
        Action::Add { kind, supersedes, text } => {
            let kind = RecordKind::parse(&kind).context("unknown kind")?;
            let record = store.record_add(&digest, kind, &text, supersedes)?;
            if args.out.json {
                return json(serde_json::json!({ "project_root": root, "record": record }))
                    .map(|()| ExitCode::SUCCESS);
            }
            writeln!(
                out,
                "record {} added to {} as a proposed {} ({}).",
                record.id,
                root.display(),
                record.kind,
                portability(&record)
            )?;
            if let Some(old) = record.supersedes {
                writeln!(out, "Once accepted, it supersedes record {old}.")?;
            }
            writeln!(out, "It is not context until you accept it: agentspine record accept {}", record.id)?;
        }
        Action::Accept { id } => {
            let change = store.record_accept(&digest, id)?;
            if args.out.json {
                return json(serde_json::json!({ "project_root": root, "change": change }))
                    .map(|()| ExitCode::SUCCESS);
            }
            let r = &change.record;
            if r.portable {
                writeln!(
                    out,
                    "record {} accepted: this {} is now context in this project and wherever it is bound (`agentspine source-bind`).",
                    r.id, r.kind
                )?;
            } else if r.kind.is_context_in_own_project() {
                writeln!(
                    out,
                    "record {} accepted: this {} is now context in this project; it is not portable, so no binding ever carries it out.",
                    r.id, r.kind
                )?;
            } else {
                writeln!(
                    out,
                    "record {} accepted: a {} is kept here and is never context, in this project or any other.",
                    r.id, r.kind
                )?;
            }
            if let Some(old) = change.superseded {
                writeln!(
                    out,
                    "It supersedes record {old}, which is no longer context; {} derived cache {} dropped.",
                    change.cache_rows_dropped,
                    rows(change.cache_rows_dropped)
                )?;
            }
        }
        Action::Retract { id } => {
            let change = store.record_retract(&digest, id)?;
            if args.out.json {
                return json(serde_json::json!({ "project_root": root, "change": change }))
                    .map(|()| ExitCode::SUCCESS);
            }
            writeln!(
                out,
                "record {id} retracted: it is no longer context anywhere; {} derived cache {} dropped (the record is kept, marked retracted).",
                change.cache_rows_dropped,
                rows(change.cache_rows_dropped)
            )?;
        }
        Action::List => {
            let records = store.record_list(&digest)?;
            // Records lost with a damaged database are said to be lost.
            let incidents = state.incidents();
            if args.out.json {
                return json(serde_json::json!({
                    "project_root": root,
                    "records": records,
                    "state_incidents": crate::state::incidents_json(&incidents),
                }))
                .map(|()| ExitCode::SUCCESS);
            }
            out.write_all(super::incident_lines(&incidents).as_bytes())?;
            if records.is_empty() {
                writeln!(
                    out,
                    "{}: no learning records (add one with `agentspine record add --kind preference TEXT`)",
                    root.display()
                )?;
                return Ok(ExitCode::SUCCESS);
            }
            let accepted: Vec<&Record> =
                records.iter().filter(|r| r.status == agentspine_store::RecordStatus::Accepted).collect();
            writeln!(
                out,
                "{}: {}, {} accepted, {} of them portable (read wherever this project is bound)",
                root.display(),
                crate::surface::output::count(records.len(), "record", "records"),
                accepted.len(),
                accepted.iter().filter(|r| r.portable).count()
            )?;
            for r in &records {
                let mut line = format!(
                    "{:>4}  {:<10}  {:<19}  {:<12}  {}",
                    r.id,
                    r.status.as_str(),
                    r.kind.as_str(),
                    if r.portable { "portable" } else { "this project" },
                    first_line(&r.text)
                );
                if let Some(old) = r.supersedes {
                    line.push_str(&format!("  (corrects {old})"));
                }
                if let Some(new) = r.superseded_by {
                    line.push_str(&format!("  (superseded by {new})"));
                }
                writeln!(out, "{line}")?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn portability(record: &Record) -> &'static str {
    if record.portable {
        "portable: other projects can read it through `agentspine source-bind` once it is accepted"
    } else if !record.kind.is_context_in_own_project() {
        "never context: kept for you here, never put before a model"
    } else {
        "not portable: it stays in this project, whatever is bound"
    }
}

fn rows(n: usize) -> &'static str {
    if n == 1 { "row" } else { "rows" }
}

/// The first line of `text`, at most 60 characters.
fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    let mut shown: String = line.chars().take(60).collect();
    if shown.len() < line.len() || text.lines().nth(1).is_some() {
        shown.push('…');
    }
    shown
}
