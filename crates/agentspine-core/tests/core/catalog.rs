//! The catalog: built once per request and shared by the briefing, the
//! knowledge query and read_document.

use std::sync::Arc;

use agentspine_core::catalog::{self, Catalog, CatalogRequest, SourceIds};
use agentspine_core::{Environment, Host};
use agentspine_fs::{Budget, Counters, Reader};

use crate::support::{Project, chmod, unconfirmed, without_dac_override};

fn ids() -> SourceIds {
    SourceIds::new([7; 32])
}

/// The catalog through the one resolver, as every front end builds it.
fn build(
    request: &CatalogRequest,
    env: &Environment,
    reader: &Reader,
    ids: &SourceIds,
    caches: Option<&dyn agentspine_core::CacheProvider>,
) -> Result<Catalog, agentspine_core::ResolveError> {
    let resolver = agentspine_core::Resolver::new(env.clone(), reader.clone()).with_ids(ids.clone());
    let resolver = match caches {
        Some(caches) => resolver.with_caches(caches),
        None => resolver,
    };
    resolver.catalog(request)
}

fn build_with(p: &Project, request: &CatalogRequest) -> (Catalog, Counters) {
    let reader = Reader::new(Budget::UNLIMITED);
    let catalog = build(request, &p.env(), &reader, &ids(), None).unwrap();
    (catalog, reader.counters())
}

fn project() -> Project {
    let p = Project::git();
    p.file("AGENTS.md", "root rules\n").file("pkg/AGENTS.md", "pkg rules\n");
    p.file("docs/guide.md", "# Guide\n\nHandlers are tested with table-driven tests.\n");
    p.file("notes.md", "unrelated notes about deployment\n");
    p.home_file(".pi/agent/AGENTS.md", "global desktop rules\n");
    p
}

fn request(p: &Project, host: Host) -> CatalogRequest {
    CatalogRequest {
        cwd: Some(p.tree.join("pkg")),
        markdown: true,
        ..CatalogRequest::new(host, p.tree.clone())
    }
}

#[test]
fn required_sources_come_first_then_markdown_and_ids_hide_paths() {
    let p = project();
    let (c, _) = build_with(&p, &request(&p, Host::Desktop));
    let got: Vec<(String, String, bool)> =
        c.sources.iter().map(|s| (s.rel_path.clone(), s.scope.to_string(), s.required)).collect();
    assert_eq!(
        got,
        vec![
            ("~/.pi/agent/AGENTS.md".into(), "user".into(), true),
            ("AGENTS.md".into(), "project".into(), true),
            ("pkg/AGENTS.md".into(), "project".into(), true),
            ("notes.md".into(), "doc".into(), false),
            ("docs/guide.md".into(), "doc".into(), false),
        ]
    );
    for s in &c.sources {
        assert!(s.source_id.starts_with("src_") && s.source_id.len() == 28);
        assert!(!s.source_id.contains("AGENTS"));
    }
    let (again, _) = build_with(&p, &request(&p, Host::Desktop));
    assert_eq!(c.digest(), again.digest(), "deterministic");
    let other = build(
        &request(&p, Host::Desktop),
        &p.env(),
        &Reader::new(Budget::UNLIMITED),
        &SourceIds::new([8; 32]),
        None,
    )
    .unwrap();
    assert_ne!(c.sources[0].source_id, other.sources[0].source_id, "ids are keyed");
}

#[test]
fn generic_reads_no_profile_and_no_memory() {
    let p = project();
    p.home_file(".claude/CLAUDE.md", "claude user rules\n");
    let (c, _) = build_with(&p, &request(&p, Host::Generic));
    assert!(c.sources.iter().all(|s| s.scope.to_string() != "user" && s.scope.to_string() != "memory"));
    assert!(c.resolution.memory.is_none());
}

#[test]
fn a_query_costs_exactly_what_a_briefing_alone_costs() {
    let p = project();
    let (for_briefing, briefing_cost) = build_with(&p, &request(&p, Host::Desktop));
    let briefing = catalog::briefing(&for_briefing, 64 * 1024);
    let (for_query, query_cost) = build_with(&p, &request(&p, Host::Desktop));
    let answer = catalog::query(&for_query, "how are handlers tested?", 3, 64 * 1024);
    assert_eq!(
        unconfirmed(briefing_cost),
        unconfirmed(query_cost),
        "the query builds the catalog once and reads nothing more"
    );
    assert_eq!(answer.hits[0].rel_path, "docs/guide.md");
    assert_eq!((answer.hits[0].line_start, answer.hits[0].line_end), (3, 3));
    assert_eq!(answer.briefing, briefing, "the nested briefing is the same catalog's");
}

#[test]
fn the_briefing_stays_within_its_budget_and_says_what_was_cut() {
    let p = project();
    p.file("docs/long.md", "x".repeat(5000));
    let (c, _) = build_with(&p, &request(&p, Host::Desktop));
    for budget in [0, 10, 200, 1000, 3000, 100_000] {
        let b = catalog::briefing(&c, budget);
        assert!(b.text.len() <= budget, "budget {budget}: {} bytes", b.text.len());
    }
    let b = catalog::briefing(&c, 1000);
    assert!(b.text.contains("[cut: "), "{}\n{:?}", b.text, b.parts);
    assert!(b.source_resolution.warnings.iter().any(|w| w.code == "budget-exhausted"));
    assert!(b.text.starts_with("## ~/.pi/agent/AGENTS.md · user · src_"));
}

#[test]
fn markdown_discovery_is_bounded_sorted_and_skips_what_it_must() {
    let p = project();
    for i in 0..300 {
        p.file(&format!("many/{i:03}.md"), "m\n");
    }
    p.file(".hidden/secret.md", "hidden\n")
        .file("vendor/.git/HEAD", "x")
        .file("vendor/lib.md", "foreign repo\n");
    p.file(".gitignore", "ignored/\n*.tmp.md\n")
        .file("ignored/x.md", "ignored\n")
        .file("a.tmp.md", "ignored\n");
    p.symlink("linked.md", p.tree.join("notes.md"));
    let (c, cost) = build_with(&p, &request(&p, Host::Generic));
    let docs: Vec<&str> = c.sources.iter().filter(|s| !s.required).map(|s| s.rel_path.as_str()).collect();
    assert_eq!(docs.len(), 240, "at most 240 files");
    assert_eq!(&docs[..3], &["notes.md", "docs/guide.md", "many/000.md"], "breadth first, sorted");
    for skipped in ["secret", "foreign", "ignored", "tmp", "linked"] {
        assert!(!docs.iter().any(|d| d.contains(skipped)), "{skipped}: {docs:?}");
    }
    assert!(
        c.resolution.warnings.iter().any(|w| w.code == "bounded-truncated" && w.message.contains("240-file"))
    );
    assert!(c.resolution.gaps.iter().any(|g| g.cause.as_str() == "bounded-truncated" && !g.required));
    assert!(catalog::preflight(&c).is_ok(), "an optional bound does not fail a required preflight");
    assert!(cost.dir_enumerations <= 6);

    let wide = Project::git();
    wide.file("AGENTS.md", "x\n");
    for i in 0..9000 {
        wide.file(&format!("d/{i}.txt"), "");
    }
    let (c, _) = build_with(
        &wide,
        &CatalogRequest { markdown: true, ..CatalogRequest::new(Host::Generic, wide.tree.clone()) },
    );
    assert!(
        c.resolution.warnings.iter().any(|w| w.message.contains("8,192-entry")),
        "{:?}",
        c.resolution.warnings
    );
}

#[test]
fn the_home_directory_or_a_profile_as_root_is_never_scanned() {
    let p = project();
    let env = p.env();
    let home = p.home.clone();
    p.home_file("projects/readme.md", "never scanned\n");
    for (root, reason) in [(home.clone(), "root-is-home"), (home.join(".pi/agent"), "root-is-profile")] {
        let reader = Reader::new(Budget::UNLIMITED);
        let req = CatalogRequest { markdown: true, ..CatalogRequest::new(Host::Desktop, root) };
        let c = build(&req, &env, &reader, &ids(), None).unwrap();
        assert_eq!(c.resolution.reason.map(|r| r.as_str()), Some(reason));
        // The user-wide file still loads; nothing of the would-be project.
        let scopes: Vec<_> = c.sources.iter().map(|s| (s.scope, s.rel_path.as_str())).collect();
        assert_eq!(scopes, [(agentspine_core::Scope::User, "~/.pi/agent/AGENTS.md")], "{reason}");
        assert_eq!(c.resolution.checked_scopes, [agentspine_core::Scope::User]);
        assert_eq!((reader.counters().dir_enumerations, reader.counters().reads), (0, 1));
    }
    // A project nested inside a profile is scanned normally.
    p.home_file(".pi/agent/nested-project/AGENTS.md", "nested project\n");
    std::fs::create_dir_all(home.join(".pi/agent/nested-project/.git")).unwrap();
    let nested = CatalogRequest::new(Host::Generic, home.join(".pi/agent/nested-project"));
    let c = build(&nested, &env, &Reader::new(Budget::UNLIMITED), &ids(), None).unwrap();
    assert_eq!(c.sources.len(), 1);
}

#[test]
fn a_required_preflight_fails_on_a_denied_directory_and_succeeds_once_fixed() {
    let p = Arc::new(project());
    chmod(&p.tree.join("pkg"), 0o000);
    let p2 = p.clone();
    let failed = without_dac_override(move || {
        let (c, _) = build_with(
            &p2,
            &CatalogRequest {
                cwd: Some(p2.tree.join("pkg")),
                ..CatalogRequest::new(Host::Desktop, p2.tree.clone())
            },
        );
        catalog::preflight(&c)
    });
    let err = failed.unwrap_err();
    assert!(err.causes.iter().all(|g| g.cause.as_str() == "permission-denied" && g.required), "{err}");
    assert!(err.to_string().contains("pkg/AGENTS.md (permission-denied)"), "{err}");
    chmod(&p.tree.join("pkg"), 0o755);
    let p3 = p.clone();
    let receipt = without_dac_override(move || {
        let (c, _) = build_with(
            &p3,
            &CatalogRequest {
                cwd: Some(p3.tree.join("pkg")),
                ..CatalogRequest::new(Host::Desktop, p3.tree.clone())
            },
        );
        catalog::preflight(&c).map(|r| (r, c.digest()))
    });
    let (receipt, digest) = receipt.expect("no reset is needed after the cause is fixed");
    assert_eq!(receipt.catalog_digest, digest);
    assert_eq!(receipt.sources.len(), 3);
}

#[test]
fn read_document_reads_the_source_again_whole_and_refuses_other_ids() {
    let p = project();
    let (c, _) = build_with(&p, &request(&p, Host::Desktop));
    let guide = c.sources.iter().find(|s| s.rel_path == "docs/guide.md").unwrap().source_id.clone();
    let reader = Reader::new(Budget::UNLIMITED);
    let doc = catalog::read_document(&c, &reader, &guide).unwrap();
    assert!(!doc.changed);
    assert_eq!(doc.text, "# Guide\n\nHandlers are tested with table-driven tests.\n");
    // Replaced by a new inode between calls: the next read sees it whole.
    std::fs::write(p.tree.join("docs/new.md"), "rewritten guide\n").unwrap();
    std::fs::rename(p.tree.join("docs/new.md"), p.tree.join("docs/guide.md")).unwrap();
    let doc = catalog::read_document(&c, &reader, &guide).unwrap();
    assert!(doc.changed);
    assert_eq!(doc.text, "rewritten guide\n");
    let err = catalog::read_document(&c, &reader, "src_000000000000000000000000").unwrap_err();
    assert!(err.to_string().contains("not a source of this project's catalog"));
    // A link put in place of the source is refused, never followed.
    std::fs::remove_file(p.tree.join("docs/guide.md")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", p.tree.join("docs/guide.md")).unwrap();
    assert!(catalog::read_document(&c, &reader, &guide).unwrap_err().to_string().contains("symbolic link"));
}

#[test]
fn the_root_must_be_exact() {
    let p = project();
    let env: Environment = p.env();
    let reader = Reader::new(Budget::UNLIMITED);
    for (root, expected) in [("relative/root", "absolute"), ("/definitely/not/here", "no such directory")] {
        let err = build(&CatalogRequest::new(Host::Generic, root), &env, &reader, &ids(), None).unwrap_err();
        assert!(err.to_string().contains(expected), "{err}");
    }
    // A subdirectory is used as given: no walking up to the git root.
    let c =
        build(&CatalogRequest::new(Host::Generic, p.tree.join("pkg")), &env, &reader, &ids(), None).unwrap();
    assert_eq!(c.resolution.project_root, p.tree.join("pkg"));
    assert_eq!(c.sources.iter().map(|s| s.rel_path.as_str()).collect::<Vec<_>>(), vec!["AGENTS.md"]);
}

#[test]
fn an_unlistable_rules_directory_is_a_gap_and_a_retry_succeeds_once_fixed() {
    let p = Arc::new(Project::git());
    p.file("CLAUDE.md", "root\n");
    p.file(".claude/rules/a.md", "rule a\n").file(".claude/rules/deep/b.md", "rule b\n");
    for locked in [".claude/rules", ".claude/rules/deep"] {
        chmod(&p.tree.join(locked), 0o000);
        let p2 = p.clone();
        let failed = without_dac_override(move || {
            let (c, _) = build_with(&p2, &CatalogRequest::new(Host::Claude, p2.tree.clone()));
            catalog::preflight(&c).map(|_| ())
        });
        let err = failed.expect_err("a rules directory that cannot be listed gives no receipt");
        assert_eq!(err.causes.len(), 1, "{err}");
        assert_eq!(
            (err.causes[0].what.as_str(), err.causes[0].cause.as_str()),
            (locked, "permission-denied")
        );
        chmod(&p.tree.join(locked), 0o755);
        let p3 = p.clone();
        let fixed = without_dac_override(move || {
            let (c, _) = build_with(&p3, &CatalogRequest::new(Host::Claude, p3.tree.clone()));
            catalog::preflight(&c).map(|_| c.sources.len())
        });
        assert_eq!(fixed.expect("a retry after the fix needs no reset"), 3, "CLAUDE.md and both rules");
    }
}

#[test]
fn a_hard_link_is_its_own_verdict_and_a_required_gap() {
    let p = project();
    let outside = p.home.join("secret.md");
    std::fs::write(&outside, "SECRET from outside the project\n").unwrap();
    std::fs::remove_file(p.tree.join("pkg/AGENTS.md")).unwrap();
    std::fs::hard_link(&outside, p.tree.join("pkg/AGENTS.md")).unwrap();
    let resolution = p.resolve(Host::Codex, "pkg");
    assert_eq!(crate::support::verdict_of(&resolution, "pkg/AGENTS.md"), "hard-link");
    assert_eq!(resolution.counters.refusals.hard_link, 1);
    let (c, _) = build_with(&p, &request(&p, Host::Codex));
    assert!(c.sources.iter().all(|s| !s.text.contains("SECRET")));
    let err = catalog::preflight(&c).unwrap_err();
    assert_eq!(err.causes.len(), 1, "{err}");
    assert_eq!((err.causes[0].what.as_str(), err.causes[0].cause.as_str()), ("pkg/AGENTS.md", "hard-link"));
    assert!(err.causes[0].required);
}

/// pi keeps no memory of its own and its hook sends the project's Claude
/// memory facts; its briefing carries the same memory as Claude Code's
/// (one rule: the hosts whose hooks add memory facts have memory).
#[test]
fn pi_briefing_carries_the_memory_its_hook_sends() {
    let p = project();
    let memory = p.dir.path().join("memory");
    p.home_file(".claude/settings.json", format!("{{\"autoMemoryDirectory\": \"{}\"}}", memory.display()));
    crate::support::write(&memory.join("MEMORY.md"), b"- [Style](style.md) <!-- agentspine:always -->\n");
    crate::support::write(&memory.join("style.md"), b"short answers\n");
    let memory_of = |host| {
        let (c, _) = build_with(&p, &request(&p, host));
        c.sources
            .iter()
            .filter(|s| s.scope.to_string() == "memory")
            .map(|s| s.text.clone())
            .collect::<Vec<_>>()
    };
    let claude = memory_of(Host::Claude);
    assert_eq!(claude.len(), 2, "the index and the fact: {claude:?}");
    assert_eq!(memory_of(Host::Pi), claude);
    assert_eq!(memory_of(Host::Pi073), claude);
    assert!(memory_of(Host::Codex).is_empty());
}
