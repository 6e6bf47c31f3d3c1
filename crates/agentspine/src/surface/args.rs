//! The flags every command shares, as clap structs a command flattens:
//! one name, one value, one meaning and one default each. `docs/cli.md`
//! is their table; `vocabulary` tests every command against it, so a
//! command that invents a flag (or spells a shared one its own way) fails
//! until the table says what it means.
//!
//! ```text
//! #[derive(clap::Args)]
//! pub struct Args {
//!     #[command(flatten)] host: HostArg,
//!     #[command(flatten)] place: RootArgs,
//!     #[command(flatten)] out: OutputArgs,
//! }
//! ```

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use agentspine_core::{Host, Request, Resolver};

/// `--host`: whose loading rules apply.
///
/// One default rule everywhere: `$AGENTSPINE_HOST`, else `generic`.
/// `generic` is the one answer that is right without knowing which agent
/// you run (the project's own files, no profile, no memory), so a command
/// never claims a host's files on a guess; the variable lets you say once
/// which agent you use.
#[derive(Debug, Clone, clap::Args)]
pub struct HostArg {
    /// Whose loading rules apply [default: $AGENTSPINE_HOST, else generic:
    /// the project's own files, no profile, no memory].
    #[arg(long, value_enum, value_name = "HOST", env = "AGENTSPINE_HOST", hide_env = true,
          default_value_t = Host::default(), hide_default_value = true)]
    pub host: Host,
}

/// `--root` and `--cwd`: where a command looks, with the one rule the
/// resolver applies for every command (`Resolver::working_dir`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RootArgs {
    /// Project root to bind to, instead of the host's own rule (git root or
    /// root markers) [default: found from --cwd].
    #[arg(long, value_name = "DIR", value_parser = Utf8Path, global = true)]
    pub root: Option<PathBuf>,
    /// Working directory the agent runs in [default: the current directory;
    /// with --root, the root when the current directory lies outside it].
    #[arg(long, value_name = "DIR", value_parser = Utf8Path, global = true)]
    pub cwd: Option<PathBuf>,
}

impl RootArgs {
    /// The directory whose files the command reads: `--root`, else `--cwd`.
    pub fn place(&self) -> Option<&Path> {
        self.root.as_deref().or(self.cwd.as_deref())
    }

    /// The request these flags mean for `host`, by the resolver's one rule
    /// for every command (`Resolver::working_dir`): the working directory
    /// from `--cwd` (or the current directory, or the root), the root as
    /// given (absolute) or, without `--root`, found by the host's rule.
    pub fn request(&self, resolver: &Resolver<'_>, current: &Path, host: Host) -> Request {
        let absolute = |p: &Path| if p.is_absolute() { p.to_path_buf() } else { current.join(p) };
        Request {
            cwd: resolver.working_dir(current, self.root.as_deref(), self.cwd.as_deref()),
            root: self.root.as_deref().map(absolute),
            ..Request::new(host, current)
        }
    }

    /// The project these flags mean: `--root` as given (made canonical),
    /// else the git root of `--cwd` (or of the current directory).
    pub fn project_root(&self) -> anyhow::Result<PathBuf> {
        match &self.root {
            Some(root) => super::canonical(root),
            None => super::project_root(self.cwd.as_deref()),
        }
    }
}

/// `--scope`: the typed ids of the current work (never install's settings
/// file, which is `--settings`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ScopeArg {
    /// Scope ids that make memory facts relevant, e.g.
    /// `project:blun,person:owner` [default: $AGENTSPINE_SCOPE, else the
    /// project's `agentspine scope`].
    #[arg(long, value_name = "KIND:ID,...")]
    pub scope: Option<String>,
}

/// `--json`, `--quiet` and `--color`: how a command prints. Global, so a
/// command with subcommands takes them after any of them.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct OutputArgs {
    /// Print JSON on stdout; errors too, as {"error":{"code","message","path"}}.
    #[arg(long, global = true)]
    pub json: bool,
    /// Print only the result: no counts, notes, warnings or deprecations on
    /// stderr (errors still are).
    #[arg(long, short = 'q', global = true)]
    pub quiet: bool,
    /// Colour the human output: auto (only on a terminal, never when
    /// NO_COLOR is set), always or never.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,
}

/// When to colour.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set (to anything but empty).
    #[default]
    Auto,
    /// Always, even into a pipe.
    Always,
    /// Never.
    Never,
}

/// A path argument that must be UTF-8: agentspine names paths in its text,
/// its JSON and its source ids, and a name it cannot write down would be
/// compared wrongly later. Refused here, as a usage error naming the flag.
#[derive(Debug, Clone, Copy)]
pub struct Utf8Path;

impl clap::builder::TypedValueParser for Utf8Path {
    type Value = PathBuf;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<PathBuf, clap::Error> {
        if value.to_str().is_some() {
            return Ok(PathBuf::from(value));
        }
        let flag = arg.and_then(clap::Arg::get_long).map(|l| format!("--{l}")).unwrap_or_default();
        let message = format!(
            "{flag} {}: the path is not valid UTF-8, and agentspine names every path it works with in \
             UTF-8 text; rename the directory, or run from inside it and leave {flag} out\n",
            value.to_string_lossy()
        );
        Err(clap::Error::raw(clap::error::ErrorKind::InvalidUtf8, message).with_cmd(cmd))
    }
}

/// An old spelling kept working for one release: what it was, what to
/// write instead. `docs/cli.md` lists the same rows (tested).
#[derive(Debug, Clone, Copy)]
pub struct Deprecated {
    /// The subcommand path, e.g. `cache purge`.
    pub command: &'static str,
    /// The old spelling as typed, e.g. `--root`.
    pub old: &'static str,
    /// What replaces it.
    pub new: &'static str,
}

/// Every old spelling still accepted (as a hidden alias).
pub const DEPRECATED: &[Deprecated] = &[
    Deprecated { command: "query", old: "--k", new: "--limit" },
    Deprecated { command: "query", old: "-k", new: "--limit" },
    Deprecated { command: "cache purge", old: "--root", new: "--memory-dir" },
    Deprecated { command: "install", old: "--scope", new: "--settings" },
    Deprecated { command: "uninstall", old: "--scope", new: "--settings" },
    Deprecated {
        command: "source-bind",
        old: "--scope",
        new: "nothing (state-user is the only binding scope)",
    },
    Deprecated { command: "source-bind", old: "--host all", new: "--all-hosts" },
];

/// The one-line notices for the old spellings in `args` (the arguments
/// after the program name), in table order.
pub fn deprecations(args: &[String]) -> Vec<String> {
    let words: Vec<&str> = args.iter().map(String::as_str).filter(|a| !a.starts_with('-')).collect();
    DEPRECATED
        .iter()
        .filter(|d| {
            let path: Vec<&str> = d.command.split(' ').collect();
            words.len() >= path.len() && words[..path.len()] == path[..]
        })
        .filter(|d| {
            let mut old = d.old.split(' ');
            let (flag, value) = (old.next().unwrap_or_default(), old.next());
            args.iter().enumerate().any(|(i, a)| match value {
                None => a == flag || a.starts_with(&format!("{flag}=")),
                Some(value) => {
                    (a == flag && args.get(i + 1).map(String::as_str) == Some(value))
                        || *a == format!("{flag}={value}")
                }
            })
        })
        .map(|d| {
            format!(
                "agentspine: `{} {}` is deprecated and goes in the next release; use {}",
                d.command, d.old, d.new
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::deprecations;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_owned).collect()
    }

    #[test]
    fn old_spellings_are_named_once_each_and_only_under_their_command() {
        assert_eq!(
            deprecations(&words("query hello -k 2")),
            ["agentspine: `query -k` is deprecated and goes in the next release; use --limit"]
        );
        assert_eq!(deprecations(&words("cache purge --root=/x")).len(), 1);
        assert_eq!(deprecations(&words("resolve --root /x")).len(), 0);
        assert_eq!(deprecations(&words("source-bind /a --host all")).len(), 1);
        assert_eq!(deprecations(&words("source-bind /a --host claude")).len(), 0);
    }
}
