//! `agentspine resolve`: the instruction chain a host would load, and what
//! agentspine did to find it.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use agentspine_core::{Request, Resolution, Scope, render_native};
use agentspine_fs::{Budget, Reader};
use anyhow::Context;
use clap::ValueEnum;

use crate::surface::args::{HostArg, OutputArgs, RootArgs};

/// Show the instruction chain a host would load for a directory.
///
/// agentspine applies the host's own rules (which file names, in which
/// order, from which root, under which byte cap), but reads only beneath the
/// project root and never through a link. `--explain` lists every candidate
/// it looked at and why it was or was not included, with the exact file
/// system work it cost.
///
/// Examples:
///
///   agentspine resolve --host claude --root examples/monorepo \
///       --cwd examples/monorepo/packages/api --explain
///
///   agentspine resolve --host codex --format native
///
///   agentspine resolve --host desktop --target src/server/main.rs --format json
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/hosts.md
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(flatten)]
    host: HostArg,
    #[command(flatten)]
    place: RootArgs,
    /// A file or directory whose complete chain (root down to its directory)
    /// replaces the working directory's. Must lie inside the project root.
    #[arg(long, value_name = "PATH")]
    target: Option<PathBuf>,
    /// Codex only: the `--profile NAME` whose `NAME.config.toml` applies.
    #[arg(long, value_name = "NAME")]
    codex_profile: Option<String>,
    /// `native`: exactly the text the host puts in its model request.
    /// `text`: the sources, for people. `json`: everything, stable (as --json).
    #[arg(long, value_enum, default_value_t = Format::Text, conflicts_with = "json")]
    format: Format,
    /// Also list every candidate probed, with its verdict, and the file
    /// system work (to stderr with `--format native`).
    #[arg(long)]
    explain: bool,
    #[command(flatten)]
    out: OutputArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Native,
    Text,
    Json,
}

impl Args {
    /// The directory whose files the command reads: `--root`, else `--cwd`.
    pub fn place(&self) -> Option<&std::path::Path> {
        self.place.place()
    }

    /// How the command prints.
    pub fn output(&self) -> &OutputArgs {
        &self.out
    }

    /// Whether output (and errors) should be JSON.
    pub fn wants_json(&self) -> bool {
        self.out.json || self.format == Format::Json
    }
}

/// How long one resolution may take before it stops starting new reads.
const DEADLINE: Duration = agentspine_core::REQUEST_DEADLINE;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let wants_json = args.wants_json();
    let current = std::env::current_dir().context("cannot read the current directory")?;
    let reader = Reader::new(Budget::with_timeout(DEADLINE));
    let codex_profile = args.codex_profile;
    let resolver = crate::state::resolver(reader).with_env(|env| env.codex_profile = codex_profile);
    let resolver = if args.explain { resolver.explaining() } else { resolver };
    let request = Request {
        target: args.target.map(|t| if t.is_absolute() { t } else { current.join(t) }),
        ..args.place.request(&resolver, &current, args.host.host)
    };
    let resolution = resolver.chain(&request)?;
    let native = render_native(&resolution);
    let format = if wants_json { Format::Json } else { args.format };
    let mut out = std::io::stdout().lock();
    match format {
        Format::Native => {
            out.write_all(native.as_bytes())?;
            if args.explain {
                eprint!("{}", explain(&resolution));
            }
        }
        Format::Json => {
            let value = json(&resolution, &native);
            writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
        }
        Format::Text => {
            out.write_all(summary(&resolution, &native).as_bytes())?;
            if args.explain {
                out.write_all(b"\n")?;
                out.write_all(explain(&resolution).as_bytes())?;
            }
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The stable JSON document.
fn json(resolution: &Resolution, native: &str) -> serde_json::Value {
    let mut value = serde_json::to_value(resolution).expect("a resolution always serializes");
    value["native"] = serde_json::Value::String(native.to_owned());
    value["native_bytes"] = serde_json::Value::from(native.len());
    value
}

fn scope_word(scope: Scope) -> &'static str {
    match scope {
        Scope::User => "user",
        Scope::Project => "project",
        Scope::Local => "local",
        Scope::Memory => "memory",
        Scope::Doc => "doc",
        Scope::Continuity => "continuity",
    }
}

/// The human summary: where, which sources, how many bytes.
fn summary(r: &Resolution, native: &str) -> String {
    let mut s = String::new();
    s.push_str(&format!("host          {}\n", r.host));
    s.push_str(&format!("project root  {}  ({})\n", r.project_root.display(), r.root_evidence));
    if r.root_kind.reason().is_some() {
        s.push_str(&format!("              {}\n", r.root_kind.explain()));
    }
    s.push_str(&format!("chain for     {}\n", r.chain_dir));
    if let Some(home) = &r.profile_home {
        s.push_str(&format!("profile       {}\n", home.display()));
    }
    s.push('\n');
    if r.parts.is_empty() {
        s.push_str("No instruction file applies: the host would send no instructions.\n");
    } else {
        let width = r.parts.iter().map(|p| p.label.len()).max().unwrap_or(0);
        s.push_str(&format!(
            "{}, {} bytes of text as the host sends it:\n",
            crate::surface::output::count(r.parts.len(), "source", "sources"),
            native.len()
        ));
        for p in &r.parts {
            let mut line = format!("  {:<8} {:<width$}  {:>7} B", scope_word(p.scope), p.label, p.bytes);
            if let Some(cut) = p.cut {
                line.push_str(&format!("  cut at {} of {} bytes", cut.kept, cut.total));
            }
            if let Some(by) = &p.imported_by {
                line.push_str(&format!("  imported by {by}"));
            }
            if let Some(link) = &p.link {
                line.push_str(&format!("  link to {}", link.target));
            }
            s.push_str(line.trim_end());
            s.push('\n');
        }
    }
    for w in &r.warnings {
        s.push_str(&format!("warning: {}\n", w.message));
    }
    s
}

/// Every probe with its verdict, then the reader's counters.
fn explain(r: &Resolution) -> String {
    let mut s = String::from("Candidates, in the order they were probed:\n");
    let width = r.probes.iter().map(|p| p.verdict.to_string().len()).max().unwrap_or(0);
    for p in &r.probes {
        s.push_str(&format!("  {:<width$}  {:<8} {}\n", p.verdict.to_string(), scope_word(p.scope), p.path));
        if let agentspine_core::Verdict::Skipped { reason } = &p.verdict {
            s.push_str(&format!("  {:<width$}           ↳ {reason}\n", ""));
        }
        if let Some(link) = &p.link {
            s.push_str(&format!(
                "  {:<width$}           ↳ a link to {}, read by its own path\n",
                "", link.target
            ));
        }
        if let Some(note) = &p.host_differs {
            s.push_str(&format!("  {:<width$}           ↳ {note}\n", ""));
        }
    }
    let notes = legend(r);
    if !notes.is_empty() {
        s.push_str("\nWhat the verdicts mean:\n");
        for note in notes {
            s.push_str(&format!("  {note}\n"));
        }
    }
    let c = &r.counters;
    let n = |n: u64, one: &str, many: &str| crate::surface::output::count(n as usize, one, many);
    s.push_str(&format!(
        "\nFile system work: {}, {}, {} ({}), {}, {}.\n",
        n(c.opens, "open", "opens"),
        n(c.stats, "stat", "stats"),
        n(c.reads, "read", "reads"),
        n(c.bytes_read, "byte", "bytes"),
        n(c.dir_enumerations, "directory listing", "directory listings"),
        n(c.refusals.total(), "refusal", "refusals"),
    ));
    for w in &r.warnings {
        s.push_str(&format!("warning [{}]: {}\n", w.code, w.message));
    }
    s
}

/// One line for each kind of verdict that appears, for people who have not
/// read the docs.
fn legend(r: &Resolution) -> Vec<&'static str> {
    use agentspine_core::Verdict as V;
    let mut notes: Vec<&'static str> = Vec::new();
    for probe in &r.probes {
        let note = match &probe.verdict {
            V::ShadowedBy { .. } => {
                "shadowed-by: an earlier candidate in the same directory won; the host reads one file there."
            }
            V::Empty => {
                "empty: the file is blank after the host's trimming, so the host sends nothing for it."
            }
            V::Symlink => "symlink: a link; the host would follow it, agentspine never does.",
            V::LinkRefused { refusal: agentspine_fs::LinkRefusal::Outside, .. } => {
                "link-refused (outside): a link out of the project; the host would follow it, agentspine never reads outside the root."
            }
            V::LinkRefused { refusal: agentspine_fs::LinkRefusal::IntoGit, .. } => {
                "link-refused (into .git): a link into the repository's .git directory; the host would follow it, agentspine never reads there."
            }
            V::LinkRefused { .. } => {
                "link-refused (dangling, loop): a link to nothing, or a chain of links that never ends; the host reads nothing there either."
            }
            V::OutsideRoot => {
                "outside-root: above the project root; the host would read it, agentspine does not."
            }
            V::ImportExternalNotApproved => {
                "import external not approved: the import leaves the working directory; Claude Code drops it unless the project approved external imports."
            }
            V::ImportOutsideRoot => {
                "import outside-root: an import outside the project root and the host's profile; agentspine never reads it."
            }
            V::ImportDepth => "import depth: more than four import hops; Claude Code stops there.",
            V::PathsNotMatched => {
                "paths-not-matched: a rule with `paths:` that applies only to matching files (try --target)."
            }
            V::Truncated { .. } | V::BudgetSpent => {
                "truncated / budget-spent: the host's byte cap was reached; later files are left out."
            }
            V::Disabled { .. } => "disabled: the host's own configuration turns these files off.",
            V::Skipped { .. } => {
                "skipped: the file is there, but the host's rules pass it over in this layout."
            }
            V::PermissionDenied => {
                "permission-denied: the file or directory cannot be read; the rest still resolves."
            }
            V::HardLink => {
                "hard-link: the file has another name (a hard link) that may be outside the project; agentspine never reads it."
            }
            V::MountCrossing => {
                "mount-crossing: behind a mount point inside the project (a bind mount too); agentspine never crosses one."
            }
            _ => continue,
        };
        if !notes.contains(&note) {
            notes.push(note);
        }
    }
    notes
}
