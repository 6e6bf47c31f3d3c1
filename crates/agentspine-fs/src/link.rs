//! Where a link beneath a root leads, found without following it.
//!
//! Hosts read an instruction file that is a link, and most links in real
//! repositories stay inside them (`CLAUDE.md -> AGENTS.md`, a root
//! `AGENTS.md -> .agents/AGENTS.md`, `pkg/AGENTS.md -> ../shared/rules.md`).
//! [`Root::follow_link`] answers which file of the root such a link names,
//! so that the caller can read that file by its own path, under every rule
//! of [`Root::read`]: the kernel never follows a link for agentspine.
//!
//! The answer is found one name at a time from the top-level root the
//! root was opened from ([`Root::top`]), the way the kernel resolves a
//! path, but confined: each name is looked at with
//! `statx(AT_SYMLINK_NOFOLLOW)` beneath a parent reached without links;
//! a link's text is read with `readlinkat` and put in place of its name
//! (a relative text from the link's own directory, an absolute one only
//! when it names a path beneath the top-level root's own path); `..`
//! climbs the directories found so far, never above the top-level root.
//! At most [`MAX_LINK_HOPS`] links are taken. Refused, each with its own
//! [`LinkRefusal`]: a `..` or an absolute text that leaves the root, a
//! name that does not exist (a dangling link), more links than the bound
//! (a loop), and any name `.git` reached through a link (a repository's
//! own database is never context).

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Component, Path};

use serde::Serialize;

use crate::counters::LiveCounters;
use crate::error::FsError;
use crate::identity::FileKind;
use crate::path::RelPath;
use crate::root::Root;

/// How many links one [`Root::follow_link`] takes before it refuses the
/// chain as a loop. Real repositories use one or two (`CLAUDE.md ->
/// AGENTS.md -> .agents/AGENTS.md`).
pub const MAX_LINK_HOPS: u32 = 8;

/// The file a link names: its link-free path beneath the top-level root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkTarget {
    /// The path, relative to the top-level root, with no link on it.
    pub path: String,
    /// How many links were taken to reach it (0: no link on the way).
    pub hops: u32,
}

/// Why a link's target is not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinkRefusal {
    /// The target lies outside the root (a `..` above it, or an absolute
    /// path elsewhere).
    Outside,
    /// Nothing is at the target.
    Dangling,
    /// More than [`MAX_LINK_HOPS`] links in a row.
    Loop,
    /// The target is in a `.git` directory.
    IntoGit,
}

impl LinkRefusal {
    /// The stable string, e.g. `"outside"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            LinkRefusal::Outside => "outside",
            LinkRefusal::Dangling => "dangling",
            LinkRefusal::Loop => "loop",
            LinkRefusal::IntoGit => "into-git",
        }
    }
}

impl fmt::Display for LinkRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LinkRefusal::Outside => "the link leads out of the root",
            LinkRefusal::Dangling => "the link leads to nothing",
            LinkRefusal::Loop => "the link leads through more than 8 links (a loop?)",
            LinkRefusal::IntoGit => "the link leads into .git",
        })
    }
}

impl Root {
    /// The file `rel` names once every link on its way is put in its
    /// place, as a path beneath the top-level root ([`Root::top`]); see
    /// the module docs. Nothing is opened for reading. `rel` with no link
    /// on it comes back as it is (0 hops), beneath the top-level root.
    ///
    /// Costs per name one open of its parent and one `statx`, and one
    /// `readlinkat` per link.
    pub fn follow_link(&self, rel: impl AsRef<Path>) -> Result<LinkTarget, FsError> {
        let rel = rel.as_ref();
        let shown = || self.shown(rel);
        self.counted(|| {
            let asked = RelPath::parse(rel, shown)?;
            let mut found: Vec<OsString> = if self.prefix().is_empty() {
                Vec::new()
            } else {
                self.prefix().split('/').map(OsString::from).collect()
            };
            let mut pending: VecDeque<OsString> = asked.names.iter().map(|n| n.to_os_string()).collect();
            let mut hops = 0u32;
            let mut first_text: Option<String> = None;
            let refuse = |refusal, text: &Option<String>| FsError::Link {
                path: shown(),
                target: text.clone().unwrap_or_default(),
                refusal,
            };
            let sys = self.sys();
            let top_fd = std::os::fd::AsFd::as_fd(&*self.top.fd);
            while let Some(name) = pending.pop_front() {
                match name.as_bytes() {
                    b"" | b"." => continue,
                    b".." => {
                        if found.pop().is_none() {
                            return Err(refuse(LinkRefusal::Outside, &first_text));
                        }
                        continue;
                    }
                    b".git" if hops > 0 => return Err(refuse(LinkRefusal::IntoGit, &first_text)),
                    _ => {}
                }
                self.reader.check_deadline(&shown)?;
                let parents: Vec<&OsStr> = found.iter().map(OsString::as_os_str).collect();
                let parent = sys.open_parent(top_fd, &parents, &shown)?;
                let look = match sys.look_at(parent.fd(), &name, &shown) {
                    Ok(look) => look,
                    Err(FsError::NotFound { .. }) if hops > 0 => {
                        return Err(refuse(LinkRefusal::Dangling, &first_text));
                    }
                    Err(e) => return Err(e),
                };
                if look.kind != FileKind::Symlink {
                    if !pending.is_empty() && look.kind != FileKind::Directory {
                        return Err(if hops > 0 {
                            refuse(LinkRefusal::Dangling, &first_text)
                        } else {
                            FsError::NotFound { path: shown() }
                        });
                    }
                    found.push(name);
                    continue;
                }
                hops += 1;
                if hops > MAX_LINK_HOPS {
                    return Err(refuse(LinkRefusal::Loop, &first_text));
                }
                LiveCounters::bump(&sys.counters.readlinks, 1);
                let text = rustix::fs::readlinkat(parent.fd(), name.as_os_str(), Vec::new())
                    .map_err(|e| crate::sys::map_lookup_errno(e, &shown))?
                    .into_bytes();
                let text = OsString::from_vec(text);
                if first_text.is_none() {
                    first_text = Some(text.to_string_lossy().into_owned());
                }
                let text_path = Path::new(&text);
                if text_path.is_absolute() {
                    let top_path = self.top.host_path.get();
                    let reduced = crate::path::lexical_absolute(text_path);
                    let Ok(rest) = reduced.strip_prefix(top_path) else {
                        return Err(refuse(LinkRefusal::Outside, &first_text));
                    };
                    found.clear();
                    splice(&mut pending, rest);
                } else {
                    splice(&mut pending, text_path);
                }
            }
            if found.is_empty() {
                return Err(FsError::NotRegular { path: shown(), kind: FileKind::Directory });
            }
            let mut names = Vec::with_capacity(found.len());
            for name in &found {
                let Some(name) = name.to_str() else {
                    return Err(FsError::InvalidPath {
                        path: shown(),
                        reason: "a name on the link's way is not UTF-8",
                    });
                };
                names.push(name);
            }
            let path = names.join("/");
            Ok(LinkTarget { path, hops })
        })
    }
}

/// Puts the names of `text` in front of the names still to resolve.
fn splice(pending: &mut VecDeque<OsString>, text: &Path) {
    let names: Vec<OsString> = text
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(n.to_os_string()),
            Component::ParentDir => Some(OsString::from("..")),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => None,
        })
        .collect();
    for name in names.into_iter().rev() {
        pending.push_front(name);
    }
}
