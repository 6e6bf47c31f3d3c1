//! How a JSON file writes what it writes (newline, indentation, `:` and
//! `,` spacing), and values printed afresh in that style.

use super::nodes::{Kind, Node};
use crate::install::json::Json;

/// How the file writes what it writes: new text copies it.
pub(super) struct Style {
    pub(super) newline: &'static str,
    /// One step of indentation.
    pub(super) indent: String,
    /// Between a key and its value (`": "`, `":"`).
    pub(super) colon: String,
    /// After a comma on one line (`" "`, `""`).
    pub(super) comma: String,
    /// Whether the file spreads its root over lines.
    pub(super) lines: bool,
}

impl Default for Style {
    fn default() -> Style {
        Style { newline: "\n", indent: "  ".into(), colon: ": ".into(), comma: " ".into(), lines: true }
    }
}

impl Style {
    /// `value` printed afresh: over lines below `base` (the indentation of
    /// the line it starts on) when `base` is given, else on one line.
    pub(super) fn fresh(&self, value: &Json, base: Option<&str>) -> String {
        let mut out = String::new();
        self.fresh_into(value, base, &mut out);
        out
    }

    fn fresh_into(&self, value: &Json, base: Option<&str>, out: &mut String) {
        let (open, close, items): (char, char, Vec<(Option<&str>, &Json)>) = match value {
            Json::Object(map) if !map.is_empty() => {
                ('{', '}', map.iter().map(|(k, v)| (Some(k.as_str()), v)).collect())
            }
            Json::Array(list) if !list.is_empty() => ('[', ']', list.iter().map(|v| (None, v)).collect()),
            scalar => {
                out.push_str(&serde_json::to_string(scalar).expect("a JSON value always serializes"));
                return;
            }
        };
        out.push(open);
        let inner = base.map(|base| format!("{base}{}", self.indent));
        for (i, (key, value)) in items.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
                if inner.is_none() {
                    out.push_str(&self.comma);
                }
            }
            if let Some(inner) = &inner {
                out.push_str(self.newline);
                out.push_str(inner);
            }
            if let Some(key) = key {
                out.push_str(&serde_json::to_string(key).expect("a string always serializes"));
                out.push_str(&self.colon);
            }
            self.fresh_into(value, inner.as_deref(), out);
        }
        if let Some(base) = base {
            out.push_str(self.newline);
            out.push_str(base);
        }
        out.push(close);
    }
}

impl Style {
    /// The style of `text`, whose root is `root`.
    pub(super) fn of(text: &str, root: &Node) -> Style {
        let mut style = Style {
            newline: if text.contains("\r\n") { "\r\n" } else { "\n" },
            indent: indentation(text),
            colon: String::new(),
            comma: String::new(),
            lines: text[root.start..root.end].contains('\n'),
        };
        let (mut colon, mut comma) = (None, None);
        find_style(text, root, &mut colon, &mut comma);
        style.colon = colon.unwrap_or(": ").to_owned();
        style.comma = comma.unwrap_or(if style.colon == ":" { "" } else { " " }).to_owned();
        style
    }
}

/// The first key's `:` spacing and the first one-line comma's spacing.
fn find_style<'t>(text: &'t str, node: &Node, colon: &mut Option<&'t str>, comma: &mut Option<&'t str>) {
    let items = match &node.kind {
        Kind::Scalar => return,
        Kind::Object(items) | Kind::Array(items) => items,
    };
    for (n, item) in items.iter().enumerate() {
        if colon.is_none() && item.key.is_some() {
            let between = &text[item.key_end..item.value.start];
            if !between.contains('\n') {
                *colon = Some(between);
            }
        }
        if comma.is_none() && n > 0 {
            let lead = &text[item.lead.0..item.lead.1];
            if !lead.contains('\n') {
                *comma = Some(lead);
            }
        }
        if colon.is_some() && comma.is_some() {
            return;
        }
        find_style(text, &item.value, colon, comma);
    }
}

/// The indentation of a JSON text: the leading whitespace of its first
/// indented line (two spaces when none is).
fn indentation(text: &str) -> String {
    text.lines()
        .map(|line| &line[..line.len() - line.trim_start_matches([' ', '\t']).len()])
        .find(|lead| !lead.is_empty())
        .unwrap_or("  ")
        .to_owned()
}
