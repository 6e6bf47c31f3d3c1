//! Lexical checks of relative paths, before any system call.
//!
//! A path is split on `/`; empty components (`a//b`) and `.` are dropped;
//! `..` removes the previous component, and a `..` with nothing left to
//! remove is an escape. What remains is a list of plain names that is
//! handed to the kernel one way or another (see `sys`); a `..` never reaches
//! the kernel, so it can never be resolved through a link. Consequently
//! `a/../b` names `b` whether or not `a` exists or is a link: nothing at `a`
//! is ever opened.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::error::FsError;

/// A path beneath a root, reduced to plain names. Empty means the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RelPath<'a> {
    pub(crate) names: Vec<&'a OsStr>,
}

impl<'a> RelPath<'a> {
    /// Checks and reduces `path`; `shown` is how errors name it.
    pub(crate) fn parse(path: &'a Path, shown: impl Fn() -> String) -> Result<Self, FsError> {
        let bytes = path.as_os_str().as_bytes();
        if bytes.is_empty() {
            return Err(FsError::InvalidPath { path: shown(), reason: "the path is empty" });
        }
        if bytes.contains(&0) {
            return Err(FsError::InvalidPath { path: shown(), reason: "the path holds a NUL byte" });
        }
        if bytes[0] == b'/' {
            return Err(FsError::Escape { path: shown() });
        }
        let mut names: Vec<&OsStr> = Vec::new();
        for part in bytes.split(|b| *b == b'/') {
            match part {
                b"" | b"." => {}
                b".." => {
                    if names.pop().is_none() {
                        return Err(FsError::Escape { path: shown() });
                    }
                }
                name => names.push(OsStr::from_bytes(name)),
            }
        }
        Ok(RelPath { names })
    }

    /// The parent names and the final name; `None` for the root itself.
    pub(crate) fn split_last(&self) -> Option<(&[&'a OsStr], &'a OsStr)> {
        self.names.split_last().map(|(last, parents)| (parents, *last))
    }

    /// The reduced path joined with `/` (`.` for the root).
    pub(crate) fn display(&self) -> String {
        if self.names.is_empty() {
            return ".".to_owned();
        }
        let parts: Vec<_> = self.names.iter().map(|n| n.to_string_lossy()).collect();
        parts.join("/")
    }
}

/// Reduces an absolute path lexically (`.` dropped, `..` pops, never above
/// `/`), touching nothing.
pub(crate) fn lexical_absolute(path: &Path) -> std::path::PathBuf {
    let mut out = std::path::PathBuf::from("/");
    for component in path.components() {
        match component {
            std::path::Component::Normal(name) => out.push(name),
            std::path::Component::ParentDir => {
                out.pop();
            }
            _ => {}
        }
    }
    out
}

/// Joins names with `/` into one path for `openat2`.
#[cfg(target_os = "linux")]
pub(crate) fn join(names: &[&OsStr]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            out.push(b'/');
        }
        out.extend_from_slice(name.as_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(p: &str) -> Result<Vec<String>, &'static str> {
        RelPath::parse(Path::new(p), || p.to_owned())
            .map(|r| r.names.iter().map(|n| n.to_string_lossy().into_owned()).collect())
            .map_err(|e| e.code().as_str())
    }

    #[test]
    fn reduces_lexically() {
        assert_eq!(names("a/b/c"), Ok(vec!["a".into(), "b".into(), "c".into()]));
        assert_eq!(names("a//b/./c/"), Ok(vec!["a".into(), "b".into(), "c".into()]));
        assert_eq!(names("a/../b"), Ok(vec!["b".into()]));
        assert_eq!(names("."), Ok(vec![]));
        assert_eq!(names("a/.."), Ok(vec![]));
    }

    #[test]
    fn refuses_escapes_and_bad_input() {
        assert_eq!(names(".."), Err("escape"));
        assert_eq!(names("a/../.."), Err("escape"));
        assert_eq!(names("../root/a"), Err("escape"));
        assert_eq!(names("/etc/passwd"), Err("escape"));
        assert_eq!(names("/proc/self/root/etc/passwd"), Err("escape"));
        assert_eq!(names(""), Err("invalid-path"));
        assert_eq!(names("a\0b"), Err("invalid-path"));
    }
}
