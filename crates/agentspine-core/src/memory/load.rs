//! Loading the index and the facts it proves relevant, one at a time,
//! beneath the memory directory, without ever listing it.

use std::path::Path;

use agentspine_fs::{Code, FsError, Identity, Reader, Root, Snapshot};
use serde::Serialize;

use crate::chain::sha256_hex;
use crate::memory::index::{self, Link};
use crate::memory::relevance::{ScopeIds, Selected, Skipped, select};

/// `MEMORY.md` and each fact are read only up to this size.
pub const FILE_CAP: u64 = 4 * 1024 * 1024;
/// How often a load is repeated when the index changed under it.
pub const INDEX_RETRIES: u32 = 2;
/// The index file, the only one read without a link to it.
pub const INDEX: &str = "MEMORY.md";

/// Snapshots kept between requests (the state store implements this).
/// A hit still opens the file and compares its identity; only the bytes
/// are not read or hashed again.
pub trait SnapshotCache {
    /// The cached snapshot of `rel` in the memory directory, if any.
    fn get(&self, rel: &str) -> Option<CachedSnapshot>;
    /// Stores a snapshot just read.
    fn put(&self, rel: &str, snapshot: &Snapshot, sha256: &str);
    /// Forgets `rel` (changed, deleted, or no longer linked).
    fn forget(&self, rel: &str);
    /// Forgets every snapshot of this directory except those of `linked`
    /// (a link removed from the index drops its snapshot at once). `index`
    /// is the version of `MEMORY.md` the links were read from.
    fn retain(&self, index: &Identity, linked: &[String]);
    /// Forgets every snapshot of this directory (a fresh session).
    fn forget_all(&self);
    /// The version of `rel` the caller already has, whose bytes it does
    /// not need again (a hook: the version its session was sent; see
    /// [`crate::memory::session`]). The file is still opened and its
    /// identity compared; when it matches, the fact is loaded as
    /// [`Fact::held`], without its text. `None` by default.
    fn held(&self, _rel: &str) -> Option<HeldVersion> {
        None
    }
}

/// A version of a file the caller already has (see [`SnapshotCache::held`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldVersion {
    /// Identity of that version.
    pub identity: Identity,
    /// Its SHA-256.
    pub sha256: String,
}

/// A snapshot as the cache returns it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedSnapshot {
    /// Identity of the version that was read.
    pub identity: Identity,
    /// Its SHA-256.
    pub sha256: String,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// Counts only: never fact contents or fact paths.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct MemoryReport {
    /// Direct links in the index.
    pub indexed: u64,
    /// Links a marker or the prompt proved relevant.
    pub relevant: u64,
    /// Facts loaded.
    pub loaded: u64,
    /// Facts served from the cache (opened and identity-checked, not read).
    pub cache_hits: u64,
    /// Facts read from disk.
    pub cache_misses: u64,
    /// Relevant targets that do not exist.
    pub missing_targets: u64,
    /// Links scoped to ids outside the current scope.
    pub scope_omissions: u64,
    /// Links whose target could never be opened (absolute, `..`, URL, …).
    pub path_escapes: u64,
    /// Targets (or the index) that are links.
    pub symlinks: u64,
    /// Targets (or the index) over 4 MiB.
    pub size_rejections: u64,
    /// Targets (or the index) that kept changing while read.
    pub races: u64,
    /// Targets that are not regular files (directories, FIFOs, …).
    pub not_regular: u64,
    /// Directory listings made while loading (always 0).
    pub live_directory_enumerations: u64,
}

/// One fact loaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fact {
    /// Position of its link in the index.
    pub position: usize,
    /// The link's label.
    pub label: String,
    /// The link's target, relative to the memory directory.
    pub target: String,
    /// Why it was opened.
    pub why: Selected,
    /// Its text.
    pub text: String,
    /// Size in bytes.
    pub bytes: u64,
    /// SHA-256 of its bytes.
    pub sha256: String,
    /// The version loaded.
    #[serde(skip)]
    pub identity: Identity,
    /// The caller already has this version ([`SnapshotCache::held`]): it
    /// was opened and its identity compared, and `text` is empty.
    #[serde(skip)]
    pub held: bool,
}

/// A link that was not loaded, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unloaded {
    /// Position of its link in the index.
    pub position: usize,
    /// Why it stayed unopened, or what opening it found.
    pub why: UnloadedWhy,
}

/// Why a link was not loaded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum UnloadedWhy {
    /// Never opened.
    Skipped(Skipped),
    /// Opened and refused (`not-found`, `symlink`, `too-large`, …).
    Refused {
        /// The reader's code.
        refused: Code,
    },
}

/// The index text, as the host shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IndexText {
    /// Its text (lossily decoded).
    pub text: String,
    /// Size in bytes.
    pub bytes: u64,
    /// SHA-256.
    pub sha256: String,
    /// The version read.
    #[serde(skip)]
    pub identity: Identity,
}

/// Everything one load found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemoryLoad {
    /// `loaded`, `no-memory-directory`, `no-index`, or why memory failed
    /// closed (`index-too-large`, `index-too-many-links`, `index-symlink`,
    /// `index-changed`, …).
    pub status: MemoryStatus,
    /// The index, when it was read.
    pub index: Option<IndexText>,
    /// Every direct link (labels and targets are the user's own index).
    pub links: Vec<Link>,
    /// Facts loaded, in the order they were opened.
    pub facts: Vec<Fact>,
    /// Links not loaded.
    pub unloaded: Vec<Unloaded>,
    /// Counts.
    pub report: MemoryReport,
}

impl MemoryLoad {
    /// Why this load failed closed (a gap: a required preflight fails on
    /// it), or `None` when it loaded or there is simply nothing to load
    /// (no index, no memory directory). One rule for every surface.
    pub fn closed_reason(&self) -> Option<MemoryStatus> {
        match self.status {
            MemoryStatus::Loaded | MemoryStatus::NoIndex | MemoryStatus::NoMemoryDirectory => None,
            closed => Some(closed),
        }
    }

    fn closed(status: MemoryStatus, report: MemoryReport) -> MemoryLoad {
        MemoryLoad { status, index: None, links: Vec::new(), facts: Vec::new(), unloaded: Vec::new(), report }
    }
}

/// How a load of a memory directory ended: loaded, nothing there, or why
/// it failed closed. One word each on every surface (`memory --json`'s
/// `status`, a catalog's gap).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemoryStatus {
    /// The index and the relevant facts were read.
    Loaded,
    /// There is no memory directory.
    NoMemoryDirectory,
    /// The memory directory is a link: never followed.
    DirectorySymlink,
    /// The confined reader refused the memory directory.
    DirectoryRefused(Code),
    /// The directory has no `MEMORY.md`.
    NoIndex,
    /// `MEMORY.md` is over its cap.
    IndexTooLarge,
    /// `MEMORY.md` is a link: never followed.
    IndexSymlink,
    /// `MEMORY.md` changed while it was read, each time it was tried.
    IndexChanged,
    /// `MEMORY.md` is not a regular file.
    IndexNotRegular,
    /// `MEMORY.md` cannot be read (permission denied).
    IndexPermissionDenied,
    /// `MEMORY.md` could not be read for another reason.
    IndexUnreadable,
    /// `MEMORY.md` links more files than agentspine counts.
    IndexTooManyLinks,
    /// The time budget ran out.
    BudgetExhausted,
}

impl MemoryStatus {
    /// The stable word.
    pub fn as_str(self) -> &'static str {
        match self {
            MemoryStatus::Loaded => "loaded",
            MemoryStatus::NoMemoryDirectory => "no-memory-directory",
            MemoryStatus::DirectorySymlink => "memory-directory-symlink",
            MemoryStatus::DirectoryRefused(code) => code.as_str(),
            MemoryStatus::NoIndex => "no-index",
            MemoryStatus::IndexTooLarge => "index-too-large",
            MemoryStatus::IndexSymlink => "index-symlink",
            MemoryStatus::IndexChanged => "index-changed",
            MemoryStatus::IndexNotRegular => "index-not-regular",
            MemoryStatus::IndexPermissionDenied => "index-permission-denied",
            MemoryStatus::IndexUnreadable => "index-unreadable",
            MemoryStatus::IndexTooManyLinks => "index-too-many-links",
            MemoryStatus::BudgetExhausted => "budget-exhausted",
        }
    }
}

impl std::fmt::Display for MemoryStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for MemoryStatus {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// What to load.
pub struct MemoryRequest<'a> {
    /// The memory directory (from evidence; see `claude_dir`).
    pub dir: &'a Path,
    /// A trusted directory above `dir` (the host's profile): `dir` is
    /// opened beneath it without following a link, so a memory directory
    /// that is itself a link, or reached through one, is refused. `None`:
    /// `dir` is opened exactly as named, and refused when a link is
    /// anywhere on its path.
    pub anchor: Option<&'a Path>,
    /// The current scope.
    pub scope: &'a ScopeIds,
    /// The prompt whose words may prove facts relevant.
    pub prompt: Option<&'a str>,
    /// Snapshots from earlier requests.
    pub cache: Option<&'a dyn SnapshotCache>,
}

/// Loads the index and its relevant facts through `reader`.
pub fn load(reader: &Reader, request: &MemoryRequest<'_>) -> MemoryLoad {
    let before = reader.counters();
    let root = match open_dir(reader, request.dir, request.anchor) {
        Ok(root) => root,
        Err(e) if matches!(e.code(), Code::NotFound) => {
            return MemoryLoad::closed(MemoryStatus::NoMemoryDirectory, MemoryReport::default());
        }
        Err(e) => {
            let mut report = MemoryReport::default();
            if e.code() == Code::Symlink {
                report.symlinks += 1;
            }
            return MemoryLoad::closed(
                if e.code() == Code::Symlink {
                    MemoryStatus::DirectorySymlink
                } else {
                    MemoryStatus::DirectoryRefused(e.code())
                },
                report,
            );
        }
    };
    let mut attempt = 0;
    loop {
        let mut load = load_once(&root, request, attempt == 0);
        load.report.live_directory_enumerations = (reader.counters() - before).dir_enumerations;
        if load.status != MemoryStatus::IndexChanged || attempt == INDEX_RETRIES {
            return load;
        }
        attempt += 1;
    }
}

/// Opens the memory directory: beneath `anchor` without following links
/// when it lies below it, else exactly as named, with no link anywhere on
/// its path (`--memory-dir`, an absolute `autoMemoryDirectory`): whoever
/// names a memory directory, nothing is read, or stored, through a link.
pub fn open_dir(reader: &Reader, dir: &Path, anchor: Option<&Path>) -> Result<Root, agentspine_fs::FsError> {
    match anchor.and_then(|a| dir.strip_prefix(a).ok().map(|rel| (a, rel))) {
        Some((anchor, rel)) if !rel.as_os_str().is_empty() => reader.open_root(anchor)?.subdir(rel),
        _ => reader.open_root_without_links(dir),
    }
}

/// One load. The first attempt may take the index as this run already
/// read it (the chain's memory part, with a reader that remembers reads):
/// the look at the index after the facts compares that version with the
/// file as it is then, so a change in between is an `index-changed` like
/// any other, and each retry reads the index afresh.
fn load_once(root: &Root, request: &MemoryRequest<'_>, first: bool) -> MemoryLoad {
    let mut report = MemoryReport::default();
    let index = if first { root.read_remembered(INDEX, FILE_CAP) } else { root.read(INDEX, FILE_CAP) };
    let index_snapshot = match index {
        Ok(snapshot) => snapshot,
        Err(e) => {
            let status = match e.code() {
                Code::NotFound => MemoryStatus::NoIndex,
                Code::TooLarge => {
                    report.size_rejections += 1;
                    MemoryStatus::IndexTooLarge
                }
                Code::Symlink => {
                    report.symlinks += 1;
                    MemoryStatus::IndexSymlink
                }
                Code::Race => {
                    report.races += 1;
                    MemoryStatus::IndexChanged
                }
                Code::NotRegular => MemoryStatus::IndexNotRegular,
                Code::PermissionDenied => MemoryStatus::IndexPermissionDenied,
                Code::Deadline => MemoryStatus::BudgetExhausted,
                _ => MemoryStatus::IndexUnreadable,
            };
            return MemoryLoad::closed(status, report);
        }
    };
    let text = String::from_utf8_lossy(&index_snapshot.bytes).into_owned();
    let parsed = index::parse(&text);
    report.indexed = parsed.links.len() as u64;
    if parsed.too_many_links {
        // A bound on the links, not on the bytes: said as such.
        return MemoryLoad::closed(MemoryStatus::IndexTooManyLinks, report);
    }
    if let Some(cache) = request.cache {
        let linked: Vec<String> =
            parsed.links.iter().filter(|l| l.escape.is_none()).map(|l| percent_decode(&l.target)).collect();
        cache.retain(&index_snapshot.identity, &linked);
    }
    let selection = select(&parsed.links, request.scope, request.prompt);
    report.relevant = (selection.chosen.len()
        + selection.skipped.iter().filter(|(_, s)| *s == Skipped::OverLimit).count())
        as u64;
    let mut unloaded: Vec<Unloaded> = Vec::new();
    for (position, why) in &selection.skipped {
        match why {
            Skipped::PathEscape(_) => report.path_escapes += 1,
            Skipped::OutOfScope => report.scope_omissions += 1,
            _ => {}
        }
        unloaded.push(Unloaded { position: *position, why: UnloadedWhy::Skipped(why.clone()) });
    }
    let mut facts = Vec::new();
    for (position, why) in selection.chosen {
        let link = &parsed.links[position];
        let rel = percent_decode(&link.target);
        match fetch(root, &rel, request.cache, &mut report) {
            Ok(Fetched { bytes, identity, sha256, held }) => facts.push(Fact {
                position,
                label: link.label.clone(),
                target: rel,
                why,
                text: String::from_utf8_lossy(&bytes).into_owned(),
                bytes: identity.size,
                sha256,
                identity,
                held,
            }),
            Err(e) => {
                match e.code() {
                    Code::NotFound => report.missing_targets += 1,
                    Code::Symlink => report.symlinks += 1,
                    Code::TooLarge => report.size_rejections += 1,
                    Code::Race => report.races += 1,
                    Code::NotRegular | Code::NotDirectory => report.not_regular += 1,
                    Code::Deadline => {
                        unloaded.push(Unloaded {
                            position,
                            why: UnloadedWhy::Refused { refused: Code::Deadline },
                        });
                        return MemoryLoad {
                            status: MemoryStatus::BudgetExhausted,
                            index: None,
                            links: parsed.links,
                            facts,
                            unloaded,
                            report,
                        };
                    }
                    _ => {}
                }
                if let Some(cache) = request.cache {
                    cache.forget(&rel);
                }
                unloaded.push(Unloaded { position, why: UnloadedWhy::Refused { refused: e.code() } });
            }
        }
    }
    // Look at the index again: a change means the facts may not match it.
    match root.open(INDEX) {
        Ok(handle) if handle.metadata.identity == index_snapshot.identity => {}
        _ => {
            report.races += 1;
            return MemoryLoad::closed(MemoryStatus::IndexChanged, report);
        }
    }
    unloaded.sort_by_key(|u| u.position);
    report.loaded = facts.len() as u64;
    MemoryLoad {
        status: MemoryStatus::Loaded,
        index: Some(IndexText {
            text,
            bytes: index_snapshot.identity.size,
            sha256: sha256_hex(&index_snapshot.bytes),
            identity: index_snapshot.identity,
        }),
        links: parsed.links,
        facts,
        unloaded,
        report,
    }
}

/// A fact's bytes (none when held) and version.
struct Fetched {
    bytes: Vec<u8>,
    identity: Identity,
    sha256: String,
    held: bool,
}

/// Reads a fact, or finds it held by the caller or cached, after checking
/// its identity (one open either way: a version that no longer matches is
/// looked up in the cache, then read).
fn fetch(
    root: &Root,
    rel: &str,
    cache: Option<&dyn SnapshotCache>,
    report: &mut MemoryReport,
) -> Result<Fetched, FsError> {
    let matches = |identity: &Identity| -> Result<bool, FsError> {
        let handle = root.open(rel)?;
        Ok(handle.metadata.kind == agentspine_fs::FileKind::File && handle.metadata.identity == *identity)
    };
    if let Some(held) = cache.and_then(|c| c.held(rel))
        && matches(&held.identity)?
    {
        report.cache_hits += 1;
        return Ok(Fetched { bytes: Vec::new(), identity: held.identity, sha256: held.sha256, held: true });
    }
    if let Some(cached) = cache.and_then(|c| c.get(rel))
        && matches(&cached.identity)?
    {
        report.cache_hits += 1;
        return Ok(Fetched {
            bytes: cached.bytes,
            identity: cached.identity,
            sha256: cached.sha256,
            held: false,
        });
    }
    let snapshot = root.read(rel, FILE_CAP)?;
    let sha = sha256_hex(&snapshot.bytes);
    report.cache_misses += 1;
    if let Some(cache) = cache {
        cache.put(rel, &snapshot, &sha);
    }
    Ok(Fetched { bytes: snapshot.bytes, identity: snapshot.identity, sha256: sha, held: false })
}

/// Decodes `%XX` escapes (separators and NUL were refused before).
fn percent_decode(target: &str) -> String {
    let bytes = target.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(hi), Some(lo)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(hi * 16 + lo);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}
