//! The environment a resolution runs in, passed in explicitly: core never
//! reads process variables itself, so a hook, the MCP server and a test can
//! each say exactly which homes and profiles apply.

use std::ffi::OsString;
use std::path::PathBuf;

/// Homes and settings that come from the process environment or the
/// command line, never from a repository or a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    /// `$HOME`.
    pub home: Option<PathBuf>,
    /// `$CODEX_HOME` (Codex's profile; `~/.codex` when unset).
    pub codex_home: Option<PathBuf>,
    /// `--profile NAME` for Codex: adds `$CODEX_HOME/NAME.config.toml`.
    pub codex_profile: Option<String>,
    /// Directory of Codex's system config (`/etc/codex`).
    pub codex_system_dir: PathBuf,
    /// `$CLAUDE_CONFIG_DIR` (Claude Code's profile; `~/.claude` when unset).
    pub claude_config_dir: Option<PathBuf>,
    /// `$PI_CODING_AGENT_DIR` (pi's profile; `~/.pi/agent` when unset).
    pub pi_agent_dir: Option<PathBuf>,
    /// `$GEMINI_CLI_HOME` (replaces `$HOME` for Gemini CLI: its profile is
    /// `$GEMINI_CLI_HOME/.gemini`).
    pub gemini_cli_home: Option<PathBuf>,
    /// Gemini CLI's system settings file (`$GEMINI_CLI_SYSTEM_SETTINGS_PATH`,
    /// else `/etc/gemini-cli/settings.json`); its system defaults file sits
    /// beside it as `system-defaults.json` unless
    /// `$GEMINI_CLI_SYSTEM_DEFAULTS_PATH` says otherwise.
    pub gemini_system_settings: PathBuf,
    /// `$GEMINI_CLI_SYSTEM_DEFAULTS_PATH`.
    pub gemini_system_defaults: Option<PathBuf>,
    /// `$CLAUDE_CODE_PROJECT_DIR_NAME` (Claude Code's memory directory name,
    /// honoured only with `CLAUDE_CONFIG_DIR`).
    pub claude_project_dir_name: Option<String>,
    /// `$CLAUDE_PROJECT_DIR`: the directory Claude Code was started in, as
    /// it tells its hooks.
    pub claude_project_dir: Option<PathBuf>,
    /// `$AGENTSPINE_PROFILE_DIRS`: further profile directories the user
    /// keeps (other agents' homes), `:`-separated absolute paths. With the
    /// user configuration's `[roots] profiles` they are treated exactly as
    /// the built-in profiles (see [`crate::policy`]).
    pub extra_profiles: Vec<PathBuf>,
    /// `$OPENCODE_CONFIG_DIR`: opencode's configuration directory, named
    /// outright.
    pub opencode_config_dir: Option<PathBuf>,
    /// `$OPENCODE_DISABLE_CLAUDE_CODE` or `$OPENCODE_DISABLE_CLAUDE_CODE_PROMPT`
    /// set to `1` or `true`: opencode reads no `CLAUDE.md`.
    pub opencode_claude_off: bool,
    /// `$OPENCODE_DISABLE_PROJECT_CONFIG` set to `1` or `true`: opencode
    /// reads no project instruction file and no project config.
    pub opencode_project_config_off: bool,
    /// `$OPENCODE_CONFIG`: a config file opencode merges after its global
    /// config and before the project's.
    pub opencode_config: Option<PathBuf>,
    /// `$OPENCODE_CONFIG_CONTENT`: a config opencode merges last (its
    /// `instructions` count like a file's).
    pub opencode_config_content: Option<String>,
    /// `$KIMI_CODE_HOME`: Kimi Code's home, named outright.
    pub kimi_code_home: Option<PathBuf>,
    /// `$COPILOT_HOME`: GitHub Copilot CLI's home, named outright.
    pub copilot_home_dir: Option<PathBuf>,
    /// `$COPILOT_CUSTOM_INSTRUCTIONS_DIRS`: more directories of instruction
    /// files GitHub Copilot CLI reads (agentspine does not).
    pub copilot_custom_dirs: Option<String>,
    /// `$XDG_CONFIG_HOME`: where the user's `agentspine/config.toml` is.
    pub config_home: Option<PathBuf>,
    /// `$AGENTSPINE_CONFIG`: the user's configuration file, named outright.
    pub config_file: Option<PathBuf>,
}

impl Environment {
    /// This process's environment.
    pub fn from_process() -> Environment {
        Environment::from_vars(|name| std::env::var_os(name))
    }

    /// Reads the variables through `var` (e.g. `std::env::var_os`). Empty
    /// and relative values are ignored, as the hosts ignore them.
    pub fn from_vars(var: impl Fn(&str) -> Option<OsString>) -> Environment {
        let path = |name: &str| {
            var(name).map(PathBuf::from).filter(|p| p.is_absolute() && !p.as_os_str().is_empty())
        };
        Environment {
            home: path("HOME"),
            codex_home: path("CODEX_HOME"),
            codex_profile: None,
            codex_system_dir: PathBuf::from("/etc/codex"),
            claude_config_dir: path("CLAUDE_CONFIG_DIR"),
            pi_agent_dir: path("PI_CODING_AGENT_DIR"),
            gemini_cli_home: path("GEMINI_CLI_HOME"),
            gemini_system_settings: path("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
                .unwrap_or_else(|| PathBuf::from("/etc/gemini-cli/settings.json")),
            gemini_system_defaults: path("GEMINI_CLI_SYSTEM_DEFAULTS_PATH"),
            claude_project_dir_name: var("CLAUDE_CODE_PROJECT_DIR_NAME").and_then(|v| v.into_string().ok()),
            claude_project_dir: path("CLAUDE_PROJECT_DIR"),
            extra_profiles: var("AGENTSPINE_PROFILE_DIRS")
                .map(|v| std::env::split_paths(&v).filter(|p| p.is_absolute()).collect())
                .unwrap_or_default(),
            opencode_config_dir: path("OPENCODE_CONFIG_DIR"),
            opencode_claude_off: ["OPENCODE_DISABLE_CLAUDE_CODE", "OPENCODE_DISABLE_CLAUDE_CODE_PROMPT"]
                .iter()
                .any(|name| var(name).is_some_and(|v| v == "1" || v.eq_ignore_ascii_case("true"))),
            opencode_project_config_off: var("OPENCODE_DISABLE_PROJECT_CONFIG")
                .is_some_and(|v| v == "1" || v.eq_ignore_ascii_case("true")),
            opencode_config: path("OPENCODE_CONFIG"),
            opencode_config_content: var("OPENCODE_CONFIG_CONTENT").and_then(|v| v.into_string().ok()),
            kimi_code_home: path("KIMI_CODE_HOME"),
            copilot_home_dir: path("COPILOT_HOME"),
            copilot_custom_dirs: var("COPILOT_CUSTOM_INSTRUCTIONS_DIRS")
                .map(|v| v.to_string_lossy().into_owned())
                .filter(|v| !v.is_empty()),
            config_home: path("XDG_CONFIG_HOME"),
            config_file: path("AGENTSPINE_CONFIG"),
        }
    }

    /// The user's agentspine configuration file: `$AGENTSPINE_CONFIG`, else
    /// `$XDG_CONFIG_HOME/agentspine/config.toml`, else
    /// `~/.config/agentspine/config.toml`. One file for every table
    /// (`[claude]`, `[codex]`, `[check]`, `[roots]`).
    pub fn user_config_file(&self) -> Option<PathBuf> {
        if let Some(file) = &self.config_file {
            return Some(file.clone());
        }
        let base = self.config_home.clone().or_else(|| self.home.as_ref().map(|h| h.join(".config")))?;
        Some(base.join("agentspine").join("config.toml"))
    }

    /// Codex's home: `$CODEX_HOME`, else `~/.codex`.
    pub fn codex_home(&self) -> Option<PathBuf> {
        self.codex_home.clone().or_else(|| self.home.as_ref().map(|h| h.join(".codex")))
    }

    /// Claude Code's config home: `$CLAUDE_CONFIG_DIR`, else `~/.claude`.
    pub fn claude_home(&self) -> Option<PathBuf> {
        self.claude_config_dir.clone().or_else(|| self.home.as_ref().map(|h| h.join(".claude")))
    }

    /// Claude Code's global state file: `~/.claude.json`, or
    /// `$CLAUDE_CONFIG_DIR/.claude.json` when the config dir is set.
    pub fn claude_state_file(&self) -> Option<PathBuf> {
        match &self.claude_config_dir {
            Some(dir) => Some(dir.join(".claude.json")),
            None => self.home.as_ref().map(|h| h.join(".claude.json")),
        }
    }

    /// pi's agent directory: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`.
    pub fn pi_home(&self) -> Option<PathBuf> {
        self.pi_agent_dir.clone().or_else(|| self.home.as_ref().map(|h| h.join(".pi/agent")))
    }

    /// Gemini CLI's profile: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`.
    pub fn gemini_home(&self) -> Option<PathBuf> {
        self.gemini_cli_home.as_ref().or(self.home.as_ref()).map(|h| h.join(".gemini"))
    }

    /// Gemini CLI's system defaults file (the lowest settings layer).
    pub fn gemini_system_defaults_file(&self) -> PathBuf {
        self.gemini_system_defaults.clone().unwrap_or_else(|| {
            self.gemini_system_settings
                .parent()
                .unwrap_or(std::path::Path::new("/"))
                .join("system-defaults.json")
        })
    }

    /// opencode's configuration directory: `$OPENCODE_CONFIG_DIR`, else
    /// `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`.
    pub fn opencode_home(&self) -> Option<PathBuf> {
        if let Some(dir) = &self.opencode_config_dir {
            return Some(dir.clone());
        }
        let base = self.config_home.clone().or_else(|| self.home.as_ref().map(|h| h.join(".config")))?;
        Some(base.join("opencode"))
    }

    /// Kimi Code's home: `$KIMI_CODE_HOME`, else `~/.kimi-code`.
    pub fn kimi_home(&self) -> Option<PathBuf> {
        self.kimi_code_home.clone().or_else(|| self.home.as_ref().map(|h| h.join(".kimi-code")))
    }

    /// GitHub Copilot CLI's home: `$COPILOT_HOME`, else `~/.copilot`
    /// (`$XDG_CONFIG_HOME` has no effect, measured on 1.0.102).
    pub fn copilot_home(&self) -> Option<PathBuf> {
        self.copilot_home_dir.clone().or_else(|| self.home.as_ref().map(|h| h.join(".copilot")))
    }

    /// The desktop rule's fixed global file directory: `~/.pi/agent`
    /// (ADR 0037 fixes the path; no variable moves it).
    pub fn desktop_home(&self) -> Option<PathBuf> {
        self.home.as_ref().map(|h| h.join(".pi/agent"))
    }
}
