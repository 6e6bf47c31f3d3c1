//! What every surface of the binary shares: the flag vocabulary
//! ([`args`]), errors with their stable codes and exit codes ([`errors`]),
//! and the user's own directories made absolute. The command line, the
//! installer and the socket server build on it; it builds on none of them.

pub(crate) mod args;
pub(crate) mod errors;
pub(crate) mod output;

/// An absolute, canonical directory (links in the user's own path are
/// allowed: it is the user's choice, not a model's).
pub(crate) fn canonical(dir: &std::path::Path) -> anyhow::Result<std::path::PathBuf> {
    let current = std::env::current_dir()?;
    let absolute = if dir.is_absolute() { dir.to_path_buf() } else { current.join(dir) };
    let reader = agentspine_fs::Reader::new(agentspine_fs::Budget::UNLIMITED);
    let root = reader.open_root(&absolute)?;
    Ok(root.host_path().to_path_buf())
}

/// The project root of `cwd` by the git rule (git root, else the cwd; a
/// `.git` in the home directory or above makes no root).
pub(crate) fn project_root(cwd: Option<&std::path::Path>) -> anyhow::Result<std::path::PathBuf> {
    let cwd = canonical(cwd.unwrap_or(std::path::Path::new(".")))?;
    let reader = agentspine_fs::Reader::new(agentspine_fs::Budget::UNLIMITED);
    let request = agentspine_core::Request::new(agentspine_core::Host::default(), cwd);
    let resolver = crate::state::resolver(reader);
    Ok(resolver.project_root(&request)?.0)
}
