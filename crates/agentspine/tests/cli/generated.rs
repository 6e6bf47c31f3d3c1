//! The completions and the man pages checked in under `docs/` are the
//! ones the binary makes now: a flag or command added, renamed or removed
//! changes them, and this fails until they are made again with
//! `AGENTSPINE_BLESS=1 cargo test -p agentspine --test cli generated`.

use std::path::Path;
use std::process::Command;

fn made(args: &[&str]) -> Vec<u8> {
    let out = Command::new(env!("CARGO_BIN_EXE_agentspine")).args(args).env_clear().output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

#[test]
fn checked_in_completions_and_man_pages_match_the_binary() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    let bless = std::env::var_os("AGENTSPINE_BLESS").is_some();
    let mut files: Vec<(Vec<String>, String)> = [
        ("completions bash", "completions/agentspine.bash"),
        ("completions zsh", "completions/_agentspine"),
        ("completions fish", "completions/agentspine.fish"),
        ("completions powershell", "completions/agentspine.ps1"),
    ]
    .iter()
    .map(|(args, file)| (args.split(' ').map(str::to_owned).collect(), (*file).to_owned()))
    .collect();
    // Every man page the binary lists: agentspine's own in docs/, each
    // subcommand's in docs/man/.
    let list = String::from_utf8(made(&["manpage", "--list"])).unwrap();
    let mut pages = Vec::new();
    for line in list.lines() {
        let mut words = line.split(' ').map(str::to_owned);
        let file = words.next().unwrap();
        let path: Vec<String> = words.collect();
        assert_eq!(
            file,
            format!(
                "{}.1",
                ["agentspine".to_owned()].iter().chain(&path).cloned().collect::<Vec<_>>().join("-")
            )
        );
        let at = if path.is_empty() { file.clone() } else { format!("man/{file}") };
        pages.push(file);
        files.push(([vec!["manpage".to_owned()], path].concat(), at));
    }
    // One page per subcommand at every depth, and agentspine's.
    assert_eq!(pages.len(), 1 + subcommands(), "{list}");
    let mut stale = Vec::new();
    for (args, file) in &files {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let now = made(&args);
        assert!(now.len() > 300, "{file}: {} bytes", now.len());
        let path = docs.join(file);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &now).unwrap();
        } else if std::fs::read(&path).ok().as_deref() != Some(now.as_slice()) {
            stale.push(file.clone());
        }
    }
    // A page of a command that is gone is stale too.
    for entry in std::fs::read_dir(docs.join("man")).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if !pages.contains(&name) {
            if bless {
                std::fs::remove_file(entry.path()).unwrap();
            } else {
                stale.push(format!("man/{name} (no such command)"));
            }
        }
    }
    assert_eq!(
        stale,
        Vec::<String>::new(),
        "stale: run AGENTSPINE_BLESS=1 cargo test -p agentspine --test cli generated"
    );
}

/// How many visible subcommands at every depth `agentspine --help` and
/// each command's own `--help` list.
fn subcommands() -> usize {
    fn count(path: &[String]) -> usize {
        let args: Vec<&str> = path.iter().map(String::as_str).chain(["--help"]).collect();
        let help = String::from_utf8(made(&args)).unwrap();
        let Some(section) = help.split("Commands:\n").nth(1) else { return 0 };
        let names: Vec<String> = section
            .lines()
            .take_while(|l| l.starts_with("  "))
            .filter(|l| !l.starts_with("   "))
            .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
            .filter(|name| name != "help")
            .collect();
        names.iter().map(|name| 1 + count(&[path.to_vec(), vec![name.clone()]].concat())).sum()
    }
    count(&[])
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
