//! Claude Code's auto memory as the host loads it natively: only
//! `MEMORY.md` of the project's memory directory, last, cut to its first
//! 200 lines or 25,000 characters with the host's own warning.

use std::path::PathBuf;

use crate::env::Environment;
use crate::gather::{Gather, part};
use crate::hosts::claude::ClaudeSettings;
use crate::locate::{Located, tilde};
use crate::memory::claude_dir::{Evidence, MemoryDir, memory_dir};
use crate::memory::load::{FILE_CAP, INDEX};
use crate::resolution::{Scope, Verdict};

/// Lines of `MEMORY.md` Claude Code loads.
pub const MAX_LINES: usize = 200;
/// Characters of `MEMORY.md` Claude Code loads.
pub const MAX_CHARS: usize = 25_000;

/// The project path Claude Code keys memory by: the main repository of a
/// worktree, the git root, or (outside git) the cwd.
pub(crate) fn project_path(located: &Located) -> PathBuf {
    if located.evidence != "nearest .git" {
        return located.cwd.clone();
    }
    // A `.git` file (`gitdir: /main/.git/worktrees/NAME`) names the main
    // repository; a `.git` directory means this is it.
    if let Ok(snap) = located.root.read(".git", 4096) {
        let text = String::from_utf8_lossy(&snap.bytes);
        if let Some(gitdir) = text.trim().strip_prefix("gitdir:")
            && let Some((main, _)) = gitdir.trim().split_once("/.git/worktrees/")
        {
            return PathBuf::from(main);
        }
    }
    located.root_path.clone()
}

/// Finds the memory directory from evidence.
pub(crate) fn find(env: &Environment, located: &Located, settings: &ClaudeSettings) -> Option<MemoryDir> {
    let config = env.claude_home()?;
    let project = project_path(located);
    let evidence = Evidence {
        home: env.home.as_deref(),
        config: &config,
        config_dir_set: env.claude_config_dir.is_some(),
        auto_memory_directory: settings.auto_memory_directory.as_deref(),
        project_dir_name: env.claude_project_dir_name.as_deref(),
        project_path: &project,
    };
    let reader = located.root.reader();
    memory_dir(&evidence, |dir| reader.open_root(dir).is_ok())
}

/// Adds `MEMORY.md` as the host would show it.
pub(crate) fn index_part(
    env: &Environment,
    located: &Located,
    settings: &ClaudeSettings,
    gather: &mut Gather,
) {
    let Some(found) = find(env, located, settings) else { return };
    let path = found.dir.join(INDEX);
    let label = tilde(&path, env.home.as_deref());
    let Ok(dir) = located.root.reader().open_root(&found.dir) else {
        gather.probe(label, Scope::Memory, Verdict::Missing);
        return;
    };
    match dir.read(INDEX, FILE_CAP) {
        Err(e) => gather.probe(label, Scope::Memory, crate::chain::verdict_of(&e)),
        Ok(snap) => {
            let decoded = String::from_utf8_lossy(&snap.bytes);
            let text = decoded.trim();
            if text.is_empty() {
                gather.probe(label, Scope::Memory, Verdict::Empty);
                return;
            }
            let shown = truncate(text, snap.bytes.len());
            gather.include(part(Scope::Memory, path, label, &snap, shown));
        }
    }
}

/// The first 200 lines, or as many whole lines as fit in 25,000
/// characters, with Claude Code's warning when something was cut.
pub fn truncate(text: &str, file_bytes: usize) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let total = lines.len();
    if total > MAX_LINES {
        let kept = lines[..MAX_LINES].join("\n");
        return format!(
            "{kept}\n\n> WARNING: MEMORY.md is {total} lines (limit: {MAX_LINES}). Only part of it was loaded: {} of {total} lines were cut off, starting at line {} (\"{}\"). Keep index entries to one line under ~200 chars; move detail into topic files.",
            total - MAX_LINES,
            MAX_LINES + 1,
            preview(lines[MAX_LINES]),
        );
    }
    if utf16_len(text) <= MAX_CHARS {
        return text.to_owned();
    }
    let mut used = 0;
    let mut keep = 0;
    for (i, line) in lines.iter().enumerate() {
        let cost = utf16_len(line) + usize::from(i > 0);
        if used + cost > MAX_CHARS {
            break;
        }
        used += cost;
        keep = i + 1;
    }
    let kept = lines[..keep].join("\n");
    format!(
        "{kept}\n\n> WARNING: MEMORY.md is {} (limit: {}) — index entries are too long. Only part of it was loaded: {} of {total} lines were cut off, starting at line {} (\"{}\"). Keep index entries to one line under ~200 chars; move detail into topic files.",
        kilobytes(file_bytes),
        kilobytes(MAX_CHARS),
        total - keep,
        keep + 1,
        preview(lines.get(keep).copied().unwrap_or("")),
    )
}

fn utf16_len(s: &str) -> usize {
    s.encode_utf16().count()
}

fn kilobytes(n: usize) -> String {
    format!("{:.1}KB", n as f64 / 1024.0)
}

/// A line as the warning quotes it: at most 80 characters, else 79 and `…`.
fn preview(line: &str) -> String {
    if line.chars().count() <= 80 {
        line.to_owned()
    } else {
        format!("{}…", line.chars().take(79).collect::<String>())
    }
}
