//! pi 1.x, the current package `@earendil-works/pi-coding-agent` (measured
//! on 1.6.0): `AGENTS.override.md` before the 0.73 names, the BOM dropped,
//! and a tagged `<project_context>` section in the system prompt.

use super::Profile;
use crate::resolution::Part;

/// pi 1.x.
pub const PROFILE: Profile = Profile {
    version: "1.x",
    candidates: &["AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"],
    strips_bom: true,
};

/// pi 1.x's `<project_context>` section: a fixed sentence, then one
/// `<project_instructions path="…">` element per file (the text exactly as
/// read, an empty file an element with an empty line), separated by a
/// blank line. Empty when there are no parts.
pub fn render(parts: &[Part]) -> String {
    if parts.is_empty() {
        return String::new();
    }
    let mut out = String::from("<project_context>\nProject-specific instructions and guidelines:");
    for part in parts {
        out.push_str(&format!(
            "\n\n<project_instructions path=\"{}\">\n{}\n</project_instructions>",
            part.path.display(),
            part.text
        ));
    }
    out.push_str("\n</project_context>");
    out
}
