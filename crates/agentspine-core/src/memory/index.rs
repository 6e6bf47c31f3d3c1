//! `MEMORY.md`, the only index: its direct links, and the relevance
//! markers written in HTML comments after them.
//!
//! ```markdown
//! - [Communication style](style.md) <!-- agentspine:always -->
//! - [BLUN project](projects/blun.md) <!-- agentspine:project=project:blun -->
//! - [Carbonara preference](food/pasta.md) <!-- agentspine:keywords=carbonara,pasta -->
//! ```

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use serde::Serialize;

/// At most this many direct links; more fails closed (`index-too-many-links`).
pub const MAX_LINKS: usize = 4096;

/// A relevance marker.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "marker", content = "value", rename_all = "kebab-case")]
pub enum Marker {
    /// `agentspine:always`.
    Always,
    /// `project=project:ID`.
    Project(String),
    /// `group=group:ID`.
    Group(String),
    /// `entity=person:ID`.
    Entity(String),
    /// `task=task:ID`.
    Task(String),
    /// `keywords=a,b`.
    Keywords(Vec<String>),
}

impl Marker {
    /// The typed scope id this marker requires, if it is a scope marker.
    pub fn scope_id(&self) -> Option<&str> {
        match self {
            Marker::Project(id) | Marker::Group(id) | Marker::Entity(id) | Marker::Task(id) => Some(id),
            Marker::Always | Marker::Keywords(_) => None,
        }
    }
}

/// One direct link of the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Link {
    /// 0-based position in the index.
    pub position: usize,
    /// The link's text.
    pub label: String,
    /// The link's target, as written.
    pub target: String,
    /// Why the target can never be opened, if it cannot.
    pub escape: Option<&'static str>,
    /// Markers after the link in the same list item or paragraph.
    pub markers: Vec<Marker>,
}

/// The parsed index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Index {
    /// The direct links, in order (at most [`MAX_LINKS`]).
    pub links: Vec<Link>,
    /// More than [`MAX_LINKS`] links: the index fails closed.
    pub too_many_links: bool,
}

/// Parses the index text.
pub fn parse(text: &str) -> Index {
    let mut links: Vec<Link> = Vec::new();
    let mut too_many = false;
    // Links of the current list item or paragraph that markers attach to.
    let mut block_first_link: Option<usize> = None;
    let mut open: Option<(String, String)> = None;
    for event in Parser::new_ext(text, Options::empty()) {
        match event {
            Event::Start(Tag::Item | Tag::Paragraph) | Event::End(TagEnd::Item | TagEnd::Paragraph) => {
                block_first_link = None;
            }
            Event::Start(Tag::Link { dest_url, .. }) => open = Some((dest_url.to_string(), String::new())),
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, label)) = &mut open {
                    label.push_str(&t);
                }
            }
            Event::End(TagEnd::Link) => {
                if let Some((target, label)) = open.take() {
                    if links.len() == MAX_LINKS {
                        too_many = true;
                        continue;
                    }
                    let position = links.len();
                    let escape = escape_reason(&target);
                    links.push(Link { position, label, target, escape, markers: Vec::new() });
                    block_first_link.get_or_insert(position);
                }
            }
            Event::InlineHtml(html) | Event::Html(html) => {
                if let Some(link) = block_first_link.and_then(|_| links.last_mut()) {
                    link.markers.extend(markers_in(&html));
                }
            }
            _ => {}
        }
    }
    Index { links, too_many_links: too_many }
}

/// Markers in one HTML fragment: every `<!-- agentspine:… -->` comment,
/// each holding one or more space-separated `KEY=VALUE` (or `always`).
pub fn markers_in(html: &str) -> Vec<Marker> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find("<!--") {
        let after = &rest[start + 4..];
        let Some(end) = after.find("-->") else { break };
        let body = after[..end].trim();
        if let Some(spec) = body.strip_prefix("agentspine:") {
            for item in spec.split_whitespace() {
                if let Some(marker) = marker(item) {
                    out.push(marker);
                }
            }
        }
        rest = &after[end + 3..];
    }
    out
}

fn marker(item: &str) -> Option<Marker> {
    if item == "always" {
        return Some(Marker::Always);
    }
    let (key, value) = item.split_once('=')?;
    let typed = |kind: &str| value.strip_prefix(kind).filter(|id| !id.is_empty()).map(|_| value.to_owned());
    match key {
        "project" => typed("project:").map(Marker::Project),
        "group" => typed("group:").map(Marker::Group),
        "entity" => typed("person:").map(Marker::Entity),
        "task" => typed("task:").map(Marker::Task),
        "keywords" => {
            let words: Vec<String> =
                value.split(',').map(str::trim).filter(|w| !w.is_empty()).map(str::to_owned).collect();
            (!words.is_empty()).then_some(Marker::Keywords(words))
        }
        _ => None,
    }
}

/// Why a link target can never be opened beneath the memory directory.
pub fn escape_reason(target: &str) -> Option<&'static str> {
    let lower = target.to_ascii_lowercase();
    if target.is_empty() {
        Some("empty target")
    } else if target.contains('\0') || lower.contains("%00") {
        Some("NUL byte")
    } else if target.starts_with('/') || target.starts_with('\\') || target.starts_with('~') {
        Some("absolute path")
    } else if target.split(['/', '\\']).any(|c| c == "..") || lower.contains("%2e%2e") {
        Some("`..` component")
    } else if has_scheme(target) {
        Some("URL scheme")
    } else if target.contains('?') || target.contains('#') {
        Some("query or fragment")
    } else if lower.contains("%2f") || lower.contains("%5c") || target.contains('\\') {
        Some("encoded or backslash separator")
    } else {
        None
    }
}

fn has_scheme(target: &str) -> bool {
    let Some((scheme, _)) = target.split_once(':') else { return false };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_links_and_their_markers() {
        let index = parse(
            "# Memory\n\n- [Style](style.md) <!-- agentspine:always -->\n\
             - [BLUN](projects/blun.md) <!-- agentspine:project=project:blun keywords=blun,bun -->\n\
             - [Plain](plain.md)\n\nA paragraph [link](p.md) then <!-- agentspine:task=task:x -->\n",
        );
        let got: Vec<_> = index.links.iter().map(|l| (l.target.as_str(), l.markers.clone())).collect();
        assert_eq!(
            got,
            vec![
                ("style.md", vec![Marker::Always]),
                (
                    "projects/blun.md",
                    vec![
                        Marker::Project("project:blun".into()),
                        Marker::Keywords(vec!["blun".into(), "bun".into()])
                    ]
                ),
                ("plain.md", vec![]),
                ("p.md", vec![Marker::Task("task:x".into())]),
            ]
        );
    }

    #[test]
    fn a_marker_does_not_jump_to_the_next_item() {
        let index = parse("- [A](a.md)\n- text <!-- agentspine:always -->\n");
        assert!(index.links[0].markers.is_empty());
    }

    #[test]
    fn untyped_or_unknown_markers_are_ignored() {
        assert!(markers_in("<!-- agentspine:project=blun entity=project:x nope=1 -->").is_empty());
        assert_eq!(
            markers_in("<!-- other --><!-- agentspine:entity=person:o -->"),
            vec![Marker::Entity("person:o".into())]
        );
    }

    #[test]
    fn escapes_are_recognised() {
        for t in [
            "/etc/passwd",
            "../x.md",
            "a/../../x.md",
            "https://x/y.md",
            "file:x.md",
            "a.md?x=1",
            "a.md#s",
            "a%2fb.md",
            "a%2F..%2Fb",
            "a\\b.md",
            "x%00.md",
            "~/x.md",
            "%2e%2e/x.md",
        ] {
            assert!(escape_reason(t).is_some(), "{t}");
        }
        for t in ["a.md", "dir/b.md", "with space.md", "v1.2/notes.md"] {
            assert_eq!(escape_reason(t), None, "{t}");
        }
    }

    #[test]
    fn more_than_the_limit_fails_closed() {
        let text: String = (0..=MAX_LINKS).map(|i| format!("- [l](f{i}.md)\n")).collect();
        let index = parse(&text);
        assert!(index.too_many_links);
        assert_eq!(index.links.len(), MAX_LINKS);
    }
}
