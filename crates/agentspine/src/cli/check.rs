//! `agentspine check`: what each agent will miss, cut, shadow or follow
//! out of the repository. Parses the flags, asks the resolver
//! ([`agentspine_core::Resolver::check`]) and renders its findings as text
//! grouped by file, JSON, GitHub workflow annotations or SARIF 2.1.0.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use agentspine_core::Host;
use agentspine_core::check::{Check, CheckRequest, Finding, Kind, Severity, Silence, default_hosts};
use agentspine_fs::{Budget, Reader};
use anyhow::Context;
use clap::ValueEnum;
use serde_json::{Value, json};

/// Report what each agent will miss, cut, shadow or follow out of the repository.
///
/// For the root and every directory that holds instruction files (found by
/// the bounded discovery the catalog uses), each host's own rules are
/// applied and what they do with the files becomes a finding: content a
/// host cuts or drops, files it never reads, imports it drops, rules that
/// never load, links it follows, MEMORY.md lines it cuts. Severity: `error`
/// for content lost or read from outside, `warning` for a file a host never
/// reads, `note` otherwise. A `[[check.silence]]` entry (`id`, `path`) in the
/// repository's `.agentspine.toml` or `~/.config/agentspine/config.toml`
/// silences a finding, never a safety one.
///
/// Examples:
///
///   agentspine check --root examples/monorepo
///
///   agentspine check --host codex,claude --deny warning --format github
///
///   agentspine check --all-hosts --compare --json
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/check.md
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Project root to check [default: the current directory's git root].
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Whose rules to apply, comma-separated [default: the hosts the
    /// repository addresses (a file one reads by name, its configuration
    /// directory) and the hosts installed for you (their profile directory
    /// exists); the desktop rule, generic and pi-0.73 only when named].
    #[arg(long, value_enum, value_delimiter = ',', value_name = "HOST", conflicts_with = "all_hosts")]
    host: Vec<Host>,
    /// Every agent host (codex, claude, gemini, pi, pi-0.73, opencode,
    /// copilot, kimi, desktop).
    #[arg(long)]
    all_hosts: bool,
    /// Also check these directories (inside the root), found or not.
    #[arg(long, value_name = "DIR", num_args = 1..)]
    paths: Vec<PathBuf>,
    /// Also list the directories where hosts disagree on what applies.
    #[arg(long)]
    compare: bool,
    /// `text` for people, `json` (stable), `github` (workflow annotations),
    /// `sarif` (SARIF 2.1.0).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// `--json` (same as `--format json`), `--quiet`, `--color`.
    #[command(flatten)]
    out: crate::surface::args::OutputArgs,
    /// Exit with 1 when a finding is at least this severe.
    #[arg(long, value_enum, value_name = "SEVERITY")]
    deny: Option<Deny>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
    Github,
    Sarif,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Deny {
    Warning,
    Error,
}

impl Args {
    /// Whether output (and errors) should be JSON.
    pub fn wants_json(&self) -> bool {
        self.out.json || self.format == Format::Json
    }

    /// The directory whose files the command reads: `--root`.
    pub fn place(&self) -> Option<&std::path::Path> {
        self.root.as_deref()
    }

    /// The shared output flags.
    pub fn output(&self) -> &crate::surface::args::OutputArgs {
        &self.out
    }
}

/// How long one check may read before it stops starting new reads.
const DEADLINE: Duration = Duration::from_secs(10);
/// How long the command may take before it gives up on a read that never
/// returns (it stops starting reads at [`DEADLINE`]).
pub const BOUND: Duration = Duration::from_secs(12);

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let format = if args.out.json { Format::Json } else { args.format };
    let current = std::env::current_dir().context("cannot read the current directory")?;
    let root = match &args.root {
        Some(root) => crate::surface::canonical(root)?,
        None => crate::surface::project_root(None)?,
    };
    let resolver = crate::state::resolver(Reader::new(Budget::with_timeout(DEADLINE)));
    let silence = Silence::load(resolver.reader(), &root, resolver.env().user_config_file().as_deref())?;
    let hosts = if args.all_hosts { default_hosts() } else { args.host };
    let absolute = |p: &PathBuf| if p.is_absolute() { p.clone() } else { current.join(p) };
    // What the hooks add for Claude Code, so that check reports those
    // files as delivered (a configuration that cannot be read: the default).
    let claude_agents_md =
        crate::config::load(resolver.reader()).map(|c| c.claude.session_start_agents_md).unwrap_or_default();
    let request = CheckRequest {
        root,
        hosts,
        paths: args.paths.iter().map(absolute).collect(),
        compare: args.compare,
        silence,
        claude_agents_md,
        walk: true,
    };
    let check = resolver.check(&request)?;
    let rendered = match format {
        Format::Text => text(&check),
        Format::Json => format!("{}\n", serde_json::to_string_pretty(&check)?),
        Format::Github => github(&check),
        Format::Sarif => format!("{}\n", serde_json::to_string_pretty(&sarif(&check))?),
    };
    std::io::stdout().lock().write_all(rendered.as_bytes())?;
    let denied = match args.deny {
        Some(Deny::Warning) => check.has_at_least(Severity::Warning),
        Some(Deny::Error) => check.has_at_least(Severity::Error),
        None => false,
    };
    Ok(if denied { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn host_of(finding: &Finding) -> &'static str {
    finding.host.map(Host::as_str).unwrap_or("agentspine")
}

/// Findings grouped by file, then the budget summary and the counts.
pub(crate) fn text(check: &Check) -> String {
    let mut out = String::new();
    let mut by_file: BTreeMap<&str, Vec<&Finding>> = BTreeMap::new();
    for finding in &check.findings {
        by_file.entry(finding.path.as_str()).or_default().push(finding);
    }
    for (path, findings) in by_file {
        out.push_str(path);
        out.push('\n');
        for f in findings {
            let line = f.line.map(|l| format!("line {l}: ")).unwrap_or_default();
            out.push_str(&format!(
                "  {:<7} {:<7} {}: {line}{}\n",
                f.severity.to_string(),
                host_of(f),
                f.kind,
                f.message
            ));
            if let Some(ours) = &f.agentspine {
                out.push_str(&format!("{:18}{ours}\n", ""));
            }
            if let Some(action) = &f.action {
                out.push_str(&format!("{:18}to do: {action}\n", ""));
            }
            if !f.files.is_empty() {
                out.push_str(&format!("{:18}files: {}\n", "", f.files.join(", ")));
            }
            if !f.dirs.is_empty() && f.dirs != ["."] {
                out.push_str(&format!("{:18}sessions started in: {}\n", "", f.dirs.join(", ")));
            }
        }
    }
    if !check.findings.is_empty() {
        out.push('\n');
    }
    let plural = |n: u64, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    out.push_str("bytes sent (session at the root / in the deepest directory):\n");
    for b in &check.budgets {
        out.push_str(&format!(
            "  {:<8} {} bytes ({}, {} cut) / {} bytes in {} ({}, {} cut)\n",
            b.host.as_str(),
            b.root.bytes,
            plural(b.root.files, "file"),
            b.root.cut,
            b.deepest.bytes,
            b.deepest.dir,
            plural(b.deepest.files, "file"),
            b.deepest.cut
        ));
    }
    if let Some(disagreements) = &check.disagreements {
        out.push_str("\nwhere hosts disagree on the project files that apply:\n");
        if disagreements.is_empty() {
            out.push_str("  nowhere\n");
        }
        for d in disagreements {
            out.push_str(&format!("  {}\n", d.dir));
            for (host, files) in &d.files {
                let shown = if files.is_empty() { "(none)".to_owned() } else { files.join(", ") };
                out.push_str(&format!("    {host:<8} {shown}\n"));
            }
        }
    }
    for r in &check.summary.refused {
        out.push_str(&format!(
            "\nsilence refused: [[check.silence]] id = {:?}, path = {:?} names the safety finding at {}; \
             safety findings are never silenced\n",
            r.id, r.path, r.finding
        ));
    }
    if !check.hosts_chosen.is_empty() {
        out.push_str("\nhosts checked (none named with --host):\n");
        for c in &check.hosts_chosen {
            out.push_str(&format!("  {:<8} {}\n", c.host.as_str(), c.why));
        }
    } else if check.hosts.is_empty() {
        out.push_str(
            "\nno host checked: the repository addresses none (no AGENTS.md, CLAUDE.md, GEMINI.md, .claude/, \
             .codex/, .gemini/, .pi/) and none is installed for you; name one with --host\n",
        );
    }
    let count = |s: Severity| check.summary.counts.get(&s).copied().unwrap_or(0);
    out.push_str(&format!(
        "\n{}, {}, {} in {} ({} silenced)\n",
        plural(count(Severity::Error), "error"),
        plural(count(Severity::Warning), "warning"),
        plural(count(Severity::Note), "note"),
        plural(check.dirs.len() as u64, "directory").replace("directorys", "directories"),
        check.summary.silenced
    ));
    out
}

/// Whether a finding's path is a file in the repository (not `~/…`, not
/// absolute, not a directory).
fn in_repo(path: &str) -> bool {
    !path.starts_with('~') && !path.starts_with('/') && path != "." && !path.ends_with('/')
}

/// GitHub's escaping of a workflow command's data and properties.
fn escape(text: &str, property: bool) -> String {
    let mut out = text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A");
    if property {
        out = out.replace(':', "%3A").replace(',', "%2C");
    }
    out
}

/// One workflow command per finding (`::error file=…,line=…,title=…::…`).
pub(crate) fn github(check: &Check) -> String {
    let mut out = String::new();
    for f in &check.findings {
        let mut props = Vec::new();
        if in_repo(&f.path) {
            props.push(format!("file={}", escape(&f.path, true)));
            if let Some(line) = f.line {
                props.push(format!("line={line}"));
            }
        }
        props.push(format!("title={}", escape(&format!("agentspine {} ({})", f.kind, host_of(f)), true)));
        let place = if in_repo(&f.path) { String::new() } else { format!("{}: ", f.path) };
        out.push_str(&format!(
            "::{} {}::{}\n",
            f.severity,
            props.join(","),
            escape(&format!("{place}{}", f.message), false)
        ));
    }
    out
}

/// The SARIF 2.1.0 log of a check: one run, one rule per finding kind.
pub(crate) fn sarif(check: &Check) -> Value {
    let rules: Vec<Value> = Kind::ALL
        .iter()
        .map(|k| {
            json!({
                "id": k.id(),
                "name": k.id(),
                "shortDescription": { "text": k.id().replace('-', " ") },
                "defaultConfiguration": { "level": level(k.severity()) },
                "properties": { "safety": k.is_safety() }
            })
        })
        .collect();
    let results: Vec<Value> = check
        .findings
        .iter()
        .map(|f| {
            let mut result = json!({
                "ruleId": f.kind.id(),
                "ruleIndex": Kind::ALL.iter().position(|k| *k == f.kind).unwrap_or(0),
                "level": level(f.severity),
                "message": { "text": match &f.agentspine {
                    Some(ours) => format!("{} ({ours})", f.message),
                    None => f.message.clone(),
                } },
                "properties": { "host": host_of(f), "path": f.path, "dirs": f.dirs, "safety": f.safety }
            });
            if in_repo(&f.path) {
                let mut physical = json!({ "artifactLocation": { "uri": f.path, "uriBaseId": "SRCROOT" } });
                if let Some(line) = f.line {
                    physical["region"] = json!({ "startLine": line });
                }
                result["locations"] = json!([{ "physicalLocation": physical }]);
            }
            result
        })
        .collect();
    let mut root_uri = format!("file://{}", check.root.display());
    if !root_uri.ends_with('/') {
        root_uri.push('/');
    }
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "agentspine",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": env!("CARGO_PKG_REPOSITORY"),
                "rules": rules
            } },
            "originalUriBaseIds": { "SRCROOT": { "uri": root_uri } },
            "results": results
        }]
    })
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}
