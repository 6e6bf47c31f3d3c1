//! `agentspine completions SHELL` and `agentspine manpage`: shell
//! completions (clap_complete) and the man page (clap_mangen), made from
//! the same definitions as the parser. The copies checked in under
//! `docs/` are compared with these by the test suite.

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
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    /// The shell.
    #[arg(value_enum)]
    shell: Shell,
}

/// Print agentspine's man page (roff) on stdout.
///
/// Example:
///
///   agentspine manpage > ~/.local/share/man/man1/agentspine.1
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct ManArgs {}

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

/// The man page, in roff.
pub fn page() -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    clap_mangen::Man::new(command()).render(&mut out)?;
    Ok(out)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    std::io::stdout().lock().write_all(&script(args.shell))?;
    Ok(ExitCode::SUCCESS)
}

pub fn man(_: ManArgs) -> anyhow::Result<ExitCode> {
    std::io::stdout().lock().write_all(&page()?)?;
    Ok(ExitCode::SUCCESS)
}
