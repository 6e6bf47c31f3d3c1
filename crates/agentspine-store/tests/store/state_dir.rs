//! Where the state directory is, and how it is created.

use std::collections::HashMap;
use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use agentspine_store::{Platform, StoreError, state_dir, state_dir_path};

fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> + use<> {
    let map: HashMap<String, OsString> =
        pairs.iter().map(|(k, v)| ((*k).to_owned(), OsString::from(v))).collect();
    move |name| map.get(name).cloned()
}

fn path(platform: Platform, pairs: &[(&str, &str)]) -> Result<PathBuf, StoreError> {
    state_dir_path(platform, vars(pairs))
}

#[test]
fn precedence_on_xdg_systems() {
    let all =
        [("AGENTSPINE_STATE_DIR", "/custom/state"), ("XDG_STATE_HOME", "/xdg/state"), ("HOME", "/home/al")];
    assert_eq!(path(Platform::Xdg, &all).unwrap(), PathBuf::from("/custom/state"));
    assert_eq!(path(Platform::Xdg, &all[1..]).unwrap(), PathBuf::from("/xdg/state/agentspine"));
    assert_eq!(path(Platform::Xdg, &all[2..]).unwrap(), PathBuf::from("/home/al/.local/state/agentspine"));
    // Empty counts as unset; a relative XDG_STATE_HOME is ignored (XDG spec).
    let empty = [("AGENTSPINE_STATE_DIR", ""), ("XDG_STATE_HOME", ""), ("HOME", "/home/al")];
    assert_eq!(path(Platform::Xdg, &empty).unwrap(), PathBuf::from("/home/al/.local/state/agentspine"));
    let relative = [("XDG_STATE_HOME", "rel/state"), ("HOME", "/home/al")];
    assert_eq!(path(Platform::Xdg, &relative).unwrap(), PathBuf::from("/home/al/.local/state/agentspine"));
}

#[test]
fn precedence_on_macos() {
    let all =
        [("AGENTSPINE_STATE_DIR", "/custom/state"), ("XDG_STATE_HOME", "/xdg/state"), ("HOME", "/Users/al")];
    assert_eq!(path(Platform::MacOs, &all).unwrap(), PathBuf::from("/custom/state"));
    assert_eq!(
        path(Platform::MacOs, &all[1..]).unwrap(),
        PathBuf::from("/Users/al/Library/Application Support/agentspine")
    );
}

#[test]
fn missing_or_relative_variables_are_clear_errors() {
    for (pairs, says) in [
        (
            &[("AGENTSPINE_STATE_DIR", "relative/dir"), ("HOME", "/home/al")][..],
            "AGENTSPINE_STATE_DIR must be an absolute",
        ),
        (&[][..], "neither AGENTSPINE_STATE_DIR nor HOME"),
        (&[("HOME", "home")][..], "HOME is not an absolute path"),
    ] {
        let err = path(Platform::Xdg, pairs).unwrap_err();
        assert!(matches!(err, StoreError::NoStateDir { .. }), "{err:?}");
        assert!(err.to_string().contains(says), "{err}");
    }
    // HOME is only needed when it is used.
    assert_eq!(path(Platform::Xdg, &[("XDG_STATE_HOME", "/xdg")]).unwrap(), PathBuf::from("/xdg/agentspine"));
}

#[test]
fn state_dir_creates_the_directory_0700_with_its_parents() {
    let temp = tempfile::tempdir().unwrap();
    let home = temp.path().join("home");
    let xdg = temp.path().join("xdg");
    let dir = state_dir(vars(&[("XDG_STATE_HOME", xdg.to_str().unwrap()), ("HOME", home.to_str().unwrap())]))
        .unwrap();
    let expected = if Platform::CURRENT == Platform::MacOs {
        home.join("Library/Application Support/agentspine")
    } else {
        xdg.join("agentspine")
    };
    assert_eq!(dir, expected);
    assert_eq!(std::fs::symlink_metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);

    // A wider existing directory is narrowed.
    let custom = temp.path().join("custom");
    std::fs::create_dir(&custom).unwrap();
    std::fs::set_permissions(&custom, std::fs::Permissions::from_mode(0o755)).unwrap();
    state_dir(vars(&[("AGENTSPINE_STATE_DIR", custom.to_str().unwrap())])).unwrap();
    assert_eq!(std::fs::symlink_metadata(&custom).unwrap().permissions().mode() & 0o777, 0o700);
}

#[test]
fn a_link_at_the_state_dir_path_is_refused() {
    let temp = tempfile::tempdir().unwrap();
    let target = temp.path().join("target");
    std::fs::create_dir(&target).unwrap();
    let link = temp.path().join("state");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let err = state_dir(vars(&[("AGENTSPINE_STATE_DIR", link.to_str().unwrap())])).unwrap_err();
    match &err {
        StoreError::Unavailable { path, reason } => {
            assert_eq!(path, &link);
            assert!(reason.contains("symbolic link"), "{reason}");
        }
        other => panic!("expected Unavailable, got {other:?}"),
    }
    // Store::open refuses it the same way, and nothing is created at the target.
    let err = agentspine_store::Store::open(&link).unwrap_err();
    assert!(matches!(err, StoreError::Unavailable { .. }), "{err:?}");
    assert_eq!(std::fs::read_dir(&target).unwrap().count(), 0);
}
