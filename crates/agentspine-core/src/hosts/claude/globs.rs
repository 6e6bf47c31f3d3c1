//! `paths:` patterns matched without compiling a regular expression.
//!
//! A rule's `paths:` are gitignore lines relative to the directory holding
//! `.claude/`, with the semantics of the `ignore` crate's `Gitignore`
//! (which compiles each set into a regular expression, and builds a DFA
//! for it: a large share of a hook's time for one rule). This module
//! parses the same lines into the same tokens and matches them over the
//! path's bytes directly. Anything it does not model (a non-ASCII pattern,
//! more than [`MAX_EXPANSIONS`] alternatives, a line over [`MAX_LINE`]
//! bytes) is `None`, and the caller
//! uses `Gitignore` itself; `rules.rs` checks both agree on random lines
//! and paths.

use std::path::Path;

/// Alternatives (`{a,b}`) expand into at most this many token sequences.
const MAX_EXPANSIONS: usize = 64;
/// Longer lines are left to `Gitignore` (matching costs tokens × bytes).
const MAX_LINE: usize = 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// One byte.
    Literal(u8),
    /// `?`: one byte, never `/`.
    Any,
    /// `*`: any run of bytes without `/`.
    ZeroOrMore,
    /// A leading `**/`: nothing, `/`, or anything ending in `/`.
    RecursivePrefix,
    /// A trailing `/**`: `/` and anything after it.
    RecursiveSuffix,
    /// `/**/`: `/`, or `/` … `/`.
    RecursiveZeroOrMore,
    /// `[…]`: one byte (never `/`) in (or, negated, not in) the ranges.
    Class { negated: bool, ranges: Vec<(u8, u8)> },
    /// `{a,b}`.
    Alternates(Vec<Vec<Token>>),
    /// The whole glob `**`: anything at all.
    Everything,
}

/// One line: its token sequences (alternatives expanded), whether it only
/// matches directories (`dir/`), and whether it re-includes (`!`).
#[derive(Debug)]
struct Line {
    sequences: Vec<Vec<Token>>,
    only_dir: bool,
    whitelist: bool,
}

/// Whether `rel` (a path relative to the patterns' base, `/`-separated)
/// or one of its parent directories matches `patterns` as gitignore lines;
/// `None` when a pattern is outside what this module models.
pub(crate) fn matches(patterns: &[String], rel: &Path) -> Option<bool> {
    let mut lines = Vec::new();
    for pattern in patterns {
        match line(pattern)? {
            Ok(Some(line)) => lines.push(line),
            Ok(None) => {}
            // A line the glob parser refuses: no match at all.
            Err(()) => return Some(false),
        }
    }
    if lines.is_empty() {
        return Some(false);
    }
    let verdict = |path: &Path, is_dir: bool| -> Option<bool> {
        let bytes = path.as_os_str().as_encoded_bytes();
        lines
            .iter()
            .rev()
            .find(|l| (!l.only_dir || is_dir) && l.sequences.iter().any(|seq| glob_match(seq, bytes)))
            .map(|l| !l.whitelist)
    };
    if let Some(v) = verdict(rel, false) {
        return Some(v);
    }
    let mut path = rel;
    while let Some(parent) = path.parent() {
        if let Some(v) = verdict(parent, true) {
            return Some(v);
        }
        path = parent;
    }
    Some(false)
}

/// One gitignore line: `None` outside the model, `Some(Err)` for a line
/// the glob parser refuses, `Some(Ok(None))` for a blank or comment line.
fn line(raw: &str) -> Option<Result<Option<Line>, ()>> {
    if !raw.is_ascii() || raw.len() > MAX_LINE {
        return None;
    }
    if raw.starts_with('#') {
        return Some(Ok(None));
    }
    let mut line = trim_trailing_unescaped_spaces(raw);
    if line.is_empty() {
        return Some(Ok(None));
    }
    let mut whitelist = false;
    let mut absolute = false;
    if line.starts_with("\\!") || line.starts_with("\\#") {
        line = &line[1..];
        absolute = line.starts_with('/');
    } else {
        if let Some(rest) = line.strip_prefix('!') {
            whitelist = true;
            line = rest;
        }
        if let Some(rest) = line.strip_prefix('/') {
            line = rest;
            absolute = true;
        }
    }
    if line.is_empty() {
        return Some(Ok(None));
    }
    let mut only_dir = false;
    if let Some(rest) = line.strip_suffix('/') {
        only_dir = true;
        line = rest.strip_suffix('\\').unwrap_or(rest);
    }
    let mut actual = line.to_owned();
    // A line without a slash matches at any depth.
    let anywhere = !(absolute || line.contains('/') || actual.starts_with("**/") || actual == "**");
    if anywhere {
        actual = format!("**/{actual}");
    }
    if actual.ends_with("/**") {
        actual.push_str("/*");
    }
    let tokens = match parse(&actual) {
        Ok(tokens) => tokens,
        Err(()) => return Some(Err(())),
    };
    // The whole glob `**` matches everything.
    let tokens = if tokens == [Token::RecursivePrefix] { vec![Token::Everything] } else { tokens };
    let sequences = expand(&tokens)?;
    Some(Ok(Some(Line { sequences, only_dir, whitelist })))
}

fn trim_trailing_unescaped_spaces(line: &str) -> &str {
    let bytes = line.as_bytes();
    let mut last_space = None;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => {
                if i + 1 >= bytes.len() {
                    return line;
                }
                i += 2;
                last_space = None;
            }
            b' ' => {
                last_space.get_or_insert(i);
                i += 1;
            }
            _ => {
                last_space = None;
                i += 1;
            }
        }
    }
    &line[..last_space.unwrap_or(line.len())]
}

/// The glob parser's tokens for an ASCII glob (`*` and `?` never match
/// `/`, backslash escapes, unclosed `[` taken literally).
struct Parser<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    prev: Option<char>,
    cur: Option<char>,
    stack: Vec<usize>,
    branches: Vec<Vec<Token>>,
    found_unclosed_class: bool,
}

fn parse(glob: &str) -> Result<Vec<Token>, ()> {
    let mut p = Parser {
        chars: glob.chars().peekable(),
        prev: None,
        cur: None,
        stack: Vec::new(),
        branches: vec![Vec::new()],
        found_unclosed_class: false,
    };
    while let Some(c) = p.bump() {
        match c {
            '?' => p.push(Token::Any)?,
            '*' => p.star()?,
            '[' if !p.found_unclosed_class => p.class()?,
            '{' => {
                if p.stack.len() >= 100 {
                    return Err(());
                }
                p.stack.push(p.branches.len());
                p.branches.push(Vec::new());
            }
            '}' => {
                let start = p.stack.pop().ok_or(())?;
                let alternates = Token::Alternates(p.branches.drain(start..).collect());
                p.push(alternates)?;
            }
            ',' if !p.stack.is_empty() => p.branches.push(Vec::new()),
            '\\' => {
                let escaped = p.bump().ok_or(())?;
                p.push(Token::Literal(escaped as u8))?;
            }
            c => p.push(Token::Literal(c as u8))?,
        }
    }
    if p.branches.len() != 1 {
        return Err(());
    }
    Ok(p.branches.pop().unwrap_or_default())
}

impl Parser<'_> {
    fn bump(&mut self) -> Option<char> {
        self.prev = self.cur;
        self.cur = self.chars.next();
        self.cur
    }

    fn peek(&mut self) -> Option<char> {
        self.chars.peek().copied()
    }

    fn push(&mut self, token: Token) -> Result<(), ()> {
        self.branches.last_mut().ok_or(())?.push(token);
        Ok(())
    }

    fn star(&mut self) -> Result<(), ()> {
        let prev = self.prev;
        if self.peek() != Some('*') {
            return self.push(Token::ZeroOrMore);
        }
        self.bump();
        let have_tokens = !self.branches.last().ok_or(())?.is_empty();
        if !have_tokens {
            if self.peek().is_some_and(|c| c != '/') {
                self.push(Token::ZeroOrMore)?;
                return self.push(Token::ZeroOrMore);
            }
            self.push(Token::RecursivePrefix)?;
            self.bump();
            return Ok(());
        }
        if prev != Some('/') && (self.branches.len() <= 1 || (prev != Some(',') && prev != Some('{'))) {
            self.push(Token::ZeroOrMore)?;
            return self.push(Token::ZeroOrMore);
        }
        let is_suffix = match self.peek() {
            None => {
                self.bump();
                true
            }
            Some(',' | '}') if self.branches.len() >= 2 => true,
            Some('/') => {
                self.bump();
                false
            }
            _ => {
                self.push(Token::ZeroOrMore)?;
                return self.push(Token::ZeroOrMore);
            }
        };
        let last = self.branches.last_mut().ok_or(())?.pop().ok_or(())?;
        let token = match last {
            Token::RecursivePrefix => Token::RecursivePrefix,
            Token::RecursiveSuffix => Token::RecursiveSuffix,
            _ if is_suffix => Token::RecursiveSuffix,
            _ => Token::RecursiveZeroOrMore,
        };
        self.push(token)
    }

    fn class(&mut self) -> Result<(), ()> {
        let saved = (self.chars.clone(), self.prev, self.cur);
        let mut ranges: Vec<(u8, u8)> = Vec::new();
        let negated = matches!(self.peek(), Some('!' | '^'));
        if negated {
            self.bump();
        }
        let mut first = true;
        let mut in_range = false;
        loop {
            let Some(c) = self.bump() else {
                (self.chars, self.prev, self.cur) = saved;
                self.found_unclosed_class = true;
                return self.push(Token::Literal(b'['));
            };
            match c {
                ']' if first => ranges.push((b']', b']')),
                ']' => break,
                '-' if first => ranges.push((b'-', b'-')),
                '-' if in_range => {
                    let last = ranges.last_mut().ok_or(())?;
                    last.1 = b'-';
                    if last.1 < last.0 {
                        return Err(());
                    }
                    in_range = false;
                }
                '-' => in_range = true,
                '[' if !in_range && self.peek() == Some(':') => match self.posix_class() {
                    Some(class) => ranges.extend_from_slice(class),
                    None => ranges.push((b'[', b'[')),
                },
                c => {
                    if in_range {
                        let last = ranges.last_mut().ok_or(())?;
                        last.1 = c as u8;
                        if last.1 < last.0 {
                            return Err(());
                        }
                    } else {
                        ranges.push((c as u8, c as u8));
                    }
                    in_range = false;
                }
            }
            first = false;
        }
        if in_range {
            ranges.push((b'-', b'-'));
        }
        self.push(Token::Class { negated, ranges })
    }

    /// `[:name:]` inside a class, or `None` (and nothing consumed).
    fn posix_class(&mut self) -> Option<&'static [(u8, u8)]> {
        let saved = (self.chars.clone(), self.prev, self.cur);
        self.bump();
        let mut name = String::new();
        loop {
            match self.bump() {
                Some(':') if self.peek() == Some(']') => {
                    self.bump();
                    return posix(&name);
                }
                Some(c) if c.is_ascii_lowercase() && name.len() < 8 => name.push(c),
                _ => {
                    (self.chars, self.prev, self.cur) = saved;
                    return None;
                }
            }
        }
    }
}

fn posix(name: &str) -> Option<&'static [(u8, u8)]> {
    Some(match name {
        "alnum" => &[(b'0', b'9'), (b'A', b'Z'), (b'a', b'z')],
        "alpha" => &[(b'A', b'Z'), (b'a', b'z')],
        "blank" => &[(b'\t', b'\t'), (b' ', b' ')],
        "cntrl" => &[(0, 0x1f), (0x7f, 0x7f)],
        "digit" => &[(b'0', b'9')],
        "graph" => &[(b'!', b'~')],
        "lower" => &[(b'a', b'z')],
        "print" => &[(b' ', b'~')],
        "punct" => &[(b'!', b'/'), (b':', b'@'), (b'[', b'`'), (b'{', b'~')],
        "space" => &[(b'\t', b'\r'), (b' ', b' ')],
        "upper" => &[(b'A', b'Z')],
        "xdigit" => &[(b'0', b'9'), (b'A', b'F'), (b'a', b'f')],
        _ => return None,
    })
}

/// The flat token sequences `tokens` stands for (an empty alternative
/// drops out; alternatives that are all empty match nothing extra).
fn expand(tokens: &[Token]) -> Option<Vec<Vec<Token>>> {
    let mut out: Vec<Vec<Token>> = vec![Vec::new()];
    for token in tokens {
        match token {
            Token::Alternates(branches) => {
                // An alternative that stands for nothing drops out (the
                // glob parser leaves an empty alternative out of its
                // expression).
                let mut choices = Vec::new();
                for branch in branches {
                    choices.extend(expand(branch)?.into_iter().filter(|seq| !seq.is_empty()));
                }
                if choices.is_empty() {
                    continue;
                }
                let mut next = Vec::new();
                for prefix in &out {
                    for choice in &choices {
                        next.push(prefix.iter().chain(choice).cloned().collect());
                        if next.len() > MAX_EXPANSIONS {
                            return None;
                        }
                    }
                }
                out = next;
            }
            other => out.iter_mut().for_each(|seq| seq.push(other.clone())),
        }
    }
    Some(out)
}

/// Whether the whole of `path` matches the flat `tokens`: one pass per
/// token over the path, from the last token back (time tokens × bytes,
/// memory a few rows of bytes, whatever the pattern).
fn glob_match(tokens: &[Token], path: &[u8]) -> bool {
    // A sequence that starts with literal bytes matches only a path that
    // starts with them (the common case: `src/**` against a path
    // elsewhere), answered without the table.
    let lead = tokens.iter().take_while(|t| matches!(t, Token::Literal(_))).count();
    if lead > path.len()
        || tokens[..lead].iter().zip(path).any(|(t, &b)| !matches!(t, Token::Literal(l) if *l == b))
    {
        return false;
    }
    let n = path.len();
    // `rest[k]`: the tokens after the current one match `path[k..]`.
    let mut rest = vec![false; n + 1];
    rest[n] = true;
    let mut here = vec![false; n + 1];
    // Per row: how many `rest[k]` hold for k in j..=n, and the same for
    // the k just after a `/`.
    let mut from = vec![0usize; n + 2];
    let mut after_slash = vec![0usize; n + 2];
    // The first `/` at or after j (n when none).
    let mut next_slash = vec![n; n + 1];
    for j in (0..n).rev() {
        next_slash[j] = if path[j] == b'/' { j } else { next_slash[j + 1] };
    }
    for token in tokens.iter().rev() {
        for k in (0..=n).rev() {
            from[k] = from[k + 1] + usize::from(rest[k]);
            after_slash[k] = after_slash[k + 1] + usize::from(rest[k] && k >= 1 && path[k - 1] == b'/');
        }
        for j in 0..=n {
            let byte = path.get(j).copied();
            here[j] = match token {
                Token::Literal(b) => byte == Some(*b) && rest[j + 1],
                Token::Any => byte.is_some_and(|c| c != b'/') && rest[j + 1],
                Token::Class { negated, ranges } => {
                    byte.is_some_and(|c| {
                        c != b'/' && ranges.iter().any(|&(lo, hi)| (lo..=hi).contains(&c)) != *negated
                    }) && rest[j + 1]
                }
                // Any k from j up to the next `/` (inclusive of that end).
                Token::ZeroOrMore => from[j] > from[next_slash[j] + 1],
                // Nothing, or anything that ends with a `/`.
                Token::RecursivePrefix => rest[j] || after_slash[j + 1] > 0,
                Token::RecursiveSuffix => byte == Some(b'/') && from[j + 1] > 0,
                Token::RecursiveZeroOrMore => byte == Some(b'/') && after_slash[j + 1] > 0,
                Token::Everything => true,
                // Expanded away before matching.
                Token::Alternates(_) => false,
            };
        }
        std::mem::swap(&mut rest, &mut here);
    }
    rest[0]
}
