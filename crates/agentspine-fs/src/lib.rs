//! Confined, instrumented file access: the only code in agentspine that
//! touches the disk.
//!
//! A [`Reader`] is the context of one request (its [`Budget`] and its
//! [`Counters`]). [`Reader::open_root`] opens a directory once as a
//! [`Root`]; every later path is *relative* to that handle and is resolved
//! beneath it. Nothing a model controls can name a file outside the root.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use agentspine_fs::{Budget, Reader};
//! let reader = Reader::new(Budget::with_timeout(std::time::Duration::from_secs(2)));
//! let root = reader.open_root(std::path::Path::new(env!("CARGO_MANIFEST_DIR")))?;
//! let manifest = root.read("Cargo.toml", 1 << 20)?;
//! assert_eq!(manifest.bytes.len() as u64, manifest.identity.size);
//! assert_eq!(root.read("../../Cargo.toml", 1 << 20).unwrap_err().code().as_str(), "escape");
//! # Ok(()) }
//! ```
//!
//! # Guarantees (each is tested against both backends)
//!
//! 1. **Paths are relative and reduced before any system call.** A path is
//!    split on `/`; empty components and `.` are dropped; `..` removes the
//!    previous name. An absolute path, or a `..` with nothing left to
//!    remove, is refused as `escape`; an empty path or one holding a NUL
//!    byte as `invalid-path`. No `..` ever reaches the kernel, so `a/../b`
//!    is `b` and nothing at `a` is opened. (`/proc/self/root/...` is
//!    absolute and refused the same way.)
//! 2. **No link is followed and no mount point crossed, anywhere.** The
//!    directory holding the last name is reached with
//!    `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS
//!    | RESOLVE_NO_XDEV)` or, where `openat2` is missing or refused
//!    (`ENOSYS`, `EPERM`), by a walk that opens each directory from the
//!    previous one with `O_NOFOLLOW | O_DIRECTORY` and tells a link from a
//!    non-directory with `fstatat(AT_SYMLINK_NOFOLLOW)`. The last name is
//!    opened with `O_NOFOLLOW` (plus the same resolve flags under
//!    `openat2`; plus `O_NOFOLLOW_ANY` on macOS). A link at any component,
//!    relative or absolute, dangling or pointing back inside the root, and
//!    any `/proc` magic link, is refused as `symlink`. A mount point at any
//!    component (a bind mount of the same filesystem included) is refused
//!    as `mount-crossing`: the walk compares `statx` mount ids, the root's
//!    (looked at when it is opened) with the deepest directory it reached
//!    and with whatever the last name opened; a walk that entered another
//!    mount cannot leave it by descending, so that one look sees any
//!    crossing on the way. Before Linux 5.8 (no mount id) the walk compares
//!    devices only and misses a bind mount of the same filesystem. A look
//!    at the last name itself ([`Root::stat`]) opens nothing and reports
//!    what is mounted there. The root's *own* path may contain links and
//!    mount points: it is chosen by the user, never by a model.
//!    A link is never traversed, but [`Root::follow_link`] says which file
//!    of the root a link inside it names (its text read with `readlinkat`,
//!    resolved one name at a time, never above the top-level root, never
//!    into `.git`, at most [`MAX_LINK_HOPS`] links), so that a caller can
//!    read that file by its own path under every rule here.
//! 3. **Nothing is opened before it is checked.** The last name is first
//!    taken with `O_PATH | O_NOFOLLOW` (no driver's `open` runs, a FIFO's
//!    open neither blocks nor wakes a writer) and looked at with `statx`:
//!    a FIFO, socket, device or directory is refused as `not-regular`, a
//!    link as `symlink`, a regular file with more than one name as
//!    `hard-link` (its other name may be anywhere, outside the root
//!    included; [`Root::stat`] still reports it), and a size over the
//!    caller's cap as `too-large`. Only then is it opened for reading,
//!    `O_RDONLY | O_NONBLOCK | O_NOCTTY`, by following the kernel's own
//!    link to the held inode, `/proc/self/fd/N`: no name is resolved
//!    again, and the reading handle must be the held inode (device and
//!    inode looked at again) before a byte is returned. Where `/proc` is
//!    not usable (see [`reopens_through_proc`]) the name is opened a second
//!    time instead: snapshots stay sound, but a device renamed into place
//!    between the check and that open would have its `open` run. Systems
//!    without `O_PATH` (macOS) open the name for reading at once and check
//!    its type right after, as before.
//! 4. **A read is one version of the file, or nothing.** [`Root::read`]
//!    reads exactly the size the first look reported, then looks at the
//!    handle and `statx(AT_SYMLINK_NOFOLLOW)`s the name in the same
//!    directory handle: device, inode, size, mtime and ctime must equal the
//!    first look and the name must still be that regular file. That sees
//!    every write that *starts* during the read (since Linux 6.13,
//!    multigrain timestamps, a change after a look always moves ctime). It
//!    cannot see a write that started before the first look and is still
//!    copying its data: the kernel stamps the times when a write begins,
//!    so a same-size rewrite in place reads half old, half new with every
//!    look equal (before this check, 5 % to over 90 % of reads of a
//!    30,000-byte file rewritten at full speed did, depending on load). So a file whose mtime or ctime is less
//!    than [`RACY_WINDOW`] (3 s) before the read began, or later than that,
//!    is read twice: after the first read, `lseek(SEEK_HOLE)` waits for a
//!    write in progress (ext4, tmpfs, btrfs and overlayfs take the inode
//!    lock that a buffered write holds while it copies), then the same
//!    bytes are read again with `pread` and must be equal. Otherwise the
//!    attempt is discarded and repeated ([`DEFAULT_RACE_RETRIES`] times),
//!    then refused as `race`. A mixed or partial snapshot is never
//!    returned.
//!
//!    Why this way: the window keeps one read for every file not written
//!    in the last seconds (nearly all of them) and limits the extra cost
//!    to files written moments ago, as git treats index entries as racy.
//!    A second read alone is not enough: a writer preempted in the middle
//!    of its copy leaves the same mix in place for both reads (60 to 70 %
//!    of reads in the stress test returned such a matching pair), so the
//!    second read waits for the writer first. XFS needs no wait: its
//!    buffered reads take the inode's IOLOCK shared and its buffered writes
//!    take it exclusive, so one read call never overlaps one write call
//!    (measured on Linux 6.18: of 100,000 plain `pread`s of a 30,000-byte
//!    file rewritten in place at full speed none was mixed, in each of three
//!    runs, and none of 950,000 from a second process, which on ext4 and
//!    tmpfs mixed 84 % and 53 %; `tests/fs/xfs.rs` checks it as root).
//!    Limits: where neither holds (NFS, FUSE and others) the second read
//!    stands alone, and a writer stalled mid-copy through both reads goes
//!    unseen; a version written with more than one write call can be read
//!    between two of them anywhere; writes through a shared `mmap` are
//!    never seen; the window
//!    trusts the file's times to come from this machine's clock (a server
//!    whose clock is behind by more than the window skips the second
//!    read); before Linux 6.13 two same-size rewrites within one clock
//!    tick can leave every time unchanged.
//! 5. **Every step checks the budget.** No open, read or directory entry is
//!    started after the [`Budget`]'s deadline (`deadline`), and no file is
//!    read that the remaining byte budget cannot pay for in full
//!    (`budget-exhausted`). A system call already stuck in the kernel is
//!    not interruptible; [`run_with_deadline`] runs work on a worker that
//!    the caller stops waiting for at the deadline.
//! 6. **Directories are enumerated only on request.** [`Root::list`] is the
//!    only enumeration, bounded by its caller, counted, never following
//!    links, and reports links and hidden names apart.
//! 7. **Everything is counted.** [`Counters`] hold the exact number of open,
//!    reopen, read and stat system calls, bytes, enumerations, retries,
//!    confirming re-reads and refusals by [`Code`].
//!
//! # Writes
//!
//! The crate writes in two places only. agentspine's own state directory
//! ([`ensure_private_dir`], [`move_aside`], [`write_private_file_atomic`],
//! [`try_lock_dir`]) is private (`0700`, ours, not a link). A host's
//! configuration file that `agentspine install` edits is backed up beside
//! itself and replaced atomically (see the `write` module), never written
//! through a link. In both, every name is used relative to a directory
//! handle, never followed.
//!
//! # What each operation costs
//!
//! For a path of `d` names (`a/b/c/d/e/AGENTS.md` has `d = 6`), when nothing
//! changes during the call and the file was last changed more than
//! [`RACY_WINDOW`] ago:
//!
//! | operation | `openat2` backend | walk backend |
//! |---|---|---|
//! | [`Reader::open_root`] | 1 open (none for a path a [`Reader::remembering_roots`] reader opened before) | 1 open, 1 stat (the root's mount; none when remembered) |
//! | [`Root::read`], `d = 1` | 1 open, 1 reopen, 3 stats, 1 read | same |
//! | [`Root::read`], `d > 1` | 2 opens, 1 reopen, 3 stats, 1 read | `d` opens, 1 reopen, 4 stats, 1 read |
//! | [`Root::open`] | as read, 1 stat fewer, no read | same |
//! | [`Root::read_remembered`], [`Root::read_head_remembered`] | as read the first time; nothing for a file a [`Reader::remembering_reads`] reader read before beneath the same handle (whole, or for a head, a prefix at least as long) | same |
//! | [`Root::stat`], `d = 1` | 1 stat | 1 stat |
//! | [`Root::stat`], `d > 1` | 1 open, 1 stat | `d - 1` opens, 2 stats |
//! | [`Root::subdir`] | as stat, 1 open instead of the last stat | as stat, 1 open and 1 stat instead of the last stat |
//! | [`Root::list`] | as subdir, 1 enumeration | same |
//!
//! The opens are the ones that resolve a name: a file read is one `O_PATH`
//! open that names it, and one reopen through `/proc` that names none
//! (without a usable `/proc`, 1 more open instead of the reopen). "1 read"
//! holds for a file the kernel returns in one call (any file up to the
//! caller's cap on a local filesystem in practice); an empty file costs no
//! read. A file changed less than [`RACY_WINDOW`] before the read costs
//! one confirmation more: one `lseek` and its bytes read again with
//! `pread`, counted in `confirmations` and not in `reads` or `bytes_read`,
//! and not charged to the budget. A last name refused for what it is
//! (link, FIFO, device, hard link, mount) costs its `O_PATH` open and one
//! stat; a refusal found on the way costs one more stat under the walk
//! backend (to tell a link from a non-directory). [`Root::list`] adds one
//! stat per entry only on filesystems that do not report entry types.
//! Every repeated read attempt costs the same again and counts one retry.

// `unsafe` is denied everywhere but the `fork` and signal handling in
// `detach` and the shared page in `shared`.
#![deny(unsafe_code)]
#![deny(missing_docs)]
// This crate is the one place allowed to touch the disk (clippy.toml forbids
// `std::fs` everywhere else).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod budget;
mod counters;
mod detach;
mod error;
mod identity;
mod link;
mod listing;
mod path;
mod private;
mod read;
mod reader;
mod reopen;
mod root;
mod shared;
mod socket;
mod state;
mod stuck;
mod sys;
mod write;

pub use budget::{Abandoned, Budget, MAX_ABANDONED, run_with_deadline, running_workers};
pub use counters::{Counters, Refusals};
pub use detach::{
    DetachError, Detached, Output, Waited, Worker, fork_worker, release, run_detached, serve_detached,
    share_one_heap,
};
pub use error::{Code, FsError, Result};
pub use identity::{FileKind, Identity, Metadata, Snapshot};
pub use link::{LinkRefusal, LinkTarget, MAX_LINK_HOPS};
pub use listing::{Entry, Listing};
pub use private::{PrivateDir, PrivateEntry};
pub use read::RACY_WINDOW;
pub use reader::{BackendUnavailable, DEFAULT_RACE_RETRIES, Reader};
pub use reopen::reopens_through_proc;
pub use root::{Handle, Root};
pub use shared::{SHARED_WORDS, SharedPage};
pub use socket::{check_private_dir, remove_socket, restrict_socket};
pub use state::{DirLock, LockMode, ensure_private_dir, move_aside, try_lock_dir, write_private_file_atomic};
pub use stuck::{Sleeper, blocked_on, thread_id};
pub use sys::Backend;
pub use write::{backup_file, ensure_dir, remove_file, replace_file_atomic};
