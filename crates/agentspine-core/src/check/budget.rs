//! The per-host budget summary (bytes each host sends for the session
//! started at the root and in the deepest directory checked) and, with
//! `--compare`, the directories where hosts disagree on which project
//! files apply. Both read the resolutions the findings were made from.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::host::Host;
use crate::resolution::{Resolution, Scope};

/// What one host sends for one session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Sent {
    /// The directory the session starts in, relative to the root.
    pub dir: String,
    /// Bytes of the host's own text (what its model request carries).
    pub bytes: u64,
    /// Files it sends.
    pub files: u64,
    /// Files it cuts.
    pub cut: u64,
}

/// A host's budget summary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Budget {
    /// The host.
    pub host: Host,
    /// The session at the root.
    pub root: Sent,
    /// The session in the deepest directory checked (the first of the
    /// deepest, in check order).
    pub deepest: Sent,
}

/// The project files each host applies in one directory, when they differ.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Disagreement {
    /// The directory, relative to the root.
    pub dir: String,
    /// Per host, the project files it sends, root first.
    pub files: BTreeMap<String, Vec<String>>,
}

fn depth(dir: &str) -> usize {
    if dir == "." { 0 } else { dir.split('/').count() }
}

fn sent(dir: &str, chain: &Resolution) -> Sent {
    Sent {
        dir: dir.to_owned(),
        bytes: crate::hosts::render(chain).len() as u64,
        files: chain.parts.len() as u64,
        cut: chain.parts.iter().filter(|p| p.cut.is_some()).count() as u64,
    }
}

pub(crate) fn budgets(
    hosts: &[Host],
    dirs: &[String],
    resolutions: &[(Host, String, Resolution)],
) -> Vec<Budget> {
    let deepest =
        dirs.iter().max_by_key(|d| (depth(d), std::cmp::Reverse(dirs.iter().position(|x| x == *d))));
    let find =
        |host: Host, dir: &str| resolutions.iter().find(|(h, d, _)| *h == host && d == dir).map(|r| &r.2);
    hosts
        .iter()
        .filter_map(|host| {
            let root = find(*host, ".")?;
            let deep_dir = deepest.map(String::as_str).unwrap_or(".");
            let deep = find(*host, deep_dir)?;
            Some(Budget { host: *host, root: sent(".", root), deepest: sent(deep_dir, deep) })
        })
        .collect()
}

pub(crate) fn disagreements(
    dirs: &[String],
    resolutions: &[(Host, String, Resolution)],
) -> Vec<Disagreement> {
    let mut out = Vec::new();
    for dir in dirs {
        let mut files: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (host, d, chain) in resolutions {
            if d != dir {
                continue;
            }
            let project: Vec<String> = chain
                .parts
                .iter()
                .filter(|p| matches!(p.scope, Scope::Project | Scope::Local))
                .map(|p| p.label.clone())
                .collect();
            files.insert(host.to_string(), project);
        }
        let mut sets = files.values();
        let first = sets.next();
        if sets.any(|s| Some(s) != first) {
            out.push(Disagreement { dir: dir.clone(), files });
        }
    }
    out
}
