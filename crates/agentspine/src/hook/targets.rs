//! Which paths a tool call is about to touch, from its `tool_input`, by the
//! host's own tool names. Only paths the tool names itself count: shell
//! commands are never parsed (a guess is not evidence).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::HookHost;

/// At most this many targets are resolved for one tool call (a patch may
/// name many files; each costs a resolution).
pub const MAX_TARGETS: usize = 32;

/// The paths `tool_name` touches, absolute (relative ones are taken from
/// the payload's `cwd`) and lexically reduced, in order, without repeats.
pub fn targets(host: HookHost, tool_name: &str, input: Option<&Value>, cwd: &Path) -> Vec<PathBuf> {
    let Some(input) = input else { return Vec::new() };
    let field = |name: &str| input.get(name).and_then(Value::as_str).map(str::to_owned);
    let named: Vec<String> = match (host, tool_name) {
        (HookHost::Claude, "Read" | "Edit" | "MultiEdit" | "Write") => {
            field("file_path").into_iter().collect()
        }
        (HookHost::Claude, "NotebookEdit") => field("notebook_path").into_iter().collect(),
        (HookHost::Claude, "Grep" | "Glob") => field("path").into_iter().collect(),
        (HookHost::Claude, _) => Vec::new(),
        (HookHost::Codex, "apply_patch") => ["command", "input", "patch"]
            .iter()
            .find_map(|k| field(k))
            .map(|p| patch_targets(&p))
            .unwrap_or_default(),
        (HookHost::Codex, "Bash") => Vec::new(),
        (HookHost::Codex, _) => field("path").or_else(|| field("file_path")).into_iter().collect(),
        // pi's built-in tools that name a path (the same names in 0.73 and
        // 1.x); `bash` is never parsed.
        (HookHost::Pi | HookHost::Pi073, "read" | "write" | "edit" | "ls" | "grep" | "find") => {
            field("path").into_iter().collect()
        }
        (HookHost::Pi | HookHost::Pi073, _) => Vec::new(),
        // Gemini CLI 0.61's path tools (read_many_files takes glob
        // patterns, which are never expanded here).
        (HookHost::Gemini, "read_file" | "write_file" | "replace") => {
            field("file_path").into_iter().collect()
        }
        (HookHost::Gemini, "list_directory" | "glob" | "grep_search") => {
            field("dir_path").into_iter().collect()
        }
        (HookHost::Gemini, _) => Vec::new(),
    };
    let mut out: Vec<PathBuf> = Vec::new();
    for name in named.iter().map(|n| n.trim()).filter(|n| !n.is_empty() && !n.contains('\0')) {
        let path = Path::new(name);
        let absolute = if path.is_absolute() { path.to_path_buf() } else { cwd.join(path) };
        let reduced = agentspine_core::lexical(&absolute);
        if !out.contains(&reduced) {
            out.push(reduced);
        }
        if out.len() == MAX_TARGETS {
            break;
        }
    }
    out
}

/// The files a Codex `apply_patch` names: `*** Add File: p`,
/// `*** Update File: p`, `*** Delete File: p` and `*** Move to: p`.
pub fn patch_targets(patch: &str) -> Vec<String> {
    const MARKERS: [&str; 4] = ["*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"];
    patch
        .lines()
        .filter_map(|line| {
            let line = line.trim();
            MARKERS.iter().find_map(|m| line.strip_prefix(m)).map(|p| p.trim().to_owned())
        })
        .filter(|p| !p.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn paths(v: Vec<PathBuf>) -> Vec<String> {
        v.into_iter().map(|p| p.display().to_string()).collect()
    }

    #[test]
    fn claude_tools_name_their_paths() {
        let cwd = Path::new("/w");
        let t = |tool: &str, input: Value| paths(targets(HookHost::Claude, tool, Some(&input), cwd));
        assert_eq!(t("Edit", json!({"file_path": "/w/a/b.ts", "old_string": "x"})), ["/w/a/b.ts"]);
        assert_eq!(t("Write", json!({"file_path": "c/../d.ts"})), ["/w/d.ts"]);
        assert_eq!(t("NotebookEdit", json!({"notebook_path": "/w/n.ipynb"})), ["/w/n.ipynb"]);
        assert_eq!(t("Grep", json!({"pattern": "x", "path": "/w/src"})), ["/w/src"]);
        assert!(t("Grep", json!({"pattern": "x"})).is_empty());
        assert_eq!(t("Read", json!({"file_path": "/w/a/b.ts"})), ["/w/a/b.ts"]);
        assert!(t("Bash", json!({"command": "cat /w/a/b.ts"})).is_empty());
    }

    #[test]
    fn gemini_tools_name_their_paths() {
        let cwd = Path::new("/w");
        let t = |tool: &str, input: Value| paths(targets(HookHost::Gemini, tool, Some(&input), cwd));
        assert_eq!(t("read_file", json!({"file_path": "a/b.ts"})), ["/w/a/b.ts"]);
        assert_eq!(t("replace", json!({"file_path": "/w/c.ts", "old_string": "x"})), ["/w/c.ts"]);
        assert_eq!(t("grep_search", json!({"pattern": "x", "dir_path": "src"})), ["/w/src"]);
        assert!(t("glob", json!({"pattern": "**/*.ts"})).is_empty());
        assert!(t("read_many_files", json!({"include": ["**/*.md"]})).is_empty());
        assert!(t("run_shell_command", json!({"command": "cat a.ts", "dir_path": "a"})).is_empty());
    }

    #[test]
    fn codex_patches_name_every_file_and_shell_commands_are_not_parsed() {
        let cwd = Path::new("/w");
        let patch = "*** Begin Patch\n*** Add File: new/x.rs\n+fn x() {}\n*** Update File: a/b.rs\n\
                     *** Move to: c/b.rs\n@@\n-old\n+new\n*** Delete File: /w/gone.rs\n*** Update File: a/b.rs\n\
                     *** End Patch\n";
        let t = |tool: &str, input: Value| paths(targets(HookHost::Codex, tool, Some(&input), cwd));
        assert_eq!(
            t("apply_patch", json!({ "command": patch })),
            ["/w/new/x.rs", "/w/a/b.rs", "/w/c/b.rs", "/w/gone.rs"]
        );
        assert!(t("Bash", json!({"command": "apply_patch <<'EOF'\n*** Update File: a.rs\nEOF"})).is_empty());
        assert_eq!(t("view_image", json!({"path": "img/a.png"})), ["/w/img/a.png"]);
        assert_eq!(t("mcp__fs__write", json!({"file_path": "/elsewhere/a"})), ["/elsewhere/a"]);
    }

    #[test]
    fn pi_tools_name_their_path_and_nothing_else_counts() {
        let cwd = Path::new("/w");
        let t = |tool: &str, input: Value| paths(targets(HookHost::Pi, tool, Some(&input), cwd));
        assert_eq!(t("read", json!({"path": "a/b.ts", "offset": 3})), ["/w/a/b.ts"]);
        assert_eq!(t("write", json!({"path": "/w/new/c.ts", "content": "x"})), ["/w/new/c.ts"]);
        assert_eq!(t("edit", json!({"path": "a/../d.ts", "edits": []})), ["/w/d.ts"]);
        assert_eq!(t("grep", json!({"pattern": "x", "path": "src"})), ["/w/src"]);
        assert!(t("find", json!({"pattern": "*.ts"})).is_empty(), "no path: the cwd, whose chain pi has");
        assert!(t("bash", json!({"command": "cat /w/a/b.ts"})).is_empty());
        assert!(t("Read", json!({"file_path": "/w/a/b.ts", "path": "/w/a/b.ts"})).is_empty());
    }
}
