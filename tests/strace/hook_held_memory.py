#!/usr/bin/env python3
"""A Claude Code hook trusts the memory facts its session holds, never
fills the database's cache, and opens the database only to drop what a
change made stale, counted with strace.

    hook_held_memory.py --agentspine PATH

A session's record keeps each memory fact's digest and the version
(device, inode, size, times) it was read at (core's memory::session).
Under `strace -f`, after a session start (which leaves the database's cache
empty, so that the next session start opens no database file either, and
writes its report to `reports/`):
- a prompt that proves a new fact relevant reads that fact from disk,
  opens none of `state.db`, `-wal` and `-shm`, and sends it;
- the same prompt again opens both facts and reads neither (no read
  returns their bytes), opens no database file and sends nothing;
- a correction while nothing is cached is read and sent without opening
  the database;
- once `agentspine memory` has cached both facts, a correction of one
  makes the prompt open the database, drop that fact's snapshot at once,
  read the new text and send it; the next prompt opens no database again;
- `agentspine cache purge` makes the next prompt read what the session
  held once more (nothing is sent: the same bytes);
- a session start then drops the memory directory's snapshots;
- no scope is stored (`state.db.no-scopes`) until `agentspine scope set`;
  then the prompt asks the database for it and sends the fact it makes
  relevant.
"""

import json
import os
import re
import sys
import time

import harness
from checks import DB_OPEN, agentspine_binary, run_hook

tally = harness.Tally()
check = tally.check


STYLE = "Answer in British English, briefly."
STYLE_NEW = "Answer in British English, briefly and plainly."
PASTA = "Carbonara: guanciale, pecorino, egg yolks."
PASTA_NEW = "Carbonara: guanciale, pecorino, whole eggs."
BLUN = "BLUN ships on Thursdays."


def main() -> int:
    binary = agentspine_binary(__doc__)
    with harness.scratch("agentspine-held-memory-") as base:
        home = os.path.join(base, "home")
        state = os.path.join(base, "state")
        project = os.path.join(base, "project")
        memory = os.path.join(home, "memory")
        os.makedirs(os.path.join(home, ".claude"))
        os.makedirs(memory)
        os.makedirs(os.path.join(project, ".git"))
        harness.write(os.path.join(project, "CLAUDE.md"), "# Project\n")
        harness.write(os.path.join(home, ".claude", "settings.json"), json.dumps({"autoMemoryDirectory": memory}))
        harness.write_tree(memory, {
            "MEMORY.md": "# Memory\n\n- [Style](style.md) <!-- agentspine:always -->\n"
                         "- [Pasta](pasta.md) <!-- agentspine:keywords=carbonara -->\n"
                         "- [Blun](blun.md) <!-- agentspine:project=project:blun -->\n",
            "style.md": STYLE + "\n", "pasta.md": PASTA + "\n", "blun.md": BLUN + "\n"})
        # No AGENTSPINE_SCOPE: the scope is the project's stored one, and
        # none is stored (state.db.no-scopes), so no hook asks for it.
        env = {"PATH": os.environ["PATH"], "HOME": home, "AGENTSPINE_STATE_DIR": state}

        def hook(event: dict, trace: str | None) -> tuple[str, list[str]]:
            return run_hook(binary, "claude", env, event, trace)

        context = harness.hook_context

        def cached_rows() -> int:
            r = harness.run([binary, "cache", "stats", "--json"], env=env)
            assert r.returncode == 0, r.stderr
            return json.loads(r.stdout)["cache"]["rows"]

        def opened(lines: list, name: str) -> list:
            return [l for l in lines if re.search(r'\bopen(at2?)?\(.*"' + re.escape(name) + '"', l)]

        def reads_of(lines: list, text: str) -> list:
            return [l for l in lines if re.search(r'\bread\(\d+, "' + re.escape(text[:20]), l)]

        common = {"session_id": "s1", "cwd": project, "transcript_path": os.path.join(base, "t.jsonl")}
        start = {**common, "hook_event_name": "SessionStart", "source": "startup"}
        prompt = {**common, "hook_event_name": "UserPromptSubmit", "prompt": "what goes in a carbonara?"}
        trace = os.path.join(base, "trace")

        out, _ = hook(start, None)
        check("the session start sends the fact that is always relevant", STYLE in context(out), out)
        check("and puts nothing in the database's cache", cached_rows() == 0)
        # With no snapshot, scope, record or binding stored, a session start
        # needs no database: its report goes to reports/.
        out, lines = hook(start, trace)
        db = [l for l in lines if DB_OPEN.search(l)]
        check("a session start opens no database file", db == [] and STYLE in context(out), "\n".join(db))
        r = harness.run([binary, "audit", "--host", "claude", "--json"], env=env)
        reports = json.loads(r.stdout)["reports"] if r.returncode == 0 else []
        check("and its report is what `agentspine audit` shows",
              len(reports) == 1 and reports[0]["project_root"] == os.path.realpath(project), r.stdout + r.stderr)

        out, lines = hook(prompt, trace)
        db = [l for l in lines if DB_OPEN.search(l)]
        check("a prompt with a fact the session does not hold opens no database file", db == [], "\n".join(db))
        check("it sends that fact, not the held one", PASTA in context(out) and STYLE not in context(out), out)
        check("it reads that fact once", len(reads_of(lines, PASTA)) == 1,
              "\n".join(reads_of(lines, PASTA)))
        check("the held fact is opened once and not read",
              reads_of(lines, STYLE) == [] and len(opened(lines, "style.md")) == 1,
              "\n".join(opened(lines, "style.md")))

        out, lines = hook(prompt, trace)
        db = [l for l in lines if DB_OPEN.search(l)]
        check("the same prompt again opens no database file", db == [], "\n".join(db))
        check("and sends nothing (the session holds both facts)", out == "", out)
        check("neither fact is read",
              reads_of(lines, PASTA) == [] and reads_of(lines, STYLE) == [],
              "\n".join(reads_of(lines, PASTA) + reads_of(lines, STYLE)))
        check("each is opened once and its version compared",
              len(opened(lines, "pasta.md")) == 1 and len(opened(lines, "style.md")) == 1)

        # A correction while nothing is cached (state.db.no-cache): read
        # and sent, and still no database file opened.
        time.sleep(0.01)
        harness.write(os.path.join(memory, "style.md"), STYLE_NEW + "\n")
        out, lines = hook(prompt, trace)
        db = [l for l in lines if DB_OPEN.search(l)]
        check("a correction with nothing cached is sent without opening the database",
              db == [] and STYLE_NEW in context(out), "\n".join(db) + out)

        r = harness.run([binary, "memory", "--host", "claude", "--cwd", project, "--prompt", "carbonara", "--json"],
                        env=env)
        check("`agentspine memory` caches both facts", r.returncode == 0 and cached_rows() == 2, r.stderr)

        # A correction, with a new size and a later time: a new version.
        time.sleep(0.01)
        harness.write(os.path.join(memory, "pasta.md"), PASTA_NEW + " Never cream.\n")
        out, lines = hook(prompt, trace)
        db = [l for l in lines if DB_OPEN.search(l)]
        check("after a correction the prompt opens the database", len(db) >= 1, f"{len(lines)} calls")
        check("and sends the corrected fact", PASTA_NEW in context(out), out)
        check("read once", len(reads_of(lines, PASTA_NEW)) == 1)
        check("the stale snapshot is dropped at once, nothing put", cached_rows() == 1)

        out, lines = hook(prompt, trace)
        db = [l for l in lines if DB_OPEN.search(l)]
        check("then the session holds the new version: no database, nothing sent", db == [] and out == "",
              "\n".join(db) + out)

        # A purge of the cache renews its epoch: what the session holds is
        # read again once (and not sent again: the same bytes), then held.
        r = harness.run([binary, "cache", "purge"], env=env)
        check("`agentspine cache purge`", r.returncode == 0, r.stderr)
        out, lines = hook(prompt, trace)
        check("after a purge the prompt reads the facts the session held, and sends nothing",
              out == "" and len(reads_of(lines, PASTA_NEW)) == 1 and len(reads_of(lines, STYLE)) == 1, out)
        out, lines = hook(prompt, trace)
        check("then holds them again: nothing read",
              out == "" and reads_of(lines, PASTA_NEW) == [] and reads_of(lines, STYLE) == [], out)

        hook(start, None)
        check("a session start drops the memory directory's snapshots", cached_rows() == 0)

        # A stored scope removes state.db.no-scopes: the next prompt asks the
        # database for it and sends the fact it makes relevant.
        check("no scope is stored, and the file says so", os.path.isfile(os.path.join(state, "state.db.no-scopes")))
        r = harness.run([binary, "scope", "set", "project:blun", "--cwd", project], env=env)
        check("`agentspine scope set` removes it",
              r.returncode == 0 and not os.path.exists(os.path.join(state, "state.db.no-scopes")), r.stderr)
        out, lines = hook(prompt, trace)
        db = [l for l in lines if DB_OPEN.search(l)]
        check("the prompt then reads the stored scope and sends its fact", len(db) >= 1 and BLUN in context(out),
              out)

    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
