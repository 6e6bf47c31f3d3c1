#!/usr/bin/env python3
"""Byte parity between the real host CLIs and `agentspine resolve`.

    parity.py --agentspine BIN [--host H ...] [--fixture NAME ...] [--claude-entries-only] [--jobs N]
    parity.py --capture-only DIR [--host H ...] [--fixture NAME ...] [--work DIR]

For every fixture x applicable host: build the fixture in a fresh temp dir,
capture what the real client sends (capture.py, inside `unshare`), run
`BIN resolve --host H --cwd CWD --format native` with the same instruction
environment (HOME, CODEX_HOME / PI_CODING_AGENT_DIR as the capture used, plus
the fixture's own variables such as CLAUDE_CONFIG_DIR), and compare bytes.
Prints one row per case and closes with `N passed, M failed`; exits 1 on any
failure.

--capture-only DIR writes DIR/<fixture>.<host>.txt (for claude also
DIR/<fixture>.claude.entries.txt) and runs no agentspine.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.dont_write_bytecode = True  # keep tests/e2e free of __pycache__

import capture as cap  # noqa: E402
import check_proofs as proofs  # noqa: E402
import fixtures as fx  # noqa: E402
import harness  # noqa: E402

INSTRUCTION_NAMES = ("AGENTS.md", "AGENTS.MD", "AGENTS.override.md", "CLAUDE.md", "CLAUDE.MD",
                     "CLAUDE.local.md", ".claude", "GEMINI.md")


def stray_ancestor_files(path: str) -> list:
    """Instruction files in the ancestors of PATH (Claude and pi walk up to /)."""
    found = []
    d = os.path.abspath(path)
    while True:
        for n in INSTRUCTION_NAMES:
            if os.path.lexists(os.path.join(d, n)):
                found.append(os.path.join(d, n))
        parent = os.path.dirname(d)
        if parent == d:
            return found
        d = parent


def first_diff(a: bytes, b: bytes) -> int | None:
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return None if len(a) == len(b) else n


def same_entries(a: bytes, b: bytes) -> bool:
    """Claude blocks equal up to the order of their "Contents of" entries
    (the closing tag after the last entry is compared apart)."""
    def split(block: bytes):
        head, _, rest = block.partition(b"Contents of ")
        tail = b"\n</system-reminder>"
        body, end = (rest[: -len(tail)], tail) if rest.endswith(tail) else (rest, b"")
        return head, end, sorted((b"Contents of " + body).split(b"\n\nContents of "))
    return split(a) == split(b)


def ctx(data: bytes, off: int, width: int = 24) -> str:
    lo = max(0, off - width // 2)
    return repr(data[lo:off + width // 2])


def bind_mounts(f, tree: str) -> str | None:
    """Bind-mounts the fixture's mounts; the reason when it cannot (then none is left mounted)."""
    done = []
    for source, target in f.mounts:
        if os.geteuid() != 0:
            why = "bind mounts need root"
        else:
            p = subprocess.run(["mount", "--bind", os.path.join(tree, source), os.path.join(tree, target)],
                               capture_output=True, text=True)
            why = None if p.returncode == 0 else f"mount refused: {p.stderr.strip()}"
        if why:
            unmount(done)
            return why
        done.append(os.path.join(tree, target))
    return None


def unmount(points):
    """Unmounts each mount point still mounted (a busy one is retried, then detached lazily)."""
    for point in reversed(points):
        for _ in range(10):
            # os.path.ismount cannot tell a bind mount of the same filesystem
            done = subprocess.run(["umount", point], capture_output=True, text=True)
            if done.returncode == 0 or "not mounted" in done.stderr or "no mount point" in done.stderr:
                break
            time.sleep(0.2)
        else:
            subprocess.run(["umount", "-l", point], capture_output=True)


def wrap_refused(f, tree: str) -> str | None:
    """Why the fixture's wrap cannot make its mode-000 files unreadable here (None: it can)."""
    if not f.wrap:
        return None
    if not shutil.which(f.wrap[0]):
        return f"{f.wrap[0]} is not installed"
    for rel, mode in f.modes.items():
        if mode & 0o444 == 0:
            p = subprocess.run([*f.wrap, "test", "-r", os.path.join(tree, rel)], capture_output=True)
            if p.returncode == 0:
                return f"{rel} stays readable under {' '.join(f.wrap)}"
            if p.returncode != 1:
                return f"{' '.join(f.wrap)} refused: {p.stderr.decode('utf-8', 'replace').strip()}"
    return None


def cases(hosts, names):
    for f in fx.FIXTURES:
        if names and f.name not in names:
            continue
        for h in f.hosts:
            if hosts and h not in hosts:
                continue
            yield f, h


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agentspine", help="agentspine binary")
    ap.add_argument("--capture-only", metavar="DIR", help="write captured texts here; no agentspine run")
    ap.add_argument("--host", action="append", choices=cap.HOSTS)
    ap.add_argument("--fixture", action="append")
    ap.add_argument("--claude-entries-only", action="store_true",
                    help="compare claude on the Contents-of entries instead of the whole block")
    ap.add_argument("--keep", metavar="DIR", help="keep raw requests per case in DIR/<fixture>.<host>/")
    ap.add_argument("--keep-trees", action="store_true", help="do not delete the built fixtures")
    ap.add_argument("--work", metavar="DIR", help="build fixtures under DIR/<fixture>/ (stable paths; "
                    "default: a fresh temp dir)")
    ap.add_argument("--timeout", type=int, default=cap.TIMEOUT)
    ap.add_argument("--jobs", type=int, default=1, help="fixtures run at a time (default 1)")
    a = ap.parse_args(argv)
    if not a.agentspine and not a.capture_only:
        ap.error("give --agentspine BIN or --capture-only DIR")
    if a.agentspine:
        a.agentspine = harness.agentspine(a.agentspine)
    for n in a.fixture or []:
        fx.get(n)
    todo = list(cases(a.host, a.fixture))
    if not todo:
        print("no fixture/host case selected", file=sys.stderr)
        return 2
    if a.capture_only:
        os.makedirs(a.capture_only, exist_ok=True)
    try:
        cap.client_bins()
    except cap.CaptureError as e:
        print(f"parity.py: {e}", file=sys.stderr)
        return 2
    if a.work:
        base = os.path.abspath(a.work)
        os.makedirs(base, exist_ok=True)
    else:
        base = tempfile.mkdtemp(prefix="agentspine-e2e-")
    stray = stray_ancestor_files(base)
    if stray:
        print("parity.py: warning: instruction files above the fixtures leak into Claude/pi: "
              + ", ".join(stray), file=sys.stderr)

    # One row per case (PASS, FAIL, ERROR, SKIP, DIFF, OK), counted here.
    tally = harness.Tally()
    if a.agentspine and not a.fixture and not a.host:
        missing = proofs.unproven(a.agentspine, a.timeout)
        tally.check("agentspine check: every finding kind has a proof against a real client", not missing,
                    f"without one: {', '.join(missing)}")
    print(f"{'fixture':30} {'host':6} {'result':6} {'secs':>5}  detail")  # noqa: E501
    # Fixtures run --jobs at a time, each fixture's hosts one after another
    # in the same directory; rows are printed in fixture order as each
    # fixture finishes.
    by_fixture = {}
    for f, host in todo:
        by_fixture.setdefault(f.name, (f, []))[1].append(host)
    with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        runs = [pool.submit(run_fixture, a, base, f, hosts) for f, hosts in by_fixture.values()]
        for run in runs:
            rows, part = run.result()
            for row in rows:
                print(row, flush=True)
            tally.passed += part.passed
            tally.failed += part.failed
            tally.skipped += part.skipped
    if not a.keep_trees and not a.work:
        shutil.rmtree(base, ignore_errors=True)
    elif a.keep_trees:
        print(f"fixtures kept in {base}", file=sys.stderr)
    if a.capture_only:
        print(f"captured into {a.capture_only}")
    return tally.summary()


def run_fixture(a, base, f, hosts):
    """(rows, tally) of fixture F's cases for HOSTS, each built afresh under
    BASE/<fixture> (the same path for every host)."""
    rows, tally = [], harness.Tally()
    emit = rows.append  # printed by the caller, in fixture order
    for host in hosts:
        if host in f.pending and not a.capture_only:
            tally.skipped += 1
            emit(f"{f.name:30} {host:6} {'SKIP':6} {0:5.1f}  pending: {f.pending[host]}")
            continue
        dest = os.path.join(base, f.name)
        shutil.rmtree(dest, ignore_errors=True)
        tree, cwd, home = fx.build_fixture(f.name, dest)
        env = fx.fixture_env(f.name, tree, home)
        keep = os.path.join(a.keep, f"{f.name}.{host}") if a.keep else None
        why = bind_mounts(f, tree) or wrap_refused(f, tree)
        if why:
            unmount([os.path.join(tree, t) for _, t in f.mounts])
            tally.skipped += 1
            emit(f"{f.name:30} {host:6} {'SKIP':6} {0:5.1f}  {why}")
            shutil.rmtree(dest, ignore_errors=True)
            continue
        try:
            run_case(a, f, host, tree, cwd, home, env, keep, tally, emit)
        finally:
            unmount([os.path.join(tree, t) for _, t in f.mounts])
        if not a.keep_trees:
            shutil.rmtree(dest, ignore_errors=True)
    return rows, tally


def run_case(a, f, host, tree, cwd, home, env, keep, tally, emit):  # noqa: A002
    """Captures one case and compares it, counted in TALLY; its rows go to PRINT."""
    t0 = time.monotonic()
    try:
        recs = cap.run_host(host, tree, cwd, home, env=env, keep=keep, timeout=a.timeout, wrap=f.wrap)
        got_host = cap.to_bytes(cap.extract(host, recs, a.claude_entries_only and host == "claude"))
    except cap.CaptureError as e:
        tally.failed += 1
        msg = str(e).strip().splitlines()
        emit(f"{f.name:30} {host:6} {'ERROR':6} {time.monotonic() - t0:5.1f}  capture: {msg[0] if msg else ''}")
        for line in msg[1:8]:
            emit(f"{'':52}{line}")
        return
    secs = time.monotonic() - t0
    if a.capture_only:
        with open(os.path.join(a.capture_only, f"{f.name}.{host}.txt"), "wb") as out:
            out.write(cap.to_bytes(cap.extract(host, recs)))
        if host == "claude":
            with open(os.path.join(a.capture_only, f"{f.name}.claude.entries.txt"), "wb") as out:
                out.write(cap.to_bytes(cap.extract(host, recs, True)))
        tally.passed += 1
        emit(f"{f.name:30} {host:6} {'OK':6} {secs:5.1f}  {len(got_host)} bytes")
    else:
        run_env = cap.base_env()
        run_env.update(cap.instruction_env(host, home, env))
        try:
            p = harness.run([*f.wrap, a.agentspine, "resolve", "--host", host, "--cwd", cwd, "--format", "native"],
                            cwd=cwd, env=run_env, timeout=a.timeout, text=False)
        except (OSError, subprocess.TimeoutExpired) as e:
            tally.failed += 1
            emit(f"{f.name:30} {host:6} {'FAIL':6} {secs:5.1f}  agentspine: {e}")
            return
        if p.returncode != 0:
            tally.failed += 1
            err = p.stderr.decode("utf-8", "replace").strip().splitlines()
            emit(f"{f.name:30} {host:6} {'FAIL':6} {secs:5.1f}  agentspine exit {p.returncode}: "
                  f"{err[-1] if err else ''}")
            return
        ours = p.stdout
        # `agentspine check` on the same case: each finding it must
        # report, shown to be what the real client did.
        proof_failures = proofs.check_case(a.agentspine, f.name, host, cwd, run_env,
                                           cap.to_bytes(cap.extract(host, recs)), a.timeout, f.wrap)
        if proof_failures:
            tally.failed += 1
            emit(f"{f.name:30} {host:6} {'FAIL':6} {secs:5.1f}  agentspine check: {proof_failures[0]}")
            for line in proof_failures[1:]:
                emit(f"{'':52}{line}")
            return
        off = first_diff(got_host, ours)
        if f.unordered_entries and host == "claude" and same_entries(got_host, ours):
            off = None
        if host in f.declared:
            if off is None:
                tally.failed += 1
                emit(f"{f.name:30} {host:6} {'FAIL':6} {secs:5.1f}  declared difference no longer differs: "
                      f"{f.declared[host]}")
            else:
                tally.skipped += 1
                emit(f"{f.name:30} {host:6} {'DIFF':6} {secs:5.1f}  declared: {f.declared[host]}")
        elif off is None:
            tally.passed += 1
            emit(f"{f.name:30} {host:6} {'PASS':6} {secs:5.1f}  {len(ours)} bytes")
        else:
            tally.failed += 1
            emit(f"{f.name:30} {host:6} {'FAIL':6} {secs:5.1f}  first diff at byte {off} "
                  f"(host {len(got_host)} B, agentspine {len(ours)} B)")
            emit(f"{'':52}host:       {ctx(got_host, off)}")
            emit(f"{'':52}agentspine: {ctx(ours, off)}")


if __name__ == "__main__":
    sys.exit(main())
