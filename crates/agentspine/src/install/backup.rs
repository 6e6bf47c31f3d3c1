//! The copies install and uninstall keep of a file they change, and the
//! one they keep above all: the file as the user had it before install.
//!
//! Rule: before a file is changed, its bytes are copied beside it to
//! `<name>.agentspine-backup-<secs>` (`-2`, `-3`, … within one second).
//! Of these copies two are kept, the rest removed: the newest (the state
//! before the last change) and the newest that holds nothing of
//! agentspine's (its hooks, its MCP server, its extension): the file as the
//! user had it before install, the *original*. A version agentspine wrote
//! into is never kept in its place, so the original survives any number of
//! installs; it is replaced only by a newer original (a later install
//! backing up a file that holds nothing of agentspine's again).
//!
//! Uninstall reads the original to give the file back: which containers
//! (`hooks`, `mcpServers`, `[hooks.state]`, …) the user had, even empty,
//! whether the file existed at all (a file with an original is never
//! removed), and, when what remains after taking agentspine's entries out
//! equals the original value for value, the original's bytes.

use std::path::{Path, PathBuf};

use agentspine_fs::FsError;

use super::MAX_CONFIG;

/// Whether a version of a file holds anything agentspine writes into it.
pub type Holds = fn(&str) -> bool;

/// The backups of `name` in `dir`, newest first.
fn list(dir: &Path, name: &str) -> Vec<String> {
    let prefix = format!("{name}.agentspine-backup-");
    let reader = agentspine_fs::Reader::new(agentspine_fs::Budget::UNLIMITED);
    let listing = match reader.open_root(dir).and_then(|root| root.list(".", 100_000)) {
        Ok(listing) => listing,
        Err(e) => {
            tracing::warn!("{}: backups not listed: {e}", dir.display());
            return Vec::new();
        }
    };
    let mut found: Vec<((u64, u32), String)> = listing
        .entries
        .iter()
        .chain(&listing.hidden)
        .filter(|entry| entry.kind == agentspine_fs::FileKind::File)
        .filter_map(|entry| Some((age(entry.name.strip_prefix(&prefix)?)?, entry.name.clone())))
        .collect();
    found.sort_by_key(|b| std::cmp::Reverse(b.0));
    found.into_iter().map(|(_, name)| name).collect()
}

/// `<secs>` or `<secs>-<n>` as a sortable pair; `None` for a name
/// agentspine does not write.
fn age(suffix: &str) -> Option<(u64, u32)> {
    let (secs, n) = suffix.split_once('-').unwrap_or((suffix, "1"));
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (all_digits(secs) && all_digits(n)).then(|| Some((secs.parse().ok()?, n.parse().ok()?))).flatten()
}

fn read(dir: &Path, name: &str) -> Option<String> {
    let reader = agentspine_fs::Reader::new(agentspine_fs::Budget::UNLIMITED);
    let snapshot = reader.open_root(dir).and_then(|root| root.read(name, MAX_CONFIG));
    match snapshot {
        Ok(snapshot) => String::from_utf8(snapshot.bytes).ok(),
        Err(e) => {
            tracing::warn!("{}: {e}", dir.join(name).display());
            None
        }
    }
}

/// The text of the original of `name` in `dir`: the newest backup that
/// holds nothing of agentspine's.
pub fn original(dir: &Path, name: &str, ours: Holds) -> Option<String> {
    list(dir, name).into_iter().find_map(|backup| read(dir, &backup).filter(|text| !ours(text)))
}

/// Copies `dir/name` to a new backup beside it, then removes every older
/// backup of it but the original. Returns the new backup's path. A backup
/// that cannot be removed stays (a warning says so).
pub fn write(dir: &Path, name: &str, ours: Holds) -> Result<PathBuf, FsError> {
    let newest = agentspine_fs::backup_file(dir, name)?;
    let newest_is_original = read(dir, &newest).is_some_and(|text| !ours(&text));
    let mut original_kept = newest_is_original;
    for backup in list(dir, name).into_iter().filter(|b| *b != newest) {
        if !original_kept && read(dir, &backup).is_some_and(|text| !ours(&text)) {
            original_kept = true;
            continue;
        }
        if let Err(e) = agentspine_fs::remove_file(dir, &backup) {
            tracing::warn!("{}: {e}", dir.join(&backup).display());
        }
    }
    Ok(dir.join(newest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_agentspine_writes_have_an_age() {
        assert_eq!(age("1700000000"), Some((1_700_000_000, 1)));
        assert_eq!(age("1700000000-3"), Some((1_700_000_000, 3)));
        assert!(age("1700000000-3") > age("1700000000-2"));
        assert!(age("1700000001") > age("1700000000-9"));
        for other in ["", "mine", "1700000000-", "-3", "17x", "1-2-3"] {
            assert_eq!(age(other), None, "{other}");
        }
    }
}
