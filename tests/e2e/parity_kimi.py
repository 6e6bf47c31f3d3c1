#!/usr/bin/env python3
"""Byte parity between the real Kimi Code 2.1.0 and
`agentspine resolve --host kimi --format native`, on the shared fixtures.

    PYTHONPATH=tests/lib python3 tests/e2e/parity_kimi.py --agentspine BIN [--fixture NAME ...] [--keep DIR] [--jobs 2]

For each fixture of fixtures.py (the shared trees every host's parity runs
on; Gemini's own `gemini_*` trees left out): build it, capture what Kimi
sends (kimi.py: the instruction text of its system prompt, byte-exact), run
agentspine with the same HOME, variables and command prefix, and compare
bytes. Each case is one of

  equal     the same bytes;
  declared  a difference agentspine declares (DECLARED; the fixture
            declares the same for every other host): a link out of the
            project or into .git, a file with more than one name, a mount
            point below the root, which Kimi reads and agentspine never
            does (crates/agentspine-core/src/hosts/kimi/mod.rs); the case
            must differ (a stale declaration fails);
  skipped   the fixture needs a bind mount or an unreadable file this
            machine cannot give it;
  mismatch  anything else: the run fails.

Exits 1 on any mismatch, error or stale declaration.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(os.path.dirname(HERE), "lib"), HERE]

import fixtures as fx  # noqa: E402
import harness  # noqa: E402
import kimi  # noqa: E402
import parity  # noqa: E402



# Differences agentspine declares, by fixture (each fixture declares the
# same for every other host): Kimi reads these files, agentspine never does.
DECLARED = {
    "symlinked_files": "a link out of the project: Kimi follows it, agentspine never does",
    "links_into_git": "a link into .git: Kimi follows it, agentspine never reads below .git",
    "hard_linked_files": "a file with more than one name: Kimi reads it, agentspine never does",
    "mounted_package": "a mount point below the root: Kimi reads across it, agentspine never crosses one",
}


def fixtures() -> list:
    """The shared fixtures: every one but Gemini's own trees."""
    return [f for f in fx.FIXTURES if f.hosts != ("gemini",)]


def agentspine(binary: str, f, cwd: str, home: str, env: dict) -> bytes:
    run_env = kimi.base_env()
    run_env.update(kimi.instruction_env(home, env))
    p = harness.run([*f.wrap, binary, "resolve", "--host", "kimi", "--cwd", cwd, "--format", "native"],
                    cwd=cwd, env=run_env, timeout=60, text=False)
    if p.returncode != 0:
        raise RuntimeError(f"agentspine exit {p.returncode}: {p.stderr.decode('utf-8', 'replace').strip()}")
    return p.stdout


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agentspine", required=True)
    ap.add_argument("--fixture", action="append", default=[])
    ap.add_argument("--keep", metavar="DIR", help="keep raw requests per case in DIR/<fixture>/")
    ap.add_argument("--jobs", type=int, default=2, help="cases captured at once (default 2)")
    a = ap.parse_args(argv)
    # Runs start in the fixtures' directories: the binary is named absolutely.
    a.agentspine = harness.agentspine(a.agentspine)
    chosen = [fx.get(n) for n in a.fixture] if a.fixture else fixtures()
    try:
        kimi.install()
    except kimi.KimiError as e:
        print(f"parity_kimi.py: {e}", file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix="agentspine-parity-kimi-")
    tally = {"equal": 0, "declared": 0, "skipped": 0, "mismatch": 0}

    def case(f) -> tuple[str, str]:
        """One fixture: its kind (a key of tally) and its line."""
        dest = os.path.join(work, f.name)
        tree, cwd, home = fx.build_fixture(f.name, dest)
        env = fx.fixture_env(f.name, tree, home)
        why = parity.bind_mounts(f, tree) or parity.wrap_refused(f, tree)
        if why:
            parity.unmount([os.path.join(tree, t) for _, t in f.mounts])
            harness.remove(dest)
            return "skipped", f"{f.name:34} skipped   {why}"
        t0 = time.monotonic()
        try:
            keep = os.path.join(a.keep, f.name) if a.keep else None
            recs = kimi.run(tree, cwd, home, env=env, wrap=f.wrap, keep=keep)
            theirs = kimi.to_bytes(kimi.extract(recs))
            ours = agentspine(a.agentspine, f, cwd, home, env)
        except (kimi.KimiError, RuntimeError) as e:
            lines = str(e).strip().splitlines()
            return "mismatch", f"{f.name:34} ERROR     {lines[0] if lines else repr(e)}"
        finally:
            parity.unmount([os.path.join(tree, t) for _, t in f.mounts])
        secs = time.monotonic() - t0
        harness.remove(dest)
        off = parity_offset(theirs, ours)
        why = DECLARED.get(f.name)
        if off is None and why:
            return "mismatch", f"{f.name:34} STALE     declared ({why}) but equal: {len(ours)} bytes"
        if off is None:
            return "equal", f"{f.name:34} equal     {len(ours)} bytes ({secs:.1f} s)"
        if why:
            return "declared", f"{f.name:34} declared  {why}"
        return "mismatch", (f"{f.name:34} MISMATCH  at byte {off}: kimi {theirs[off:off + 70]!r}"
                            f" / agentspine {ours[off:off + 70]!r}")

    try:
        # Each case runs Kimi in its own namespace and tree: --jobs at once
        # (a run keeps one core busy for most of its ~4.7 s).
        with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            for kind, line in pool.map(case, chosen):
                tally[kind] += 1
                print(line, flush=True)
    finally:
        harness.remove(work)
    print(", ".join(f"{n} {k}" for k, n in tally.items()))
    return 1 if tally["mismatch"] else 0


def parity_offset(a: bytes, b: bytes) -> int | None:
    """The first byte where A and B differ; None when they are equal."""
    for i in range(min(len(a), len(b))):
        if a[i] != b[i]:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


if __name__ == "__main__":
    sys.exit(main())
