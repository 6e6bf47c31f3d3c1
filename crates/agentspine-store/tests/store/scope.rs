//! Configured scopes per root.

use agentspine_store::{ScopeError, validate_scope_id};

use crate::support::StateDir;

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn set_get_replace_and_dedupe() {
    let store = StateDir::new().open();
    assert_eq!(store.scope_get("root-a").unwrap(), None);
    store.scope_set("root-a", &ids(&["person:alice", "project:blun", "person:alice", "task:T-12"])).unwrap();
    assert_eq!(store.scope_get("root-a").unwrap().unwrap(), ["person:alice", "project:blun", "task:T-12"]);
    store.scope_set("root-a", &ids(&["group:platform"])).unwrap();
    assert_eq!(store.scope_get("root-a").unwrap().unwrap(), ["group:platform"]);
    // An empty list is a set, empty scope: not the same as never set.
    store.scope_set("root-a", &[]).unwrap();
    assert_eq!(store.scope_get("root-a").unwrap(), Some(vec![]));
    assert_eq!(store.scope_get("root-b").unwrap(), None);
}

#[test]
fn one_bad_id_is_refused_with_its_reason_and_changes_nothing() {
    let store = StateDir::new().open();
    store.scope_set("r", &ids(&["person:alice"])).unwrap();
    for (bad, says) in [
        ("alice", "expected kind:id"),
        ("user:alice", "unknown kind \"user\""),
        ("person:", "empty"),
        ("person:al ice", "' ' is not allowed"),
        ("project:a\nb", "is not allowed"),
        ("Person:alice", "unknown kind"),
    ] {
        let err = store.scope_set("r", &ids(&["project:ok", bad])).unwrap_err();
        match &err {
            ScopeError::InvalidId { id, reason } => {
                assert_eq!(id, bad);
                assert!(reason.contains(says), "{bad:?}: {reason}");
            }
            other => panic!("{bad:?}: expected InvalidId, got {other:?}"),
        }
        assert!(err.to_string().contains("is invalid"), "{err}");
    }
    assert_eq!(store.scope_get("r").unwrap().unwrap(), ["person:alice"]);
}

#[test]
fn validation_accepts_every_kind_and_common_id_shapes() {
    for good in [
        "person:alice",
        "project:blun",
        "group:platform-team",
        "task:JIRA-123",
        "project:acme/web",
        "person:zoë",
        "person:alice@example.com",
        "task:v1.2_rc+1",
    ] {
        validate_scope_id(good).unwrap();
    }
    let long = format!("task:{}", "x".repeat(201));
    assert!(validate_scope_id(&long).is_err());
    validate_scope_id(&format!("task:{}", "x".repeat(200))).unwrap();
}
