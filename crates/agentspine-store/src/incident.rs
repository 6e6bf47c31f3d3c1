//! Incidents: a damaged state database that was moved aside, what was
//! salvaged from it into the new one, and whether the user has
//! acknowledged it.
//!
//! An incident is written by the repair itself, in the same transaction as
//! the salvaged rows and its audit row (`state-damaged`), so a new database
//! that holds salvaged rows always says where they came from. Until
//! [`Store::incident_acknowledge`] (`agentspine doctor --acknowledge`)
//! records that the user has read it, every front end shows it:
//! [`Incident::summary`] is the one wording they share.

use std::path::PathBuf;

use rusqlite::Row;
use serde::{Deserialize, Serialize};

use crate::audit::{AuditEvent, Keep, insert_audit};
use crate::db::{Store, now_ms};

/// A failure to read or acknowledge incidents.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IncidentError {
    /// SQLite failed.
    #[error("incidents: {operation}: {source}")]
    Database {
        /// `list` or `acknowledge`.
        operation: &'static str,
        /// The underlying error.
        #[source]
        source: rusqlite::Error,
    },
}

/// How the damaged copy was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReadMethod {
    /// SQLite opened it (read-only, its WAL applied when there was one)
    /// and rows were copied one by one, skipping what it could not read.
    Rows,
    /// Its 100-byte header was unusable: a header was rebuilt in memory
    /// (page size found from the pages) and rows copied as above; a WAL
    /// beside it is not applied this way.
    RebuiltHeader,
    /// The file ends inside a page: its whole pages were read (from
    /// memory) and rows copied as above; a WAL beside it is not applied
    /// this way.
    WholePages,
    /// Nothing could be read.
    Nothing,
}

/// A run of ids that could not be read: `first..=last` (`last` `None`:
/// every id from `first` on). Not every id in it need have existed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdRange {
    /// The first id that could not be read.
    pub first: i64,
    /// The last, or `None` to the end of the table.
    pub last: Option<i64>,
}

/// What was salvaged of one table.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TableSalvage {
    /// Rows copied into the new database.
    pub recovered: u64,
    /// Rows read but not valid any more (a field SQLite read back damaged
    /// in a way the schema refuses).
    pub refused: u64,
    /// Ids that could not be read.
    pub unreadable: Vec<IdRange>,
    /// Why the table could not be read at all.
    pub error: Option<String>,
}

impl TableSalvage {
    /// Whether every row of the table was read and copied.
    pub fn complete(&self) -> bool {
        self.unreadable.is_empty() && self.error.is_none() && self.refused == 0
    }
}

/// What became of the binding chain.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ChainSalvage {
    /// Events kept as they were: the longest run from the first event in
    /// which every hash links to the one before (the new chain verifies).
    pub kept: u64,
    /// Events read but not kept: after a missing or altered event, they
    /// cannot be verified (they are still in the damaged copy).
    pub unverifiable: u64,
    /// Bindings the kept events leave active that were rolled back by the
    /// repair, because a later event (their rollback or purge) may be lost.
    /// Empty when the whole chain was read and verified.
    pub suspended: Vec<String>,
}

/// Everything the repair salvaged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Salvage {
    /// How the damaged copy was read.
    pub read: ReadMethod,
    /// Why nothing could be read, when nothing could.
    pub error: Option<String>,
    /// A `-wal` file beside the damaged copy whose transactions could not
    /// be applied (its newest changes are only in that file).
    pub wal_ignored: bool,
    /// Whether the project key was recovered: without it, salvaged records
    /// no longer match their projects.
    pub root_key: bool,
    /// Learning records.
    pub records: TableSalvage,
    /// Binding events as read (see [`Salvage::chain`] for what was kept).
    pub binding_events: TableSalvage,
    /// Audit events.
    pub audit: TableSalvage,
    /// Configured scopes.
    pub scopes: TableSalvage,
    /// The binding chain in the new database.
    pub chain: ChainSalvage,
}

/// One damaged database and what became of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Incident {
    /// Its id.
    pub id: i64,
    /// When the damage was found and the file moved aside, ms since the
    /// Unix epoch.
    pub at_ms: i64,
    /// What SQLite said about the file.
    pub reason: String,
    /// Where the damaged file is kept (its `-wal` and `-shm` beside it).
    pub damaged_copy: PathBuf,
    /// What was salvaged.
    pub salvage: Salvage,
    /// When the user acknowledged it.
    pub acknowledged_at: Option<i64>,
}

impl Incident {
    /// What happened, where the damaged copy is and what was recovered, in
    /// one paragraph (no time: front ends add it in their own format).
    pub fn summary(&self) -> String {
        let s = &self.salvage;
        let mut text = format!(
            "the state database was damaged ({}); a new one was started and the damaged copy is kept at {}",
            self.reason,
            self.damaged_copy.display()
        );
        text.push_str(&format!(
            "; recovered {}, {} ({}), {}, {}",
            count(s.records.recovered, "record"),
            count(s.chain.kept, "binding event"),
            if s.chain.unverifiable == 0 {
                "chain verified".to_owned()
            } else {
                format!("chain verified up to there; {} later not kept", s.chain.unverifiable)
            },
            count(s.audit.recovered, "audit event"),
            count(s.scopes.recovered, "scope")
        ));
        if s.read == ReadMethod::Nothing {
            text.push_str(&format!(
                ": nothing could be read from it ({}), so every record, binding and audit event is only in that copy",
                s.error.as_deref().unwrap_or("unreadable")
            ));
        } else {
            let mut lost = Vec::new();
            for (name, table) in [
                ("records", &s.records),
                ("binding events", &s.binding_events),
                ("audit events", &s.audit),
                ("scopes", &s.scopes),
            ] {
                for range in &table.unreadable {
                    lost.push(match range.last {
                        Some(last) if last == range.first => format!("{name} id {last}"),
                        Some(last) => format!("{name} ids {}-{last}", range.first),
                        None => format!("{name} from id {} on", range.first),
                    });
                }
                if let Some(error) = &table.error {
                    lost.push(format!("{name} ({error})"));
                }
                if table.refused > 0 {
                    lost.push(format!("{} {name} read back invalid", table.refused));
                }
            }
            if !lost.is_empty() {
                text.push_str(&format!("; unreadable: {}", lost.join(", ")));
            }
            if s.wal_ignored {
                text.push_str("; the newest changes, in its write-ahead log, could not be applied");
            }
            if !s.root_key {
                text.push_str(
                    "; the project key was lost, so recovered records no longer match their projects",
                );
            }
        }
        if !s.chain.suspended.is_empty() {
            let ids: Vec<String> = s.chain.suspended.iter().map(|id| format!("binding:{id}")).collect();
            text.push_str(&format!(
                "; {} rolled back, since a later rollback may be lost (bind again with `agentspine source-bind` to keep it)",
                ids.join(", ")
            ));
        }
        text.push_str("; the cache starts empty");
        text
    }
}

fn count(n: u64, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

impl Store {
    /// Every incident, oldest first.
    pub fn incidents(&self) -> Result<Vec<Incident>, IncidentError> {
        self.incidents_where("1")
    }

    /// The incidents the user has not acknowledged, oldest first.
    pub fn incidents_unacknowledged(&self) -> Result<Vec<Incident>, IncidentError> {
        self.incidents_where("acknowledged_at IS NULL")
    }

    /// Records that the user has read every unacknowledged incident: each
    /// gets its time and an audit row (`state-damage-acknowledged`, never
    /// pruned). Returns them as they are now.
    pub fn incident_acknowledge(&self) -> Result<Vec<Incident>, IncidentError> {
        let now = now_ms();
        let ids = self
            .write(|tx| {
                let mut stmt =
                    tx.prepare("SELECT id FROM incidents WHERE acknowledged_at IS NULL ORDER BY id")?;
                let ids: Vec<i64> = stmt.query_map([], |row| row.get(0))?.collect::<rusqlite::Result<_>>()?;
                for id in &ids {
                    tx.execute("UPDATE incidents SET acknowledged_at = ?1 WHERE id = ?2", (now, id))?;
                    insert_audit(
                        tx,
                        &AuditEvent {
                            host: "cli".to_owned(),
                            event: "state-damage-acknowledged".to_owned(),
                            phase: "store".to_owned(),
                            code: "acknowledged".to_owned(),
                            path: None,
                            detail: Some(format!("incident {id} acknowledged")),
                        },
                        now,
                        Keep::Always,
                    )?;
                }
                Ok(ids)
            })
            .map_err(|source| IncidentError::Database { operation: "acknowledge", source })?;
        // Hooks stop asking the database (see `quick.rs`); best effort:
        // the next open removes the file otherwise.
        if let Ok(private) = agentspine_fs::PrivateDir::open_existing(self.dir()) {
            let _ = crate::quick::sync_incident(&private, false);
        }
        Ok(self.incidents()?.into_iter().filter(|i| ids.contains(&i.id)).collect())
    }

    fn incidents_where(&self, condition: &str) -> Result<Vec<Incident>, IncidentError> {
        let dir = self.dir().to_path_buf();
        self.read(|tx| {
            let mut stmt = tx.prepare(&format!(
                "SELECT id, at_ms, reason, damaged_copy, salvage, acknowledged_at FROM incidents
                 WHERE {condition} ORDER BY id"
            ))?;
            let rows = stmt.query_map([], |row| incident_row(row, &dir))?;
            rows.collect()
        })
        .map_err(|source| IncidentError::Database { operation: "list", source })
    }
}

fn incident_row(row: &Row<'_>, dir: &std::path::Path) -> rusqlite::Result<Incident> {
    let salvage: String = row.get(4)?;
    let salvage = serde_json::from_str(&salvage).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(4, rusqlite::types::Type::Text, Box::new(e))
    })?;
    let name: String = row.get(3)?;
    Ok(Incident {
        id: row.get(0)?,
        at_ms: row.get(1)?,
        reason: row.get(2)?,
        damaged_copy: dir.join(name),
        salvage,
        acknowledged_at: row.get(5)?,
    })
}
