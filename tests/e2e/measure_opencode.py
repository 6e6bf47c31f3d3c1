#!/usr/bin/env python3
"""Measure opencode 1.18.33 black-box (the facts in OPENCODE-MEASURED.md).

    PYTHONPATH=tests/lib python3 tests/e2e/measure_opencode.py instructions [--fixture NAME ...] [--out DIR] [--work DIR]
    PYTHONPATH=tests/lib python3 tests/e2e/measure_opencode.py probes [--probe NAME ...] [--out DIR] [--work DIR]

`instructions`: each fixture of fixtures_opencode.py, one `opencode run`; the
extracted text (opencode.extract) goes to OUT/<fixture>.txt (empty: nothing
sent), the raw requests to OUT/raw/<fixture>.jsonl, and a table row
(fixture, length in bytes, sha256, the `Instructions from:` paths) is printed.

`probes`: the scripted sessions (read tool and its reminders, the plugin
hooks, MCP, side requests); each writes OUT/<probe>.json with what it saw and
prints a summary.

Needs root (namespaces).  Each run is bounded (opencode.TIMEOUT).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import sys

sys.dont_write_bytecode = True

import fixtures_opencode as fxo  # noqa: E402
import harness  # noqa: E402
import opencode as oc  # noqa: E402


def _rel(text: str, tree: str, home: str) -> str:
    return text.replace(tree, "<tree>").replace(home, "<home>")


def run_instructions(names, out: str, work: str) -> int:
    os.makedirs(os.path.join(out, "raw"), exist_ok=True)
    failures = 0
    rows = []
    for fx in fxo.FIXTURES:
        if names and fx.name not in names:
            continue
        dest = os.path.join(work, fx.name)
        harness.remove(dest)
        tree, cwd, home = fxo.build(fx, dest)
        keep = os.path.join(work, fx.name + ".raw")
        try:
            recs = oc.run(tree, cwd, home, env=fxo.env(fx, tree, home), wrap=fx.wrap, keep=keep)
            text = oc.extract(recs)
        except oc.RunError as e:
            failures += 1
            print(f"{fx.name}: FAILED: {e}", flush=True)
            continue
        shutil.copy(os.path.join(keep, "requests.jsonl"), os.path.join(out, "raw", fx.name + ".jsonl"))
        data = oc.to_bytes(text)
        with open(os.path.join(out, fx.name + ".txt"), "wb") as f:
            f.write(data)
        paths = re.findall(r"^Instructions from: (.*)$", text or "", re.M)
        row = (fx.name, len(data), hashlib.sha256(data).hexdigest(), [_rel(p, tree, home) for p in paths])
        rows.append(row)
        print(f"{row[0]:30} {row[1]:7} {row[2][:16]} {' | '.join(row[3]) or '(nothing)'}", flush=True)
    with open(os.path.join(out, "table.json"), "w", encoding="utf-8") as f:
        json.dump(rows, f, indent=1, ensure_ascii=False)
    return 1 if failures else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("part", choices=("instructions", "probes"))
    ap.add_argument("--fixture", action="append", default=[])
    ap.add_argument("--probe", action="append", default=[])
    ap.add_argument("--out", default="/tmp/opencode-measured")
    ap.add_argument("--work", default="/tmp/ocw")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    os.makedirs(a.work, exist_ok=True)
    if a.part == "instructions":
        return run_instructions(set(a.fixture), a.out, a.work)
    import probes_opencode
    return probes_opencode.run(set(a.probe), a.out, a.work)


if __name__ == "__main__":
    sys.exit(main())
