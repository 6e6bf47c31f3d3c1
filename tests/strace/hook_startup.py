#!/usr/bin/env python3
"""The install check of a session's first hook, counted with strace.

    hook_startup.py --agentspine PATH

`agentspine hook claude` on SessionStart (`startup`) looks once at the
hook file install wrote (Claude Code's settings.json) and at each other
absolute program it names (install/startup.rs). The hook run reads
settings.json once, for the memory directory, the resolution and this
check alike (agentspine-fs's `Reader::remembering_reads`): under `strace
-f` it is opened once in the whole run. In the thread that prints the
hook's line, the check is then the system calls from
`readlink("/proc/self/exe")` up to the `write` of the line:

- `readlink("/proc/self/exe")`: 1;
- one look at each other program: 1 for `/gone/agentspine` (its directory
  does not exist), none when the entries name the running binary.

So 2 calls when the hooks name a missing binary and 1 when they name
this one; UserPromptSubmit, PreToolUse and a `compact` SessionStart make
none of them (no `readlink` of /proc/self/exe, no look at `/gone`).
"""

import json
import os
import re
import sys
import time

import harness
from checks import agentspine_binary

tally = harness.Tally()
check = tally.check


def traced(bin_: str, env: dict, payload: dict, trace: str) -> tuple[str, list[str]]:
    r = harness.run_hook(bin_, "claude", payload, env, wrap=["strace", "-f", "-qq", "-o", trace])
    assert r.returncode == 0, r.stderr
    with open(trace) as f:
        return r.stdout, f.read().splitlines()


def window(lines: list[str]) -> list[str]:
    """The check's calls, in the printing thread: from readlink(/proc/self/exe)
    to the write of stdout."""
    exe = [i for i, l in enumerate(lines) if 'readlink("/proc/self/exe"' in l]
    if len(exe) != 1:
        return []
    pid = lines[exe[0]].split()[0]
    mine = [(i, l) for i, l in enumerate(lines) if l.split()[0] == pid]
    at = [k for k, (i, _) in enumerate(mine) if i == exe[0]][0]
    end = next(k for k, (_, l) in enumerate(mine) if k > at and l.split(None, 1)[1].startswith("write(1,"))
    return [l.split(None, 1)[1] for _, l in mine[at:end]]


def settings_opens(lines: list[str]) -> list[str]:
    return [l for l in lines if re.search(r'openat2?\(.*"settings\.json"', l)]


def main() -> None:
    bin_ = agentspine_binary(__doc__)
    with harness.scratch("agentspine-strace-startup-") as base:
        home, project = os.path.join(base, "home"), os.path.join(base, "project")
        os.makedirs(home)
        os.makedirs(os.path.join(project, ".git"))
        env = {"HOME": home, "PATH": os.environ["PATH"], "AGENTSPINE_STATE_DIR": os.path.join(base, "state")}
        trace = os.path.join(base, "trace")

        def install(program: str) -> None:
            harness.run([bin_, "install", "claude", "--command", program], env=env, cwd=project, check=True)
            # A file changed in the last 3 s is read twice (agentspine-fs's
            # racy window: 2 more calls); users' settings are older.
            time.sleep(3.2)

        def payload(event: str, **extra: str) -> dict:
            return {"session_id": "s1", "cwd": project, "hook_event_name": event, "transcript_path": None, **extra}

        install("/gone/agentspine")
        out, lines = traced(bin_, env, payload("SessionStart", source="startup"), trace)
        if not any("openat2(" in l for l in lines):
            print("note: openat2 is not used on this kernel; the counts are for the openat2 backend, skipped")
            return
        message = json.loads(out).get("systemMessage", "") if out else ""
        check("SessionStart names the missing binary", "`/gone/agentspine` does not exist" in message, out)
        calls = window(lines)
        check(f"the check is 2 system calls with a missing binary ({len(calls)})", len(calls) == 2,
              "\n".join(calls))
        opens = settings_opens(lines)
        check(f"settings.json is opened once in the run ({len(opens)})", len(opens) == 1, "\n".join(opens))
        gone = [l for l in lines if '"/gone' in l]
        check(f"one look at /gone/agentspine ({len(gone)})", len(gone) == 1, "\n".join(gone))

        for event, extra in (("UserPromptSubmit", {"prompt": "hello"}),
                             ("PreToolUse", {"tool_name": "Read", "tool_input": {"file_path": project}}),
                             ("SessionStart", {"source": "compact"})):
            _, lines = traced(bin_, env, payload(event, **extra), trace)
            touched = [l for l in lines if 'readlink("/proc/self/exe"' in l or '"/gone' in l]
            label = event + (f" ({extra['source']})" if "source" in extra else "")
            check(f"{label}: no install check", touched == [], "\n".join(touched))

        install(bin_)
        out, lines = traced(bin_, env, payload("SessionStart", source="startup"), trace)
        check("no message when the hooks name this binary", out == "" or "systemMessage" not in json.loads(out), out)
        calls = window(lines)
        check(f"the check is 1 system call when the hooks name this binary ({len(calls)})", len(calls) == 1,
              "\n".join(calls))
        opens = settings_opens(lines)
        check(f"settings.json is opened once in the run ({len(opens)})", len(opens) == 1, "\n".join(opens))
    sys.exit(tally.summary())


if __name__ == "__main__":
    main()
