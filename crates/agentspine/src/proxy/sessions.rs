//! What the host has told the server: registered project roots, and bound
//! sessions with their sidecar token, their root chain and the per-prompt
//! cache of path-specific chains.
//!
//! A session's token is 32 random bytes, compared in constant time, and
//! valid for that session only; ending the session or binding it again
//! retires it. The cache holds one chain per target directory (the root is
//! the session's) and is dropped whole when a new prompt begins, so a chain
//! is never older than the prompt it serves.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use super::chain::{Chain, codes};
use super::wire::Fault;

/// Paths one prompt's cache remembers, at most.
pub const MAX_PATHS: usize = 16 * 1024;
/// Directories (chains) one prompt's cache holds, at most.
pub const MAX_DIRS: usize = 1024;

/// One bound session.
#[derive(Debug)]
pub struct Session {
    pub id: String,
    /// The canonical project root.
    pub root: PathBuf,
    /// The root as the host spelled it (paths under it are accepted too).
    pub alias: PathBuf,
    /// The root's directory handle, opened at the bind: every resolution
    /// of this session reads beneath it, so renaming the root and putting
    /// a link in its place cannot redirect the session.
    pub handle: agentspine_fs::Root,
    token: String,
    prompt: Mutex<Prompt>,
}

/// The state of the current prompt.
#[derive(Debug)]
pub struct Prompt {
    /// Counts prompts since the bind (0 until the first `prompt_begin`).
    pub number: u64,
    /// The root chain as of this prompt: the base every fallback answers
    /// with.
    pub base: Arc<Chain>,
    /// Chains resolved in this prompt, by target directory.
    chains: HashMap<String, Arc<Chain>>,
    /// Target directory of each path already seen in this prompt.
    paths: HashMap<String, String>,
}

impl Session {
    pub fn new(
        id: String,
        handle: agentspine_fs::Root,
        alias: PathBuf,
        token: String,
        base: Chain,
    ) -> Session {
        let prompt =
            Prompt { number: 0, base: Arc::new(base), chains: HashMap::new(), paths: HashMap::new() };
        let root = handle.host_path().to_path_buf();
        Session { id, root, alias, handle, token, prompt: Mutex::new(prompt) }
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    /// Whether `token` is this session's (constant time in its length).
    pub fn accepts(&self, token: &str) -> bool {
        let (a, b) = (self.token.as_bytes(), token.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }

    pub fn prompt(&self) -> MutexGuard<'_, Prompt> {
        // A panic while holding the lock leaves plain data behind; use it.
        self.prompt.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Prompt {
    /// The cached chain for a path seen in this prompt.
    pub fn by_path(&self, path: &str) -> Option<Arc<Chain>> {
        self.paths.get(path).and_then(|dir| self.chains.get(dir)).cloned()
    }

    /// The cached chain for a directory.
    pub fn by_dir(&self, dir: &str) -> Option<Arc<Chain>> {
        self.chains.get(dir).cloned()
    }

    /// Remembers a resolution for the rest of this prompt, while the
    /// prompt holds fewer than [`MAX_PATHS`] paths and [`MAX_DIRS`]
    /// directories (past that, answers are still right, just not cached).
    pub fn remember(&mut self, path: &str, dir: &str, chain: Option<Arc<Chain>>) {
        if let Some(chain) = chain {
            if self.chains.len() >= MAX_DIRS {
                return;
            }
            self.chains.insert(dir.to_owned(), chain);
        }
        if self.paths.len() < MAX_PATHS {
            self.paths.insert(path.to_owned(), dir.to_owned());
        }
    }

    /// Starts the next prompt: the cache is dropped, the base replaced.
    /// Returns whether the root chain's digest changed.
    pub fn begin(&mut self, base: Chain) -> bool {
        let changed = base.digest != self.base.digest;
        self.number += 1;
        self.base = Arc::new(base);
        self.chains.clear();
        self.paths.clear();
        changed
    }
}

/// Projects and sessions.
#[derive(Debug, Default)]
pub struct Registry {
    projects: BTreeSet<PathBuf>,
    sessions: HashMap<String, Arc<Session>>,
}

impl Registry {
    pub fn register(&mut self, root: PathBuf) -> bool {
        self.projects.insert(root)
    }

    /// Unregisters a root and ends its sessions; returns how many ended, or
    /// `None` when the root was not registered.
    pub fn unregister(&mut self, root: &Path) -> Option<usize> {
        if !self.projects.remove(root) {
            return None;
        }
        let before = self.sessions.len();
        self.sessions.retain(|_, s| s.root != root);
        Some(before - self.sessions.len())
    }

    pub fn is_registered(&self, root: &Path) -> bool {
        self.projects.contains(root)
    }

    pub fn projects(&self) -> impl Iterator<Item = &PathBuf> {
        self.projects.iter()
    }

    pub fn sessions_of(&self, root: &Path) -> usize {
        self.sessions.values().filter(|s| s.root == root).count()
    }

    /// Binds (or binds again) a session; the previous token stops working.
    pub fn bind(&mut self, session: Session) -> Arc<Session> {
        let session = Arc::new(session);
        self.sessions.insert(session.id.clone(), session.clone());
        session
    }

    pub fn end(&mut self, id: &str) -> bool {
        self.sessions.remove(id).is_some()
    }

    /// A session the host bound.
    pub fn session(&self, id: &str) -> Result<Arc<Session>, Fault> {
        self.sessions.get(id).cloned().ok_or_else(|| {
            Fault::new(
                codes::BAD_SESSION,
                "unknown-session",
                format!("no session {id:?} is bound (session.bind first)"),
            )
        })
    }

    /// The session `id`, if `token` is its token. Both failures give the
    /// same answer, so a token cannot be used to probe for sessions.
    pub fn authorize(&self, id: &str, token: &str) -> Result<Arc<Session>, Fault> {
        match self.sessions.get(id) {
            Some(session) if session.accepts(token) => Ok(session.clone()),
            _ => Err(Fault::new(
                codes::BAD_SESSION,
                "invalid-session-token",
                format!(
                    "the token is not valid for session {id:?} (a token works only for the session it was issued for, until it ends)"
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn handle() -> agentspine_fs::Root {
        let reader = agentspine_fs::Reader::new(agentspine_fs::Budget::UNLIMITED);
        reader.open_root(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap()
    }

    fn chain(dir: &str) -> Chain {
        Chain {
            dir: dir.to_owned(),
            text: String::new(),
            digest: format!("sha256:{dir}"),
            sources: Vec::new(),
        }
    }

    #[test]
    fn a_prompt_caches_a_bounded_number_of_chains_and_forgets_them_at_the_next() {
        let session = Session::new("s".into(), handle(), "/r".into(), "t".repeat(64), chain("."));
        let mut prompt = session.prompt();
        for n in 0..MAX_DIRS + 10 {
            let dir = format!("d{n}");
            prompt.remember(&format!("{dir}/f.ts"), &dir, Some(Arc::new(chain(&dir))));
        }
        assert_eq!(prompt.chains.len(), MAX_DIRS);
        assert_eq!(prompt.by_path("d0/f.ts").unwrap().dir, "d0");
        assert!(prompt.by_path(&format!("d{MAX_DIRS}/f.ts")).is_none());
        // Another file of a cached directory: remembered without a chain of its own.
        prompt.remember("d1/g.ts", "d1", None);
        assert_eq!(prompt.by_path("d1/g.ts").unwrap().dir, "d1");
        assert!(!prompt.begin(chain(".")), "same digest: no rebuild");
        assert!(prompt.by_path("d0/f.ts").is_none());
        assert!(prompt.begin(chain("changed")));
        assert_eq!(prompt.number, 2);
    }

    #[test]
    fn a_token_is_accepted_by_its_session_only() {
        let session = Session::new("s".into(), handle(), "/r".into(), "a".repeat(64), chain("."));
        assert!(session.accepts(&"a".repeat(64)));
        assert!(!session.accepts(&"b".repeat(64)));
        assert!(!session.accepts(&"a".repeat(63)));
        assert!(!session.accepts(""));
    }
}
