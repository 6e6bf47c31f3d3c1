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

import os
import sys

import harness
from checks import DB_OPEN, agentspine_binary, run_hook

tally = harness.Tally()
check = tally.check


def main() -> int:
    binary = agentspine_binary(__doc__)
    with harness.scratch("agentspine-no-continuity-") as base:
        home = os.path.join(base, "home")
        state = os.path.join(base, "state")
        project = os.path.join(base, "project")
        os.makedirs(os.path.join(home, ".codex"))
        os.makedirs(os.path.join(project, ".git"))
        harness.write(os.path.join(project, "AGENTS.md"), "# Project\n")
        env = {"PATH": os.environ["PATH"], "HOME": home, "AGENTSPINE_STATE_DIR": state}
        flag = os.path.join(state, "state.db.no-continuity")

        def hook(event: dict, trace: str | None) -> tuple[str, list[str]]:
            return run_hook(binary, "codex", env, event, trace)

        common = {"session_id": "s1", "cwd": project, "transcript_path": os.path.join(base, "t.jsonl")}
        start = {**common, "hook_event_name": "SessionStart", "source": "startup"}
        prompt = {**common, "hook_event_name": "UserPromptSubmit", "prompt": "hello"}
        trace = os.path.join(base, "trace")

        hook(start, None)
        check("the session start's open finds no record and no binding and says so", os.path.isfile(flag))
        out, lines = hook(prompt, trace)
        opens = [l for l in lines if DB_OPEN.search(l)]
        looks = [l for l in lines if '"state.db.no-continuity"' in l]
        check("the prompt hook opens no database file", opens == [], "\n".join(opens))
        check("it looks at state.db.no-continuity once", len(looks) == 1, "\n".join(looks))
        check("and prints nothing (nothing to add)", out == "", out)

        text = "Answer in British English."
        def record(*args: str) -> str:
            r = harness.run([binary, "record", *args, "--cwd", project], env=env)
            assert r.returncode == 0, r.stderr
            return r.stdout
        added = record("add", "--kind", "preference", text)
        record("accept", added.split()[1])
        check("a record removes the file", not os.path.exists(flag))
        out, lines = hook(prompt, trace)
        opens = [l for l in lines if DB_OPEN.search(l)]
        check("the prompt hook then opens the database", len(opens) >= 1, f"{len(lines)} calls")
        context = harness.hook_context(out)
        check("and the record reaches the model", text in context, out)
        check("no open brings the file back while the record is stored", not os.path.exists(flag))

    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
