//! `agentspine completions SHELL` and `agentspine manpage [COMMAND]`:
//! shell completions (clap_complete) and the man pages (clap_mangen), one
//! for agentspine and one per subcommand at every depth
//! (`agentspine-cache-purge.1`), made from the same definitions as the
//! parser. The copies checked in under `docs/` are compared with these by
//! the test suite.

use std::io::Write;
use std::process::ExitCode;

use clap::CommandFactory;

/// Print shell completions for agentspine.
///
/// Examples:
///
///   agentspine completions bash > ~/.local/share/bash-completion/completions/agentspine
///
///   agentspine completions zsh > "${fpath[1]}/_agentspine"
///
///   agentspine completions fish > ~/.config/fish/completions/agentspine.fish
///
///   agentspine completions powershell >> $PROFILE
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/cli.md#completions-and-the-man-page
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The shell.
    #[arg(value_enum)]
    shell: Shell,
}

/// Print a man page (roff) on stdout: agentspine's, or a subcommand's.
///
/// Examples:
///
///   agentspine manpage > ~/.local/share/man/man1/agentspine.1
///
///   agentspine manpage cache purge > ~/.local/share/man/man1/agentspine-cache-purge.1
///
///   agentspine manpage --list
///
/// Reference: https://github.com/agentspine/agentspine/blob/main/docs/cli.md#completions-and-the-man-page
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct ManArgs {
    /// The subcommand whose page to print, as typed (`cache purge`)
    /// [default: agentspine's own page].
    #[arg(value_name = "COMMAND")]
    command: Vec<String>,
    /// List every page instead: its file name, then its command.
    #[arg(long, conflicts_with = "command")]
    list: bool,
}

/// One man page.
pub struct Page {
    /// Its file name, e.g. `agentspine-cache-purge.1`.
    pub file: String,
    /// The command path after `agentspine`, e.g. `["cache", "purge"]`.
    pub path: Vec<String>,
    command: clap::Command,
}

impl Page {
    /// The page, in roff.
    pub fn render(&self) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::new();
        clap_mangen::Man::new(self.command.clone()).render(&mut out)?;
        Ok(out)
    }
}

/// Every page: agentspine's first, then each subcommand's, depth first in
/// the parser's order. Hidden commands get none; there is no `help` page
/// (`agentspine help TOPIC` is a topic, not a command).
pub fn pages() -> Vec<Page> {
    fn walk(command: &clap::Command, path: Vec<String>, out: &mut Vec<Page>) {
        let file = clap_mangen::Man::new(command.clone()).get_filename();
        out.push(Page { file, path: path.clone(), command: command.clone() });
        for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
            let mut path = path.clone();
            path.push(sub.get_name().to_owned());
            walk(sub, path, out);
        }
    }
    let mut root = command().disable_help_subcommand(true);
    root.build();
    let mut out = Vec::new();
    walk(&root, Vec::new(), &mut out);
    out
}

/// The shells completions are made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Shell {
    /// Bash.
    Bash,
    /// Zsh.
    Zsh,
    /// Fish.
    Fish,
    /// PowerShell.
    Powershell,
}

/// The parser's definitions with the plain package version, so the
/// generated files do not change with the commit a build was made from.
fn command() -> clap::Command {
    super::Cli::command().version(env!("CARGO_PKG_VERSION")).long_version(env!("CARGO_PKG_VERSION"))
}

/// The completion script for `shell`.
pub fn script(shell: Shell) -> Vec<u8> {
    let generator = match shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
        Shell::Powershell => clap_complete::Shell::PowerShell,
    };
    let mut out = Vec::new();
    clap_complete::generate(generator, &mut command(), "agentspine", &mut out);
    out
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    std::io::stdout().lock().write_all(&script(args.shell))?;
    Ok(ExitCode::SUCCESS)
}

pub fn man(args: ManArgs) -> anyhow::Result<ExitCode> {
    let pages = pages();
    let mut out = std::io::stdout().lock();
    if args.list {
        for page in &pages {
            writeln!(
                out,
                "{}",
                [page.file.clone()].into_iter().chain(page.path.clone()).collect::<Vec<_>>().join(" ")
            )?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let Some(page) = pages.iter().find(|p| p.path == args.command) else {
        return Err(crate::surface::errors::Coded::new(
            "unknown-command",
            format!(
                "manpage {}: no such command; `agentspine manpage --list` lists every page",
                args.command.join(" ")
            ),
        )
        .into());
    };
    out.write_all(&page.render()?)?;
    Ok(ExitCode::SUCCESS)
}
