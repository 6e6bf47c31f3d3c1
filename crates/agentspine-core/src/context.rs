//! The text a hook adds, fitted under its host's cap (each profile's
//! [`ContextCap`], as measured: tests/e2e/HOOK-CONTEXT-MEASURED.md).
//!
//! Blocks come in the order they matter, closest to the tool's target
//! first (core's [`crate::delta`] orders a tool call's files so): each is
//! added whole while it fits; the first that does not is cut on a
//! character (when a useful part of it fits) and every later one is left
//! out. The text says where the cut is, counted in the file's own text,
//! and names what was left out. Nothing is dropped for the session: the
//! caller records the cut and left-out blocks as deferred, and a later
//! event offers them again, a cut one from where its cut stopped (see
//! [`Block::resume`]). A host that cuts or replaces a longer text never
//! gets one.

use std::path::PathBuf;

use crate::hosts::profile::{CapUnit, ContextCap};

/// Room kept for the notes that say something was cut or left out, past
/// the names of what was left out.
const NOTE_ROOM: usize = 300;
/// The most room the names of what was left out may take from the text
/// (more are counted, not named).
const NAMES_ROOM: usize = 600;
/// A source is cut only when at least this much of its text fits;
/// otherwise it is left out whole (a sliver helps nobody).
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
    /// The whole text, trimmed.
    pub text: String,
    /// How many bytes of `text` the session already has (an earlier cut):
    /// only the rest is shown. 0 for a whole block.
    pub from: usize,
    /// How the notes name it: a path relative to the project root, a
    /// fact's name.
    pub label: String,
    /// The instruction file a later event resolves again when this block
    /// is deferred; `None` for a source every later event offers anyway
    /// (memory facts, continuity).
    pub path: Option<PathBuf>,
}

impl Block {
    /// A whole block.
    pub fn new(source_id: String, sha256: String, heading: String, text: String, label: String) -> Block {
        Block { source_id, sha256, heading, text, from: 0, label, path: None }
    }

    /// The block for an instruction file at `path` (deferred by its path).
    pub fn of_file(mut self, path: PathBuf) -> Block {
        self.path = Some(path);
        self
    }

    /// The block shown from byte `from` of its text on (the session has
    /// the part before, from a cut): only a position inside the text on a
    /// character boundary counts, anything else shows the whole text.
    pub fn resume(mut self, from: usize) -> Block {
        self.from = if from < self.text.len() && self.text.is_char_boundary(from) { from } else { 0 };
        self
    }

    /// The text still to show.
    fn rest(&self) -> &str {
        &self.text[self.from..]
    }

    /// The heading, and where a resumed text goes on from.
    fn head(&self) -> String {
        if self.from == 0 {
            format!("{}\n\n", self.heading)
        } else {
            format!(
                "{}\n\n[agentspine: continued from character {} of {}]\n\n",
                self.heading,
                chars(&self.text[..self.from]),
                chars(&self.text)
            )
        }
    }

    fn render(&self) -> String {
        format!("{}{}", self.head(), self.rest())
    }
}

/// The context text and what of each block reached it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fitted {
    /// Within the cap it was fitted to.
    pub text: String,
    /// Indexes of the blocks whose (rest of the) text is in it whole.
    pub whole: Vec<usize>,
    /// The block that was cut, and the byte of its text where the cut is
    /// (what the session has of it now).
    pub cut: Option<(usize, usize)>,
    /// Indexes of the blocks left out.
    pub left_out: Vec<usize>,
}

impl Fitted {
    /// What of `blocks` (the ones this was fitted from) a later event must
    /// offer again, with how many bytes of each the session has: the cut
    /// block (up to its cut), and each one left out that no later event
    /// would offer by itself (an instruction file, found again by its
    /// path) or that was already resumed. A memory fact or a continuity
    /// record left out whole needs nothing: every later prompt offers it.
    pub fn deferred<'b>(&self, blocks: &'b [Block]) -> Vec<(&'b Block, usize)> {
        let cut = self.cut.map(|(i, at)| (&blocks[i], at));
        let left_out = self.left_out.iter().map(|&i| (&blocks[i], blocks[i].from));
        cut.into_iter().chain(left_out).filter(|(block, from)| block.path.is_some() || *from > 0).collect()
    }
}

/// Puts the rest of blocks already cut once behind the blocks a session
/// has none of yet (stable otherwise): a long file's remainder never
/// keeps a new file out.
pub fn resumed_last(blocks: &mut [Block]) {
    blocks.sort_by_key(|block| block.from > 0);
}

/// Characters as people and Claude Code count them (UTF-16 code units):
/// what the notes say.
pub fn chars(text: &str) -> usize {
    text.encode_utf16().count()
}

/// Lays `blocks` out within `cap`, then `tail` whole after them (room for
/// it is kept first: the session's `sourceResolution` report is never cut
/// or left out, so it is in the text whenever there is one); `None` when
/// there is nothing. The indexes are the blocks' only.
pub fn fit_with_tail(blocks: &[Block], tail: Option<&Block>, cap: ContextCap) -> Option<Fitted> {
    let Some(tail) = tail else { return fit(blocks, cap) };
    let rendered = tail.render();
    let reserve = cap.measure(&rendered) + 2;
    let limit = cap.limit();
    let mut fitted = fit_within(blocks, limit.saturating_sub(reserve), cap).unwrap_or(Fitted {
        text: String::new(),
        whole: Vec::new(),
        cut: None,
        left_out: (0..blocks.len()).collect(),
    });
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
    let all = rendered.join("\n\n");
    if cap.measure(&all) <= limit {
        return Some(Fitted {
            text: all,
            whole: (0..blocks.len()).collect(),
            cut: None,
            left_out: Vec::new(),
        });
    }
    let mut text = String::new();
    let mut fitted = Fitted { text: String::new(), whole: Vec::new(), cut: None, left_out: Vec::new() };
    let mut blocked = false;
    for (i, (block, shown)) in blocks.iter().zip(&rendered).enumerate() {
        let sep = if text.is_empty() { "" } else { "\n\n" };
        let used = cap.measure(&text) + cap.measure(sep);
        // Room for the notes: the cut's, and the names of every later
        // block (as many as NAMES_ROOM holds).
        let later = blocks[i + 1..].iter().map(|b| b.label.as_str());
        let notes = NOTE_ROOM + cap.measure(&left_out_note(later, NAMES_ROOM, cap)).min(NAMES_ROOM);
        let budget = limit.saturating_sub(notes);
        if !blocked && used + cap.measure(shown) <= budget {
            text.push_str(sep);
            text.push_str(shown);
            fitted.whole.push(i);
            continue;
        }
        if !blocked {
            blocked = true;
            let head = block.head();
            let room = budget.saturating_sub(used + cap.measure(&head));
            if room >= MIN_CUT {
                let kept = cap.prefix(block.rest(), room);
                let at = block.from + kept.len();
                text.push_str(sep);
                text.push_str(&head);
                text.push_str(kept);
                text.push_str(&format!(
                    "\n\n[agentspine: cut at character {} of {}; the rest comes with a later event, \
                     or run `agentspine briefing` for the whole file]",
                    chars(&block.text[..at]),
                    chars(&block.text)
                ));
                fitted.cut = Some((i, at));
                continue;
            }
        }
        fitted.left_out.push(i);
    }
    if !fitted.left_out.is_empty() {
        let sep = if text.is_empty() { "" } else { "\n\n" };
        let room = limit.saturating_sub(cap.measure(&text) + cap.measure(sep));
        let note = left_out_note(fitted.left_out.iter().map(|&i| blocks[i].label.as_str()), room, cap);
        // Only a tail that fills the cap leaves no room for it (the blocks
        // are deferred all the same).
        if cap.measure(&note) <= room {
            text.push_str(sep);
            text.push_str(&note);
        }
    }
    debug_assert!(cap.measure(&text) <= limit, "the notes fit in their room");
    fitted.text = text;
    Some(fitted)
}

/// The note naming what was left out, as many names as fit in `room`
/// (counted as `cap` counts), the rest as a number.
fn left_out_note<'a>(labels: impl ExactSizeIterator<Item = &'a str>, room: usize, cap: ContextCap) -> String {
    let total = labels.len();
    let noun = if total == 1 { "source" } else { "sources" };
    let open =
        format!("[agentspine: {total} more {noun} left out for lack of room, to come with a later event");
    let close = "; run `agentspine briefing` for them now]";
    // The longest ending a list can have: ", and 9999 more".
    let reserve = cap.measure(open.as_str()) + cap.measure(close) + 16;
    let mut names = String::new();
    let mut named = 0;
    for label in labels.filter(|l| !l.is_empty()) {
        let next = if names.is_empty() { format!(": {label}") } else { format!(", {label}") };
        if reserve + cap.measure(&names) + cap.measure(&next) > room {
            break;
        }
        names.push_str(&next);
        named += 1;
    }
    if named > 0 && named < total {
        names.push_str(&format!(", and {} more", total - named));
    }
    format!("{open}{names}{close}")
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
        Block::new(
            format!("src_{n}"),
            String::new(),
            format!("## f{n}.md"),
            "é".repeat(len),
            format!("f{n}.md"),
        )
    }

    /// The cut note's numbers: (character cut at, characters in all).
    fn cut_note(text: &str) -> (usize, usize) {
        let note = text.rsplit_once("[agentspine: cut at character ").unwrap().1;
        let (at, rest) = note.split_once(" of ").unwrap();
        (at.parse().unwrap(), rest.split(';').next().unwrap().parse().unwrap())
    }

    #[test]
    fn small_blocks_are_joined_whole() {
        let f = fit(&[block(1, 3), block(2, 2)], CAP).unwrap();
        assert_eq!(f.text, "## f1.md\n\nééé\n\n## f2.md\n\néé");
        assert_eq!((f.whole, f.cut, f.left_out), (vec![0, 1], None, vec![]));
        assert_eq!(fit(&[], CAP), None);
    }

    #[test]
    fn the_first_that_does_not_fit_is_cut_with_its_own_count_and_the_rest_are_named() {
        let f = fit(&[block(1, 100), block(2, 30_000), block(3, 10)], CAP).unwrap();
        assert!(chars(&f.text) <= LIMIT, "{}", chars(&f.text));
        assert_eq!(f.whole, [0]);
        let (i, at) = f.cut.unwrap();
        assert_eq!(i, 1);
        assert_eq!(f.left_out, [2]);
        // The count is of the file's text alone: what the text holds of it.
        let (cut_at, total) = cut_note(&f.text);
        assert_eq!(total, 30_000);
        assert_eq!(cut_at, at / 2, "é is 2 bytes and 1 character");
        let shown = f.text.split("## f2.md\n\n").nth(1).unwrap().split("\n\n[agentspine").next().unwrap();
        assert_eq!(chars(shown), cut_at);
        assert!(
            f.text.ends_with(
                "[agentspine: 1 more source left out for lack of room, to come with a later event: f3.md; \
                 run `agentspine briefing` for them now]"
            ),
            "{}",
            &f.text[f.text.len() - 300..]
        );
    }

    #[test]
    fn a_small_file_after_the_cut_is_left_out_not_squeezed_in() {
        // Closest first: a farther file never displaces a nearer one's room.
        let f = fit(&[block(1, 9_300), block(2, 5_000), block(3, 5)], CAP).unwrap();
        assert_eq!((f.whole, f.cut, f.left_out), (vec![0], None, vec![1, 2]));
        assert!(f.text.contains(": f2.md, f3.md;"), "{}", f.text);
    }

    #[test]
    fn with_too_little_room_left_a_block_is_left_out_whole() {
        let f = fit(&[block(1, LIMIT - 600), block(2, 5_000), block(3, 5_000)], CAP).unwrap();
        assert_eq!(f.whole, [0]);
        assert_eq!(f.left_out, [1, 2]);
        assert!(f.text.ends_with(
            "[agentspine: 2 more sources left out for lack of room, to come with a later event: f2.md, f3.md; \
             run `agentspine briefing` for them now]"
        ));
        assert!(chars(&f.text) <= LIMIT);
    }

    #[test]
    fn many_left_out_names_give_way_to_a_count() {
        let mut blocks = vec![block(0, 9_500)];
        blocks.extend((1..200).map(|n| {
            let mut b = block(n, 600);
            b.label = format!("packages/package-number-{n}/AGENTS.md");
            b
        }));
        let f = fit(&blocks, CAP).unwrap();
        assert!(chars(&f.text) <= LIMIT, "{}", chars(&f.text));
        assert_eq!(f.left_out.len() + f.whole.len() + usize::from(f.cut.is_some()), 200);
        assert!(f.text.contains("more; run `agentspine briefing` for them now]"), "{}", f.text);
    }

    #[test]
    fn a_resumed_block_goes_on_from_its_cut() {
        let whole = block(1, 30_000);
        let first = fit(std::slice::from_ref(&whole), CAP).unwrap();
        let (_, at) = first.cut.unwrap();
        let second = fit(&[whole.clone().resume(at)], CAP).unwrap();
        assert!(
            second.text.starts_with(&format!(
                "## f1.md\n\n[agentspine: continued from character {} of 30000]\n\né",
                at / 2
            )),
            "{}",
            &second.text[..100]
        );
        let (cut_at, total) = cut_note(&second.text);
        assert_eq!(total, 30_000);
        let (_, at2) = second.cut.unwrap();
        assert_eq!(cut_at, at2 / 2);
        assert!(at2 > at);
        // The third goes to the end, whole.
        let third = fit(&[whole.clone().resume(at2 + (30_000 * 2 - at2) - 10)], CAP).unwrap();
        assert_eq!(third.whole, [0]);
        // A position off a character boundary or past the end shows all.
        assert_eq!(whole.clone().resume(1).from, 0);
        assert_eq!(whole.clone().resume(60_000).from, 0);
    }

    #[test]
    fn what_is_deferred_is_the_cut_and_what_no_later_event_offers() {
        let mut file = block(2, 30_000);
        file.path = Some(PathBuf::from("/w/pkg/x.ts"));
        let mut left_file = block(3, 10);
        left_file.path = Some(PathBuf::from("/w/pkg/y.ts"));
        let fact = block(4, 10);
        let mut blocks = vec![block(1, 100), file, left_file, fact];
        let f = fit(&blocks, CAP).unwrap();
        let deferred: Vec<(&str, usize)> =
            f.deferred(&blocks).into_iter().map(|(b, from)| (b.source_id.as_str(), from)).collect();
        assert_eq!(deferred, [("src_2", f.cut.unwrap().1), ("src_3", 0)]);
        blocks[0] = blocks[0].clone().resume(2);
        resumed_last(&mut blocks);
        let order: Vec<&str> = blocks.iter().map(|b| b.source_id.as_str()).collect();
        assert_eq!(order, ["src_2", "src_3", "src_4", "src_1"]);
    }

    #[test]
    fn astral_characters_count_twice_and_are_never_split() {
        let mut b = block(1, 0);
        b.text = "😀".repeat(6_000);
        let f = fit(&[b], CAP).unwrap();
        assert!(chars(&f.text) <= LIMIT);
        let (cut_at, total) = cut_note(&f.text);
        assert_eq!(total, 12_000);
        assert_eq!(cut_at % 2, 0);
    }

    #[test]
    fn a_cap_in_bytes_counts_bytes() {
        // Codex keeps 10,000 bytes: 9,000 'é' are 9,000 characters but
        // 18,000 bytes, so the block is cut to fit the bytes.
        let bytes = ContextCap { limit: 10_000, unit: CapUnit::Bytes };
        let f = fit(&[block(1, 9_000)], bytes).unwrap();
        assert!(f.text.len() < 10_000, "{}", f.text.len());
        let (cut_at, total) = cut_note(&f.text);
        assert_eq!((cut_at, total), (f.cut.unwrap().1 / 2, 9_000));
        assert_eq!(fit(&[block(1, 9_000)], CAP).unwrap().text.len(), "## f1.md\n\n".len() + 18_000);
    }

    #[test]
    fn the_tail_is_kept_whole_and_every_block_can_be_left_out_for_it() {
        let tail = block(9, 9_950);
        let f = fit_with_tail(&[block(1, 50)], Some(&tail), CAP).unwrap();
        assert_eq!(f.left_out, [0]);
        // No room for the note either: the text is the tail alone.
        assert_eq!(f.text, tail.render());
        let f = fit_with_tail(&[block(1, 5_000), block(2, 9)], Some(&block(9, 8_000)), CAP).unwrap();
        assert_eq!((f.cut.map(|c| c.0), f.left_out), (Some(0), vec![1]));
        assert!(f.text.contains("[agentspine: 1 more source left out"), "{}", &f.text[..200]);
        assert!(f.text.ends_with(&block(9, 8_000).render()));
        assert!(chars(&f.text) <= LIMIT);
    }
}
