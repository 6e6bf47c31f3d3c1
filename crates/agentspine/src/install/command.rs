//! Which program the installed hooks and MCP entries run.
//!
//! Guarantees:
//! - project settings (files that get committed) name the bare
//!   [`PORTABLE`] name, found on each user's `PATH`, never a path of this
//!   machine;
//! - user settings name the running binary's absolute path, unless that
//!   binary lies in a cargo build directory: the next build replaces it
//!   and `cargo clean` deletes it, and every hook then fails in the host
//!   without a word. Install refuses that (code
//!   `install-from-build-directory`) and says what to do instead;
//! - `--command PATH` (or, for user settings, `$AGENTSPINE_INSTALL_COMMAND`,
//!   which project settings ignore) names the program
//!   explicitly: `agentspine` (found on `PATH`) or an absolute path whose
//!   file name is `agentspine`, so that uninstall and `doctor` still know
//!   the entries as agentspine's. A build directory given this way is
//!   accepted (development), with a warning.

use std::path::Path;

use anyhow::Context;

use crate::surface::errors::Coded;

/// The command project-scope files name: found on each user's `PATH`.
pub const PORTABLE: &str = "agentspine";

/// The program to write, and whether it lies in a build directory.
pub struct Chosen {
    pub program: String,
    pub from_build_directory: bool,
}

/// The program user settings name: `explicit` when given, else the
/// running binary, refused when that is in a build directory.
pub fn for_user(explicit: Option<&str>) -> anyhow::Result<Chosen> {
    let from_env = std::env::var("AGENTSPINE_INSTALL_COMMAND").ok().filter(|v| !v.is_empty());
    if let Some(program) = explicit.or(from_env.as_deref()) {
        let named_ours = program == PORTABLE
            || (Path::new(program).is_absolute()
                && Path::new(program).file_name() == Some(PORTABLE.as_ref()));
        anyhow::ensure!(
            named_ours,
            "--command {program}: give `{PORTABLE}` (found on PATH) or an absolute path ending in \
             `/{PORTABLE}`, so that uninstall and doctor know the entries as agentspine's"
        );
        return Ok(Chosen { program: program.to_owned(), from_build_directory: in_build_directory(program) });
    }
    let program = running()?;
    if in_build_directory(&program) {
        return Err(Coded::at(
            "install-from-build-directory",
            &program,
            format!(
                "{program} is in a cargo build directory, which the next build replaces and `cargo clean` \
                 deletes; hooks naming it would then fail without a word. Install agentspine first \
                 (`cargo install --locked --path crates/agentspine`, npm or a release binary) and run \
                 `agentspine install` from there, or, to develop agentspine itself, name the program \
                 with `--command {program}`"
            ),
        )
        .into());
    }
    Ok(Chosen { program, from_build_directory: false })
}

/// Whether `program` lies in a cargo target directory: cargo keeps a
/// `.fingerprint` directory in each profile directory (`target/debug`,
/// `target/<triple>/release`), beside the binaries and one level above
/// `deps/`.
pub fn in_build_directory(program: &str) -> bool {
    let reader = agentspine_fs::Reader::new(agentspine_fs::Budget::UNLIMITED);
    let fingerprint = |dir: &Path| reader.open_root(dir).and_then(|root| root.stat(".fingerprint")).is_ok();
    let Some(dir) = Path::new(program).parent().filter(|dir| dir.is_absolute()) else { return false };
    fingerprint(dir) || (dir.file_name() == Some("deps".as_ref()) && dir.parent().is_some_and(fingerprint))
}

/// The absolute path of the running agentspine binary.
pub fn running() -> anyhow::Result<String> {
    let path = std::env::current_exe().context("cannot tell where the agentspine binary is")?;
    path.to_str().map(str::to_owned).context("the agentspine binary's path is not UTF-8")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_names_uninstall_recognises_are_taken() {
        assert_eq!(for_user(Some("agentspine")).unwrap().program, "agentspine");
        assert_eq!(for_user(Some("/opt/bin/agentspine")).unwrap().program, "/opt/bin/agentspine");
        assert!(for_user(Some("bin/agentspine")).is_err());
        assert!(for_user(Some("/opt/bin/agentspine-dev")).is_err());
    }

    #[test]
    #[allow(clippy::disallowed_methods, reason = "the test builds a fixture target directory")]
    fn a_profile_directory_and_its_deps_are_build_directories() {
        let dir = tempfile::tempdir().unwrap();
        let profile = dir.path().join("target/debug");
        std::fs::create_dir_all(profile.join(".fingerprint")).unwrap();
        std::fs::create_dir_all(profile.join("deps")).unwrap();
        let at = |rel: &str| dir.path().join(rel).display().to_string();
        assert!(in_build_directory(&at("target/debug/agentspine")));
        assert!(in_build_directory(&at("target/debug/deps/agentspine")));
        assert!(!in_build_directory(&at("target/agentspine")));
        assert!(!in_build_directory("agentspine"));
    }
}
