//! The JSON text with every byte position kept: each value's range and,
//! for a container, each item with the whitespace on either side of it.

use super::MAX_DEPTH;

/// One value in the text: its byte range and, for a container, its items.
pub(super) struct Node {
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) kind: Kind,
}

/// What a value is: a scalar (string, number, `true`, `false`, `null`) or
/// a container with its items.
pub(super) enum Kind {
    Scalar,
    Object(Vec<Item>),
    Array(Vec<Item>),
}

/// One member of an object (with its key) or element of an array, and the
/// whitespace on either side of it up to the comma or bracket.
pub(super) struct Item {
    /// The decoded key, for an object member.
    pub(super) key: Option<String>,
    /// Where the member starts: its key, or the element's value.
    pub(super) start: usize,
    /// Where the key ends (`start` for an element): `key_end..value.start`
    /// is the member's `:` with its spacing.
    pub(super) key_end: usize,
    pub(super) value: Node,
    /// Whitespace between the opening bracket or comma and `start`.
    pub(super) lead: (usize, usize),
    /// Whitespace between the value's end and the next comma or bracket.
    pub(super) trail: (usize, usize),
}

/// A JSON reader that keeps every byte position (the text was already
/// checked by serde_json; anything unexpected gives up).
struct Parser<'t> {
    bytes: &'t [u8],
    text: &'t str,
    pos: usize,
}

/// The value `text` holds, with the whitespace around it; `None` when the
/// text is not one JSON value.
pub(super) fn parse(text: &str) -> Option<Node> {
    let mut parser = Parser { bytes: text.as_bytes(), text, pos: 0 };
    parser.space();
    let root = parser.value(0)?;
    parser.space();
    (parser.pos == text.len()).then_some(root)
}

impl Parser<'_> {
    fn space(&mut self) {
        while self.bytes.get(self.pos).is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        let start = self.pos;
        match *self.bytes.get(start)? {
            b'{' => self.container(depth, b'}', true),
            b'[' => self.container(depth, b']', false),
            b'"' => {
                self.string()?;
                Some(Node { start, end: self.pos, kind: Kind::Scalar })
            }
            _ => {
                while self
                    .bytes
                    .get(self.pos)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || b"+-.".contains(b))
                {
                    self.pos += 1;
                }
                (self.pos > start).then_some(Node { start, end: self.pos, kind: Kind::Scalar })
            }
        }
    }

    fn string(&mut self) -> Option<()> {
        self.pos += 1;
        loop {
            match *self.bytes.get(self.pos)? {
                b'"' => {
                    self.pos += 1;
                    return Some(());
                }
                b'\\' => self.pos += 2,
                _ => self.pos += 1,
            }
        }
    }

    fn container(&mut self, depth: usize, close: u8, keyed: bool) -> Option<Node> {
        let start = self.pos;
        self.pos += 1;
        let mut items = Vec::new();
        let mut lead_from = self.pos;
        self.space();
        if self.bytes.get(self.pos) == Some(&close) {
            self.pos += 1;
            let kind = if keyed { Kind::Object(items) } else { Kind::Array(items) };
            return Some(Node { start, end: self.pos, kind });
        }
        loop {
            let lead = (lead_from, self.pos);
            let item_start = self.pos;
            let mut key_end = item_start;
            let key = if keyed {
                if self.bytes.get(self.pos) != Some(&b'"') {
                    return None;
                }
                self.string()?;
                key_end = self.pos;
                let key: String = serde_json::from_str(&self.text[item_start..key_end]).ok()?;
                self.space();
                if self.bytes.get(self.pos) != Some(&b':') {
                    return None;
                }
                self.pos += 1;
                self.space();
                Some(key)
            } else {
                None
            };
            let value = self.value(depth + 1)?;
            self.space();
            let trail = (value.end, self.pos);
            items.push(Item { key, start: item_start, key_end, value, lead, trail });
            match *self.bytes.get(self.pos)? {
                b',' => {
                    self.pos += 1;
                    lead_from = self.pos;
                    self.space();
                }
                b if b == close => {
                    self.pos += 1;
                    break;
                }
                _ => return None,
            }
        }
        let kind = if keyed { Kind::Object(items) } else { Kind::Array(items) };
        Some(Node { start, end: self.pos, kind })
    }
}
