//! What a resolution found: the chain's parts, every probe with its
//! verdict, and warnings. Renderers turn it into a host's native text.

use std::fmt;
use std::path::PathBuf;

use agentspine_fs::{Code, Counters, FileKind, LinkRefusal};
use serde::Serialize;

use crate::host::Host;

/// Where a source comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scope {
    /// The user's profile (all projects).
    User,
    /// Checked into the project.
    Project,
    /// The user's private file in the project (`CLAUDE.local.md`).
    Local,
    /// The host's memory for this project.
    Memory,
    /// Optional project-wide Markdown.
    Doc,
    /// Portable user continuity read through a binding.
    Continuity,
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scope::User => "user",
            Scope::Project => "project",
            Scope::Local => "local",
            Scope::Memory => "memory",
            Scope::Doc => "doc",
            Scope::Continuity => "continuity",
        })
    }
}

/// A file that was cut to fit a byte cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Cut {
    /// Bytes kept.
    pub kept: u64,
    /// Bytes in the file.
    pub total: u64,
}

/// One file in the chain, with the text the host would send for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Part {
    /// Scope of the file.
    pub scope: Scope,
    /// Absolute path, as hosts label files.
    pub path: PathBuf,
    /// Path relative to its root (`AGENTS.md`, `pkg/CLAUDE.md`), or
    /// `~/…`-style for profile files.
    pub label: String,
    /// The text as the host sends it (after trimming, stripping, cutting).
    pub text: String,
    /// Size of the file on disk.
    pub bytes: u64,
    /// SHA-256 of the file's bytes, hex.
    pub sha256: String,
    /// Set when a byte cap cut the file.
    pub cut: Option<Cut>,
    /// Label of the file whose `@` import brought this one in.
    pub imported_by: Option<String>,
    /// Set when the candidate is a link inside its root: the file read in
    /// its place (the text, bytes and digest above are that file's; the
    /// path and label are the link's, as hosts show them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<Link>,
    /// `@path` tokens inside inline code or a code block of this file that
    /// look like imports, with their lines (1-based): the host expands
    /// none of them. Kept out of JSON; `check` reports them.
    #[serde(skip)]
    pub code_imports: Vec<(String, u64)>,
}

/// Where a candidate that is a link inside its root leads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Link {
    /// The file the link names, relative to the root it lies beneath (the
    /// project root, or the profile directory for a user file).
    pub target: String,
    /// Its absolute path.
    pub path: PathBuf,
    /// Links taken to reach it (2 for `CLAUDE.md -> AGENTS.md ->
    /// .agents/AGENTS.md`).
    pub hops: u32,
}

/// A file a host names in a table for the model to open (GitHub Copilot
/// CLI's path-scoped instruction files).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TableRow {
    /// The patterns it applies to, as written.
    pub patterns: Vec<String>,
    /// The path the table names it by.
    pub shown: String,
    /// Its `description`, or empty.
    pub description: String,
}

/// The outcome for one candidate that was probed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    /// Part of the chain.
    Included,
    /// Nothing there.
    Missing,
    /// There, but blank after the host's trimming.
    Empty,
    /// An earlier candidate in the same directory won.
    ShadowedBy {
        /// The winner's name.
        winner: String,
    },
    /// A link where agentspine never takes one (the host itself would).
    Symlink,
    /// A link whose target agentspine does not read: out of the root,
    /// dangling, looping, or into `.git`.
    LinkRefused {
        /// The link's text, as written.
        target: String,
        /// Why.
        refusal: LinkRefusal,
    },
    /// Above the project root: the host would read it; agentspine does not.
    OutsideRoot,
    /// Not a regular file.
    NotRegular {
        /// What it is.
        kind: FileKind,
    },
    /// Over the per-file cap.
    TooLarge {
        /// Size on disk.
        size: u64,
        /// The cap.
        cap: u64,
    },
    /// Cut by the host's byte budget.
    Truncated {
        /// Bytes kept.
        kept: u64,
        /// Bytes in the file.
        total: u64,
    },
    /// Left out because the host's byte budget was already spent.
    BudgetSpent,
    /// An `@` import beyond the host's depth limit.
    ImportDepth,
    /// More `@` imports than agentspine follows in one resolution.
    ImportLimit,
    /// An `@` import outside the boundary that the user has not approved.
    ImportExternalNotApproved,
    /// An `@` import outside the project root: never read, approved or not.
    ImportOutsideRoot,
    /// A file already included once.
    Duplicate,
    /// A `.claude/rules` file whose `paths:` do not match the target.
    PathsNotMatched,
    /// A `.claude/rules` file that is a link to a file outside the
    /// directory the session starts in: Claude Code drops it.
    RuleLinkOutsideCwd {
        /// The file it links to.
        target: String,
    },
    /// There, but the host's rules pass it over in this layout (Claude
    /// Code's AGENTS.md beside a CLAUDE.md); looked at only to explain.
    Skipped {
        /// Why, in the host's terms.
        reason: String,
    },
    /// The host's configuration turns this source off.
    Disabled {
        /// Why.
        reason: String,
    },
    /// A path-scoped file the host names in a table for the model to open
    /// (GitHub Copilot CLI's instruction files): read for its scope, its
    /// text not sent.
    Listed {
        /// Its row of the table.
        #[serde(flatten)]
        row: Box<TableRow>,
    },
    /// `EACCES`/`EPERM`.
    PermissionDenied,
    /// A regular file with more than one name (a hard link): the other name
    /// may be outside the project, so agentspine never reads it.
    HardLink,
    /// Behind a mount point below the project root (a bind mount
    /// included): agentspine never crosses one.
    MountCrossing,
    /// Refused by the confined reader for another reason, or stopped at
    /// a bound.
    Refused {
        /// Why.
        code: Cause,
    },
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Verdict::Included => f.write_str("included"),
            Verdict::Missing => f.write_str("missing"),
            Verdict::Empty => f.write_str("empty"),
            Verdict::ShadowedBy { winner } => write!(f, "shadowed-by {winner}"),
            Verdict::Symlink => f.write_str("symlink"),
            Verdict::LinkRefused { target, refusal } => {
                write!(f, "link-refused ({}: {target})", refusal.as_str())
            }
            Verdict::OutsideRoot => f.write_str("outside-root"),
            Verdict::NotRegular { kind } => write!(f, "not-regular ({kind})"),
            Verdict::TooLarge { size, cap } => write!(f, "too-large ({size} bytes, cap {cap})"),
            Verdict::Truncated { kept, total } => write!(f, "truncated at {kept} of {total} bytes"),
            Verdict::BudgetSpent => f.write_str("budget-spent"),
            Verdict::ImportDepth => f.write_str("import depth"),
            Verdict::ImportLimit => f.write_str("import limit"),
            Verdict::ImportExternalNotApproved => f.write_str("import external not approved"),
            Verdict::ImportOutsideRoot => f.write_str("import outside-root"),
            Verdict::Duplicate => f.write_str("duplicate"),
            Verdict::PathsNotMatched => f.write_str("paths-not-matched"),
            Verdict::RuleLinkOutsideCwd { target } => write!(f, "rule-link-outside-cwd ({target})"),
            Verdict::Skipped { .. } => f.write_str("skipped"),
            Verdict::Disabled { reason } => write!(f, "disabled ({reason})"),
            Verdict::Listed { row } => write!(f, "listed ({})", row.patterns.join(", ")),
            Verdict::PermissionDenied => f.write_str("permission-denied"),
            Verdict::HardLink => f.write_str("hard-link"),
            Verdict::MountCrossing => f.write_str("mount-crossing"),
            Verdict::Refused { code } => write!(f, "refused ({code})"),
        }
    }
}

/// One candidate probed, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Probe {
    /// The candidate's label (relative to its root, or `~/…`).
    pub path: String,
    /// Scope it would have had.
    pub scope: Scope,
    /// What happened (flattened: `"verdict": "missing"` plus its fields).
    #[serde(flatten)]
    pub verdict: Verdict,
    /// What the host itself would do differently, when it would.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_differs: Option<String>,
    /// Set when the candidate is a link inside its root: the file looked
    /// at in its place, to which the verdict applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link: Option<Link>,
    /// Label of the file whose `@` import named this candidate (kept out
    /// of JSON: `check` reads it to name the importing file).
    #[serde(skip)]
    pub imported_by: Option<String>,
    /// The line of that `@` import in the importing file (1-based; kept
    /// out of JSON like `imported_by`).
    #[serde(skip)]
    pub imported_at: Option<u64>,
}

/// Something the user should know that did not stop the resolution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// Stable code (`config-malformed`, `settings-malformed`, …).
    pub code: String,
    /// The file concerned, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// A sentence for people.
    pub message: String,
}

/// Everything one resolution found.
#[derive(Debug, Clone, Serialize)]
pub struct Resolution {
    /// The host whose rules were applied.
    pub host: Host,
    /// The host's profile directory, if it has one and it exists.
    pub profile_home: Option<PathBuf>,
    /// The project root the resolution was bound to.
    pub project_root: PathBuf,
    /// How the root was found.
    pub root_evidence: String,
    /// What the root is under the never-a-project rule (`project`,
    /// `home`, `above-home`, `profile`): anything but a project has no
    /// project sources.
    pub root_kind: RootKind,
    /// The working directory.
    pub cwd: PathBuf,
    /// The directory whose chain was resolved, relative to the root (`.`
    /// for the root itself).
    pub chain_dir: String,
    /// The chain, in the order the host sends it.
    pub parts: Vec<Part>,
    /// Every candidate probed, in order.
    pub probes: Vec<Probe>,
    /// Warnings.
    pub warnings: Vec<Warning>,
    /// What the confined reader did.
    pub counters: Counters,
}

/// What a directory is under the never-a-project rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RootKind {
    /// An ordinary project root.
    Project,
    /// The user's home directory.
    Home,
    /// A directory above the home directory (`/` included).
    AboveHome,
    /// Exactly a host's profile directory.
    Profile,
}

impl RootKind {
    /// Whether a project may be resolved at this root.
    pub fn is_project(self) -> bool {
        self == RootKind::Project
    }

    /// The stable reason reported when this root is not a project
    /// (`root-is-home`, `root-above-home`, `root-is-profile`).
    pub fn reason(self) -> Option<&'static str> {
        match self {
            RootKind::Project => None,
            RootKind::Home => Some("root-is-home"),
            RootKind::AboveHome => Some("root-above-home"),
            RootKind::Profile => Some("root-is-profile"),
        }
    }

    /// What it is, for people.
    pub fn what(self) -> &'static str {
        match self {
            RootKind::Project => "a project root",
            RootKind::Home => "the home directory",
            RootKind::AboveHome => "a directory above the home directory",
            RootKind::Profile => "a host's profile directory",
        }
    }

    /// A sentence for people.
    pub fn explain(self) -> &'static str {
        match self {
            RootKind::Project => "a project root",
            RootKind::Home => "the home directory is never a project; only user-wide files load",
            RootKind::AboveHome => {
                "a directory above the home directory is never a project; only user-wide files load"
            }
            RootKind::Profile => "a host's profile directory is never a project; only user-wide files load",
        }
    }
}

/// Why something a request needed was not read whole: the causes a
/// required preflight fails on, an audit row names and a verdict carries
/// past its own variants. One word each on every surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cause {
    /// A refusal of the confined reader.
    Reader(Code),
    /// A file cut at its cap (the model would not see all of it).
    Truncated,
    /// A bounded listing stopped at its bound.
    BoundedTruncated,
    /// The memory directory failed closed.
    Memory(crate::memory::MemoryStatus),
}

impl Cause {
    /// The stable word (`permission-denied`, `bounded-truncated`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Cause::Reader(code) => code.as_str(),
            Cause::Truncated => "truncated",
            Cause::BoundedTruncated => "bounded-truncated",
            Cause::Memory(status) => status.as_str(),
        }
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Cause {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}
