//! The compact `sourceResolution` report a hook hands its host at session
//! start: what was checked and found for the session's directory, in a few
//! hundred bytes (counts per scope, the project root and what it is, a
//! digest of the profile, and the reason when nothing, or not everything,
//! could be loaded). Never a fact's path or content.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::error::ResolveError;
use crate::host::{Host, Request};
use crate::memory::MemoryReport;
use crate::policy::RootKind;
use crate::resolver::Resolver;

/// Longest [`CompactReport::line`], in bytes.
pub const MAX_LINE: usize = 480;
/// Longest project root shown in the line; a longer one keeps its end.
const MAX_ROOT: usize = 160;

/// What a session's resolution checked and found, compactly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CompactReport {
    /// Whose rules applied.
    pub host: Host,
    /// The project root.
    pub project_root: PathBuf,
    /// What the root is.
    pub root_kind: RootKind,
    /// Sources per scope (`user`, `project`, `local`, `memory`).
    pub counts: BTreeMap<String, u64>,
    /// The first 16 hex digits of the profile digest.
    pub profile_digest: String,
    /// Why nothing, or not everything, could be loaded.
    pub reason: Option<String>,
}

impl CompactReport {
    /// One line of at most [`MAX_LINE`] bytes.
    pub fn line(&self) -> String {
        let counts: Vec<String> = self.counts.iter().map(|(scope, n)| format!("{scope} {n}")).collect();
        let root = self.project_root.display().to_string();
        let root = if root.len() > MAX_ROOT {
            let mut start = root.len() - MAX_ROOT;
            while !root.is_char_boundary(start) {
                start += 1;
            }
            format!("…{}", &root[start..])
        } else {
            root
        };
        let mut line = format!(
            "host {}; root {} ({}); sources {}; profile {}; reason {}",
            self.host,
            root,
            serde_json::to_value(self.root_kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            if counts.is_empty() { "none".to_owned() } else { counts.join(", ") },
            self.profile_digest,
            self.reason.as_deref().unwrap_or("none"),
        );
        if line.len() > MAX_LINE {
            let mut end = MAX_LINE - 3;
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            line.truncate(end);
            line.push_str("...");
        }
        line
    }
}

impl Resolver<'_> {
    /// The compact report for `request`: its native chain's sources, with
    /// `memory` (what a memory load found) counted in.
    pub fn compact_report(
        &self,
        request: &Request,
        memory: Option<&MemoryReport>,
    ) -> Result<CompactReport, ResolveError> {
        let chain = self.chain(request)?;
        let mut counts: BTreeMap<String, u64> = BTreeMap::new();
        for part in &chain.parts {
            *counts.entry(part.scope.to_string()).or_default() += 1;
        }
        if let Some(memory) = memory {
            counts.insert("memory-facts".to_owned(), memory.loaded);
        }
        let gaps = crate::catalog::gaps_of(&chain.probes);
        let reason = chain
            .root_kind
            .reason()
            .map(str::to_owned)
            .or_else(|| {
                gaps.first().map(|g| format!("incomplete: {} ({}), {} gap(s)", g.what, g.cause, gaps.len()))
            })
            .or_else(|| chain.parts.is_empty().then(|| "no-sources".to_owned()));
        let digest = crate::catalog::profile_digest(request.host, self.env());
        Ok(CompactReport {
            host: request.host,
            project_root: chain.project_root,
            root_kind: chain.root_kind,
            counts,
            profile_digest: digest[..16].to_owned(),
            reason,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_is_bounded_and_keeps_the_end_of_a_long_root() {
        let report = CompactReport {
            host: Host::Claude,
            project_root: PathBuf::from(format!("/{}", "é".repeat(400))),
            root_kind: RootKind::Project,
            counts: [("project".to_owned(), 3), ("user".to_owned(), 1)].into_iter().collect(),
            profile_digest: "0123456789abcdef".to_owned(),
            reason: Some("x".repeat(1000)),
        };
        let line = report.line();
        assert!(line.len() <= MAX_LINE, "{}", line.len());
        assert!(line.starts_with("host claude; root …éé"), "{line}");
        assert!(line.contains("(project); sources project 3, user 1; profile 0123456789abcdef; reason xxx"));
        assert!(line.ends_with("..."));
    }
}
