//! What `agentspine --version` says: the crate's version, the commit it
//! was built from and the target it was built for (recorded by build.rs,
//! `unknown` where the build could not tell). `doctor` compares another
//! binary's line with this one's to find a stale install.

/// `0.1.0 (commit 1a2b3c4d5e6f, x86_64-unknown-linux-musl)`.
pub const LINE: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("AGENTSPINE_BUILD_COMMIT"),
    ", ",
    env!("AGENTSPINE_BUILD_TARGET"),
    ")"
);

/// What `--version` prints, newline included.
pub const OUTPUT: &str = concat!(
    "agentspine ",
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("AGENTSPINE_BUILD_COMMIT"),
    ", ",
    env!("AGENTSPINE_BUILD_TARGET"),
    ")\n"
);

/// Whether the arguments (after the program name) are exactly `--version`
/// or `-V`: answered before logging or the parser is set up, so asking a
/// binary its version costs about as much as starting it.
pub fn asked(mut args: impl Iterator<Item = std::ffi::OsString>) -> bool {
    args.next().is_some_and(|a| a == "--version" || a == "-V") && args.next().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_lone_version_flag_is_answered_early() {
        let asked = |args: &[&str]| asked(args.iter().map(std::ffi::OsString::from));
        assert!(asked(&["--version"]));
        assert!(asked(&["-V"]));
        assert!(!asked(&["--version", "extra"]));
        assert!(!asked(&["resolve", "--version"]));
        assert!(!asked(&[]));
    }

    #[test]
    fn the_line_names_version_commit_and_target() {
        assert!(OUTPUT.starts_with(&format!("agentspine {}", env!("CARGO_PKG_VERSION"))));
        assert_eq!(OUTPUT, format!("agentspine {LINE}\n"));
        assert!(LINE.ends_with(&format!(", {})", env!("AGENTSPINE_BUILD_TARGET"))));
    }
}
