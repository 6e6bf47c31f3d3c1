//! `.claude/rules` files of the project: ones whose `paths:` match no
//! file the bounded discovery saw under the root (Claude Code loads them
//! only when such a file is read, so they never load), and ones whose
//! frontmatter cannot be read. Each rules file is read once per check,
//! through the same matcher the resolution uses.

use std::path::Path;

use agentspine_fs::Root;

use crate::check::discover::Discovered;
use crate::check::finding::Kind;
use crate::check::findings::{Raw, Sink};
use crate::host::Host;
use crate::hosts::claude::rules::{paths_match, paths_patterns};
use crate::resolution::{Resolution, Scope, Verdict};
use crate::text::split_frontmatter;

/// Bytes of a rules file read for its frontmatter.
const HEAD: u64 = 64 * 1024;

pub(crate) fn check(root: &Root, root_path: &Path, chain: &Resolution, found: &Discovered, sink: &mut Sink) {
    for probe in &chain.probes {
        if probe.scope != Scope::Project
            || !matches!(probe.verdict, Verdict::Included | Verdict::PathsNotMatched)
        {
            continue;
        }
        let Some(holder) = rules_holder(&probe.path) else { continue };
        if !sink.rules_seen.insert(probe.path.clone()) {
            continue;
        }
        let Ok(snap) = root.read_head(&probe.path, HEAD) else { continue };
        let text = String::from_utf8_lossy(&snap.bytes);
        let opens = text.starts_with("---\n") || text.starts_with("---\r\n");
        let (front, _) = split_frontmatter(&text);
        if opens && front.is_empty() && !text[3..].trim_start().starts_with("---") {
            sink.add(
                Raw::new(
                    Kind::RulesFrontmatterMalformed,
                    Some(Host::Claude),
                    probe.path.clone(),
                    "the frontmatter opens with `---` and never closes: no `paths:` can be read from it, so \
                     Claude Code treats the rule as unconditional"
                        .to_owned(),
                ),
                None,
            );
            continue;
        }
        let Some(patterns) = paths_patterns(front) else { continue };
        if patterns.is_empty() {
            sink.add(
                Raw::new(
                    Kind::RulesFrontmatterMalformed,
                    Some(Host::Claude),
                    probe.path.clone(),
                    "`paths:` lists no pattern: Claude Code treats the rule as unconditional and loads it in every \
                     session"
                        .to_owned(),
                ),
                None,
            );
            continue;
        }
        let base = root_path.join(holder);
        if found.files.iter().any(|f| paths_match(&base, &patterns, &root_path.join(f))) {
            continue;
        }
        let seen = if found.stopped.is_some() { " the bounded discovery saw" } else { "" };
        sink.add(
            Raw::new(
                Kind::RulesPathsUnmatched,
                Some(Host::Claude),
                probe.path.clone(),
                format!(
                    "Claude Code loads this rule only when a file matching its paths: ({}) is read; no file{seen} under the root matches",
                    patterns.join(", ")
                ),
            ),
            None,
        );
    }
}

/// The directory holding `.claude/` for a project rules file's label.
fn rules_holder(label: &str) -> Option<&str> {
    if label.starts_with(".claude/rules/") {
        return Some("");
    }
    label.split_once("/.claude/rules/").map(|(holder, _)| holder)
}
