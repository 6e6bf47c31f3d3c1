//! Bad input: unreadable directories, malformed configuration, special
//! files, import cycles and floods. Each gives a clear, bounded outcome.

use std::sync::Arc;
use std::time::Duration;

use agentspine_core::Host;

use crate::support::{Project, chmod, labels, verdict_of, without_dac_override};

#[test]
fn an_unreadable_directory_mid_chain_is_skipped_and_the_rest_resolves() {
    let p = Arc::new(Project::git());
    p.file("AGENTS.md", "root\n").file("CLAUDE.md", "root claude\n");
    p.file("locked/AGENTS.md", "locked\n").file("locked/CLAUDE.md", "locked claude\n");
    chmod(&p.tree.join("locked"), 0o000);
    for host in [Host::Codex, Host::Claude, Host::Desktop, Host::Generic, Host::Pi, Host::Pi073] {
        let p2 = p.clone();
        let r = without_dac_override(move || p2.resolve(host, "locked"));
        let candidate = if host == Host::Claude { "locked/CLAUDE.md" } else { "locked/AGENTS.md" };
        assert_eq!(verdict_of(&r, candidate), "permission-denied", "{host}");
        assert!(!labels(&r).iter().any(|l| l.starts_with("locked/")), "{host}: {:?}", labels(&r));
        assert!(!r.parts.is_empty(), "{host}: the root's file still resolves");
    }
    chmod(&p.tree.join("locked"), 0o755);
}

#[test]
fn a_listable_but_unreadable_directory_needs_no_listing() {
    // No read bit, search bit only: agentspine never lists a chain
    // directory, so every candidate in it still resolves.
    let p = Arc::new(Project::git());
    p.file("AGENTS.md", "root\n").file("a/AGENTS.md", "a\n");
    chmod(&p.tree.join("a"), 0o111);
    let p2 = p.clone();
    let r = without_dac_override(move || p2.resolve(Host::Codex, "a"));
    assert_eq!(labels(&r), vec!["AGENTS.md", "a/AGENTS.md"]);
    assert_eq!(r.counters.dir_enumerations, 0);
    chmod(&p.tree.join("a"), 0o755);
}

#[test]
fn malformed_configuration_warns_with_file_line_and_column() {
    let p = Project::git();
    p.file("AGENTS.md", "root\n");
    p.home_file(".codex/config.toml", "model = \"x\"\nproject_doc_max_bytes = = 3\n");
    let r = p.resolve(Host::Codex, ".");
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    let w = &r.warnings[0];
    assert_eq!(w.code, "config-malformed");
    assert_eq!(w.file.as_deref(), Some(p.home.join(".codex/config.toml").as_path()));
    assert!(w.message.contains("line 2, column 25"), "{}", w.message);
    assert_eq!(labels(&r), vec!["AGENTS.md"], "defaults were used");

    p.home_file(".codex/config.toml", "project_doc_max_bytes = \"lots\"\n");
    let r = p.resolve(Host::Codex, ".");
    assert!(r.warnings[0].message.contains("`project_doc_max_bytes` must be a non-negative integer"));

    p.home_file(".claude/settings.json", "{\n  \"pluginConfigs\": [,\n}\n");
    p.home_file(".claude.json", "not json");
    let r = p.resolve(Host::Claude, ".");
    let messages: Vec<&str> = r.warnings.iter().map(|w| w.message.as_str()).collect();
    assert_eq!(r.warnings.len(), 2, "{messages:?}");
    assert!(messages[0].contains("settings.json: line 2, column 21"), "{messages:?}");
    assert!(messages[1].contains(".claude.json: line 1, column 2"), "{messages:?}");
}

#[test]
fn a_fifo_or_device_candidate_is_not_regular_and_never_blocks() {
    let p = Arc::new(Project::git());
    p.file("CLAUDE.md", "claude\n");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        p.tree.join("AGENTS.md"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let p2 = p.clone();
    std::thread::spawn(move || {
        let out: Vec<_> = Host::ALL.iter().map(|h| p2.resolve(*h, ".")).collect();
        let _ = tx.send(out);
    });
    let results = rx.recv_timeout(Duration::from_secs(10)).expect("a FIFO candidate blocked the resolver");
    for r in results {
        if r.probes.iter().any(|pr| pr.path == "AGENTS.md") {
            assert_eq!(verdict_of(&r, "AGENTS.md"), "not-regular (FIFO)", "{}", r.host);
        }
    }
}

#[test]
fn import_cycles_and_deep_chains_stay_bounded() {
    let p = Project::git();
    p.file("CLAUDE.md", "root\n@a.md\n").file("a.md", "a\n@b.md\n").file("b.md", "b\n@a.md\n@CLAUDE.md\n");
    let r = p.resolve(Host::Claude, ".");
    assert_eq!(labels(&r), vec!["CLAUDE.md", "a.md", "b.md"]);
    assert_eq!(verdict_of(&r, "a.md"), "duplicate");

    let q = Project::git();
    q.file("CLAUDE.md", "0\n@1.md\n");
    for i in 1..=6 {
        q.file(&format!("{i}.md"), format!("{i}\n@{}.md\n", i + 1));
    }
    let r = q.resolve(Host::Claude, ".");
    assert_eq!(labels(&r), vec!["CLAUDE.md", "1.md", "2.md", "3.md", "4.md"], "four hops");
    assert_eq!(verdict_of(&r, "5.md"), "import depth");
}

#[test]
fn a_file_with_ten_thousand_imports_stays_bounded() {
    let p = Project::git();
    let text: String = (0..10_000).map(|i| format!("@missing-{i}.md\n")).collect();
    p.file("CLAUDE.md", text);
    let r = p.resolve(Host::Claude, ".");
    assert_eq!(labels(&r), vec!["CLAUDE.md"]);
    let followed = r
        .probes
        .iter()
        .filter(|pr| pr.path.starts_with("missing-") && pr.verdict.to_string() == "missing")
        .count();
    assert_eq!(followed, agentspine_core::hosts::claude::MAX_IMPORTS);
    assert!(r.probes.iter().any(|pr| pr.verdict.to_string() == "import limit"), "the cut is reported");
    assert!(r.counters.opens < 2 * agentspine_core::hosts::claude::MAX_IMPORTS as u64 + 100);
}
