//! Typed refusals. Every error names the path (relative to the root it was
//! asked of) and carries a stable [`Code`] string for diagnostics.

use std::fmt;

use serde::Serialize;

use crate::identity::FileKind;

/// Stable, machine-readable cause of a refusal. The strings never change;
/// diagnostics, audit rows and JSON output use them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Code {
    /// Nothing is at the path, or a middle component is not a directory.
    NotFound,
    /// A symbolic link (or `/proc` magic link) is at some component.
    Symlink,
    /// The path is absolute or its `..` components climb above the root.
    Escape,
    /// Something other than a regular file is where a file was asked for.
    NotRegular,
    /// Something other than a directory is where a directory was asked for.
    NotDirectory,
    /// The file is bigger than the caller's cap.
    TooLarge,
    /// The file kept changing while it was read.
    Race,
    /// The kernel answered `EACCES` or `EPERM`.
    PermissionDenied,
    /// The request's deadline passed before the step could start.
    Deadline,
    /// The request's aggregate byte budget cannot pay for the file.
    BudgetExhausted,
    /// The path is empty or holds a NUL byte.
    InvalidPath,
    /// Any other I/O error.
    Io,
    /// A mount point is on the path below the root (a bind mount of the
    /// same filesystem included).
    MountCrossing,
    /// A regular file with more than one name (`st_nlink > 1`): the other
    /// name may be anywhere on the filesystem, outside the root included.
    HardLink,
}

impl Code {
    /// Every code, in declaration order.
    pub const ALL: [Code; 14] = [
        Code::NotFound,
        Code::Symlink,
        Code::Escape,
        Code::NotRegular,
        Code::NotDirectory,
        Code::TooLarge,
        Code::Race,
        Code::PermissionDenied,
        Code::Deadline,
        Code::BudgetExhausted,
        Code::InvalidPath,
        Code::Io,
        Code::MountCrossing,
        Code::HardLink,
    ];

    /// The stable string, e.g. `"not-found"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Code::NotFound => "not-found",
            Code::Symlink => "symlink",
            Code::Escape => "escape",
            Code::NotRegular => "not-regular",
            Code::NotDirectory => "not-directory",
            Code::TooLarge => "too-large",
            Code::Race => "race",
            Code::PermissionDenied => "permission-denied",
            Code::Deadline => "deadline",
            Code::BudgetExhausted => "budget-exhausted",
            Code::InvalidPath => "invalid-path",
            Code::Io => "io",
            Code::MountCrossing => "mount-crossing",
            Code::HardLink => "hard-link",
        }
    }

    pub(crate) const fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A refusal from the confined reader.
///
/// `path` is the path as the caller gave it, prefixed with the sub-root it
/// was asked of, never an absolute host path; `.` names the root itself.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FsError {
    /// See [`Code::NotFound`].
    #[error("{path}: not found")]
    NotFound {
        /// Path relative to the root.
        path: String,
    },
    /// See [`Code::Symlink`].
    #[error("{path}: refused: a symbolic link is on the path, and agentspine never follows links")]
    Symlink {
        /// Path relative to the root.
        path: String,
    },
    /// See [`Code::Escape`].
    #[error("{path}: refused: the path leaves the root (absolute, or `..` above it)")]
    Escape {
        /// Path relative to the root.
        path: String,
    },
    /// See [`Code::NotRegular`].
    #[error("{path}: refused: it is a {kind}, not a regular file")]
    NotRegular {
        /// Path relative to the root.
        path: String,
        /// What was found instead.
        kind: FileKind,
    },
    /// See [`Code::NotDirectory`].
    #[error("{path}: refused: it is a {kind}, not a directory")]
    NotDirectory {
        /// Path relative to the root.
        path: String,
        /// What was found instead.
        kind: FileKind,
    },
    /// See [`Code::TooLarge`].
    #[error("{path}: refused: {size} bytes is over the cap of {cap} bytes")]
    TooLarge {
        /// Path relative to the root.
        path: String,
        /// Size reported by `fstat`.
        size: u64,
        /// The caller's cap.
        cap: u64,
    },
    /// See [`Code::Race`].
    #[error("{path}: refused: the file changed while it was read, {attempts} times in a row")]
    Race {
        /// Path relative to the root.
        path: String,
        /// How many complete attempts were made.
        attempts: u32,
    },
    /// See [`Code::PermissionDenied`].
    #[error("{path}: permission denied")]
    PermissionDenied {
        /// Path relative to the root.
        path: String,
    },
    /// See [`Code::Deadline`].
    #[error("{path}: not read: the request's deadline has passed")]
    Deadline {
        /// Path relative to the root.
        path: String,
    },
    /// See [`Code::BudgetExhausted`].
    #[error("{path}: not read: {size} bytes exceed the {remaining} bytes left in the request's budget")]
    BudgetExhausted {
        /// Path relative to the root.
        path: String,
        /// Size reported by `fstat`.
        size: u64,
        /// Bytes the budget had left.
        remaining: u64,
    },
    /// See [`Code::InvalidPath`].
    #[error("{path:?}: invalid path: {reason}")]
    InvalidPath {
        /// Path relative to the root.
        path: String,
        /// Why it is invalid.
        reason: &'static str,
    },
    /// See [`Code::MountCrossing`].
    #[error("{path}: refused: a mount point is on the path below the root, and agentspine never crosses one")]
    MountCrossing {
        /// Path relative to the root.
        path: String,
    },
    /// See [`Code::HardLink`].
    #[error("{path}: refused: the file has {links} names (hard links); another may be outside the root")]
    HardLink {
        /// Path relative to the root.
        path: String,
        /// The file's link count.
        links: u64,
    },
    /// A link whose target is not read (see [`crate::Root::follow_link`]):
    /// code `escape` when it leads out of the root or into `.git`,
    /// `not-found` when it dangles, `symlink` for a loop.
    #[error("{path}: refused: {refusal} (it points to {target:?})")]
    Link {
        /// Path relative to the root.
        path: String,
        /// The text of the link at `path`, as written.
        target: String,
        /// Why.
        refusal: crate::link::LinkRefusal,
    },
    /// See [`Code::Io`].
    // The cause is in the message, not also a `source()`: a chain
    // printed with its causes (`{:#}`) would say it twice.
    #[error("{path}: {error}")]
    Io {
        /// Path relative to the root.
        path: String,
        /// The underlying error.
        error: std::io::Error,
    },
}

impl FsError {
    /// The stable code of this refusal.
    pub fn code(&self) -> Code {
        match self {
            FsError::NotFound { .. } => Code::NotFound,
            FsError::Symlink { .. } => Code::Symlink,
            FsError::Escape { .. } => Code::Escape,
            FsError::NotRegular { .. } => Code::NotRegular,
            FsError::NotDirectory { .. } => Code::NotDirectory,
            FsError::TooLarge { .. } => Code::TooLarge,
            FsError::Race { .. } => Code::Race,
            FsError::PermissionDenied { .. } => Code::PermissionDenied,
            FsError::Deadline { .. } => Code::Deadline,
            FsError::BudgetExhausted { .. } => Code::BudgetExhausted,
            FsError::InvalidPath { .. } => Code::InvalidPath,
            FsError::Io { .. } => Code::Io,
            FsError::MountCrossing { .. } => Code::MountCrossing,
            FsError::HardLink { .. } => Code::HardLink,
            FsError::Link { refusal, .. } => match refusal {
                crate::link::LinkRefusal::Outside | crate::link::LinkRefusal::IntoGit => Code::Escape,
                crate::link::LinkRefusal::Dangling => Code::NotFound,
                crate::link::LinkRefusal::Loop => Code::Symlink,
            },
        }
    }

    /// The path the refusal is about, relative to the root.
    pub fn path(&self) -> &str {
        match self {
            FsError::NotFound { path }
            | FsError::Symlink { path }
            | FsError::Escape { path }
            | FsError::NotRegular { path, .. }
            | FsError::NotDirectory { path, .. }
            | FsError::TooLarge { path, .. }
            | FsError::Race { path, .. }
            | FsError::PermissionDenied { path }
            | FsError::Deadline { path }
            | FsError::BudgetExhausted { path, .. }
            | FsError::InvalidPath { path, .. }
            | FsError::Io { path, .. }
            | FsError::MountCrossing { path }
            | FsError::HardLink { path, .. }
            | FsError::Link { path, .. } => path,
        }
    }
}

/// Result alias for the confined reader.
pub type Result<T, E = FsError> = std::result::Result<T, E>;
