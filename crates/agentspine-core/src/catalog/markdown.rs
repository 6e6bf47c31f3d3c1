//! Optional project-wide Markdown: a deterministic, bounded discovery through
//! the one bounded walk ([`super::walk`]). At most 240 files, 8,192
//! directory entries, and the request's deadline; links, hidden
//! directories, nested repositories (a directory with its own `.git`) and
//! paths the root `.gitignore` ignores are skipped. Reaching a bound keeps
//! what was found and says so with a `bounded-truncated` warning. Only the
//! catalog's remaining byte budget is spent.

use std::collections::BTreeSet;
use std::ops::ControlFlow;
use std::path::Path;

use agentspine_fs::{Code, FileKind, Reader};

use crate::catalog::walk::{Step, walk};
use crate::catalog::{CATALOG_CAP, Gap, Origin, Source, SourceIds, SourceResolution};
use crate::chain::sha256_hex;
use crate::resolution::{Cause, Scope, Warning};

/// Files taken at most.
pub const MAX_FILES: usize = 240;
/// Directory entries looked at, at most.
pub const MAX_ENTRIES: usize = super::walk::MAX_ENTRIES;

/// The bound named when [`MAX_FILES`] stops a discovery.
pub const FILES_BOUND: &str = "240-file";

pub(crate) fn discover(
    reader: &Reader,
    root_path: &Path,
    ids: &SourceIds,
    sources: &mut Vec<Source>,
    resolution: &mut SourceResolution,
) {
    let Ok(root) = reader.open_root(root_path) else { return };
    let known: BTreeSet<String> =
        sources.iter().filter(|s| s.origin.base == root_path).map(|s| s.origin.rel.clone()).collect();
    let mut spent: u64 = sources.iter().map(|s| s.bytes).sum();
    let mut taken = 0usize;
    let mut found: Vec<Source> = Vec::new();
    let mut gaps: Vec<Gap> = Vec::new();
    let stopped = walk(&root, root_path, |step| {
        match step {
            Step::Listed { .. } => {}
            Step::Unlisted { dir, code } => {
                gaps.push(Gap { what: dir_label(dir), cause: Cause::Reader(code), required: false })
            }
            Step::File { rel, kind } => {
                if kind != FileKind::File || !rel.ends_with(".md") || known.contains(&rel) {
                    return ControlFlow::Continue(());
                }
                if taken == MAX_FILES {
                    return ControlFlow::Break(FILES_BOUND);
                }
                let remaining = CATALOG_CAP.saturating_sub(spent);
                match root.read(&rel, remaining) {
                    Ok(snap) => {
                        spent += snap.identity.size;
                        taken += 1;
                        found.push(Source {
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
                    Err(e) if e.code() == Code::Deadline => {
                        return ControlFlow::Break(super::walk::DEADLINE_BOUND);
                    }
                    Err(e) => gaps.push(Gap {
                        what: rel,
                        cause: match e.code() {
                            Code::TooLarge => Cause::Reader(Code::BudgetExhausted),
                            other => Cause::Reader(other),
                        },
                        required: false,
                    }),
                }
            }
        }
        ControlFlow::Continue(())
    });
    sources.extend(found);
    resolution.gaps.extend(gaps);
    if let Some(bound) = stopped.map(|s| s.bound) {
        resolution.warnings.push(bounded_truncated(bound));
        resolution.gaps.push(Gap { what: bound.to_owned(), cause: Cause::BoundedTruncated, required: false });
    }
}

/// The `bounded-truncated` warning for the bound that stopped a discovery.
pub(crate) fn bounded_truncated(bound: &str) -> Warning {
    Warning {
        code: "bounded-truncated".to_owned(),
        file: None,
        message: format!(
            "project Markdown discovery stopped at the {bound} bound; the files found so far are kept"
        ),
    }
}

fn dir_label(dir: &str) -> String {
    if dir.is_empty() { ".".to_owned() } else { dir.to_owned() }
}
