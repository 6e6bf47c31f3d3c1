//! `agentspine briefing`, `agentspine query` and `agentspine read`: the
//! catalog of one request, as a byte-budgeted briefing, as ranked passages,
//! or one source read again.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use agentspine_core::Host;
use agentspine_core::catalog::{self, Catalog, CatalogRequest};
use agentspine_fs::{Budget, Reader};
use anyhow::Context;

use crate::state::State;

/// What every catalog command takes.
#[derive(Debug, clap::Args)]
pub struct CatalogArgs {
    /// Whose rules apply (`generic`: project files only, no profile or memory).
    #[arg(long, value_enum, default_value_t = Host::Generic)]
    host: Host,
    /// Project root [default: found from the working directory by the host's rule].
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Working directory [default: the root when --root is given, else the
    /// current directory].
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// A file whose chain replaces the working directory's.
    #[arg(long, value_name = "PATH")]
    target: Option<PathBuf>,
    /// Scope ids for memory, e.g. `project:blun,person:owner`
    /// [default: $AGENTSPINE_SCOPE, else `agentspine scope`].
    #[arg(long, value_name = "KIND:ID,...")]
    scope: Option<String>,
    /// Add project-wide Markdown (bounded: 240 files, 8,192 entries, 2 s).
    #[arg(long)]
    markdown: bool,
    /// Fail (exit 3, no receipt) unless every required source resolved
    /// completely; print a receipt when it did.
    #[arg(long)]
    required: bool,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// Build a byte-budgeted briefing of every source a request resolves.
///
/// Required instructions come first (the user's files, then the project
/// chain), then the memory index and relevant facts (Claude), then optional
/// Markdown in what budget is left. Each part is labelled with its source
/// id, scope and path; `sourceResolution` (with `--json`) says what was
/// checked and found.
///
/// Examples:
///
///   agentspine briefing --host claude --root examples/monorepo --cwd examples/monorepo/packages/api
///
///   agentspine briefing --markdown --budget 16384 --json
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct BriefingArgs {
    #[command(flatten)]
    common: CatalogArgs,
    /// A prompt whose words may make memory facts relevant.
    #[arg(long, value_name = "TEXT")]
    prompt: Option<String>,
    /// Byte budget of the briefing.
    #[arg(long, value_name = "BYTES", default_value_t = catalog::briefing::DEFAULT_BUDGET)]
    budget: usize,
}

/// Rank passages of the request's sources for a question.
///
/// Uses BM25 over the same catalog a briefing would use, and returns the
/// best passages with their source id and line range, plus that briefing.
///
/// Example:
///
///   agentspine query "how are handlers tested" --root examples/monorepo --markdown
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct QueryArgs {
    /// The question.
    text: String,
    #[command(flatten)]
    common: CatalogArgs,
    /// Passages to return.
    #[arg(short, long, default_value_t = 5)]
    k: usize,
}

/// Read one source of the request's catalog again, by its id.
///
/// Ids come from `briefing` or `query`; an id that is not in this project's
/// catalog is refused. The file is read again as one whole version.
///
/// Example:
///
///   agentspine read src_0123456789abcdef01234567 --root examples/monorepo
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct ReadArgs {
    /// The source id (`src_…`).
    source_id: String,
    #[command(flatten)]
    common: CatalogArgs,
}

impl BriefingArgs {
    pub fn wants_json(&self) -> bool {
        self.common.json
    }

    /// The directory whose files the command reads: `--root`, else `--cwd`.
    pub fn place(&self) -> Option<&std::path::Path> {
        self.common.place()
    }
}
impl QueryArgs {
    pub fn wants_json(&self) -> bool {
        self.common.json
    }

    /// The directory whose files the command reads: `--root`, else `--cwd`.
    pub fn place(&self) -> Option<&std::path::Path> {
        self.common.place()
    }
}
impl ReadArgs {
    pub fn wants_json(&self) -> bool {
        self.common.json
    }

    /// The directory whose files the command reads: `--root`, else `--cwd`.
    pub fn place(&self) -> Option<&std::path::Path> {
        self.common.place()
    }
}

impl CatalogArgs {
    fn place(&self) -> Option<&std::path::Path> {
        self.root.as_deref().or(self.cwd.as_deref())
    }
}

/// The catalog for these arguments, with its reader and state.
fn build(common: &CatalogArgs, prompt: Option<&str>) -> anyhow::Result<(Catalog, Reader, State)> {
    let host = common.host;
    let current = std::env::current_dir().context("cannot read the current directory")?;
    let absolute = |p: &PathBuf| if p.is_absolute() { p.clone() } else { current.join(p) };
    let state = State::open();
    for warning in &state.warnings {
        eprintln!("warning: {warning}");
    }
    let reader = Reader::new(Budget::with_timeout(Duration::from_secs(2)));
    let resolver = state.resolver(reader.clone());
    let cwd = resolver.working_dir(&current, common.root.as_deref(), common.cwd.as_deref());
    let root = match &common.root {
        Some(root) => absolute(root),
        None => resolver.project_root(&agentspine_core::Request::new(host, cwd.clone()))?.0,
    };
    let scope = super::memory::current_scope(common.scope.as_deref(), &state, &cwd)?;
    let request = CatalogRequest {
        cwd: Some(cwd),
        target: common.target.as_ref().map(absolute),
        scope,
        prompt: prompt.map(str::to_owned),
        markdown: common.markdown,
        continuity: state.continuity(host),
        ..CatalogRequest::new(host, root)
    };
    let catalog = resolver.catalog(&request)?;
    drop(resolver);
    state.audit_gaps("catalog", &catalog.resolution);
    Ok((catalog, reader, state))
}

/// With `--required`: a receipt, or exit 3 naming every cause (and an
/// audit row).
fn preflight(
    common: &CatalogArgs,
    catalog: &Catalog,
    state: &State,
) -> anyhow::Result<Option<catalog::Receipt>> {
    if !common.required {
        return Ok(None);
    }
    match catalog::preflight(catalog) {
        Ok(receipt) => Ok(Some(receipt)),
        Err(e) => {
            state.audit(agentspine_store::AuditEvent {
                host: common.host.to_string(),
                event: "preflight-failed".into(),
                phase: "discovery".into(),
                code: e.causes.first().map(|g| g.cause.clone()).unwrap_or_default(),
                path: e.causes.first().map(|g| g.what.clone()),
                detail: Some(e.to_string()),
            });
            Err(Preflight(e).into())
        }
    }
}

/// A failed required preflight (exit code 3).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct Preflight(pub catalog::PreflightError);

pub fn briefing(args: BriefingArgs) -> anyhow::Result<ExitCode> {
    let (catalog, _reader, state) = build(&args.common, args.prompt.as_deref())?;
    let receipt = preflight(&args.common, &catalog, &state)?;
    let briefing = catalog::briefing(&catalog, args.budget);
    let mut out = std::io::stdout().lock();
    if args.common.json {
        let mut value = serde_json::to_value(&briefing)?;
        value["sources"] = serde_json::to_value(&catalog.sources)?;
        value["receipt"] = serde_json::to_value(&receipt)?;
        writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
    } else {
        out.write_all(briefing.text.as_bytes())?;
        let r = &briefing.source_resolution;
        eprintln!(
            "{} sources, {} of {} bytes{}{}",
            briefing.parts.len(),
            briefing.text.len(),
            briefing.budget_bytes,
            r.reason.as_ref().map(|x| format!("; {x}")).unwrap_or_default(),
            receipt.map(|x| format!("; receipt {}", x.id)).unwrap_or_default()
        );
        for w in &r.warnings {
            eprintln!("warning: {}", w.message);
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn query(args: QueryArgs) -> anyhow::Result<ExitCode> {
    let (catalog, _reader, state) = build(&args.common, Some(&args.text))?;
    let receipt = preflight(&args.common, &catalog, &state)?;
    let answer = catalog::query(&catalog, &args.text, args.k, catalog::briefing::DEFAULT_BUDGET);
    let mut out = std::io::stdout().lock();
    if args.common.json {
        let mut value = serde_json::to_value(&answer)?;
        value["receipt"] = serde_json::to_value(&receipt)?;
        writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
    } else if answer.hits.is_empty() {
        writeln!(out, "No passage shares a word with {:?}.", args.text)?;
    } else {
        for hit in &answer.hits {
            writeln!(
                out,
                "{}:{}-{}  {}  (score {})",
                hit.rel_path, hit.line_start, hit.line_end, hit.source_id, hit.score
            )?;
            for line in hit.excerpt.lines() {
                writeln!(out, "    {line}")?;
            }
            writeln!(out)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn read(args: ReadArgs) -> anyhow::Result<ExitCode> {
    let (catalog, reader, _state) = build(&args.common, None)?;
    let document = catalog::read_document(&catalog, &reader, &args.source_id)?;
    let mut out = std::io::stdout().lock();
    if args.common.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&document)?)?;
    } else {
        out.write_all(document.text.as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}
