//! A test file that is not declared where it belongs never runs; this
//! catches it, in `tests/cli` and in each of its module directories.

#[test]
fn every_test_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli");
    check(&dir, "main.rs");
}

/// Every `.rs` file in `dir` is declared in `dir/parent`, and every
/// directory holds a `mod.rs` declared there too.
fn check(dir: &std::path::Path, parent: &str) {
    let declared = std::fs::read_to_string(dir.join(parent)).unwrap();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        if entry.file_type().unwrap().is_dir() {
            assert!(declared.contains(&format!("mod {name};")), "{}/{name} is not declared", dir.display());
            check(&entry.path(), "mod.rs");
            continue;
        }
        let Some(stem) = name.strip_suffix(".rs") else { continue };
        if stem != "main" && stem != "mod" {
            assert!(declared.contains(&format!("mod {stem};")), "{}/{name} is not declared", dir.display());
        }
    }
}
