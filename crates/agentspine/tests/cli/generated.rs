//! The completions and the man page checked in under `docs/` are the ones
//! the binary makes now: a flag added, renamed or removed changes them,
//! and this fails until they are made again with
//! `AGENTSPINE_BLESS=1 cargo test -p agentspine --test cli generated`.

use std::path::Path;
use std::process::Command;

fn made(args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_agentspine")).args(args).env_clear().output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

#[test]
fn checked_in_completions_and_man_page_match_the_binary() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    let files = [
        (vec!["completions", "bash"], "completions/agentspine.bash"),
        (vec!["completions", "zsh"], "completions/_agentspine"),
        (vec!["completions", "fish"], "completions/agentspine.fish"),
        (vec!["completions", "powershell"], "completions/agentspine.ps1"),
        (vec!["manpage"], "agentspine.1"),
    ];
    let mut stale = Vec::new();
    for (args, file) in files {
        let now = made(&args);
        assert!(now.len() > 1000, "{file}: {} bytes", now.len());
        let path = docs.join(file);
        if std::env::var_os("AGENTSPINE_BLESS").is_some() {
            std::fs::write(&path, &now).unwrap();
        } else if std::fs::read(&path).ok().as_deref() != Some(now.as_slice()) {
            stale.push(file);
        }
    }
    assert_eq!(
        stale,
        Vec::<&str>::new(),
        "stale: run AGENTSPINE_BLESS=1 cargo test -p agentspine --test cli generated"
    );
}

#[test]
fn completions_know_every_command_and_the_shared_flags() {
    let bash = String::from_utf8(made(&["completions", "bash"])).unwrap();
    for word in ["bindings", "source-bind", "--all-hosts", "--limit", "--settings", "--quiet", "--color"] {
        assert!(bash.contains(word), "{word}");
    }
    // Old spellings are hidden from completion.
    assert!(!bash.contains("--k "), "--k");
}
