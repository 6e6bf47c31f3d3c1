#!/usr/bin/env python3
"""agentspine's pi extension (plugins/pi) inside the real pi 1.6 and pi 0.73.

    pi_extension.py --agentspine BIN [--host pi|pi-0.73 ...] [--keep DIR] [--work DIR]

For each pi (`pi` is 1.6, `pi-0.73` is 0.73; the extension asks `hook pi` or
`hook pi-0.73` by the version that loads it): a throwaway HOME and monorepo,
`agentspine install pi` run twice, then that pi headless (`pi -p`) inside its own network and PID namespace (capture.py)
against the mock model, which asks for four `read` calls by script.  pi runs
under `strace -f` so every start of `agentspine hook pi` is counted by the
event its payload names.

What is asserted, on the requests the model received:
- install: one extension file in the agent directory's `extensions/` with
  this binary's path written in, `mcpServers.agentspine` in its `mcp.json`,
  which pi 1.6 lists among its MCP servers (0.73 has no MCP client);
- what pi loads itself (the root's and the start directory's AGENTS.md, and
  the file above the git root, since pi walks to `/`) is in its system prompt
  and never repeated by agentspine;
- the memory fact marked `always` and the fact the prompt selects arrive in
  the first request, once; an unmarked fact never;
- `read` in the sibling packages/api: its AGENTS.md arrives with that
  tool's result, and a second read there does not repeat it;
- `read` below the start directory: pi loads nothing there itself, so the
  nested AGENTS.md arrives, once;
- in packages/api, pi 1.6 gets AGENTS.override.md and pi 0.73 the AGENTS.md
  beside it (each version's own winner), never both;
- `read` of a file outside the project root: nothing of its directory is
  added;
- each event ran the hook exactly once (PreToolUse once per tool call).

Prints one line per check and closes with `N passed, M failed`; exit 1 on any
failure.  Needs root (namespaces) and strace.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True

import capture as cap  # noqa: E402
import hooks as hk  # noqa: E402


def main_requests(recs: list) -> list:
    """pi's model requests that carry the conversation, in order."""
    return [r for r in recs if r["method"] == "POST" and r["path"].split("?")[0] == "/v1/chat/completions"
            and isinstance(r.get("body"), dict) and r["body"].get("tools")]


def system_text(req: dict) -> str:
    return "\n".join(t for m in req["body"].get("messages") or [] if m.get("role") in ("system", "developer")
                     for t in cap._text_items(m.get("content")))


def run_pi(bin_: str, work: str, keep: str | None, host: str) -> hk.Checks:
    c = hk.Checks(host)
    base = os.path.join(work, host)
    tree = os.path.join(base, "tree")
    home = os.path.join(base, "home")
    agent_dir = os.path.join(home, ".pi", "agent")
    os.makedirs(agent_dir)
    hk.git_init(tree)
    hk.write(f"{base}/AGENTS.md", "Above the git root: PI_ABOVE_9e0.\n")
    hk.write(f"{base}/outside/AGENTS.md", "Outside the root: PI_OUT_2f3.\n")
    hk.write(f"{base}/outside/notes.txt", "outside notes\n")
    hk.write(f"{tree}/AGENTS.md", "Monorepo rules: PI_ROOT_1a2.\n")
    hk.write(f"{tree}/packages/web/AGENTS.md", "Web package rules: PI_WEB_3b4.\n")
    hk.write(f"{tree}/packages/web/src/ui/AGENTS.md", "UI folder rules: PI_UI_5c6.\n")
    hk.write(f"{tree}/packages/web/src/ui/button.tsx", "export const Button = 1;\n")
    hk.write(f"{tree}/packages/api/AGENTS.md", "API package rules: PI_API_7d8.\n")
    hk.write(f"{tree}/packages/api/AGENTS.override.md", "API override rules: PI_OVR_6h1.\n")
    hk.write(f"{tree}/packages/api/src/handler.ts", "export const a = 1;\n")
    mem = hk.claude_memory_dir(home, os.path.realpath(tree))
    hk.write(f"{mem}/MEMORY.md", "# Memory\n\n"
             "- [Style](style.md) <!-- agentspine:always -->\n"
             "- [Carbonara](pasta.md) <!-- agentspine:keywords=carbonara -->\n"
             "- [Scratch](scratch.md)\n")
    hk.write(f"{mem}/style.md", "Answer tersely. MEM_ALWAYS_4r8.\n")
    hk.write(f"{mem}/pasta.md", "Carbonara: no cream. MEM_PROMPT_9t2.\n")
    hk.write(f"{mem}/scratch.md", "Unmarked scratch note. MEM_NEVER_1x5.\n")

    env = cap.base_env()
    env["HOME"] = home
    env["PI_CODING_AGENT_DIR"] = agent_dir
    rc, out = hk.install(bin_, "pi", env)
    c.check(rc == 0, "agentspine install pi (twice)", out)
    if rc != 0:
        return c
    extensions = sorted(os.listdir(os.path.join(agent_dir, "extensions")))
    c.check(extensions == ["agentspine.js"], "the extensions directory holds one agentspine extension",
            str(extensions))
    text = open(os.path.join(agent_dir, "extensions", "agentspine.js"), encoding="utf-8").read()
    c.check(text.count(f"const AGENTSPINE = {json.dumps(bin_)};") == 1,
            "the installed extension runs this agentspine binary")
    servers = json.load(open(os.path.join(agent_dir, "mcp.json"))).get("mcpServers", {})
    c.check(list(servers) == ["agentspine"] and servers["agentspine"].get("args") == ["mcp"],
            "mcp.json holds the agentspine MCP server", json.dumps(servers))

    p = lambda rel: os.path.join(tree, rel)  # noqa: E731
    turns = [
        {"tool": {"name": "read", "arguments": {"path": p("packages/api/src/handler.ts")}}},
        {"tool": {"name": "read", "arguments": {"path": p("packages/web/src/ui/button.tsx")}}},
        {"tool": {"name": "read", "arguments": {"path": p("packages/api/src/handler.ts")}}},
        {"tool": {"name": "read", "arguments": {"path": os.path.join(base, "outside", "notes.txt")}}},
        {"text": "done"},
    ]
    script = os.path.join(base, "script.json")
    json.dump(turns, open(script, "w"))
    log = os.path.join(base, "strace.log")
    try:
        recs = cap.run_host(host, tree, p("packages/web"), home, script=script,
                            prompt="Fix the carbonara handler.", wrap=[*hk.STRACE, "-o", log],
                            keep=os.path.join(keep, host) if keep else None)
    except cap.CaptureError as e:
        c.check(False, "pi -p runs to the end with agentspine's extension", str(e))
        return c
    reqs = main_requests(recs)
    c.check(len(reqs) == 5, "the model was asked 5 times (4 tool calls, then the answer)", str(len(reqs)))
    if len(reqs) != 5:
        return c
    texts = [hk.text_of(r) for r in reqs]
    first, after_api, after_ui, after_again, last = texts
    system = system_text(reqs[0])
    for marker, what in (("PI_ROOT_1a2", "the root's"), ("PI_WEB_3b4", "the start directory's"),
                         ("PI_ABOVE_9e0", "the above-the-git-root")):
        c.check(system.count(marker) == 1 and last.count(marker) == 1,
                f"pi loads {what} AGENTS.md itself, and agentspine never repeats it",
                f"system {system.count(marker)}, last request {last.count(marker)}")
    if host == "pi":
        c.check("\n- mcp__agentspine (" in system, "pi lists the MCP server install registered in mcp.json")
    c.check(first.count("MEM_ALWAYS_4r8") == 1 and "MEM_ALWAYS_4r8" not in system,
            "the `always` memory fact reaches the first request once, from agentspine")
    c.check(first.count("MEM_PROMPT_9t2") == 1, "the fact the prompt's words select reaches the first request once")
    c.check(all("MEM_NEVER_1x5" not in t for t in texts), "an unmarked fact is never sent")
    api, other = ("PI_OVR_6h1", "PI_API_7d8") if host == "pi" else ("PI_API_7d8", "PI_OVR_6h1")
    c.check(api not in first and after_api.count(api) == 1 and all(other not in t for t in texts),
            f"read in the sibling packages/api: its {'AGENTS.override.md' if host == 'pi' else 'AGENTS.md'} "
            "arrives with that tool's result, never the file beside it")
    c.check("PI_UI_5c6" not in after_api and after_ui.count("PI_UI_5c6") == 1,
            "read below the start directory: the nested AGENTS.md pi never loads arrives")
    c.check(after_again.count(api) == 1, "a second read in packages/api does not repeat its file",
            str(after_again.count(api)))
    c.check(all("PI_OUT_2f3" not in t for t in texts), "a read outside the project root adds nothing from there")
    for marker, what in ((api, "sibling's"), ("PI_UI_5c6", "nested"),
                         ("MEM_ALWAYS_4r8", "always fact's"), ("MEM_PROMPT_9t2", "prompt fact's")):
        c.check(last.count(marker) == 1, f"the {what} text is in the last request exactly once",
                str(last.count(marker)))
    runs = hk.hook_runs(log, bin_)
    want = {"SessionStart": 1, "UserPromptSubmit": 1, "PreToolUse": 4, "SessionEnd": 1}
    c.check(runs == want, "installed twice, the hook ran once per event (PreToolUse once per tool call)",
            json.dumps(runs))
    return c


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agentspine", required=True)
    ap.add_argument("--host", action="append", choices=cap.PI_HOSTS)
    ap.add_argument("--keep", metavar="DIR", help="keep the raw requests in DIR/<host>/")
    ap.add_argument("--work", metavar="DIR", help="build the project under DIR (kept)")
    a = ap.parse_args(argv)
    bin_ = os.path.realpath(a.agentspine)
    if shutil.which("strace") is None:
        print("pi_extension.py: strace is needed", file=sys.stderr)
        return 2
    try:
        cap.client_bins()
    except cap.CaptureError as e:
        print(f"pi_extension.py: {e}", file=sys.stderr)
        return 2
    work = os.path.abspath(a.work) if a.work else tempfile.mkdtemp(prefix="agentspine-pi-ext-")
    results = []
    try:
        for host in a.host or cap.PI_HOSTS:
            shutil.rmtree(os.path.join(work, host), ignore_errors=True)
            results.append(run_pi(bin_, work, a.keep, host))
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    passed = sum(r.passed for r in results)
    failed = sum(r.failed for r in results)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
