//! Argument parsing and dispatch for every subcommand. Each subcommand has
//! its own module; this one only wires them.

mod audit;
mod bind;
mod bindings;
mod cache;
mod catalog;
mod check;
mod completions;
mod doctor;
pub(crate) mod memory;
mod record;
mod resolve;
mod scope;
mod status;
mod topics;
#[cfg(test)]
mod vocabulary;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::surface::errors::{Unanswered, exit};

/// One line per unacknowledged incident of the state database, for the
/// human output of `doctor`, `source-status`, `record list` and `audit`.
pub(crate) fn incident_lines(incidents: &[agentspine_store::Incident]) -> String {
    incidents
        .iter()
        .map(|incident| {
            format!(
                "state damaged on {}: {}. Run `agentspine doctor --acknowledge` once you have read this.\n",
                audit::iso(incident.at_ms),
                incident.summary()
            )
        })
        .collect()
}

/// agentspine decides, safely and fast, which instruction and memory files a
/// coding agent puts in front of its model.
///
/// It models each host's own loading rules (Claude Code, Codex CLI, Gemini
/// CLI, pi, a desktop app), reads only the files a bounded resolution proves relevant,
/// never follows a link out of the project, and reports what it did.
#[derive(Debug, Parser)]
#[command(name = "agentspine", version = crate::version::LINE, about, long_about, after_help = topics::listing())]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Resolve(resolve::Args),
    Memory(memory::Args),
    Briefing(catalog::BriefingArgs),
    Query(catalog::QueryArgs),
    Read(catalog::ReadArgs),
    Check(check::Args),
    Scope(scope::Args),
    Cache(cache::Args),
    Doctor(doctor::Args),
    SourceStatus(status::Args),
    Record(record::Args),
    SourceBind(bind::BindArgs),
    SourceRollback(bind::EndArgs),
    SourcePurge(bind::PurgeArgs),
    Bindings(bindings::Args),
    Audit(audit::Args),
    Mcp(crate::mcp::Args),
    Hook(crate::hook::Args),
    Install(crate::install::Args),
    Uninstall(crate::install::UninstallArgs),
    Serve(crate::proxy::Args),
    Completions(completions::Args),
    Manpage(completions::ManArgs),
}

impl Command {
    /// The command's output flags; `None` for the protocol commands (hook,
    /// MCP), whose stdout belongs to their host.
    fn output(&self) -> Option<&crate::surface::args::OutputArgs> {
        Some(match self {
            Command::Resolve(args) => args.output(),
            Command::Memory(args) => args.output(),
            Command::Briefing(args) => args.output(),
            Command::Query(args) => args.output(),
            Command::Read(args) => args.output(),
            Command::Check(args) => args.output(),
            Command::Scope(args) => args.output(),
            Command::Cache(args) => args.output(),
            Command::Doctor(args) => args.output(),
            Command::SourceStatus(args) => args.output(),
            Command::Record(args) => args.output(),
            Command::SourceBind(args) => args.output(),
            Command::SourceRollback(args) => args.output(),
            Command::SourcePurge(args) => args.output(),
            Command::Bindings(args) => args.output(),
            Command::Audit(args) => args.output(),
            Command::Install(args) => args.output(),
            Command::Uninstall(args) => args.output(),
            Command::Serve(args) => args.output(),
            Command::Mcp(_) | Command::Hook(_) | Command::Completions(_) | Command::Manpage(_) => {
                return None;
            }
        })
    }
}

pub fn main() -> ExitCode {
    // The exact command the installer writes into the hosts' settings is
    // dispatched without building the parser for every subcommand: a hook
    // is a new process per host event, and that build is a measurable
    // share of its start (BENCHMARKS.md). Any other form (`--help`, a
    // typo, an extra flag) goes through the parser as usual.
    if let Some(args) = crate::hook::Args::from_installed_form(std::env::args_os().skip(1)) {
        return match crate::hook::run(args) {
            Ok(code) => code,
            Err(error) => {
                crate::surface::errors::report(&error, false);
                ExitCode::from(crate::surface::errors::exit::ERROR)
            }
        };
    }
    let argv: Vec<String> = std::env::args_os().skip(1).map(|a| a.to_string_lossy().into_owned()).collect();
    if let [help, topic] = argv.as_slice()
        && help == "help"
        && let Some(text) = topics::text(topic)
    {
        println!("{text}");
        return ExitCode::SUCCESS;
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => return usage(&error, &argv),
    };
    if let Some(out) = cli.command.output() {
        crate::surface::output::set(out);
    }
    for line in crate::surface::args::deprecations(&argv) {
        crate::surface::output::note(&line);
    }
    let json = match &cli.command {
        Command::Resolve(args) => args.wants_json(),
        Command::Check(args) => args.wants_json(),
        command => command.output().is_some_and(|out| out.json),
    };
    // Commands that read a project's files run in a child process this
    // one abandons at their bound: a read that never returns (a hung
    // network or FUSE mount) keeps its process from exiting, even after
    // SIGKILL.
    let owned = |place: Option<&std::path::Path>| place.map(std::path::Path::to_path_buf);
    let bounded = match &cli.command {
        Command::Resolve(args) => Some((owned(args.place()), CLI_BOUND)),
        Command::Briefing(args) => Some((owned(args.place()), CLI_BOUND)),
        Command::Query(args) => Some((owned(args.place()), CLI_BOUND)),
        Command::Read(args) => Some((owned(args.place()), CLI_BOUND)),
        Command::Check(args) => Some((owned(args.place()), check::BOUND)),
        Command::Memory(args) => Some((owned(args.place()), CLI_BOUND)),
        Command::SourceStatus(args) => Some((owned(args.place()), CLI_BOUND)),
        Command::Doctor(args) => Some((owned(args.place()), doctor::BOUND)),
        _ => None,
    };
    let Some((place, bound)) = bounded else {
        return finish(dispatch(cli.command), json);
    };
    let started = std::time::Instant::now();
    let command = cli.command;
    let detached =
        agentspine_fs::run_detached(Some(started + bound), agentspine_fs::Output::Stream, move || {
            match finish(dispatch(command), json) {
                code if code == ExitCode::SUCCESS => 0,
                // The only other codes `finish` gives for these commands
                // (1: `check --deny` found something that severe, or
                // `doctor` found something that needs the user's action).
                code if code == ExitCode::from(1) => 1,
                code if code == ExitCode::from(3) => 3,
                _ => 2,
            }
        });
    match detached {
        Ok(agentspine_fs::Detached { code: Some(code), .. }) => ExitCode::from(code),
        Ok(agentspine_fs::Detached { code: None, pid, .. }) => {
            let place = place.or_else(|| std::env::current_dir().ok()).unwrap_or_default();
            let file = agentspine_fs::blocked_on(agentspine_fs::Sleeper::Process(pid));
            // The abandoned child does no more work once its read returns
            // (no late write to the state store after we said we gave up):
            // it dies as soon as the kernel lets it, and no process is
            // left behind once the file system answers or goes away.
            if let Some(child) = rustix::process::Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(child, rustix::process::Signal::KILL);
            }
            crate::surface::errors::report(
                &anyhow::Error::new(Unanswered { path: place, file, bound }),
                json,
            );
            ExitCode::from(crate::surface::errors::exit::ERROR)
        }
        Err(error) => {
            // No child process: run the command here, unbounded, as before.
            tracing::warn!("{error}; running in this process");
            finish(dispatch(Cli::parse_from(std::env::args_os()).command), json)
        }
    }
}

/// How long a command that reads a project's files may take before it
/// gives up (its reads stop starting at 2 s; this covers one that never
/// returns).
const CLI_BOUND: std::time::Duration = std::time::Duration::from_secs(3);

fn dispatch(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Resolve(args) => resolve::run(args),
        Command::Memory(args) => memory::run(args),
        Command::Briefing(args) => catalog::briefing(args),
        Command::Query(args) => catalog::query(args),
        Command::Read(args) => catalog::read(args),
        Command::Check(args) => check::run(args),
        Command::Scope(args) => scope::run(args),
        Command::Cache(args) => cache::run(args),
        Command::Doctor(args) => doctor::run(args),
        Command::SourceStatus(args) => status::run(args),
        Command::Record(args) => record::run(args),
        Command::SourceBind(args) => bind::bind(args),
        Command::SourceRollback(args) => bind::rollback(args),
        Command::SourcePurge(args) => bind::purge(args),
        Command::Bindings(args) => bindings::run(args),
        Command::Audit(args) => audit::run(args),
        Command::Mcp(args) => crate::mcp::run(args),
        Command::Hook(args) => crate::hook::run(args),
        Command::Install(args) => crate::install::install(args),
        Command::Uninstall(args) => crate::install::uninstall(args),
        Command::Serve(args) => crate::proxy::run(args),
        Command::Completions(args) => completions::run(args),
        Command::Manpage(args) => completions::man(args),
    }
}

/// The exit code of a command's result, its error reported.
fn finish(result: anyhow::Result<ExitCode>, json: bool) -> ExitCode {
    match result {
        Ok(code) => code,
        // The reader of stdout went away (`agentspine ... | head`): it has
        // what it wanted, and there is no one left to tell.
        Err(error) if crate::surface::errors::is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            crate::surface::errors::report(&error, json);
            crate::surface::errors::exit_code(&error)
        }
    }
}

/// A usage error (bad flag, missing argument, bad value): clap's text on
/// stderr, or with `--json` anywhere in `args` the JSON object with code
/// `usage` on stdout. Help and version requests print as usual, exit 0.
pub fn usage(error: &clap::Error, args: &[String]) -> ExitCode {
    use clap::error::ErrorKind;
    let kind = error.kind();
    let json = args.iter().take_while(|a| *a != "--").any(|a| a == "--json");
    if matches!(kind, ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) || !json {
        let _ = error.print();
        return ExitCode::from(if error.use_stderr() { exit::ERROR } else { exit::OK });
    }
    let text = error.render().to_string();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let mut message = lines.next().unwrap_or_default().trim_start_matches("error: ").to_owned();
    if message.ends_with(':') {
        // "the following required arguments were not provided:" and the
        // argument on the next line.
        message.push(' ');
        message.push_str(lines.next().unwrap_or_default());
    }
    // The subcommands named in `args`, as far as they are real ones.
    let mut cmd = <Cli as clap::CommandFactory>::command();
    let mut path = String::new();
    for word in args.iter().take_while(|a| !a.starts_with('-')) {
        let Some(sub) = cmd.find_subcommand(word).cloned() else { break };
        path.push_str(word);
        path.push(' ');
        cmd = sub;
    }
    // The values a flag takes, when clap lists them: the next step for a
    // bad value.
    if let Some(values) = text.lines().map(str::trim).find_map(|l| l.strip_prefix("[possible values: ")) {
        message.push_str(&format!("; one of {}", values.trim_end_matches(']')));
    }
    message.push_str(&format!("; see `agentspine {path}--help`"));
    let code = match kind {
        ErrorKind::InvalidUtf8 => "not-utf8",
        ErrorKind::MissingRequiredArgument => "missing-argument",
        ErrorKind::MissingSubcommand | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            "missing-subcommand"
        }
        ErrorKind::InvalidValue | ErrorKind::ValueValidation => "invalid-value",
        ErrorKind::UnknownArgument => "unknown-argument",
        ErrorKind::InvalidSubcommand => "unknown-command",
        ErrorKind::ArgumentConflict => "conflicting-arguments",
        _ => "usage",
    };
    println!("{}", serde_json::json!({ "error": { "code": code, "message": message } }));
    ExitCode::from(exit::ERROR)
}
