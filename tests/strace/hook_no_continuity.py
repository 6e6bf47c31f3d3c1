#!/usr/bin/env python3
"""A prompt hook of a user with no records and no bindings opens no
database, counted with strace.

    hook_no_continuity.py --agentspine PATH

The state directory keeps `state.db.no-continuity` while no record and no
binding event is stored (agentspine-store's quick.rs). `agentspine hook
codex` on UserPromptSubmit adds only continuity; with the file there it
asks the database nothing, so under `strace -f` it opens none of
`state.db`, `state.db-wal` and `state.db-shm`, and looks at the file once.
Once the project has an accepted record, the file is gone, the same hook
opens the database and the record reaches the model: the file never hides
one.
"""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import DB_OPEN, agentspine_binary, check, run_hook, summary  # noqa: E402


def main() -> int:
    binary = agentspine_binary(__doc__)
    with tempfile.TemporaryDirectory(prefix="agentspine-no-continuity-") as base:
        home = os.path.join(base, "home")
        state = os.path.join(base, "state")
        project = os.path.join(base, "project")
        os.makedirs(os.path.join(home, ".codex"))
        os.makedirs(os.path.join(project, ".git"))
        with open(os.path.join(project, "AGENTS.md"), "w") as f:
            f.write("# Project\n")
        env = {"PATH": os.environ["PATH"], "HOME": home, "AGENTSPINE_STATE_DIR": state}
        flag = os.path.join(state, "state.db.no-continuity")

        def hook(event: dict, trace: str | None) -> tuple[str, list[str]]:
            return run_hook(binary, "codex", env, event, trace)

        common = {"session_id": "s1", "cwd": project, "transcript_path": os.path.join(base, "t.jsonl")}
        start = {**common, "hook_event_name": "SessionStart", "source": "startup"}
        prompt = {**common, "hook_event_name": "UserPromptSubmit", "prompt": "hello"}
        trace = os.path.join(base, "trace")

        hook(start, None)
        check(os.path.isfile(flag), "the session start's open finds no record and no binding and says so")
        out, lines = hook(prompt, trace)
        opens = [l for l in lines if DB_OPEN.search(l)]
        looks = [l for l in lines if '"state.db.no-continuity"' in l]
        check(opens == [], "the prompt hook opens no database file", "\n".join(opens))
        check(len(looks) == 1, "it looks at state.db.no-continuity once", "\n".join(looks))
        check(out == "", "and prints nothing (nothing to add)", out)

        text = "Answer in British English."
        def record(*args: str) -> str:
            r = subprocess.run([binary, "record", *args, "--cwd", project], env=env, capture_output=True,
                               text=True, timeout=60)
            assert r.returncode == 0, r.stderr
            return r.stdout
        added = record("add", "--kind", "preference", text)
        record("accept", added.split()[1])
        check(not os.path.exists(flag), "a record removes the file")
        out, lines = hook(prompt, trace)
        opens = [l for l in lines if DB_OPEN.search(l)]
        check(len(opens) >= 1, "the prompt hook then opens the database", f"{len(lines)} calls")
        context = json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""
        check(text in context, "and the record reaches the model", out)
        check(not os.path.exists(flag), "no open brings the file back while the record is stored")

    return summary()


if __name__ == "__main__":
    sys.exit(main())
