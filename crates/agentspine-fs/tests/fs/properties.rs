//! Random trees, random links, random paths: the reader agrees with a
//! small reference model of the rules and never returns outside bytes.

use std::collections::BTreeMap;
use std::path::Path;

use agentspine_fs::{Backend, Code, FileKind};
use proptest::prelude::*;

use crate::support::{SECRET, Tree, backends, reader};

const NAMES: [&str; 3] = ["a", "b", "c"];

#[derive(Debug, Clone)]
enum Node {
    Dir,
    File(Vec<u8>),
    Link,
}

/// Every path of up to three names drawn from NAMES, parents first.
fn slots() -> Vec<String> {
    let mut out: Vec<String> = NAMES.iter().map(|n| n.to_string()).collect();
    for depth in 0..2 {
        let prev: Vec<String> = out.iter().filter(|p| p.matches('/').count() == depth).cloned().collect();
        for p in prev {
            for n in NAMES {
                out.push(format!("{p}/{n}"));
            }
        }
    }
    out
}

fn link_target(tree: &Tree, choice: u8) -> std::path::PathBuf {
    match choice % 8 {
        0 => "a".into(),
        1 => "b/c".into(),
        2 => "..".into(),
        3 => "../outside".into(),
        4 => "../outside/secret.md".into(),
        5 => tree.outside.join("secret.md"),
        6 => tree.root.join("a"),
        _ => "nowhere".into(),
    }
}

/// Builds the tree on disk and returns the model of it.
fn build(tree: &Tree, kinds: &[(u8, u8)]) -> BTreeMap<String, Node> {
    let mut model = BTreeMap::new();
    for (slot, (kind, target)) in slots().into_iter().zip(kinds) {
        let parent_ok = match slot.rsplit_once('/') {
            None => true,
            Some((parent, _)) => matches!(model.get(parent), Some(Node::Dir)),
        };
        if !parent_ok {
            continue;
        }
        match kind % 4 {
            1 => {
                tree.dir(&slot);
                model.insert(slot, Node::Dir);
            }
            2 => {
                let bytes = format!("file at {slot}").into_bytes();
                tree.file(&slot, &bytes);
                model.insert(slot, Node::File(bytes));
            }
            3 => {
                tree.symlink(&slot, link_target(tree, *target));
                model.insert(slot, Node::Link);
            }
            _ => {}
        }
    }
    model
}

/// The rules, written as simply as possible.
fn model_names(path: &str) -> Result<Vec<&str>, Code> {
    if path.is_empty() {
        return Err(Code::InvalidPath);
    }
    if path.starts_with('/') {
        return Err(Code::Escape);
    }
    let mut names = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                names.pop().ok_or(Code::Escape)?;
            }
            n => names.push(n),
        }
    }
    Ok(names)
}

fn model_lookup<'m>(model: &'m BTreeMap<String, Node>, path: &str) -> Result<Option<&'m Node>, Code> {
    let names = model_names(path)?;
    let mut at = String::new();
    for (i, name) in names.iter().enumerate() {
        if !at.is_empty() {
            at.push('/');
        }
        at.push_str(name);
        let node = model.get(&at);
        if i + 1 == names.len() {
            return Ok(node);
        }
        match node {
            Some(Node::Dir) => {}
            Some(Node::Link) => return Err(Code::Symlink),
            Some(Node::File(_)) | None => return Err(Code::NotFound),
        }
    }
    Ok(Some(&Node::Dir)) // the root itself
}

fn model_read(model: &BTreeMap<String, Node>, path: &str) -> Result<Vec<u8>, Code> {
    match model_lookup(model, path)? {
        None => Err(Code::NotFound),
        Some(Node::Link) => Err(Code::Symlink),
        Some(Node::Dir) => Err(Code::NotRegular),
        Some(Node::File(bytes)) => Ok(bytes.clone()),
    }
}

fn model_stat(model: &BTreeMap<String, Node>, path: &str) -> Result<FileKind, Code> {
    match model_lookup(model, path)? {
        None => Err(Code::NotFound),
        Some(Node::Link) => Ok(FileKind::Symlink),
        Some(Node::Dir) => Ok(FileKind::Directory),
        Some(Node::File(_)) => Ok(FileKind::File),
    }
}

fn path_strategy() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        4 => Just("a"), 4 => Just("b"), 4 => Just("c"),
        2 => Just("."), 3 => Just(".."), 1 => Just(""),
    ];
    (any::<bool>(), prop::collection::vec(token, 1..7)).prop_map(|(absolute, tokens)| {
        let joined = tokens.join("/");
        if absolute && joined.len() % 5 == 0 { format!("/{joined}") } else { joined }
    })
}

fn check(backend: Backend, kinds: &[(u8, u8)], paths: &[String]) -> Result<(), TestCaseError> {
    let tree = Tree::new();
    let model = build(&tree, kinds);
    let root = reader(backend).open_root(&tree.root).unwrap();
    for path in paths {
        let got = root.read(Path::new(path), 1 << 16).map(|s| s.bytes).map_err(|e| e.code());
        if let Ok(bytes) = &got {
            prop_assert_ne!(bytes.as_slice(), SECRET, "outside bytes returned for {:?}", path);
        }
        prop_assert_eq!(&got, &model_read(&model, path), "{:?} read {:?}", backend, path);
        let stat = root.stat(Path::new(path)).map(|m| m.kind).map_err(|e| e.code());
        prop_assert_eq!(stat, model_stat(&model, path), "{:?} stat {:?}", backend, path);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn agrees_with_the_reference_model(
        kinds in prop::collection::vec((0u8..4, any::<u8>()), 39),
        paths in prop::collection::vec(path_strategy(), 24),
    ) {
        for backend in backends() {
            check(backend, &kinds, &paths)?;
        }
    }
}
