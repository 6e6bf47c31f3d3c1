//! Temporary state directories and small builders shared by the suite.

use std::path::PathBuf;

use agentspine_fs::Identity;
use agentspine_store::{Opened, Store};

/// A temp dir with a not-yet-created state directory inside it.
pub struct StateDir {
    pub temp: tempfile::TempDir,
    pub dir: PathBuf,
}

impl StateDir {
    pub fn new() -> StateDir {
        let temp = tempfile::tempdir().unwrap();
        let dir = temp.path().join("state");
        StateDir { temp, dir }
    }

    /// Opens the store and insists nothing unusual happened.
    pub fn open(&self) -> Store {
        let Opened { store, warnings } = Store::open(&self.dir).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        store
    }

    pub fn db(&self) -> PathBuf {
        self.dir.join("state.db")
    }

    /// Puts a file that is no database in place of `state.db` (its WAL and
    /// shared memory gone), so that the next open repairs it.
    pub fn damage(&self) {
        std::fs::write(self.db(), b"not a database, and long enough to be read as one".repeat(100)).unwrap();
        for name in ["state.db-wal", "state.db-shm"] {
            let _ = std::fs::remove_file(self.dir.join(name));
        }
    }

    /// [`StateDir::damage`], then an open: it repairs the file, and says so
    /// once.
    pub fn damage_and_repair(&self) {
        self.damage();
        let opened = Store::open(&self.dir).unwrap();
        assert_eq!(opened.warnings.len(), 1, "{:?}", opened.warnings);
        drop(opened.store);
    }

    /// A raw connection to the database file, as an attacker or a
    /// debugging user with `sqlite3` would have.
    pub fn raw(&self) -> rusqlite::Connection {
        let conn = rusqlite::Connection::open(self.db()).unwrap();
        conn.busy_timeout(std::time::Duration::from_secs(5)).unwrap();
        conn
    }

    /// Names in the state directory, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(&self.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }
}

/// An identity with recognisable fields.
pub fn identity(n: u64, size: u64) -> Identity {
    Identity { dev: 64769, ino: 1000 + n, size, mtime_ns: 1_700_000_000_000_000_000 + n as i64, ctime_ns: 42 }
}

/// Runs `f` on a thread without `CAP_DAC_OVERRIDE`/`CAP_DAC_READ_SEARCH`
/// in its effective set, so file modes apply even when the suite runs as
/// root (capabilities are per thread on Linux).
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
