//! `agentspine scope`: the typed ids of the current work, stored per
//! project. Memory facts scoped to these ids become relevant; nothing is
//! ever guessed from file contents.

use std::io::Write;
use std::process::ExitCode;

use agentspine_core::memory::ScopeIds;
use clap::Subcommand;

use crate::state::State;
use crate::surface::args::{OutputArgs, RootArgs};

/// Show or set the current scope of a project.
///
/// The scope is a set of typed ids: `person:ID`, `project:ID`, `group:ID`,
/// `task:ID`. It is stored per project (the git root of the working
/// directory) in agentspine's state directory. `--scope` on a command and
/// `$AGENTSPINE_SCOPE` override it for one call.
///
/// Examples:
///
///   agentspine scope set project:blun person:owner
///
///   agentspine scope show --json
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/memory.md#markers
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
    /// Replace the project's scope with these ids.
    Set {
        /// Ids such as `project:blun`, `person:owner`.
        #[arg(required = true)]
        ids: Vec<String>,
    },
    /// Print the project's scope (what `agentspine scope` alone does).
    Show,
    /// Remove the project's scope.
    Clear,
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
    let ids = match args.action.unwrap_or(Action::Show) {
        Action::Set { ids } => {
            let parsed = ScopeIds::parse(&ids.join(" "))?;
            let ids: Vec<String> = parsed.0.into_iter().collect();
            store.scope_set(&digest, &ids)?;
            ids
        }
        Action::Clear => {
            store.scope_set(&digest, &[])?;
            Vec::new()
        }
        Action::Show => store.scope_get(&digest)?.unwrap_or_default(),
    };
    let mut out = std::io::stdout().lock();
    if args.out.json {
        writeln!(out, "{}", serde_json::json!({ "project_root": root, "scope": ids }))?;
    } else if ids.is_empty() {
        writeln!(out, "{}: no scope (memory facts scoped to ids stay unopened)", root.display())?;
    } else {
        writeln!(out, "{}: {}", root.display(), ids.join(", "))?;
    }
    Ok(ExitCode::SUCCESS)
}
