//! Required preflight: a complete discovery earns a receipt; an incomplete
//! one is an error naming every cause. A receipt is proof of what was
//! resolved, never permission for anything: no code path accepts one.

use serde::Serialize;

use crate::catalog::{Catalog, Gap};

/// Proof that a required preflight resolved completely.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Receipt {
    /// `rcpt_` and the first 24 hex digits of the catalog digest.
    pub id: String,
    /// SHA-256 over every source's id and digest, in order.
    pub catalog_digest: String,
    /// The sources and their digests.
    pub sources: Vec<ReceiptSource>,
}

/// One source in a receipt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReceiptSource {
    /// Its id.
    pub source_id: String,
    /// Its SHA-256.
    pub sha256: String,
}

/// A required preflight whose discovery was incomplete.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("required preflight incomplete: {}", .causes.iter().map(|g| format!("{} ({})", g.what, g.cause)).collect::<Vec<_>>().join(", "))]
pub struct PreflightError {
    /// Every cause, in order.
    pub causes: Vec<Gap>,
}

/// A receipt when nothing required was skipped, cut or refused; else the
/// error naming each cause.
pub fn preflight(catalog: &Catalog) -> Result<Receipt, PreflightError> {
    let causes: Vec<Gap> = catalog.resolution.gaps.iter().filter(|g| g.required).cloned().collect();
    if !causes.is_empty() {
        return Err(PreflightError { causes });
    }
    let digest = catalog.digest();
    Ok(Receipt {
        id: format!("rcpt_{}", &digest[..24]),
        catalog_digest: digest,
        sources: catalog
            .sources
            .iter()
            .map(|s| ReceiptSource { source_id: s.source_id.clone(), sha256: s.sha256.clone() })
            .collect(),
    })
}
