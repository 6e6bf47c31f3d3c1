//! Aliases that would take Claude's memory from somewhere else: a memory
//! directory that is itself a link (or reached through one), and a `.git`
//! file whose `gitdir:` names another repository.

use agentspine_core::memory::claude_dir::encode;
use agentspine_core::{Host, Part, Scope};

use crate::support::{Project, verdict_of};

fn memory_parts(parts: &[Part]) -> Vec<&str> {
    parts.iter().filter(|p| p.scope == Scope::Memory).map(|p| p.text.as_str()).collect()
}

/// The memory directory Claude Code keys by `path`, under the test's home.
fn memory_dir(p: &Project, path: &std::path::Path) -> std::path::PathBuf {
    p.home.join(".claude/projects").join(encode(&path.display().to_string())).join("memory")
}

#[test]
fn a_linked_memory_directory_is_refused_not_followed() {
    let p = Project::git();
    p.file("CLAUDE.md", "root\n");
    let outside = p.dir.path().join("outside-memory");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("MEMORY.md"), "# Memory\n\nSECRET index from outside\n").unwrap();
    let dir = memory_dir(&p, &p.tree);
    std::fs::create_dir_all(dir.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&outside, &dir).unwrap();
    let r = p.resolve(Host::Claude, ".");
    assert!(memory_parts(&r.parts).is_empty(), "{:?}", r.parts);
    let label = format!("~/.claude/projects/{}/memory/MEMORY.md", encode(&p.tree.display().to_string()));
    assert_eq!(verdict_of(&r, &label), "symlink");
    assert!(!format!("{r:?}").contains("SECRET"));

    // A link higher up, on the way from the profile (`projects` itself).
    std::fs::remove_file(&dir).unwrap();
    std::fs::remove_dir(dir.parent().unwrap()).unwrap();
    let projects = p.home.join(".claude/projects");
    std::fs::remove_dir(&projects).unwrap();
    let elsewhere = p.dir.path().join("projects-elsewhere");
    std::fs::create_dir_all(elsewhere.join(encode(&p.tree.display().to_string())).join("memory")).unwrap();
    std::fs::write(
        elsewhere.join(encode(&p.tree.display().to_string())).join("memory/MEMORY.md"),
        "SECRET through a linked projects directory\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(&elsewhere, &projects).unwrap();
    let r = p.resolve(Host::Claude, ".");
    assert!(memory_parts(&r.parts).is_empty(), "{:?}", r.parts);
    assert_eq!(verdict_of(&r, &label), "symlink");
}

/// A worktree `.git` file in `tree` naming `main`'s git directory.
fn worktree(p: &Project, main: &std::path::Path, points_back: bool) {
    let gitdir = main.join(".git/worktrees/wt");
    std::fs::create_dir_all(&gitdir).unwrap();
    std::fs::remove_dir(p.tree.join(".git")).ok();
    std::fs::write(p.tree.join(".git"), format!("gitdir: {}\n", gitdir.display())).unwrap();
    let back = if points_back { p.tree.join(".git") } else { p.dir.path().join("somewhere/.git") };
    std::fs::write(gitdir.join("gitdir"), format!("{}\n", back.display())).unwrap();
    std::fs::write(gitdir.join("commondir"), "../..\n").unwrap();
}

#[test]
fn a_git_file_is_a_worktree_only_when_it_checks_out_as_git_checks_it() {
    let p = Project::new();
    p.file("CLAUDE.md", "root\n");
    let main = p.dir.path().join("main-repo");
    std::fs::create_dir_all(&main).unwrap();
    let theirs = memory_dir(&p, &main);
    std::fs::create_dir_all(&theirs).unwrap();
    std::fs::write(theirs.join("MEMORY.md"), "MAIN_REPOSITORY_MEMORY\n").unwrap();

    // A real worktree: its gitdir points back, its commondir names main's
    // .git. Claude Code keys its memory by the main repository.
    worktree(&p, &main, true);
    let r = p.resolve(Host::Claude, ".");
    assert_eq!(memory_parts(&r.parts), ["MAIN_REPOSITORY_MEMORY"], "{:?}", r.probes);

    // A hostile `.git` file naming another repository: not a worktree, the
    // directory is its own root, with no memory from elsewhere.
    worktree(&p, &main, false);
    let r = p.resolve(Host::Claude, ".");
    assert!(memory_parts(&r.parts).is_empty(), "{:?}", r.parts);
    assert!(!format!("{r:?}").contains("MAIN_REPOSITORY_MEMORY"));

    // Naming a directory that is not a worktree git directory at all.
    std::fs::write(p.tree.join(".git"), format!("gitdir: {}\n", main.join("elsewhere").display())).unwrap();
    let r = p.resolve(Host::Claude, ".");
    assert!(memory_parts(&r.parts).is_empty(), "{:?}", r.parts);
}
