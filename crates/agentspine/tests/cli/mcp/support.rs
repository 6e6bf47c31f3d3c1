//! Runs `agentspine mcp` against a copy of `examples/monorepo` in
//! `/tmp/.tmpXXXX/tree` (with a `.git` directory), a throwaway home whose
//! Claude config holds `examples/claude-memory`, and its own state
//! directory; talks to it in JSON lines.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

/// How long any one answer may take.
const PATIENCE: Duration = Duration::from_secs(20);

pub struct Server {
    pub dir: tempfile::TempDir,
    pub tree: PathBuf,
    pub home: PathBuf,
    child: Child,
    stdin: Option<ChildStdin>,
    frames: Receiver<String>,
    next_id: u64,
    /// The `initialize` result.
    pub init: Value,
}

impl Server {
    /// Starts the server and completes the handshake.
    pub fn start() -> Server {
        Server::handshake(Server::spawn())
    }

    /// Starts the server on a state directory whose `state.db` is not a
    /// database, and completes the handshake.
    pub fn start_damaged() -> Server {
        Server::handshake(Server::spawn_with(|state| {
            std::fs::create_dir_all(state).unwrap();
            std::fs::write(state.join("state.db"), b"this is not a database").unwrap();
        }))
    }

    fn handshake(mut server: Server) -> Server {
        let init = server.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "tests", "version": "0"}}),
        );
        server.init = init.get("result").unwrap_or_else(|| panic!("initialize failed: {init}")).clone();
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    /// Starts the server, sends nothing.
    pub fn spawn() -> Server {
        Server::spawn_with(|_| {})
    }

    /// Starts the server after `prepare` has seen its state directory.
    fn spawn_with(prepare: impl FnOnce(&Path)) -> Server {
        let dir = tempfile::Builder::new().tempdir_in("/tmp").unwrap();
        prepare(&dir.path().join("state"));
        let tree = dir.path().join("tree");
        let home = dir.path().join("home");
        let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        crate::support::copy_dir(&examples.join("monorepo"), &tree);
        std::fs::create_dir(tree.join(".git")).unwrap();
        crate::support::copy_dir(
            &examples.join("claude-memory"),
            &home.join(".claude/projects/mcp-test/memory"),
        );
        let mut child = Command::new(env!("CARGO_BIN_EXE_agentspine"))
            .arg("mcp")
            // As a client launches it: in the project (the server may
            // resolve that project's root, nothing else).
            .current_dir(&tree)
            .env_clear()
            .env("HOME", &home)
            .env("AGENTSPINE_STATE_DIR", dir.path().join("state"))
            .env("CLAUDE_CONFIG_DIR", home.join(".claude"))
            .env("CLAUDE_CODE_PROJECT_DIR_NAME", "mcp-test")
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, frames) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Server { dir, tree, home, child, stdin, frames, next_id: 1, init: Value::Null }
    }

    pub fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    /// The whole response frame to one request.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self.frames.recv_timeout(PATIENCE).expect("the server answers in time");
            let frame: Value = serde_json::from_str(&line).expect("stdout carries JSON frames only");
            if frame["id"] == json!(id) {
                return frame;
            }
        }
    }

    /// The `result` of a `tools/call`, unfiltered.
    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let frame = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        frame.get("result").unwrap_or_else(|| panic!("{tool}: not a result: {frame}")).clone()
    }

    /// A successful call's structured content, unfiltered (source ids as
    /// the server gave them).
    pub fn raw(&mut self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments);
        assert_eq!(result["isError"], json!(false), "{tool}: {result}");
        let structured = result["structuredContent"].clone();
        assert_eq!(result["content"][0]["text"], json!(structured.to_string()), "the text is the same JSON");
        structured
    }

    /// A successful call's structured content, filtered for a snapshot.
    pub fn content(&mut self, tool: &str, arguments: Value) -> Value {
        let raw = self.raw(tool, arguments);
        self.filtered(&raw)
    }

    /// A failed call's one-line message, filtered.
    pub fn error(&mut self, tool: &str, arguments: Value) -> String {
        let result = self.call(tool, arguments);
        assert_eq!(result["isError"], json!(true), "{tool}: {result}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(!text.contains('\n'), "one line: {text}");
        self.filter(text)
    }

    pub fn filtered(&self, value: &Value) -> Value {
        serde_json::from_str(&self.filter(&value.to_string())).unwrap()
    }

    pub fn root(&self) -> String {
        self.tree.display().to_string()
    }

    /// Frames that arrive within `wait` (none are expected).
    pub fn unsolicited(&self, wait: Duration) -> Vec<String> {
        let mut extra = Vec::new();
        while let Ok(line) = self.frames.recv_timeout(wait) {
            extra.push(line);
        }
        extra
    }

    /// Closes stdin and waits for the exit.
    pub fn finish(mut self) -> ExitStatus {
        drop(self.stdin.take());
        for _ in 0..100 {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        self.child.kill().unwrap();
        panic!("the server did not exit within 5 s of end of input");
    }

    /// Temp paths replaced, and source ids numbered (see
    /// [`crate::support::number_source_ids`]).
    pub fn filter(&self, text: &str) -> String {
        let text = text
            .replace(&self.tree.display().to_string(), "[TREE]")
            .replace(&self.home.display().to_string(), "[HOME]")
            .replace(&self.dir.path().display().to_string(), "[TMP]");
        // The count of confirming re-reads depends on the example's age, as
        // in `crate::support::Example::filter`.
        crate::support::redact_count(&crate::support::number_source_ids(&text), "confirmations")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
