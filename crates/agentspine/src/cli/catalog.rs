//! `agentspine briefing`, `agentspine query` and `agentspine read`: the
//! catalog of one request, as a byte-budgeted briefing, as ranked passages,
//! or one source read again.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use agentspine_core::catalog::{self, Catalog};
use agentspine_fs::Reader;
use anyhow::Context;

use crate::state::State;
use crate::surface::args::{HostArg, OutputArgs, RootArgs, ScopeArg};
use crate::surface::errors::Coded;
use crate::surface::output;

/// What every catalog command takes.
#[derive(Debug, clap::Args)]
pub struct CatalogArgs {
    #[command(flatten)]
    host: HostArg,
    #[command(flatten)]
    place: RootArgs,
    /// A file whose chain replaces the working directory's.
    #[arg(long, value_name = "PATH")]
    target: Option<PathBuf>,
    #[command(flatten)]
    scope: ScopeArg,
    /// Add project-wide Markdown (bounded: 240 files, 8,192 entries, 2 s).
    #[arg(long)]
    markdown: bool,
    /// Fail (exit 3, no receipt) unless every required source resolved
    /// completely; print a receipt when it did.
    #[arg(long)]
    required: bool,
    #[command(flatten)]
    out: OutputArgs,
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
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/briefing.md
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
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/briefing.md
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct QueryArgs {
    /// The question.
    text: String,
    #[command(flatten)]
    common: CatalogArgs,
    /// Passages to return, at most.
    #[arg(long, value_name = "N", default_value_t = 5, alias = "k", short_alias = 'k')]
    limit: usize,
}

/// Read one source of the request's catalog again, by its id.
///
/// Ids come from `briefing`, `query` and the MCP tools. The id is looked
/// for in this request's catalog, then in the same project's catalog for
/// every other host, then with project-wide Markdown; a note on stderr
/// names the flags of the catalog that held it. An id in none of them is
/// refused, naming what was tried. A memory fact that a prompt made
/// relevant needs the same --prompt (and --scope) here. The file is read
/// again as one whole version.
///
/// Example:
///
///   agentspine read src_0123456789abcdef01234567 --root examples/monorepo
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/briefing.md
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct ReadArgs {
    /// The source id (`src_…`).
    source_id: String,
    #[command(flatten)]
    common: CatalogArgs,
    /// The prompt of the briefing or query that printed the id, when its
    /// words made a memory fact relevant.
    #[arg(long, value_name = "TEXT")]
    prompt: Option<String>,
}

impl BriefingArgs {
    /// How the command prints.
    pub fn output(&self) -> &OutputArgs {
        self.common.output()
    }

    /// The directory whose files the command reads: `--root`, else `--cwd`.
    pub fn place(&self) -> Option<&std::path::Path> {
        self.common.place()
    }
}
impl QueryArgs {
    /// How the command prints.
    pub fn output(&self) -> &OutputArgs {
        self.common.output()
    }

    /// The directory whose files the command reads: `--root`, else `--cwd`.
    pub fn place(&self) -> Option<&std::path::Path> {
        self.common.place()
    }
}
impl ReadArgs {
    /// How the command prints.
    pub fn output(&self) -> &OutputArgs {
        self.common.output()
    }

    /// The directory whose files the command reads: `--root`, else `--cwd`.
    pub fn place(&self) -> Option<&std::path::Path> {
        self.common.place()
    }
}

impl CatalogArgs {
    fn place(&self) -> Option<&std::path::Path> {
        self.place.place()
    }

    /// How the command prints.
    pub fn output(&self) -> &OutputArgs {
        &self.out
    }
}

/// The catalog for these arguments, with its reader and state.
fn build(common: &CatalogArgs, prompt: Option<&str>) -> anyhow::Result<(Catalog, Reader, State)> {
    let (catalog, _, reader, state) = build_holding(common, prompt, None)?;
    Ok((catalog, reader, state))
}

/// The same; with `holding`, the catalog of the first variant of the
/// request that holds that id (`Resolver::catalog_holding`), and that
/// variant, or the error naming every variant tried.
fn build_holding(
    common: &CatalogArgs,
    prompt: Option<&str>,
    holding: Option<&str>,
) -> anyhow::Result<(Catalog, Option<catalog::Variant>, Reader, State)> {
    let host = common.host.host;
    let current = std::env::current_dir().context("cannot read the current directory")?;
    let absolute = |p: &PathBuf| if p.is_absolute() { p.clone() } else { current.join(p) };
    let state = State::open();
    for warning in &state.warnings {
        output::warn(warning);
    }
    let reader = crate::state::reader();
    let resolver = state.resolver(reader.clone());
    let asked = common.place.request(&resolver, &current, host);
    let root = match &asked.root {
        Some(root) => root.clone(),
        None => resolver.project_root(&asked)?.0,
    };
    let request = state.catalog_request(crate::state::CatalogAsk {
        host,
        root,
        cwd: Some(asked.cwd),
        target: common.target.as_ref().map(absolute),
        scope: common.scope.scope.as_deref().map(|s| ("--scope", s)),
        prompt: prompt.map(str::to_owned),
        markdown: common.markdown,
    })?;
    let (catalog, variant) = match holding {
        None => (resolver.catalog(&request)?, None),
        Some(id) => match resolver
            .catalog_holding(&request, id, &|host| state.continuity_in(host, &request.project_root))?
        {
            catalog::Lookup::Found { catalog, variant } => (*catalog, Some(variant)),
            catalog::Lookup::Missing { tried } => {
                let tried: Vec<String> = tried.iter().map(catalog::Variant::flags).collect();
                return Err(Coded::new(
                    "unknown-source-id",
                    format!(
                        "{id}: not a source of any catalog of {} (tried {}); an id printed with --prompt, \
                         --scope or --target is found with the same flags here, and ids come from \
                         `agentspine briefing`, `agentspine query` or the MCP tools",
                        request.project_root.display(),
                        tried.join(", ")
                    ),
                )
                .into());
            }
        },
    };
    drop(resolver);
    state.audit_gaps("catalog", &catalog.resolution);
    Ok((catalog, variant, reader, state))
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
    match state.preflight(catalog, "") {
        Ok(receipt) => Ok(Some(receipt)),
        Err(e) => Err(crate::surface::errors::Preflight(e).into()),
    }
}

pub fn briefing(args: BriefingArgs) -> anyhow::Result<ExitCode> {
    let (catalog, _reader, state) = build(&args.common, args.prompt.as_deref())?;
    let receipt = preflight(&args.common, &catalog, &state)?;
    let briefing = catalog::briefing(&catalog, args.budget);
    let mut out = std::io::stdout().lock();
    if args.common.out.json {
        let mut value = serde_json::to_value(&briefing)?;
        value["sources"] = serde_json::to_value(&catalog.sources)?;
        value["receipt"] = serde_json::to_value(&receipt)?;
        writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
    } else {
        out.write_all(briefing.text.as_bytes())?;
        let r = &briefing.source_resolution;
        output::note(&format!(
            "{}, {} of {} bytes{}{}",
            output::count(briefing.parts.len(), "source", "sources"),
            briefing.text.len(),
            briefing.budget_bytes,
            r.reason.as_ref().map(|x| format!("; {x}")).unwrap_or_default(),
            receipt.map(|x| format!("; receipt {}", x.id)).unwrap_or_default()
        ));
        for w in &r.warnings {
            output::warn(&w.message);
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn query(args: QueryArgs) -> anyhow::Result<ExitCode> {
    let (catalog, _reader, state) = build(&args.common, Some(&args.text))?;
    let receipt = preflight(&args.common, &catalog, &state)?;
    let answer = catalog::query(&catalog, &args.text, args.limit, catalog::briefing::DEFAULT_BUDGET);
    let mut out = std::io::stdout().lock();
    if args.common.out.json {
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
    let (catalog, variant, reader, _state) =
        build_holding(&args.common, args.prompt.as_deref(), Some(&args.source_id))?;
    let asked = catalog::Variant { host: args.common.host.host, markdown: args.common.markdown };
    if let Some(variant) = variant.filter(|v| *v != asked) {
        output::note(&format!(
            "note: {} is a source of this project's catalog with {}; pass those flags to read it directly",
            args.source_id,
            variant.flags()
        ));
    }
    let document = catalog::read_document(&catalog, &reader, &args.source_id)?;
    let mut out = std::io::stdout().lock();
    if args.common.out.json {
        writeln!(out, "{}", serde_json::to_string_pretty(&document)?)?;
    } else {
        out.write_all(document.text.as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}
