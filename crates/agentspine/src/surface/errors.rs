//! Every error a command reports, as one line for people or, with
//! `--json`, `{"error":{"code","message","path"?}}` on stdout, and its exit
//! code. The codes are stable and listed in `docs/cli.md` (tested); an
//! error none of the known kinds claims reports `unclassified`, which the
//! error-path tests refuse.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// A failed required preflight (exit code 3).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct Preflight(pub agentspine_core::catalog::PreflightError);

/// An error that knows its code (and the file or argument it is about):
/// the front end's own refusals.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Coded {
    /// The stable machine code.
    pub code: &'static str,
    /// The line for people: what, why, what to do.
    pub message: String,
    /// The file concerned, when there is one.
    pub path: Option<PathBuf>,
}

impl Coded {
    /// An error with `code` and `message`, about no one file.
    pub fn new(code: &'static str, message: impl Into<String>) -> Coded {
        Coded { code, message: message.into(), path: None }
    }

    /// The same, about `path`.
    pub fn at(code: &'static str, path: impl Into<PathBuf>, message: impl Into<String>) -> Coded {
        Coded { code, message: message.into(), path: Some(path.into()) }
    }
}

/// The exit codes, as documented in `docs/cli.md`.
pub mod exit {
    /// The command did what was asked.
    pub const OK: u8 = 0;
    /// It ran, and something needs your action (`doctor`, `audit --verify`).
    pub const ACTION_NEEDED: u8 = 1;
    /// Bad usage, or an error: nothing (more) was done.
    pub const ERROR: u8 = 2;
    /// `--required`: a required source did not resolve completely.
    pub const PREFLIGHT: u8 = 3;
}

/// The code and path of `error`: the first link of its chain that a known
/// kind claims.
pub fn classify(error: &anyhow::Error) -> (&'static str, Option<String>) {
    for cause in error.chain() {
        if let Some(e) = cause.downcast_ref::<Coded>() {
            return (e.code, e.path.as_ref().map(|p| p.display().to_string()));
        }
        if cause.downcast_ref::<Preflight>().is_some() {
            return ("preflight-incomplete", None);
        }
        if let Some(e) = cause.downcast_ref::<Unanswered>() {
            return ("deadline", Some(e.path.display().to_string()));
        }
        if let Some(e) = cause.downcast_ref::<agentspine_core::ResolveError>() {
            return (e.code(), resolve_path(e));
        }
        if let Some(e) = cause.downcast_ref::<agentspine_core::check::CheckError>() {
            return match e {
                agentspine_core::check::CheckError::Resolve(e) => (e.code(), resolve_path(e)),
                agentspine_core::check::CheckError::NotAProject { root, .. } => {
                    (e.code(), Some(root.display().to_string()))
                }
                agentspine_core::check::CheckError::PathOutsideRoot { path, .. }
                | agentspine_core::check::CheckError::PathThroughLink { path } => {
                    (e.code(), Some(path.display().to_string()))
                }
            };
        }
        if let Some(e) = cause.downcast_ref::<agentspine_core::check::SilenceError>() {
            return (e.code(), Some(e.file.display().to_string()));
        }
        if let Some(e) = cause.downcast_ref::<agentspine_fs::FsError>() {
            return (e.code().as_str(), Some(e.path().to_owned()).filter(|p| !p.is_empty()));
        }
        if let Some(e) = cause.downcast_ref::<agentspine_core::catalog::DocumentError>() {
            return match e {
                agentspine_core::catalog::DocumentError::UnknownId(_) => ("unknown-source-id", None),
                agentspine_core::catalog::DocumentError::Refused { error, .. } => {
                    (error.code().as_str(), Some(error.path().to_owned()))
                }
            };
        }
        if cause.downcast_ref::<agentspine_core::memory::relevance::ScopeSourceError>().is_some()
            || cause.downcast_ref::<agentspine_core::memory::relevance::BadScopeId>().is_some()
        {
            return ("bad-scope-id", None);
        }
        if let Some(e) = cause.downcast_ref::<agentspine_store::StoreError>() {
            return (
                match e {
                    agentspine_store::StoreError::NoStateDir { .. } => "no-state-dir",
                    agentspine_store::StoreError::TooNew { .. } => "state-too-new",
                    _ => "state-unavailable",
                },
                None,
            );
        }
        if cause.downcast_ref::<agentspine_store::RecordError>().is_some() {
            return ("bad-record", None);
        }
        if cause.downcast_ref::<agentspine_store::BindingError>().is_some()
            || cause.downcast_ref::<agentspine_store::CacheError>().is_some()
            || cause.downcast_ref::<agentspine_store::ScopeError>().is_some()
            || cause.downcast_ref::<agentspine_store::AuditError>().is_some()
            || cause.downcast_ref::<agentspine_store::IncidentError>().is_some()
        {
            return ("state-error", None);
        }
        if cause.downcast_ref::<std::io::Error>().is_some() {
            return ("io", None);
        }
    }
    ("unclassified", None)
}

fn resolve_path(e: &agentspine_core::ResolveError) -> Option<String> {
    use agentspine_core::ResolveError as R;
    let path = match e {
        R::Relative { path, .. } | R::NoSuchDirectory { path } | R::NotADirectory { path } => path,
        R::CwdOutsideRoot { cwd, .. } => cwd,
        R::TargetOutsideRoot { target, .. }
        | R::TargetThroughSymlink { target }
        | R::TargetMissing { target } => target,
        R::Fs(e) => return Some(e.path().to_owned()),
        _ => return None,
    };
    Some(path.display().to_string())
}

/// What to do next, for the codes whose message (from a library that
/// does not know the command line) names no step.
fn next_step(code: &str) -> &'static str {
    match code {
        "no-such-directory" | "not-a-directory" => "; check the directory given to --root or --cwd",
        "cwd-outside-root" => "; give a --cwd inside --root, or leave one of them out",
        "target-outside-root" => "; give a --target inside the project root, or a --root that contains it",
        "target-through-symlink" => "; name the file by a path without links",
        _ => "",
    }
}

/// The exit code of `error`.
pub fn exit_code(error: &anyhow::Error) -> ExitCode {
    if error.downcast_ref::<Preflight>().is_some() {
        ExitCode::from(exit::PREFLIGHT)
    } else {
        ExitCode::from(exit::ERROR)
    }
}

/// Whether `error` is a write to a closed pipe.
pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Prints `error`: one line on stderr, or the JSON object on stdout when
/// the command was asked for JSON (so a script always gets JSON).
pub fn report(error: &anyhow::Error, json: bool) {
    if !json {
        super::output::error(&format!("{error:#}{}", next_step(classify(error).0)));
        return;
    }
    let (code, path) = classify(error);
    let message = format!("{error:#}{}", next_step(code));
    let mut value = serde_json::json!({ "error": { "code": code, "message": message } });
    if let Some(path) = path {
        value["error"]["path"] = serde_json::Value::String(path);
    }
    if let Some(Preflight(e)) = error.downcast_ref::<Preflight>() {
        value["error"]["causes"] = serde_json::to_value(&e.causes).unwrap_or_default();
    }
    // A closed stdout leaves nowhere to say it.
    let _ = writeln!(std::io::stdout().lock(), "{value}");
}

/// A command's reads did not finish within its bound.
#[derive(Debug, thiserror::Error)]
#[error(
    "{}: reading {} did not finish within {} s (a file system that does not answer?); gave up",
    .path.display(),
    .file.as_ref().map_or_else(|| "the files under it".to_owned(), |f| f.display().to_string()),
    .bound.as_secs_f32()
)]
pub(crate) struct Unanswered {
    /// The root (or directory) the command was given.
    pub path: std::path::PathBuf,
    /// The file the work was waiting on, when the kernel says.
    pub file: Option<std::path::PathBuf>,
    pub bound: std::time::Duration,
}
