//! Target chains: the complete chain for one file's directory, which
//! replaces the base chain whole, and clear refusals for bad targets.

use agentspine_core::{Host, Request, ResolveError, render_native};

use crate::support::{Project, labels, verdict_of};

fn siblings() -> Project {
    let p = Project::git();
    p.file("AGENTS.md", "root\n");
    p.file("a/AGENTS.md", "a rules\n").file("a/x.rs", "x\n");
    p.file("b/AGENTS.md", "b rules\n").file("b/y.rs", "y\n");
    p
}

fn target(p: &Project, host: Host, target: &str) -> Request {
    Request { target: Some(p.tree.join(target)), ..p.request(host, ".") }
}

#[test]
fn a_sibling_directory_never_leaks_into_the_next_target() {
    let p = siblings();
    for host in [Host::Desktop, Host::Generic, Host::Codex, Host::Pi, Host::Pi073] {
        let first = p.try_resolve(&target(&p, host, "a/x.rs")).unwrap();
        assert_eq!(labels(&first), vec!["AGENTS.md", "a/AGENTS.md"], "{host}");
        let second = p.try_resolve(&target(&p, host, "b/y.rs")).unwrap();
        assert_eq!(labels(&second), vec!["AGENTS.md", "b/AGENTS.md"], "{host}");
        assert!(!render_native(&second).contains("a rules"), "{host}");
        assert_eq!(second.chain_dir, "b");
    }
}

#[test]
fn a_directory_target_is_its_own_chain_end() {
    let p = siblings();
    let r = p.try_resolve(&target(&p, Host::Desktop, "a")).unwrap();
    assert_eq!(labels(&r), vec!["AGENTS.md", "a/AGENTS.md"]);
    let relative = Request { target: Some("b/y.rs".into()), ..p.request(Host::Desktop, ".") };
    assert_eq!(
        labels(&p.try_resolve(&relative).unwrap()),
        vec!["AGENTS.md", "b/AGENTS.md"],
        "relative to the cwd"
    );
}

#[test]
fn bad_targets_are_refused_with_the_path_and_the_reason() {
    let p = siblings();
    std::fs::write(p.dir.path().join("outside.rs"), "x").unwrap();
    p.symlink("link", p.tree.join("a"));
    let cases = [
        (p.dir.path().join("outside.rs"), "outside the project root"),
        (p.tree.join("a/../../outside.rs"), "outside the project root"),
        (p.tree.join("link/x.rs"), "a symbolic link is on the path"),
        (p.tree.join("link"), "a symbolic link is on the path"),
    ];
    for (path, reason) in cases {
        let request = Request { target: Some(path.clone()), ..p.request(Host::Desktop, ".") };
        let err = p.try_resolve(&request).unwrap_err();
        let message = err.to_string();
        assert!(message.contains(reason), "{}: {message}", path.display());
        assert!(message.starts_with(&path.display().to_string()), "{message}");
        assert!(!matches!(err, ResolveError::Fs(_)), "{message}");
    }
}

#[test]
fn claude_path_rules_join_only_for_a_matching_target() {
    let p = Project::git();
    p.file("CLAUDE.md", "root\n");
    p.file(".claude/rules/api.md", "---\npaths:\n  - \"api/**\"\n---\napi rule\n");
    p.file("api/h.rs", "x").file("web/c.ts", "x");
    let hit = p.try_resolve(&target(&p, Host::Claude, "api/h.rs")).unwrap();
    assert_eq!(labels(&hit), vec!["CLAUDE.md", ".claude/rules/api.md"]);
    let miss = p.try_resolve(&target(&p, Host::Claude, "web/c.ts")).unwrap();
    assert_eq!(labels(&miss), vec!["CLAUDE.md"]);
    assert_eq!(verdict_of(&miss, ".claude/rules/api.md"), "paths-not-matched");
    let base = p.resolve(Host::Claude, ".");
    assert_eq!(
        verdict_of(&base, ".claude/rules/api.md"),
        "paths-not-matched",
        "no target: not loaded at start"
    );
}

#[test]
fn a_cwd_outside_an_explicit_root_is_refused() {
    let p = siblings();
    let request = Request { root: Some(p.tree.join("a")), ..p.request(Host::Desktop, "b") };
    let message = p.try_resolve(&request).unwrap_err().to_string();
    assert!(message.contains("is outside the project root"), "{message}");
}

#[test]
fn a_target_not_created_yet_takes_its_nearest_existing_directory() {
    let p = siblings();
    for (target, dir) in [("a/new.rs", "a"), ("a/new/deeper/x.rs", "a"), ("nowhere/x.rs", ".")] {
        let request = Request { target: Some(p.tree.join(target)), ..p.request(Host::Desktop, ".") };
        assert_eq!(p.try_resolve(&request).unwrap().chain_dir, dir, "{target}");
    }
    // A file used as a directory is refused, naming the file.
    p.file("a/f.rs", "x");
    let request = Request { target: Some(p.tree.join("a/f.rs/x.rs")), ..p.request(Host::Desktop, ".") };
    let err = p.try_resolve(&request).unwrap_err();
    assert!(matches!(err, ResolveError::NotADirectory { .. }), "{err}");
    assert!(err.to_string().contains("a/f.rs: not a directory"), "{err}");
}

#[test]
fn claude_path_rules_match_a_file_about_to_be_written() {
    let p = Project::git();
    p.file("CLAUDE.md", "root\n");
    p.file(".claude/rules/api.md", "---\npaths:\n  - \"api/**\"\n---\napi rule\n");
    p.file("api/h.rs", "x");
    let new = p.try_resolve(&target(&p, Host::Claude, "api/new/handler.rs")).unwrap();
    assert_eq!(labels(&new), vec!["CLAUDE.md", ".claude/rules/api.md"]);
    assert_eq!(new.chain_dir, "api");
}

/// A tool call resolves two chains in one run: the session's (what the
/// host loaded at start) and the target's. With the reader a hook run
/// uses, the files both chains hold are read once and the second chain
/// takes the version the first read, whole (Claude Code) or cut at the
/// host's byte budget (Codex); any other reader reads them twice.
#[test]
fn a_tool_call_reads_the_files_its_two_chains_share_once_per_run() {
    use agentspine_core::Resolver;
    use agentspine_fs::{Budget, Reader};

    let p = Project::git();
    p.file("CLAUDE.md", "root\n").file("CLAUDE.local.md", "mine\n").file(".claude/rules/style.md", "tabs\n");
    p.file("web/CLAUDE.md", "web\n").file("api/CLAUDE.md", "api rules\n").file("api/src/x.ts", "x\n");
    p.file("AGENTS.md", "agents root\n")
        .file("web/AGENTS.md", "agents web\n")
        .file("api/AGENTS.md", "agents api\n");
    let targets = [p.tree.join("api/src/x.ts")];
    let run = |host: Host, reader: Reader| {
        let resolver = Resolver::new(p.env(), reader);
        let delta = resolver.tool_delta(
            &p.request(host, "web"),
            &targets,
            false,
            agentspine_core::delta::ClaudeAgentsMd::Off,
        );
        let sent: Vec<(String, String)> =
            delta.send.iter().map(|x| (x.label.clone(), x.text.clone())).collect();
        (sent, resolver.reader().counters())
    };
    // Claude Code: the session chain reads CLAUDE.md, the rule,
    // CLAUDE.local.md and web/CLAUDE.md; the target chain the first three
    // again, and api/CLAUDE.md. Codex: AGENTS.md and web/AGENTS.md, then
    // AGENTS.md again and api/AGENTS.md.
    let cases = [
        (
            Host::Claude,
            ("api/CLAUDE.md", "api rules"),
            (8, 5 + 5 + 5 + 4 + 5 + 5 + 5 + 10),
            (5, 5 + 5 + 5 + 4 + 10),
        ),
        (Host::Codex, ("api/AGENTS.md", "agents api\n"), (4, 12 + 11 + 12 + 11), (3, 12 + 11 + 11)),
    ];
    for (host, (label, text), twice, once) in cases {
        let (plain_sent, plain) = run(host, Reader::new(Budget::UNLIMITED));
        let (sent, remembered) =
            run(host, Reader::new(Budget::UNLIMITED).remembering_roots().remembering_reads());
        assert_eq!(sent, vec![(label.to_owned(), text.to_owned())], "{host}");
        assert_eq!(plain_sent, sent, "{host}: the same answer with either reader");
        assert_eq!((plain.reads, plain.bytes_read), twice, "{host}");
        assert_eq!((remembered.reads, remembered.bytes_read), once, "{host}");
    }
}
