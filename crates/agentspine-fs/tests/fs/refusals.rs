//! Every refusal, against every backend.

use std::os::unix::net::UnixListener;
use std::path::Path;
use std::time::Duration;

use agentspine_fs::{Backend, Code, FileKind, FsError};

use crate::support::{Tree, backends, code, reader, within};

fn each(test: impl Fn(Backend)) {
    for backend in backends() {
        test(backend);
    }
}

#[test]
fn reads_a_plain_file_with_its_identity() {
    each(|backend| {
        let tree = Tree::new();
        tree.file("a/b/AGENTS.md", b"be brief\n");
        let root = reader(backend).open_root(&tree.root).unwrap();
        let snap = root.read("a/b/AGENTS.md", 1024).unwrap();
        assert_eq!(snap.bytes, b"be brief\n");
        let meta = std::fs::metadata(tree.root.join("a/b/AGENTS.md")).unwrap();
        use std::os::unix::fs::MetadataExt;
        assert_eq!(snap.identity.ino, meta.ino());
        assert_eq!(snap.identity.dev, meta.dev());
        assert_eq!(snap.identity.size, 9);
        assert_eq!(snap.identity.mtime_ns, meta.mtime() * 1_000_000_000 + meta.mtime_nsec());
        assert_eq!(snap.identity.ctime_ns, meta.ctime() * 1_000_000_000 + meta.ctime_nsec());
    });
}

#[test]
fn symlink_as_the_file_is_refused_whatever_it_points_to() {
    each(|backend| {
        let tree = Tree::new();
        tree.file("inside.md", b"inside");
        tree.symlink("rel-inside.md", "inside.md");
        tree.symlink("abs-inside.md", tree.root.join("inside.md"));
        tree.symlink("rel-outside.md", "../outside/secret.md");
        tree.symlink("abs-outside.md", tree.outside.join("secret.md"));
        tree.symlink("dangling.md", "nowhere.md");
        tree.symlink("loop.md", "loop.md");
        let root = reader(backend).open_root(&tree.root).unwrap();
        for name in
            ["rel-inside.md", "abs-inside.md", "rel-outside.md", "abs-outside.md", "dangling.md", "loop.md"]
        {
            assert_eq!(code(root.read(name, 1024)), Code::Symlink, "{backend:?} {name}");
            assert_eq!(code(root.open(name)), Code::Symlink, "{backend:?} {name}");
            // A look at the name itself reports the link without following it.
            assert_eq!(root.stat(name).unwrap().kind, FileKind::Symlink, "{backend:?} {name}");
        }
        assert_eq!(root.read("inside.md", 1024).unwrap().bytes, b"inside");
    });
}

#[test]
fn symlink_as_a_middle_directory_is_refused() {
    each(|backend| {
        let tree = Tree::new();
        tree.file("real/deep/AGENTS.md", b"real");
        tree.symlink("rel-in", "real");
        tree.symlink("abs-in", tree.root.join("real"));
        tree.symlink("rel-out", "../outside");
        tree.symlink("abs-out", &tree.outside);
        tree.symlink("real/up", "..");
        tree.symlink("dangling", "gone");
        let root = reader(backend).open_root(&tree.root).unwrap();
        for path in [
            "rel-in/deep/AGENTS.md",
            "abs-in/deep/AGENTS.md",
            "rel-out/secret.md",
            "abs-out/secret.md",
            "real/up/real/deep/AGENTS.md",
            "dangling/AGENTS.md",
            "rel-in/AGENTS.md",
        ] {
            assert_eq!(code(root.read(path, 1024)), Code::Symlink, "{backend:?} {path}");
            assert_eq!(code(root.stat(path)), Code::Symlink, "{backend:?} {path}");
            assert_eq!(code(root.list(path, 10)), Code::Symlink, "{backend:?} {path}");
            assert_eq!(code(root.subdir(path)), Code::Symlink, "{backend:?} {path}");
        }
        for dir in ["rel-in", "abs-out"] {
            assert_eq!(code(root.list(dir, 10)), Code::Symlink, "{backend:?} {dir}");
            assert_eq!(code(root.subdir(dir)), Code::Symlink, "{backend:?} {dir}");
        }
    });
}

#[test]
fn dot_dot_that_leaves_the_root_is_an_escape() {
    each(|backend| {
        let tree = Tree::new();
        tree.file("a/b/AGENTS.md", b"x");
        let root = reader(backend).open_root(&tree.root).unwrap();
        for path in ["..", "../outside/secret.md", "a/../../outside/secret.md", "a/b/../../..", "./../root/a"]
        {
            assert_eq!(code(root.read(path, 1024)), Code::Escape, "{backend:?} {path}");
            assert_eq!(code(root.stat(path)), Code::Escape, "{backend:?} {path}");
            assert_eq!(code(root.list(path, 10)), Code::Escape, "{backend:?} {path}");
        }
        for path in ["/etc/passwd", "/proc/self/root/etc/passwd", "//etc/passwd"] {
            assert_eq!(code(root.read(path, 1 << 20)), Code::Escape, "{backend:?} {path}");
        }
        // A sub-root is a root of its own: `..` may not leave it either.
        let sub = root.subdir("a").unwrap();
        assert_eq!(code(sub.read("../a/b/AGENTS.md", 10)), Code::Escape);
        assert_eq!(sub.read("b/AGENTS.md", 10).unwrap().bytes, b"x");
    });
}

#[test]
fn dot_dot_that_stays_inside_is_allowed_and_lexical() {
    each(|backend| {
        let tree = Tree::new();
        tree.file("b/AGENTS.md", b"b rules");
        tree.dir("a");
        tree.symlink("link", &tree.outside);
        let root = reader(backend).open_root(&tree.root).unwrap();
        assert_eq!(root.read("a/../b/AGENTS.md", 100).unwrap().bytes, b"b rules");
        assert_eq!(root.read("./b//./AGENTS.md", 100).unwrap().bytes, b"b rules");
        // `..` never reaches the kernel: `missing/..` and `link/..` are
        // reduced away before anything is opened, so nothing is followed.
        assert_eq!(root.read("missing/../b/AGENTS.md", 100).unwrap().bytes, b"b rules");
        assert_eq!(root.read("link/../b/AGENTS.md", 100).unwrap().bytes, b"b rules");
    });
}

#[test]
fn fifo_named_agents_md_is_refused_at_once() {
    each(|backend| {
        let tree = Tree::new();
        tree.fifo("AGENTS.md");
        tree.fifo("sub/AGENTS.md");
        let path = tree.root.clone();
        let (read_top, read_nested, opened) = within(Duration::from_secs(5), move || {
            let root = reader(backend).open_root(&path).unwrap();
            (root.read("AGENTS.md", 1024), root.read("sub/AGENTS.md", 1024), root.open("AGENTS.md"))
        });
        assert!(matches!(read_top, Err(FsError::NotRegular { kind: FileKind::Fifo, .. })), "{read_top:?}");
        assert!(matches!(read_nested, Err(FsError::NotRegular { kind: FileKind::Fifo, .. })));
        // Opening for reading checks the type first, as reading does.
        assert!(matches!(opened, Err(FsError::NotRegular { kind: FileKind::Fifo, .. })), "{opened:?}");
    });
}

#[test]
fn socket_and_device_and_directory_are_not_regular() {
    each(|backend| {
        let tree = Tree::new();
        let _listener = UnixListener::bind(tree.root.join("AGENTS.md")).unwrap();
        tree.dir("CLAUDE.md");
        let root = reader(backend).open_root(&tree.root).unwrap();
        let socket = within(Duration::from_secs(5), {
            let root = root.clone();
            move || root.read("AGENTS.md", 1024)
        });
        assert!(matches!(socket, Err(FsError::NotRegular { kind: FileKind::Socket, .. })), "{socket:?}");
        assert!(matches!(
            root.read("CLAUDE.md", 1024),
            Err(FsError::NotRegular { kind: FileKind::Directory, .. })
        ));
        assert!(matches!(root.read(".", 1024), Err(FsError::NotRegular { kind: FileKind::Directory, .. })));
        let dev = reader(backend).open_root(Path::new("/dev")).unwrap();
        let null = within(Duration::from_secs(5), move || dev.read("null", 1024));
        assert!(matches!(null, Err(FsError::NotRegular { kind: FileKind::CharDevice, .. })), "{null:?}");
    });
}

#[test]
fn proc_magic_links_are_refused() {
    each(|backend| {
        let proc_self = reader(backend).open_root(Path::new("/proc/self")).unwrap();
        for path in ["root/etc/hostname", "cwd/Cargo.toml", "exe", "fd/0", "root"] {
            assert_eq!(code(proc_self.read(path, 1 << 20)), Code::Symlink, "{backend:?} {path}");
        }
        assert_eq!(code(proc_self.list("root", 10)), Code::Symlink);
    });
}

#[test]
fn too_large_is_refused_before_reading() {
    each(|backend| {
        let tree = Tree::new();
        tree.file("big.md", &[b'x'; 5000]);
        let r = reader(backend);
        let root = r.open_root(&tree.root).unwrap();
        let err = root.read("big.md", 4096).unwrap_err();
        assert!(matches!(err, FsError::TooLarge { size: 5000, cap: 4096, .. }), "{err:?}");
        assert_eq!(r.counters().reads, 0);
        assert_eq!(root.read("big.md", 5000).unwrap().bytes.len(), 5000);
    });
}

#[test]
fn missing_paths_and_files_in_the_middle_are_not_found() {
    each(|backend| {
        let tree = Tree::new();
        tree.file("file.md", b"x");
        let root = reader(backend).open_root(&tree.root).unwrap();
        for path in ["nope.md", "nope/AGENTS.md", "file.md/AGENTS.md", "a/b/c/d"] {
            assert_eq!(code(root.read(path, 10)), Code::NotFound, "{backend:?} {path}");
            assert_eq!(code(root.stat(path)), Code::NotFound, "{backend:?} {path}");
        }
        assert!(matches!(root.list("file.md", 10), Err(FsError::NotDirectory { kind: FileKind::File, .. })));
        assert!(matches!(root.subdir("file.md"), Err(FsError::NotDirectory { kind: FileKind::File, .. })));
    });
}

#[test]
fn empty_paths_and_nul_bytes_are_invalid() {
    each(|backend| {
        let tree = Tree::new();
        let root = reader(backend).open_root(&tree.root).unwrap();
        assert_eq!(code(root.read("", 10)), Code::InvalidPath);
        assert_eq!(code(root.read("a\0b", 10)), Code::InvalidPath);
        assert_eq!(code(root.stat("AGENTS.md\0")), Code::InvalidPath);
        assert_eq!(code(reader(backend).open_root(Path::new("relative/root"))), Code::InvalidPath);
    });
}

#[test]
fn permission_denied_is_its_own_code() {
    each(|backend| {
        let tree = Tree::new();
        tree.file("locked/AGENTS.md", b"x");
        tree.file("unreadable.md", b"x");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(tree.root.join("locked"), std::fs::Permissions::from_mode(0o000)).unwrap();
        std::fs::set_permissions(tree.root.join("unreadable.md"), std::fs::Permissions::from_mode(0o000))
            .unwrap();
        let path = tree.root.clone();
        let (nested, file, listing) = crate::support::without_dac_override(move || {
            let root = reader(backend).open_root(&path).unwrap();
            (root.read("locked/AGENTS.md", 10), root.read("unreadable.md", 10), root.list("locked", 10))
        });
        assert_eq!(code(nested), Code::PermissionDenied, "{backend:?}");
        assert_eq!(code(file), Code::PermissionDenied, "{backend:?}");
        assert_eq!(code(listing), Code::PermissionDenied, "{backend:?}");
        std::fs::set_permissions(tree.root.join("locked"), std::fs::Permissions::from_mode(0o755)).unwrap();
    });
}

#[test]
fn errors_name_the_path_and_count_by_code() {
    each(|backend| {
        let tree = Tree::new();
        tree.symlink("docs/AGENTS.md", "../../outside/secret.md");
        let r = reader(backend);
        let root = r.open_root(&tree.root).unwrap();
        let sub = root.subdir("docs").unwrap();
        let err = sub.read("AGENTS.md", 10).unwrap_err();
        assert_eq!(err.path(), "docs/AGENTS.md");
        assert_eq!(
            err.to_string(),
            "docs/AGENTS.md: refused: a symbolic link is on the path, and agentspine never follows links"
        );
        let _ = root.read("../x", 10);
        let _ = root.read("missing", 10);
        let c = r.counters();
        assert_eq!((c.refusals.symlink, c.refusals.escape, c.refusals.not_found), (1, 1, 1));
        assert_eq!(c.refusals.total(), 3);
    });
}

#[test]
fn read_head_returns_a_prefix_of_one_version() {
    each(|backend| {
        let tree = Tree::new();
        tree.file("big.md", &[b'x'; 5000]);
        tree.file("small.md", b"abc");
        let r = reader(backend);
        let root = r.open_root(&tree.root).unwrap();
        let head = root.read_head("big.md", 4096).unwrap();
        assert_eq!(head.bytes.len(), 4096);
        assert_eq!(head.identity.size, 5000);
        assert_eq!(root.read_head("small.md", 4096).unwrap().bytes, b"abc");
        assert_eq!(r.counters().bytes_read, 4099);
        assert_eq!(code(root.read_head("missing.md", 1)), Code::NotFound);
    });
}
