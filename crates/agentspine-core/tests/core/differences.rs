//! Where a host would do more than agentspine does, on purpose: each
//! difference is asserted with its `--explain` verdict.

use agentspine_core::{Host, render_native};

use crate::support::{Project, labels, verdict_of};

#[test]
fn a_link_out_of_the_project_is_never_followed() {
    let p = Project::git();
    std::fs::write(p.dir.path().join("secret.md"), "SECRET OUTSIDE\n").unwrap();
    p.symlink("AGENTS.md", p.dir.path().join("secret.md"));
    p.symlink("CLAUDE.md", "../secret.md");
    p.symlink("GEMINI.md", "../secret.md");
    for host in Host::ALL {
        let r = p.resolve(host, ".");
        assert!(!render_native(&r).contains("SECRET"), "{host}");
        let probed = match host {
            Host::Claude => "CLAUDE.md",
            Host::Gemini => "GEMINI.md",
            _ => "AGENTS.md",
        };
        assert!(verdict_of(&r, probed).starts_with("link-refused (outside: "), "{host}");
        if host != Host::Desktop && host != Host::Generic {
            let probe = r.probes.iter().find(|pr| pr.path == probed).unwrap();
            assert!(probe.host_differs.as_deref().unwrap_or("").contains("follows this link"), "{host}");
        }
    }
}

#[test]
fn gemini_never_follows_a_context_file_linked_out_of_the_project() {
    let p = Project::git();
    std::fs::write(p.dir.path().join("secret.md"), "SECRET OUTSIDE\n").unwrap();
    p.symlink("GEMINI.md", "../secret.md")
        .file("inner.md", "INNER\n")
        .symlink("sub/GEMINI.md", "../inner.md");
    let r = p.resolve(Host::Gemini, "sub");
    assert_eq!(labels(&r), ["sub/GEMINI.md"], "the link inside the project is read, the one out is not");
    assert!(render_native(&r).contains("INNER") && !render_native(&r).contains("SECRET"));
    let probe = r.probes.iter().find(|pr| pr.path == "GEMINI.md").unwrap();
    assert!(probe.host_differs.as_deref().unwrap_or("").contains("follows this link"));
}

#[test]
fn a_link_out_takes_codex_slot_and_hides_its_siblings() {
    let p = Project::git();
    std::fs::write(p.dir.path().join("secret.md"), "SECRET OUTSIDE\n").unwrap();
    p.symlink("AGENTS.override.md", "../secret.md").file("AGENTS.md", "plain\n");
    let r = p.resolve(Host::Codex, ".");
    assert!(verdict_of(&r, "AGENTS.override.md").starts_with("link-refused"));
    assert_eq!(verdict_of(&r, "AGENTS.md"), "shadowed-by AGENTS.override.md");
    assert!(r.parts.is_empty(), "Codex would send the link's target, never the sibling");
}

#[test]
fn files_above_the_root_are_reported_not_read() {
    let p = Project::new();
    p.file("CLAUDE.md", "above\n").file("AGENTS.md", "above\n").file("sub/AGENTS.md", "sub\n");
    for host in [Host::Claude, Host::Pi, Host::Pi073] {
        let r = p.resolve(host, "sub");
        assert_eq!(r.project_root, p.tree.join("sub"), "no .git: the cwd is the root");
        let above = if host == Host::Claude { "CLAUDE.md" } else { "AGENTS.md" };
        let shown = p.tree.join(above).display().to_string();
        assert_eq!(verdict_of(&r, &shown), "outside-root", "{host}");
        assert!(!render_native(&r).contains("above"), "{host}");
    }
}

#[test]
fn claude_rules_are_read_in_sorted_order() {
    let p = Project::git();
    for name in ["zeta", "alpha", "mid", "beta"] {
        p.file(&format!(".claude/rules/{name}.md"), format!("{name}\n"));
    }
    p.file(".claude/rules/nested/deep.md", "deep\n");
    let r = p.resolve(Host::Claude, ".");
    assert_eq!(
        labels(&r),
        vec![
            ".claude/rules/nested/deep.md",
            ".claude/rules/alpha.md",
            ".claude/rules/beta.md",
            ".claude/rules/mid.md",
            ".claude/rules/zeta.md"
        ]
    );
}

#[test]
fn a_user_import_outside_the_config_home_is_not_read() {
    let p = Project::git();
    p.home_file(".claude/CLAUDE.md", "user\n@~/notes/private.md\n@~/.claude/kept.md\n");
    p.home_file("notes/private.md", "PRIVATE NOTES\n").home_file(".claude/kept.md", "kept\n");
    let r = p.resolve(Host::Claude, ".");
    assert_eq!(labels(&r), vec!["~/.claude/CLAUDE.md", "~/.claude/kept.md"]);
    assert_eq!(verdict_of(&r, "~/notes/private.md"), "import outside-root");
    assert_eq!(r.parts[1].imported_by.as_deref(), Some("~/.claude/CLAUDE.md"));
}

#[test]
fn a_project_import_outside_the_cwd_needs_approval_and_stays_in_the_root() {
    let p = Project::git();
    p.file("CLAUDE.md", "root\n@docs/x.md\n").file("docs/x.md", "x\n").file("sub/keep", "");
    let r = p.resolve(Host::Claude, "sub");
    assert_eq!(verdict_of(&r, "docs/x.md"), "import external not approved");
    let key = p.tree.display().to_string();
    p.home_file(
        ".claude.json",
        format!(r#"{{"projects": {{"{key}": {{"hasClaudeMdExternalIncludesApproved": true}}}}}}"#),
    );
    p.file("CLAUDE.md", "root\n@docs/x.md\n@../outside.md\n");
    std::fs::write(p.dir.path().join("outside.md"), "OUTSIDE\n").unwrap();
    let r = p.resolve(Host::Claude, "sub");
    assert_eq!(labels(&r), vec!["CLAUDE.md", "docs/x.md"]);
    assert!(!render_native(&r).contains("OUTSIDE"));
}
