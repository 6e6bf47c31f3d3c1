//! Why a resolution could not be made at all. (A candidate that cannot be
//! read is not an error: it becomes a probe verdict.)

use std::path::PathBuf;

use agentspine_fs::FsError;

/// A request that cannot be resolved, with the path and the reason.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ResolveError {
    /// A path that must be absolute is not.
    #[error("the {what} must be an absolute path, got {}", .path.display())]
    Relative {
        /// Which input.
        what: &'static str,
        /// What was given.
        path: PathBuf,
    },
    /// The directory does not exist.
    #[error("{}: no such directory", .path.display())]
    NoSuchDirectory {
        /// The path.
        path: PathBuf,
    },
    /// The path is not a directory.
    #[error("{}: not a directory", .path.display())]
    NotADirectory {
        /// The path.
        path: PathBuf,
    },
    /// The cwd lies outside the explicit root.
    #[error("the working directory {} is outside the project root {}", .cwd.display(), .root.display())]
    CwdOutsideRoot {
        /// The cwd.
        cwd: PathBuf,
        /// The root.
        root: PathBuf,
    },
    /// The target lies outside the root.
    #[error("{}: outside the project root {}; agentspine resolves nothing there", .target.display(), .root.display())]
    TargetOutsideRoot {
        /// The target as given.
        target: PathBuf,
        /// The root.
        root: PathBuf,
    },
    /// A link is on the target's path.
    #[error("{}: a symbolic link is on the path, and agentspine never follows links", .target.display())]
    TargetThroughSymlink {
        /// The target as given.
        target: PathBuf,
    },
    /// The target does not exist.
    #[error("{}: no such file or directory in the project", .target.display())]
    TargetMissing {
        /// The target as given.
        target: PathBuf,
    },
    /// A root (or working directory) a client named is, or passes
    /// through, a link: such a root is taken as given, never through one.
    #[error("{}", through_link(.path, .link))]
    RootThroughLink {
        /// The root as given.
        path: PathBuf,
        /// The path up to the link.
        link: String,
    },
    /// The confined reader refused something the resolution cannot do without.
    #[error(transparent)]
    Fs(#[from] FsError),
}

impl ResolveError {
    /// A stable code for JSON output.
    pub fn code(&self) -> &'static str {
        match self {
            ResolveError::Relative { .. } => "relative-path",
            ResolveError::NoSuchDirectory { .. } => "no-such-directory",
            ResolveError::NotADirectory { .. } => "not-a-directory",
            ResolveError::CwdOutsideRoot { .. } => "cwd-outside-root",
            ResolveError::TargetOutsideRoot { .. } => "target-outside-root",
            ResolveError::TargetThroughSymlink { .. } => "target-through-symlink",
            ResolveError::TargetMissing { .. } => "target-missing",
            ResolveError::RootThroughLink { .. } => "root-through-link",
            ResolveError::Fs(e) => e.code().as_str(),
        }
    }
}

fn through_link(path: &std::path::Path, link: &str) -> String {
    let which = if path == std::path::Path::new(link) { "it".to_owned() } else { link.to_owned() };
    format!(
        "{}: refused: {which} is a symbolic link; a root named by a client is taken exactly as given, never \
         through a link (name the directory the link points to)",
        path.display()
    )
}
