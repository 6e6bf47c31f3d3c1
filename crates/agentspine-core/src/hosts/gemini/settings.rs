//! Gemini CLI's settings that drive discovery: `context.fileName` and
//! `context.memoryBoundaryMarkers`, from its four layers (system defaults,
//! user, workspace, system; later wins). JSON with comments, as Gemini
//! accepts it.

use std::path::{Path, PathBuf};

use agentspine_fs::{Code, Reader};

use super::DEFAULT_NAME;
use crate::config::{malformed, parse_json, read_config, wrong_type};
use crate::env::Environment;
use crate::resolution::Warning;

/// The settings of Gemini CLI that decide which context files it reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GeminiSettings {
    /// Names read in each directory, in order (always ends up holding
    /// `GEMINI.md`).
    pub names: Vec<String>,
    /// `context.memoryBoundaryMarkers` (default `.git`).
    pub markers: Vec<String>,
}

/// Reads the layers for a session started in `cwd` (canonical or not; the
/// workspace layer is `<cwd>/.gemini/settings.json`, read beneath the cwd
/// without following links).
pub(crate) fn load_settings(
    reader: &Reader,
    env: &Environment,
    cwd: &Path,
    warnings: &mut Vec<Warning>,
) -> GeminiSettings {
    let mut names: Option<(Vec<String>, PathBuf)> = None;
    let mut markers: Option<Vec<String>> = None;
    let mut layers: Vec<(PathBuf, Option<String>)> = Vec::new();
    let system = env.gemini_system_settings.clone();
    let defaults = super::system_defaults_file(env);
    layers
        .push((defaults.clone(), split(&defaults).and_then(|(d, n)| read_config(reader, &d, &n, warnings))));
    if let Some(home) = super::home(env) {
        let file = home.join("settings.json");
        layers.push((file, read_config(reader, &home, "settings.json", warnings)));
    }
    let gemini_user_home = super::user_home(env);
    if gemini_user_home.is_none_or(|h| h != cwd) {
        let file = cwd.join(".gemini/settings.json");
        layers.push((file.clone(), workspace(reader, cwd, &file, warnings)));
    }
    layers.push((system.clone(), split(&system).and_then(|(d, n)| read_config(reader, &d, &n, warnings))));
    for (file, text) in layers {
        let Some(text) = text else { continue };
        let Some(json) = parse_json(&file, &strip_comments(&text), warnings) else { continue };
        let Some(context) = json.get("context") else { continue };
        if let Some(value) = context.get("fileName") {
            match value {
                serde_json::Value::String(s) => names = Some((vec![s.clone()], file.clone())),
                serde_json::Value::Array(items) => {
                    match items.iter().map(|v| v.as_str().map(str::to_owned)).collect() {
                        Some(list) => names = Some((list, file.clone())),
                        None => {
                            wrong_type(&file, "context.fileName", "a string or a list of strings", warnings)
                        }
                    }
                }
                _ => wrong_type(&file, "context.fileName", "a string or a list of strings", warnings),
            }
        }
        if let Some(value) = context.get("memoryBoundaryMarkers") {
            match value.as_array().and_then(|a| a.iter().map(|v| v.as_str().map(str::to_owned)).collect()) {
                Some(list) => markers = Some(list),
                None => wrong_type(&file, "context.memoryBoundaryMarkers", "a list of strings", warnings),
            }
        }
    }
    let (configured, names_file) = names.unwrap_or_default();
    let mut list: Vec<String> = Vec::new();
    for name in configured.iter().chain(std::iter::once(&DEFAULT_NAME.to_owned())) {
        let name = name.trim();
        if name.is_empty() {
            continue;
        }
        let Some(name) = plain_relative(name) else {
            warnings.push(malformed(
                &names_file,
                format!("context.fileName {name:?} is not a name inside a directory; agentspine skips it"),
            ));
            continue;
        };
        if !list.contains(&name) {
            list.push(name);
        }
    }
    let markers = markers
        .unwrap_or_else(|| vec![".git".to_owned()])
        .into_iter()
        .filter(|m| !m.starts_with('/') && !m.contains(".."))
        .collect();
    GeminiSettings { names: list, markers }
}

fn split(file: &Path) -> Option<(PathBuf, String)> {
    Some((file.parent()?.to_path_buf(), file.file_name()?.to_str()?.to_owned()))
}

fn workspace(reader: &Reader, cwd: &Path, file: &Path, warnings: &mut Vec<Warning>) -> Option<String> {
    let root = reader.open_root(cwd).ok()?;
    match root.read(".gemini/settings.json", 1024 * 1024) {
        Ok(snap) => String::from_utf8(snap.bytes).ok(),
        Err(e) if matches!(e.code(), Code::NotFound | Code::NotDirectory) => None,
        Err(e) => {
            warnings.push(Warning {
                code: "config-unreadable".to_owned(),
                file: Some(file.to_path_buf()),
                message: format!("{}: cannot be read ({e}); the host's defaults are used", file.display()),
            });
            None
        }
    }
}

/// A name normalised as Node's `path.normalize` would, when it stays
/// inside the directory it is joined to.
fn plain_relative(name: &str) -> Option<String> {
    if name.starts_with('/') {
        return None;
    }
    let mut parts = Vec::new();
    for part in name.split('/') {
        match part {
            "" | "." => {}
            ".." => return None,
            other => parts.push(other),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// JSON with `//` and `/* */` comments (outside strings) turned to spaces,
/// so positions in warnings stay right.
pub fn strip_comments(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            out.push(b);
            if b == b'\\' && i + 1 < bytes.len() {
                out.push(bytes[i + 1]);
                i += 2;
                continue;
            }
            in_string = b != b'"';
            i += 1;
        } else if b == b'"' {
            in_string = true;
            out.push(b);
            i += 1;
        } else if bytes[i..].starts_with(b"//") {
            while i < bytes.len() && bytes[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if bytes[i..].starts_with(b"/*") {
            let end =
                bytes[i + 2..].windows(2).position(|w| w == b"*/").map_or(bytes.len(), |p| i + 2 + p + 2);
            for &c in &bytes[i..end] {
                out.push(if c == b'\n' { b'\n' } else { b' ' });
            }
            i = end;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_blanked_outside_strings() {
        assert_eq!(strip_comments("{\"a\": \"//x\" // c\n}"), "{\"a\": \"//x\"     \n}");
        assert_eq!(strip_comments("/* a\n*/{}"), "    \n  {}");
    }

    #[test]
    fn names_are_normalised_and_kept_inside() {
        assert_eq!(plain_relative("./AGENTS.md").as_deref(), Some("AGENTS.md"));
        assert_eq!(plain_relative("docs//X.md").as_deref(), Some("docs/X.md"));
        assert_eq!(plain_relative("../x.md"), None);
        assert_eq!(plain_relative("/etc/x"), None);
    }
}
