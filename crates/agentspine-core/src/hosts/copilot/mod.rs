//! GitHub Copilot CLI's rules (HOSTS.md, "GitHub Copilot CLI"; measured on
//! 1.0.102: tests/e2e/COPILOT-MEASURED.md).
//!
//! - Root: the nearest directory at or above the cwd holding a `.git`
//!   git itself would accept ([`git_accepts`]: a directory with `HEAD`,
//!   `objects/` and `refs/`, or a file starting `gitdir: `, whatever it
//!   names); an empty `.git` file or directory, or one with only `HEAD`,
//!   is passed over. Without a root only the cwd is read.
//! - Elements, in order: `$COPILOT_HOME/copilot-instructions.md` (else
//!   `~/.copilot/…`); the root's `.github/copilot-instructions.md`, then the
//!   cwd's; the root's `AGENTS.md`, `CLAUDE.md`, `GEMINI.md`, then the
//!   cwd's; then each directory between them, nearest the cwd first:
//!   `.github/copilot-instructions.md`, `AGENTS.md`, `CLAUDE.md`,
//!   `.claude/CLAUDE.md`, `GEMINI.md`. Nothing below the cwd at start.
//! - Copilot matches these names case-insensitively (`agents.md` counts,
//!   and with several spellings in one directory the first in listing
//!   order wins); agentspine reads the exact names only.
//! - The text is the file as read: a leading BOM removed, CRLF kept, not
//!   trimmed, invalid UTF-8 replaced per byte; an empty file is an empty
//!   element. The user file is skipped when it is not valid UTF-8. A file
//!   whose text equals an earlier element's is left out. No byte cap
//!   (agentspine keeps its own 4 MiB).
//! - Each is `<custom_instruction>\n<text>\n</custom_instruction>`, joined
//!   by a blank line.
//! - Then the instruction directories ([`instructions`]): the user's
//!   `instructions/`, the root's `.github/instructions` and `.claude/rules`,
//!   then the cwd's; a file that applies everywhere is pasted whole after
//!   the elements, one scoped by a pattern is a row of the table that comes
//!   last. The section is the elements joined by a blank line, or the raw
//!   parts and the table joined by a blank line, or both as
//!   `ELEMENTS\n\nRAW\n` (Copilot adds that last newline only then).
//! - Not modelled: `$COPILOT_CUSTOM_INSTRUCTIONS_DIRS` (directories out of
//!   the project, which agentspine never reads: `resolve` warns
//!   `not-modelled`), `--no-custom-instructions`, and the
//!   `CHILD_CUSTOM_INSTRUCTIONS` feature flag.
//! - Copilot follows links anywhere, out of the project too; agentspine
//!   reads a link inside the root by its target and never one out of it,
//!   and says so per candidate.

pub mod hooks;
pub mod instructions;
pub mod profile;

use std::path::{Path, PathBuf};

use crate::chain::NotRead;
use crate::chain::{ChainDir, FILE_CAP, fetch};
use crate::env::Environment;
use crate::gather::Gather;
use crate::locate::Located;
use crate::paths::tilde;
use crate::resolution::{Part, Resolution, Scope, TableRow, Verdict, Warning};
use crate::text::{lenient_utf8, strip_bom};
use instructions::{Applies, Tree};

/// The instruction file Copilot reads in its home.
pub const USER_FILE: &str = "copilot-instructions.md";
/// The repository's own file.
pub const GITHUB_FILE: &str = ".github/copilot-instructions.md";
/// The names read at the root and in the cwd after the `.github` files.
pub const END_NAMES: [&str; 3] = ["AGENTS.md", "CLAUDE.md", "GEMINI.md"];
/// The names read in each directory between the root and the cwd.
pub const BETWEEN_NAMES: [&str; 5] =
    [GITHUB_FILE, "AGENTS.md", "CLAUDE.md", ".claude/CLAUDE.md", "GEMINI.md"];

/// GitHub Copilot CLI's home: `$COPILOT_HOME`, else `~/.copilot`
/// (`$XDG_CONFIG_HOME` has no effect, measured on 1.0.102).
pub fn home(env: &Environment) -> Option<PathBuf> {
    env.var_path("COPILOT_HOME").or_else(|| env.home.as_ref().map(|h| h.join(".copilot")))
}

/// Every name Copilot reads in some project directory.
pub fn names() -> Vec<String> {
    BETWEEN_NAMES.iter().map(|n| (*n).to_owned()).collect()
}

/// The text Copilot keeps of a project file.
fn text_of(bytes: &[u8]) -> String {
    strip_bom(&lenient_utf8(bytes)).to_owned()
}

pub(crate) fn resolve(
    env: &Environment,
    located: &Located,
    gather: &mut Gather,
    warnings: &mut Vec<Warning>,
) {
    let mut sent: Vec<String> = Vec::new();
    // Copilot's home, opened once for its file and its `instructions/`.
    let home = home(env).map(|path| {
        let handle = located.root.reader().open_root(&path).ok();
        (path, handle)
    });
    if let Some((path, handle)) = &home {
        user(env, path, handle.as_ref(), gather, &mut sent);
    }
    let dirs = located.chain_dirs();
    let Some(last) = dirs.len().checked_sub(1) else { return };
    let mut slots: Vec<(usize, &[&str])> = vec![(0, &[GITHUB_FILE])];
    if last > 0 {
        slots.push((last, &[GITHUB_FILE]));
    }
    slots.push((0, &END_NAMES));
    if last > 0 {
        slots.push((last, &END_NAMES));
    }
    slots.extend((1..last).rev().map(|i| (i, &BETWEEN_NAMES[..])));
    for (i, names) in slots {
        for name in names {
            take(&dirs[i], located, name, gather, &mut sent);
        }
    }
    let home = home.as_ref().and_then(|(path, handle)| Some((path.as_path(), handle.as_ref()?)));
    instruction_dirs(env, located, home, &dirs, last, gather, warnings);
}

/// `~/.copilot/copilot-instructions.md`: skipped when it is not UTF-8.
fn user(
    env: &Environment,
    home: &Path,
    handle: Option<&agentspine_fs::Root>,
    gather: &mut Gather,
    sent: &mut Vec<String>,
) {
    let path = home.join(USER_FILE);
    let label = tilde(&path, env.home.as_deref());
    let Some(handle) = handle else {
        gather.probe(label, Scope::User, Verdict::Missing);
        return;
    };
    match fetch(handle, USER_FILE, FILE_CAP) {
        Ok(fetched) => match std::str::from_utf8(&fetched.snap.bytes) {
            Ok(text) => {
                let text = strip_bom(text).to_owned();
                keep(fetched.part(Scope::User, path, label, text), gather, sent);
            }
            Err(_) => gather.probe(
                label,
                Scope::User,
                Verdict::Skipped { reason: "Copilot skips a user file that is not valid UTF-8".to_owned() },
            ),
        },
        Err(not_read) if not_read.host_reads_it() => gather.probe_differs(
            label,
            Scope::User,
            not_read,
            "GitHub Copilot CLI follows this link and reads its target; agentspine never reads outside the root"
                .to_owned(),
        ),
        Err(not_read) => gather.probe(label, Scope::User, not_read),
    }
}

/// Reads `name` in the chain directory `dir` and keeps it unless its text
/// was sent already.
fn take(dir: &ChainDir, located: &Located, name: &str, gather: &mut Gather, sent: &mut Vec<String>) {
    let handle = match &dir.dir {
        Ok(handle) => handle,
        Err(verdict) => {
            gather.probe(dir.label(name), Scope::Project, verdict.clone());
            return;
        }
    };
    let path: PathBuf = located.root_path.join(&dir.rel).join(name);
    match fetch(handle, name, FILE_CAP) {
        Ok(fetched) => {
            let text = text_of(&fetched.snap.bytes);
            keep(fetched.part(Scope::Project, path, dir.label(name), text), gather, sent);
        }
        Err(not_read) if not_read.host_reads_it() => gather.probe_differs(
            dir.label(name),
            Scope::Project,
            not_read,
            "GitHub Copilot CLI follows this link and reads its target; agentspine never reads outside the root"
                .to_owned(),
        ),
        Err(not_read) => gather.probe(dir.label(name), Scope::Project, not_read),
    }
}

/// Includes `part` unless an earlier element has exactly its text (Copilot
/// sends each text once).
fn keep(part: Part, gather: &mut Gather, sent: &mut Vec<String>) {
    if sent.contains(&part.text) {
        gather.probe(part.label, part.scope, Verdict::Duplicate);
        return;
    }
    sent.push(part.text.clone());
    gather.include(part);
}

/// The instruction directories, in Copilot's order: the user's, then the
/// root's `.github/instructions` and `.claude/rules`, then the cwd's.
fn instruction_dirs(
    env: &Environment,
    located: &Located,
    home: Option<(&Path, &agentspine_fs::Root)>,
    dirs: &[ChainDir],
    last: usize,
    gather: &mut Gather,
    warnings: &mut Vec<Warning>,
) {
    if let Some((home, handle)) = home {
        let base = home.join(instructions::USER_DIR);
        let label = tilde(&base, env.home.as_deref());
        let tree =
            TreeAt { tree: Tree::User, dir: handle, rel: instructions::USER_DIR, base: &base, label: &label };
        user_tree(&tree, &base, gather, warnings);
    }
    let mut levels = vec![0];
    if last > 0 {
        levels.push(last);
    }
    for i in levels {
        let Ok(handle) = &dirs[i].dir else { continue };
        let dir_path = located.root_path.join(&dirs[i].rel);
        for (kind, rel) in [(Tree::Github, instructions::GITHUB_DIR), (Tree::Rules, instructions::RULES_DIR)]
        {
            let base = dir_path.join(rel);
            let label = dirs[i].label(rel);
            let tree = TreeAt { tree: kind, dir: handle, rel, base: &base, label: &label };
            // The table names the cwd's own files from the cwd, the root's
            // from the root.
            project_tree(&tree, rel, gather, warnings);
        }
    }
    if let Some(custom) = env.var("COPILOT_CUSTOM_INSTRUCTIONS_DIRS").map(|v| v.to_string_lossy()) {
        warnings.push(Warning {
            code: "not-modelled".to_owned(),
            message: format!(
                "COPILOT_CUSTOM_INSTRUCTIONS_DIRS={custom}: GitHub Copilot CLI also sends the instruction files \
                 of these directories; agentspine does not read them, so this text lacks them"
            ),
            file: None,
        });
    }
}

/// One instruction tree: its kind, the directory holding it, its path
/// there, its absolute path and its label.
struct TreeAt<'a> {
    tree: Tree,
    dir: &'a agentspine_fs::Root,
    rel: &'a str,
    base: &'a Path,
    label: &'a str,
}

impl TreeAt<'_> {
    /// Opens the tree; `None` when it is not there (or not one agentspine
    /// reads, which is recorded).
    fn open(&self, scope: Scope, gather: &mut Gather) -> Option<agentspine_fs::Root> {
        match self.dir.subdir(self.rel) {
            Ok(handle) => Some(handle),
            Err(e) => {
                let not_read = NotRead::from(crate::chain::verdict_of(&e));
                match not_read.verdict {
                    Verdict::Missing => {}
                    _ if not_read.host_reads_it() => gather.probe_differs(
                        self.label,
                        scope,
                        not_read,
                        "GitHub Copilot CLI follows this link and reads the files beneath it; agentspine never \
                         reads outside the root"
                            .to_owned(),
                    ),
                    _ => gather.probe(self.label, scope, not_read),
                }
                None
            }
        }
    }

    fn walked(
        &self,
        handle: &agentspine_fs::Root,
        scope: Scope,
        gather: &mut Gather,
        warnings: &mut Vec<Warning>,
    ) -> Vec<String> {
        let walk = instructions::walk(handle, self.tree);
        for (rel, verdict) in walk.unlisted {
            gather.probe(format!("{}/{rel}", self.label), scope, verdict);
        }
        if walk.truncated {
            warnings.push(Warning {
                code: "instructions-bound".to_owned(),
                message: format!(
                    "{}: more instruction files or entries than agentspine reads from one tree ({} files); \
                     GitHub Copilot CLI reads on, so this text may lack some",
                    self.base.display(),
                    instructions::MAX_FILES
                ),
                file: Some(self.base.to_path_buf()),
            });
        }
        walk.files
    }
}

/// The root's or the cwd's tree: every file read lossily, as Copilot reads
/// project files.
fn project_tree(tree: &TreeAt<'_>, shown_under: &str, gather: &mut Gather, warnings: &mut Vec<Warning>) {
    let Some(handle) = tree.open(Scope::Project, gather) else { return };
    for rel in tree.walked(&handle, Scope::Project, gather, warnings) {
        let label = format!("{}/{rel}", tree.label);
        let path = tree.base.join(&rel);
        match fetch(&handle, &rel, FILE_CAP) {
            Ok(fetched) => {
                let text = text_of(&fetched.snap.bytes);
                let part = fetched.part(Scope::Project, path, label, text);
                place(part, tree.tree, format!("{shown_under}/{rel}"), gather);
            }
            Err(not_read) => not_taken(label, Scope::Project, not_read, gather),
        }
    }
}

/// The user's tree: Copilot skips a file that is not UTF-8, one over
/// 1 MiB, and every file from the one that takes the total over 10 MiB.
fn user_tree(tree: &TreeAt<'_>, base: &Path, gather: &mut Gather, warnings: &mut Vec<Warning>) {
    let Some(handle) = tree.open(Scope::User, gather) else { return };
    let mut total: u64 = 0;
    let mut spent = false;
    for rel in tree.walked(&handle, Scope::User, gather, warnings) {
        let label = format!("{}/{rel}", tree.label);
        let path = base.join(&rel);
        let fetched = match fetch(&handle, &rel, FILE_CAP) {
            Ok(fetched) => fetched,
            Err(not_read) => {
                not_taken(label, Scope::User, not_read, gather);
                continue;
            }
        };
        let size = fetched.snap.bytes.len() as u64;
        let skip = if spent {
            Some("GitHub Copilot CLI skips user instruction files past 10 MiB in total".to_owned())
        } else if size > instructions::USER_FILE_LIMIT {
            Some(format!("GitHub Copilot CLI skips a user instruction file over 1 MiB ({size} bytes)"))
        } else if total + size > instructions::USER_TOTAL_LIMIT {
            spent = true;
            Some("GitHub Copilot CLI skips user instruction files past 10 MiB in total".to_owned())
        } else {
            None
        };
        if let Some(reason) = skip {
            gather.probe(label, Scope::User, Verdict::Skipped { reason });
            continue;
        }
        total += size;
        let Ok(text) = std::str::from_utf8(&fetched.snap.bytes) else {
            gather.probe(
                label,
                Scope::User,
                Verdict::Skipped { reason: "Copilot skips a user file that is not valid UTF-8".to_owned() },
            );
            continue;
        };
        let text = strip_bom(text).to_owned();
        let shown = path.display().to_string();
        let part = fetched.part(Scope::User, path, label, text);
        place(part, tree.tree, shown, gather);
    }
}

/// A file that applies everywhere is included; a scoped one is listed;
/// one excluded from the coding agent is skipped.
fn place(part: Part, tree: Tree, shown: String, gather: &mut Gather) {
    let front = instructions::front(&part.text, tree);
    match front.applies {
        Applies::Everywhere => gather.include(part),
        Applies::Patterns(patterns) => gather.probe(
            part.label,
            part.scope,
            NotRead {
                verdict: Verdict::Listed {
                    row: Box::new(TableRow { patterns, shown, description: front.description }),
                },
                link: part.link,
            },
        ),
        Applies::Excluded => gather.probe(
            part.label,
            part.scope,
            NotRead {
                verdict: Verdict::Skipped {
                    reason: "`excludeAgent: coding-agent`: GitHub Copilot CLI's agent leaves it out"
                        .to_owned(),
                },
                link: part.link,
            },
        ),
    }
}

/// A file of a tree that was not read: a link out of the root is one
/// Copilot reads; a dangling or looping link, a directory, an unreadable
/// file are nothing to Copilot either.
fn not_taken(label: String, scope: Scope, not_read: NotRead, gather: &mut Gather) {
    if not_read.host_reads_it() {
        gather.probe_differs(
            label,
            scope,
            not_read,
            "GitHub Copilot CLI follows this link and reads its target; agentspine never reads outside the root"
                .to_owned(),
        );
    } else {
        gather.probe(label, scope, not_read);
    }
}

/// Whether a part is one of the instruction directories' raw files (they
/// follow the elements; see [`instruction_dirs`]).
fn is_raw(part: &Part, r: &Resolution) -> bool {
    let under = |dir: &Path| {
        [instructions::GITHUB_DIR, instructions::RULES_DIR].iter().any(|t| part.path.starts_with(dir.join(t)))
    };
    let cwd_dir = r.project_root.join(&r.chain_dir);
    under(&r.project_root)
        || under(&cwd_dir)
        || r.profile_home.as_ref().is_some_and(|h| part.path.starts_with(h.join(instructions::USER_DIR)))
}

/// Copilot's instruction section: the elements
/// (`<custom_instruction>\n<text>\n</custom_instruction>`, joined by a
/// blank line), then the raw files and the table of listed files (joined by
/// a blank line); both together as `ELEMENTS\n\nRAW\n`.
pub fn render(r: &Resolution) -> String {
    let (raw, elements): (Vec<&Part>, Vec<&Part>) = r.parts.iter().partition(|p| is_raw(p, r));
    let a = elements
        .iter()
        .map(|p| format!("<custom_instruction>\n{}\n</custom_instruction>", p.text))
        .collect::<Vec<_>>()
        .join("\n\n");
    let rows = r.probes.iter().filter_map(|p| match &p.verdict {
        Verdict::Listed { row } => {
            Some((row.patterns.as_slice(), row.shown.as_str(), row.description.as_str()))
        }
        _ => None,
    });
    let mut b: Vec<String> = raw.iter().map(|p| p.text.clone()).collect();
    b.extend(instructions::table(rows));
    let b = b.join("\n\n");
    match (elements.is_empty(), raw.is_empty() && b.is_empty()) {
        (_, true) => a,
        (true, false) => b,
        (false, false) => format!("{a}\n\n{b}\n"),
    }
}

/// Whether Copilot counts `dir`'s `.git` (an entry of `kind`) as a
/// repository's: a directory holding what git needs of one (`HEAD`, a
/// file or a link; `objects/` and `refs/`; their contents are not looked
/// at); a file whose text starts
/// `gitdir: ` (the path it names is not looked at: `gitdir: /nonexistent`
/// counts). A `.git` that is a link is counted, as the git rule of every
/// host does, without following it (unmeasured for Copilot).
pub(crate) fn git_accepts(dir: &agentspine_fs::Root, kind: agentspine_fs::FileKind) -> bool {
    use agentspine_fs::FileKind;
    match kind {
        FileKind::Directory => {
            let Ok(git) = dir.subdir(".git") else { return false };
            let is = |name: &str, kinds: &[FileKind]| git.stat(name).is_ok_and(|m| kinds.contains(&m.kind));
            is("HEAD", &[FileKind::File, FileKind::Symlink])
                && is("objects", &[FileKind::Directory])
                && is("refs", &[FileKind::Directory])
        }
        FileKind::File => dir.read_head(".git", 8).is_ok_and(|snap| snap.bytes == b"gitdir: "),
        FileKind::Symlink => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_keeps_crlf_and_whitespace_drops_the_bom_and_replaces_invalid_bytes() {
        assert_eq!(text_of(b"\xef\xbb\xbf  S1\r\nS2\r\n\n"), "  S1\r\nS2\r\n\n");
        assert_eq!(text_of(b"LATIN1 \xe9\xe8\n"), "LATIN1 \u{fffd}\u{fffd}\n");
        assert_eq!(text_of(b""), "");
    }
}
