//! One finding of `check`, its kind and how much it matters: the words
//! every check, the host folders' own checks and the silences share.

use std::fmt;

use serde::Serialize;

use crate::host::Host;

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// Something else worth knowing.
    Note,
    /// A file a host never reads.
    Warning,
    /// Content a host loses, or reads from outside the repository.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// The kind of a finding: its stable id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A host's byte budget cuts the file.
    BudgetCut,
    /// A host's byte budget is spent before the file.
    BudgetDropped,
    /// Claude Code cuts `MEMORY.md` (200 lines, 25,000 characters).
    MemoryCut,
    /// Over the per-file cap: the host skips it.
    TooLarge,
    /// A host never reads the file in this layout.
    NeverRead,
    /// An empty or blank winner hides the file.
    ShadowedByEmpty,
    /// An `@` import outside the start directory, dropped.
    ImportOutsideCwd,
    /// Files Claude Code leaves out that the repository means for it (a
    /// CLAUDE.md links to or imports AGENTS.md): agentspine's hooks
    /// deliver them.
    DeliveredByAgentspine,
    /// An `@` import beyond the host's depth limit, dropped.
    ImportDepth,
    /// An `@` import whose target is missing.
    ImportMissing,
    /// An `@` import of a file already included (a cycle or a repeat).
    ImportRepeated,
    /// More `@` imports than agentspine follows.
    ImportLimit,
    /// An `@path` inside inline code or a code block: not expanded.
    ImportInCode,
    /// An approved `@` import outside the project: the host reads it.
    ImportOutsideRoot,
    /// A `.claude/rules` file whose `paths:` match no file under the root.
    RulesPathsUnmatched,
    /// A `.claude/rules` file whose frontmatter does not parse.
    RulesFrontmatterMalformed,
    /// A link out of the repository (or into `.git`): the host follows
    /// it, agentspine does not.
    Symlink,
    /// A link to another file of the repository: every host that reads the
    /// name reads that file, and so does agentspine.
    LinkInside,
    /// A link to nothing, or a chain of links that never ends: the host
    /// reads nothing there.
    LinkBroken,
    /// A file with more than one name.
    HardLink,
    /// Not a regular file (a FIFO, a device, a directory).
    SpecialFile,
    /// Behind a mount point below the root.
    MountCrossing,
    /// The file cannot be read (permission, a race, another refusal).
    Unreadable,
    /// A host reads a file above the project root.
    AboveRoot,
    /// A `MEMORY.md` link no marker, label or file name can ever select.
    MemoryLinkUnselectable,
    /// A `MEMORY.md` link to a file that is not there.
    MemoryLinkMissing,
    /// A `MEMORY.md` link agentspine never opens (absolute, `..`, a scheme).
    MemoryLinkUnsafe,
    /// The discovery stopped at one of its bounds.
    BoundedTruncated,
}

impl Kind {
    /// The id as written in JSON, SARIF and the silencing table.
    pub fn id(self) -> &'static str {
        match self {
            Kind::BudgetCut => "budget-cut",
            Kind::BudgetDropped => "budget-dropped",
            Kind::MemoryCut => "memory-cut",
            Kind::TooLarge => "too-large",
            Kind::NeverRead => "never-read",
            Kind::ShadowedByEmpty => "shadowed-by-empty",
            Kind::ImportOutsideCwd => "import-outside-cwd",
            Kind::DeliveredByAgentspine => "delivered-by-agentspine",
            Kind::ImportDepth => "import-depth",
            Kind::ImportMissing => "import-missing",
            Kind::ImportRepeated => "import-repeated",
            Kind::ImportLimit => "import-limit",
            Kind::ImportInCode => "import-in-code",
            Kind::ImportOutsideRoot => "import-outside-root",
            Kind::RulesPathsUnmatched => "rules-paths-unmatched",
            Kind::RulesFrontmatterMalformed => "rules-frontmatter-malformed",
            Kind::Symlink => "symlink",
            Kind::LinkInside => "link-inside",
            Kind::LinkBroken => "link-broken",
            Kind::HardLink => "hard-link",
            Kind::SpecialFile => "special-file",
            Kind::MountCrossing => "mount-crossing",
            Kind::Unreadable => "unreadable",
            Kind::AboveRoot => "above-root",
            Kind::MemoryLinkUnselectable => "memory-link-unselectable",
            Kind::MemoryLinkMissing => "memory-link-missing",
            Kind::MemoryLinkUnsafe => "memory-link-unsafe",
            Kind::BoundedTruncated => "bounded-truncated",
        }
    }

    /// Every kind, in the order they are documented.
    pub const ALL: [Kind; 28] = [
        Kind::BudgetCut,
        Kind::BudgetDropped,
        Kind::MemoryCut,
        Kind::TooLarge,
        Kind::NeverRead,
        Kind::ShadowedByEmpty,
        Kind::ImportOutsideCwd,
        Kind::DeliveredByAgentspine,
        Kind::ImportDepth,
        Kind::ImportMissing,
        Kind::ImportRepeated,
        Kind::ImportLimit,
        Kind::ImportInCode,
        Kind::ImportOutsideRoot,
        Kind::RulesPathsUnmatched,
        Kind::RulesFrontmatterMalformed,
        Kind::Symlink,
        Kind::LinkInside,
        Kind::LinkBroken,
        Kind::HardLink,
        Kind::SpecialFile,
        Kind::MountCrossing,
        Kind::Unreadable,
        Kind::AboveRoot,
        Kind::MemoryLinkUnselectable,
        Kind::MemoryLinkMissing,
        Kind::MemoryLinkUnsafe,
        Kind::BoundedTruncated,
    ];

    /// Error for content lost or read from outside, warning for a file a
    /// host never reads, note otherwise.
    pub fn severity(self) -> Severity {
        match self {
            Kind::BudgetCut
            | Kind::BudgetDropped
            | Kind::MemoryCut
            | Kind::TooLarge
            | Kind::ImportOutsideCwd
            | Kind::ImportDepth
            | Kind::ImportOutsideRoot
            | Kind::Symlink
            | Kind::HardLink => Severity::Error,
            Kind::NeverRead
            | Kind::ShadowedByEmpty
            | Kind::ImportMissing
            | Kind::RulesPathsUnmatched
            | Kind::RulesFrontmatterMalformed
            | Kind::LinkBroken
            | Kind::SpecialFile
            | Kind::MountCrossing
            | Kind::Unreadable
            | Kind::MemoryLinkMissing
            | Kind::MemoryLinkUnsafe => Severity::Warning,
            Kind::ImportRepeated
            | Kind::ImportLimit
            | Kind::ImportInCode
            | Kind::AboveRoot
            | Kind::LinkInside
            | Kind::DeliveredByAgentspine
            | Kind::MemoryLinkUnselectable
            | Kind::BoundedTruncated => Severity::Note,
        }
    }

    /// What a maintainer does about a finding of this kind (`None` for a
    /// note: nothing needs doing).
    pub fn action(self) -> Option<&'static str> {
        Some(match self {
            Kind::BudgetCut | Kind::BudgetDropped => {
                "keep the files above it shorter (Codex sends 32 KiB in all, root first), or raise \
                 project_doc_max_bytes in ~/.codex/config.toml"
            }
            Kind::MemoryCut => "move detail out of MEMORY.md into the fact files it links",
            Kind::TooLarge => "split the file: the host skips it whole",
            Kind::NeverRead => {
                "merge its rules into the file this host reads in this directory; where both names must \
                 stay, make one a link to the other (`ln -s AGENTS.md CLAUDE.md`): every host reads a link's \
                 target"
            }
            Kind::ShadowedByEmpty => "delete the blank file, or write the rules into it",
            Kind::ImportOutsideCwd => {
                "copy the imported text into this file; for `@AGENTS.md`, make CLAUDE.md a link to it \
                 instead (`ln -s AGENTS.md CLAUDE.md`), which Claude Code reads in every directory"
            }
            Kind::ImportDepth => "import the file from a file nearer the top of the import chain",
            Kind::ImportMissing => "fix or remove the @ import",
            Kind::ImportOutsideRoot => "copy the file into the project",
            Kind::RulesPathsUnmatched => "fix the rule's paths: so they match files, or remove the rule",
            Kind::RulesFrontmatterMalformed => "close the frontmatter with a line of three dashes",
            Kind::Symlink => "replace the link with a copy of the file inside the project",
            Kind::LinkBroken => "point the link at a file of the project, or remove it",
            Kind::HardLink => "replace the hard link with a copy, or a symbolic link inside the project",
            Kind::SpecialFile => "replace it with a regular file",
            Kind::MountCrossing => "keep instruction files on the project's own file system",
            Kind::Unreadable => "make the file readable (e.g. `chmod 644`)",
            Kind::MemoryLinkMissing => "fix or remove the link in MEMORY.md",
            Kind::MemoryLinkUnsafe => "link facts inside the memory directory, by a relative path",
            Kind::ImportRepeated
            | Kind::ImportLimit
            | Kind::ImportInCode
            | Kind::AboveRoot
            | Kind::LinkInside
            | Kind::DeliveredByAgentspine
            | Kind::MemoryLinkUnselectable
            | Kind::BoundedTruncated => return None,
        })
    }

    /// Whether the finding is about safety (what is read from where): such
    /// a finding is never silenced.
    pub fn is_safety(self) -> bool {
        matches!(
            self,
            Kind::Symlink
                | Kind::HardLink
                | Kind::SpecialFile
                | Kind::MountCrossing
                | Kind::ImportOutsideRoot
                | Kind::MemoryLinkUnsafe
        )
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// One thing a host does with the repository's instruction files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Its kind (`id` in JSON).
    #[serde(rename = "id")]
    pub kind: Kind,
    /// How much it matters.
    pub severity: Severity,
    /// The host whose rule it is (`None`: agentspine's own, e.g. the
    /// discovery's bound or a memory link).
    pub host: Option<Host>,
    /// The file concerned, relative to the root (`~/…` for profile and
    /// memory files, `.` for the root, `dir/` for a directory).
    pub path: String,
    /// The line it concerns, where one applies (1-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u64>,
    /// What the host does, in the host's own terms.
    pub message: String,
    /// What agentspine does instead, when it differs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agentspine: Option<String>,
    /// What to do about it (warnings and errors; see [`Kind::action`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// The directories (relative to the root) whose sessions this applies
    /// to, in check order.
    pub dirs: Vec<String>,
    /// The files this finding costs those sessions (a dropped pointer
    /// import: the AGENTS.md files the host then never reads), or that
    /// agentspine delivers in their place; relative to the root.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// Whether it is a safety finding (never silenced).
    pub safety: bool,
}
