//! `agentspine install|uninstall claude|codex|gemini|pi|opencode|copilot|kimi`:
//! registers agentspine's hook (pi: its extension, opencode: its plugin)
//! and MCP server in a host's own configuration files, and takes them out
//! again.
//!
//! Guarantees:
//! - install then uninstall gives every file back byte for byte: a file
//!   the user had is as it was (its layout, key order, spacing, newlines
//!   and final newline), a file install created is gone, and a file the
//!   user had is never removed, even one that was only `{}` or empty;
//! - every byte install does not need to change stays: a JSON file is
//!   edited in its own text (see [`splice`]: only agentspine's entries go
//!   in or out, new ones written in the file's style), TOML through
//!   `toml_edit`, which keeps comments and layout (and CRLF is kept);
//! - what the user changes between install and uninstall stays: uninstall
//!   takes out agentspine's entries and the containers it made for them
//!   (a container the user had before install stays, even empty), and
//!   when what remains equals the original (below) value for value, the
//!   original's bytes come back;
//! - installing twice leaves one agentspine hook per event (see
//!   [`hooks`]), and a second install changes no file and makes no backup;
//!   re-installing updates the binary's path;
//! - nothing is written through a link: a linked file or configuration
//!   directory is refused with a one-line error naming it;
//! - a file that changes is first copied to `<name>.agentspine-backup-<secs>`
//!   beside it, then replaced atomically. Two backups of each file are
//!   kept: the newest, and the original, the newest that holds nothing of
//!   agentspine's (the file as the user had it before install), which no
//!   later install or uninstall replaces with a version agentspine wrote
//!   (see [`backup`]); `--dry-run` prints the change as a unified diff and
//!   writes nothing;
//! - the hooks and MCP entry name a command that outlives an upgrade: in
//!   user scope the running binary's path (refused when that is a cargo
//!   build directory, which the next build replaces, unless `--command`
//!   names the program), in project scope (files that get committed) the
//!   bare `agentspine`, found on `PATH` (see [`command`]);
//! - a flag that does not apply to the chosen host or scope is an error;
//! - `uninstall` removes exactly the entries install adds. Without an
//!   original (install created the file, or its backups were deleted) a
//!   container the removal leaves empty goes too, and a file left as `{}`
//!   (or blank TOML) is removed, its backup kept.

mod backup;
mod claude;
mod codex;
mod command;
mod copilot;
pub mod drift;
mod gemini;
mod hooks;
pub mod inspect;
mod json;
mod kimi;
mod opencode;
mod pi;
mod splice;
pub mod startup;
mod toml_doc;
pub(crate) mod trust;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use serde::Serialize;

use crate::surface::args::OutputArgs;
use agentspine_core::Host;
use command::PORTABLE;

/// Largest configuration file agentspine will edit.
const MAX_CONFIG: u64 = 16 << 20;

/// Add agentspine's hooks and MCP server to Claude Code, Codex, Gemini CLI, pi, opencode,
/// GitHub Copilot CLI or Kimi Code.
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
/// opencode: the plugin `plugins/agentspine.js` (from `plugins/opencode`,
/// which asks `agentspine hook opencode`) and `mcp.agentspine` in
/// `opencode.json`, both in `$OPENCODE_CONFIG_DIR` (or
/// `$XDG_CONFIG_HOME/opencode`, `~/.config/opencode`).
///
/// GitHub Copilot CLI: the hook file `hooks/agentspine.json` and
/// `mcpServers.agentspine` in `mcp-config.json`, both in `$COPILOT_HOME`
/// (or `~/.copilot`); user hooks run without a trust step.
///
/// Kimi Code: a `[[hooks]]` entry for UserPromptSubmit in `config.toml`
/// and `mcpServers.agentspine` in `mcp.json`, both in `$KIMI_CODE_HOME`
/// (or `~/.kimi-code`); user hooks run without a trust step.
///
/// Every changed file is backed up beside itself first. Examples:
///
///   agentspine install claude --dry-run
///
///   agentspine install codex --trust-hooks --json
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/install.md
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
    /// The host to configure (pi's extension serves 1.x and 0.73 alike).
    #[arg(value_parser = installable(), value_name = "HOST")]
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
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/install.md#remove-everything
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct UninstallArgs {
    #[command(flatten)]
    target: Target,
}

/// The hosts `install` configures, by name (the names completions offer),
/// parsed as every command parses a host.
fn installable() -> impl clap::builder::TypedValueParser<Value = Host> {
    use clap::builder::TypedValueParser;
    let names = agentspine_core::hosts::Profile::installable()
        .map(|p| clap::builder::PossibleValue::new(p.host.as_str()).help(p.display));
    clap::builder::PossibleValuesParser::new(names).try_map(|name| name.parse::<Host>())
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
    /// Whether a version of the file holds anything of agentspine's (so
    /// that its backup before install, the original, is kept).
    ours: backup::Holds,
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
    match crate::surface::errors::classify(&error) {
        ("unclassified", _) => {
            crate::surface::errors::Coded::new("install-refused", format!("{error:#}")).into()
        }
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
            if adding && crate::program::locate(PORTABLE).is_none() {
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
    let profile = args.host.profile();
    let install = profile
        .install
        .as_ref()
        .with_context(|| format!("agentspine does not install into {}", args.host))?;
    if args.settings == Settings::Project
        && let Err(refused) = install.project_settings
    {
        anyhow::bail!("{refused}");
    }
    if trust_hooks && let Err(refused) = install.hook_trust {
        anyhow::bail!("{refused}");
    }
    let env = agentspine_core::Environment::from_vars(|k| std::env::var_os(k));
    let dir = (install.dir)(&env).context(install.dir_unset)?;
    let project = match args.settings {
        Settings::Project => Some(crate::surface::project_root(args.project.as_deref())?),
        Settings::User => None,
    };
    let at =
        Destination { env: &env, dir: &dir, project: project.as_deref(), bin: &bin, adding, trust_hooks };
    let (changes, host_steps) = host_changes(args.host, &at)?;
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
            "command": hooks::command(&bin, args.host.as_str()),
            "files": reports,
            "next_steps": next_steps,
        });
        if args.host.profile().install.as_ref().is_some_and(|i| i.project_settings.is_ok()) {
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

/// Where and what one `install` or `uninstall` writes, as each host's
/// adapter takes it; the checks every host shares (its profile's
/// [`agentspine_core::hosts::profile::Install`]) are made before.
struct Destination<'a> {
    env: &'a agentspine_core::Environment,
    /// The profile's [`agentspine_core::hosts::profile::Install::dir`].
    dir: &'a Path,
    /// The project root, for `--settings project`.
    project: Option<&'a Path>,
    /// The command the hooks run.
    bin: &'a str,
    adding: bool,
    trust_hooks: bool,
}

/// The file changes of `host`'s adapter (one module per host), and the
/// next steps it asks of the user.
fn host_changes(host: Host, at: &Destination<'_>) -> anyhow::Result<(Vec<Change>, Vec<String>)> {
    let Destination { env, dir, project, bin, adding, trust_hooks } = *at;
    let alone = |changes: Vec<Change>| (changes, Vec::new());
    Ok(match host {
        Host::Claude => alone(claude::changes(dir, project, bin, adding)?),
        Host::Codex => codex::changes(dir, bin, adding, trust_hooks)?,
        Host::Gemini => alone(gemini::changes(dir, bin, adding)?),
        Host::Pi | Host::Pi073 => alone(pi::changes(dir, bin, adding)?),
        Host::Opencode => alone(opencode::changes(dir, bin, adding)?),
        Host::Copilot => alone(copilot::changes(dir, bin, adding)?),
        Host::Kimi => alone(kimi::changes(env, bin, adding)?),
        other => anyhow::bail!("agentspine does not install into {other}"),
    })
}

/// The file of its own a host runs agentspine from (pi's extension,
/// opencode's plugin), as `doctor` checks it.
pub(super) struct ExtensionFile {
    /// What the host calls it.
    pub what: &'static str,
    /// Its text for hooks that run `bin`.
    pub text_for: fn(&str) -> String,
    /// Whether a text of the host's MCP configuration registers the server.
    pub holds_server: fn(&str) -> bool,
}

/// [`ExtensionFile`] of `host`, for a host whose profile's carrier is an
/// extension.
pub(super) fn extension_file(host: Host) -> Option<ExtensionFile> {
    match host {
        Host::Opencode => Some(ExtensionFile {
            what: "plugin",
            text_for: opencode::plugin_for,
            holds_server: opencode::holds_server,
        }),
        Host::Pi | Host::Pi073 => Some(ExtensionFile {
            what: "extension",
            text_for: pi::extension_for,
            holds_server: pi::holds_server,
        }),
        _ => None,
    }
}

/// Writes one change: the directory if missing, a backup of the old file
/// (see [`backup`]), then the new file (or its removal). Returns the
/// backup's path.
fn apply(change: &Change) -> anyhow::Result<Option<PathBuf>> {
    let refused = |e: agentspine_fs::FsError| anyhow::anyhow!("{}: {e}", change.path().display());
    if let Some((parent, name)) = &change.make_dir {
        agentspine_fs::ensure_dir(parent, name).map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let backup = match change.before {
        Some(_) => Some(backup::write(&change.dir, &change.name, change.ours).map_err(refused)?),
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

/// Whether the JSON object `object` has the key path `path`.
fn has_path(object: Option<&json::Object>, path: &[&str]) -> bool {
    let Some((first, rest)) = path.split_first() else { return object.is_some() };
    let mut value = object.and_then(|o| o.get(*first));
    for key in rest {
        value = value.and_then(|v| v.get(key));
    }
    value.is_some()
}

/// The change to one JSON configuration file: `edit` changes its object
/// (missing or blank: an empty one); on uninstall it is also told which
/// key paths the file's original (see [`backup`]) has, containers it then
/// keeps even when its removal leaves them empty.
///
/// The new text is printed into the old (see [`splice`]), so only what
/// `edit` changed changes. Uninstall gives back the original's bytes when
/// what remains equals it value for value, never removes a file that has
/// an original, and removes one left as `{}` that has none (install
/// created it).
fn json_change(
    dir: &Path,
    name: &str,
    make_dir: Option<(PathBuf, String)>,
    mode: u32,
    ours: backup::Holds,
    adding: bool,
    edit: impl FnOnce(&mut json::Object, &dyn Fn(&[&str]) -> bool) -> anyhow::Result<()>,
) -> anyhow::Result<Change> {
    let path = dir.join(name);
    let before = read_config(dir, name)?;
    let original = parse_object(before.as_deref(), &path)?;
    let kept = match &before {
        Some(_) if !adding => backup::original(dir, name, ours),
        _ => None,
    };
    let kept_value = kept.as_deref().and_then(|text| parse_object(Some(text), &path).ok());
    let mut edited = original.clone();
    edit(&mut edited, &|path: &[&str]| has_path(kept_value.as_ref(), path))?;
    let same =
        |a: &json::Object, b: &json::Object| serde_json::to_string(a).ok() == serde_json::to_string(b).ok();
    let after = if same(&edited, &original) {
        before.clone()
    } else {
        match (&kept, &kept_value) {
            (Some(text), Some(value)) if same(&edited, value) => Some(text.clone()),
            (None, _) if !adding && edited.is_empty() => None,
            _ => Some(splice::render(before.as_deref(), &edited, kept.as_deref())),
        }
    };
    Ok(Change { dir: dir.to_path_buf(), name: name.into(), make_dir, before, after, mode, ours })
}
