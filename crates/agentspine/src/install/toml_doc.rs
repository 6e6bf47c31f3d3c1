//! The change to one TOML configuration file (Codex's and Kimi Code's
//! `config.toml`), edited with `toml_edit`: comments, key order and layout
//! stay, and a file that uses CRLF keeps it.
//!
//! On uninstall a table the removal empties stays when the original (see
//! [`super::backup`]) has it, the original's bytes come back when what
//! remains equals it value for value, and the file is removed only when
//! it is left blank and has no original (install created it).

use std::path::{Path, PathBuf};

use super::{Change, backup, read_config};

/// The change to `dir/name`: `edit` changes its document (missing: an
/// empty one) and is told which key paths the file's original has.
pub(super) fn change(
    dir: &Path,
    name: &str,
    make_dir: Option<(PathBuf, String)>,
    ours: backup::Holds,
    adding: bool,
    edit: impl FnOnce(&mut toml_edit::DocumentMut, &dyn Fn(&[&str]) -> bool) -> anyhow::Result<()>,
) -> anyhow::Result<Change> {
    let path = dir.join(name);
    let before = read_config(dir, name)?;
    let mut doc: toml_edit::DocumentMut = before
        .as_deref()
        .unwrap_or("")
        .parse()
        .map_err(|e| anyhow::anyhow!("{}: refused: not valid TOML ({e})", path.display()))?;
    let kept = match &before {
        Some(_) if !adding => backup::original(dir, name, ours),
        _ => None,
    };
    let kept_doc = kept.as_deref().and_then(|text| text.parse::<toml_edit::DocumentMut>().ok());
    edit(&mut doc, &|path: &[&str]| has_path(kept_doc.as_ref(), path))?;
    let mut text = doc.to_string();
    if before.as_deref().is_some_and(|b| b.contains("\r\n")) {
        text = crlf(&text);
    }
    let same_value = |a: &str, b: &str| match (a.parse::<toml::Table>(), b.parse::<toml::Table>()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    let after = match (&before, &kept) {
        (Some(old), _) if *old == text => Some(old.clone()),
        (None, _) if !adding => None,
        (Some(_), Some(original)) if !adding && same_value(&text, original) => Some(original.clone()),
        (Some(_), None) if !adding && text.trim().is_empty() => None,
        _ => Some(text),
    };
    Ok(Change { dir: dir.to_path_buf(), name: name.into(), make_dir, before, after, mode: 0o600, ours })
}

/// Whether the TOML document `doc` has the key path `path`.
fn has_path(doc: Option<&toml_edit::DocumentMut>, path: &[&str]) -> bool {
    let Some(doc) = doc else { return false };
    let Some((first, rest)) = path.split_first() else { return true };
    let mut item = doc.get(first);
    for key in rest {
        item = item.and_then(|i| i.get(key));
    }
    item.is_some()
}

/// `text` with every line ending in CRLF (`toml_edit` writes LF).
fn crlf(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 32);
    let mut previous = '\0';
    for c in text.chars() {
        if c == '\n' && previous != '\r' {
            out.push('\r');
        }
        out.push(c);
        previous = c;
    }
    out
}
