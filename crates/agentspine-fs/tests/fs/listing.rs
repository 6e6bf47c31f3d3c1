//! The only enumeration: bounded, counted, links reported apart.

use agentspine_fs::{Entry, FileKind};

use crate::support::{Tree, backends, reader};

#[test]
fn lists_sorted_with_links_and_hidden_entries_apart() {
    for backend in backends() {
        let tree = Tree::new();
        tree.file("b.md", b"").file("a.md", b"").dir("sub").dir(".git").file(".env", b"");
        tree.symlink("out", &tree.outside).symlink("dangling", "nowhere");
        tree.fifo("pipe");
        let r = reader(backend);
        let root = r.open_root(&tree.root).unwrap();
        let listing = root.list(".", 100).unwrap();
        let e = |name: &str, kind| Entry { name: name.into(), kind };
        assert_eq!(
            listing.entries,
            vec![
                e("a.md", FileKind::File),
                e("b.md", FileKind::File),
                e("pipe", FileKind::Fifo),
                e("sub", FileKind::Directory)
            ]
        );
        assert_eq!(listing.hidden, vec![e(".env", FileKind::File), e(".git", FileKind::Directory)]);
        assert_eq!(listing.symlinks, vec!["dangling".to_owned(), "out".to_owned()]);
        assert!(!listing.truncated);
        assert_eq!(listing.path, ".");
        let c = r.counters();
        assert_eq!((c.dir_enumerations, c.dir_entries), (1, 8), "{backend:?}");
    }
}

#[test]
fn keeps_the_directory_s_own_order_of_every_name_beside_the_sorted_groups() {
    for backend in backends() {
        let tree = Tree::new();
        for name in ["m.md", "z.md", "b.md", ".hidden.md", "a.md"] {
            tree.file(name, b"");
        }
        tree.dir("sub").symlink("link.md", "a.md");
        let on_disk: Vec<String> = std::fs::read_dir(&tree.root)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        let r = reader(backend);
        let listing = r.open_root(&tree.root).unwrap().list(".", 100).unwrap();
        assert_eq!(listing.disk_order, on_disk, "{backend:?}");
        assert_eq!(listing.disk_order.len(), 7);
    }
}

#[test]
fn stops_at_the_bound_and_says_so() {
    for backend in backends() {
        let tree = Tree::new();
        for i in 0..50 {
            tree.file(&format!("d/{i:02}.md"), b"");
        }
        let r = reader(backend);
        let root = r.open_root(&tree.root).unwrap();
        let listing = root.list("d", 10).unwrap();
        assert!(listing.truncated);
        assert_eq!(listing.entries.len(), 10);
        assert_eq!(r.counters().dir_entries, 10);
        let full = root.list("d", 50).unwrap();
        assert!(!full.truncated, "exactly at the bound is not truncated");
        assert_eq!(full.entries.len(), 50);
        assert_eq!(r.counters().dir_enumerations, 2);
    }
}

#[test]
fn lists_beneath_a_subdir_with_prefixed_paths() {
    for backend in backends() {
        let tree = Tree::new();
        tree.file("pkg/src/x.md", b"");
        let root = reader(backend).open_root(&tree.root).unwrap();
        let pkg = root.subdir("pkg").unwrap();
        let listing = pkg.list("src", 10).unwrap();
        assert_eq!(listing.path, "pkg/src");
        assert_eq!(listing.entries.len(), 1);
        assert_eq!(pkg.host_path(), tree.root.join("pkg"));
    }
}
