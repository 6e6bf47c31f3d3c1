//! Resolving a chain for the socket: the root chain of a session, and the
//! complete chain for one target's directory, by the desktop rule (ADR
//! 0037). Blocking work over agentspine-core; the caller runs it on a worker
//! and stops waiting at the deadline.

use std::path::{Path, PathBuf};
use std::time::Instant;

use agentspine_core::policy::NeverProjects;
use agentspine_core::{
    PathOutside, Request, Resolution, ResolveError, Resolver, Verdict, names_within, render_native,
};
use agentspine_fs::{Budget, Reader, Root};
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::wire::Fault;

/// Application error codes of the socket (JSON-RPC leaves -32000 to -32099
/// to servers).
pub mod codes {
    pub const UNAUTHORIZED: i64 = -32001;
    pub const BAD_SESSION: i64 = -32002;
    pub const NOT_REGISTERED: i64 = -32003;
    pub const OUTSIDE_ROOT: i64 = -32004;
    pub const SYMLINK: i64 = -32005;
    pub const STALE: i64 = -32006;
    pub const FILE: i64 = -32010;
    pub const BUSY: i64 = -32011;
    pub const NOT_A_PROJECT: i64 = -32007;
}

/// One file of a chain, as the host sees it listed.
#[derive(Debug, Clone, Serialize)]
pub struct Source {
    pub label: String,
    pub scope: String,
    pub bytes: u64,
    pub sha256: String,
    /// Bytes kept when the 32 KiB cap cut the file.
    pub cut_at: Option<u64>,
}

/// A complete chain: the labelled text that replaces the active chain, its
/// digest, and its sources.
#[derive(Debug, Clone, Serialize)]
pub struct Chain {
    /// The directory whose chain this is, relative to the root (`.` for the
    /// root).
    pub dir: String,
    pub text: String,
    /// `sha256:` and the hex digest of `text`.
    pub digest: String,
    pub sources: Vec<Source>,
}

impl Chain {
    fn of(resolution: &Resolution) -> Chain {
        let text = render_native(resolution);
        let digest = format!("sha256:{}", hex::encode(Sha256::digest(text.as_bytes())));
        let sources = resolution
            .parts
            .iter()
            .map(|p| Source {
                label: p.label.clone(),
                scope: p.scope.to_string(),
                bytes: p.bytes,
                sha256: p.sha256.clone(),
                cut_at: p.cut.map(|c| c.kept),
            })
            .collect();
        Chain { dir: resolution.chain_dir.clone(), text, digest, sources }
    }
}

/// Why a chain could not be made: a refusal the caller must see, or a
/// failure that the base chain stands in for.
#[derive(Debug)]
pub enum Failure {
    Refused(Fault),
    Fallback(String),
}

/// A reader bounded by `deadline`. In test builds with the
/// `fault-injection` feature, `AGENTSPINE_FAULT_READ_DELAY_MS` slows every
/// read of the sidecar's resolutions (`slow`), and those of the host's root
/// chains too while the file named by `AGENTSPINE_FAULT_SLOW_ALL_WHILE`
/// exists.
fn reader(deadline: Instant, slow: bool, handle: &Root) -> Reader {
    // Bound to the session's directory handle: a root renamed and replaced
    // by a link after the bind still resolves the directory that was bound.
    let reader = Reader::new(Budget { deadline: Some(deadline), max_bytes: None })
        .bound_to(handle, &[handle.host_path()]);
    #[cfg(feature = "fault-injection")]
    {
        let var = |name: &str| std::env::var_os(name).map(PathBuf::from);
        let all = var("AGENTSPINE_FAULT_SLOW_ALL_WHILE").is_some_and(|flag| {
            let (Some(dir), Some(name)) = (flag.parent(), flag.file_name()) else { return false };
            let probe = Reader::new(Budget::UNLIMITED);
            probe.open_root(dir).is_ok_and(|root| root.stat(name).is_ok())
        });
        let delay = std::env::var("AGENTSPINE_FAULT_READ_DELAY_MS").ok().and_then(|v| v.parse::<u64>().ok());
        if let Some(ms) = delay
            && (slow || all)
        {
            reader.inject_read_delay(Some(std::time::Duration::from_millis(ms)));
        }
    }
    #[cfg(not(feature = "fault-injection"))]
    let _ = slow;
    reader
}

/// The chain of `dir` (absolute, beneath `root`) under the desktop rule.
fn chain_for(
    root: &Path,
    handle: &Root,
    dir: Option<PathBuf>,
    deadline: Instant,
    slow: bool,
) -> Result<Chain, Failure> {
    let resolver = resolver(reader(deadline, slow, handle));
    let resolution = resolver.chain(&request(root, dir)).map_err(|e| match &e {
        ResolveError::TargetOutsideRoot { .. } => {
            Failure::Refused(Fault::new(codes::OUTSIDE_ROOT, "outside-root", e.to_string()))
        }
        ResolveError::TargetThroughSymlink { .. } => {
            Failure::Refused(Fault::new(codes::SYMLINK, "symlink", e.to_string()))
        }
        e if e.code() == "symlink" => Failure::Refused(Fault::new(codes::SYMLINK, "symlink", e.to_string())),
        e => Failure::Fallback(format!("resolver-error: {}: {e}", e.code())),
    })?;
    // A candidate the reader gave up on makes the chain incomplete: the
    // base chain stands in rather than a chain with a hole in it.
    for probe in &resolution.probes {
        if let Verdict::Refused { code } = &probe.verdict {
            let reason = if *code == agentspine_core::Cause::Reader(agentspine_fs::Code::Deadline) {
                "deadline".to_owned()
            } else {
                format!("resolver-error: {code}")
            };
            return Err(Failure::Fallback(format!("{reason} at {}", probe.path)));
        }
    }
    Ok(Chain::of(&resolution))
}

/// The root chain of a session.
pub fn root_chain(root: &Path, handle: &Root, deadline: Instant) -> Result<Chain, Failure> {
    chain_for(root, handle, None, deadline, false)
}

/// A path from the sidecar, as names below the session's root: core's
/// [`names_within`] (absolute under the canonical root or the spelling the
/// host used, or relative to the root), its refusal as the socket's fault.
pub fn sidecar_path(path: &str, root: &Path, alias: &Path) -> Result<Vec<String>, Fault> {
    if path.is_empty() || path.contains('\0') {
        return Err(Fault::params("path must be a non-empty path without NUL bytes"));
    }
    names_within(Path::new(path), root, &[alias]).map_err(|why| match why {
        PathOutside::NotUtf8 => Fault::params("path must be UTF-8"),
        PathOutside::Outside => Fault::new(
            codes::OUTSIDE_ROOT,
            "outside-root",
            format!(
                "{path}: outside the session's project root {}; nothing is resolved there",
                root.display()
            ),
        ),
    })
}

/// Core's [`Resolver::chain_dir`] for a sidecar's path, read beneath the
/// session's handle, its refusal as the socket's fault.
pub fn chain_dir(
    root: &Path,
    handle: &Root,
    names: &[String],
    deadline: Instant,
    slow: bool,
) -> Result<Vec<String>, Failure> {
    let target = if names.is_empty() { None } else { Some(root.join(names.join("/"))) };
    let resolver = resolver(reader(deadline, slow, handle));
    resolver.chain_dir(&request(root, target)).map_err(|e| failure(&e, names))
}

/// The reader's refusal as the socket answers it.
fn failure(e: &ResolveError, names: &[String]) -> Failure {
    match e {
        ResolveError::TargetOutsideRoot { .. } => {
            Failure::Refused(Fault::new(codes::OUTSIDE_ROOT, "outside-root", e.to_string()))
        }
        ResolveError::TargetThroughSymlink { .. } => symlink(names),
        ResolveError::NotADirectory { path } => Failure::Refused(Fault::new(
            super::wire::INVALID_PARAMS,
            "not-a-directory",
            format!("{}: not a directory where a directory was expected", path.display()),
        )),
        e if e.code() == "symlink" => symlink(names),
        e => Failure::Fallback(format!("resolver-error: {}: {e}", e.code())),
    }
}

/// A resolver for one resolution, with the home directory and profiles
/// found once for the server (its environment is the process's, fixed).
fn resolver(reader: Reader) -> Resolver<'static> {
    static NEVER: std::sync::OnceLock<NeverProjects> = std::sync::OnceLock::new();
    let resolver = crate::state::resolver(reader);
    let never = NEVER.get_or_init(|| resolver.never_projects().clone()).clone();
    resolver.with_never_projects(never).with_named_roots(agentspine_core::NamedRoots::TakenAsGiven)
}

fn request(root: &Path, target: Option<PathBuf>) -> Request {
    Request {
        host: super::HOST,
        cwd: root.to_path_buf(),
        root: Some(root.to_path_buf()),
        target,
        transcript_path: None,
    }
}

fn symlink(names: &[String]) -> Failure {
    Failure::Refused(Fault::new(
        codes::SYMLINK,
        "symlink",
        format!("{}: a symbolic link is on the path, and agentspine never follows links", names.join("/")),
    ))
}

/// The complete chain for `dir` (names below the root).
pub fn dir_chain(root: &Path, handle: &Root, dir: &[String], deadline: Instant) -> Result<Chain, Failure> {
    let target = if dir.is_empty() { None } else { Some(root.join(dir.join("/"))) };
    chain_for(root, handle, target, deadline, true)
}
