//! Words: the shell's split of the command text. Quotes and escapes are
//! removed, operators and redirections told apart, comments and heredoc
//! bodies skipped; an expansion is kept as written and its word marked as
//! not known statically.

/// How deep `$( "$( … )" )` is split before the command is given up: each
/// level is a call, and a command is the model's text.
const MAX_SUBSTITUTIONS: usize = 32;

/// One word after quote removal.
#[derive(Debug, Clone)]
pub(super) struct Word {
    /// Its text with quotes and escapes removed; expansions kept as written.
    pub(super) text: String,
    /// False when the shell would expand something in it at run time.
    pub(super) known: bool,
    /// Where in `text` the first quoted or escaped character is.
    quoted_from: Option<usize>,
    /// Its byte offset in the command: the order of appearance.
    pub(super) at: usize,
}

impl Word {
    pub(super) fn piece(&self) -> Piece<'_> {
        Piece { text: &self.text, known: self.known, at: self.at }
    }

    /// `NAME=value` (or `NAME+=value`) with its name written unquoted: an
    /// assignment when it comes before a command.
    pub(super) fn is_assignment(&self) -> bool {
        self.text
            .find('=')
            .is_some_and(|eq| self.quoted_from.is_none_or(|q| q > eq) && is_assignment(&self.text))
    }
}

/// A word, or the value part of one (`-n5`, `--glob=x`).
#[derive(Debug, Clone, Copy)]
pub(super) struct Piece<'a> {
    pub(super) text: &'a str,
    pub(super) known: bool,
    pub(super) at: usize,
}

/// `NAME=value` by its text (how awk reads its operands too).
pub(super) fn is_assignment(text: &str) -> bool {
    let Some((name, _)) = text.split_once('=') else { return false };
    let name = name.strip_suffix('+').unwrap_or(name);
    name.bytes().next().is_some_and(|b| b == b'_' || b.is_ascii_alphabetic())
        && name.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric())
}

#[derive(Debug)]
pub(super) enum Token {
    Word(Word),
    Op(Op),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
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
pub(super) enum Redirect {
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
pub(super) struct Unreadable;

/// Splits `src` into words and operators, skipping comments and heredoc
/// bodies.
pub(super) fn tokens(src: &str) -> Result<Vec<Token>, Unreadable> {
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

#[cfg(test)]
mod tests {
    use crate::hosts::shell::tests::{check, targets};

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
}
