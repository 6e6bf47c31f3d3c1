//! Whether the agentspine binary an installed entry names still is the one
//! running: a hook or MCP entry that names a moved or deleted file fails in
//! the host without a word, and one that names another build answers with
//! another version's rules.
//!
//! Each distinct program is found as the host's shell would find it (a
//! path as written, a bare name through `PATH`), then asked `--version`
//! (bounded: a program that does not answer within [`program::ANSWER`] counts as
//! not answering) and its line compared with this binary's.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::program::{self, locate};

/// What one program named by installed entries turned out to be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "status")]
pub enum Found {
    /// It answers with this binary's version line.
    ThisVersion { path: PathBuf },
    /// It answers with another line (another build or version).
    OtherVersion { path: PathBuf, version: String },
    /// Nothing at the path, or the name is on no `PATH` directory.
    Missing,
    /// It exists but did not run or answer `--version`.
    NoAnswer { path: PathBuf, why: String },
}

/// One program, what names it, and what it is.
#[derive(Debug, Clone, Serialize)]
pub struct Binary {
    /// The program as the entries write it.
    pub program: String,
    /// What names it, e.g. `hooks SessionStart, PreToolUse` or
    /// `MCP server in ~/.claude.json`.
    pub named_by: Vec<String>,
    #[serde(flatten)]
    pub found: Found,
}

impl Binary {
    /// What the user should do about it, if anything.
    pub fn action(&self, host_word: &str) -> Option<String> {
        let named = self.named_by.join("; ");
        let fix = format!(
            "run `agentspine install {host_word}` with the agentspine you mean to keep (or `agentspine \
             uninstall {host_word}` with any)"
        );
        match &self.found {
            Found::ThisVersion { .. } => None,
            Found::Missing => {
                Some(format!("`{}` ({named}) does not exist: the host cannot run it; {fix}", self.program))
            }
            Found::OtherVersion { path, version } => Some(format!(
                "`{}` ({named}) is {version} at {}, not this agentspine {}: {fix}",
                self.program,
                path.display(),
                crate::version::LINE
            )),
            Found::NoAnswer { path, why } => Some(format!(
                "`{}` ({named}) at {} does not answer `--version` ({why}): {fix}",
                self.program,
                path.display()
            )),
        }
    }
}

/// The program of an installed command line (`/p/agentspine hook claude`,
/// `'/a b/agentspine' hook codex`): its first word, unquoted.
pub fn program_of(command: &str) -> String {
    let command = command.trim();
    if let Some(rest) = command.strip_prefix('\'') {
        // The installer's quoting: '...' with '\'' for a quote.
        let mut out = String::new();
        let mut rest = rest;
        while let Some(end) = rest.find('\'') {
            out.push_str(&rest[..end]);
            rest = &rest[end + 1..];
            match rest.strip_prefix("\\''") {
                Some(next) => {
                    out.push('\'');
                    rest = next;
                }
                None => return out,
            }
        }
        return out;
    }
    if let Some(rest) = command.strip_prefix('"') {
        return rest.split('"').next().unwrap_or_default().to_owned();
    }
    command.split_whitespace().next().unwrap_or_default().to_owned()
}

/// Finds and asks each program; `named` pairs a program with what names it.
pub fn check(named: &[(String, String)]) -> Vec<Binary> {
    let mut binaries: Vec<Binary> = Vec::new();
    for (program, by) in named {
        match binaries.iter_mut().find(|b| &b.program == program) {
            Some(binary) => {
                if !binary.named_by.contains(by) {
                    binary.named_by.push(by.clone());
                }
            }
            None => binaries.push(Binary {
                program: program.clone(),
                named_by: vec![by.clone()],
                found: Found::Missing,
            }),
        }
    }
    for binary in &mut binaries {
        binary.found = match locate(&binary.program) {
            None => Found::Missing,
            Some(path) => ask(&path),
        };
    }
    binaries
}

/// Runs `path --version`, bounded by [`program::ANSWER`].
fn ask(path: &Path) -> Found {
    let no_answer = |why: String| Found::NoAnswer { path: path.to_path_buf(), why };
    let out = match program::ask(path, &["--version"], program::Streams::Stdout) {
        Ok(out) => out,
        Err(why) => return no_answer(why),
    };
    let line = out.lines().next().unwrap_or_default().trim().to_owned();
    if line.is_empty() {
        return no_answer("no version printed".to_owned());
    }
    if line == crate::version::OUTPUT.trim_end() {
        Found::ThisVersion { path: path.to_path_buf() }
    } else {
        Found::OtherVersion { path: path.to_path_buf(), version: line }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_is_the_first_word_unquoted() {
        assert_eq!(program_of("/usr/bin/agentspine hook claude"), "/usr/bin/agentspine");
        assert_eq!(program_of("agentspine hook codex"), "agentspine");
        assert_eq!(program_of("'/a b/agent'\\''spine' hook claude"), "/a b/agent'spine");
        assert_eq!(program_of("\"/a b/agentspine\" hook claude"), "/a b/agentspine");
    }

    #[test]
    fn a_missing_path_is_missing_and_names_its_entries_once() {
        let named = [
            ("/nonexistent/agentspine".to_owned(), "hooks SessionStart".to_owned()),
            ("/nonexistent/agentspine".to_owned(), "hooks SessionStart".to_owned()),
            ("/nonexistent/agentspine".to_owned(), "MCP server".to_owned()),
        ];
        let found = check(&named);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].found, Found::Missing);
        assert_eq!(found[0].named_by, ["hooks SessionStart", "MCP server"]);
    }
}
