//! Human output reads as English (`1 read`, not `1 reads`), and a reader
//! that goes away (`agentspine ... | head`) ends the command quietly.

use std::process::Stdio;

use crate::support::Example;

#[test]
fn counts_of_one_are_singular() {
    let ex = Example::new();
    let out = ex.stdout(&ex.run(".", &["source-status"]));
    let work = out.lines().find(|l| l.starts_with("work ")).unwrap().to_owned();
    assert!(work.contains(" 1 read (") && !work.contains("1 reads"), "{work}");
    let out = ex.stdout(&ex.run(".", &["resolve", "--format", "text", "--explain"]));
    let work = out.lines().find(|l| l.starts_with("File system work:")).unwrap().to_owned();
    assert!(work.contains(" 1 read (") && !work.contains("1 reads"), "{work}");
}

#[test]
fn a_closed_stdout_ends_the_command_with_success_and_no_panic() {
    let ex = Example::new();
    for args in [&["source-status", "--json"][..], &["resolve", "--json"], &["bindings"]] {
        let mut child = ex.command(".", args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    }
}

#[test]
fn memory_and_cache_counts_of_one_are_singular() {
    let ex = Example::new();
    let dir = ex.dir.path().join("one");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("MEMORY.md"), "- [Style](style.md) <!-- agentspine:always -->\n").unwrap();
    std::fs::write(dir.join("style.md"), "Short sentences.\n").unwrap();
    let dir = dir.to_str().unwrap();
    let out = ex.stdout(&ex.run(".", &["memory", "--memory-dir", dir]));
    let index = out.lines().find(|l| l.starts_with("index ")).unwrap();
    assert!(index.ends_with(", 1 link"), "{index}");
    let report = out.lines().find(|l| l.starts_with("Report: ")).unwrap();
    assert!(report.contains("; cache 0 hits, 1 miss;"), "{report}");
    let stats = ex.stdout(&ex.run(".", &["cache", "stats"]));
    assert!(
        stats.starts_with("1 snapshot, ") && stats.contains(" bytes (of 16 MiB), 1 directory, in "),
        "{stats}"
    );
}
