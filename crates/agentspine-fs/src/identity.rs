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
