//! GitHub Copilot CLI's instruction directories: what is pasted, what is
//! listed in its table and by which path, what is skipped (measured on
//! 1.0.102: tests/e2e/COPILOT-MEASURED.md).

use agentspine_core::{Host, render_native};

use crate::support::{Project, verdict_of};

const TABLE_HEAD: &str = "Here is a list of instruction files that contain rules for modifying or creating new code.\n\
These files are important for ensuring that the code is modified or created correctly.\n\
Please make sure to follow the rules specified in these files when working with the codebase.\n\
If you have not already read the file, use the `view` tool to acquire it.\n\
Make sure to acquire the instructions before making any changes to the code.\n\
| Pattern | File Path | Description |\n\
| ------- | --------- | ----------- |\n";

#[test]
fn raw_files_follow_the_elements_and_the_table_names_each_file_from_where_copilot_does() {
    let p = Project::git();
    p.file("AGENTS.md", "ROOT\n")
        .file("pkg/AGENTS.md", "PKG\n")
        .file(".github/instructions/b.instructions.md", "ROOT-RAW\n")
        .file(".github/instructions/a.instructions.md", "---\napplyTo: \"src/**\"\ndescription: A\n---\nA\n")
        .file(".claude/rules/r.md", "---\npaths:\n  - \"r/**\"\n---\nR\n")
        .file("pkg/.github/instructions/p.instructions.md", "---\napplyTo: pkg/**\n---\nP\n")
        .file("pkg/.claude/rules/raw.md", "PKG-RULE\n")
        // Between the root and the cwd, and below the cwd: never read.
        .file("mid/.github/instructions/m.instructions.md", "MID\n")
        .file("pkg/sub/.github/instructions/s.instructions.md", "BELOW\n");
    p.home_file(".copilot/instructions/u.instructions.md", "---\napplyTo: u/**\n---\nU\n")
        .home_file(".copilot/instructions/raw.instructions.md", "USER-RAW\n");
    let r = p.resolve(Host::Copilot, "pkg");
    let user_table = p.home.join(".copilot/instructions/u.instructions.md");
    let want = format!(
        "<custom_instruction>\nROOT\n\n</custom_instruction>\n\n<custom_instruction>\nPKG\n\n</custom_instruction>\n\n\
         USER-RAW\n\n\nROOT-RAW\n\n\nPKG-RULE\n\n\n{TABLE_HEAD}\
         | u/** | '{}' |  |\n\
         | src/** | '.github/instructions/a.instructions.md' | A |\n\
         | r/** | '.claude/rules/r.md' |  |\n\
         | pkg/** | '.github/instructions/p.instructions.md' |  |\n",
        user_table.display()
    );
    assert_eq!(render_native(&r), want);
    assert_eq!(verdict_of(&r, "pkg/.github/instructions/p.instructions.md"), "listed (pkg/**)");
    assert_eq!(verdict_of(&r, ".claude/rules/r.md"), "listed (r/**)");
    assert!(!render_native(&r).contains("MID") && !render_native(&r).contains("BELOW"));
}

#[test]
fn the_three_shapes_of_the_section() {
    let raw_only = Project::git();
    raw_only.file(".github/instructions/a.instructions.md", "RAW-A\n");
    assert_eq!(render_native(&raw_only.resolve(Host::Copilot, ".")), "RAW-A\n");

    let table_only = Project::git();
    table_only.file(
        ".github/instructions/a.instructions.md",
        "---\napplyTo: \"src/**\"\ndescription: D1\n---\nA\n",
    );
    assert_eq!(
        render_native(&table_only.resolve(Host::Copilot, ".")),
        format!("{TABLE_HEAD}| src/** | '.github/instructions/a.instructions.md' | D1 |")
    );

    let both = Project::git();
    both.file("AGENTS.md", "P\n").file(".github/instructions/b.instructions.md", "RAW-B\n");
    assert_eq!(
        render_native(&both.resolve(Host::Copilot, ".")),
        "<custom_instruction>\nP\n\n</custom_instruction>\n\nRAW-B\n\n"
    );
}

#[test]
fn raw_files_are_not_deduplicated_and_order_is_the_byte_order_of_their_paths() {
    let p = Project::git();
    p.file(".claude/rules/sub/7.md", "NESTED\n")
        .file(".claude/rules/10-upper.MD", "UPPER\n")
        .file(".claude/rules/1-plain.md", "DUP\n")
        .file(".claude/rules/2-plain.md", "DUP\n")
        .file(".claude/rules/8.txt", "NOT-MD\n");
    assert_eq!(render_native(&p.resolve(Host::Copilot, ".")), "DUP\n\n\nUPPER\n\n\nDUP\n\n\nNESTED\n");
}

#[test]
fn user_files_copilot_skips_are_skipped_and_said_to_be() {
    let p = Project::git();
    p.file("AGENTS.md", "ROOT\n");
    p.home_file(".copilot/instructions/a-latin.instructions.md", b"LATIN \xe9\n")
        .home_file(".copilot/instructions/b-big.instructions.md", vec![b'x'; 1024 * 1024 + 1])
        .home_file(".copilot/instructions/c-ok.instructions.md", "OK\n")
        .home_file(
            ".copilot/instructions/d-excluded.instructions.md",
            "---\nexcludeAgent: \"coding-agent\"\n---\nX\n",
        );
    let r = p.resolve(Host::Copilot, ".");
    assert_eq!(render_native(&r), "<custom_instruction>\nROOT\n\n</custom_instruction>\n\nOK\n\n");
    for name in ["a-latin", "b-big", "d-excluded"] {
        assert_eq!(verdict_of(&r, &format!("~/.copilot/instructions/{name}.instructions.md")), "skipped");
    }
}

#[test]
fn a_linked_instruction_file_is_read_inside_the_root_and_never_outside() {
    let p = Project::git();
    std::fs::write(p.dir.path().join("outside.instructions.md"), "OUTSIDE\n").unwrap();
    p.file("shared/rule.md", "SHARED\n")
        .symlink(".github/instructions/in.instructions.md", "../../shared/rule.md")
        .symlink(".github/instructions/out.instructions.md", p.dir.path().join("outside.instructions.md"));
    let r = p.resolve(Host::Copilot, ".");
    assert_eq!(render_native(&r), "SHARED\n");
    let out = r.probes.iter().find(|x| x.path == ".github/instructions/out.instructions.md").unwrap();
    assert!(out.host_differs.as_deref().unwrap().contains("follows this link"), "{out:?}");
    assert!(!r.parts.iter().any(|part| part.text.contains("OUTSIDE")));
}

#[test]
fn the_root_is_the_nearest_git_copilot_accepts_and_a_half_made_one_is_passed_over() {
    // Each `.git` at the tree's root, the session in `x/y` (measured:
    // git_dir_minimal, git_file_bogus, git_dir_empty, git_dir_head_only,
    // git_file_empty in tests/e2e/COPILOT-MEASURED.md).
    // What the `.git` is, how to make it, whether Copilot counts it.
    type Case = (&'static str, fn(&Project), bool);
    let cases: [Case; 6] = [
        ("HEAD, objects/ and refs/", |_| {}, true),
        (
            "a file naming nothing",
            |p| {
                p.file(".git", "gitdir: /nonexistent\n");
            },
            true,
        ),
        (
            "an empty directory",
            |p| {
                std::fs::create_dir(p.tree.join(".git")).unwrap();
            },
            false,
        ),
        (
            "only HEAD",
            |p| {
                p.file(".git/HEAD", "ref: refs/heads/main\n");
            },
            false,
        ),
        (
            "an empty file",
            |p| {
                p.file(".git", "");
            },
            false,
        ),
        (
            "a file without `gitdir: `",
            |p| {
                p.file(".git", "gitdir:/x\n");
            },
            false,
        ),
    ];
    for (what, make, counts) in cases {
        let p = if counts && what.starts_with("HEAD") { Project::git() } else { Project::new() };
        make(&p);
        p.file("AGENTS.md", "root\n").file("x/AGENTS.md", "x\n").file("x/y/AGENTS.md", "xy\n");
        let r = p.resolve(Host::Copilot, "x/y");
        let (root, text) = if counts {
            (
                p.tree.clone(),
                "<custom_instruction>\nroot\n\n</custom_instruction>\n\n<custom_instruction>\nxy\n\n</custom_instruction>\n\n<custom_instruction>\nx\n\n</custom_instruction>",
            )
        } else {
            (p.tree.join("x/y"), "<custom_instruction>\nxy\n\n</custom_instruction>")
        };
        assert_eq!(r.project_root, std::fs::canonicalize(&root).unwrap(), "{what}");
        assert_eq!(render_native(&r), text, "{what}");
    }
    // A `.git` passed over does not stop the walk: the next one up counts.
    let p = Project::git();
    p.file("x/.git", "").file("AGENTS.md", "root\n").file("x/y/AGENTS.md", "xy\n");
    assert_eq!(p.resolve(Host::Copilot, "x/y").project_root, std::fs::canonicalize(&p.tree).unwrap());
    // Every other host keeps its own rule: an empty `.git` binds Codex's root.
    let p = Project::new();
    std::fs::create_dir(p.tree.join(".git")).unwrap();
    p.file("x/y/AGENTS.md", "xy\n");
    assert_eq!(p.resolve(Host::Codex, "x/y").project_root, std::fs::canonicalize(&p.tree).unwrap());
}
