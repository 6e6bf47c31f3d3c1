#!/usr/bin/env python3
"""`agentspine check --all-hosts` on the generated 50,000-file monorepo.

Generates the same tree as benches/hooks.py (50,000 files, twelve levels
deep, instruction files in 97 packages) in /tmp, then runs
`agentspine check --all-hosts --json` on it and on a copy of
examples/monorepo, and prints per tree the wall time (median of --runs),
the directories checked, the findings by id and the reader's work
counters. Then the example again beside 50,000 unrelated files in a
gitignored node_modules/: the counters must not move (the test
`check::the_cost_follows_the_instruction_files_not_the_tree` asserts the
same exactly). For scale, `find` lists the instruction files of each tree
the way a script would (every directory read, no bound), timed the same
way.

    PYTHONPATH=tests/lib python3 benches/check.py --agentspine target/debug/agentspine [--runs 5]
"""

import argparse
import collections
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

import harness
import hooks  # the one generator of the benchmark tree

ROOT = hooks.ROOT


def run(binary: str, tree: str, home: str, runs: int) -> tuple[float, dict]:
    env = {"HOME": home, "PATH": os.environ.get("PATH", "")}
    times, out = [], None
    for _ in range(runs):
        start = time.perf_counter()
        done = harness.run([binary, "check", "--root", tree, "--all-hosts", "--json"], env=env, check=True,
                           timeout=None)
        times.append(time.perf_counter() - start)
        out = json.loads(done.stdout)
    return statistics.median(times), out


# The names a checked host reads, as a `find` expression.
FIND = ["(", "-name", "AGENTS.md", "-o", "-name", "AGENTS.override.md", "-o", "-name", "CLAUDE.md",
        "-o", "-name", "CLAUDE.local.md", "-o", "-name", "GEMINI.md", "-o", "-path", "*/.claude/*", ")",
        "-print"]


def find(tree: str, runs: int) -> tuple[float, int]:
    """`find` over the whole tree: its median wall time and the files it names."""
    times, found = [], 0
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(["find", tree, *FIND], capture_output=True, check=True)
        times.append(time.perf_counter() - start)
        found = len(done.stdout.splitlines())
    return statistics.median(times), found


def show(name: str, seconds: float, report: dict) -> None:
    kinds = collections.Counter(f["id"] for f in report["findings"])
    work = {k: v for k, v in report["work"].items() if k != "refusals"}
    refused = {k: v for k, v in report["work"]["refusals"].items() if v}
    print(f"{name}: {seconds * 1000:.1f} ms, {len(report['dirs'])} directories, "
          f"{len(report['findings'])} findings {dict(sorted(kinds.items()))}")
    print(f"  work {work}")
    print(f"  refusals {refused}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agentspine", required=True)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    binary = harness.agentspine(args.agentspine)
    with harness.scratch("agentspine-bench-check-", dir="/tmp") as base:
        home = os.path.join(base, "home")
        os.makedirs(home)
        generated, _ = hooks.generate(base)
        example = os.path.join(base, "example")
        shutil.copytree(os.path.join(ROOT, "examples", "monorepo"), example)
        hooks.git_marker(example)
        results = {}
        for name, tree in [("generated (50,000 files, depth 12)", generated), ("examples/monorepo", example)]:
            results[name] = run(binary, tree, home, args.runs)
            show(name, *results[name])
            seconds, found = find(tree, args.runs)
            print(f"  find: {seconds * 1000:.1f} ms, {found} instruction files named")
        with open(os.path.join(example, ".gitignore"), "w") as f:
            f.write("node_modules/\n")
        os.makedirs(os.path.join(example, "node_modules"))
        # Confirming re-reads depend on how recently a file was written,
        # not on the tree: left out of the comparison.
        time.sleep(1.5)
        before = run(binary, example, home, 1)[1]["work"]
        for i in range(50_000):
            harness.write(os.path.join(example, "node_modules", f"m{i // 1000:02d}", f"f{i}.js"), "")
        seconds, report = run(binary, example, home, args.runs)
        show("examples/monorepo beside 50,000 ignored files", seconds, report)
        before, after = dict(before, confirmations=0), dict(report["work"], confirmations=0)
        tally = harness.Tally()
        tally.check("counters unchanged by the 50,000 files", before == after, f"{before} before, {after} after")
        return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
