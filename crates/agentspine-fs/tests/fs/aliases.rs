//! Aliases the kernel makes: hard links, mount points below the root, and
//! special files that must not even be opened. Each is refused with its own
//! code on every backend, and nothing behind it is read.
//!
//! Tests that need a mount namespace, `mknod` or strace run the `#[ignore]`d
//! `*_child` tests of this binary in a child process (under `unshare` or
//! `strace`), and skip with a printed reason where that is not permitted.
//! A child test does nothing without the environment its parent sets.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use agentspine_fs::{Code, FileKind, FsError, Reader};

use crate::support::{SECRET, Tree, backends, code, reader};

/// Where a parent test tells its child the tree is.
const TREE_VAR: &str = "AGENTSPINE_ALIAS_TREE";

#[test]
fn a_hard_link_is_refused_for_reading_but_reported_by_stat() {
    for backend in backends() {
        let tree = Tree::new();
        // A second name for a file outside the root, and one for a file
        // inside it: the reader cannot know where the other name is.
        std::fs::hard_link(tree.outside.join("secret.md"), tree.root.join("AGENTS.md")).unwrap();
        tree.file("docs/a.md", b"inside");
        std::fs::hard_link(tree.root.join("docs/a.md"), tree.root.join("docs/b.md")).unwrap();
        tree.file("single.md", b"one name");
        let r = reader(backend);
        let root = r.open_root(&tree.root).unwrap();
        let before = r.counters();
        for path in ["AGENTS.md", "docs/a.md", "docs/b.md"] {
            let err = root.read(path, 1 << 20).unwrap_err();
            assert!(matches!(err, FsError::HardLink { links: 2, .. }), "{backend:?} {path}: {err:?}");
            assert_eq!(err.path(), path);
            assert_eq!(code(root.read_head(path, 10)), Code::HardLink, "{backend:?} {path}");
            assert_eq!(code(root.open(path)), Code::HardLink, "{backend:?} {path}");
            assert_eq!(root.stat(path).unwrap().kind, FileKind::File, "{backend:?} {path}");
        }
        let c = r.counters() - before;
        assert_eq!(c.refusals.hard_link, 9, "{backend:?}");
        assert_eq!(c.refusals.total(), 9, "{backend:?}");
        assert_eq!((c.reads, c.reopens), (0, 0), "{backend:?}: never opened for reading");
        assert_eq!(root.read("single.md", 100).unwrap().bytes, b"one name");
        assert_eq!(
            root.read("AGENTS.md", 1 << 20).unwrap_err().to_string(),
            "AGENTS.md: refused: the file has 2 names (hard links); another may be outside the root"
        );
    }
}

#[test]
fn a_device_is_refused_before_it_is_opened() {
    let tree = Tree::new();
    let Some(reason) = make_devices(&tree.root) else {
        for backend in backends() {
            let r = reader(backend);
            let root = r.open_root(&tree.root).unwrap();
            let before = r.counters();
            let err = root.read("AGENTS.md", 1 << 20).unwrap_err();
            assert!(matches!(err, FsError::NotRegular { kind: FileKind::CharDevice, .. }), "{err:?}");
            assert_eq!(code(root.open("AGENTS.md")), Code::NotRegular);
            assert_eq!(code(root.read("sub/CLAUDE.md", 10)), Code::NotRegular);
            let c = r.counters() - before;
            // Each is one O_PATH open and one look; nothing is opened for
            // reading (the strace test below proves it with the kernel's
            // own record).
            assert_eq!((c.reopens, c.reads, c.refusals.not_regular), (0, 0, 3), "{backend:?}");
        }
        return;
    };
    eprintln!("skipped: {reason}");
}

/// The only open system calls that name a FIFO and a device are `O_PATH`
/// ones, and nothing is reopened: the driver's (or the FIFO's) `open`
/// never runs. Checked by strace on a child run of `device_child`.
#[test]
fn the_only_opens_naming_special_files_are_o_path() {
    if Command::new("strace").arg("-V").output().is_err() {
        eprintln!("skipped: strace is not installed");
        return;
    }
    let tree = Tree::new();
    tree.fifo("fifo/AGENTS.md");
    let device = make_devices(&tree.root);
    if let Some(reason) = &device {
        eprintln!("(the device part is skipped: {reason}; the FIFO part runs)");
    }
    let trace = tree.root.parent().unwrap().join("trace");
    let mut cmd = Command::new("strace");
    cmd.args(["-f", "-qq", "-e", "trace=open,openat,openat2", "-o"]).arg(&trace).arg(exe());
    let out = run_child(cmd, "aliases::device_child", &tree.root);
    assert!(out.status.success(), "the child failed:\n{}", String::from_utf8_lossy(&out.stderr));
    let trace = std::fs::read_to_string(&trace).unwrap();
    let naming: Vec<&str> =
        trace.lines().filter(|l| l.contains("AGENTS.md\"") || l.contains("CLAUDE.md\"")).collect();
    // Per backend: read and open of the FIFO, and of both devices.
    let per_backend = if device.is_none() { 2 + 3 } else { 2 };
    assert_eq!(naming.len(), per_backend * backends().len(), "{naming:#?}");
    for line in &naming {
        assert!(line.contains("O_PATH"), "opened for more than a look: {line}");
    }
    // A reopen would open `/proc` and its `self/fd` once, then a file by
    // its descriptor number there.
    let path_of = |l: &str| l.split('"').nth(1).unwrap_or("").to_owned();
    let reopened: Vec<&str> = trace
        .lines()
        .filter(|l| {
            let path = path_of(l);
            path == "/proc"
                || path == "self/fd"
                || (!path.is_empty() && path.bytes().all(|b| b.is_ascii_digit()))
        })
        .collect();
    assert!(reopened.is_empty(), "something was reopened for reading: {reopened:#?}");
}

#[test]
#[ignore = "run by the_only_opens_naming_special_files_are_o_path"]
fn device_child() {
    let Some(dir) = std::env::var_os(TREE_VAR) else { return };
    let dir = PathBuf::from(dir);
    for backend in backends() {
        let root = reader(backend).open_root(&dir).unwrap();
        assert_eq!(code(root.read("fifo/AGENTS.md", 10)), Code::NotRegular);
        assert_eq!(code(root.open("fifo/AGENTS.md")), Code::NotRegular);
        if root.stat("AGENTS.md").is_ok() {
            assert_eq!(code(root.read("AGENTS.md", 10)), Code::NotRegular);
            assert_eq!(code(root.open("AGENTS.md")), Code::NotRegular);
            assert_eq!(code(root.read("sub/CLAUDE.md", 10)), Code::NotRegular);
        }
    }
}

#[test]
fn a_mount_point_below_the_root_is_not_crossed() {
    let tree = Tree::new();
    tree.file("AGENTS.md", b"covered by a bind mount");
    tree.dir("mounted").dir("a/deep");
    let script = "mount --bind \"$OUTSIDE\" \"$ROOT/mounted\" \
        && mount --bind \"$OUTSIDE\" \"$ROOT/a/deep\" \
        && mount --bind \"$OUTSIDE/secret.md\" \"$ROOT/AGENTS.md\" && exec \"$@\"";
    let Some(out) = in_mount_namespace(script, &tree, "aliases::mount_child") else { return };
    assert!(
        out.status.success(),
        "the child failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"), "the child test did not run");
}

#[test]
#[ignore = "run by a_mount_point_below_the_root_is_not_crossed, in a mount namespace"]
fn mount_child() {
    let Some(dir) = std::env::var_os(TREE_VAR) else { return };
    let dir = PathBuf::from(dir);
    for backend in backends() {
        let r = reader(backend);
        let root = r.open_root(&dir).unwrap();
        let before = r.counters();
        // `outside` is on the same filesystem: only the mount id tells.
        for path in ["mounted/secret.md", "a/deep/secret.md", "AGENTS.md", "mounted/missing.md"] {
            let err = root.read(path, 1 << 20).unwrap_err();
            assert!(
                matches!(&err, FsError::MountCrossing { path: p } if p == path),
                "{backend:?} {path}: {err:?}"
            );
            assert_eq!(code(root.open(path)), Code::MountCrossing, "{backend:?} {path}");
        }
        for path in ["mounted/secret.md", "a/deep/secret.md"] {
            assert_eq!(code(root.stat(path)), Code::MountCrossing, "{backend:?} {path}");
        }
        for path in ["mounted", "a/deep"] {
            assert_eq!(code(root.list(path, 10)), Code::MountCrossing, "{backend:?} {path}");
            assert_eq!(code(root.subdir(path)), Code::MountCrossing, "{backend:?} {path}");
            // A look at the mount point itself crosses nothing.
            assert_eq!(root.stat(path).unwrap().kind, FileKind::Directory, "{backend:?} {path}");
        }
        let c = r.counters() - before;
        assert_eq!(c.refusals.mount_crossing, 8 + 2 + 4, "{backend:?}");
        assert_eq!(c.refusals.total(), 14, "{backend:?}");
        assert_eq!(
            (c.reads, c.reopens),
            (0, 0),
            "{backend:?}: nothing behind a mount was opened for reading"
        );
        // A root the user chose may itself be a mount point.
        let chosen = r.open_root(&dir.join("mounted")).unwrap();
        assert_eq!(chosen.read("secret.md", 100).unwrap().bytes, SECRET);
        let r2 = Reader::with_backend(backend, agentspine_fs::Budget::UNLIMITED).unwrap();
        assert_eq!(
            r2.open_root(&dir.join("a")).unwrap().read("deep/secret.md", 100).unwrap_err().code(),
            Code::MountCrossing
        );
    }
}

#[test]
fn without_proc_the_name_is_opened_again_and_the_answers_are_the_same() {
    let tree = Tree::new();
    tree.file("a/AGENTS.md", b"rules");
    tree.fifo("fifo.md");
    std::fs::hard_link(tree.outside.join("secret.md"), tree.root.join("linked.md")).unwrap();
    let Some(out) = in_mount_namespace("umount -l /proc && exec \"$@\"", &tree, "aliases::no_proc_child")
    else {
        return;
    };
    assert!(
        out.status.success(),
        "the child failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("1 passed"), "the child test did not run");
}

#[test]
#[ignore = "run by without_proc_the_name_is_opened_again_and_the_answers_are_the_same, without /proc"]
fn no_proc_child() {
    let Some(dir) = std::env::var_os(TREE_VAR) else { return };
    assert!(!agentspine_fs::reopens_through_proc(), "/proc is still there");
    for backend in backends() {
        let r = reader(backend);
        let root = r.open_root(Path::new(&dir)).unwrap();
        let before = r.counters();
        assert_eq!(root.read("a/AGENTS.md", 100).unwrap().bytes, b"rules");
        let c = r.counters() - before;
        // `a`, the held file, then its name again instead of a reopen.
        assert_eq!((c.opens, c.reopens, c.reads), (3, 0, 1), "{backend:?}");
        assert_eq!(code(root.read("fifo.md", 10)), Code::NotRegular, "{backend:?}");
        assert_eq!(code(root.read("linked.md", 100)), Code::HardLink, "{backend:?}");
        assert_eq!(root.open("a/AGENTS.md").unwrap().metadata.identity.size, 5);
    }
}

/// Makes a character device (`1:3`, what `/dev/null` is) at `AGENTS.md`
/// and `sub/CLAUDE.md`; `Some(reason)` if this process may not.
fn make_devices(root: &Path) -> Option<String> {
    std::fs::create_dir_all(root.join("sub")).unwrap();
    for rel in ["AGENTS.md", "sub/CLAUDE.md"] {
        let made = rustix::fs::mknodat(
            rustix::fs::CWD,
            root.join(rel),
            rustix::fs::FileType::CharacterDevice,
            rustix::fs::Mode::from_raw_mode(0o644),
            rustix::fs::makedev(1, 3),
        );
        if let Err(e) = made {
            return Some(format!("mknod of a character device was refused ({e}); it needs root"));
        }
    }
    None
}

fn exe() -> PathBuf {
    std::env::current_exe().unwrap()
}

/// Runs the `#[ignore]`d test `test` of this binary through `cmd` (which
/// ends with the program to run), with the tree's root in [`TREE_VAR`].
fn run_child(mut cmd: Command, test: &str, root: &Path) -> Output {
    cmd.args(["--exact", test, "--ignored", "--nocapture", "--test-threads=1"]).env(TREE_VAR, root);
    cmd.output().unwrap()
}

/// Runs `test` in a new mount namespace after `script` (which ends with
/// `exec "$@"`), with `$ROOT` and `$OUTSIDE` set; `None` (after saying why)
/// where this process may not make one.
fn in_mount_namespace(script: &str, tree: &Tree, test: &str) -> Option<Output> {
    let probe = Command::new("unshare").args(["--mount", "--propagation", "private", "true"]).output();
    match probe {
        Ok(out) if out.status.success() => {}
        Ok(out) => {
            eprintln!("skipped: no mount namespace here ({})", String::from_utf8_lossy(&out.stderr).trim());
            return None;
        }
        Err(e) => {
            eprintln!("skipped: unshare(1) cannot run: {e}");
            return None;
        }
    }
    let mut cmd = Command::new("unshare");
    cmd.args(["--mount", "--propagation", "private", "sh", "-c", script, "sh"])
        .arg(exe())
        .env("ROOT", &tree.root)
        .env("OUTSIDE", &tree.outside);
    Some(run_child(cmd, test, &tree.root))
}
