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

sys.dont_write_bytecode = True

import capture as cap  # noqa: E402
import harness  # noqa: E402
import hooks as hk  # noqa: E402


def run_pi(bin_: str, work: str, keep: str | None, host: str) -> harness.Tally:
    c = harness.Tally(host)
    base = os.path.join(work, host)
    tree = os.path.join(base, "tree")
    home = os.path.join(base, "home")
    agent_dir = os.path.join(home, ".pi", "agent")
    os.makedirs(agent_dir)
    hk.git_init(tree)
    harness.write_tree(base, {
        "AGENTS.md": "Above the git root: PI_ABOVE_9e0.\n",
        "outside/AGENTS.md": "Outside the root: PI_OUT_2f3.\n",
        "outside/notes.txt": "outside notes\n",
    })
    harness.write_tree(tree, {
        "AGENTS.md": "Monorepo rules: PI_ROOT_1a2.\n",
        "packages/web/AGENTS.md": "Web package rules: PI_WEB_3b4.\n",
        "packages/web/src/ui/AGENTS.md": "UI folder rules: PI_UI_5c6.\n",
        "packages/web/src/ui/button.tsx": "export const Button = 1;\n",
        "packages/api/AGENTS.md": "API package rules: PI_API_7d8.\n",
        "packages/api/AGENTS.override.md": "API override rules: PI_OVR_6h1.\n",
        "packages/api/src/handler.ts": "export const a = 1;\n",
    })
    harness.write_tree(hk.claude_memory_dir(home, os.path.realpath(tree)), {
        "MEMORY.md": "# Memory\n\n"
                     "- [Style](style.md) <!-- agentspine:always -->\n"
                     "- [Carbonara](pasta.md) <!-- agentspine:keywords=carbonara -->\n"
                     "- [Scratch](scratch.md)\n",
        "style.md": "Answer tersely. MEM_ALWAYS_4r8.\n",
        "pasta.md": "Carbonara: no cream. MEM_PROMPT_9t2.\n",
        "scratch.md": "Unmarked scratch note. MEM_NEVER_1x5.\n",
    })

    env = cap.base_env()
    env["HOME"] = home
    env["PI_CODING_AGENT_DIR"] = agent_dir
    rc, out = hk.install(bin_, "pi", env)
    c.check("agentspine install pi (twice)", rc == 0, out)
    if rc != 0:
        return c
    extensions = sorted(os.listdir(os.path.join(agent_dir, "extensions")))
    c.check("the extensions directory holds one agentspine extension", extensions == ["agentspine.js"],
            str(extensions))
    text = open(os.path.join(agent_dir, "extensions", "agentspine.js"), encoding="utf-8").read()
    c.check("the installed extension runs this agentspine binary",
            text.count(f"const AGENTSPINE = {json.dumps(bin_)};") == 1)
    servers = json.load(open(os.path.join(agent_dir, "mcp.json"))).get("mcpServers", {})
    c.check("mcp.json holds the agentspine MCP server",
            list(servers) == ["agentspine"] and servers["agentspine"].get("args") == ["mcp"], json.dumps(servers))

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
        c.check("pi -p runs to the end with agentspine's extension", False, str(e))
        return c
    reqs = harness.requests(recs, "chat/completions", main=True)
    c.check("the model was asked 5 times (4 tool calls, then the answer)", len(reqs) == 5, str(len(reqs)))
    if len(reqs) != 5:
        return c
    texts = [harness.text_of(r) for r in reqs]
    first, after_api, after_ui, after_again, last = texts
    system = harness.system_text(reqs[0])
    for marker, what in (("PI_ROOT_1a2", "the root's"), ("PI_WEB_3b4", "the start directory's"),
                         ("PI_ABOVE_9e0", "the above-the-git-root")):
        c.check(f"pi loads {what} AGENTS.md itself, and agentspine never repeats it",
                system.count(marker) == 1 and last.count(marker) == 1,
                f"system {system.count(marker)}, last request {last.count(marker)}")
    if host == "pi":
        c.check("pi lists the MCP server install registered in mcp.json", "\n- mcp__agentspine (" in system)
    c.check("the `always` memory fact reaches the first request once, from agentspine",
            first.count("MEM_ALWAYS_4r8") == 1 and "MEM_ALWAYS_4r8" not in system)
    c.check("the fact the prompt's words select reaches the first request once", first.count("MEM_PROMPT_9t2") == 1)
    c.check("an unmarked fact is never sent", all("MEM_NEVER_1x5" not in t for t in texts))
    api, other = ("PI_OVR_6h1", "PI_API_7d8") if host == "pi" else ("PI_API_7d8", "PI_OVR_6h1")
    c.check(f"read in the sibling packages/api: its {'AGENTS.override.md' if host == 'pi' else 'AGENTS.md'} "
            "arrives with that tool's result, never the file beside it",
            api not in first and after_api.count(api) == 1 and all(other not in t for t in texts))
    c.check("read below the start directory: the nested AGENTS.md pi never loads arrives",
            "PI_UI_5c6" not in after_api and after_ui.count("PI_UI_5c6") == 1)
    c.check("a second read in packages/api does not repeat its file", after_again.count(api) == 1,
            str(after_again.count(api)))
    c.check("a read outside the project root adds nothing from there", all("PI_OUT_2f3" not in t for t in texts))
    for marker, what in ((api, "sibling's"), ("PI_UI_5c6", "nested"),
                         ("MEM_ALWAYS_4r8", "always fact's"), ("MEM_PROMPT_9t2", "prompt fact's")):
        c.check(f"the {what} text is in the last request exactly once", last.count(marker) == 1,
                str(last.count(marker)))
    runs = hk.hook_runs(log, bin_)
    want = {"SessionStart": 1, "UserPromptSubmit": 1, "PreToolUse": 4, "SessionEnd": 1}
    c.check("installed twice, the hook ran once per event (PreToolUse once per tool call)", runs == want,
            json.dumps(runs))
    return c


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agentspine", required=True)
    ap.add_argument("--host", action="append", choices=cap.PI_HOSTS)
    ap.add_argument("--keep", metavar="DIR", help="keep the raw requests in DIR/<host>/")
    ap.add_argument("--work", metavar="DIR", help="build the project under DIR (kept)")
    a = ap.parse_args(argv)
    bin_ = harness.agentspine(a.agentspine, real=True)
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
    return harness.summary(results)


if __name__ == "__main__":
    sys.exit(main())
