//! `agentspine hook pi`: the payloads pi's extension (`plugins/pi`) sends,
//! with pi's own tool names. pi loads the chain of its start directory and
//! nothing later, so a nested or sibling directory's files are added, once;
//! memory facts come from the project's memory directory.

use std::process::Output;

use serde_json::{Value, json};

use crate::support::Example;

/// The scope the memory example's markers are written for.
const SCOPE: (&str, &str) = ("AGENTSPINE_SCOPE", "project:blun,person:owner");

fn payload(ex: &Example, session: &str, event: &str, extra: Value) -> Value {
    let mut value = json!({ "session_id": session, "cwd": ex.tree, "hook_event_name": event });
    for (k, v) in extra.as_object().unwrap() {
        value[k] = v.clone();
    }
    value
}

/// `agentspine hook pi` with `payload`: exit 0 whatever happens, and the
/// output without the sourceResolution line.
fn hook(ex: &Example, payload: &Value, env: &[(&str, &str)]) -> Output {
    let mut out = ex.run_stdin(".", &["hook", "pi"], payload.to_string().as_bytes(), env);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    out.stdout = crate::support::split_report(&out.stdout).0;
    out
}

#[test]
fn a_pi_read_below_the_start_directory_adds_the_nested_files_pi_never_loads_once() {
    let ex = Example::new();
    let read = payload(
        &ex,
        "p1",
        "PreToolUse",
        json!({ "tool_name": "read", "tool_input": { "path": "packages/api/src/handlers/users.ts" } }),
    );
    let out = hook(&ex, &read, &[]);
    insta::assert_snapshot!(ex.stdout(&out), @r###"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"## [TREE]/packages/api/src/handlers/AGENTS.md\n\nHandlers never touch the database directly; go through `store::`.\n\n## [TREE]/packages/api/AGENTS.override.md\n\n# packages/api (override)\n\nDuring the v2 migration, new endpoints go in `src/handlers/v2` only."}}"###);
    assert_eq!(ex.stdout(&hook(&ex, &read, &[])), "", "sent once per session");
    // pi's shell tool: the files its reads name (pi loads nothing for it).
    let bash = payload(
        &ex,
        "p2",
        "PreToolUse",
        json!({ "tool_name": "bash", "tool_input": { "command": "cat packages/web/AGENTS.md" } }),
    );
    insta::assert_snapshot!(ex.stdout(&hook(&ex, &bash, &[])), @r###"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"## [TREE]/packages/web/AGENTS.md\n\n# packages/web\n\nThe web client. Components are function components; no class components."}}"###);
    // Claude Code's tool names mean nothing from pi.
    let claude_name = payload(
        &ex,
        "p3",
        "PreToolUse",
        json!({ "tool_name": "Read", "tool_input": { "path": "packages/web/x.ts", "file_path": "packages/web/x.ts" } }),
    );
    assert_eq!(ex.stdout(&hook(&ex, &claude_name, &[])), "");
}

#[test]
fn pi_gets_the_projects_memory_facts_at_start_and_by_its_prompt() {
    let ex = Example::new();
    let settings = json!({ "autoMemoryDirectory": ex.memory.display().to_string() });
    ex.home_file(".claude/settings.json", &settings.to_string());
    let start = payload(&ex, "m1", "SessionStart", json!({ "source": "startup" }));
    let out = hook(&ex, &start, &[SCOPE]);
    insta::assert_snapshot!(ex.stdout(&out), @r###"{"hookSpecificOutput":{"additionalContext":"## [TMP]/memory/style.md\n\nAnswer briefly; lead with the result, then the reasoning.\n\n## [TMP]/memory/projects/blun.md\n\nBLUN ships on Thursdays; the release branch freezes on Tuesday noon.\n\n## [TMP]/memory/people/owner.md\n\nThe owner reviews in the morning; ask before force-pushing.","hookEventName":"SessionStart"}}"###);
    let prompt = payload(&ex, "m1", "UserPromptSubmit", json!({ "prompt": "the carbonara recipe" }));
    insta::assert_snapshot!(ex.stdout(&hook(&ex, &prompt, &[SCOPE])), @r###"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"## [TMP]/memory/pasta.md\n\nCarbonara: guanciale, pecorino, egg yolks; never cream."}}"###);
    assert_eq!(ex.stdout(&hook(&ex, &prompt, &[SCOPE])), "", "each fact once per session");
}

#[test]
fn pi_0_73_gets_the_files_of_its_own_rules() {
    let ex = Example::new();
    let read = payload(
        &ex,
        "o1",
        "PreToolUse",
        json!({ "tool_name": "read", "tool_input": { "path": "packages/api/src/handlers/users.ts" } }),
    );
    let out = ex.run_stdin(".", &["hook", "pi-0.73"], read.to_string().as_bytes(), &[]);
    assert_eq!(out.status.code(), Some(0));
    // pi 0.73 knows no AGENTS.override.md: packages/api's AGENTS.md is its file there.
    insta::assert_snapshot!(ex.stdout(&out), @r###"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"## [TREE]/packages/api/src/handlers/AGENTS.md\n\nHandlers never touch the database directly; go through `store::`.\n\n## [TREE]/packages/api/AGENTS.md\n\n# packages/api\n\nThe HTTP API. Handlers live in `src/handlers`; keep them thin."}}"###);
}
