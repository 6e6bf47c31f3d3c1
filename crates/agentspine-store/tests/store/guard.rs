//! A test file that is not declared in main.rs never runs; this catches it.

#[test]
fn every_test_file_is_a_module() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/store");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(stem) = name.strip_suffix(".rs") else { continue };
        if stem == "main" {
            continue;
        }
        seen += 1;
        assert!(main.contains(&format!("mod {stem};")), "tests/store/{name} is not declared in main.rs");
    }
    assert!(seen >= 10, "expected the suite's files, saw {seen}");
}
