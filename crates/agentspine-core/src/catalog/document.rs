//! `read_document`: one catalog source's text, read again through the
//! confined reader with the identity check. An id that is not in this
//! catalog is an error; nothing else can be named.

use agentspine_fs::{FsError, Reader};
use serde::Serialize;

use crate::catalog::Catalog;
use crate::chain::sha256_hex;

/// A document as read now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Document {
    /// Its id.
    pub source_id: String,
    /// Its path label.
    pub rel_path: String,
    /// Its scope.
    pub scope: String,
    /// The text, as one whole version of the file.
    pub text: String,
    /// Size in bytes.
    pub bytes: u64,
    /// SHA-256 of the bytes read now.
    pub sha256: String,
    /// Whether the file changed since the catalog was built.
    pub changed: bool,
}

/// Why a document could not be read.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    /// The id is not in this root's catalog.
    #[error("{0}: not a source of this project's catalog (ids come from session_briefing or a query)")]
    UnknownId(String),
    /// The reader refused (gone, replaced by a link, kept changing, …).
    #[error("{source_id}: cannot be read again: {error}")]
    Refused {
        /// The id.
        source_id: String,
        /// Why.
        #[source]
        error: FsError,
    },
}

/// Reads `source_id` again.
pub fn read_document(catalog: &Catalog, reader: &Reader, source_id: &str) -> Result<Document, DocumentError> {
    let source = catalog.source(source_id).ok_or_else(|| DocumentError::UnknownId(source_id.to_owned()))?;
    if source.scope == crate::resolution::Scope::Continuity {
        // Inline text read through a binding when the catalog was built
        // (just now): there is no file to read again.
        return Ok(Document {
            source_id: source.source_id.clone(),
            rel_path: source.rel_path.clone(),
            scope: source.scope.to_string(),
            text: source.text.clone(),
            bytes: source.bytes,
            sha256: source.sha256.clone(),
            changed: false,
        });
    }
    let refused = |error| DocumentError::Refused { source_id: source_id.to_owned(), error };
    let root = reader.open_root(&source.origin.base).map_err(refused)?;
    let snap = root.read(&source.origin.rel, crate::catalog::CATALOG_CAP).map_err(refused)?;
    let sha256 = sha256_hex(&snap.bytes);
    Ok(Document {
        source_id: source.source_id.clone(),
        rel_path: source.rel_path.clone(),
        scope: source.scope.to_string(),
        text: String::from_utf8_lossy(&snap.bytes).into_owned(),
        bytes: snap.identity.size,
        changed: sha256 != source.sha256,
        sha256,
    })
}
