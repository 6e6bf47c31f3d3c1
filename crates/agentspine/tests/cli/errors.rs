//! Every error path a user can reach from the command line, driven once
//! for people and once with `--json`: the line names the argument or file,
//! the cause and the next step; the JSON has a code from the table of
//! `docs/cli.md` (never `unclassified`) and the documented exit code.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

use crate::support::Example;

/// `(what, args)`: each an error on purpose.
fn cases(ex: &Example) -> Vec<(&'static str, Vec<OsString>)> {
    let os = |args: &[&str]| args.iter().map(OsString::from).collect::<Vec<_>>();
    let mut non_utf8 = os(&["resolve", "--cwd"]);
    non_utf8.push(OsString::from_vec(b"packages/\xffapi".to_vec()));
    let tree = ex.tree.display().to_string();
    // Projects whose own configuration file cannot be used.
    let hostile = |name: &str| {
        let dir = ex.dir.path().join(name);
        std::fs::create_dir_all(dir.join(".git")).unwrap();
        dir
    };
    let fifo = hostile("fifo-config");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        fifo.join(".agentspine.toml").as_path(),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    let linked = hostile("linked-config");
    std::fs::write(ex.dir.path().join("secret.toml"), "[check]\n").unwrap();
    std::os::unix::fs::symlink("../secret.toml", linked.join(".agentspine.toml")).unwrap();
    let malformed = hostile("malformed-config");
    std::fs::write(malformed.join(".agentspine.toml"), "[[check.silence]]\nid = 1\n").unwrap();
    std::os::unix::fs::symlink(ex.tree.join("packages"), ex.tree.join("memory-link")).unwrap();
    let root_of = |dir: &std::path::Path| os(&["check", "--root", dir.to_str().unwrap()]);
    vec![
        ("an unknown flag", os(&["resolve", "--nope"])),
        ("an unknown command", os(&["frobnicate"])),
        ("a missing argument", os(&["read"])),
        ("a value not taken", os(&["resolve", "--host", "vim"])),
        ("a flag given twice", os(&["resolve", "--format", "native", "--format", "text"])),
        ("a path that is not UTF-8", non_utf8),
        ("a root that does not exist", os(&["resolve", "--root", "/nonexistent/dir"])),
        ("a root that is a file", os(&["resolve", "--root", "AGENTS.md"])),
        ("a cwd outside the root", os(&["resolve", "--root", "packages/api", "--cwd", "packages/web"])),
        ("a target outside the root", os(&["resolve", "--target", "/etc/passwd"])),
        ("memory of a host that keeps none", os(&["memory"])),
        ("a memory directory that is a file", os(&["memory", "--memory-dir", "AGENTS.md"])),
        ("a memory directory through a link", os(&["memory", "--memory-dir", "memory-link"])),
        ("a repository config that is a FIFO", root_of(&fifo)),
        ("a repository config linked out of the project", root_of(&linked)),
        ("a repository config that is not as documented", root_of(&malformed)),
        ("no memory directory found", os(&["memory", "--host", "claude"])),
        ("a bad scope id", os(&["briefing", "--scope", "blun"])),
        ("an id of no catalog", os(&["read", "src_000000000000000000000000"])),
        ("a bind missing flags", os(&["source-bind", &tree])),
        ("a bad binding id", os(&["source-rollback", "binding:zz", "--confirm-local-binding"])),
        (
            "a binding that does not exist",
            os(&["source-purge", "binding:0123abcd", "--confirm-local-binding"]),
        ),
        ("a time that is not one", os(&["audit", "--since", "yesterday"])),
        ("a record that does not exist", os(&["record", "accept", "99"])),
        ("a record kind that does not exist", os(&["record", "add", "--kind", "wish", "text"])),
        ("install where the host has no such settings", os(&["install", "codex", "--settings", "project"])),
        ("install from a cargo build directory", os(&["install", "claude"])),
    ]
}

/// `text` with the binary under test's path (in this machine's build
/// directory) as `[BIN]`.
fn unbin(text: &str) -> String {
    text.replace(env!("CARGO_BIN_EXE_agentspine"), "[BIN]")
}

/// The codes the docs list.
fn documented() -> Vec<String> {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/cli.md")).unwrap();
    let section = doc.split("\n## ").find(|s| s.starts_with("Error codes")).unwrap();
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .flat_map(|l| {
            l.split('|').nth(1).unwrap().split('`').skip(1).step_by(2).map(str::to_owned).collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn every_error_names_its_cause_and_has_a_documented_code() {
    let ex = Example::new();
    let documented = documented();
    let mut report = String::new();
    for (what, args) in cases(&ex) {
        let text = std::process::Command::new(env!("CARGO_BIN_EXE_agentspine"))
            .args(&args)
            .current_dir(&ex.tree)
            .env_clear()
            .env("HOME", &ex.home)
            .env("AGENTSPINE_STATE_DIR", &ex.state)
            .output()
            .unwrap();
        let mut with_json = args.clone();
        with_json.push("--json".into());
        let json = std::process::Command::new(env!("CARGO_BIN_EXE_agentspine"))
            .args(&with_json)
            .current_dir(&ex.tree)
            .env_clear()
            .env("HOME", &ex.home)
            .env("AGENTSPINE_STATE_DIR", &ex.state)
            .output()
            .unwrap();
        assert_eq!(text.status.code(), Some(2), "{what}: exit code");
        assert_eq!(json.status.code(), Some(2), "{what}: exit code with --json");
        assert!(text.stdout.is_empty(), "{what}: nothing on stdout without --json");
        let value: serde_json::Value = serde_json::from_str(
            &ex.filter(&unbin(&String::from_utf8_lossy(&json.stdout))),
        )
        .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {}", String::from_utf8_lossy(&json.stdout)));
        let code = value["error"]["code"].as_str().unwrap_or_default().to_owned();
        assert!(
            code != "unclassified" && documented.contains(&code),
            "{what}: code {code:?} is not documented"
        );
        let first = ex
            .filter(&unbin(&String::from_utf8_lossy(&text.stderr)))
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned();
        report.push_str(&format!("{what}\n  {first}\n  {value}\n"));
    }
    insta::assert_snapshot!(report, @r#"
    an unknown flag
      error: unexpected argument '--nope' found
      {"error":{"code":"unknown-argument","message":"unexpected argument '--nope' found; see `agentspine resolve --help`"}}
    an unknown command
      error: unrecognized subcommand 'frobnicate'
      {"error":{"code":"unknown-command","message":"unrecognized subcommand 'frobnicate'; see `agentspine --help`"}}
    a missing argument
      error: the following required arguments were not provided:
      {"error":{"code":"missing-argument","message":"the following required arguments were not provided: <SOURCE_ID>; see `agentspine read --help`"}}
    a value not taken
      error: invalid value 'vim' for '--host <HOST>'
      {"error":{"code":"invalid-value","message":"invalid value 'vim' for '--host <HOST>'; one of codex, claude, gemini, pi, pi-0.73, opencode, kimi, copilot, desktop, generic; see `agentspine resolve --help`"}}
    a flag given twice
      error: the argument '--format <FORMAT>' cannot be used multiple times
      {"error":{"code":"conflicting-arguments","message":"the argument '--format <FORMAT>' cannot be used multiple times; see `agentspine resolve --help`"}}
    a path that is not UTF-8
      error: --cwd packages/�api: the path is not valid UTF-8, and agentspine names every path it works with in UTF-8 text; rename the directory, or run from inside it and leave --cwd out
      {"error":{"code":"not-utf8","message":"--cwd packages/�api: the path is not valid UTF-8, and agentspine names every path it works with in UTF-8 text; rename the directory, or run from inside it and leave --cwd out; see `agentspine resolve --help`"}}
    a root that does not exist
      agentspine: /nonexistent/dir: no such directory; check the directory given to --root or --cwd
      {"error":{"code":"no-such-directory","message":"/nonexistent/dir: no such directory; check the directory given to --root or --cwd","path":"/nonexistent/dir"}}
    a root that is a file
      agentspine: [TREE]/AGENTS.md: not a directory; check the directory given to --root or --cwd
      {"error":{"code":"not-a-directory","message":"[TREE]/AGENTS.md: not a directory; check the directory given to --root or --cwd","path":"[TREE]/AGENTS.md"}}
    a cwd outside the root
      agentspine: the working directory [TREE]/packages/web is outside the project root [TREE]/packages/api; give a --cwd inside --root, or leave one of them out
      {"error":{"code":"cwd-outside-root","message":"the working directory [TREE]/packages/web is outside the project root [TREE]/packages/api; give a --cwd inside --root, or leave one of them out","path":"[TREE]/packages/web"}}
    a target outside the root
      agentspine: /etc/passwd: outside the project root [TREE]; agentspine resolves nothing there; give a --target inside the project root, or a --root that contains it
      {"error":{"code":"target-outside-root","message":"/etc/passwd: outside the project root [TREE]; agentspine resolves nothing there; give a --target inside the project root, or a --root that contains it","path":"/etc/passwd"}}
    memory of a host that keeps none
      agentspine: --host generic: this host keeps no memory directory agentspine reads; pass --host claude, or name the directory with --memory-dir DIR
      {"error":{"code":"host-without-memory","message":"--host generic: this host keeps no memory directory agentspine reads; pass --host claude, or name the directory with --memory-dir DIR"}}
    a memory directory that is a file
      agentspine: --memory-dir [TREE]/AGENTS.md: not a directory; name the directory that holds MEMORY.md (Claude Code's is ~/.claude/projects/<encoded project path>/memory)
      {"error":{"code":"memory-dir-not-a-directory","message":"--memory-dir [TREE]/AGENTS.md: not a directory; name the directory that holds MEMORY.md (Claude Code's is ~/.claude/projects/<encoded project path>/memory)","path":"[TREE]/AGENTS.md"}}
    a memory directory through a link
      agentspine: --memory-dir [TREE]/memory-link: refused: [TREE]/memory-link is a symbolic link; agentspine never reads a memory directory through a link (name the directory it points to)
      {"error":{"code":"memory-dir-through-link","message":"--memory-dir [TREE]/memory-link: refused: [TREE]/memory-link is a symbolic link; agentspine never reads a memory directory through a link (name the directory it points to)","path":"[TREE]/memory-link"}}
    a repository config that is a FIFO
      agentspine: [TMP]/fifo-config/.agentspine.toml: not read: it is a FIFO, not a regular file; make it a regular file, or remove it
      {"error":{"code":"config-unreadable","message":"[TMP]/fifo-config/.agentspine.toml: not read: it is a FIFO, not a regular file; make it a regular file, or remove it","path":"[TMP]/fifo-config/.agentspine.toml"}}
    a repository config linked out of the project
      agentspine: [TMP]/linked-config/.agentspine.toml: not read: it is a link out of its directory's tree (to ../secret.toml), which is never read through; make it a regular file, or remove it
      {"error":{"code":"config-unreadable","message":"[TMP]/linked-config/.agentspine.toml: not read: it is a link out of its directory's tree (to ../secret.toml), which is never read through; make it a regular file, or remove it","path":"[TMP]/linked-config/.agentspine.toml"}}
    a repository config that is not as documented
      agentspine: [TMP]/malformed-config/.agentspine.toml: each check.silence entry needs a string id and a string path
      {"error":{"code":"config-malformed","message":"[TMP]/malformed-config/.agentspine.toml: each check.silence entry needs a string id and a string path","path":"[TMP]/malformed-config/.agentspine.toml"}}
    no memory directory found
      agentspine: [TREE]: no Claude Code memory directory for this project (no autoMemoryDirectory, no CLAUDE_CODE_PROJECT_DIR_NAME, and no projects/<encoded path>/memory in the config home); give one with --memory-dir DIR
      {"error":{"code":"no-memory-dir","message":"[TREE]: no Claude Code memory directory for this project (no autoMemoryDirectory, no CLAUDE_CODE_PROJECT_DIR_NAME, and no projects/<encoded path>/memory in the config home); give one with --memory-dir DIR","path":"[TREE]"}}
    a bad scope id
      agentspine: --scope: "blun" is not a scope id: use person:ID, project:ID, group:ID or task:ID
      {"error":{"code":"bad-scope-id","message":"--scope: \"blun\" is not a scope id: use person:ID, project:ID, group:ID or task:ID"}}
    an id of no catalog
      agentspine: src_[0]: not a source of any catalog of [TREE] (tried --host generic, --host codex, --host claude, --host gemini, --host pi, --host pi-0.73, --host opencode, --host kimi, --host copilot, --host desktop, --host generic --markdown); an id printed with --prompt, --scope or --target is found with the same flags here, and ids come from `agentspine briefing`, `agentspine query` or the MCP tools
      {"error":{"code":"unknown-source-id","message":"src_[0]: not a source of any catalog of [TREE] (tried --host generic, --host codex, --host claude, --host gemini, --host pi, --host pi-0.73, --host opencode, --host kimi, --host copilot, --host desktop, --host generic --markdown); an id printed with --prompt, --scope or --target is found with the same flags here, and ids come from `agentspine briefing`, `agentspine query` or the MCP tools"}}
    a bind missing flags
      agentspine: source-bind refused: missing --host HOST (one of claude, codex, gemini, pi, desktop) or --all-hosts, --project DIR (the project you are binding from), --host-home DIR (the host profile you are binding from, e.g. ~/.claude), --confirm-local-binding (a binding changes what your agents are told in every project)
      {"error":{"code":"missing-flags","message":"source-bind refused: missing --host HOST (one of claude, codex, gemini, pi, desktop) or --all-hosts, --project DIR (the project you are binding from), --host-home DIR (the host profile you are binding from, e.g. ~/.claude), --confirm-local-binding (a binding changes what your agents are told in every project)"}}
    a bad binding id
      agentspine: source-rollback refused: "binding:zz" is not a binding id; expected binding:ID as `agentspine source-bind` or `agentspine bindings` printed it
      {"error":{"code":"bad-binding-id","message":"source-rollback refused: \"binding:zz\" is not a binding id; expected binding:ID as `agentspine source-bind` or `agentspine bindings` printed it"}}
    a binding that does not exist
      agentspine: source-purge refused: there is no binding:0123abcd (`agentspine audit` lists binding events)
      {"error":{"code":"binding-refused","message":"source-purge refused: there is no binding:0123abcd (`agentspine audit` lists binding events)"}}
    a time that is not one
      agentspine: --since "yesterday": expected an age such as 15m, 2h or 7d, a date such as 2026-11-30, or a UTC time such as 2026-11-30T05:00:00Z
      {"error":{"code":"bad-time","message":"--since \"yesterday\": expected an age such as 15m, 2h or 7d, a date such as 2026-11-30, or a UTC time such as 2026-11-30T05:00:00Z"}}
    a record that does not exist
      agentspine: there is no record 99 in this project (`agentspine record list` shows them)
      {"error":{"code":"bad-record","message":"there is no record 99 in this project (`agentspine record list` shows them)"}}
    a record kind that does not exist
      error: invalid value 'wish' for '--kind <KIND>'
      {"error":{"code":"invalid-value","message":"invalid value 'wish' for '--kind <KIND>'; one of preference, no-go, correction, reference, person-relationship, project-fact, task, attention-event, group-private, delegation-policy, execution-grant, job, secret, trust-material; see `agentspine record add --help`"}}
    install where the host has no such settings
      agentspine: Codex has no project settings here: drop `--settings project`
      {"error":{"code":"install-refused","message":"Codex has no project settings here: drop `--settings project`"}}
    install from a cargo build directory
      agentspine: [BIN] is in a cargo build directory, which the next build replaces and `cargo clean` deletes; hooks naming it would then fail without a word. Install agentspine first (`cargo install --locked --path crates/agentspine`, npm or a release binary) and run `agentspine install` from there, or, to develop agentspine itself, name the program with `--command [BIN]`
      {"error":{"code":"install-from-build-directory","message":"[BIN] is in a cargo build directory, which the next build replaces and `cargo clean` deletes; hooks naming it would then fail without a word. Install agentspine first (`cargo install --locked --path crates/agentspine`, npm or a release binary) and run `agentspine install` from there, or, to develop agentspine itself, name the program with `--command [BIN]`","path":"[BIN]"}}
    "#);
}
