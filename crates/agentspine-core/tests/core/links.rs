//! Links inside the project, in the layouts real repositories use: every
//! host reads the file a link names (HOSTS.md, "Every host we measured
//! follows symlinks"), and so does agentspine, by that file's own path,
//! labelled as the host labels it.

use agentspine_core::{Host, render_native};

use crate::support::{Project, labels, verdict_of};

/// `text` of each part, for terse assertions.
fn texts(r: &agentspine_core::Resolution) -> Vec<String> {
    r.parts.iter().map(|p| p.text.trim().to_owned()).collect()
}

fn targets(r: &agentspine_core::Resolution) -> Vec<Option<String>> {
    r.parts.iter().map(|p| p.link.as_ref().map(|l| l.target.clone())).collect()
}

/// `CLAUDE.md -> AGENTS.md` beside it, at the root and in a package: the
/// commonest layout. Claude Code reads the CLAUDE.md family (the links),
/// labelled by the links' own paths; the AGENTS.md hosts read AGENTS.md.
#[test]
fn claude_md_linked_to_the_agents_md_beside_it() {
    let p = Project::git();
    p.file("AGENTS.md", "root rules\n").symlink("CLAUDE.md", "AGENTS.md");
    p.file("pkg/AGENTS.md", "pkg rules\n").symlink("pkg/CLAUDE.md", "AGENTS.md");
    let claude = p.resolve(Host::Claude, "pkg");
    assert_eq!(labels(&claude), ["CLAUDE.md", "pkg/CLAUDE.md"]);
    assert_eq!(texts(&claude), ["root rules", "pkg rules"]);
    assert_eq!(targets(&claude), [Some("AGENTS.md".to_owned()), Some("pkg/AGENTS.md".to_owned())]);
    let native = render_native(&claude);
    assert!(native.contains(&format!("Contents of {} (project", p.tree.join("pkg/CLAUDE.md").display())));
    for host in [Host::Codex, Host::Pi, Host::Pi073, Host::Desktop, Host::Generic] {
        let r = p.resolve(host, "pkg");
        assert_eq!(labels(&r), ["AGENTS.md", "pkg/AGENTS.md"], "{host}");
        assert_eq!(texts(&r), ["root rules", "pkg rules"], "{host}");
    }
    assert!(p.resolve(Host::Gemini, "pkg").parts.is_empty(), "Gemini reads GEMINI.md only");
}

/// The root `AGENTS.md` is a link into `.agents/`, `CLAUDE.md` a link to
/// that link: two hops, every host sends the hidden file.
#[test]
fn agents_md_linked_into_a_hidden_directory_and_a_link_to_that_link() {
    let p = Project::git();
    p.file(".agents/AGENTS.md", "hidden rules\n").symlink("AGENTS.md", ".agents/AGENTS.md");
    p.symlink("CLAUDE.md", "AGENTS.md").symlink("GEMINI.md", "AGENTS.md");
    for host in Host::ALL {
        let r = p.resolve(host, ".");
        assert_eq!(texts(&r), ["hidden rules"], "{host}");
        let link = r.parts[0].link.as_ref().unwrap();
        assert_eq!(link.target, ".agents/AGENTS.md", "{host}");
        assert_eq!(link.path, p.tree.join(".agents/AGENTS.md"), "{host}");
        assert_eq!(link.hops, if r.parts[0].label == "AGENTS.md" { 1 } else { 2 }, "{host}");
    }
}

/// Packages linking one shared file elsewhere in the project.
#[test]
fn packages_linking_a_shared_file() {
    let p = Project::git();
    p.file("shared/rules.md", "shared rules\n");
    for pkg in ["a", "b"] {
        p.symlink(&format!("packages/{pkg}/AGENTS.md"), "../../shared/rules.md");
        p.symlink(&format!("packages/{pkg}/CLAUDE.md"), "../../shared/rules.md");
        p.symlink(&format!("packages/{pkg}/GEMINI.md"), "../../shared/rules.md");
    }
    for host in Host::ALL {
        let r = p.resolve(host, "packages/b");
        assert_eq!(texts(&r), ["shared rules"], "{host}");
        assert_eq!(targets(&r), [Some("shared/rules.md".to_owned())], "{host}");
    }
}

/// A link that names nothing, loops, or names a directory gives the host
/// nothing either: the next candidate of the directory is read (pi and
/// Codex check a candidate through the link).
#[test]
fn dangling_looping_and_directory_links_pass_the_slot_on() {
    let p = Project::git();
    p.symlink("a/AGENTS.md", "missing.md").file("a/CLAUDE.md", "a claude\n");
    p.symlink("b/AGENTS.md", "loop.md").symlink("b/loop.md", "AGENTS.md").file("b/CLAUDE.md", "b claude\n");
    p.symlink("c/AGENTS.md", "docs").file("c/docs/x.md", "x\n").file("c/CLAUDE.md", "c claude\n");
    for host in [Host::Pi, Host::Pi073, Host::Desktop] {
        for (dir, verdict) in [
            ("a", "link-refused (dangling: missing.md)"),
            ("b", "link-refused (loop: loop.md)"),
            ("c", "not-regular (directory)"),
        ] {
            let r = p.resolve(host, dir);
            assert_eq!(verdict_of(&r, &format!("{dir}/AGENTS.md")), verdict, "{host} {dir}");
            assert_eq!(texts(&r), [format!("{dir} claude")], "{host} {dir}");
            assert!(r.probes.iter().all(|pr| pr.host_differs.is_none()), "{host} {dir}: no difference");
        }
    }
    let r = p.resolve(Host::Codex, "c");
    assert!(r.parts.is_empty(), "Codex reads no CLAUDE.md by default");
}

/// `AGENTS.override.md -> AGENTS.md`: Codex reads the override (the same
/// text) and the file it names is shadowed, sent once.
#[test]
fn an_override_linked_to_agents_md_is_read_once_by_codex() {
    let p = Project::git();
    p.file("AGENTS.md", "plain\n").symlink("AGENTS.override.md", "AGENTS.md");
    let r = p.resolve(Host::Codex, ".");
    assert_eq!(labels(&r), ["AGENTS.override.md"]);
    assert_eq!(texts(&r), ["plain"]);
    assert_eq!(verdict_of(&r, "AGENTS.md"), "shadowed-by AGENTS.override.md");
}

/// Links out of the project, into `.git`, or through more links than the
/// bound are refused on the way, whatever they name.
#[test]
fn links_leaving_the_project_or_into_git_are_refused_and_nothing_is_read() {
    let p = Project::git();
    std::fs::write(p.dir.path().join("secret.md"), "SECRET\n").unwrap();
    p.file(".git/info/rules.md", "GITDB\n");
    p.symlink("a/AGENTS.md", "../../secret.md");
    p.symlink("b/AGENTS.md", p.dir.path().join("secret.md"));
    p.symlink("c/AGENTS.md", "../.git/info/rules.md");
    p.symlink("d/AGENTS.md", "../c/AGENTS.md");
    p.symlink("e/AGENTS.md", "/proc/self/cwd/../secret.md");
    for host in Host::ALL {
        for dir in ["a", "b", "c", "d", "e"] {
            let r = p.resolve(host, dir);
            let native = render_native(&r);
            assert!(!native.contains("SECRET") && !native.contains("GITDB"), "{host} {dir}: {native}");
        }
    }
    let r = p.resolve(Host::Codex, "c");
    assert!(verdict_of(&r, "c/AGENTS.md").starts_with("link-refused (into-git: "));
}

/// Exact cost of a linked candidate: the link's text is read once, the
/// file it names is read once, nothing is listed.
#[test]
fn a_linked_candidate_costs_one_readlink_and_one_read() {
    let p = Project::git();
    p.file(".agents/AGENTS.md", "hidden rules\n").symlink("AGENTS.md", ".agents/AGENTS.md");
    let plain = Project::git();
    plain.file("AGENTS.md", "hidden rules\n");
    let linked = p.resolve(Host::Codex, ".").counters;
    let direct = plain.resolve(Host::Codex, ".").counters;
    assert_eq!((linked.readlinks, linked.reads, linked.dir_enumerations), (1, 1, 0));
    assert_eq!((direct.readlinks, direct.reads), (0, 1));
    assert_eq!(linked.bytes_read, direct.bytes_read);
}

/// Claude Code resolves a linked file's imports from the file's real
/// directory (HOSTS.md, imports).
#[test]
fn claude_imports_in_a_linked_file_are_relative_to_its_target() {
    let p = Project::git();
    p.file(".agents/AGENTS.md", "see @style.md\n").file(".agents/style.md", "hidden style\n");
    p.file("style.md", "WRONG root style\n");
    p.symlink("CLAUDE.md", ".agents/AGENTS.md");
    let r = p.resolve(Host::Claude, ".");
    assert_eq!(texts(&r), ["see @style.md", "hidden style"]);
}

/// One rule for a root or working directory a caller names: the user's
/// (the CLI) is followed once and the request bound to the directory it
/// names; a client's (MCP, hooks, the socket) is taken as given and one
/// through a link is refused with `root-through-link`.
#[test]
fn a_named_root_through_a_link_is_followed_once_for_the_user_and_refused_for_a_client() {
    use agentspine_core::catalog::SourceIds;
    use agentspine_core::{NamedRoots, Request, Resolver};
    use agentspine_fs::{Budget, Reader};
    let p = Project::git();
    p.file("AGENTS.md", "root rules\n").file("pkg/AGENTS.md", "pkg\n");
    let linked = p.dir.path().join("linked");
    std::os::unix::fs::symlink(&p.tree, &linked).unwrap();
    let resolver = |named| {
        Resolver::new(p.env(), Reader::new(Budget::UNLIMITED))
            .with_ids(SourceIds::new([7; 32]))
            .with_named_roots(named)
    };
    let by_cwd = Request::new(Host::Codex, linked.join("pkg"));
    let by_root = Request { root: Some(linked.clone()), ..Request::new(Host::Codex, p.tree.join("pkg")) };
    for request in [&by_cwd, &by_root] {
        let user = resolver(NamedRoots::FollowedOnce).chain(request).unwrap();
        assert_eq!(user.project_root, p.tree.canonicalize().unwrap());
        assert_eq!(texts(&user), ["root rules", "pkg"]);
        let client = resolver(NamedRoots::TakenAsGiven).chain(request).unwrap_err();
        assert_eq!(client.code(), "root-through-link");
        let named = request.root.clone().unwrap_or_else(|| request.cwd.clone());
        let which = if named == linked { "it".to_owned() } else { linked.display().to_string() };
        assert!(
            client
                .to_string()
                .starts_with(&format!("{}: refused: {which} is a symbolic link", named.display())),
            "{client}"
        );
    }
    // The same directory named without a link resolves for both.
    let plain = Request::new(Host::Codex, p.tree.join("pkg"));
    assert_eq!(texts(&resolver(NamedRoots::TakenAsGiven).chain(&plain).unwrap()), ["root rules", "pkg"]);
}

/// A global file that links within its profile is read (once, under the
/// link's name: Claude Code does not send the same file again as a user
/// rule); one that links out of the profile (a dotfiles repository in
/// `$HOME`) is refused: agentspine reads a profile's files only beneath it.
#[test]
fn a_global_file_linked_out_of_its_profile_is_refused() {
    let p = Project::git();
    p.file("CLAUDE.md", "project\n").file("AGENTS.md", "project\n");
    p.home_file(".claude/rules/base.md", "claude global\n");
    std::os::unix::fs::symlink("rules/base.md", p.home.join(".claude/CLAUDE.md")).unwrap();
    p.home_file(".codex/x.md", "codex global\n");
    std::os::unix::fs::symlink("x.md", p.home.join(".codex/AGENTS.md")).unwrap();
    let claude = p.resolve(Host::Claude, ".");
    assert_eq!(labels(&claude), ["~/.claude/CLAUDE.md", "CLAUDE.md"]);
    assert_eq!(verdict_of(&claude, "~/.claude/rules/base.md"), "duplicate");
    assert_eq!(texts(&p.resolve(Host::Codex, ".")), ["codex global", "project"]);
    // Dotfiles: the profile's files link out of it.
    p.home_file("dotfiles/codex.md", "SECRET dotfile\n");
    std::fs::remove_file(p.home.join(".codex/AGENTS.md")).unwrap();
    std::os::unix::fs::symlink("../dotfiles/codex.md", p.home.join(".codex/AGENTS.md")).unwrap();
    let codex = p.resolve(Host::Codex, ".");
    assert_eq!(texts(&codex), ["project"]);
    assert!(
        verdict_of(&codex, "~/.codex/AGENTS.md").starts_with("link-refused (outside: ../dotfiles/codex.md)")
    );
}

/// Claude Code names a linked rule by its target and drops one whose
/// target lies outside the directory the session starts in; a rule linked
/// to another rule is sent once.
#[test]
fn claude_rules_that_are_links() {
    let p = Project::git();
    p.file(".claude/rules/plain.md", "plain rule\n").symlink(".claude/rules/alias.md", "plain.md");
    p.file("pkg/rules/inside.md", "inside\n").symlink(".claude/rules/inside.md", "../../pkg/rules/inside.md");
    p.file("shared/outside.md", "outside\n").symlink(".claude/rules/outside.md", "../../shared/outside.md");
    let root = p.resolve(Host::Claude, ".");
    let mut got = labels(&root);
    got.sort();
    assert_eq!(got, [".claude/rules/plain.md", "pkg/rules/inside.md", "shared/outside.md"]);
    let pkg = p.resolve(Host::Claude, "pkg");
    let mut got = labels(&pkg);
    got.sort();
    assert_eq!(got, [".claude/rules/plain.md", "pkg/rules/inside.md"]);
    assert_eq!(verdict_of(&pkg, ".claude/rules/outside.md"), "rule-link-outside-cwd (shared/outside.md)");
}

/// `claude-md-and-agents-md`: an AGENTS.md whose text a CLAUDE.md already
/// sends is left out (a link between them, or two plain files).
#[test]
fn claude_and_agents_mode_sends_repeated_text_once() {
    let p = Project::git();
    p.home_file(
        ".claude/settings.json",
        r#"{"pluginConfigs": {"agents-md@builtin": {"options": {"instructionFiles": "claude-md-and-agents-md"}}}}"#,
    );
    p.file("AGENTS.md", "same\n").file("CLAUDE.md", "same\n").file("pkg/AGENTS.md", "pkg only\n");
    let r = p.resolve(Host::Claude, "pkg");
    assert_eq!(labels(&r), ["CLAUDE.md", "pkg/AGENTS.md"]);
    assert_eq!(verdict_of(&r, "AGENTS.md"), "duplicate");
}

/// Codex stops at a link loop among its candidates and sends no project
/// file, only the global one.
#[test]
fn a_link_loop_makes_codex_send_no_project_file() {
    let p = Project::git();
    p.home_file(".codex/AGENTS.md", "global\n");
    p.file("AGENTS.md", "root\n").symlink("pkg/AGENTS.md", "loop.md").symlink("pkg/loop.md", "AGENTS.md");
    let r = p.resolve(Host::Codex, "pkg");
    assert_eq!(texts(&r), ["global"]);
    assert!(
        verdict_of(&r, "AGENTS.md").starts_with("disabled (Codex stops at the link loop at pkg/AGENTS.md")
    );
}
