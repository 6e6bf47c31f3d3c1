//! One module per host: its rules and its text format. Shared mechanics
//! live in `chain`, `gather` and `locate`; a host module holds only what
//! is true of that host.

pub mod desktop;

use agentspine_fs::Reader;

use crate::env::Environment;
use crate::error::ResolveError;
use crate::gather::Gather;
use crate::host::{Host, Request};
use crate::locate::{find_marked_root, locate};
use crate::resolution::Resolution;

/// The project root by the git rule: the nearest directory at or above the
/// cwd holding `.git` (a directory or a file), else the cwd.
pub(crate) fn git_root(reader: &Reader, cwd: &std::path::Path) -> (std::path::PathBuf, String) {
    match find_marked_root(reader, cwd, &[".git".to_owned()]) {
        Some((root, _)) => (root, "nearest .git".to_owned()),
        None => (cwd.to_path_buf(), "the working directory (no .git above it)".to_owned()),
    }
}

pub(crate) fn resolve(request: &Request, env: &Environment, reader: &Reader) -> Result<Resolution, ResolveError> {
    let located = locate(reader, &request.cwd, request.root.as_deref(), request.target.as_deref(), |cwd| {
        git_root(reader, cwd)
    })?;
    let mut gather = Gather::default();
    let profile_home = match request.host {
        Host::Desktop => {
            desktop::resolve(env, &located, true, &mut gather);
            env.desktop_home()
        }
        Host::Generic => {
            desktop::resolve(env, &located, false, &mut gather);
            None
        }
        _ => todo_host(request.host),
    };
    Ok(Resolution {
        host: request.host,
        profile_home,
        project_root: located.root_path.clone(),
        root_evidence: located.evidence.clone(),
        cwd: located.cwd.clone(),
        chain_dir: if located.chain_names.is_empty() { ".".to_owned() } else { located.chain_names.join("/") },
        parts: gather.parts,
        probes: gather.probes,
        warnings: Vec::new(),
        counters: reader.counters(),
    })
}

fn todo_host(_host: Host) -> Option<std::path::PathBuf> {
    None
}

pub(crate) fn render(resolution: &Resolution) -> String {
    match resolution.host {
        Host::Desktop | Host::Generic => desktop::render(&resolution.parts),
        _ => String::new(),
    }
}
