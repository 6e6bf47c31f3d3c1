//! agentspine's own configuration: `config.toml` in `$AGENTSPINE_CONFIG`'s
//! place, else `$XDG_CONFIG_HOME/agentspine/`, else `~/.config/agentspine/`.
//! Every key is optional and off by default; an unknown key or a wrong
//! value is an error that names the file, line and column.
//!
//! ```toml
//! [claude]
//! # Add the AGENTS.md files Claude Code does not read, at session start and
//! # for the directories a tool touches: "evidenced" (default: where the
//! # repository's CLAUDE.md links to or imports AGENTS.md), "off",
//! # "skipped" (the ones its instructionFiles mode leaves out, e.g. beside a
//! # CLAUDE.md, in any repository), or "all" (every one: Claude Code before
//! # 2.1.277 reads no AGENTS.md at all).
//! session_start_agents_md = "skipped"
//!
//! [codex]
//! # At session start, add the CLAUDE.md family in a project where Codex
//! # finds no AGENTS.md (nor a fallback name) of its own.
//! session_start_claude_md = true
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// A configuration file larger than this is refused: the one cap of every
/// reader of this file (`check`'s silencing, the `[roots]` profiles).
const CAP: u64 = agentspine_core::check::silence::MAX_CONFIG;

/// The whole configuration.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Claude Code's hooks.
    #[serde(default)]
    pub claude: ClaudeConfig,
    /// Codex's hooks.
    #[serde(default)]
    pub codex: CodexConfig,
    /// `agentspine check`'s table (silenced findings): read by `check`.
    #[serde(default)]
    pub check: Option<toml::Table>,
    /// `[roots] profiles`: further profile directories, read by core's
    /// never-a-project rule.
    #[serde(default)]
    pub roots: Option<toml::Table>,
}

/// `[claude]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaudeConfig {
    /// Which AGENTS.md files SessionStart and tool calls add.
    #[serde(default)]
    pub session_start_agents_md: agentspine_core::delta::ClaudeAgentsMd,
}

/// `[codex]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodexConfig {
    /// Whether SessionStart adds the CLAUDE.md family in a project Codex
    /// finds no AGENTS.md in.
    #[serde(default)]
    pub session_start_claude_md: bool,
}

/// A configuration that could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but could not be read.
    #[error("{path}: cannot read: {cause}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        cause: String,
    },
    /// The file is not valid TOML or holds an unknown key or value.
    #[error("{path}: {message}")]
    Malformed {
        /// The file.
        path: PathBuf,
        /// The parser's message (line, column, what was expected).
        message: String,
    },
}

impl ConfigError {
    /// The audit code.
    pub fn code(&self) -> &'static str {
        match self {
            ConfigError::Unreadable { .. } => "config-unreadable",
            ConfigError::Malformed { .. } => "config-malformed",
        }
    }
}

/// Where the configuration file is, from the process environment (core's
/// one rule: [`agentspine_core::Environment::user_config_file`]).
pub fn path() -> Option<PathBuf> {
    agentspine_core::Environment::from_vars(|name| std::env::var_os(name)).user_config_file()
}

/// Loads the configuration; a missing file is the default configuration.
pub fn load(reader: &agentspine_fs::Reader) -> Result<Config, ConfigError> {
    match path() {
        Some(path) => load_from(reader, &path),
        None => Ok(Config::default()),
    }
}

/// Loads `path`; a missing file (or directory) is the default.
pub fn load_from(reader: &agentspine_fs::Reader, path: &Path) -> Result<Config, ConfigError> {
    let unreadable = |cause: String| ConfigError::Unreadable { path: path.to_path_buf(), cause };
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(unreadable("not a file path".to_owned()));
    };
    let root = match reader.open_root(dir) {
        Ok(root) => root,
        Err(e) if e.code() == agentspine_fs::Code::NotFound => return Ok(Config::default()),
        Err(e) => return Err(unreadable(e.to_string())),
    };
    let snapshot = match root.read_remembered(name, CAP) {
        Ok(snapshot) => snapshot,
        Err(e) if e.code() == agentspine_fs::Code::NotFound => return Ok(Config::default()),
        Err(e) => return Err(unreadable(e.to_string())),
    };
    let text = String::from_utf8(snapshot.bytes).map_err(|_| ConfigError::Malformed {
        path: path.to_path_buf(),
        message: "not valid UTF-8".to_owned(),
    })?;
    parse(&text).map_err(|message| ConfigError::Malformed { path: path.to_path_buf(), message })
}

/// Parses the text of a configuration file.
pub fn parse(text: &str) -> Result<Config, String> {
    toml::from_str(text).map_err(|e| e.to_string().trim_end().replace('\n', " "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentspine_core::delta::ClaudeAgentsMd;

    #[test]
    fn every_key_is_optional_and_off_by_default() {
        assert_eq!(parse("").unwrap(), Config::default());
        assert_eq!(parse("[claude]\n").unwrap().claude.session_start_agents_md, ClaudeAgentsMd::Evidenced);
        let both =
            parse("[claude]\nsession_start_agents_md = \"all\"\n[codex]\nsession_start_claude_md = true\n");
        let both = both.unwrap();
        assert_eq!(both.claude.session_start_agents_md, ClaudeAgentsMd::All);
        assert!(both.codex.session_start_claude_md);
    }

    #[test]
    fn unknown_keys_and_values_are_errors_that_say_where() {
        let e = parse("[claude]\nsession_start_agent_md = \"all\"\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("unknown field `session_start_agent_md`"), "{e}");
        let e = parse("[claude]\nsession_start_agents_md = \"some\"\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("unknown variant `some`"), "{e}");
        let e = parse("[codex]\nsession_start_claude_md = \"yes\"\n").unwrap_err();
        assert!(e.contains("line 2"), "{e}");
    }

    #[test]
    fn the_file_is_found_by_explicit_path_then_xdg_then_home() {
        let p = |e: Option<&str>, x: Option<&str>, h: Option<&str>| {
            let vars = [("AGENTSPINE_CONFIG", e), ("XDG_CONFIG_HOME", x), ("HOME", h)];
            agentspine_core::Environment::from_vars(|name| {
                vars.iter().find(|(n, _)| *n == name).and_then(|(_, v)| v.map(std::ffi::OsString::from))
            })
            .user_config_file()
        };
        assert_eq!(p(Some("/etc/a.toml"), Some("/x"), Some("/h")), Some(PathBuf::from("/etc/a.toml")));
        assert_eq!(p(None, Some("/x"), Some("/h")), Some(PathBuf::from("/x/agentspine/config.toml")));
        assert_eq!(p(None, None, Some("/h")), Some(PathBuf::from("/h/.config/agentspine/config.toml")));
        assert_eq!(p(None, None, None), None);
    }

    #[test]
    fn the_check_and_roots_tables_of_the_same_file_are_accepted() {
        let both = parse(
            "[check]\n[[check.silence]]\nid = \"x\"\npath = \"*\"\n[roots]\nprofiles = [\"~/.blun\"]\n",
        );
        assert!(both.is_ok(), "{both:?}");
    }
}
