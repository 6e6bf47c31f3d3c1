//! One process of `benches/first_open.py`: a first use of a state
//! directory, as one of the several processes a host starts together at a
//! user's first session (hooks and the MCP server).
//!
//!     first_open STATE_DIR ROLE START_MS
//!
//! Waits until `START_MS` (ms since the Unix epoch) so that every process
//! of a round starts at once, then, by `ROLE`:
//!
//! - `server`: [`Store::open`] (as the MCP server or a command), then the
//!   first questions such a process asks: incidents, the cache, an audit
//!   row, a scope;
//! - `hook`: [`Quick::open`], then [`Store::open_after`] in the hook mode,
//!   then a hook's questions and writes: incidents, the cache, a report, a
//!   session's marks;
//! - `quick`: [`Quick::open`] alone (a hook that opens no database): the
//!   key's copy, the cache's epoch and a session's marks.
//!
//! - `check`: after a round, what the processes left: the key's copy is
//!   the database's key, no incident was recorded, and the no-cache and
//!   no-scopes files are absent (the servers stored both).
//!
//! Prints `ok` and exits 0, or prints `FAIL <step>: <error>` and exits 1.
//! Anything the open warns about (a repair) counts as a failure: a new
//! state directory has nothing to repair.

use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use agentspine_fs::Identity;
use agentspine_store::{AuditEvent, Empty, Mark, OpenMode, Quick, ReportFiles, SessionMarks, Store};

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// A failed step and why.
struct Failure(&'static str, String);

fn step<T, E: std::fmt::Display>(name: &'static str, result: Result<T, E>) -> Result<T, Failure> {
    result.map_err(|e| Failure(name, e.to_string()))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let [_, dir, role, start] = args.as_slice() else {
        eprintln!("usage: first_open STATE_DIR server|hook|quick|check START_MS");
        return ExitCode::from(2);
    };
    let start: u64 = start.parse().unwrap_or(0);
    std::thread::sleep(Duration::from_millis(start.saturating_sub(now_ms())));
    let dir = Path::new(dir);
    let result = match role.as_str() {
        "server" => server(dir),
        "hook" => hook(dir),
        "quick" => quick(dir),
        "check" => check(dir),
        other => Err(Failure("role", format!("unknown role {other:?}"))),
    };
    match result {
        Ok(()) => {
            println!("ok");
            ExitCode::SUCCESS
        }
        Err(Failure(step, error)) => {
            println!("FAIL {step}: {error}");
            ExitCode::FAILURE
        }
    }
}

fn identity(size: u64) -> Identity {
    Identity { dev: 1, ino: u64::from(std::process::id()), size, mtime_ns: 1, ctime_ns: 1 }
}

fn server(dir: &Path) -> Result<(), Failure> {
    let opened = step("open", Store::open(dir))?;
    if !opened.warnings.is_empty() {
        return Err(Failure("open", format!("warned: {:?}", opened.warnings)));
    }
    let store = opened.store;
    step("incidents", store.incidents_unacknowledged())?;
    let root = store.root_digest(Path::new("/first/open"));
    let rel = format!("server-{}.md", std::process::id());
    step("cache_put", store.cache_put(&root, &rel, &identity(5), "00", b"bytes", None))?;
    step("cache_get", store.cache_get(&root, &rel))?;
    step("scope_set", store.scope_set(&root, &["project:first".to_owned()]))?;
    let event = AuditEvent {
        host: "bench".into(),
        event: "first-open".into(),
        phase: "server".into(),
        code: "ok".into(),
        path: None,
        detail: None,
    };
    step("audit_append", store.audit_append(&event))?;
    Ok(())
}

fn hook(dir: &Path) -> Result<(), Failure> {
    let quick = step("quick", Quick::open(dir))?;
    let opened = step("open_after", Store::open_after(&quick, OpenMode::Hook))?;
    if !opened.warnings.is_empty() {
        return Err(Failure("open_after", format!("warned: {:?}", opened.warnings)));
    }
    let store = opened.store;
    if store.had_unacknowledged_incident_at_open() {
        return Err(Failure("open_after", "an incident in a new state directory".to_owned()));
    }
    step("incidents", store.incidents_unacknowledged())?;
    let root = store.root_digest(Path::new("/first/open"));
    step("cache_peek", store.cache_peek(&root, "CLAUDE.md"))?;
    step("continuity", store.continuity_read("claude"))?;
    let state = step("state_dir", quick.dir().try_clone())?;
    step("report", ReportFiles::in_dir(state).put(&root, "claude", "/first/open", "{}"))?;
    marks(&quick, "hook")?;
    store.leave_open_at_exit();
    Ok(())
}

fn quick(dir: &Path) -> Result<(), Failure> {
    let quick = step("quick", Quick::open(dir))?;
    if quick.cache_epoch().is_none() {
        return Err(Failure("cache_epoch", "unreadable".to_owned()));
    }
    marks(&quick, "quick")
}

fn marks(quick: &Quick, role: &str) -> Result<(), Failure> {
    let state = step("state_dir", quick.dir().try_clone())?;
    let marks = SessionMarks::in_dir(state);
    let session = format!("{role}-{}", std::process::id());
    let mark = Mark { source_id: "source", sha256: "00", version: None };
    step("mark", marks.mark_all(&session, &[mark]))?;
    let sent = step("sent", marks.sent(&session))?;
    if sent.len() != 1 {
        return Err(Failure("sent", format!("{} marks read back, not 1", sent.len())));
    }
    Ok(())
}

fn check(dir: &Path) -> Result<(), Failure> {
    let quick = step("quick", Quick::open(dir))?;
    let opened = step("open", Store::open(dir))?;
    if !opened.warnings.is_empty() {
        return Err(Failure("open", format!("warned: {:?}", opened.warnings)));
    }
    let store = opened.store;
    let root = Path::new("/first/open");
    if quick.root_digest(root).as_deref() != Some(store.root_digest(root).as_str()) {
        return Err(Failure("key", "the key's copy is missing or not the database's key".to_owned()));
    }
    if quick.may_have_incident() || !step("incidents", store.incidents())?.is_empty() {
        return Err(Failure("incidents", "an incident in a new state directory".to_owned()));
    }
    for which in [Empty::Cache, Empty::Scopes] {
        if quick.is_empty(which) {
            return Err(Failure("empty", format!("{} is there beside rows", which.file())));
        }
    }
    Ok(())
}
