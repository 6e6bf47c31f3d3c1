//! Host rules that the parity suite cannot reach (the desktop rule has no
//! CLI to compare with) or that need configuration the fixtures do not set.

use agentspine_core::{Environment, Host, Request, render_native, resolve};
use agentspine_fs::{Budget, Reader};

use crate::support::{Project, labels, verdict_of};

#[test]
fn desktop_caps_at_32_kib_keeping_the_closest_rules_whole() {
    let p = Project::git();
    // A 40 KiB chain: the global file, a root file whose 'é' (2 bytes)
    // straddles the cap, then 12,000 and 16,000 bytes closer to the target.
    p.home_file(".pi/agent/AGENTS.md", "global, farthest of all\n");
    let room = 32 * 1024 - 16_000 - 12_000;
    let root = format!("{}é{}", "a".repeat(room - 1), "s".repeat(12_000));
    p.file("AGENTS.md", &root);
    p.file("sub/AGENTS.md", "b".repeat(12_000));
    p.file("sub/deeper/AGENTS.md", "c".repeat(16_000));
    let r = p.resolve(Host::Desktop, "sub/deeper");
    assert_eq!(labels(&r), vec!["AGENTS.md", "sub/AGENTS.md", "sub/deeper/AGENTS.md"]);
    assert_eq!(r.parts[2].text.len(), 16_000, "the closest file is kept whole");
    assert_eq!(r.parts[1].text.len(), 12_000, "and the next closest");
    let cut = r.parts[0].cut.expect("the file nearest the root is cut");
    assert_eq!(cut.total, root.len() as u64);
    assert_eq!(cut.kept, room as u64 - 1, "the cut falls before the 2-byte character");
    assert!(root.starts_with(&r.parts[0].text), "the beginning is kept");
    let content: usize = r.parts.iter().map(|part| part.text.len()).sum();
    assert!(content <= 32 * 1024, "{content}");
    assert_eq!(verdict_of(&r, "AGENTS.md"), format!("truncated at {} of {} bytes", cut.kept, cut.total));
    assert_eq!(verdict_of(&r, "~/.pi/agent/AGENTS.md"), "budget-spent", "the global file goes first");
    let native = render_native(&r);
    assert!(native.contains(&format!("## AGENTS.md (cut at {} of {} bytes)", cut.kept, cut.total)));
    assert!(native.contains("later (closer) entries take precedence"));
    assert!(!native.contains("farthest of all"));
}

#[test]
fn desktop_cuts_on_a_character_boundary() {
    let p = Project::git();
    // The closest file takes all but 1 byte; the root file's first
    // character, an 'é' (2 bytes), does not fit in that byte.
    let near = "n".repeat(32 * 1024 - 1);
    p.file("AGENTS.md", "é and more");
    p.file("sub/AGENTS.md", &near);
    let r = p.resolve(Host::Desktop, "sub");
    assert_eq!(labels(&r), vec!["AGENTS.md", "sub/AGENTS.md"]);
    assert_eq!(r.parts[0].text, "", "the 2-byte character does not fit in 1 byte");
    assert_eq!(r.parts[0].cut.map(|c| (c.kept, c.total)), Some((0, "é and more".len() as u64)));
}

#[test]
fn desktop_takes_the_first_non_blank_candidate_and_the_fixed_global_file() {
    let p = Project::git();
    p.file("AGENTS.override.md", "  \n").file("AGENTS.md", "").file("CLAUDE.md", "claude wins\n");
    p.file(".claude/CLAUDE.md", "shadowed\n");
    p.home_file(".pi/agent/AGENTS.md", "global\n");
    let r = p.resolve(Host::Desktop, ".");
    assert_eq!(labels(&r), vec!["~/.pi/agent/AGENTS.md", "CLAUDE.md"]);
    assert_eq!(verdict_of(&r, "AGENTS.override.md"), "empty");
    assert_eq!(verdict_of(&r, ".claude/CLAUDE.md"), "shadowed-by CLAUDE.md");
    let generic = p.resolve(Host::Generic, ".");
    assert_eq!(labels(&generic), vec!["CLAUDE.md"], "generic has no profile");
}

#[test]
fn codex_config_layers_profile_and_trust() {
    let p = Project::git();
    p.file("AGENTS.md", "0123456789abcdef\n").file("TEAM.md", "team\n");
    std::fs::create_dir_all(p.dir.path().join("etc-codex")).unwrap();
    std::fs::write(p.dir.path().join("etc-codex/config.toml"), "project_doc_max_bytes = 4\n").unwrap();
    p.home_file(".codex/config.toml", "project_doc_max_bytes = 8\n");
    p.home_file(".codex/work.config.toml", "project_doc_max_bytes = 12\n");
    let reader = || Reader::new(Budget::UNLIMITED);
    let mut env: Environment = p.env();
    let r = resolve(&p.request(Host::Codex, "."), &env, &reader()).unwrap();
    assert_eq!(r.parts[0].text, "01234567", "the user's config overrides the system's");
    env.codex_profile = Some("work".into());
    let r = resolve(&p.request(Host::Codex, "."), &env, &reader()).unwrap();
    assert_eq!(r.parts[0].text, "0123456789ab", "the profile overrides the user's config");

    let key = p.tree.display().to_string();
    p.home_file(".codex/config.toml", format!("[projects.\"{key}\"]\ntrust_level = \"untrusted\"\n"));
    let r = resolve(&p.request(Host::Codex, "."), &p.env(), &reader()).unwrap();
    assert!(r.parts.is_empty());
    assert_eq!(verdict_of(&r, "AGENTS.md"), "disabled (the project is marked trust_level = \"untrusted\")");
}

#[test]
fn codex_ignores_a_repository_own_config() {
    let p = Project::git();
    p.file("AGENTS.md", "root\n").file("sub/AGENTS.md", "sub\n");
    p.file(".codex/config.toml", "project_root_markers = [\"sub\"]\nproject_doc_max_bytes = 2\n");
    let r = p.try_resolve(&Request { ..p.request(Host::Codex, "sub") }).unwrap();
    assert_eq!(labels(&r), vec!["AGENTS.md", "sub/AGENTS.md"], "root by .git, no cap from the repository");
}

#[test]
fn pi_0_73_keeps_an_empty_file_as_a_bare_heading() {
    let p = Project::git();
    p.file("AGENTS.md", "").file("CLAUDE.md", "hidden by the empty AGENTS.md\n");
    let native = render_native(&p.resolve(Host::Pi073, "."));
    let path = p.tree.join("AGENTS.md");
    assert_eq!(
        native,
        format!(
            "# Project Context\n\nProject-specific instructions and guidelines:\n\n## {}\n\n\n\n",
            path.display()
        )
    );
}

#[test]
fn pi_keeps_an_empty_file_as_an_empty_element() {
    let p = Project::git();
    p.file("AGENTS.md", "").file("CLAUDE.md", "hidden by the empty AGENTS.md\n");
    let native = render_native(&p.resolve(Host::Pi, "."));
    let path = p.tree.join("AGENTS.md");
    assert_eq!(
        native,
        format!(
            "<project_context>\nProject-specific instructions and guidelines:\n\n<project_instructions path=\"{}\">\n\n\
             </project_instructions>\n</project_context>",
            path.display()
        )
    );
}

#[test]
fn pi_reads_the_override_first_and_drops_the_bom_where_0_73_does_neither() {
    let p = Project::git();
    p.file("AGENTS.override.md", "\u{feff}override\r\n").file("AGENTS.md", "\u{feff}plain\n");
    let current = p.resolve(Host::Pi, ".");
    assert_eq!(labels(&current), vec!["AGENTS.override.md"]);
    assert_eq!(current.parts[0].text, "override\r\n", "BOM dropped, CRLF and the final newline kept");
    assert_eq!(verdict_of(&current, "AGENTS.md"), "shadowed-by AGENTS.override.md");
    let old = p.resolve(Host::Pi073, ".");
    assert_eq!(labels(&old), vec!["AGENTS.md"]);
    assert_eq!(old.parts[0].text, "\u{feff}plain\n", "0.73 keeps the BOM");
    assert!(old.probes.iter().all(|pr| pr.path != "AGENTS.override.md"), "0.73 never looks for the override");
}
