//! What each session was sent.

use agentspine_store::Store;

use crate::support::StateDir;

fn mark(store: &Store, session: &str, source: &str, sha256: &str) {
    store.session_mark_sent_all(session, &[(source, sha256)]).unwrap();
}

fn sent(store: &Store, session: &str, source: &str, sha256: &str) -> bool {
    store.session_sent(session).unwrap().contains(&(source.to_owned(), sha256.to_owned()))
}

#[test]
fn mark_check_and_prune_a_session() {
    let store = StateDir::new().open();
    assert!(!sent(&store, "s1", "src-a", "h1"));
    mark(&store, "s1", "src-a", "h1");
    // One transaction for several; a repeat is one row.
    store.session_mark_sent_all("s1", &[("src-a", "h1"), ("src-b", "h2")]).unwrap();
    mark(&store, "s2", "src-a", "h1");
    assert!(sent(&store, "s1", "src-a", "h1"));
    // Changed content is not "sent".
    assert!(!sent(&store, "s1", "src-a", "h9"));
    assert!(!sent(&store, "s3", "src-a", "h1"));
    let pair = |a: &str, b: &str| (a.to_owned(), b.to_owned());
    assert_eq!(store.session_sent("s1").unwrap(), [pair("src-a", "h1"), pair("src-b", "h2")].into());
    assert_eq!(store.session_sent("s2").unwrap(), [pair("src-a", "h1")].into());
    assert!(store.session_sent("s3").unwrap().is_empty());
    assert_eq!(store.session_prune("s1").unwrap(), 2);
    assert!(store.session_sent("s1").unwrap().is_empty());
    assert_eq!(store.session_prune("s1").unwrap(), 0);
    assert!(sent(&store, "s2", "src-a", "h1"));
}

#[test]
fn a_session_start_forgets_its_own_rows_and_old_ones_at_once() {
    let state = StateDir::new();
    let store = state.open();
    for session in ["old", "mine", "other"] {
        mark(&store, session, "src", "h");
    }
    // Age one row by two hours, as time passing would.
    state
        .raw()
        .execute("UPDATE session_sent SET sent_at_ms = sent_at_ms - 7200000 WHERE session_id = 'old'", [])
        .unwrap();
    // A resume keeps its own rows; only the old one goes.
    assert_eq!(store.session_prune_at_start(None, 3600).unwrap(), 1);
    assert!(!sent(&store, "old", "src", "h"));
    assert!(sent(&store, "mine", "src", "h"));
    assert_eq!(store.session_prune_at_start(None, 3600).unwrap(), 0);
    // A new start forgets its own rows too, and nobody else's.
    assert_eq!(store.session_prune_at_start(Some("mine"), 3600).unwrap(), 1);
    assert!(!sent(&store, "mine", "src", "h"));
    assert!(sent(&store, "other", "src", "h"));
    // With no age allowed, everything older than now goes.
    std::thread::sleep(std::time::Duration::from_millis(2));
    assert_eq!(store.session_prune_at_start(None, 0).unwrap(), 1);
}
