//! `agentspine resolve` on the bundled example, every format.

use crate::support::Example;

#[test]
fn json_for_claude_in_a_package() {
    let ex = Example::new();
    let out = ex.run("packages/api", &["resolve", "--host", "claude", "--json"]);
    insta::assert_json_snapshot!(ex.json(&out), @r##"
    {
      "chain_dir": "packages/api",
      "counters": {
        "bytes_read": 453,
        "confirmations": "[confirmations]",
        "dir_entries": 2,
        "dir_enumerations": 1,
        "opens": 40,
        "readlinks": 0,
        "reads": 5,
        "refusals": {
          "budget-exhausted": 0,
          "deadline": 0,
          "escape": 0,
          "hard-link": 0,
          "invalid-path": 0,
          "io": 0,
          "mount-crossing": 0,
          "not-directory": 0,
          "not-found": 23,
          "not-regular": 1,
          "permission-denied": 0,
          "race": 0,
          "symlink": 0,
          "too-large": 0
        },
        "reopens": 5,
        "retries": 0,
        "stats": 25
      },
      "cwd": "[TREE]/packages/api",
      "host": "claude",
      "native": "<system-reminder>\nCodebase and user instructions are shown below. Be sure to adhere to these instructions. IMPORTANT: These instructions OVERRIDE any default behavior and you MUST follow them exactly as written.\n\nContents of [TREE]/CLAUDE.md (project instructions, checked into the codebase):\n\n# Working in this monorepo\n\nRead the shared conventions before changing code:\n@docs/conventions.md\n\nPrefer small, reviewable commits.\n\nContents of [TREE]/.claude/rules/style.md (project instructions, checked into the codebase):\n\nUse four spaces for indentation in every language that allows it.\n\nContents of [TREE]/CLAUDE.local.md (user's private project instructions, not checked in):\n\nMy private notes for this checkout: the staging database is on port 5433.\n\nContents of [TREE]/packages/api/CLAUDE.md (project instructions, checked into the codebase):\n\n# packages/api for Claude\n\nRun `make -C packages/api test` after every edit.\n</system-reminder>",
      "native_bytes": 1001,
      "parts": [
        {
          "bytes": 134,
          "cut": null,
          "imported_by": null,
          "label": "CLAUDE.md",
          "path": "[TREE]/CLAUDE.md",
          "scope": "project",
          "sha256": "ca60439eb6ee6e70277c1866a7e48fbcfd321de97cd7a20bee26fee3759f7457",
          "text": "# Working in this monorepo\n\nRead the shared conventions before changing code:\n@docs/conventions.md\n\nPrefer small, reviewable commits."
        },
        {
          "bytes": 66,
          "cut": null,
          "imported_by": null,
          "label": ".claude/rules/style.md",
          "path": "[TREE]/.claude/rules/style.md",
          "scope": "project",
          "sha256": "50fbf4cfce7e2b5ee9e1130842e1cd1e8f80d64e7a44d4917d687822881cdaa9",
          "text": "Use four spaces for indentation in every language that allows it."
        },
        {
          "bytes": 74,
          "cut": null,
          "imported_by": null,
          "label": "CLAUDE.local.md",
          "path": "[TREE]/CLAUDE.local.md",
          "scope": "local",
          "sha256": "0c73c5c8dbfce9eb96f808e45d4f0ed64a5a1aa340cb6f42b40921b110629244",
          "text": "My private notes for this checkout: the staging database is on port 5433."
        },
        {
          "bytes": 77,
          "cut": null,
          "imported_by": null,
          "label": "packages/api/CLAUDE.md",
          "path": "[TREE]/packages/api/CLAUDE.md",
          "scope": "project",
          "sha256": "b6bc2e8a60c567809a11ea871239d30e3989548f4073934a8cee9d38bb81f6d1",
          "text": "# packages/api for Claude\n\nRun `make -C packages/api test` after every edit."
        }
      ],
      "probes": [
        {
          "path": "~/.claude/CLAUDE.md",
          "scope": "user",
          "verdict": "missing"
        },
        {
          "path": "CLAUDE.md",
          "scope": "project",
          "verdict": "included"
        },
        {
          "path": "docs/conventions.md",
          "scope": "project",
          "verdict": "import-external-not-approved"
        },
        {
          "path": ".claude/CLAUDE.md",
          "scope": "project",
          "verdict": "missing"
        },
        {
          "path": ".claude/rules/api.md",
          "scope": "project",
          "verdict": "paths-not-matched"
        },
        {
          "path": ".claude/rules/style.md",
          "scope": "project",
          "verdict": "included"
        },
        {
          "path": "CLAUDE.local.md",
          "scope": "local",
          "verdict": "included"
        },
        {
          "path": "packages/CLAUDE.md",
          "scope": "project",
          "verdict": "missing"
        },
        {
          "path": "packages/.claude/CLAUDE.md",
          "scope": "project",
          "verdict": "missing"
        },
        {
          "path": "packages/CLAUDE.local.md",
          "scope": "local",
          "verdict": "missing"
        },
        {
          "path": "packages/api/CLAUDE.md",
          "scope": "project",
          "verdict": "included"
        },
        {
          "path": "packages/api/.claude/CLAUDE.md",
          "scope": "project",
          "verdict": "missing"
        },
        {
          "path": "packages/api/CLAUDE.local.md",
          "scope": "local",
          "verdict": "missing"
        }
      ],
      "profile_home": "[HOME]/.claude",
      "project_root": "[TREE]",
      "root_evidence": "nearest .git",
      "root_kind": "project",
      "warnings": []
    }
    "##);
}

#[test]
fn json_for_codex_with_a_global_file() {
    let ex = Example::new();
    ex.home_file(".codex/AGENTS.md", "Answer in British English.\n");
    let out = ex.run("packages/api/src/handlers", &["resolve", "--host", "codex", "--format", "json"]);
    insta::assert_json_snapshot!(ex.json(&out), @r##"
    {
      "chain_dir": "packages/api/src/handlers",
      "counters": {
        "bytes_read": 352,
        "confirmations": "[confirmations]",
        "dir_entries": 0,
        "dir_enumerations": 0,
        "opens": 26,
        "readlinks": 0,
        "reads": 4,
        "refusals": {
          "budget-exhausted": 0,
          "deadline": 0,
          "escape": 0,
          "hard-link": 0,
          "invalid-path": 0,
          "io": 0,
          "mount-crossing": 0,
          "not-directory": 0,
          "not-found": 13,
          "not-regular": 0,
          "permission-denied": 0,
          "race": 0,
          "symlink": 0,
          "too-large": 0
        },
        "reopens": 4,
        "retries": 0,
        "stats": 18
      },
      "cwd": "[TREE]/packages/api/src/handlers",
      "host": "codex",
      "native": "# AGENTS.md instructions for [TREE]/packages/api/src/handlers\n\n<INSTRUCTIONS>\nAnswer in British English.\n\n--- project-doc ---\n\n# Monorepo conventions\n\n- Run `make check` before you commit; CI runs the same target.\n- Every package owns its tests; never import across `packages/*` internals.\n\n\n# packages/api (override)\n\nDuring the v2 migration, new endpoints go in `src/handlers/v2` only.\n\n\nHandlers never touch the database directly; go through `store::`.\n\n</INSTRUCTIONS>",
      "native_bytes": 486,
      "parts": [
        {
          "bytes": 27,
          "cut": null,
          "imported_by": null,
          "label": "~/.codex/AGENTS.md",
          "path": "[HOME]/.codex/AGENTS.md",
          "scope": "user",
          "sha256": "1ca97c782e60939157094cf873938578e5d0dddb187d28ed47c987fad7b90fe8",
          "text": "Answer in British English."
        },
        {
          "bytes": 163,
          "cut": null,
          "imported_by": null,
          "label": "AGENTS.md",
          "path": "[TREE]/AGENTS.md",
          "scope": "project",
          "sha256": "8734410af43096ccb3645a0dc923160c41fdad09ba5bf8bed05219224b419eb4",
          "text": "# Monorepo conventions\n\n- Run `make check` before you commit; CI runs the same target.\n- Every package owns its tests; never import across `packages/*` internals.\n"
        },
        {
          "bytes": 96,
          "cut": null,
          "imported_by": null,
          "label": "packages/api/AGENTS.override.md",
          "path": "[TREE]/packages/api/AGENTS.override.md",
          "scope": "project",
          "sha256": "9d7f1aeccb7341dcffabe61a89409e94df1a04a335c5f4cd45c6b869430c5479",
          "text": "# packages/api (override)\n\nDuring the v2 migration, new endpoints go in `src/handlers/v2` only.\n"
        },
        {
          "bytes": 66,
          "cut": null,
          "imported_by": null,
          "label": "packages/api/src/handlers/AGENTS.md",
          "path": "[TREE]/packages/api/src/handlers/AGENTS.md",
          "scope": "project",
          "sha256": "cb448ca8f4acd9a4ec04daabe508a90367b1c3c703bc32ffdad7dc9de1bebdb2",
          "text": "Handlers never touch the database directly; go through `store::`.\n"
        }
      ],
      "probes": [
        {
          "path": "~/.codex/AGENTS.override.md",
          "scope": "user",
          "verdict": "missing"
        },
        {
          "path": "~/.codex/AGENTS.md",
          "scope": "user",
          "verdict": "included"
        },
        {
          "path": "AGENTS.override.md",
          "scope": "project",
          "verdict": "missing"
        },
        {
          "path": "AGENTS.md",
          "scope": "project",
          "verdict": "included"
        },
        {
          "path": "packages/AGENTS.override.md",
          "scope": "project",
          "verdict": "missing"
        },
        {
          "path": "packages/AGENTS.md",
          "scope": "project",
          "verdict": "missing"
        },
        {
          "path": "packages/api/AGENTS.override.md",
          "scope": "project",
          "verdict": "included"
        },
        {
          "path": "packages/api/AGENTS.md",
          "scope": "project",
          "verdict": "shadowed-by",
          "winner": "AGENTS.override.md"
        },
        {
          "path": "packages/api/src/AGENTS.override.md",
          "scope": "project",
          "verdict": "missing"
        },
        {
          "path": "packages/api/src/AGENTS.md",
          "scope": "project",
          "verdict": "missing"
        },
        {
          "path": "packages/api/src/handlers/AGENTS.override.md",
          "scope": "project",
          "verdict": "missing"
        },
        {
          "path": "packages/api/src/handlers/AGENTS.md",
          "scope": "project",
          "verdict": "included"
        }
      ],
      "profile_home": "[HOME]/.codex",
      "project_root": "[TREE]",
      "root_evidence": "nearest project root marker `.git`",
      "root_kind": "project",
      "warnings": []
    }
    "##);
}

#[test]
fn native_text_for_the_desktop_rule_with_a_target() {
    let ex = Example::new();
    let out = ex.run(
        ".",
        &["resolve", "--host", "desktop", "--target", "packages/web/src/App.tsx", "--format", "native"],
    );
    // A file about to be written: its nearest existing directory's chain.
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let web = ex.run(".", &["resolve", "--host", "desktop", "--cwd", "packages/web", "--format", "native"]);
    assert_eq!(out.stdout, web.stdout, "the chain of packages/web, the nearest existing directory");
    let out = ex.run(
        ".",
        &[
            "resolve",
            "--host",
            "desktop",
            "--target",
            "packages/api/src/handlers/users.ts",
            "--format",
            "native",
        ],
    );
    insta::assert_snapshot!(ex.stdout(&out), @"
    # Project instructions

    Entries run from the global file and the project root down to the working directory. Where they disagree, later (closer) entries take precedence.

    ## AGENTS.md

    # Monorepo conventions

    - Run `make check` before you commit; CI runs the same target.
    - Every package owns its tests; never import across `packages/*` internals.

    ## packages/api/AGENTS.override.md

    # packages/api (override)

    During the v2 migration, new endpoints go in `src/handlers/v2` only.

    ## packages/api/src/handlers/AGENTS.md

    Handlers never touch the database directly; go through `store::`.
    ");
}

#[test]
fn explain_for_people() {
    let ex = Example::new();
    let out = ex.run("packages/api", &["resolve", "--host", "codex", "--explain"]);
    insta::assert_snapshot!(ex.stdout(&out), @"
    host          codex
    project root  [TREE]  (nearest project root marker `.git`)
    chain for     packages/api
    profile       [HOME]/.codex

    2 sources, 356 bytes of text as the host sends it:
      project  AGENTS.md                            163 B
      project  packages/api/AGENTS.override.md       96 B

    Candidates, in the order they were probed:
      missing                         user     ~/.codex/AGENTS.md
      missing                         project  AGENTS.override.md
      included                        project  AGENTS.md
      missing                         project  packages/AGENTS.override.md
      missing                         project  packages/AGENTS.md
      included                        project  packages/api/AGENTS.override.md
      shadowed-by AGENTS.override.md  project  packages/api/AGENTS.md

    What the verdicts mean:
      shadowed-by: an earlier candidate in the same directory won; the host reads one file there.

    File system work: 15 opens, 10 stats, 2 reads (259 bytes), 0 directory listings, 8 refusals.
    ");
}

#[test]
fn errors_in_json_are_json() {
    let ex = Example::new();
    let out = ex.run(".", &["resolve", "--host", "generic", "--target", "../../etc/passwd", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    insta::assert_json_snapshot!(serde_json::from_slice::<serde_json::Value>(&out.stdout).map(|v| serde_json::from_str::<serde_json::Value>(&ex.filter(&v.to_string())).unwrap()).unwrap(), @r#"
    {
      "error": {
        "code": "target-outside-root",
        "message": "[TREE]/../../etc/passwd: outside the project root [TREE]; agentspine resolves nothing there; give a --target inside the project root, or a --root that contains it",
        "path": "[TREE]/../../etc/passwd"
      }
    }
    "#);
}

#[test]
fn a_hard_link_to_a_file_outside_is_refused_with_its_own_verdict() {
    let ex = Example::new();
    let outside = ex.dir.path().join("secret.md");
    std::fs::write(&outside, "SECRET kept outside the project\n").unwrap();
    std::fs::remove_file(ex.tree.join("packages/api/AGENTS.override.md")).unwrap();
    std::fs::hard_link(&outside, ex.tree.join("packages/api/AGENTS.override.md")).unwrap();
    let out = ex.run("packages/api", &["resolve", "--host", "codex", "--explain"]);
    // The next candidate wins; nothing of the linked file is read.
    insta::assert_snapshot!(ex.stdout(&out), @"
    host          codex
    project root  [TREE]  (nearest project root marker `.git`)
    chain for     packages/api
    profile       [HOME]/.codex

    2 sources, 339 bytes of text as the host sends it:
      project  AGENTS.md                   163 B
      project  packages/api/AGENTS.md       79 B

    Candidates, in the order they were probed:
      missing    user     ~/.codex/AGENTS.md
      missing    project  AGENTS.override.md
      included   project  AGENTS.md
      missing    project  packages/AGENTS.override.md
      missing    project  packages/AGENTS.md
      hard-link  project  packages/api/AGENTS.override.md
      included   project  packages/api/AGENTS.md

    What the verdicts mean:
      hard-link: the file has another name (a hard link) that may be outside the project; agentspine never reads it.

    File system work: 16 opens, 10 stats, 2 reads (242 bytes), 0 directory listings, 9 refusals.
    ");
    // The catalog counts a required gap.
    let out = ex.run("packages/api", &["briefing", "--host", "codex", "--json"]);
    let briefing = ex.json(&out);
    assert!(!briefing.to_string().contains("SECRET"));
    assert_eq!(
        briefing["sourceResolution"]["gaps"],
        serde_json::json!([{"cause": "hard-link", "required": true, "what": "packages/api/AGENTS.override.md"}])
    );
}
