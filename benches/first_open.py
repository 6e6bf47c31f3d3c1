#!/usr/bin/env python3
"""Many processes' first use of one new state directory, round after round.

A user's first session starts several hooks and the MCP server together,
each opening a state directory nobody has used yet: they race to create
the database, switch it to WAL, migrate it, make its key and the files
beside it. Each round here makes a fresh state directory, starts
--processes copies of the `first_open` example on it (servers, hooks that
open the database, hooks that only read the files beside it, mixed), lets
them all go at the same millisecond, and counts the processes that fail.
After the round, one more open checks what they left: the key's copy
matches the database's key and no incident was recorded.

A load generator keeps --load processes busy (a CPU loop and an fsync
loop, by turns) beside the rounds, as other builds and tests do on CI.

    cargo build --release -p agentspine-store --example first_open
    PYTHONPATH=tests/lib python3 benches/first_open.py --worker target/release/examples/first_open \\
        --rounds 500 --processes 32 [--load 1]

Prints one line per failure and a table at the end; exits 1 when any
process failed.
"""

import argparse
import collections
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time

import harness

ROLES = ("server", "hook", "quick")


def burn_cpu() -> None:
    while True:
        pass


def burn_fsync(path: str) -> None:
    block = os.urandom(64 * 1024)
    while True:
        with open(path, "wb") as f:
            for _ in range(16):
                f.write(block)
                f.flush()
                os.fsync(f.fileno())


def start_load(count: int, scratch: str) -> list:
    procs = []
    for n in range(count):
        if n % 2 == 0:
            proc = multiprocessing.Process(target=burn_cpu, daemon=True)
        else:
            proc = multiprocessing.Process(
                target=burn_fsync, args=(os.path.join(scratch, f"load-{n}"),), daemon=True)
        proc.start()
        procs.append(proc)
    return procs


def one_round(worker: str, base: str, processes: int, lead_ms: int) -> tuple[list, float]:
    """Runs one round; returns the failures (role, output) and its wall time."""
    state = os.path.join(base, "state")
    start_ms = int(time.time() * 1000) + lead_ms
    began = time.perf_counter()
    children = []
    for n in range(processes):
        role = ROLES[n % len(ROLES)]
        child = subprocess.Popen([worker, state, role, str(start_ms)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        children.append((role, child))
    failures = []
    for role, child in children:
        out, err = child.communicate()
        if child.returncode != 0 or out.strip() != "ok":
            failures.append((role, (out.strip() or f"exit {child.returncode}").replace(base, "<round>")
                             + (f"\n{err.strip()}" if err.strip() else "")))
    wall = time.perf_counter() - began
    check = harness.run([worker, state, "check", "0"], timeout=None)
    if check.returncode != 0:
        failures.append(("check", (check.stdout + check.stderr).strip().replace(base, "<round>")))
    return failures, wall


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--worker", required=True, help="the built first_open example")
    parser.add_argument("--rounds", type=int, default=500)
    parser.add_argument("--processes", type=int, default=32)
    parser.add_argument("--load", type=int, default=1, help="load processes beside the rounds")
    parser.add_argument("--lead-ms", type=int, default=0,
                        help="how long after the first spawn they all go (default: measured)")
    parser.add_argument("--stop-at-first", action="store_true", help="stop after the first failing round")
    args = parser.parse_args()
    worker = os.path.abspath(args.worker)

    scratch = tempfile.mkdtemp(prefix="agentspine-first-open-")
    load = start_load(args.load, scratch)
    try:
        lead = args.lead_ms
        if lead == 0:
            # Long enough for every process to be spawned and waiting.
            t = time.perf_counter()
            probe = [subprocess.Popen([worker, "/nonexistent", "none", "0"],
                                      stdout=subprocess.DEVNULL) for _ in range(args.processes)]
            for p in probe:
                p.wait()
            lead = int((time.perf_counter() - t) * 1000 * 1.5) + 20
        by_message = collections.Counter()
        by_role = collections.Counter()
        failed_rounds = 0
        walls = []
        began = time.perf_counter()
        for n in range(args.rounds):
            base = tempfile.mkdtemp(prefix="round-", dir=scratch)
            failures, wall = one_round(worker, base, args.processes, lead)
            walls.append(wall)
            if failures:
                failed_rounds += 1
                for role, message in failures:
                    print(f"round {n}: {role}: {message}", flush=True)
                    by_role[role] += 1
                    by_message[(role, message.split("\n")[0][:160])] += 1
                if args.stop_at_first:
                    print(f"kept: {base}")
                    break
            shutil.rmtree(base, ignore_errors=True)
        elapsed = time.perf_counter() - began
        rounds = len(walls)
    finally:
        for proc in load:
            proc.terminate()
        harness.remove(scratch)

    failed = sum(by_role.values())
    print()
    print("| rounds | processes | load | lead ms | failed processes | failed rounds | rounds failing | time |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(f"| {rounds} | {args.processes} | {args.load} | {lead} | {failed} | {failed_rounds} | "
          f"{100 * failed_rounds / max(rounds, 1):.1f} % | {elapsed:.0f} s |")
    if by_message:
        print()
        print("| failures | role | message |")
        print("|---:|---|---|")
        for (role, message), count in by_message.most_common():
            print(f"| {count} | {role} | {message} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
