//! Which directories may be a project root: the one "never a project" rule
//! every surface applies (DESIGN.md, "Roots").
//!
//! `$HOME`, every directory above it (`/` included) and each host profile
//! (`$CLAUDE_CONFIG_DIR` or `~/.claude`, `$CODEX_HOME` or `~/.codex`,
//! `$PI_CODING_AGENT_DIR` or `~/.pi/agent`, the desktop rule's fixed
//! `~/.pi/agent`, and the profile directories the user names in
//! `$AGENTSPINE_PROFILE_DIRS` or the `[roots] profiles` list of
//! `~/.config/agentspine/config.toml`) are never a project: no project file is probed, listed or
//! read there. A directory nested inside home or a profile is an ordinary
//! project. Every path is compared in its canonical form (links resolved)
//! as well as spelled, so a home or profile reached through a link is
//! recognised.
//!
//! Root markers (`.git`, Codex's `project_root_markers`) found in such a
//! directory are ignored: a dotfiles repository in `$HOME` does not make
//! the whole home one project. A project below it without a marker of its
//! own is bound the way each host binds a directory with no marker: the
//! working directory alone is the root.

use std::path::{Path, PathBuf};

use agentspine_fs::Reader;

use crate::env::Environment;
use crate::host::Host;
pub use crate::resolution::RootKind;

/// The profile directories the user names besides the built-in ones:
/// `$AGENTSPINE_PROFILE_DIRS`, then `profiles` in the `[roots]` table of the
/// user's configuration file (absolute paths, or `~/…`). A file that cannot
/// be read or parsed names none (`doctor` reports it).
pub(crate) fn configured_profiles(env: &Environment, reader: &Reader) -> Vec<PathBuf> {
    let mut found = env.extra_profiles.clone();
    let Some(file) = env.user_config_file() else { return found };
    let (Some(dir), Some(name)) = (file.parent(), file.file_name().and_then(|n| n.to_str())) else {
        return found;
    };
    let Some(text) = crate::config::read_config(reader, dir, name, &mut Vec::new()) else { return found };
    let Ok(table) = text.parse::<toml::Table>() else { return found };
    let listed = table.get("roots").and_then(|r| r.get("profiles")).and_then(|p| p.as_array());
    for item in listed.into_iter().flatten().filter_map(|v| v.as_str()) {
        let path = match item.strip_prefix("~/") {
            Some(rest) => env.home.as_ref().map(|h| h.join(rest)),
            None => Some(PathBuf::from(item)).filter(|p| p.is_absolute()),
        };
        found.extend(path);
    }
    found
}

/// How a root or working directory a caller names is opened: the one rule
/// every surface applies to the roots it is given.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum NamedRoots {
    /// Named by the user on the command line (`--root`, `--cwd`, a shell's
    /// current directory): a link on the path is followed once, and the
    /// request is bound to the link-free directory it names (what
    /// `resolve` reports as the root).
    #[default]
    FollowedOnce,
    /// Named by a client (an MCP client's roots and `project_root`, a
    /// hook's `cwd`, the desktop socket's `projects.register`): taken as
    /// given; a link (or `/proc` magic link) anywhere on the path is
    /// refused with `root-through-link`, checked on every use.
    TakenAsGiven,
}

/// The home directory and the host profiles, as spelled and canonical,
/// and how named roots are opened.
#[derive(Debug, Clone, Default)]
pub struct NeverProjects {
    homes: Vec<PathBuf>,
    profiles: Vec<PathBuf>,
    pub(crate) named: NamedRoots,
}

impl NeverProjects {
    /// Canonicalises the home directory and every profile of `env` (one
    /// directory open each, through `reader`; a directory that does not
    /// exist is kept as spelled).
    pub fn new(env: &Environment, reader: &Reader) -> NeverProjects {
        let both = |path: PathBuf| -> Vec<PathBuf> {
            let canonical = reader.open_root(&path).ok().map(|r| r.host_path().to_path_buf());
            let mut out = vec![crate::paths::lexical(&path)];
            if let Some(c) = canonical
                && !out.contains(&c)
            {
                out.push(c);
            }
            out
        };
        let homes = env.home.clone().map(both).unwrap_or_default();
        let mut profiles = Vec::new();
        let built_in = Host::ALL.iter().filter_map(|host| (host.profile().home)(env));
        for profile in built_in.chain(configured_profiles(env, reader)) {
            for p in both(profile) {
                if !profiles.contains(&p) {
                    profiles.push(p);
                }
            }
        }
        NeverProjects { homes, profiles, named: NamedRoots::default() }
    }

    /// The same directories, with roots named as `named` says.
    pub fn with_named_roots(self, named: NamedRoots) -> NeverProjects {
        NeverProjects { named, ..self }
    }

    /// How named roots are opened.
    pub fn named_roots(&self) -> NamedRoots {
        self.named
    }

    /// What `dir` (absolute; canonical where it exists) is.
    pub fn classify(&self, dir: &Path) -> RootKind {
        if self.homes.iter().any(|h| h == dir) {
            return RootKind::Home;
        }
        if self.homes.iter().any(|h| h.starts_with(dir)) {
            return RootKind::AboveHome;
        }
        if self.profiles.iter().any(|p| p == dir) {
            return RootKind::Profile;
        }
        RootKind::Project
    }

    /// Whether a root marker found in `dir` may make it a project root.
    pub(crate) fn may_root(&self, dir: &Path) -> bool {
        self.classify(dir).is_project()
    }
}

/// The roots a long-lived server (the MCP server) was given by its launch:
/// canonical project roots only; a request may name one of them or a
/// directory inside one, nothing else.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowedRoots {
    roots: Vec<PathBuf>,
}

/// Why a root a request named is refused.
#[derive(Debug, thiserror::Error)]
pub enum RootRefused {
    /// Home, above it, or a profile: never a project, on any surface.
    #[error("{}: {} is never a project root; name the project's own directory", .asked.display(), .kind.what())]
    NeverProject {
        /// The root asked for (canonical).
        asked: PathBuf,
        /// What it is.
        kind: RootKind,
    },
    /// Not one of the roots this server was given, nor inside one.
    #[error(
        "{}: not a root this server was started for (allowed: {}); add it to your client's MCP roots, \
         or start the server with `agentspine mcp --root {}`",
        .asked.display(),
        if .allowed.is_empty() { "none".to_owned() } else {
            .allowed.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
        },
        .asked.display()
    )]
    NotAllowed {
        /// The root asked for (canonical).
        asked: PathBuf,
        /// The roots that are allowed.
        allowed: Vec<PathBuf>,
    },
}

impl AllowedRoots {
    /// The roots, in the order given.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Adds `root` (canonical) unless it is never a project or already there.
    pub(crate) fn add(&mut self, never: &NeverProjects, root: PathBuf) {
        if never.classify(&root).is_project() && !self.roots.contains(&root) {
            self.roots.push(root);
        }
    }

    /// Whether `asked` (canonical) may be resolved: never a home, above-home
    /// or profile root; else one of the roots or inside one.
    pub(crate) fn check(&self, never: &NeverProjects, asked: &Path) -> Result<(), RootRefused> {
        let kind = never.classify(asked);
        if !kind.is_project() {
            return Err(RootRefused::NeverProject { asked: asked.to_path_buf(), kind });
        }
        if self.roots.iter().any(|r| asked.starts_with(r)) {
            return Ok(());
        }
        Err(RootRefused::NotAllowed { asked: asked.to_path_buf(), allowed: self.roots.clone() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn never() -> NeverProjects {
        NeverProjects {
            homes: vec!["/home/u".into(), "/data/u".into()],
            profiles: vec!["/home/u/.claude".into(), "/cfg/codex".into()],
            named: NamedRoots::default(),
        }
    }

    #[test]
    fn home_above_home_and_profiles_are_never_projects() {
        let n = never();
        assert_eq!(n.classify(Path::new("/home/u")), RootKind::Home);
        assert_eq!(n.classify(Path::new("/data/u")), RootKind::Home, "the canonical home too");
        assert_eq!(n.classify(Path::new("/home")), RootKind::AboveHome);
        assert_eq!(n.classify(Path::new("/")), RootKind::AboveHome);
        assert_eq!(n.classify(Path::new("/home/u/.claude")), RootKind::Profile);
        assert_eq!(n.classify(Path::new("/cfg/codex")), RootKind::Profile);
        for project in ["/home/u/src/app", "/home/u/.claude/projects/x", "/cfg", "/srv/repo", "/home/uu"] {
            assert_eq!(n.classify(Path::new(project)), RootKind::Project, "{project}");
        }
    }
}
