//! Paths a caller gave, reduced and checked lexically, touching nothing:
//! how every surface reads a path before it asks the resolver anything,
//! and how labels show files under the home directory.

use std::path::{Component, Path, PathBuf};

/// Reduces an absolute path lexically (`.` dropped, `..` pops, never above
/// `/`), touching nothing: how every surface reads a path it was given
/// before checking it against a root.
pub fn lexical(path: &Path) -> PathBuf {
    // Never longer than the path and its leading `/`: one allocation.
    let mut out = PathBuf::with_capacity(path.as_os_str().len() + 1);
    out.push("/");
    for component in path.components() {
        match component {
            Component::Normal(name) => out.push(name),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// Why [`names_within`] refused a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathOutside {
    /// It lies outside the root (after `.` and `..` are reduced).
    Outside,
    /// A name in it is not UTF-8.
    NotUtf8,
}

/// The names below `root` of a path a caller was given: absolute (under
/// `root` or one of `aliases`, other spellings of the same directory), or
/// relative to `root`; reduced lexically first, touching nothing. How every
/// surface that takes a path from a model checks it lies within its root
/// before asking the resolver anything.
pub fn names_within(path: &Path, root: &Path, aliases: &[&Path]) -> Result<Vec<String>, PathOutside> {
    let absolute = if path.is_absolute() { lexical(path) } else { lexical(&root.join(path)) };
    let rest = std::iter::once(root)
        .chain(aliases.iter().copied())
        .find_map(|base| absolute.strip_prefix(base).ok())
        .ok_or(PathOutside::Outside)?;
    rest.components()
        .map(|c| match c {
            Component::Normal(n) => n.to_str().map(str::to_owned).ok_or(PathOutside::NotUtf8),
            _ => Err(PathOutside::Outside),
        })
        .collect()
}

/// The names of `path` below `root`, if it lies beneath it.
pub(crate) fn names_below(root: &Path, path: &Path) -> Option<Vec<String>> {
    let rest = path.strip_prefix(root).ok()?;
    rest.components()
        .map(|c| match c {
            Component::Normal(n) => n.to_str().map(str::to_owned),
            _ => None,
        })
        .collect()
}

/// `~/…` for paths under home, else the path itself: how labels show
/// profile files.
pub(crate) fn tilde(path: &Path, home: Option<&Path>) -> String {
    if let Some(rest) = home.and_then(|h| path.strip_prefix(h).ok()) {
        return format!("~/{}", rest.display());
    }
    path.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_checked_against_the_root_and_its_aliases_lexically() {
        let root = Path::new("/r/p");
        let alias = Path::new("/link/p");
        let names = |p: &str| names_within(Path::new(p), root, &[alias]);
        assert_eq!(names("a/b.ts").unwrap(), ["a", "b.ts"]);
        assert_eq!(names("/r/p/a/../b").unwrap(), ["b"]);
        assert_eq!(names("/link/p/a").unwrap(), ["a"]);
        assert!(names(".").unwrap().is_empty());
        for outside in ["../q", "/r/p/../q/x", "/r/pq", "/etc/passwd", "a/../../x"] {
            assert_eq!(names(outside), Err(PathOutside::Outside), "{outside}");
        }
    }
}
