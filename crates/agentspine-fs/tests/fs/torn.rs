//! A file rewritten in place, same size, one `pwrite` per version, as fast
//! as a thread can: every read through [`Root::read`] and
//! [`Root::read_head`] is exactly one version (or a prefix of one), never a
//! mix, and the confirming re-reads and races that make it so are counted.
//!
//! This is the case the identity check alone misses: the kernel updates a
//! file's timestamps when a write starts, before it copies the data, so a
//! read that overlaps the copy sees the same size, mtime and ctime before
//! and after.

use std::os::unix::fs::FileExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use agentspine_fs::{Code, Root};

use crate::support::{Tree, backends, reader};

const SIZE: usize = 30_000;
/// Reads per surface (`read`, `read_head`) per backend.
const READS: usize = 4_000;
/// `read_head` asks for this many bytes: a cut inside the file.
const HEAD: usize = 20_000;

/// Two versions of the same size whose bytes differ everywhere, so any
/// mix (even one page) is detectable.
fn versions() -> [Vec<u8>; 2] {
    let make = |name: &str, fill: u8| {
        let mut v = format!("version {name}\n").into_bytes();
        v.resize(SIZE - 1, fill);
        v.push(b'\n');
        v
    };
    [make("A", b'a'), make("B", b'b')]
}

/// What one read returned, against the versions it may be a prefix of.
#[derive(Debug, Default)]
struct Tally {
    whole: u64,
    mixed: u64,
    races: u64,
}

impl Tally {
    fn add(
        &mut self,
        result: Result<Vec<u8>, agentspine_fs::FsError>,
        wanted: usize,
        versions: &[Vec<u8>; 2],
    ) {
        match result {
            Ok(bytes) if versions.iter().any(|v| bytes == v[..wanted]) => self.whole += 1,
            Ok(bytes) => {
                if self.mixed == 0 {
                    let switch = bytes.iter().zip(&versions[0]).position(|(a, b)| a != b).unwrap_or(0);
                    eprintln!("first mixed read: {} bytes, leaves version A at byte {switch}", bytes.len());
                }
                self.mixed += 1;
            }
            Err(e) => {
                assert_eq!(e.code(), Code::Race, "only a race may refuse this read: {e}");
                self.races += 1;
            }
        }
    }
}

/// Rewrites `path` in place with alternating versions until `stop`.
fn rewrite_in_place(path: std::path::PathBuf, stop: Arc<AtomicBool>, written: Arc<AtomicU64>) {
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    let versions = versions();
    let mut k = 0usize;
    while !stop.load(Ordering::Relaxed) {
        // One system call per version: a torn read can only come from
        // overlapping a copy, never from a half-finished loop here.
        let n = file.write_at(&versions[k % 2], 0).unwrap();
        assert_eq!(n, SIZE, "one pwrite wrote the whole version");
        written.fetch_add(1, Ordering::Relaxed);
        k += 1;
    }
}

#[test]
fn in_place_rewrites_are_never_read_as_a_mix() {
    let versions = versions();
    for backend in backends() {
        let tree = Tree::new();
        tree.file("AGENTS.md", &versions[0]);
        let stop = Arc::new(AtomicBool::new(false));
        let written = Arc::new(AtomicU64::new(0));
        let writer = {
            let (path, stop, written) = (tree.root.join("AGENTS.md"), stop.clone(), written.clone());
            std::thread::spawn(move || rewrite_in_place(path, stop, written))
        };
        while written.load(Ordering::Relaxed) < 100 {
            std::thread::yield_now();
        }
        let r = reader(backend);
        let root: Root = r.open_root(&tree.root).unwrap();
        let (mut whole, mut head) = (Tally::default(), Tally::default());
        let started = Instant::now();
        for _ in 0..READS {
            whole.add(root.read("AGENTS.md", 1 << 20).map(|s| s.bytes), SIZE, &versions);
            head.add(root.read_head("AGENTS.md", HEAD as u64).map(|s| s.bytes), HEAD, &versions);
            if started.elapsed() > Duration::from_secs(120) {
                break;
            }
        }
        stop.store(true, Ordering::Relaxed);
        writer.join().unwrap();
        let c = r.counters();
        let reads = (whole.whole + whole.mixed + whole.races) as f64;
        eprintln!(
            "{backend:?}: read {whole:?}, read_head {head:?}, {} versions written, torn rate {:.1}% / {:.1}%; \
             counters: confirmations {}, retries {}, races {}",
            written.load(Ordering::Relaxed),
            100.0 * whole.mixed as f64 / reads,
            100.0 * head.mixed as f64 / reads,
            c.confirmations,
            c.retries,
            c.refusals.race,
        );
        assert_eq!((whole.mixed, head.mixed), (0, 0), "{backend:?}: a mix of two versions was returned");
        assert!(written.load(Ordering::Relaxed) > READS as u64, "{backend:?}: the writer barely ran");
        assert!(whole.whole + head.whole > 0, "{backend:?}: no read succeeded; the test proved nothing");
        // Every read that returned bytes was confirmed (the file is always
        // moments old), and some attempts saw it change and were retried.
        assert!(
            c.confirmations >= whole.whole + head.whole,
            "{backend:?}: {} confirmations for {} snapshots",
            c.confirmations,
            whole.whole + head.whole
        );
        assert!(c.retries > 0, "{backend:?}: no read saw the file change");
        assert_eq!(c.refusals.race, whole.races + head.races);
    }
}
