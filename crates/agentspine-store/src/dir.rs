//! Where the state directory is.
//!
//! The rule, first match wins:
//!
//! 1. `$AGENTSPINE_STATE_DIR`, which must be absolute;
//! 2. on macOS, `$HOME/Library/Application Support/agentspine`;
//! 3. elsewhere, `$XDG_STATE_HOME/agentspine` when `XDG_STATE_HOME` is an
//!    absolute path (the XDG specification says to ignore a relative one),
//!    else `$HOME/.local/state/agentspine`.
//!
//! An empty variable counts as unset. The rule is written here rather than
//! taken from a directories crate (such as `etcetera`) because those read
//! the process environment themselves, and the rule must be testable with
//! made-up variables; it matches `etcetera`'s XDG and Apple strategies.

use std::ffi::OsString;
use std::path::PathBuf;

use crate::db::StoreError;

/// Name of the directory inside the platform's state or application
/// support directory.
const APP: &str = "agentspine";

/// Which platform rule names the state directory when
/// `$AGENTSPINE_STATE_DIR` is unset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    /// The XDG base directory rule (Linux and other Unix systems).
    Xdg,
    /// macOS: `~/Library/Application Support`.
    MacOs,
}

impl Platform {
    /// The platform this build runs on.
    pub const CURRENT: Platform = if cfg!(target_vendor = "apple") { Platform::MacOs } else { Platform::Xdg };
}

/// Names the state directory by the rule above, without touching the disk.
/// `vars` looks up an environment variable (`|k| std::env::var_os(k)` in
/// production; a map in tests).
pub fn state_dir_path(
    platform: Platform,
    vars: impl Fn(&str) -> Option<OsString>,
) -> Result<PathBuf, StoreError> {
    let var = |name: &str| vars(name).filter(|value| !value.is_empty()).map(PathBuf::from);
    if let Some(dir) = var("AGENTSPINE_STATE_DIR") {
        if !dir.is_absolute() {
            return Err(StoreError::NoStateDir {
                reason: format!("AGENTSPINE_STATE_DIR must be an absolute path, not {:?}", dir.display()),
            });
        }
        return Ok(dir);
    }
    let home = || match var("HOME") {
        Some(home) if home.is_absolute() => Ok(home),
        Some(home) => Err(StoreError::NoStateDir {
            reason: format!("HOME is not an absolute path: {:?}", home.display()),
        }),
        None => {
            Err(StoreError::NoStateDir { reason: "neither AGENTSPINE_STATE_DIR nor HOME is set".to_owned() })
        }
    };
    match platform {
        Platform::MacOs => Ok(home()?.join("Library/Application Support").join(APP)),
        Platform::Xdg => match var("XDG_STATE_HOME") {
            Some(state) if state.is_absolute() => Ok(state.join(APP)),
            _ => Ok(home()?.join(".local/state").join(APP)),
        },
    }
}

/// Names the state directory for this platform ([`state_dir_path`]) and
/// creates it as a private directory (mode `0700`, missing parents too,
/// never through a link at the directory itself). A directory that cannot
/// be created or trusted is [`StoreError::Unavailable`].
pub fn state_dir(vars: impl Fn(&str) -> Option<OsString>) -> Result<PathBuf, StoreError> {
    let dir = state_dir_path(Platform::CURRENT, vars)?;
    agentspine_fs::ensure_private_dir(&dir)
        .map_err(|e| StoreError::Unavailable { path: dir.clone(), reason: e.to_string() })
}

/// A directory of agentspine's own inside the state directory (`sessions/`,
/// `reports/`), opened at the first use and made only by a write.
#[derive(Debug)]
pub(crate) struct Subdir {
    state: agentspine_fs::PrivateDir,
    name: &'static str,
    dir: std::cell::OnceCell<agentspine_fs::PrivateDir>,
}

impl Subdir {
    pub(crate) fn new(state: agentspine_fs::PrivateDir, name: &'static str) -> Subdir {
        Subdir { state, name, dir: std::cell::OnceCell::new() }
    }

    /// The state directory it is in.
    pub(crate) fn state(&self) -> &agentspine_fs::PrivateDir {
        &self.state
    }

    /// The directory, made (`0700`) when `create` is set; `None` when it
    /// is missing and not made.
    pub(crate) fn get(
        &self,
        create: bool,
    ) -> Result<Option<&agentspine_fs::PrivateDir>, agentspine_fs::FsError> {
        if let Some(dir) = self.dir.get() {
            return Ok(Some(dir));
        }
        match self.state.subdir(self.name, create)? {
            Some(dir) => Ok(Some(self.dir.get_or_init(|| dir))),
            None => Ok(None),
        }
    }
}
