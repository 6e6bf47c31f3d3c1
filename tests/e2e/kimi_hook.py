#!/usr/bin/env python3
"""agentspine's hook inside the real Kimi Code 2.1.0.

    kimi_hook.py --agentspine BIN [--keep DIR] [--work DIR]

A throwaway HOME and KIMI_CODE_HOME (holding a config.toml of the user's,
with a hook of their own), a git monorepo, and `agentspine install kimi`
run twice; then `kimi -p` headless in its own network and PID namespace
(kimi.py) against the mock model, which by script reads and then edits
packages/db/src/schema.sql; the prompt names that file and
packages/api/src/handler.ts. Kimi runs under `strace -f` so every start of
`agentspine hook kimi` is counted by the event its payload names. Started
in packages/web: Kimi loads $KIMI_CODE_HOME/AGENTS.md, the root's
.kimi-code/AGENTS.md and AGENTS.md, and packages/web/AGENTS.md itself, and
nothing below the start directory or in a sibling (KIMI-MEASURED.md).

What is asserted, on the requests the model received:
- install: config.toml is the user's bytes followed by one `[[hooks]]`
  entry (`event`, `command`, `timeout`: only keys Kimi reads) running this
  binary; mcp.json holds `mcpServers.agentspine`; doctor calls it
  installed; Kimi offers the MCP server's four tools (it accepted mcp.json)
  and leaves both files as install wrote them;
- the prompt names packages/db/src/schema.sql: the UserPromptSubmit hook's
  result reaches the first request (before the read and the edit the model
  then asks for) as one user message before the prompt, and is byte for
  byte `<hook_result hook_event="UserPromptSubmit">` + the two nested files
  (packages/db/src/AGENTS.md, then packages/db/AGENTS.md, each under
  `<!-- From: <path> -->`) + `</hook_result>`; each file's text arrives
  exactly once in every request of the session;
- what Kimi loads itself (its user file, the root's two files and the
  start directory's) is in its system prompt once and never repeated;
- nothing from outside the root: packages/api/AGENTS.md is a link to a file
  outside the tree, and a file above the git root exists; neither text is
  in any request;
- the hook ran once (one event, UserPromptSubmit), installed twice;
- `agentspine uninstall kimi` after the session gives config.toml back
  byte for byte and removes the mcp.json install created.

Prints one line per check, then where each text arrived (main request
indexes), and closes with `N passed, M failed`; exit 1 on any failure.
Needs root (namespaces), npm (kimi.install) and strace.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True

import harness  # noqa: E402
import hooks as hk  # noqa: E402
import kimi  # noqa: E402

PROMPT = "Fix the schema in packages/db/src/schema.sql, then packages/api/src/handler.ts."
HOOK_OPEN = '<hook_result hook_event="UserPromptSubmit">\n'
HOOK_CLOSE = "\n</hook_result>"

# The user's own Kimi settings: comments and a hook of theirs (valid: one
# invalid entry would stop every hook).
USER_CONFIG = """# Kimi Code, by hand.

[[hooks]]
event = "Stop"
command = "true"
timeout = 5
"""

DB_SRC = "Schema folder rules: KM_DBSRC_8h1.\nKeep migrations reversible.\n"
DB = "# packages/db\n\nDB package rules: KM_DB_4k2.\n"
LOADED = {  # marker -> what Kimi loads itself
    "KM_USER_6f1": "its user file ($KIMI_CODE_HOME/AGENTS.md)",
    "KM_KDIR_0c9": "the root's .kimi-code/AGENTS.md",
    "KM_ROOT_1a2": "the root's AGENTS.md",
    "KM_WEB_3b4": "the start directory's AGENTS.md",
}


def files_of(directory: str) -> dict:
    """The files agentspine installs into, by name, with their bytes (None
    when missing)."""
    out = {}
    for name in ("config.toml", "mcp.json"):
        path = os.path.join(directory, name)
        out[name] = open(path, "rb").read() if os.path.exists(path) else None
    return out


def run(bin_: str, work: str, keep: str | None) -> harness.Tally:
    c = harness.Tally("kimi")
    base = os.path.join(work, "kimi")
    tree = os.path.join(base, "tree")
    home = os.path.join(base, "home")
    kh = os.path.join(base, "kimi-home")
    os.makedirs(home)
    hk.git_init(tree)
    harness.write_tree(base, {
        "AGENTS.md": "Above the git root: KM_ABOVE_9e0.\n",
        "outside/AGENTS.md": "Outside the root: KM_OUT_2f3.\n",
    })
    harness.write_tree(kh, {"AGENTS.md": "User rules: KM_USER_6f1.\n", "config.toml": USER_CONFIG})
    harness.write_tree(tree, {
        "AGENTS.md": "Monorepo rules: KM_ROOT_1a2.\n",
        ".kimi-code/AGENTS.md": "Kimi-only root rules: KM_KDIR_0c9.\n",
        "packages/web/AGENTS.md": "Web package rules: KM_WEB_3b4.\n",
        "packages/web/src/app.ts": "export const app = 1;\n",
        "packages/db/AGENTS.md": DB,
        "packages/db/src/AGENTS.md": DB_SRC,
        "packages/db/src/schema.sql": "create table t (id int);\n",
        "packages/api/src/handler.ts": "export const a = 1;\n",
    })
    os.symlink(os.path.join(base, "outside", "AGENTS.md"), os.path.join(tree, "packages/api/AGENTS.md"))
    before = files_of(kh)

    env = kimi.base_env()
    env.update({"HOME": home, "KIMI_CODE_HOME": kh})
    rc, out = hk.install(bin_, "kimi", env)
    c.check("agentspine install kimi (twice)", rc == 0, out)
    if rc != 0:
        return c
    installed = files_of(kh)
    command = f"{bin_} hook kimi"
    entry = f'\n[[hooks]]\nevent = "UserPromptSubmit"\ncommand = {json.dumps(command)}\ntimeout = 10\n'
    c.check("config.toml is the user's bytes, then one [[hooks]] entry with only keys Kimi reads",
            installed["config.toml"] == (USER_CONFIG + entry).encode(), repr(installed["config.toml"]))
    servers = json.loads(installed["mcp.json"] or b"{}").get("mcpServers")
    c.check("mcp.json holds the agentspine MCP server",
            servers == {"agentspine": {"command": bin_, "args": ["mcp"]}}, json.dumps(servers))
    done, report = harness.run_json([bin_, "doctor", "--host", "kimi", "--json"], env=env,
                                    cwd=os.path.join(tree, "packages/web"))
    inst = (report or {}).get("install") or {}
    c.check("doctor --host kimi calls the hook installed once and the server registered",
            inst.get("ok") is True and inst.get("commands_per_event") == {"UserPromptSubmit": [command]},
            json.dumps(inst)[:1500] or done.stderr)

    schema = os.path.join(tree, "packages/db/src/schema.sql")
    turns = [
        {"tool": {"name": "Read", "arguments": {"path": schema}}},
        {"tool": {"name": "Edit", "arguments": {"path": schema, "old_string": "id int",
                                                "new_string": "id bigint"}}},
        {"text": "done"},
    ]
    log = os.path.join(base, "strace.log")
    try:
        recs = kimi.run(tree, os.path.join(tree, "packages/web"), home, prompt=PROMPT, script=turns,
                        env={"KIMI_CODE_HOME": kh}, timeout=180, wrap=[*hk.STRACE, "-o", log], keep=keep)
    except kimi.KimiError as e:
        c.check("kimi -p goes to the end with agentspine's hook", False, str(e))
        return c
    reqs = kimi.main_requests(recs)
    c.check("the model was asked 3 times (read, edit, then the answer)", len(reqs) == 3, str(len(reqs)))
    if len(reqs) != 3:
        return c
    edited = open(schema).read()
    c.check("the edit ran", edited == "create table t (id bigint);\n", edited)
    texts = [harness.text_of(r) for r in reqs]
    system = kimi.system_prompt(reqs[0])

    tools = [t.get("function", {}).get("name", "") for t in reqs[0]["body"].get("tools") or []]
    want_tools = [f"mcp__agentspine__{t}" for t in
                  ("session_briefing", "delivery_knowledge_query", "resolve_context", "read_document")]
    c.check("Kimi offers the MCP server's four tools (it accepted the mcp.json install wrote)",
            all(t in tools for t in want_tools), str([t for t in tools if t.startswith("mcp__")]))
    c.check("Kimi left config.toml and mcp.json as install wrote them", files_of(kh) == installed)

    # The hook's message: the one user message before the prompt.
    messages = reqs[0]["body"]["messages"]
    users = ["".join(harness.text_items(m.get("content"))) for m in messages if m.get("role") == "user"]
    prompt_at = next((i for i, u in enumerate(users) if u == PROMPT), None)
    hooked = [u for u in users if u.startswith(HOOK_OPEN)]
    db_src = os.path.join(tree, "packages/db/src/AGENTS.md")
    db = os.path.join(tree, "packages/db/AGENTS.md")
    want = (f"{HOOK_OPEN}<!-- From: {db_src} -->\n\n{DB_SRC.strip()}\n\n"
            f"<!-- From: {db} -->\n\n{DB.strip()}{HOOK_CLOSE}")
    c.check("one hook result reaches the first request, right before the prompt",
            len(hooked) == 1 and prompt_at is not None and prompt_at > 0 and users[prompt_at - 1] == hooked[0],
            json.dumps(users)[:2000])
    c.check("the hook result is the prompt's nested files, byte for byte", hooked == [want],
            json.dumps(hooked)[:2000] + "\nwanted " + json.dumps(want))
    for text, what in ((DB_SRC.strip(), "packages/db/src/AGENTS.md"), (DB.strip(), "packages/db/AGENTS.md")):
        counts = [t.count(text) for t in texts]
        c.check(f"{what} arrives before the read and the edit, once in every request", counts == [1, 1, 1],
                str(counts))
    for marker, what in LOADED.items():
        counts = [t.count(marker) for t in texts]
        c.check(f"Kimi loads {what} itself, and agentspine never repeats it",
                system.count(marker) == 1 and counts == [1, 1, 1], f"system {system.count(marker)}, {counts}")
    for marker, what in (("KM_OUT_2f3", "the file packages/api/AGENTS.md links to, outside the tree"),
                         ("KM_ABOVE_9e0", "the file above the git root")):
        c.check(f"nothing of {what} reaches any request", all(marker not in t for t in texts))

    runs = hk.hook_runs(log, bin_)
    c.check("installed twice, the hook ran once (UserPromptSubmit)", runs == {"UserPromptSubmit": 1},
            json.dumps(runs))

    arrived = {}
    for marker in ("KM_DBSRC_8h1", "KM_DB_4k2", *LOADED):
        arrived[marker] = next((i for i, t in enumerate(texts) if marker in t), None)
    print(f"kimi arrived in main request: {json.dumps(arrived)}")

    done = harness.run([bin_, "uninstall", "kimi", "--json"], env=env)
    c.check("agentspine uninstall kimi after the session", done.returncode == 0, done.stdout + done.stderr)
    after = files_of(kh)
    c.check("uninstall gives config.toml back byte for byte and removes the mcp.json install created",
            after == before and before["mcp.json"] is None, repr(after))
    return c


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agentspine", required=True)
    ap.add_argument("--keep", metavar="DIR", help="keep the raw requests and Kimi's output in DIR")
    ap.add_argument("--work", metavar="DIR", help="build the project under DIR (kept)")
    a = ap.parse_args(argv)
    bin_ = harness.agentspine(a.agentspine, real=True)
    if shutil.which("strace") is None:
        print("kimi_hook.py: strace is needed", file=sys.stderr)
        return 2
    try:
        kimi.install()
    except kimi.KimiError as e:
        print(f"kimi_hook.py: {e}", file=sys.stderr)
        return 2
    work = os.path.abspath(a.work) if a.work else tempfile.mkdtemp(prefix="agentspine-kimi-hook-")
    try:
        shutil.rmtree(os.path.join(work, "kimi"), ignore_errors=True)
        result = run(bin_, work, a.keep)
    finally:
        if not a.work:
            harness.remove(work)
    return harness.summary([result])


if __name__ == "__main__":
    sys.exit(main())
