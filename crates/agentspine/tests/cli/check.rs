//! `agentspine check`: its JSON (inline snapshot), text, GitHub
//! annotations and SARIF, `--deny` exit codes and silencing by the
//! repository's `.agentspine.toml`.

use crate::support::Example;

/// The example with two problems added: a blank `AGENTS.override.md` that
/// hides `packages/web/AGENTS.md` from Codex, and a linked `AGENTS.md`
/// in `services/billing`; `never-read` silenced for every path.
fn seeded() -> Example {
    let ex = Example::new();
    std::fs::write(ex.tree.join("packages/web/AGENTS.override.md"), "\n").unwrap();
    std::os::unix::fs::symlink("../../README.md", ex.tree.join("services/billing/AGENTS.md")).unwrap();
    std::fs::write(
        ex.tree.join(".agentspine.toml"),
        "[[check.silence]]\nid = \"never-read\"\npath = \"*\"\n",
    )
    .unwrap();
    ex
}

fn without_work(mut value: serde_json::Value) -> serde_json::Value {
    value.as_object_mut().unwrap().remove("work");
    value
}

#[test]
fn json_lists_each_finding_with_its_host_rule_and_sessions() {
    let ex = seeded();
    let out = ex.run(".", &["check", "--host", "codex,claude", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    insta::assert_json_snapshot!(without_work(ex.json(&out)), @r#"
    {
      "budgets": [
        {
          "deepest": {
            "bytes": 437,
            "cut": 0,
            "dir": "packages/api/src/handlers",
            "files": 3
          },
          "host": "codex",
          "root": {
            "bytes": 245,
            "cut": 0,
            "dir": ".",
            "files": 1
          }
        },
        {
          "deepest": {
            "bytes": 1001,
            "cut": 0,
            "dir": "packages/api/src/handlers",
            "files": 4
          },
          "host": "claude",
          "root": {
            "bytes": 1042,
            "cut": 0,
            "dir": ".",
            "files": 4
          }
        }
      ],
      "dirs": [
        ".",
        "packages/api",
        "packages/web",
        "services/billing",
        "tools/release",
        "packages/api/src/handlers"
      ],
      "findings": [
        {
          "action": "copy the imported text into this file; for `@AGENTS.md`, make CLAUDE.md a link to it instead (`ln -s AGENTS.md CLAUDE.md`), which Claude Code reads in every directory",
          "dirs": [
            "packages/api",
            "packages/web",
            "services/billing",
            "tools/release",
            "packages/api/src/handlers"
          ],
          "host": "claude",
          "id": "import-outside-cwd",
          "line": 4,
          "message": "Claude Code drops the import of docs/conventions.md: it lies outside the directory the session starts in and the project has not approved external imports (`-p` never asks)",
          "path": "CLAUDE.md",
          "safety": false,
          "severity": "error"
        },
        {
          "action": "delete the blank file, or write the rules into it",
          "dirs": [
            "packages/web"
          ],
          "host": "codex",
          "id": "shadowed-by-empty",
          "message": "Codex takes the blank packages/web/AGENTS.override.md in this directory and then drops it: this file is never read",
          "path": "packages/web/AGENTS.md",
          "safety": false,
          "severity": "warning"
        },
        {
          "agentspine": "agentspine reads README.md by its own path, as the hosts do",
          "dirs": [
            "services/billing"
          ],
          "host": null,
          "id": "link-inside",
          "message": "a link to README.md, inside the project: every host that reads this name sends README.md's text under this name",
          "path": "services/billing/AGENTS.md",
          "safety": false,
          "severity": "note"
        },
        {
          "action": "fix the rule's paths: so they match files, or remove the rule",
          "dirs": [],
          "host": "claude",
          "id": "rules-paths-unmatched",
          "message": "Claude Code loads this rule only when a file matching its paths: (CHANGELOG.md) is read; no file under the root matches",
          "path": "tools/release/.claude/rules/changelog.md",
          "safety": false,
          "severity": "warning"
        },
        {
          "action": "delete the blank file, or write the rules into it",
          "dirs": [
            "tools/release"
          ],
          "host": "codex",
          "id": "shadowed-by-empty",
          "message": "Codex takes the blank tools/release/AGENTS.override.md in this directory and then drops it: this file is never read",
          "path": "tools/release/AGENTS.md",
          "safety": false,
          "severity": "warning"
        },
        {
          "dirs": [
            "tools/release"
          ],
          "host": "claude",
          "id": "import-in-code",
          "line": 3,
          "message": "Claude Code does not expand @checklist.md here: it is inside inline code or a code block, so the file is not imported (write it outside code to import it)",
          "path": "tools/release/CLAUDE.md",
          "safety": false,
          "severity": "note"
        },
        {
          "action": "fix or remove the @ import",
          "dirs": [
            "tools/release"
          ],
          "host": "claude",
          "id": "import-missing",
          "line": 5,
          "message": "the import of tools/release/SIGNING.md names no file",
          "path": "tools/release/CLAUDE.md",
          "safety": false,
          "severity": "warning"
        }
      ],
      "hosts": [
        "codex",
        "claude"
      ],
      "root": "[TREE]",
      "summary": {
        "counts": {
          "error": 1,
          "note": 2,
          "warning": 4
        },
        "silenced": 16
      }
    }
    "#);
}

#[test]
fn deny_sets_the_exit_code_by_severity() {
    let ex = seeded();
    let code = |args: &[&str]| {
        let mut all = vec!["check", "--host", "codex"];
        all.extend_from_slice(args);
        ex.run(".", &all).status.code()
    };
    assert_eq!(code(&[]), Some(0));
    assert_eq!(code(&["--deny", "error"]), Some(0), "a link inside the repository is a note");
    std::fs::write(ex.dir.path().join("secret.md"), "outside\n").unwrap();
    std::os::unix::fs::symlink("../../../secret.md", ex.tree.join("services/billing/AGENTS.override.md"))
        .unwrap();
    assert_eq!(code(&["--deny", "error"]), Some(1), "a link out of it is an error");
    std::fs::remove_file(ex.tree.join("services/billing/AGENTS.override.md")).unwrap();
    assert_eq!(code(&["--deny", "error"]), Some(0));
    assert_eq!(code(&["--deny", "warning"]), Some(1), "the shadowed file is a warning");
}

#[test]
fn text_groups_findings_by_file() {
    let ex = seeded();
    let out = ex.run(".", &["check", "--host", "codex,claude"]);
    insta::assert_snapshot!(ex.stdout(&out), @"
    CLAUDE.md
      error   claude  import-outside-cwd: line 4: Claude Code drops the import of docs/conventions.md: it lies outside the directory the session starts in and the project has not approved external imports (`-p` never asks)
                      to do: copy the imported text into this file; for `@AGENTS.md`, make CLAUDE.md a link to it instead (`ln -s AGENTS.md CLAUDE.md`), which Claude Code reads in every directory
                      sessions started in: packages/api, packages/web, services/billing, tools/release, packages/api/src/handlers
    packages/web/AGENTS.md
      warning codex   shadowed-by-empty: Codex takes the blank packages/web/AGENTS.override.md in this directory and then drops it: this file is never read
                      to do: delete the blank file, or write the rules into it
                      sessions started in: packages/web
    services/billing/AGENTS.md
      note    agentspine link-inside: a link to README.md, inside the project: every host that reads this name sends README.md's text under this name
                      agentspine reads README.md by its own path, as the hosts do
                      sessions started in: services/billing
    tools/release/.claude/rules/changelog.md
      warning claude  rules-paths-unmatched: Claude Code loads this rule only when a file matching its paths: (CHANGELOG.md) is read; no file under the root matches
                      to do: fix the rule's paths: so they match files, or remove the rule
    tools/release/AGENTS.md
      warning codex   shadowed-by-empty: Codex takes the blank tools/release/AGENTS.override.md in this directory and then drops it: this file is never read
                      to do: delete the blank file, or write the rules into it
                      sessions started in: tools/release
    tools/release/CLAUDE.md
      note    claude  import-in-code: line 3: Claude Code does not expand @checklist.md here: it is inside inline code or a code block, so the file is not imported (write it outside code to import it)
                      sessions started in: tools/release
      warning claude  import-missing: line 5: the import of tools/release/SIGNING.md names no file
                      to do: fix or remove the @ import
                      sessions started in: tools/release

    bytes sent (session at the root / in the deepest directory):
      codex    245 bytes (1 file, 0 cut) / 437 bytes in packages/api/src/handlers (3 files, 0 cut)
      claude   1042 bytes (4 files, 0 cut) / 1001 bytes in packages/api/src/handlers (4 files, 0 cut)

    1 error, 4 warnings, 2 notes in 6 directories (16 silenced)
    ");
}

#[test]
fn github_annotations_name_file_and_line() {
    let ex = seeded();
    let out = ex.run(".", &["check", "--host", "codex,claude", "--format", "github"]);
    insta::assert_snapshot!(ex.stdout(&out), @"
    ::error file=CLAUDE.md,line=4,title=agentspine import-outside-cwd (claude)::Claude Code drops the import of docs/conventions.md: it lies outside the directory the session starts in and the project has not approved external imports (`-p` never asks)
    ::warning file=packages/web/AGENTS.md,title=agentspine shadowed-by-empty (codex)::Codex takes the blank packages/web/AGENTS.override.md in this directory and then drops it: this file is never read
    ::note file=services/billing/AGENTS.md,title=agentspine link-inside (agentspine)::a link to README.md, inside the project: every host that reads this name sends README.md's text under this name
    ::warning file=tools/release/.claude/rules/changelog.md,title=agentspine rules-paths-unmatched (claude)::Claude Code loads this rule only when a file matching its paths: (CHANGELOG.md) is read; no file under the root matches
    ::warning file=tools/release/AGENTS.md,title=agentspine shadowed-by-empty (codex)::Codex takes the blank tools/release/AGENTS.override.md in this directory and then drops it: this file is never read
    ::note file=tools/release/CLAUDE.md,line=3,title=agentspine import-in-code (claude)::Claude Code does not expand @checklist.md here: it is inside inline code or a code block, so the file is not imported (write it outside code to import it)
    ::warning file=tools/release/CLAUDE.md,line=5,title=agentspine import-missing (claude)::the import of tools/release/SIGNING.md names no file
    ");
}

#[test]
fn sarif_has_one_result_per_finding_with_its_rule() {
    let ex = seeded();
    let json = ex.json(&ex.run(".", &["check", "--host", "codex,claude", "--json"]));
    let sarif = ex.json(&ex.run(".", &["check", "--host", "codex,claude", "--format", "sarif"]));
    assert_eq!(sarif["version"], "2.1.0");
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let findings = json["findings"].as_array().unwrap();
    assert_eq!(results.len(), findings.len());
    for (result, finding) in results.iter().zip(findings) {
        assert_eq!(result["ruleId"], finding["id"]);
        assert_eq!(result["level"], finding["severity"]);
        let rule =
            &sarif["runs"][0]["tool"]["driver"]["rules"][result["ruleIndex"].as_u64().unwrap() as usize];
        assert_eq!(rule["id"], finding["id"]);
    }
}

#[test]
fn a_root_that_is_never_a_project_and_a_path_outside_it_are_errors() {
    let ex = seeded();
    let home = ex.home.display().to_string();
    let out = ex.run(".", &["check", "--root", &home, "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(ex.json_any(&out)["error"]["code"], "not-a-project");
    let outside = ex.dir.path().display().to_string();
    let out = ex.run(".", &["check", "--paths", &outside, "--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(ex.json_any(&out)["error"]["code"], "path-outside-root");
}

#[test]
fn paths_adds_a_directory_the_discovery_did_not_find() {
    let ex = seeded();
    std::fs::create_dir_all(ex.tree.join("tools/gen")).unwrap();
    let json = ex.json(&ex.run(".", &["check", "--host", "codex", "--json", "--paths", "tools/gen"]));
    let dirs: Vec<&str> = json["dirs"].as_array().unwrap().iter().map(|d| d.as_str().unwrap()).collect();
    assert_eq!(
        dirs,
        vec![
            ".",
            "packages/api",
            "packages/web",
            "services/billing",
            "tools/release",
            "packages/api/src/handlers",
            "tools/gen"
        ]
    );
}
