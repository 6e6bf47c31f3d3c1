//! `check` on the layouts whose host behaviour the end-to-end suite
//! measured against the real clients (tests/e2e/check_proofs.py): a bind
//! mount below the root, an unreadable file, the import line numbers and
//! `@` imports inside code. Each asserts the exact findings and what
//! agentspine itself resolves.

use std::process::Command;
use std::sync::Arc;

use agentspine_core::check::{Check, CheckRequest, Severity};
use agentspine_core::{Host, Resolver};
use agentspine_fs::{Budget, Reader};

use crate::support::{Project, chmod, labels, without_dac_override};

fn check(p: &Project, hosts: &[Host]) -> Check {
    check_paths(p, hosts, &[])
}

/// A check that also looks at `paths` (relative to the tree).
fn check_paths(p: &Project, hosts: &[Host], paths: &[&str]) -> Check {
    let resolver = Resolver::new(p.env(), Reader::new(Budget::UNLIMITED));
    let paths = paths.iter().map(|d| p.tree.join(d)).collect();
    resolver.check(&CheckRequest { paths, ..CheckRequest::new(p.tree.clone(), hosts.to_vec()) }).unwrap()
}

/// `(id, host, path, line)` of every finding, in report order.
fn found(c: &Check) -> Vec<(&str, &str, &str, Option<u64>)> {
    c.findings
        .iter()
        .map(|f| (f.kind.id(), f.host.map_or("-", |h| h.as_str()), f.path.as_str(), f.line))
        .collect()
}

#[test]
fn a_bind_mount_below_the_root_is_one_finding_per_directory() {
    let p = Project::git();
    p.file("AGENTS.md", "root\n").file("pkg/keep", "");
    let outside = p.dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("AGENTS.md"), "through the mount\n").unwrap();
    let target = p.tree.join("pkg");
    let mounted = Command::new("mount").arg("--bind").arg(&outside).arg(&target).output();
    match mounted {
        Ok(out) if out.status.success() => {}
        Ok(out) => {
            eprintln!("skipped: mount --bind refused: {}", String::from_utf8_lossy(&out.stderr).trim());
            return;
        }
        Err(e) => {
            eprintln!("skipped: cannot run mount: {e}");
            return;
        }
    }
    let r = p.resolve(Host::Codex, "pkg");
    // The discovery does not look past the mount either: pkg is named.
    let c = check_paths(&p, &[Host::Codex, Host::Claude], &["pkg"]);
    let _ = Command::new("umount").arg(&target).status();
    assert_eq!(labels(&r), vec!["AGENTS.md"], "nothing is read through the mount");
    // Every candidate in pkg crosses the mount: one finding per host.
    assert_eq!(
        found(&c),
        vec![("mount-crossing", "claude", "pkg/", None), ("mount-crossing", "codex", "pkg/", None)]
    );
    assert_eq!(
        c.findings[1].message,
        "Codex reads its instruction files in this directory through a mount point below the root"
    );
    assert_eq!(
        c.findings[1].agentspine.as_deref(),
        Some("agentspine never crosses a mount point below the root: it reads none of them")
    );
    assert_eq!(c.findings[1].dirs, vec!["pkg"]);
}

#[test]
fn an_unreadable_file_is_left_out_and_codex_loses_every_project_doc() {
    let p = Arc::new(Project::git());
    p.file("AGENTS.md", "locked\n").file("sub/AGENTS.md", "sub\n");
    chmod(&p.tree.join("AGENTS.md"), 0o000);
    let p2 = p.clone();
    let (r, c) =
        without_dac_override(move || (p2.resolve(Host::Codex, "sub"), check(&p2, &[Host::Codex, Host::Pi])));
    chmod(&p.tree.join("AGENTS.md"), 0o644);
    assert_eq!(labels(&r), vec!["sub/AGENTS.md"], "agentspine leaves out only the unreadable file");
    assert_eq!(
        found(&c),
        vec![("unreadable", "codex", "AGENTS.md", None), ("unreadable", "pi", "AGENTS.md", None)]
    );
    assert_eq!(
        c.findings[0].message,
        "Codex cannot read it (permission denied) and then sends none of the project's AGENTS.md files, only the global one"
    );
    let severities: Vec<Severity> = c.findings.iter().map(|f| f.severity).collect();
    assert_eq!(severities, vec![Severity::Error, Severity::Warning]);
    assert_eq!(c.findings[1].message, "pi cannot read it either (permission denied) and leaves it out");
}

#[test]
fn import_findings_carry_the_line_of_their_import() {
    let p = Project::git();
    p.file(
        "CLAUDE.md",
        "---\ndescription: x\n---\n# Root\n\n<!-- a note -->\n\nsee @missing.md\n@a.md and more\n",
    );
    p.file("a.md", "a\n\n@CLAUDE.md\n");
    let c = check(&p, &[Host::Claude]);
    assert_eq!(
        found(&c),
        vec![
            ("import-missing", "claude", "CLAUDE.md", Some(8)),
            ("import-repeated", "claude", "a.md", Some(3)),
        ]
    );
}

#[test]
fn an_at_path_inside_code_is_reported_not_imported() {
    let p = Project::git();
    p.file(
        "CLAUDE.md",
        "# Root\nRun `@docs/setup.md` first.\n\n```sh\nnpm i @types/node\ncat @./notes.md\n```\n@docs/real.md\n",
    );
    p.file("docs/setup.md", "setup\n").file("notes.md", "notes\n").file("docs/real.md", "real\n");
    let r = p.resolve(Host::Claude, ".");
    assert_eq!(labels(&r), vec!["CLAUDE.md", "docs/real.md"]);
    let c = check(&p, &[Host::Claude]);
    assert_eq!(
        found(&c),
        vec![
            ("import-in-code", "claude", "CLAUDE.md", Some(2)),
            ("import-in-code", "claude", "CLAUDE.md", Some(6))
        ]
    );
    assert_eq!(
        c.findings[0].message,
        "Claude Code does not expand @docs/setup.md here: it is inside inline code or a code block, so the file is not imported (write it outside code to import it)"
    );
    assert_eq!(c.findings[0].severity, Severity::Note);
    assert!(!c.findings[0].safety);
}
