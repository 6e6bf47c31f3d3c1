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
//! 2. **No link is followed, anywhere.** The directory holding the last name
//!    is reached with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
//!    RESOLVE_NO_MAGICLINKS)` or, where `openat2` is missing or refused
//!    (`ENOSYS`, `EPERM`), by a walk that opens each directory from the
//!    previous one with `O_NOFOLLOW | O_DIRECTORY` and tells a link from a
//!    non-directory with `fstatat(AT_SYMLINK_NOFOLLOW)`. The last name is
//!    opened with `O_NOFOLLOW` (plus the same resolve flags under
//!    `openat2`; plus `O_NOFOLLOW_ANY` on macOS). A link at any component,
//!    relative or absolute, dangling or pointing back inside the root, and
//!    any `/proc` magic link, is refused as `symlink`. The root's *own* path
//!    may contain links: it is chosen by the user, never by a model.
//! 3. **Nothing blocks on a special file.** Files are opened
//!    `O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC` and `fstat`ed before
//!    any read: a FIFO, socket, device or directory is refused as
//!    `not-regular` at once, and a size over the caller's cap as
//!    `too-large` before a byte is read.
//! 4. **A read is one version of the file, or nothing.** [`Root::read`]
//!    reads exactly the size `fstat` reported, then `fstat`s the handle and
//!    `fstatat(AT_SYMLINK_NOFOLLOW)`s the name in the same directory handle:
//!    device, inode, size, mtime and ctime must equal the first look and
//!    the name must still be that regular file. Otherwise the attempt is
//!    discarded and repeated ([`DEFAULT_RACE_RETRIES`] times), then refused
//!    as `race`. A mixed or partial snapshot is never returned. The
//!    guarantee rests on the kernel changing mtime or ctime on every write;
//!    Linux 6.13+ (multigrain timestamps) makes that hold even for two
//!    writes within one clock tick once the file has been looked at; on
//!    older kernels two same-size rewrites inside one tick can go unseen.
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
//!    read and stat system calls, bytes, enumerations and refusals by
//!    [`Code`].
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
//! changes during the call:
//!
//! | operation | `openat2` backend | walk backend |
//! |---|---|---|
//! | [`Reader::open_root`] | 1 open (none for a path a [`Reader::remembering_roots`] reader opened before) | same |
//! | [`Root::read`], `d = 1` | 1 open, 3 stats, 1 read | 1 open, 3 stats, 1 read |
//! | [`Root::read`], `d > 1` | 2 opens, 3 stats, 1 read | `d` opens, 3 stats, 1 read |
//! | [`Root::open`] | as read, 1 stat, no read | as read, 1 stat, no read |
//! | [`Root::stat`], `d = 1` | 1 stat | 1 stat |
//! | [`Root::stat`], `d > 1` | 1 open, 1 stat | `d - 1` opens, 1 stat |
//! | [`Root::subdir`] | as stat, 1 open instead of the stat | same |
//! | [`Root::list`] | as subdir, 1 enumeration | same |
//!
//! "1 read" holds for a file the kernel returns in one call (any file up to
//! the caller's cap on a local filesystem in practice); an empty file costs
//! no read. A refusal found by a lookup costs one more stat under the walk
//! backend (to tell a link from a non-directory). [`Root::list`] adds one
//! stat per entry only on filesystems that do not report entry types.
//! Every repeated read attempt costs the same again and counts one retry.

#![forbid(unsafe_code)]
#![deny(missing_docs)]
// This crate is the one place allowed to touch the disk (clippy.toml forbids
// `std::fs` everywhere else).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod budget;
mod counters;
mod error;
mod identity;
mod listing;
mod path;
mod read;
mod reader;
mod reopen;
mod root;
mod socket;
mod state;
mod sys;
mod write;

pub use budget::{Abandoned, Budget, MAX_ABANDONED, run_with_deadline, running_workers};
pub use counters::{Counters, Refusals};
pub use error::{Code, FsError, Result};
pub use identity::{FileKind, Identity, Metadata, Snapshot};
pub use listing::{Entry, Listing};
pub use read::RACY_WINDOW;
pub use reader::{BackendUnavailable, DEFAULT_RACE_RETRIES, Reader};
pub use reopen::reopens_through_proc;
pub use root::{Handle, Root};
pub use socket::{check_private_dir, remove_socket, restrict_socket};
pub use state::{DirLock, LockMode, ensure_private_dir, move_aside, try_lock_dir, write_private_file_atomic};
pub use sys::Backend;
pub use write::{backup_file, ensure_dir, remove_file, replace_file_atomic};
