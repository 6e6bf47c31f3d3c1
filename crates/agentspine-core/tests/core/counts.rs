//! The cost of a resolution depends on the chain, never on the tree: a
//! depth-12 chain costs exactly the same with 0 or 50,000 unrelated files
//! beside it, and directories are enumerated only for `.claude/rules`
//! directories that exist.

use agentspine_core::Host;
use agentspine_fs::{Backend, Counters};

use crate::support::{Project, unconfirmed};

const DEPTH: usize = 12;

fn chain_dirs() -> Vec<String> {
    (1..=DEPTH).map(|i| (1..=i).map(|j| format!("d{j}")).collect::<Vec<_>>().join("/")).collect()
}

/// Instruction files at every level, rules at the root and at depth 6, a
/// profile for every host, and `unrelated` other files spread over the
/// same directories the chain probes.
fn deep_tree(unrelated: usize) -> Project {
    let p = Project::in_tmp();
    p.file("AGENTS.md", "root agents\n")
        .file("CLAUDE.md", "root claude\n")
        .file("GEMINI.md", "root gemini\n");
    p.file(".claude/rules/a.md", "rule a\n").file(".claude/rules/b.md", "rule b\n");
    let dirs = chain_dirs();
    for (i, dir) in dirs.iter().enumerate() {
        p.file(&format!("{dir}/AGENTS.md"), format!("level {} agents\n", i + 1));
        p.file(&format!("{dir}/GEMINI.md"), format!("level {} gemini\n", i + 1));
        if i % 3 == 2 {
            p.file(&format!("{dir}/CLAUDE.md"), format!("level {} claude\n", i + 1));
        }
    }
    p.file("d1/d2/d3/d4/d5/d6/.claude/rules/c.md", "rule c\n");
    p.home_file(".codex/AGENTS.md", "codex global\n");
    p.home_file(".claude/CLAUDE.md", "claude user\n");
    p.home_file(".pi/agent/AGENTS.md", "pi global\n");
    p.home_file(".gemini/GEMINI.md", "gemini global\n");
    let mut all = vec![String::new()];
    all.extend(dirs);
    for n in 0..unrelated {
        let dir = &all[n % all.len()];
        let name = format!("unrelated-{n}.md");
        let rel = if dir.is_empty() { name } else { format!("{dir}/{name}") };
        p.file(&rel, "noise\n");
    }
    p
}

fn cost(p: &Project, backend: Backend, host: Host) -> Counters {
    let cwd = chain_dirs().pop().unwrap();
    p.resolve_with(backend, host, &cwd).counters
}

/// Exact cost of the depth-12 chain per host and backend: `(opens, stats,
/// reads, directory enumerations)`. The root is bound explicitly and lies
/// at `/tmp/.tmpXXXX/tree` (three directories above it). Derivations, for
/// the openat2 backend (costs per operation are in agentspine-fs's docs):
///
/// - codex 47/42/14/0: cwd, root and root handle 3 opens; system and user
///   config (absent) 3 opens; `~/.codex` 1 open + override miss 1 open +
///   `AGENTS.md` 1 open, 3 stats, 1 read; 12 chain directories 12 opens;
///   13 levels x (override miss 1 open + `AGENTS.md` 1 open, 3 stats, 1 read).
/// - pi 1.x 55/57/14/0: as pi 0.73, plus `AGENTS.override.md` looked for
///   first everywhere: 16 opens (the profile, 13 levels, the two deeper
///   ancestors) and 3 stats (the ancestors) more; the walk backend, which
///   reaches the ancestors' paths name by name, 17 opens and 5 stats more.
/// - pi-0.73 39/54/14/0: 3 opens to bind; `~/.pi/agent` and its `AGENTS.md` 2 opens,
///   3 stats, 1 read; `/` 1 open and 3 ancestors x 4 names stat'ed (12 stats,
///   8 opens for the two deeper ancestors); 12 chain opens; 13 levels x
///   `AGENTS.md` (1 open, 3 stats, 1 read).
/// - desktop 43/42/14/0 and generic 41/39/13/0: as codex without config,
///   with 4 candidates per level of which the winner is the second.
/// - gemini 36/56/14/0: its four settings layers 6 opens (the two system
///   directories absent, `~/.gemini/settings.json` and the cwd's
///   `.gemini/settings.json` missing); 3 opens to bind; `~/.gemini` and its
///   `GEMINI.md` 2 opens, 3 stats, 1 read; the root's `.git` 1 stat (may
///   imports reach the root?); 12 chain opens; 13 levels x `GEMINI.md`
///   (1 stat to see it is there, then 1 open, 3 stats, 1 read).
/// - claude 95/33/9/2: settings and `.claude.json` 4 opens; user `CLAUDE.md`
///   and `rules/`; 3 ancestors x 3 names above the root; per level
///   `CLAUDE.md`, `.claude/CLAUDE.md`, `.claude/rules`, `CLAUDE.local.md`;
///   the auto-memory directory (absent here) keyed, as Claude Code keys
///   it, by the git root of the working directory: no `.git` on the way up
///   from the cwd up (each directory that may be a project root opened
///   and its `.git` looked at, 1 open and 1 stat each; the directories
///   above the home directory are passed over), so the cwd,
///   looked for beneath the config home (2 opens); the two `.claude/rules`
///   directories that exist are the only listings.
///
/// - opencode 79/77/14/0: the global candidates (two opens and the
///   `CLAUDE.md` looked at once the config's `AGENTS.md` is missing);
///   `AGENTS.md` at each of the 13 levels, cwd first, read where it is;
///   `CLAUDE.md` and `CONTEXT.md` looked at once each per level to say
///   they are shadowed (one stat each); then the configs that may hold
///   `instructions` (41 opens): the config directory (absent), at each
///   level `opencode.json`, `opencode.jsonc` and `.opencode/`, and
///   `~/.opencode` (absent).
/// - kimi 43/52/13/0: the two user directories (`$KIMI_CODE_HOME` and
///   `~/.agents`, absent here); per level `.kimi-code/AGENTS.md` looked
///   for, `AGENTS.md` read where it is and `agents.md` looked at once to
///   say it is shadowed.
/// - copilot 88/99/33/1: the home (`$COPILOT_HOME`, absent here) opened
///   once for its `copilot-instructions.md` and its `instructions/`; at the
///   root and the cwd `.github/copilot-instructions.md`, `AGENTS.md`,
///   `CLAUDE.md`, `GEMINI.md`, at each of the 11 levels between those and
///   `.claude/CLAUDE.md`, each read where it is (31 files; no earlier
///   text repeats, so none is left out); the root's and the cwd's
///   `.github/instructions` and `.claude/rules` opened (three are not
///   there), the root's `.claude/rules` listed once (its 2 entries) and
///   both its files read (33 in all).
///
/// The walk backend differs where a path of more than one name is reached
/// from a handle (one open per name instead of one in all), and it checks
/// mounts itself: one more stat for each root it opens, for each chain
/// directory it opens, and for the deepest directory of each path of more
/// than one name it walks (codex: 5 roots and 12 chain directories, 17).
fn expected(host: Host, backend: Backend) -> (u64, u64, u64, u64) {
    let walk = backend == Backend::Walk;
    match host {
        Host::Codex => (47, if walk { 59 } else { 42 }, 14, 0),
        Host::Claude => (if walk { 118 } else { 110 }, if walk { 95 } else { 47 }, 9, 2),
        Host::Gemini => (36, if walk { 74 } else { 56 }, 14, 0),
        // pi and the desktop rule look at each candidate after a winner
        // (one stat each, one open more for `.claude/CLAUDE.md`), so that
        // `shadowed-by` names only files that exist.
        Host::Pi => (if walk { 60 } else { 55 }, if walk { 126 } else { 99 }, 14, 0),
        Host::Pi073 => (if walk { 43 } else { 39 }, if walk { 121 } else { 96 }, 14, 0),
        Host::Opencode => (if walk { 82 } else { 79 }, if walk { 100 } else { 77 }, 14, 0),
        Host::Kimi => (43, if walk { 67 } else { 52 }, 13, 0),
        Host::Copilot => (88, if walk { 117 } else { 99 }, 33, 1),
        Host::Desktop => (56, if walk { 75 } else { 57 }, 14, 0),
        Host::Generic => (54, if walk { 71 } else { 54 }, 13, 0),
    }
}

#[test]
fn a_depth_twelve_chain_costs_the_same_beside_fifty_thousand_files() {
    let empty = deep_tree(0);
    let full = deep_tree(50_000);
    assert_eq!(empty.tree.ancestors().count() - 1, 3, "the tree must be /tmp/.tmpXXXX/tree");
    for backend in [Backend::Openat2, Backend::Walk].into_iter().filter(|b| b.available()) {
        for host in Host::ALL {
            let (small, big) = (cost(&empty, backend, host), cost(&full, backend, host));
            assert_eq!(
                unconfirmed(small),
                unconfirmed(big),
                "{host} {backend:?}: the cost changed with 50,000 unrelated files"
            );
            let got = (small.opens, small.stats, small.reads, small.dir_enumerations);
            assert_eq!(got, expected(host, backend), "{host} {backend:?}: {small:?}");
            assert_eq!(
                small.dir_entries,
                match host {
                    Host::Claude => 3,
                    Host::Copilot => 2,
                    _ => 0,
                },
                "{host}: only rules and instruction directories are listed"
            );
        }
    }
}

/// A resolver remembering its chains answers a second ask of the same
/// request (a hook's session start asks twice) without one more file
/// system call; a changed request, or a resolver that does not remember,
/// reads again.
#[test]
fn a_remembered_chain_is_resolved_once_per_request() {
    use agentspine_core::Resolver;
    use agentspine_fs::{Budget, Reader};
    let p = Project::git();
    p.file("CLAUDE.md", "root\n").file("pkg/CLAUDE.md", "pkg\n").file(".claude/rules/a.md", "rule\n");
    p.home_file(".claude/CLAUDE.md", "user\n");
    let work = |c: &Counters| (c.opens, c.reopens, c.stats, c.reads, c.dir_enumerations);
    let remembering = Resolver::new(p.env(), Reader::new(Budget::UNLIMITED)).remembering_chains();
    let first = remembering.chain(&p.request(Host::Claude, "pkg")).unwrap();
    let after_first = work(&remembering.reader().counters());
    assert!(after_first.0 > 0, "{after_first:?}");
    let second = remembering.chain(&p.request(Host::Claude, "pkg")).unwrap();
    assert_eq!(work(&remembering.reader().counters()), after_first);
    assert_eq!(
        serde_json::to_string(&first).unwrap(),
        serde_json::to_string(&second).unwrap(),
        "the same resolution"
    );
    // Another request (the root's chain, or AGENTS.md forced in) reads.
    remembering.chain(&p.request(Host::Claude, "")).unwrap();
    let after_root = work(&remembering.reader().counters());
    assert!(after_root.0 > after_first.0, "{after_root:?} after {after_first:?}");
    remembering.chain_with_agents_md(&p.request(Host::Claude, "pkg")).unwrap();
    assert!(work(&remembering.reader().counters()).0 > after_root.0);
    // Without remembering, the same ask twice reads twice as much.
    let fresh = Resolver::new(p.env(), Reader::new(Budget::UNLIMITED));
    fresh.chain(&p.request(Host::Claude, "pkg")).unwrap();
    let once = work(&fresh.reader().counters());
    fresh.chain(&p.request(Host::Claude, "pkg")).unwrap();
    let twice = work(&fresh.reader().counters());
    assert_eq!(twice, (once.0 * 2, once.1 * 2, once.2 * 2, once.3 * 2, once.4 * 2));
}
