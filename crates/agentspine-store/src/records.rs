//! Learning records: what a user taught the agent in one project (a
//! preference, a no-go, a correction, a reference, ...), kept in that
//! project's state, keyed by its root digest.
//!
//! A record is added `proposed` and is context only once `accepted`. It is
//! never deleted: it is `retracted`, or `superseded` by an accepted
//! correction that names it. Every change is one transaction together with
//! its audit row (which never holds the record's text) and, when a record
//! stops being context, the removal of every cache row derived from it, so
//! the very next request cannot see it.
//!
//! Only the portable kinds ([`PORTABLE_KINDS`]) can ever be read through a
//! binding (see `bindings`); the others stay in their own project.

use std::fmt;

use rusqlite::{OptionalExtension, Row, Transaction};
use serde::Serialize;

use crate::audit::{AuditEvent, Keep, insert_audit};
use crate::db::{Store, now_ms};

/// The longest record text accepted, in bytes.
pub const MAX_RECORD_BYTES: usize = 4096;

/// What a record is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecordKind {
    /// How the user likes things done (portable).
    Preference,
    /// Something never to do (portable).
    NoGo,
    /// A correction of an earlier record, which it supersedes (portable).
    Correction,
    /// A pointer to something worth knowing (portable).
    Reference,
    /// Who the user is to the people they work with (portable).
    PersonRelationship,
    /// A fact about this project only.
    ProjectFact,
    /// A task of this project.
    Task,
    /// Something that needs attention in this project.
    AttentionEvent,
    /// Content of a group or a private project.
    GroupPrivate,
    /// Who may act for whom.
    DelegationPolicy,
    /// A permission to execute something.
    ExecutionGrant,
    /// A scheduled or running job.
    Job,
    /// A secret.
    Secret,
    /// Keys, certificates, trust decisions.
    TrustMaterial,
}

/// The kinds that may be read through a binding: low-risk learning about
/// the user, and the person-relationship context.
pub const PORTABLE_KINDS: [RecordKind; 5] = [
    RecordKind::Preference,
    RecordKind::NoGo,
    RecordKind::Correction,
    RecordKind::Reference,
    RecordKind::PersonRelationship,
];

/// The kinds that are never context, not even in their own project:
/// secrets and trust material must not reach a model's prompt, where any
/// tool output could repeat them; execution grants, delegation policy and
/// jobs are authority, and context grants none (a model that reads "you
/// may deploy" must not be able to act on it). agentspine keeps them so
/// that the user has them in one place, and puts them in no catalog.
pub const NEVER_CONTEXT_KINDS: [RecordKind; 5] = [
    RecordKind::DelegationPolicy,
    RecordKind::ExecutionGrant,
    RecordKind::Job,
    RecordKind::Secret,
    RecordKind::TrustMaterial,
];

/// The kinds that stay in their own project, whatever is bound.
pub const NON_PORTABLE_KINDS: [RecordKind; 9] = [
    RecordKind::ProjectFact,
    RecordKind::Task,
    RecordKind::AttentionEvent,
    RecordKind::GroupPrivate,
    RecordKind::DelegationPolicy,
    RecordKind::ExecutionGrant,
    RecordKind::Job,
    RecordKind::Secret,
    RecordKind::TrustMaterial,
];

impl RecordKind {
    /// The kind as written on the command line and stored.
    pub const fn as_str(self) -> &'static str {
        match self {
            RecordKind::Preference => "preference",
            RecordKind::NoGo => "no-go",
            RecordKind::Correction => "correction",
            RecordKind::Reference => "reference",
            RecordKind::PersonRelationship => "person-relationship",
            RecordKind::ProjectFact => "project-fact",
            RecordKind::Task => "task",
            RecordKind::AttentionEvent => "attention-event",
            RecordKind::GroupPrivate => "group-private",
            RecordKind::DelegationPolicy => "delegation-policy",
            RecordKind::ExecutionGrant => "execution-grant",
            RecordKind::Job => "job",
            RecordKind::Secret => "secret",
            RecordKind::TrustMaterial => "trust-material",
        }
    }

    /// The kind named `text`, if any.
    pub fn parse(text: &str) -> Option<RecordKind> {
        PORTABLE_KINDS.into_iter().chain(NON_PORTABLE_KINDS).find(|k| k.as_str() == text)
    }

    /// Whether records of this kind may be read through a binding.
    pub fn is_portable(self) -> bool {
        PORTABLE_KINDS.contains(&self)
    }

    /// Whether an accepted record of this kind is context in its own
    /// project: every kind but [`NEVER_CONTEXT_KINDS`].
    pub fn is_context_in_own_project(self) -> bool {
        !NEVER_CONTEXT_KINDS.contains(&self)
    }
}

impl fmt::Display for RecordKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a record stands. Only `accepted` records are ever context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecordStatus {
    /// Added, not yet accepted: never context.
    Proposed,
    /// Accepted by the user: context (through a binding, if portable).
    Accepted,
    /// Withdrawn by the user.
    Retracted,
    /// Replaced by an accepted correction.
    Superseded,
}

impl RecordStatus {
    /// The status as stored.
    pub const fn as_str(self) -> &'static str {
        match self {
            RecordStatus::Proposed => "proposed",
            RecordStatus::Accepted => "accepted",
            RecordStatus::Retracted => "retracted",
            RecordStatus::Superseded => "superseded",
        }
    }

    fn parse(text: &str) -> Option<RecordStatus> {
        [RecordStatus::Proposed, RecordStatus::Accepted, RecordStatus::Retracted, RecordStatus::Superseded]
            .into_iter()
            .find(|s| s.as_str() == text)
    }
}

impl fmt::Display for RecordStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One learning record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Record {
    /// Its id, unique in the state directory.
    pub id: i64,
    /// What it is about.
    pub kind: RecordKind,
    /// Whether it may be read through a binding.
    pub portable: bool,
    /// What it says.
    pub text: String,
    /// Where it stands.
    pub status: RecordStatus,
    /// The record this correction replaces once accepted.
    pub supersedes: Option<i64>,
    /// The accepted correction that replaced it.
    pub superseded_by: Option<i64>,
    /// When it was added, milliseconds since the Unix epoch.
    pub created_at: i64,
    /// When its status last changed.
    pub updated_at: i64,
}

/// What a change of status did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordChange {
    /// The record, as it is now.
    pub record: Record,
    /// The record an accepted correction superseded.
    pub superseded: Option<i64>,
    /// Cache rows derived from records that stopped being context.
    pub cache_rows_dropped: usize,
}

/// A failure of a record operation. Nothing is changed when one is
/// returned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RecordError {
    /// The text is empty or blank.
    #[error("the record text is empty: say what the agent should learn")]
    Empty,
    /// The text is too long.
    #[error(
        "the record text is {bytes} bytes; at most {MAX_RECORD_BYTES} are allowed (keep one record to one point)"
    )]
    TooLong {
        /// Its length.
        bytes: usize,
    },
    /// No record with this id in this project.
    #[error("there is no record {id} in this project (`agentspine record list` shows them)")]
    NotFound {
        /// The id asked for.
        id: i64,
    },
    /// The record is not in a status that allows the change.
    #[error("record {id} is {status}; only a {wanted} record can be {action}")]
    WrongStatus {
        /// The record.
        id: i64,
        /// Its status.
        status: RecordStatus,
        /// The status the change needs.
        wanted: &'static str,
        /// The change (`accepted`, `retracted`).
        action: &'static str,
    },
    /// A correction must name the record it corrects, and only a
    /// correction may.
    #[error("{0}")]
    Supersedes(String),
    /// SQLite failed.
    #[error("record: {operation}: {source}")]
    Database {
        /// `add`, `accept`, `retract` or `list`.
        operation: &'static str,
        /// The underlying error.
        #[source]
        source: rusqlite::Error,
    },
}

/// The relative path of the cache row derived from `record_id` through
/// `binding_id` (kept under the bound project's root digest).
pub(crate) fn derived_rel_path(binding_id: &str, record_id: i64) -> String {
    format!("continuity/{binding_id}/record/{record_id}")
}

/// Drops every cache row derived from `record_id` (through any binding).
fn drop_derived(tx: &Transaction<'_>, root_digest: &str, record_id: i64) -> rusqlite::Result<usize> {
    tx.execute(
        "DELETE FROM cache WHERE root_digest = ?1 AND binding_id IS NOT NULL
         AND rel_path GLOB 'continuity/*/record/' || ?2",
        (root_digest, record_id),
    )
}

const COLUMNS: &str = "id, kind, text, status, supersedes, superseded_by, created_at, updated_at";

fn record_row(row: &Row<'_>) -> rusqlite::Result<Record> {
    let bad = |i, what: &str, text: String| {
        rusqlite::Error::FromSqlConversionFailure(
            i,
            rusqlite::types::Type::Text,
            format!("unknown record {what} {text:?}").into(),
        )
    };
    let kind: String = row.get(1)?;
    let status: String = row.get(3)?;
    let kind = RecordKind::parse(&kind).ok_or_else(|| bad(1, "kind", kind.clone()))?;
    Ok(Record {
        id: row.get(0)?,
        kind,
        portable: kind.is_portable(),
        text: row.get(2)?,
        status: RecordStatus::parse(&status).ok_or_else(|| bad(3, "status", status.clone()))?,
        supersedes: row.get(4)?,
        superseded_by: row.get(5)?,
        created_at: row.get(6)?,
        updated_at: row.get(7)?,
    })
}

fn get(tx: &Transaction<'_>, root_digest: &str, id: i64) -> rusqlite::Result<Option<Record>> {
    tx.query_row(
        &format!("SELECT {COLUMNS} FROM records WHERE id = ?1 AND root_digest = ?2"),
        (id, root_digest),
        record_row,
    )
    .optional()
}

fn audit(tx: &Transaction<'_>, event: &str, record: &Record, detail: String) -> rusqlite::Result<i64> {
    insert_audit(
        tx,
        &AuditEvent {
            host: "cli".to_owned(),
            event: event.to_owned(),
            phase: "record".to_owned(),
            code: record.kind.as_str().to_owned(),
            path: None,
            detail: Some(detail),
        },
        now_ms(),
        Keep::Always,
    )
}

impl Store {
    /// Adds a `proposed` record to the project `root_digest`. A
    /// correction must name the record it corrects (`supersedes`), which
    /// must be a proposed or accepted record of the same project.
    pub fn record_add(
        &self,
        root_digest: &str,
        kind: RecordKind,
        text: &str,
        supersedes: Option<i64>,
    ) -> Result<Record, RecordError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(RecordError::Empty);
        }
        if text.len() > MAX_RECORD_BYTES {
            return Err(RecordError::TooLong { bytes: text.len() });
        }
        match (kind, supersedes) {
            (RecordKind::Correction, None) => {
                return Err(RecordError::Supersedes(
                    "a correction names the record it corrects: add --supersedes ID".to_owned(),
                ));
            }
            (RecordKind::Correction, Some(_)) | (_, None) => {}
            (other, Some(_)) => {
                return Err(RecordError::Supersedes(format!(
                    "only a correction supersedes a record; this one is a {other}"
                )));
            }
        }
        let database = |source| RecordError::Database { operation: "add", source };
        let now = now_ms();
        self.write(|tx| {
            if let Some(target) = supersedes {
                match get(tx, root_digest, target)? {
                    None => return Ok(Err(RecordError::NotFound { id: target })),
                    Some(r) if matches!(r.status, RecordStatus::Retracted | RecordStatus::Superseded) => {
                        return Ok(Err(RecordError::Supersedes(format!(
                            "record {target} is {}: there is nothing left to correct",
                            r.status
                        ))));
                    }
                    Some(_) => {}
                }
            }
            crate::quick::continuity_may_exist(self.dir())?;
            tx.execute(
                "INSERT INTO records (root_digest, kind, text, status, supersedes, created_at, updated_at)
                     VALUES (?1, ?2, ?3, 'proposed', ?4, ?5, ?5)",
                (root_digest, kind.as_str(), text, supersedes, now),
            )?;
            let record =
                get(tx, root_digest, tx.last_insert_rowid())?.ok_or(rusqlite::Error::QueryReturnedNoRows)?;
            crate::fault::inside_write("record add");
            audit(tx, "record-add", &record, format!("record {} proposed", record.id))?;
            Ok(Ok(record))
        })
        .map_err(database)?
    }

    /// Accepts a proposed record: from now on it is context. Accepting a
    /// correction also supersedes the record it names and drops the cache
    /// rows derived from that record, in the same transaction.
    pub fn record_accept(&self, root_digest: &str, id: i64) -> Result<RecordChange, RecordError> {
        let database = |source| RecordError::Database { operation: "accept", source };
        self.write(|tx| {
            let Some(record) = get(tx, root_digest, id)? else { return Ok(Err(RecordError::NotFound { id })) };
            if record.status != RecordStatus::Proposed {
                return Ok(Err(RecordError::WrongStatus {
                    id,
                    status: record.status,
                    wanted: "proposed",
                    action: "accepted",
                }));
            }
            let now = now_ms();
            let mut dropped = 0;
            let mut superseded = None;
            if let Some(target) = record.supersedes
                && let Some(old) = get(tx, root_digest, target)?
                && matches!(old.status, RecordStatus::Proposed | RecordStatus::Accepted)
            {
                tx.execute(
                    "UPDATE records SET status = 'superseded', superseded_by = ?1, updated_at = ?2 WHERE id = ?3",
                    (id, now, target),
                )?;
                dropped += drop_derived(tx, root_digest, target)?;
                superseded = Some(target);
            }
            tx.execute("UPDATE records SET status = 'accepted', updated_at = ?1 WHERE id = ?2", (now, id))?;
            let record = get(tx, root_digest, id)?.ok_or(rusqlite::Error::QueryReturnedNoRows)?;
            let detail = match superseded {
                Some(old) => format!("record {id} accepted; it supersedes record {old}"),
                None => format!("record {id} accepted"),
            };
            crate::fault::inside_write("record accept");
            audit(tx, "record-accept", &record, detail)?;
            Ok(Ok(RecordChange { record, superseded, cache_rows_dropped: dropped }))
        })
        .map_err(database)?
    }

    /// Retracts a proposed or accepted record: it is no longer context, and
    /// the cache rows derived from it are dropped in the same transaction.
    /// A record it superseded stays superseded.
    pub fn record_retract(&self, root_digest: &str, id: i64) -> Result<RecordChange, RecordError> {
        let database = |source| RecordError::Database { operation: "retract", source };
        self.write(|tx| {
            let Some(record) = get(tx, root_digest, id)? else {
                return Ok(Err(RecordError::NotFound { id }));
            };
            if !matches!(record.status, RecordStatus::Proposed | RecordStatus::Accepted) {
                return Ok(Err(RecordError::WrongStatus {
                    id,
                    status: record.status,
                    wanted: "proposed or accepted",
                    action: "retracted",
                }));
            }
            tx.execute(
                "UPDATE records SET status = 'retracted', updated_at = ?1 WHERE id = ?2",
                (now_ms(), id),
            )?;
            let dropped = drop_derived(tx, root_digest, id)?;
            let record = get(tx, root_digest, id)?.ok_or(rusqlite::Error::QueryReturnedNoRows)?;
            crate::fault::inside_write("record retract");
            audit(tx, "record-retract", &record, format!("record {id} retracted"))?;
            Ok(Ok(RecordChange { record, superseded: None, cache_rows_dropped: dropped }))
        })
        .map_err(database)?
    }

    /// Every record of the project, oldest first.
    pub fn record_list(&self, root_digest: &str) -> Result<Vec<Record>, RecordError> {
        self.read(|tx| {
            let mut stmt =
                tx.prepare(&format!("SELECT {COLUMNS} FROM records WHERE root_digest = ?1 ORDER BY id"))?;
            let rows = stmt.query_map([root_digest], record_row)?;
            rows.collect()
        })
        .map_err(|source| RecordError::Database { operation: "list", source })
    }

    /// How many records (of any status) the project has: whether it has
    /// any learning state at all.
    pub fn record_count(&self, root_digest: &str) -> Result<u64, RecordError> {
        self.read(|tx| {
            tx.query_row("SELECT COUNT(*) FROM records WHERE root_digest = ?1", [root_digest], |row| {
                row.get::<_, i64>(0)
            })
        })
        .map(|n| u64::try_from(n).unwrap_or(0))
        .map_err(|source| RecordError::Database { operation: "count", source })
    }
}

/// The accepted portable records of `root_digest`, oldest first, at most
/// `limit`, read inside `tx`.
pub(crate) fn accepted_portable(
    tx: &Transaction<'_>,
    root_digest: &str,
    limit: usize,
) -> rusqlite::Result<Vec<Record>> {
    let kinds: Vec<String> = PORTABLE_KINDS.iter().map(|k| format!("'{}'", k.as_str())).collect();
    let mut stmt = tx.prepare(&format!(
        "SELECT {COLUMNS} FROM records WHERE root_digest = ?1 AND status = 'accepted'
         AND kind IN ({}) ORDER BY id LIMIT ?2",
        kinds.join(", ")
    ))?;
    let rows = stmt.query_map((root_digest, i64::try_from(limit).unwrap_or(i64::MAX)), record_row)?;
    rows.collect()
}
