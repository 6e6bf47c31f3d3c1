//! `check`: exact findings on small fixtures, one per finding kind.

use agentspine_core::check::{Check, CheckRequest, Silence};
use agentspine_core::{Host, Resolver};
use agentspine_fs::{Budget, Reader};

use crate::support::Project;

fn run(p: &Project, hosts: &[Host], silence: Silence) -> Check {
    let resolver = Resolver::new(p.env(), Reader::new(Budget::UNLIMITED));
    let request = CheckRequest { silence, ..CheckRequest::new(p.tree.clone(), hosts.to_vec()) };
    resolver.check(&request).unwrap()
}

fn check(p: &Project, hosts: &[Host]) -> Check {
    run(p, hosts, Silence::default())
}

/// `(id, host, path, line)` of every finding, in report order.
fn found(c: &Check) -> Vec<(String, String, String, Option<u64>)> {
    c.findings
        .iter()
        .map(|f| {
            let host = f.host.map(|h| h.as_str().to_owned()).unwrap_or_else(|| "-".to_owned());
            (f.kind.id().to_owned(), host, f.path.clone(), f.line)
        })
        .collect()
}

fn row(id: &str, host: &str, path: &str, line: Option<u64>) -> (String, String, String, Option<u64>) {
    (id.to_owned(), host.to_owned(), path.to_owned(), line)
}

/// `lines` lines of 100 bytes each (99 characters and a newline).
fn lines(n: usize, fill: char) -> String {
    (0..n).map(|_| format!("{}\n", fill.to_string().repeat(99))).collect()
}

#[test]
fn codex_budget_cuts_a_file_at_its_line_and_drops_the_next() {
    let p = Project::git();
    p.file("AGENTS.md", lines(300, 'a')); // 30,000 bytes
    p.file("pkg/AGENTS.md", lines(50, 'b')); // 2,768 fit: 27 whole lines, line 28 is cut
    p.file("pkg/sub/AGENTS.md", "never sent\n");
    let c = check(&p, &[Host::Codex]);
    assert_eq!(c.dirs, vec![".", "pkg", "pkg/sub"]);
    assert_eq!(
        found(&c),
        vec![
            row("budget-cut", "codex", "pkg/AGENTS.md", Some(28)),
            row("budget-dropped", "codex", "pkg/sub/", None)
        ]
    );
    let cut = &c.findings[0];
    assert_eq!(
        cut.message,
        "Codex sends only the first 2768 of 5000 bytes: its byte budget runs out in this file: from line 28 on the model never sees it"
    );
    assert_eq!(cut.dirs, vec!["pkg", "pkg/sub"]);
    assert_eq!(c.findings[1].dirs, vec!["pkg/sub"]);
    assert_eq!(
        c.budgets[0].root.bytes,
        30_000
            + "# AGENTS.md instructions for \n\n<INSTRUCTIONS>\n\n</INSTRUCTIONS>".len() as u64
            + p.tree.canonicalize().unwrap().display().to_string().len() as u64
    );
    assert_eq!(
        (c.budgets[0].deepest.dir.as_str(), c.budgets[0].deepest.files, c.budgets[0].deepest.cut),
        ("pkg/sub", 2, 1)
    );
}

#[test]
fn an_empty_override_hides_its_siblings_in_codex() {
    let p = Project::git();
    p.file("pkg/AGENTS.override.md", "  \n");
    p.file("pkg/AGENTS.md", "hidden\n");
    let c = check(&p, &[Host::Codex]);
    assert_eq!(found(&c), vec![row("shadowed-by-empty", "codex", "pkg/AGENTS.md", None)]);
    assert_eq!(
        c.findings[0].message,
        "Codex takes the blank pkg/AGENTS.override.md in this directory and then drops it: this file is never read"
    );
}

#[test]
fn claude_skips_agents_md_beside_claude_md_and_pi_skips_claude_md() {
    let p = Project::git();
    p.file("AGENTS.md", "agents\n").file("CLAUDE.md", "claude\n");
    let c = check(&p, &[Host::Claude, Host::Pi]);
    assert_eq!(
        found(&c),
        vec![row("never-read", "claude", "AGENTS.md", None), row("never-read", "pi", "CLAUDE.md", None)]
    );
    assert_eq!(
        c.findings[1].message,
        "pi reads one file per directory and AGENTS.md wins here: this one is never read"
    );
}

#[test]
fn claude_import_findings_name_the_importing_file() {
    let p = Project::git();
    p.file("CLAUDE.md", "@docs/conventions.md\n@missing.md\n@a.md\n");
    p.file("docs/conventions.md", "conventions\n");
    // a -> b -> c -> d -> e: e is the fifth hop; b imports a back.
    p.file("a.md", "@b.md\n").file("b.md", "@c.md @a.md\n").file("c.md", "@d.md\n");
    p.file("d.md", "@e.md\n").file("e.md", "too deep\n");
    p.file("pkg/CLAUDE.md", "pkg\n");
    let c = check(&p, &[Host::Claude]);
    assert_eq!(
        found(&c),
        vec![
            row("import-outside-cwd", "claude", "CLAUDE.md", Some(1)),
            row("import-outside-cwd", "claude", "CLAUDE.md", Some(2)),
            row("import-missing", "claude", "CLAUDE.md", Some(2)),
            row("import-outside-cwd", "claude", "CLAUDE.md", Some(3)),
            row("import-repeated", "claude", "b.md", Some(1)),
            row("import-depth", "claude", "d.md", Some(1)),
        ]
    );
    let outside: Vec<(&str, &[String])> = c
        .findings
        .iter()
        .filter(|f| f.kind.id() == "import-outside-cwd")
        .map(|f| (f.message.split(": ").next().unwrap(), f.dirs.as_slice()))
        .collect();
    assert_eq!(
        outside,
        vec![
            ("Claude Code drops the import of docs/conventions.md", &["pkg".to_owned()][..]),
            ("Claude Code drops the import of missing.md", &["pkg".to_owned()][..]),
            ("Claude Code drops the import of a.md", &["pkg".to_owned()][..]),
        ]
    );
}

#[test]
fn rules_whose_paths_match_nothing_and_broken_frontmatter() {
    let p = Project::git();
    p.file(".claude/rules/api.md", "---\npaths: api/**\n---\nAPI rules\n");
    p.file(".claude/rules/src.md", "---\npaths: src/*.rs\n---\nsrc rules\n");
    p.file(".claude/rules/broken.md", "---\npaths: src/*.rs\nno end\n");
    p.file("src/main.rs", "fn main() {}\n");
    let c = check(&p, &[Host::Claude]);
    assert_eq!(
        found(&c),
        vec![
            row("rules-paths-unmatched", "claude", ".claude/rules/api.md", None),
            row("rules-frontmatter-malformed", "claude", ".claude/rules/broken.md", None),
        ]
    );
}

#[test]
fn links_hard_links_and_special_files_with_each_hosts_verdict() {
    let p = Project::git();
    let outside = p.dir.path().join("outside.md");
    std::fs::write(&outside, "from outside\n").unwrap();
    p.symlink("AGENTS.md", &outside);
    p.file("pkg/CLAUDE.md", "pkg\n");
    std::fs::hard_link(p.tree.join("pkg/CLAUDE.md"), p.dir.path().join("other-name.md")).unwrap();
    std::fs::create_dir_all(p.tree.join("fifo")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        p.tree.join("fifo/AGENTS.md").as_path(),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    let c = check(&p, &[Host::Codex, Host::Claude]);
    assert_eq!(
        found(&c),
        vec![
            // Claude reads AGENTS.md here: the only CLAUDE.md is refused.
            row("symlink", "claude", "AGENTS.md", None),
            row("symlink", "codex", "AGENTS.md", None),
            row("special-file", "claude", "fifo/AGENTS.md", None),
            row("special-file", "codex", "fifo/AGENTS.md", None),
            row("hard-link", "claude", "pkg/CLAUDE.md", None),
            row("never-read", "codex", "pkg/CLAUDE.md", None),
        ]
    );
    let safety: Vec<bool> = c.findings.iter().map(|f| f.safety).collect();
    assert_eq!(safety, vec![true, true, true, true, true, false]);
    assert_eq!(
        c.findings[1].message,
        format!(
            "Codex follows this link out of the repository (to {}) and sends what it finds there",
            outside.display()
        )
    );
    assert_eq!(
        c.findings[1].agentspine.as_deref(),
        Some("agentspine never reads through a link out of the project: the file is left out")
    );
    assert_eq!(c.findings[1].dirs, vec![".", "fifo", "pkg"]);
}

#[test]
fn memory_index_cut_and_links_no_selection_can_open() {
    let p = Project::git();
    let memory = p.dir.path().join("memory");
    p.home_file(".claude/settings.json", format!("{{\"autoMemoryDirectory\": \"{}\"}}", memory.display()));
    let mut index = String::from("- [Style](style.md) <!-- agentspine:always -->\n");
    index.push_str("- [Gone](gone.md)\n- [Escape](../secrets.md)\n- [—](_.md)\n");
    index.push_str(&"- filler\n".repeat(246)); // 250 lines in all
    crate::support::write(&memory.join("MEMORY.md"), index.as_bytes());
    crate::support::write(&memory.join("style.md"), b"short answers\n");
    crate::support::write(&memory.join("_.md"), b"no words to match\n");
    p.file("CLAUDE.md", "claude\n");
    let c = check(&p, &[Host::Claude]);
    let label = format!("{}/MEMORY.md", memory.display());
    assert_eq!(
        found(&c),
        vec![
            row("memory-link-missing", "-", &label, Some(2)),
            row("memory-link-unsafe", "-", &label, Some(3)),
            row("memory-link-unselectable", "-", &label, Some(4)),
            row("memory-cut", "claude", &label, Some(201)),
        ]
    );
    assert_eq!(
        c.findings[3].message,
        "Claude Code loads only the first 200 lines of MEMORY.md: 50 of 250 lines are cut, from line 201 on"
    );
    assert!(c.findings[1].safety, "an unsafe link is a safety finding");
}

#[test]
fn silencing_by_id_and_path_never_silences_a_safety_finding() {
    let p = Project::git();
    p.file("AGENTS.md", "agents\n").file("CLAUDE.md", "claude\n");
    p.symlink("pkg/CLAUDE.md", "../CLAUDE.md");
    let file = p.tree.join(".agentspine.toml");
    let text = "[[check.silence]]\nid = \"never-read\"\npath = \"AGENTS.md\"\n\n[[check.silence]]\nid = \"symlink\"\npath = \"*\"\n";
    let silence = Silence::parse(&file, text).unwrap();
    let loud = check(&p, &[Host::Claude]);
    let quiet = run(&p, &[Host::Claude], silence);
    // A link inside the project is a note that may be silenced; a link out
    // of it is a safety finding that never is.
    assert_eq!(
        found(&loud),
        vec![row("never-read", "claude", "AGENTS.md", None), row("link-inside", "-", "pkg/CLAUDE.md", None)]
    );
    assert_eq!(found(&quiet), vec![row("link-inside", "-", "pkg/CLAUDE.md", None)]);
    assert_eq!((loud.summary.silenced, quiet.summary.silenced), (0, 1));
    let outside = p.dir.path().join("outside.md");
    std::fs::write(&outside, "outside\n").unwrap();
    p.symlink("out/CLAUDE.md", &outside);
    let silence = Silence::parse(&file, "[[check.silence]]\nid = \"symlink\"\npath = \"*\"\n").unwrap();
    let quiet = run(&p, &[Host::Claude], silence);
    assert!(found(&quiet).contains(&row("symlink", "claude", "out/CLAUDE.md", None)));
    // The refused entry is reported, with the finding it would have hidden.
    let refused = &quiet.summary.refused;
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(
        (refused[0].id.as_str(), refused[0].path.as_str(), refused[0].finding.as_str()),
        ("symlink", "*", "out/CLAUDE.md")
    );
    let bad = Silence::parse(&file, "[[check.silence]]\nid = \"never-read\"\n").unwrap_err();
    assert_eq!(
        bad.to_string(),
        format!("{}: each check.silence entry needs a string id and a string path", file.display())
    );
}

#[test]
fn the_discovery_stops_at_the_catalogs_entry_bound() {
    let p = Project::git();
    p.file("AGENTS.md", "root\n");
    for i in 0..8200 {
        p.file(&format!("many/f{i:05}.txt"), "");
    }
    p.file("zz/AGENTS.md", "beyond the bound\n");
    let c = check(&p, &[Host::Codex]);
    assert_eq!(found(&c), vec![row("bounded-truncated", "-", ".", None)]);
    assert_eq!(c.dirs, vec!["."], "zz/ lies beyond the bound");
    assert_eq!(
        c.findings[0].message,
        "the discovery of instruction files stopped at its 8,192-entry bound; these subtrees are not checked: \
         many/, zz/ (check them with --paths)"
    );
}

#[test]
fn the_home_directory_is_never_checked() {
    let p = Project::new();
    let resolver = Resolver::new(p.env(), Reader::new(Budget::UNLIMITED));
    let error = resolver.check(&CheckRequest::new(p.home.clone(), vec![Host::Codex])).unwrap_err();
    assert_eq!(error.code(), "not-a-project");
    assert_eq!(resolver.reader().counters().dir_enumerations, 0);
}

/// The example monorepo's layout, small: instruction files at three
/// depths, a rules directory, an import.
fn layout(p: &Project) {
    p.file("AGENTS.md", "root\n").file("CLAUDE.md", "@docs/a.md\n").file("docs/a.md", "a\n");
    p.file(".claude/rules/api.md", "---\npaths: pkg/**\n---\napi\n");
    p.file("pkg/AGENTS.md", "pkg\n").file("pkg/deep/CLAUDE.md", "deep\n").file("pkg/deep/main.ts", "");
    p.file(".gitignore", "node_modules/\n");
}

#[test]
fn the_cost_follows_the_instruction_files_not_the_tree() {
    let hosts = agentspine_core::check::default_hosts();
    let plain = Project::git();
    layout(&plain);
    let big = Project::git();
    layout(&big);
    // 50,000 files the bounded walk never lists: ignored by the root
    // .gitignore, hidden, or in a nested repository.
    let mut made = 0;
    for (dir, n) in [("node_modules/lib", 30_000), (".cache", 10_000), ("vendor/repo", 10_000)] {
        for i in 0..n {
            crate::support::write(&big.tree.join(format!("{dir}/f{i:05}.js")), b"");
            made += 1;
        }
    }
    std::fs::create_dir(big.tree.join("vendor/repo/.git")).unwrap();
    assert_eq!(made, 50_000);
    let (a, b) = (check(&plain, &hosts), check(&big, &hosts));
    assert_eq!(found(&a), found(&b));
    assert_eq!(a.dirs, vec![".", "pkg", "pkg/deep"]);
    // `vendor` itself is walked into: one listing (one open), one more
    // entry and one stat of `.git` (not found) for each of `vendor` and
    // `vendor/repo` (found: a nested repository, never entered), each
    // stat opening its parent once. Nothing else differs.
    let extra = |c: &Check| crate::support::unconfirmed(c.work);
    let mut expected = extra(&a);
    expected.dir_enumerations += 1;
    expected.dir_entries += 3 + 1; // node_modules, .cache, vendor; repo
    expected.stats += 2;
    expected.opens += 3;
    expected.refusals.not_found += 1;
    assert_eq!(extra(&b), expected);
}

/// A monorepo whose only instruction files are `GEMINI.md`: every
/// directory holding one is checked, and a configured name too.
#[test]
fn gemini_only_directories_are_each_checked() {
    let p = Project::git();
    p.file("GEMINI.md", "root\n").file("apps/web/GEMINI.md", "web\n").file("libs/ui/GEMINI.md", "ui\n");
    p.file("tools/CONTEXT.md", "configured\n");
    let c = check(&p, &[Host::Gemini]);
    assert_eq!(c.dirs, vec![".", "apps/web", "libs/ui"]);
    assert_eq!(found(&c), vec![], "nothing is lost: Gemini reads each one");
    p.home_file(".gemini/settings.json", "{\"context\": {\"fileName\": [\"GEMINI.md\", \"CONTEXT.md\"]}}\n");
    let c = check(&p, &[Host::Gemini]);
    assert_eq!(c.dirs, vec![".", "tools", "apps/web", "libs/ui"], "breadth first");
    // Codex never probes GEMINI.md: a name of one host alone is not worth
    // a `never-read` for the others.
    let c = check(&p, &[Host::Codex, Host::Gemini]);
    assert_eq!(found(&c), vec![]);
}

/// A repository whose links all stay inside it: notes only, never an
/// error (so `check --deny error` passes), and the byte figures count
/// what the hosts send through the links.
#[test]
fn links_inside_the_repository_are_notes_and_count_their_bytes() {
    let p = Project::git();
    p.file("AGENTS.md", lines(100, 'r')).symlink("CLAUDE.md", "AGENTS.md");
    p.file(".agents/pkg.md", lines(20, 'p')).symlink("pkg/AGENTS.md", "../.agents/pkg.md");
    p.symlink("pkg/CLAUDE.md", "AGENTS.md");
    let hosts = [Host::Codex, Host::Claude, Host::Pi];
    let c = check(&p, &hosts);
    assert!(!c.has_at_least(agentspine_core::check::Severity::Warning), "{:#?}", c.findings);
    assert_eq!(
        found(&c),
        vec![
            row("link-inside", "-", "CLAUDE.md", None),
            row("link-inside", "-", "pkg/AGENTS.md", None),
            row("link-inside", "-", "pkg/CLAUDE.md", None),
        ]
    );
    let codex = c.budgets.iter().find(|b| b.host == Host::Codex).unwrap();
    assert_eq!((codex.deepest.dir.as_str(), codex.deepest.files, codex.deepest.cut), ("pkg", 2, 0));
    assert!(codex.deepest.bytes > 12_000, "both linked files' 12,000 bytes and the wrapper: {codex:?}");
}

/// A root CLAUDE.md that only says `See @AGENTS.md`: in a package, Claude
/// Code drops the import and reads no AGENTS.md, one cause reported once
/// with what it costs; agentspine's hooks deliver those files by default,
/// so the finding is a note (with the hooks off, the import error).
/// Codex reads the AGENTS.md the pointer names: no `never-read` for it.
#[test]
fn a_pointer_claude_md_is_one_finding_with_its_consequences() {
    use agentspine_core::delta::ClaudeAgentsMd;
    let p = Project::git();
    p.file("CLAUDE.md", "See @AGENTS.md\n").file("AGENTS.md", "root rules\n");
    p.file("packages/api/AGENTS.md", "api\n").file("packages/web/AGENTS.md", "web\n");
    let c = check(&p, &[Host::Claude, Host::Codex]);
    assert_eq!(found(&c), vec![row("delivered-by-agentspine", "claude", "CLAUDE.md", Some(1))]);
    let f = &c.findings[0];
    assert_eq!(f.files, ["AGENTS.md", "packages/api/AGENTS.md", "packages/web/AGENTS.md"]);
    assert_eq!(f.dirs, ["packages/api", "packages/web"]);
    assert!(f.message.contains("get only this pointer"), "{}", f.message);
    let resolver = Resolver::new(p.env(), Reader::new(Budget::UNLIMITED));
    let request = CheckRequest {
        claude_agents_md: ClaudeAgentsMd::Off,
        ..CheckRequest::new(p.tree.clone(), vec![Host::Claude])
    };
    let off = resolver.check(&request).unwrap();
    assert_eq!(found(&off), vec![row("import-outside-cwd", "claude", "CLAUDE.md", Some(1))]);
    assert_eq!(off.findings[0].severity, agentspine_core::check::Severity::Error);
    assert_eq!(off.findings[0].files, f.files, "the same consequences, now lost");
}

/// `CLAUDE.md -> AGENTS.md` at the root and packages with only AGENTS.md:
/// Claude Code never reads the packages' files; the repository means them
/// for it, so agentspine delivers them and check says so.
#[test]
fn linked_claude_md_makes_package_agents_md_delivered() {
    let p = Project::git();
    p.file("AGENTS.md", "root rules\n").symlink("CLAUDE.md", "AGENTS.md").file("pkg/AGENTS.md", "pkg\n");
    let c = check(&p, &[Host::Claude]);
    assert_eq!(
        found(&c),
        vec![
            row("link-inside", "-", "CLAUDE.md", None),
            row("delivered-by-agentspine", "claude", "pkg/AGENTS.md", None)
        ]
    );
    // Without the evidence (plain files), the same gap is a warning.
    let q = Project::git();
    q.file("AGENTS.md", "root rules\n").file("CLAUDE.md", "claude rules\n").file("pkg/AGENTS.md", "pkg\n");
    let c = check(&q, &[Host::Claude]);
    assert_eq!(
        found(&c),
        vec![
            row("never-read", "claude", "AGENTS.md", None),
            row("never-read", "claude", "pkg/AGENTS.md", None)
        ]
    );
}

/// With no host named, check applies the hosts the repository addresses
/// and the hosts installed for the user, and says why each.
#[test]
fn without_hosts_the_addressed_and_installed_ones_are_checked() {
    let p = Project::git();
    p.file("AGENTS.md", "agents\n").file("pkg/GEMINI.md", "gemini\n");
    let c = check(&p, &[]);
    let chosen: Vec<(String, String)> =
        c.hosts_chosen.iter().map(|h| (h.host.as_str().to_owned(), h.why.clone())).collect();
    assert_eq!(
        chosen,
        [
            ("codex".to_owned(), "AGENTS.md in the repository".to_owned()),
            ("gemini".to_owned(), "GEMINI.md in the repository".to_owned())
        ]
    );
    p.home_file(".claude/settings.json", "{}\n");
    std::fs::create_dir_all(p.tree.join(".pi")).unwrap();
    let c = check(&p, &[]);
    let hosts: Vec<&str> = c.hosts.iter().map(|h| h.as_str()).collect();
    assert_eq!(hosts, ["codex", "claude", "gemini", "pi"]);
    assert_eq!(c.hosts_chosen[1].why, "installed: ~/.claude");
    assert_eq!(c.hosts_chosen[3].why, ".pi/ in the repository");
}
