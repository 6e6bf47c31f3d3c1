"""What the strace scripts share: the tally (each check printed as it is
made, then one summary line and the exit status), the agentspine binary
they are given, and one hook run, traced or not."""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

passed = 0
failures = 0


def check(ok: bool, what: str, detail: str = "") -> None:
    global failures, passed
    if ok:
        passed += 1
        print(f"ok   {what}")
    else:
        failures += 1
        print(f"FAIL {what}\n     {detail[:3000]}")


def summary() -> int:
    """Prints the tally; the exit status (1 if any check failed)."""
    print(f"{passed} passed, {failures} failed")
    return 1 if failures else 0


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
    return os.path.abspath(a.agentspine)


def run_hook(binary: str, host: str, env: dict, event: dict, trace: str | None) -> tuple[str, list[str]]:
    """`agentspine hook HOST` on `event`, under `strace -f` writing to
    `trace` when given: its output and the traced lines."""
    argv = [binary, "hook", host]
    if trace:
        argv = ["strace", "-f", "-qq", "-s", "256", "-o", trace] + argv
    r = subprocess.run(argv, env=env, input=json.dumps(event), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = []
    if trace:
        with open(trace) as f:
            lines = f.read().splitlines()
    return r.stdout, lines
