#!/usr/bin/env python3
"""agentspine's hooks inside the real Gemini CLI (0.61).

    hooks_gemini.py --agentspine BIN [--keep DIR] [--work DIR]

A throwaway HOME and monorepo, `agentspine install gemini` run twice, then
`gemini -p` headless inside its own network and PID namespace (capture.py)
against the mock model, which asks for Gemini's path tools by script.  The
CLI runs under `strace -f` so every start of `agentspine hook` is counted by
the event its payload names (hooks.py's counter).

Started in packages/web of a git monorepo; asserted on the requests:
- settings.json holds one agentspine hook per event and the MCP server;
  Gemini lists the server's tools;
- SessionStart's sourceResolution report reaches the first request once;
- read_file below the start directory: Gemini appends that directory's
  GEMINI.md to the result itself, and agentspine adds nothing;
- grep_search in a folder below it (Gemini loads nothing for grep): its
  GEMINI.md arrives with that result, once;
- read_file in the sibling packages/api: outside Gemini's workspace, the
  path is refused before any hook runs, so neither Gemini nor agentspine
  sends that package's GEMINI.md;
- the files Gemini loaded at start are never repeated; nothing from
  outside the project root is sent;
- installed twice, the hook ran once per event (AfterTool once per path
  tool that ran).

Prints one line per check and closes with `N passed, M failed`.
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
import hooks as h  # noqa: E402

EVENTS = ("SessionStart", "BeforeAgent", "AfterTool", "SessionEnd")


def run_gemini(bin_: str, work: str, keep: str | None) -> harness.Tally:
    c = harness.Tally("gemini")
    tree = os.path.join(work, "gemini", "tree")
    home = os.path.join(work, "gemini", "home")
    os.makedirs(home)
    h.git_init(tree)
    w = lambda rel, text: harness.write(os.path.join(tree, rel), text)  # noqa: E731
    w("GEMINI.md", "Monorepo rules: GM_ROOT_4d1.\n")
    w("packages/web/GEMINI.md", "Web package rules: GM_WEB_8s2.\n")
    w("packages/web/src/ui/GEMINI.md", "UI folder rules: GM_UI_3j7.\n")
    w("packages/web/src/ui/button.tsx", "export const Button = 1;\n")
    w("packages/web/src/lib/GEMINI.md", "Lib folder rules: GM_LIB_6v0.\n")
    w("packages/web/src/lib/util.ts", "export const u = 1;\n")
    w("packages/api/GEMINI.md", "API package rules: GM_API_1q9.\n")
    w("packages/api/src/handler.ts", "export const a = 1;\n")
    harness.write(os.path.join(work, "gemini", "outside", "GEMINI.md"), "Outside the root: GM_OUT_5z5.\n")

    env = cap.base_env()
    env["HOME"] = home
    rc, out = h.install(bin_, "gemini", env)
    c.check("agentspine install gemini (twice)", rc == 0, out)
    settings = json.load(open(os.path.join(home, ".gemini", "settings.json")))
    counts = h.our_hooks(settings, "gemini")
    c.check("settings.json holds one agentspine hook per event", counts == {e: 1 for e in EVENTS},
            json.dumps(counts))
    c.check("settings.json registers the MCP server", "agentspine" in (settings.get("mcpServers") or {}))

    p = lambda rel: os.path.join(tree, rel)  # noqa: E731
    turns = [
        {"tool": {"name": "read_file", "args": {"file_path": p("packages/web/src/ui/button.tsx")}}},
        {"tool": {"name": "grep_search", "args": {"pattern": "export", "dir_path": p("packages/web/src/lib")}}},
        {"tool": {"name": "read_file", "args": {"file_path": p("packages/api/src/handler.ts")}}},
        {"text": "done"},
    ]
    script = os.path.join(work, "gemini", "script.json")
    json.dump(turns, open(script, "w"))
    log = os.path.join(work, "gemini", "strace.log")
    cwd = p("packages/web")
    try:
        recs = cap.run_host("gemini", tree, cwd, home, script=script, prompt="Look at the button.",
                            extra_args=["--approval-mode", "yolo"], wrap=[*h.STRACE, "-o", log],
                            keep=os.path.join(keep, "gemini") if keep else None, timeout=90)
    except cap.CaptureError as e:
        c.check("gemini -p runs to the end with agentspine's hooks", False, str(e))
        return c
    reqs = harness.requests(recs, "streamGenerateContent", main=True)
    texts = [harness.text_of(r) for r in reqs]
    c.check("the model was asked 4 times (3 tool calls, then the answer)", len(reqs) == 4, str(len(reqs)))
    if len(reqs) != 4:
        return c
    first, after_read, after_grep, last = texts
    names = harness.tool_names(reqs[0])
    c.check("Gemini lists the MCP server's tools",
            any(n.endswith("session_briefing") for n in names),
            ", ".join(n for n in names if "agentspine" in n or "session" in n))
    c.check("SessionStart: the sourceResolution report reaches the first request once",
            first.count("[agentspine sourceResolution]") == 1)
    c.check("read_file below the start directory: Gemini loads that GEMINI.md itself, agentspine adds nothing",
            "GM_UI_3j7" not in first and after_read.count("GM_UI_3j7") == 1,
            str(after_read.count("GM_UI_3j7")))
    c.check("grep_search in a folder below: its GEMINI.md arrives with that result, once",
            "GM_LIB_6v0" not in after_read and after_grep.count("GM_LIB_6v0") == 1,
            str(after_grep.count("GM_LIB_6v0")))
    c.check("read_file in the sibling package is refused before any hook: its GEMINI.md is never sent",
            all("GM_API_1q9" not in t for t in texts))
    for marker, what in (("GM_ROOT_4d1", "root"), ("GM_WEB_8s2", "start directory's"),
                         ("GM_UI_3j7", "JIT-loaded"), ("GM_LIB_6v0", "grep folder's")):
        c.check(f"the {what} GEMINI.md is in the last request exactly once", last.count(marker) == 1,
                str(last.count(marker)))
    c.check("nothing from outside the project root is sent", all("GM_OUT_5z5" not in t for t in texts))
    runs = h.hook_runs(log, bin_)
    want = {"SessionStart": 1, "BeforeAgent": 1, "AfterTool": 2, "SessionEnd": 1}
    c.check("installed twice, the hook ran once per event (AfterTool once per path tool run)", runs == want,
            json.dumps(runs))
    _, report = harness.run_json([bin_, "doctor", "--host", "gemini", "--cwd", tree, "--json"], env=env)
    report = report or {}
    c.check("doctor --host gemini: hooks once per event, server registered",
            report.get("install", {}).get("ok") is True, json.dumps(report.get("install", {}).get("summary")))
    return c


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agentspine", required=True)
    ap.add_argument("--keep", metavar="DIR")
    ap.add_argument("--work", metavar="DIR")
    a = ap.parse_args(argv)
    bin_ = harness.agentspine(a.agentspine, real=True)
    if shutil.which("strace") is None:
        print("hooks_gemini.py: strace is needed", file=sys.stderr)
        return 2
    try:
        cap.client_bins()
    except cap.CaptureError as e:
        print(f"hooks_gemini.py: {e}", file=sys.stderr)
        return 2
    work = os.path.abspath(a.work) if a.work else tempfile.mkdtemp(prefix="agentspine-hooks-gemini-")
    try:
        shutil.rmtree(os.path.join(work, "gemini"), ignore_errors=True)
        result = run_gemini(bin_, work, a.keep)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    return result.summary()


if __name__ == "__main__":
    sys.exit(main())
