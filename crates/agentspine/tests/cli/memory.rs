//! `agentspine memory`, `scope` and `cache` with the real SQLite store.

use crate::support::Example;

const SCOPE: &str = "project:blun,person:owner";

fn memory(ex: &Example, extra: &[&str]) -> serde_json::Value {
    let dir = ex.memory.display().to_string();
    let mut args = vec!["memory", "--memory-dir", dir.as_str(), "--json"];
    args.extend_from_slice(extra);
    ex.json(&ex.run(".", &args))
}

#[test]
fn a_warm_run_serves_facts_from_the_store_without_reading_them() {
    let ex = Example::new();
    let cold = memory(&ex, &["--scope", SCOPE, "--prompt", "carbonara"]);
    assert_eq!(cold["report"]["loaded"], 4);
    assert_eq!(cold["report"]["cache_misses"], 4);
    let warm = memory(&ex, &["--scope", SCOPE, "--prompt", "carbonara"]);
    assert_eq!(
        (warm["report"]["cache_hits"].as_u64(), warm["report"]["cache_misses"].as_u64()),
        (Some(4), Some(0))
    );
    std::fs::write(ex.memory.join("pasta.md"), "Carbonara: no garlic either.\n").unwrap();
    let edited = memory(&ex, &["--scope", SCOPE, "--prompt", "carbonara"]);
    assert_eq!(
        (edited["report"]["cache_hits"].as_u64(), edited["report"]["cache_misses"].as_u64()),
        (Some(3), Some(1))
    );
    let stats = ex.json(&ex.run(".", &["cache", "stats", "--json"]));
    assert_eq!(stats["cache"]["rows"], 4);
    let purged =
        ex.json(&ex.run(".", &["cache", "purge", "--root", &ex.memory.display().to_string(), "--json"]));
    assert_eq!(purged["dropped"], 4);
}

#[test]
fn json_has_counts_and_reasons_but_no_contents_or_paths() {
    let ex = Example::new();
    let out = memory(&ex, &["--scope", SCOPE, "--prompt", "carbonara"]);
    let text = out.to_string();
    for secret in ["guanciale", "pasta.md", "projects/blun.md", "Thursdays"] {
        assert!(!text.contains(secret), "{secret} leaked into --json: {text}");
    }
    insta::assert_json_snapshot!(out["not_loaded"], @r#"
    [
      {
        "position": 4,
        "why": {
          "reason": "out-of-scope"
        }
      },
      {
        "position": 5,
        "why": {
          "reason": "not-relevant"
        }
      }
    ]
    "#);
    insta::assert_json_snapshot!(out["report"], @r#"
    {
      "cache_hits": 0,
      "cache_misses": 4,
      "indexed": 6,
      "live_directory_enumerations": 0,
      "loaded": 4,
      "missing_targets": 0,
      "not_regular": 0,
      "path_escapes": 0,
      "races": 0,
      "relevant": 4,
      "scope_omissions": 1,
      "size_rejections": 0,
      "symlinks": 0
    }
    "#);
}

#[test]
fn the_stored_scope_applies_until_a_flag_or_the_variable_overrides_it() {
    let ex = Example::new();
    let none = memory(&ex, &[]);
    assert_eq!(none["report"]["loaded"], 1, "only the always fact");
    ex.stdout(&ex.run(".", &["scope", "set", "project:blun", "person:owner"]));
    assert_eq!(memory(&ex, &[])["report"]["loaded"], 3);
    assert_eq!(memory(&ex, &["--scope", "project:blun"])["report"]["loaded"], 2);
    let bad = ex.run(".", &["scope", "set", "blun"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("\"blun\" is not a scope id"));
    assert_eq!(memory(&ex, &[])["report"]["loaded"], 3, "a refused set leaves the stored scope as it was");
}

#[test]
fn a_garbage_database_is_moved_aside_and_an_unusable_state_dir_runs_uncached() {
    let ex = Example::new();
    std::fs::create_dir_all(&ex.state).unwrap();
    std::fs::write(ex.state.join("state.db"), b"this is not a database").unwrap();
    let out = ex.run(".", &["memory", "--memory-dir", &ex.memory.display().to_string(), "--json"]);
    assert!(out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("moved aside"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let aside: Vec<_> = std::fs::read_dir(&ex.state)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("state.db.corrupt-"))
        .collect();
    assert_eq!(aside.len(), 1);
    assert_eq!(std::fs::read(ex.state.join(&aside[0])).unwrap(), b"this is not a database");

    // A file where the state directory should be: no store, still an answer.
    let blocked = Example::new();
    std::fs::write(&blocked.state, b"not a directory").unwrap();
    let out = blocked.run(".", &["memory", "--memory-dir", &blocked.memory.display().to_string(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("continuing without the cache"));
    assert_eq!(blocked.json(&out)["report"]["loaded"], 1);
}
