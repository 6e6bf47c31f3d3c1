//! `agentspine serve`, the desktop socket, driven by real processes over a
//! real Unix socket: the host's methods, the sidecar's resolve, every
//! refusal, the per-prompt cache, the 2-second fallback on a slow file
//! system (a binary built with the `fault-injection` feature), 64
//! concurrent sidecar connections, the socket's own life (modes, stale
//! socket, SIGTERM, peer uid, line cap) and its limits (1,000 idle
//! connections, slow lines, full pools).

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A project tree, a home with the global file, and a socket directory.
struct Desk {
    dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

impl Desk {
    fn new() -> Desk {
        let dir = tempfile::Builder::new().tempdir_in("/tmp").unwrap();
        let root = dir.path().join("proj");
        let home = dir.path().join("home");
        let desk = Desk { root, home, dir };
        desk.file("home/.pi/agent/AGENTS.md", "global rule");
        desk.file("proj/AGENTS.md", "root rule");
        desk.file("proj/a/AGENTS.md", "a rule");
        desk.file("proj/a/x.ts", "");
        desk.file("proj/b/CLAUDE.md", "b rule");
        desk.file("proj/b/y.ts", "");
        desk.file("proj/b/deep/z.ts", "");
        desk.file("outside/AGENTS.md", "outside rule");
        std::os::unix::fs::symlink(desk.root.join("a"), desk.root.join("inside-link")).unwrap();
        std::os::unix::fs::symlink(desk.dir.path().join("outside"), desk.root.join("outside-link")).unwrap();
        desk
    }

    fn file(&self, rel: &str, text: &str) {
        let path = self.dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn socket(&self) -> PathBuf {
        self.dir.path().join("run/agentspine.sock")
    }

    fn command(&self, binary: &Path, args: &[&str]) -> Command {
        let mut command = Command::new(binary);
        command
            .arg("serve")
            .arg("--socket")
            .arg(self.socket())
            .args(args)
            .env_clear()
            .env("HOME", &self.home)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command
    }

    fn serve(&self) -> Served {
        self.serve_with(Path::new(env!("CARGO_BIN_EXE_agentspine")), &[])
    }

    fn serve_with(&self, binary: &Path, env: &[(&str, &str)]) -> Served {
        let mut command = self.command(binary, &["--json"]);
        command.envs(env.iter().copied());
        Served::start(command.spawn().unwrap())
    }
}

/// A running server; killed when dropped.
pub(crate) struct Served {
    child: Child,
    ready: Value,
}

impl Served {
    /// Waits for the ready line on stdout.
    pub(crate) fn start(mut child: Child) -> Served {
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        if line.is_empty() {
            let mut err = String::new();
            child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            panic!("the server did not start: {err}");
        }
        let ready: Value = serde_json::from_str(&line).unwrap();
        // `--json` reports a failure to start as `{"error": …}` on stdout.
        assert!(ready.get("error").is_none(), "the server did not start: {line}");
        Served { child, ready }
    }

    fn socket(&self) -> PathBuf {
        PathBuf::from(self.ready["socket"].as_str().unwrap())
    }

    pub(crate) fn token(&self) -> String {
        std::fs::read_to_string(self.ready["token_file"].as_str().unwrap()).unwrap().trim().to_owned()
    }

    pub(crate) fn client(&self) -> Client {
        Client::connect(&self.socket())
    }

    /// A connection authenticated as the host.
    pub(crate) fn host(&self) -> Client {
        let mut client = self.client();
        client.ok("host.authenticate", json!({ "control_token": self.token() }));
        client
    }

    fn terminate(&mut self) -> std::process::ExitStatus {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill").args(["-TERM", &pid]).status().unwrap().success());
        self.child.wait().unwrap()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A JSON-RPC client over the socket, one request at a time.
pub(crate) struct Client {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    next: u64,
}

impl Client {
    fn connect(socket: &Path) -> Client {
        let writer = UnixStream::connect(socket).unwrap();
        writer.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        Client { reader: BufReader::new(writer.try_clone().unwrap()), writer, next: 0 }
    }

    fn send_line(&mut self, line: &[u8]) -> Value {
        self.writer.write_all(line).unwrap();
        self.writer.write_all(b"\n").unwrap();
        let mut answer = String::new();
        self.reader.read_line(&mut answer).unwrap();
        serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{e}: {answer:?}"))
    }

    /// The whole answer.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        let request = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        let answer = self.send_line(&serde_json::to_vec(&request).unwrap());
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    pub(crate) fn ok(&mut self, method: &str, params: Value) -> Value {
        let answer = self.call(method, params);
        assert!(answer.get("error").is_none(), "{method}: {answer}");
        answer["result"].clone()
    }

    /// The error's `data.reason` and message.
    fn refused(&mut self, method: &str, params: Value) -> (String, String) {
        let answer = self.call(method, params);
        let error = &answer["error"];
        assert!(error.is_object(), "{method} was not refused: {answer}");
        (error["data"]["reason"].as_str().unwrap().to_owned(), error["message"].as_str().unwrap().to_owned())
    }
}

/// Registers the desk's root and binds `session`; returns the bind result.
fn bind(host: &mut Client, root: &Path, session: &str) -> Value {
    host.ok("projects.register", json!({ "root": root }));
    host.ok("session.bind", json!({ "session_id": session, "project_root": root }))
}

fn resolve(client: &mut Client, bound: &Value, path: &str) -> Value {
    client.ok(
        "project.instructions.resolve",
        json!({ "session_id": bound["session_id"], "token": bound["token"], "path": path }),
    )
}

/// The labels of a chain's sources.
fn labels(chain: &Value) -> Vec<String> {
    chain["sources"].as_array().unwrap().iter().map(|s| s["label"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn sibling_rules_never_leak_into_a_later_resolution() {
    let desk = Desk::new();
    let served = desk.serve();
    let mut host = served.host();
    let bound = bind(&mut host, &desk.root, "s1");
    let mut sidecar = served.client();

    let a = resolve(&mut sidecar, &bound, "a/x.ts");
    assert_eq!(labels(&a["chain"]), ["~/.pi/agent/AGENTS.md", "AGENTS.md", "a/AGENTS.md"]);
    let b = resolve(&mut sidecar, &bound, &desk.root.join("b/y.ts").display().to_string());
    assert_eq!(labels(&b["chain"]), ["~/.pi/agent/AGENTS.md", "AGENTS.md", "b/CLAUDE.md"]);
    let text = b["chain"]["text"].as_str().unwrap();
    assert!(text.contains("b rule") && text.contains("root rule") && text.contains("global rule"), "{text}");
    assert!(!text.contains("a rule"), "a sibling's rule leaked: {text}");
    // A deeper directory without its own file has b's chain; a file that
    // does not exist yet has its nearest existing directory's.
    assert_eq!(labels(&resolve(&mut sidecar, &bound, "b/deep/z.ts")["chain"]), labels(&b["chain"]));
    assert_eq!(resolve(&mut sidecar, &bound, "b/deep/new/file.ts")["chain"]["dir"], "b/deep");
}

#[test]
fn the_answers_hold_the_labelled_chain_and_the_markers() {
    let desk = Desk::new();
    let served = desk.serve();
    let mut host = served.host();
    let bound = bind(&mut host, &desk.root, "s1");
    assert_eq!(bound["token"].as_str().unwrap().len(), 64);
    let mut sidecar = served.client();
    let mut answer = resolve(&mut sidecar, &bound, "a/x.ts");
    assert!(answer["duration_ms"].as_f64().unwrap() >= 0.0);
    answer["duration_ms"] = json!("[ms]");
    answer["chain"]["digest"] = json!("[digest]");
    insta::assert_json_snapshot!(answer, @r##"
    {
      "cache": "miss",
      "chain": {
        "digest": "[digest]",
        "dir": "a",
        "sources": [
          {
            "bytes": 11,
            "cut_at": null,
            "label": "~/.pi/agent/AGENTS.md",
            "scope": "user",
            "sha256": "83c88e6960608ca8ca858ba421c617eb96a7c688d90db47a2bb87bc0dc2517fe"
          },
          {
            "bytes": 9,
            "cut_at": null,
            "label": "AGENTS.md",
            "scope": "project",
            "sha256": "5aa3e913ba55c5c83cd35f9fe7e164e33b7856835f2ddeb73c2c74673217b9ed"
          },
          {
            "bytes": 6,
            "cut_at": null,
            "label": "a/AGENTS.md",
            "scope": "project",
            "sha256": "f8a062528d72a832afe10bc3d855a77c703ada3d2945302e595bafb8675789cc"
          }
        ],
        "text": "# Project instructions\n\nEntries run from the global file and the project root down to the working directory. Where they disagree, later (closer) entries take precedence.\n\n## ~/.pi/agent/AGENTS.md (global)\n\nglobal rule\n\n## AGENTS.md\n\nroot rule\n\n## a/AGENTS.md\n\na rule\n"
      },
      "duration_ms": "[ms]",
      "fallback": null,
      "path": "a/x.ts",
      "prompt": 0,
      "session_id": "s1"
    }
    "##);
}

#[test]
fn refusals_and_prompts_have_a_stable_shape() {
    let desk = Desk::new();
    let served = desk.serve();
    let mut host = served.host();
    let bound = bind(&mut host, &desk.root, "s1");
    let mut sidecar = served.client();
    let tmp = desk.dir.path().display().to_string();
    insta::with_settings!({ filters => vec![(tmp.as_str(), "[TMP]")] }, {
        let mut ready = served.ready.clone();
        ready["pid"] = json!("[pid]");
        insta::assert_json_snapshot!(ready, @r#"
        {
          "event": "listening",
          "pid": "[pid]",
          "socket": "[TMP]/run/agentspine.sock",
          "token_file": "[TMP]/run/agentspine.sock.token"
        }
        "#);
        let mut shown = bound.clone();
        shown["token"] = json!("[token]");
        shown["chain"]["digest"] = json!("[digest]");
        insta::assert_json_snapshot!(shown, @r##"
        {
          "chain": {
            "digest": "[digest]",
            "dir": ".",
            "sources": [
              {
                "bytes": 11,
                "cut_at": null,
                "label": "~/.pi/agent/AGENTS.md",
                "scope": "user",
                "sha256": "83c88e6960608ca8ca858ba421c617eb96a7c688d90db47a2bb87bc0dc2517fe"
              },
              {
                "bytes": 9,
                "cut_at": null,
                "label": "AGENTS.md",
                "scope": "project",
                "sha256": "5aa3e913ba55c5c83cd35f9fe7e164e33b7856835f2ddeb73c2c74673217b9ed"
              }
            ],
            "text": "# Project instructions\n\nEntries run from the global file and the project root down to the working directory. Where they disagree, later (closer) entries take precedence.\n\n## ~/.pi/agent/AGENTS.md (global)\n\nglobal rule\n\n## AGENTS.md\n\nroot rule\n"
          },
          "continuity": [],
          "project_root": "[TMP]/proj",
          "session_id": "s1",
          "token": "[token]"
        }
        "##);
        let params = json!({ "session_id": "s1", "token": bound["token"], "path": "../outside/AGENTS.md" });
        insta::assert_json_snapshot!(sidecar.call("project.instructions.resolve", params), @r#"
        {
          "error": {
            "code": -32004,
            "data": {
              "reason": "outside-root"
            },
            "message": "../outside/AGENTS.md: outside the session's project root [TMP]/proj; nothing is resolved there"
          },
          "id": 1,
          "jsonrpc": "2.0"
        }
        "#);
        let params = json!({ "session_id": "s1", "token": bound["token"], "path": "outside-link/AGENTS.md" });
        insta::assert_json_snapshot!(sidecar.call("project.instructions.resolve", params), @r#"
        {
          "error": {
            "code": -32005,
            "data": {
              "reason": "symlink"
            },
            "message": "outside-link/AGENTS.md: a symbolic link is on the path, and agentspine never follows links"
          },
          "id": 2,
          "jsonrpc": "2.0"
        }
        "#);
        desk.file("proj/AGENTS.md", "root rule v2");
        let mut begun = host.ok("session.prompt_begin", json!({ "session_id": "s1" }));
        begun["chain"]["digest"] = json!("[digest]");
        insta::assert_json_snapshot!(begun, @r##"
        {
          "chain": {
            "digest": "[digest]",
            "dir": ".",
            "sources": [
              {
                "bytes": 11,
                "cut_at": null,
                "label": "~/.pi/agent/AGENTS.md",
                "scope": "user",
                "sha256": "83c88e6960608ca8ca858ba421c617eb96a7c688d90db47a2bb87bc0dc2517fe"
              },
              {
                "bytes": 12,
                "cut_at": null,
                "label": "AGENTS.md",
                "scope": "project",
                "sha256": "8168a8f412b72075c1456aebfe3f164cccbf2f04ff0c85b6504ad019bec4fe40"
              }
            ],
            "text": "# Project instructions\n\nEntries run from the global file and the project root down to the working directory. Where they disagree, later (closer) entries take precedence.\n\n## ~/.pi/agent/AGENTS.md (global)\n\nglobal rule\n\n## AGENTS.md\n\nroot rule v2\n"
          },
          "continuity": [],
          "fallback": null,
          "prompt": 1,
          "rebuild": true,
          "session_id": "s1"
        }
        "##);
    });
}

#[test]
fn every_refusal_names_its_cause() {
    let desk = Desk::new();
    let served = desk.serve();
    let mut host = served.host();
    let one = bind(&mut host, &desk.root, "one");
    let two = host.ok("session.bind", json!({ "session_id": "two", "project_root": desk.root }));
    let mut sidecar = served.client();
    let ask = |sidecar: &mut Client, bound: &Value, token: &Value, path: &str| {
        sidecar.refused(
            "project.instructions.resolve",
            json!({ "session_id": bound["session_id"], "token": token, "path": path }),
        )
    };

    let (reason, message) = ask(&mut sidecar, &one, &one["token"], "../outside/AGENTS.md");
    assert_eq!(reason, "outside-root");
    assert!(message.contains("outside the session's project root"), "{message}");
    assert_eq!(ask(&mut sidecar, &one, &one["token"], "/etc/passwd").0, "outside-root");
    assert_eq!(ask(&mut sidecar, &one, &one["token"], "a/../../outside/x").0, "outside-root");
    // Links are refused wherever they point, inside the root or out of it.
    let (reason, message) = ask(&mut sidecar, &one, &one["token"], "outside-link/AGENTS.md");
    assert_eq!(reason, "symlink");
    assert!(message.contains("never follows links"), "{message}");
    assert_eq!(ask(&mut sidecar, &one, &one["token"], "inside-link/x.ts").0, "symlink");
    assert_eq!(ask(&mut sidecar, &one, &one["token"], "inside-link").0, "symlink");
    // A file used as a directory.
    let (reason, message) = ask(&mut sidecar, &one, &one["token"], "a/x.ts/inner.ts");
    assert_eq!(reason, "not-a-directory");
    assert!(message.contains("a/x.ts: not a directory where a directory was expected"), "{message}");
    // A token works for its own session only.
    let (reason, message) = ask(&mut sidecar, &one, &two["token"], "a/x.ts");
    assert_eq!(reason, "invalid-session-token");
    assert!(message.contains("only for the session it was issued for"), "{message}");
    assert_eq!(ask(&mut sidecar, &one, &json!("0".repeat(64)), "a/x.ts").0, "invalid-session-token");
    assert_eq!(resolve(&mut sidecar, &two, "a/x.ts")["session_id"], "two");
    // The sidecar's connection cannot use the host's methods.
    let (reason, message) = sidecar.refused("project.agents_md.read", json!({ "project_root": desk.root }));
    assert_eq!(reason, "unauthorized");
    assert!(message.contains("host.authenticate"), "{message}");
    assert_eq!(
        sidecar.refused("host.authenticate", json!({ "control_token": "0".repeat(64) })).0,
        "unauthorized"
    );

    // The host: an unregistered root, a write outside every registered root.
    let other = desk.dir.path().join("outside");
    let (reason, message) = host.refused("session.bind", json!({ "session_id": "x", "project_root": other }));
    assert_eq!(reason, "not-registered");
    assert!(message.contains("projects.register it first"), "{message}");
    let write = json!({ "project_root": other, "content": "mine", "expected_sha256": null });
    assert_eq!(host.refused("project.agents_md.write", write).0, "not-registered");
    assert_eq!(std::fs::read_to_string(other.join("AGENTS.md")).unwrap(), "outside rule");
    assert_eq!(host.refused("project.agents_md.read", json!({ "project_root": "/etc" })).0, "not-registered");

    // A stale expected_sha256 loses nothing.
    let read = host.ok("project.agents_md.read", json!({ "project_root": desk.root }));
    desk.file("proj/AGENTS.md", "edited in another window");
    let write = json!({ "project_root": desk.root, "content": "mine", "expected_sha256": read["sha256"] });
    let (reason, message) = host.refused("project.agents_md.write", write);
    assert_eq!(reason, "stale");
    assert!(message.contains("changed since it was read"), "{message}");
    assert_eq!(std::fs::read_to_string(desk.root.join("AGENTS.md")).unwrap(), "edited in another window");
    // `null` means "it must not exist yet".
    let write = json!({ "project_root": desk.root, "content": "mine", "expected_sha256": null });
    assert_eq!(host.refused("project.agents_md.write", write).0, "stale");
    let write = json!({ "project_root": desk.root, "content": "mine", "expected_sha256": null });
    assert_eq!(host.refused("instructions.global.write", json!({ "content": "x" })).0, "stale");
    // A link at AGENTS.md is never written through.
    std::fs::remove_file(desk.root.join("AGENTS.md")).unwrap();
    std::os::unix::fs::symlink(desk.dir.path().join("outside/AGENTS.md"), desk.root.join("AGENTS.md"))
        .unwrap();
    assert_eq!(host.refused("project.agents_md.write", write).0, "symlink");
    assert_eq!(std::fs::read_to_string(desk.dir.path().join("outside/AGENTS.md")).unwrap(), "outside rule");

    // A root named through a link, or a `/proc` spelling, is never
    // registered: the host names the directory itself.
    let linked = desk.dir.path().join("linked-root");
    std::os::unix::fs::symlink(&desk.root, &linked).unwrap();
    for named in [linked.clone(), PathBuf::from(format!("/proc/self/root{}", desk.root.display()))] {
        let (reason, message) = host.refused("projects.register", json!({ "root": named }));
        assert_eq!(reason, "root-through-link", "{named:?}");
        assert!(
            message.contains("is a symbolic link") && message.contains("never through a link"),
            "{message}"
        );
    }
    let (reason, _) = host.refused("session.bind", json!({ "session_id": "l", "project_root": linked }));
    assert_eq!(reason, "not-registered");

    // Unknown methods and arguments are errors, never guesses.
    assert_eq!(host.call("project.read_file", json!({ "path": "/etc/passwd" }))["error"]["code"], -32601);
    let (reason, message) = host.refused("projects.register", json!({ "root": desk.root, "extra": 1 }));
    assert_eq!(reason, "invalid-params");
    assert!(message.contains("unknown field `extra`"), "{message}");
    assert_eq!(host.refused("session.end", json!({ "session_id": "never" })).0, "unknown-session");
}

#[test]
fn edits_through_the_host_are_atomic_and_compare_their_version() {
    let desk = Desk::new();
    let served = desk.serve();
    let mut host = served.host();
    host.ok("projects.register", json!({ "root": desk.root }));
    let read = host.ok("project.agents_md.read", json!({ "project_root": desk.root }));
    assert_eq!((read["exists"].clone(), read["content"].clone()), (json!(true), json!("root rule")));
    let write =
        json!({ "project_root": desk.root, "content": "root rule v2\n", "expected_sha256": read["sha256"] });
    let written = host.ok("project.agents_md.write", write);
    assert_eq!(std::fs::read_to_string(desk.root.join("AGENTS.md")).unwrap(), "root rule v2\n");
    let again = host.ok("project.agents_md.read", json!({ "project_root": desk.root }));
    assert_eq!(again["sha256"], written["sha256"]);
    // No temporary file is left behind.
    let names: Vec<String> = std::fs::read_dir(&desk.root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(names.iter().all(|n| !n.contains("agentspine-tmp")), "{names:?}");

    // The global file: its fixed path, created with its directory if need be.
    std::fs::remove_dir_all(desk.home.join(".pi")).unwrap();
    let global = host.ok("instructions.global.read", json!({}));
    assert_eq!(global["exists"], false);
    assert_eq!(global["path"], json!(desk.home.join(".pi/agent/AGENTS.md")));
    host.ok("instructions.global.write", json!({ "content": "be brief", "expected_sha256": null }));
    assert_eq!(std::fs::read_to_string(desk.home.join(".pi/agent/AGENTS.md")).unwrap(), "be brief");
    let global = host.ok("instructions.global.read", json!({}));
    assert_eq!(global["content"], "be brief");
}

#[test]
fn the_cache_lasts_one_prompt_and_a_root_edit_rebuilds_the_next_prompt_only() {
    let desk = Desk::new();
    let served = desk.serve();
    let mut host = served.host();
    let bound = bind(&mut host, &desk.root, "s1");
    let mut sidecar = served.client();
    let cache = |sidecar: &mut Client, path: &str| resolve(sidecar, &bound, path)["cache"].clone();

    assert_eq!(cache(&mut sidecar, "a/x.ts"), "miss");
    assert_eq!(cache(&mut sidecar, "a/x.ts"), "hit");
    // One resolution per directory: another file there is a hit too.
    assert_eq!(cache(&mut sidecar, "a"), "hit");
    assert_eq!(cache(&mut sidecar, "b/y.ts"), "miss");

    let begun = host.ok("session.prompt_begin", json!({ "session_id": "s1" }));
    assert_eq!((begun["prompt"].clone(), begun["rebuild"].clone()), (json!(1), json!(false)));
    assert_eq!(cache(&mut sidecar, "a/x.ts"), "miss");
    assert_eq!(cache(&mut sidecar, "a/x.ts"), "hit");

    // A nested edit is seen by the next prompt's resolution, without a rebuild.
    desk.file("proj/a/AGENTS.md", "a rule v2");
    assert!(resolve(&mut sidecar, &bound, "a/x.ts")["chain"]["text"].as_str().unwrap().contains("a rule\n"));
    let begun = host.ok("session.prompt_begin", json!({ "session_id": "s1" }));
    assert_eq!(begun["rebuild"], false);
    assert!(resolve(&mut sidecar, &bound, "a/x.ts")["chain"]["text"].as_str().unwrap().contains("a rule v2"));

    // A root edit: the next prompt rebuilds, with the new chain; the one after does not.
    let read = host.ok("project.agents_md.read", json!({ "project_root": desk.root }));
    let write =
        json!({ "project_root": desk.root, "content": "root rule v2", "expected_sha256": read["sha256"] });
    host.ok("project.agents_md.write", write);
    let begun = host.ok("session.prompt_begin", json!({ "session_id": "s1" }));
    assert_eq!((begun["prompt"].clone(), begun["rebuild"].clone()), (json!(3), json!(true)));
    assert_ne!(begun["chain"]["digest"], bound["chain"]["digest"]);
    assert!(begun["chain"]["text"].as_str().unwrap().contains("root rule v2"));
    assert_eq!(host.ok("session.prompt_begin", json!({ "session_id": "s1" }))["rebuild"], false);
    // The global file is part of the root chain too.
    desk.file("home/.pi/agent/AGENTS.md", "global rule v2");
    assert_eq!(host.ok("session.prompt_begin", json!({ "session_id": "s1" }))["rebuild"], true);

    // Ending the session retires its token.
    host.ok("session.end", json!({ "session_id": "s1" }));
    let params = json!({ "session_id": "s1", "token": bound["token"], "path": "a/x.ts" });
    assert_eq!(sidecar.refused("project.instructions.resolve", params).0, "invalid-session-token");
}

#[test]
fn binding_again_or_unregistering_retires_the_tokens() {
    let desk = Desk::new();
    let served = desk.serve();
    let mut host = served.host();
    let first = bind(&mut host, &desk.root, "s1");
    let mut sidecar = served.client();
    resolve(&mut sidecar, &first, "a/x.ts");
    let second = host.ok("session.bind", json!({ "session_id": "s1", "project_root": desk.root }));
    assert_ne!(first["token"], second["token"]);
    let params = json!({ "session_id": "s1", "token": first["token"], "path": "a/x.ts" });
    assert_eq!(sidecar.refused("project.instructions.resolve", params).0, "invalid-session-token");
    assert_eq!(resolve(&mut sidecar, &second, "a/x.ts")["cache"], "miss");
    host.ok("session.bind", json!({ "session_id": "s2", "project_root": desk.root }));

    let listed = host.ok("projects.list", json!({}));
    assert_eq!(listed["projects"][0]["sessions"], 2);
    let gone = host.ok("projects.unregister", json!({ "root": desk.root }));
    assert_eq!(gone["ended_sessions"], 2);
    let params = json!({ "session_id": "s1", "token": second["token"], "path": "a/x.ts" });
    assert_eq!(sidecar.refused("project.instructions.resolve", params).0, "invalid-session-token");
    assert_eq!(host.ok("projects.list", json!({})), json!({ "projects": [] }));
    assert_eq!(host.refused("projects.unregister", json!({ "root": desk.root })).0, "not-registered");
}

#[test]
fn a_slow_file_system_gets_the_base_chain_within_two_seconds() {
    let desk = Desk::new();
    let binary = crate::support::fault_binary();
    // Every read of the sidecar's resolutions sleeps 5 s (the host's own
    // reads are not slowed).
    let flag = desk.dir.path().join("slow-all");
    let served = desk.serve_with(
        &binary,
        &[
            ("AGENTSPINE_FAULT_READ_DELAY_MS", "5000"),
            ("AGENTSPINE_FAULT_SLOW_ALL_WHILE", flag.to_str().unwrap()),
        ],
    );
    let mut host = served.host();
    let bound = bind(&mut host, &desk.root, "s1");
    let mut sidecar = served.client();
    for path in ["a/x.ts", "b/y.ts"] {
        let started = Instant::now();
        let answer = resolve(&mut sidecar, &bound, path);
        let took = started.elapsed();
        assert!(took < Duration::from_millis(2500), "{path}: answered after {took:?}");
        assert!(took >= Duration::from_millis(1900), "{path}: answered after only {took:?}");
        assert_eq!(answer["chain"], bound["chain"], "the base chain stands in");
        assert_eq!(answer["cache"], "miss");
        let reason = answer["fallback"]["reason"].as_str().unwrap();
        assert!(reason.starts_with("deadline"), "{reason}");
        let ms = answer["duration_ms"].as_f64().unwrap();
        assert!((1900.0..2500.0).contains(&ms), "{ms}");
    }
    // Each fallback is in the audit log, for the host's user to see.
    let audit = || {
        let out = Command::new(env!("CARGO_BIN_EXE_agentspine"))
            .args(["audit", "--host", "desktop", "--json"])
            .env_clear()
            .env("HOME", &desk.home)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let log: Value = serde_json::from_slice(&out.stdout).unwrap();
        log["events"].as_array().unwrap().clone()
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while audit().len() < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let events = audit();
    assert_eq!(events.len(), 2, "{events:?}");
    for (event, path) in events.iter().zip(["a/x.ts", "b/y.ts"]) {
        assert_eq!(
            (event["event"].as_str(), event["code"].as_str()),
            (Some("resolve-fallback"), Some("deadline"))
        );
        assert_eq!(event["path"], json!(desk.root.join(path)));
    }

    // While the host's reads are slow too, a new prompt keeps the previous
    // root chain, says why, and still drops the cache.
    std::fs::write(&flag, "").unwrap();
    let started = Instant::now();
    let begun = host.ok("session.prompt_begin", json!({ "session_id": "s1" }));
    assert!(started.elapsed() < Duration::from_millis(2500), "{:?}", started.elapsed());
    assert_eq!((begun["prompt"].clone(), begun["rebuild"].clone()), (json!(1), json!(false)));
    assert_eq!(begun["chain"], bound["chain"]);
    assert!(begun["fallback"]["reason"].as_str().unwrap().contains("deadline"), "{begun}");
    std::fs::remove_file(&flag).unwrap();
    let begun = host.ok("session.prompt_begin", json!({ "session_id": "s1" }));
    assert_eq!((begun["rebuild"].clone(), begun["fallback"].clone()), (json!(false), Value::Null));

    // Refusals are still refusals, not fallbacks.
    let params = json!({ "session_id": "s1", "token": bound["token"], "path": "../outside" });
    assert_eq!(sidecar.refused("project.instructions.resolve", params).0, "outside-root");

    // The ordinary binary ignores the variable: the switch is not compiled in.
    drop(served);
    let served = desk.serve_with(
        Path::new(env!("CARGO_BIN_EXE_agentspine")),
        &[("AGENTSPINE_FAULT_READ_DELAY_MS", "5000")],
    );
    let mut host = served.host();
    let bound = bind(&mut host, &desk.root, "s1");
    let answer = resolve(&mut served.client(), &bound, "a/x.ts");
    assert_eq!(answer["fallback"], Value::Null);
    assert!(answer["duration_ms"].as_f64().unwrap() < 1000.0);
}

#[test]
fn sixty_four_sidecar_connections_over_four_sessions_stay_isolated() {
    let desk = Desk::new();
    desk.file("two/AGENTS.md", "second project rule");
    desk.file("two/a/AGENTS.md", "second a rule");
    desk.file("two/a/x.ts", "");
    desk.file("two/b/y.ts", "");
    let second = desk.dir.path().join("two");
    let served = desk.serve();
    let mut host = served.host();
    host.ok("projects.register", json!({ "root": desk.root }));
    host.ok("projects.register", json!({ "root": second }));
    let sessions: Vec<(Value, &'static str)> = (0..4)
        .map(|i| {
            let (root, marker) =
                if i % 2 == 0 { (&desk.root, "root rule") } else { (&second, "second project rule") };
            let bound =
                host.ok("session.bind", json!({ "session_id": format!("s{i}"), "project_root": root }));
            (bound, marker)
        })
        .collect();
    let listed = host.ok("projects.list", json!({}));
    assert_eq!(listed["projects"].as_array().unwrap().len(), 2);

    const ROUNDS: usize = 25;
    let threads: Vec<_> = (0..64)
        .map(|n| {
            let socket = served.socket();
            let (bound, marker) = sessions[n % 4].clone();
            let stranger = sessions[(n + 1) % 4].0["token"].clone();
            std::thread::spawn(move || {
                let mut client = Client::connect(&socket);
                let (mut good, mut refused) = (0, 0);
                for round in 0..ROUNDS {
                    let path = ["a/x.ts", "b/y.ts", ".", "a"][round % 4];
                    let answer = resolve(&mut client, &bound, path);
                    let text = answer["chain"]["text"].as_str().unwrap();
                    assert_eq!(answer["session_id"], bound["session_id"]);
                    assert_eq!(answer["fallback"], Value::Null);
                    assert!(text.contains(marker), "{text}");
                    let foreign = if marker == "root rule" { "second" } else { "root rule" };
                    assert!(!text.contains(foreign), "another project's rule leaked: {text}");
                    if path.starts_with('b') {
                        assert!(!text.contains("a rule"), "a sibling's rule leaked: {text}");
                    }
                    good += 1;
                    if round % 5 == 0 {
                        let params =
                            json!({ "session_id": bound["session_id"], "token": stranger, "path": path });
                        assert_eq!(
                            client.refused("project.instructions.resolve", params).0,
                            "invalid-session-token"
                        );
                        refused += 1;
                    }
                }
                (good, refused)
            })
        })
        .collect();
    let (mut good, mut refused) = (0, 0);
    for thread in threads {
        let (g, r) = thread.join().unwrap();
        good += g;
        refused += r;
    }
    assert_eq!((good, refused), (64 * ROUNDS, 64 * ROUNDS / 5));
    let listed = host.ok("projects.list", json!({}));
    let counts: Vec<u64> =
        listed["projects"].as_array().unwrap().iter().map(|p| p["sessions"].as_u64().unwrap()).collect();
    assert_eq!(counts, [2, 2]);
}

#[test]
fn the_socket_is_private_and_stops_cleanly_on_sigterm() {
    let desk = Desk::new();
    let mut served = desk.serve();
    let socket = served.socket();
    let token_file = PathBuf::from(served.ready["token_file"].as_str().unwrap());
    let mode = |p: &Path| std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode(socket.parent().unwrap()), 0o700);
    assert_eq!(mode(&socket), 0o600);
    assert_eq!(mode(&token_file), 0o600);
    assert_eq!(token_file, desk.dir.path().join("run/agentspine.sock.token"));
    assert_eq!(served.token().len(), 64);

    // A second server on the same socket refuses to take it over.
    let second = desk.command(Path::new(env!("CARGO_BIN_EXE_agentspine")), &[]).output().unwrap();
    assert_eq!(second.status.code(), Some(2));
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(err.contains("another agentspine serve is listening there"), "{err}");
    served.host().ok("projects.list", json!({}));

    let status = served.terminate();
    assert!(status.success(), "{status}");
    assert!(std::fs::symlink_metadata(&socket).is_err(), "the socket is left behind");
    assert!(std::fs::symlink_metadata(&token_file).is_err(), "the token file is left behind");
}

#[test]
fn a_stale_socket_is_replaced_and_anything_else_is_left_alone() {
    let desk = Desk::new();
    let private_dir = |desk: &Desk| {
        let dir = desk.socket().parent().unwrap().to_path_buf();
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    };
    private_dir(&desk);
    // A socket nobody listens on: what a killed server leaves.
    drop(std::os::unix::net::UnixListener::bind(desk.socket()).unwrap());
    let served = desk.serve();
    served.host().ok("projects.list", json!({}));
    drop(served);

    let desk = Desk::new();
    private_dir(&desk);
    std::fs::write(desk.socket(), "not a socket").unwrap();
    let out = desk.command(Path::new(env!("CARGO_BIN_EXE_agentspine")), &[]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("something other than a stale socket is there"), "{err}");
    assert_eq!(std::fs::read_to_string(desk.socket()).unwrap(), "not a socket");
}

#[test]
fn a_chosen_directory_that_others_may_enter_is_refused_not_changed() {
    let desk = Desk::new();
    let dir = desk.socket().parent().unwrap().to_path_buf();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = desk.command(Path::new(env!("CARGO_BIN_EXE_agentspine")), &[]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the directory has mode 0755; it must be private to you (`chmod 700` it"), "{err}");
    assert_eq!(err.matches("has mode 0755").count(), 1, "the cause is said once: {err}");
    assert_eq!(std::fs::metadata(&dir).unwrap().permissions().mode() & 0o7777, 0o755);
    assert!(std::fs::symlink_metadata(desk.socket()).is_err());
    // Once it is private, the server starts.
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    desk.serve().host().ok("projects.list", json!({}));
}

#[test]
fn the_control_token_can_come_from_stdin() {
    let desk = Desk::new();
    let token = "f".repeat(48);
    let mut command =
        desk.command(Path::new(env!("CARGO_BIN_EXE_agentspine")), &["--json", "--control-token-stdin"]);
    command.stdin(Stdio::piped());
    let mut child = command.spawn().unwrap();
    writeln!(child.stdin.take().unwrap(), "{token}").unwrap();
    let served = Served::start(child);
    assert_eq!(served.ready["token_file"], Value::Null);
    assert!(std::fs::symlink_metadata(desk.dir.path().join("run/agentspine.sock.token")).is_err());
    let mut client = served.client();
    assert_eq!(client.ok("host.authenticate", json!({ "control_token": token })), json!({ "role": "host" }));
    client.ok("projects.list", json!({}));

    // A short token is refused with the reason.
    let desk = Desk::new();
    let mut command = desk.command(Path::new(env!("CARGO_BIN_EXE_agentspine")), &["--control-token-stdin"]);
    command.stdin(Stdio::piped());
    let mut child = command.spawn().unwrap();
    writeln!(child.stdin.take().unwrap(), "short").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("at least 32 characters"));
}

#[test]
fn lines_over_one_mebibyte_and_bad_json_are_answered_and_the_connection_goes_on() {
    let desk = Desk::new();
    let served = desk.serve();
    let mut client = served.host();
    let mut long = br#"{"jsonrpc":"2.0","id":1,"method":"projects.list","params":{"pad":""#.to_vec();
    long.resize(2 * 1024 * 1024, b'x');
    long.extend_from_slice(br#""}}"#);
    let answer = client.send_line(&long);
    assert_eq!((answer["id"].clone(), answer["error"]["code"].clone()), (Value::Null, json!(-32600)));
    assert_eq!(answer["error"]["data"]["reason"], "line-too-long");
    let answer = client.send_line(b"{not json");
    assert_eq!(answer["error"]["code"], -32700);
    let answer = client.send_line(br#"[{"jsonrpc":"2.0","id":1,"method":"projects.list"}]"#);
    assert_eq!(answer["error"]["code"], -32600);
    assert_eq!(client.ok("projects.list", json!({})), json!({ "projects": [] }));
}

/// The server's limits (`src/proxy/admission.rs`, `connection.rs`).
const PENDING: usize = 64;
const PENDING_TIMEOUT: Duration = Duration::from_secs(3);
const LINE_TIMEOUT: Duration = Duration::from_secs(3);
const HOSTS: usize = 16;
const SIDECARS: usize = 256;

/// How long the host's authentication and a sidecar's resolution may take
/// while the socket is crowded: a round trip on an idle machine is well
/// under a millisecond.
const CROWDED_BOUND: Duration = Duration::from_secs(1);

/// The descriptors a process has open, where /proc says.
fn open_fds(pid: u32) -> Option<usize> {
    Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count())
}

/// Raises this process's soft limit on open files to at least `want`;
/// false when the hard limit is lower.
fn raise_nofile(want: u64) -> bool {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    if limit.current.is_some_and(|soft| soft >= want) || limit.current.is_none() {
        return true;
    }
    if limit.maximum.is_some_and(|hard| hard < want) {
        return false;
    }
    limit.current = Some(want);
    setrlimit(Resource::Nofile, limit).is_ok()
}

/// What the server sent on a connection it closed: the farewell's reason,
/// read to end of file (so the server did close it).
fn closed_with(stream: &mut UnixStream) -> String {
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut sent = String::new();
    stream.read_to_string(&mut sent).unwrap_or_else(|e| panic!("not closed by the server: {e}"));
    let answer: Value = serde_json::from_str(sent.lines().next().unwrap_or("null")).unwrap();
    assert_eq!(answer["id"], Value::Null, "{answer}");
    answer["error"]["data"]["reason"].as_str().unwrap_or_else(|| panic!("no reason: {sent:?}")).to_owned()
}

/// Whether a connection is still open with nothing sent on it (a read
/// would wait).
fn still_open(mut stream: &UnixStream) -> bool {
    stream.set_nonblocking(true).unwrap();
    let open = matches!(stream.read(&mut [0u8; 1]), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock);
    stream.set_nonblocking(false).unwrap();
    open
}

/// Sends `line` one byte every 300 ms until the server closes the
/// connection; returns the farewell's reason and the time from the first
/// byte to end of file.
fn slowloris(mut stream: UnixStream, line: &'static [u8]) -> (String, Duration) {
    let mut writer = stream.try_clone().unwrap();
    let started = Instant::now();
    let trickle = std::thread::spawn(move || {
        for byte in line.iter().cycle() {
            if writer.write_all(&[*byte]).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(300));
        }
    });
    let reason = closed_with(&mut stream);
    let took = started.elapsed();
    trickle.join().unwrap();
    (reason, took)
}

#[test]
fn a_thousand_idle_connections_and_slow_lines_never_lock_the_host_out() {
    const IDLE: usize = 1000;
    if !raise_nofile(IDLE as u64 + 1024) {
        eprintln!("skipped: the hard limit on open files is below {} and cannot be raised", IDLE + 1024);
        return;
    }
    let desk = Desk::new();
    let served = desk.serve();
    // The server's own process (the ready line's pid): the process started
    // only relays its output and passes signals on.
    let pid = u32::try_from(served.ready["pid"].as_u64().unwrap()).unwrap();
    assert_ne!(pid, served.child.id(), "the server runs in a child of the process started");
    let fds = || open_fds(pid);
    // Warm up what the server opens once (the state store, at the first
    // bind), then let the host go.
    let bound = {
        let mut host = served.host();
        let bound = bind(&mut host, &desk.root, "s1");
        resolve(&mut served.client(), &bound, "b/y.ts");
        bound
    };
    let settled = |want: usize| {
        let deadline = Instant::now() + Duration::from_secs(5);
        while fds() != Some(want) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        fds()
    };
    std::thread::sleep(Duration::from_millis(200));
    let base = fds();

    // 1,000 connections that never send a byte, opened as fast as possible.
    let flood_started = Instant::now();
    let mut during_flood = 0;
    let mut idle: Vec<UnixStream> = Vec::with_capacity(IDLE);
    for n in 0..IDLE {
        idle.push(UnixStream::connect(served.socket()).unwrap());
        if n % 25 == 24 {
            during_flood = during_flood.max(fds().unwrap_or(0));
        }
    }
    let flood = flood_started.elapsed();
    // A client that never finishes its authentication, and a host that
    // never finishes its second line.
    let request = br#"{"jsonrpc":"2.0","id":1,"method":"projects.list","params":{}}"#;
    let pending_slow = std::thread::spawn({
        let stream = UnixStream::connect(served.socket()).unwrap();
        move || slowloris(stream, request)
    });
    let slow_host = served.host();
    let host_slow = std::thread::spawn(move || {
        let stream = slow_host.writer.try_clone().unwrap();
        (slowloris(stream, request), slow_host)
    });

    // Meanwhile, the host and the sidecar get in and are answered.
    let started = Instant::now();
    let mut host = served.host();
    let authenticated = started.elapsed();
    assert!(authenticated < CROWDED_BOUND, "the host authenticated after {authenticated:?}");
    let started = Instant::now();
    let mut sidecar = served.client();
    let answer = resolve(&mut sidecar, &bound, "a/x.ts");
    let resolved = started.elapsed();
    assert!(resolved < CROWDED_BOUND, "the sidecar was answered after {resolved:?}");
    assert_eq!((answer["fallback"].clone(), answer["cache"].clone()), (Value::Null, json!("miss")));
    assert_eq!(labels(&answer["chain"]), ["~/.pi/agent/AGENTS.md", "AGENTS.md", "a/AGENTS.md"]);
    let crowded = fds();
    eprintln!();

    // The oldest idle connections were closed as newer ones came; the
    // newest are still open, until their time is up.
    let newest = IDLE - (PENDING - 2);
    assert!(idle[newest..].iter().all(still_open), "the newest were closed early");
    let deadline = flood_started + PENDING_TIMEOUT + Duration::from_millis(1500);
    let mut reasons: Vec<String> = Vec::with_capacity(IDLE);
    for stream in &mut idle {
        reasons.push(closed_with(stream));
    }
    assert!(
        Instant::now() < deadline,
        "the idle connections were closed only after {:?}",
        flood_started.elapsed()
    );
    let evicted = reasons.iter().take_while(|r| *r == "evicted").count();
    assert_eq!(
        (evicted, reasons[evicted..].iter().filter(|r| *r == "auth-timeout").count()),
        (newest, IDLE - newest),
        "the flood took {flood:?}: {reasons:?}"
    );

    // The slow lines hold nothing: the pending one goes at its deadline,
    // the host's a line timeout after its first byte.
    let (reason, took) = pending_slow.join().unwrap();
    assert_eq!(reason, "auth-timeout");
    assert!(
        took >= PENDING_TIMEOUT - Duration::from_millis(100)
            && took < PENDING_TIMEOUT + Duration::from_secs(1),
        "{took:?}"
    );
    let ((reason, took), _) = host_slow.join().unwrap();
    assert_eq!(reason, "line-timeout");
    assert!(
        took >= LINE_TIMEOUT - Duration::from_millis(100) && took < LINE_TIMEOUT + Duration::from_secs(1),
        "{took:?}"
    );

    // Authenticated connections have no idle limit.
    assert_eq!(host.ok("projects.list", json!({}))["projects"][0]["sessions"], 1);
    assert_eq!(resolve(&mut sidecar, &bound, "a/x.ts")["cache"], "hit");

    // The server's descriptors: during the flood, its own, the pending
    // cap and the one connection being accepted; with the host, the slow
    // host and the sidecar in, the pending cap and those three; once the
    // pending ones are gone, its own and the host's and the sidecar's.
    match (base, crowded) {
        (Some(base), Some(crowded)) => {
            assert!(during_flood <= base + PENDING + 1, "{during_flood} open in the flood, {base} before");
            assert!(crowded <= base + PENDING + 3, "{crowded} open, {base} before the flood");
            assert_eq!(settled(base + 2), Some(base + 2), "{base} open before the flood");
        }
        _ => eprintln!("skipped the descriptor counts: no /proc/<pid>/fd here"),
    }
}

#[test]
fn host_and_sidecar_connections_have_places_of_their_own() {
    // About 420 descriptors of this test's own, beside the other tests'.
    if !raise_nofile(1024) {
        eprintln!("skipped: the hard limit on open files is below 1024 and cannot be raised");
        return;
    }
    let desk = Desk::new();
    let served = desk.serve();
    let mut host = served.host();
    let bound = bind(&mut host, &desk.root, "s1");
    // A crowd of pending connections takes none of their places.
    let _crowd: Vec<UnixStream> =
        (0..PENDING * 2).map(|_| UnixStream::connect(served.socket()).unwrap()).collect();
    let mut hosts: Vec<Client> = (1..HOSTS).map(|_| served.host()).collect();
    let mut extra = served.client();
    let (reason, message) = extra.refused("host.authenticate", json!({ "control_token": served.token() }));
    assert_eq!(reason, "busy");
    assert!(message.contains("16 host connections are open"), "{message}");
    let mut rest = String::new();
    extra.reader.read_to_string(&mut rest).unwrap();
    assert_eq!(rest, "", "closed after the answer");

    let mut sidecars: Vec<Client> = (0..SIDECARS)
        .map(|_| {
            let mut sidecar = served.client();
            resolve(&mut sidecar, &bound, "a/x.ts");
            sidecar
        })
        .collect();
    let mut extra = served.client();
    let params = json!({ "session_id": "s1", "token": bound["token"], "path": "a/x.ts" });
    let (reason, message) = extra.refused("project.instructions.resolve", params);
    assert_eq!(reason, "busy");
    assert!(message.contains("256 sidecar connections are open"), "{message}");
    // A wrong token proves nothing and takes no place: it is refused as
    // before, on a connection that stays pending.
    let mut stranger = served.client();
    let params = json!({ "session_id": "s1", "token": "0".repeat(64), "path": "a/x.ts" });
    assert_eq!(stranger.refused("project.instructions.resolve", params).0, "invalid-session-token");

    // Every place taken still works; one given back is taken again.
    for client in hosts.iter_mut().chain([&mut host]) {
        client.ok("projects.list", json!({}));
    }
    assert_eq!(resolve(&mut sidecars[SIDECARS - 1], &bound, "b/y.ts")["fallback"], Value::Null);
    drop(hosts.pop());
    drop(sidecars.pop());
    let deadline = Instant::now() + Duration::from_secs(5);
    let again = |method: &str, params: Value| loop {
        let mut client = served.client();
        let answer = client.call(method, params.clone());
        if answer["error"]["data"]["reason"] == "busy" && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
            continue;
        }
        assert!(answer.get("error").is_none(), "{method}: {answer}");
        return client;
    };
    again("host.authenticate", json!({ "control_token": served.token() })).ok("projects.list", json!({}));
    again(
        "project.instructions.resolve",
        json!({ "session_id": "s1", "token": bound["token"], "path": "." }),
    );
}

#[test]
fn a_peer_running_as_another_user_is_refused() {
    if current_uid() != 0 {
        eprintln!("skipped: connecting as another uid needs root");
        return;
    }
    let desk = Desk::new();
    let served = desk.serve();
    let socket = served.socket();
    // Open the way on purpose so that only the uid check stands between.
    std::fs::set_permissions(desk.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(socket.parent().unwrap(), std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o666)).unwrap();
    let script = r#"
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
# The refusal may come (and the server hang up) before the request is sent.
try:
    s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"projects.list"}\n')
except OSError:
    pass
print(s.makefile().readline().strip())
"#;
    let out =
        Command::new("python3").args(["-c", script]).arg(&socket).uid(65534).gid(65534).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["error"]["data"]["reason"], "peer-uid", "{answer}");
    assert!(answer["error"]["message"].as_str().unwrap().contains("65534"));
    // The same request from our own uid is answered.
    assert!(served.client().call("projects.list", json!({}))["error"]["data"]["reason"] == "unauthorized");
}

fn current_uid() -> u32 {
    let out = Command::new("id").arg("-u").output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

#[test]
fn home_above_home_and_profiles_are_never_registered() {
    let desk = Desk::new();
    desk.file("home/.claude/CLAUDE.md", "user rules");
    desk.file("home/.codex/AGENTS.md", "codex user rules");
    desk.file("home/src/tool/AGENTS.md", "a project inside home");
    let served = desk.serve();
    let mut host = served.host();
    let linked_home = desk.dir.path().join("linked-home");
    std::os::unix::fs::symlink(&desk.home, &linked_home).unwrap();
    // The home named through a link is refused before it is looked at.
    let (got, message) = host.refused("projects.register", json!({ "root": linked_home }));
    assert_eq!(got, "root-through-link", "{message}");
    for (root, reason) in [
        (desk.home.clone(), "root-is-home"),
        (PathBuf::from("/"), "root-above-home"),
        (desk.dir.path().to_path_buf(), "root-above-home"),
        (desk.home.join(".claude"), "root-is-profile"),
        (desk.home.join(".codex"), "root-is-profile"),
        (desk.home.join(".pi/agent"), "root-is-profile"),
    ] {
        let (got, message) = host.refused("projects.register", json!({ "root": root }));
        assert_eq!(got, reason, "{}: {message}", root.display());
        assert!(message.contains("never a project"), "{message}");
    }
    assert_eq!(host.ok("projects.list", json!({}))["projects"], json!([]), "nothing was registered");
    // A project nested in the home directory is a project.
    let nested = bind(&mut host, &desk.home.join("src/tool"), "nested");
    assert_eq!(labels(&nested["chain"]), ["~/.pi/agent/AGENTS.md", "AGENTS.md"]);
}

#[test]
fn a_root_swapped_for_a_link_after_binding_does_not_redirect_the_session() {
    let desk = Desk::new();
    desk.file("elsewhere/AGENTS.md", "elsewhere rule");
    desk.file("elsewhere/a/AGENTS.md", "elsewhere a rule");
    let served = desk.serve();
    let mut host = served.host();
    let bound = bind(&mut host, &desk.root, "s1");
    let mut sidecar = served.client();
    assert!(resolve(&mut sidecar, &bound, "a/x.ts")["chain"]["text"].as_str().unwrap().contains("a rule"));
    // The root is renamed and a link to another tree put in its place.
    let moved = desk.dir.path().join("proj-moved");
    std::fs::rename(&desk.root, &moved).unwrap();
    std::os::unix::fs::symlink(desk.dir.path().join("elsewhere"), &desk.root).unwrap();
    for _ in 0..2 {
        host.ok("session.prompt_begin", json!({ "session_id": "s1" }));
        let chain = resolve(&mut sidecar, &bound, "a/x.ts")["chain"].clone();
        let text = chain["text"].as_str().unwrap();
        assert!(text.contains("a rule") && text.contains("root rule"), "{text}");
        assert!(!text.contains("elsewhere"), "the link redirected the session: {text}");
    }
}
