//! `agentspine install|uninstall claude|codex|gemini|pi`: registers
//! agentspine's hook (pi: its extension) and MCP server in a host's own
//! configuration files, and takes them out again.
//!
//! Guarantees:
//! - every other key of a file keeps its value and its place (JSON through
//!   [`json::Json`], which keeps key order, TOML through `toml_edit`, which
//!   keeps comments and formatting);
//! - installing twice leaves one agentspine hook per event (see
//!   [`hooks`]); re-installing updates the binary's path;
//! - nothing is written through a link: a linked file or configuration
//!   directory is refused with a one-line error naming it;
//! - a file that changes is first copied to `<name>.agentspine-backup-<secs>`
//!   beside it, then replaced atomically; only the newest backup of each
//!   file is kept (older `agentspine-backup-` copies of it are removed);
//!   `--dry-run` prints the change as a unified diff and writes nothing;
//! - a JSON file keeps its indentation (two spaces, four, a tab) and
//!   whether it ends with a newline;
//! - the hooks and MCP entry name a command that outlives an upgrade: in
//!   user scope the running binary's path (refused when that is a cargo
//!   build directory, which the next build replaces, unless `--command`
//!   names the program), in project scope (files that get committed) the
//!   bare `agentspine`, found on `PATH` (see [`command`]);
//! - a flag that does not apply to the chosen host or scope is an error;
//! - `uninstall` removes exactly the entries install adds (and a container
//!   the removal leaves empty; a file left as `{}` is removed, its backup
//!   kept).

mod claude;
mod codex;
mod command;
pub mod drift;
mod gemini;
mod hooks;
pub mod inspect;
mod json;
mod pi;
pub mod startup;
pub(crate) mod trust;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use serde::Serialize;

use crate::cli::args::OutputArgs;
use command::PORTABLE;

/// Largest configuration file agentspine will edit.
const MAX_CONFIG: u64 = 16 << 20;

/// Add agentspine's hooks and MCP server to Claude Code, Codex, Gemini CLI or pi.
///
/// Claude Code, user scope: hooks in `$CLAUDE_CONFIG_DIR/settings.json`
/// (or `~/.claude/settings.json`) and `mcpServers.agentspine` in
/// `~/.claude.json` (`$CLAUDE_CONFIG_DIR/.claude.json`). Project scope:
/// `<project>/.claude/settings.json` and `<project>/.mcp.json`.
///
/// Codex: `$CODEX_HOME/hooks.json` (or `~/.codex/hooks.json`) and
/// `[mcp_servers.agentspine]` in `config.toml`. Codex runs these hooks only
/// once you trust them: in Codex's `/hooks` view, or with `--trust-hooks`,
/// which writes the same trust records into `config.toml`.
///
/// Gemini CLI: hooks and `mcpServers.agentspine` in `~/.gemini/settings.json`
/// (`$GEMINI_CLI_HOME/.gemini/settings.json`); user hooks run without a
/// trust step. The file must be plain JSON (a file with comments is
/// refused, never rewritten without them).
///
/// pi: the extension `extensions/agentspine.js` (from `plugins/pi`,
/// which asks `agentspine hook pi`) and `mcpServers.agentspine` in
/// `mcp.json`, both in `$PI_CODING_AGENT_DIR` (or `~/.pi/agent`).
///
/// Every changed file is backed up beside itself first. Examples:
///
///   agentspine install claude --dry-run
///
///   agentspine install codex --trust-hooks --json
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(flatten)]
    target: Target,
    /// Codex only: also record agentspine's hooks as trusted in config.toml
    /// (what trusting them in Codex's `/hooks` view records), so Codex runs
    /// them without asking. Uninstall removes these records either way.
    #[arg(long)]
    trust_hooks: bool,
    /// User settings only: the program the hooks and MCP entry run,
    /// `agentspine` (found on PATH) or an absolute path ending in
    /// `/agentspine`, instead of this binary's path. Needed to install
    /// from a cargo build directory (developing agentspine), which install
    /// otherwise refuses. `$AGENTSPINE_INSTALL_COMMAND` does the same for
    /// user settings when the flag is not given.
    #[arg(long, value_name = "PATH")]
    command: Option<String>,
}

/// What install and uninstall both take: where, and how to print.
#[derive(Debug, clap::Args)]
struct Target {
    /// The host to configure.
    #[arg(value_enum)]
    host: Host,
    /// Claude Code only: which settings, the user's (naming this binary's
    /// path) or the project's, which get committed (naming `agentspine`,
    /// found on each user's PATH).
    #[arg(long, value_enum, value_name = "WHICH", default_value = "user", alias = "scope")]
    settings: Settings,
    /// Project directory for `--settings project` [default: the git root of the current directory].
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
    /// Print what would change and write nothing.
    #[arg(long)]
    dry_run: bool,
    #[command(flatten)]
    out: OutputArgs,
}

/// Remove what `agentspine install` added, and nothing else.
///
/// Takes the same host, `--settings` and `--project` as install, and
/// removes Codex hook trust records agentspine wrote, if any. Every changed
/// file is backed up beside itself first.
///
///   agentspine uninstall claude --settings project --dry-run
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct UninstallArgs {
    #[command(flatten)]
    target: Target,
}

/// The hosts agentspine installs into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
enum Host {
    /// Claude Code.
    Claude,
    /// Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// pi (its extension, for 1.x and 0.73 alike).
    Pi,
}

/// Where Claude Code's configuration goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
enum Settings {
    /// The user's settings (every project).
    User,
    /// One project's `.claude/settings.json` and `.mcp.json`.
    Project,
}

impl Args {
    pub fn output(&self) -> &OutputArgs {
        &self.target.out
    }
}

impl UninstallArgs {
    pub fn output(&self) -> &OutputArgs {
        &self.target.out
    }
}

/// One configuration file: where it is, its text now, and its text after.
struct Change {
    /// The directory holding the file (created when missing, if `make_dir`).
    dir: PathBuf,
    name: String,
    /// `(parent, name)` of `dir`, when it may be created.
    make_dir: Option<(PathBuf, String)>,
    before: Option<String>,
    /// `None`: the file is removed.
    after: Option<String>,
    /// Mode of a new file.
    mode: u32,
}

impl Change {
    fn path(&self) -> PathBuf {
        self.dir.join(&self.name)
    }
}

/// What happened to one file, as printed.
#[derive(Debug, Serialize)]
struct FileReport {
    path: PathBuf,
    change: &'static str,
    backup: Option<PathBuf>,
}

pub fn install(args: Args) -> anyhow::Result<ExitCode> {
    run(args.target, args.trust_hooks, args.command.as_deref(), true).map_err(refused)
}

pub fn uninstall(args: UninstallArgs) -> anyhow::Result<ExitCode> {
    // Uninstall removes agentspine's trust records whatever was installed.
    run(args.target, false, None, false).map_err(refused)
}

/// Install's refusals (a file it must not edit, a flag the host has no use
/// for) under their code; errors of a known kind keep theirs.
fn refused(error: anyhow::Error) -> anyhow::Error {
    match crate::cli::errors::classify(&error) {
        ("unclassified", _) => crate::cli::errors::Coded::new("install-refused", format!("{error:#}")).into(),
        _ => error,
    }
}

fn run(args: Target, trust_hooks: bool, explicit: Option<&str>, adding: bool) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        args.project.is_none() || args.settings == Settings::Project,
        "`--project` applies to `--settings project` only: add `--settings project`, or drop `--project`"
    );
    anyhow::ensure!(
        explicit.is_none() || args.settings == Settings::User,
        "`--command` applies to user settings only (project settings always run `{PORTABLE}` from PATH): \
         drop `--command`"
    );
    let mut next_steps = Vec::new();
    let mut from_build_directory = false;
    let bin = match args.settings {
        // Committed files name no path of this machine.
        Settings::Project => {
            if adding && drift::locate(PORTABLE).is_none() {
                next_steps.push(format!(
                    "the project's hooks run `{PORTABLE}` from PATH, and this PATH has none: install \
                     agentspine (README, Install) so that `{PORTABLE}` is found"
                ));
            }
            PORTABLE.to_owned()
        }
        // Uninstall writes no command: any binary may remove the entries.
        Settings::User if !adding => command::running()?,
        Settings::User => {
            let chosen = command::for_user(explicit)?;
            from_build_directory = chosen.from_build_directory;
            chosen.program
        }
    };
    let home = std::env::var_os("HOME").map(PathBuf::from).context("HOME is not set")?;
    let (changes, host_steps) = match args.host {
        Host::Claude => {
            anyhow::ensure!(!trust_hooks, "Claude Code has no hook trust to record: drop `--trust-hooks`");
            let project = match args.settings {
                Settings::Project => Some(crate::cli::project_root(args.project.as_deref())?),
                Settings::User => None,
            };
            (claude::changes(&home, project.as_deref(), &bin, adding)?, Vec::new())
        }
        Host::Codex => {
            anyhow::ensure!(
                args.settings == Settings::User,
                "Codex has no project settings here: drop `--settings project`"
            );
            codex::changes(&home, &bin, adding, trust_hooks)?
        }
        Host::Gemini => {
            anyhow::ensure!(
                args.settings == Settings::User,
                "Gemini CLI is installed for the user only here: drop `--settings project`"
            );
            anyhow::ensure!(
                !trust_hooks,
                "Gemini CLI runs user hooks without a trust step: drop `--trust-hooks`"
            );
            (gemini::changes(&home, &bin, adding)?, Vec::new())
        }
        Host::Pi => {
            anyhow::ensure!(
                args.settings == Settings::User && !trust_hooks,
                "pi takes neither `--settings project` (project extensions need pi's project trust) nor `--trust-hooks`"
            );
            let env = agentspine_core::Environment::from_vars(|k| std::env::var_os(k));
            let agent_dir = env.pi_home().context("neither PI_CODING_AGENT_DIR nor HOME is set")?;
            (pi::changes(&agent_dir, &bin, adding)?, Vec::new())
        }
    };
    next_steps.extend(host_steps);
    let mut reports = Vec::new();
    let mut diffs = String::new();
    for change in &changes {
        let kind = match (&change.before, &change.after) {
            (before, after) if before == after => "unchanged",
            (None, Some(_)) => "created",
            (Some(_), None) => "removed",
            _ => "updated",
        };
        let backup = if args.dry_run || kind == "unchanged" { None } else { apply(change)? };
        if kind != "unchanged" {
            diffs.push_str(&diff(change));
        }
        reports.push(FileReport { path: change.path(), change: kind, backup });
    }
    let next_steps: Vec<String> = if adding { next_steps } else { Vec::new() };
    if from_build_directory && !args.dry_run {
        tracing::warn!(
            "--command {bin}: a cargo build directory, which the next build replaces and `cargo clean` \
             deletes; the hooks stop working then (fine while developing agentspine)"
        );
    }
    let mut out = std::io::stdout().lock();
    if args.out.json {
        let mut value = serde_json::json!({
            "action": if adding { "install" } else { "uninstall" },
            "host": args.host,
            "dry_run": args.dry_run,
            "command": hooks::command(&bin, host_word(args.host)),
            "files": reports,
            "next_steps": next_steps,
        });
        if args.host == Host::Claude {
            value["scope"] = serde_json::json!(args.settings);
        }
        if args.dry_run {
            value["diff"] = serde_json::json!(diffs);
        }
        writeln!(out, "{value}")?;
    } else {
        if args.dry_run {
            write!(out, "{diffs}")?;
            writeln!(out, "dry run: nothing was written")?;
        }
        for report in &reports {
            let verb =
                if args.dry_run { format!("would be {}", report.change) } else { report.change.to_owned() };
            match &report.backup {
                Some(backup) => {
                    writeln!(out, "{}: {verb} (backup: {})", report.path.display(), backup.display())?
                }
                None => writeln!(out, "{}: {verb}", report.path.display())?,
            }
        }
        for step in &next_steps {
            writeln!(out, "next: {step}")?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn host_word(host: Host) -> &'static str {
    match host {
        Host::Claude => "claude",
        Host::Codex => "codex",
        Host::Gemini => "gemini",
        Host::Pi => "pi",
    }
}

/// Writes one change: the directory if missing, a backup of the old file,
/// then the new file (or its removal). Returns the backup's path.
fn apply(change: &Change) -> anyhow::Result<Option<PathBuf>> {
    let refused = |e: agentspine_fs::FsError| anyhow::anyhow!("{}: {e}", change.path().display());
    if let Some((parent, name)) = &change.make_dir {
        agentspine_fs::ensure_dir(parent, name).map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let backup = match change.before {
        Some(_) => {
            let name = agentspine_fs::backup_file(&change.dir, &change.name).map_err(refused)?;
            remove_older_backups(&change.dir, &change.name, &name);
            Some(change.dir.join(name))
        }
        None => None,
    };
    match &change.after {
        Some(text) => {
            agentspine_fs::replace_file_atomic(&change.dir, &change.name, text.as_bytes(), Some(change.mode))
                .map_err(refused)?
        }
        None => agentspine_fs::remove_file(&change.dir, &change.name).map_err(refused)?,
    }
    Ok(backup)
}

/// Removes every `name.agentspine-backup-*` in `dir` but `newest`: one
/// backup per file, the state before the last change. A backup that cannot
/// be removed stays (a warning says so); the change itself is done.
fn remove_older_backups(dir: &Path, name: &str, newest: &str) {
    let prefix = format!("{name}.agentspine-backup-");
    let reader = agentspine_fs::Reader::new(agentspine_fs::Budget::UNLIMITED);
    let listing = match reader.open_root(dir).and_then(|root| root.list(".", 100_000)) {
        Ok(listing) => listing,
        Err(e) => {
            tracing::warn!("{}: older backups not removed: {e}", dir.display());
            return;
        }
    };
    for entry in listing.entries.iter().chain(&listing.hidden) {
        if entry.kind == agentspine_fs::FileKind::File
            && entry.name.starts_with(&prefix)
            && entry.name != newest
            && let Err(e) = agentspine_fs::remove_file(dir, &entry.name)
        {
            tracing::warn!("{}: {e}", dir.join(&entry.name).display());
        }
    }
}

/// A unified diff of one change.
fn diff(change: &Change) -> String {
    let before = change.before.as_deref().unwrap_or("");
    let after = change.after.as_deref().unwrap_or("");
    let path = change.path().display().to_string();
    let old = if change.before.is_some() { format!("a{path}") } else { "/dev/null".to_owned() };
    let new = if change.after.is_some() { format!("b{path}") } else { "/dev/null".to_owned() };
    similar::TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(&old, &new)
        .to_string()
}

/// The text of `dir/name`, or `None` when it (or `dir`) does not exist.
/// A link at `name` or at `dir` itself is refused: agentspine never writes
/// through one.
fn read_config(dir: &Path, name: &str) -> anyhow::Result<Option<String>> {
    let reader = agentspine_fs::Reader::new(agentspine_fs::Budget::UNLIMITED);
    if let (Some(parent), Some(last)) = (dir.parent(), dir.file_name()) {
        match reader.open_root(parent).and_then(|root| root.stat(last)) {
            Ok(meta) if meta.kind == agentspine_fs::FileKind::Symlink => {
                anyhow::bail!(
                    "{}: refused: it is a symbolic link, and agentspine never writes through one",
                    dir.display()
                )
            }
            Ok(meta) if meta.kind != agentspine_fs::FileKind::Directory => {
                anyhow::bail!("{}: refused: it is a {}, not a directory", dir.display(), meta.kind)
            }
            Ok(_) => {}
            Err(e) if e.code() == agentspine_fs::Code::NotFound => return Ok(None),
            Err(e) => anyhow::bail!("{}: {e}", dir.display()),
        }
    }
    let root = reader.open_root(dir).map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
    match root.read(name, MAX_CONFIG) {
        Ok(snapshot) => Ok(Some(
            String::from_utf8(snapshot.bytes)
                .with_context(|| format!("{}: not UTF-8", dir.join(name).display()))?,
        )),
        Err(e) if e.code() == agentspine_fs::Code::NotFound => Ok(None),
        Err(e) if e.code() == agentspine_fs::Code::Symlink => anyhow::bail!(
            "{}: refused: it is a symbolic link, and agentspine never writes through one",
            dir.join(name).display()
        ),
        Err(e) => anyhow::bail!("{}: {e}", dir.join(name).display()),
    }
}

/// Parses a JSON object file (missing = empty object), keeping key order.
fn parse_object(text: Option<&str>, path: &Path) -> anyhow::Result<json::Object> {
    match text {
        None => Ok(json::Object::new()),
        Some(text) if text.trim().is_empty() => Ok(json::Object::new()),
        Some(text) => match serde_json::from_str(text) {
            Ok(json::Json::Object(map)) => Ok(map),
            Ok(_) => anyhow::bail!("{}: refused: not a JSON object", path.display()),
            Err(e) => anyhow::bail!("{}: refused: not valid JSON ({e})", path.display()),
        },
    }
}

/// The new text of a JSON file: `None` when it would be left empty and
/// did not start empty (uninstall), unchanged text when the value did not
/// change (so formatting the user chose is kept).
fn render_object(
    before: Option<&str>,
    original: &json::Object,
    edited: json::Object,
) -> anyhow::Result<Option<String>> {
    if serde_json::to_string(original)? == serde_json::to_string(&edited)? {
        return Ok(before.map(str::to_owned));
    }
    if edited.is_empty() && !original.is_empty() {
        return Ok(None);
    }
    let indent = before.map_or_else(|| b"  ".to_vec(), indentation);
    let mut bytes = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(&indent);
    edited.serialize(&mut serde_json::Serializer::with_formatter(&mut bytes, formatter))?;
    let mut text = String::from_utf8(bytes)?;
    if before.is_none_or(|b| b.ends_with('\n')) {
        text.push('\n');
    }
    Ok(Some(text))
}

/// The indentation of a JSON text: the leading whitespace of its first
/// indented line (two spaces when none is).
fn indentation(text: &str) -> Vec<u8> {
    text.lines()
        .map(|line| &line[..line.len() - line.trim_start_matches([' ', '\t']).len()])
        .find(|lead| !lead.is_empty())
        .unwrap_or("  ")
        .as_bytes()
        .to_vec()
}
