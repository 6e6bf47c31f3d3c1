//! Fixture trees and backend selection shared by the suite.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use agentspine_fs::{Backend, Budget, Code, FsError, Reader};

/// The backends this process can use (both, unless openat2 is filtered).
pub fn backends() -> Vec<Backend> {
    [Backend::Openat2, Backend::Walk].into_iter().filter(|b| b.available()).collect()
}

/// A fresh reader with no limits on `backend`.
pub fn reader(backend: Backend) -> Reader {
    Reader::with_backend(backend, Budget::UNLIMITED).expect("backend listed as available")
}

/// A temp dir holding `root/` (the root under test) and `outside/` (with a
/// secret that must never be read).
pub struct Tree {
    pub _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub outside: PathBuf,
}

pub const SECRET: &[u8] = b"OUTSIDE-SECRET: never returned";

impl Tree {
    pub fn new() -> Tree {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let outside = dir.path().join("outside");
        std::fs::create_dir(&root).unwrap();
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("secret.md"), SECRET).unwrap();
        Tree { _dir: dir, root, outside }
    }

    pub fn file(&self, rel: &str, bytes: &[u8]) -> &Self {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
        self
    }

    pub fn dir(&self, rel: &str) -> &Self {
        std::fs::create_dir_all(self.root.join(rel)).unwrap();
        self
    }

    pub fn symlink(&self, rel: &str, target: impl AsRef<Path>) -> &Self {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, path).unwrap();
        self
    }

    pub fn fifo(&self, rel: &str) -> &Self {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &path,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        self
    }
}

/// What turning a held file into a readable one costs in this process, as
/// `(opens, reopens)`: one reopen through `/proc`, or without a usable
/// `/proc` one more open of the name.
pub fn reopen_cost() -> (u64, u64) {
    if agentspine_fs::reopens_through_proc() { (0, 1) } else { (1, 0) }
}

/// The code of an error, for terse assertions.
pub fn code<T: std::fmt::Debug>(result: Result<T, FsError>) -> Code {
    result.expect_err("expected a refusal").code()
}

/// Runs `f` on a thread and fails the test if it takes longer than `limit`
/// (for tests whose failure mode is blocking forever).
pub fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit).expect("the call blocked past its time limit")
}

/// Runs `f` on a thread without `CAP_DAC_OVERRIDE`/`CAP_DAC_READ_SEARCH`
/// in its effective set, so file modes apply even when the suite runs as
/// root (capabilities are per thread on Linux; other threads keep theirs).
pub fn without_dac_override<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::spawn(move || {
        use rustix::thread::{CapabilitySet, capabilities, set_capabilities};
        let mut sets = capabilities(None).unwrap();
        sets.effective -= CapabilitySet::DAC_OVERRIDE | CapabilitySet::DAC_READ_SEARCH;
        set_capabilities(None, sets).unwrap();
        f()
    })
    .join()
    .unwrap()
}

/// `c` without its confirming re-reads: whether a read is confirmed
/// depends on how long ago the fixture was written (files changed less
/// than `agentspine_fs::RACY_WINDOW` before a read are read twice), not on
/// the request, so comparisons of whole costs leave it out.
pub fn unconfirmed(c: agentspine_fs::Counters) -> agentspine_fs::Counters {
    agentspine_fs::Counters { confirmations: 0, ..c }
}
