//! What each session was sent.

use crate::support::StateDir;

#[test]
fn mark_check_and_prune_a_session() {
    let store = StateDir::new().open();
    assert!(!store.session_was_sent("s1", "src-a", "h1").unwrap());
    store.session_mark_sent("s1", "src-a", "h1").unwrap();
    store.session_mark_sent("s1", "src-a", "h1").unwrap();
    store.session_mark_sent("s1", "src-b", "h2").unwrap();
    store.session_mark_sent("s2", "src-a", "h1").unwrap();
    assert!(store.session_was_sent("s1", "src-a", "h1").unwrap());
    // Changed content is not "sent".
    assert!(!store.session_was_sent("s1", "src-a", "h9").unwrap());
    assert!(!store.session_was_sent("s3", "src-a", "h1").unwrap());
    let pair = |a: &str, b: &str| (a.to_owned(), b.to_owned());
    assert_eq!(store.session_sent("s1").unwrap(), [pair("src-a", "h1"), pair("src-b", "h2")].into());
    assert_eq!(store.session_sent("s2").unwrap(), [pair("src-a", "h1")].into());
    assert!(store.session_sent("s3").unwrap().is_empty());
    assert_eq!(store.session_prune("s1").unwrap(), 2);
    assert!(store.session_sent("s1").unwrap().is_empty());
    assert_eq!(store.session_prune("s1").unwrap(), 0);
    assert!(!store.session_was_sent("s1", "src-a", "h1").unwrap());
    assert!(store.session_was_sent("s2", "src-a", "h1").unwrap());
}

#[test]
fn prune_older_than_removes_only_old_rows() {
    let state = StateDir::new();
    let store = state.open();
    store.session_mark_sent("old", "src", "h").unwrap();
    store.session_mark_sent("new", "src", "h").unwrap();
    // Age one row by two hours, as time passing would.
    state
        .raw()
        .execute("UPDATE session_sent SET sent_at_ms = sent_at_ms - 7200000 WHERE session_id = 'old'", [])
        .unwrap();
    assert_eq!(store.session_prune_older_than(3600).unwrap(), 1);
    assert!(!store.session_was_sent("old", "src", "h").unwrap());
    assert!(store.session_was_sent("new", "src", "h").unwrap());
    assert_eq!(store.session_prune_older_than(3600).unwrap(), 0);
    std::thread::sleep(std::time::Duration::from_millis(2));
    assert_eq!(store.session_prune_older_than(0).unwrap(), 1);
}

#[test]
fn a_session_start_forgets_its_own_rows_and_old_ones_at_once() {
    let state = StateDir::new();
    let store = state.open();
    for session in ["old", "mine", "other"] {
        store.session_mark_sent(session, "src", "h").unwrap();
    }
    state
        .raw()
        .execute("UPDATE session_sent SET sent_at_ms = sent_at_ms - 7200000 WHERE session_id = 'old'", [])
        .unwrap();
    // A resume keeps its own rows; only the old one goes.
    assert_eq!(store.session_prune_at_start(None, 3600).unwrap(), 1);
    assert!(store.session_was_sent("mine", "src", "h").unwrap());
    // A new start forgets its own rows too, and nobody else's.
    assert_eq!(store.session_prune_at_start(Some("mine"), 3600).unwrap(), 1);
    assert!(!store.session_was_sent("mine", "src", "h").unwrap());
    assert!(store.session_was_sent("other", "src", "h").unwrap());
}
