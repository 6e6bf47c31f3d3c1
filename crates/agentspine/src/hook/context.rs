//! The text a hook adds and the JSON it is printed in.
//!
//! Claude Code replaces any hook string over 10,000 characters with a
//! 2,000-character preview and a file path (HOSTS.md), so every
//! `additionalContext` is budgeted to stay under that: sources are added
//! whole in order while they fit; the first that does not is cut (when a
//! useful part of it fits) and the rest are left out, and the text says so.
//! Characters are counted as UTF-16 code units, as the host counts them.

use serde::Serialize;

/// Claude Code's cap on one hook string, in characters.
pub const HOST_CAP: usize = 10_000;
/// What a hook's `additionalContext` may hold: strictly under the cap.
pub const LIMIT: usize = HOST_CAP - 1;
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
    /// At most [`LIMIT`] characters.
    pub text: String,
    /// Indexes of the blocks that are in the text.
    pub shown: Vec<usize>,
}

/// Characters as the host counts them (UTF-16 code units).
pub fn chars(text: &str) -> usize {
    text.encode_utf16().count()
}

/// Lays `blocks` out within [`LIMIT`], then `tail` whole after them
/// (room for it is kept first: the session's `sourceResolution` report is
/// never cut or left out, so it is in the text whenever there is one);
/// `None` when there is nothing. `shown` lists the blocks only.
pub fn fit_with_tail(blocks: &[Block], tail: Option<&Block>) -> Option<Fitted> {
    let Some(tail) = tail else { return fit(blocks) };
    let rendered = tail.render();
    let reserve = chars(&rendered) + 2;
    let mut fitted = fit_within(blocks, LIMIT.saturating_sub(reserve))
        .unwrap_or(Fitted { text: String::new(), shown: Vec::new() });
    if !fitted.text.is_empty() {
        fitted.text.push_str("\n\n");
    }
    fitted.text.push_str(&rendered);
    debug_assert!(chars(&fitted.text) <= LIMIT);
    Some(fitted)
}

/// Lays `blocks` out within [`LIMIT`]; `None` when there are none.
pub fn fit(blocks: &[Block]) -> Option<Fitted> {
    fit_within(blocks, LIMIT)
}

/// Lays `blocks` out within `limit` characters.
fn fit_within(blocks: &[Block], limit: usize) -> Option<Fitted> {
    if blocks.is_empty() {
        return None;
    }
    let rendered: Vec<String> = blocks.iter().map(Block::render).collect();
    let whole = rendered.join("\n\n");
    if chars(&whole) <= limit {
        return Some(Fitted { text: whole, shown: (0..blocks.len()).collect() });
    }
    let budget = limit.saturating_sub(NOTE_ROOM);
    let mut text = String::new();
    let mut shown = Vec::new();
    for (i, block) in rendered.iter().enumerate() {
        let sep = if text.is_empty() { 0 } else { 2 };
        let used = chars(&text);
        if used + sep + chars(block) <= budget {
            if sep > 0 {
                text.push_str("\n\n");
            }
            text.push_str(block);
            shown.push(i);
            continue;
        }
        let room = budget.saturating_sub(used + sep);
        if room >= MIN_CUT {
            let kept = prefix(block, room);
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
    debug_assert!(chars(&text) <= limit, "the notes fit in NOTE_ROOM");
    Some(Fitted { text, shown })
}

/// The longest prefix of `text` of at most `max` characters, on a
/// character boundary.
fn prefix(text: &str, max: usize) -> &str {
    let mut used = 0;
    for (at, c) in text.char_indices() {
        if used + c.len_utf16() > max {
            return &text[..at];
        }
        used += c.len_utf16();
    }
    text
}

/// What the hosts read on stdout: `hookSpecificOutput` with the event and
/// the context, and `systemMessage`, which the host shows the user and not
/// the model; nothing else (never a permission decision).
#[derive(Debug, Serialize)]
pub struct Output<'a> {
    #[serde(rename = "hookSpecificOutput", skip_serializing_if = "Option::is_none")]
    hook_specific_output: Option<Specific<'a>>,
    #[serde(rename = "systemMessage", skip_serializing_if = "Option::is_none")]
    system_message: Option<&'a str>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Specific<'a> {
    hook_event_name: &'a str,
    additional_context: &'a str,
}

impl<'a> Output<'a> {
    /// The output for `event` adding `context`.
    pub fn new(event: &'a str, context: &'a str) -> Output<'a> {
        Output {
            hook_specific_output: Some(Specific { hook_event_name: event, additional_context: context }),
            system_message: None,
        }
    }

    /// The output with no context, only `message` for the user.
    pub fn message_only(message: &'a str) -> Output<'a> {
        Output { hook_specific_output: None, system_message: Some(message) }
    }

    /// The output with `message` for the user as well, when there is one.
    pub fn with_system_message(mut self, message: Option<&'a str>) -> Output<'a> {
        self.system_message = message;
        self
    }

    /// One line of JSON.
    pub fn to_line(&self) -> String {
        let mut line = serde_json::to_string(self).expect("strings always serialize");
        line.push('\n');
        line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let f = fit(&[block(1, 3), block(2, 2)]).unwrap();
        assert_eq!(f.text, "## f1.md\n\nééé\n\n## f2.md\n\néé");
        assert_eq!(f.shown, [0, 1]);
        assert_eq!(fit(&[]), None);
    }

    #[test]
    fn a_big_block_is_cut_and_the_rest_are_counted() {
        let f = fit(&[block(1, 100), block(2, 30_000), block(3, 10)]).unwrap();
        assert!(chars(&f.text) <= LIMIT, "{}", chars(&f.text));
        assert_eq!(f.shown, [0, 1]);
        assert!(f.text.contains("[agentspine: cut at "), "{}", &f.text[f.text.len() - 300..]);
        assert!(f.text.ends_with("[agentspine: 1 more source not shown; run `agentspine briefing`]"));
    }

    #[test]
    fn with_too_little_room_left_a_block_is_left_out_whole() {
        let f = fit(&[block(1, LIMIT - 400), block(2, 5_000), block(3, 5_000)]).unwrap();
        assert_eq!(f.shown, [0]);
        assert!(f.text.ends_with("[agentspine: 2 more sources not shown; run `agentspine briefing`]"));
        assert!(chars(&f.text) <= LIMIT);
    }

    #[test]
    fn astral_characters_count_twice_and_are_never_split() {
        let mut b = block(1, 0);
        b.text = "😀".repeat(6_000);
        let f = fit(&[b]).unwrap();
        assert!(chars(&f.text) <= LIMIT);
        assert!(f.text.contains("[agentspine: cut at "));
    }

    #[test]
    fn the_output_has_the_event_and_the_context_only() {
        assert_eq!(
            Output::new("PreToolUse", "x\n\"y\"").to_line(),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"additionalContext\":\"x\\n\\\"y\\\"\"}}\n"
        );
        assert_eq!(
            Output::new("SessionStart", "c").with_system_message(Some("m")).to_line(),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"SessionStart\",\"additionalContext\":\"c\"},\"systemMessage\":\"m\"}\n"
        );
        assert_eq!(Output::message_only("m").to_line(), "{\"systemMessage\":\"m\"}\n");
    }
}
