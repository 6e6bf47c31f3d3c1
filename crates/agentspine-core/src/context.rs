//! The text a hook adds, fitted under its host's cap (each profile's
//! [`ContextCap`], as measured: tests/e2e/HOOK-CONTEXT-MEASURED.md).
//! Sources are added whole in order while they fit; the first that does
//! not is cut (when a useful part of it fits) and the rest are left out,
//! and the text says so. A host that cuts or replaces a longer text never
//! gets one.

use crate::hosts::profile::{CapUnit, ContextCap};

/// Room kept for the notes that say something was cut or left out.
const NOTE_ROOM: usize = 200;
/// A source is cut only when at least this much of it fits; otherwise it
/// is left out whole (a sliver helps nobody).
const MIN_CUT: usize = 500;

/// One source to add: a file's heading and text, and what identifies the
/// version sent (recorded per session once it is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The keyed source id (as the catalog makes them).
    pub source_id: String,
    /// SHA-256 of the file's bytes.
    pub sha256: String,
    /// How the host labels the file (`Contents of /abs/path:`, `## rel`).
    pub heading: String,
    /// The text, trimmed.
    pub text: String,
}

impl Block {
    fn render(&self) -> String {
        format!("{}\n\n{}", self.heading, self.text)
    }
}

/// The context text and which blocks reached it (whole or cut).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fitted {
    /// Within the cap it was fitted to.
    pub text: String,
    /// Indexes of the blocks that are in the text.
    pub shown: Vec<usize>,
}

/// Characters as people and Claude Code count them (UTF-16 code units):
/// what the notes say.
pub fn chars(text: &str) -> usize {
    text.encode_utf16().count()
}

/// Lays `blocks` out within `cap`, then `tail` whole after them (room for
/// it is kept first: the session's `sourceResolution` report is never cut
/// or left out, so it is in the text whenever there is one); `None` when
/// there is nothing. `shown` lists the blocks only.
pub fn fit_with_tail(blocks: &[Block], tail: Option<&Block>, cap: ContextCap) -> Option<Fitted> {
    let Some(tail) = tail else { return fit(blocks, cap) };
    let rendered = tail.render();
    let reserve = cap.measure(&rendered) + 2;
    let limit = cap.limit();
    let mut fitted = fit_within(blocks, limit.saturating_sub(reserve), cap)
        .unwrap_or(Fitted { text: String::new(), shown: Vec::new() });
    if !fitted.text.is_empty() {
        fitted.text.push_str("\n\n");
    }
    fitted.text.push_str(&rendered);
    debug_assert!(cap.measure(&fitted.text) <= limit);
    Some(fitted)
}

/// Lays `blocks` out within `cap`; `None` when there are none.
pub fn fit(blocks: &[Block], cap: ContextCap) -> Option<Fitted> {
    fit_within(blocks, cap.limit(), cap)
}

/// Lays `blocks` out within `limit`, measured as `cap` measures.
fn fit_within(blocks: &[Block], limit: usize, cap: ContextCap) -> Option<Fitted> {
    if blocks.is_empty() {
        return None;
    }
    let rendered: Vec<String> = blocks.iter().map(Block::render).collect();
    let whole = rendered.join("\n\n");
    if cap.measure(&whole) <= limit {
        return Some(Fitted { text: whole, shown: (0..blocks.len()).collect() });
    }
    let budget = limit.saturating_sub(NOTE_ROOM);
    let mut text = String::new();
    let mut shown = Vec::new();
    for (i, block) in rendered.iter().enumerate() {
        let sep = if text.is_empty() { 0 } else { 2 };
        let used = cap.measure(&text);
        if used + sep + cap.measure(block) <= budget {
            if sep > 0 {
                text.push_str("\n\n");
            }
            text.push_str(block);
            shown.push(i);
            continue;
        }
        let room = budget.saturating_sub(used + sep);
        if room >= MIN_CUT {
            let kept = cap.prefix(block, room);
            if sep > 0 {
                text.push_str("\n\n");
            }
            text.push_str(kept);
            text.push_str(&format!(
                "\n\n[agentspine: cut at {} of {} characters; run `agentspine briefing` for the whole file]",
                chars(kept),
                chars(block)
            ));
            shown.push(i);
        }
        break;
    }
    let left_out = blocks.len() - shown.len();
    if left_out > 0 {
        let noun = if left_out == 1 { "source" } else { "sources" };
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(&format!("[agentspine: {left_out} more {noun} not shown; run `agentspine briefing`]"));
    }
    debug_assert!(cap.measure(&text) <= limit, "the notes fit in NOTE_ROOM");
    Some(Fitted { text, shown })
}

impl ContextCap {
    /// What a text may hold: strictly under the host's cap.
    fn limit(self) -> usize {
        self.limit.saturating_sub(1)
    }

    /// `text`'s size as the host counts it.
    pub fn measure(self, text: &str) -> usize {
        match self.unit {
            CapUnit::Utf16 => chars(text),
            CapUnit::Bytes => text.len(),
        }
    }

    /// The longest prefix of `text` of at most `max`, on a character
    /// boundary.
    fn prefix(self, text: &str, max: usize) -> &str {
        let mut used = 0;
        for (at, c) in text.char_indices() {
            let size = match self.unit {
                CapUnit::Utf16 => c.len_utf16(),
                CapUnit::Bytes => c.len_utf8(),
            };
            if used + size > max {
                return &text[..at];
            }
            used += size;
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claude Code's cap.
    const CAP: ContextCap = ContextCap { limit: 10_000, unit: CapUnit::Utf16 };
    const LIMIT: usize = 9_999;

    fn block(n: usize, len: usize) -> Block {
        Block {
            source_id: format!("src_{n}"),
            sha256: String::new(),
            heading: format!("## f{n}.md"),
            text: "é".repeat(len),
        }
    }

    #[test]
    fn small_blocks_are_joined_whole() {
        let f = fit(&[block(1, 3), block(2, 2)], CAP).unwrap();
        assert_eq!(f.text, "## f1.md\n\nééé\n\n## f2.md\n\néé");
        assert_eq!(f.shown, [0, 1]);
        assert_eq!(fit(&[], CAP), None);
    }

    #[test]
    fn a_big_block_is_cut_and_the_rest_are_counted() {
        let f = fit(&[block(1, 100), block(2, 30_000), block(3, 10)], CAP).unwrap();
        assert!(chars(&f.text) <= LIMIT, "{}", chars(&f.text));
        assert_eq!(f.shown, [0, 1]);
        assert!(f.text.contains("[agentspine: cut at "), "{}", &f.text[f.text.len() - 300..]);
        assert!(f.text.ends_with("[agentspine: 1 more source not shown; run `agentspine briefing`]"));
    }

    #[test]
    fn with_too_little_room_left_a_block_is_left_out_whole() {
        let f = fit(&[block(1, LIMIT - 400), block(2, 5_000), block(3, 5_000)], CAP).unwrap();
        assert_eq!(f.shown, [0]);
        assert!(f.text.ends_with("[agentspine: 2 more sources not shown; run `agentspine briefing`]"));
        assert!(chars(&f.text) <= LIMIT);
    }

    #[test]
    fn astral_characters_count_twice_and_are_never_split() {
        let mut b = block(1, 0);
        b.text = "😀".repeat(6_000);
        let f = fit(&[b], CAP).unwrap();
        assert!(chars(&f.text) <= LIMIT);
        assert!(f.text.contains("[agentspine: cut at "));
    }

    #[test]
    fn a_cap_in_bytes_counts_bytes() {
        // Codex keeps 10,000 bytes: 9,000 'é' are 9,000 characters but
        // 18,000 bytes, so the block is cut to fit the bytes.
        let bytes = ContextCap { limit: 10_000, unit: CapUnit::Bytes };
        let f = fit(&[block(1, 9_000)], bytes).unwrap();
        assert!(f.text.len() < 10_000, "{}", f.text.len());
        assert!(f.text.contains("[agentspine: cut at "));
        assert_eq!(fit(&[block(1, 9_000)], CAP).unwrap().text.len(), "## f1.md\n\n".len() + 18_000);
    }
}
