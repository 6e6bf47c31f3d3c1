//! The documented cost of each operation, asserted exactly (crate docs,
//! "What each operation costs").

use agentspine_fs::{Backend, Counters};

use crate::support::{Tree, backends, reader, reopen_cost, unconfirmed};

fn cost(backend: Backend, tree: &Tree, op: impl FnOnce(&agentspine_fs::Root)) -> Counters {
    let r = reader(backend);
    let root = r.open_root(&tree.root).unwrap();
    assert_eq!(r.counters().opens, 1, "opening a root is one open");
    let before = r.counters();
    op(&root);
    r.counters() - before
}

fn nested_tree(unrelated: usize) -> Tree {
    let tree = Tree::new();
    tree.file("a/b/c/d/e/AGENTS.md", b"rules: nineteen b.\n");
    for i in 0..unrelated {
        tree.file(&format!("a/b/c/d/e/noise-{i}.md"), b"noise");
    }
    tree
}

#[test]
fn reading_a_depth_six_path_costs_exactly_the_documented_calls() {
    for backend in backends() {
        let tree = nested_tree(0);
        let c = cost(backend, &tree, |root| {
            assert_eq!(root.read("a/b/c/d/e/AGENTS.md", 4096).unwrap().bytes.len(), 19);
        });
        let (opens, stats) = match backend {
            // The parent in one openat2, then the file (O_PATH); the file
            // held, after the read and by name.
            Backend::Openat2 => (2, 3),
            // a, b, c, d, e, then the file; e's mount, then as above.
            Backend::Walk => (6, 4),
        };
        let (extra, reopens) = reopen_cost();
        assert_eq!(
            (c.opens, c.reopens, c.stats, c.reads, c.bytes_read, c.dir_enumerations, c.retries),
            (opens + extra, reopens, stats, 1, 19, 0, 0),
            "{backend:?}"
        );
        assert_eq!(c.refusals.total(), 0);
    }
}

#[test]
fn the_cost_does_not_depend_on_unrelated_files() {
    for backend in backends() {
        let small = nested_tree(0);
        let big = nested_tree(500);
        let read = |root: &agentspine_fs::Root| {
            root.read("a/b/c/d/e/AGENTS.md", 4096).unwrap();
        };
        assert_eq!(
            unconfirmed(cost(backend, &small, read)),
            unconfirmed(cost(backend, &big, read)),
            "{backend:?}"
        );
    }
}

#[test]
fn a_file_at_the_root_costs_one_open_on_both_backends() {
    for backend in backends() {
        let tree = Tree::new();
        tree.file("AGENTS.md", b"top");
        tree.file("empty.md", b"");
        let (extra, reopens) = reopen_cost();
        let c = cost(backend, &tree, |root| {
            root.read("AGENTS.md", 10).unwrap();
        });
        assert_eq!(
            (c.opens, c.reopens, c.stats, c.reads, c.bytes_read),
            (1 + extra, reopens, 3, 1, 3),
            "{backend:?}"
        );
        let c = cost(backend, &tree, |root| {
            assert!(root.read("empty.md", 10).unwrap().bytes.is_empty());
        });
        assert_eq!(
            (c.opens, c.reopens, c.stats, c.reads, c.confirmations),
            (1 + extra, reopens, 3, 0, 0),
            "{backend:?}: an empty file costs no read and needs no confirmation"
        );
    }
}

#[test]
fn stat_list_and_subdir_cost_what_the_docs_say() {
    for backend in backends() {
        let tree = nested_tree(3);
        let walk = backend == Backend::Walk;
        let c = cost(backend, &tree, |root| {
            root.stat("AGENTS.md").unwrap_err();
        });
        assert_eq!((c.opens, c.stats), (0, 1), "{backend:?} stat d=1");
        // The walk looks once at the deepest directory it opened, and at
        // a directory it opens last, for their mounts.
        let c = cost(backend, &tree, |root| {
            root.stat("a/b/c/d/e/AGENTS.md").unwrap();
        });
        assert_eq!((c.opens, c.stats), if walk { (5, 2) } else { (1, 1) }, "{backend:?} stat d=6");
        let c = cost(backend, &tree, |root| {
            let listing = root.list("a/b/c/d/e", 100).unwrap();
            assert_eq!(listing.entries.len(), 4);
        });
        assert_eq!(
            (c.opens, c.stats, c.dir_enumerations, c.dir_entries),
            (if walk { 5 } else { 2 }, if walk { 2 } else { 0 }, 1, 4),
            "{backend:?} list d=5"
        );
        let c = cost(backend, &tree, |root| {
            let e = root.subdir("a/b/c/d/e").unwrap();
            e.read("AGENTS.md", 100).unwrap();
        });
        // subdir: as for list, no enumeration; the read beneath it is d=1.
        let (extra, _) = reopen_cost();
        assert_eq!(
            (c.opens, c.stats, c.reads),
            if walk { (6 + extra, 2 + 3, 1) } else { (3 + extra, 3, 1) },
            "{backend:?} subdir"
        );
        let c = cost(backend, &tree, |root| {
            root.open("a/b/c/d/e/AGENTS.md").unwrap();
        });
        // open: as read, without the read and its two looks after it, plus
        // one look at the reopened handle.
        let (extra, reopens) = reopen_cost();
        assert_eq!(
            (c.opens, c.reopens, c.stats, c.reads),
            if walk { (6 + extra, reopens, 3, 0) } else { (2 + extra, reopens, 2, 0) },
            "{backend:?} open d=6"
        );
    }
}

#[test]
fn a_refusal_under_the_walk_costs_one_stat_to_tell_a_link() {
    let tree = Tree::new();
    tree.file("real/AGENTS.md", b"x");
    tree.symlink("link", "real");
    let c = cost(Backend::Walk, &tree, |root| {
        root.read("link/AGENTS.md", 10).unwrap_err();
    });
    assert_eq!((c.opens, c.stats, c.refusals.symlink), (1, 1, 1));
}

#[test]
fn counters_serialize_with_stable_names() {
    let tree = Tree::new();
    let r = reader(Backend::Walk);
    let root = r.open_root(&tree.root).unwrap();
    let _ = root.read("missing.md", 10);
    let json = serde_json::to_value(r.counters()).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            // The walk looks at the root once for its mount.
            "opens": 2, "reopens": 0, "reads": 0, "bytes_read": 0, "stats": 1, "readlinks": 0,
            "dir_enumerations": 0, "dir_entries": 0, "retries": 0, "confirmations": 0,
            "refusals": {
                "not-found": 1, "symlink": 0, "escape": 0, "not-regular": 0,
                "not-directory": 0, "too-large": 0, "race": 0, "permission-denied": 0,
                "deadline": 0, "budget-exhausted": 0, "invalid-path": 0, "io": 0,
                "mount-crossing": 0, "hard-link": 0
            }
        })
    );
}

#[test]
fn a_remembering_reader_opens_each_root_path_once() {
    for backend in backends() {
        let tree = nested_tree(0);
        let plain = reader(backend);
        plain.open_root(&tree.root).unwrap();
        plain.open_root(&tree.root).unwrap();
        assert_eq!(plain.counters().opens, 2, "{backend:?}: each open opens");

        let r = reader(backend).remembering_roots();
        let first = r.open_root(&tree.root).unwrap();
        let again = r.open_root(&tree.root).unwrap();
        assert_eq!(r.counters().opens, 1, "{backend:?}: the second is remembered");
        assert_eq!(first.host_path(), again.host_path());
        // Another path is another open; a failed one is not remembered.
        r.open_root(&tree.root.join("a")).unwrap();
        assert!(r.open_root(&tree.root.join("missing")).is_err());
        assert!(r.open_root(&tree.root.join("missing")).is_err());
        assert_eq!(r.counters().opens, 4, "{backend:?}");
        // The remembered root is the directory as first opened: renamed
        // away and replaced, it still reads the old contents.
        std::fs::rename(tree.root.join("a"), tree.root.join("moved")).unwrap();
        std::fs::create_dir(tree.root.join("a")).unwrap();
        let kept = r.open_root(&tree.root.join("a")).unwrap();
        assert_eq!(kept.read("b/c/d/e/AGENTS.md", 4096).unwrap().bytes.len(), 19, "{backend:?}");
        // And with more retries, still remembering.
        let retried = reader(backend).remembering_roots().with_race_retries(1);
        retried.open_root(&tree.root).unwrap();
        retried.open_root(&tree.root).unwrap();
        assert_eq!(retried.counters().opens, 1, "{backend:?}");
    }
}

#[test]
fn a_remembered_head_is_cut_from_what_the_run_read_and_a_longer_one_is_read() {
    for backend in backends() {
        let tree = Tree::new();
        tree.file("AGENTS.md", b"0123456789");
        let r = reader(backend).remembering_roots().remembering_reads();
        let root = r.open_root(&tree.root).unwrap();
        let head = root.read_head_remembered("AGENTS.md", 4).unwrap();
        assert_eq!((head.bytes.as_slice(), head.identity.size), (&b"0123"[..], 10), "{backend:?}");
        assert_eq!(r.counters().reads, 1, "{backend:?}");
        // A shorter or equal head: cut from the remembered prefix, no call.
        let before = r.counters();
        assert_eq!(root.read_head_remembered("AGENTS.md", 2).unwrap().bytes, b"01", "{backend:?}");
        assert_eq!(root.read_head_remembered("AGENTS.md", 4).unwrap().bytes, b"0123", "{backend:?}");
        assert_eq!(r.counters(), before, "{backend:?}: nothing read, nothing counted");
        // A longer head, or the whole file, is read (once) and remembered.
        assert_eq!(root.read_head_remembered("AGENTS.md", 6).unwrap().bytes, b"012345", "{backend:?}");
        assert_eq!(root.read_remembered("AGENTS.md", 1024).unwrap().bytes, b"0123456789", "{backend:?}");
        assert_eq!(r.counters().reads, before.reads + 2, "{backend:?}");
        // Now whole: any head, and the whole file again, without a call.
        let before = r.counters();
        assert_eq!(root.read_head_remembered("AGENTS.md", 64).unwrap().bytes, b"0123456789", "{backend:?}");
        assert_eq!(root.read_head_remembered("AGENTS.md", 8).unwrap().bytes, b"01234567", "{backend:?}");
        assert_eq!(root.read_remembered("AGENTS.md", 1024).unwrap().bytes, b"0123456789", "{backend:?}");
        assert_eq!(r.counters(), before, "{backend:?}");
        // Another reader reads each time.
        let plain = reader(backend).remembering_roots();
        let root = plain.open_root(&tree.root).unwrap();
        root.read_head_remembered("AGENTS.md", 4).unwrap();
        root.read_head_remembered("AGENTS.md", 4).unwrap();
        assert_eq!(plain.counters().reads, 2, "{backend:?}");
    }
}

#[test]
fn a_reader_that_remembers_reads_reads_each_file_once_and_gives_that_version() {
    for backend in backends() {
        let tree = Tree::new();
        tree.file("settings.json", b"{\"first\": true}");
        let r = reader(backend).remembering_roots().remembering_reads();
        let first = r.open_root(&tree.root).unwrap().read_remembered("settings.json", 1024).unwrap();
        let after_first = r.counters();
        // Changed since: the run keeps the version it read.
        tree.file("settings.json", b"{\"second\": true, \"longer\": 1}");
        let again = r.open_root(&tree.root).unwrap().read_remembered("settings.json", 1024).unwrap();
        assert_eq!(again, first, "{backend:?}");
        assert_eq!(r.counters(), after_first, "{backend:?}: no system call, nothing counted");
        // A smaller cap refuses it, as a read would, and counts the refusal.
        let small = r.open_root(&tree.root).unwrap().read_remembered("settings.json", 4);
        assert_eq!(small.unwrap_err().code(), agentspine_fs::Code::TooLarge, "{backend:?}");
        assert_eq!(r.counters().refusals.too_large, 1, "{backend:?}");
        // A refusal is not remembered: a missing file is looked for again.
        let root = r.open_root(&tree.root).unwrap();
        assert!(root.read_remembered("missing.json", 1024).is_err());
        let before = r.counters().opens;
        assert!(root.read_remembered("missing.json", 1024).is_err());
        assert_eq!(r.counters().opens, before + 1, "{backend:?}");
        // Plain reads and other readers read every time.
        assert_ne!(root.read("settings.json", 1024).unwrap(), first, "{backend:?}");
        let plain = reader(backend).remembering_roots();
        let root = plain.open_root(&tree.root).unwrap();
        root.read_remembered("settings.json", 1024).unwrap();
        root.read_remembered("settings.json", 1024).unwrap();
        assert_eq!(plain.counters().reads, 2, "{backend:?}");
    }
}

/// The one-read fast path and its confirmed counterpart (crate docs,
/// guarantee 4): a file last changed more than `RACY_WINDOW` ago is read
/// once; one changed just now is read a second time, counted apart.
#[test]
fn only_a_file_changed_moments_ago_is_read_twice() {
    let trees: Vec<(Backend, Tree)> = backends()
        .into_iter()
        .map(|b| {
            let tree = Tree::new();
            tree.file("old.md", b"settled");
            (b, tree)
        })
        .collect();
    std::thread::sleep(agentspine_fs::RACY_WINDOW + std::time::Duration::from_millis(100));
    for (backend, tree) in &trees {
        tree.file("new.md", b"just written");
        let c = cost(*backend, tree, |root| {
            assert_eq!(root.read("old.md", 100).unwrap().bytes, b"settled");
        });
        assert_eq!((c.reads, c.bytes_read, c.confirmations, c.stats), (1, 7, 0, 3), "{backend:?} old");
        let c = cost(*backend, tree, |root| {
            assert_eq!(root.read("new.md", 100).unwrap().bytes, b"just written");
            assert_eq!(root.read_head("new.md", 4).unwrap().bytes, b"just");
        });
        // The confirming reads are not in `reads` or `bytes_read`, and
        // cost no look: the looks after them cover both reads.
        assert_eq!((c.reads, c.bytes_read, c.confirmations, c.stats), (2, 16, 2, 6), "{backend:?} new");
    }
}
