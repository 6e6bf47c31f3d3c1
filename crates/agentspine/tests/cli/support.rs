//! Runs the real binary against a copy of `examples/monorepo` in
//! `/tmp/.tmpXXXX/tree`, with a throwaway home.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub struct Example {
    pub dir: tempfile::TempDir,
    pub tree: PathBuf,
    pub home: PathBuf,
    /// A copy of `examples/claude-memory`.
    pub memory: PathBuf,
    /// `$AGENTSPINE_STATE_DIR` for every run.
    pub state: PathBuf,
}

impl Example {
    pub fn new() -> Example {
        let dir = tempfile::Builder::new().tempdir_in("/tmp").unwrap();
        let tree = dir.path().join("tree");
        let home = dir.path().join("home");
        let memory = dir.path().join("memory");
        let state = dir.path().join("state");
        let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        copy_dir(&examples.join("monorepo"), &tree);
        copy_dir(&examples.join("claude-memory"), &memory);
        // A `.git` every host counts (Copilot passes over an empty one).
        std::fs::create_dir_all(tree.join(".git/objects")).unwrap();
        std::fs::create_dir_all(tree.join(".git/refs")).unwrap();
        std::fs::write(tree.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::create_dir_all(&home).unwrap();
        Example { dir, tree, home, memory, state }
    }

    pub fn home_file(&self, rel: &str, text: &str) -> &Self {
        let path = self.home.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        self
    }

    /// Runs `agentspine ARGS` with the working directory `cwd` (relative to
    /// the tree) and only HOME set among the profile variables.
    pub fn run(&self, cwd: &str, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_agentspine"))
            .args(args)
            .current_dir(self.tree.join(cwd))
            .env_clear()
            .env("HOME", &self.home)
            .env("AGENTSPINE_STATE_DIR", &self.state)
            // The binary under test is in a build directory: install refuses
            // to name it unless told to (install/command.rs).
            .env("AGENTSPINE_INSTALL_COMMAND", env!("CARGO_BIN_EXE_agentspine"))
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .output()
            .unwrap()
    }

    /// The command `run` runs, not started: for tests that drive stdin
    /// themselves.
    pub fn command(&self, cwd: &str, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_agentspine"));
        command
            .args(args)
            .current_dir(self.tree.join(cwd))
            .env_clear()
            .env("HOME", &self.home)
            .env("AGENTSPINE_STATE_DIR", &self.state)
            .env("AGENTSPINE_INSTALL_COMMAND", env!("CARGO_BIN_EXE_agentspine"))
            .env("PATH", std::env::var_os("PATH").unwrap_or_default());
        command
    }

    /// Like `run`, with `stdin` piped in and `env` added.
    pub fn run_stdin(&self, cwd: &str, args: &[&str], stdin: &[u8], env: &[(&str, &str)]) -> Output {
        use std::io::Write;
        let mut command = self.command(cwd, args);
        command.envs(env.iter().copied()).stdin(std::process::Stdio::piped());
        command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
        let mut child = command.spawn().unwrap();
        let mut pipe = child.stdin.take().unwrap();
        // The child may stop reading early (an oversized payload): a
        // broken pipe is its answer, not a test failure.
        let _ = pipe.write_all(stdin);
        drop(pipe);
        child.wait_with_output().unwrap()
    }

    /// Output text with temp paths replaced, source ids (keyed by a fresh
    /// state directory each run) replaced by `src_[N]` in order of first
    /// appearance, and the reader's count of confirming re-reads replaced
    /// by `"[confirmations]"`: whether a read is confirmed depends on how
    /// long ago the example was copied (`agentspine_fs::RACY_WINDOW`), not
    /// on the command.
    pub fn filter(&self, text: &str) -> String {
        let text = text
            .replace(&self.tree.display().to_string(), "[TREE]")
            .replace(&self.home.display().to_string(), "[HOME]")
            .replace(&self.dir.path().display().to_string(), "[TMP]");
        redact_count(&number_source_ids(&text), "confirmations")
    }

    /// A path `filter` printed, as it is on disk again.
    pub fn filter_back(&self, text: &str) -> PathBuf {
        PathBuf::from(
            text.replace("[TREE]", &self.tree.display().to_string())
                .replace("[HOME]", &self.home.display().to_string())
                .replace("[TMP]", &self.dir.path().display().to_string()),
        )
    }

    pub fn stdout(&self, out: &Output) -> String {
        assert!(out.status.success(), "exit {:?}: {}", out.status, String::from_utf8_lossy(&out.stderr));
        self.filter(&String::from_utf8(out.stdout.clone()).unwrap())
    }

    /// stdout as JSON whatever the exit code (errors are JSON too).
    pub fn json_any(&self, out: &Output) -> serde_json::Value {
        serde_json::from_str(&self.filter(&String::from_utf8_lossy(&out.stdout))).unwrap()
    }

    pub fn json(&self, out: &Output) -> serde_json::Value {
        serde_json::from_str(&self.stdout(out)).unwrap()
    }
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Every `"KEY": N` (any spacing) in JSON text with the number replaced by
/// the string `"[KEY]"`.
pub fn redact_count(text: &str, key: &str) -> String {
    let needle = format!("\"{key}\":");
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find(&needle) {
        let after = &rest[at + needle.len()..];
        let spaces = after.len() - after.trim_start().len();
        let digits = after[spaces..].chars().take_while(char::is_ascii_digit).count();
        out.push_str(&rest[..at + needle.len()]);
        if digits > 0 {
            out.push_str(&after[..spaces]);
            out.push_str(&format!("\"[{key}]\""));
        } else {
            out.push_str(&after[..spaces + digits]);
        }
        rest = &after[spaces + digits..];
    }
    out.push_str(rest);
    out
}

/// Source ids (keyed by a fresh state directory each run) replaced by
/// `src_[N]` in order of first appearance.
pub fn number_source_ids(text: &str) -> String {
    let mut seen: Vec<String> = Vec::new();
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("src_") {
        let candidate = &rest[at + 4..];
        let hex = candidate.chars().take_while(char::is_ascii_hexdigit).count();
        out.push_str(&rest[..at]);
        if hex == 24 {
            let id = &candidate[..24];
            let n = seen.iter().position(|s| s == id).unwrap_or_else(|| {
                seen.push(id.to_owned());
                seen.len() - 1
            });
            out.push_str(&format!("src_[{n}]"));
            rest = &candidate[24..];
        } else {
            out.push_str("src_");
            rest = candidate;
        }
    }
    out.push_str(rest);
    out
}

/// The binary built with `--features fault-injection`, once per test run,
/// in its own target directory so that the ordinary binary is never
/// replaced by it (`AGENTSPINE_FAULT_BIN` names a prebuilt one). The
/// desktop socket's slow-filesystem test and the SIGKILL loop use it.
pub fn fault_binary() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            if let Some(bin) = std::env::var_os("AGENTSPINE_FAULT_BIN") {
                return PathBuf::from(bin);
            }
            let normal = Path::new(env!("CARGO_BIN_EXE_agentspine"));
            let target = normal.parent().unwrap().parent().unwrap().join("fault-injection");
            let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
            let status = std::process::Command::new(cargo)
                .args([
                    "build",
                    "--quiet",
                    "-p",
                    "agentspine",
                    "--features",
                    "fault-injection",
                    "--target-dir",
                ])
                .arg(&target)
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .status()
                .unwrap();
            assert!(status.success(), "building the fault-injection binary failed");
            target.join("debug/agentspine")
        })
        .clone()
}

/// The heading of the compact `sourceResolution` block a hook appends at
/// session start.
pub const REPORT_HEADING: &str = "[agentspine sourceResolution]";

/// A hook's stdout without its `sourceResolution` block (always last), and
/// that block's line. The JSON is written again as the hook writes it;
/// with nothing else in it, stdout is empty.
pub fn split_report(stdout: &[u8]) -> (Vec<u8>, Option<String>) {
    if stdout.is_empty() {
        return (Vec::new(), None);
    }
    let mut value: serde_json::Value = serde_json::from_slice(stdout).unwrap();
    // Kimi Code's shape holds no report (it has no session start hook).
    let Some(context) = value["hookSpecificOutput"]["additionalContext"].as_str().map(str::to_owned) else {
        return (stdout.to_vec(), None);
    };
    let marker = format!("{REPORT_HEADING}\n\n");
    let Some(at) = context.rfind(&marker) else { return (stdout.to_vec(), None) };
    let line = context[at + marker.len()..].to_owned();
    assert!(!line.contains('\n'), "the report is one line, and last: {context:?}");
    let rest = context[..at].trim_end_matches('\n').to_owned();
    if rest.is_empty() {
        return (Vec::new(), Some(line));
    }
    value["hookSpecificOutput"]["additionalContext"] = serde_json::Value::String(rest);
    let mut out = serde_json::to_vec(&value).unwrap();
    out.push(b'\n');
    (out, Some(line))
}

/// Whether a `doctor --json` report asks for nothing but what `check`
/// finds in the example repository itself (each such action ends in what
/// to do): the install, the state and the sources are in order.
pub fn only_repository_findings(report: &serde_json::Value) -> bool {
    report["actions"]
        .as_array()
        .is_some_and(|actions| actions.iter().all(|a| a.as_str().is_some_and(|a| a.contains("; to do: "))))
}

/// A `doctor --json` report's actions less the example repository's own
/// findings (check's, each ending in what to do): the setup's.
pub fn setup_actions(report: &serde_json::Value) -> serde_json::Value {
    serde_json::Value::Array(
        report["actions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|a| a.as_str().is_some_and(|a| !a.contains("; to do: ")))
            .cloned()
            .collect(),
    )
}
