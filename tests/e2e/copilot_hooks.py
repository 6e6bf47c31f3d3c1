#!/usr/bin/env python3
"""agentspine's hooks inside the real GitHub Copilot CLI 1.0.102.

    copilot_hooks.py --agentspine BIN [--keep DIR] [--work DIR]

A throwaway HOME holding a `~/.copilot/mcp-config.json` and a hook file of
the user's own, and a git monorepo with a root AGENTS.md and nested package
AGENTS.md files (one a link to a file outside the tree); `agentspine install
copilot` run twice (the hooks in `~/.copilot/hooks/agentspine.json`, the MCP
server in `mcp-config.json`), then `copilot -p` headless in its own network
and PID namespace (copilot.py) against the mock model, started at the root.
The prompt names a deep file of packages/web; the mock model asks for, in
order: `bash cat` of a file in packages/api, `view` of the deep file, `bash
cat` of the deep file, `bash cat` of another file in packages/api, `bash
cat` of a file in packages/linked (whose AGENTS.md links out of the tree),
`create` of a file in packages/db, `edit` of a file in packages/cli, then
answers.

What is asserted, on the requests the model received (COPILOT-MEASURED.md
says where each hook's context lands):
- install: one agentspine hook per event (sessionStart,
  userPromptSubmitted, postToolUse, sessionEnd) running this binary, the
  user's own hook file untouched, `mcpServers.agentspine` beside the user's
  server; Copilot offers the server's tools (`agentspine-*`);
- the session start's context (the sourceResolution report) is a `user`
  message of its own before the prompt's, once, and stays once;
- the prompt naming the deep file adds nothing to the prompt's message:
  Copilot's `view` loads the nested files of a file it reads;
- Copilot loads the root's AGENTS.md itself (system message) and agentspine
  never repeats it;
- `bash cat` in packages/api: agentspine appends that package's AGENTS.md
  to the tool's result, byte for byte, in Copilot's postToolUse frame, and
  nothing else there;
- `view` of the deep file: Copilot adds packages/web's and the ui folder's
  AGENTS.md itself (its `<system_reminder>`), agentspine adds nothing to
  that tool result, nor to the `bash cat` of the same file after it;
- the second `bash cat` in packages/api adds nothing (sent once);
- `create` in packages/db and `edit` in packages/cli: each package's
  AGENTS.md is appended to that tool's result, byte for byte, in the same
  frame;
- the linked AGENTS.md (a link out of the tree) never reaches the model,
  nor does anything from outside the tree or above it;
- every nested text is in the last request exactly once;
- `agentspine uninstall copilot` after the session gives back the user's
  `mcp-config.json` byte for byte, removes the hook file install created,
  and leaves the user's own hook file as it was.

Prints one line per check and closes with `N passed, M failed`; exit 1 on
any failure. Needs root (namespaces) and npm (copilot.install).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True

import copilot  # noqa: E402
import harness  # noqa: E402
import hooks as hk  # noqa: E402

REPORT = "[agentspine sourceResolution]"
DEEP = "packages/web/src/ui/button.tsx"
PROMPT = f"Fix the button in {DEEP}."
EVENTS = ["sessionStart", "userPromptSubmitted", "postToolUse", "sessionEnd"]
# Texts with characters Copilot might escape (it escapes none in hook output).
TEXTS = {
    "AGENTS.md": "Monorepo rules: CP_ROOT_1a2.\n",
    "packages/web/AGENTS.md": "Web package rules: CP_WEB_3b4.\n",
    "packages/web/src/ui/AGENTS.md": "UI folder rules: CP_UI_5c6.\n",
    "packages/api/AGENTS.md": "API package rules: CP_API_7d8.\n\nKeep <Handler> & \"quotes\" as 'is'.\n",
    "packages/db/AGENTS.md": "DB package rules: CP_DB_4k2.\n",
    "packages/cli/AGENTS.md": "CLI package rules: CP_CLI_6m1.\n",
}
OUTSIDE = "Outside the tree: CP_OUT_2f3.\n"
ABOVE = "Above the git root: CP_ABOVE_9e0.\n"
USER_MCP = '{\n    "mcpServers": {}\n}'
USER_HOOKS = '{"version": 1, "hooks": {"agentStop": [{"type": "command", "bash": "true"}]}}\n'


def heading(rel: str) -> str:
    return f"Custom instructions from {rel}. Apply these to any code you write here:"


def run(bin_: str, work: str, keep: str | None) -> harness.Tally:
    c = harness.Tally("copilot")
    base = os.path.join(work, "copilot")
    tree = os.path.join(base, "tree")
    home = os.path.join(base, "home")
    dot = os.path.join(home, ".copilot")
    hk.git_init(tree)
    harness.write_tree(base, {
        "AGENTS.md": ABOVE,
        "outside/AGENTS.md": OUTSIDE,
    })
    harness.write_tree(tree, dict(TEXTS, **{
        DEEP: "export const Button = 1;\n",
        "packages/api/src/handler.ts": "export const handler = 1;\n",
        "packages/api/src/routes.ts": "export const routes = 2;\n",
        "packages/linked/src/x.ts": "export const x = 3;\n",
        "packages/cli/src/main.ts": "export const main = \"hello\";\n",
        "packages/db/src/schema.sql": "create table t (id int);\n",
    }))
    os.symlink(os.path.join(base, "outside", "AGENTS.md"), os.path.join(tree, "packages/linked/AGENTS.md"))
    harness.write(os.path.join(dot, "mcp-config.json"), USER_MCP)
    harness.write(os.path.join(dot, "hooks", "mine.json"), USER_HOOKS)

    env = copilot.base_env()
    env["HOME"] = home
    rc, out = hk.install(bin_, "copilot", env)
    c.check("agentspine install copilot (twice)", rc == 0, out)
    if rc != 0:
        return c
    report = harness.parse_json(out, {})
    c.check("the second install changes no file",
            [f["change"] for f in report.get("files", [])] == ["unchanged", "unchanged"], out)
    hook_path = os.path.join(dot, "hooks", "agentspine.json")
    hook_file = json.load(open(hook_path, encoding="utf-8"))
    command = f"{bin_} hook copilot"
    want = {"version": 1, "hooks": {e: [{"type": "command", "bash": command, "timeoutSec": 10}] for e in EVENTS}}
    c.check("~/.copilot/hooks/agentspine.json holds one hook per event, running this binary", hook_file == want,
            json.dumps(hook_file))
    c.check("the user's own hook file is untouched",
            open(os.path.join(dot, "hooks", "mine.json"), encoding="utf-8").read() == USER_HOOKS)
    mcp_path = os.path.join(dot, "mcp-config.json")
    servers = json.load(open(mcp_path, encoding="utf-8")).get("mcpServers")
    c.check("mcp-config.json registers the agentspine MCP server",
            servers == {"agentspine": {"type": "local", "command": bin_, "args": ["mcp"], "tools": ["*"]}},
            json.dumps(servers))

    written_mcp, written_hooks = open(mcp_path, "rb").read(), open(hook_path, "rb").read()
    p = lambda rel: os.path.join(tree, rel)  # noqa: E731

    def cat(rel):
        return {"tool": {"name": "bash", "arguments": {"command": f"cat {p(rel)}", "description": "cat"}}}
    turns = [
        cat("packages/api/src/handler.ts"),
        {"tool": {"name": "view", "arguments": {"path": p(DEEP)}}},
        cat(DEEP),
        cat("packages/api/src/routes.ts"),
        cat("packages/linked/src/x.ts"),
        {"tool": {"name": "create", "arguments": {"path": p("packages/db/src/new.sql"), "file_text": "create table n;\n"}}},
        {"tool": {"name": "edit", "arguments": {"path": p("packages/cli/src/main.ts"), "old_str": "hello",
                                                "new_str": "bye"}}},
        {"text": "done"},
    ]
    try:
        recs = copilot.run(tree, tree, home, PROMPT, turns, timeout=240, keep=keep)
    except copilot.CopilotError as e:
        c.check("copilot -p goes to the end with agentspine's hooks", False, str(e))
        return c
    reqs = copilot.main_requests(recs)
    c.check("the model was asked 8 times (7 tool calls, then the answer)", len(reqs) == 8, str(len(reqs)))
    if len(reqs) != 8:
        return c
    texts = [harness.text_of(r) for r in reqs]
    first, last = reqs[0]["body"]["messages"], reqs[-1]["body"]["messages"]
    tools = [t.get("function", {}).get("name", "") for t in reqs[0]["body"].get("tools") or []]
    c.check("Copilot offers the MCP server's tools (install registered it in mcp-config.json)",
            any(n.startswith("agentspine-") for n in tools), str(tools))

    def content(m):
        return "".join(harness.text_items(m.get("content")))
    system = content(first[0])
    # The session start's context: a user message of its own before the prompt's.
    users = [content(m) for m in first if m.get("role") == "user"]
    c.check("the first request holds two user messages: agentspine's session start, then the prompt",
            len(users) == 2, json.dumps(users)[:2000])
    if len(users) != 2:
        return c
    start, prompt = users
    shape = re.compile(re.escape(f"{REPORT}\n\nhost copilot; root {tree} (project); sources project 1; profile ")
                       + r"[0-9a-f]{16}; reason none")
    c.check("the session start's context is the sourceResolution report, as a message of its own",
            shape.fullmatch(start), start)
    c.check("the prompt's message is Copilot's own, nothing appended (Copilot's view loads the deep file's "
            "nested files)", re.fullmatch(r"<current_datetime>[^<]*</current_datetime>\n\n" + re.escape(PROMPT),
                                          prompt), prompt)
    root_text = TEXTS["AGENTS.md"]
    c.check("Copilot loads the root's AGENTS.md itself, in its system message",
            system.count(f"<custom_instruction>\n{root_text}\n</custom_instruction>") == 1, system[-1500:])
    c.check("agentspine never repeats the root's AGENTS.md",
            all(t.count("CP_ROOT_1a2") == 1 for t in texts), [t.count("CP_ROOT_1a2") for t in texts])

    # The last request's messages after the system message, in order.
    roles = [m.get("role") for m in last[1:]]
    c.check("the last request: the session start, the prompt, then each call and its result (the view's "
            "followed by Copilot's reminder)",
            roles == ["user", "user"] + ["assistant", "tool"] * 2 + ["user"] + ["assistant", "tool"] * 5, roles)
    results = [content(m) for m in last if m.get("role") == "tool"]
    if len(results) != 7:
        return c
    api_rel = "packages/api/AGENTS.md"
    frame = 'Tool "bash" succeeded. Additional guidance from postToolUse hooks:\n'
    api_context = f"{heading(api_rel)}\n\n{TEXTS[api_rel].strip()}"

    def shell(text, n):
        return f"{text}<shellId: {n} completed with exit code 0>"
    c.check("bash cat in packages/api: its AGENTS.md, and nothing else, is appended to the tool's result, byte "
            "for byte, in Copilot's postToolUse frame",
            results[0] == shell("export const handler = 1;\n", 0) + f"\n\n{frame}{api_context}", results[0])
    c.check("view of the deep file: agentspine adds nothing to its result",
            results[1] == "export const Button = 1;\n", results[1])
    web, ui = "packages/web/AGENTS.md", "packages/web/src/ui/AGENTS.md"
    reminder = "".join(f"\n<system_reminder>\n{heading(rel)}\n\n{TEXTS[rel]}\n</system_reminder>" for rel in (ui, web))
    reminders = [text for _, text in copilot.reminders(recs)]
    c.check("view of the deep file: Copilot adds the ui folder's and packages/web's AGENTS.md itself, once",
            reminders == [reminder], json.dumps(reminders))
    c.check("bash cat of the deep file after the view: agentspine adds nothing (Copilot has them)",
            results[2] == shell("export const Button = 1;\n", 1), results[2])
    c.check("the second bash cat in packages/api adds nothing (its AGENTS.md was sent)",
            results[3] == shell("export const routes = 2;\n", 2), results[3])
    c.check("bash cat in packages/linked (its AGENTS.md links out of the tree): nothing is added",
            results[4] == shell("export const x = 3;\n", 3), results[4])
    db, cli = "packages/db/AGENTS.md", "packages/cli/AGENTS.md"
    for i, (tool, rel, result) in enumerate((("create", db, f"Created file {p('packages/db/src/new.sql')} with 16 characters"),
                                             ("edit", cli, f"File {p('packages/cli/src/main.ts')} updated with changes."))):
        guidance = f'Tool "{tool}" succeeded. Additional guidance from postToolUse hooks:\n{heading(rel)}\n\n{TEXTS[rel].strip()}'
        c.check(f"{tool} in {os.path.dirname(rel)}: its AGENTS.md, and nothing else, is appended to the tool's "
                "result, byte for byte", results[5 + i] == f"{result}\n\n{guidance}", results[5 + i])
    c.check("nothing from outside the tree or above the git root reaches any request",
            all("CP_OUT_2f3" not in t and "CP_ABOVE_9e0" not in t for t in texts))
    c.check("the session start's report is in every request once", all(t.count(REPORT) == 1 for t in texts),
            [t.count(REPORT) for t in texts])
    for marker, what in (("CP_API_7d8", "packages/api's"), ("CP_WEB_3b4", "packages/web's"),
                         ("CP_UI_5c6", "the ui folder's"), ("CP_DB_4k2", "packages/db's"),
                         ("CP_CLI_6m1", "packages/cli's")):
        c.check(f"{what} AGENTS.md is in the last request exactly once", texts[-1].count(marker) == 1,
                str(texts[-1].count(marker)))
    c.check("Copilot left the mcp-config.json and hook file install wrote as they were",
            open(mcp_path, "rb").read() == written_mcp and open(hook_path, "rb").read() == written_hooks)

    done = harness.run([bin_, "uninstall", "copilot", "--json"], env=env)
    c.check("agentspine uninstall copilot after the session", done.returncode == 0, done.stdout + done.stderr)
    c.check("uninstall gives back the user's mcp-config.json byte for byte",
            open(mcp_path, encoding="utf-8", newline="").read() == USER_MCP, open(mcp_path).read())
    c.check("uninstall removes the hook file install created", not os.path.exists(hook_path))
    c.check("the user's own hook file is still as it was",
            open(os.path.join(dot, "hooks", "mine.json"), encoding="utf-8").read() == USER_HOOKS)
    return c


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agentspine", required=True)
    ap.add_argument("--keep", metavar="DIR", help="keep the raw requests and Copilot's output in DIR")
    ap.add_argument("--work", metavar="DIR", help="build the project under DIR (kept)")
    a = ap.parse_args(argv)
    bin_ = harness.agentspine(a.agentspine, real=True)
    try:
        copilot.install()
    except copilot.CopilotError as e:
        print(f"copilot_hooks.py: {e}", file=sys.stderr)
        return 2
    work = os.path.abspath(a.work) if a.work else tempfile.mkdtemp(prefix="agentspine-copilot-hooks-")
    try:
        shutil.rmtree(os.path.join(work, "copilot"), ignore_errors=True)
        result = run(bin_, work, a.keep)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    return harness.summary([result])


if __name__ == "__main__":
    sys.exit(main())
