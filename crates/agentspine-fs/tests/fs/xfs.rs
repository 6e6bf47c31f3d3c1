//! XFS, where `lseek(SEEK_HOLE)` does not wait for a writer: measured, a
//! buffered read there takes the inode's IOLOCK shared and a buffered write
//! takes it exclusive, so one read call never overlaps one write call and
//! a same-size rewrite in place (one `pwrite` per version) is never seen
//! half done, by a plain `pread` or through [`Root::read`].
//!
//! Needs root (a loop file, `mkfs.xfs`, `mount`); skips with the reason
//! when not root, without `mkfs.xfs` (xfsprogs), or when the kernel
//! refuses the mount.

use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use agentspine_fs::Root;

use crate::support::{backends, reader};

const SIZE: usize = 30_000;
/// Plain `pread`s of the whole file while it is rewritten (ext4 on this
/// machine: about 80 % of them mixed; tmpfs about half).
const RAW_READS: u64 = 100_000;
/// Reads through [`Root::read`] per backend.
const READS: u64 = 2_000;

/// A loop-mounted XFS in a temp dir, unmounted when dropped.
struct Xfs {
    _dir: tempfile::TempDir,
    mnt: PathBuf,
}

impl Xfs {
    fn mount() -> Result<Xfs, String> {
        if !rustix::process::geteuid().is_root() {
            return Err("mounting a loop file system needs root".into());
        }
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let (img, mnt) = (dir.path().join("img"), dir.path().join("mnt"));
        std::fs::create_dir(&mnt).map_err(|e| e.to_string())?;
        // XFS's smallest file system is 300 MiB; the file stays sparse.
        std::fs::File::create(&img).and_then(|f| f.set_len(320 << 20)).map_err(|e| e.to_string())?;
        let run = |program: &str, args: &[&Path]| match Command::new(program).args(args).output() {
            Ok(out) if out.status.success() => Ok(()),
            Ok(out) => Err(format!("{program}: {}", String::from_utf8_lossy(&out.stderr).trim())),
            Err(e) => Err(format!("{program}: {e} (apt-get install xfsprogs)")),
        };
        run("mkfs.xfs", &[Path::new("-q"), &img])?;
        run("mount", &[Path::new("-o"), Path::new("loop"), &img, &mnt])?;
        Ok(Xfs { _dir: dir, mnt })
    }
}

impl Drop for Xfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.mnt).status();
    }
}

fn versions() -> [Vec<u8>; 2] {
    let make = |name: &str, fill: u8| {
        let mut v = format!("version {name}\n").into_bytes();
        v.resize(SIZE - 1, fill);
        v.push(b'\n');
        v
    };
    [make("A", b'a'), make("B", b'b')]
}

/// Starts a thread rewriting `path` in place, one `pwrite` per version,
/// until `stop`.
fn writer(path: PathBuf, stop: Arc<AtomicBool>, written: Arc<AtomicU64>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        let versions = versions();
        let mut k = 0usize;
        while !stop.load(Ordering::Relaxed) {
            assert_eq!(file.write_at(&versions[k % 2], 0).unwrap(), SIZE);
            written.fetch_add(1, Ordering::Relaxed);
            k += 1;
        }
    })
}

#[test]
fn on_xfs_a_rewrite_in_place_is_never_read_half_done() {
    let xfs = match Xfs::mount() {
        Ok(xfs) => xfs,
        Err(reason) => {
            eprintln!("skipped: {reason}");
            return;
        }
    };
    let versions = versions();
    let dir = xfs.mnt.join("root");
    std::fs::create_dir(&dir).unwrap();
    let path = dir.join("AGENTS.md");
    std::fs::write(&path, &versions[0]).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let written = Arc::new(AtomicU64::new(0));
    let thread = writer(path.clone(), stop.clone(), written.clone());
    while written.load(Ordering::Relaxed) < 100 {
        std::thread::yield_now();
    }

    // Plain reads: no retry, no confirmation, nothing but the kernel.
    let file = std::fs::File::open(&path).unwrap();
    let mut buf = vec![0u8; SIZE];
    let (mut raw_whole, mut raw_mixed) = (0u64, 0u64);
    let before = written.load(Ordering::Relaxed);
    // At least RAW_READS reads, and on until the writer has written a tenth
    // as many versions meanwhile (a machine that starves the writer thread
    // reads longer, not less), at most ten times as many reads.
    let mut raw_reads = 0u64;
    while raw_reads < RAW_READS
        || (written.load(Ordering::Relaxed) - before <= RAW_READS / 10 && raw_reads < 10 * RAW_READS)
    {
        assert_eq!(file.read_at(&mut buf, 0).unwrap(), SIZE, "one read call, the whole file");
        if versions.contains(&buf) {
            raw_whole += 1;
        } else {
            raw_mixed += 1;
        }
        raw_reads += 1;
    }
    let overlapping = written.load(Ordering::Relaxed) - before;

    // Through the reader, on each backend.
    let mut through = Vec::new();
    for backend in backends() {
        let r = reader(backend);
        let root: Root = r.open_root(&dir).unwrap();
        let (mut whole, mut mixed, mut races) = (0u64, 0u64, 0u64);
        for _ in 0..READS {
            match root.read("AGENTS.md", 1 << 20) {
                Ok(snapshot) if versions.contains(&snapshot.bytes) => whole += 1,
                Ok(_) => mixed += 1,
                Err(e) => {
                    assert_eq!(e.code(), agentspine_fs::Code::Race, "{e}");
                    races += 1;
                }
            }
        }
        through.push((backend, whole, mixed, races, r.counters().confirmations));
    }
    stop.store(true, Ordering::Relaxed);
    thread.join().unwrap();
    eprintln!(
        "xfs: {raw_reads} plain reads while {overlapping} versions were written: {raw_mixed} mixed; through the \
         reader (backend, whole, mixed, races, confirmations): {through:?}"
    );
    assert!(overlapping > RAW_READS / 10, "the writer barely ran during the plain reads: {overlapping}");
    assert_eq!((raw_whole, raw_mixed), (raw_reads, 0), "a plain read on XFS saw a write half done");
    for (backend, whole, mixed, races, confirmations) in through {
        assert_eq!(mixed, 0, "{backend:?}: a mix was returned");
        assert_eq!(whole + races, READS, "{backend:?}");
        assert!(confirmations >= whole, "{backend:?}: every snapshot of a file moments old is confirmed");
    }
}
