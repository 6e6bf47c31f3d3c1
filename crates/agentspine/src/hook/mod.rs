//! `agentspine hook claude|codex|gemini|pi`: the hook adapters. The host runs the
//! command with its native payload on stdin; agentspine prints the host's
//! own output JSON with what the host does not load itself (HOSTS.md), or
//! nothing. pi has no command hooks: its extension (`plugins/pi`) carries
//! pi's events to `hook pi` (`hook pi-0.73` inside a pi 0.x) in the same
//! payload shape (the event names below, pi's own tool names and inputs)
//! and reads the same output.
//!
//! Guarantees, whatever happens:
//! - stdout holds one `{"hookSpecificOutput":{"hookEventName",
//!   "additionalContext"}}` line or nothing; never a permission decision
//!   (the line also carries a top-level `systemMessage` for the user, never
//!   the model, while a damaged state database is unacknowledged: see
//!   `notice`);
//! - the exit code is 0 (a hook never blocks its host);
//! - the whole run, stdin and audit row included, ends within 2 s: the
//!   work runs in a child process ([`agentspine_fs::run_detached`]) that
//!   is abandoned, not waited for, so a file system that never answers
//!   cannot hold the host; past [`DEADLINE`] nothing is printed, and the
//!   audit log says so (written later by the child when the store is
//!   locked);
//! - a malformed or oversized payload, an unreadable file or an incomplete
//!   scan is an audit row (event, phase, code, path), never an error the
//!   host sees.
//!
//! ```text
//! echo '{"session_id":"s","cwd":"/repo","hook_event_name":"PreToolUse",
//!        "tool_name":"Edit","tool_input":{"file_path":"/repo/pkg/a.ts"}}' | agentspine hook claude
//! {"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"Contents of /repo/pkg/CLAUDE.md:\n\n…"}}
//! ```

mod chain;
mod context;
mod continuity;
mod events;
mod instructions;
mod memory;
mod notice;
mod payload;
mod targets;

use std::io::Write;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use agentspine_core::Host;
use agentspine_store::AuditEvent;

use crate::state::State;

/// How long one hook's work may take, stdin included; what is not done by
/// then is abandoned.
pub const DEADLINE: Duration = Duration::from_millis(1600);
/// When the work process lets the hook process go, audit row written or
/// not (the row of a late hook is written by then unless the store is
/// locked; then the work process writes it after).
const RELEASE: Duration = Duration::from_millis(1900);
/// The hook process's own bound, from its start to its exit: it stops
/// waiting for the work process then, whatever that process is doing.
const BOUND: Duration = Duration::from_millis(1950);
/// How long a released work process still tries to write a late audit row.
const AUDIT_LATE: Duration = Duration::from_secs(10);

/// Run as a Claude Code or Codex hook: native payload on stdin, the host's
/// output JSON on stdout.
///
/// Adds what the host does not load itself: on SessionStart the memory
/// facts relevant to the session's scope; on UserPromptSubmit the facts the
/// prompt's words make relevant; on PreToolUse for a file tool, the
/// instruction files of the target's directory that the host has not
/// loaded. Each source is sent once per session unless it changes.
/// Always exits 0; prints nothing when there is nothing to add, and never
/// takes longer than two seconds.
///
/// Install it as a command hook for SessionStart, UserPromptSubmit,
/// PreToolUse and SessionEnd (and Codex's PostCompact); for Gemini CLI,
/// SessionStart, BeforeAgent, AfterTool (Gemini adds a hook's context to
/// the tool's result; BeforeTool's is dropped) and SessionEnd:
///
///   agentspine hook claude      # Claude Code (settings.json "hooks")
///   agentspine hook codex       # Codex CLI ($CODEX_HOME/hooks.json)
///   agentspine hook gemini      # Gemini CLI (~/.gemini/settings.json "hooks")
///   agentspine hook pi          # pi 1.x, through its extension (install pi)
///   agentspine hook pi-0.73     # pi 0.x, through the same extension
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Whose payload arrives on stdin: `claude`, `codex`, `gemini` (the
    /// hosts with command hooks), `pi` or `pi-0.73` (its extension); a
    /// host name parsed as everywhere else.
    #[arg(value_parser = adapter, value_name = "HOST")]
    host: HookHost,
}

/// A host name, as every command parses it ([`Host`]), that has a hook
/// adapter.
fn adapter(name: &str) -> Result<HookHost, String> {
    let host: Host = name.parse()?;
    HookHost::try_from(host)
}

impl Args {
    /// The arguments when they are exactly `hook HOST` for a host with an adapter
    /// (what `agentspine install` writes), else `None`.
    pub fn from_installed_form(mut args: impl Iterator<Item = std::ffi::OsString>) -> Option<Args> {
        if args.next()? != "hook" {
            return None;
        }
        let host = adapter(args.next()?.to_str()?).ok()?;
        args.next().is_none().then_some(Args { host })
    }
}

/// The hosts with a hook adapter: a subset of [`Host`], kept as its own
/// enum so that a new adapter fails to compile until every per-host arm of
/// the hook is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookHost {
    /// Claude Code.
    Claude,
    /// Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// pi 1.x, through the extension in `plugins/pi`.
    Pi,
    /// pi 0.73, through the same extension (its loading rules differ).
    Pi073,
}

impl TryFrom<Host> for HookHost {
    type Error = String;

    fn try_from(host: Host) -> Result<HookHost, String> {
        match host {
            Host::Claude => Ok(HookHost::Claude),
            Host::Codex => Ok(HookHost::Codex),
            Host::Gemini => Ok(HookHost::Gemini),
            Host::Pi => Ok(HookHost::Pi),
            Host::Pi073 => Ok(HookHost::Pi073),
            other => Err(format!(
                "{other} has no command hooks: a desktop app loads agentspine through `agentspine serve`, any other \
                 client through `agentspine mcp`; hooks exist for claude, codex, gemini and pi (through its extension)"
            )),
        }
    }
}

impl HookHost {
    pub(crate) fn host(self) -> Host {
        match self {
            HookHost::Claude => Host::Claude,
            HookHost::Codex => Host::Codex,
            HookHost::Gemini => Host::Gemini,
            HookHost::Pi => Host::Pi,
            HookHost::Pi073 => Host::Pi073,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Option<HookHost> {
        Args::from_installed_form(args.iter().map(std::ffi::OsString::from)).map(|a| a.host)
    }

    #[test]
    fn only_the_installed_form_skips_the_parser() {
        assert_eq!(parse(&["hook", "claude"]), Some(HookHost::Claude));
        assert_eq!(parse(&["hook", "codex"]), Some(HookHost::Codex));
        assert_eq!(parse(&["hook", "gemini"]), Some(HookHost::Gemini));
        assert_eq!(parse(&["hook", "pi"]), Some(HookHost::Pi));
        assert_eq!(parse(&["hook", "pi-0.73"]), Some(HookHost::Pi073));
        for other in [
            &["hook"][..],
            &["hook", "desktop"],
            &["hook", "Claude"],
            &["hook", "claude", "--help"],
            &["hook", "--help"],
            &["resolve", "claude"],
            &[],
        ] {
            assert_eq!(parse(other), None, "{other:?}");
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let host = args.host;
    agentspine_fs::share_one_heap();
    // The work runs in a child process that this one can leave behind: a
    // thread stuck in a hung file system keeps its process from exiting,
    // even after SIGKILL (agentspine_fs::run_detached), and the host waits
    // for this process.
    match agentspine_fs::run_detached(Some(started + BOUND), agentspine_fs::Output::Collect, move || {
        work(host, started);
        0
    }) {
        Ok(detached) => {
            // Past the bound, only whole lines: the child may have been cut
            // in the middle of one (it never is before it releases us).
            let out = match detached.code {
                Some(_) => &detached.stdout[..],
                None => {
                    let whole = detached.stdout.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                    &detached.stdout[..whole]
                }
            };
            let mut stdout = std::io::stdout().lock();
            if let Err(e) = stdout.write_all(out).and_then(|()| stdout.flush()) {
                tracing::warn!("hook: stdout: {e}");
            }
        }
        Err(e) => {
            tracing::warn!("hook: {e}; running in this process");
            work(host, started);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The hook's work: the event on a worker thread, abandoned at
/// [`DEADLINE`]; then, if it was late, the audit row, written before
/// [`RELEASE`] if the store lets it, else after the parent has gone.
fn work(host: HookHost, started: Instant) {
    let deadline = started + DEADLINE;
    let shared = Arc::new(Shared::default());
    let worker = Arc::clone(&shared);
    let tid = Arc::new(std::sync::atomic::AtomicI32::new(0));
    let seen = Arc::clone(&tid);
    let outcome = agentspine_fs::run_with_deadline(deadline, move || {
        seen.store(agentspine_fs::thread_id(), std::sync::atomic::Ordering::Relaxed);
        events::handle(host, deadline, &worker)
    });
    let Err(abandoned) = outcome else { return };
    // The file the worker waits on, when the kernel says (nothing is
    // recorded on the way: this costs only the run that is late).
    let tid = tid.load(std::sync::atomic::Ordering::Relaxed);
    let stuck = (tid != 0 && abandoned == agentspine_fs::Abandoned::Deadline)
        .then(|| agentspine_fs::blocked_on(agentspine_fs::Sleeper::Thread(tid)))
        .flatten();
    let printed = shared.close();
    let progress = shared.progress.lock().unwrap_or_else(PoisonError::into_inner).clone();
    tracing::warn!("hook: {abandoned} (phase {})", progress.phase);
    let code = match abandoned {
        agentspine_fs::Abandoned::Deadline => "deadline",
        agentspine_fs::Abandoned::Panicked => "internal-error",
        agentspine_fs::Abandoned::Saturated => "saturated",
    };
    let event = AuditEvent {
        host: host.host().as_str().to_owned(),
        event: progress.event.unwrap_or_else(|| "unknown".to_owned()),
        // Context already printed: only the session record was late.
        phase: if printed { "session-state".to_owned() } else { progress.phase.to_owned() },
        code: code.to_owned(),
        path: stuck.map(|p| p.display().to_string()),
        detail: Some(abandoned.to_string()),
    };
    // The store may be locked or stuck too: the parent is let go at
    // RELEASE whatever happens, and this process stays to finish the row.
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new().name("agentspine-audit".into()).spawn(move || {
        State::open().audit(event);
        let _ = tx.send(());
    });
    if spawned.is_err() {
        return;
    }
    if rx.recv_timeout((started + RELEASE).saturating_duration_since(Instant::now())).is_err() {
        agentspine_fs::release(0);
        let _ = rx.recv_timeout(AUDIT_LATE);
    }
}

/// What the worker and the main thread share: whether output may still be
/// printed, and how far the worker got (for the audit row at the deadline).
#[derive(Debug, Default)]
struct Shared {
    gate: Mutex<Gate>,
    progress: Mutex<Progress>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Gate {
    /// Nothing printed yet; the worker may print.
    #[default]
    Open,
    /// The worker printed its output.
    Printed,
    /// The deadline passed first: nothing may be printed any more.
    Closed,
}

#[derive(Debug, Clone)]
struct Progress {
    event: Option<String>,
    phase: &'static str,
}

impl Default for Progress {
    fn default() -> Self {
        Progress { event: None, phase: "payload" }
    }
}

impl Shared {
    /// Prints `line` unless the deadline closed the gate; whether it did.
    /// The gate is held while printing, so the main thread never returns
    /// halfway through a line.
    fn print(&self, line: &str) -> bool {
        let mut gate = self.gate.lock().unwrap_or_else(PoisonError::into_inner);
        if *gate != Gate::Open {
            return false;
        }
        let mut out = std::io::stdout().lock();
        let written = out.write_all(line.as_bytes()).and_then(|()| out.flush());
        *gate = Gate::Printed;
        if let Err(e) = written {
            tracing::warn!("hook: stdout: {e}");
            return false;
        }
        true
    }

    /// Closes the gate; whether the output had already been printed.
    fn close(&self) -> bool {
        let mut gate = self.gate.lock().unwrap_or_else(PoisonError::into_inner);
        let printed = *gate == Gate::Printed;
        *gate = Gate::Closed;
        printed
    }

    /// Whether the deadline has not closed the gate yet.
    fn is_open(&self) -> bool {
        *self.gate.lock().unwrap_or_else(PoisonError::into_inner) != Gate::Closed
    }

    fn set_event(&self, event: &str) {
        self.progress.lock().unwrap_or_else(PoisonError::into_inner).event = Some(event.to_owned());
    }

    fn set_phase(&self, phase: &'static str) {
        self.progress.lock().unwrap_or_else(PoisonError::into_inner).phase = phase;
    }
}
