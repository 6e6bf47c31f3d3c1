//! The result of a bounded directory listing.

use serde::Serialize;

use crate::identity::FileKind;

/// One directory entry that is not a link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    /// The entry's name (UTF-8 only; see [`Listing::non_utf8`]).
    pub name: String,
    /// What it is, from the directory entry (or `fstatat` when the
    /// filesystem does not say).
    pub kind: FileKind,
}

/// What [`crate::Root::list`] found, sorted by name within each group.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Listing {
    /// The listed directory, relative to the root.
    pub path: String,
    /// Entries whose names do not start with `.` and that are not links.
    pub entries: Vec<Entry>,
    /// Entries whose names start with `.` (not links).
    pub hidden: Vec<Entry>,
    /// Names of links (of any target, never followed).
    pub symlinks: Vec<String>,
    /// Entries skipped because their names are not UTF-8.
    pub non_utf8: u64,
    /// The bound stopped the listing before its end.
    pub truncated: bool,
    /// Every UTF-8 name above (entries, hidden entries and links) in the
    /// order the directory gave them, for a caller that must meet them as
    /// a host's own directory walk does (opencode's globs).
    #[serde(skip)]
    pub disk_order: Vec<String>,
}
