//! `agentspine scope`: the typed ids of the current work, stored per
//! project. Memory facts scoped to these ids become relevant; nothing is
//! ever guessed from file contents.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use agentspine_core::memory::ScopeIds;
use anyhow::Context;
use clap::Subcommand;

use crate::state::State;

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
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
    /// Working directory whose project is meant [default: the current directory].
    #[arg(long, value_name = "DIR", global = true)]
    cwd: Option<PathBuf>,
    /// Print JSON.
    #[arg(long, global = true)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// Replace the project's scope with these ids.
    Set {
        /// Ids such as `project:blun`, `person:owner`.
        #[arg(required = true)]
        ids: Vec<String>,
    },
    /// Print the project's scope.
    Show,
    /// Remove the project's scope.
    Clear,
}

impl Args {
    pub fn wants_json(&self) -> bool {
        self.json
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let root = super::project_root(args.cwd.as_deref())?;
    let state = State::open();
    let store = state.store.as_ref().with_context(|| state.warnings.join("; "))?;
    let digest = store.root_digest(&root);
    let ids = match args.action {
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
    if args.json {
        writeln!(out, "{}", serde_json::json!({ "project_root": root, "scope": ids }))?;
    } else if ids.is_empty() {
        writeln!(out, "{}: no scope (memory facts scoped to ids stay unopened)", root.display())?;
    } else {
        writeln!(out, "{}: {}", root.display(), ids.join(", "))?;
    }
    Ok(ExitCode::SUCCESS)
}
