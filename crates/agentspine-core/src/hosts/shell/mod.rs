//! The files and directories a shell command is about to read or search,
//! named from its text alone: how a coding agent's shell tool call
//! (`sed -n '1,80p' src/x.ts`, `rg -n foo crates`, `git diff -- a.rs`)
//! can be given the instruction files of the directories it reads, as a
//! read tool's path is.
//!
//! Nothing is run and nothing is touched. The command is split into words
//! as a POSIX shell splits it (quotes, escapes, operators, redirections,
//! heredocs), `cd` is followed, and only the path operands of the commands
//! [`read_targets`] lists are taken, with each command's options known so
//! an option's value is never taken for a path. What only the run could
//! tell is never guessed: a word holding `$VAR`, `$(..)`, a glob, a brace
//! list or `~` is skipped, an unknown command names nothing, and a `cd` to
//! an unknown place ends the reading there.
//!
//! The split into words is `words`; what a simple command does (through
//! its wrappers, to a `cd`, a nested script or the paths it reads) is
//! `commands`, with each command's options in `options`. This module walks
//! the commands in order, following `cd`.

mod commands;
mod options;
mod words;

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use crate::paths::lexical;

use commands::{Effect, effect};
use words::{Op, Piece, Redirect, Token, Word, tokens};

/// At most this many paths are named for one command (each costs a
/// resolution).
pub const MAX_SHELL_TARGETS: usize = 16;

/// How deep `bash -c '… bash -c …'` is followed.
const MAX_NESTING: usize = 3;

/// The paths `command` is about to read or search, absolute (relative ones
/// are taken from the shell's directory, which starts at `cwd` and follows
/// `cd DIR`) and lexically reduced, in order of appearance, without
/// repeats, at most [`MAX_SHELL_TARGETS`].
///
/// Recognised, their path operands only: `cat`, `tac`, `head`, `tail`,
/// `nl`, `less`, `more`, `wc`, `file`, `stat`, `bat`; `sed` and `awk` (after
/// their script); `grep`, `egrep`, `fgrep`, `rg`, `ag` (after the pattern);
/// `ls`, `tree`, `find` (its roots), `fd`; `git diff|show|log` and
/// `git grep` (the paths after `--`), `git blame` (its file), `git ls-files`,
/// with `git -C DIR`; `python3 -m json.tool FILE`, `jq FILTER FILE…`; a
/// `< FILE` redirection of any command; and the script of
/// `bash|sh|zsh|dash -c`.
/// `command`, `time`, `nice`, `nohup`, `timeout`, `env` (with `-C DIR`) and
/// `NAME=value` prefixes are looked through; anything else names nothing.
///
/// A command that searches its directory when given no path (`ls`, `tree`,
/// `find`, `fd`, `rg`, `ag`, `grep -r`, `git grep`, `git ls-files`) names
/// that directory only when it is not `cwd` (after `cd pkg`, or with
/// `git -C pkg`): `cwd`'s own chain is the caller's already. A command the
/// shell cannot split (an unterminated quote or substitution) names nothing.
pub fn read_targets(command: &str, cwd: &Path) -> Vec<PathBuf> {
    let start = lexical(cwd);
    let mut reading = Reading { start: start.clone(), out: Vec::new() };
    let _ = reading.script(command, start, 0);
    reading.out
}

/// The command line of a tool input given as an argv array, for
/// [`read_targets`]: the script of `bash|sh|zsh|dash … -c SCRIPT` (Codex's
/// `["bash", "-lc", "cat a.rs"]`), else the words shell-quoted and joined,
/// so the parse sees exactly these words (`["cat", "*.rs"]` names the file
/// `*.rs`: an argv is never expanded). `None` when there is no command (an
/// empty argv, a shell without `-c`).
pub fn command_of_argv(argv: &[String]) -> Option<String> {
    let (program, args) = argv.split_first()?;
    if is_shell(program.rsplit('/').next().unwrap_or_default()) {
        return script_of(args.iter().map(|a| Some(a.as_str()))).map(str::to_owned);
    }
    Some(argv.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" "))
}

fn is_shell(name: &str) -> bool {
    matches!(name, "bash" | "sh" | "zsh" | "dash")
}

/// `arg` as one shell word with the same text.
fn quote(arg: &str) -> String {
    let plain = |b: u8| b.is_ascii_alphanumeric() || b"_-./,:@%+".contains(&b);
    if !arg.is_empty() && arg.bytes().all(plain) {
        arg.to_owned()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// The script a shell's arguments run (`-lc SCRIPT`, `-l -c SCRIPT`), if
/// they run one given inline. `None` items are words not known statically.
fn script_of<'a>(args: impl IntoIterator<Item = Option<&'a str>>) -> Option<&'a str> {
    let mut inline = false;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let arg = arg?;
        match arg {
            "-o" | "+o" | "-O" | "+O" => {
                args.next()?;
            }
            "--" => return args.next().flatten().filter(|_| inline),
            _ if arg.starts_with("--") => {}
            _ if arg.len() > 1
                && (arg.starts_with('-') || arg.starts_with('+'))
                && arg[1..].bytes().all(|b| b.is_ascii_alphabetic()) =>
            {
                inline |= arg.starts_with('-') && arg.contains('c');
            }
            _ => return inline.then_some(arg),
        }
    }
    None
}

// ---------------------------------------------------------------------------
// The walk: what the shell runs, and where.

/// One simple command: its words, and the files its `<` reads.
#[derive(Default)]
struct Simple {
    words: Vec<Word>,
    inputs: Vec<Word>,
    /// Its standard input is a file, heredoc or string, not the terminal.
    stdin: bool,
    redirected: bool,
}

/// Where the walk is: the paths named so far.
struct Reading {
    start: PathBuf,
    out: Vec<PathBuf>,
}

impl Reading {
    fn add(&mut self, path: PathBuf) -> ControlFlow<()> {
        if !self.out.contains(&path) {
            self.out.push(path);
        }
        if self.out.len() >= MAX_SHELL_TARGETS { ControlFlow::Break(()) } else { ControlFlow::Continue(()) }
    }

    /// Walks the commands of `src`, run from `dir`. A `( … )` subshell
    /// keeps its `cd` to itself; an unexpected operator ends the walk.
    fn script(&mut self, src: &str, mut dir: PathBuf, depth: usize) -> ControlFlow<()> {
        let Ok(tokens) = tokens(src) else { return ControlFlow::Continue(()) };
        let mut outer: Vec<PathBuf> = Vec::new();
        let mut simple = Simple::default();
        let mut piped_in = false;
        let mut tokens = tokens.into_iter();
        while let Some(token) = tokens.next() {
            let op = match token {
                Token::Word(word) => {
                    simple.words.push(word);
                    continue;
                }
                Token::Op(Op::Redirect(redirect)) => {
                    let Some(Token::Word(word)) = tokens.next() else { return ControlFlow::Break(()) };
                    simple.redirected = true;
                    match redirect {
                        Redirect::Input => {
                            simple.stdin = true;
                            simple.inputs.push(word);
                        }
                        Redirect::Heredoc { .. } | Redirect::HereString => simple.stdin = true,
                        Redirect::Output => {}
                    }
                    continue;
                }
                Token::Op(Op::Open) if simple.words.is_empty() && !simple.redirected => {
                    outer.push(dir.clone());
                    continue;
                }
                Token::Op(Op::Open) => return ControlFlow::Break(()),
                // A line break after `|`, `&&` or `(`: the command goes on.
                Token::Op(Op::Newline) if simple.words.is_empty() && !simple.redirected => continue,
                Token::Op(op) => op,
            };
            let forked = piped_in || matches!(op, Op::Pipe | Op::Background);
            self.run(std::mem::take(&mut simple), &mut dir, forked, piped_in, depth)?;
            piped_in = op == Op::Pipe;
            if op == Op::Close {
                let Some(back) = outer.pop() else { return ControlFlow::Break(()) };
                dir = back;
            }
        }
        self.run(simple, &mut dir, piped_in, piped_in, depth)
    }

    /// Names what `simple` reads from `dir`; follows its `cd` unless it
    /// runs in a subshell of its own (`forked`: a pipeline's, `&`'s).
    fn run(
        &mut self,
        simple: Simple,
        dir: &mut PathBuf,
        forked: bool,
        piped_in: bool,
        depth: usize,
    ) -> ControlFlow<()> {
        let mut named: Vec<(usize, PathBuf)> =
            simple.inputs.iter().filter_map(|w| path_in(dir, &w.piece()).map(|p| (w.at, p))).collect();
        let mut nested = None;
        match effect(&simple.words, piped_in || simple.stdin) {
            Effect::Nothing => {}
            Effect::Chdir(to) if !forked => *dir = lexical(&dir.join(to)),
            Effect::Lost if !forked => return ControlFlow::Break(()),
            Effect::Chdir(_) | Effect::Lost => {}
            Effect::Script { base, script } => nested = based(dir, &base).map(|here| (here, script)),
            Effect::Reads { reads, at } => {
                if let Some(here) = based(dir, &reads.base) {
                    named.extend(
                        reads.paths.iter().filter_map(|p| path_in(&here, p).map(|path| (p.at, path))),
                    );
                    let unknown = simple.words.iter().any(|w| !w.known);
                    if reads.implicit && reads.paths.is_empty() && !unknown && here != self.start {
                        named.push((at, here));
                    }
                }
            }
        }
        named.sort_by_key(|(at, _)| *at);
        for (_, path) in named {
            self.add(path)?;
        }
        match nested {
            Some((here, script)) if depth < MAX_NESTING => self.script(script, here, depth + 1),
            _ => ControlFlow::Continue(()),
        }
    }
}

/// `piece` as a path from `dir`, if it is one.
fn path_in(dir: &Path, piece: &Piece<'_>) -> Option<PathBuf> {
    let t = piece.text;
    (piece.known && !t.is_empty() && t != "-" && !t.contains('\0')).then(|| lexical(&dir.join(t)))
}

/// `dir` joined with each of `base` (`git -C a -C b`), if all are known.
fn based(dir: &Path, base: &[Piece<'_>]) -> Option<PathBuf> {
    let mut here = dir.to_path_buf();
    for piece in base {
        if !piece.known || piece.text.contains('\0') {
            return None;
        }
        here.push(piece.text);
    }
    Some(lexical(&here))
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn targets(command: &str, cwd: &str) -> Vec<String> {
        read_targets(command, Path::new(cwd)).into_iter().map(|p| p.display().to_string()).collect()
    }

    /// Each command from `/w`, and what it names (`/w/` left off, `.` for
    /// `/w` itself).
    pub(super) fn check(cases: &[(&str, &[&str])]) {
        for (command, expected) in cases {
            let expected: Vec<String> = expected
                .iter()
                .map(|p| match *p {
                    "." => "/w".to_owned(),
                    p if p.starts_with('/') => p.to_owned(),
                    p => format!("/w/{p}"),
                })
                .collect();
            assert_eq!(targets(command, "/w"), expected, "{command:?}");
        }
    }

    #[test]
    fn commands_are_chained_piped_and_grouped() {
        check(&[
            ("cat a && cat b || cat c; cat d & cat e\ncat f", &["a", "b", "c", "d", "e", "f"]),
            ("cat a | head -5", &["a"]),
            ("cat a |& tail", &["a"]),
            ("nl -ba file | sed -n '1,40p'", &["file"]),
            ("rg --files | rg foo | head -n 20", &[]),
            ("cat a | grep foo", &["a"]),
            ("(cat a; cat b) | wc -l", &["a", "b"]),
            ("{ cat a; cat b; } > out", &["a", "b"]),
            ("if [ -f a ]; then cat a; else head b; fi", &["a", "b"]),
            ("for f in a b; do cat $f; done", &[]),
            ("while read l; do echo $l; done < list.txt", &["list.txt"]),
            ("! grep -q x a", &["a"]),
            ("f() { cat a; }; cat b", &[]),
            ("cat a; ) cat b", &["a"]),
        ]);
    }

    #[test]
    fn nested_shells_run_their_script() {
        check(&[
            ("bash -lc 'cat x'", &["x"]),
            ("sh -c \"cd sub && cat x\"; cat y", &["sub/x", "y"]),
            ("bash -c 'bash -c \"cat deep\"'", &["deep"]),
            ("bash script.sh", &[]),
            ("env -C sub bash -c 'cat x'", &["sub/x"]),
        ]);
    }

    #[test]
    fn cd_moves_the_directory_later_paths_are_taken_from() {
        let from = |command: &str| targets(command, "/w/a");
        assert_eq!(from("cat ../x"), ["/w/x"]);
        assert_eq!(from("cd pkg && sed -n '1,80p' src/x.ts"), ["/w/a/pkg/src/x.ts"]);
        assert_eq!(from("cd \"pkg dir\"; cat x"), ["/w/a/pkg dir/x"]);
        assert_eq!(from("cd /tmp && cat x && cd .. && cat y"), ["/tmp/x", "/y"]);
        assert_eq!(from("cd -P -- p && cat x"), ["/w/a/p/x"]);
        assert_eq!(from("pushd p && cat x"), ["/w/a/p/x"]);
        assert_eq!(from("FOO=1 cd p; cat x"), ["/w/a/p/x"]);
        // A subshell's cd, a pipeline's, a background one's and a program's
        // called cd change nothing here.
        assert_eq!(from("(cd sub && cat x); cat y"), ["/w/a/sub/x", "/w/a/y"]);
        assert_eq!(from("cd sub | cat x"), ["/w/a/x"]);
        assert_eq!(from("cd sub & cat x"), ["/w/a/x"]);
        assert_eq!(from("env cd sub; cat x"), ["/w/a/x"]);
        // Somewhere only the run knows: the reading stops there.
        for lost in ["cd", "cd -", "cd $D", "cd ~/p", "cd a b", "popd", "pushd +1", "(cd $D; cat z)"] {
            assert_eq!(from(&format!("cat x; {lost} && cat y; cat w")), ["/w/a/x"], "{lost}");
        }
    }

    #[test]
    fn a_search_of_its_own_directory_counts_only_away_from_cwd() {
        let from = |command: &str| targets(command, "/w/a");
        assert_eq!(from("cd pkg && ls"), ["/w/a/pkg"]);
        assert_eq!(from("cd pkg && rg foo"), ["/w/a/pkg"]);
        assert_eq!(from("cd pkg && rg foo | head"), ["/w/a/pkg"]);
        assert_eq!(from("cd pkg && cat x | rg foo"), ["/w/a/pkg/x"]);
        assert_eq!(from("cd pkg && cat x |\n  rg foo"), ["/w/a/pkg/x"]);
        assert_eq!(from("cd pkg && rg foo < x"), ["/w/a/pkg/x"]);
        assert_eq!(from("cd .. && rg --files"), ["/w"]);
        assert_eq!(from("cd pkg && grep -rn foo"), ["/w/a/pkg"]);
        assert_eq!(from("cd pkg && grep foo"), Vec::<String>::new());
        assert_eq!(from("cd pkg && find -name x"), ["/w/a/pkg"]);
        assert_eq!(from("git -C pkg grep foo"), ["/w/a/pkg"]);
        assert_eq!(from("cd pkg && ls $X"), Vec::<String>::new());
        assert_eq!(from("cd . && ls && tree"), Vec::<String>::new());
        assert_eq!(from("ls ."), ["/w/a"]);
    }

    #[test]
    fn at_most_max_targets_are_named() {
        let many: Vec<String> = (0..40).map(|i| format!("f{i}")).collect();
        let got = targets(&format!("cat {}", many.join(" ")), "/w");
        assert_eq!(got.len(), MAX_SHELL_TARGETS);
        assert_eq!(got[0], "/w/f0");
        assert_eq!(got[MAX_SHELL_TARGETS - 1], format!("/w/f{}", MAX_SHELL_TARGETS - 1));
    }

    #[test]
    fn commands_coding_agents_run() {
        check(&[
            ("sed -n '1,200p' crates/core/src/lib.rs", &["crates/core/src/lib.rs"]),
            ("nl -ba src/main.rs | sed -n '10,80p'", &["src/main.rs"]),
            ("cat -n README.md", &["README.md"]),
            ("head -n 50 docs/guide.md", &["docs/guide.md"]),
            ("ls -R docs", &["docs"]),
            ("rg --files | head -50", &[]),
            ("rg -n \"TODO|FIXME\" -g '!target' src", &["src"]),
            ("wc -l src/*.rs src/lib.rs", &["src/lib.rs"]),
            ("ls -la && cat package.json && git status --short", &["package.json"]),
            ("find . -name \"*.ts\" -not -path \"./node_modules/*\" | head -20", &["."]),
            ("grep -rn \"useState\" src/components/ 2>/dev/null | head -30", &["src/components"]),
            ("cat > notes.md <<'EOF'\n# Notes\nEOF", &[]),
            ("git diff HEAD --stat && git diff -- src/app.ts", &["src/app.ts"]),
            ("tail -100 logs/app.log", &["logs/app.log"]),
        ]);
    }

    #[test]
    fn argv_unwraps_a_shell_or_quotes_a_command() {
        let argv =
            |words: &[&str]| command_of_argv(&words.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>());
        assert_eq!(argv(&["bash", "-lc", "cat a.rs"]).as_deref(), Some("cat a.rs"));
        assert_eq!(argv(&["/bin/zsh", "-l", "-c", "ls"]).as_deref(), Some("ls"));
        assert_eq!(argv(&["sh", "-c", "cat x", "arg0"]).as_deref(), Some("cat x"));
        assert_eq!(argv(&["bash", "--noprofile", "-o", "pipefail", "-c", "x"]).as_deref(), Some("x"));
        assert_eq!(argv(&["bash", "-c", "--", "cat x"]).as_deref(), Some("cat x"));
        assert_eq!(argv(&["bash", "--", "x"]), None);
        assert_eq!(argv(&["bash", "-c"]), None);
        assert_eq!(argv(&["bash", "script.sh"]), None);
        assert_eq!(argv(&[]), None);
        assert_eq!(argv(&["cat", "a.rs"]).as_deref(), Some("cat a.rs"));
        assert_eq!(argv(&["cat", "a b", "it's", ""]).as_deref(), Some(r"cat 'a b' 'it'\''s' ''"));
        let through = |words: &[&str]| targets(&argv(words).unwrap(), "/w");
        assert_eq!(through(&["bash", "-lc", "cd p && cat a"]), ["/w/p/a"]);
        assert_eq!(
            through(&["cat", "a b", "it's", "$X", "*.rs", "~"]),
            ["/w/a b", "/w/it's", "/w/$X", "/w/*.rs", "/w/~"]
        );
        assert_eq!(through(&["rg", "-n", "fn main", "src"]), ["/w/src"]);
        assert!(through(&["FOO=1", "cat", "x"]).is_empty(), "an argv's first word is the program");
        assert!(through(&["echo", "a;", "cat", "b"]).is_empty(), "an argv has no operators");
    }
}
