//! One hook run: the payload, then what its event adds (the complement of
//! what the host loads natively), then the output, then the session record.
//!
//! | event | adds |
//! |---|---|
//! | `SessionStart` | the instruction files the host never reads, when configured ([`crate::config`]); Claude: memory facts relevant to the session's scope (`startup` and `compact` first forget what the session was sent and drop the memory directory's cached snapshots); both hosts: continuity records read through the user's bindings, then the compact `sourceResolution` report (core's [`agentspine_core::report`]), once per session |
//! | `UserPromptSubmit` | the instruction files of the paths the prompt names that the host has not loaded and will not load itself; Claude: memory facts relevant to the prompt not yet sent; both hosts: continuity records not yet sent |
//! | `PreToolUse`, Gemini's `AfterTool` | the target directory's instruction files the host has not loaded (and does not load for this tool) |
//! | Gemini's `BeforeAgent` | as `UserPromptSubmit` |
//! | `SessionEnd`, Codex's `PostCompact` | nothing; forgets what the session was sent |
//! | anything else | nothing |
//!
//! After its own blocks, `SessionStart`, a prompt and a tool call add what
//! earlier events of the session deferred for lack of room (core's
//! [`agentspine_core::context`] fits them closest first; what it cuts or
//! leaves out is recorded as deferred, and a cut file goes on from its cut).

use std::path::PathBuf;
use std::time::Instant;

use agentspine_fs::{Budget, Reader};
use agentspine_store::{AuditEvent, Deferral};
use sha2::Digest;

use super::context::Output;
use super::payload::{self, Payload};
use agentspine_core::Host;
use agentspine_core::context::{self, Block};
use agentspine_core::hosts::{HookEvent, Hooks};

use super::Shared;
use crate::state::State;

/// Everything one run needs; built once the payload is known good.
pub(super) struct Hook<'a> {
    pub host: Host,
    /// What the host's hooks carry (its profile's).
    pub hooks: &'static Hooks,
    pub payload: &'a Payload,
    pub state: &'a State,
    /// The one resolver of this run (its reader remembers the roots it
    /// opened: one run resolves several chains over the same directories).
    pub resolver: agentspine_core::Resolver<'a>,
    /// The directory whose chain the host loaded at start: Claude Code's
    /// `$CLAUDE_PROJECT_DIR` (where it was started) when the payload's cwd
    /// lies in it, else the payload's cwd.
    pub session_dir: PathBuf,
    /// What this session was sent, read from the store at the first
    /// question (see [`Hook::was_sent`]).
    pub sent: std::cell::OnceCell<agentspine_store::SessionRecord>,
    /// agentspine's configuration, read when first needed (once a run).
    pub config: std::cell::OnceCell<crate::config::Config>,
    /// The versions of the files read for this run's blocks, by source
    /// id, recorded with them (memory facts: see
    /// `agentspine_core::memory::session`).
    pub versions: std::cell::RefCell<std::collections::HashMap<String, agentspine_fs::Identity>>,
    /// Recorded with what is sent, though not sent: the memory index's
    /// version, and facts the session has whose version changed while
    /// their bytes did not.
    pub also_mark: std::cell::RefCell<Vec<(String, String, agentspine_fs::Identity)>>,
    /// The gate to the output; once the deadline closed it, this run is
    /// abandoned and writes no more audit rows (the late row is the main
    /// thread's).
    pub shared: &'a Shared,
}

/// Runs one hook; prints through `shared` (never after the deadline).
pub(super) fn handle(host: Host, deadline: Instant, shared: &Shared) {
    let read = payload::read(std::io::stdin().lock(), host);
    shared.set_phase("state");
    let state = State::open_for_hook();
    for warning in &state.warnings {
        tracing::warn!("{warning}");
    }
    event(host, deadline, shared, read, &state);
    // The process ends right after: the kernel closes the database. What a
    // hook's close does first (a checkpoint of a long WAL) comes before the
    // host is released: a hook that was not late has finished with the
    // state directory when it exits.
    state.leave_open_at_exit();
}

/// [`handle`] once the state is open.
fn event(
    host: Host,
    deadline: Instant,
    shared: &Shared,
    read: Result<Payload, payload::PayloadError>,
    state: &State,
) {
    let payload = match read {
        Ok(payload) => payload,
        Err(e) => {
            if let Some(event) = e.event() {
                shared.set_event(event);
            }
            if !shared.is_open() {
                return;
            }
            state.audit(AuditEvent {
                host: host.as_str().to_owned(),
                event: e.event().unwrap_or("unknown").to_owned(),
                phase: "payload".to_owned(),
                code: e.code().to_owned(),
                path: None,
                detail: Some(e.to_string()),
            });
            return;
        }
    };
    shared.set_event(&payload.hook_event_name);
    let resolver = state.resolver(
        Reader::new(Budget { deadline: Some(deadline), max_bytes: None })
            .remembering_roots()
            .remembering_reads(),
    );
    // The home directory and profiles through the run's own remembering
    // reader, when first needed: the profile a host's rules read next is
    // then opened once.
    // The host names the cwd: taken as given, never through a link.
    // One event asks some chains twice (a session start's added files,
    // then its report): resolved once.
    let resolver = resolver
        .policy_through_reader()
        .with_named_roots(agentspine_core::NamedRoots::TakenAsGiven)
        .remembering_chains();
    let Some(hooks) = host.profile().hooks.as_ref() else { return };
    let hook = Hook {
        host,
        hooks,
        session_dir: agentspine_core::delta::session_dir(host, resolver.env(), &payload.cwd),
        payload: &payload,
        resolver,
        state,
        sent: std::cell::OnceCell::new(),
        config: std::cell::OnceCell::new(),
        versions: std::cell::RefCell::default(),
        also_mark: std::cell::RefCell::default(),
        shared,
    };
    let mut tail = None;
    let event = hook.hooks.event(&payload.hook_event_name);
    let mut blocks = match event {
        Some(HookEvent::SessionStart) => {
            shared.set_phase("memory");
            let (blocks, report) = hook.session_start();
            tail = report;
            blocks
        }
        Some(HookEvent::Prompt) => {
            shared.set_phase("memory");
            hook.user_prompt()
        }
        Some(HookEvent::Tool) => {
            shared.set_phase("chain");
            hook.pre_tool_use()
        }
        Some(HookEvent::Forget) => {
            shared.set_phase("session-state");
            hook.forget_session();
            Vec::new()
        }
        None => Vec::new(),
    };
    if matches!(event, Some(HookEvent::SessionStart | HookEvent::Prompt | HookEvent::Tool)) {
        // What earlier events had no room for, after this event's own.
        shared.set_phase("chain");
        let deferred = hook.deferred_files(&blocks);
        blocks.extend(deferred);
        blocks = blocks.into_iter().map(|block| hook.resumed(block)).collect();
        context::resumed_last(&mut blocks);
    }
    shared.set_phase("output");
    // For the user, not the model: a damaged state database (see `notice`).
    let notices = hook.state_notices();
    // And, at a session's start, installed entries that name a missing or
    // another agentspine (install::startup decides; a few system calls).
    let message = message(&notices, hook.install_notice());
    let fitted = context::fit_with_tail(&blocks, tail.as_ref(), hook.hooks.context_cap);
    let line = match (&fitted, &message) {
        (Some(fitted), message) => Output::shaped(hook.hooks.output, &payload.hook_event_name, &fitted.text)
            .with_system_message(message.as_deref()),
        (None, Some(message)) => Output::message_only(message),
        (None, None) => {
            // Nothing to send; what this run learnt of versions the session
            // already has (the memory index's, a fact read again after a
            // purge or a touch) is still recorded: it claims nothing new.
            if shared.is_open() {
                shared.set_phase("session-state");
                hook.mark_sent(std::iter::empty(), &[]);
            }
            return;
        }
    }
    .to_line();
    if !shared.print(&line) {
        return;
    }
    // Recorded only once printed: a source is never marked sent that the
    // host did not get.
    shared.set_phase("session-state");
    // The tail (the sourceResolution line) is in every fitted text. What
    // the cap kept out is deferred: a later event offers it again.
    let (whole, deferrals) = match &fitted {
        Some(fitted) => {
            let whole: Vec<&Block> = fitted.whole.iter().map(|&i| &blocks[i]).chain(tail.as_ref()).collect();
            let deferrals: Vec<Deferral<'_>> = fitted
                .deferred(&blocks)
                .into_iter()
                .map(|(block, from)| Deferral {
                    source_id: &block.source_id,
                    sha256: &block.sha256,
                    from,
                    path: block.path.as_deref(),
                })
                .collect();
            (whole, deferrals)
        }
        None => (Vec::new(), Vec::new()),
    };
    hook.mark_sent(whole.into_iter().chain(&notices), &deferrals);
}

impl Hook<'_> {
    /// `SessionStart`: a fresh start or a compaction forgets what the
    /// session was sent (the model no longer has it); then, for Claude,
    /// the memory facts relevant to the session's scope.
    fn session_start(&self) -> (Vec<Block>, Option<Block>) {
        let fresh = matches!(self.payload.source.as_deref(), Some("startup" | "compact"));
        if fresh
            && let Some(marks) = self.marks()
            && let Err(e) = marks.forget(&self.payload.session_id)
        {
            tracing::warn!("{e}");
        }
        // The instruction files the user asked for that the host never
        // reads (agentspine's configuration; off by default).
        let mut blocks = self.session_instructions();
        let memory = if self.host.profile().memory_facts {
            let (facts, report) = self.memory_facts_with_report(None, fresh);
            blocks.extend(facts);
            report
        } else {
            None
        };
        // Both hosts: what the user's bindings carry (context only).
        blocks.extend(self.continuity());
        (blocks, self.session_report(memory.as_ref()))
    }

    /// `UserPromptSubmit`: the instruction files of the paths the prompt
    /// names, then the facts relevant to this prompt (and to the scope),
    /// that this session has not been sent.
    fn user_prompt(&self) -> Vec<Block> {
        let mut blocks = match self.payload.prompt.as_deref() {
            Some(prompt) => self.prompt_files(prompt),
            None => Vec::new(),
        };
        if let Some(prompt) = self.payload.prompt.as_deref()
            && self.host.profile().memory_facts
        {
            blocks.extend(self.memory_facts(Some(prompt), false));
        }
        // Continuity not yet sent (bound since the session started).
        blocks.extend(self.continuity());
        blocks
    }

    /// `PreToolUse`: the instruction files of the tool's targets that the
    /// host has not loaded.
    fn pre_tool_use(&self) -> Vec<Block> {
        let Some(tool) = self.payload.tool_name.as_deref() else { return Vec::new() };
        let targets = agentspine_core::hosts::tools::targets(
            self.host.profile(),
            tool,
            self.payload.tool_input.as_ref(),
            &self.payload.cwd,
        );
        if targets.is_empty() {
            return Vec::new();
        }
        let chained = self.chain_files(&targets, self.host.profile().loads_nested(tool));
        // The host has these (or is about to load them): recorded so that
        // no later tool call repeats them.
        self.mark_sent(&chained.host_loaded, &[]);
        chained.send
    }

    /// The compact `sourceResolution` report, last, once per session (a
    /// resume with the same report sends nothing again).
    fn session_report(&self, memory: Option<&agentspine_core::memory::MemoryReport>) -> Option<Block> {
        let report = match self.resolver.compact_report(&self.session_request(), memory) {
            Ok(report) => report,
            Err(e) => {
                self.audit(
                    "report",
                    e.code(),
                    Some(self.session_dir.display().to_string()),
                    Some(e.to_string()),
                );
                return None;
            }
        };
        let text = report.line();
        // Kept as the root's latest report, for `agentspine audit`.
        if let (Some(files), Some(digest)) =
            (self.state.report_files(), self.state.root_digest(&report.project_root))
        {
            let root = report.project_root.display().to_string();
            if let Err(e) = files.put(&digest, self.host.as_str(), &root, &text) {
                tracing::warn!("{e}");
            }
        }
        let sha256 = hex::encode(sha2::Sha256::digest(text.as_bytes()));
        let source_id = "agentspine:source-resolution".to_owned();
        if self.was_sent(&source_id, &sha256) {
            return None;
        }
        Some(Block::new(
            source_id,
            sha256,
            "[agentspine sourceResolution]".to_owned(),
            text,
            "sourceResolution".to_owned(),
        ))
    }

    /// Forgets what this session was sent.
    fn forget_session(&self) {
        if let Some(marks) = self.marks()
            && let Err(e) = marks.forget(&self.payload.session_id)
        {
            tracing::warn!("{e}");
        }
    }

    /// Whether this session already has exactly this version of a source.
    /// Without a store nothing is remembered, so everything is sent. The
    /// session's record is read once per run: nothing this run marks is
    /// asked about afterwards (marks come last, once printed).
    pub(super) fn was_sent(&self, source_id: &str, sha256: &str) -> bool {
        self.record().is_some_and(|record| record.sent.contains(&(source_id.to_owned(), sha256.to_owned())))
    }

    /// The session's record, read once per run; `None` without a store.
    pub(super) fn record(&self) -> Option<&agentspine_store::SessionRecord> {
        let marks = self.marks()?;
        Some(self.sent.get_or_init(|| {
            marks.record(&self.payload.session_id).unwrap_or_else(|e| {
                tracing::warn!("{e}");
                agentspine_store::SessionRecord::default()
            })
        }))
    }

    /// `block` shown from where an earlier cut of the same bytes stopped,
    /// when this session has one.
    fn resumed(&self, block: Block) -> Block {
        match self.record().and_then(|r| r.deferral(&block.source_id, &block.sha256)) {
            Some(deferred) if deferred.from > 0 => {
                let from = deferred.from;
                block.resume(from)
            }
            _ => block,
        }
    }

    /// Records `blocks` as sent to this session (with the versions read
    /// for them, and what `also_mark` holds), then `deferrals`, in one
    /// append; what the session's record already holds is not written
    /// again.
    fn mark_sent<'b>(&self, blocks: impl IntoIterator<Item = &'b Block>, deferrals: &[Deferral<'_>]) {
        let known = self.sent.get();
        let versions = self.versions.borrow();
        let also = self.also_mark.borrow();
        // Versions are recorded under the cache's epoch; without one (it
        // could not be read) only what was sent is.
        let epoch = self.state.cache_epoch();
        let is_known = |id: &str, sha: &str, version: Option<&(agentspine_fs::Identity, &str)>| {
            known.is_some_and(|k| {
                k.sent.contains(&(id.to_owned(), sha.to_owned()))
                    && version.is_none_or(|(v, epoch)| {
                        k.versions
                            .get(id)
                            .is_some_and(|r| r.sha256 == sha && r.identity == *v && r.epoch == *epoch)
                    })
            })
        };
        let with_epoch = |v: Option<agentspine_fs::Identity>| v.zip(epoch.as_deref());
        let marks: Vec<agentspine_store::Mark<'_>> = blocks
            .into_iter()
            .map(|b| {
                (b.source_id.as_str(), b.sha256.as_str(), with_epoch(versions.get(&b.source_id).copied()))
            })
            .chain(also.iter().map(|(id, sha, v)| (id.as_str(), sha.as_str(), with_epoch(Some(*v)))))
            .filter(|(id, sha, version)| !is_known(id, sha, version.as_ref()))
            .map(|(source_id, sha256, version)| agentspine_store::Mark { source_id, sha256, version })
            .collect();
        if marks.is_empty() && deferrals.is_empty() {
            return;
        }
        if let Some(marks_dir) = self.marks()
            && let Err(e) = marks_dir.record_run(&self.payload.session_id, &marks, deferrals)
        {
            tracing::warn!("{e}");
        }
    }

    /// The state directory's session files; none without a store.
    fn marks(&self) -> Option<&agentspine_store::SessionMarks> {
        self.state.session_marks()
    }

    /// Appends an audit row for this event.
    pub(super) fn audit(&self, phase: &str, code: &str, path: Option<String>, detail: Option<String>) {
        if !self.shared.is_open() {
            return;
        }
        self.state.audit(AuditEvent {
            host: self.host.as_str().to_owned(),
            event: self.payload.hook_event_name.clone(),
            phase: phase.to_owned(),
            code: code.to_owned(),
            path,
            detail,
        });
    }
}

/// The `systemMessage` for `notices` and the install notice, if any.
fn message(notices: &[Block], install: Option<String>) -> Option<String> {
    let lines: Vec<&str> = notices.iter().map(|b| b.text.as_str()).chain(install.as_deref()).collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}
