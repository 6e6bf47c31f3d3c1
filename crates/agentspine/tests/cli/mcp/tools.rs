//! Every tool's result on the bundled example, and its errors.

use serde_json::{Value, json};

use super::support::Server;

/// Digests of things that differ between runs, redacted: the profile digest
/// hashes the temporary home's path, and the catalog digest (so the receipt
/// id) covers source ids keyed by a fresh state directory.
fn redacted(mut value: Value) -> Value {
    let pointers = [
        ("/sourceResolution/profile_digest", "[digest]"),
        ("/briefing/sourceResolution/profile_digest", "[digest]"),
        ("/receipt/catalog_digest", "[digest]"),
        ("/receipt/id", "rcpt_[id]"),
    ];
    for (pointer, placeholder) in pointers {
        if let Some(digest) = value.pointer_mut(pointer) {
            *digest = json!(placeholder);
        }
    }
    value
}

#[test]
fn resolve_context_is_the_cli_json_for_the_target() {
    let mut server = Server::start();
    let root = server.root();
    let value = server.content(
        "resolve_context",
        json!({"project_root": root, "host": "codex", "target_path": "packages/api/src/handlers/users.ts"}),
    );
    insta::assert_json_snapshot!(value, @r##"
    {
      "chain_dir": "packages/api/src/handlers",
      "counters": {
        "bytes_read": 325,
        "confirmations": "[confirmations]",
        "dir_entries": 0,
        "dir_enumerations": 0,
        "opens": 20,
        "readlinks": 0,
        "reads": 3,
        "refusals": {
          "budget-exhausted": 0,
          "deadline": 0,
          "escape": 0,
          "hard-link": 0,
          "invalid-path": 0,
          "io": 0,
          "mount-crossing": 0,
          "not-directory": 0,
          "not-found": 9,
          "not-regular": 0,
          "permission-denied": 0,
          "race": 0,
          "symlink": 0,
          "too-large": 0
        },
        "reopens": 3,
        "retries": 0,
        "stats": 11
      },
      "cwd": "[TREE]",
      "host": "codex",
      "native": "# AGENTS.md instructions for [TREE]\n\n<INSTRUCTIONS>\n# Monorepo conventions\n\n- Run `make check` before you commit; CI runs the same target.\n- Every package owns its tests; never import across `packages/*` internals.\n\n\n# packages/api (override)\n\nDuring the v2 migration, new endpoints go in `src/handlers/v2` only.\n\n\nHandlers never touch the database directly; go through `store::`.\n\n</INSTRUCTIONS>",
      "native_bytes": 411,
      "parts": [
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
          "path": "~/.codex/AGENTS.md",
          "scope": "user",
          "verdict": "missing"
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
      "root_evidence": "given explicitly",
      "root_kind": "project",
      "warnings": []
    }
    "##);
}

#[test]
fn session_briefing_labels_every_part() {
    let mut server = Server::start();
    let root = server.root();
    let value = server.content(
        "session_briefing",
        json!({"project_root": root, "host": "codex", "cwd": "packages/api", "budget_bytes": 600, "required": true}),
    );
    insta::assert_json_snapshot!(redacted(value), @r###"
    {
      "budget_bytes": 600,
      "omitted": [
        "src_[0]",
        "src_[1]",
        "src_[2]",
        "src_[3]",
        "src_[4]",
        "src_[5]",
        "src_[6]",
        "src_[7]",
        "src_[8]",
        "src_[9]",
        "src_[10]",
        "src_[11]"
      ],
      "parts": [
        {
          "bytes": 162,
          "cut": null,
          "rel_path": "AGENTS.md",
          "scope": "project",
          "source_id": "src_[12]"
        },
        {
          "bytes": 95,
          "cut": null,
          "rel_path": "packages/api/AGENTS.override.md",
          "scope": "project",
          "source_id": "src_[13]"
        },
        {
          "bytes": 73,
          "cut": null,
          "rel_path": "CLAUDE.local.md",
          "scope": "doc",
          "source_id": "src_[14]"
        },
        {
          "bytes": 14,
          "cut": {
            "kept": 14,
            "total": 133
          },
          "rel_path": "CLAUDE.md",
          "scope": "doc",
          "source_id": "src_[15]"
        }
      ],
      "receipt": {
        "catalog_digest": "[digest]",
        "id": "rcpt_[id]",
        "sources": [
          {
            "sha256": "8734410af43096ccb3645a0dc923160c41fdad09ba5bf8bed05219224b419eb4",
            "source_id": "src_[12]"
          },
          {
            "sha256": "9d7f1aeccb7341dcffabe61a89409e94df1a04a335c5f4cd45c6b869430c5479",
            "source_id": "src_[13]"
          },
          {
            "sha256": "0c73c5c8dbfce9eb96f808e45d4f0ed64a5a1aa340cb6f42b40921b110629244",
            "source_id": "src_[14]"
          },
          {
            "sha256": "ca60439eb6ee6e70277c1866a7e48fbcfd321de97cd7a20bee26fee3759f7457",
            "source_id": "src_[15]"
          },
          {
            "sha256": "a27d281cf27187873b14e1e49fe9d30219bceae876d0e8ed59642f5c3eb47ff1",
            "source_id": "src_[0]"
          },
          {
            "sha256": "b6e4e3a1e07070e6caff055eadd50ac7c80bcaab4187576c65d54efe0acf2b94",
            "source_id": "src_[1]"
          },
          {
            "sha256": "54b712ae7eec4bd5eeae0ecc3f40b7a3c7a240818621e84aba0c66b39763e5c5",
            "source_id": "src_[2]"
          },
          {
            "sha256": "b6bc2e8a60c567809a11ea871239d30e3989548f4073934a8cee9d38bb81f6d1",
            "source_id": "src_[3]"
          },
          {
            "sha256": "57ca13efd557d42fb5bb5c7002673ef9144efaecf64e802fc7971258c1795f59",
            "source_id": "src_[4]"
          },
          {
            "sha256": "386f43c30552148b57d37b937051a30e28ba20b113b6679543d956af7ba87d09",
            "source_id": "src_[5]"
          },
          {
            "sha256": "ef25de642da0ee635970e16be4d1f888e3ab1568bb8f641e5d2bcbe302abe200",
            "source_id": "src_[6]"
          },
          {
            "sha256": "9a6012ad3e47a8c08eae5927d3495185f111fb02197ab7de5ea4aeec5ef7661e",
            "source_id": "src_[7]"
          },
          {
            "sha256": "01ba4719c80b6fe911b091a7c05124b64eeece964e09c058ef8f9805daca546b",
            "source_id": "src_[8]"
          },
          {
            "sha256": "7c2ee1c27253bb3b2efa83deebcaf0d1d50a08edd4d4a1caef1d60c30b471618",
            "source_id": "src_[9]"
          },
          {
            "sha256": "d2e2c84054f476f04bccf990f5c4399fb5b6a3a06137211bd801ea56f30d1a29",
            "source_id": "src_[10]"
          },
          {
            "sha256": "cb448ca8f4acd9a4ec04daabe508a90367b1c3c703bc32ffdad7dc9de1bebdb2",
            "source_id": "src_[11]"
          }
        ]
      },
      "sourceResolution": {
        "checked_scopes": [
          "user",
          "project",
          "doc"
        ],
        "counts": {
          "doc": 14,
          "project": 2
        },
        "gaps": [],
        "host": "codex",
        "memory": null,
        "profile_digest": "[digest]",
        "project_root": "[TREE]",
        "reason": null,
        "root_kind": "project",
        "warnings": [
          {
            "code": "budget-exhausted",
            "message": "the briefing budget of 600 bytes was reached: 1 parts cut, 12 sources left out"
          }
        ],
        "work": {
          "bytes_read": 2426,
          "confirmations": "[confirmations]",
          "dir_entries": 30,
          "dir_enumerations": 11,
          "opens": 68,
          "readlinks": 0,
          "reads": 16,
          "refusals": {
            "budget-exhausted": 0,
            "deadline": 0,
            "escape": 0,
            "hard-link": 0,
            "invalid-path": 0,
            "io": 0,
            "mount-crossing": 0,
            "not-directory": 0,
            "not-found": 17,
            "not-regular": 0,
            "permission-denied": 0,
            "race": 0,
            "symlink": 0,
            "too-large": 0
          },
          "reopens": 16,
          "retries": 0,
          "stats": 59
        }
      },
      "sources": [
        {
          "bytes": 163,
          "rel_path": "AGENTS.md",
          "required": true,
          "scope": "project",
          "sha256": "8734410af43096ccb3645a0dc923160c41fdad09ba5bf8bed05219224b419eb4",
          "source_id": "src_[12]"
        },
        {
          "bytes": 96,
          "rel_path": "packages/api/AGENTS.override.md",
          "required": true,
          "scope": "project",
          "sha256": "9d7f1aeccb7341dcffabe61a89409e94df1a04a335c5f4cd45c6b869430c5479",
          "source_id": "src_[13]"
        },
        {
          "bytes": 74,
          "rel_path": "CLAUDE.local.md",
          "required": false,
          "scope": "doc",
          "sha256": "0c73c5c8dbfce9eb96f808e45d4f0ed64a5a1aa340cb6f42b40921b110629244",
          "source_id": "src_[14]"
        },
        {
          "bytes": 134,
          "rel_path": "CLAUDE.md",
          "required": false,
          "scope": "doc",
          "sha256": "ca60439eb6ee6e70277c1866a7e48fbcfd321de97cd7a20bee26fee3759f7457",
          "source_id": "src_[15]"
        },
        {
          "bytes": 1081,
          "rel_path": "README.md",
          "required": false,
          "scope": "doc",
          "sha256": "a27d281cf27187873b14e1e49fe9d30219bceae876d0e8ed59642f5c3eb47ff1",
          "source_id": "src_[0]"
        },
        {
          "bytes": 121,
          "rel_path": "docs/conventions.md",
          "required": false,
          "scope": "doc",
          "sha256": "b6e4e3a1e07070e6caff055eadd50ac7c80bcaab4187576c65d54efe0acf2b94",
          "source_id": "src_[1]"
        },
        {
          "bytes": 79,
          "rel_path": "packages/api/AGENTS.md",
          "required": false,
          "scope": "doc",
          "sha256": "54b712ae7eec4bd5eeae0ecc3f40b7a3c7a240818621e84aba0c66b39763e5c5",
          "source_id": "src_[2]"
        },
        {
          "bytes": 77,
          "rel_path": "packages/api/CLAUDE.md",
          "required": false,
          "scope": "doc",
          "sha256": "b6bc2e8a60c567809a11ea871239d30e3989548f4073934a8cee9d38bb81f6d1",
          "source_id": "src_[3]"
        },
        {
          "bytes": 89,
          "rel_path": "packages/web/AGENTS.md",
          "required": false,
          "scope": "doc",
          "sha256": "57ca13efd557d42fb5bb5c7002673ef9144efaecf64e802fc7971258c1795f59",
          "source_id": "src_[4]"
        },
        {
          "bytes": 76,
          "rel_path": "packages/web/CLAUDE.md",
          "required": false,
          "scope": "doc",
          "sha256": "386f43c30552148b57d37b937051a30e28ba20b113b6679543d956af7ba87d09",
          "source_id": "src_[5]"
        },
        {
          "bytes": 71,
          "rel_path": "services/billing/CLAUDE.md",
          "required": false,
          "scope": "doc",
          "sha256": "ef25de642da0ee635970e16be4d1f888e3ab1568bb8f641e5d2bcbe302abe200",
          "source_id": "src_[6]"
        },
        {
          "bytes": 85,
          "rel_path": "tools/release/AGENTS.md",
          "required": false,
          "scope": "doc",
          "sha256": "9a6012ad3e47a8c08eae5927d3495185f111fb02197ab7de5ea4aeec5ef7661e",
          "source_id": "src_[7]"
        },
        {
          "bytes": 1,
          "rel_path": "tools/release/AGENTS.override.md",
          "required": false,
          "scope": "doc",
          "sha256": "01ba4719c80b6fe911b091a7c05124b64eeece964e09c058ef8f9805daca546b",
          "source_id": "src_[8]"
        },
        {
          "bytes": 141,
          "rel_path": "tools/release/CLAUDE.md",
          "required": false,
          "scope": "doc",
          "sha256": "7c2ee1c27253bb3b2efa83deebcaf0d1d50a08edd4d4a1caef1d60c30b471618",
          "source_id": "src_[9]"
        },
        {
          "bytes": 72,
          "rel_path": "tools/release/checklist.md",
          "required": false,
          "scope": "doc",
          "sha256": "d2e2c84054f476f04bccf990f5c4399fb5b6a3a06137211bd801ea56f30d1a29",
          "source_id": "src_[10]"
        },
        {
          "bytes": 66,
          "rel_path": "packages/api/src/handlers/AGENTS.md",
          "required": false,
          "scope": "doc",
          "sha256": "cb448ca8f4acd9a4ec04daabe508a90367b1c3c703bc32ffdad7dc9de1bebdb2",
          "source_id": "src_[11]"
        }
      ],
      "text": "## AGENTS.md · project · src_[12]\n\n# Monorepo conventions\n\n- Run `make check` before you commit; CI runs the same target.\n- Every package owns its tests; never import across `packages/*` internals.\n\n## packages/api/AGENTS.override.md · project · src_[13]\n\n# packages/api (override)\n\nDuring the v2 migration, new endpoints go in `src/handlers/v2` only.\n\n## CLAUDE.local.md · doc · src_[14]\n\nMy private notes for this checkout: the staging database is on port 5433.\n\n## CLAUDE.md · doc · src_[15]\n\n# Working in t\n\n"
    }
    "###);
}

#[test]
fn claude_briefing_memory_fact_is_readable_by_id() {
    let mut server = Server::start();
    let root = server.root();
    let briefing = server.raw(
        "session_briefing",
        json!({"project_root": root, "host": "claude", "scope": ["project:blun"], "prompt": "a carbonara?"}),
    );
    let parts: Vec<String> = briefing["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| format!("{} {}", p["scope"].as_str().unwrap(), p["rel_path"].as_str().unwrap()))
        .collect();
    insta::assert_json_snapshot!(parts, @r#"
    [
      "project CLAUDE.md",
      "project docs/conventions.md",
      "project .claude/rules/style.md",
      "local CLAUDE.local.md",
      "memory MEMORY.md",
      "memory memory:1",
      "memory memory:2",
      "memory memory:4",
      "doc AGENTS.md",
      "doc README.md",
      "doc packages/api/AGENTS.md",
      "doc packages/api/AGENTS.override.md",
      "doc packages/api/CLAUDE.md",
      "doc packages/web/AGENTS.md",
      "doc packages/web/CLAUDE.md",
      "doc services/billing/CLAUDE.md",
      "doc tools/release/AGENTS.md",
      "doc tools/release/AGENTS.override.md",
      "doc tools/release/CLAUDE.md",
      "doc tools/release/checklist.md",
      "doc packages/api/src/handlers/AGENTS.md"
    ]
    "#);
    // The carbonara fact was opened for the prompt alone; its id is still
    // readable: read_document uses the briefing's catalog.
    let fact = briefing["parts"].as_array().unwrap().iter().find(|p| p["rel_path"] == "memory:4").unwrap();
    let id = fact["source_id"].clone();
    let document =
        server.content("read_document", json!({"project_root": root, "host": "claude", "source_id": id}));
    insta::assert_json_snapshot!(document, @r#"
    {
      "bytes": 56,
      "changed": false,
      "rel_path": "memory:4",
      "scope": "memory",
      "sha256": "f29d837502079f23b4eb5e4f1f8c4d432e82c59a7e83d7c5cbd059021107328e",
      "source_id": "src_[0]",
      "text": "Carbonara: guanciale, pecorino, egg yolks; never cream.\n"
    }
    "#);
}

#[test]
fn knowledge_query_ranks_passages() {
    let mut server = Server::start();
    let root = server.root();
    let answer = server
        .content("delivery_knowledge_query", json!({"project_root": root, "query": "doc comments", "k": 2}));
    insta::assert_json_snapshot!(answer["hits"], @r#"
    [
      {
        "excerpt": "- Errors carry the path and the cause.\n- Public functions have doc comments that say why, not how.",
        "line_end": 4,
        "line_start": 3,
        "rel_path": "docs/conventions.md",
        "score": 5.17,
        "source_id": "src_[4]"
      }
    ]
    "#);
    assert_eq!(answer["query"], json!("doc comments"));
    assert!(answer["briefing"]["text"].as_str().unwrap().contains("make check"));
}

#[test]
fn tool_errors_are_one_line_results() {
    let mut server = Server::start();
    let root = server.root();
    let cases = [
        ("resolve_context", json!({"project_root": "tree", "target_path": "AGENTS.md"})),
        (
            "resolve_context",
            json!({"project_root": format!("{root}/packages/.."), "target_path": "AGENTS.md"}),
        ),
        ("resolve_context", json!({"project_root": root, "target_path": "AGENTS.md", "catalog": "/x"})),
        ("resolve_context", json!({"project_root": root})),
        (
            "resolve_context",
            json!({"project_root": format!("{root}/packages/api"), "target_path": format!("{root}/packages/web")}),
        ),
        ("resolve_context", json!({"project_root": root, "target_path": "AGENTS.md/file.rs"})),
        // Only the roots the launch gave (here: the project it was started
        // in) are resolved; home and above are never a project.
        ("session_briefing", json!({"project_root": "/"})),
        ("session_briefing", json!({"project_root": server.home.display().to_string()})),
        ("session_briefing", json!({"project_root": server.dir.path().display().to_string()})),
        ("read_document", json!({"project_root": "/etc", "source_id": "src_000000000000000000000000"})),
        ("session_briefing", json!({"project_root": format!("{root}/nope")})),
        ("session_briefing", json!({"project_root": format!("{root}/AGENTS.md")})),
        ("session_briefing", json!({"project_root": root, "host": "vim"})),
        ("session_briefing", json!({"project_root": root, "budget_bytes": 0})),
        ("session_briefing", json!({"project_root": root, "scope": ["blun"]})),
        ("delivery_knowledge_query", json!({"project_root": root, "query": " "})),
        ("delivery_knowledge_query", json!({"project_root": root, "query": "x", "k": 51})),
        ("read_document", json!({"project_root": root, "source_id": "AGENTS.md"})),
        ("read_document", json!({"project_root": root, "source_id": "src_000000000000000000000000"})),
    ];
    let messages: Vec<String> =
        cases.into_iter().map(|(tool, args)| format!("{tool}: {}", server.error(tool, args))).collect();
    insta::assert_json_snapshot!(messages, @r#"
    [
      "resolve_context: project_root must be the absolute path of the project root directory, got \"tree\" (nothing is guessed: pass the exact root)",
      "resolve_context: project_root must not contain `..`, got \"[TREE]/packages/..\"",
      "resolve_context: failed to deserialize parameters: unknown field `catalog`, expected one of `project_root`, `host`, `target_path`",
      "resolve_context: failed to deserialize parameters: missing field `target_path`",
      "resolve_context: [TREE]/packages/web: outside the project root [TREE]/packages/api; agentspine resolves nothing there",
      "resolve_context: [TREE]/AGENTS.md: not a directory",
      "session_briefing: /: a directory above the home directory is never a project root; name the project's own directory",
      "session_briefing: [HOME]: the home directory is never a project root; name the project's own directory",
      "session_briefing: [TMP]: a directory above the home directory is never a project root; name the project's own directory",
      "read_document: /etc: not a root this server was started for (allowed: [TREE]); add it to your client's MCP roots, or start the server with `agentspine mcp --root /etc`",
      "session_briefing: project_root [TREE]/nope: no such directory",
      "session_briefing: project_root [TREE]/AGENTS.md: not a directory",
      "session_briefing: failed to deserialize parameters: unknown variant `vim`, expected one of `codex`, `claude`, `gemini`, `pi`, `pi-0.73`, `opencode`, `kimi`, `copilot`, `desktop`, `generic`",
      "session_briefing: budget_bytes must be between 1 and 1048576, got 0",
      "session_briefing: scope: \"blun\" is not a scope id: use person:ID, project:ID, group:ID or task:ID",
      "delivery_knowledge_query: query is empty: say what you want to know in words",
      "delivery_knowledge_query: k must be between 1 and 50, got 51",
      "read_document: source_id must be an id returned by session_briefing or delivery_knowledge_query (src_…); paths are not accepted",
      "read_document: src_[0]: not a source of this project's catalog (ids come from session_briefing or a query)"
    ]
    "#);
}
