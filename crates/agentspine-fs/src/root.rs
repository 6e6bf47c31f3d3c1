//! A directory handle and everything that may be done beneath it.

use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustix::fs::{Dir, FileType};

use crate::counters::LiveCounters;
use crate::error::FsError;
use crate::identity::{FileKind, Metadata, Mount, Snapshot};
use crate::listing::{Entry, Listing};
use crate::path::RelPath;
use crate::reader::Reader;
use crate::sys::{DIR_LOOKUP, DIR_READ, Sys};

/// A directory opened once; every path given to it is resolved beneath it
/// and never through a link. See the crate docs for the guarantees.
#[derive(Clone)]
pub struct Root {
    pub(crate) reader: Reader,
    pub(crate) fd: Arc<OwnedFd>,
    /// Host path of this directory (for labels only, never re-opened),
    /// found when first asked.
    host_path: Arc<HostPath>,
    /// Path of this directory relative to the root it was opened from
    /// (empty for a root opened by [`Reader::open_root`]).
    prefix: String,
    /// The root's mount, under the walk backend (see `sys`).
    mount: Option<Mount>,
    /// The top-level root this one was opened from (itself for a root
    /// opened by [`Reader::open_root`]): where a link's target must lie
    /// (see [`Root::follow_link`]).
    pub(crate) top: Arc<Top>,
}

/// The handle and host path of a top-level root, shared by every subdirectory
/// opened beneath it.
pub(crate) struct Top {
    pub(crate) fd: Arc<OwnedFd>,
    pub(crate) host_path: Arc<HostPath>,
}

/// A regular file opened for reading beneath a root ([`Root::open`]), with
/// what a look at the reading handle said.
#[derive(Debug)]
pub struct Handle {
    /// The open descriptor (`O_RDONLY | O_NONBLOCK`, close-on-exec).
    pub fd: OwnedFd,
    /// What it is.
    pub metadata: Metadata,
}

impl std::fmt::Debug for Root {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Root").field("host_path", &self.host_path).field("prefix", &self.prefix).finish()
    }
}

/// A root's host path, found the first time it is asked for: the kernel's
/// name for a top-level root's directory (on Linux a `readlink` of
/// `/proc/self/fd/N`), a subdirectory's path joined to its parent's. Most
/// roots a request opens are only looked beneath (the ancestors a project
/// root is searched in, the state directory) and never pay for the name.
pub(crate) struct HostPath {
    found: std::sync::OnceLock<PathBuf>,
    from: Origin,
}

enum Origin {
    /// A directory opened at `asked` (the name when the kernel gives none).
    Opened { fd: Arc<OwnedFd>, asked: PathBuf },
    /// `rel` beneath another root.
    Below { parent: Arc<HostPath>, rel: String },
}

impl HostPath {
    /// The host path of the directory `fd`, opened at `asked`.
    pub(crate) fn opened(fd: &Arc<OwnedFd>, asked: &Path) -> Arc<HostPath> {
        Arc::new(HostPath {
            found: std::sync::OnceLock::new(),
            from: Origin::Opened { fd: Arc::clone(fd), asked: asked.to_path_buf() },
        })
    }

    pub(crate) fn get(&self) -> &Path {
        self.found.get_or_init(|| match &self.from {
            Origin::Opened { fd, asked } => canonical_path(fd).unwrap_or_else(|| asked.clone()),
            Origin::Below { parent, rel } => parent.get().join(rel),
        })
    }
}

impl std::fmt::Debug for HostPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

/// The kernel's name for an open directory, without a lookup by path.
fn canonical_path(fd: &OwnedFd) -> Option<PathBuf> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let link = format!("/proc/self/fd/{}", fd.as_fd().as_raw_fd());
        let target = rustix::fs::readlink(link.as_str(), Vec::new()).ok()?;
        let target = PathBuf::from(std::ffi::OsString::from(
            <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(target.as_bytes()),
        ));
        target.is_absolute().then_some(target)
    }
    #[cfg(target_vendor = "apple")]
    {
        rustix::fs::getpath(fd.as_fd()).ok().map(|c| {
            PathBuf::from(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(c.as_bytes()))
        })
    }
    #[cfg(not(any(target_os = "linux", target_vendor = "apple")))]
    {
        let _ = fd;
        None
    }
}

impl Root {
    pub(crate) fn new(
        reader: Reader,
        fd: Arc<OwnedFd>,
        host_path: Arc<HostPath>,
        prefix: String,
        mount: Option<Mount>,
    ) -> Root {
        let top = Arc::new(Top { fd: Arc::clone(&fd), host_path: Arc::clone(&host_path) });
        Root { reader, fd, host_path, prefix, mount, top }
    }

    /// The root this one was opened from ([`Reader::open_root`]), or this
    /// root itself when it is top-level. Shares the reader.
    pub fn top(&self) -> Root {
        if self.prefix.is_empty() {
            return self.clone();
        }
        Root {
            reader: self.reader.clone(),
            fd: Arc::clone(&self.top.fd),
            host_path: Arc::clone(&self.top.host_path),
            prefix: String::new(),
            mount: self.mount,
            top: Arc::clone(&self.top),
        }
    }

    /// The host path, shared (for a reader that remembers this root).
    pub(crate) fn shared_host_path(&self) -> Arc<HostPath> {
        Arc::clone(&self.host_path)
    }

    /// The mount this root lies on, when it was looked up.
    pub(crate) fn mount(&self) -> Option<Mount> {
        self.mount
    }

    /// The directory handle, shared (for a reader bound to this root).
    pub(crate) fn shared_fd(&self) -> Arc<OwnedFd> {
        Arc::clone(&self.fd)
    }

    /// The reader (budget and counters) this root works for.
    pub fn reader(&self) -> &Reader {
        &self.reader
    }

    /// The host path this root was opened at (for labels; nothing re-opens it).
    pub fn host_path(&self) -> &Path {
        self.host_path.get()
    }

    /// This root's path relative to the root it was opened from (empty for a
    /// top-level root). Error paths carry it as a prefix.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    pub(crate) fn sys(&self) -> Sys<'_> {
        Sys {
            backend: self.reader.shared.backend,
            counters: &self.reader.shared.counters,
            root_mount: self.mount,
        }
    }

    pub(crate) fn shown(&self, rel: &Path) -> String {
        let rel = rel.to_string_lossy();
        if self.prefix.is_empty() { rel.into_owned() } else { format!("{}/{rel}", self.prefix) }
    }

    /// Runs `op` and counts its refusal, if any.
    pub(crate) fn counted<T>(&self, op: impl FnOnce() -> Result<T, FsError>) -> Result<T, FsError> {
        op().map_err(|e| self.reader.refused(e))
    }

    /// Opens the regular file `rel` beneath this root for reading
    /// (`O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC`) and looks at the
    /// handle. The name is first taken with `O_PATH` and looked at, so
    /// anything but a regular file with one name (a FIFO, device, socket,
    /// directory, link, or a file with other hard links) is refused before
    /// it is opened: no driver's `open` runs. The reading handle is then
    /// looked at again and must be the same inode (a change in between is
    /// retried, then refused as a race).
    pub fn open(&self, rel: impl AsRef<Path>) -> Result<Handle, FsError> {
        self.regular_with_retries(rel.as_ref(), |parents, name, shown| {
            let sys = self.sys();
            let parent = sys.open_parent(self.fd.as_fd(), parents, shown)?;
            let (fd, held) = self.open_regular(&sys, parent.fd(), name, shown)?;
            let now = sys.look_fd(fd.as_fd(), shown)?;
            if (now.identity.dev, now.identity.ino) != (held.identity.dev, held.identity.ino) {
                return Ok(None);
            }
            if now.links > 1 {
                return Err(FsError::HardLink { path: shown(), links: now.links });
            }
            Ok(Some(Handle { metadata: now.metadata(), fd }))
        })
    }

    /// Runs `attempt` on the parents and the last name of the regular file
    /// `rel` until it gives one whole answer (`Some`): at most the reader's
    /// race retries plus one attempts, each checked against the deadline
    /// and each repeat counted; then the file is refused as a race. The
    /// one retry rule of every read and open.
    pub(crate) fn regular_with_retries<T>(
        &self,
        rel: &Path,
        mut attempt: impl FnMut(
            &[&std::ffi::OsStr],
            &std::ffi::OsStr,
            &dyn Fn() -> String,
        ) -> Result<Option<T>, FsError>,
    ) -> Result<T, FsError> {
        let shown = || self.shown(rel);
        self.counted(|| {
            let path = RelPath::parse(rel, shown)?;
            let Some((parents, name)) = path.split_last() else {
                return Err(FsError::NotRegular { path: shown(), kind: FileKind::Directory });
            };
            let attempts = self.reader.shared.race_retries.saturating_add(1);
            for n in 0..attempts {
                if n > 0 {
                    LiveCounters::bump(&self.reader.shared.counters.retries, 1);
                }
                self.reader.check_deadline(&shown)?;
                if let Some(answer) = attempt(parents, name, &shown)? {
                    return Ok(answer);
                }
            }
            Err(FsError::Race { path: shown(), attempts })
        })
    }

    /// Looks at `rel` without opening it and without following a link at the
    /// last component (a link there is reported as [`FileKind::Symlink`]; a
    /// link before it is refused).
    pub fn stat(&self, rel: impl AsRef<Path>) -> Result<Metadata, FsError> {
        let rel = rel.as_ref();
        let shown = || self.shown(rel);
        self.counted(|| {
            let path = RelPath::parse(rel, shown)?;
            self.reader.check_deadline(&shown)?;
            let sys = self.sys();
            let look = match path.split_last() {
                None => sys.look_fd(self.fd.as_fd(), &shown)?,
                Some((parents, name)) => {
                    let parent = sys.open_parent(self.fd.as_fd(), parents, &shown)?;
                    sys.look_at(parent.fd(), name, &shown)?
                }
            };
            Ok(look.metadata())
        })
    }

    /// Reads the regular file `rel` whole, if it is at most `cap` bytes.
    ///
    /// The file is taken beneath the root with `O_PATH` and looked at
    /// (anything but a regular file with one name on the root's mount is
    /// refused before it is opened, as is a size over `cap` or over the
    /// budget), opened for reading through that handle, read, read again
    /// if it changed less than [`crate::RACY_WINDOW`] before (both reads
    /// must be equal), then looked at again and its name looked at again
    /// with `statx(AT_SYMLINK_NOFOLLOW)` in the same directory handle:
    /// device, inode, size, mtime and ctime must be equal all three times
    /// and the byte count must equal the size. Otherwise the whole read is
    /// repeated (see [`crate::DEFAULT_RACE_RETRIES`]) and then refused as a
    /// race.
    pub fn read(&self, rel: impl AsRef<Path>, cap: u64) -> Result<Snapshot, FsError> {
        self.read_with(rel.as_ref(), crate::read::Limit::Cap(cap))
    }

    /// [`Root::read`], once per reader that remembers reads (see
    /// [`Reader::remembering_reads`]): a second call for the same `rel`
    /// beneath this directory gives the first call's snapshot (refused with
    /// `too-large` if it is over this call's `cap`) without a system call.
    /// Refusals are not remembered. Any other reader reads every time.
    pub fn read_remembered(&self, rel: impl AsRef<Path>, cap: u64) -> Result<Snapshot, FsError> {
        self.remembered(rel.as_ref(), crate::read::Limit::Cap(cap))
    }

    /// [`Root::read_head`], with the same memory as
    /// [`Root::read_remembered`] (one per reader, shared by both): a file
    /// this run read whole, or a prefix at least `limit` bytes long, gives
    /// its first `limit` bytes without a system call. A shorter prefix is
    /// read again, and the longer one is remembered.
    pub fn read_head_remembered(&self, rel: impl AsRef<Path>, limit: u64) -> Result<Snapshot, FsError> {
        self.remembered(rel.as_ref(), crate::read::Limit::Head(limit))
    }

    fn remembered(&self, rel: &Path, limit: crate::read::Limit) -> Result<Snapshot, FsError> {
        use crate::read::Limit;
        let Some(memo) = &self.reader.shared.files else { return self.read_with(rel, limit) };
        let key = (Arc::as_ptr(&self.fd) as usize, rel.to_path_buf());
        let known =
            memo.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(&key).map(|(_, s)| s.clone());
        if let Some(mut snapshot) = known {
            let kept = snapshot.bytes.len() as u64;
            let whole = kept == snapshot.identity.size;
            match limit {
                Limit::Cap(cap) if whole && kept > cap => {
                    return Err(self.reader.refused(FsError::TooLarge {
                        path: self.shown(rel),
                        size: kept,
                        cap,
                    }));
                }
                Limit::Cap(_) if whole => return Ok(snapshot),
                Limit::Head(head) if whole || kept >= head => {
                    snapshot.bytes.truncate(usize::try_from(head).unwrap_or(usize::MAX));
                    return Ok(snapshot);
                }
                _ => {}
            }
        }
        let snapshot = self.read_with(rel, limit)?;
        memo.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(key, (Arc::clone(&self.fd), snapshot.clone()));
        Ok(snapshot)
    }

    /// Reads the first `limit` bytes of the regular file `rel` (all of it if
    /// it is shorter), with the same checks as [`Root::read`]: the bytes are
    /// a prefix of one version of the file, whose full size is in the
    /// snapshot's identity. For hosts that cut files at a byte budget.
    pub fn read_head(&self, rel: impl AsRef<Path>, limit: u64) -> Result<Snapshot, FsError> {
        self.read_with(rel.as_ref(), crate::read::Limit::Head(limit))
    }

    /// Opens the directory `rel` beneath this root as a root of its own,
    /// sharing this root's reader. Paths given to it cannot leave it.
    pub fn subdir(&self, rel: impl AsRef<Path>) -> Result<Root, FsError> {
        let rel = rel.as_ref();
        let shown = || self.shown(rel);
        self.counted(|| {
            let path = RelPath::parse(rel, shown)?;
            self.reader.check_deadline(&shown)?;
            let Some((parents, name)) = path.split_last() else {
                return Ok(self.clone());
            };
            let sys = self.sys();
            let parent = sys.open_parent(self.fd.as_fd(), parents, &shown)?;
            let fd = sys.open_final(parent.fd(), name, DIR_LOOKUP, &shown)?;
            self.check_dir_mount(&sys, &fd, &shown)?;
            let reduced = path.display();
            let prefix =
                if self.prefix.is_empty() { reduced.clone() } else { format!("{}/{reduced}", self.prefix) };
            let host_path = Arc::new(HostPath {
                found: std::sync::OnceLock::new(),
                from: Origin::Below { parent: Arc::clone(&self.host_path), rel: reduced },
            });
            Ok(Root {
                reader: self.reader.clone(),
                fd: Arc::new(fd),
                host_path,
                prefix,
                mount: self.mount,
                top: Arc::clone(&self.top),
            })
        })
    }

    /// Lists the directory `rel`, at most `max_entries` entries (`.` and `..`
    /// not counted). This is the only way agentspine enumerates a directory;
    /// each call counts one enumeration. Links are reported, never followed;
    /// entries are sorted by name; `truncated` says the bound cut the list.
    pub fn list(&self, rel: impl AsRef<Path>, max_entries: usize) -> Result<Listing, FsError> {
        let rel = rel.as_ref();
        let shown = || self.shown(rel);
        self.counted(|| {
            let path = RelPath::parse(rel, shown)?;
            self.reader.check_deadline(&shown)?;
            let sys = self.sys();
            let fd = match path.split_last() {
                None => sys.open_final(self.fd.as_fd(), std::ffi::OsStr::new("."), DIR_READ, &shown)?,
                Some((parents, name)) => {
                    let parent = sys.open_parent(self.fd.as_fd(), parents, &shown)?;
                    let fd = sys.open_final(parent.fd(), name, DIR_READ, &shown)?;
                    self.check_dir_mount(&sys, &fd, &shown)?;
                    fd
                }
            };
            self.list_fd(&sys, fd, max_entries, &shown)
        })
    }

    /// Under the walk backend, refuses a directory opened through a mount
    /// point (`openat2` refuses it with `RESOLVE_NO_XDEV`). One look.
    fn check_dir_mount(
        &self,
        sys: &Sys<'_>,
        fd: &OwnedFd,
        shown: &dyn Fn() -> String,
    ) -> Result<(), FsError> {
        if self.mount.is_some() {
            let look = sys.look_fd(fd.as_fd(), shown)?;
            sys.check_mount(&look, shown)?;
        }
        Ok(())
    }

    fn list_fd(
        &self,
        sys: &Sys<'_>,
        fd: OwnedFd,
        max_entries: usize,
        shown: &dyn Fn() -> String,
    ) -> Result<Listing, FsError> {
        let counters = &self.reader.shared.counters;
        LiveCounters::bump(&counters.dir_enumerations, 1);
        let mut dir = Dir::new(fd).map_err(|e| crate::sys::map_lookup_errno(e, shown))?;
        let mut listing = Listing { path: shown(), ..Listing::default() };
        let mut seen = 0usize;
        while let Some(entry) = dir.read() {
            let entry = entry.map_err(|e| crate::sys::map_lookup_errno(e, shown))?;
            let raw = entry.file_name().to_bytes().to_vec();
            let file_type = entry.file_type();
            drop(entry);
            if raw == b"." || raw == b".." {
                continue;
            }
            if seen == max_entries {
                listing.truncated = true;
                break;
            }
            self.reader.check_deadline(shown)?;
            seen += 1;
            LiveCounters::bump(&counters.dir_entries, 1);
            let name_os = <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(&raw);
            let kind = match file_type {
                FileType::Unknown => match dir.fd() {
                    Ok(dir_fd) => sys.kind_of(dir_fd, name_os).unwrap_or(FileKind::Unknown),
                    Err(_) => FileKind::Unknown,
                },
                known => FileKind::from_file_type(known),
            };
            let Ok(name) = std::str::from_utf8(&raw) else {
                listing.non_utf8 += 1;
                continue;
            };
            let entry = Entry { name: name.to_owned(), kind };
            listing.disk_order.push(entry.name.clone());
            if kind == FileKind::Symlink {
                listing.symlinks.push(entry.name);
            } else if name.starts_with('.') {
                listing.hidden.push(entry);
            } else {
                listing.entries.push(entry);
            }
        }
        listing.entries.sort_by(|a, b| a.name.cmp(&b.name));
        listing.hidden.sort_by(|a, b| a.name.cmp(&b.name));
        listing.symlinks.sort();
        Ok(listing)
    }
}
