//! pi 1.x, the current package `@earendil-works/pi-coding-agent` (measured
//! on 1.6.0, from its shipped loader and from what it sends to a mock
//! model; needs Node 22.19 or newer).
//!
//! - The global file is the first existing candidate in the agent
//!   directory (`$PI_CODING_AGENT_DIR`, else `~/.pi/agent`), with the same
//!   list as a project directory, `AGENTS.override.md` included.
//! - Per directory, from `/` down to the cwd, the first candidate that
//!   exists and is a regular file once links are followed; a directory or
//!   FIFO with a candidate's name is passed over, a dangling link too.
//! - The text is kept exactly as read (CRLF, blank lines, a file with no
//!   text at all) except a leading BOM, which is dropped; no byte cap (a
//!   50,000-byte file is sent whole).
//! - A linked worktree nested inside its main repository skips the main
//!   repository's file that its own copy shadows; agentspine never reads
//!   above the worktree's root anyway.
//! - Each file's path is the directory it was found in joined with the
//!   candidate's name (not resolved through links), unescaped in the
//!   `path` attribute.
//! - Nothing is loaded after the session starts: its file tools read no
//!   instruction file (the `plugins/pi` extension adds those).

use super::Rules;
use crate::resolution::Part;

/// pi 1.x.
pub const RULES: Rules = Rules {
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
