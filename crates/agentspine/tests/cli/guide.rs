//! GUIDE.md's walk-through runs as written: every `$ agentspine …` line of
//! its console blocks (continuation lines joined) runs from the repository
//! root with a fresh home and state directory, in order, and exits as the
//! guide says (0, or the code of a trailing `# exit N` comment, which is
//! not passed on). Lines with a placeholder (`…`) are the ones a reader
//! fills in. `tests/docs/commands.py` runs every command of README.md and
//! GUIDE.md the same way, shell lines included, on a copy of the examples.

use std::path::Path;

/// The commands of GUIDE.md, each with the exit code the guide gives it.
fn commands(guide: &str) -> Vec<(String, i32)> {
    let mut out = Vec::new();
    let mut lines = guide.lines();
    let mut in_console = false;
    while let Some(line) = lines.next() {
        if line.starts_with("```") {
            in_console = line == "```console";
            continue;
        }
        let Some(command) = line.strip_prefix("$ agentspine").filter(|_| in_console) else { continue };
        let mut command = command.to_owned();
        while command.ends_with('\\') {
            command.pop();
            command.push_str(lines.next().unwrap_or_default().trim());
        }
        let (command, exit) = match command.split_once(" # ") {
            Some((command, comment)) => {
                let code = comment.trim().strip_prefix("exit ").and_then(|c| c.trim().parse().ok());
                (command.trim_end().to_owned(), code.unwrap_or(0))
            }
            None => (command, 0),
        };
        out.push((command, exit));
    }
    out
}

/// Splits a command line as a shell would for these (double quotes only).
fn words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in command.chars() {
        match c {
            '"' => quoted = !quoted,
            ' ' if !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

#[test]
fn the_walk_through_runs_as_written() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let guide = std::fs::read_to_string(repo.join("GUIDE.md")).unwrap();
    let scratch = tempfile::Builder::new().tempdir_in("/tmp").unwrap();
    let commands = commands(&guide);
    let mut ran = 0;
    for (command, expected) in &commands {
        if command.contains('…') {
            continue;
        }
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_agentspine"))
            .args(words(command))
            .current_dir(&repo)
            .env_clear()
            .env("HOME", scratch.path())
            .env("AGENTSPINE_STATE_DIR", scratch.path().join("state"))
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(*expected),
            "agentspine{command}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        ran += 1;
    }
    // The guide's walk-through: the count changes only with the guide.
    assert_eq!((commands.len(), ran), (20, 19));
}

/// The README's host table names, for each host, the version its profile
/// was verified on (the file the parity suite installs from).
#[test]
fn the_readme_names_each_verified_version() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")).unwrap();
    let table: Vec<&str> = readme.lines().filter(|l| l.starts_with("| ")).collect();
    for host in agentspine_core::Host::ALL {
        for version in host.profile().verified() {
            let named = format!("(`{host}`, {version})");
            assert!(
                table.iter().any(|row| row.contains(&named)),
                "README's host table does not say {host} was verified on {version}"
            );
        }
    }
}
