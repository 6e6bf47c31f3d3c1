//! Reading the hosts' own configuration files (TOML and JSON) through the
//! confined reader. A malformed file is a warning naming the file, line and
//! column; the host's defaults are used instead.

use std::path::Path;

use agentspine_fs::{Code, Reader};

use crate::resolution::Warning;

/// Config files are small; anything larger is not a config file.
const CONFIG_CAP: u64 = 1024 * 1024;

/// Reads `dir/name` if it exists. `Ok(None)` when absent; a warning when it
/// exists but cannot be read.
pub(crate) fn read_config(
    reader: &Reader,
    dir: &Path,
    name: &str,
    warnings: &mut Vec<Warning>,
) -> Option<String> {
    let file = dir.join(name);
    let root = reader.open_root(dir).ok()?;
    match root.read_remembered(name, CONFIG_CAP) {
        Ok(snap) => match String::from_utf8(snap.bytes) {
            Ok(text) => Some(text),
            Err(_) => {
                warnings.push(malformed(&file, "is not valid UTF-8".to_owned()));
                None
            }
        },
        Err(e) if e.code() == Code::NotFound => None,
        Err(e) => {
            warnings.push(Warning {
                code: "config-unreadable".to_owned(),
                file: Some(file.clone()),
                message: format!("{}: cannot be read ({}); the host's defaults are used", file.display(), e),
            });
            None
        }
    }
}

pub(crate) fn malformed(file: &Path, what: String) -> Warning {
    Warning {
        code: "config-malformed".to_owned(),
        file: Some(file.to_path_buf()),
        message: format!("{}: {what}; the host's defaults are used", file.display()),
    }
}

/// 1-based line and column of a byte offset.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Parses TOML, or warns with line and column.
pub(crate) fn parse_toml(file: &Path, text: &str, warnings: &mut Vec<Warning>) -> Option<toml::Table> {
    match text.parse::<toml::Table>() {
        Ok(table) => Some(table),
        Err(e) => {
            let (line, column) = e.span().map_or((1, 1), |s| line_column(text, s.start));
            let reason = e.message().trim().to_owned();
            warnings.push(malformed(file, format!("line {line}, column {column}: {reason}")));
            None
        }
    }
}

/// Parses JSON, or warns with line and column.
pub(crate) fn parse_json(file: &Path, text: &str, warnings: &mut Vec<Warning>) -> Option<serde_json::Value> {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) => Some(value),
        Err(e) => {
            let reason = e.to_string();
            let reason = reason.split(" at line ").next().unwrap_or(&reason).to_owned();
            warnings.push(malformed(file, format!("line {}, column {}: {reason}", e.line(), e.column())));
            None
        }
    }
}

/// A value of the wrong type in a config file.
pub(crate) fn wrong_type(file: &Path, key: &str, expected: &str, warnings: &mut Vec<Warning>) {
    warnings.push(malformed(file, format!("`{key}` must be {expected}")));
}
