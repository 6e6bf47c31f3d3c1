//! Optional project-wide Markdown: a deterministic, bounded discovery through
//! `Root::list`. At most 240 files, 8,192 directory entries, and the
//! request's deadline; links, hidden directories, nested repositories
//! (a directory with its own `.git`) and paths the root `.gitignore`
//! ignores are skipped. Reaching a bound keeps what was found and says so
//! with a `bounded-truncated` warning. Only the catalog's remaining byte
//! budget is spent.

use std::collections::{BTreeSet, VecDeque};
use std::path::Path;

use agentspine_fs::{Code, FileKind, Reader};
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::catalog::{CATALOG_CAP, Gap, Origin, Source, SourceIds, SourceResolution};
use crate::chain::sha256_hex;
use crate::resolution::{Scope, Warning};

/// Files taken at most.
pub const MAX_FILES: usize = 240;
/// Directory entries looked at, at most.
pub const MAX_ENTRIES: usize = 8192;

pub(crate) fn discover(
    reader: &Reader,
    root_path: &Path,
    ids: &SourceIds,
    sources: &mut Vec<Source>,
    resolution: &mut SourceResolution,
) {
    let Ok(root) = reader.open_root(root_path) else { return };
    let ignore = gitignore(&root, root_path);
    let known: BTreeSet<String> =
        sources.iter().filter(|s| s.origin.base == root_path).map(|s| s.origin.rel.clone()).collect();
    let mut spent: u64 = sources.iter().map(|s| s.bytes).sum();
    let mut entries = 0usize;
    let mut taken = 0usize;
    let mut queue: VecDeque<String> = VecDeque::from([String::new()]);
    let stop = |bound: &str, resolution: &mut SourceResolution| {
        resolution.warnings.push(Warning {
            code: "bounded-truncated".to_owned(),
            file: None,
            message: format!(
                "project Markdown discovery stopped at the {bound} bound; the files found so far are kept"
            ),
        });
        resolution.gaps.push(Gap {
            what: bound.to_owned(),
            cause: "bounded-truncated".to_owned(),
            required: false,
        });
    };
    while let Some(dir) = queue.pop_front() {
        let listing = match root.list(if dir.is_empty() { "." } else { &dir }, MAX_ENTRIES - entries) {
            Ok(listing) => listing,
            Err(e) if e.code() == Code::Deadline => return stop("2-second deadline", resolution),
            Err(e) => {
                resolution.gaps.push(Gap {
                    what: dir_label(&dir),
                    cause: e.code().as_str().to_owned(),
                    required: false,
                });
                continue;
            }
        };
        entries += listing.entries.len() + listing.hidden.len() + listing.symlinks.len();
        let join = |name: &str| if dir.is_empty() { name.to_owned() } else { format!("{dir}/{name}") };
        for entry in &listing.entries {
            let rel = join(&entry.name);
            let is_dir = entry.kind == FileKind::Directory;
            if ignore.matched_path_or_any_parents(root_path.join(&rel), is_dir).is_ignore() {
                continue;
            }
            if is_dir {
                // A nested repository belongs to someone else.
                if root.stat(format!("{rel}/.git")).is_err() {
                    queue.push_back(rel);
                }
                continue;
            }
            if entry.kind != FileKind::File || !entry.name.ends_with(".md") || known.contains(&rel) {
                continue;
            }
            if taken == MAX_FILES {
                return stop("240-file", resolution);
            }
            let remaining = CATALOG_CAP.saturating_sub(spent);
            match root.read(&rel, remaining) {
                Ok(snap) => {
                    spent += snap.identity.size;
                    taken += 1;
                    sources.push(Source {
                        source_id: ids.id(root_path, &rel, Scope::Doc),
                        scope: Scope::Doc,
                        rel_path: rel.clone(),
                        bytes: snap.identity.size,
                        sha256: sha256_hex(&snap.bytes),
                        required: false,
                        text: String::from_utf8_lossy(&snap.bytes).into_owned(),
                        origin: Origin { base: root_path.to_path_buf(), rel },
                    });
                }
                Err(e) if e.code() == Code::Deadline => return stop("2-second deadline", resolution),
                Err(e) => resolution.gaps.push(Gap {
                    what: rel,
                    cause: match e.code() {
                        Code::TooLarge => "budget-exhausted".to_owned(),
                        other => other.as_str().to_owned(),
                    },
                    required: false,
                }),
            }
        }
        if listing.truncated || entries >= MAX_ENTRIES {
            return stop("8,192-entry", resolution);
        }
    }
}

fn dir_label(dir: &str) -> String {
    if dir.is_empty() { ".".to_owned() } else { dir.to_owned() }
}

/// The root `.gitignore`, read through the confined reader.
fn gitignore(root: &agentspine_fs::Root, root_path: &Path) -> Gitignore {
    let mut builder = GitignoreBuilder::new(root_path);
    if let Ok(snap) = root.read(".gitignore", 1024 * 1024) {
        for line in String::from_utf8_lossy(&snap.bytes).lines() {
            let _ = builder.add_line(None, line);
        }
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}
