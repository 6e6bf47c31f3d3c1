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
//!   work runs on the one thread of a child process
//!   ([`agentspine_fs::fork_worker`]) that is abandoned, not waited for,
//!   so a file system that never answers cannot hold the host; this
//!   process keeps the deadline: at [`DEADLINE`] it closes the output gate
//!   (in memory the two share), so nothing is printed after it, and the
//!   audit log says so (the row written by a second child, which stays to
//!   finish it when the store is locked);
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

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use agentspine_core::Host;
use agentspine_store::AuditEvent;

use crate::state::State;

/// How long one hook's work may take, stdin included; what is not done by
/// then is abandoned.
pub const DEADLINE: Duration = Duration::from_millis(1600);
/// How long a late hook waits for its audit row to be written (the row of
/// a late hook is written by then unless the store is locked; then the
/// process writing it stays to finish it after the hook has exited).
const RELEASE: Duration = Duration::from_millis(1900);
/// The hook process's own bound, from its start to its exit: it stops
/// waiting for the work process then, whatever that process is doing.
const BOUND: Duration = Duration::from_millis(1950);

/// Run as a Claude Code, Codex, Gemini CLI or pi hook: native payload on
/// stdin, the host's output JSON on stdout.
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
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/hooks.md
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// Whose payload arrives on stdin: `claude`, `codex`, `gemini` (the
    /// hosts with command hooks), `pi` or `pi-0.73` (its extension); a
    /// host name parsed as everywhere else.
    #[arg(value_parser = adapter, value_name = "HOST")]
    host: Host,
}

/// A host name, as every command parses it ([`Host`]), whose profile has
/// hooks.
fn adapter(name: &str) -> Result<Host, String> {
    let host: Host = name.parse()?;
    if host.profile().hooks.is_some() {
        return Ok(host);
    }
    let with: Vec<&str> = agentspine_core::hosts::Profile::with_hooks().map(|p| p.host.as_str()).collect();
    Err(format!(
        "{host} has no command hooks: a desktop app loads agentspine through `agentspine serve`, any other \
         client through `agentspine mcp`; hooks exist for {}",
        with.join(", ")
    ))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Option<Host> {
        Args::from_installed_form(args.iter().map(std::ffi::OsString::from)).map(|a| a.host)
    }

    #[test]
    fn only_the_installed_form_skips_the_parser() {
        let with_hooks: Vec<Host> = agentspine_core::hosts::Profile::with_hooks().map(|p| p.host).collect();
        assert_eq!(
            with_hooks.iter().map(|h| h.as_str()).collect::<Vec<_>>(),
            ["codex", "claude", "gemini", "pi", "pi-0.73", "opencode", "kimi", "copilot"]
        );
        for host in with_hooks {
            assert_eq!(parse(&["hook", host.as_str()]), Some(host));
        }
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
    let shared = Shared::new();
    // The work runs in a child process that this one can leave behind: a
    // thread stuck in a hung file system keeps its process from exiting,
    // even after SIGKILL (agentspine_fs::fork_worker), and the host waits
    // for this process. The child runs it on its one thread; this process
    // keeps the deadline (the gate and the progress are in memory the two
    // share). Without the shared page there is no fork: a child's gate
    // would be its own copy, and a late child could print (and mark as
    // sent) what this process no longer passes on.
    let forked = shared.across_fork.then(|| {
        agentspine_fs::fork_worker(|| {
            in_child(host, started, &shared);
            0
        })
    });
    let mut child = match forked {
        Some(Ok(child)) => child,
        not_forked => {
            if let Some(Err(e)) = not_forked {
                tracing::warn!("hook: {e}; running in this process");
            }
            in_process(host, started, &shared);
            return Ok(ExitCode::SUCCESS);
        }
    };
    let printed = match child.wait(started + DEADLINE) {
        agentspine_fs::Waited::Released(_) => {
            print(child.stdout());
            return Ok(ExitCode::SUCCESS);
        }
        // Died without a word (killed): what it printed, whole lines only.
        agentspine_fs::Waited::Died => {
            print(whole_lines(child.stdout()));
            return Ok(ExitCode::SUCCESS);
        }
        agentspine_fs::Waited::Late => shared.close(),
    };
    // Late. The file the child waits on, when the kernel says (nothing is
    // recorded on the way: this costs only the run that is late); then the
    // audit row, written by a second child so that a locked or stuck store
    // cannot hold this process past its bound.
    let stuck =
        (!printed).then(|| agentspine_fs::blocked_on(agentspine_fs::Sleeper::Process(child.pid()))).flatten();
    let event = shared.late_row(host, printed, agentspine_fs::Abandoned::Deadline, stuck);
    tracing::warn!("hook: {} (phase {})", agentspine_fs::Abandoned::Deadline, event.phase);
    if let Ok(mut writer) = agentspine_fs::fork_worker(move || {
        write_row(event);
        0
    }) {
        writer.wait(started + RELEASE);
    }
    if printed {
        // The child printed before the deadline and is late only with the
        // session's record: its line, whole.
        child.wait(started + BOUND);
        print(whole_lines(child.stdout()));
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes the audit row of a late or panicked run, through a hook's open of
/// the store (`OpenMode::Hook`), never the default one: the default open
/// also prunes old session files, and a lookup in `sessions/` waits for as
/// long as a stuck creation there holds the directory (the very hang that
/// can make a run late, after its output was printed).
fn write_row(event: AuditEvent) {
    State::open_with(agentspine_store::OpenMode::Hook).audit(event);
}

/// Writes the child's output to this process's standard output.
fn print(out: &[u8]) {
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = stdout.write_all(out).and_then(|()| stdout.flush()) {
        tracing::warn!("hook: stdout: {e}");
    }
}

/// `out` up to its last newline: a child cut off may have been in the
/// middle of a line (it never is before it released its parent).
fn whole_lines(out: &[u8]) -> &[u8] {
    let whole = out.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    &out[..whole]
}

/// The hook's work in the child: the event on its one thread; a panic is
/// an audit row (the parent keeps the deadline).
fn in_child(host: Host, started: Instant, shared: &Shared) {
    let deadline = started + DEADLINE;
    let ran =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| events::handle(host, deadline, shared)));
    if ran.is_err() && shared.is_open() {
        let event = shared.late_row(host, false, agentspine_fs::Abandoned::Panicked, None);
        write_row(event);
    }
}

/// The hook's work when no child can be forked: the event on a worker
/// thread, abandoned at [`DEADLINE`]; then, if it was late, the audit row,
/// written before [`RELEASE`] if the store lets it, else given up.
fn in_process(host: Host, started: Instant, shared: &Shared) {
    let deadline = started + DEADLINE;
    let worker = *shared;
    let tid = Arc::new(std::sync::atomic::AtomicI32::new(0));
    let seen = Arc::clone(&tid);
    let outcome = agentspine_fs::run_with_deadline(deadline, move || {
        seen.store(agentspine_fs::thread_id(), std::sync::atomic::Ordering::Relaxed);
        events::handle(host, deadline, &worker)
    });
    let Err(abandoned) = outcome else { return };
    let tid = tid.load(std::sync::atomic::Ordering::Relaxed);
    let stuck = (tid != 0 && abandoned == agentspine_fs::Abandoned::Deadline)
        .then(|| agentspine_fs::blocked_on(agentspine_fs::Sleeper::Thread(tid)))
        .flatten();
    let printed = shared.close();
    let event = shared.late_row(host, printed, abandoned, stuck);
    tracing::warn!("hook: {abandoned} (phase {})", event.phase);
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new().name("agentspine-audit".into()).spawn(move || {
        write_row(event);
        let _ = tx.send(());
    });
    if spawned.is_ok() {
        let _ = rx.recv_timeout((started + RELEASE).saturating_duration_since(Instant::now()));
    }
}

/// What the work and the deadline's keeper share, in a page mapped before
/// the fork (so the child and this process see the same words): whether
/// output may still be printed, and how far the work got (for the audit
/// row at the deadline). Without such a page (the mapping failed), in this
/// process's memory alone, and then the work is not forked.
#[derive(Debug, Clone, Copy)]
struct Shared {
    words: &'static [AtomicU64; agentspine_fs::SHARED_WORDS],
    /// Whether the words are in the shared page (a child forked now sees
    /// them); else they are this process's alone.
    across_fork: bool,
}

/// The gate's states (word [`GATE`]).
const OPEN: u64 = 0;
/// The work printed its output.
const PRINTED: u64 = 1;
/// The deadline passed first: nothing may be printed any more.
const CLOSED: u64 = 2;
/// Where each thing lives in the page.
const GATE: usize = 0;
const PHASE: usize = 1;
const EVENT_LEN: usize = 2;
const EVENT: usize = 3;
/// The longest event name kept (longer ones are cut).
const EVENT_MAX: usize = 64;
/// The phases a run goes through, by their index in the page.
const PHASES: [&str; 6] = ["payload", "state", "memory", "chain", "output", "session-state"];

impl Shared {
    fn new() -> Shared {
        match agentspine_fs::SharedPage::new() {
            Ok(page) => Shared { words: page.words(), across_fork: true },
            Err(e) => {
                tracing::warn!("hook: no shared page ({e}); the work runs in this process");
                Shared {
                    words: Box::leak(Box::new(std::array::from_fn(|_| AtomicU64::new(0)))),
                    across_fork: false,
                }
            }
        }
    }

    /// Prints `line` unless the deadline closed the gate; whether it did.
    /// Once this run has the gate, the deadline's keeper waits for the
    /// whole line.
    fn print(&self, line: &str) -> bool {
        if self.words[GATE].compare_exchange(OPEN, PRINTED, Ordering::AcqRel, Ordering::Acquire).is_err() {
            return false;
        }
        let mut out = std::io::stdout().lock();
        if let Err(e) = out.write_all(line.as_bytes()).and_then(|()| out.flush()) {
            tracing::warn!("hook: stdout: {e}");
            return false;
        }
        true
    }

    /// Closes the gate; whether the output had already been printed.
    fn close(&self) -> bool {
        match self.words[GATE].compare_exchange(OPEN, CLOSED, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => false,
            Err(now) => now == PRINTED,
        }
    }

    /// Whether the deadline has not closed the gate yet.
    fn is_open(&self) -> bool {
        self.words[GATE].load(Ordering::Acquire) != CLOSED
    }

    fn set_event(&self, event: &str) {
        let bytes = &event.as_bytes()[..event.len().min(EVENT_MAX)];
        for (i, chunk) in bytes.chunks(8).enumerate() {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.words[EVENT + i].store(u64::from_le_bytes(word), Ordering::Relaxed);
        }
        self.words[EVENT_LEN].store(bytes.len() as u64, Ordering::Release);
    }

    fn set_phase(&self, phase: &'static str) {
        let index = PHASES.iter().position(|&p| p == phase).unwrap_or(0);
        self.words[PHASE].store(index as u64, Ordering::Release);
    }

    /// The event name set so far (`None` before the payload named one).
    fn event(&self) -> Option<String> {
        let len = usize::try_from(self.words[EVENT_LEN].load(Ordering::Acquire)).unwrap_or(0).min(EVENT_MAX);
        if len == 0 {
            return None;
        }
        let bytes: Vec<u8> = (0..len.div_ceil(8))
            .flat_map(|i| self.words[EVENT + i].load(Ordering::Relaxed).to_le_bytes())
            .take(len)
            .collect();
        Some(String::from_utf8_lossy(&bytes).into_owned())
    }

    fn phase(&self) -> &'static str {
        let index = usize::try_from(self.words[PHASE].load(Ordering::Acquire)).unwrap_or(0);
        PHASES.get(index).copied().unwrap_or(PHASES[0])
    }

    /// The audit row of a run that was abandoned (late or panicked).
    fn late_row(
        &self,
        host: Host,
        printed: bool,
        abandoned: agentspine_fs::Abandoned,
        stuck: Option<std::path::PathBuf>,
    ) -> AuditEvent {
        let code = match abandoned {
            agentspine_fs::Abandoned::Deadline => "deadline",
            agentspine_fs::Abandoned::Panicked => "internal-error",
            agentspine_fs::Abandoned::Saturated => "saturated",
        };
        AuditEvent {
            host: host.as_str().to_owned(),
            event: self.event().unwrap_or_else(|| "unknown".to_owned()),
            // Context already printed: only the session record was late.
            phase: if printed { "session-state".to_owned() } else { self.phase().to_owned() },
            code: code.to_owned(),
            path: stuck.map(|p| p.display().to_string()),
            detail: Some(abandoned.to_string()),
        }
    }
}
