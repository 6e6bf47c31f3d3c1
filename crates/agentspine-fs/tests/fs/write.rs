//! Writes to a host's configuration files: atomic replace keeping the
//! mode, backups beside the file, removal, and refusals of links.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use agentspine_fs::{Code, FsError, backup_file, ensure_dir, remove_file, replace_file_atomic};

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path).unwrap().mode() & 0o7777
}

fn code<T: std::fmt::Debug>(result: Result<T, FsError>) -> Code {
    result.expect_err("expected a refusal").code()
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.sort();
    names
}

#[test]
fn replace_creates_with_the_given_mode_and_keeps_an_existing_mode() {
    let temp = tempfile::tempdir().unwrap();
    replace_file_atomic(temp.path(), "new.json", b"{}", Some(0o600)).unwrap();
    assert_eq!(std::fs::read(temp.path().join("new.json")).unwrap(), b"{}");
    assert_eq!(mode(&temp.path().join("new.json")), 0o600);

    let old = temp.path().join("old.json");
    std::fs::write(&old, b"old").unwrap();
    std::fs::set_permissions(&old, std::fs::Permissions::from_mode(0o640)).unwrap();
    replace_file_atomic(temp.path(), "old.json", b"new", Some(0o600)).unwrap();
    assert_eq!(std::fs::read(&old).unwrap(), b"new");
    assert_eq!(mode(&old), 0o640);
    // No temporary file is left behind.
    assert_eq!(names(temp.path()), ["new.json", "old.json"]);
}

#[test]
fn replace_refuses_a_link_at_the_name_and_writes_nothing() {
    let temp = tempfile::tempdir().unwrap();
    let target = temp.path().join("target.json");
    std::fs::write(&target, b"keep").unwrap();
    std::os::unix::fs::symlink(&target, temp.path().join("settings.json")).unwrap();
    assert_eq!(code(replace_file_atomic(temp.path(), "settings.json", b"x", None)), Code::Symlink);
    assert_eq!(std::fs::read(&target).unwrap(), b"keep");
    assert!(std::fs::symlink_metadata(temp.path().join("settings.json")).unwrap().file_type().is_symlink());
    assert_eq!(names(temp.path()), ["settings.json", "target.json"]);
}

#[test]
fn replace_refuses_a_linked_directory_and_a_name_with_a_slash() {
    let temp = tempfile::tempdir().unwrap();
    let real = temp.path().join("real");
    std::fs::create_dir(&real).unwrap();
    std::os::unix::fs::symlink(&real, temp.path().join("link")).unwrap();
    assert_eq!(code(replace_file_atomic(&temp.path().join("link"), "a.json", b"x", None)), Code::Symlink);
    assert_eq!(code(replace_file_atomic(temp.path(), "real/a.json", b"x", None)), Code::InvalidPath);
    assert!(names(&real).is_empty());
}

#[test]
fn backup_copies_bytes_and_mode_under_a_fresh_name_each_time() {
    let temp = tempfile::tempdir().unwrap();
    let file = temp.path().join("config.toml");
    std::fs::write(&file, b"# comment\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let first = backup_file(temp.path(), "config.toml").unwrap();
    let second = backup_file(temp.path(), "config.toml").unwrap();
    assert_ne!(first, second);
    for name in [&first, &second] {
        assert!(name.starts_with("config.toml.agentspine-backup-"), "{name}");
        assert_eq!(std::fs::read(temp.path().join(name)).unwrap(), b"# comment\n");
        assert_eq!(mode(&temp.path().join(name)), 0o600);
    }
    assert_eq!(names(temp.path()).len(), 3);
}

#[test]
fn backup_refuses_a_link_and_a_missing_file() {
    let temp = tempfile::tempdir().unwrap();
    std::fs::write(temp.path().join("t"), b"x").unwrap();
    std::os::unix::fs::symlink(temp.path().join("t"), temp.path().join("l")).unwrap();
    assert_eq!(code(backup_file(temp.path(), "l")), Code::Symlink);
    assert_eq!(code(backup_file(temp.path(), "missing")), Code::NotFound);
    assert_eq!(names(temp.path()), ["l", "t"]);
}

#[test]
fn remove_removes_a_file_and_refuses_a_link() {
    let temp = tempfile::tempdir().unwrap();
    std::fs::write(temp.path().join("hooks.json"), b"{}").unwrap();
    std::os::unix::fs::symlink(temp.path().join("hooks.json"), temp.path().join("l")).unwrap();
    assert_eq!(code(remove_file(temp.path(), "l")), Code::Symlink);
    remove_file(temp.path(), "hooks.json").unwrap();
    assert_eq!(names(temp.path()), ["l"]);
    assert_eq!(code(remove_file(temp.path(), "hooks.json")), Code::NotFound);
}

#[test]
fn ensure_dir_creates_once_and_refuses_a_link() {
    let temp = tempfile::tempdir().unwrap();
    assert!(ensure_dir(temp.path(), ".claude").unwrap());
    assert!(!ensure_dir(temp.path(), ".claude").unwrap());
    assert!(std::fs::symlink_metadata(temp.path().join(".claude")).unwrap().is_dir());
    std::os::unix::fs::symlink(temp.path().join(".claude"), temp.path().join(".codex")).unwrap();
    assert_eq!(code(ensure_dir(temp.path(), ".codex")), Code::Symlink);
    std::fs::write(temp.path().join("file"), b"").unwrap();
    assert_eq!(code(ensure_dir(temp.path(), "file")), Code::NotDirectory);
}
