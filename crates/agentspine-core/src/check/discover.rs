//! The directories a check looks at: the root, and each directory the
//! catalog's bounded walk ([`crate::catalog::walk`]) finds holding a name
//! one of the checked hosts reads (by default or by the user's
//! configuration: Gemini's `context.fileName`, Codex's fallback names), a
//! link of such a name, or a `.claude` directory, with the same bounds
//! (8,192 entries, the deadline, 240 files) and the same
//! `bounded-truncated` rule. The walk also keeps the names of the files it
//! saw, for `.claude/rules` whose `paths:` must match one.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::Path;

use agentspine_fs::{FileKind, Root};

use crate::catalog::markdown::{FILES_BOUND, MAX_FILES};
use crate::catalog::walk::{Step, join, walk};

/// The names whose presence a host's rules never probing them is worth a
/// `never-read` finding: the AGENTS.md and CLAUDE.md families, which
/// repositories write for more than one host. Other names (`GEMINI.md`, a
/// configured fallback) make their directory checked, nothing more.
pub(crate) const SHARED_NAMES: [&str; 6] =
    ["AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD", "CLAUDE.local.md"];

/// What the walk found.
#[derive(Debug, Default)]
pub(crate) struct Discovered {
    /// Directories to check, relative to the root: `.` first, then in
    /// walk order, then the ones asked for that the walk did not find.
    pub(crate) dirs: Vec<String>,
    /// Per directory (`.` for the root), the instruction names present and
    /// what each is (`None`: a link).
    pub(crate) present: BTreeMap<String, BTreeMap<String, Option<FileKind>>>,
    /// Each link of an instruction name the walk saw (by label) and the
    /// file it names when that lies inside the root.
    pub(crate) links: BTreeMap<String, Option<String>>,
    /// Each `CLAUDE.md` asked about so far (see [`Discovered::pointer`]), by
    /// label, with the `AGENTS.md` it imports, if it does.
    pointers: std::cell::RefCell<BTreeMap<String, Option<String>>>,
    /// The root, for [`Discovered::pointer`]'s reads.
    root: Option<Root>,
    /// Files the walk saw (not ignored), relative to the root.
    pub(crate) files: Vec<String>,
    /// Where a bound stopped the walk, if one did.
    pub(crate) stopped: Option<crate::catalog::walk::Stopped>,
}

impl Discovered {
    /// The `AGENTS.md` (label) the `CLAUDE.md` at `label` imports with `@`,
    /// if it does: a pointer, as Anthropic's documentation recommends for
    /// AGENTS.md repositories. Read when first asked (4 MiB at most), its
    /// imports found as Claude Code finds them: only a finding that needs
    /// it reads the file.
    pub(crate) fn pointer(&self, label: &str) -> Option<String> {
        if label.rsplit('/').next() != Some("CLAUDE.md") {
            return None;
        }
        if let Some(known) = self.pointers.borrow().get(label) {
            return known.clone();
        }
        let found = self.root.as_ref().and_then(|root| imported_agents_md(root, label));
        self.pointers.borrow_mut().insert(label.to_owned(), found.clone());
        found
    }

    /// The instruction names present in `dir`.
    pub(crate) fn names_in(&self, dir: &str) -> impl Iterator<Item = (&String, &Option<FileKind>)> {
        self.present.get(dir).into_iter().flatten()
    }
}

/// `dir` as a check names it: `.` for the root.
fn shown(dir: &str) -> String {
    if dir.is_empty() { ".".to_owned() } else { dir.to_owned() }
}

/// Walks the tree for directories holding any of `names` (with
/// [`SHARED_NAMES`] always among them).
pub(crate) fn discover(root: &Root, root_path: &Path, names: &[String], extra: &[String]) -> Discovered {
    let wanted = wanted(names);
    let mut found = Discovered { dirs: vec![".".to_owned()], ..Discovered::default() };
    let mut taken = 0usize;
    let stopped = walk(root, root_path, |step| {
        if let Step::File { rel, .. } = &step {
            found.files.push(rel.clone());
        }
        let Step::Listed { dir, listing } = step else { return ControlFlow::Continue(()) };
        let here = names_here(root, dir, listing, &wanted, &mut found);
        if here.is_empty() {
            return ControlFlow::Continue(());
        }
        taken += here.len();
        let name = shown(dir);
        if name != "." {
            found.dirs.push(name.clone());
        }
        found.present.insert(name, here);
        if taken > MAX_FILES { ControlFlow::Break(FILES_BOUND) } else { ControlFlow::Continue(()) }
    });
    found.stopped = stopped;
    found.root = Some(root.clone());
    for dir in extra {
        let rel = dir.trim_end_matches('/');
        let name = shown(rel);
        if !found.dirs.contains(&name) {
            found.dirs.push(name.clone());
        }
        // A directory the walk passes over (hidden, ignored, beyond a
        // bound) is listed once, so its names count as the walk's do.
        if !found.present.contains_key(&name)
            && let Ok(listing) =
                root.list(if rel.is_empty() { "." } else { rel }, crate::catalog::walk::MAX_ENTRIES)
        {
            let here = names_here(root, rel, &listing, &wanted, &mut found);
            if !here.is_empty() {
                found.present.insert(name, here);
            }
        }
    }
    found
}

/// The names worth a check: `names` and [`SHARED_NAMES`].
fn wanted(names: &[String]) -> std::collections::BTreeSet<&str> {
    let mut wanted: std::collections::BTreeSet<&str> = SHARED_NAMES.into_iter().collect();
    wanted.extend(names.iter().map(String::as_str).filter(|n| *n != ".claude"));
    wanted
}

/// The wanted names of one listing (and each link's target, in `found`).
fn names_here(
    root: &Root,
    dir: &str,
    listing: &agentspine_fs::Listing,
    wanted: &std::collections::BTreeSet<&str>,
    found: &mut Discovered,
) -> BTreeMap<String, Option<FileKind>> {
    let mut here: BTreeMap<String, Option<FileKind>> = BTreeMap::new();
    for entry in &listing.entries {
        if wanted.contains(entry.name.as_str()) {
            here.insert(entry.name.clone(), Some(entry.kind));
        }
    }
    for entry in &listing.hidden {
        if entry.name == ".claude" {
            here.insert(entry.name.clone(), Some(entry.kind));
        }
    }
    for name in &listing.symlinks {
        if wanted.contains(name.as_str()) || name == ".claude" {
            here.insert(name.clone(), None);
            let link = label(&shown(dir), name);
            let target = root.follow_link(&link).ok().map(|t| t.path);
            found.links.insert(link, target);
        }
    }
    here
}

/// No walk: the root and `dirs` (relative to it), each listed once, for
/// the sessions started in them.
pub(crate) fn listed(root: &Root, names: &[String], dirs: &[String]) -> Discovered {
    let wanted = wanted(names);
    let mut found = Discovered { dirs: vec![".".to_owned()], ..Discovered::default() };
    for dir in std::iter::once(String::new()).chain(dirs.iter().map(|d| d.trim_end_matches('/').to_owned())) {
        let name = shown(&dir);
        if name != "." && !found.dirs.contains(&name) {
            found.dirs.push(name.clone());
        }
        let Ok(listing) =
            root.list(if dir.is_empty() { "." } else { &dir }, crate::catalog::walk::MAX_ENTRIES)
        else {
            continue;
        };
        let here = names_here(root, &dir, &listing, &wanted, &mut found);
        if !here.is_empty() {
            found.present.insert(name, here);
        }
    }
    found.root = Some(root.clone());
    found
}

/// The `AGENTS.md` the `CLAUDE.md` at `label` imports, if any.
fn imported_agents_md(root: &Root, label: &str) -> Option<String> {
    let snap = crate::chain::fetch(root, label, crate::chain::FILE_CAP).ok()?;
    let text = crate::hosts::claude::clean(&snap.bytes);
    let base = label.rsplit_once('/').map_or("", |(d, _)| d);
    crate::hosts::claude::imports::find_imports(&text).into_iter().find_map(|import| {
        let target = crate::paths::lexical(&std::path::Path::new("/").join(base).join(&import));
        let target = target.strip_prefix("/").unwrap_or(&target).display().to_string();
        (target.rsplit('/').next() == Some("AGENTS.md")).then_some(target)
    })
}

/// `name` in `dir` as a probe labels it (`dir` is `.` for the root).
pub(crate) fn label(dir: &str, name: &str) -> String {
    join(if dir == "." { "" } else { dir }, name)
}
