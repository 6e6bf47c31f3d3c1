//! Text transformations the hosts apply to file contents.

/// Decodes bytes as UTF-8, replacing invalid sequences (a cut in the middle
/// of a character included) with U+FFFD, as Codex does.
pub fn lenient_utf8(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Whether text is empty once whitespace is trimmed.
pub fn is_blank(text: &str) -> bool {
    text.trim().is_empty()
}

/// Removes a UTF-8 byte-order mark at the start.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// The longest prefix of `text` of at most `max` bytes that ends on a
/// character boundary.
pub fn prefix_on_char_boundary(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Splits YAML frontmatter (`---` on the first line up to the next line
/// that is exactly `---`) from the body. Returns `(frontmatter, body)`;
/// without frontmatter, `("", text)`.
pub fn split_frontmatter(text: &str) -> (&str, &str) {
    let Some(rest) = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n")) else {
        return ("", text);
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare == "---" {
            let front = &rest[..offset];
            let body = &rest[offset + line.len()..];
            return (front, body);
        }
        offset += line.len();
    }
    ("", text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_on_a_character_boundary() {
        assert_eq!(prefix_on_char_boundary("aé", 2), "a");
        assert_eq!(prefix_on_char_boundary("aé", 3), "aé");
        assert_eq!(prefix_on_char_boundary("abc", 10), "abc");
    }

    #[test]
    fn splits_frontmatter() {
        assert_eq!(split_frontmatter("---\npaths: x\n---\nbody"), ("paths: x\n", "body"));
        assert_eq!(split_frontmatter("---\nno end"), ("", "---\nno end"));
        assert_eq!(split_frontmatter("body"), ("", "body"));
        assert_eq!(split_frontmatter("---\r\na: 1\r\n---\r\nbody"), ("a: 1\r\n", "body"));
    }

    #[test]
    fn lenient_decoding_replaces_a_cut_character() {
        let bytes = "é".as_bytes();
        assert_eq!(lenient_utf8(&bytes[..1]), "\u{fffd}");
    }
}
