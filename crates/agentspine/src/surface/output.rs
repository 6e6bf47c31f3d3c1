//! How the human output is printed, set once from `--quiet` and `--color`:
//! notes and warnings on stderr (none with `--quiet`), colour only where it
//! was asked for or a terminal shows it and `NO_COLOR` is unset.

use std::io::IsTerminal;
use std::sync::OnceLock;

use crate::surface::args::{ColorChoice, OutputArgs};

/// The settings of this process.
#[derive(Debug, Clone, Copy, Default)]
struct Settings {
    quiet: bool,
    /// Whether stderr is coloured.
    color: bool,
}

static SETTINGS: OnceLock<Settings> = OnceLock::new();

/// Whether `choice` colours a stream that is (or is not) a terminal, with
/// `no_color` the value of `NO_COLOR` (set and non-empty disables `auto`).
pub fn colors(choice: ColorChoice, terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && no_color.is_none_or(|v| v.is_empty()),
    }
}

/// Takes the command's output flags (the first call wins).
pub fn set(out: &OutputArgs) {
    let no_color = std::env::var_os("NO_COLOR");
    let color = colors(out.color, std::io::stderr().is_terminal(), no_color.as_deref());
    let _ = SETTINGS.set(Settings { quiet: out.quiet, color });
}

fn settings() -> Settings {
    SETTINGS.get().copied().unwrap_or_default()
}

/// A note for people on stderr (a count, a deprecation); none with `--quiet`.
pub fn note(line: &str) {
    if !settings().quiet {
        eprintln!("{line}");
    }
}

/// A warning on stderr, `warning: ` first (yellow when colouring); none
/// with `--quiet`.
pub fn warn(message: &str) {
    if !settings().quiet {
        eprintln!("{}{message}", paint("33", "warning: "));
    }
}

/// An error line on stderr, always printed (red prefix when colouring).
pub fn error(message: &str) {
    eprintln!("{}{message}", paint("31", "agentspine: "));
}

/// `text` in the ANSI colour `code` when colouring, else as it is.
fn paint(code: &str, text: &str) -> String {
    if settings().color { format!("\x1b[{code}m{text}\x1b[0m") } else { text.to_owned() }
}

/// `n word`, with `word` in the plural unless `n` is one (`1 source`,
/// `2 sources`); `plural` is the plural form.
pub fn count(n: usize, singular: &str, plural: &str) -> String {
    format!("{n} {}", if n == 1 { singular } else { plural })
}

#[cfg(test)]
mod tests {
    use super::{ColorChoice, colors, count};
    use std::ffi::OsStr;

    #[test]
    fn colour_only_on_a_terminal_and_never_under_no_color() {
        assert!(colors(ColorChoice::Auto, true, None));
        assert!(!colors(ColorChoice::Auto, false, None));
        assert!(!colors(ColorChoice::Auto, true, Some(OsStr::new("1"))));
        assert!(colors(ColorChoice::Auto, true, Some(OsStr::new(""))));
        assert!(colors(ColorChoice::Always, false, Some(OsStr::new("1"))));
        assert!(!colors(ColorChoice::Never, true, None));
    }

    #[test]
    fn one_source_is_singular() {
        assert_eq!(count(1, "source", "sources"), "1 source");
        assert_eq!(count(0, "source", "sources"), "0 sources");
    }
}
