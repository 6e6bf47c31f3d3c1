"""What the strace scripts share besides tests/lib/harness.py: their
command line (the agentspine binary, with strace installed), one hook run
traced or not, and the pattern of an open of the state database."""

import argparse
import re
import shutil
import sys

import harness

# An open of the state database or its WAL or shared-memory file.
DB_OPEN = re.compile(r'\bopen(at)?\(.*state\.db(-wal|-shm)?"')


def agentspine_binary(doc: str) -> str:
    """The `--agentspine PATH` argument, absolute; exits 2 without strace."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--agentspine", required=True)
    a = ap.parse_args()
    if not shutil.which("strace"):
        print("strace is missing (apt-get install strace)", file=sys.stderr)
        sys.exit(2)
    return harness.agentspine(a.agentspine)


def run_hook(binary: str, host: str, env: dict, event: dict, trace: str | None) -> tuple[str, list[str]]:
    """`agentspine hook HOST` on `event`, under `strace -f` writing to
    `trace` when given: its output and the traced lines."""
    wrap = ["strace", "-f", "-qq", "-s", "256", "-o", trace] if trace else []
    r = harness.run_hook(binary, host, event, env, wrap=wrap)
    assert r.returncode == 0, r.stderr
    lines = []
    if trace:
        with open(trace) as f:
            lines = f.read().splitlines()
    return r.stdout, lines
