//! Claude Code's auto memory of the project: where the host cuts
//! `MEMORY.md` (its own 200-line and 25,000-character rule), and the index
//! links agentspine's selection can never open: unsafe targets, missing
//! files, and links no marker, label or file name can ever select. The
//! memory directory is found by the resolver's one rule and never listed:
//! each link's target is looked at with one stat.

use crate::check::finding::Kind;
use crate::check::findings::{ProjectContext, Raw, Sink};
use crate::error::ResolveError;
use crate::host::{Host, Request};
use crate::hosts::claude::memory::cut_of;
use crate::memory::index::parse;
use crate::memory::load::{FILE_CAP, INDEX, open_dir};
use crate::memory::relevance::selectable;
use crate::paths::tilde;

pub(crate) fn check(at: &ProjectContext<'_>, sink: &mut Sink) -> Result<(), ResolveError> {
    let root_path = at.root;
    let request = Request { root: Some(root_path.to_path_buf()), ..Request::new(Host::Claude, root_path) };
    let (found, _) = super::memory_dir_for(&request, at.env, at.reader, at.never)?;
    let Some(found) = found else { return Ok(()) };
    let Ok(dir) = open_dir(at.reader, &found.dir, found.anchor.as_deref()) else { return Ok(()) };
    // The index itself as a chain part: its refusals are the resolution's.
    let Ok(snap) = dir.read(INDEX, FILE_CAP) else { return Ok(()) };
    let label = tilde(&found.dir.join(INDEX), at.env.home.as_deref());
    let decoded = String::from_utf8_lossy(&snap.bytes);
    if let Some(cut) = cut_of(decoded.trim()) {
        let bound = if cut.by_chars { "25,000 characters" } else { "200 lines" };
        let mut raw = Raw::new(
            Kind::MemoryCut,
            Some(Host::Claude),
            label.clone(),
            format!(
                "Claude Code loads only the first {bound} of MEMORY.md: {} of {} lines are cut, from line {} on",
                cut.total - cut.kept,
                cut.total,
                cut.kept + 1
            ),
        );
        raw.line = Some(cut.kept as u64 + 1);
        sink.add(raw, None);
    }
    let index = parse(&decoded);
    for link in &index.links {
        let line = line_of(&decoded, &link.target);
        let (kind, message) = if let Some(reason) = link.escape {
            (
                Kind::MemoryLinkUnsafe,
                format!(
                    "the link to {} can never be opened ({reason}): agentspine leaves it unopened",
                    link.target
                ),
            )
        } else if dir.stat(link.target.as_str()).is_err() {
            (
                Kind::MemoryLinkMissing,
                format!("the link to {} names no file in the memory directory", link.target),
            )
        } else if !selectable(link) {
            (
                Kind::MemoryLinkUnselectable,
                format!(
                    "no marker, label word or file name word can ever select the link to {}: agentspine never opens it",
                    link.target
                ),
            )
        } else {
            continue;
        };
        let mut raw = Raw::new(kind, None, label.clone(), message);
        raw.line = line;
        sink.add(raw, None);
    }
    Ok(())
}

/// The first line (1-based) that links to `target`.
fn line_of(text: &str, target: &str) -> Option<u64> {
    let needle = format!("]({target}");
    text.lines().position(|l| l.contains(&needle)).map(|i| i as u64 + 1)
}
