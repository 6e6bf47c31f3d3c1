//! `Root::follow_link`: which file of the root a link names, found without
//! following it, against every backend.

use agentspine_fs::{Backend, Code, FsError, LinkRefusal, LinkTarget};

use crate::support::{Tree, backends, reader};

fn each(test: impl Fn(Backend)) {
    for backend in backends() {
        test(backend);
    }
}

fn refusal<T: std::fmt::Debug>(result: Result<T, FsError>) -> LinkRefusal {
    match result {
        Err(FsError::Link { refusal, .. }) => refusal,
        other => panic!("expected a link refusal, got {other:?}"),
    }
}

fn target(path: &str, hops: u32) -> LinkTarget {
    LinkTarget { path: path.to_owned(), hops }
}

/// The layouts real repositories use, each named by its own path.
#[test]
fn links_inside_the_root_name_a_file_of_it() {
    each(|backend| {
        let tree = Tree::new();
        tree.file("AGENTS.md", b"root")
            .symlink("CLAUDE.md", "AGENTS.md")
            .file(".agents/AGENTS.md", b"hidden")
            .symlink("pkg/AGENTS.md", "../.agents/AGENTS.md")
            .symlink("pkg/CLAUDE.md", "AGENTS.md")
            .file("shared/rules.md", b"shared")
            .symlink("pkg/deep/AGENTS.md", "../../shared/./rules.md")
            .symlink("linked", "shared")
            .symlink("pkg/via-dir.md", "../linked/rules.md")
            .symlink("abs.md", tree.root.join("shared/rules.md"));
        let root = reader(backend).open_root(&tree.root).unwrap();
        assert_eq!(root.follow_link("CLAUDE.md").unwrap(), target("AGENTS.md", 1), "{backend:?}");
        assert_eq!(root.follow_link("pkg/AGENTS.md").unwrap(), target(".agents/AGENTS.md", 1));
        // A link to a link: two hops, each from its own directory.
        assert_eq!(root.follow_link("pkg/CLAUDE.md").unwrap(), target(".agents/AGENTS.md", 2));
        assert_eq!(root.follow_link("pkg/deep/AGENTS.md").unwrap(), target("shared/rules.md", 1));
        // A directory link in the middle of the target is a hop too.
        assert_eq!(root.follow_link("pkg/via-dir.md").unwrap(), target("shared/rules.md", 2));
        // An absolute text is taken only beneath the root's own path.
        assert_eq!(root.follow_link("abs.md").unwrap(), target("shared/rules.md", 1));
        // No link: the path itself.
        assert_eq!(root.follow_link("AGENTS.md").unwrap(), target("AGENTS.md", 0));
        // The answer is a path the reader opens as a file of its own.
        let t = root.follow_link("pkg/CLAUDE.md").unwrap();
        assert_eq!(root.read(&t.path, 64).unwrap().bytes, b"hidden");
    });
}

/// A subdirectory's links are answered from the top-level root: a package
/// may link to a file beside it or above it.
#[test]
fn a_subdirectory_answers_from_the_top_level_root() {
    each(|backend| {
        let tree = Tree::new();
        tree.file("shared/rules.md", b"shared")
            .symlink("pkg/AGENTS.md", "../shared/rules.md")
            .symlink("pkg/CLAUDE.md", "AGENTS.md");
        let top = reader(backend).open_root(&tree.root).unwrap();
        let pkg = top.subdir("pkg").unwrap();
        assert_eq!(pkg.follow_link("AGENTS.md").unwrap(), target("shared/rules.md", 1), "{backend:?}");
        assert_eq!(pkg.follow_link("CLAUDE.md").unwrap(), target("shared/rules.md", 2));
        assert_eq!(pkg.top().read("shared/rules.md", 64).unwrap().bytes, b"shared");
        assert_eq!(pkg.top().prefix(), "");
    });
}

#[test]
fn links_out_dangling_looping_or_into_git_are_refused_each_with_its_reason() {
    each(|backend| {
        let tree = Tree::new();
        tree.file(".git/info/rules.md", b"git")
            .file("shared/rules.md", b"shared")
            .symlink("out.md", "../outside/secret.md")
            .symlink("abs-out.md", tree.outside.join("secret.md"))
            .symlink("proc.md", "/proc/self/root/etc/passwd")
            .symlink("pkg/out.md", "../../outside/secret.md")
            .symlink("dangling.md", "missing.md")
            .symlink("dangling-dir.md", "missing/rules.md")
            .symlink("through-file.md", "shared/rules.md/x")
            .symlink("loop.md", "loop.md")
            .symlink("a.md", "b.md")
            .symlink("b.md", "a.md")
            .symlink("git.md", ".git/info/rules.md")
            .symlink("gitdir", ".git")
            .symlink("git-via-dir.md", "gitdir/info/rules.md");
        std::fs::write(tree.outside.join("secret.md"), b"secret").unwrap();
        let root = reader(backend).open_root(&tree.root).unwrap();
        for (name, why) in [
            ("out.md", LinkRefusal::Outside),
            ("abs-out.md", LinkRefusal::Outside),
            ("proc.md", LinkRefusal::Outside),
            ("pkg/out.md", LinkRefusal::Outside),
            ("dangling.md", LinkRefusal::Dangling),
            ("dangling-dir.md", LinkRefusal::Dangling),
            ("through-file.md", LinkRefusal::Dangling),
            ("loop.md", LinkRefusal::Loop),
            ("a.md", LinkRefusal::Loop),
            ("git.md", LinkRefusal::IntoGit),
            ("git-via-dir.md", LinkRefusal::IntoGit),
        ] {
            assert_eq!(refusal(root.follow_link(name)), why, "{backend:?} {name}");
        }
        // Each refusal names the link's own text and keeps a stable code.
        match root.follow_link("out.md") {
            Err(e @ FsError::Link { .. }) => {
                assert_eq!(e.code(), Code::Escape);
                assert!(e.to_string().contains("../outside/secret.md"), "{e}");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(root.follow_link("dangling.md").unwrap_err().code(), Code::NotFound);
        assert_eq!(root.follow_link("loop.md").unwrap_err().code(), Code::Symlink);
        // Without a link on the way, a missing name is just missing.
        assert_eq!(root.follow_link("nothing.md").unwrap_err().code(), Code::NotFound);
    });
}

/// A link to the root itself, or to a directory, names no file.
#[test]
fn a_link_to_a_directory_is_not_a_file() {
    each(|backend| {
        let tree = Tree::new();
        tree.dir("docs").symlink("AGENTS.md", "docs").symlink("here.md", ".").symlink("pkg/up.md", "..");
        let root = reader(backend).open_root(&tree.root).unwrap();
        // The directory is named; reading it is refused as not a file.
        let t = root.follow_link("AGENTS.md").unwrap();
        assert_eq!(t, target("docs", 1));
        assert_eq!(root.read(&t.path, 64).unwrap_err().code(), Code::NotRegular);
        assert_eq!(root.follow_link("here.md").unwrap_err().code(), Code::NotRegular);
        assert_eq!(root.follow_link("pkg/up.md").unwrap_err().code(), Code::NotRegular);
    });
}

/// Exact cost: for `CLAUDE.md -> AGENTS.md`, one parent open and one look
/// per name and one `readlinkat`; nothing opened for reading.
#[test]
fn following_costs_one_look_per_name_and_one_readlink_per_link() {
    each(|backend| {
        let tree = Tree::new();
        tree.file("pkg/AGENTS.md", b"x").symlink("pkg/CLAUDE.md", "AGENTS.md");
        let top = reader(backend).open_root(&tree.root).unwrap();
        let before = top.reader().counters();
        top.follow_link("pkg/CLAUDE.md").unwrap();
        let c = top.reader().counters() - before;
        // Looks at pkg, CLAUDE.md and AGENTS.md; the walk also looks at
        // each parent it opened (pkg, twice) for its mount.
        let stats = match backend {
            Backend::Openat2 => 3,
            Backend::Walk => 5,
        };
        assert_eq!((c.readlinks, c.stats, c.reads, c.dir_enumerations), (1, stats, 0, 0), "{backend:?}");
        // The parent of CLAUDE.md and of AGENTS.md (pkg) is opened once for each.
        assert_eq!(c.opens, 2, "{backend:?}");
    });
}

/// A root a client names is opened exactly as spelled: a link anywhere on
/// its path, a `/proc` magic link included, is refused naming the path up
/// to the link; `..` is reduced first; mount points are crossed.
#[test]
fn a_root_named_through_a_link_is_refused_naming_the_link() {
    each(|backend| {
        let tree = Tree::new();
        tree.file("proj/AGENTS.md", b"x").symlink("linked", "proj").symlink("up", ".");
        let r = reader(backend);
        let root = r.open_root_without_links(&tree.root.join("proj")).unwrap();
        assert_eq!(root.read("AGENTS.md", 64).unwrap().bytes, b"x", "{backend:?}");
        assert_eq!(root.host_path(), tree.root.join("proj").canonicalize().unwrap());
        for (named, link) in [
            (tree.root.join("linked"), tree.root.join("linked")),
            (tree.root.join("up/proj"), tree.root.join("up")),
            (
                std::path::PathBuf::from(format!("/proc/self/root{}", tree.root.join("proj").display())),
                std::path::PathBuf::from("/proc/self"),
            ),
        ] {
            match r.open_root_without_links(&named) {
                Err(FsError::Symlink { path }) => assert_eq!(path, link.display().to_string(), "{backend:?}"),
                other => panic!("{backend:?} {named:?}: {other:?}"),
            }
        }
        // `..` is reduced before anything is opened.
        let back = tree.root.join("proj/../proj");
        assert!(r.open_root_without_links(&back).is_ok());
        assert_eq!(r.open_root_without_links(&tree.root.join("none")).unwrap_err().code(), Code::NotFound);
        assert_eq!(
            r.open_root_without_links(&tree.root.join("proj/AGENTS.md")).unwrap_err().code(),
            Code::NotDirectory
        );
        assert_eq!(
            r.open_root_without_links(std::path::Path::new("rel")).unwrap_err().code(),
            Code::InvalidPath
        );
    });
}
