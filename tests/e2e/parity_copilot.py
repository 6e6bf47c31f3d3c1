#!/usr/bin/env python3
"""Byte parity between the real GitHub Copilot CLI 1.0.102 and
`agentspine resolve --host copilot --format native`.

    PYTHONPATH=tests/lib python3 tests/e2e/parity_copilot.py --agentspine BIN [--fixture NAME ...]
    ... --captured      compare with copilot-captured.json instead of running the client

For each fixture of fixtures_copilot.py: build it, capture what Copilot sends
(copilot.py: its instruction section, byte-exact), run agentspine with the
same HOME and the fixture's variables, and compare bytes. Each case is one of

  equal     the same bytes;
  declared  a difference agentspine declares (COPILOT-MEASURED.md; the doc
            comment of crates/agentspine-core/src/hosts/copilot/mod.rs):
            a link out of the project Copilot follows, a name in another
            case;
  gap       the fixture needs what agentspine does not model
            (COPILOT_CUSTOM_INSTRUCTIONS_DIRS, `--no-custom-instructions`,
            a feature flag): listed, never a pass;
  mismatch  anything else: the run fails.

--captured runs no client: the texts recorded in copilot-captured.json (under
its work directory, /tmp/agentspine-copilot, whose paths the texts name).
Exits 1 on any mismatch or error.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(os.path.dirname(HERE), "lib"), HERE]

import copilot  # noqa: E402
import fixtures_copilot as fx  # noqa: E402
import harness  # noqa: E402

# Differences agentspine declares, by fixture: why its text differs.
DECLARED = {
    "case_variants": "names in another case: Copilot matches them case-insensitively, agentspine exact names",
    "lowercase_alone": "names in another case: Copilot matches them case-insensitively, agentspine exact names",
    "links_outside": "links out of the project: Copilot follows them, agentspine never does",
    "links_path_dir_outside": "links out of the project: Copilot follows them, agentspine never does",
}




def gap(f: dict) -> str | None:
    """Why fixture F is out of agentspine's scope, or None."""
    if "COPILOT_CUSTOM_INSTRUCTIONS_DIRS" in (f.get("env") or {}):
        return "COPILOT_CUSTOM_INSTRUCTIONS_DIRS (not modelled: directories out of the project)"
    if f.get("args"):
        return f"client arguments {' '.join(f['args'])} (not modelled)"
    if ".copilot/settings.json" in (f.get("home") or {}):
        return "a feature flag in ~/.copilot/settings.json (not modelled)"
    return None


def agentspine(binary: str, built: dict) -> bytes:
    env = copilot.base_env()
    env["HOME"] = built["home"]
    env.update(built["env"])
    p = harness.run([*built["wrap"], binary, "resolve", "--host", "copilot", "--cwd", built["cwd"],
                     "--format", "native"], cwd=built["cwd"], env=env, timeout=60, text=False)
    if p.returncode != 0:
        raise RuntimeError(f"agentspine exit {p.returncode}: {p.stderr.decode('utf-8', 'replace').strip()}")
    return p.stdout


def first_diff(a: bytes, b: bytes) -> int | None:
    for i in range(min(len(a), len(b))):
        if a[i] != b[i]:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agentspine", required=True)
    ap.add_argument("--fixture", action="append", default=[])
    ap.add_argument("--captured", action="store_true", help="compare with copilot-captured.json; no client")
    a = ap.parse_args(argv)
    # Runs start in the fixtures' directories: the binary is named absolutely.
    a.agentspine = os.path.abspath(a.agentspine)
    fixtures = [fx.by_name(n) for n in a.fixture] if a.fixture else fx.FIXTURES
    captured = {}
    if a.captured:
        with open(os.path.join(HERE, "copilot-captured.json"), encoding="utf-8") as fh:
            data = json.load(fh)
        work = data["work"]
        captured = {c["name"]: c["text"] for c in data["start"]}
    else:
        copilot.install()
        work = tempfile.mkdtemp(prefix="agentspine-parity-copilot-")
    tally = {"equal": 0, "declared": 0, "gap": 0, "mismatch": 0}
    try:
        for f in fixtures:
            why_gap = gap(f)
            if why_gap:
                tally["gap"] += 1
                print(f"{f['name']:34} gap       {why_gap}")
                continue
            if f.get("wrap") and os.geteuid() == 0 and not shutil.which("setpriv"):
                tally["gap"] += 1
                print(f"{f['name']:34} gap       setpriv not found")
                continue
            built = fx.build(f, work)
            try:
                if a.captured:
                    theirs = captured[f["name"]].encode("utf-8", "surrogatepass")
                else:
                    recs = copilot.run(built["tree"], built["cwd"], built["home"], env=built["env"],
                                       extra_args=built["args"], wrap=built["wrap"])
                    theirs = (copilot.extract(recs) or "").encode("utf-8", "surrogatepass")
                ours = agentspine(a.agentspine, built)
            except (copilot.CopilotError, RuntimeError, KeyError) as e:
                tally["mismatch"] += 1
                print(f"{f['name']:34} ERROR     {str(e).strip().splitlines()[0] if str(e).strip() else e!r}")
                continue
            off = first_diff(theirs, ours)
            if off is None:
                tally["equal"] += 1
                print(f"{f['name']:34} equal     {len(ours)} bytes")
            elif f["name"] in DECLARED:
                tally["declared"] += 1
                print(f"{f['name']:34} declared  {DECLARED[f['name']]}")
            else:
                tally["mismatch"] += 1
                print(f"{f['name']:34} MISMATCH  at byte {off}: copilot {theirs[off:off + 60]!r}"
                      f" / agentspine {ours[off:off + 60]!r}")
    finally:
        if not a.captured:
            shutil.rmtree(work, ignore_errors=True)
    print(", ".join(f"{n} {k}" for k, n in tally.items()))
    return 1 if tally["mismatch"] else 0


if __name__ == "__main__":
    sys.exit(main())
