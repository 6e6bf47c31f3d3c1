//! A file swapped under the reader in every way, 10,000 reads per backend:
//! each success is one complete version, each failure a clean refusal.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use agentspine_fs::Code;

use crate::support::{SECRET, Tree, backends, reader};

const READS: usize = 10_000;
/// Mutation rounds the reads must overlap, whatever the machine's load.
const ROUNDS: u64 = 50;

/// Version `k`: a header naming it, then a body whose length and byte both
/// depend on `k`, so any mix of two versions is detectable.
fn version(k: u64) -> Vec<u8> {
    let mut v = format!("v{k}:").into_bytes();
    let fill = b'a' + (k % 26) as u8;
    v.extend(std::iter::repeat_n(fill, 64 + (k as usize % 13) * 257));
    v
}

fn is_complete_version(bytes: &[u8]) -> bool {
    let Some(colon) = bytes.iter().position(|b| *b == b':') else { return false };
    let Some(k) = std::str::from_utf8(&bytes[1..colon]).ok().and_then(|s| s.parse().ok()) else {
        return false;
    };
    bytes[0] == b'v' && bytes == version(k).as_slice()
}

fn mutate(tree: &Tree, stop: &AtomicBool, rounds: &AtomicU64) {
    let target = tree.root.join("AGENTS.md");
    let tmp = tree.root.join(".tmp");
    let mut k = 1u64;
    while !stop.load(Ordering::Relaxed) {
        // 1. a new inode renamed over the target
        std::fs::write(&tmp, version(k)).unwrap();
        std::fs::rename(&tmp, &target).unwrap();
        k += 1;
        // 2. truncated and rewritten in place (same inode)
        let mut f = std::fs::OpenOptions::new().write(true).truncate(true).open(&target).unwrap();
        f.write_all(&version(k)).unwrap();
        drop(f);
        k += 1;
        // 3. replaced by a link to a secret outside the root
        let _ = std::fs::remove_file(&tmp);
        std::os::unix::fs::symlink(tree.outside.join("secret.md"), &tmp).unwrap();
        std::fs::rename(&tmp, &target).unwrap();
        // 4. replaced by a FIFO
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &tmp,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        std::fs::rename(&tmp, &target).unwrap();
        rounds.fetch_add(1, Ordering::Relaxed);
    }
}

#[test]
fn every_read_is_one_whole_version_or_a_clean_refusal() {
    for backend in backends() {
        let tree = Arc::new(Tree::new());
        tree.file("AGENTS.md", &version(0));
        let stop = Arc::new(AtomicBool::new(false));
        let rounds = Arc::new(AtomicU64::new(0));
        let mutator = {
            let (tree, stop, rounds) = (tree.clone(), stop.clone(), rounds.clone());
            std::thread::spawn(move || mutate(&tree, &stop, &rounds))
        };
        let r = reader(backend);
        let root = r.open_root(&tree.root).unwrap();
        let (mut whole, mut empty) = (0, 0);
        let mut refused = std::collections::BTreeMap::<Code, u64>::new();
        // At least READS reads, for as long as it takes the mutator to
        // finish ROUNDS rounds, and until a read met a whole version and
        // one was refused (a loaded machine can starve either thread while
        // the file is in one state), bounded.
        let started = std::time::Instant::now();
        let mut reads = 0;
        while (reads < READS || rounds.load(Ordering::Relaxed) < ROUNDS || whole == 0 || refused.is_empty())
            && started.elapsed() < std::time::Duration::from_secs(120)
        {
            reads += 1;
            if reads % 64 == 0 {
                std::thread::yield_now();
            }
            match root.read("AGENTS.md", 1 << 20) {
                Ok(snapshot) => {
                    assert_ne!(snapshot.bytes, SECRET, "{backend:?}: read through the link");
                    assert_eq!(snapshot.bytes.len() as u64, snapshot.identity.size);
                    if snapshot.bytes.is_empty() {
                        // The in-place rewrite's truncated state is a real
                        // state of the file between two system calls.
                        empty += 1;
                    } else {
                        assert!(
                            is_complete_version(&snapshot.bytes),
                            "{backend:?}: a mixed or partial snapshot: {:?}",
                            String::from_utf8_lossy(&snapshot.bytes[..snapshot.bytes.len().min(80)])
                        );
                        whole += 1;
                    }
                }
                Err(e) => {
                    assert!(
                        matches!(e.code(), Code::Race | Code::Symlink | Code::NotRegular),
                        "{backend:?}: unexpected refusal {e}"
                    );
                    *refused.entry(e.code()).or_default() += 1;
                }
            }
        }
        stop.store(true, Ordering::Relaxed);
        mutator.join().unwrap();
        let rounds = rounds.load(Ordering::Relaxed);
        eprintln!("{backend:?}: {whole} whole, {empty} empty, refused {refused:?}, {rounds} mutation rounds");
        assert!(reads >= READS, "only {reads} reads");
        assert!(rounds >= ROUNDS, "the mutator barely ran ({rounds} rounds); the test proved nothing");
        assert!(whole > 0, "no read succeeded; the test proved nothing");
        assert!(
            refused.values().sum::<u64>() > 0,
            "no read was refused; the file never changed under a read"
        );
    }
}

/// Large versions renamed over the target as fast as possible: reads
/// overlap replacements, so the retry path runs; still every success is one
/// whole version.
#[test]
fn replacements_during_long_reads_are_retried_never_mixed() {
    fn big(k: u64) -> Vec<u8> {
        let mut v = version(k);
        v.resize(64 * 1024 + (k as usize % 5) * 4096, b'a' + (k % 26) as u8);
        v
    }
    for backend in backends() {
        let tree = Arc::new(Tree::new());
        tree.file("AGENTS.md", &big(0));
        let stop = Arc::new(AtomicBool::new(false));
        let mutator = {
            let (tree, stop) = (tree.clone(), stop.clone());
            std::thread::spawn(move || {
                let (target, tmp) = (tree.root.join("AGENTS.md"), tree.root.join(".tmp"));
                let mut k = 1;
                while !stop.load(Ordering::Relaxed) {
                    std::fs::write(&tmp, big(k)).unwrap();
                    std::fs::rename(&tmp, &target).unwrap();
                    k += 1;
                }
            })
        };
        let r = reader(backend);
        let root = r.open_root(&tree.root).unwrap();
        let (mut whole, mut races) = (0u64, 0u64);
        let started = std::time::Instant::now();
        let mut reads = 0;
        // 2,000 reads at least, and until one of them overlapped a
        // replacement (bounded: a loaded machine can starve the mutator).
        while (reads < 2_000 || r.counters().retries == 0)
            && started.elapsed() < std::time::Duration::from_secs(120)
        {
            reads += 1;
            match root.read("AGENTS.md", 1 << 20) {
                Ok(s) => {
                    let k: u64 =
                        std::str::from_utf8(&s.bytes[1..s.bytes.iter().position(|b| *b == b':').unwrap()])
                            .unwrap()
                            .parse()
                            .unwrap();
                    assert!(s.bytes == big(k), "{backend:?}: mixed snapshot of version {k}");
                    whole += 1;
                }
                Err(e) => {
                    assert_eq!(e.code(), Code::Race, "{backend:?}: {e}");
                    races += 1;
                }
            }
        }
        stop.store(true, Ordering::Relaxed);
        mutator.join().unwrap();
        let retries = r.counters().retries;
        eprintln!("{backend:?}: {whole} whole, {races} races, {retries} retries");
        assert!(whole > 0, "no read succeeded");
        assert!(retries > 0, "no read overlapped a replacement; the retry path was not exercised");
        assert_eq!(r.counters().refusals.race, races);
    }
}
