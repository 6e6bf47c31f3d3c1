//! Options: each recognised command's options that take a value, so a
//! value is never taken for a path, and the parse of a command's words
//! into options and operands.

use super::words::{Piece, Word};

/// One argument as a command's option parser sees it.
#[derive(Debug, Clone, Copy)]
pub(super) enum Arg<'a> {
    Short(char, Option<Piece<'a>>),
    Long(&'a str, Option<Piece<'a>>),
    Operand(Piece<'a>),
}

/// A command's options that take a value, the rest being flags: what keeps
/// a value from being taken for a path.
pub(super) struct Spec {
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
    pub(super) const FLAGS: Spec = Spec { short: "", attached: "", long: "", pairs: "", posix: false };

    fn has(names: &str, name: &str) -> bool {
        names.split_ascii_whitespace().any(|n| n == name)
    }
}

/// `words` as `spec`'s command parses them. A word not known statically is
/// neither an option nor an operand (it is never guessed), but is taken as
/// the value of an option before it.
pub(super) fn parse<'a>(words: &'a [Word], spec: &Spec) -> Vec<Arg<'a>> {
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

pub(super) fn operands<'a>(args: &[Arg<'a>]) -> impl Iterator<Item = Piece<'a>> {
    args.iter().filter_map(|a| match a {
        Arg::Operand(p) => Some(*p),
        _ => None,
    })
}

pub(super) const HEAD: Spec = Spec { short: "nc", long: "lines bytes", ..Spec::FLAGS };
pub(super) const TAIL: Spec =
    Spec { short: "ncs", long: "lines bytes sleep-interval pid max-unchanged-stats", ..Spec::FLAGS };
pub(super) const NL: Spec = Spec {
    short: "bdfhilnsvw",
    long: "body-numbering section-delimiter footer-numbering header-numbering line-increment \
           join-blank-lines number-format number-width number-separator starting-line-number",
    ..Spec::FLAGS
};
pub(super) const LESS: Spec = Spec {
    short: "bhjkoOpPtTxyzD#",
    long: "buffers max-back-scroll jump-target lesskey-file lesskey-src log-file LOG-FILE \
           pattern prompt tag tag-file tabs max-forw-scroll window shift color header \
           line-num-width status-col-width rscroll wheel-lines intr quotes",
    ..Spec::FLAGS
};
pub(super) const MORE: Spec = Spec { short: "n", long: "lines", ..Spec::FLAGS };
pub(super) const WC: Spec = Spec { long: "files0-from", ..Spec::FLAGS };
pub(super) const FILE: Spec = Spec {
    short: "efFmP",
    long: "exclude exclude-quiet files-from separator magic-file parameter",
    ..Spec::FLAGS
};
/// `-f` and `-t` take a format in BSD `stat` (GNU's are flags): a value
/// either way, never a path.
pub(super) const STAT: Spec = Spec { short: "cft", long: "format printf", ..Spec::FLAGS };
pub(super) const BAT: Spec = Spec {
    short: "lHrm",
    long: "language highlight-line line-range file-name map-syntax tabs wrap terminal-width \
           theme style color italic-text decorations paging pager diff-context \
           nonprintable-notation binary ignored-suffix squeeze-limit strip-ansi completion",
    ..Spec::FLAGS
};
pub(super) const SED: Spec =
    Spec { short: "efl", attached: "i", long: "expression file line-length", ..Spec::FLAGS };
pub(super) const AWK: Spec = Spec {
    short: "fFvEeilW",
    attached: "dDopL",
    long: "file field-separator assign source include load exec",
    posix: true,
    ..Spec::FLAGS
};
pub(super) const GREP: Spec = Spec {
    short: "ABCDdefm",
    long: "after-context before-context context regexp file max-count include include-dir \
           exclude exclude-dir exclude-from label binary-files devices directories \
           group-separator",
    ..Spec::FLAGS
};
pub(super) const RG: Spec = Spec {
    short: "ABCEMTdefgjmrt",
    long: "after-context before-context context encoding max-columns type-not max-depth maxdepth \
           regexp file glob iglob threads max-count replace type type-add type-clear \
           max-filesize colors color context-separator field-context-separator \
           field-match-separator path-separator pre pre-glob sort sortr engine dfa-size-limit \
           regex-size-limit ignore-file hostname-bin hyperlink-format generate",
    ..Spec::FLAGS
};
pub(super) const AG: Spec = Spec {
    short: "ABCGgmpW",
    long: "after before context file-search-regex max-count path-to-ignore ignore ignore-dir \
           depth pager workers width color-line-number color-match color-path",
    ..Spec::FLAGS
};
pub(super) const LS: Spec = Spec {
    short: "ITw",
    long: "block-size format hide ignore indicator-style quoting-style sort tabsize time \
           time-style width",
    ..Spec::FLAGS
};
pub(super) const TREE: Spec = Spec {
    short: "LPIHTo",
    long: "charset filelimit timefmt sort gitfile infile hintro houtro",
    ..Spec::FLAGS
};
pub(super) const FD: Spec = Spec {
    short: "dteExXcjSo",
    long: "max-depth min-depth exact-depth type extension exclude exec exec-batch batch-size \
           ignore-file color threads size changed-within changed-before change-newer-than \
           change-older-than newer older owner base-directory path-separator search-path \
           max-results format",
    ..Spec::FLAGS
};
pub(super) const GIT_BLAME: Spec =
    Spec { short: "LS", attached: "CM", long: "contents ignore-rev ignore-revs-file reverse", ..Spec::FLAGS };
pub(super) const GIT_LS_FILES: Spec =
    Spec { short: "xX", long: "exclude exclude-from exclude-per-directory with-tree format", ..Spec::FLAGS };
pub(super) const JSON_TOOL: Spec = Spec { long: "indent", ..Spec::FLAGS };
/// jq's `-f` is a flag: the first operand is then the filter's file.
pub(super) const JQ: Spec =
    Spec { short: "L", long: "indent library-path", pairs: "arg argjson slurpfile rawfile", ..Spec::FLAGS };

#[cfg(test)]
mod tests {
    use crate::hosts::shell::tests::check;

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
}
