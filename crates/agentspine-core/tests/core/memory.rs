//! Indexed lazy memory: only the index and the facts it proves relevant are
//! ever opened; the directory is never listed, whatever it holds.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;

use agentspine_core::memory::session::SessionSnapshots;
use agentspine_core::memory::{
    CachedSnapshot, HeldVersion, MemoryLoad, MemoryRequest, ScopeIds, SnapshotCache, load,
};
use agentspine_fs::{Budget, Counters, Reader, Snapshot};

use crate::support::{unconfirmed, write};

const INDEX: &str = "# Memory\n\n\
- [Communication style](style.md) <!-- agentspine:always -->\n\
- [BLUN project](blun.md) <!-- agentspine:project=project:blun -->\n\
- [Alpha team](alpha.md) <!-- agentspine:group=group:alpha -->\n\
- [Owner preference](owner.md) <!-- agentspine:entity=person:owner -->\n\
- [Current handoff](handoff.md) <!-- agentspine:task=task:handoff -->\n\
- [Other project](other.md) <!-- agentspine:project=project:other -->\n";

const FACTS: [&str; 6] = ["style.md", "blun.md", "alpha.md", "owner.md", "handoff.md", "other.md"];

fn memory_dir(unindexed: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("MEMORY.md"), INDEX.as_bytes());
    for fact in FACTS {
        write(&dir.path().join(fact), format!("fact in {fact}\n").as_bytes());
    }
    for i in 0..unindexed {
        write(&dir.path().join(format!("unindexed-{i}.md")), b"never read\n");
    }
    dir
}

fn full_scope() -> ScopeIds {
    ScopeIds::parse("project:blun group:alpha person:owner task:handoff").unwrap()
}

fn run(
    dir: &Path,
    scope: &ScopeIds,
    prompt: Option<&str>,
    cache: Option<&dyn SnapshotCache>,
) -> (MemoryLoad, Counters) {
    let reader = Reader::new(Budget::with_timeout(std::time::Duration::from_secs(2)));
    let loaded = load(&reader, &MemoryRequest { dir, anchor: None, scope, prompt, cache });
    (loaded, reader.counters())
}

#[test]
fn fifty_thousand_unindexed_files_are_never_touched() {
    let empty = memory_dir(0);
    let full = memory_dir(50_000);
    let (small, small_cost) = run(empty.path(), &full_scope(), None, None);
    let (big, big_cost) = run(full.path(), &full_scope(), None, None);
    assert_eq!(unconfirmed(small_cost), unconfirmed(big_cost), "the cost does not depend on unindexed files");
    assert_eq!(small.report, big.report);
    let r = big.report;
    assert_eq!((r.indexed, r.relevant, r.loaded, r.scope_omissions), (6, 5, 5, 1));
    assert_eq!(r.live_directory_enumerations, 0);
    // One open for the memory directory itself, then exactly 7 beneath it:
    // MEMORY.md read, 5 facts read, MEMORY.md opened again to check it.
    assert_eq!(big_cost.opens, 1 + 7);
    // Three stats per read (6 reads) and two for the second look at the
    // index (the held file, then the handle reopened for reading).
    assert_eq!(big_cost.stats, 3 * 6 + 2);
    assert_eq!(big_cost.reopens, 7, "every open beneath the directory is reopened once for reading");
    assert_eq!(big_cost.reads, 6);
    assert_eq!(big_cost.dir_enumerations, 0);
    assert_eq!(big_cost.refusals.total(), 0);
    let loaded: Vec<&str> = big.facts.iter().map(|f| f.target.as_str()).collect();
    assert_eq!(loaded, vec!["style.md", "blun.md", "alpha.md", "owner.md", "handoff.md"]);
    let expected_bytes: usize =
        INDEX.len() + loaded.iter().map(|f| format!("fact in {f}\n").len()).sum::<usize>();
    assert_eq!(big_cost.bytes_read, expected_bytes as u64, "nothing else was read");
}

/// A cache kept in memory, for tests of the warm path.
#[derive(Default)]
struct TestCache(RefCell<HashMap<String, CachedSnapshot>>);

impl SnapshotCache for TestCache {
    fn get(&self, rel: &str) -> Option<CachedSnapshot> {
        self.0.borrow().get(rel).cloned()
    }
    fn put(&self, rel: &str, snapshot: &Snapshot, sha256: &str) {
        let cached = CachedSnapshot {
            identity: snapshot.identity,
            sha256: sha256.to_owned(),
            bytes: snapshot.bytes.clone(),
        };
        self.0.borrow_mut().insert(rel.to_owned(), cached);
    }
    fn forget(&self, rel: &str) {
        self.0.borrow_mut().remove(rel);
    }
    fn retain(&self, _index: &agentspine_fs::Identity, linked: &[String]) {
        self.0.borrow_mut().retain(|rel, _| linked.contains(rel));
    }
    fn forget_all(&self) {
        self.0.borrow_mut().clear();
    }
}

#[test]
fn a_warm_run_reads_no_fact_bytes_and_an_edit_rereads_exactly_that_fact() {
    let dir = memory_dir(0);
    let cache = TestCache::default();
    let (_, cold) = run(dir.path(), &full_scope(), None, Some(&cache));
    let (warm, warm_cost) = run(dir.path(), &full_scope(), None, Some(&cache));
    assert_eq!((warm.report.cache_hits, warm.report.cache_misses), (5, 0));
    assert_eq!(warm_cost.bytes_read, INDEX.len() as u64, "only the index is read");
    assert_eq!(warm_cost.reads, 1);
    assert_eq!(warm_cost.opens, cold.opens, "a hit still opens the file");
    assert_eq!(warm.facts.iter().map(|f| f.text.as_str()).collect::<Vec<_>>()[1], "fact in blun.md\n");

    std::thread::sleep(std::time::Duration::from_millis(5));
    write(&dir.path().join("blun.md"), b"blun, edited\n");
    let (edited, edited_cost) = run(dir.path(), &full_scope(), None, Some(&cache));
    assert_eq!((edited.report.cache_hits, edited.report.cache_misses), (4, 1));
    assert_eq!(edited_cost.bytes_read, (INDEX.len() + "blun, edited\n".len()) as u64);
    assert_eq!(edited.facts[1].text, "blun, edited\n");

    // Removing a link from the index drops its snapshot at once.
    write(
        &dir.path().join("MEMORY.md"),
        INDEX.replace("- [Alpha team](alpha.md) <!-- agentspine:group=group:alpha -->\n", "").as_bytes(),
    );
    run(dir.path(), &full_scope(), None, Some(&cache));
    assert!(cache.get("alpha.md").is_none());
    assert!(cache.get("blun.md").is_some());
    // A deleted fact is forgotten too.
    std::fs::remove_file(dir.path().join("owner.md")).unwrap();
    let (gone, _) = run(dir.path(), &full_scope(), None, Some(&cache));
    assert_eq!(gone.report.missing_targets, 1);
    assert!(cache.get("owner.md").is_none());
}

/// A store's cache as the session tier opens it: the one `TestCache`.
struct Shared<'a>(&'a TestCache);

impl SnapshotCache for Shared<'_> {
    fn get(&self, rel: &str) -> Option<CachedSnapshot> {
        self.0.get(rel)
    }
    fn put(&self, rel: &str, snapshot: &Snapshot, sha256: &str) {
        self.0.put(rel, snapshot, sha256);
    }
    fn forget(&self, rel: &str) {
        self.0.forget(rel);
    }
    fn retain(&self, index: &agentspine_fs::Identity, linked: &[String]) {
        self.0.retain(index, linked);
    }
    fn forget_all(&self) {
        self.0.forget_all();
    }
}

/// What a session holds after `loaded`: every fact's version and the
/// index's, as a hook records them.
fn held_after(loaded: &MemoryLoad) -> HashMap<String, HeldVersion> {
    let mut held: HashMap<String, HeldVersion> = loaded
        .facts
        .iter()
        .map(|f| (f.target.clone(), HeldVersion { identity: f.identity, sha256: f.sha256.clone() }))
        .collect();
    let index = loaded.index.as_ref().unwrap();
    held.insert("MEMORY.md".into(), HeldVersion { identity: index.identity, sha256: index.sha256.clone() });
    held
}

/// A load through the session tier: `held` first, then `store`, opened
/// only when asked; returns how many times it was opened.
fn run_session(
    dir: &Path,
    prompt: Option<&str>,
    held: &HashMap<String, HeldVersion>,
    store: &TestCache,
) -> (MemoryLoad, Counters, usize) {
    let opened = std::cell::Cell::new(0);
    let lookup = |rel: &str| held.get(rel).cloned();
    let snapshots = SessionSnapshots::new(
        &lookup,
        Box::new(|| {
            opened.set(opened.get() + 1);
            Some(Box::new(Shared(store)) as Box<dyn SnapshotCache>)
        }),
    );
    let (loaded, cost) = run(dir, &full_scope(), prompt, Some(&snapshots));
    drop(snapshots);
    (loaded, cost, opened.get())
}

#[test]
fn facts_a_session_holds_are_opened_never_read_and_the_store_is_asked_only_to_drop_what_changed() {
    let dir = memory_dir(0);
    // What other surfaces cached (a `memory` command): every fact.
    let store = TestCache::default();
    let (cold, cold_cost) = run(dir.path(), &full_scope(), None, Some(&store));
    assert_eq!(store.0.borrow().len(), 5);
    // A session that holds nothing yet reads every fact and puts none; the
    // store is opened once, to drop the snapshots of links the index no
    // longer has (none here: it holds no index version yet).
    let (start, start_cost, opened) = run_session(dir.path(), None, &HashMap::new(), &store);
    assert_eq!((start.report.cache_hits, start.report.cache_misses, opened), (0, 5, 1));
    assert_eq!(store.0.borrow().len(), 5);
    assert_eq!(start_cost.reads, 6);
    assert_eq!(start_cost.opens, cold_cost.opens);
    assert_eq!(
        start.facts.iter().map(|f| &f.text).collect::<Vec<_>>(),
        cold.facts.iter().map(|f| &f.text).collect::<Vec<_>>()
    );
    let held = held_after(&start);

    // The five held facts are opened and compared, not read; the store is
    // never opened.
    let (prompt, cost, opened) = run_session(dir.path(), Some("hello"), &held, &store);
    assert_eq!(opened, 0, "nothing changed: the store is not opened");
    assert_eq!((prompt.report.cache_hits, prompt.report.cache_misses), (5, 0));
    assert!(prompt.facts.iter().all(|f| f.held && f.text.is_empty()));
    assert_eq!(cost.reads, 1, "only the index is read");
    assert_eq!(cost.bytes_read, INDEX.len() as u64);
    assert_eq!(cost.opens, start_cost.opens, "each fact is still opened once");

    // A correction: that fact is read again and its stale snapshot dropped
    // at once; the others stay held.
    std::thread::sleep(std::time::Duration::from_millis(5));
    write(&dir.path().join("blun.md"), b"blun, corrected\n");
    let (corrected, cost, opened) = run_session(dir.path(), Some("hello"), &held, &store);
    assert_eq!(opened, 1);
    assert_eq!((corrected.report.cache_hits, corrected.report.cache_misses), (4, 1));
    assert_eq!(cost.bytes_read, (INDEX.len() + "blun, corrected\n".len()) as u64);
    let blun = corrected.facts.iter().find(|f| f.target == "blun.md").unwrap();
    assert_eq!((blun.held, blun.text.as_str()), (false, "blun, corrected\n"));
    assert!(!store.0.borrow().contains_key("blun.md"), "the stale snapshot is dropped, none put");

    // A deletion drops its snapshot at once.
    std::fs::remove_file(dir.path().join("owner.md")).unwrap();
    let (gone, _, opened) = run_session(dir.path(), Some("hello"), &held, &store);
    assert_eq!((gone.report.missing_targets, opened), (1, 1));
    assert!(!store.0.borrow().contains_key("owner.md"));

    // An index the session's record does not hold: the store is opened and
    // the snapshot of the removed link dropped at once.
    write(&dir.path().join("owner.md"), b"fact in owner.md\n");
    write(
        &dir.path().join("MEMORY.md"),
        INDEX.replace("- [Alpha team](alpha.md) <!-- agentspine:group=group:alpha -->\n", "").as_bytes(),
    );
    assert!(store.0.borrow().contains_key("alpha.md"));
    let (_, _, opened) = run_session(dir.path(), Some("hello"), &held, &store);
    assert_eq!(opened, 1);
    assert!(!store.0.borrow().contains_key("alpha.md"));
    assert!(store.0.borrow().contains_key("style.md"), "what did not change stays");
}

#[test]
fn a_fact_the_session_does_not_hold_is_read_and_a_store_that_holds_nothing_is_never_opened() {
    let dir = memory_dir(0);
    let store = TestCache::default();
    let (start, _, _) = run_session(dir.path(), None, &HashMap::new(), &store);
    let mut held = held_after(&start);
    held.remove("style.md");
    let (prompt, cost, opened) = run_session(dir.path(), Some("hello"), &held, &store);
    assert_eq!(opened, 0, "a fact not held is read, not looked up in the store");
    assert_eq!((prompt.report.cache_hits, prompt.report.cache_misses), (4, 1));
    assert_eq!(cost.reads, 2);
    let style = prompt.facts.iter().find(|f| f.target == "style.md").unwrap();
    assert_eq!((style.held, style.text.as_str()), (false, "fact in style.md\n"));
    assert!(store.0.borrow().is_empty(), "nothing is put");

    // A correction where there is no store to drop from (the opener finds
    // none): asked once, for that fact only, and the fact is read anyway.
    std::thread::sleep(std::time::Duration::from_millis(5));
    write(&dir.path().join("blun.md"), b"blun, again\n");
    let asked = std::cell::Cell::new(0);
    let lookup = |rel: &str| held.get(rel).cloned();
    let snapshots = SessionSnapshots::new(
        &lookup,
        Box::new(|| {
            asked.set(asked.get() + 1);
            None
        }),
    );
    let (again, _) = run(dir.path(), &full_scope(), Some("hello"), Some(&snapshots));
    drop(snapshots);
    assert_eq!(asked.get(), 1);
    assert_eq!(again.facts.iter().find(|f| f.target == "blun.md").unwrap().text, "blun, again\n");
    assert_eq!((again.report.cache_hits, again.report.cache_misses), (3, 2));
}

#[test]
fn relevance_comes_from_markers_scope_and_prompt_words_only() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("MEMORY.md"),
        b"- [Carbonara preference](food/pasta.md) <!-- agentspine:keywords=carbonara -->\n- [Unmarked](notes.md)\n",
    );
    write(&dir.path().join("food/pasta.md"), b"guanciale, never cream\n");
    write(&dir.path().join("notes.md"), b"notes\n");
    let none = ScopeIds::default();
    let (cold, _) = run(dir.path(), &none, Some("what should I cook?"), None);
    assert!(cold.facts.is_empty(), "uncertain means unopened");
    let (hit, cost) = run(dir.path(), &none, Some("Ｃarbonara tonight"), None);
    assert_eq!(hit.facts.len(), 1);
    assert_eq!(hit.facts[0].text, "guanciale, never cream\n");
    // The directory, the index, `food` then `pasta.md`, the index again.
    assert_eq!(cost.opens, 5);
}

#[test]
fn escapes_links_and_bad_targets_are_counted_never_followed() {
    let outer = tempfile::tempdir().unwrap();
    let dir = outer.path().join("memory");
    write(&outer.path().join("secret.md"), b"SECRET\n");
    write(
        &dir.join("MEMORY.md"),
        b"- [a](../secret.md) <!-- agentspine:always -->\n\
          - [b](/etc/passwd) <!-- agentspine:always -->\n\
          - [c](https://example.com/x.md) <!-- agentspine:always -->\n\
          - [d](link.md) <!-- agentspine:always -->\n\
          - [e](gone.md) <!-- agentspine:always -->\n\
          - [f](fifo.md) <!-- agentspine:always -->\n\
          - [g](linker.md) <!-- agentspine:always -->\n",
    );
    std::os::unix::fs::symlink(outer.path().join("secret.md"), dir.join("link.md")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        dir.join("fifo.md"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    write(&dir.join("linker.md"), b"see [secret](../secret.md) and [d](link.md)\n");
    let (loaded, cost) = run(&dir, &ScopeIds::default(), None, None);
    let r = loaded.report;
    assert_eq!((r.path_escapes, r.symlinks, r.missing_targets, r.not_regular, r.loaded), (3, 1, 1, 1, 1));
    assert_eq!(loaded.facts[0].target, "linker.md", "links inside a fact are never followed");
    assert!(!serde_json::to_string(&loaded).unwrap().contains("SECRET"));
    assert_eq!(cost.dir_enumerations, 0);
}

#[test]
fn an_index_over_the_limits_fails_closed() {
    let dir = tempfile::tempdir().unwrap();
    // 4,097 links: the link bound, named as such (the file is small).
    let many: String =
        (0..=4096).map(|i| format!("- [f{i}](f{i}.md) <!-- agentspine:always -->\n")).collect();
    write(&dir.path().join("MEMORY.md"), many.as_bytes());
    let (loaded, cost) = run(dir.path(), &ScopeIds::default(), None, None);
    assert_eq!(loaded.status.as_str(), "index-too-many-links");
    assert!(loaded.facts.is_empty() && loaded.index.is_none());
    assert_eq!(cost.opens, 2, "the directory and the index, nothing else");

    write(&dir.path().join("MEMORY.md"), &vec![b'x'; 5 * 1024 * 1024]);
    let (loaded, cost) = run(dir.path(), &ScopeIds::default(), None, None);
    assert_eq!((loaded.status.as_str(), loaded.report.size_rejections), ("index-too-large", 1));
    assert_eq!(cost.reads, 0, "refused before a byte was read");

    write(&dir.path().join("MEMORY.md"), b"\xff\xfe- [ok](ok.md) <!-- agentspine:always -->\n");
    write(&dir.path().join("ok.md"), b"ok\n");
    let (loaded, _) = run(dir.path(), &ScopeIds::default(), None, None);
    assert_eq!(
        (loaded.status.as_str(), loaded.report.loaded),
        ("loaded", 1),
        "invalid UTF-8 is decoded leniently"
    );

    let nested: String = (0..2000).map(|d| format!("{}- [n{d}](n{d}.md)\n", "  ".repeat(d))).collect();
    write(&dir.path().join("MEMORY.md"), nested.as_bytes());
    let (loaded, _) = run(dir.path(), &ScopeIds::default(), None, None);
    assert_eq!(loaded.status.as_str(), "loaded", "deeply nested lists are parsed without trouble");
}

/// In a hook run the index is read first by the chain (its memory part),
/// through a reader that remembers reads: the load takes that version
/// without reading it again, and still answers for the file as it is
/// after the facts: an index changed in between closes the first attempt
/// (`index-changed`), and the retry reads it afresh.
#[test]
fn the_load_takes_the_index_the_run_read_and_reads_it_again_when_it_changed() {
    let dir = memory_dir(0);
    let scope = full_scope();
    let request = MemoryRequest { dir: dir.path(), anchor: None, scope: &scope, prompt: None, cache: None };
    let reader = Reader::new(Budget::UNLIMITED).remembering_roots().remembering_reads();
    let first = reader.open_root(dir.path()).unwrap().read_remembered("MEMORY.md", 1 << 20).unwrap();
    assert_eq!(first.bytes, INDEX.as_bytes());
    let before = reader.counters();
    let loaded = load(&reader, &request);
    assert_eq!(loaded.status.as_str(), "loaded");
    let facts = (reader.counters() - before).reads;
    assert_eq!(facts, 5, "the five facts in scope, not the index again");
    assert_eq!(loaded.report.races, 0);

    let reader = Reader::new(Budget::UNLIMITED).remembering_roots().remembering_reads();
    reader.open_root(dir.path()).unwrap().read_remembered("MEMORY.md", 1 << 20).unwrap();
    let changed = format!("{INDEX}- [Late](late.md) <!-- agentspine:always -->\n");
    write(&dir.path().join("MEMORY.md"), changed.as_bytes());
    let before = reader.counters();
    let loaded = load(&reader, &request);
    assert_eq!(loaded.status.as_str(), "loaded");
    assert_eq!(loaded.report.races, 0, "a retry's report starts afresh");
    assert_eq!(loaded.index.as_ref().map(|i| i.bytes), Some(changed.len() as u64), "the index as it is now");
    assert_eq!(
        (reader.counters() - before).reads,
        facts * 2 + 1,
        "the facts under the remembered index, then the index and the facts again"
    );
}
