//! The configured scope of each project root: typed ids of the current
//! work (`person:alice`, `project:blun`, `group:platform`, `task:T-12`).
//!
//! Scope comes from explicit configuration or the request, never from file
//! contents; this table only remembers what was configured for a root.

use rusqlite::OptionalExtension;

use crate::db::{Store, now_ms};

/// The kinds a scope id may have.
pub const SCOPE_KINDS: [&str; 4] = ["person", "project", "group", "task"];
/// The longest id accepted after the `kind:` prefix, in bytes.
pub const MAX_SCOPE_ID_BYTES: usize = 200;
/// Punctuation allowed in an id besides letters and digits.
const ID_PUNCTUATION: &str = "-_.@+/";

/// A failure of a scope operation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ScopeError {
    /// An id is not of the form `kind:id`.
    #[error("scope id {id:?} is invalid: {reason}")]
    InvalidId {
        /// The id as given.
        id: String,
        /// What is wrong with it.
        reason: String,
    },
    /// SQLite failed, or the stored ids are not a JSON list of strings.
    #[error("scope: {operation} {root_digest}: {source}")]
    Database {
        /// `get` or `set`.
        operation: &'static str,
        /// The root concerned.
        root_digest: String,
        /// The underlying error.
        #[source]
        source: rusqlite::Error,
    },
}

/// Checks that `id` is `kind:name` with `kind` one of [`SCOPE_KINDS`] and
/// `name` non-empty, at most [`MAX_SCOPE_ID_BYTES`] bytes of letters, digits
/// and `-_.@+/`.
pub fn validate_scope_id(id: &str) -> Result<(), ScopeError> {
    let invalid = |reason: String| Err(ScopeError::InvalidId { id: id.to_owned(), reason });
    let Some((kind, name)) = id.split_once(':') else {
        return invalid(format!("expected kind:id, with kind one of {}", SCOPE_KINDS.join(", ")));
    };
    if !SCOPE_KINDS.contains(&kind) {
        return invalid(format!("unknown kind {kind:?}; expected one of {}", SCOPE_KINDS.join(", ")));
    }
    if name.is_empty() {
        return invalid("the id after the colon is empty".to_owned());
    }
    if name.len() > MAX_SCOPE_ID_BYTES {
        return invalid(format!("the id is {} bytes; at most {MAX_SCOPE_ID_BYTES} are allowed", name.len()));
    }
    if let Some(bad) = name.chars().find(|c| !c.is_alphanumeric() && !ID_PUNCTUATION.contains(*c)) {
        return invalid(format!("{bad:?} is not allowed; use letters, digits and {ID_PUNCTUATION}"));
    }
    Ok(())
}

impl Store {
    /// The ids configured for `root_digest`, in the order they were set;
    /// `None` if nothing was ever set (an empty list is a set, empty scope).
    pub fn scope_get(&self, root_digest: &str) -> Result<Option<Vec<String>>, ScopeError> {
        self.read(|tx| {
            let text: Option<String> = tx
                .query_row("SELECT ids FROM scopes WHERE root_digest = ?1", [root_digest], |row| row.get(0))
                .optional()?;
            text.map(|text| {
                serde_json::from_str::<Vec<String>>(&text).map_err(|e| {
                    rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, e.into())
                })
            })
            .transpose()
        })
        .map_err(|source| ScopeError::Database {
            operation: "get",
            root_digest: root_digest.to_owned(),
            source,
        })
    }

    /// Replaces the ids configured for `root_digest`. Every id is checked
    /// first ([`validate_scope_id`]); one bad id changes nothing. Repeated
    /// ids are kept once, at their first position.
    pub fn scope_set(&self, root_digest: &str, ids: &[String]) -> Result<(), ScopeError> {
        let mut unique: Vec<&str> = Vec::with_capacity(ids.len());
        for id in ids {
            validate_scope_id(id)?;
            if !unique.contains(&id.as_str()) {
                unique.push(id);
            }
        }
        let text = serde_json::Value::from(unique).to_string();
        self.write(|tx| {
            crate::quick::rows_may_exist(self.dir(), crate::quick::Empty::Scopes)?;
            tx.execute(
                "INSERT INTO scopes (root_digest, ids, updated_at_ms) VALUES (?1, ?2, ?3)
                 ON CONFLICT (root_digest) DO UPDATE SET ids = excluded.ids, updated_at_ms = excluded.updated_at_ms",
                (root_digest, &text, now_ms()),
            )
        })
        .map(|_| ())
        .map_err(|source| ScopeError::Database { operation: "set", root_digest: root_digest.to_owned(), source })
    }
}
