//! The cost of a resolution depends on the chain, never on the tree: a
//! depth-12 chain costs exactly the same with 0 or 50,000 unrelated files
//! beside it, and directories are enumerated only for `.claude/rules`
//! directories that exist.

use agentspine_core::Host;
use agentspine_fs::Counters;

use crate::support::Project;

const DEPTH: usize = 12;

fn chain_dirs() -> Vec<String> {
    (1..=DEPTH).map(|i| (1..=i).map(|j| format!("d{j}")).collect::<Vec<_>>().join("/")).collect()
}

/// Instruction files at every level, rules at the root and at depth 6, a
/// profile for every host, and `unrelated` other files spread over the
/// same directories the chain probes.
fn deep_tree(unrelated: usize) -> Project {
    let p = Project::git();
    p.file("AGENTS.md", "root agents\n").file("CLAUDE.md", "root claude\n");
    p.file(".claude/rules/a.md", "rule a\n").file(".claude/rules/b.md", "rule b\n");
    let dirs = chain_dirs();
    for (i, dir) in dirs.iter().enumerate() {
        p.file(&format!("{dir}/AGENTS.md"), format!("level {} agents\n", i + 1));
        if i % 3 == 2 {
            p.file(&format!("{dir}/CLAUDE.md"), format!("level {} claude\n", i + 1));
        }
    }
    p.file("d1/d2/d3/d4/d5/d6/.claude/rules/c.md", "rule c\n");
    p.home_file(".codex/AGENTS.md", "codex global\n");
    p.home_file(".claude/CLAUDE.md", "claude user\n");
    p.home_file(".pi/agent/AGENTS.md", "pi global\n");
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

fn cost(p: &Project, host: Host) -> Counters {
    let cwd = chain_dirs().pop().unwrap();
    p.resolve(host, &cwd).counters
}

#[test]
fn a_depth_twelve_chain_costs_the_same_beside_fifty_thousand_files() {
    let empty = deep_tree(0);
    let full = deep_tree(50_000);
    for host in Host::ALL {
        let (small, big) = (cost(&empty, host), cost(&full, host));
        assert_eq!(small, big, "{host}: the cost changed with unrelated files");
        eprintln!("{host}: {small:?}");
    }
}
