//! opencode's profile: the project files, `OPENCODE_DISABLE_PROJECT_CONFIG`
//! and the files its configs' `instructions` name (the parity suite,
//! tests/e2e/parity_opencode.py, compares the same cases with the real
//! client byte for byte).

use agentspine_core::{Environment, Host, Request, render_native, resolve};
use agentspine_fs::{Budget, Reader};

use crate::support::{Project, labels, verdict_of};

const CFG: &str = "{\"$schema\": \"https://opencode.ai/config.json\", \"instructions\": ";

fn entry(p: &Project, rel: &str, text: &str) -> String {
    format!("Instructions from: {}\n{text}", p.tree.join(rel).display())
}

/// The names in `dir` as opencode's glob walk meets them: the reverse of
/// the directory's order on disk.
fn walk_order(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    names.reverse();
    names
}

fn resolve_with(p: &Project, cwd: &str, vars: &[(&str, String)]) -> agentspine_core::Resolution {
    let home = p.home.clone();
    let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect();
    let env = Environment::from_vars(|name| {
        if name == "HOME" {
            return Some(home.clone().into_os_string());
        }
        vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.into())
    });
    let reader = Reader::new(Budget::UNLIMITED);
    resolve(&Request::new(Host::Opencode, p.tree.join(cwd)), &env, &reader).unwrap()
}

#[test]
fn project_config_off_drops_every_project_file_and_keeps_the_global_one() {
    let p = Project::git();
    p.file("AGENTS.md", "root agents\n").file("opencode.json", format!("{CFG}[\"docs/*.md\"]}}\n"));
    p.file("docs/a.md", "docs a\n");
    p.home_file(".config/opencode/AGENTS.md", "global opencode\n");
    p.home_file(".config/opencode/opencode.json", format!("{CFG}[\"rel/*.md\"]}}\n"));
    p.file("rel/r.md", "project rel\n");
    let r = resolve_with(&p, ".", &[("OPENCODE_DISABLE_PROJECT_CONFIG", "1".to_owned())]);
    let global = p.home.join(".config/opencode/AGENTS.md");
    assert_eq!(render_native(&r), format!("Instructions from: {}\nglobal opencode\n", global.display()));
    assert_eq!(r.parts.len(), 1);
    assert!(verdict_of(&r, "AGENTS.md").starts_with("disabled"), "{}", verdict_of(&r, "AGENTS.md"));
    // The project's config is not read; the global config's relative
    // entries are looked for in its own directory, out of the project.
    assert_eq!(verdict_of(&r, "~/.config/opencode/rel/*.md"), "outside-root");
    assert!(r.probes.iter().all(|probe| !probe.path.contains("docs")));
}

#[test]
fn config_instructions_follow_the_files_in_merge_order_each_path_once() {
    let p = Project::git();
    p.file("AGENTS.md", "root agents\n").file("pkg/AGENTS.md", "pkg agents\n");
    p.file(
        "opencode.json",
        format!(
            "{CFG}[\"docs/rules.md\", \"guides/*.md\", \"deep/**/*.md\", \"missing.md\", \"AGENTS.md\"]}}\n"
        ),
    );
    p.file("docs/rules.md", "docs rules\n").file("guides/b.md", "guide b\n").file("guides/a.md", "guide a\n");
    p.file("deep/x/y/z.md", "deep z\n").file("deep/top.md", "deep top\n").file("deep/x/dir.md/f", "no\n");
    p.home_file(".config/opencode/opencode.json", format!("{CFG}[\"g.md\"]}}\n"));
    p.file("g.md", "global-listed\n");
    let r = p.resolve(Host::Opencode, "pkg");
    let guides: Vec<String> = walk_order(&p.tree.join("guides"))
        .iter()
        .map(|n| entry(&p, &format!("guides/{n}"), &format!("guide {}\n", &n[..1])))
        .collect();
    let expected = [
        entry(&p, "pkg/AGENTS.md", "pkg agents\n"),
        entry(&p, "AGENTS.md", "root agents\n"),
        entry(&p, "g.md", "global-listed\n"),
        entry(&p, "docs/rules.md", "docs rules\n"),
        guides.join("\n"),
        entry(&p, "deep/top.md", "deep top\n"),
        entry(&p, "deep/x/y/z.md", "deep z\n"),
    ]
    .join("\n");
    assert_eq!(render_native(&r), expected);
    assert_eq!(verdict_of(&r, "AGENTS.md"), "duplicate");
    assert_eq!(r.parts.len(), 8);
}

#[test]
fn a_relative_entry_is_tried_from_the_cwd_up_to_the_root_closest_first_never_below() {
    let p = Project::git();
    p.file("opencode.json", format!("{CFG}[\"notes.md\", \"**/RULES.md\"]}}\n"));
    p.file("notes.md", "root notes\n")
        .file("pkg/notes.md", "pkg notes\n")
        .file("pkg/sub/notes.md", "below\n");
    for sub in ["z", "a", "m", "b", "y", "k"] {
        p.file(&format!("pkg/{sub}/RULES.md"), format!("pkg {sub}\n"));
    }
    p.file("pkg/RULES.md", "pkg\n");
    p.file("RULES.md", "root\n").file("other/RULES.md", "other\n");
    let r = p.resolve(Host::Opencode, "pkg");
    // A directory's own match first, then its subdirectories' in name order
    // (opencode reads sibling directories concurrently, in no fixed order).
    let expected = [
        "pkg/notes.md",
        "notes.md",
        "pkg/RULES.md",
        "pkg/a/RULES.md",
        "pkg/b/RULES.md",
        "pkg/k/RULES.md",
        "pkg/m/RULES.md",
        "pkg/y/RULES.md",
        "pkg/z/RULES.md",
        "RULES.md",
        "other/RULES.md",
    ];
    assert_eq!(labels(&r), expected);
    assert_eq!(verdict_of(&r, "pkg/RULES.md"), "duplicate", "the root's walk meets it again");
}

#[test]
fn directories_a_glob_part_matches_are_walked_in_name_order_their_files_in_walk_order() {
    let p = Project::git();
    p.file("opencode.json", format!("{CFG}[\"pkg/*/*.md\"]}}\n"));
    for sub in ["z", "a", "m", "b", "y", "k"] {
        p.file(&format!("pkg/{sub}/one.md"), format!("{sub} one\n"));
        p.file(&format!("pkg/{sub}/two.md"), format!("{sub} two\n"));
    }
    p.file("pkg/top.md", "not two parts deep\n");
    let r = p.resolve(Host::Opencode, "");
    let mut expected = Vec::new();
    for sub in ["a", "b", "k", "m", "y", "z"] {
        expected
            .extend(walk_order(&p.tree.join("pkg").join(sub)).into_iter().map(|n| format!("pkg/{sub}/{n}")));
    }
    assert_eq!(labels(&r), expected);
}

#[test]
fn entries_out_of_the_project_are_listed_never_opened_and_the_rest_is_read() {
    let p = Project::git();
    let tree = p.tree.display().to_string();
    let home = p.home.display().to_string();
    p.file(
        "opencode.json",
        format!(
            "{CFG}[\"../outside/rel.md\", \"{home}/abs/*.md\", \"~/tilde.md\", \"{tree}/inside/abs.md\", \
             \"{tree}/inside/g*.md\", \"https://example.invalid/r.md\", \"in-link.md\", \"out-link.md\", \
             \"empty.md\", \"adir\"]}}\n"
        ),
    );
    p.file("inside/abs.md", "inside absolute\n").file("inside/g1.md", "inside glob\n");
    p.file("docs/target.md", "link target\n").symlink("in-link.md", "docs/target.md");
    p.symlink("out-link.md", p.home.join("out.md"));
    p.file("empty.md", "").file("adir/x.md", "x\n");
    p.home_file("abs/one.md", "home abs\n")
        .home_file("tilde.md", "home tilde\n")
        .home_file("out.md", "out\n");
    std::fs::create_dir_all(p.dir.path().join("outside")).unwrap();
    std::fs::write(p.dir.path().join("outside/rel.md"), "outside relative\n").unwrap();
    let reader_before = Reader::new(Budget::UNLIMITED);
    let r = resolve(&Request::new(Host::Opencode, p.tree.clone()), &p.env(), &reader_before).unwrap();
    let expected = [
        entry(&p, "inside/abs.md", "inside absolute\n"),
        entry(&p, "inside/g1.md", "inside glob\n"),
        entry(&p, "in-link.md", "link target\n"),
    ]
    .join("\n");
    assert_eq!(render_native(&r), expected);
    for outside in ["~/abs/*.md", "~/tilde.md", "https://example.invalid/r.md"] {
        assert_eq!(verdict_of(&r, outside), "outside-root", "{outside}");
    }
    let rel = p.dir.path().join("outside/rel.md").display().to_string();
    assert_eq!(verdict_of(&r, &rel), "outside-root");
    assert!(verdict_of(&r, "out-link.md").starts_with("link-refused"), "{}", verdict_of(&r, "out-link.md"));
    assert_eq!(verdict_of(&r, "empty.md"), "empty");
    // Nothing out of the project was read: only the tree's files and the configs.
    let read: Vec<&str> = r.parts.iter().map(|part| part.label.as_str()).collect();
    assert_eq!(read, ["inside/abs.md", "inside/g1.md", "in-link.md"]);
}

#[test]
fn configs_merge_global_then_root_to_cwd_then_dot_opencode_cwd_first() {
    let p = Project::git();
    p.file("opencode.jsonc", "{\n  // a comment\n  \"instructions\": [\"r1.md\",],\n}\n");
    p.file("pkg/opencode.json", format!("{CFG}[\"r2.md\"]}}\n"));
    p.file("pkg/.opencode/opencode.json", format!("{CFG}[\"r3.md\"]}}\n"));
    p.file(".opencode/opencode.json", format!("{CFG}[\"r4.md\"]}}\n"));
    for n in ["r1", "r2", "r3", "r4"] {
        p.file(&format!("{n}.md"), format!("{n}\n"));
    }
    let r = p.resolve(Host::Opencode, "pkg");
    assert_eq!(labels(&r), ["r1.md", "r2.md", "r3.md", "r4.md"]);
}

#[test]
fn a_glob_matches_dot_files_and_links_in_walk_order_and_never_a_directory() {
    let p = Project::git();
    p.file("opencode.json", format!("{CFG}[\"notes/*.md\"]}}\n"));
    for n in ["m", "z", "b", "y", "a", "k"] {
        p.file(&format!("notes/{n}.md"), format!("note {n}\n"));
    }
    p.file("notes/.hidden.md", "hidden note\n").file("real.md", "real via link\n");
    p.symlink("notes/link.md", "../real.md").file("notes/dir.md/x", "in a dir\n");
    p.file("notes/sub/deep.md", "below the glob\n");
    let r = p.resolve(Host::Opencode, ".");
    let expected: Vec<String> = walk_order(&p.tree.join("notes"))
        .into_iter()
        .filter(|n| n != "dir.md" && n != "sub")
        .map(|n| format!("notes/{n}"))
        .collect();
    assert_eq!(labels(&r), expected);
    assert_eq!(r.parts.len(), 8);
    let link = r.parts.iter().find(|part| part.label == "notes/link.md").unwrap();
    assert_eq!(link.text, "real via link\n");
}

#[test]
fn a_link_loop_by_a_name_on_the_way_up_drops_every_copy_of_that_name() {
    // links_loop_below_root: the cwd's AGENTS.md loops, so opencode's search
    // for AGENTS.md fails whole and the cwd's CLAUDE.md is sent instead.
    let p = Project::git();
    p.file("AGENTS.md", "root agents\n")
        .symlink("pkg/AGENTS.md", "loop.md")
        .symlink("pkg/loop.md", "AGENTS.md");
    p.file("pkg/CLAUDE.md", "pkg claude\n");
    let r = p.resolve(Host::Opencode, "pkg");
    assert_eq!(render_native(&r), entry(&p, "pkg/CLAUDE.md", "pkg claude\n"));
    assert_eq!(verdict_of(&r, "AGENTS.md"), "skipped");
    assert!(
        verdict_of(&r, "pkg/AGENTS.md").starts_with("link-refused (loop"),
        "{}",
        verdict_of(&r, "pkg/AGENTS.md")
    );
    // links_loop: loops for AGENTS.md and CLAUDE.md at the root: nothing at all.
    let q = Project::git();
    q.symlink("AGENTS.md", "loop.md").symlink("loop.md", "AGENTS.md").symlink("CLAUDE.md", "CLAUDE.md");
    q.file("pkg/AGENTS.md", "pkg agents\n");
    let r = q.resolve(Host::Opencode, "pkg");
    assert_eq!(render_native(&r), "");
    assert_eq!(verdict_of(&r, "pkg/AGENTS.md"), "skipped");
}

#[test]
fn a_file_over_claude_s_4_mib_is_sent_whole() {
    let p = Project::git();
    let big = "x".repeat(5 * 1024 * 1024 - 1) + "\n";
    p.file("CLAUDE.md", &big);
    let r = p.resolve(Host::Opencode, ".");
    assert_eq!(r.parts.len(), 1);
    assert_eq!(r.parts[0].text.len(), 5 * 1024 * 1024);
    assert_eq!(render_native(&r), entry(&p, "CLAUDE.md", &big));
}

#[test]
fn the_config_file_opencode_config_names_is_merged_after_the_global_one_and_before_the_project_s() {
    // Measured: oc_cfg_custom_file (global, then $OPENCODE_CONFIG, then the
    // project's; an entry twice is taken once).
    let p = Project::git();
    p.home_file(".config/opencode/opencode.json", format!("{CFG}[\"g.md\"]}}"))
        .home_file("custom/my.json", format!("{CFG}[\"c.md\", \"g.md\"]}}"));
    p.file("opencode.json", format!("{CFG}[\"p.md\"]}}"))
        .file("g.md", "global-listed\n")
        .file("p.md", "project-listed\n")
        .file("c.md", "custom-listed\n");
    let named = p.home.join("custom/my.json").display().to_string();
    let r = resolve_with(&p, ".", &[("OPENCODE_CONFIG", named)]);
    let want = [
        entry(&p, "g.md", "global-listed\n"),
        entry(&p, "c.md", "custom-listed\n"),
        entry(&p, "p.md", "project-listed\n"),
    ]
    .join("\n");
    assert_eq!(render_native(&r), want);
    // Unset, or a relative path (ignored): only the global and the project's.
    for vars in [&[][..], &[("OPENCODE_CONFIG", "custom/my.json".to_owned())][..]] {
        let r = resolve_with(&p, ".", vars);
        assert_eq!(
            render_native(&r),
            [entry(&p, "g.md", "global-listed\n"), entry(&p, "p.md", "project-listed\n")].join("\n")
        );
    }
}
