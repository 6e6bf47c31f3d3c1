//! A changed JSON object printed back into the text it was read from, so
//! that install and uninstall touch only agentspine's own entries and
//! every other byte of the user's file stays as it was.
//!
//! Guarantees:
//! - a value equal to the one at its place in the text (same keys in the
//!   same order, same values) is printed as those very bytes: spacing,
//!   compact or indented lines, CRLF, escapes, number spellings, and the
//!   text before and after the root all stay;
//! - a member or element added at the end of a container goes right after
//!   the last one as `,<separator><new>`; one added before another takes
//!   that one's place as `<new>,<separator>`. Removing it takes out exactly
//!   those bytes again, so a removal undoes an addition byte for byte;
//! - what is new is written in the file's own style: on one line in a
//!   container the file keeps on one line, else indented one step (the
//!   file's first indentation: two spaces, four, a tab) below its line,
//!   with the file's newline and `:` spacing;
//! - a container left empty is printed `{}` or `[]`; one that was empty
//!   and gets a member is laid out over lines in a file that uses lines
//!   (the root always);
//! - the text returned always parses to the object given: if the original
//!   cannot be followed, the object is printed afresh with two-space
//!   indentation.

use std::borrow::Cow;

use super::json::{Json, Object};
use nodes::{Item, Kind, Node};
use style::Style;

mod nodes;
mod style;

/// Deeper nesting than this is printed afresh (serde_json stops at 128).
const MAX_DEPTH: usize = 256;
/// Above this many pairs of old and new elements to compare (after what is
/// equal at both ends), an array's elements are matched by position only.
const MAX_PAIRS: usize = 1 << 16;

/// `edited` printed into `original`, the text it was parsed from (the root
/// must be an object). `None` or a blank original: printed afresh, with a
/// final newline. `earlier`, a version of the file from before install,
/// lends its text to a container left empty that was empty there too
/// (`{ }` stays `{ }`).
pub fn render(original: Option<&str>, edited: &Object, earlier: Option<&str>) -> String {
    let Some(text) = original.filter(|t| !t.trim().is_empty()) else {
        return fresh_document(edited);
    };
    let earlier = earlier.and_then(|e| Printer::new(e, None));
    let printed = Printer::new(text, earlier).and_then(|printer| printer.document(edited));
    match printed {
        Some(out) if parses_to(&out, edited) => out,
        _ => fresh_document(edited),
    }
}

/// The object as install writes a new file: two-space indentation and a
/// final newline.
fn fresh_document(object: &Object) -> String {
    let style = Style::default();
    let mut out = style.fresh(&Json::Object(object.clone()), Some(""));
    out.push('\n');
    out
}

/// Whether `text` parses to `expected`, key order included (by the
/// printer's own reading, which keeps positions, and strict JSON).
fn parses_to(text: &str, expected: &Object) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
        && Printer::new(text, None).is_some_and(|printer| printer.same_object(&printer.root, expected))
}

/// One item of a container being printed: the whitespace before it, what
/// it is, and the whitespace after it.
struct Slot<'s> {
    lead: Cow<'s, str>,
    body: Body<'s>,
    trail: Cow<'s, str>,
}

/// An old item (by index) and the value it now holds, or a new one.
enum Body<'s> {
    Old(usize, Option<&'s Json>),
    New(Option<&'s str>, &'s Json),
}

/// The original text, parsed into nodes, and its style.
struct Printer<'a> {
    text: &'a str,
    root: Node,
    style: Style,
    /// The file before install, for the text of its empty containers.
    earlier: Option<Box<Printer<'a>>>,
}

/// One step of a path from the root: a member's key or an element's index.
enum Step {
    Key(String),
    Index(usize),
}

impl<'a> Printer<'a> {
    fn new(text: &'a str, earlier: Option<Printer<'a>>) -> Option<Printer<'a>> {
        let root = nodes::parse(text)?;
        if !matches!(root.kind, Kind::Object(_)) {
            return None;
        }
        let style = Style::of(text, &root);
        Some(Printer { text, root, style, earlier: earlier.map(Box::new) })
    }

    fn document(&self, edited: &Object) -> Option<String> {
        let mut out = String::with_capacity(self.text.len() + 1024);
        out.push_str(&self.text[..self.root.start]);
        self.value(&self.root, &Json::Object(edited.clone()), &mut out, &mut Vec::new())?;
        out.push_str(&self.text[self.root.end..]);
        Some(out)
    }

    fn slice(&self, (start, end): (usize, usize)) -> &'a str {
        &self.text[start..end]
    }

    /// Whether `node` holds `value`, key order included.
    fn same(&self, node: &Node, value: &Json) -> bool {
        match (&node.kind, value) {
            (Kind::Object(_), Json::Object(map)) => self.same_object(node, map),
            (Kind::Array(items), Json::Array(list)) => {
                items.len() == list.len()
                    && items.iter().zip(list).all(|(item, value)| self.same(&item.value, value))
            }
            (Kind::Scalar, Json::Object(_) | Json::Array(_)) => false,
            (Kind::Scalar, value) => {
                let text = &self.text[node.start..node.end];
                // The spelling serde_json writes is the common case.
                serde_json::to_string(value).is_ok_and(|v| v == text)
                    || serde_json::from_str::<Json>(text).is_ok_and(|old| scalar_eq(&old, value))
            }
            _ => false,
        }
    }

    /// Whether `node` is the object `map`, key order included.
    fn same_object(&self, node: &Node, map: &Object) -> bool {
        let Kind::Object(items) = &node.kind else { return false };
        items.len() == map.len()
            && items.iter().zip(map).all(|(item, (key, value))| {
                item.key.as_deref() == Some(key.as_str()) && self.same(&item.value, value)
            })
    }

    /// The text of the empty container at `path`, if there is one.
    fn empty_at(&self, path: &[Step], keyed: bool) -> Option<&'a str> {
        let mut node = &self.root;
        for step in path {
            node = match (&node.kind, step) {
                (Kind::Object(items), Step::Key(key)) => {
                    &items.iter().find(|i| i.key.as_deref() == Some(key.as_str()))?.value
                }
                (Kind::Array(items), Step::Index(i)) => &items.get(*i)?.value,
                _ => return None,
            };
        }
        match &node.kind {
            Kind::Object(items) if keyed && items.is_empty() => Some(&self.text[node.start..node.end]),
            Kind::Array(items) if !keyed && items.is_empty() => Some(&self.text[node.start..node.end]),
            _ => None,
        }
    }

    /// `value` printed at `node`'s place, `path` from the root.
    fn value(&self, node: &Node, value: &Json, out: &mut String, path: &mut Vec<Step>) -> Option<()> {
        if self.same(node, value) {
            out.push_str(&self.text[node.start..node.end]);
            return Some(());
        }
        let printed = match (&node.kind, value) {
            (Kind::Object(items), Json::Object(map)) => {
                let new: Vec<(Option<&str>, &Json)> =
                    map.iter().map(|(k, v)| (Some(k.as_str()), v)).collect();
                self.container(node, items, &new, self.match_keys(items, map), path)
            }
            (Kind::Array(items), Json::Array(list)) => {
                let new: Vec<(Option<&str>, &Json)> = list.iter().map(|v| (None, v)).collect();
                self.container(node, items, &new, Some(self.match_elements(items, list)), path)
            }
            _ => None,
        };
        match printed {
            Some(text) => out.push_str(&text),
            None => {
                let spread = self.text[node.start..node.end].contains('\n');
                let base = spread.then(|| self.line_indent(node.start));
                out.push_str(&self.style.fresh(value, base));
            }
        }
        Some(())
    }

    /// For each new member, the old member with its key; `None` when the
    /// old object repeats a key or the kept keys changed order (the object
    /// is then printed afresh).
    fn match_keys(&self, items: &[Item], map: &Object) -> Option<Vec<Option<usize>>> {
        let keys: Vec<&str> = items.iter().filter_map(|i| i.key.as_deref()).collect();
        let unique: std::collections::HashSet<&str> = keys.iter().copied().collect();
        if unique.len() != keys.len() {
            return None;
        }
        let kept: Vec<Option<usize>> =
            map.keys().map(|key| keys.iter().position(|k| *k == key.as_str())).collect();
        let order: Vec<usize> = kept.iter().flatten().copied().collect();
        order.windows(2).all(|w| w[0] < w[1]).then_some(kept)
    }

    /// For each new element, the old element it continues: equal elements
    /// matched in order (a longest common subsequence), and between two
    /// matches, elements of the same container kind paired by position
    /// (an element changed inside, printed by the same rules).
    fn match_elements(&self, items: &[Item], list: &[Json]) -> Vec<Option<usize>> {
        let (n, m) = (items.len(), list.len());
        let mut kept = vec![None; m];
        let mut head = 0;
        while head < n.min(m) && self.same(&items[head].value, &list[head]) {
            kept[head] = Some(head);
            head += 1;
        }
        let mut tail = 0;
        while tail < (n - head).min(m - head) && self.same(&items[n - 1 - tail].value, &list[m - 1 - tail]) {
            kept[m - 1 - tail] = Some(n - 1 - tail);
            tail += 1;
        }
        let (old, new) = (head..n - tail, head..m - tail);
        let mut anchors = Vec::new();
        if old.len().saturating_mul(new.len()) <= MAX_PAIRS {
            // Longest common subsequence of equal elements in the middle.
            let (a, b) = (old.len(), new.len());
            let mut table = vec![0u32; (a + 1) * (b + 1)];
            let at = |i: usize, j: usize| i * (b + 1) + j;
            for i in (0..a).rev() {
                for j in (0..b).rev() {
                    table[at(i, j)] = if self.same(&items[old.start + i].value, &list[new.start + j]) {
                        table[at(i + 1, j + 1)] + 1
                    } else {
                        table[at(i + 1, j)].max(table[at(i, j + 1)])
                    };
                }
            }
            let (mut i, mut j) = (0, 0);
            while i < a && j < b {
                if self.same(&items[old.start + i].value, &list[new.start + j]) {
                    anchors.push((old.start + i, new.start + j));
                    i += 1;
                    j += 1;
                } else if table[at(i + 1, j)] >= table[at(i, j + 1)] {
                    i += 1;
                } else {
                    j += 1;
                }
            }
        }
        anchors.push((old.end, new.end));
        let (mut i, mut j) = (old.start, new.start);
        for (ai, aj) in anchors {
            // The gap before this anchor: pair containers of one kind.
            for (oi, nj) in (i..ai).zip(j..aj) {
                let kin = matches!(
                    (&items[oi].value.kind, &list[nj]),
                    (Kind::Object(_), Json::Object(_)) | (Kind::Array(_), Json::Array(_))
                );
                if kin {
                    kept[nj] = Some(oi);
                }
            }
            if aj < new.end {
                kept[aj] = Some(ai);
            }
            (i, j) = (ai + 1, aj + 1);
        }
        kept
    }

    /// A container printed from its old items (`kept[j]`: the old item the
    /// new item `j` continues) and the new ones.
    fn container(
        &self,
        node: &Node,
        items: &[Item],
        new: &[(Option<&str>, &Json)],
        kept: Option<Vec<Option<usize>>>,
        path: &mut Vec<Step>,
    ) -> Option<String> {
        let kept = kept?;
        let (open, close) = (&self.text[node.start..node.start + 1], &self.text[node.end - 1..node.end]);
        // The separator a new item gets after its comma: the last
        // item's, the first one's if it starts a line, else one line's.
        let mut separator: Cow<'_, str> = match items {
            [.., last] if items.len() > 1 => Cow::Borrowed(self.slice(last.lead)),
            [only] if self.slice(only.lead).contains('\n') => Cow::Borrowed(self.slice(only.lead)),
            _ => Cow::Borrowed(self.style.comma.as_str()),
        };
        let colon = items
            .first()
            .filter(|i| i.key.is_some())
            .map_or(self.style.colon.as_str(), |i| &self.text[i.key_end..i.value.start]);
        let colon = if colon.contains('\n') { self.style.colon.as_str() } else { colon };

        let mut continues: Vec<Option<&Json>> = vec![None; items.len()];
        for (j, old) in kept.iter().enumerate() {
            if let Some(i) = old {
                continues[*i] = Some(new[j].1);
            }
        }
        let mut slots: Vec<Slot<'_>> = items
            .iter()
            .enumerate()
            .map(|(i, item)| Slot {
                lead: Cow::Borrowed(self.slice(item.lead)),
                body: Body::Old(i, continues[i]),
                trail: Cow::Borrowed(self.slice(item.trail)),
            })
            .collect();
        // Removals: a removed item takes its trailing comma and the next
        // item's lead with it, or, the last, the comma before it.
        let mut emptied = None;
        for (i, value) in continues.iter().enumerate() {
            if value.is_some() {
                continue;
            }
            let at = slots.iter().position(|s| matches!(s.body, Body::Old(k, _) if k == i))?;
            let gone = slots.remove(at);
            if at < slots.len() {
                slots[at].lead = gone.lead;
            } else if at > 0 {
                slots[at - 1].trail = gone.trail;
            } else {
                emptied = Some((gone.lead, gone.trail));
            }
        }
        // Additions, in their final places.
        let base = self.line_indent(node.start);
        let spread = node.start == self.root.start || self.style.lines;
        for (j, (key, value)) in new.iter().enumerate() {
            if kept[j].is_some() {
                continue;
            }
            let body = Body::New(*key, value);
            if slots.is_empty() {
                let (lead, trail) = match emptied.take() {
                    Some(both) => both,
                    None if spread => {
                        let lead = format!("{}{base}{}", self.style.newline, self.style.indent);
                        separator = Cow::Owned(lead.clone());
                        (Cow::Owned(lead), Cow::Owned(format!("{}{base}", self.style.newline)))
                    }
                    None => (Cow::Borrowed(""), Cow::Borrowed("")),
                };
                slots.push(Slot { lead, body, trail });
            } else if j >= slots.len() {
                let last = slots.last_mut().expect("not empty");
                let trail = std::mem::replace(&mut last.trail, Cow::Borrowed(""));
                slots.push(Slot { lead: separator.clone(), body, trail });
            } else {
                let lead = std::mem::replace(&mut slots[j].lead, separator.clone());
                slots.insert(j, Slot { lead, body, trail: Cow::Borrowed("") });
            }
        }
        if slots.is_empty()
            && let Some(text) = self.earlier.as_ref().and_then(|e| e.empty_at(path, open == "{"))
        {
            return Some(text.to_owned());
        }
        let mut out = String::from(open);
        for (n, slot) in slots.iter().enumerate() {
            if n > 0 {
                out.push(',');
            }
            out.push_str(&slot.lead);
            match slot.body {
                Body::Old(i, value) => {
                    let item = &items[i];
                    let value = value?;
                    out.push_str(&self.text[item.start..item.value.start]);
                    path.push(match &item.key {
                        Some(key) => Step::Key(key.clone()),
                        None => Step::Index(n),
                    });
                    self.value(&item.value, value, &mut out, path)?;
                    path.pop();
                }
                Body::New(key, value) => {
                    if let Some(key) = key {
                        out.push_str(&serde_json::to_string(key).expect("a string always serializes"));
                        out.push_str(colon);
                    }
                    let lines = slot.lead.rfind('\n').map(|at| &slot.lead[at + 1..]);
                    out.push_str(&self.style.fresh(value, lines));
                }
            }
            out.push_str(&slot.trail);
        }
        out.push_str(close);
        Some(out)
    }

    /// The spaces and tabs that start the line holding byte `at`.
    fn line_indent(&self, at: usize) -> &'a str {
        let line = self.text[..at].rfind('\n').map_or(0, |n| n + 1);
        let rest = &self.text[line..at];
        &rest[..rest.len() - rest.trim_start_matches([' ', '\t']).len()]
    }
}

/// Whether two scalars are the same JSON value.
fn scalar_eq(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Null, Json::Null) => true,
        (Json::Bool(a), Json::Bool(b)) => a == b,
        (Json::Number(a), Json::Number(b)) => a == b,
        (Json::String(a), Json::String(b)) => a == b,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(text: &str) -> Object {
        match serde_json::from_str(text).unwrap() {
            Json::Object(map) => map,
            _ => panic!("not an object"),
        }
    }

    /// Texts in the styles users write, each with a member to add into.
    const TEXTS: &[&str] = &[
        r#"{"a":1,"list":[1,2],"servers":{"x":{"y":true}}}"#,
        "{\n  \"a\": 1,\n  \"list\": [\n    1,\n    2\n  ],\n  \"servers\": {\n    \"x\": {\"y\": true}\n  }\n}\n",
        "{\r\n\t\"servers\": {},\r\n\t\"list\": [],\r\n\t\"a\": 1e3\r\n}",
        "  { \"servers\" : { \"x\" : 1 } , \"list\" : [ 2 ] , \"a\" : \"\\u00e9\" }  \n",
    ];

    #[test]
    fn a_removal_undoes_an_addition_byte_for_byte() {
        for text in TEXTS {
            let original = object(text);
            for at_end in [true, false] {
                let mut added = original.clone();
                let Some(Json::Object(servers)) = added.get_mut("servers") else { panic!() };
                let server = Json::object([("command", Json::str("/bin/agentspine"))]);
                if at_end {
                    servers.insert("agentspine".into(), server);
                } else {
                    servers.shift_insert(0, "agentspine".into(), server);
                }
                let Some(Json::Array(list)) = added.get_mut("list") else { panic!() };
                list.push(Json::str("new"));
                added.insert("hooks".into(), Json::object([("E", Json::Array(Vec::new()))]));
                let installed = render(Some(text), &added, None);
                assert!(parses_to(&installed, &added), "{installed}");
                assert_eq!(render(Some(&installed), &original, None), *text, "{installed}");
            }
        }
    }

    #[test]
    fn new_entries_follow_the_files_layout() {
        let mut added = object(r#"{"a":1}"#);
        added.insert("b".into(), Json::object([("c", Json::Array(vec![Json::str("d")]))]));
        assert_eq!(render(Some(r#"{"a":1}"#), &added, None), r#"{"a":1,"b":{"c":["d"]}}"#);
        assert_eq!(render(Some("{\"a\": 1}\n"), &added, None), "{\"a\": 1, \"b\": {\"c\": [\"d\"]}}\n");
        assert_eq!(
            render(Some("{\n\t\"a\": 1\n}"), &added, None),
            "{\n\t\"a\": 1,\n\t\"b\": {\n\t\t\"c\": [\n\t\t\t\"d\"\n\t\t]\n\t}\n}"
        );
        // An empty root is spread over lines; a missing file too.
        let fresh = "{\n  \"b\": {\n    \"c\": [\n      \"d\"\n    ]\n  }\n}\n";
        let mut only = Object::new();
        only.insert("b".into(), added["b"].clone());
        assert_eq!(render(Some("{}\n"), &only, None), fresh);
        assert_eq!(render(None, &only, None), fresh);
        // An empty container left by a removal takes its earlier text.
        let emptied = object(r#"{"s": {}}"#);
        assert_eq!(render(Some(r#"{"s": {"x": 1}}"#), &emptied, Some(r#"{"s": { }}"#)), r#"{"s": { }}"#);
        assert_eq!(render(Some(r#"{"s": {"x": 1}}"#), &emptied, None), r#"{"s": {}}"#);
    }

    #[test]
    fn an_object_it_cannot_follow_is_printed_afresh_in_the_files_style() {
        // A repeated key: the parsed object is not the text's.
        let edited = object(r#"{"a": 2, "b": 1}"#);
        assert_eq!(render(Some(r#"{"a": 1, "a": 2}"#), &edited, None), r#"{"a": 2, "b": 1}"#);
        let text = "{\n  \"x\": {\"a\": 1, \"a\": 2},\n  \"y\": [\n    1\n  ]\n}\n";
        let edited = object(r#"{"x": {"a": 2, "b": 1}, "y": [1]}"#);
        assert_eq!(
            render(Some(text), &edited, None),
            "{\n  \"x\": {\"a\": 2, \"b\": 1},\n  \"y\": [\n    1\n  ]\n}\n"
        );
    }
}
