//! The environment a resolution runs in, passed in explicitly: core never
//! reads process variables itself, so a hook, the MCP server and a test can
//! each say exactly which homes and profiles apply.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::PathBuf;

use crate::host::Host;

/// Homes and settings that come from the process environment or the
/// command line, never from a repository or a model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Environment {
    /// `$HOME`.
    pub home: Option<PathBuf>,
    /// `--profile NAME` for Codex: adds `$CODEX_HOME/NAME.config.toml`.
    pub codex_profile: Option<String>,
    /// Directory of Codex's system config (`/etc/codex`).
    pub codex_system_dir: PathBuf,
    /// Gemini CLI's system settings file (`$GEMINI_CLI_SYSTEM_SETTINGS_PATH`,
    /// else `/etc/gemini-cli/settings.json`); its system defaults file sits
    /// beside it as `system-defaults.json` unless
    /// `$GEMINI_CLI_SYSTEM_DEFAULTS_PATH` says otherwise.
    pub gemini_system_settings: PathBuf,
    /// `$AGENTSPINE_PROFILE_DIRS`: further profile directories the user
    /// keeps (other agents' homes), `:`-separated absolute paths. With the
    /// user configuration's `[roots] profiles` they are treated exactly as
    /// the built-in profiles (see [`crate::policy`]).
    pub extra_profiles: Vec<PathBuf>,
    /// The variables the host folders read beyond the fields above (each
    /// profile's `variables`: `$OPENCODE_CONFIG`, `$COPILOT_HOME`…), as
    /// set, empty ones dropped. A host's folder asks for them by name, so
    /// a new host adds its variables to its own profile and nothing here.
    vars: BTreeMap<&'static str, OsString>,
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
            codex_profile: None,
            codex_system_dir: PathBuf::from("/etc/codex"),
            gemini_system_settings: path("GEMINI_CLI_SYSTEM_SETTINGS_PATH")
                .unwrap_or_else(|| PathBuf::from("/etc/gemini-cli/settings.json")),
            extra_profiles: var("AGENTSPINE_PROFILE_DIRS")
                .map(|v| std::env::split_paths(&v).filter(|p| p.is_absolute()).collect())
                .unwrap_or_default(),
            vars: Host::ALL
                .iter()
                .flat_map(|host| host.profile().variables)
                .filter_map(|&name| var(name).filter(|v| !v.is_empty()).map(|v| (name, v)))
                .collect(),
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

    /// A variable a host's profile names (its `variables`), as set; `None`
    /// when unset or empty.
    pub fn var(&self, name: &str) -> Option<&OsStr> {
        debug_assert!(
            Host::ALL.iter().any(|host| host.profile().variables.contains(&name)),
            "${name} is named by no host's profile"
        );
        self.vars.get(name).map(OsString::as_os_str)
    }

    /// [`Environment::var`] as a path: an absolute one, a relative value
    /// ignored (as the hosts ignore it).
    pub fn var_path(&self, name: &str) -> Option<PathBuf> {
        self.var(name).map(PathBuf::from).filter(|p| p.is_absolute())
    }

    /// [`Environment::var`] as UTF-8 text; `None` when it is not.
    pub fn var_text(&self, name: &str) -> Option<&str> {
        self.var(name).and_then(OsStr::to_str)
    }

    /// Whether [`Environment::var`] turns a setting on: `1` or `true` (any
    /// case).
    pub fn var_on(&self, name: &str) -> bool {
        self.var(name).is_some_and(|v| v == "1" || v.eq_ignore_ascii_case("true"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Environment {
        Environment::from_vars(|name| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| OsString::from(v)))
    }

    #[test]
    fn a_host_variable_is_kept_by_name_as_its_profile_names_it() {
        let e = env(&[
            ("COPILOT_HOME", "/c"),
            ("KIMI_CODE_HOME", "relative/k"),
            ("OPENCODE_CONFIG_CONTENT", ""),
            ("OPENCODE_DISABLE_CLAUDE_CODE", "TRUE"),
            ("OPENCODE_DISABLE_PROJECT_CONFIG", "yes"),
            ("NOT_A_HOST_VARIABLE", "x"),
        ]);
        assert_eq!(e.var_path("COPILOT_HOME"), Some(PathBuf::from("/c")));
        assert_eq!(e.var("KIMI_CODE_HOME"), Some(OsStr::new("relative/k")));
        assert_eq!(e.var_path("KIMI_CODE_HOME"), None, "a relative path is ignored");
        assert_eq!(e.var("OPENCODE_CONFIG_CONTENT"), None, "an empty value is unset");
        assert!(e.var_on("OPENCODE_DISABLE_CLAUDE_CODE"));
        assert!(!e.var_on("OPENCODE_DISABLE_PROJECT_CONFIG"), "only 1 or true turn a setting on");
        assert_eq!(e.vars.len(), 4, "only the variables a profile names: {:?}", e.vars);
    }

    #[test]
    #[should_panic(expected = "named by no host's profile")]
    #[cfg(debug_assertions)]
    fn asking_for_a_variable_no_profile_names_is_a_bug() {
        env(&[]).var("NOT_A_HOST_VARIABLE");
    }
}
