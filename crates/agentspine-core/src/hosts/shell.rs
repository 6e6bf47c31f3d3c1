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

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use crate::paths::lexical;

/// At most this many paths are named for one command (each costs a
/// resolution).
pub const MAX_SHELL_TARGETS: usize = 16;

/// How deep `bash -c '… bash -c …'` is followed.
const MAX_NESTING: usize = 3;

/// How deep `$( "$( … )" )` is split before the command is given up: each
/// level is a call, and a command is the model's text.
const MAX_SUBSTITUTIONS: usize = 32;

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
// Words: the shell's split of the command text.

/// One word after quote removal.
#[derive(Debug, Clone)]
struct Word {
    /// Its text with quotes and escapes removed; expansions kept as written.
    text: String,
    /// False when the shell would expand something in it at run time.
    known: bool,
    /// Where in `text` the first quoted or escaped character is.
    quoted_from: Option<usize>,
    /// Its byte offset in the command: the order of appearance.
    at: usize,
}

impl Word {
    fn piece(&self) -> Piece<'_> {
        Piece { text: &self.text, known: self.known, at: self.at }
    }

    /// `NAME=value` (or `NAME+=value`) with its name written unquoted: an
    /// assignment when it comes before a command.
    fn is_assignment(&self) -> bool {
        self.text
            .find('=')
            .is_some_and(|eq| self.quoted_from.is_none_or(|q| q > eq) && is_assignment(&self.text))
    }
}

/// `NAME=value` by its text (how awk reads its operands too).
fn is_assignment(text: &str) -> bool {
    let Some((name, _)) = text.split_once('=') else { return false };
    let name = name.strip_suffix('+').unwrap_or(name);
    name.bytes().next().is_some_and(|b| b == b'_' || b.is_ascii_alphabetic())
        && name.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric())
}

#[derive(Debug)]
enum Token {
    Word(Word),
    Op(Op),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    And,
    Or,
    Semi,
    Newline,
    Pipe,
    Background,
    Open,
    Close,
    Redirect(Redirect),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Redirect {
    /// `<`, `<>`: the next word is a file read.
    Input,
    /// `>`, `>>`, `&>`, `2>&1`, `<&`: the next word is written or a descriptor.
    Output,
    /// `<<`, `<<-`: the next word is a delimiter, the body is not commands.
    Heredoc { strip_tabs: bool },
    /// `<<<`: the next word is the input itself.
    HereString,
}

/// The command cannot be split: a quote or substitution is not closed, or
/// substitutions nest deeper than [`MAX_SUBSTITUTIONS`].
#[derive(Debug)]
struct Unreadable;

/// Splits `src` into words and operators, skipping comments and heredoc
/// bodies.
fn tokens(src: &str) -> Result<Vec<Token>, Unreadable> {
    let mut lexer = Lexer {
        src: src.as_bytes(),
        pos: 0,
        depth: 0,
        tokens: Vec::new(),
        delimiter: None,
        heredocs: Vec::new(),
    };
    lexer.run()?;
    Ok(lexer.tokens)
}

/// Quote removal in progress.
struct Text {
    bytes: Vec<u8>,
    known: bool,
    quoted_from: Option<usize>,
    /// Where an unquoted `{` was written: a brace list if it closes.
    brace: Option<usize>,
}

impl Text {
    fn quote(&mut self) {
        self.quoted_from.get_or_insert(self.bytes.len());
    }
}

struct Lexer<'s> {
    src: &'s [u8],
    pos: usize,
    /// Substitutions open around `pos`.
    depth: usize,
    tokens: Vec<Token>,
    /// The next word ends a heredoc (whose lines lose leading tabs).
    delimiter: Option<bool>,
    /// Heredocs whose bodies start after the next newline.
    heredocs: Vec<(String, bool)>,
}

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> Option<u8> {
        self.src.get(self.pos + ahead).copied()
    }

    fn rest(&self) -> &[u8] {
        self.src.get(self.pos..).unwrap_or_default()
    }

    fn run(&mut self) -> Result<(), Unreadable> {
        while let Some(b) = self.peek(0) {
            match b {
                b' ' | b'\t' => self.pos += 1,
                b'\\' if self.peek(1) == Some(b'\n') => self.pos += 2,
                b'#' => self.pos += self.rest().iter().take_while(|&&c| c != b'\n').count(),
                b'\n' => {
                    self.pos += 1;
                    self.tokens.push(Token::Op(Op::Newline));
                    self.heredoc_bodies();
                }
                b'<' | b'>' if self.peek(1) == Some(b'(') => self.word()?,
                b';' | b'&' | b'|' | b'<' | b'>' | b'(' | b')' => self.operator(),
                _ => self.word()?,
            }
        }
        Ok(())
    }

    fn operator(&mut self) {
        use Redirect::*;
        const OPS: [(&[u8], Op); 20] = [
            (b"&&", Op::And),
            (b"||", Op::Or),
            (b"|&", Op::Pipe),
            (b"&>>", Op::Redirect(Output)),
            (b"&>", Op::Redirect(Output)),
            (b"<<<", Op::Redirect(HereString)),
            (b"<<-", Op::Redirect(Heredoc { strip_tabs: true })),
            (b"<<", Op::Redirect(Heredoc { strip_tabs: false })),
            (b"<&", Op::Redirect(Output)),
            (b"<>", Op::Redirect(Input)),
            (b">>", Op::Redirect(Output)),
            (b">|", Op::Redirect(Output)),
            (b">&", Op::Redirect(Output)),
            (b";", Op::Semi),
            (b"&", Op::Background),
            (b"|", Op::Pipe),
            (b"(", Op::Open),
            (b")", Op::Close),
            (b"<", Op::Redirect(Input)),
            (b">", Op::Redirect(Output)),
        ];
        let Some(&(text, op)) = OPS.iter().find(|(text, _)| self.rest().starts_with(text)) else {
            self.pos += 1;
            return;
        };
        self.pos += text.len();
        if let Op::Redirect(Heredoc { strip_tabs }) = op {
            self.delimiter = Some(strip_tabs);
        }
        self.tokens.push(Token::Op(op));
    }

    fn word(&mut self) -> Result<(), Unreadable> {
        let at = self.pos;
        let mut t = Text { bytes: Vec::new(), known: true, quoted_from: None, brace: None };
        while let Some(b) = self.peek(0) {
            match b {
                b'<' | b'>' if self.peek(1) == Some(b'(') => {
                    let from = self.pos;
                    self.pos += 1;
                    self.skip_balanced(b'(', b')')?;
                    t.bytes.extend_from_slice(&self.src[from..self.pos]);
                    t.known = false;
                }
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b'(' | b')' => break,
                b'\\' => match self.peek(1) {
                    Some(b'\n') => self.pos += 2,
                    Some(c) => {
                        t.quote();
                        t.bytes.push(c);
                        self.pos += 2;
                    }
                    None => {
                        t.bytes.push(b'\\');
                        self.pos += 1;
                    }
                },
                b'\'' => {
                    t.quote();
                    self.pos += 1;
                    let len = self.rest().iter().position(|&c| c == b'\'').ok_or(Unreadable)?;
                    t.bytes.extend_from_slice(&self.src[self.pos..self.pos + len]);
                    self.pos += len + 1;
                }
                b'"' => {
                    t.quote();
                    self.pos += 1;
                    self.double_quoted(&mut t)?;
                }
                b'$' => self.dollar(&mut t, false)?,
                b'`' => self.backticks(&mut t)?,
                _ => {
                    let expands = match b {
                        b'*' | b'?' | b'[' => true,
                        b'~' => self.pos == at,
                        b'}' => t.brace.is_some_and(|open| {
                            let list = &t.bytes[open..];
                            list.contains(&b',') || list.windows(2).any(|w| w == b"..")
                        }),
                        _ => false,
                    };
                    if b == b'{' {
                        t.brace = Some(t.bytes.len());
                    }
                    t.known &= !expands;
                    t.bytes.push(b);
                    self.pos += 1;
                }
            }
        }
        let text = String::from_utf8_lossy(&t.bytes).into_owned();
        let descriptor = t.known
            && t.quoted_from.is_none()
            && !text.is_empty()
            && text.bytes().all(|b| b.is_ascii_digit())
            && matches!(self.peek(0), Some(b'<' | b'>'));
        if descriptor {
            return Ok(());
        }
        if let Some(strip_tabs) = self.delimiter.take() {
            self.heredocs.push((text.clone(), strip_tabs));
        }
        self.tokens.push(Token::Word(Word { text, known: t.known, quoted_from: t.quoted_from, at }));
        Ok(())
    }

    /// After the opening `"`, to past the closing one.
    fn double_quoted(&mut self, t: &mut Text) -> Result<(), Unreadable> {
        loop {
            match self.peek(0).ok_or(Unreadable)? {
                b'"' => {
                    self.pos += 1;
                    return Ok(());
                }
                b'\\' => match self.peek(1) {
                    Some(b'\n') => self.pos += 2,
                    Some(c @ (b'"' | b'\\' | b'$' | b'`')) => {
                        t.bytes.push(c);
                        self.pos += 2;
                    }
                    _ => {
                        t.bytes.push(b'\\');
                        self.pos += 1;
                    }
                },
                b'$' => self.dollar(t, true)?,
                b'`' => self.backticks(t)?,
                c => {
                    t.bytes.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// At a `$`: an expansion (kept as written, the word unknown), a
    /// `$'…'` or `$"…"` string, or a literal `$`.
    fn dollar(&mut self, t: &mut Text, in_double_quotes: bool) -> Result<(), Unreadable> {
        let from = self.pos;
        match self.peek(1) {
            Some(b'(') => {
                self.pos += 1;
                self.skip_balanced(b'(', b')')?;
            }
            Some(b'{') => {
                self.pos += 1;
                self.skip_balanced(b'{', b'}')?;
            }
            Some(c) if c == b'_' || c.is_ascii_alphabetic() => {
                self.pos += 1;
                self.pos +=
                    self.rest().iter().take_while(|c| **c == b'_' || c.is_ascii_alphanumeric()).count();
            }
            Some(c) if c.is_ascii_digit() || b"@*#?-$!".contains(&c) => self.pos += 2,
            // ANSI-C quoting: its escapes are not decoded, so not known.
            Some(b'\'') if !in_double_quotes => {
                self.pos += 2;
                loop {
                    match self.peek(0).ok_or(Unreadable)? {
                        b'\\' => self.pos += 2,
                        b'\'' => break self.pos += 1,
                        _ => self.pos += 1,
                    }
                }
            }
            // A translated string: the `"…"` it holds.
            Some(b'"') if !in_double_quotes => {
                self.pos += 1;
                return Ok(());
            }
            _ => {
                t.bytes.push(b'$');
                self.pos += 1;
                return Ok(());
            }
        }
        t.bytes.extend_from_slice(self.src.get(from..self.pos).ok_or(Unreadable)?);
        t.known = false;
        Ok(())
    }

    fn backticks(&mut self, t: &mut Text) -> Result<(), Unreadable> {
        let from = self.pos;
        self.pos += 1;
        loop {
            match self.peek(0).ok_or(Unreadable)? {
                b'\\' => self.pos += 2,
                b'`' => break self.pos += 1,
                _ => self.pos += 1,
            }
        }
        t.bytes.extend_from_slice(self.src.get(from..self.pos).ok_or(Unreadable)?);
        t.known = false;
        Ok(())
    }

    /// At `open`, to past its matching `close`, over quotes and escapes.
    fn skip_balanced(&mut self, open: u8, close: u8) -> Result<(), Unreadable> {
        if self.depth == MAX_SUBSTITUTIONS {
            return Err(Unreadable);
        }
        self.depth += 1;
        let skipped = self.skip_to_close(open, close);
        self.depth -= 1;
        skipped
    }

    fn skip_to_close(&mut self, open: u8, close: u8) -> Result<(), Unreadable> {
        let mut depth = 0usize;
        let mut scratch = Text { bytes: Vec::new(), known: true, quoted_from: None, brace: None };
        while let Some(b) = self.peek(0) {
            match b {
                b'\\' => self.pos += 2,
                b'\'' => {
                    self.pos += 1;
                    self.pos += self.rest().iter().position(|&c| c == b'\'').ok_or(Unreadable)? + 1;
                }
                b'"' => {
                    self.pos += 1;
                    self.double_quoted(&mut scratch)?;
                }
                b'`' => self.backticks(&mut scratch)?,
                _ => {
                    if b == open {
                        depth += 1;
                    } else if b == close {
                        depth -= 1;
                        if depth == 0 {
                            self.pos += 1;
                            return Ok(());
                        }
                    }
                    self.pos += 1;
                }
            }
        }
        Err(Unreadable)
    }

    /// After a newline: past the bodies of the heredocs the line opened.
    fn heredoc_bodies(&mut self) {
        for (delimiter, strip_tabs) in std::mem::take(&mut self.heredocs) {
            while self.pos < self.src.len() {
                let rest = self.rest();
                let len = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
                let mut line = &rest[..len];
                while strip_tabs && line.first() == Some(&b'\t') {
                    line = &line[1..];
                }
                let ends = line == delimiter.as_bytes();
                self.pos += (len + 1).min(rest.len());
                if ends {
                    break;
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Commands: what the shell runs, and where.

/// One simple command: its words, and the files its `<` reads.
#[derive(Default)]
struct Simple {
    words: Vec<Word>,
    inputs: Vec<Word>,
    /// Its standard input is a file, heredoc or string, not the terminal.
    stdin: bool,
    redirected: bool,
}

/// What running a simple command does, as far as this module can know.
enum Effect<'a> {
    /// Nothing it reads is known.
    Nothing,
    /// `cd DIR`: the shell's directory changes.
    Chdir(&'a str),
    /// `cd` somewhere only the run knows (`cd`, `cd -`, `cd $D`).
    Lost,
    /// A nested shell runs this script (`bash -c`) in `base`.
    Script { base: Vec<Piece<'a>>, script: &'a str },
    /// It reads these, the command word at `at`.
    Reads { reads: Reads<'a>, at: usize },
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

/// What `words` does, through assignments, reserved words and wrappers.
fn effect(mut words: &[Word], stdin: bool) -> Effect<'_> {
    let mut base = Vec::new();
    // A builtin (`cd`) runs in this shell; under `env` or `nice` it is a
    // program of that name, whose `cd` changes nothing here.
    let mut builtin = true;
    loop {
        while let [first, rest @ ..] = words
            && first.is_assignment()
        {
            words = rest;
        }
        let [first, rest @ ..] = words else { return Effect::Nothing };
        if !first.known {
            return Effect::Nothing;
        }
        let name = if first.text.starts_with('/') {
            first.text.rsplit('/').next().unwrap_or_default()
        } else {
            first.text.as_str()
        };
        words = match name {
            "!" | "{" | "if" | "then" | "elif" | "else" | "while" | "until" | "do" => rest,
            "time" => skip_options(rest, &["-f", "-o", "--format", "--output"]),
            "command" => {
                let options = rest.iter().take_while(|w| w.known && w.text.starts_with('-'));
                if options.clone().any(|w| w.text.contains(['v', 'V'])) {
                    return Effect::Nothing;
                }
                skip_options(rest, &[])
            }
            "nohup" | "nice" | "timeout" | "env" => {
                builtin = false;
                match name {
                    "nohup" => rest,
                    "nice" => skip_options(rest, &["-n", "--adjustment"]),
                    "timeout" => {
                        let options = &["-s", "-k", "--signal", "--kill-after"];
                        skip_options(rest, options).get(1..).unwrap_or_default()
                    }
                    _ => match env(rest, &mut base) {
                        Some(command) => command,
                        None => return Effect::Nothing,
                    },
                }
            }
            "cd" | "pushd" if builtin => return cd(rest),
            "popd" if builtin => return Effect::Lost,
            shell if is_shell(shell) => {
                return match script_of(rest.iter().map(|w| w.known.then_some(w.text.as_str()))) {
                    Some(script) => Effect::Script { base, script },
                    None => Effect::Nothing,
                };
            }
            _ => {
                let mut reads = reads(name, rest, stdin);
                base.append(&mut reads.base);
                reads.base = base;
                return Effect::Reads { reads, at: first.at };
            }
        };
    }
}

/// `words` past its leading options (`with_value` take the next word).
fn skip_options<'w>(mut words: &'w [Word], with_value: &[&str]) -> &'w [Word] {
    while let [first, rest @ ..] = words
        && first.known
        && first.text.len() > 1
        && first.text.starts_with('-')
    {
        words = rest;
        if first.text == "--" {
            break;
        }
        if with_value.contains(&first.text.as_str()) {
            words = words.get(1..).unwrap_or_default();
        }
    }
    words
}

/// `env`'s command, past its options; `-C DIR` is added to `base`. `None`
/// when it cannot be known (`-S`, an unknown word).
fn env<'w>(words: &'w [Word], base: &mut Vec<Piece<'w>>) -> Option<&'w [Word]> {
    let mut i = 0;
    while let Some(word) = words.get(i) {
        let text = word.text.as_str();
        if !word.known || text.starts_with("-S") || text.starts_with("--split-string") {
            return None;
        }
        match text {
            "--" => return words.get(i + 1..),
            "-C" | "--chdir" => {
                base.push(words.get(i + 1)?.piece());
                i += 2;
            }
            "-u" | "--unset" => i += 2,
            _ if text.starts_with('-') && text.len() > 1 => {
                if let Some(dir) = text.strip_prefix("--chdir=").or_else(|| text.strip_prefix("-C")) {
                    base.push(Piece { text: dir, known: true, at: word.at });
                }
                i += 1;
            }
            _ => return words.get(i..),
        }
    }
    Some(&[])
}

/// `cd`'s (or `pushd`'s) new directory, relative to the current one.
fn cd(words: &[Word]) -> Effect<'_> {
    let mut operands = Vec::new();
    let mut options = true;
    for word in words {
        if !word.known {
            return Effect::Lost;
        }
        match word.text.as_str() {
            "--" if options => options = false,
            t if options && t.len() > 1 && t.starts_with('-') => {}
            t => operands.push(t),
        }
    }
    match operands[..] {
        [to] if !to.is_empty() && to != "-" && !to.starts_with('+') => Effect::Chdir(to),
        _ => Effect::Lost,
    }
}

// ---------------------------------------------------------------------------
// Operands: each recognised command's options, and which operands are paths.

/// A word, or the value part of one (`-n5`, `--glob=x`).
#[derive(Debug, Clone, Copy)]
struct Piece<'a> {
    text: &'a str,
    known: bool,
    at: usize,
}

/// What a recognised command reads.
#[derive(Default)]
struct Reads<'a> {
    /// Its path operands.
    paths: Vec<Piece<'a>>,
    /// It reads its working directory when it names no path (`ls`, `rg`).
    implicit: bool,
    /// Directories it runs in, each from the one before (`git -C DIR`).
    base: Vec<Piece<'a>>,
}

impl<'a> Reads<'a> {
    fn files(paths: impl IntoIterator<Item = Piece<'a>>) -> Self {
        Reads { paths: paths.into_iter().collect(), ..Reads::default() }
    }

    fn searched(paths: impl IntoIterator<Item = Piece<'a>>, implicit: bool) -> Self {
        Reads { paths: paths.into_iter().collect(), implicit, base: Vec::new() }
    }
}

/// One argument as a command's option parser sees it.
#[derive(Debug, Clone, Copy)]
enum Arg<'a> {
    Short(char, Option<Piece<'a>>),
    Long(&'a str, Option<Piece<'a>>),
    Operand(Piece<'a>),
}

/// A command's options that take a value, the rest being flags: what keeps
/// a value from being taken for a path.
struct Spec {
    /// Short options with a value, attached (`-n5`) or the next word.
    short: &'static str,
    /// Short options whose value can only be attached (`sed -i.bak`).
    attached: &'static str,
    /// Long options with a value, `--name=v` or the next word (names
    /// apart by spaces).
    long: &'static str,
    /// Long options with two values (`jq --arg name value`).
    pairs: &'static str,
    /// Options end at the first operand (POSIX); GNU tools permute.
    posix: bool,
}

impl Spec {
    const FLAGS: Spec = Spec { short: "", attached: "", long: "", pairs: "", posix: false };

    fn has(names: &str, name: &str) -> bool {
        names.split_ascii_whitespace().any(|n| n == name)
    }
}

/// `words` as `spec`'s command parses them. A word not known statically is
/// neither an option nor an operand (it is never guessed), but is taken as
/// the value of an option before it.
fn parse<'a>(words: &'a [Word], spec: &Spec) -> Vec<Arg<'a>> {
    let mut out = Vec::new();
    let mut words = words.iter();
    let mut operands_only = false;
    while let Some(word) = words.next() {
        let text = word.text.as_str();
        let attached = |value: &'a str| Piece { text: value, known: true, at: word.at };
        if !word.known {
            continue;
        }
        if operands_only || text == "-" || !text.starts_with('-') {
            operands_only |= spec.posix;
            out.push(Arg::Operand(word.piece()));
        } else if text == "--" {
            operands_only = true;
        } else if let Some(long) = text.strip_prefix("--") {
            out.push(match long.split_once('=') {
                Some((name, value)) => Arg::Long(name, Some(attached(value))),
                None if Spec::has(spec.pairs, long) => {
                    words.next();
                    Arg::Long(long, words.next().map(Word::piece))
                }
                None if Spec::has(spec.long, long) => Arg::Long(long, words.next().map(Word::piece)),
                None => Arg::Long(long, None),
            });
        } else {
            for (i, c) in text.char_indices().skip(1) {
                let tail = &text[i + c.len_utf8()..];
                if spec.short.contains(c) {
                    let value =
                        if tail.is_empty() { words.next().map(Word::piece) } else { Some(attached(tail)) };
                    out.push(Arg::Short(c, value));
                    break;
                }
                if spec.attached.contains(c) {
                    out.push(Arg::Short(c, (!tail.is_empty()).then(|| attached(tail))));
                    break;
                }
                out.push(Arg::Short(c, None));
            }
        }
    }
    out
}

fn operands<'a>(args: &[Arg<'a>]) -> impl Iterator<Item = Piece<'a>> {
    args.iter().filter_map(|a| match a {
        Arg::Operand(p) => Some(*p),
        _ => None,
    })
}

const HEAD: Spec = Spec { short: "nc", long: "lines bytes", ..Spec::FLAGS };
const TAIL: Spec =
    Spec { short: "ncs", long: "lines bytes sleep-interval pid max-unchanged-stats", ..Spec::FLAGS };
const NL: Spec = Spec {
    short: "bdfhilnsvw",
    long: "body-numbering section-delimiter footer-numbering header-numbering line-increment \
           join-blank-lines number-format number-width number-separator starting-line-number",
    ..Spec::FLAGS
};
const LESS: Spec = Spec {
    short: "bhjkoOpPtTxyzD#",
    long: "buffers max-back-scroll jump-target lesskey-file lesskey-src log-file LOG-FILE \
           pattern prompt tag tag-file tabs max-forw-scroll window shift color header \
           line-num-width status-col-width rscroll wheel-lines intr quotes",
    ..Spec::FLAGS
};
const MORE: Spec = Spec { short: "n", long: "lines", ..Spec::FLAGS };
const WC: Spec = Spec { long: "files0-from", ..Spec::FLAGS };
const FILE: Spec = Spec {
    short: "efFmP",
    long: "exclude exclude-quiet files-from separator magic-file parameter",
    ..Spec::FLAGS
};
/// `-f` and `-t` take a format in BSD `stat` (GNU's are flags): a value
/// either way, never a path.
const STAT: Spec = Spec { short: "cft", long: "format printf", ..Spec::FLAGS };
const BAT: Spec = Spec {
    short: "lHrm",
    long: "language highlight-line line-range file-name map-syntax tabs wrap terminal-width \
           theme style color italic-text decorations paging pager diff-context \
           nonprintable-notation binary ignored-suffix squeeze-limit strip-ansi completion",
    ..Spec::FLAGS
};
const SED: Spec = Spec { short: "efl", attached: "i", long: "expression file line-length", ..Spec::FLAGS };
const AWK: Spec = Spec {
    short: "fFvEeilW",
    attached: "dDopL",
    long: "file field-separator assign source include load exec",
    posix: true,
    ..Spec::FLAGS
};
const GREP: Spec = Spec {
    short: "ABCDdefm",
    long: "after-context before-context context regexp file max-count include include-dir \
           exclude exclude-dir exclude-from label binary-files devices directories \
           group-separator",
    ..Spec::FLAGS
};
const RG: Spec = Spec {
    short: "ABCEMTdefgjmrt",
    long: "after-context before-context context encoding max-columns type-not max-depth maxdepth \
           regexp file glob iglob threads max-count replace type type-add type-clear \
           max-filesize colors color context-separator field-context-separator \
           field-match-separator path-separator pre pre-glob sort sortr engine dfa-size-limit \
           regex-size-limit ignore-file hostname-bin hyperlink-format generate",
    ..Spec::FLAGS
};
const AG: Spec = Spec {
    short: "ABCGgmpW",
    long: "after before context file-search-regex max-count path-to-ignore ignore ignore-dir \
           depth pager workers width color-line-number color-match color-path",
    ..Spec::FLAGS
};
const LS: Spec = Spec {
    short: "ITw",
    long: "block-size format hide ignore indicator-style quoting-style sort tabsize time \
           time-style width",
    ..Spec::FLAGS
};
const TREE: Spec = Spec {
    short: "LPIHTo",
    long: "charset filelimit timefmt sort gitfile infile hintro houtro",
    ..Spec::FLAGS
};
const FD: Spec = Spec {
    short: "dteExXcjSo",
    long: "max-depth min-depth exact-depth type extension exclude exec exec-batch batch-size \
           ignore-file color threads size changed-within changed-before change-newer-than \
           change-older-than newer older owner base-directory path-separator search-path \
           max-results format",
    ..Spec::FLAGS
};
const GIT_BLAME: Spec =
    Spec { short: "LS", attached: "CM", long: "contents ignore-rev ignore-revs-file reverse", ..Spec::FLAGS };
const GIT_LS_FILES: Spec =
    Spec { short: "xX", long: "exclude exclude-from exclude-per-directory with-tree format", ..Spec::FLAGS };
const JSON_TOOL: Spec = Spec { long: "indent", ..Spec::FLAGS };
/// jq's `-f` is a flag: the first operand is then the filter's file.
const JQ: Spec =
    Spec { short: "L", long: "indent library-path", pairs: "arg argjson slurpfile rawfile", ..Spec::FLAGS };

/// What command `name` reads with `args`; `stdin` when its standard input
/// is given (a pipe, `<`, a heredoc), which `rg` and `ag` search instead.
fn reads<'a>(name: &str, args: &'a [Word], stdin: bool) -> Reads<'a> {
    // `+N` and `+/pattern` are commands to `less`, `more` and `tail`.
    let files = |spec: &Spec| Reads::files(operands(&parse(args, spec)).filter(|p| !p.text.starts_with('+')));
    match name {
        "cat" | "tac" => files(&Spec::FLAGS),
        "head" => files(&HEAD),
        "tail" => files(&TAIL),
        "nl" => files(&NL),
        "less" => files(&LESS),
        "more" => files(&MORE),
        "wc" => files(&WC),
        "file" => files(&FILE),
        "stat" => files(&STAT),
        "bat" | "batcat" => files(&BAT),
        "sed" => sed(args),
        "awk" | "gawk" | "mawk" | "nawk" => awk(args),
        "grep" | "egrep" | "fgrep" => grep(args),
        "rg" => rg(args, stdin),
        "ag" => ag(args, stdin),
        "ls" => Reads::searched(operands(&parse(args, &LS)), true),
        "tree" => Reads::searched(operands(&parse(args, &TREE)), true),
        "find" => find(args),
        "fd" | "fdfind" => fd(args),
        "git" => git(args),
        "python" | "python3" => python(args),
        "jq" => jq(args),
        _ => Reads::default(),
    }
}

/// `sed [-n] SCRIPT FILE…`, or `sed -e S… FILE…`; BSD's `-i ''` suffix too.
fn sed(args: &[Word]) -> Reads<'_> {
    let mut script = false;
    let mut files = Vec::new();
    let mut bare_i = false;
    for arg in parse(args, &SED) {
        match arg {
            Arg::Short('e' | 'f', _) | Arg::Long("expression" | "file", _) => script = true,
            Arg::Operand(p) if bare_i && p.text.is_empty() => {}
            Arg::Operand(p) => files.push(p),
            _ => {}
        }
        bare_i = matches!(arg, Arg::Short('i', None));
    }
    Reads::files(files.into_iter().skip(usize::from(!script)))
}

/// `awk PROGRAM FILE…`, or `awk -f PROGFILE FILE…`; `name=value` operands
/// are assignments.
fn awk(args: &[Word]) -> Reads<'_> {
    let parsed = parse(args, &AWK);
    let program = parsed
        .iter()
        .any(|a| matches!(a, Arg::Short('f' | 'e' | 'E', _) | Arg::Long("file" | "source" | "exec", _)));
    Reads::files(operands(&parsed).skip(usize::from(!program)).filter(|p| !is_assignment(p.text)))
}

/// Whether `parsed` gives the pattern by option, so no operand is it.
fn pattern_given(parsed: &[Arg<'_>]) -> bool {
    parsed.iter().any(|a| matches!(a, Arg::Short('e' | 'f', _) | Arg::Long("regexp" | "file", _)))
}

/// `grep PATTERN FILE…`: without a file, stdin, or the directory with `-r`.
fn grep(args: &[Word]) -> Reads<'_> {
    let parsed = parse(args, &GREP);
    let recursive = parsed
        .iter()
        .any(|a| matches!(a, Arg::Short('r' | 'R', _) | Arg::Long("recursive" | "dereference-recursive", _)));
    Reads::searched(operands(&parsed).skip(usize::from(!pattern_given(&parsed))), recursive)
}

/// `rg PATTERN PATH…`, `rg --files PATH…`.
fn rg(args: &[Word], stdin: bool) -> Reads<'_> {
    let parsed = parse(args, &RG);
    if parsed.iter().any(|a| matches!(a, Arg::Long("type-list", _))) {
        return Reads::default();
    }
    let files = parsed.iter().any(|a| matches!(a, Arg::Long("files", _)));
    let pattern = files || pattern_given(&parsed);
    Reads::searched(operands(&parsed).skip(usize::from(!pattern)), files || !stdin)
}

/// `ag PATTERN PATH…`, `ag -g PATTERN PATH…`.
fn ag(args: &[Word], stdin: bool) -> Reads<'_> {
    let parsed = parse(args, &AG);
    let pattern = parsed.iter().any(|a| matches!(a, Arg::Short('g', _)));
    Reads::searched(operands(&parsed).skip(usize::from(!pattern)), !stdin)
}

/// `find [-H|-L|-P] ROOT… EXPRESSION`: the roots.
fn find(args: &[Word]) -> Reads<'_> {
    let mut rest = args;
    while let [first, tail @ ..] = rest {
        rest = match first.text.as_str() {
            "-H" | "-L" | "-P" => tail,
            "-D" => tail.get(1..).unwrap_or_default(),
            t if t.starts_with("-O") => tail,
            _ => break,
        };
    }
    let expression = |w: &&Word| w.text.starts_with(['-', '(', '!']) || w.text == ")" || w.text == ",";
    Reads::searched(rest.iter().take_while(|w| !expression(w)).map(Word::piece), true)
}

/// `fd [PATTERN] [PATH…]`, `--search-path`, `--base-directory`; what
/// follows `-x`/`-X` is the command it runs.
fn fd(args: &[Word]) -> Reads<'_> {
    let mut reads = Reads { implicit: true, ..Reads::default() };
    let mut pattern = false;
    for arg in parse(args, &FD) {
        match arg {
            Arg::Short('x' | 'X', _) | Arg::Long("exec" | "exec-batch", _) => break,
            Arg::Long("search-path", Some(p)) => reads.paths.push(p),
            Arg::Long("base-directory", Some(p)) => reads.base.push(p),
            Arg::Operand(_) if !pattern => pattern = true,
            Arg::Operand(p) => reads.paths.push(p),
            _ => {}
        }
    }
    reads
}

/// `git [-C DIR] diff|show|log|grep … -- PATH…`, `git blame [REV] FILE`,
/// `git ls-files PATH…`. Before `--`, an operand may be a revision: only
/// the run could tell, so only what follows `--` is taken.
fn git(args: &[Word]) -> Reads<'_> {
    let mut base = Vec::new();
    let mut rest = args;
    let (command, args) = loop {
        let [first, tail @ ..] = rest else { return Reads::default() };
        if !first.known {
            return Reads::default();
        }
        rest = match first.text.as_str() {
            "-C" => {
                let Some((dir, tail)) = tail.split_first() else { return Reads::default() };
                base.push(dir.piece());
                tail
            }
            "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env" | "--super-prefix" => {
                tail.get(1..).unwrap_or_default()
            }
            t if t.starts_with('-') => tail,
            t => break (t, tail),
        };
    };
    let mut reads = match command {
        "diff" | "show" | "log" | "whatchanged" => Reads::files(pathspecs(args)),
        "grep" => Reads::searched(pathspecs(args), true),
        "ls-files" => Reads::searched(operands(&parse(args, &GIT_LS_FILES)).filter(|p| plain(p.text)), true),
        "blame" | "annotate" => Reads::files(operands(&parse(args, &GIT_BLAME)).last()),
        _ => Reads::default(),
    };
    reads.base = base;
    reads
}

/// The pathspecs after `--` that name a path: not `:(magic)`, not a glob.
fn pathspecs(args: &[Word]) -> impl Iterator<Item = Piece<'_>> {
    args.iter()
        .skip_while(|w| !(w.known && w.text == "--"))
        .skip(1)
        .filter(|w| w.known && plain(&w.text))
        .map(Word::piece)
}

/// A pathspec that is a path as written.
fn plain(pathspec: &str) -> bool {
    !pathspec.starts_with(':') && !pathspec.contains(['*', '?', '['])
}

/// `python3 [-u …] -m json.tool [--indent N] FILE [OUTFILE]`: the input.
fn python(args: &[Word]) -> Reads<'_> {
    let mut rest = args;
    let module = loop {
        let [first, tail @ ..] = rest else { return Reads::default() };
        let Some(flags) =
            first.text.strip_prefix('-').filter(|f| first.known && !f.is_empty() && !f.starts_with('-'))
        else {
            return Reads::default();
        };
        rest = tail;
        // The first option in a cluster that takes a value takes the rest.
        let Some(i) = flags.find(['c', 'm', 'W', 'X']) else { continue };
        let value = match &flags[i + 1..] {
            "" => {
                let Some((value, tail)) = rest.split_first() else { return Reads::default() };
                rest = tail;
                value.text.as_str()
            }
            attached => attached,
        };
        match &flags[i..=i] {
            "m" => break value,
            "c" => return Reads::default(),
            _ => {}
        }
    };
    if module != "json.tool" {
        return Reads::default();
    }
    Reads::files(operands(&parse(rest, &JSON_TOOL)).take(1))
}

/// `jq [options] FILTER FILE…`; operands after `--args` are strings.
fn jq(args: &[Word]) -> Reads<'_> {
    let mut files = Vec::new();
    let mut filter = false;
    let mut strings = false;
    for arg in parse(args, &JQ) {
        match arg {
            Arg::Long("args" | "jsonargs", None) => strings = true,
            Arg::Operand(_) if !filter => filter = true,
            Arg::Operand(p) if !strings => files.push(p),
            _ => {}
        }
    }
    Reads::files(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(command: &str, cwd: &str) -> Vec<String> {
        read_targets(command, Path::new(cwd)).into_iter().map(|p| p.display().to_string()).collect()
    }

    /// Each command from `/w`, and what it names (`/w/` left off, `.` for
    /// `/w` itself).
    fn check(cases: &[(&str, &[&str])]) {
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
    fn words_are_split_as_the_shell_splits_them() {
        check(&[
            ("cat a.rs", &["a.rs"]),
            ("cat 'a b.md'", &["a b.md"]),
            (r#"cat "a\"b""#, &["a\"b"]),
            (r#"cat "a\\b" "c\$d" "e\`f" "g\h""#, &["a\\b", "c$d", "e`f", "g\\h"]),
            (r"cat a\ b", &["a b"]),
            ("cat a'b'\"c\"d", &["abcd"]),
            ("cat a \\\n  b", &["a", "b"]),
            ("cat \"a\\\nb\"", &["ab"]),
            ("cat a # cat b", &["a"]),
            ("cat a#b", &["a#b"]),
            ("# cat a\ncat b", &["b"]),
            ("cat $'a\\tb' c", &["c"]),
            ("cat $\"a b\"", &["a b"]),
            ("cat a$ b", &["a$", "b"]),
            ("cat a.rs b.rs a.rs ./b.rs", &["a.rs", "b.rs"]),
            ("cat /etc/hosts x/../y ./z/", &["/etc/hosts", "y", "z"]),
            ("cat ../../../x", &["/x"]),
            ("cat '' -", &[]),
            ("cat 'é ü.md' ñ -- ö", &["é ü.md", "ñ", "ö"]),
            ("head -nñ a", &["a"]),
        ]);
    }

    #[test]
    fn an_unterminated_quote_or_substitution_names_nothing() {
        check(&[
            ("cat 'a b", &[]),
            ("cat a && echo \"x", &[]),
            ("cat a; echo $(ls", &[]),
            ("cat a; echo ${x", &[]),
            ("cat a; echo `ls", &[]),
            ("cat a; echo $'x", &[]),
        ]);
        let deep = format!("cat a {}x{} b", "\"$(".repeat(10_000), ")\"".repeat(10_000));
        assert!(targets(&deep, "/w").is_empty(), "nested too deep to split");
        let fine = format!("cat a {}x{} b", "\"$(".repeat(20), ")\"".repeat(20));
        assert_eq!(targets(&fine, "/w"), ["/w/a", "/w/b"]);
    }

    #[test]
    fn expansions_are_never_guessed_and_the_other_words_still_count() {
        check(&[
            ("cat $HOME/x y", &["y"]),
            ("cat \"$F\" y", &["y"]),
            ("cat \"${F}.md\" y", &["y"]),
            ("cat $(ls) y", &["y"]),
            ("cat \"$(ls; echo ')')\" y", &["y"]),
            ("cat `ls` y", &["y"]),
            ("cat *.md y a?.rs [ab].rs", &["y"]),
            ("cat {a,b}.md y {1..3}.md", &["y"]),
            ("cat a{b}c", &["a{b}c"]),
            ("cat ~/x ~ y", &["y"]),
            ("cat a~b", &["a~b"]),
            ("cat '$HOME' '*.md' \"~/x\" \\*", &["$HOME", "*.md", "~/x", "*"]),
            ("cat <(sort a) b", &["b"]),
            ("sed -n \"${N}p\" file", &[]),
            ("head -n $N file", &["file"]),
            ("$EDITOR a.rs", &[]),
        ]);
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
    fn only_input_redirections_are_read() {
        check(&[
            ("echo hi > out.txt", &[]),
            ("cat < in.txt", &["in.txt"]),
            ("cat <in.txt", &["in.txt"]),
            ("cat a <b", &["a", "b"]),
            ("<in.txt cat a", &["in.txt", "a"]),
            ("wc -l < in.txt 2>/dev/null", &["in.txt"]),
            ("cat a 2>&1 >> log", &["a"]),
            ("cat a &> log; cat b &>> log", &["a", "b"]),
            ("cat a >| out 1>err 2> err2", &["a"]),
            ("tr a b <> rw.txt", &["rw.txt"]),
            ("cat 2 >x", &["2"]),
            ("grep -c x <<< \"$s\"", &[]),
            ("grep -c x <<< \"$s\" a", &["a"]),
            ("xargs cat < list", &["list"]),
            ("cat >", &[]),
        ]);
    }

    #[test]
    fn heredoc_bodies_are_not_commands() {
        check(&[
            ("cat <<EOF > x\ncat secret\nEOF\ncat y", &["y"]),
            ("apply_patch <<'PATCH'\n*** Update File: a.rs\ncat z\nPATCH", &[]),
            ("cat <<-EOF\n\tcat z\n\tEOF\nhead w", &["w"]),
            ("cat <<\"A\" <<B; cat c\ncat x\nA\ncat y\nB\ncat d", &["c", "d"]),
            ("python - <<'PY'\nopen('x').read()\nPY", &[]),
            ("cat <<EOF\nno end", &[]),
        ]);
    }

    #[test]
    fn assignments_and_wrappers_are_looked_through() {
        check(&[
            ("FOO=1 cat x", &["x"]),
            ("A=\"a b\" B=$(pwd) C+=1 cat x", &["x"]),
            ("'A=1' cat x", &[]),
            ("env FOO=1 LANG=C cat x", &["x"]),
            ("env -i -u HOME cat x", &["x"]),
            ("env -C sub cat x", &["sub/x"]),
            ("env -S 'cat x'", &[]),
            ("command cat x", &["x"]),
            ("command -v cat x", &[]),
            ("time cat x", &["x"]),
            ("time -p cat x", &["x"]),
            ("nice -n 5 cat x", &["x"]),
            ("nohup cat x", &["x"]),
            ("timeout 10 cat x", &["x"]),
            ("timeout -s KILL 5s head x", &["x"]),
            ("/bin/cat x", &["x"]),
            ("/usr/bin/env cat x", &["x"]),
            ("sudo cat x", &[]),
            ("xargs cat x", &[]),
            ("vim a.rs; rm -rf build; echo a", &[]),
        ]);
    }

    #[test]
    fn file_readers_skip_their_option_values() {
        check(&[
            ("cat -n path", &["path"]),
            ("cat -A -- -x", &["-x"]),
            ("tac log", &["log"]),
            ("head -n 50 a.md", &["a.md"]),
            ("head -n50 a -c 10 b", &["a", "b"]),
            ("head -20 a", &["a"]),
            ("head --lines 5 a --bytes=3 b", &["a", "b"]),
            ("tail -n +5 -f log.txt", &["log.txt"]),
            ("tail +5 log.txt", &["log.txt"]),
            ("tail -s 2 -F log", &["log"]),
            ("nl -ba -w 4 -s ': ' file", &["file"]),
            ("less +G -N file", &["file"]),
            ("more -n 10 +/foo file", &["file"]),
            ("wc -l a b", &["a", "b"]),
            ("file -b a.bin", &["a.bin"]),
            ("stat -c %s a", &["a"]),
            ("stat -f %z a", &["a"]),
            ("bat -l rust -r 1:40 --style=plain src/a.rs", &["src/a.rs"]),
            ("batcat --theme ansi a", &["a"]),
        ]);
    }

    #[test]
    fn sed_and_awk_take_their_script_first() {
        check(&[
            ("sed -n '1,200p' src/x.ts", &["src/x.ts"]),
            ("sed -n '1,20p' a b", &["a", "b"]),
            ("sed -n -e 5p a", &["a"]),
            ("sed -ne 5p a", &["a"]),
            ("sed -e 1d -e 2d a", &["a"]),
            ("sed --expression=1d a", &["a"]),
            ("sed -f prog.sed a", &["a"]),
            ("sed -E 's/a|b/c/g' a", &["a"]),
            ("sed -i 's/a/b/' f", &["f"]),
            ("sed -i '' 's/a/b/' f", &["f"]),
            ("sed -i.bak -e s/a/b/ f", &["f"]),
            ("sed 5q", &[]),
            ("awk '{print $1}' data.txt", &["data.txt"]),
            ("awk -F: -v x=1 'NR>1' a.csv x=2 b.csv", &["a.csv", "b.csv"]),
            ("awk -F , '{print}' a", &["a"]),
            ("awk -f prog.awk in.txt", &["in.txt"]),
            ("awk 'END{print NR}' -", &[]),
            ("gawk -e 'BEGIN{}' a", &["a"]),
        ]);
    }

    #[test]
    fn searches_take_their_paths_after_the_pattern() {
        check(&[
            ("rg -n \"fn main\" crates/a src", &["crates/a", "src"]),
            ("rg foo", &[]),
            ("rg --files", &[]),
            ("rg --files src tests", &["src", "tests"]),
            ("rg -g '*.ts' -t rust -C 3 foo lib", &["lib"]),
            ("rg --glob '!target' --type=rust -m1 foo lib", &["lib"]),
            ("rg -e foo -e bar docs", &["docs"]),
            ("rg -f pats.txt docs", &["docs"]),
            ("rg -uuu --hidden -S foo .", &["."]),
            ("rg --type-list", &[]),
            ("grep -rn -e foo -- -weird", &["-weird"]),
            ("grep -rn TODO src --include='*.rs'", &["src"]),
            ("grep -rn TODO --include '*.rs' --exclude-dir target src", &["src"]),
            ("grep -A 3 -B2 foo a.txt", &["a.txt"]),
            ("grep -m 1 -- -x a", &["a"]),
            ("grep foo", &[]),
            ("grep -r foo", &[]),
            ("egrep 'a|b' x", &["x"]),
            ("fgrep -f words.txt x", &["x"]),
            ("ag -G ts foo src", &["src"]),
            ("ag -g spec src", &["src"]),
        ]);
    }

    #[test]
    fn listings_take_their_directories() {
        check(&[
            ("ls -la packages/", &["packages"]),
            ("ls -R dir", &["dir"]),
            ("ls", &[]),
            ("ls -I target -w 80 a", &["a"]),
            ("ls --ignore target a", &["a"]),
            ("tree -L 2 src", &["src"]),
            ("tree -I node_modules", &[]),
            ("find packages/api -name '*.ts'", &["packages/api"]),
            ("find . -type f | head -20", &["."]),
            ("find -L a b -maxdepth 1", &["a", "b"]),
            ("find . \\( -name a -o -name b \\) -print", &["."]),
            ("find ! -name x", &[]),
            ("find src -exec cat {} \\;", &["src"]),
            ("fd -e rs main crates", &["crates"]),
            ("fd main", &[]),
            ("fd -t f --search-path a x", &["a"]),
            ("fd --base-directory sub x y", &["sub/y"]),
            ("fd -e md . docs -x cat", &["docs"]),
            ("fdfind -H conf etc", &["etc"]),
        ]);
    }

    #[test]
    fn git_names_only_what_cannot_be_a_revision() {
        check(&[
            ("git diff -- a/b.rs", &["a/b.rs"]),
            ("git diff HEAD~1 a.rs", &[]),
            ("git diff --stat main...HEAD -- src tests/x.rs", &["src", "tests/x.rs"]),
            ("git show HEAD:src/a.rs", &[]),
            ("git log -p -n 5 -- src ':(exclude)x' '*.md'", &["src"]),
            ("git --no-pager log --oneline -- a", &["a"]),
            ("git blame -L 10,20 src/a.rs", &["src/a.rs"]),
            ("git blame HEAD~2 -- src/a.rs", &["src/a.rs"]),
            ("git -C sub log -- a", &["sub/a"]),
            ("git -C sub -C deeper diff -- a", &["sub/deeper/a"]),
            ("git -c core.pager=cat diff -- a", &["a"]),
            ("git grep -n foo -- lib", &["lib"]),
            ("git grep -n foo", &[]),
            ("git ls-files src '*.rs'", &["src"]),
            ("git status", &[]),
            ("git checkout -- a", &[]),
            ("git -C $D diff -- a", &[]),
        ]);
    }

    #[test]
    fn json_readers_take_their_files() {
        check(&[
            ("python3 -m json.tool data.json", &["data.json"]),
            ("python3 -m json.tool --indent 2 in.json out.json", &["in.json"]),
            ("python -mjson.tool in.json", &["in.json"]),
            ("python3 -u -X utf8 -m json.tool in.json", &["in.json"]),
            ("python3 -m http.server 8000", &[]),
            ("python3 -c 'open(\"x\")' y", &[]),
            ("python3 script.py a", &[]),
            ("curl -s u | python3 -m json.tool", &[]),
            ("jq '.a' package.json", &["package.json"]),
            ("jq -r --arg k v '.[$k]' a.json b.json", &["a.json", "b.json"]),
            ("jq -n --args '$ARGS' x y", &[]),
            ("jq --slurpfile s s.json -L lib . a.json", &["a.json"]),
            ("jq -f prog.jq in.json", &["in.json"]),
            ("cat a.json | jq .", &["a.json"]),
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
