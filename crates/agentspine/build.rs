//! Records what `agentspine --version` names besides the version: the
//! commit it was built from and the target it runs on.
//!
//! The commit comes from `AGENTSPINE_COMMIT` when set (a packaged source
//! tree has no `.git`), else from the local git repository (`git rev-parse`,
//! no network); without either it is `unknown`, and the build goes on.

use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=AGENTSPINE_COMMIT");
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".to_owned());
    let commit = match std::env::var("AGENTSPINE_COMMIT") {
        Ok(commit) if !commit.trim().is_empty() => commit.trim().to_owned(),
        _ => git_commit().unwrap_or_else(|| "unknown".to_owned()),
    };
    println!("cargo:rustc-env=AGENTSPINE_BUILD_COMMIT={commit}");
    println!("cargo:rustc-env=AGENTSPINE_BUILD_TARGET={target}");
}

/// The short commit of HEAD; `None` outside a git checkout or without git.
/// (Uncommitted changes are not marked: watching the tree would rebuild the
/// binary on every edit.)
fn git_commit() -> Option<String> {
    let commit = git(&["rev-parse", "--short=12", "HEAD"])?;
    // Rebuild when HEAD moves: HEAD itself, the branch it names, and the
    // packed refs (a worktree keeps its HEAD apart from the shared refs).
    for file in ["HEAD", "packed-refs"] {
        if let Some(path) = git(&["rev-parse", "--git-path", file]) {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"])
        && let Some(path) = git(&["rev-parse", "--git-path", &branch])
    {
        println!("cargo:rerun-if-changed={path}");
    }
    Some(commit)
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_owned())
}
