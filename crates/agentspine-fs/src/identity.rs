//! What a file is and which version of it was read.

use std::fmt;

use rustix::fs::{FileType, Stat};
use serde::Serialize;

/// The kind of a directory entry, as `lstat` would tell it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// A symbolic link (never followed).
    Symlink,
    /// A named pipe.
    Fifo,
    /// A Unix socket.
    Socket,
    /// A character device.
    CharDevice,
    /// A block device.
    BlockDevice,
    /// The kernel did not say.
    Unknown,
}

impl FileKind {
    pub(crate) fn from_file_type(file_type: FileType) -> Self {
        match file_type {
            FileType::RegularFile => FileKind::File,
            FileType::Directory => FileKind::Directory,
            FileType::Symlink => FileKind::Symlink,
            FileType::Fifo => FileKind::Fifo,
            FileType::Socket => FileKind::Socket,
            FileType::CharacterDevice => FileKind::CharDevice,
            FileType::BlockDevice => FileKind::BlockDevice,
            _ => FileKind::Unknown,
        }
    }

    pub(crate) fn of(stat: &Stat) -> Self {
        Self::from_file_type(FileType::from_raw_mode(stat.st_mode))
    }
}

impl fmt::Display for FileKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileKind::File => "regular file",
            FileKind::Directory => "directory",
            FileKind::Symlink => "symbolic link",
            FileKind::Fifo => "FIFO",
            FileKind::Socket => "socket",
            FileKind::CharDevice => "character device",
            FileKind::BlockDevice => "block device",
            FileKind::Unknown => "file of unknown type",
        })
    }
}

/// The identity of one version of a file: if any field differs between two
/// looks, the file changed (or was replaced) in between.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Identity {
    /// Device number.
    pub dev: u64,
    /// Inode number.
    pub ino: u64,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i64,
    /// Status-change time, nanoseconds since the epoch.
    pub ctime_ns: i64,
}

impl Identity {
    pub(crate) fn of(stat: &Stat) -> Self {
        #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
        let ns = |sec: i64, nsec: i64| sec.saturating_mul(1_000_000_000).saturating_add(nsec);
        #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
        Identity {
            dev: stat.st_dev as u64,
            ino: stat.st_ino as u64,
            size: u64::try_from(stat.st_size).unwrap_or(0),
            mtime_ns: ns(stat.st_mtime as i64, stat.st_mtime_nsec as i64),
            ctime_ns: ns(stat.st_ctime as i64, stat.st_ctime_nsec as i64),
        }
    }
}

/// One look at a file: what `statx` (or `fstat`) said, with what the
/// reader checks besides the identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Look {
    pub(crate) kind: FileKind,
    pub(crate) identity: Identity,
    /// Number of names (hard links) the file has.
    pub(crate) links: u64,
    pub(crate) mount: Mount,
}

/// Which mount a file was reached through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mount {
    /// The kernel's mount id (`statx` `STATX_MNT_ID`, Linux 5.8+): every
    /// mount has its own, a bind mount of the same filesystem included.
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    Id(u64),
    /// Only the device, where the kernel reports no mount id: a bind mount
    /// of the same filesystem cannot be told apart.
    Device(u64),
}

impl Look {
    pub(crate) fn of_stat(stat: &Stat) -> Self {
        #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
        let links = stat.st_nlink as u64;
        let identity = Identity::of(stat);
        Look { kind: FileKind::of(stat), identity, links, mount: Mount::Device(identity.dev) }
    }

    #[cfg(target_os = "linux")]
    pub(crate) fn of_statx(st: &rustix::fs::Statx) -> Self {
        let ns = |t: rustix::fs::StatxTimestamp| {
            t.tv_sec.saturating_mul(1_000_000_000).saturating_add(i64::from(t.tv_nsec))
        };
        let identity = Identity {
            dev: rustix::fs::makedev(st.stx_dev_major, st.stx_dev_minor),
            ino: st.stx_ino,
            size: st.stx_size,
            mtime_ns: ns(st.stx_mtime),
            ctime_ns: ns(st.stx_ctime),
        };
        let mount = if st.stx_mask & rustix::fs::StatxFlags::MNT_ID.bits() != 0 {
            Mount::Id(st.stx_mnt_id)
        } else {
            Mount::Device(identity.dev)
        };
        Look {
            kind: FileKind::from_file_type(FileType::from_raw_mode(u32::from(st.stx_mode))),
            identity,
            links: u64::from(st.stx_nlink),
            mount,
        }
    }

    pub(crate) fn metadata(&self) -> Metadata {
        Metadata { kind: self.kind, identity: self.identity }
    }
}

/// Metadata of one path, looked at without following a final symlink.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Metadata {
    /// What the path names.
    pub kind: FileKind,
    /// Its identity at the moment of the look.
    pub identity: Identity,
}

/// The bytes of one version of a regular file, with that version's
/// identity. Never a mix of two versions (see the crate docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// The file's bytes: all `identity.size` of them from
    /// [`crate::Root::read`], a prefix from [`crate::Root::read_head`].
    pub bytes: Vec<u8>,
    /// The version that was read.
    pub identity: Identity,
}
