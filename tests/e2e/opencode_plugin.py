#!/usr/bin/env python3
"""agentspine's opencode plugin (plugins/opencode) inside the real opencode 1.18.33.

    opencode_plugin.py --agentspine BIN [--keep DIR] [--work DIR]

A throwaway HOME and git monorepo, `agentspine install opencode` run twice
into `~/.config/opencode` (the plugin in `plugins/`, the MCP server in
`opencode.json`), then `opencode run` headless in its own network and PID
namespace (opencode.py) against the mock model, which asks for four `read`
calls by script; the prompt names a path in a third package. opencode runs
under `strace -f` so every start of `agentspine hook opencode` is counted by
the event its payload names. Started in packages/web: opencode loads the
root's and packages/web's AGENTS.md itself, and on a `read` below
packages/web the nested files between the file and packages/web.

What is asserted, on the requests the model received:
- install: one plugin file in `plugins/` with this binary's path written in,
  `mcp.agentspine` in `opencode.json`, whose tools opencode offers; opencode
  leaves the `opencode.json` install wrote as it was;
- what opencode loads itself (the root's and the start directory's
  AGENTS.md) is in its system prompt and never repeated by agentspine, nor
  is the file above the git root sent;
- the session start's context (the sourceResolution report) reaches the
  first request once, in the user message, and stays once;
- the prompt names packages/db/src/schema.sql: packages/db/AGENTS.md reaches
  the first request once;
- `read` in the sibling packages/api: its AGENTS.md arrives with that tool's
  result, and a second read there does not repeat it;
- `read` below the start directory: opencode appends the nested AGENTS.md
  itself, and agentspine does not add it again;
- `read` of a file outside the project root (opencode allowed to read
  there): nothing of its directory is added;
- each event ran the hook exactly once (PreToolUse once per tool call, and
  SessionEnd when opencode closes its plugins);
- `agentspine uninstall opencode` after the session takes out the plugin and
  the `opencode.json` install created.

Prints one line per check, then where each text arrived (main request
indexes), and closes with `N passed, M failed`; exit 1 on any failure.
Needs root (namespaces), npm (opencode.install) and strace.
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
import opencode as oc  # noqa: E402

REPORT = "[agentspine sourceResolution]"
PROMPT = "Fix the schema in packages/db/src/schema.sql."


def run(bin_: str, work: str, keep: str | None) -> harness.Tally:
    c = harness.Tally("opencode")
    base = os.path.join(work, "opencode")
    tree = os.path.join(base, "tree")
    home = os.path.join(base, "home")
    config = os.path.join(home, ".config", "opencode")
    os.makedirs(config)
    hk.git_init(tree)
    harness.write_tree(base, {
        "AGENTS.md": "Above the git root: OC_ABOVE_9e0.\n",
        "outside/AGENTS.md": "Outside the root: OC_OUT_2f3.\n",
        "outside/notes.txt": "outside notes\n",
    })
    harness.write_tree(tree, {
        "AGENTS.md": "Monorepo rules: OC_ROOT_1a2.\n",
        "packages/web/AGENTS.md": "Web package rules: OC_WEB_3b4.\n",
        "packages/web/src/ui/AGENTS.md": "UI folder rules: OC_UI_5c6.\n",
        "packages/web/src/ui/button.tsx": "export const Button = 1;\n",
        "packages/api/AGENTS.md": "API package rules: OC_API_7d8.\n",
        "packages/api/src/handler.ts": "export const a = 1;\n",
        "packages/db/AGENTS.md": "DB package rules: OC_DB_4k2.\n",
        "packages/db/src/schema.sql": "create table t (id int);\n",
    })

    env = oc.base_env()
    env["HOME"] = home
    rc, out = hk.install(bin_, "opencode", env)
    c.check("agentspine install opencode (twice)", rc == 0, out)
    if rc != 0:
        return c
    plugins = sorted(os.listdir(os.path.join(config, "plugins")))
    c.check("opencode's plugins directory holds one agentspine plugin", plugins == ["agentspine.js"], str(plugins))
    text = open(os.path.join(config, "plugins", "agentspine.js"), encoding="utf-8").read()
    c.check("the installed plugin runs this agentspine binary",
            text.count(f"const AGENTSPINE = process.env.AGENTSPINE_BIN || {json.dumps(bin_)};") == 1)
    config_path = os.path.join(config, "opencode.json")
    written = open(config_path, "rb").read()
    servers = json.loads(written).get("mcp", {})
    c.check("opencode.json holds the agentspine MCP server",
            servers == {"agentspine": {"type": "local", "command": [bin_, "mcp"], "enabled": True}},
            json.dumps(servers))

    p = lambda rel: os.path.join(tree, rel)  # noqa: E731
    turns = [
        {"tool": {"name": "read", "arguments": {"filePath": p("packages/api/src/handler.ts")}}},
        {"tool": {"name": "read", "arguments": {"filePath": p("packages/web/src/ui/button.tsx")}}},
        {"tool": {"name": "read", "arguments": {"filePath": p("packages/api/src/handler.ts")}}},
        {"tool": {"name": "read", "arguments": {"filePath": os.path.join(base, "outside", "notes.txt")}}},
        {"text": "done"},
    ]
    log = os.path.join(base, "strace.log")
    # Reading outside the worktree needs opencode's permission, which `run`
    # otherwise refuses (the session would end there).
    allow = {"permission": {"external_directory": "allow"}}
    try:
        recs = oc.run(tree, p("packages/web"), home, prompt=PROMPT, script=turns, timeout=300,
                      env={"OPENCODE_CONFIG_CONTENT": json.dumps(allow)}, wrap=[*hk.STRACE, "-o", log],
                      keep=keep)
    except oc.RunError as e:
        c.check("opencode run goes to the end with agentspine's plugin", False, str(e))
        return c
    reqs = oc.main_requests(recs)
    c.check("the model was asked 5 times (4 tool calls, then the answer)", len(reqs) == 5, str(len(reqs)))
    if len(reqs) != 5:
        return c
    texts = [harness.text_of(r) for r in reqs]
    first, after_api, after_ui, after_again, last = texts
    system = oc.system_prompt(reqs[0])
    users = [m for m in reqs[0]["body"]["messages"] if m.get("role") == "user"]
    user_text = "\n".join(t for m in users for t in harness.text_items(m.get("content")))

    tools = [t.get("function", {}).get("name", "") for t in reqs[0]["body"]["tools"]]
    c.check("opencode offers the MCP server's tools (install registered it in opencode.json)",
            any(n.startswith("agentspine_") for n in tools), str(tools))
    c.check("opencode left the opencode.json install wrote as it was", open(config_path, "rb").read() == written)
    for marker, what in (("OC_ROOT_1a2", "the root's"), ("OC_WEB_3b4", "the start directory's")):
        c.check(f"opencode loads {what} AGENTS.md itself, and agentspine never repeats it",
                system.count(marker) == 1 and last.count(marker) == 1,
                f"system {system.count(marker)}, last request {last.count(marker)}")
    c.check("the session start's context reaches the first request once, in the user message",
            first.count(REPORT) == 1 and REPORT in user_text and REPORT not in system, user_text[-2000:])
    c.check("the file of the path the prompt names reaches the first request once, in the user message",
            first.count("OC_DB_4k2") == 1 and "OC_DB_4k2" in user_text)
    c.check("read in the sibling packages/api: its AGENTS.md arrives with that tool's result",
            "OC_API_7d8" not in first and after_api.count("OC_API_7d8") == 1)
    c.check("read below the start directory: opencode appends the nested AGENTS.md itself, agentspine adds "
            "nothing more", "OC_UI_5c6" not in after_api and after_ui.count("OC_UI_5c6") == 1,
            str(after_ui.count("OC_UI_5c6")))
    c.check("a second read in packages/api does not repeat its file", after_again.count("OC_API_7d8") == 1,
            str(after_again.count("OC_API_7d8")))
    c.check("a read outside the project root adds nothing from there, nor from above the git root",
            all("OC_OUT_2f3" not in t and "OC_ABOVE_9e0" not in t for t in texts))
    for marker, what in ((REPORT, "session start's"), ("OC_DB_4k2", "prompt's"), ("OC_API_7d8", "sibling's"),
                         ("OC_UI_5c6", "nested")):
        c.check(f"the {what} text is in the last request exactly once", last.count(marker) == 1,
                str(last.count(marker)))

    runs = hk.hook_runs(log, bin_)
    want = {"SessionStart": 1, "UserPromptSubmit": 1, "PreToolUse": 4, "SessionEnd": 1}
    c.check("installed twice, the hook ran once per event (PreToolUse once per tool call)", runs == want,
            json.dumps(runs))

    # Where each text arrived: the first main request (0-based) holding it.
    arrived = {}
    for marker in (REPORT, "OC_DB_4k2", "OC_API_7d8", "OC_UI_5c6", "OC_ROOT_1a2", "OC_WEB_3b4"):
        arrived[marker] = next((i for i, t in enumerate(texts) if marker in t), None)
    print(f"opencode arrived in main request: {json.dumps(arrived)}")
    titles = [harness.text_of(r) for r in oc.side_requests(recs)]
    print(f"opencode title request(s) carrying agentspine's session text: "
          f"{sum(REPORT in t for t in titles)} of {len(titles)}")

    rc = harness.run([bin_, "uninstall", "opencode", "--json"], env=env)
    c.check("agentspine uninstall opencode after the session", rc.returncode == 0, rc.stdout + rc.stderr)
    left = sorted(os.listdir(os.path.join(config, "plugins")))
    c.check("uninstall takes out the plugin and the opencode.json it created",
            "agentspine.js" not in left and not os.path.exists(config_path), f"{left}, {os.listdir(config)}")
    return c


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agentspine", required=True)
    ap.add_argument("--keep", metavar="DIR", help="keep the raw requests and opencode's output in DIR")
    ap.add_argument("--work", metavar="DIR", help="build the project under DIR (kept)")
    a = ap.parse_args(argv)
    bin_ = harness.agentspine(a.agentspine, real=True)
    if shutil.which("strace") is None:
        print("opencode_plugin.py: strace is needed", file=sys.stderr)
        return 2
    try:
        oc.install()
    except oc.RunError as e:
        print(f"opencode_plugin.py: {e}", file=sys.stderr)
        return 2
    work = os.path.abspath(a.work) if a.work else tempfile.mkdtemp(prefix="agentspine-oc-plugin-")
    try:
        shutil.rmtree(os.path.join(work, "opencode"), ignore_errors=True)
        result = run(bin_, work, a.keep)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    return harness.summary([result])


if __name__ == "__main__":
    sys.exit(main())
