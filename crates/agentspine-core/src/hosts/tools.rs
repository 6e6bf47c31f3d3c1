//! Which paths a tool call is about to touch, from its input, by the
//! host's own tool names ([`Profile::tool`]): the paths a file tool names,
//! the files a patch names, and the files a shell command's read and
//! search commands name ([`super::shell`], lexically: a word the shell
//! would have to expand is never guessed).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::profile::{Profile, ToolPaths};

/// At most this many targets are resolved for one tool call (a patch may
/// name many files; each costs a resolution).
pub const MAX_TARGETS: usize = 32;

/// The paths `tool_name` touches, absolute (relative ones are taken from
/// `cwd`) and lexically reduced, in order, without repeats, at most
/// [`MAX_TARGETS`].
pub fn targets(profile: &Profile, tool_name: &str, input: Option<&Value>, cwd: &Path) -> Vec<PathBuf> {
    let (Some(input), Some(tool)) = (input, profile.tool(tool_name)) else { return Vec::new() };
    let first = |fields: &[&str]| fields.iter().find_map(|k| input.get(*k).and_then(Value::as_str));
    let named: Vec<String> = match tool.paths {
        ToolPaths::None => Vec::new(),
        ToolPaths::Field(fields) => first(fields).map(str::to_owned).into_iter().collect(),
        ToolPaths::Patch(fields) => first(fields).map(patch_targets).unwrap_or_default(),
        ToolPaths::Shell { command, workdir } => {
            let dir = first(workdir).filter(|d| !d.contains('\0')).map(|d| cwd.join(d));
            let dir = crate::paths::lexical(dir.as_deref().unwrap_or(cwd));
            shell_command(input, command)
                .map(|script| super::shell::read_targets(&script, &dir))
                .unwrap_or_default()
                .into_iter()
                .filter_map(|p| p.to_str().map(str::to_owned))
                .collect()
        }
    };
    let mut out: Vec<PathBuf> = Vec::new();
    for name in named.iter().map(|n| n.trim()).filter(|n| !n.is_empty() && !n.contains('\0')) {
        let path = Path::new(name);
        let absolute = if path.is_absolute() { path.to_path_buf() } else { cwd.join(path) };
        let reduced = crate::paths::lexical(&absolute);
        if !out.contains(&reduced) {
            out.push(reduced);
        }
        if out.len() == MAX_TARGETS {
            break;
        }
    }
    out
}

/// The shell command in the first of `fields` present: a string, or an
/// argv array of strings.
fn shell_command(input: &Value, fields: &[&str]) -> Option<String> {
    let value = fields.iter().find_map(|k| input.get(*k))?;
    match value {
        Value::String(script) => Some(script.clone()),
        Value::Array(words) => {
            let argv: Option<Vec<String>> = words.iter().map(|w| w.as_str().map(str::to_owned)).collect();
            super::shell::command_of_argv(&argv?)
        }
        _ => None,
    }
}

/// The files a patch names: `*** Add File: p`, `*** Update File: p`,
/// `*** Delete File: p` and `*** Move to: p`.
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
    use crate::host::Host;

    fn paths(v: Vec<PathBuf>) -> Vec<String> {
        v.into_iter().map(|p| p.display().to_string()).collect()
    }

    #[test]
    fn claude_tools_name_their_paths() {
        let cwd = Path::new("/w");
        let t = |tool: &str, input: Value| paths(targets(Host::Claude.profile(), tool, Some(&input), cwd));
        assert_eq!(t("Edit", json!({"file_path": "/w/a/b.ts", "old_string": "x"})), ["/w/a/b.ts"]);
        assert_eq!(t("Write", json!({"file_path": "c/../d.ts"})), ["/w/d.ts"]);
        assert_eq!(t("NotebookEdit", json!({"notebook_path": "/w/n.ipynb"})), ["/w/n.ipynb"]);
        assert_eq!(t("Grep", json!({"pattern": "x", "path": "/w/src"})), ["/w/src"]);
        assert!(t("Grep", json!({"pattern": "x"})).is_empty());
        assert_eq!(t("Read", json!({"file_path": "/w/a/b.ts"})), ["/w/a/b.ts"]);
        assert_eq!(t("Bash", json!({"command": "cat /w/a/b.ts"})), ["/w/a/b.ts"]);
        assert_eq!(
            t("Bash", json!({"command": "cd pkg && sed -n '1,80p' 'src/x y.ts' | head"})),
            ["/w/pkg/src/x y.ts"]
        );
        assert!(t("Bash", json!({"command": "cat \"$F\" > out.txt"})).is_empty());
        assert!(t("Bash", json!({"command": "cat 'unterminated"})).is_empty());
    }

    #[test]
    fn gemini_tools_name_their_paths() {
        let cwd = Path::new("/w");
        let t = |tool: &str, input: Value| paths(targets(Host::Gemini.profile(), tool, Some(&input), cwd));
        assert_eq!(t("read_file", json!({"file_path": "a/b.ts"})), ["/w/a/b.ts"]);
        assert_eq!(t("replace", json!({"file_path": "/w/c.ts", "old_string": "x"})), ["/w/c.ts"]);
        assert_eq!(t("grep_search", json!({"pattern": "x", "dir_path": "src"})), ["/w/src"]);
        assert!(t("glob", json!({"pattern": "**/*.ts"})).is_empty());
        assert!(t("read_many_files", json!({"include": ["**/*.md"]})).is_empty());
        assert!(t("run_shell_command", json!({"command": "cat b.ts", "dir_path": "a"})).is_empty());
    }

    #[test]
    fn codex_patches_and_shell_commands_name_their_files() {
        let cwd = Path::new("/w");
        let patch = "*** Begin Patch\n*** Add File: new/x.rs\n+fn x() {}\n*** Update File: a/b.rs\n\
                     *** Move to: c/b.rs\n@@\n-old\n+new\n*** Delete File: /w/gone.rs\n*** Update File: a/b.rs\n\
                     *** End Patch\n";
        let t = |tool: &str, input: Value| paths(targets(Host::Codex.profile(), tool, Some(&input), cwd));
        assert_eq!(
            t("apply_patch", json!({ "command": patch })),
            ["/w/new/x.rs", "/w/a/b.rs", "/w/c/b.rs", "/w/gone.rs"]
        );
        // A heredoc's body is no command.
        assert!(t("Bash", json!({"command": "apply_patch <<'EOF'\n*** Update File: a.rs\nEOF"})).is_empty());
        assert_eq!(
            t("Bash", json!({"command": "nl -ba web/f/v2/app.tsx | sed -n '1,40p'"})),
            ["/w/web/f/v2/app.tsx"]
        );
        assert_eq!(t("exec_command", json!({"cmd": "cat x.rs", "workdir": "/w/pkg"})), ["/w/pkg/x.rs"]);
        assert_eq!(
            t("shell", json!({"command": ["bash", "-lc", "head -n 5 a.rs"], "workdir": "b"})),
            ["/w/b/a.rs"]
        );
        assert_eq!(t("shell", json!({"command": ["cat", "a b.rs"]})), ["/w/a b.rs"]);
        assert_eq!(t("view_image", json!({"path": "img/a.png"})), ["/w/img/a.png"]);
        assert_eq!(t("mcp__fs__write", json!({"file_path": "/elsewhere/a"})), ["/elsewhere/a"]);
    }

    #[test]
    fn pi_tools_name_their_path_and_bash_its_reads() {
        let cwd = Path::new("/w");
        let t = |tool: &str, input: Value| paths(targets(Host::Pi.profile(), tool, Some(&input), cwd));
        assert_eq!(t("read", json!({"path": "a/b.ts", "offset": 3})), ["/w/a/b.ts"]);
        assert_eq!(t("write", json!({"path": "/w/new/c.ts", "content": "x"})), ["/w/new/c.ts"]);
        assert_eq!(t("edit", json!({"path": "a/../d.ts", "edits": []})), ["/w/d.ts"]);
        assert_eq!(t("grep", json!({"pattern": "x", "path": "src"})), ["/w/src"]);
        assert!(t("find", json!({"pattern": "*.ts"})).is_empty(), "no path: the cwd, whose chain pi has");
        assert_eq!(t("bash", json!({"command": "cat /w/a/b.ts"})), ["/w/a/b.ts"]);
        assert!(t("Read", json!({"file_path": "/w/a/b.ts", "path": "/w/a/b.ts"})).is_empty());
    }
}
