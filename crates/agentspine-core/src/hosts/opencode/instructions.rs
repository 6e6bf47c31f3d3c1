//! opencode's config `instructions` (measured on 1.18.33:
//! tests/e2e/OPENCODE-MEASURED.md, "Config `instructions`").
//!
//! The arrays of every config opencode reads are joined, each string
//! once, in its merge order: the global config directory's `config.json`,
//! `opencode.json`, `opencode.jsonc`; the file `$OPENCODE_CONFIG` names;
//! unless project config is off, each
//! `opencode.json` then `opencode.jsonc` from the root down to the cwd,
//! then each `.opencode/opencode.json(c)` from the cwd up to the root;
//! `~/.opencode/opencode.json(c)`; `$OPENCODE_CONFIG_CONTENT`. Each entry:
//! - `http(s)://…`: fetched by opencode; agentspine reads no network;
//! - `~/…`: under HOME; absolute: that path, a glob in its last part only;
//! - anything else: a path or glob tried in the cwd and each directory
//!   above it up to the root, closest first (in the config directory alone
//!   when project config is off); below the cwd as far as the glob
//!   reaches.
//!
//! Braces (`{a,b}`, nested too) expand within one part of a path: in a
//! directory part each alternative is walked in the order written, in the
//! last part a name matches any alternative (measured: `oc_cfg_braces`;
//! opencode's order among several matches of one group changes from run
//! to run). A group that spans a `/` is matched as written.
//!
//! Matches are files (a link to a file counts; directories never), dot
//! files included, labelled by their absolute path as matched (a link by
//! its own path); a path already sent is not sent again, and an empty file
//! gives nothing. Several matches of one glob come in the order its walk
//! meets them: a directory's own files first, in the reverse of their
//! order on disk (measured on ext4; two fixtures, so an inference), then
//! its subdirectories'. opencode's walk reads sibling subdirectories
//! concurrently, so their matches come in a different order from one run
//! to the next (measured: five runs over ten siblings, four orders);
//! agentspine takes them in the byte order of their names, the one order
//! that is the same on every machine. agentspine resolves the matches
//! inside the root with the confined reader (one bounded listing per
//! directory a glob part reaches; links are matched, never walked through;
//! `.git` is never entered); a path out of the project (`../…` past the
//! root, `~/`, an absolute path elsewhere, a URL) is listed `outside-root`
//! with what opencode does, and never opened.

use std::path::{Component, Path, PathBuf};

use agentspine_fs::{FileKind, Root};

use crate::chain::{ChainDir, fetch};
use crate::env::Environment;
use crate::gather::Gather;
use crate::locate::Located;
use crate::paths::tilde;
use crate::resolution::{Scope, Verdict, Warning};

/// Entries of one directory listed while matching a glob.
const MAX_ENTRIES: usize = 8192;
/// Directories listed for one resolution's globs.
const MAX_LISTINGS: usize = 256;

/// The `instructions` of every config, joined, each string once, in
/// opencode's merge order. Each directory is opened once (the chain's
/// directories are the chain's handles).
fn entries(
    env: &Environment,
    located: &Located,
    dirs: &[ChainDir],
    warnings: &mut Vec<Warning>,
) -> Vec<String> {
    let reader = located.root.reader();
    let mut out: Vec<String> = Vec::new();
    let mut take = |handle: &Root, names: &[&str], out: &mut Vec<String>| {
        for name in names {
            let Ok(fetched) = fetch(handle, name, super::CAP) else { continue };
            let file = handle.host_path().join(name);
            match instructions_of(&String::from_utf8_lossy(&fetched.snap.bytes)) {
                Some(list) => {
                    for entry in list {
                        if !out.contains(&entry) {
                            out.push(entry);
                        }
                    }
                }
                None => warnings.push(Warning {
                    code: "config-malformed".to_owned(),
                    message: format!(
                        "{} is not JSON opencode accepts; agentspine leaves out its `instructions`",
                        file.display()
                    ),
                    file: Some(file),
                }),
            }
        }
    };
    const NAMES: [&str; 2] = ["opencode.json", "opencode.jsonc"];
    if let Some(config) = super::home(env)
        && let Ok(handle) = reader.open_root(&config)
    {
        take(&handle, &["config.json", "opencode.json", "opencode.jsonc"], &mut out);
    }
    // `$OPENCODE_CONFIG`, a file the user names (an absolute path): read
    // through its own directory, never through a link.
    if let Some(named) = &env.var_path("OPENCODE_CONFIG") {
        let named = crate::paths::lexical(named);
        if let (Some(dir), Some(name)) = (named.parent(), named.file_name().and_then(|n| n.to_str()))
            && let Ok(handle) = reader.open_root(dir)
        {
            take(&handle, &[name], &mut out);
        }
    }
    if !super::project_config_off(env) {
        for dir in dirs {
            if let Ok(handle) = &dir.dir {
                take(handle, &NAMES, &mut out);
            }
        }
        for dir in dirs.iter().rev() {
            if let Ok(handle) = &dir.dir
                && let Ok(dot) = handle.subdir(".opencode")
            {
                take(&dot, &NAMES, &mut out);
            }
        }
    }
    if let Some(home) = &env.home
        && let Ok(handle) = reader.open_root(&home.join(".opencode"))
    {
        take(&handle, &NAMES, &mut out);
    }
    if let Some(list) = env.var_text("OPENCODE_CONFIG_CONTENT").and_then(instructions_of) {
        for entry in list {
            if !out.contains(&entry) {
                out.push(entry);
            }
        }
    }
    out
}

/// The `instructions` strings of one config's text (JSON with comments
/// and trailing commas); `None` when it is not an object.
pub(crate) fn instructions_of(text: &str) -> Option<Vec<String>> {
    let json = without_trailing_commas(&crate::hosts::gemini::strip_comments(text));
    let value: serde_json::Value = serde_json::from_str(&json).ok()?;
    let object = value.as_object()?;
    Some(
        object
            .get("instructions")
            .and_then(|v| v.as_array())
            .map(|list| list.iter().filter_map(|v| v.as_str().map(str::to_owned)).collect())
            .unwrap_or_default(),
    )
}

/// JSON with each comma that only a `]` or `}` follows removed (outside
/// strings), as JSONC allows.
fn without_trailing_commas(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if in_string {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
            out.push(c);
            continue;
        }
        if c == '"' {
            in_string = true;
        } else if c == ','
            && bytes[i + 1..]
                .iter()
                .find(|b| !b.is_ascii_whitespace())
                .is_some_and(|b| *b == b']' || *b == b'}')
        {
            continue;
        }
        out.push(c);
    }
    out
}

/// Alternatives one brace group may expand into (all of a part's groups
/// together); a part past it is matched as written.
const MAX_ALTERNATIVES: usize = 64;

/// One part of a glob.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Literal(String),
    Pattern(String),
    Globstar,
    /// A directory part with braces (`{b,a}`): each alternative in the
    /// order written, walked in turn (measured: `oc_cfg_braces`).
    Either(Vec<Segment>),
}

fn is_pattern(part: &str) -> bool {
    part.contains(['*', '?', '[']) || expand_braces(part).is_some()
}

/// `part` with its `{a,b}` groups expanded, in the order written (`x{b,a}`:
/// `xb`, `xa`; nested groups too); `None` when it holds no group with a
/// comma, or more than [`MAX_ALTERNATIVES`] alternatives.
fn expand_braces(part: &str) -> Option<Vec<String>> {
    expand(part).ok().flatten()
}

/// [`expand_braces`], telling the bound (`Err`) from no group (`Ok(None)`).
fn expand(part: &str) -> Result<Option<Vec<String>>, ()> {
    let bytes = part.as_bytes();
    // The first `{` whose group closes, with a comma at its own depth.
    for (open, _) in bytes.iter().enumerate().filter(|(_, b)| **b == b'{') {
        let mut depth = 0usize;
        let mut commas = vec![open];
        for (i, &b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        if commas.len() == 1 {
                            break;
                        }
                        commas.push(i);
                        let (head, tail) = (&part[..open], &part[i + 1..]);
                        let mut out = Vec::new();
                        for pair in commas.windows(2) {
                            let whole = format!("{head}{}{tail}", &part[pair[0] + 1..pair[1]]);
                            match expand(&whole)? {
                                Some(more) => out.extend(more),
                                None => out.push(whole),
                            }
                            if out.len() > MAX_ALTERNATIVES {
                                return Err(());
                            }
                        }
                        return Ok(Some(out));
                    }
                }
                b',' if depth == 1 => commas.push(i),
                _ => {}
            }
        }
    }
    Ok(None)
}

/// `entry` expanded whole, in the order written, when one of its brace
/// groups holds a `/` (`{b/x,a}/R.md`: `b/x/R.md`, `a/R.md`); `None`
/// otherwise (groups within one part are that part's alternatives). opencode
/// globs each alternative at once, so the order of their matches differs
/// from run to run (measured: `oc_cfg_braces_slash`); agentspine keeps the
/// order written.
fn spanning_alternatives(entry: &str) -> Option<Vec<String>> {
    let mut depth = 0usize;
    let mut spans = false;
    for b in entry.bytes() {
        match b {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            b'/' if depth > 0 => spans = true,
            _ => {}
        }
    }
    if spans { expand_braces(entry) } else { None }
}

/// The segment of one part of a glob below its base.
fn segment(part: &str, last: bool) -> Segment {
    if !last && let Some(alternatives) = expand_braces(part) {
        return Segment::Either(alternatives.iter().map(|p| segment(p, last)).collect());
    }
    match part {
        "**" if !last => Segment::Globstar,
        p if is_pattern(p) => Segment::Pattern(p.to_owned()),
        p => Segment::Literal(p.to_owned()),
    }
}

/// Where an entry's matches are looked for.
enum Place {
    /// Beneath the root: a directory (relative, `""` the root) and the
    /// parts of the glob under it.
    Inside { base: String, segments: Vec<Segment> },
    /// Out of the project: the path (or glob) opencode reads.
    Outside(PathBuf),
}

/// `path` lexically normalised (`.` dropped, `..` taken back); `None`
/// when it climbs above `/`.
fn normalise(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::RootDir => out.push("/"),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(n) => out.push(n),
            Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// The one glob part of an absolute entry (its last).
fn segment_last_only(part: &str) -> Segment {
    if is_pattern(part) { Segment::Pattern(part.to_owned()) } else { Segment::Literal(part.to_owned()) }
}

/// Where the absolute `dir` joined with the glob `pattern` lies: beneath
/// `root`, or out of it. `last_only`: only the last part is a glob (an
/// absolute entry).
fn place(root: &Path, dir: &Path, pattern: &str, last_only: bool) -> Place {
    let full = dir.join(pattern);
    let Some(full) = normalise(&full) else { return Place::Outside(dir.join(pattern)) };
    let Ok(rel) = full.strip_prefix(root) else { return Place::Outside(full) };
    let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    let Some((_, dirs)) = parts.split_last() else { return Place::Outside(full) };
    let split =
        if last_only { dirs.len() } else { parts.iter().position(|p| is_pattern(p)).unwrap_or(dirs.len()) };
    let base = parts[..split].join("/");
    let count = parts.len() - split;
    let segments: Vec<Segment> = parts[split..]
        .iter()
        .enumerate()
        .map(|(i, p)| if last_only { segment_last_only(p) } else { segment(p, i + 1 == count) })
        .collect();
    Place::Inside { base, segments }
}

/// Resolves the configs' `instructions` after the instruction files (the
/// paths already in the chain are not sent again). `dirs`: the chain's
/// directories from the root down, none when the root is never a project.
pub(crate) fn resolve(
    env: &Environment,
    located: &Located,
    dirs: &[ChainDir],
    gather: &mut Gather,
    warnings: &mut Vec<Warning>,
) {
    let list = entries(env, located, dirs, warnings);
    let mut sent: Vec<PathBuf> = gather.parts.iter().map(|p| p.path.clone()).collect();
    let mut listings = 0usize;
    for entry in list {
        if entry.starts_with("https://") || entry.starts_with("http://") {
            gather.probe_differs(
                entry.clone(),
                Scope::Project,
                Verdict::OutsideRoot,
                "opencode fetches this URL and sends its text after the files; agentspine reads no network"
                    .to_owned(),
            );
            continue;
        }
        let expanded = match (entry.strip_prefix("~/"), &env.home) {
            (Some(rest), Some(home)) => home.join(rest),
            _ => PathBuf::from(&entry),
        };
        let places: Vec<Place> = if expanded.is_absolute() {
            let dir = expanded.parent().unwrap_or(Path::new("/"));
            let name = expanded.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            vec![place(&located.root_path, dir, &name, true)]
        } else if super::project_config_off(env) {
            let config = super::home(env).unwrap_or_default();
            vec![Place::Outside(config.join(&entry))]
        } else {
            let alternatives = spanning_alternatives(&entry).unwrap_or_else(|| vec![entry.clone()]);
            dirs.iter()
                .rev()
                .flat_map(|d| {
                    let dir = located.root_path.join(&d.rel);
                    alternatives.iter().map(move |alternative| (dir.clone(), alternative))
                })
                .map(|(dir, alternative)| place(&located.root_path, &dir, alternative, false))
                .collect()
        };
        for at in places {
            match at {
                Place::Outside(path) => gather.probe_differs(
                    tilde(&path, env.home.as_deref()),
                    Scope::User,
                    Verdict::OutsideRoot,
                    format!(
                        "opencode reads what `{entry}` names out of the project; agentspine never opens it"
                    ),
                ),
                Place::Inside { base, segments } => {
                    let mut found = Vec::new();
                    matches(&located.root, &base, &segments, &mut found, &mut listings, warnings);
                    for rel in found {
                        include(located, &rel, gather, &mut sent);
                    }
                }
            }
        }
    }
}

/// Reads one match `rel` (relative to the root) unless it was sent.
fn include(located: &Located, rel: &str, gather: &mut Gather, sent: &mut Vec<PathBuf>) {
    let path = located.root_path.join(rel);
    if sent.contains(&path) {
        gather.probe(rel.to_owned(), Scope::Project, Verdict::Duplicate);
        return;
    }
    let (parent, name) = match rel.rsplit_once('/') {
        Some((parent, name)) => (parent, name),
        None => ("", rel),
    };
    let handle = if parent.is_empty() {
        Ok(located.root.clone())
    } else {
        located.root.subdir(parent).map_err(|e| crate::chain::verdict_of(&e))
    };
    let handle = match handle {
        Ok(handle) => handle,
        Err(verdict) => {
            gather.probe(rel.to_owned(), Scope::Project, verdict);
            return;
        }
    };
    match fetch(&handle, name, super::CAP) {
        Ok(fetched) => {
            sent.push(path.clone());
            let text = super::text_of(&fetched.snap.bytes);
            if text.is_empty() {
                gather.probe(rel.to_owned(), Scope::Project, Verdict::Empty);
            } else {
                gather.include(fetched.part(Scope::Project, path, rel.to_owned(), text));
            }
        }
        Err(not_read) if not_read.host_reads_it() => {
            sent.push(path);
            gather.probe_differs(
                rel.to_owned(),
                Scope::Project,
                not_read,
                "opencode follows this link and reads its target; agentspine never reads outside the root"
                    .to_owned(),
            );
        }
        Err(not_read) => gather.probe(rel.to_owned(), Scope::Project, not_read),
    }
}

fn join(base: &str, name: &str) -> String {
    if base.is_empty() { name.to_owned() } else { format!("{base}/{name}") }
}

/// The files under `base` that `segments` match: a directory's own files
/// as opencode's glob meets them (last on disk first), then its
/// subdirectories' in the byte order of their names (opencode reads them
/// concurrently, in no fixed order). Links are matched as files, never
/// walked through; `.git` is never entered.
fn matches(
    root: &Root,
    base: &str,
    segments: &[Segment],
    found: &mut Vec<String>,
    listings: &mut usize,
    warnings: &mut Vec<Warning>,
) {
    let Some((first, rest)) = segments.split_first() else { return };
    let last = rest.is_empty();
    match first {
        Segment::Literal(name) => {
            let rel = join(base, name);
            let Ok(meta) = root.stat(&rel) else { return };
            if last {
                if meta.kind != FileKind::Directory && !found.contains(&rel) {
                    found.push(rel);
                }
            } else if meta.kind == FileKind::Directory {
                matches(root, &rel, rest, found, listings, warnings);
            }
        }
        Segment::Pattern(pattern) => {
            let Some(mut names) = list(root, base, listings, warnings) else { return };
            if !last {
                names.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            }
            // Its braces expanded and its alternatives tokenised once for
            // the whole listing.
            let alternatives = alternatives_of(pattern);
            let tokens: Vec<Vec<Token>> =
                alternatives.iter().map(|p| one_byte_tokens(p.as_bytes())).collect();
            for (name, kind) in names {
                if !tokens.iter().any(|t| tokens_match(t, name.as_bytes())) {
                    continue;
                }
                let rel = join(base, &name);
                if last {
                    if kind != FileKind::Directory && !found.contains(&rel) {
                        found.push(rel);
                    }
                } else if kind == FileKind::Directory {
                    matches(root, &rel, rest, found, listings, warnings);
                }
            }
        }
        Segment::Either(alternatives) => {
            for alternative in alternatives {
                let mut one = vec![alternative.clone()];
                one.extend_from_slice(rest);
                matches(root, base, &one, found, listings, warnings);
            }
        }
        Segment::Globstar => {
            matches(root, base, rest, found, listings, warnings);
            let Some(mut names) = list(root, base, listings, warnings) else { return };
            names.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            for (name, kind) in names {
                if kind == FileKind::Directory && name != ".git" {
                    matches(root, &join(base, &name), segments, found, listings, warnings);
                }
            }
        }
    }
}

/// The entries of `base` (links as [`FileKind::Symlink`]) in the order
/// opencode meets them, one bounded listing; `None` past the bound (warned once) or when it cannot
/// be listed.
fn list(
    root: &Root,
    base: &str,
    listings: &mut usize,
    warnings: &mut Vec<Warning>,
) -> Option<Vec<(String, FileKind)>> {
    if *listings == MAX_LISTINGS {
        *listings += 1;
        warnings.push(Warning {
            code: "bounded-truncated".to_owned(),
            file: None,
            message: format!(
                "opencode's config instructions name globs that reach more than {MAX_LISTINGS} directories; \
                 agentspine stopped there"
            ),
        });
    }
    if *listings >= MAX_LISTINGS {
        return None;
    }
    *listings += 1;
    let listing = root.list(if base.is_empty() { "." } else { base }, MAX_ENTRIES).ok()?;
    let kind_of = |name: &str| {
        listing
            .entries
            .iter()
            .chain(&listing.hidden)
            .find(|e| e.name == name)
            .map_or(FileKind::Symlink, |e| e.kind)
    };
    // opencode's glob walk meets a directory's entries in the reverse of
    // the order the directory gives them (measured: oc_cfg_glob_order).
    Some(listing.disk_order.iter().rev().map(|name| (name.clone(), kind_of(name))).collect())
}

/// Whether `name` matches the one-part glob `pattern`, braces and all.
#[cfg(test)]
fn glob_match(pattern: &[u8], name: &[u8]) -> bool {
    let pattern = std::str::from_utf8(pattern).expect("a pattern in UTF-8");
    alternatives_of(pattern).iter().any(|p| glob_match_plain(p.as_bytes(), name))
}

/// A one-part glob's brace-free alternatives: its braces expanded, or
/// itself.
fn alternatives_of(pattern: &str) -> Vec<String> {
    expand_braces(pattern).unwrap_or_else(|| vec![pattern.to_owned()])
}

/// Whether `name` matches the one-part glob `pattern` without braces.
#[cfg(test)]
fn glob_match_plain(pattern: &[u8], name: &[u8]) -> bool {
    tokens_match(&one_byte_tokens(pattern), name)
}

/// Whether `name` matches a brace-free one-part glob, as its
/// [`one_byte_tokens`] (`*`, `?`, `[…]`, `[!…]`; dot files match as any
/// name: opencode globs with `dot`): one pass over the name, going back
/// only to the last `*` (time pattern × name whatever the pattern: a
/// project's config cannot make a listing spin).
fn tokens_match(tokens: &[Token], name: &[u8]) -> bool {
    let (mut t, mut n) = (0, 0);
    // The token after the last `*` met, and the name byte it was tried at.
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match tokens.get(t) {
            Some(Token::Star) => {
                t += 1;
                star = Some((t, n));
                continue;
            }
            Some(token) if token.matches(name[n]) => {
                t += 1;
                n += 1;
                continue;
            }
            _ => {}
        }
        // A mismatch: the last `*` takes one byte more, if there was one.
        let Some((after, at)) = star else { return false };
        t = after;
        n = at + 1;
        star = Some((after, n));
    }
    tokens[t..].iter().all(|token| matches!(token, Token::Star))
}

/// One part of a one-part glob without braces.
#[derive(Debug)]
enum Token<'a> {
    /// `*`: any run of bytes.
    Star,
    /// `?`: one byte.
    Any,
    /// `[…]` / `[!…]` / `[^…]`: one byte in (or not in) the class, whose
    /// `x-y` triples are ranges and other bytes themselves.
    Class { negated: bool, class: &'a [u8] },
    /// Anything else, and a `[` with no `]` after the byte that follows it.
    Byte(u8),
}

impl Token<'_> {
    fn matches(&self, c: u8) -> bool {
        match *self {
            Token::Star => true,
            Token::Any => true,
            Token::Byte(b) => b == c,
            Token::Class { negated, class } => {
                let mut hit = false;
                let mut i = 0;
                while i < class.len() {
                    if i + 2 < class.len() && class[i + 1] == b'-' {
                        hit |= class[i] <= c && c <= class[i + 2];
                        i += 3;
                    } else {
                        hit |= class[i] == c;
                        i += 1;
                    }
                }
                hit != negated
            }
        }
    }
}

/// `pattern` as tokens of one byte each (a `*` any number).
fn one_byte_tokens(pattern: &[u8]) -> Vec<Token<'_>> {
    let mut out = Vec::with_capacity(pattern.len());
    let mut i = 0;
    while i < pattern.len() {
        let rest = &pattern[i + 1..];
        match pattern[i] {
            b'*' => out.push(Token::Star),
            b'?' => out.push(Token::Any),
            // The class closes at the first `]` after its first byte.
            b'[' => match rest.iter().skip(1).position(|b| *b == b']').map(|p| p + 1) {
                Some(close) => {
                    let (negated, class) = match rest[..close].split_first() {
                        Some((b'!' | b'^', class)) => (true, class),
                        _ => (false, &rest[..close]),
                    };
                    out.push(Token::Class { negated, class });
                    i += close + 2;
                    continue;
                }
                None => out.push(Token::Byte(b'[')),
            },
            b => out.push(Token::Byte(b)),
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_are_read_from_jsonc_with_comments_and_trailing_commas() {
        let text = "{\n  // a comment\n  \"$schema\": \"x\",\n  \"instructions\": [\"r1.md\",],\n}\n";
        assert_eq!(instructions_of(text), Some(vec!["r1.md".to_owned()]));
        assert_eq!(
            instructions_of("{\"instructions\": [\"a,]\", 3, \"b\"]}"),
            Some(vec!["a,]".to_owned(), "b".to_owned()])
        );
        assert_eq!(instructions_of("{}"), Some(vec![]));
        assert_eq!(instructions_of("[1]"), None);
        assert_eq!(instructions_of("{\"instructions\": [}"), None);
    }

    /// The matcher as first written: a recursion that tries every split at
    /// each `*` (exponential in the stars); the reference for small cases.
    fn reference_match(pattern: &[u8], name: &[u8]) -> bool {
        match pattern.split_first() {
            None => name.is_empty(),
            Some((b'*', rest)) => (0..=name.len()).any(|i| reference_match(rest, &name[i..])),
            Some((b'?', rest)) => !name.is_empty() && reference_match(rest, &name[1..]),
            Some((b'[', rest)) => {
                let Some(close) = rest.iter().skip(1).position(|b| *b == b']').map(|p| p + 1) else {
                    return name.first() == Some(&b'[') && reference_match(rest, &name[1..]);
                };
                let Some((&c, tail)) = name.split_first() else { return false };
                let (negated, class) = match rest[..close].split_first() {
                    Some((b'!' | b'^', class)) => (true, class),
                    _ => (false, &rest[..close]),
                };
                Token::Class { negated, class }.matches(c) && reference_match(&rest[close + 1..], tail)
            }
            Some((p, rest)) => name.first() == Some(p) && reference_match(rest, &name[1..]),
        }
    }

    #[test]
    fn the_one_pass_matcher_answers_as_the_recursive_one_on_every_small_case() {
        // Every pattern of up to 4 of these pieces against every name of up
        // to 4 of these bytes.
        let pieces: [&[u8]; 9] = [b"*", b"?", b"a", b"b", b"[ab]", b"[!a]", b"[a-", b"]", b"[]a]"];
        let bytes = [b'a', b'b', b'[', b']', b'-'];
        let mut patterns: Vec<Vec<u8>> = vec![Vec::new()];
        for _ in 0..4 {
            let longer: Vec<Vec<u8>> = patterns
                .iter()
                .flat_map(|p| pieces.iter().map(move |piece| [p.as_slice(), piece].concat()))
                .collect();
            patterns.extend(longer);
        }
        patterns.sort();
        patterns.dedup();
        let mut names: Vec<Vec<u8>> = vec![Vec::new()];
        for _ in 0..4 {
            let longer: Vec<Vec<u8>> = names
                .iter()
                .flat_map(|n| bytes.iter().map(move |b| [n.as_slice(), &[*b]].concat()))
                .collect();
            names.extend(longer);
        }
        names.sort();
        names.dedup();
        let mut compared = 0usize;
        for pattern in &patterns {
            for name in &names {
                assert_eq!(
                    glob_match_plain(pattern, name),
                    reference_match(pattern, name),
                    "{:?} against {:?}",
                    String::from_utf8_lossy(pattern),
                    String::from_utf8_lossy(name)
                );
                compared += 1;
            }
        }
        assert_eq!(compared, patterns.len() * names.len());
        assert!(compared > 1_000_000, "{compared}");
    }

    #[test]
    fn only_groups_that_hold_a_slash_expand_the_whole_entry() {
        let whole = |e: &str| spanning_alternatives(e).map(|v| v.join(" "));
        assert_eq!(whole("{b/x,a}/R.md").as_deref(), Some("b/x/R.md a/R.md"));
        assert_eq!(whole("{docs/*.txt,n/y.md}").as_deref(), Some("docs/*.txt n/y.md"));
        assert_eq!(whole("p/{q,s/t}/{U,V}.md").as_deref(), Some("p/q/U.md p/q/V.md p/s/t/U.md p/s/t/V.md"));
        assert_eq!(whole("{b,a}/R.md"), None, "a group within one part is that part's");
        assert_eq!(whole("{a/b}/R.md"), None, "no comma: as written");
        assert_eq!(whole("a/b.md"), None);
    }

    #[test]
    fn many_stars_against_a_long_name_are_answered_in_one_pass() {
        // The recursion would try about 10^20 splits here.
        let pattern = b"*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b";
        let name = vec![b'a'; 250];
        assert!(!glob_match(pattern, &name));
        let mut ending = name.clone();
        ending.push(b'b');
        assert!(glob_match(pattern, &ending));
    }

    #[test]
    fn one_part_globs_match_as_opencode_s_glob_does() {
        assert!(glob_match(b"*.md", b"a.md"));
        assert!(glob_match(b"*.md", b".hidden.md"));
        assert!(!glob_match(b"*.md", b"a.txt"));
        assert!(glob_match(b"g?.md", b"g1.md"));
        assert!(!glob_match(b"g?.md", b"g12.md"));
        assert!(glob_match(b"[a-c]x", b"bx"));
        assert!(!glob_match(b"[!a-c]x", b"bx"));
        assert!(glob_match(b"RULES.md", b"RULES.md"));
        assert!(glob_match(b"*.{txt,md}", b"a.md") && glob_match(b"*.{txt,md}", b"a.txt"));
        assert!(!glob_match(b"*.{txt,md}", b"a.rst"));
        assert!(glob_match(b"{c}.md", b"{c}.md") && !glob_match(b"{c}.md", b"c.md"), "no comma: as written");
    }

    #[test]
    fn braces_expand_in_the_order_written_nested_and_bounded() {
        let expand = |p: &str| expand_braces(p).map(|v| v.join(" "));
        assert_eq!(expand("{b,a}").as_deref(), Some("b a"));
        assert_eq!(expand("x{b,{c,d}}y").as_deref(), Some("xby xcy xdy"));
        assert_eq!(expand("{a,b}{1,2}").as_deref(), Some("a1 a2 b1 b2"));
        assert_eq!(expand("{}{a}{b,").as_deref(), None, "no group with a comma that closes");
        assert_eq!(expand(&"{a,b}".repeat(7)), None, "128 alternatives: past the bound");
        // A directory part with braces is each alternative in turn; the
        // last part matches names with them.
        let segments = |pattern: &str| match place(Path::new("/r"), Path::new("/r"), pattern, false) {
            Place::Inside { base, segments } => (base, segments),
            Place::Outside(p) => panic!("{}", p.display()),
        };
        assert_eq!(
            segments("{b,a}/x/*.{md,txt}"),
            (
                String::new(),
                vec![
                    Segment::Either(vec![Segment::Literal("b".to_owned()), Segment::Literal("a".to_owned())]),
                    Segment::Literal("x".to_owned()),
                    Segment::Pattern("*.{md,txt}".to_owned())
                ]
            )
        );
    }

    #[test]
    fn entries_are_placed_beneath_the_root_or_out_of_the_project() {
        let root = Path::new("/p");
        let inside =
            |dir: &str, pattern: &str, last_only: bool| match place(root, Path::new(dir), pattern, last_only)
            {
                Place::Inside { base, segments } => Some((base, segments)),
                Place::Outside(_) => None,
            };
        assert_eq!(
            inside("/p/pkg", "deep/**/*.md", false),
            Some(("pkg/deep".to_owned(), vec![Segment::Globstar, Segment::Pattern("*.md".to_owned())]))
        );
        assert_eq!(
            inside("/p/pkg", "../notes.md", false),
            Some((String::new(), vec![Segment::Literal("notes.md".to_owned())]))
        );
        assert_eq!(
            inside("/p", "./dot/rel.md", false),
            Some(("dot".to_owned(), vec![Segment::Literal("rel.md".to_owned())]))
        );
        // An absolute entry is a glob in its last part only.
        assert_eq!(
            inside("/p/in*", "g*.md", true),
            Some(("in*".to_owned(), vec![Segment::Pattern("g*.md".to_owned())]))
        );
        assert!(
            matches!(place(root, Path::new("/p"), "../outside/rel.md", false), Place::Outside(p) if p == Path::new("/outside/rel.md"))
        );
        assert!(matches!(place(root, Path::new("/h/abs"), "*.md", true), Place::Outside(_)));
    }
}
