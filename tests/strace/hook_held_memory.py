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
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import DB_OPEN, agentspine_binary, check, run_hook, summary  # noqa: E402


STYLE = "Answer in British English, briefly."
STYLE_NEW = "Answer in British English, briefly and plainly."
PASTA = "Carbonara: guanciale, pecorino, egg yolks."
PASTA_NEW = "Carbonara: guanciale, pecorino, whole eggs."
BLUN = "BLUN ships on Thursdays."


def main() -> int:
    binary = agentspine_binary(__doc__)
    with tempfile.TemporaryDirectory(prefix="agentspine-held-memory-") as base:
        home = os.path.join(base, "home")
        state = os.path.join(base, "state")
        project = os.path.join(base, "project")
        memory = os.path.join(home, "memory")
        os.makedirs(os.path.join(home, ".claude"))
        os.makedirs(memory)
        os.makedirs(os.path.join(project, ".git"))
        with open(os.path.join(project, "CLAUDE.md"), "w") as f:
            f.write("# Project\n")
        with open(os.path.join(home, ".claude", "settings.json"), "w") as f:
            json.dump({"autoMemoryDirectory": memory}, f)
        with open(os.path.join(memory, "MEMORY.md"), "w") as f:
            f.write("# Memory\n\n- [Style](style.md) <!-- agentspine:always -->\n"
                    "- [Pasta](pasta.md) <!-- agentspine:keywords=carbonara -->\n"
                    "- [Blun](blun.md) <!-- agentspine:project=project:blun -->\n")
        for name, text in (("style.md", STYLE), ("pasta.md", PASTA), ("blun.md", BLUN)):
            with open(os.path.join(memory, name), "w") as f:
                f.write(text + "\n")
        # No AGENTSPINE_SCOPE: the scope is the project's stored one, and
        # none is stored (state.db.no-scopes), so no hook asks for it.
        env = {"PATH": os.environ["PATH"], "HOME": home, "AGENTSPINE_STATE_DIR": state}

        def hook(event: dict, trace: str | None) -> tuple[str, list[str]]:
            return run_hook(binary, "claude", env, event, trace)

        def context(out: str) -> str:
            return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""

        def cached_rows() -> int:
            r = subprocess.run([binary, "cache", "stats", "--json"], env=env, capture_output=True, text=True,
                               timeout=60)
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
        check(STYLE in context(out), "the session start sends the fact that is always relevant", out)
        check(cached_rows() == 0, "and puts nothing in the database's cache")
        # With no snapshot, scope, record or binding stored, a session start
        # needs no database: its report goes to reports/.
        out, lines = hook(start, trace)
        db = [l for l in lines if DB_OPEN.search(l)]
        check(db == [] and STYLE in context(out), "a session start opens no database file", "\n".join(db))
        r = subprocess.run([binary, "audit", "--host", "claude", "--json"], env=env, capture_output=True,
                           text=True, timeout=60)
        reports = json.loads(r.stdout)["reports"] if r.returncode == 0 else []
        check(len(reports) == 1 and reports[0]["project_root"] == os.path.realpath(project),
              "and its report is what `agentspine audit` shows", r.stdout + r.stderr)

        out, lines = hook(prompt, trace)
        db = [l for l in lines if DB_OPEN.search(l)]
        check(db == [], "a prompt with a fact the session does not hold opens no database file", "\n".join(db))
        check(PASTA in context(out) and STYLE not in context(out), "it sends that fact, not the held one", out)
        check(len(reads_of(lines, PASTA)) == 1, "it reads that fact once",
              "\n".join(reads_of(lines, PASTA)))
        check(reads_of(lines, STYLE) == [] and len(opened(lines, "style.md")) == 1,
              "the held fact is opened once and not read", "\n".join(opened(lines, "style.md")))

        out, lines = hook(prompt, trace)
        db = [l for l in lines if DB_OPEN.search(l)]
        check(db == [], "the same prompt again opens no database file", "\n".join(db))
        check(out == "", "and sends nothing (the session holds both facts)", out)
        check(reads_of(lines, PASTA) == [] and reads_of(lines, STYLE) == [],
              "neither fact is read", "\n".join(reads_of(lines, PASTA) + reads_of(lines, STYLE)))
        check(len(opened(lines, "pasta.md")) == 1 and len(opened(lines, "style.md")) == 1,
              "each is opened once and its version compared")

        # A correction while nothing is cached (state.db.no-cache): read
        # and sent, and still no database file opened.
        time.sleep(0.01)
        with open(os.path.join(memory, "style.md"), "w") as f:
            f.write(STYLE_NEW + "\n")
        out, lines = hook(prompt, trace)
        db = [l for l in lines if DB_OPEN.search(l)]
        check(db == [] and STYLE_NEW in context(out),
              "a correction with nothing cached is sent without opening the database", "\n".join(db) + out)

        r = subprocess.run([binary, "memory", "--host", "claude", "--cwd", project, "--prompt", "carbonara",
                            "--json"], env=env, capture_output=True, text=True, timeout=60)
        check(r.returncode == 0 and cached_rows() == 2, "`agentspine memory` caches both facts", r.stderr)

        # A correction, with a new size and a later time: a new version.
        time.sleep(0.01)
        with open(os.path.join(memory, "pasta.md"), "w") as f:
            f.write(PASTA_NEW + " Never cream.\n")
        out, lines = hook(prompt, trace)
        db = [l for l in lines if DB_OPEN.search(l)]
        check(len(db) >= 1, "after a correction the prompt opens the database", f"{len(lines)} calls")
        check(PASTA_NEW in context(out), "and sends the corrected fact", out)
        check(len(reads_of(lines, PASTA_NEW)) == 1, "read once")
        check(cached_rows() == 1, "the stale snapshot is dropped at once, nothing put")

        out, lines = hook(prompt, trace)
        db = [l for l in lines if DB_OPEN.search(l)]
        check(db == [] and out == "", "then the session holds the new version: no database, nothing sent",
              "\n".join(db) + out)

        # A purge of the cache renews its epoch: what the session holds is
        # read again once (and not sent again: the same bytes), then held.
        r = subprocess.run([binary, "cache", "purge"], env=env, capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, "`agentspine cache purge`", r.stderr)
        out, lines = hook(prompt, trace)
        check(out == "" and len(reads_of(lines, PASTA_NEW)) == 1 and len(reads_of(lines, STYLE)) == 1,
              "after a purge the prompt reads the facts the session held, and sends nothing", out)
        out, lines = hook(prompt, trace)
        check(out == "" and reads_of(lines, PASTA_NEW) == [] and reads_of(lines, STYLE) == [],
              "then holds them again: nothing read", out)

        hook(start, None)
        check(cached_rows() == 0, "a session start drops the memory directory's snapshots")

        # A stored scope removes state.db.no-scopes: the next prompt asks the
        # database for it and sends the fact it makes relevant.
        check(os.path.isfile(os.path.join(state, "state.db.no-scopes")), "no scope is stored, and the file says so")
        r = subprocess.run([binary, "scope", "set", "project:blun", "--cwd", project], env=env,
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 0 and not os.path.exists(os.path.join(state, "state.db.no-scopes")),
              "`agentspine scope set` removes it", r.stderr)
        out, lines = hook(prompt, trace)
        db = [l for l in lines if DB_OPEN.search(l)]
        check(len(db) >= 1 and BLUN in context(out), "the prompt then reads the stored scope and sends its fact",
              out)

    return summary()


if __name__ == "__main__":
    sys.exit(main())
