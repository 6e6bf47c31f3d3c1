//! The briefing: a byte-budgeted text made from a catalog, each part
//! labelled with its source id, scope and path, in catalog order (required
//! instructions, memory, then optional Markdown). Deterministic for the same
//! catalog and budget.

use serde::Serialize;

use crate::catalog::{Catalog, SourceResolution};
use crate::resolution::Cut;
use crate::text::prefix_on_char_boundary;

/// The default budget.
pub const DEFAULT_BUDGET: usize = 64 * 1024;

/// One part of a briefing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BriefingPart {
    /// The source.
    pub source_id: String,
    /// Its scope.
    pub scope: String,
    /// Its path label.
    pub rel_path: String,
    /// Bytes of its text in the briefing.
    pub bytes: usize,
    /// Set when the budget cut it.
    pub cut: Option<Cut>,
}

/// A briefing and the report it came with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Briefing {
    /// The text.
    pub text: String,
    /// Its parts, in order.
    pub parts: Vec<BriefingPart>,
    /// Sources left out because the budget was spent.
    pub omitted: Vec<String>,
    /// The budget in bytes.
    pub budget_bytes: usize,
    /// What was checked and found.
    #[serde(rename = "sourceResolution")]
    pub source_resolution: SourceResolution,
}

/// Renders `catalog` within `budget` bytes (labels included).
pub fn briefing(catalog: &Catalog, budget: usize) -> Briefing {
    let mut text = String::new();
    let mut parts = Vec::new();
    let mut omitted = Vec::new();
    for source in &catalog.sources {
        let label = format!("## {} · {} · {}\n\n", source.rel_path, source.scope, source.source_id);
        // Each part is its label, its text and a blank line; the total
        // never exceeds the budget.
        let room = budget.saturating_sub(text.len());
        if room <= label.len() + 2 {
            omitted.push(source.source_id.clone());
            continue;
        }
        let body = source.text.trim_end();
        let fits = room - label.len() - 2;
        let (kept, note) = if body.len() <= fits {
            (body, String::new())
        } else {
            // Say so in the text when a part is cut (room permitting).
            let longest = format!("\n[cut: {} of {} bytes shown]", body.len(), body.len()).len();
            let kept = prefix_on_char_boundary(body, fits.saturating_sub(longest));
            let note = format!("\n[cut: {} of {} bytes shown]", kept.len(), body.len());
            if kept.len() + note.len() <= fits {
                (kept, note)
            } else {
                (prefix_on_char_boundary(body, fits), String::new())
            }
        };
        let cut =
            (kept.len() < body.len()).then_some(Cut { kept: kept.len() as u64, total: body.len() as u64 });
        text.push_str(&label);
        text.push_str(kept);
        text.push_str(&note);
        text.push_str("\n\n");
        parts.push(BriefingPart {
            source_id: source.source_id.clone(),
            scope: source.scope.to_string(),
            rel_path: source.rel_path.clone(),
            bytes: kept.len(),
            cut,
        });
    }
    let mut source_resolution = catalog.resolution.clone();
    if !omitted.is_empty() || parts.iter().any(|p| p.cut.is_some()) {
        source_resolution.warnings.push(crate::resolution::Warning {
            code: "budget-exhausted".to_owned(),
            file: None,
            message: format!(
                "the briefing budget of {budget} bytes was reached: {} parts cut, {} sources left out",
                parts.iter().filter(|p| p.cut.is_some()).count(),
                omitted.len()
            ),
        });
    }
    Briefing { text, parts, omitted, budget_bytes: budget, source_resolution }
}
