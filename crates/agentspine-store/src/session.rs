//! What each agent session has already been sent, so that a source is sent
//! again only when it changed or the session is new.
//!
//! Kept beside the database, not in it: one small file per session in
//! `sessions/` inside the state directory, one line per source sent
//! (`<source id> TAB <content digest>`, then, for a file whose version
//! tells whether it changed, `TAB <device>:<inode>:<size>:<mtime
//! ns>:<ctime ns> TAB <cache epoch>`: a version is trusted only under the
//! epoch it was recorded in, which every purge of the snapshot cache
//! renews), appended once per hook run with
//! one `write` call. Why not a table: a hook asks and marks on nearly every
//! event, and a write transaction grows the WAL that every later hook
//! process reads back in full before its first query; an append is one
//! system call, and a hook that only asks never opens the database for it.
//! What it costs: nothing here is synced, so a machine that crashes may
//! forget some marks (those sources are sent again); a damaged database
//! loses none of them.
//!
//! - A source that did not fit under the host's cap (left out, or cut) is
//!   recorded as deferred: `> TAB <source id> TAB <content digest> TAB
//!   <bytes already sent> TAB <path, or ->`. A later line that marks the
//!   same source sent settles it; until then each hook run offers it again
//!   (from where the cut stopped, when the bytes are the same).
//! - The file's name is a digest of the session id (host-chosen text never
//!   becomes a path).
//! - A line that is not whole (a run cut in the middle of its append) or
//!   not of the form above is skipped: that source is sent again.
//! - A file is read up to [`MAX_SESSION_BYTES`]; marks that would take it
//!   past that are not written (their sources are sent again).
//! - A session start forgets its own file (a new start or a compaction),
//!   `SessionEnd` removes it; at most once per [`PRUNE_EVERY`], an open of
//!   the database by anything but a hook (a command, the MCP server, the
//!   desktop socket) removes the files of sessions not written for
//!   [`SESSION_TTL`]. A hook never lists a directory of agentspine's own.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use agentspine_fs::{FsError, Identity, PrivateDir};
use sha2::Digest;

/// Directory of the session files inside the state directory.
pub const SESSIONS_DIR: &str = "sessions";
/// The most bytes of one session's file that are read (and written).
pub const MAX_SESSION_BYTES: usize = 1 << 20;
/// How often an open of the database looks for old session files.
pub const PRUNE_EVERY: Duration = Duration::from_secs(60 * 60);
/// A session's file not written for this long is removed (a session that
/// ended without `SessionEnd`).
pub const SESSION_TTL: Duration = Duration::from_secs(7 * 24 * 60 * 60);
/// The most session files one prune looks at.
const PRUNE_LIMIT: usize = 10_000;
/// The file whose modification time is the last prune.
const PRUNED_STAMP: &str = ".pruned";

/// A failure of a session operation.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    /// The session directory or a session's file could not be used.
    #[error("session: {operation} {session_id}: {source}")]
    Files {
        /// `open`, `mark`, `check` or `prune`.
        operation: &'static str,
        /// The session concerned (`*` for all).
        session_id: String,
        /// The underlying error.
        #[source]
        source: FsError,
    },
}

/// The session files of one state directory.
#[derive(Debug)]
pub struct SessionMarks {
    /// `sessions/` in the state directory, opened at the first use.
    dir: crate::dir::Subdir,
}

impl SessionMarks {
    /// The session files of the state directory `state_dir` (a private
    /// directory, created when missing; `sessions/` is made at the first
    /// mark).
    pub fn open(state_dir: &Path) -> Result<SessionMarks, SessionError> {
        let state = PrivateDir::open(state_dir).map_err(|source| error("open", "*", source))?;
        Ok(SessionMarks::in_dir(state))
    }

    /// The session files of the state directory `state`, already open.
    pub fn in_dir(state: PrivateDir) -> SessionMarks {
        SessionMarks { dir: crate::dir::Subdir::new(state, SESSIONS_DIR) }
    }

    /// The directory of the session files.
    pub fn path(&self) -> PathBuf {
        self.dir.state().path().join(SESSIONS_DIR)
    }

    /// `sessions/`, made when `create` is set; `None` when it is missing.
    fn dir(&self, create: bool) -> Result<Option<&PrivateDir>, FsError> {
        self.dir.get(create)
    }

    /// Everything `session_id` was sent, as `(source_id, sha256)` pairs.
    pub fn sent(&self, session_id: &str) -> Result<HashSet<(String, String)>, SessionError> {
        Ok(self.record(session_id)?.sent)
    }

    /// Everything `session_id` was sent, with the versions recorded.
    pub fn record(&self, session_id: &str) -> Result<SessionRecord, SessionError> {
        let fail = |source| error("check", session_id, source);
        let Some(dir) = self.dir(false).map_err(fail)? else { return Ok(SessionRecord::default()) };
        let bytes = dir.read(&file_name(session_id), MAX_SESSION_BYTES).map_err(fail)?;
        Ok(bytes.map(|bytes| parse(&bytes)).unwrap_or_default())
    }

    /// Records that `session_id` was sent each `(source_id, sha256)`, in
    /// one append. A pair that cannot be written as one line (a tab or a
    /// line break in it, or empty) is left out: it is sent again.
    pub fn mark_sent_all(&self, session_id: &str, sources: &[(&str, &str)]) -> Result<(), SessionError> {
        let marks: Vec<Mark<'_>> =
            sources.iter().map(|&(source_id, sha256)| Mark { source_id, sha256, version: None }).collect();
        self.mark_all(session_id, &marks)
    }

    /// Records each mark, in one append ([`SessionMarks::mark_sent_all`],
    /// with the versions).
    pub fn mark_all(&self, session_id: &str, marks: &[Mark<'_>]) -> Result<(), SessionError> {
        self.record_run(session_id, marks, &[])
    }

    /// Records each mark, then each deferral, in one append. A deferral
    /// whose id, digest or path cannot be written as one field is left
    /// out (its source is offered again only when its event comes back).
    pub fn record_run(
        &self,
        session_id: &str,
        marks: &[Mark<'_>],
        deferrals: &[Deferral<'_>],
    ) -> Result<(), SessionError> {
        let mut lines = String::new();
        for mark in marks {
            if line_safe(mark.source_id) && line_safe(mark.sha256) {
                lines.push_str(mark.source_id);
                lines.push('\t');
                lines.push_str(mark.sha256);
                if let Some((v, epoch)) = &mark.version
                    && line_safe(epoch)
                {
                    lines.push_str(&format!(
                        "\t{}:{}:{}:{}:{}\t{epoch}",
                        v.dev, v.ino, v.size, v.mtime_ns, v.ctime_ns
                    ));
                }
                lines.push('\n');
            }
        }
        for deferral in deferrals {
            let path = match deferral.path {
                Some(path) => path.to_str().filter(|p| line_safe(p) && p != &NO_PATH),
                None => Some(NO_PATH),
            };
            if let Some(path) = path
                && line_safe(deferral.source_id)
                && line_safe(deferral.sha256)
            {
                lines.push_str(&format!(
                    "{DEFERRED}\t{}\t{}\t{}\t{path}\n",
                    deferral.source_id, deferral.sha256, deferral.from
                ));
            }
        }
        if lines.is_empty() {
            return Ok(());
        }
        let fail = |source| error("mark", session_id, source);
        let Some(dir) = self.dir(true).map_err(fail)? else { return Ok(()) };
        dir.append_within(&file_name(session_id), lines.as_bytes(), MAX_SESSION_BYTES).map(drop).map_err(fail)
    }

    /// Forgets everything sent to `session_id`; whether anything was kept.
    pub fn forget(&self, session_id: &str) -> Result<bool, SessionError> {
        let fail = |source| error("prune", session_id, source);
        let Some(dir) = self.dir(false).map_err(fail)? else { return Ok(false) };
        dir.remove(&file_name(session_id)).map_err(fail)
    }

    /// Removes the files of sessions not written for `secs` seconds, when
    /// the last look was more than [`PRUNE_EVERY`] ago (else nothing is
    /// listed). Returns how many were removed. Not a hook's work: a hook
    /// never lists a directory of its own; every other open of the
    /// database does this (see [`crate::Store::open_with`]).
    pub fn prune_old(&self, secs: u64) -> Result<usize, SessionError> {
        let fail = |source| error("prune", "*", source);
        let Some(dir) = self.dir(false).map_err(fail)? else { return Ok(0) };
        let now = SystemTime::now();
        let stamp = dir.modified(PRUNED_STAMP).map_err(fail)?;
        if stamp.is_some_and(|at| now.duration_since(at).is_ok_and(|age| age < PRUNE_EVERY)) {
            return Ok(0);
        }
        let cutoff = now.checked_sub(Duration::from_secs(secs)).unwrap_or(SystemTime::UNIX_EPOCH);
        let mut removed = 0;
        for entry in dir.entries(PRUNE_LIMIT).map_err(fail)? {
            if entry.name != PRUNED_STAMP
                && entry.modified < cutoff
                && dir.remove(&entry.name).map_err(fail)?
            {
                removed += 1;
            }
        }
        dir.touch(PRUNED_STAMP).map_err(fail)?;
        Ok(removed)
    }
}

/// One source sent to a session.
#[derive(Debug, Clone, Copy)]
pub struct Mark<'a> {
    /// The keyed source id.
    pub source_id: &'a str,
    /// SHA-256 of what was sent.
    pub sha256: &'a str,
    /// The version of the file that was read, when a later run may trust
    /// it instead of reading the file again (memory facts), and the cache
    /// epoch it is recorded under.
    pub version: Option<(Identity, &'a str)>,
}

/// A source the host's cap kept out of a hook's context, in whole or in
/// part: to offer again.
#[derive(Debug, Clone, Copy)]
pub struct Deferral<'a> {
    /// The keyed source id.
    pub source_id: &'a str,
    /// SHA-256 of the bytes it was read with.
    pub sha256: &'a str,
    /// How many bytes of its text the session has (0: none; a cut file:
    /// where the cut was).
    pub from: usize,
    /// The instruction file to resolve again at a later event (one that
    /// no later event finds by itself); `None` for a source every later
    /// event offers anyway (memory facts, continuity).
    pub path: Option<&'a Path>,
}

/// A deferral a session's file holds that no later mark settled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deferred {
    /// The keyed source id.
    pub source_id: String,
    /// SHA-256 of the bytes it was read with.
    pub sha256: String,
    /// How many bytes of its text the session has.
    pub from: usize,
    /// The instruction file to resolve again, when one was recorded.
    pub path: Option<PathBuf>,
}

/// Starts a deferral's line.
const DEFERRED: &str = ">";
/// A deferral's path field when it has none.
const NO_PATH: &str = "-";

/// A version a session's file records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// SHA-256 of what was sent.
    pub sha256: String,
    /// The file's version.
    pub identity: Identity,
    /// The cache epoch it was recorded under.
    pub epoch: String,
}

/// What a session's file says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionRecord {
    /// Every `(source_id, sha256)` sent.
    pub sent: HashSet<(String, String)>,
    /// The last version recorded for a source id: its digest, identity
    /// and cache epoch.
    pub versions: HashMap<String, Recorded>,
    /// The deferrals no later mark of the same source settled, oldest
    /// first, one per source (the latest).
    pub deferred: Vec<Deferred>,
}

impl SessionRecord {
    /// The unsettled deferral of `source_id` for exactly these bytes.
    pub fn deferral(&self, source_id: &str, sha256: &str) -> Option<&Deferred> {
        self.deferred.iter().find(|d| d.source_id == source_id && d.sha256 == sha256)
    }
}

/// The file of `session_id`: a digest, so that no session id (host-chosen
/// text) becomes a path.
fn file_name(session_id: &str) -> String {
    let digest = sha2::Sha256::digest(session_id.as_bytes());
    hex::encode(&digest[..16])
}

fn line_safe(text: &str) -> bool {
    !text.is_empty() && !text.contains(['\t', '\n', '\r'])
}

/// The whole, well-formed lines of a session's file.
fn parse(bytes: &[u8]) -> SessionRecord {
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut record = SessionRecord::default();
    let mut take = |line: &str| {
        if let Some(rest) = line.strip_prefix(DEFERRED).and_then(|r| r.strip_prefix('\t')) {
            if let Some(deferred) = deferral(rest) {
                record.deferred.retain(|d| d.source_id != deferred.source_id);
                record.deferred.push(deferred);
            }
            return;
        }
        if let Some((source_id, sha256, version)) = entry(line) {
            // Sent: whatever was deferred of it is settled.
            record.deferred.retain(|d| d.source_id != source_id);
            if let Some((identity, epoch)) = version {
                let recorded = Recorded { sha256: sha256.to_owned(), identity, epoch: epoch.to_owned() };
                record.versions.insert(source_id.to_owned(), recorded);
            }
            record.sent.insert((source_id.to_owned(), sha256.to_owned()));
        }
    };
    match std::str::from_utf8(&bytes[..whole]) {
        Ok(text) => text.lines().for_each(&mut take),
        // Cut in the middle of a character: keep the lines before it.
        Err(_) => {
            bytes[..whole].split(|&b| b == b'\n').filter_map(|l| std::str::from_utf8(l).ok()).for_each(take)
        }
    }
    record
}

/// A deferral's fields after its mark: id, digest, bytes sent, path.
fn deferral(rest: &str) -> Option<Deferred> {
    let mut fields = rest.split('\t');
    let (source_id, sha256, from, path) = (fields.next()?, fields.next()?, fields.next()?, fields.next()?);
    if fields.next().is_some() || !(line_safe(source_id) && line_safe(sha256) && line_safe(path)) {
        return None;
    }
    let path = match path {
        NO_PATH => None,
        path if Path::new(path).is_absolute() => Some(PathBuf::from(path)),
        _ => return None,
    };
    Some(Deferred {
        source_id: source_id.to_owned(),
        sha256: sha256.to_owned(),
        from: from.parse().ok()?,
        path,
    })
}

/// A line's source id, digest and, when it has them, version and epoch.
type Entry<'a> = (&'a str, &'a str, Option<(Identity, &'a str)>);

/// One line: source id, digest and, when it has them, a well-formed
/// version and its epoch.
fn entry(line: &str) -> Option<Entry<'_>> {
    let mut fields = line.split('\t');
    let (source_id, sha256) = (fields.next()?, fields.next()?);
    if !(line_safe(source_id) && line_safe(sha256)) {
        return None;
    }
    let version = match (fields.next(), fields.next(), fields.next()) {
        (None, _, _) => None,
        (Some(version), Some(epoch), None) if line_safe(epoch) => Some((parse_version(version)?, epoch)),
        _ => return None,
    };
    Some((source_id, sha256, version))
}

fn parse_version(text: &str) -> Option<Identity> {
    let mut parts = text.split(':');
    let mut next = || parts.next();
    let version = Identity {
        dev: next()?.parse().ok()?,
        ino: next()?.parse().ok()?,
        size: next()?.parse().ok()?,
        mtime_ns: next()?.parse().ok()?,
        ctime_ns: next()?.parse().ok()?,
    };
    parts.next().is_none().then_some(version)
}

fn error(operation: &'static str, session_id: &str, source: FsError) -> SessionError {
    SessionError::Files { operation, session_id: session_id.to_owned(), source }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_whole_well_formed_lines_count() {
        let set = parse(b"a\th1\nbroken line\n\tnosource\nb\th2\nc\th3").sent;
        let want: HashSet<_> = [("a", "h1"), ("b", "h2")].map(|(a, b)| (a.to_owned(), b.to_owned())).into();
        assert_eq!(set, want);
        // A character cut at the end of a line break keeps what came before.
        assert_eq!(parse(b"a\th1\n\xff\xfe\tx\n").sent.len(), 1);
    }

    #[test]
    fn a_version_is_kept_only_when_whole_and_the_last_one_counts() {
        let record = parse(
            b"a\th1\t1:2:3:4:5\te0\nb\th2\t1:2:3:4\te0\nc\th3\t1:2:3:4:5:6\te0\nd\th4\t1:2:3:4:5\te0\tx\n\
              e\th5\t1:2:3:4:5\na\th9\t9:8:7:6:-5\te1\n",
        );
        let want = Identity { dev: 9, ino: 8, size: 7, mtime_ns: 6, ctime_ns: -5 };
        assert_eq!(record.versions.len(), 1);
        let recorded = Recorded { sha256: "h9".to_owned(), identity: want, epoch: "e1".to_owned() };
        assert_eq!(record.versions["a"], recorded);
        // A malformed version makes the whole line malformed.
        let sent: HashSet<_> = [("a", "h1"), ("a", "h9")].map(|(a, b)| (a.to_owned(), b.to_owned())).into();
        assert_eq!(record.sent, sent);
    }

    #[test]
    fn a_deferral_holds_until_the_same_source_is_marked_sent() {
        let record = parse(
            b">\ta\th1\t0\t/w/a/AGENTS.md\n>\tb\th2\t120\t-\n>\tc\th3\t0\t/w/c\n\
              a\th1\n>\tc\th4\t7\t/w/c2\n>\tbad\th\tx\t-\n>\trel\th\t0\tnot/absolute\n>\tshort\th\t0\n",
        );
        let d = |id: &str, sha: &str, from, path: Option<&str>| Deferred {
            source_id: id.to_owned(),
            sha256: sha.to_owned(),
            from,
            path: path.map(PathBuf::from),
        };
        // a is settled by its mark; c's later deferral replaces its first;
        // malformed ones are skipped; a deferral is never a mark.
        assert_eq!(record.deferred, [d("b", "h2", 120, None), d("c", "h4", 7, Some("/w/c2"))]);
        assert_eq!(record.deferral("c", "h4").map(|d| d.from), Some(7));
        assert_eq!(record.deferral("c", "h3"), None);
        assert_eq!(record.sent.len(), 1);
    }

    #[test]
    fn deferrals_are_written_after_the_marks_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let marks = SessionMarks::open(dir.path()).unwrap();
        let path = Path::new("/w/pkg/AGENTS.md");
        let tabbed = Path::new("/w/a\tb/AGENTS.md");
        let deferrals = [
            Deferral { source_id: "x", sha256: "h1", from: 0, path: Some(path) },
            Deferral { source_id: "y", sha256: "h2", from: 40, path: None },
            Deferral { source_id: "z", sha256: "h3", from: 0, path: Some(tabbed) },
        ];
        let sent = [Mark { source_id: "x", sha256: "h0", version: None }];
        marks.record_run("s", &sent, &deferrals).unwrap();
        let record = marks.record("s").unwrap();
        assert_eq!(record.deferred.len(), 2, "a path with a tab is not written");
        assert_eq!(record.deferred[0].path.as_deref(), Some(path));
        assert_eq!(record.deferred[1].from, 40);
        // The mark came first in the same append: x is still deferred.
        marks.mark_all("s", &[Mark { source_id: "x", sha256: "h1", version: None }]).unwrap();
        assert_eq!(marks.record("s").unwrap().deferred.len(), 1);
    }

    #[test]
    fn names_are_digests_of_fixed_length() {
        assert_eq!(file_name("../../etc/passwd").len(), 32);
        assert_ne!(file_name("s1"), file_name("s2"));
        assert!(file_name("a/b").bytes().all(|b| b.is_ascii_hexdigit()));
    }
}
