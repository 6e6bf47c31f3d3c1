//! The latest `sourceResolution` report of each project root and host: the
//! compact line a hook sent at session start, kept so that `agentspine
//! audit` can show it beside the event rows. Derived state, never
//! salvaged.
//!
//! Kept beside the database, not in it (as the session files are): one
//! small file per root and host in `reports/` inside the state directory,
//! named `<root digest>-<host>` (the digest is keyed: no path becomes a
//! name), holding one JSON object. Why not a table: every session start
//! makes a report, and a hook that needs nothing else of the database
//! then opens none (about a millisecond of its run, BENCHMARKS.md).
//! - A session start that makes the report the file holds writes nothing;
//!   another replaces the file whole (a new file renamed over it: a reader
//!   sees one report or the other), unsynced.
//! - Only regular files of this user with one name are read or replaced,
//!   never through a link ([`agentspine_fs::PrivateDir`]); a file that is
//!   not a well-formed report, or is over [`MAX_REPORT_FILE`], is skipped.
//! - A listing looks at most [`MAX_REPORTS`] files; only commands list.

use agentspine_fs::{FsError, PrivateDir};

use crate::db::now_ms;

/// The longest project root and line stored, in bytes (longer ones are cut
/// on a character boundary and marked).
pub const MAX_REPORT_FIELD: usize = 512;

/// One stored report.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StoredReport {
    /// The host whose rules applied.
    pub host: String,
    /// The project root, as reported.
    pub project_root: String,
    /// The compact report line.
    pub line: String,
    /// When this line was first stored for the root and host
    /// (milliseconds since the Unix epoch): a session start that makes the
    /// same report again writes nothing.
    pub at_ms: i64,
}

/// Directory of the report files inside the state directory.
pub const REPORTS_DIR: &str = "reports";
/// The most bytes of one report file that are read.
pub const MAX_REPORT_FILE: usize = 4096;
/// The most report files one listing looks at.
pub const MAX_REPORTS: usize = 10_000;

/// A failure of a report operation.
#[derive(Debug, thiserror::Error)]
#[error("reports: {operation}: {source}")]
pub struct ReportError {
    /// `put` or `list`.
    operation: &'static str,
    /// The underlying error.
    #[source]
    source: FsError,
}

fn capped(text: &str) -> String {
    if text.len() <= MAX_REPORT_FIELD {
        return text.to_owned();
    }
    let mut end = MAX_REPORT_FIELD;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…[cut]", &text[..end])
}

/// The report files of one state directory.
#[derive(Debug)]
pub struct ReportFiles {
    /// `reports/` in the state directory, opened at the first use.
    dir: crate::dir::Subdir,
}

impl ReportFiles {
    /// The report files of the state directory `state` (`reports/` is
    /// made at the first report).
    pub fn in_dir(state: PrivateDir) -> ReportFiles {
        ReportFiles { dir: crate::dir::Subdir::new(state, REPORTS_DIR) }
    }

    /// The report files of the state directory at `state_dir`, which
    /// must exist.
    pub fn open(state_dir: &std::path::Path) -> Result<ReportFiles, ReportError> {
        let state =
            PrivateDir::open(state_dir).map_err(|source| ReportError { operation: "open", source })?;
        Ok(ReportFiles::in_dir(state))
    }

    fn dir(&self, create: bool) -> Result<Option<&PrivateDir>, FsError> {
        self.dir.get(create)
    }

    /// Keeps `line` as the latest report of `root_digest` for `host`.
    pub fn put(
        &self,
        root_digest: &str,
        host: &str,
        project_root: &str,
        line: &str,
    ) -> Result<(), ReportError> {
        let fail = |source| ReportError { operation: "put", source };
        let name = file_name(root_digest, host).ok_or_else(|| {
            fail(FsError::Io {
                path: format!("{REPORTS_DIR}/{root_digest}-{host}"),
                error: std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a report file name"),
            })
        })?;
        let dir = self.dir(true).map_err(fail)?.expect("made when missing");
        let (project_root, line) = (capped(project_root), capped(line));
        // Most session starts make the report the last one made: a read
        // then, not a write.
        let held = dir.read(&name, MAX_REPORT_FILE).map_err(fail)?.and_then(|bytes| parse(&bytes));
        if held.is_some_and(|r| r.host == host && r.project_root == project_root && r.line == line) {
            return Ok(());
        }
        let report = StoredReport { host: host.to_owned(), project_root, line, at_ms: now_ms() };
        let bytes = serde_json::to_vec(&report).expect("reports serialize");
        dir.replace(&name, &bytes).map_err(fail)
    }

    /// The latest report of every root, newest first (`host`: that host's
    /// only).
    pub fn list(&self, host: Option<&str>) -> Result<Vec<StoredReport>, ReportError> {
        let fail = |source| ReportError { operation: "list", source };
        let Some(dir) = self.dir(false).map_err(fail)? else { return Ok(Vec::new()) };
        let mut reports = Vec::new();
        for entry in dir.entries(MAX_REPORTS).map_err(fail)? {
            if entry.name.starts_with('.') {
                continue;
            }
            // A file replaced or removed since the listing is skipped, as is
            // one that is not a report (or no longer a regular file).
            let Ok(Some(bytes)) = dir.read(&entry.name, MAX_REPORT_FILE) else { continue };
            let Some(report) = parse(&bytes) else { continue };
            if file_name_of(&entry.name).is_none_or(|of_host| of_host != report.host) {
                continue;
            }
            if host.is_none_or(|h| h == report.host) {
                reports.push((entry.name, report));
            }
        }
        reports.sort_by(|(a_name, a), (b_name, b)| b.at_ms.cmp(&a.at_ms).then_with(|| a_name.cmp(b_name)));
        Ok(reports.into_iter().map(|(_, r)| r).collect())
    }
}

/// The file of a root and host: `None` for a digest or host that could
/// not be a plain name of this form.
fn file_name(root_digest: &str, host: &str) -> Option<String> {
    let plain = |text: &str, extra: &[u8]| {
        !text.is_empty()
            && text.len() <= 64
            && text.bytes().all(|b| b.is_ascii_alphanumeric() || extra.contains(&b))
    };
    (plain(root_digest, b"") && plain(host, b"-_.") && !host.starts_with('.'))
        .then(|| format!("{root_digest}-{host}"))
}

/// The host a file's name says (after the digest's dash).
fn file_name_of(name: &str) -> Option<&str> {
    name.split_once('-').map(|(_, host)| host)
}

fn parse(bytes: &[u8]) -> Option<StoredReport> {
    serde_json::from_slice(bytes).ok()
}
