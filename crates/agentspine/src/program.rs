//! Asking an installed program something, as its user's shell would run
//! it: where `PATH` finds it, and what it answers (to `--version`),
//! bounded, so that a program that hangs never holds the command.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agentspine_fs::{Budget, FileKind, Reader};

/// How long a program gets to answer.
pub const ANSWER: Duration = Duration::from_secs(3);
/// The most of an answer kept, per stream.
const MAX_ANSWER: u64 = 16 << 10;

/// Which of the program's streams hold its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Streams {
    /// Standard output only.
    Stdout,
    /// Both, standard output first (pi prints its version on standard
    /// error when standard input is no terminal).
    Both,
}

/// Where the host's shell finds `program`: itself when it holds a `/`,
/// else the first `PATH` directory holding an entry of that name.
pub fn locate(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        let path = PathBuf::from(program);
        return exists(&path).then_some(path);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(program))
        .find(|candidate| exists(candidate))
}

/// Whether `path` names a file or a link (a link's target is the
/// program's business: running it tells).
fn exists(path: &Path) -> bool {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else { return false };
    let reader = Reader::new(Budget::UNLIMITED);
    reader
        .open_root(dir)
        .and_then(|root| root.stat(name))
        .is_ok_and(|meta| matches!(meta.kind, FileKind::File | FileKind::Symlink))
}

/// Runs `path args…` with no input and returns what it printed once it
/// exited successfully; why not, when it did not run, failed or gave no
/// answer within [`ANSWER`] (then it is killed).
pub fn ask(path: &Path, args: &[&str], streams: Streams) -> Result<String, String> {
    let mut child = std::process::Command::new(path)
        .args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(if streams == Streams::Both {
            std::process::Stdio::piped()
        } else {
            std::process::Stdio::null()
        })
        .spawn()
        .map_err(|e| e.to_string())?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < ANSWER => std::thread::sleep(Duration::from_millis(5)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("no answer within {} s", ANSWER.as_secs()));
            }
            Err(e) => return Err(e.to_string()),
        }
    };
    let mut out = String::new();
    {
        use std::io::Read;
        if let Some(stdout) = child.stdout.take() {
            let _ = stdout.take(MAX_ANSWER).read_to_string(&mut out);
        }
        if let Some(stderr) = child.stderr.take() {
            let _ = stderr.take(MAX_ANSWER).read_to_string(&mut out);
        }
    }
    if !status.success() {
        return Err(format!("exit {status}"));
    }
    Ok(out)
}
