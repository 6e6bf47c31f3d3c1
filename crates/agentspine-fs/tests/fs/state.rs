//! The state directory's writes: private directory, move aside, atomic
//! private file, repair lock.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use agentspine_fs::{
    Code, FsError, LockMode, ensure_private_dir, move_aside, try_lock_dir, write_private_file_atomic,
};

use crate::support::without_dac_override;

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path).unwrap().mode() & 0o7777
}

fn code<T: std::fmt::Debug>(result: Result<T, FsError>) -> Code {
    result.expect_err("expected a refusal").code()
}

#[test]
fn ensure_private_dir_creates_missing_parents_and_the_directory_0700() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("home/.local/state/agentspine");
    assert_eq!(ensure_private_dir(&dir).unwrap(), dir);
    assert!(std::fs::symlink_metadata(&dir).unwrap().is_dir());
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&temp.path().join("home/.local/state")), 0o700);
    assert_eq!(mode(&temp.path().join("home")), 0o700);
    // A second call on the existing directory is a no-op.
    assert_eq!(ensure_private_dir(&dir).unwrap(), dir);
    assert_eq!(mode(&dir), 0o700);
}

#[test]
fn ensure_private_dir_narrows_a_wider_mode_and_keeps_a_narrower_one() {
    let temp = tempfile::tempdir().unwrap();
    let wide = temp.path().join("wide");
    std::fs::create_dir(&wide).unwrap();
    std::fs::set_permissions(&wide, std::fs::Permissions::from_mode(0o777)).unwrap();
    ensure_private_dir(&wide).unwrap();
    assert_eq!(mode(&wide), 0o700);

    let narrow = temp.path().join("narrow");
    std::fs::create_dir(&narrow).unwrap();
    std::fs::set_permissions(&narrow, std::fs::Permissions::from_mode(0o500)).unwrap();
    ensure_private_dir(&narrow).unwrap();
    assert_eq!(mode(&narrow), 0o500);
}

#[test]
fn ensure_private_dir_refuses_a_link_and_leaves_its_target_alone() {
    let temp = tempfile::tempdir().unwrap();
    let target = temp.path().join("elsewhere");
    std::fs::create_dir(&target).unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o755)).unwrap();
    let link = temp.path().join("state");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    assert_eq!(code(ensure_private_dir(&link)), Code::Symlink);
    assert_eq!(mode(&target), 0o755);
    // A dangling link is refused too, and nothing is created at its target.
    let dangling = temp.path().join("dangling");
    std::os::unix::fs::symlink(temp.path().join("nowhere"), &dangling).unwrap();
    assert_eq!(code(ensure_private_dir(&dangling)), Code::Symlink);
    assert!(std::fs::symlink_metadata(temp.path().join("nowhere")).is_err());
}

#[test]
fn ensure_private_dir_allows_links_in_the_parents() {
    let temp = tempfile::tempdir().unwrap();
    std::fs::create_dir(temp.path().join("real")).unwrap();
    std::os::unix::fs::symlink(temp.path().join("real"), temp.path().join("home")).unwrap();
    ensure_private_dir(&temp.path().join("home/state")).unwrap();
    assert_eq!(mode(&temp.path().join("real/state")), 0o700);
}

#[test]
fn ensure_private_dir_refuses_a_file_a_relative_path_and_dot_dot() {
    let temp = tempfile::tempdir().unwrap();
    let file = temp.path().join("file");
    std::fs::write(&file, b"x").unwrap();
    assert_eq!(code(ensure_private_dir(&file)), Code::NotDirectory);
    assert_eq!(code(ensure_private_dir(Path::new("relative/state"))), Code::InvalidPath);
    assert_eq!(code(ensure_private_dir(&temp.path().join("a/../b"))), Code::InvalidPath);
    assert_eq!(code(ensure_private_dir(Path::new("/"))), Code::InvalidPath);
    assert!(std::fs::symlink_metadata(temp.path().join("a")).is_err());
}

#[test]
fn ensure_private_dir_refuses_a_directory_of_another_user() {
    if !rustix::process::geteuid().is_root() {
        eprintln!("skipped: only root can give a directory to another uid");
        return;
    }
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("theirs");
    std::fs::create_dir(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::chown(&dir, Some(54321), None).unwrap();
    let err = ensure_private_dir(&dir).unwrap_err();
    assert_eq!(err.code(), Code::Io);
    assert!(err.to_string().contains("owned by uid 54321"), "{err}");
    // Its mode is not ours to fix.
    assert_eq!(mode(&dir), 0o755);
}

#[test]
fn ensure_private_dir_opens_an_existing_directory_in_a_parent_it_cannot_write() {
    let temp = tempfile::tempdir().unwrap();
    let parent = temp.path().join("parent");
    std::fs::create_dir_all(parent.join("state")).unwrap();
    std::fs::set_permissions(parent.join("state"), std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::set_permissions(&parent, std::fs::Permissions::from_mode(0o500)).unwrap();
    let dir = parent.join("state");
    let opened = without_dac_override(move || ensure_private_dir(&dir).map(|_| ()).map_err(|e| e.code()));
    assert_eq!(opened, Ok(()));
    // Where nothing exists, the creation error is what is reported.
    let missing = parent.join("missing");
    assert_eq!(without_dac_override(move || code(ensure_private_dir(&missing))), Code::PermissionDenied);
    std::fs::set_permissions(&parent, std::fs::Permissions::from_mode(0o700)).unwrap();
}

#[test]
fn move_aside_renames_within_the_directory_and_never_replaces() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    std::fs::write(dir.join("state.db"), b"garbage").unwrap();
    move_aside(dir, "state.db", "state.db.corrupt-1").unwrap();
    assert!(std::fs::symlink_metadata(dir.join("state.db")).is_err());
    assert_eq!(std::fs::read(dir.join("state.db.corrupt-1")).unwrap(), b"garbage");

    std::fs::write(dir.join("state.db"), b"second").unwrap();
    assert_eq!(code(move_aside(dir, "state.db", "state.db.corrupt-1")), Code::Io);
    assert_eq!(std::fs::read(dir.join("state.db.corrupt-1")).unwrap(), b"garbage");
    assert_eq!(std::fs::read(dir.join("state.db")).unwrap(), b"second");

    assert_eq!(code(move_aside(dir, "missing", "other")), Code::NotFound);
}

#[test]
fn move_aside_moves_a_link_itself_not_its_target() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("state");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(temp.path().join("target"), b"target").unwrap();
    std::os::unix::fs::symlink(temp.path().join("target"), dir.join("state.db")).unwrap();
    move_aside(&dir, "state.db", "aside").unwrap();
    assert!(std::fs::symlink_metadata(dir.join("aside")).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read(temp.path().join("target")).unwrap(), b"target");
}

#[test]
fn move_aside_refuses_paths_for_names_and_a_linked_directory() {
    let temp = tempfile::tempdir().unwrap();
    let real = temp.path().join("real");
    std::fs::create_dir(&real).unwrap();
    std::fs::write(real.join("a"), b"a").unwrap();
    for (name, new_name) in [("../x", "y"), ("a", "../y"), ("a", "sub/y"), ("", "y"), ("a", ".."), (".", "y")]
    {
        assert_eq!(code(move_aside(&real, name, new_name)), Code::InvalidPath, "{name} -> {new_name}");
    }
    let link = temp.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    assert_eq!(code(move_aside(&link, "a", "b")), Code::Symlink);
    assert_eq!(std::fs::read(real.join("a")).unwrap(), b"a");
}

#[test]
fn write_private_file_atomic_writes_0600_replaces_whole_and_leaves_no_temp() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    write_private_file_atomic(dir, "key", b"first").unwrap();
    assert_eq!(std::fs::read(dir.join("key")).unwrap(), b"first");
    assert_eq!(mode(&dir.join("key")), 0o600);
    let before = std::fs::symlink_metadata(dir.join("key")).unwrap().ino();
    write_private_file_atomic(dir, "key", b"second, longer").unwrap();
    assert_eq!(std::fs::read(dir.join("key")).unwrap(), b"second, longer");
    // Replaced by rename: a new inode, never rewritten in place.
    assert_ne!(std::fs::symlink_metadata(dir.join("key")).unwrap().ino(), before);
    let names: Vec<_> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(names, ["key"]);
}

#[test]
fn write_private_file_atomic_replaces_a_link_without_writing_through_it() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("state");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(temp.path().join("victim"), b"victim").unwrap();
    std::os::unix::fs::symlink(temp.path().join("victim"), dir.join("key")).unwrap();
    write_private_file_atomic(&dir, "key", b"key").unwrap();
    assert!(std::fs::symlink_metadata(dir.join("key")).unwrap().is_file());
    assert_eq!(std::fs::read(dir.join("key")).unwrap(), b"key");
    assert_eq!(std::fs::read(temp.path().join("victim")).unwrap(), b"victim");

    let link = temp.path().join("link");
    std::os::unix::fs::symlink(&dir, &link).unwrap();
    assert_eq!(code(write_private_file_atomic(&link, "key", b"no")), Code::Symlink);
    assert_eq!(code(write_private_file_atomic(&dir, "../key", b"no")), Code::InvalidPath);
    assert_eq!(std::fs::read(dir.join("key")).unwrap(), b"key");
}

#[test]
fn dir_lock_exclusive_excludes_everyone_and_shared_excludes_exclusive() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    let first = try_lock_dir(dir, LockMode::Exclusive).unwrap().expect("free at first");
    assert!(try_lock_dir(dir, LockMode::Exclusive).unwrap().is_none());
    assert!(try_lock_dir(dir, LockMode::Shared).unwrap().is_none());
    drop(first);
    let a = try_lock_dir(dir, LockMode::Shared).unwrap().expect("free again");
    let b = try_lock_dir(dir, LockMode::Shared).unwrap().expect("shared with a shared holder");
    assert!(try_lock_dir(dir, LockMode::Exclusive).unwrap().is_none());
    drop((a, b));
    assert!(try_lock_dir(dir, LockMode::Exclusive).unwrap().is_some());
    let link = temp.path().join("link");
    std::os::unix::fs::symlink(temp.path(), &link).unwrap();
    assert_eq!(code(try_lock_dir(&link, LockMode::Shared)), Code::Symlink);
}
