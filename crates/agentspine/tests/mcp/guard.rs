//! A test file that is not declared in main.rs never runs; this catches it.

#[test]
fn every_test_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(stem) = name.strip_suffix(".rs") else { continue };
        if stem != "main" {
            assert!(main.contains(&format!("mod {stem};")), "tests/mcp/{name} is not declared in main.rs");
        }
    }
}
