//! The two instruction files the host may edit through the socket: the
//! fixed global `~/.pi/agent/AGENTS.md` and a registered root's
//! `AGENTS.md`. Never any other path.
//!
//! A write is a compare-and-swap: it names the SHA-256 of the version it
//! was edited from (`expected_sha256`; `null` when the file did not exist)
//! and is refused as `stale` when the file on disk is another version, so
//! an edit made elsewhere is never lost. The new bytes replace the file
//! atomically (a temporary file beneath the directory, renamed over the
//! name); a link at the name or as the directory is refused, never
//! followed. Writes are serialized within the server.

use std::path::{Path, PathBuf};

use agentspine_fs::{Code, FsError};
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::chain::codes;
use super::wire::Fault;

/// The file name edited in both places.
pub const NAME: &str = "AGENTS.md";

/// Largest file read or written: 512 KiB (an instruction file is capped at
/// 32 KiB of content when used; this leaves room to edit a long one).
pub const MAX_BYTES: usize = 512 * 1024;

/// One version of the file (or its absence).
#[derive(Debug, Serialize)]
pub struct FileVersion {
    pub path: PathBuf,
    pub exists: bool,
    /// The text (invalid UTF-8 replaced; `sha256` is of the bytes on disk).
    pub content: String,
    pub sha256: Option<String>,
    pub bytes: u64,
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

fn fault(e: &FsError) -> Fault {
    match e.code() {
        Code::Symlink => {
            Fault::new(codes::SYMLINK, "symlink", format!("{e}; agentspine never follows links"))
        }
        code => Fault::new(codes::FILE, code.as_str(), e.to_string()),
    }
}

/// Reads `dir/AGENTS.md`; a missing directory or file is `exists: false`.
pub fn read(dir: &Path) -> Result<FileVersion, Fault> {
    let path = dir.join(NAME);
    let missing =
        || FileVersion { path: path.clone(), exists: false, content: String::new(), sha256: None, bytes: 0 };
    let reader = crate::state::reader();
    let root = match reader.open_root(dir) {
        Ok(root) => root,
        Err(e) if e.code() == Code::NotFound => return Ok(missing()),
        Err(e) => return Err(fault(&e)),
    };
    match root.read(NAME, MAX_BYTES as u64) {
        Ok(snap) => Ok(FileVersion {
            path,
            exists: true,
            content: String::from_utf8_lossy(&snap.bytes).into_owned(),
            sha256: Some(sha256_hex(&snap.bytes)),
            bytes: snap.bytes.len() as u64,
        }),
        Err(e) if e.code() == Code::NotFound => Ok(missing()),
        Err(e) => Err(fault(&e)),
    }
}

/// Replaces `dir/AGENTS.md` with `content` if its current version is
/// `expected` (`None`: it must not exist). `dir` must exist.
pub fn write(dir: &Path, content: &str, expected: Option<&str>) -> Result<FileVersion, Fault> {
    if content.len() > MAX_BYTES {
        return Err(Fault::params(format!(
            "content is {} bytes; at most {MAX_BYTES} are written",
            content.len()
        )));
    }
    let current = read(dir)?;
    if current.sha256.as_deref() != expected.map(str::to_ascii_lowercase).as_deref() {
        let now = current.sha256.as_deref().map_or("absent".to_owned(), |s| format!("sha256 {s}"));
        let was = expected.map_or("absent".to_owned(), |s| format!("sha256 {s}"));
        return Err(Fault::new(
            codes::STALE,
            "stale",
            format!(
                "{}: changed since it was read (expected {was}, found {now}); read it again and reapply the edit",
                current.path.display()
            ),
        ));
    }
    agentspine_fs::replace_file_atomic(dir, NAME, content.as_bytes(), None).map_err(|e| fault(&e))?;
    Ok(FileVersion {
        path: current.path,
        exists: true,
        content: String::new(),
        sha256: Some(sha256_hex(content.as_bytes())),
        bytes: content.len() as u64,
    })
}

/// Creates `~/.pi/agent` if missing (mode 0755, no link followed).
pub fn ensure_global_dir(home: &Path) -> Result<PathBuf, Fault> {
    agentspine_fs::ensure_dir(home, ".pi").map_err(|e| fault(&e))?;
    let pi = home.join(".pi");
    agentspine_fs::ensure_dir(&pi, "agent").map_err(|e| fault(&e))?;
    Ok(pi.join("agent"))
}
