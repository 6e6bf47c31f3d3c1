//! What each agent session has already been sent: one row per (session,
//! source, content digest), so that a source is sent again only when it
//! changed or the session is new.

use crate::db::{Store, now_ms};

/// A failure of a session operation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// SQLite failed.
    #[error("session: {operation} {session_id}: {source}")]
    Database {
        /// `mark`, `check` or `prune`.
        operation: &'static str,
        /// The session concerned (`*` for all).
        session_id: String,
        /// The underlying error.
        #[source]
        source: rusqlite::Error,
    },
}

impl Store {
    /// Records that `session_id` was sent each `(source_id, sha256)` (the
    /// content's digest), now, in one transaction (a repeat moves the time
    /// forward): a hook records everything it printed with one commit.
    pub fn session_mark_sent_all(
        &self,
        session_id: &str,
        sources: &[(&str, &str)],
    ) -> Result<(), SessionError> {
        if sources.is_empty() {
            return Ok(());
        }
        let now = now_ms();
        self.write(|tx| {
            let mut insert = tx.prepare_cached(
                "INSERT INTO session_sent (session_id, source_id, sha256, sent_at_ms) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (session_id, source_id, sha256) DO UPDATE SET sent_at_ms = excluded.sent_at_ms",
            )?;
            for (source_id, sha256) in sources {
                insert.execute((session_id, source_id, sha256, now))?;
            }
            Ok(())
        })
        .map_err(|source| error("mark", session_id, source))
    }

    /// Everything `session_id` was sent, as `(source_id, sha256)` pairs, in
    /// one read: a hook asks once and looks up each candidate in memory
    /// instead of one transaction per candidate.
    pub fn session_sent(
        &self,
        session_id: &str,
    ) -> Result<std::collections::HashSet<(String, String)>, SessionError> {
        self.read(|tx| {
            let mut stmt = tx.prepare("SELECT source_id, sha256 FROM session_sent WHERE session_id = ?1")?;
            let rows = stmt.query_map([session_id], |row| Ok((row.get(0)?, row.get(1)?)))?;
            rows.collect()
        })
        .map_err(|source| error("check", session_id, source))
    }

    /// Forgets everything sent to `session_id`; returns rows removed.
    pub fn session_prune(&self, session_id: &str) -> Result<usize, SessionError> {
        self.write(|tx| tx.execute("DELETE FROM session_sent WHERE session_id = ?1", [session_id]))
            .map_err(|source| error("prune", session_id, source))
    }

    /// What a session start forgets, in one transaction: everything sent
    /// to `session_id` (when given: a new start or a compaction), and
    /// everything sent more than `secs` seconds ago in any session.
    /// Returns rows removed.
    pub fn session_prune_at_start(&self, session_id: Option<&str>, secs: u64) -> Result<usize, SessionError> {
        let cutoff = cutoff_ms(secs);
        self.write(|tx| {
            let mine = match session_id {
                Some(id) => tx.execute("DELETE FROM session_sent WHERE session_id = ?1", [id])?,
                None => 0,
            };
            Ok(mine + tx.execute("DELETE FROM session_sent WHERE sent_at_ms < ?1", [cutoff])?)
        })
        .map_err(|source| error("prune", session_id.unwrap_or("*"), source))
    }
}

/// The time `secs` seconds ago, in ms since the epoch.
fn cutoff_ms(secs: u64) -> i64 {
    let age_ms = i64::try_from(secs.saturating_mul(1000)).unwrap_or(i64::MAX);
    now_ms().saturating_sub(age_ms)
}

fn error(operation: &'static str, session_id: &str, source: rusqlite::Error) -> SessionError {
    SessionError::Database { operation, session_id: session_id.to_owned(), source }
}
