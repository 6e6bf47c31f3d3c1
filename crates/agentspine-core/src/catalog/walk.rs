//! The one bounded walk of a project tree, shared by the optional Markdown
//! discovery and `check`: breadth first from the root through
//! `Root::list`, at most [`MAX_ENTRIES`] directory entries in all and the
//! reader's deadline. Links are never followed, hidden directories and
//! nested repositories (a directory with its own `.git`) are not entered,
//! and neither are directories the root `.gitignore` ignores. A visitor
//! sees each listing and may stop the walk at a bound of its own.

use std::collections::VecDeque;
use std::ops::ControlFlow;
use std::path::Path;

use agentspine_fs::{Code, FileKind, Listing, Root};
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// Directory entries looked at, at most.
pub const MAX_ENTRIES: usize = 8192;

/// The bound named when the deadline stops a walk.
pub const DEADLINE_BOUND: &str = "2-second deadline";
/// The bound named when [`MAX_ENTRIES`] stops a walk.
pub const ENTRIES_BOUND: &str = "8,192-entry";

/// What the walk hands its visitor, in walk order.
pub(crate) enum Step<'a> {
    /// One directory's listing (`dir` relative to the root, `""` for it),
    /// before its entries.
    Listed { dir: &'a str, listing: &'a Listing },
    /// One entry of the listing that is neither a directory nor hidden nor
    /// a link, and that the root `.gitignore` does not ignore (`rel`
    /// relative to the root).
    File { rel: String, kind: FileKind },
    /// A directory that could not be listed, with the reader's code.
    Unlisted { dir: &'a str, code: Code },
}

/// `name` in `dir`, relative to the root.
pub(crate) fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() { name.to_owned() } else { format!("{dir}/{name}") }
}

/// Where a walk stopped: the bound, and the directories (relative to the
/// root) it had still to list, whose subtrees it never saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stopped {
    pub(crate) bound: &'static str,
    pub(crate) unvisited: Vec<String>,
}

/// Walks `root` (whose host path is `root_path`). Returns where the bound
/// that stopped it (the visitor's own `Break`, the deadline or the entry
/// bound) left it, or `None` when the whole tree was walked.
pub(crate) fn walk(
    root: &Root,
    root_path: &Path,
    mut visit: impl FnMut(Step<'_>) -> ControlFlow<&'static str>,
) -> Option<Stopped> {
    let ignore = gitignore(root, root_path);
    let ignores =
        |rel: &str, is_dir: bool| ignore.matched_path_or_any_parents(root_path.join(rel), is_dir).is_ignore();
    let mut entries = 0usize;
    let mut queue: VecDeque<String> = VecDeque::from([String::new()]);
    // The directories a stop leaves unseen: the current listing's own
    // subdirectories (and itself, when its listing was cut), then the queue.
    let stop = |bound, queue: VecDeque<String>, pending: Vec<String>| {
        let mut unvisited: Vec<String> = pending;
        for dir in queue {
            if !unvisited.contains(&dir) {
                unvisited.push(dir);
            }
        }
        Some(Stopped { bound, unvisited })
    };
    while let Some(dir) = queue.pop_front() {
        let listing = match root.list(if dir.is_empty() { "." } else { &dir }, MAX_ENTRIES - entries) {
            Ok(listing) => listing,
            Err(e) if e.code() == Code::Deadline => {
                queue.push_front(dir);
                return stop(DEADLINE_BOUND, queue, Vec::new());
            }
            Err(e) => {
                if let ControlFlow::Break(bound) = visit(Step::Unlisted { dir: &dir, code: e.code() }) {
                    return stop(bound, queue, Vec::new());
                }
                continue;
            }
        };
        entries += listing.entries.len() + listing.hidden.len() + listing.symlinks.len();
        let subdirs = || -> Vec<String> {
            listing
                .entries
                .iter()
                .filter(|e| e.kind == FileKind::Directory)
                .map(|e| join(&dir, &e.name))
                .filter(|rel| !ignores(rel, true))
                .collect()
        };
        if let ControlFlow::Break(bound) = visit(Step::Listed { dir: &dir, listing: &listing }) {
            return stop(bound, queue, subdirs());
        }
        for entry in &listing.entries {
            let rel = join(&dir, &entry.name);
            let is_dir = entry.kind == FileKind::Directory;
            if ignores(&rel, is_dir) {
                continue;
            }
            if is_dir {
                // A nested repository belongs to someone else.
                if root.stat(format!("{rel}/.git")).is_err() {
                    queue.push_back(rel);
                }
                continue;
            }
            if let ControlFlow::Break(bound) = visit(Step::File { rel, kind: entry.kind }) {
                return stop(bound, queue, subdirs());
            }
        }
        if listing.truncated || entries >= MAX_ENTRIES {
            let mut pending = subdirs();
            if listing.truncated {
                // The rest of this directory's own entries were never seen.
                pending.insert(0, dir.clone());
            }
            return stop(ENTRIES_BOUND, queue, pending);
        }
    }
    None
}

/// The root `.gitignore`, read through the confined reader.
fn gitignore(root: &Root, root_path: &Path) -> Gitignore {
    let mut builder = GitignoreBuilder::new(root_path);
    if let Ok(snap) = root.read(".gitignore", 1024 * 1024) {
        for line in String::from_utf8_lossy(&snap.bytes).lines() {
            let _ = builder.add_line(None, line);
        }
    }
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}
