#!/usr/bin/env python3
"""A hook that cannot map the page it shares with its work process.

`hook` keeps its deadline from the hook process, through a gate in one page
of shared anonymous memory that its forked work process also sees. Where
that mapping fails, a forked child would hold a copy of the gate of its
own: the hook must not fork then, and runs the work in its own process
instead, with the deadline still kept. Run under the seccomp helper
(`no-openat2 --and-shared-anonymous-mmap`), which fails every such
`mmap(2)` for real (and `openat2(2)`, so the fallback walker reads).

Checked:
- a Claude Code PreToolUse in another package gets that package's
  CLAUDE.md, whole, with exit 0, and the hook says the work runs in its
  own process;
- no work process is forked (strace: only the deadline's thread);
- a payload that never ends is abandoned at the deadline: exit 0 within
  2 s (1.6 s or more), nothing printed, and the audit row
  `claude|unknown|payload|deadline` is written.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

import harness
from check import Plain  # the hang suite's fixture of a hook that answers at once

tally = harness.Tally()
check = tally.check


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--agentspine", required=True)
    ap.add_argument("--filter", required=True, help="the no-openat2 seccomp helper")
    a = ap.parse_args()
    with harness.scratch("agentspine-noshm-") as base:
        plain = Plain(base, "proj")
        env = plain.env
        argv = [a.filter, "--and-shared-anonymous-mmap", "--", harness.agentspine(a.agentspine), "hook", "claude"]
        out = harness.run(argv, env=env, input=plain.read_payload("s1"), timeout=20, text=False)
        check("without the shared page: the context is printed whole, exit 0, the work in the hook's process",
              out.returncode == 0 and plain.printed_context(out.stdout).startswith(plain.context)
              and b"no shared page" in out.stderr and b"the work runs in this process" in out.stderr,
              f"code {out.returncode}, stdout {out.stdout[:300]!r}, stderr {out.stderr[:300]!r}")

        # No process is forked (a thread is: the in-process deadline's):
        # every clone the hook makes shares its memory.
        if shutil.which("strace"):
            trace = os.path.join(base, "clones")
            traced = harness.run(["strace", "-f", "-qq", "-o", trace, "-e", "trace=fork,vfork,clone,clone3", *argv],
                                 env=env, input=plain.read_payload("s3"), timeout=20, text=False)
            with open(trace) as f:
                calls = [line.strip() for line in f if "clone" in line or "fork" in line]
            forks = [c for c in calls if "CLONE_THREAD" not in c and "resumed" not in c]
            check("without the shared page: the hook forks no work process (only its deadline's thread)",
                  traced.returncode == 0 and forks == [] and any("CLONE_THREAD" in c for c in calls),
                  f"code {traced.returncode}, clones {calls}")
        else:
            check("without the shared page: strace is installed to count the hook's forks", False, "no strace")

        # Its standard input stays open (never closed before the hook
        # exits): the payload never ends.
        with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f:
            started = time.monotonic()
            proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=out_f, stderr=err_f)
            proc.stdin.write(b'{"session_id":"s2",')
            proc.stdin.flush()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            took = time.monotonic() - started
            proc.stdin.close()
            out_f.seek(0)
            err_f.seek(0)
            stdout, stderr = out_f.read(), err_f.read()
        check("without the shared page: a payload that never ends is abandoned at the deadline, exit 0 in 2 s",
              proc.returncode == 0 and 1.6 <= took < 2.0 and stdout == b"",
              f"code {proc.returncode}, {took:.2f} s, stdout {stdout[:200]!r}, stderr {stderr[:300]!r}")
        rows = plain.audit_rows()
        check("without the shared page: the late run's audit row is written",
              rows == [("claude", "unknown", "payload", "deadline")], f"{rows}")
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
