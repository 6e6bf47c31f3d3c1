//! Deadlines and byte limits, and abandoning work stuck in the kernel.

use std::time::{Duration, Instant};

use agentspine_fs::{Abandoned, Budget, Code, Reader, run_with_deadline};

use crate::support::{Tree, backends, code};

#[test]
fn no_step_starts_after_the_deadline() {
    for backend in backends() {
        let tree = Tree::new();
        tree.file("AGENTS.md", b"x");
        let reader = Reader::with_backend(backend, Budget::with_timeout(Duration::from_millis(50))).unwrap();
        let root = reader.open_root(&tree.root).unwrap();
        assert!(root.read("AGENTS.md", 10).is_ok());
        std::thread::sleep(Duration::from_millis(60));
        let before = reader.counters();
        assert_eq!(code(root.read("AGENTS.md", 10)), Code::Deadline);
        assert_eq!(code(root.list(".", 10)), Code::Deadline);
        assert_eq!(code(root.stat("AGENTS.md")), Code::Deadline);
        assert_eq!(code(reader.open_root(&tree.root)), Code::Deadline);
        let spent = reader.counters() - before;
        assert_eq!((spent.opens, spent.stats, spent.reads), (0, 0, 0), "nothing was started");
        assert_eq!(spent.refusals.deadline, 4);
    }
}

#[test]
fn the_byte_budget_is_shared_by_every_read_of_the_request() {
    for backend in backends() {
        let tree = Tree::new();
        tree.file("a.md", &[b'a'; 600]).file("b.md", &[b'b'; 600]).file("c.md", &[b'c'; 300]);
        let reader = Reader::with_backend(backend, Budget::UNLIMITED.max_bytes(1000)).unwrap();
        let root = reader.open_root(&tree.root).unwrap();
        root.read("a.md", 4096).unwrap();
        let err = root.read("b.md", 4096).unwrap_err();
        assert_eq!(err.code(), Code::BudgetExhausted);
        assert_eq!(
            err.to_string(),
            "b.md: not read: 600 bytes exceed the 400 bytes left in the request's budget"
        );
        root.read("c.md", 4096).unwrap();
        assert_eq!(reader.bytes_spent(), 900);
        assert_eq!(reader.counters().bytes_read, 900, "the refused file was not read");
    }
}

#[test]
fn a_stuck_worker_is_abandoned_at_the_deadline() {
    let start = Instant::now();
    let result = run_with_deadline(Instant::now() + Duration::from_millis(100), || {
        std::thread::sleep(Duration::from_secs(3));
        7
    });
    assert_eq!(result, Err(Abandoned::Deadline));
    assert!(start.elapsed() < Duration::from_secs(2), "the caller did not wait for the worker");
    assert_eq!(run_with_deadline(Instant::now() + Duration::from_secs(5), || 7), Ok(7));
}
