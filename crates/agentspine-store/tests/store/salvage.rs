//! What a repair salvages from a damaged database holding records,
//! bindings and audit rows, for four kinds of damage: random bytes, a
//! zeroed header, the file cut to half, one page flipped. What survives is
//! checked against the pages themselves (SQLite's `dbstat`, read before the
//! damage), never against the salvage's own account alone.

use std::path::Path;

use agentspine_store::{
    AuditEvent, AuditRow, BindRequest, Binding, BindingKind, BindingState, CHECK_MARKER, IdRange, Incident,
    OpenMode, Opened, REPAIR_PENDING, ReadMethod, Record, RecordKind, Store,
};
use serde_json::json;

use crate::support::StateDir;

/// 50 problem rows, 120 records (every other one accepted), a scope, three
/// bindings (one rolled back), 450 more problem rows: in that order, so the
/// file's pages hold them in that order too.
struct Fixture {
    root: String,
    records: Vec<Record>,
    audit: Vec<AuditRow>,
    bindings: Vec<Binding>,
    events: usize,
}

fn problem(i: usize) -> AuditEvent {
    AuditEvent {
        host: "claude".into(),
        event: "PreToolUse".into(),
        phase: "chain".into(),
        code: "symlink".into(),
        path: Some(format!("pkg/{i:04}/CLAUDE.md")),
        detail: None,
    }
}

fn populate(state: &StateDir) -> Fixture {
    let store = state.open();
    let root = store.root_digest(Path::new("/src/a"));
    for i in 0..50 {
        store.audit_append(&problem(i)).unwrap();
    }
    for i in 0..120 {
        let text = format!("record {i:03}: {}", "always answer in British English ".repeat(5));
        let record = store.record_add(&root, RecordKind::Preference, &text, None).unwrap();
        if i % 2 == 0 {
            store.record_accept(&root, record.id).unwrap();
        }
    }
    store.scope_set(&root, &["project:a".to_owned()]).unwrap();
    let mut ids = Vec::new();
    for host in ["claude", "codex", "pi"] {
        let request = BindRequest {
            host: host.into(),
            scope: "state-user".into(),
            source_root: root.clone(),
            project: store.root_digest(Path::new("/src/b")),
            host_home: "home".into(),
        };
        ids.push(store.binding_bind(&request).unwrap().unwrap().binding.id);
    }
    store.binding_rollback(&ids[1]).unwrap().unwrap();
    for i in 50..500 {
        store.audit_append(&problem(i)).unwrap();
    }
    let fixture = Fixture {
        records: store.record_list(&root).unwrap(),
        audit: store.audit_list(None, None).unwrap(),
        bindings: store.bindings().unwrap(),
        events: store.binding_events().unwrap().len(),
        root,
    };
    assert_eq!(
        (fixture.records.len(), fixture.audit.len(), fixture.events),
        (120, 500 + 120 + 60 + 4, 4),
        "records, audit rows (problems, adds, accepts, binding events), binding events"
    );
    drop(store);
    assert!(!state.names().contains(&"state.db-wal".to_owned()), "checkpointed: one file");
    fixture
}

/// A table's leaf pages (page number, cells) and interior pages, from
/// SQLite's own page statistics.
fn pages(state: &StateDir, table: &str) -> (Vec<(u64, u64)>, Vec<u64>) {
    let raw = state.raw();
    let mut stmt =
        raw.prepare("SELECT pageno, pagetype, ncell FROM dbstat WHERE name = ?1 ORDER BY pageno").unwrap();
    let rows: Vec<(u64, String, u64)> = stmt
        .query_map([table], |row| {
            Ok((row.get::<_, i64>(0)? as u64, row.get(1)?, row.get::<_, i64>(2)? as u64))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let leaves = rows.iter().filter(|r| r.1 == "leaf").map(|r| (r.0, r.2)).collect();
    let interior = rows.iter().filter(|r| r.1 == "internal").map(|r| r.0).collect();
    (leaves, interior)
}

fn page_size(bytes: &[u8]) -> usize {
    usize::from(u16::from_be_bytes([bytes[16], bytes[17]]))
}

/// Opens the damaged database: one warning, the aside file unchanged, one
/// incident; the chain verifies. Returns the store and the incident.
fn repaired(state: &StateDir, damaged: &[u8]) -> (Store, Incident) {
    let Opened { store, warnings } = Store::open(&state.dir).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let incidents = store.incidents_unacknowledged().unwrap();
    assert_eq!(incidents.len(), 1);
    let incident = incidents[0].clone();
    assert!(warnings[0].contains(&incident.summary()), "{warnings:?}");
    assert_eq!(std::fs::read(&incident.damaged_copy).unwrap(), damaged, "the damaged copy is kept as it was");
    store.binding_verify().unwrap();
    // The incident's own audit row is the newest.
    let last = store.audit_list(None, None).unwrap().pop().unwrap();
    assert_eq!((last.event.as_str(), last.phase.as_str()), ("state-damaged", "store"));
    assert_eq!(last.path.as_deref(), Some(incident.damaged_copy.to_str().unwrap()));
    (store, incident)
}

/// Every salvaged row is the row it was, and the audit log is the old one
/// plus the incident row.
fn unchanged_where_salvaged(store: &Store, fixture: &Fixture) {
    for record in store.record_list(&fixture.root).unwrap() {
        assert_eq!(Some(&record), fixture.records.iter().find(|r| r.id == record.id));
    }
    let audit = store.audit_list(None, None).unwrap();
    for row in &audit[..audit.len() - 1] {
        assert_eq!(Some(row), fixture.audit.iter().find(|r| r.id == row.id));
    }
}

fn acknowledged(store: &Store) {
    let done = store.incident_acknowledge().unwrap();
    assert_eq!(done.len(), 1);
    assert!(done[0].acknowledged_at.is_some());
    assert!(store.incidents_unacknowledged().unwrap().is_empty());
    assert_eq!(store.incidents().unwrap().len(), 1, "kept, acknowledged");
    let last = store.audit_list(None, None).unwrap().pop().unwrap();
    assert_eq!(last.event, "state-damage-acknowledged");
    assert!(store.incident_acknowledge().unwrap().is_empty(), "nothing left to acknowledge");
}

#[test]
fn random_bytes_keep_nothing_readable_and_say_so() {
    let state = StateDir::new();
    let fixture = populate(&state);
    let len = std::fs::metadata(state.db()).unwrap().len() as usize;
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let random: Vec<u8> = (0..len)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u8
        })
        .collect();
    std::fs::write(state.db(), &random).unwrap();
    let (store, incident) = repaired(&state, &random);
    let s = &incident.salvage;
    assert_eq!(s.read, ReadMethod::Nothing);
    assert_eq!((s.records.recovered, s.audit.recovered, s.chain.kept), (0, 0, 0));
    assert!(incident.summary().contains("nothing could be read from it"), "{}", incident.summary());
    assert!(store.record_list(&fixture.root).unwrap().is_empty());
    assert_eq!(store.audit_list(None, None).unwrap().len(), 1, "only the incident");
    assert!(store.bindings().unwrap().is_empty());
    acknowledged(&store);
}

#[test]
fn a_zeroed_header_is_rebuilt_and_everything_is_recovered() {
    let state = StateDir::new();
    let fixture = populate(&state);
    let mut bytes = std::fs::read(state.db()).unwrap();
    bytes[..100].fill(0);
    std::fs::write(state.db(), &bytes).unwrap();
    let (store, incident) = repaired(&state, &bytes);
    let s = &incident.salvage;
    assert_eq!(s.read, ReadMethod::RebuiltHeader);
    assert!(s.root_key, "records still match their project");
    assert_eq!(
        (s.records.recovered, s.audit.recovered, s.scopes.recovered, s.chain.kept, s.chain.unverifiable),
        (120, 684, 1, 4, 0)
    );
    assert!(s.records.complete() && s.audit.complete() && s.binding_events.complete());
    assert!(s.chain.suspended.is_empty(), "the whole chain was read: nothing is rolled back");
    assert_eq!(store.record_list(&fixture.root).unwrap(), fixture.records);
    assert_eq!(store.bindings().unwrap(), fixture.bindings);
    assert_eq!(store.scope_get(&fixture.root).unwrap().unwrap(), ["project:a"]);
    unchanged_where_salvaged(&store, &fixture);
    assert_eq!(store.audit_list(None, None).unwrap().len(), 684 + 1);
    acknowledged(&store);
}

#[test]
fn a_file_cut_to_half_keeps_what_lies_in_the_first_half() {
    let state = StateDir::new();
    let fixture = populate(&state);
    let bytes = std::fs::read(state.db()).unwrap();
    let page = page_size(&bytes) as u64;
    // Half the file, moved into the middle of its page.
    let cut_at = (bytes.len() as u64 / 2) / page * page + page / 2;
    let kept_pages = cut_at / page;
    // What the pages say survives: the cells of each leaf in the first
    // half, provided the interior pages above them are there too.
    let surviving = |table: &str| -> (u64, u64) {
        let (leaves, interior) = pages(&state, table);
        assert!(interior.iter().all(|&p| p <= kept_pages), "{table}: interior pages {interior:?}");
        let total = leaves.iter().map(|l| l.1).sum();
        (leaves.iter().filter(|l| l.0 <= kept_pages).map(|l| l.1).sum(), total)
    };
    let (records, all_records) = surviving("records");
    let (audit, all_audit) = surviving("audit");
    let (events, _) = surviving("binding_events");
    assert_eq!((all_records, all_audit), (120, 684));
    assert!(audit < all_audit, "the cut reaches into the audit log: {audit} of {all_audit}");
    let cut = bytes[..cut_at as usize].to_vec();
    std::fs::write(state.db(), &cut).unwrap();

    let (store, incident) = repaired(&state, &cut);
    let s = &incident.salvage;
    unchanged_where_salvaged(&store, &fixture);
    // The cut falls inside a page: the whole pages before it are read.
    assert_eq!(cut.len() as u64 % page, page / 2);
    assert_eq!(s.read, ReadMethod::WholePages);
    assert_eq!((s.records.recovered, s.audit.recovered, s.chain.kept), (records, audit, events));
    // The cut runs through the records: the first three of their eight
    // leaf pages lie before it (16 records each), and the single page of
    // binding events.
    assert_eq!((records, events), (48, 4));
    assert_eq!(s.records.unreadable, [IdRange { first: 49, last: None }]);
    assert_eq!(s.audit.unreadable, [IdRange { first: audit as i64 + 1, last: None }]);
    assert!(
        incident.summary().contains(&format!("audit events from id {} on", audit + 1)),
        "{}",
        incident.summary()
    );
    assert!(s.chain.suspended.is_empty());
    assert_eq!(store.bindings().unwrap(), fixture.bindings);
    unchanged_where_salvaged(&store, &fixture);
    acknowledged(&store);
}

#[test]
fn one_flipped_page_in_the_middle_loses_exactly_its_rows() {
    let state = StateDir::new();
    let fixture = populate(&state);
    // The daily check is due: the open reads every page. (Set through
    // SQLite before the damage, so the page holding it stays whole.)
    state
        .raw()
        .execute("UPDATE meta SET value = CAST('0' AS BLOB) WHERE key = 'quick_check_ok_at_ms'", [])
        .unwrap();
    let mut bytes = std::fs::read(state.db()).unwrap();
    let page = page_size(&bytes);
    let middle = (bytes.len() / page / 2) as u64;
    let (leaves, _) = pages(&state, "records");
    let &(flipped, cells) = leaves.iter().min_by_key(|l| l.0.abs_diff(middle)).unwrap();
    assert!(flipped.abs_diff(middle) <= middle / 3, "page {flipped} is near the middle ({middle})");
    assert!(leaves.len() > 3 && cells > 1, "{leaves:?}");
    let start = (flipped as usize - 1) * page;
    for b in &mut bytes[start..start + page] {
        *b = !*b;
    }
    std::fs::write(state.db(), &bytes).unwrap();

    let (store, incident) = repaired(&state, &bytes);
    let s = &incident.salvage;
    assert_eq!(s.read, ReadMethod::Rows);
    // Found by the check the open made (it stops at the page it cannot read).
    assert_eq!(incident.reason, "database disk image is malformed");
    assert_eq!(s.records.recovered, 120 - cells);
    let [range] = s.records.unreadable[..] else { panic!("{:?}", s.records.unreadable) };
    assert_eq!(range.last.unwrap() - range.first + 1, cells as i64, "exactly the page's rows: {range:?}");
    let missing: Vec<i64> = fixture
        .records
        .iter()
        .map(|r| r.id)
        .filter(|id| !store.record_list(&fixture.root).unwrap().iter().any(|r| r.id == *id))
        .collect();
    assert_eq!(missing, (range.first..=range.last.unwrap()).collect::<Vec<_>>());
    assert!(s.audit.complete() && s.binding_events.complete());
    assert_eq!((s.audit.recovered, s.chain.kept), (684, 4));
    assert_eq!(store.bindings().unwrap(), fixture.bindings);
    unchanged_where_salvaged(&store, &fixture);
    acknowledged(&store);
}

#[test]
fn a_lost_binding_event_rolls_back_every_binding_it_may_have_ended() {
    let state = StateDir::new();
    let store = state.open();
    // Forty events with large payloads: the chain spans several pages.
    let pad = "p".repeat(1500);
    for i in 0..40 {
        let kind = if i % 4 == 3 { BindingKind::Rollback } else { BindingKind::Bind };
        let id = format!("b{}", i / 2);
        let payload = json!({ "host": "claude", "scope": "state-user", "source_root": "r", "pad": pad });
        store.binding_append(kind, &id, &payload).unwrap();
    }
    let events = store.binding_events().unwrap();
    let active = store.bindings().unwrap().iter().filter(|b| b.state == BindingState::Active).count();
    assert_eq!(active, 10, "b0, b2, b4, ... are active; b1, b3, ... rolled back");
    drop(store);
    let mut bytes = std::fs::read(state.db()).unwrap();
    let page = page_size(&bytes);
    let (leaves, _) = pages(&state, "binding_events");
    assert!(leaves.len() >= 4, "{leaves:?}");
    // A leaf in the middle of the chain is zeroed.
    let (lost, cells) = leaves[leaves.len() / 2];
    let start = (lost as usize - 1) * page;
    bytes[start..start + page].fill(0);
    std::fs::write(state.db(), &bytes).unwrap();
    std::fs::write(state.dir.join(CHECK_MARKER), b"x").unwrap();

    let (store, incident) = repaired(&state, &bytes);
    let chain = &incident.salvage.chain;
    let first_lost = incident.salvage.binding_events.unreadable[0].first;
    assert_eq!(chain.kept, first_lost as u64 - 1, "the run before the lost page");
    assert_eq!(chain.unverifiable, 40 - cells - chain.kept, "read after the gap, not kept");
    // Every binding the kept run leaves active is rolled back by the repair.
    let mut active: Vec<String> = Vec::new();
    for event in &events[..chain.kept as usize] {
        match event.kind {
            BindingKind::Bind if !active.contains(&event.binding_id) => active.push(event.binding_id.clone()),
            BindingKind::Rollback => active.retain(|id| id != &event.binding_id),
            _ => {}
        }
    }
    assert!(!active.is_empty());
    assert_eq!(chain.suspended, active);
    let after = store.bindings().unwrap();
    assert!(after.iter().all(|b| b.state != BindingState::Active), "nothing is read through a binding");
    let now = store.binding_events().unwrap();
    assert_eq!(now[..chain.kept as usize], events[..chain.kept as usize], "kept as they were");
    assert_eq!(now.len() as u64, chain.kept + chain.suspended.len() as u64);
    assert!(now[chain.kept as usize..].iter().all(|e| e.kind == BindingKind::Rollback));
    assert!(incident.summary().contains("rolled back, since a later rollback may be lost"));
}

#[test]
fn changes_still_in_the_write_ahead_log_are_salvaged_with_it() {
    let state = StateDir::new();
    let fixture = populate(&state);
    let (leaves, _) = pages(&state, "records");
    // A hook's connection leaves its WAL in place: five records are only there.
    let Opened { store, .. } = Store::open_with(&state.dir, OpenMode::Hook).unwrap();
    for i in 0..5 {
        store.record_add(&fixture.root, RecordKind::NoGo, &format!("late {i}"), None).unwrap();
    }
    drop(store);
    assert!(state.names().contains(&"state.db-wal".to_owned()));
    // The first records page (no WAL frame holds it) is flipped.
    let mut bytes = std::fs::read(state.db()).unwrap();
    let page = page_size(&bytes);
    let (first, cells) = leaves[0];
    let start = (first as usize - 1) * page;
    for b in &mut bytes[start..start + page] {
        *b = !*b;
    }
    std::fs::write(state.db(), &bytes).unwrap();
    std::fs::write(state.dir.join(CHECK_MARKER), b"x").unwrap();

    let (store, incident) = repaired(&state, &bytes);
    let s = &incident.salvage;
    assert_eq!((s.read, s.wal_ignored), (ReadMethod::Rows, false));
    assert_eq!(s.records.recovered, 125 - cells);
    assert_eq!(s.records.unreadable, [IdRange { first: 1, last: Some(cells as i64) }]);
    let late: Vec<String> = store
        .record_list(&fixture.root)
        .unwrap()
        .into_iter()
        .filter(|r| r.kind == RecordKind::NoGo)
        .map(|r| r.text)
        .collect();
    assert_eq!(late, ["late 0", "late 1", "late 2", "late 3", "late 4"]);
    let wal = incident
        .damaged_copy
        .with_file_name(format!("{}-wal", incident.damaged_copy.file_name().unwrap().to_str().unwrap()));
    assert!(wal.exists(), "the WAL is kept beside the damaged copy");
}

#[test]
fn a_repair_killed_half_way_is_finished_by_the_next_open() {
    let state = StateDir::new();
    let fixture = populate(&state);
    // As a process killed after moving the file aside, half-way through
    // building the new one, leaves it.
    let aside = "state.db.corrupt-1700000000";
    std::fs::rename(state.db(), state.dir.join(aside)).unwrap();
    std::fs::write(state.dir.join("state.db.salvage"), b"half-built").unwrap();
    std::fs::write(state.dir.join(REPAIR_PENDING), format!("{aside}\ndatabase disk image is malformed\n"))
        .unwrap();
    let Opened { store, warnings } = Store::open(&state.dir).unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let incidents = store.incidents_unacknowledged().unwrap();
    assert_eq!(incidents.len(), 1);
    assert_eq!(incidents[0].damaged_copy, state.dir.join(aside));
    assert_eq!(incidents[0].reason, "database disk image is malformed");
    assert_eq!(store.record_list(&fixture.root).unwrap(), fixture.records);
    assert_eq!(store.bindings().unwrap(), fixture.bindings);
    drop(store);
    assert!(
        !state.names().iter().any(|n| n == REPAIR_PENDING || n.starts_with("state.db.salvage")),
        "{:?}",
        state.names()
    );
    // A marker left after the new database was in place changes nothing.
    std::fs::write(state.dir.join(REPAIR_PENDING), format!("{aside}\nwhatever\n")).unwrap();
    let store = state.open();
    assert_eq!(store.incidents().unwrap().len(), 1);
    assert!(!state.names().contains(&REPAIR_PENDING.to_owned()));
}
