//! `--root` and `--cwd` mean the same on `doctor`, `source-status` and
//! `memory` as on `resolve` and `briefing`: `--root` binds the project
//! instead of the host's rule, and without `--cwd` the working directory
//! is the current one when it lies inside the root, else the root.

use serde_json::Value;

use crate::support::Example;

/// Project root, root evidence and working directory of a
/// `source-status` or `doctor` JSON report.
fn place(report: &Value) -> (String, String, String) {
    let field = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    (
        field(&report["sourceResolution"]["project_root"]),
        field(&report["root_evidence"]),
        field(&report["cwd"]),
    )
}

#[test]
fn source_status_and_doctor_bind_the_given_root_as_resolve_does() {
    let ex = Example::new();
    let api = ex.tree.join("packages/api");
    let api = api.to_str().unwrap();
    // From inside the package: the host's rule finds the git root; --root
    // binds the package itself, the working directory staying where it is.
    let found = ex.json(&ex.run("packages/api", &["source-status", "--host", "claude", "--json"]));
    assert_eq!(place(&found).0, "[TREE]");
    for command in ["source-status", "doctor"] {
        let out = ex.run("packages/api", &[command, "--host", "claude", "--root", api, "--json"]);
        let given = ex.json_any(&out);
        assert_eq!(
            place(&given),
            (
                "[TREE]/packages/api".to_owned(),
                "given explicitly".to_owned(),
                "[TREE]/packages/api".to_owned()
            ),
            "{command}: {given}"
        );
        let resolved =
            ex.json(&ex.run("packages/api", &["resolve", "--host", "claude", "--root", api, "--json"]));
        assert_eq!(given["sourceResolution"]["project_root"], resolved["project_root"], "{command}");
    }
    // From outside the root: the working directory is the root.
    let tree = ex.tree.to_str().unwrap();
    let outside = ex.json(&ex.run("..", &["source-status", "--host", "codex", "--root", tree, "--json"]));
    assert_eq!(place(&outside), ("[TREE]".to_owned(), "given explicitly".to_owned(), "[TREE]".to_owned()));
    // A --cwd outside --root is the same usage error as for resolve.
    let home = ex.home.to_str().unwrap();
    for command in ["source-status", "doctor", "resolve"] {
        let out = ex.run(".", &[command, "--root", tree, "--cwd", home, "--json"]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert_eq!(ex.json_any(&out)["error"]["code"], "cwd-outside-root", "{command}");
    }
}

#[test]
fn memory_finds_claude_codes_directory_for_the_given_root() {
    let ex = Example::new();
    // Claude Code keys memory by the git root of the working directory
    // (a package of the tree has the tree's memory).
    let tree = ex.tree.to_str().unwrap();
    let encoded: String = tree.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect();
    ex.home_file(
        &format!(".claude/projects/{encoded}/memory/MEMORY.md"),
        "# Memory\n\n- [Style](style.md) <!-- agentspine:always -->\n",
    )
    .home_file(&format!(".claude/projects/{encoded}/memory/style.md"), "Short sentences.\n");
    // From outside the tree, without --root, there is none.
    let out = ex.run("..", &["memory", "--host", "claude", "--json"]);
    assert_eq!(ex.json_any(&out)["error"]["code"], "no-memory-dir");
    // With --root, from outside (the working directory is the root), from
    // the root and from a package inside it, it is found.
    for cwd in ["..", ".", "packages/api"] {
        let out = ex.run(cwd, &["memory", "--host", "claude", "--root", tree, "--json"]);
        let report = ex.json(&out);
        assert_eq!(report["report"]["loaded"], 1, "{cwd}: {report}");
    }
    // doctor's orphan count lists the same directory: one link, its file
    // there, nothing unindexed.
    let out =
        ex.run("..", &["doctor", "--host", "claude", "--root", tree, "--offline-memory-orphans", "--json"]);
    let report = ex.json(&out);
    assert_eq!(report["memory_dir"], format!("[HOME]/.claude/projects/{encoded}/memory"));
    let counts = &report["orphans"];
    assert_eq!(
        (&counts["indexed"], &counts["indexed_missing"], &counts["present_unindexed"]),
        (&serde_json::json!(1), &serde_json::json!(0), &serde_json::json!(0))
    );
}
