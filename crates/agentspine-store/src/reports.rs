//! The latest `sourceResolution` report of each project root and host: the
//! compact line a hook sent at session start, kept so that `agentspine
//! audit` can show it beside the event rows. One row per root and host,
//! replaced by the next session start; derived state, never salvaged.

use crate::db::{Store, now_ms};

/// The longest project root and line stored, in bytes (longer ones are cut
/// on a character boundary and marked).
pub const MAX_REPORT_FIELD: usize = 512;

/// One stored report.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
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

/// A failure of a report operation.
#[derive(Debug, thiserror::Error)]
#[error("reports: {operation}: {source}")]
pub struct ReportError {
    /// `put` or `list`.
    operation: &'static str,
    /// The underlying error.
    #[source]
    source: rusqlite::Error,
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

impl Store {
    /// Stores `line` as the latest report of `root_digest` for `host`.
    pub fn report_put(
        &self,
        root_digest: &str,
        host: &str,
        project_root: &str,
        line: &str,
    ) -> Result<(), ReportError> {
        // Most session starts make the report the last one made: a read
        // then, not a write (a write takes the database's write lock and
        // grows the WAL every hook process reads back).
        let (root, line) = (capped(project_root), capped(line));
        let same = self
            .read(|tx| {
                use rusqlite::OptionalExtension;
                tx.query_row(
                    "SELECT project_root = ?3 AND line = ?4 FROM reports WHERE root_digest = ?1 AND host = ?2",
                    (root_digest, host, &root, &line),
                    |row| row.get::<_, bool>(0),
                )
                .optional()
            })
            .map_err(|source| ReportError { operation: "put", source })?;
        if same == Some(true) {
            return Ok(());
        }
        self.write(|tx| {
            tx.execute(
                "INSERT INTO reports (root_digest, host, project_root, line, at_ms) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (root_digest, host) DO UPDATE SET project_root = excluded.project_root,
                     line = excluded.line, at_ms = excluded.at_ms",
                (root_digest, host, &root, &line, now_ms()),
            )
        })
        .map(|_| ())
        .map_err(|source| ReportError { operation: "put", source })
    }

    /// The latest report of every root, newest first (`host`: that host's
    /// only).
    pub fn reports(&self, host: Option<&str>) -> Result<Vec<StoredReport>, ReportError> {
        self.read(|tx| {
            let mut statement = tx.prepare(
                "SELECT host, project_root, line, at_ms FROM reports
                 WHERE ?1 IS NULL OR host = ?1 ORDER BY at_ms DESC, root_digest",
            )?;
            let rows = statement.query_map([host], |row| {
                Ok(StoredReport {
                    host: row.get(0)?,
                    project_root: row.get(1)?,
                    line: row.get(2)?,
                    at_ms: row.get(3)?,
                })
            })?;
            rows.collect()
        })
        .map_err(|source| ReportError { operation: "list", source })
    }
}

#[cfg(test)]
mod tests {
    use crate::Store;

    #[test]
    fn the_same_report_again_writes_nothing_and_a_new_one_replaces_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap().store;
        store.report_put("d1", "codex", "/p", "line one").unwrap();
        let first = store.reports(None).unwrap();
        let changes = store.conn.total_changes();
        std::thread::sleep(std::time::Duration::from_millis(5));
        store.report_put("d1", "codex", "/p", "line one").unwrap();
        assert_eq!(store.conn.total_changes(), changes, "no row was written");
        assert_eq!(store.reports(None).unwrap(), first, "the first time stays");
        store.report_put("d1", "codex", "/p", "line two").unwrap();
        assert_eq!(store.conn.total_changes(), changes + 1);
        let now = store.reports(None).unwrap();
        assert_eq!((now.len(), now[0].line.as_str()), (1, "line two"));
        assert!(now[0].at_ms > first[0].at_ms);
    }
}
