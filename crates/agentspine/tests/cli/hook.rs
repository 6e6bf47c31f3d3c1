//! `agentspine hook claude|codex|gemini`: real-shaped payloads on stdin, the exact
//! JSON on stdout, and the state and audit rows they leave.

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::Example;

/// The scope the memory example's markers are written for.
const SCOPE: (&str, &str) = ("AGENTSPINE_SCOPE", "project:blun,person:owner");

impl Example {
    /// Points Claude Code's auto memory at the copied `examples/claude-memory`.
    fn with_memory(self) -> Example {
        let settings = json!({ "autoMemoryDirectory": self.memory.display().to_string() });
        self.home_file(".claude/settings.json", &settings.to_string());
        self
    }

    /// Runs `agentspine hook HOST` with `payload` on stdin; checks what
    /// every hook run promises whatever the input: exit 0, and never a
    /// permission decision on stdout.
    /// The `sourceResolution` block a session start ends with is taken
    /// out (its own tests look at it: see [`Example::hook_report`]).
    fn hook(&self, host: &str, payload: &serde_json::Value, env: &[(&str, &str)]) -> Output {
        let mut out = self.hook_raw(host, payload.to_string().as_bytes(), env);
        out.stdout = crate::support::split_report(&out.stdout).0;
        out
    }

    /// The `sourceResolution` line of a run, if it has one.
    fn hook_report(&self, host: &str, payload: &serde_json::Value, env: &[(&str, &str)]) -> Option<String> {
        let out = self.hook_raw(host, payload.to_string().as_bytes(), env);
        crate::support::split_report(&out.stdout).1
    }

    fn hook_raw(&self, host: &str, stdin: &[u8], env: &[(&str, &str)]) -> Output {
        // Started from the home directory, not the project: only the
        // payload says where the session is.
        let out = self.run_stdin("../home", &["hook", host], stdin, env);
        assert_eq!(out.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8(out.stdout.clone()).unwrap();
        assert!(!stdout.contains("permissionDecision"), "{stdout}");
        if !stdout.is_empty() {
            // One JSON line, the host's shape and nothing else (Kimi
            // Code's: `message` alone; GitHub Copilot CLI's:
            // `additionalContext` alone).
            let value: serde_json::Value = serde_json::from_str(&stdout).unwrap();
            assert_eq!(value.as_object().unwrap().len(), 1, "{stdout}");
            if host == "kimi" {
                assert!(value["message"].is_string(), "{stdout}");
            } else if host == "copilot" {
                assert!(value["additionalContext"].is_string(), "{stdout}");
            } else {
                let keys: Vec<&String> = value["hookSpecificOutput"].as_object().unwrap().keys().collect();
                assert_eq!(keys.len(), 2, "{stdout}");
            }
            assert!(stdout.ends_with("}\n") && stdout.matches('\n').count() == 1, "{stdout:?}");
        }
        out
    }

    /// `additionalContext` of a run's output.
    fn context(&self, out: &Output) -> String {
        let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        value["hookSpecificOutput"]["additionalContext"].as_str().unwrap().to_owned()
    }

    fn audit_rows(&self) -> String {
        let out = std::process::Command::new("sqlite3")
            .arg(self.state.join("state.db"))
            .arg("SELECT host, event, phase, code, path FROM audit ORDER BY id")
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        self.filter(&String::from_utf8(out.stdout).unwrap())
    }

    /// `agentspine hook claude` started on a payload that never ends (its
    /// stdin is held open, with the start of a JSON object written): the
    /// work process keeps reading until the deadline. Returns the hook and
    /// the held stdin.
    fn hook_reading_forever(&self) -> (std::process::Child, std::process::ChildStdin) {
        let mut child = self
            .command(".", &["hook", "claude"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut stdin, b"{\"session_id\":\"s\",").unwrap();
        (child, stdin)
    }

    fn tree_path(&self, rel: &str) -> String {
        self.tree.join(rel).display().to_string()
    }
}

fn claude_start(ex: &Example, session: &str, source: &str) -> serde_json::Value {
    json!({
        "session_id": session,
        "transcript_path": ex.home.join(".claude/projects/-tree/0b6c.jsonl"),
        "cwd": ex.tree,
        "hook_event_name": "SessionStart",
        "source": source,
    })
}

fn claude_prompt(ex: &Example, session: &str, prompt: &str) -> serde_json::Value {
    json!({
        "session_id": session,
        "transcript_path": ex.home.join(".claude/projects/-tree/0b6c.jsonl"),
        "cwd": ex.tree,
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    })
}

fn claude_tool(
    ex: &Example,
    session: &str,
    cwd: &Path,
    tool: &str,
    input: serde_json::Value,
) -> serde_json::Value {
    json!({
        "session_id": session,
        "transcript_path": ex.home.join(".claude/projects/-tree/0b6c.jsonl"),
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": "toolu_01ABC",
    })
}

fn codex(ex: &Example, session: &str, event: &str, extra: serde_json::Value) -> serde_json::Value {
    let mut payload = json!({
        "session_id": session,
        "transcript_path": null,
        "cwd": ex.tree,
        "hook_event_name": event,
        "model": "gpt-5.1-codex",
        "permission_mode": "default",
    });
    payload.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    payload
}

fn users_edit(ex: &Example) -> serde_json::Value {
    json!({
        "file_path": ex.tree_path("packages/api/src/handlers/users.ts"),
        "old_string": "export {};",
        "new_string": "export const users = [];",
    })
}

#[test]
fn claude_session_start_sends_the_scoped_facts_not_the_index() {
    let ex = Example::new().with_memory();
    let out = ex.hook("claude", &claude_start(&ex, "s1", "startup"), &[SCOPE]);
    insta::assert_snapshot!(ex.stdout(&out), @r#"{"hookSpecificOutput":{"additionalContext":"Contents of [TMP]/memory/style.md:\n\nAnswer briefly; lead with the result, then the reasoning.\n\nContents of [TMP]/memory/projects/blun.md:\n\nBLUN ships on Thursdays; the release branch freezes on Tuesday noon.\n\nContents of [TMP]/memory/people/owner.md:\n\nThe owner reviews in the morning; ask before force-pushing.","hookEventName":"SessionStart"}}"#);
    // Resumed: the model still has them. Compacted: it no longer does.
    let resumed = ex.hook("claude", &claude_start(&ex, "s1", "resume"), &[SCOPE]);
    assert_eq!(ex.stdout(&resumed), "");
    let compacted = ex.hook("claude", &claude_start(&ex, "s1", "compact"), &[SCOPE]);
    assert_eq!(ex.stdout(&compacted), ex.stdout(&out));
    // Without a scope only `always` facts are relevant.
    let unscoped = ex.hook("claude", &claude_start(&ex, "s2", "startup"), &[]);
    insta::assert_snapshot!(ex.stdout(&unscoped), @r#"{"hookSpecificOutput":{"additionalContext":"Contents of [TMP]/memory/style.md:\n\nAnswer briefly; lead with the result, then the reasoning.","hookEventName":"SessionStart"}}"#);
    assert_eq!(ex.audit_rows(), "");
}

#[test]
fn claude_memory_is_found_by_the_git_root_when_the_session_starts_in_a_package() {
    // Claude Code files the transcript under the start directory's name
    // and memory under the git root's (measured on 2.1.332): the
    // transcript is no evidence for the memory directory.
    let ex = Example::new();
    assert!(ex.tree.join(".git").is_dir(), "the example is a git root");
    let root = ex.tree.canonicalize().unwrap().display().to_string();
    let encode =
        |p: &str| p.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '-' }).collect::<String>();
    let memory = ex.home.join(".claude/projects").join(encode(&root)).join("memory");
    std::fs::create_dir_all(&memory).unwrap();
    std::fs::write(memory.join("MEMORY.md"), "- [Style](style.md) <!-- agentspine:always -->\n").unwrap();
    std::fs::write(memory.join("style.md"), "Answer briefly.\n").unwrap();
    let web = ex.tree.join("packages/web");
    let transcript =
        ex.home.join(".claude/projects").join(encode(&format!("{root}/packages/web"))).join("s1.jsonl");
    let start = json!({
        "session_id": "s1", "transcript_path": transcript, "cwd": web,
        "hook_event_name": "SessionStart", "source": "startup",
    });
    let out = ex.hook("claude", &start, &[]);
    assert_eq!(
        ex.context(&out),
        format!("Contents of {}:\n\nAnswer briefly.", memory.join("style.md").display())
    );
}

#[test]
fn claude_user_prompt_sends_the_pasta_fact_once() {
    let ex = Example::new().with_memory();
    ex.hook("claude", &claude_start(&ex, "s1", "startup"), &[SCOPE]);
    let first = ex.hook("claude", &claude_prompt(&ex, "s1", "what goes in a carbonara?"), &[SCOPE]);
    insta::assert_snapshot!(ex.stdout(&first), @r###"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"Contents of [TMP]/memory/pasta.md:\n\nCarbonara: guanciale, pecorino, egg yolks; never cream."}}"###);
    let again = ex.hook("claude", &claude_prompt(&ex, "s1", "what goes in a carbonara?"), &[SCOPE]);
    assert_eq!(ex.stdout(&again), "");
    // A prompt no fact is about adds nothing.
    let other = ex.hook("claude", &claude_prompt(&ex, "s1", "rename the users handler"), &[SCOPE]);
    assert_eq!(ex.stdout(&other), "");
    // A changed fact is sent again.
    std::fs::write(ex.memory.join("pasta.md"), "Carbonara: guanciale, pecorino, whole eggs.\n").unwrap();
    let changed = ex.hook("claude", &claude_prompt(&ex, "s1", "carbonara again"), &[SCOPE]);
    assert!(
        ex.context(&changed).ends_with("Carbonara: guanciale, pecorino, whole eggs."),
        "{}",
        ex.stdout(&changed)
    );
}

#[test]
fn claude_prompt_before_any_session_start_also_brings_the_scope_facts() {
    // Installed mid-session (or a SessionStart that could not finish): the
    // first prompt makes up for it.
    let ex = Example::new().with_memory();
    let out =
        ex.hook("claude", &claude_prompt(&ex, "s1", "carbonara"), &[("AGENTSPINE_SCOPE", "project:blun")]);
    insta::assert_snapshot!(ex.stdout(&out), @r###"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"Contents of [TMP]/memory/style.md:\n\nAnswer briefly; lead with the result, then the reasoning.\n\nContents of [TMP]/memory/projects/blun.md:\n\nBLUN ships on Thursdays; the release branch freezes on Tuesday noon.\n\nContents of [TMP]/memory/pasta.md:\n\nCarbonara: guanciale, pecorino, egg yolks; never cream."}}"###);
}

#[test]
fn claude_file_tools_send_a_sibling_packages_files_once() {
    let ex = Example::new();
    // Started in packages/web; the model works in packages/api, which
    // Claude Code loads nothing for (measured on 2.1.332).
    let web = ex.tree.join("packages/web");
    let read = json!({ "file_path": ex.tree_path("packages/api/src/handlers/users.ts") });
    let out = ex.hook("claude", &claude_tool(&ex, "s1", &web, "Read", read), &[]);
    // The `paths:` rule for packages/api/** lives in the root's .claude,
    // which Claude Code loads on a match itself; the nested CLAUDE.md is
    // the one it lacks.
    insta::assert_snapshot!(ex.stdout(&out), @r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"Contents of [TREE]/packages/api/CLAUDE.md:\n\n# packages/api for Claude\n\nRun `make -C packages/api test` after every edit."}}"#);
    let edit = claude_tool(&ex, "s1", &web, "Edit", users_edit(&ex));
    assert_eq!(ex.stdout(&ex.hook("claude", &edit, &[])), "");
    // A Write of a new file beside it: its directory's chain, already sent.
    let write = json!({ "file_path": ex.tree_path("packages/api/src/handlers/new.ts"), "content": "x" });
    assert_eq!(ex.stdout(&ex.hook("claude", &claude_tool(&ex, "s1", &web, "Write", write), &[])), "");
    // A new file in a directory that does not exist yet, in another package.
    let write = json!({ "file_path": ex.tree_path("services/billing/src/new/a.ts"), "content": "x" });
    let out = ex.hook("claude", &claude_tool(&ex, "s1", &web, "Write", write), &[]);
    insta::assert_snapshot!(ex.stdout(&out), @r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"Contents of [TREE]/services/billing/CLAUDE.md:\n\n# services/billing\n\nAmounts are integers in minor units; never floats."}}"#);
    // Glob without a path adds nothing.
    let glob = json!({ "pattern": "**/*.ts" });
    assert_eq!(ex.stdout(&ex.hook("claude", &claude_tool(&ex, "s1", &web, "Glob", glob), &[])), "");
    // The session ends: what it was sent is forgotten.
    ex.hook(
        "claude",
        &json!({"session_id": "s1", "cwd": web, "hook_event_name": "SessionEnd", "reason": "exit"}),
        &[],
    );
    assert!(ex.context(&ex.hook("claude", &edit, &[])).contains("packages/api/CLAUDE.md"));
    assert_eq!(ex.audit_rows(), "");
}

#[test]
fn claude_loads_the_files_below_its_start_directory_itself_and_they_are_never_repeated() {
    let ex = Example::new();
    // Started at the root: Read, Write and Edit below it make Claude Code
    // load the nested CLAUDE.md and the matching `paths:` rule itself.
    let read = json!({ "file_path": ex.tree_path("packages/api/src/handlers/users.ts") });
    assert_eq!(ex.stdout(&ex.hook("claude", &claude_tool(&ex, "s1", &ex.tree, "Read", read), &[])), "");
    let edit = claude_tool(&ex, "s1", &ex.tree, "Edit", users_edit(&ex));
    assert_eq!(ex.stdout(&ex.hook("claude", &edit, &[])), "");
    // Recorded as the session's: a Grep there (which loads nothing) does
    // not repeat them.
    let grep = json!({ "pattern": "users", "path": ex.tree_path("packages/api/src") });
    assert_eq!(ex.stdout(&ex.hook("claude", &claude_tool(&ex, "s1", &ex.tree, "Grep", grep), &[])), "");
    // A Grep in a directory no file tool touched: Claude Code lacks it.
    let grep = json!({ "pattern": "amount", "path": ex.tree_path("services/billing") });
    let out = ex.hook("claude", &claude_tool(&ex, "s1", &ex.tree, "Grep", grep.clone()), &[]);
    insta::assert_snapshot!(ex.stdout(&out), @r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"Contents of [TREE]/services/billing/CLAUDE.md:\n\n# services/billing\n\nAmounts are integers in minor units; never floats."}}"#);
    assert_eq!(ex.stdout(&ex.hook("claude", &claude_tool(&ex, "s1", &ex.tree, "Grep", grep), &[])), "");
    // Another session has been sent nothing.
    let grep = json!({ "pattern": "users", "path": ex.tree_path("packages/api/src") });
    let out = ex.hook("claude", &claude_tool(&ex, "s2", &ex.tree, "Grep", grep), &[]);
    insta::assert_snapshot!(ex.stdout(&out), @r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"Contents of [TREE]/packages/api/CLAUDE.md:\n\n# packages/api for Claude\n\nRun `make -C packages/api test` after every edit."}}"#);
    assert_eq!(ex.audit_rows(), "");
}

#[test]
fn claude_project_dir_is_where_the_host_loaded_its_chain() {
    let ex = Example::new();
    let api = ex.tree.join("packages/api");
    let grep = json!({ "pattern": "users", "path": ex.tree_path("packages/api/src/handlers") });
    // Started in packages/api: its CLAUDE.md was loaded at start.
    let out = ex.hook("claude", &claude_tool(&ex, "s1", &api, "Grep", grep.clone()), &[]);
    insta::assert_snapshot!(ex.stdout(&out), @"");
    // Started at the root, then moved into packages/api: it was not.
    let tree = ex.tree.display().to_string();
    let out =
        ex.hook("claude", &claude_tool(&ex, "s2", &api, "Grep", grep), &[("CLAUDE_PROJECT_DIR", &tree)]);
    insta::assert_snapshot!(ex.stdout(&out), @r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"Contents of [TREE]/packages/api/CLAUDE.md:\n\n# packages/api for Claude\n\nRun `make -C packages/api test` after every edit."}}"#);
    // A file read through the shell below the start directory: Claude Code
    // loads its nested files itself (measured), so they are recorded, not
    // sent; from a sibling package they come with the command's output,
    // once.
    let bash = json!({ "command": "cd packages/api && sed -n '1,40p' src/handlers/users.ts | head -n 20" });
    let out =
        ex.hook("claude", &claude_tool(&ex, "s3", &ex.tree, "Bash", bash), &[("CLAUDE_PROJECT_DIR", &tree)]);
    assert_eq!(ex.stdout(&out), "");
    let web = ex.tree.join("packages/web");
    let sibling = json!({ "command": "nl -ba ../api/src/handlers/users.ts" });
    let web_dir = web.display().to_string();
    let out = ex.hook(
        "claude",
        &claude_tool(&ex, "s5", &web, "Bash", sibling.clone()),
        &[("CLAUDE_PROJECT_DIR", &web_dir)],
    );
    insta::assert_snapshot!(ex.stdout(&out), @r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"Contents of [TREE]/packages/api/CLAUDE.md:\n\n# packages/api for Claude\n\nRun `make -C packages/api test` after every edit."}}"#);
    let again = ex.hook(
        "claude",
        &claude_tool(&ex, "s5", &web, "Bash", sibling),
        &[("CLAUDE_PROJECT_DIR", &web_dir)],
    );
    assert_eq!(ex.stdout(&again), "");
    // What the shell would have to expand is never guessed.
    let unknown = json!({ "command": "cat \"$DIR/users.ts\" packages/*/CLAUDE.md" });
    assert_eq!(ex.stdout(&ex.hook("claude", &claude_tool(&ex, "s4", &ex.tree, "Bash", unknown), &[])), "");
}

#[test]
fn codex_apply_patch_sends_the_nested_agents_files_of_every_target_once() {
    let ex = Example::new();
    let patch = "*** Begin Patch\n*** Update File: packages/api/src/handlers/users.ts\n@@\n-export {};\n+export const users = [];\n\
                 *** Add File: packages/web/src/Button.tsx\n+export function Button() {}\n*** End Patch\n";
    let payload = codex(
        &ex,
        "c1",
        "PreToolUse",
        json!({
            "tool_name": "apply_patch", "tool_input": { "command": patch }, "tool_use_id": "call_1",
        }),
    );
    let out = ex.hook("codex", &payload, &[]);
    insta::assert_snapshot!(ex.stdout(&out), @r###"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"## packages/api/src/handlers/AGENTS.md\n\nHandlers never touch the database directly; go through `store::`.\n\n## packages/api/AGENTS.override.md\n\n# packages/api (override)\n\nDuring the v2 migration, new endpoints go in `src/handlers/v2` only.\n\n## packages/web/AGENTS.md\n\n# packages/web\n\nThe web client. Components are function components; no class components."}}"###);
    assert_eq!(ex.stdout(&ex.hook("codex", &payload, &[])), "");
    // A shell command's reads name their files as a patch does.
    let bash = codex(
        &ex,
        "c2",
        "PreToolUse",
        json!({
            "tool_name": "Bash", "tool_input": { "command": "nl -ba packages/api/src/handlers/users.ts | sed -n '1,40p'" },
            "tool_use_id": "call_2",
        }),
    );
    insta::assert_snapshot!(ex.stdout(&ex.hook("codex", &bash, &[])), @r###"{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"## packages/api/src/handlers/AGENTS.md\n\nHandlers never touch the database directly; go through `store::`.\n\n## packages/api/AGENTS.override.md\n\n# packages/api (override)\n\nDuring the v2 migration, new endpoints go in `src/handlers/v2` only."}}"###);
    assert_eq!(ex.stdout(&ex.hook("codex", &bash, &[])), "");
    // SessionStart (no memory directory in Codex) and prompts add nothing.
    let start = codex(&ex, "c1", "SessionStart", json!({ "source": "startup" }));
    assert_eq!(ex.stdout(&ex.hook("codex", &start, &[SCOPE])), "");
    let prompt = codex(&ex, "c1", "UserPromptSubmit", json!({ "prompt": "carbonara", "turn_id": "t1" }));
    assert_eq!(ex.stdout(&ex.hook("codex", &prompt, &[SCOPE])), "");
    // startup forgot what c1 was sent: the patch's files come again; so
    // does a compaction.
    assert!(
        ex.context(&ex.hook("codex", &payload, &[])).starts_with("## packages/api/src/handlers/AGENTS.md")
    );
    assert_eq!(ex.stdout(&ex.hook("codex", &payload, &[])), "");
    let compacted = codex(&ex, "c1", "PostCompact", json!({ "trigger": "auto" }));
    assert_eq!(ex.stdout(&ex.hook("codex", &compacted, &[])), "");
    assert!(
        ex.context(&ex.hook("codex", &payload, &[])).starts_with("## packages/api/src/handlers/AGENTS.md")
    );
    assert_eq!(ex.audit_rows(), "");
}

#[test]
fn a_target_outside_the_root_or_through_a_link_adds_nothing() {
    let ex = Example::new();
    let elsewhere = ex.dir.path().join("elsewhere");
    std::fs::create_dir_all(elsewhere.join("pkg")).unwrap();
    std::fs::write(elsewhere.join("pkg/CLAUDE.md"), "never sent\n").unwrap();
    std::fs::write(elsewhere.join("pkg/AGENTS.md"), "never sent\n").unwrap();
    std::os::unix::fs::symlink(elsewhere.join("pkg"), ex.tree.join("packages/linked")).unwrap();
    for path in [
        elsewhere.join("pkg/a.ts").display().to_string(),
        ex.tree_path("packages/linked/a.ts"),
        ex.tree_path("../elsewhere/pkg/a.ts"),
        "/etc/hosts".to_owned(),
    ] {
        let edit = claude_tool(&ex, "s1", &ex.tree, "Edit", json!({ "file_path": path }));
        let out = ex.hook("claude", &edit, &[]);
        assert_eq!(ex.stdout(&out), "", "{path}");
        assert!(out.stderr.is_empty(), "{path}: {}", String::from_utf8_lossy(&out.stderr));
        let patch = format!("*** Begin Patch\n*** Update File: {path}\n*** End Patch\n");
        let payload = codex(
            &ex,
            "c1",
            "PreToolUse",
            json!({ "tool_name": "apply_patch", "tool_input": { "command": patch } }),
        );
        assert_eq!(ex.stdout(&ex.hook("codex", &payload, &[])), "", "{path}");
    }
    // The link is a refusal worth recording; the rest are not errors.
    assert_eq!(
        ex.audit_rows(),
        "claude|PreToolUse|chain|target-through-symlink|[TREE]/packages/linked/a.ts\n\
         codex|PreToolUse|chain|target-through-symlink|[TREE]/packages/linked/a.ts\n"
    );
}

#[test]
fn the_home_directory_is_never_a_project() {
    // A home that is a git repository (dotfiles), with instruction files
    // below: the home's `.git` makes no project root. Started in the home
    // itself, nothing is a project and nothing is sent; started in a
    // directory below it, that directory alone is the project (as for a
    // directory with no marker), so its own nested files are its rules.
    let ex = Example::new();
    ex.home_file("CLAUDE.md", "home notes\n").home_file("work/sub/CLAUDE.md", "nested in home\n");
    ex.home_file("work/sub/AGENTS.md", "nested in home\n").home_file("work/sub/a.ts", "x\n");
    std::fs::create_dir(ex.home.join(".git")).unwrap();
    let target = ex.home.join("work/sub/a.ts");
    let patch = format!("*** Begin Patch\n*** Update File: {}\n*** End Patch\n", target.display());
    for (cwd, codex_sends) in
        [(ex.home.clone(), ""), (ex.home.join("work"), "## sub/AGENTS.md\n\nnested in home")]
    {
        let edit = claude_tool(&ex, "s1", &cwd, "Edit", json!({ "file_path": target }));
        // Below Claude Code's start directory: it loads the file itself.
        assert_eq!(ex.stdout(&ex.hook("claude", &edit, &[])), "", "{}", cwd.display());
        let mut payload = codex(
            &ex,
            "c1",
            "PreToolUse",
            json!({ "tool_name": "apply_patch", "tool_input": { "command": patch } }),
        );
        payload["cwd"] = json!(cwd);
        let out = ex.stdout(&ex.hook("codex", &payload, &[]));
        if codex_sends.is_empty() {
            assert_eq!(out, "", "{}", cwd.display());
        } else {
            let sent: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(sent["hookSpecificOutput"]["additionalContext"], codex_sends, "{}", cwd.display());
        }
    }
    // Grep from the home itself: the home is never a project.
    let grep = json!({ "pattern": "x", "path": ex.home.join("work/sub") });
    let home_grep = claude_tool(&ex, "s2", &ex.home, "Grep", grep.clone());
    assert_eq!(ex.stdout(&ex.hook("claude", &home_grep, &[])), "");
    // The same tree elsewhere is a project like any other (a Grep: Claude
    // Code would load the file itself for an Edit below its start).
    let grep = json!({ "pattern": "x", "path": ex.home.join("work/sub") });
    let edit = claude_tool(&ex, "s3", &ex.home.join("work"), "Grep", grep);
    std::fs::remove_dir(ex.home.join(".git")).unwrap();
    std::fs::create_dir(ex.home.join("work/.git")).unwrap();
    assert!(ex.context(&ex.hook("claude", &edit, &[])).ends_with("nested in home"));
}

#[test]
fn malformed_and_oversized_payloads_exit_0_silently_with_an_audit_row() {
    let ex = Example::new();
    let mut oversized = b"{\"session_id\":\"s\",\"hook_event_name\":\"PreToolUse\",\"prompt\":\"".to_vec();
    oversized.resize(2 * 1024 * 1024, b'a');
    let cases: [(&str, &[u8]); 5] = [
        ("claude", b"not json"),
        ("codex", b"[\"SessionStart\"]"),
        ("claude", br#"{"session_id":"s","hook_event_name":"UserPromptSubmit","cwd":"relative/dir"}"#),
        ("codex", br#"{"session_id":"s","hook_event_name":"PreToolUse","cwd":"/","tool_name":7}"#),
        ("claude", &oversized),
    ];
    for (host, stdin) in cases {
        let out = ex.hook_raw(host, stdin, &[]);
        assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    assert_eq!(
        ex.audit_rows(),
        "claude|unknown|payload|malformed|\n\
         codex|unknown|payload|malformed|\n\
         claude|UserPromptSubmit|payload|malformed|\n\
         codex|PreToolUse|payload|malformed|\n\
         claude|unknown|payload|oversized|\n"
    );
}

#[test]
fn a_payload_that_never_ends_is_abandoned_at_the_deadline() {
    let ex = Example::new();
    let started = Instant::now();
    let (child, stdin) = ex.hook_reading_forever();
    let out = child.wait_with_output().unwrap();
    let took = started.elapsed();
    drop(stdin);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    // The work stops at 1.6 s; the audit row is in before the hook exits,
    // and the whole run ends within 2 s.
    assert!(took >= Duration::from_millis(1600) && took < Duration::from_secs(2), "{took:?}");
    assert_eq!(ex.audit_rows(), "claude|unknown|payload|deadline|\n");
}

#[test]
fn a_hook_whose_work_process_is_killed_exits_at_once_with_nothing_printed() {
    let ex = Example::new();
    // A payload that never ends keeps the work process reading.
    let (child, stdin) = ex.hook_reading_forever();
    let children = format!("/proc/{0}/task/{0}/children", child.id());
    let waited = Instant::now();
    let work: Vec<i32> = loop {
        let found: Vec<i32> = std::fs::read_to_string(&children)
            .unwrap_or_default()
            .split_whitespace()
            .map(|pid| pid.parse().unwrap())
            .collect();
        if !found.is_empty() || waited.elapsed() > Duration::from_secs(1) {
            break found;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    assert_eq!(work.len(), 1, "one work process: {work:?}");
    std::thread::sleep(Duration::from_millis(100));
    let killed = Instant::now();
    assert!(
        std::process::Command::new("kill").args(["-KILL", &work[0].to_string()]).status().unwrap().success()
    );
    let out = child.wait_with_output().unwrap();
    let took = killed.elapsed();
    drop(stdin);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty(), "{:?}", String::from_utf8_lossy(&out.stdout));
    // Gone with the work process, long before the deadline; no row (the
    // work process wrote none, and the hook process was not late: not even
    // a state database was made).
    assert!(took < Duration::from_millis(500), "{took:?}");
    assert!(!ex.state.join("state.db").exists(), "a row was written: {}", ex.audit_rows());
}

#[test]
fn a_late_hook_exits_within_2_s_while_the_store_is_locked_and_its_row_follows() {
    let ex = Example::new();
    // Create the database, then hold its write lock from another process.
    ex.hook("claude", &claude_start(&ex, "s0", "startup"), &[]);
    let mut locker = std::process::Command::new("sqlite3")
        .arg(ex.state.join("state.db"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lock = locker.stdin.take().unwrap();
    std::io::Write::write_all(&mut lock, b"BEGIN IMMEDIATE;\nSELECT 'locked';\n").unwrap();
    let mut seen = String::new();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(locker.stdout.as_mut().unwrap()), &mut seen)
        .unwrap();
    assert_eq!(seen, "locked\n");

    let started = Instant::now();
    let (child, stdin) = ex.hook_reading_forever();
    let out = child.wait_with_output().unwrap();
    let took = started.elapsed();
    drop(stdin);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    assert!(took >= Duration::from_millis(1600) && took < Duration::from_secs(2), "{took:?}");
    assert_eq!(ex.audit_rows(), "");

    // The work process stayed behind to write the row once the lock is gone.
    std::io::Write::write_all(&mut lock, b"COMMIT;\n").unwrap();
    drop(lock);
    locker.wait().unwrap();
    let waited = Instant::now();
    while ex.audit_rows().is_empty() && waited.elapsed() < Duration::from_secs(8) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(ex.audit_rows(), "claude|unknown|payload|deadline|\n");
}

#[test]
fn additional_context_stays_under_10000_characters_and_says_what_was_cut() {
    let ex = Example::new().with_memory();
    std::fs::write(ex.memory.join("big.md"), "long fact ".repeat(3_000)).unwrap();
    let index = std::fs::read_to_string(ex.memory.join("MEMORY.md")).unwrap();
    let index = index.replace("# Memory\n\n", "# Memory\n\n- [Big](big.md) <!-- agentspine:always -->\n");
    std::fs::write(ex.memory.join("MEMORY.md"), index).unwrap();
    assert_eq!("long fact ".repeat(3_000).chars().count(), 30_000);
    let out = ex.hook("claude", &claude_start(&ex, "s1", "startup"), &[SCOPE]);
    let context = ex.context(&out);
    assert!(context.encode_utf16().count() < 10_000, "{}", context.len());
    assert!(
        context.starts_with(&format!(
            "Contents of {}:\n\nlong fact long fact",
            ex.memory.join("big.md").display()
        ))
    );
    let notes = "\n\n[agentspine: 3 more sources left out for lack of room, to come with a later event: \
                 style.md, projects/blun.md, people/owner.md; run `agentspine briefing` for them now]";
    assert!(context.ends_with(notes), "{}", &context[context.len() - 300..]);
    let (shown, cut) =
        context.trim_end_matches(notes).rsplit_once("\n\n[agentspine: cut at character ").unwrap();
    assert_eq!(
        cut,
        format!(
            "{} of 29999; the rest comes with a later event, or run `agentspine briefing` for the whole file]",
            shown.chars().count()
                - format!("Contents of {}:\n\n", ex.memory.join("big.md").display()).chars().count()
        )
    );
    let kept: usize = cut.split(' ').next().unwrap().parse().unwrap();
    assert!(kept > 9_000, "{cut}");
    // The three left out come with the next prompt, then the rest of the
    // cut fact from where it stopped (cut again: it is still too long).
    let next = ex.hook("claude", &claude_prompt(&ex, "s1", "hello"), &[SCOPE]);
    let context = ex.context(&next);
    let facts = ex.filter(&context);
    assert!(facts.starts_with("Contents of [TMP]/memory/style.md:\n\nAnswer briefly; lead with the result, then the reasoning.\n\nContents of [TMP]/memory/projects/blun.md:\n\nBLUN ships on Thursdays; the release branch freezes on Tuesday noon.\n\nContents of [TMP]/memory/people/owner.md:\n\nThe owner reviews in the morning; ask before force-pushing.\n\nContents of [TMP]/memory/big.md:\n\n"), "{facts}");
    let rest = context
        .split_once(&format!("big.md:\n\n[agentspine: continued from character {kept} of 29999]\n\n"))
        .unwrap()
        .1;
    let (more, cut) = rest.rsplit_once("\n\n[agentspine: cut at character ").unwrap();
    let kept2: usize = cut.split(' ').next().unwrap().parse().unwrap();
    assert_eq!(kept2, kept + more.chars().count(), "{cut}");
    // Every character of the fact reaches the session once, in order.
    let whole = "long fact ".repeat(3_000);
    let whole = whole.trim();
    let mut got = shown.split_once("big.md:\n\n").unwrap().1.to_owned() + more;
    for n in 0..5 {
        if got.len() == whole.len() {
            break;
        }
        let out = ex.hook("claude", &claude_prompt(&ex, "s1", &format!("again {n}")), &[SCOPE]);
        let context = ex.context(&out);
        let rest = context.split_once(" of 29999]\n\n").unwrap().1;
        got.push_str(rest.split("\n\n[agentspine: cut at character ").next().unwrap());
    }
    assert_eq!(got, whole);
    let after = ex.hook("claude", &claude_prompt(&ex, "s1", "done"), &[SCOPE]);
    assert_eq!(ex.stdout(&after), "");
}

#[test]
fn an_unreadable_nested_file_is_left_out_and_audited() {
    let ex = Example::new();
    use std::os::unix::fs::PermissionsExt;
    let locked = ex.tree.join("packages/api/CLAUDE.md");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let web = ex.tree.join("packages/web");
    let edit = claude_tool(&ex, "s1", &web, "Edit", users_edit(&ex));
    let out = without_dac_override(&ex, &["hook", "claude"], edit.to_string().as_bytes());
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!(ex.filter(&String::from_utf8(out.stdout).unwrap()), @"");
    assert_eq!(ex.audit_rows(), "claude|PreToolUse|chain|permission-denied|packages/api/CLAUDE.md\n");
    // The next tool calls meet the same file: still one row (one an hour).
    for session in ["s2", "s3"] {
        let edit = claude_tool(&ex, session, &web, "Edit", users_edit(&ex));
        let out = without_dac_override(&ex, &["hook", "claude"], edit.to_string().as_bytes());
        assert_eq!(out.status.code(), Some(0));
    }
    assert_eq!(ex.audit_rows(), "claude|PreToolUse|chain|permission-denied|packages/api/CLAUDE.md\n");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o644)).unwrap();
}

/// Runs the hook so that file modes apply: as root, under `setpriv`
/// without the capabilities that override them; a plain run otherwise.
fn without_dac_override(ex: &Example, args: &[&str], stdin: &[u8]) -> Output {
    use std::io::Write;
    let plain = ex.command(".", args);
    let uid = std::process::Command::new("id").arg("-u").output().unwrap();
    let mut command = if String::from_utf8_lossy(&uid.stdout).trim() == "0" {
        let drop = "-dac_override,-dac_read_search";
        let mut wrapped = std::process::Command::new("setpriv");
        wrapped.args(["--bounding-set", drop, "--inh-caps", drop]).arg(plain.get_program());
        wrapped.args(plain.get_args()).current_dir(plain.get_current_dir().unwrap()).env_clear();
        for (key, value) in plain.get_envs() {
            if let Some(value) = value {
                wrapped.env(key, value);
            }
        }
        wrapped
    } else {
        plain
    };
    let mut child = command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

/// Writes agentspine's configuration beside the example; the variable
/// that points the hook at it.
fn config(ex: &Example, text: &str) -> String {
    let path = ex.dir.path().join("agentspine.toml");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn claude_session_start_adds_the_agents_md_files_claude_skips_when_configured() {
    let ex = Example::new();
    let api = ex.tree.join("packages/api");
    let start = |session: &str, source: &str| {
        let mut payload = claude_start(&ex, session, source);
        payload["cwd"] = json!(api);
        payload
    };
    // Off by default: a CLAUDE.md beside it keeps AGENTS.md out, and
    // agentspine adds nothing it was not asked for.
    assert_eq!(ex.stdout(&ex.hook("claude", &start("s0", "startup"), &[])), "");
    let skipped = config(&ex, "[claude]\nsession_start_agents_md = \"skipped\"\n");
    let env = [("AGENTSPINE_CONFIG", skipped.as_str())];
    let out = ex.hook("claude", &start("s1", "startup"), &env);
    insta::assert_snapshot!(ex.stdout(&out), @r#"{"hookSpecificOutput":{"additionalContext":"Contents of [TREE]/AGENTS.md:\n\n# Monorepo conventions\n\n- Run `make check` before you commit; CI runs the same target.\n- Every package owns its tests; never import across `packages/*` internals.\n\nContents of [TREE]/packages/api/AGENTS.md:\n\n# packages/api\n\nThe HTTP API. Handlers live in `src/handlers`; keep them thin.","hookEventName":"SessionStart"}}"#);
    // Resumed: the session has them. Compacted: it no longer does.
    assert_eq!(ex.stdout(&ex.hook("claude", &start("s1", "resume"), &env)), "");
    assert_eq!(ex.stdout(&ex.hook("claude", &start("s1", "compact"), &env)), ex.stdout(&out));
    // A project without CLAUDE.md: Claude Code reads its AGENTS.md itself,
    // so "skipped" adds nothing and "all" (for versions that read none)
    // adds it.
    let plain = ex.dir.path().join("plain");
    std::fs::create_dir_all(plain.join(".git")).unwrap();
    std::fs::write(plain.join("AGENTS.md"), "Plain project rules.\n").unwrap();
    let mut payload = claude_start(&ex, "s2", "startup");
    payload["cwd"] = json!(plain);
    assert_eq!(ex.stdout(&ex.hook("claude", &payload, &env)), "");
    let all = config(&ex, "[claude]\nsession_start_agents_md = \"all\"\n");
    payload["session_id"] = json!("s3");
    let out = ex.hook("claude", &payload, &[("AGENTSPINE_CONFIG", all.as_str())]);
    assert_eq!(
        ex.context(&out),
        format!("Contents of {}:\n\nPlain project rules.", plain.join("AGENTS.md").display())
    );
    assert_eq!(ex.audit_rows(), "");
}

#[test]
fn codex_session_start_adds_the_claude_md_family_in_a_project_without_agents_md_when_configured() {
    let ex = Example::new();
    let project = ex.dir.path().join("claude-only");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    std::fs::create_dir_all(project.join("sub")).unwrap();
    std::fs::write(project.join("CLAUDE.md"), "Root rules for Claude.\n").unwrap();
    std::fs::write(project.join("CLAUDE.local.md"), "My local notes.\n").unwrap();
    std::fs::write(project.join("sub/CLAUDE.md"), "Sub rules.\n").unwrap();
    let mut start = codex(&ex, "c1", "SessionStart", json!({ "source": "startup" }));
    start["cwd"] = json!(project.join("sub"));
    assert_eq!(ex.stdout(&ex.hook("codex", &start, &[])), "");
    let on = config(&ex, "[codex]\nsession_start_claude_md = true\n");
    let env = [("AGENTSPINE_CONFIG", on.as_str())];
    let out = ex.hook("codex", &start, &env);
    assert_eq!(
        ex.context(&out),
        "## CLAUDE.md\n\nRoot rules for Claude.\n\n## CLAUDE.local.md\n\nMy local notes.\n\n## sub/CLAUDE.md\n\nSub rules."
    );
    let mut resumed = start.clone();
    resumed["source"] = json!("resume");
    assert_eq!(ex.stdout(&ex.hook("codex", &resumed, &env)), "", "sent once per session");
    // The monorepo has AGENTS.md files Codex reads itself: nothing added.
    let start = codex(&ex, "c2", "SessionStart", json!({ "source": "startup" }));
    assert_eq!(ex.stdout(&ex.hook("codex", &start, &env)), "");
    assert_eq!(ex.audit_rows(), "");
}

#[test]
fn a_malformed_configuration_is_an_audit_row_and_changes_nothing_else() {
    let ex = Example::new();
    let bad = config(&ex, "[claude]\nsession_start_agent_md = \"all\"\n");
    let out = ex.hook("claude", &claude_start(&ex, "s1", "startup"), &[("AGENTSPINE_CONFIG", bad.as_str())]);
    assert_eq!(ex.stdout(&out), "");
    assert_eq!(ex.audit_rows(), "claude|SessionStart|config|config-malformed|[TMP]/agentspine.toml\n");
}

#[test]
fn session_start_ends_with_the_compact_source_resolution_report() {
    let ex = Example::new().with_memory();
    let api = ex.tree.join("packages/api");
    let start = json!({
        "session_id": "r1", "transcript_path": null, "cwd": api,
        "hook_event_name": "SessionStart", "source": "startup",
    });
    let line = ex.hook_report("claude", &start, &[SCOPE]).expect("a report at session start");
    let line = ex.filter(&line);
    assert!(line.len() <= 480, "{line}");
    assert!(line.starts_with("host claude; root [TREE] (project); sources "), "{line}");
    assert!(line.contains("memory-facts 3"), "the always, project and person facts: {line}");
    assert!(line.ends_with("; reason none"), "{line}");
    // Counts and digests only: no fact's path or content.
    assert!(!line.contains("style.md") && !line.contains("Answer briefly"), "{line}");
    // Once per session: a resume with the same report sends it no more.
    let resume = json!({
        "session_id": "r1", "transcript_path": null, "cwd": api,
        "hook_event_name": "SessionStart", "source": "resume",
    });
    assert_eq!(ex.hook_report("claude", &resume, &[SCOPE]), None);
    // Never a project: the reason says so, for both hosts.
    let home = json!({
        "session_id": "r2", "transcript_path": null, "cwd": ex.home,
        "hook_event_name": "SessionStart", "source": "startup",
    });
    for host in ["claude", "codex"] {
        let line = ex.filter(&ex.hook_report(host, &home, &[]).unwrap_or_default());
        assert!(line.starts_with(&format!("host {host}; root [HOME] (home); sources ")), "{host}: {line}");
        assert!(line.ends_with("; reason root-is-home"), "{host}: {line}");
    }
}

#[test]
fn audit_shows_the_latest_source_resolution_per_root() {
    let ex = Example::new();
    for (host, session) in [("claude", "a1"), ("codex", "a2")] {
        let start = json!({
            "session_id": session, "transcript_path": null, "cwd": ex.tree.join("packages/api"),
            "hook_event_name": "SessionStart", "source": "startup", "model": "m", "permission_mode": "default",
        });
        let sent = ex.hook_report(host, &start, &[]).expect("a report");
        let out = ex.run(".", &["audit", "--host", host, "--json"]);
        let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let reports = value["reports"].as_array().unwrap();
        assert_eq!(reports.len(), 1, "{value}");
        assert_eq!(reports[0]["line"], json!(sent), "the line the hook sent");
        assert_eq!(reports[0]["host"], json!(host));
        assert_eq!(reports[0]["project_root"], json!(ex.tree.display().to_string()));
    }
    let out = ex.run(".", &["audit", "--json"]);
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["reports"].as_array().unwrap().len(), 2, "one per root and host");
}

#[test]
fn an_audit_row_about_a_memory_fact_names_its_link_position_and_a_digest_never_its_path() {
    let ex = Example::new().with_memory();
    let outside = ex.dir.path().join("outside-secret.md");
    std::fs::write(&outside, "SECRET_FACT\n").unwrap();
    std::os::unix::fs::symlink(&outside, ex.memory.join("linked-secret.md")).unwrap();
    std::fs::write(
        ex.memory.join("MEMORY.md"),
        "# Memory\n\n- [Style](style.md) <!-- agentspine:always -->\n- [Linked](linked-secret.md) <!-- agentspine:always -->\n",
    )
    .unwrap();
    let start = json!({
        "session_id": "m1", "transcript_path": null, "cwd": ex.tree,
        "hook_event_name": "SessionStart", "source": "startup",
    });
    let out = ex.hook("claude", &start, &[]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("SECRET_FACT"));
    let rows = ex.audit_rows();
    let line = rows.lines().find(|l| l.contains("|memory|symlink|")).unwrap_or_else(|| panic!("{rows}"));
    assert!(line.starts_with("claude|SessionStart|memory|symlink|MEMORY.md link 2 (sha256:"), "{line}");
    assert!(!rows.contains("linked-secret") && !rows.contains("outside-secret"), "{rows}");
}

fn gemini(
    ex: &Example,
    session: &str,
    cwd: &Path,
    event: &str,
    extra: serde_json::Value,
) -> serde_json::Value {
    let mut payload = json!({
        "session_id": session,
        "transcript_path": ex.home.join(".gemini/tmp/tree/chats/session-1.json"),
        "cwd": cwd,
        "hook_event_name": event,
        "timestamp": "2026-12-01T16:00:00.000Z",
    });
    payload.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
    payload
}

#[test]
fn gemini_after_tool_sends_what_its_own_loading_leaves_out_once() {
    let ex = Example::new();
    for (rel, text) in [
        ("GEMINI.md", "# root for Gemini\n"),
        ("packages/api/GEMINI.md", "# packages/api for Gemini\n\nRun the api tests.\n"),
        ("services/billing/GEMINI.md", "# billing for Gemini\n"),
    ] {
        std::fs::write(ex.tree.join(rel), text).unwrap();
    }
    let web = ex.tree.join("packages/web");
    let users = json!({ "file_path": ex.tree_path("packages/api/src/handlers/users.ts") });
    let read = |session: &str, cwd: &Path| {
        gemini(
            &ex,
            session,
            cwd,
            "AfterTool",
            json!({ "tool_name": "read_file", "tool_input": users.clone(),
            "tool_response": { "llmContent": "export {};" } }),
        )
    };
    // Started in packages/web: a file of packages/api lies outside its
    // workspace, so Gemini loads nothing for it; once per session.
    let out = ex.hook("gemini", &read("g1", &web), &[]);
    insta::assert_snapshot!(ex.stdout(&out), @r#"{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"--- Context from: [TREE]/packages/api/GEMINI.md ---\n\n# packages/api for Gemini\n\nRun the api tests."}}"#);
    assert_eq!(ex.stdout(&ex.hook("gemini", &read("g1", &web), &[])), "");
    // BeforeTool's context is dropped by Gemini: nothing is answered there.
    let before = gemini(
        &ex,
        "g2",
        &web,
        "BeforeTool",
        json!({ "tool_name": "read_file", "tool_input": users.clone() }),
    );
    assert_eq!(ex.stdout(&ex.hook("gemini", &before, &[])), "");
    // Started at the root: read_file loads packages/api's file itself; a
    // later grep_search there (which loads nothing) does not repeat it.
    assert_eq!(ex.stdout(&ex.hook("gemini", &read("g3", &ex.tree), &[])), "");
    let grep = |dir: &str| {
        gemini(
            &ex,
            "g3",
            &ex.tree,
            "AfterTool",
            json!({ "tool_name": "grep_search",
            "tool_input": { "pattern": "x", "dir_path": ex.tree_path(dir) } }),
        )
    };
    assert_eq!(ex.stdout(&ex.hook("gemini", &grep("packages/api/src"), &[])), "");
    let out = ex.hook("gemini", &grep("services/billing"), &[]);
    insta::assert_snapshot!(ex.stdout(&out), @r#"{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"--- Context from: [TREE]/services/billing/GEMINI.md ---\n\n# billing for Gemini"}}"#);
    assert_eq!(ex.stdout(&ex.hook("gemini", &grep("services/billing"), &[])), "");
    // A prompt adds nothing here. PreCompress (which Gemini fires on every
    // turn) forgets nothing; SessionEnd forgets what was sent.
    let prompt = gemini(&ex, "g3", &ex.tree, "BeforeAgent", json!({ "prompt": "carbonara" }));
    assert_eq!(ex.stdout(&ex.hook("gemini", &prompt, &[SCOPE])), "");
    let compress = gemini(&ex, "g3", &ex.tree, "PreCompress", json!({ "trigger": "auto" }));
    assert_eq!(ex.stdout(&ex.hook("gemini", &compress, &[])), "");
    assert_eq!(ex.stdout(&ex.hook("gemini", &grep("services/billing"), &[])), "");
    let end = gemini(&ex, "g3", &ex.tree, "SessionEnd", json!({ "reason": "exit" }));
    assert_eq!(ex.stdout(&ex.hook("gemini", &end, &[])), "");
    assert!(ex.context(&ex.hook("gemini", &grep("services/billing"), &[])).contains("billing for Gemini"));
    assert_eq!(ex.audit_rows(), "");
}

/// A tool call's hook needs only the state directory's key and the
/// session's file (`agentspine_store::Quick`): it never opens the
/// database. Shown with a database that no open could use: the hook still
/// answers and remembers, and the file is left exactly as it was (an open
/// would have moved it aside). The next event that needs the database
/// (a prompt) repairs it and tells the user.
#[test]
fn a_tool_call_hook_answers_without_opening_the_database() {
    let ex = Example::new();
    let web = ex.tree.join("packages/web");
    let grep = json!({ "pattern": "users", "path": ex.tree_path("packages/api/src") });
    // The first run opens the database and leaves the key's copy beside it.
    let out = ex.hook("claude", &claude_tool(&ex, "s1", &web, "Grep", grep.clone()), &[]);
    assert!(ex.context(&out).contains("packages/api/CLAUDE.md"), "{}", ex.stdout(&out));
    assert_eq!(std::fs::read(ex.state.join("state.db.key")).unwrap().len(), 32);
    assert!(!ex.state.join("state.db.incident").exists());
    // An accepted record: from now on a prompt has continuity to ask the
    // database for.
    let added = ex.run(
        "",
        &["record", "add", "--kind", "preference", "Answer briefly.", "--cwd", web.to_str().unwrap()],
    );
    assert!(added.status.success(), "{added:?}");
    let id = String::from_utf8_lossy(&added.stdout).split_whitespace().nth(1).unwrap().to_owned();
    let accepted = ex.run("", &["record", "accept", &id, "--cwd", web.to_str().unwrap()]);
    assert!(accepted.status.success(), "{accepted:?}");
    let db = ex.state.join("state.db");
    let junk = b"not a database at all, and never opened by a tool call's hook".repeat(100);
    std::fs::write(&db, &junk).unwrap();
    for name in ["state.db-wal", "state.db-shm"] {
        let _ = std::fs::remove_file(ex.state.join(name));
    }
    // Already sent to s1: nothing; s2 gets it, and remembers it.
    assert_eq!(ex.stdout(&ex.hook("claude", &claude_tool(&ex, "s1", &web, "Grep", grep.clone()), &[])), "");
    let out = ex.hook("claude", &claude_tool(&ex, "s2", &web, "Grep", grep.clone()), &[]);
    assert!(ex.context(&out).contains("packages/api/CLAUDE.md"), "{}", ex.stdout(&out));
    assert_eq!(ex.stdout(&ex.hook("claude", &claude_tool(&ex, "s2", &web, "Grep", grep), &[])), "");
    assert_eq!(std::fs::read(&db).unwrap(), junk, "the database was never opened");
    assert!(!ex.state.join("state.db-wal").exists());
    // A prompt reads continuity: the database is opened, repaired, and the
    // user told (the incident file now tells later tool calls to ask).
    let prompt = json!({
        "session_id": "s2",
        "transcript_path": ex.home.join(".claude/projects/-tree/0b6c.jsonl"),
        "cwd": web,
        "hook_event_name": "UserPromptSubmit",
        "prompt": "carry on",
    });
    let out = ex.run_stdin("../home", &["hook", "claude"], prompt.to_string().as_bytes(), &[]);
    let told: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(told["systemMessage"].as_str().unwrap().contains("the state database was damaged"), "{told}");
    assert_ne!(std::fs::read(&db).unwrap(), junk);
    assert!(ex.state.join("state.db.incident").exists());
    let out = ex.run("", &["doctor", "--acknowledge"]);
    assert!(out.status.code().is_some(), "{out:?}");
    assert!(!ex.state.join("state.db.incident").exists());
}

#[test]
fn codex_context_stays_under_its_10000_bytes_when_the_text_is_not_ascii() {
    // Codex counts a hook's context in bytes (HOOK-CONTEXT-MEASURED.md):
    // 6,000 'é' are 6,000 characters but 12,000 bytes, past its cap.
    let ex = Example::new();
    std::fs::create_dir(ex.tree.join("packages/web/ui")).unwrap();
    std::fs::write(ex.tree.join("packages/web/ui/AGENTS.md"), "é".repeat(6_000)).unwrap();
    let patch = "*** Begin Patch\n*** Add File: packages/web/ui/Button.tsx\n+export function Button() {}\n*** End Patch\n";
    let payload = codex(
        &ex,
        "c1",
        "PreToolUse",
        json!({ "tool_name": "apply_patch", "tool_input": { "command": patch }, "tool_use_id": "call_1" }),
    );
    let out = ex.hook("codex", &payload, &[]);
    assert!(!out.stdout.is_empty(), "codex: {}", String::from_utf8_lossy(&out.stderr));
    let context = ex.context(&out);
    assert!(context.len() < 10_000, "{} bytes", context.len());
    // Closest first: the nested file is cut (in characters, on one), the
    // parent's is named as left out.
    assert!(context.starts_with("## packages/web/ui/AGENTS.md\n\néé"), "{context:.200}");
    let (shown, notes) = context.split_once("\n\n[agentspine: cut at character ").unwrap();
    let kept = shown.trim_start_matches("## packages/web/ui/AGENTS.md\n\n").chars().count();
    assert!(notes.starts_with(&format!("{kept} of 6000; ")), "{notes}");
    assert!(
        notes.ends_with(
            "[agentspine: 1 more source left out for lack of room, to come with a later event: \
             packages/web/AGENTS.md; run `agentspine briefing` for them now]"
        ),
        "{notes}"
    );
    // The next event (a prompt) brings the parent's file whole, then the
    // rest of the nested one, from its cut: nothing twice.
    let prompt = codex(&ex, "c1", "UserPromptSubmit", json!({ "prompt": "go on" }));
    let context = ex.context(&ex.hook("codex", &prompt, &[]));
    assert!(context.len() < 10_000, "{} bytes", context.len());
    let web = std::fs::read_to_string(ex.tree.join("packages/web/AGENTS.md")).unwrap();
    let rest = format!(
        "## packages/web/AGENTS.md\n\n{}\n\n## packages/web/ui/AGENTS.md\n\n\
         [agentspine: continued from character {kept} of 6000]\n\n{}",
        web.trim(),
        "é".repeat(6_000 - kept)
    );
    assert_eq!(context, rest);
    let again = ex.hook("codex", &codex(&ex, "c1", "UserPromptSubmit", json!({ "prompt": "more" })), &[]);
    assert_eq!(ex.stdout(&again), "");
}

#[test]
fn a_prompt_that_names_a_path_brings_its_directorys_files_before_the_first_step() {
    let ex = Example::new();
    // Codex loads no nested file: the package's files come with the prompt,
    // closest first, once.
    let prompt = json!({ "prompt": "Add a comment to `packages/api/src/handlers/users.ts:12`, please." });
    let out = ex.hook("codex", &codex(&ex, "c1", "UserPromptSubmit", prompt.clone()), &[]);
    insta::assert_snapshot!(ex.stdout(&out), @r###"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"## packages/api/src/handlers/AGENTS.md\n\nHandlers never touch the database directly; go through `store::`.\n\n## packages/api/AGENTS.override.md\n\n# packages/api (override)\n\nDuring the v2 migration, new endpoints go in `src/handlers/v2` only."}}"###);
    assert_eq!(ex.stdout(&ex.hook("codex", &codex(&ex, "c1", "UserPromptSubmit", prompt), &[])), "");
    // A later read of the file adds nothing more.
    let read =
        json!({ "tool_name": "Bash", "tool_input": { "command": "cat packages/api/src/handlers/users.ts" } });
    assert_eq!(ex.stdout(&ex.hook("codex", &codex(&ex, "c1", "PreToolUse", read), &[])), "");
    // A directory named with a trailing slash, and an @-mention.
    let prompt = json!({ "prompt": "look at @packages/web/ and tell me" });
    let out = ex.hook("codex", &codex(&ex, "c2", "UserPromptSubmit", prompt), &[]);
    insta::assert_snapshot!(ex.stdout(&out), @r###"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"## packages/web/AGENTS.md\n\n# packages/web\n\nThe web client. Components are function components; no class components."}}"###);
    // Paths that do not exist, lie outside the root or reach it through
    // `..` bring nothing.
    let outside = ex.tree.parent().unwrap().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("AGENTS.md"), "SECRET outside the root").unwrap();
    for text in [
        "fix packages/nope/x.ts".to_owned(),
        format!("read {}/AGENTS.md", outside.display()),
        "read ../outside/AGENTS.md and packages/../../outside/AGENTS.md".to_owned(),
        "version 1.5 of node, e.g. in Node.js".to_owned(),
    ] {
        let out = ex.hook("codex", &codex(&ex, "c3", "UserPromptSubmit", json!({ "prompt": text })), &[]);
        assert_eq!(ex.stdout(&out), "", "{text}");
    }
}

#[test]
fn a_prompt_leaves_to_claude_code_what_its_read_will_load() {
    let ex = Example::new();
    let tree = ex.tree.display().to_string();
    // Started at the root: Claude Code loads packages/api/CLAUDE.md itself
    // when the agent reads the file, so the prompt adds nothing for it.
    let out = ex.hook(
        "claude",
        &claude_prompt(&ex, "s1", "Add a comment to packages/api/src/handlers/users.ts"),
        &[("CLAUDE_PROJECT_DIR", &tree)],
    );
    assert_eq!(ex.stdout(&out), "");
    // Started in packages/web: a sibling package is never loaded by Claude
    // Code, so its files come with the prompt.
    let web = ex.tree.join("packages/web");
    let mut prompt = claude_prompt(&ex, "s2", "and then fix ../api/src/handlers/users.ts too");
    prompt["cwd"] = json!(web);
    let out = ex.hook("claude", &prompt, &[("CLAUDE_PROJECT_DIR", &web.display().to_string())]);
    insta::assert_snapshot!(ex.stdout(&out), @r#"{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"Contents of [TREE]/packages/api/CLAUDE.md:\n\n# packages/api for Claude\n\nRun `make -C packages/api test` after every edit."}}"#);
}

#[test]
fn kimi_gets_a_prompt_s_files_as_its_message_from_a_prompt_given_in_parts() {
    let ex = Example::new();
    // Kimi Code sends the prompt as content parts and reads `message`
    // (measured on 2.1.0); its other events' output never reaches the
    // model, so they add nothing.
    let prompt = json!({
        "session_id": "session_1", "cwd": ex.tree, "hook_event_name": "UserPromptSubmit",
        "client_type": "kimi_code_cli", "is_steer": false,
        "prompt": [{ "type": "text", "text": "Fix packages/api/src/handlers/users.ts" }],
    });
    let out = ex.hook("kimi", &prompt, &[]);
    insta::assert_snapshot!(ex.stdout(&out), @r#"{"message":"<!-- From: [TREE]/packages/api/src/handlers/AGENTS.md -->\n\nHandlers never touch the database directly; go through `store::`.\n\n<!-- From: [TREE]/packages/api/AGENTS.md -->\n\n# packages/api\n\nThe HTTP API. Handlers live in `src/handlers`; keep them thin."}"#);
    assert_eq!(ex.stdout(&ex.hook("kimi", &prompt, &[])), "", "once a session");
    let tool = json!({
        "session_id": "session_2", "cwd": ex.tree, "hook_event_name": "PreToolUse",
        "tool_name": "Read", "tool_input": { "path": "packages/api/src/handlers/users.ts" },
    });
    assert_eq!(ex.stdout(&ex.hook("kimi", &tool, &[])), "");
}

#[test]
fn copilot_gets_an_edited_file_s_nested_files_as_additional_context_from_a_camel_case_payload() {
    let ex = Example::new();
    // GitHub Copilot CLI's camelCase events name no event and spell the
    // fields its own way; it reads `additionalContext` (measured on
    // 1.0.102). Its `edit` loads nothing itself.
    let tool = json!({
        "sessionId": "session_1", "timestamp": 1, "cwd": ex.tree, "toolName": "edit",
        "toolArgs": { "path": ex.tree.join("packages/api/src/handlers/users.ts") },
        "toolResult": { "resultType": "success", "textResultForLlm": "edited" },
    });
    let out = ex.hook("copilot", &tool, &[]);
    insta::assert_snapshot!(ex.stdout(&out), @r#"{"additionalContext":"Custom instructions from packages/api/src/handlers/AGENTS.md. Apply these to any code you write here:\n\nHandlers never touch the database directly; go through `store::`.\n\nCustom instructions from packages/api/AGENTS.md. Apply these to any code you write here:\n\n# packages/api\n\nThe HTTP API. Handlers live in `src/handlers`; keep them thin.\n\nCustom instructions from packages/api/CLAUDE.md. Apply these to any code you write here:\n\n# packages/api for Claude\n\nRun `make -C packages/api test` after every edit."}"#);
    assert_eq!(ex.stdout(&ex.hook("copilot", &tool, &[])), "", "once a session");
}
