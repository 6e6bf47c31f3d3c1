//! What each session was sent: one file per session beside the database.

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, SystemTime};

use agentspine_store::{MAX_SESSION_BYTES, SESSIONS_DIR, SessionMarks};

use crate::support::StateDir;

fn sent(marks: &SessionMarks, session: &str, source: &str, sha256: &str) -> bool {
    marks.sent(session).unwrap().contains(&(source.to_owned(), sha256.to_owned()))
}

fn pair(a: &str, b: &str) -> (String, String) {
    (a.to_owned(), b.to_owned())
}

/// The session files, by name.
fn files(state: &StateDir) -> Vec<String> {
    let dir = state.dir.join(SESSIONS_DIR);
    let mut names: Vec<String> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries.map(|e| e.unwrap().file_name().into_string().unwrap()).collect(),
        Err(_) => Vec::new(),
    };
    names.sort();
    names
}

#[test]
fn mark_check_and_forget_a_session() {
    let state = StateDir::new();
    let marks = SessionMarks::open(&state.dir).unwrap();
    // Asking makes nothing.
    assert!(!sent(&marks, "s1", "src-a", "h1"));
    assert!(files(&state).is_empty());
    marks.mark_sent_all("s1", &[("src-a", "h1")]).unwrap();
    marks.mark_sent_all("s1", &[("src-a", "h1"), ("src-b", "h2")]).unwrap();
    marks.mark_sent_all("s2", &[("src-a", "h1")]).unwrap();
    assert!(sent(&marks, "s1", "src-a", "h1"));
    // Changed content is not "sent", nor another session's.
    assert!(!sent(&marks, "s1", "src-a", "h9"));
    assert!(!sent(&marks, "s3", "src-a", "h1"));
    assert_eq!(marks.sent("s1").unwrap(), [pair("src-a", "h1"), pair("src-b", "h2")].into());
    assert_eq!(marks.sent("s2").unwrap(), [pair("src-a", "h1")].into());
    // One private file per session, named by a digest, three lines in s1's.
    let names = files(&state);
    assert_eq!(names.len(), 2);
    let dir = state.dir.join(SESSIONS_DIR);
    assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777, 0o700);
    for name in &names {
        assert_eq!(name.len(), 32);
        assert_eq!(std::fs::metadata(dir.join(name)).unwrap().permissions().mode() & 0o777, 0o600);
    }
    let lines: usize =
        names.iter().map(|n| std::fs::read_to_string(dir.join(n)).unwrap().lines().count()).sum();
    assert_eq!(lines, 4);
    assert!(marks.forget("s1").unwrap());
    assert!(marks.sent("s1").unwrap().is_empty());
    assert!(!marks.forget("s1").unwrap());
    assert!(sent(&marks, "s2", "src-a", "h1"));
    // Beside the database, which has no table for them (see open.rs).
    assert!(state.names().contains(&SESSIONS_DIR.to_owned()), "{:?}", state.names());
}

#[test]
fn unsafe_pairs_are_not_written_and_a_cut_line_is_not_read() {
    let state = StateDir::new();
    let marks = SessionMarks::open(&state.dir).unwrap();
    marks.mark_sent_all("s", &[("a\tb", "h"), ("a", "h\nx"), ("", "h"), ("ok", "h")]).unwrap();
    assert_eq!(marks.sent("s").unwrap(), [pair("ok", "h")].into());
    // A run cut in the middle of its append leaves a partial line: skipped.
    let dir = state.dir.join(SESSIONS_DIR);
    let name = &files(&state)[0];
    let mut file = std::fs::OpenOptions::new().append(true).open(dir.join(name)).unwrap();
    std::io::Write::write_all(&mut file, b"cut\th").unwrap();
    assert_eq!(marks.sent("s").unwrap(), [pair("ok", "h")].into());
}

#[test]
fn a_full_session_file_takes_no_more_marks() {
    let state = StateDir::new();
    let marks = SessionMarks::open(&state.dir).unwrap();
    let sha = "0".repeat(64);
    let ids: Vec<String> = (0..(MAX_SESSION_BYTES / 70 + 10)).map(|i| format!("src-{i:06}")).collect();
    for chunk in ids.chunks(1000) {
        let pairs: Vec<(&str, &str)> = chunk.iter().map(|id| (id.as_str(), sha.as_str())).collect();
        marks.mark_sent_all("s", &pairs).unwrap();
    }
    let dir = state.dir.join(SESSIONS_DIR);
    let size = std::fs::metadata(dir.join(&files(&state)[0])).unwrap().len();
    assert!(size <= MAX_SESSION_BYTES as u64, "{size}");
    // Every line kept is whole (76 bytes each): 13 appends of 1,000 lines
    // fit in 1 MiB, the 14th and 15th are not written.
    let kept = marks.sent("s").unwrap().len();
    assert_eq!(kept, 13_000);
    assert_eq!(size, 13_000 * 76);
}

#[test]
fn old_session_files_go_once_an_hour_and_only_through_an_open_that_is_not_a_hook() {
    let state = StateDir::new();
    let marks = SessionMarks::open(&state.dir).unwrap();
    for session in ["old", "mine"] {
        marks.mark_sent_all(session, &[("src", "h")]).unwrap();
    }
    let dir = state.dir.join(SESSIONS_DIR);
    let age = |name: &str, secs: u64| {
        let file = std::fs::File::options().write(true).open(dir.join(name)).unwrap();
        file.set_modified(SystemTime::now() - Duration::from_secs(secs)).unwrap();
    };
    // Which file is whose: the one the "old" session wrote.
    let before = files(&state);
    marks.forget("old").unwrap();
    let old = before.iter().find(|n| !files(&state).contains(n)).unwrap().clone();
    marks.mark_sent_all("old", &[("src", "h")]).unwrap();
    age(&old, 7200);
    assert_eq!(marks.prune_old(3600).unwrap(), 1);
    assert!(!sent(&marks, "old", "src", "h"));
    assert!(sent(&marks, "mine", "src", "h"));
    // Within the hour the directory is not looked at again.
    marks.mark_sent_all("old", &[("src", "h")]).unwrap();
    age(&old, 7200);
    assert_eq!(marks.prune_old(3600).unwrap(), 0);
    assert!(sent(&marks, "old", "src", "h"));
    age(".pruned", 3700);
    assert_eq!(marks.prune_old(3600).unwrap(), 1);
    assert!(!sent(&marks, "old", "src", "h"));

    // A hook's open of the database never prunes; any other open does,
    // past a week.
    marks.mark_sent_all("old", &[("src", "h")]).unwrap();
    age(&old, agentspine_store::SESSION_TTL.as_secs() + 60);
    age(".pruned", 3700);
    drop(agentspine_store::Store::open_with(&state.dir, agentspine_store::OpenMode::Hook).unwrap());
    assert!(sent(&marks, "old", "src", "h"));
    drop(agentspine_store::Store::open(&state.dir).unwrap());
    assert!(!sent(&marks, "old", "src", "h"));
    assert!(sent(&marks, "mine", "src", "h"));
}

#[test]
fn a_link_or_hard_link_in_place_of_a_session_file_is_refused() {
    let state = StateDir::new();
    let marks = SessionMarks::open(&state.dir).unwrap();
    marks.mark_sent_all("s", &[("src", "h")]).unwrap();
    let dir = state.dir.join(SESSIONS_DIR);
    let name = files(&state)[0].clone();
    let outside = state.temp.path().join("outside");
    std::fs::write(&outside, "x\ty\n").unwrap();
    std::fs::remove_file(dir.join(&name)).unwrap();
    std::os::unix::fs::symlink(&outside, dir.join(&name)).unwrap();
    assert!(marks.sent("s").unwrap_err().to_string().contains("symbolic link"));
    assert!(marks.mark_sent_all("s", &[("src", "h")]).is_err());
    std::fs::remove_file(dir.join(&name)).unwrap();
    std::fs::hard_link(&outside, dir.join(&name)).unwrap();
    assert!(marks.sent("s").unwrap_err().to_string().contains("hard links"));
    assert!(marks.mark_sent_all("s", &[("src", "h")]).is_err());
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "x\ty\n");
}

/// A session file another user owns is neither read nor written (as root
/// the test hands the file to uid 65534; elsewhere it cannot, and says so).
#[test]
fn a_session_file_of_another_user_is_refused() {
    if rustix_is_root() {
        let state = StateDir::new();
        let marks = SessionMarks::open(&state.dir).unwrap();
        marks.mark_sent_all("s", &[("src", "h")]).unwrap();
        let dir = state.dir.join(SESSIONS_DIR);
        let file = dir.join(&files(&state)[0]);
        std::os::unix::fs::chown(&file, Some(65534), Some(65534)).unwrap();
        let err = marks.sent("s").unwrap_err().to_string();
        assert!(err.contains("owned by uid 65534"), "{err}");
        assert!(marks.mark_sent_all("s", &[("other", "h")]).is_err());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "src\th\n");
    } else {
        eprintln!("skipped: only root can give a file to another user");
    }
}

fn rustix_is_root() -> bool {
    std::fs::metadata("/proc/self").map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0).unwrap_or(false)
}
