//! Gemini CLI's profile: names from its settings, the order it sends files
//! in, its inlined imports and its framing (the parity suite compares the
//! same cases with the real client byte for byte).

use agentspine_core::{Host, render_native};

use crate::support::{Project, verdict_of};

#[test]
fn files_go_in_path_order_framed_and_split_into_global_and_project_blocks() {
    let p = Project::git();
    p.file("GEMINI.md", "root\n").file("Alpha/GEMINI.md", "\n alpha \n").file("Alpha/sub/GEMINI.md", " \n");
    p.home_file(".gemini/GEMINI.md", "\u{feff}global\r\n");
    let r = p.resolve(Host::Gemini, "Alpha/sub");
    let t = |path: &str, text: &str| {
        let abs = p.tree.join(path).display().to_string();
        format!("--- Context from: {abs} ---\n{text}\n--- End of Context from: {abs} ---")
    };
    let global = p.home.join(".gemini/GEMINI.md").display().to_string();
    let expected = format!(
        "<loaded_context>\n--- Context from: {global} ---\nglobal\n--- End of Context from: {global} ---\n</loaded_context>\n\n\
         <loaded_context>\n<project_context>\n{}\n\n{}\n</project_context>\n</loaded_context>",
        t("Alpha/GEMINI.md", "alpha"),
        t("GEMINI.md", "root")
    );
    assert_eq!(render_native(&r), expected);
    assert_eq!(r.parts.len(), 3);
    assert_eq!(verdict_of(&r, "Alpha/sub/GEMINI.md"), "empty");
}

#[test]
fn the_configured_names_are_read_in_each_directory_and_gemini_md_is_always_added() {
    let p = Project::git();
    p.file("AGENTS.md", "a\n")
        .file("CLAUDE.md", "c\n")
        .file("GEMINI.md", "g\n")
        .file("sub/AGENTS.md", "sa\n");
    p.home_file(".gemini/settings.json", "// mine\n{\"context\": {\"fileName\": \"AGENTS.md\"}}\n");
    let r = p.resolve(Host::Gemini, "sub");
    let labels: Vec<&str> = r.parts.iter().map(|part| part.label.as_str()).collect();
    assert_eq!(labels, ["AGENTS.md", "GEMINI.md", "sub/AGENTS.md"]);
    assert!(r.probes.iter().all(|pr| !pr.path.ends_with("CLAUDE.md")), "CLAUDE.md is not a name");
}

#[test]
fn imports_are_inlined_with_markers_and_refused_outside_the_root() {
    let p = Project::new();
    std::fs::create_dir_all(p.tree.join("proj/.git")).unwrap();
    p.file("outside.md", "OUTSIDE\n");
    p.file("proj/docs/x.md", "x\n@y.md\n").file("proj/docs/y.md", "y\n@x.md\n");
    p.file("proj/GEMINI.md", "top @docs/x.md `@docs/y.md` @../outside.md @gone.md @~/h.md\n");
    let r = p.resolve(Host::Gemini, "proj");
    let gone = p.tree.join("proj/gone.md").display().to_string();
    let expected = format!(
        "top <!-- Imported from: docs/x.md -->\nx\n<!-- Imported from: y.md -->\ny\n\
         <!-- File already processed: x.md -->\n\n<!-- End of import from: y.md -->\n\n\
         <!-- End of import from: docs/x.md --> `@docs/y.md` \
         <!-- Import failed: ../outside.md - Path traversal attempt --> \
         <!-- Import failed: gone.md - ENOENT: no such file or directory, access '{gone}' --> @~/h.md"
    );
    assert_eq!(r.parts.len(), 1);
    assert_eq!(r.parts[0].text, expected);
    assert_eq!(verdict_of(&r, &p.tree.join("outside.md").display().to_string()), "import outside-root");
    assert_eq!(r.counters.reads, 3, "GEMINI.md, x.md and y.md; never outside.md");
}

#[test]
fn imports_stop_at_depth_five() {
    let p = Project::git();
    p.file("GEMINI.md", "0 @d1.md @7.md");
    for i in 1..=6 {
        p.file(&format!("d{i}.md"), format!("{i} @d{}.md", i + 1));
    }
    let r = p.resolve(Host::Gemini, ".");
    let text = &r.parts[0].text;
    assert_eq!(text.matches("<!-- Imported from:").count(), 5);
    assert!(text.contains("5 @d6.md"), "the fifth file is taken as it is: {text}");
    assert!(text.ends_with(" @7.md"), "a path must start with a letter, `.` or `/`: {text}");
    assert_eq!(r.counters.reads, 6);
}

#[test]
fn a_configured_name_that_leaves_its_directory_is_skipped_with_a_warning_naming_the_file() {
    let p = Project::git();
    p.file("AGENTS.md", "a\n").file("x.md", "x\n");
    p.home_file(
        ".gemini/settings.json",
        "{\"context\": {\"fileName\": [\"../x.md\", \" \", \"./AGENTS.md\"]}}",
    );
    let r = p.resolve(Host::Gemini, ".");
    let labels: Vec<&str> = r.parts.iter().map(|part| part.label.as_str()).collect();
    assert_eq!(labels, ["AGENTS.md"]);
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert_eq!(r.warnings[0].file.as_deref(), Some(p.home.join(".gemini/settings.json").as_path()));
    assert!(r.warnings[0].message.contains("\"../x.md\" is not a name inside a directory"));
}
