//! A project tree and a home directory in a temp dir, and a resolver call
//! with an environment that points only there.

use std::path::{Path, PathBuf};

use agentspine_core::{Environment, Host, Request, Resolution, ResolveError, resolve};
use agentspine_fs::{Budget, Reader};

pub struct Project {
    pub dir: tempfile::TempDir,
    pub tree: PathBuf,
    pub home: PathBuf,
}

impl Project {
    pub fn new() -> Project {
        Project::in_dir(tempfile::tempdir().unwrap())
    }

    /// A project in `/tmp/.tmpXXXX/tree`: three directories above the root,
    /// whatever `$TMPDIR` says (for tests that count work above the root).
    pub fn in_tmp() -> Project {
        let p = Project::in_dir(tempfile::Builder::new().tempdir_in("/tmp").unwrap());
        std::fs::create_dir(p.tree.join(".git")).unwrap();
        p
    }

    fn in_dir(dir: tempfile::TempDir) -> Project {
        let tree = dir.path().join("tree");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&tree).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        Project { dir, tree, home }
    }

    /// A project whose root holds a `.git` directory git would accept
    /// (`HEAD`, `objects/`, `refs/`: what every host counts).
    pub fn git() -> Project {
        let p = Project::new();
        p.file(".git/HEAD", "ref: refs/heads/main\n");
        std::fs::create_dir(p.tree.join(".git/objects")).unwrap();
        std::fs::create_dir(p.tree.join(".git/refs")).unwrap();
        p
    }

    pub fn file(&self, rel: &str, bytes: impl AsRef<[u8]>) -> &Self {
        write(&self.tree.join(rel), bytes.as_ref());
        self
    }

    pub fn home_file(&self, rel: &str, bytes: impl AsRef<[u8]>) -> &Self {
        write(&self.home.join(rel), bytes.as_ref());
        self
    }

    pub fn symlink(&self, rel: &str, target: impl AsRef<Path>) -> &Self {
        let path = self.tree.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, path).unwrap();
        self
    }

    pub fn env(&self) -> Environment {
        let home = self.home.clone();
        let mut env = Environment::from_vars(|name| (name == "HOME").then(|| home.clone().into_os_string()));
        env.codex_system_dir = self.dir.path().join("etc-codex");
        env.gemini_system_settings = self.dir.path().join("etc-gemini-cli/settings.json");
        env
    }

    pub fn request(&self, host: Host, cwd: &str) -> Request {
        Request::new(host, self.tree.join(cwd))
    }

    pub fn resolve(&self, host: Host, cwd: &str) -> Resolution {
        self.try_resolve(&self.request(host, cwd)).unwrap()
    }

    pub fn try_resolve(&self, request: &Request) -> Result<Resolution, ResolveError> {
        let reader = Reader::new(Budget::UNLIMITED);
        resolve(request, &self.env(), &reader)
    }
}

pub fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// `(verdict, path)` of every probe, for terse assertions.
pub fn verdicts(r: &Resolution) -> Vec<(String, String)> {
    r.probes.iter().map(|p| (p.verdict.to_string(), p.path.clone())).collect()
}

/// The verdict of the probe for `path`.
pub fn verdict_of(r: &Resolution, path: &str) -> String {
    r.probes
        .iter()
        .rev()
        .find(|p| p.path == path)
        .map(|p| p.verdict.to_string())
        .unwrap_or_else(|| panic!("no probe for {path}: {:#?}", verdicts(r)))
}

pub fn labels(r: &Resolution) -> Vec<String> {
    r.parts.iter().map(|p| p.label.clone()).collect()
}

/// Runs `f` on a thread without `CAP_DAC_OVERRIDE`/`CAP_DAC_READ_SEARCH`,
/// so file modes apply even when the suite runs as root.
pub fn without_dac_override<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::spawn(move || {
        use rustix::thread::{CapabilitySet, capabilities, set_capabilities};
        let mut sets = capabilities(None).unwrap();
        sets.effective -= CapabilitySet::DAC_OVERRIDE | CapabilitySet::DAC_READ_SEARCH;
        set_capabilities(None, sets).unwrap();
        f()
    })
    .join()
    .unwrap()
}

pub fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

impl Project {
    /// Resolves with a chosen reader backend, the root bound explicitly.
    pub fn resolve_with(&self, backend: agentspine_fs::Backend, host: Host, cwd: &str) -> Resolution {
        let reader = Reader::with_backend(backend, Budget::UNLIMITED).unwrap();
        let request = Request { root: Some(self.tree.clone()), ..self.request(host, cwd) };
        resolve(&request, &self.env(), &reader).unwrap()
    }
}

/// `c` without its confirming re-reads: whether a read is confirmed
/// depends on how long ago the fixture was written (files changed less
/// than `agentspine_fs::RACY_WINDOW` before a read are read twice), not on
/// the request, so comparisons of whole costs leave it out.
pub fn unconfirmed(c: agentspine_fs::Counters) -> agentspine_fs::Counters {
    agentspine_fs::Counters { confirmations: 0, ..c }
}
