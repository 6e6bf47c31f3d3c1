//! Claude Code's auto memory as the host loads it natively: only
//! `MEMORY.md` of the project's memory directory, last, cut to its first
//! 200 lines or 25,000 characters with the host's own warning.

use std::path::{Path, PathBuf};

use crate::chain::part;
use crate::env::Environment;
use crate::gather::Gather;
use crate::hosts::claude::ClaudeSettings;
use crate::locate::Located;
use crate::memory::claude_dir::{Evidence, MemoryDir, memory_dir};
use crate::memory::load::{FILE_CAP, INDEX};
use crate::paths::tilde;
use crate::resolution::{Scope, Verdict};

/// Lines of `MEMORY.md` Claude Code loads.
pub const MAX_LINES: usize = 200;
/// Characters of `MEMORY.md` Claude Code loads.
pub const MAX_CHARS: usize = 25_000;

/// The project path Claude Code keys memory by: the main repository of a
/// worktree, the git root of the working directory (whatever root the
/// request was bound to: a session started in a package of a monorepo has
/// the monorepo's memory), or, outside git, the working directory. A
/// `.git` in a directory that is never a project (a dotfiles repository in
/// `$HOME`) is no git root.
pub(crate) fn project_path(located: &Located) -> PathBuf {
    let reader = located.root.reader();
    let git_root = if located.evidence == "nearest .git" {
        Some(located.root_path.clone())
    } else {
        crate::locate::find_marked_root(reader, &located.never, &located.cwd, &[".git".to_owned()])
            .map(|(root, _)| root)
    };
    let Some(git_root) = git_root else { return located.cwd.clone() };
    // A `.git` file names a worktree's git directory; it is read only when
    // it lies within the bound root.
    if git_root.starts_with(&located.root_path) {
        let rel = git_root.strip_prefix(&located.root_path).unwrap_or(Path::new(""));
        let dot_git = rel.join(".git");
        if let Ok(snap) = located.root.read(&dot_git, 4096) {
            return worktree_main(reader, &git_root, &snap.bytes).unwrap_or(git_root);
        }
    }
    git_root
}

/// The main repository of the worktree whose `.git` file says `text`,
/// accepted only as git itself checks it: `gitdir:` names
/// `<main>/.git/worktrees/<name>`, an existing directory whose `gitdir`
/// file points back at this `.git` file and whose `commondir` names
/// `<main>/.git`. Anything else (a `.git` file that names another
/// repository to borrow its memory) is `None`: the directory is its own
/// root. Reads two small files of the named directory, never sent.
fn worktree_main(reader: &agentspine_fs::Reader, git_root: &Path, text: &[u8]) -> Option<PathBuf> {
    let text = std::str::from_utf8(text).ok()?;
    let named = Path::new(text.trim().strip_prefix("gitdir:")?.trim());
    let gitdir =
        crate::paths::lexical(&if named.is_absolute() { named.to_path_buf() } else { git_root.join(named) });
    let main_git = gitdir.parent()?.parent()?;
    if gitdir.parent()?.file_name()? != "worktrees" || main_git.file_name()? != ".git" {
        return None;
    }
    let dir = reader.open_root(&gitdir).ok()?;
    let back = dir.read("gitdir", 4096).ok()?;
    let back = std::str::from_utf8(&back.bytes).ok()?.trim().to_owned();
    if crate::paths::lexical(Path::new(&back)) != git_root.join(".git") {
        return None;
    }
    let common = dir.read("commondir", 4096).ok()?;
    let common = Path::new(std::str::from_utf8(&common.bytes).ok()?.trim()).to_path_buf();
    let common = crate::paths::lexical(&if common.is_absolute() { common } else { gitdir.join(common) });
    if common != main_git {
        return None;
    }
    main_git.parent().map(Path::to_path_buf)
}

/// Finds the memory directory from evidence.
pub(crate) fn find(env: &Environment, located: &Located, settings: &ClaudeSettings) -> Option<MemoryDir> {
    let config = super::home(env)?;
    let project = project_path(located);
    let evidence = Evidence {
        home: env.home.as_deref(),
        config: &config,
        config_dir_set: env.var_path("CLAUDE_CONFIG_DIR").is_some(),
        auto_memory_directory: settings.auto_memory_directory.as_deref(),
        project_dir_name: env.var_text("CLAUDE_CODE_PROJECT_DIR_NAME"),
        project_path: &project,
    };
    let reader = located.root.reader();
    // A directory that is there but refused (a link) is found, so that
    // its refusal is reported rather than taken for no memory at all.
    memory_dir(&evidence, |found| {
        !matches!(crate::memory::load::open_dir(reader, &found.dir, found.anchor.as_deref()),
            Err(e) if e.code() == agentspine_fs::Code::NotFound)
    })
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
    let dir = match crate::memory::load::open_dir(located.root.reader(), &found.dir, found.anchor.as_deref())
    {
        Ok(dir) => dir,
        Err(e) => {
            gather.probe(label, Scope::Memory, crate::chain::verdict_of(&e));
            return;
        }
    };
    // The memory directory is never read through a link, not even one that
    // stays in it (the memory load refuses them too): the index alone.
    match dir.read_remembered(INDEX, FILE_CAP).map_err(|e| crate::chain::verdict_of(&e)) {
        Err(verdict) => gather.probe(label, Scope::Memory, verdict),
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

/// Where Claude Code cuts a `MEMORY.md` (its trimmed text), when it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryCut {
    /// Lines kept (the cut starts at line `kept + 1`).
    pub kept: usize,
    /// Lines in the text.
    pub total: usize,
    /// Whether the 25,000-character bound cut it (else the 200-line one).
    pub by_chars: bool,
}

/// The one rule for where the index is cut: the first 200 lines, or as
/// many whole lines as fit in 25,000 characters (UTF-16 units).
pub fn cut_of(text: &str) -> Option<MemoryCut> {
    let lines: Vec<&str> = text.split('\n').collect();
    let total = lines.len();
    if total > MAX_LINES {
        return Some(MemoryCut { kept: MAX_LINES, total, by_chars: false });
    }
    if utf16_len(text) <= MAX_CHARS {
        return None;
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
    Some(MemoryCut { kept: keep, total, by_chars: true })
}

/// The first 200 lines, or as many whole lines as fit in 25,000
/// characters, with Claude Code's warning when something was cut.
pub fn truncate(text: &str, file_bytes: usize) -> String {
    let Some(cut) = cut_of(text) else { return text.to_owned() };
    let lines: Vec<&str> = text.split('\n').collect();
    let (total, keep) = (cut.total, cut.kept);
    let kept = lines[..keep].join("\n");
    if !cut.by_chars {
        return format!(
            "{kept}\n\n> WARNING: MEMORY.md is {total} lines (limit: {MAX_LINES}). Only part of it was loaded: {} of {total} lines were cut off, starting at line {} (\"{}\"). Keep index entries to one line under ~200 chars; move detail into topic files.",
            total - MAX_LINES,
            MAX_LINES + 1,
            preview(lines[MAX_LINES]),
        );
    }
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
