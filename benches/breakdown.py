#!/usr/bin/env python3
"""Where a hook's time goes, with the kernel's own counters.

    PYTHONPATH=tests/lib python3 benches/breakdown.py [--binary BIN] [--runs N]

Wall-clock times move with whatever else the machine runs; these counts do
not (or hardly): for `/bin/true`, `agentspine --version` and four hook
events on `examples/monorepo` (the trees and payloads of benches/hooks.py),
each run as the hosts run it (`sh -c 'agentspine hook H < payload'`):

- `perf stat`: CPU time (task-clock, every process of the run) and page
  faults, mean of --runs runs;
- `strace -f -c`: system calls of the whole run (the `sh` included, as in
  `/bin/true`'s row);
- `valgrind --tool=callgrind` (when installed): user-space instructions of
  the hook's launcher and of its work process (`agentspine_fs::run_detached`
  forks it), the work process's own instructions grouped by where the code
  lives (SQLite and the store, the host rules in core, the reader, JSON,
  hashing, and allocation, copies and the standard library).

It builds with scripts/build-release unless --binary names the binary (for
example scripts/dist's). Installs `linux-perf`, `strace` and `valgrind` from
the Debian packages when they are missing and it runs as root. Not run by
CI: it is a measurement, not a test.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys

import harness
import hooks  # the trees, payloads and build of benches/hooks.py

# The work process's own (exclusive) instructions, grouped by where the
# code lives: the first group whose marker is in a function's source path
# takes it.
GROUPS = [
    ("store (SQLite)", ("sqlite3.c", "rusqlite", "agentspine-store")),
    ("rules (core)", ("agentspine-core",)),
    ("reader (fs)", ("agentspine-fs",)),
    ("JSON", ("serde_json", "/serde-", "serde_core")),
    ("hashing", ("sha2", "hmac", "digest")),
    ("allocation, copies, std", ("",)),
]


def ensure(tool: str, package: str) -> bool:
    if shutil.which(tool):
        return True
    if os.geteuid() == 0:
        subprocess.run(["apt-get", "install", "-y", "-qq", package], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return shutil.which(tool) is not None


def perf_stat(cmd: str, env: dict, runs: int, prepare: str | None) -> tuple[float, float]:
    """(task-clock ms, page faults), means over `runs` runs."""
    clocks, faults = [], []
    for _ in range(runs):
        if prepare:
            subprocess.run(["sh", "-c", prepare], env=env, check=True)
        out = subprocess.run(["perf", "stat", "-x", ",", "-e", "task-clock,page-faults", "sh", "-c", cmd],
                             env=env, capture_output=True, text=True)
        for line in out.stderr.splitlines():
            fields = line.split(",")
            if len(fields) > 2 and fields[2] == "task-clock":
                clocks.append(float(fields[0]))
            elif len(fields) > 2 and fields[2] == "page-faults":
                faults.append(float(fields[0]))
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")
    return mean(clocks), mean(faults)


def syscalls(cmd: str, env: dict, prepare: str | None, base: str) -> int:
    if prepare:
        subprocess.run(["sh", "-c", prepare], env=env, check=True)
    out = os.path.join(base, "strace.txt")
    subprocess.run(["strace", "-f", "-qq", "-o", out, "sh", "-c", cmd], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    with open(out) as f:
        # A call strace split in two (`<unfinished ...>`, `resumed>`) is one.
        return sum(1 for line in f if "resumed>" not in line and not line.split(" ", 1)[-1].startswith("+++")
                   and not line.split(" ", 1)[-1].startswith("---"))


def callgrind(binary: str, host: str, payload: str, env: dict, prepare: str | None, base: str) -> dict:
    """Instructions of the launcher and of the work process, and the work
    process's own instructions by group (see GROUPS)."""
    if prepare:
        subprocess.run(["sh", "-c", prepare], env=env, check=True)
    for old in glob.glob(os.path.join(base, "cg.*")):
        os.remove(old)
    with open(payload, "rb") as stdin:
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={base}/cg.%p", binary, "hook", host],
                       env=env, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    runs = []
    for path in sorted(glob.glob(os.path.join(base, "cg.*")), key=lambda p: int(p.rsplit(".", 1)[1])):
        annotated = subprocess.run(["callgrind_annotate", "--threshold=100", path],
                                   capture_output=True, text=True).stdout
        total = int(re.search(r"([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", annotated).group(1).replace(",", ""))
        groups = {name: 0 for name, _ in GROUPS}
        for line in annotated.splitlines():
            m = re.match(r"\s*([\d,]+) \([\d. ]+%\)\s+(\S+?):", line)
            if not m or "PROGRAM TOTALS" in line:
                continue
            where = m.group(2)
            for name, markers in GROUPS:
                if any(marker in where for marker in markers):
                    groups[name] += int(m.group(1).replace(",", ""))
                    break
        runs.append((total, groups))
    launcher = runs[0][0] if runs else 0
    work = runs[1] if len(runs) > 1 else (0, {name: 0 for name, _ in GROUPS})
    return {"launcher": launcher, "work": work[0], "groups": work[1]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", help="measure BIN instead of building with scripts/build-release")
    ap.add_argument("--runs", type=int, default=30, help="perf stat runs per command (default 30)")
    a = ap.parse_args()
    if not (ensure("perf", "linux-perf") and ensure("strace", "strace")):
        sys.exit("perf and strace are needed (apt-get install linux-perf strace)")
    grind = ensure("valgrind", "valgrind")
    built = harness.agentspine(a.binary) if a.binary else hooks.build()
    with harness.scratch("agentspine-breakdown-", dir="/tmp") as base:
        binary = hooks.install_copy(built, os.path.join(base, "bin", "agentspine"))
        home = os.path.join(base, "home")
        memory = os.path.join(home, "memory")
        shutil.copytree(os.path.join(hooks.ROOT, "examples", "claude-memory"), memory)
        harness.write(os.path.join(home, ".claude", "settings.json"), json.dumps({"autoMemoryDirectory": memory}))
        os.makedirs(os.path.join(home, ".codex"))
        tree = hooks.copy_example(base)
        cwd, target = os.path.join(tree, "packages/web"), os.path.join(tree, "packages/api/src/handlers/users.ts")
        env = {"PATH": os.environ["PATH"], "HOME": home, "XDG_STATE_HOME": os.path.join(base, "state"),
               "AGENTSPINE_SCOPE": hooks.SCOPE}
        rows = [("`/bin/true`", "/bin/true", None, None, None),
                ("`agentspine --version`", f"{binary} --version", None, None, None)]
        for host, event in (("codex", "PreToolUse"), ("claude", "PreToolUse"), ("claude", "SessionStart startup"),
                            ("claude", "UserPromptSubmit")):
            payload = hooks.payloads(tree, cwd, target, home, host)[event]
            path = os.path.join(base, f"{host}-{event.replace(' ', '-')}.json")
            harness.write(path, json.dumps(payload))
            reset = os.path.join(base, f"{host}-{event.replace(' ', '-')}-reset.json")
            harness.write(reset, json.dumps({**payload, "hook_event_name": "SessionStart", "source": "startup"}))
            prepare = f"{binary} hook {host} < {reset} > /dev/null"
            rows.append((f"`hook {host}` {event}", f"{binary} hook {host} < {path} > /dev/null", prepare, host, path))
        # One untimed run of each, so the database is warm.
        for _, cmd, prepare, _, _ in rows:
            if prepare:
                subprocess.run(["sh", "-c", prepare], env=env, check=True)
            subprocess.run(["sh", "-c", cmd], env=env, check=True, stdout=subprocess.DEVNULL)
        print("| command | CPU (task-clock) | ratio to `/bin/true` | page faults | system calls |"
              + (" instructions: launcher / work | of the work: " + ", ".join(n for n, _ in GROUPS) + " |"
                 if grind else ""))
        print("|---|---:|---:|---:|---:|" + ("---:|---|" if grind else ""))
        floor = None
        for title, cmd, prepare, host, payload in rows:
            clock, faults = perf_stat(cmd, env, a.runs, prepare)
            floor = floor or clock
            calls = syscalls(cmd, env, prepare, base)
            line = f"| {title} | {clock:.2f} ms | {clock / floor:.2f}× | {faults:.0f} | {calls} |"
            if grind and host:
                g = callgrind(binary, host, payload, env, prepare, base)
                split = ", ".join(f"{g['groups'][n] / max(g['work'], 1):.0%}" for n, _ in GROUPS)
                line += f" {g['launcher']:,} / {g['work']:,} | {split} |"
            elif grind:
                line += " — | — |"
            print(line)
        print()
        print(f"Means of {a.runs} runs (perf stat, task-clock of every process of the run, `sh` included); "
              f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}.")
        return 0


if __name__ == "__main__":
    sys.exit(main())
