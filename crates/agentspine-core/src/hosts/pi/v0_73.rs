//! pi 0.73 (`@mariozechner/pi-coding-agent`; 0.74 loads the same way):
//! `AGENTS.md` before `CLAUDE.md`, the BOM kept, and a Markdown
//! `# Project Context` section.

use super::Rules;
use crate::resolution::Part;

/// pi 0.73.
pub const RULES: Rules = Rules {
    version: "0.73",
    candidates: &["AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"],
    strips_bom: false,
};

/// pi 0.73's `# Project Context` section: a `## <absolute path>` heading
/// per file, then its text.
pub fn render(parts: &[Part]) -> String {
    if parts.is_empty() {
        return String::new();
    }
    let mut out = String::from("# Project Context\n\nProject-specific instructions and guidelines:\n\n");
    for part in parts {
        out.push_str(&format!("## {}\n\n{}\n\n", part.path.display(), part.text));
    }
    out
}
