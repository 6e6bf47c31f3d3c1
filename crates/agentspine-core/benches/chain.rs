//! Time per resolution of a chain at depths 1, 4, 12 and 32, for each host.
//! Every level holds `AGENTS.md` and `CLAUDE.md`, the root holds two
//! `.claude/rules` files, and each host's profile holds its global file.
//!
//! `cargo bench -p agentspine-core --bench chain`

// The bench builds its fixture tree with std::fs.
#![allow(clippy::disallowed_methods, missing_docs)]

use std::path::Path;

use agentspine_core::{Environment, Host, Request, resolve};
use agentspine_fs::{Budget, Reader};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a file has a parent")).expect("temp dir is writable");
    std::fs::write(path, text).expect("temp dir is writable");
}

fn tree(depth: usize) -> (tempfile::TempDir, std::path::PathBuf, Environment) {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("tree");
    let home = dir.path().join("home");
    std::fs::create_dir_all(root.join(".git")).expect("temp dir is writable");
    write(&root.join(".claude/rules/a.md"), "rule a\n");
    write(&root.join(".claude/rules/b.md"), "rule b\n");
    let mut cwd = root.clone();
    for level in 0..depth {
        write(&cwd.join("AGENTS.md"), &format!("agents at level {level}\n"));
        write(&cwd.join("CLAUDE.md"), &format!("claude at level {level}\n"));
        cwd = cwd.join(format!("d{level}"));
    }
    std::fs::create_dir_all(&cwd).expect("temp dir is writable");
    write(&home.join(".codex/AGENTS.md"), "codex global\n");
    write(&home.join(".claude/CLAUDE.md"), "claude user\n");
    write(&home.join(".pi/agent/AGENTS.md"), "pi global\n");
    let mut env = Environment::from_vars(|name| (name == "HOME").then(|| home.clone().into_os_string()));
    env.codex_system_dir = dir.path().join("etc-codex");
    (dir, cwd, env)
}

fn chain(c: &mut Criterion) {
    let mut group = c.benchmark_group("chain");
    for depth in [1, 4, 12, 32] {
        let (_dir, cwd, env) = tree(depth);
        for host in Host::ALL {
            let request = Request::new(host, cwd.clone());
            group.bench_with_input(BenchmarkId::new(host.as_str(), depth), &request, |b, request| {
                b.iter(|| {
                    let reader = Reader::new(Budget::UNLIMITED);
                    resolve(request, &env, &reader).expect("the bench tree resolves")
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, chain);
criterion_main!(benches);
