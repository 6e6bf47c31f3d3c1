//! The latest report of each root and host, kept as files beside the
//! database: a report made again writes nothing, a new one replaces the
//! file whole, and nothing that is not a report file is read or written
//! through.

use agentspine_store::ReportFiles;

fn files() -> (tempfile::TempDir, ReportFiles) {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    let files = ReportFiles::open(&state).unwrap();
    (dir, files)
}

#[test]
fn the_same_report_again_writes_nothing_and_a_new_one_replaces_it() {
    let (dir, files) = files();
    let path = dir.path().join("state/reports/d1-codex");
    files.put("d1", "codex", "/p", "line one").unwrap();
    let first = files.list(None).unwrap();
    let written = std::fs::metadata(&path).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(5));
    files.put("d1", "codex", "/p", "line one").unwrap();
    let again = std::fs::metadata(&path).unwrap();
    use std::os::unix::fs::MetadataExt;
    assert_eq!(
        (again.ino(), again.mtime_nsec()),
        (written.ino(), written.mtime_nsec()),
        "nothing was written"
    );
    assert_eq!(files.list(None).unwrap(), first, "the first time stays");
    files.put("d1", "codex", "/p", "line two").unwrap();
    let now = files.list(None).unwrap();
    assert_eq!((now.len(), now[0].line.as_str()), (1, "line two"));
    assert!(now[0].at_ms > first[0].at_ms);
    assert_eq!(again.mode() & 0o777, 0o600);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path().join("state/reports")).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "no temporary file is left");
}

#[test]
fn reports_list_newest_first_by_host_and_skip_what_is_not_one() {
    let (dir, files) = files();
    files.put("d1", "codex", "/p1", "one").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(5));
    files.put("d2", "claude", "/p2", "two").unwrap();
    let reports = dir.path().join("state/reports");
    std::fs::write(reports.join("d3-codex"), b"not json").unwrap();
    std::fs::write(reports.join(".d1-codex.1.2"), b"{}").unwrap();
    std::os::unix::fs::symlink(reports.join("d1-codex"), reports.join("d4-codex")).unwrap();
    let all: Vec<String> = files.list(None).unwrap().into_iter().map(|r| r.line).collect();
    assert_eq!(all, ["two", "one"]);
    let codex: Vec<String> = files.list(Some("codex")).unwrap().into_iter().map(|r| r.line).collect();
    assert_eq!(codex, ["one"]);
    // A report under another host's name is not that host's.
    std::fs::copy(reports.join("d2-claude"), reports.join("d5-codex")).unwrap();
    assert_eq!(files.list(Some("codex")).unwrap().len(), 1);
}

#[test]
fn a_link_in_place_of_a_report_is_refused_and_left_alone() {
    let (dir, files) = files();
    let outside = dir.path().join("outside");
    std::fs::write(&outside, b"keep").unwrap();
    std::fs::create_dir_all(dir.path().join("state/reports")).unwrap();
    std::os::unix::fs::symlink(&outside, dir.path().join("state/reports/d1-codex")).unwrap();
    let e = files.put("d1", "codex", "/p", "line").unwrap_err();
    assert!(e.to_string().contains("d1-codex"), "{e}");
    assert_eq!(std::fs::read(&outside).unwrap(), b"keep");
    assert!(
        std::fs::symlink_metadata(dir.path().join("state/reports/d1-codex"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(files.put("../x", "codex", "/p", "line").is_err());
    assert!(files.put("d1", "../codex", "/p", "line").is_err());
}
