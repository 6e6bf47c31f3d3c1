//! Commands: what running a simple command does. Assignments, reserved
//! words and wrappers (`env`, `nice`, `timeout`, …) are looked through to
//! a `cd`, a nested shell's script, or a recognised command and the paths
//! it reads.

use super::options::{
    AG, AWK, Arg, BAT, FD, FILE, GIT_BLAME, GIT_LS_FILES, GREP, HEAD, JQ, JSON_TOOL, LESS, LS, MORE, NL, RG,
    SED, STAT, Spec, TAIL, TREE, WC, operands, parse,
};
use super::words::{Piece, Word, is_assignment};
use super::{is_shell, script_of};

/// What running a simple command does, as far as this module can know.
pub(super) enum Effect<'a> {
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

/// What `words` does, through assignments, reserved words and wrappers.
pub(super) fn effect(mut words: &[Word], stdin: bool) -> Effect<'_> {
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

/// What a recognised command reads.
#[derive(Default)]
pub(super) struct Reads<'a> {
    /// Its path operands.
    pub(super) paths: Vec<Piece<'a>>,
    /// It reads its working directory when it names no path (`ls`, `rg`).
    pub(super) implicit: bool,
    /// Directories it runs in, each from the one before (`git -C DIR`).
    pub(super) base: Vec<Piece<'a>>,
}

impl<'a> Reads<'a> {
    fn files(paths: impl IntoIterator<Item = Piece<'a>>) -> Self {
        Reads { paths: paths.into_iter().collect(), ..Reads::default() }
    }

    fn searched(paths: impl IntoIterator<Item = Piece<'a>>, implicit: bool) -> Self {
        Reads { paths: paths.into_iter().collect(), implicit, base: Vec::new() }
    }
}

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
    use crate::hosts::shell::tests::check;

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
}
