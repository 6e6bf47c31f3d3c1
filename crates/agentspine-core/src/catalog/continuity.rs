//! Continuity sources: accepted learning records, the project's own
//! (`project/KIND/record:N`) and the portable ones read through an
//! explicit binding (`binding:ID/KIND/record:N`). The state store reads
//! them; this module only turns them into catalog sources.
//!
//! A continuity source is inline text, not a file. Its label carries its
//! provenance, so every surface that shows a source (briefing headings,
//! `sources` in JSON, `read_document`) says where it came from. It is context only: nothing in it grants
//! identity, roles, permissions, delegation, host trust or a right to
//! start anything.

use std::path::PathBuf;

use serde::Serialize;

use crate::catalog::{Origin, Source, SourceIds, SourceResolution};
use crate::chain::sha256_hex;
use crate::resolution::Scope;

/// One record read through a binding, as the front end got it from the
/// state store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContinuityItem {
    /// The binding it was read through; `None` for a record of the
    /// project the request is for.
    pub binding_id: Option<String>,
    /// The record's id in the bound project.
    pub record_id: i64,
    /// Its kind (`preference`, `no-go`, ...).
    pub kind: String,
    /// Its text.
    pub text: String,
}

impl ContinuityItem {
    /// The provenance label: `binding:ID/KIND/record:N`, or
    /// `project/KIND/record:N` for the project's own.
    pub fn label(&self) -> String {
        format!("{}/{}/record:{}", self.base().display(), self.kind, self.record_id)
    }

    /// The source id this item gets in a catalog keyed by `ids`.
    pub fn source_id(&self, ids: &SourceIds) -> String {
        ids.id(&self.base(), &self.rel(), Scope::Continuity)
    }

    /// SHA-256 of the text, as the source's `sha256`.
    pub fn sha256(&self) -> String {
        sha256_hex(self.text.as_bytes())
    }

    fn base(&self) -> PathBuf {
        match &self.binding_id {
            Some(id) => PathBuf::from(format!("binding:{id}")),
            None => PathBuf::from("project"),
        }
    }

    fn rel(&self) -> String {
        format!("record:{}", self.record_id)
    }
}

/// Adds `items` to `sources`, after everything the host loads.
pub(crate) fn add(
    items: &[ContinuityItem],
    ids: &SourceIds,
    sources: &mut Vec<Source>,
    resolution: &mut SourceResolution,
) {
    if items.is_empty() {
        return;
    }
    resolution.checked_scopes.push(Scope::Continuity);
    for item in items {
        sources.push(Source {
            source_id: item.source_id(ids),
            scope: Scope::Continuity,
            rel_path: item.label(),
            bytes: item.text.len() as u64,
            sha256: item.sha256(),
            required: false,
            text: item.text.clone(),
            origin: Origin { base: item.base(), rel: item.rel() },
        });
    }
}
