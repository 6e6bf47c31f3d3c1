#!/usr/bin/env python3
"""agentspine's hooks inside the real Claude Code and Codex CLI.

    hooks.py --agentspine BIN [--host claude|codex ...] [--keep DIR]

For each host: a throwaway HOME and project, `agentspine install HOST` run
twice (as a user would after an upgrade), then the real CLI headless inside
its own network and PID namespace (capture.py) against the mock model, which
asks for file tools by script.  Each CLI runs under `strace -f` so every
start of `agentspine hook` is counted, by the event its payload names.

What is asserted, on the requests the model received:

claude  started in packages/web of a monorepo; the prompt names a fact.
        - configured (`session_start_agents_md = "skipped"`), the root
          AGENTS.md Claude Code skips beside a CLAUDE.md arrives, once;
        - the memory fact marked `always` and the fact the prompt's words
          select arrive before the first answer; a fact with no marker never;
        - Read of a file in the sibling packages/api: its CLAUDE.md arrives
          with that tool call's result (Claude Code loads nothing for a
          sibling), and after the Edit that follows it is there exactly once;
        - Write of a new file in packages/db: its CLAUDE.md arrives after it;
        - Read below the start directory: Claude Code loads that CLAUDE.md
          itself, and agentspine does not repeat it;
        - the files loaded at start appear once, never repeated by a hook;
        - a second session with a broken memory index (bad UTF-8, a link to
          a missing file, a link out of the directory, a linked fact that
          points outside) still completes, still gets the sibling's
          CLAUDE.md, and nothing from outside the memory directory.
plugin  plugins/claude loaded with `--plugin-dir`, nothing installed: the
        memory fact and a sibling's CLAUDE.md arrive, the MCP server connects,
        and each event runs the hook once.
marketplace  the same plugin installed as a user installs it: `claude plugin
        marketplace add <checkout>` (.claude-plugin/marketplace.json) and
        `claude plugin install agentspine@agentspine` into the throwaway HOME,
        offline; `doctor` names the plugin as the installed hook set; the
        same session checks as `plugin`; without agentspine on PATH each
        plugin hook exits 0 and SessionStart alone says how to get it.
agents  the AGENTS.md files Claude Code leaves out where the repository
        means them for it (no agentspine configuration: the default), in
        two layouts with the root AGENTS.md, packages/api/AGENTS.md and
        packages/web/AGENTS.md:
        - pointer (root CLAUDE.md is `See @AGENTS.md`), started at the root,
          Read packages/api/src/x.ts twice then packages/web/src/y.ts: each
          package's AGENTS.md arrives with the first Read that touches it,
          labelled `Contents of <abs path>:`, and never again; the root
          AGENTS.md Claude Code imports itself is not repeated;
        - pointer, started in packages/web (`--add-dir` the tree): the root
          AGENTS.md (its import dropped above the start directory) and
          packages/web/AGENTS.md arrive at session start, packages/api's
          after the Read of x.ts, each once;
        - link (root CLAUDE.md -> AGENTS.md), started at the root: the root
          text once (Claude Code's own, as CLAUDE.md), packages/api's once
          after its Read, packages/web's never (nothing touched it);
        - each event ran the hook once (PreToolUse once per tool call).
codex   started at the root; two apply_patch calls.
        - `doctor` reports the installed hooks untrusted (Codex would skip
          them), then trusted after `install codex --trust-hooks`; Codex runs
          with nothing but those trust records (no bypass flag), so the hooks
          running proves the records are the ones Codex computes. One hook
          then turned off (`enabled = false`) is reported disabled, and a
          second run skips exactly that one.
        - the nested AGENTS.md of both patched packages arrive after the first
          patch, as their own message, and once only; the root AGENTS.md Codex
          loaded itself is never repeated.
both    - after installing twice the settings hold one agentspine hook per
          event, and each event ran the hook exactly once (PreToolUse once per
          tool call).

Prints one line per check and closes with `N passed, M failed`; exit 1 on any
failure.  Needs root (namespaces) and strace.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True

import capture as cap  # noqa: E402
import harness  # noqa: E402
from harness import Tally, write  # noqa: E402

CLAUDE_EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "SessionEnd")
CODEX_EVENTS = ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostCompact", "SessionEnd")


# ------------------------------------------------------------------ trees
def git_init(tree: str):
    subprocess.run(["git", "init", "-q", tree], check=True)


def claude_memory_dir(home: str, root: str) -> str:
    """Claude Code's auto-memory directory for a git root (HOSTS.md)."""
    return os.path.join(home, ".claude", "projects", harness.claude_project_key(root), "memory")


def install(bin_: str, host: str, env: dict, *extra: str) -> tuple[int, str]:
    """`install HOST` twice. The binary under test may be in a cargo build
    directory, which install refuses to name unless told: --command says so."""
    out = ""
    for _ in range(2):
        p = harness.run([bin_, "install", host, "--json", "--command", os.path.abspath(bin_), *extra], env=env)
        if p.returncode != 0:
            return p.returncode, p.stdout + p.stderr
        out = p.stdout
    return 0, out


def our_hooks(settings: dict, host: str) -> dict:
    """How many agentspine hooks each event holds."""
    counts = {}
    for event, groups in (settings.get("hooks") or {}).items():
        for group in groups:
            for hook in group.get("hooks", []):
                if hook.get("command", "").endswith(f"agentspine hook {host}"):
                    counts[event] = counts.get(event, 0) + 1
    return counts


# ------------------------------------------------------------------ strace
def hook_runs(log: str, binary: str) -> dict:
    """Runs of `BINARY hook ...` in an `strace -f -e trace=execve,clone,clone3,read`
    log, counted by the `hook_event_name` of the payload each read on stdin."""
    parent_of = {}
    hook_pids = set()
    events_by_tid: dict[str, str] = {}
    lines = open(log, encoding="utf-8", errors="replace").read().splitlines()
    for line in lines:
        tid, _, rest = line.partition(" ")
        rest = rest.lstrip()
        m = re.match(r"(?:clone3?\(.*\)|<\.\.\. clone3? resumed>.*)\s+=\s+(\d+)$", rest)
        if m:
            parent_of[m.group(1)] = tid
        if rest.startswith(f'execve("{binary}", ') and '"hook"' in rest and "= 0" in rest.rsplit(")", 1)[-1]:
            hook_pids.add(tid)
        if (rest.startswith("read(0, ") or rest.startswith("<... read resumed>")) and "hook_event_name" in rest:
            m = re.search(r'\\"hook_event_name\\":\s*\\"(\w+)\\"', rest)
            if m and tid not in events_by_tid:
                events_by_tid[tid] = m.group(1)
    # `execve ... <unfinished ...>` lines: count by their resumption too.
    for line in lines:
        tid, _, rest = line.partition(" ")
        rest = rest.lstrip()
        if rest.startswith(f'execve("{binary}", ') and '"hook"' in rest and rest.endswith("<unfinished ...>"):
            hook_pids.add(tid)

    def process_of(tid: str) -> str | None:
        seen = set()
        while tid not in hook_pids:
            if tid in seen or tid not in parent_of:
                return None
            seen.add(tid)
            tid = parent_of[tid]
        return tid

    per_process: dict[str, str] = {}
    for tid, event in events_by_tid.items():
        pid = process_of(tid)
        if pid is not None:
            per_process.setdefault(pid, event)
    counts: dict[str, int] = {}
    for pid in hook_pids:
        event = per_process.get(pid, "<no payload read>")
        counts[event] = counts.get(event, 0) + 1
    return counts


STRACE = ["strace", "-f", "-qq", "-e", "trace=execve,clone,clone3,read", "-s", "4096"]


# ------------------------------------------------------------------ claude
def run_claude(bin_: str, work: str, keep: str | None) -> Tally:
    c = Tally("claude")
    tree = os.path.join(work, "claude", "tree")
    home = os.path.join(work, "claude", "home")
    os.makedirs(home)
    git_init(tree)
    write(f"{tree}/CLAUDE.md", "Monorepo rules: CL_ROOT_7f3.\n")
    # Beside a CLAUDE.md, Claude Code's default mode skips AGENTS.md; the
    # user's agentspine config asks for the skipped ones at session start.
    write(f"{tree}/AGENTS.md", "Shared agent rules: CL_AGENTS_6p1.\n")
    config = os.path.join(work, "claude", "agentspine.toml")
    write(config, "[claude]\nsession_start_agents_md = \"skipped\"\n")
    write(f"{tree}/packages/web/CLAUDE.md", "Web package rules: CL_WEB_2k9.\n")
    write(f"{tree}/packages/web/src/ui/CLAUDE.md", "UI folder rules: CL_UI_5m1.\n")
    write(f"{tree}/packages/web/src/ui/button.tsx", "export const Button = 1;\n")
    write(f"{tree}/packages/api/CLAUDE.md", "API package rules: CL_API_8q4.\n")
    write(f"{tree}/packages/api/src/handler.ts", "export const a = 1;\n")
    write(f"{tree}/packages/db/CLAUDE.md", "DB package rules: CL_DB_3w6.\n")
    write(f"{tree}/packages/db/src/schema.sql", "create table t (id int);\n")
    mem = claude_memory_dir(home, os.path.realpath(tree))
    write(f"{mem}/MEMORY.md", "# Memory\n\n"
          "- [Style](style.md) <!-- agentspine:always -->\n"
          "- [Carbonara](pasta.md) <!-- agentspine:keywords=carbonara -->\n"
          "- [Scratch](scratch.md)\n")
    write(f"{mem}/style.md", "Answer tersely. MEM_ALWAYS_4r8.\n")
    write(f"{mem}/pasta.md", "Carbonara: no cream. MEM_PROMPT_9t2.\n")
    write(f"{mem}/scratch.md", "Unmarked scratch note. MEM_NEVER_1x5.\n")

    env = cap.base_env()
    env["HOME"] = home
    rc, out = install(bin_, "claude", env)
    c.check("agentspine install claude (twice)", rc == 0, out)
    settings = json.load(open(os.path.join(home, ".claude", "settings.json")))
    counts = our_hooks(settings, "claude")
    c.check("settings.json holds one agentspine hook per event", counts == {e: 1 for e in CLAUDE_EVENTS},
            json.dumps(counts))

    p = lambda rel: os.path.join(tree, rel)  # noqa: E731
    turns = [
        {"tool": {"name": "Read", "input": {"file_path": p("packages/api/src/handler.ts")}}},
        {"tool": {"name": "Edit", "input": {"file_path": p("packages/api/src/handler.ts"),
                                            "old_string": "a = 1", "new_string": "a = 2"}}},
        {"tool": {"name": "Write", "input": {"file_path": p("packages/db/src/new.sql"),
                                             "content": "select 1;\n"}}},
        {"tool": {"name": "Read", "input": {"file_path": p("packages/web/src/ui/button.tsx")}}},
        {"text": "done"},
    ]
    script = os.path.join(work, "claude", "script.json")
    json.dump(turns, open(script, "w"))
    log = os.path.join(work, "claude", "strace.log")
    cwd = p("packages/web")
    args = ["--permission-mode", "acceptEdits", "--add-dir", tree]
    try:
        recs = cap.run_host("claude", tree, cwd, home, script=script, prompt="Fix the carbonara handler.",
                            env={"AGENTSPINE_CONFIG": config}, extra_args=args, wrap=[*STRACE, "-o", log],
                            keep=os.path.join(keep, "claude") if keep else None)
    except cap.CaptureError as e:
        c.check("claude -p runs to the end with agentspine's hooks", False, str(e))
        return c
    reqs = harness.requests(recs, "messages", main=True)
    texts = [harness.text_of(r) for r in reqs]
    c.check("the model was asked 5 times (4 tool calls, then the answer)", len(reqs) == 5, str(len(reqs)))
    if len(reqs) != 5:
        return c
    first, after_read, after_edit, after_write, last = texts
    c.check("the MCP server install registered is connected (its instructions are listed)",
            "\n## agentspine\nagentspine tells you" in first)
    c.check("configured: the AGENTS.md Claude Code skips beside a CLAUDE.md reaches the first request once",
            first.count("CL_AGENTS_6p1") == 1,
            str(first.count("CL_AGENTS_6p1")))
    c.check("the `always` memory fact reaches the first request", "MEM_ALWAYS_4r8" in first)
    c.check("the fact the prompt's words select reaches the first request", "MEM_PROMPT_9t2" in first)
    c.check("an unmarked fact is never sent", all("MEM_NEVER_1x5" not in t for t in texts))
    c.check("Read in the sibling packages/api: its CLAUDE.md arrives with that tool call",
            "CL_API_8q4" not in first and "CL_API_8q4" in after_read)
    c.check("after the Edit, packages/api/CLAUDE.md is there exactly once", after_edit.count("CL_API_8q4") == 1,
            str(after_edit.count("CL_API_8q4")))
    c.check("Write of a new file in packages/db: its CLAUDE.md arrives with that tool call",
            "CL_DB_3w6" not in after_edit and "CL_DB_3w6" in after_write)
    c.check("Read below the start directory: Claude Code's own load, not repeated by agentspine",
            last.count("CL_UI_5m1") == 1,
            str(last.count("CL_UI_5m1")))
    for marker, what in (("CL_ROOT_7f3", "root"), ("CL_AGENTS_6p1", "skipped AGENTS.md"),
                         ("CL_WEB_2k9", "start directory's"),
                         ("CL_API_8q4", "sibling's"), ("CL_DB_3w6", "new file's"),
                         ("MEM_ALWAYS_4r8", "always fact's"), ("MEM_PROMPT_9t2", "prompt fact's")):
        c.check(f"the {what} text is in the last request exactly once", last.count(marker) == 1,
                str(last.count(marker)))
    runs = hook_runs(log, bin_)
    want = {"SessionStart": 1, "UserPromptSubmit": 1, "PreToolUse": 4, "SessionEnd": 1}
    c.check("installed twice, the hook ran once per event (PreToolUse once per tool call)", runs == want,
            json.dumps(runs))
    with open(p("packages/api/src/handler.ts")) as f:
        c.check("the Edit went through (the hook never blocks)", f.read() == "export const a = 2;\n")

    # The MCP server Claude Code launched for this project, called by the
    # model with no extra flags: its own project resolves, a foreign
    # directory is refused (the server resolves only its launch's roots).
    foreign = os.path.join(work, "claude", "foreign")
    write(f"{foreign}/AGENTS.md", "Foreign project: FOREIGN_2z8.\n")
    turns = [{"tool": {"name": "mcp__agentspine__session_briefing",
                       "input": {"project_root": tree, "host": "claude", "cwd": cwd}}},
             {"tool": {"name": "mcp__agentspine__session_briefing", "input": {"project_root": foreign}}},
             {"text": "done"}]
    json.dump(turns, open(script, "w"))
    try:
        recs = cap.run_host("claude", tree, cwd, home, script=script, prompt="Which rules apply here?",
                            env={"AGENTSPINE_CONFIG": config},
                            extra_args=[*args, "--allowedTools", "mcp__agentspine__session_briefing"],
                            keep=os.path.join(keep, "claude-mcp") if keep else None)
    except cap.CaptureError as e:
        c.check("claude -p runs the MCP tool calls to the end", False, str(e))
        return c
    reqs = harness.requests(recs, "messages", main=True)
    c.check("the model was asked 3 times (2 MCP tool calls, then the answer)", len(reqs) == 3, str(len(reqs)))
    if len(reqs) == 3:
        own, refused = harness.text_of(reqs[1]), harness.text_of(reqs[2])
        c.check("Claude Code's MCP server: session_briefing for its own project returns the briefing, memory included",
                "CL_ROOT_7f3" in own and "MEM_ALWAYS_4r8" in own)
        c.check("Claude Code's MCP server: a foreign project_root is refused, nothing of it read",
                "not a root this server was started for" in refused and "FOREIGN_2z8" not in refused)

    # The same project with a broken memory index, in a new session.
    outside = os.path.join(work, "claude", "outside")
    write(f"{outside}/secret.md", "Outside the memory directory: SECRET_6h0.\n")
    write(f"{mem}/MEMORY.md", b"# Memory\n\n\xff\xfe not UTF-8 \xc3\x28\n"
          b"- [Gone](gone.md) <!-- agentspine:always -->\n"
          b"- [Escape](../../../../outside/secret.md) <!-- agentspine:always -->\n"
          b"- [Linked](linked.md) <!-- agentspine:always -->\n")
    os.symlink(f"{outside}/secret.md", f"{mem}/linked.md")
    turns = [{"tool": {"name": "Read", "input": {"file_path": p("packages/api/src/handler.ts")}}}, {"text": "done"}]
    json.dump(turns, open(script, "w"))
    try:
        recs = cap.run_host("claude", tree, cwd, home, script=script, prompt="Fix the carbonara handler.",
                            extra_args=args, keep=os.path.join(keep, "claude-broken") if keep else None)
    except cap.CaptureError as e:
        c.check("a broken memory index does not break the session", False, str(e))
        return c
    texts = [harness.text_of(r) for r in harness.requests(recs, "messages", main=True)]
    c.check("a broken memory index does not break the session", len(texts) == 2, str(len(texts)))
    c.check("with a broken index the sibling's CLAUDE.md still arrives", bool(texts) and "CL_API_8q4" in texts[-1])
    c.check("nothing from outside the memory directory is sent", all("SECRET_6h0" not in t for t in texts))
    return c


# ------------------------------------------------------------------ agents
def first_with(texts: list, marker: str) -> int | None:
    """The index of the first request that holds MARKER, or None."""
    return next((i for i, t in enumerate(texts) if marker in t), None)


def run_agents_md(bin_: str, work: str, keep: str | None) -> Tally:
    """AGENTS.md files delivered to Claude Code where the repository's
    CLAUDE.md imports AGENTS.md (pointer) or is a link to it (link), with no
    agentspine configuration.  Each request repeats the conversation so
    far, so a marker's count in the last request is how often it was sent
    in the whole session; the first request that holds it says when."""
    c = Tally("agents")
    base = os.path.join(work, "agents")
    markers = {"": "AG_ROOT_4h7", "packages/api/": "AG_API_8n2", "packages/web/": "AG_WEB_1s5"}

    def layout(name: str, link: bool) -> tuple[str, str]:
        tree = os.path.realpath(os.path.join(base, name, "tree"))
        home = os.path.join(base, name, "home")
        os.makedirs(home)
        git_init(tree)
        for rel, marker in markers.items():
            write(f"{tree}/{rel}AGENTS.md", f"Agent rules for /{rel}: {marker}.\n")
        if link:
            os.symlink("AGENTS.md", f"{tree}/CLAUDE.md")
        else:
            write(f"{tree}/CLAUDE.md", "See @AGENTS.md\n")
        write(f"{tree}/packages/api/src/x.ts", "export const x = 1;\n")
        write(f"{tree}/packages/web/src/y.ts", "export const y = 1;\n")
        env = cap.base_env()
        env["HOME"] = home
        rc, out = install(bin_, "claude", env)
        c.check(f"{name}: agentspine install claude (twice)", rc == 0, out)
        return tree, home

    def session(name: str, tree: str, home: str, cwd: str, reads: list, extra=()) -> list | None:
        """One `claude -p` run whose model Reads READS in turn; the texts
        of its requests, None (after a failed check) when it did not run."""
        turns = [{"tool": {"name": "Read", "input": {"file_path": os.path.join(tree, r)}}} for r in reads]
        script = os.path.join(base, f"{name}.script.json")
        json.dump([*turns, {"text": "done"}], open(script, "w"))
        log = os.path.join(base, f"{name}.strace.log")
        try:
            recs = cap.run_host("claude", tree, cwd, home, script=script, prompt="Look at the code.",
                                extra_args=list(extra), wrap=[*STRACE, "-o", log],
                                keep=os.path.join(keep, f"agents-{name}") if keep else None)
        except cap.CaptureError as e:
            c.check(f"{name}: claude -p runs to the end with agentspine's hooks", False, str(e))
            return None
        texts = [harness.text_of(r) for r in harness.requests(recs, "messages", main=True)]
        want = len(reads) + 1
        reads_said = f"{len(reads)} Read" + ("s" if len(reads) > 1 else "")
        c.check(f"{name}: the model was asked {want} times ({reads_said}, then the answer)", len(texts) == want,
                str(len(texts)))
        runs = hook_runs(log, bin_)
        runs_want = {"SessionStart": 1, "UserPromptSubmit": 1, "PreToolUse": len(reads), "SessionEnd": 1}
        c.check(f"{name}: the hook ran once per event (PreToolUse once per Read)", runs == runs_want,
                json.dumps(runs))
        return texts if len(texts) == want else None

    def once(name: str, texts: list, rel: str, at: int, what: str, labelled: str | None = None):
        """RELs AGENTS.md first reaches request AT and is sent once in all;
        LABELLED: the absolute path it must be labelled with."""
        marker = markers[rel]
        seen, count = first_with(texts, marker), texts[-1].count(marker)
        c.check(f"{name}: /{rel}AGENTS.md {what}", seen == at and count == 1,
                f"first in request {seen} (want {at}), {count} times in the last request")
        if labelled is not None:
            label = f"Contents of {labelled}:"
            c.check(f"{name}: /{rel}AGENTS.md is labelled `Contents of <abs path>:`", texts[-1].count(label) == 1,
                    f"{texts[-1].count(label)} times {label!r}")

    # Pointer: CLAUDE.md says `See @AGENTS.md`.
    tree, home = layout("pointer", link=False)
    api, web = os.path.join(tree, "packages/api/AGENTS.md"), os.path.join(tree, "packages/web/AGENTS.md")
    texts = session("pointer-root", tree, home, tree,
                    ["packages/api/src/x.ts", "packages/api/src/x.ts", "packages/web/src/y.ts"])
    if texts:
        once("pointer-root", texts, "", 0, "is Claude Code's own import, in the first request, never repeated")
        once("pointer-root", texts, "packages/api/", 1,
             "arrives with the first Read of x.ts, and not again after the second", api)
        once("pointer-root", texts, "packages/web/", 3, "arrives with the Read of y.ts, once", web)
    texts = session("pointer-web", tree, home, os.path.join(tree, "packages/web"), ["packages/api/src/x.ts"],
                    ["--add-dir", tree])
    if texts:
        c.check("pointer-web: Claude Code sends the pointer line itself (its import is dropped)",
                texts[0].count("See @AGENTS.md") == 1)
        once("pointer-web", texts, "", 0, "arrives at session start, once", os.path.join(tree, "AGENTS.md"))
        once("pointer-web", texts, "packages/web/", 0, "(the start directory's) arrives at session start, once",
             web)
        once("pointer-web", texts, "packages/api/", 1, "arrives with the Read of x.ts, once", api)

    # Link: CLAUDE.md -> AGENTS.md.
    tree, home = layout("link", link=True)
    texts = session("link-root", tree, home, tree, ["packages/api/src/x.ts"])
    if texts:
        once("link-root", texts, "", 0, "text is Claude Code's own (as CLAUDE.md), in the first request, once")
        once("link-root", texts, "packages/api/", 1, "arrives with the Read of x.ts, once",
             os.path.join(tree, "packages/api/AGENTS.md"))
        c.check("link-root: /packages/web/AGENTS.md is never sent (nothing touched packages/web)",
                all(markers["packages/web/"] not in t for t in texts))
    return c


# ------------------------------------------------------------------ plugin
def run_plugin(bin_: str, work: str, keep: str | None, label: str = "plugin") -> Tally:
    """plugins/claude loaded with `claude --plugin-dir` (label `plugin`), or
    installed from the checkout's marketplace with `claude plugin
    marketplace add` and `claude plugin install` (label `marketplace`)."""
    c = Tally(label)
    tree = os.path.join(work, label, "tree")
    home = os.path.join(work, label, "home")
    os.makedirs(home)
    git_init(tree)
    write(f"{tree}/CLAUDE.md", "Root rules: PL_ROOT_2a.\n")
    write(f"{tree}/app/CLAUDE.md", "App rules: PL_APP_7e.\n")
    write(f"{tree}/lib/CLAUDE.md", "Lib rules: PL_LIB_3c.\n")
    write(f"{tree}/lib/util.ts", "export const u = 1;\n")
    mem = claude_memory_dir(home, os.path.realpath(tree))
    write(f"{mem}/MEMORY.md", "- [Style](style.md) <!-- agentspine:always -->\n")
    write(f"{mem}/style.md", "Plugin memory fact: PL_MEM_9d.\n")
    plugin = os.path.join(os.path.dirname(os.path.dirname(HERE)), "plugins", "claude")
    turns = [{"tool": {"name": "Read", "input": {"file_path": os.path.join(tree, "lib/util.ts")}}},
             {"text": "done"}]
    script = os.path.join(work, label, "script.json")
    json.dump(turns, open(script, "w"))
    log = os.path.join(work, label, "strace.log")
    # The plugin's commands say `agentspine`: it must be on PATH.
    path = os.path.dirname(bin_) + ":" + cap.base_env()["PATH"]
    extra = ["--plugin-dir", plugin, "--add-dir", tree]
    if label == "marketplace":
        extra = ["--add-dir", tree]
        checkout = os.path.dirname(plugin.rstrip("/").rsplit("/", 1)[0])
        env = {**cap.base_env(), "HOME": home, "PATH": path}
        for argv in (["plugin", "marketplace", "add", checkout], ["plugin", "install", "agentspine@agentspine"]):
            r = harness.run(["unshare", "-n", "--", cap.client_bins()["CLAUDE_BIN"], *argv], env=env, timeout=120)
            c.check(f"claude {' '.join(argv[:3])} (offline, throwaway HOME)", r.returncode == 0, r.stdout + r.stderr)
            if r.returncode != 0:
                return c
        r = harness.run([bin_, "doctor", "--host", "claude", "--json"],
                        env={**env, "AGENTSPINE_STATE_DIR": os.path.join(work, label, "state")},
                        cwd=os.path.join(tree, "app"))
        try:
            install = json.loads(r.stdout)["install"]
        except (ValueError, KeyError):
            install = {}
        c.check("doctor: the installed plugin is the hook set, nothing else to install",
                install.get("plugin") == "agentspine@agentspine" and install.get("ok") is True,
                json.dumps(install)[:1500] + r.stderr)
        # Without agentspine on PATH, the plugin's SessionStart says so once.
        installed = os.path.join(home, ".claude", "plugins", "cache")
        hooks_json = [os.path.join(d, f) for d, _, fs in os.walk(installed) for f in fs if f == "hooks.json"]
        c.check("the marketplace copy of the plugin holds one hooks.json", len(hooks_json) == 1, str(hooks_json))
        if hooks_json:
            spec = json.load(open(hooks_json[0]))["hooks"]
            says = []
            for event, groups in spec.items():
                for hook in groups[0]["hooks"]:
                    r = harness.run(["sh", "-c", hook["command"]], env={"PATH": "/usr/bin:/bin", "HOME": home},
                                    input="{}", timeout=30)
                    says.append((event, r.returncode, r.stdout.strip()))
            messages = [json.loads(out)["systemMessage"] for _, _, out in says if out]
            c.check("without agentspine on PATH every plugin hook exits 0 and SessionStart alone says how to get it",
                    all(rc == 0 for _, rc, _ in says) and len(messages) == 1
                    and "npm install -g agentspine" in messages[0],
                    json.dumps(says))
    try:
        recs = cap.run_host("claude", tree, os.path.join(tree, "app"), home, script=script, env={"PATH": path},
                            extra_args=extra, wrap=[*STRACE, "-o", log],
                            keep=os.path.join(keep, label) if keep else None)
    except cap.CaptureError as e:
        c.check(f"claude -p with the plugin ({label}) runs to the end", False, str(e))
        return c
    texts = [harness.text_of(r) for r in harness.requests(recs, "messages", main=True)]
    c.check("the model was asked twice (a Read, then the answer)", len(texts) == 2, str(len(texts)))
    if len(texts) != 2:
        return c
    c.check("the plugin's SessionStart hook brings the memory fact", "PL_MEM_9d" in texts[0])
    c.check("the plugin's PreToolUse hook brings the sibling's CLAUDE.md once",
            "PL_LIB_3c" not in texts[0] and texts[1].count("PL_LIB_3c") == 1)
    c.check("the plugin's MCP server is connected (its instructions are listed)",
            "\n## plugin:agentspine:agentspine\nagentspine tells you" in texts[0])
    runs = hook_runs(log, bin_)
    want = {"SessionStart": 1, "UserPromptSubmit": 1, "PreToolUse": 1, "SessionEnd": 1}
    c.check("the plugin ran the hook once per event", runs == want, json.dumps(runs))
    return c


# ------------------------------------------------------------------- codex
def run_codex(bin_: str, work: str, keep: str | None) -> Tally:
    c = Tally("codex")
    tree = os.path.join(work, "codex", "tree")
    home = os.path.join(work, "codex", "home")
    os.makedirs(os.path.join(home, ".codex"))
    git_init(tree)
    write(f"{tree}/AGENTS.md", "Monorepo rules: CX_ROOT_5b2.\n")
    write(f"{tree}/packages/api/AGENTS.md", "API package rules: CX_API_7c1.\n")
    write(f"{tree}/packages/api/src/handler.ts", "export const a = 1;\n")
    write(f"{tree}/packages/web/AGENTS.md", "Web package rules: CX_WEB_0d8.\n")
    env = cap.base_env()
    env.update({"HOME": home, "CODEX_HOME": os.path.join(home, ".codex")})
    rc, out = install(bin_, "codex", env)
    c.check("agentspine install codex (twice)", rc == 0, out)

    def trust_report() -> tuple[int, dict]:
        p, report = harness.run_json([bin_, "doctor", "--host", "codex", "--cwd", tree, "--json"], env=env)
        report = report or {}
        statuses = {t["event"]: t["status"] for t in report.get("install", {}).get("codex_trust") or []}
        return p.returncode, statuses

    rc, statuses = trust_report()
    c.check("doctor: the hooks are installed but untrusted (Codex would skip them), and says so",
            rc != 0 and statuses == {e: "untrusted" for e in CODEX_EVENTS},
            f"exit {rc}, {statuses}")
    rc, out = install(bin_, "codex", env, "--trust-hooks")
    c.check("agentspine install codex --trust-hooks (twice)", rc == 0, out)
    rc, statuses = trust_report()
    c.check("doctor: every agentspine hook is trusted",
            statuses == {e: "trusted" for e in CODEX_EVENTS}, f"exit {rc}, {statuses}")
    hooks = json.load(open(os.path.join(home, ".codex", "hooks.json")))
    counts = our_hooks(hooks, "codex")
    c.check("hooks.json holds one agentspine hook per event", counts == {e: 1 for e in CODEX_EVENTS},
            json.dumps(counts))

    patch1 = ("*** Begin Patch\n*** Update File: packages/api/src/handler.ts\n@@\n-export const a = 1;\n"
              "+export const a = 2;\n*** Add File: packages/web/src/new.ts\n+export const n = 1;\n*** End Patch\n")
    patch2 = ("*** Begin Patch\n*** Update File: packages/api/src/handler.ts\n@@\n-export const a = 2;\n"
              "+export const a = 3;\n*** End Patch\n")
    turns = [{"tool": {"name": "apply_patch", "custom_input": patch1}},
             {"tool": {"name": "apply_patch", "custom_input": patch2}},
             {"text": "done"}]
    script = os.path.join(work, "codex", "script.json")
    json.dump(turns, open(script, "w"))
    log = os.path.join(work, "codex", "strace.log")
    # No `--dangerously-bypass-hook-trust`: the hooks run only if the trust
    # records `--trust-hooks` wrote are the ones Codex computes.
    args = ["--dangerously-bypass-approvals-and-sandbox"]
    try:
        raw = os.path.join(keep, "codex") if keep else os.path.join(work, "codex", "raw")
        recs = cap.run_host("codex", tree, tree, home, script=script, prompt="Bump the handler.",
                            extra_args=args, wrap=[*STRACE, "-o", log], keep=raw)
    except cap.CaptureError as e:
        c.check("codex exec runs to the end with agentspine's hooks", False, str(e))
        return c
    reqs = harness.requests(recs, "responses", main=True)
    texts = [harness.text_of(r) for r in reqs]
    c.check("the model was asked 3 times (2 patches, then the answer)", len(reqs) == 3, str(len(reqs)))
    if len(reqs) != 3:
        return c
    first, after_patch, last = texts
    c.check("the MCP server install registered is connected (its namespace is listed)",
            "\n- mcp__agentspine: agentspine tells you" in first)
    stderr = open(os.path.join(raw, "stderr.txt"), encoding="utf-8", errors="replace").read()
    warned = [line for line in stderr.splitlines()
              if "warning" in line.lower() and ("hooks.json" in line or " hook" in line.lower())
              and "--dangerously-bypass-hook-trust" not in line]
    c.check("Codex prints no warning about the installed hooks", not warned, "; ".join(warned))
    for marker, what in (("CX_API_7c1", "packages/api"), ("CX_WEB_0d8", "packages/web")):
        c.check(f"{what}/AGENTS.md arrives after the patch that touches it",
                marker not in first and marker in after_patch)
        c.check(f"{what}/AGENTS.md is in the last request exactly once", last.count(marker) == 1,
                str(last.count(marker)))
    c.check("the root AGENTS.md Codex loads itself is never repeated", last.count("CX_ROOT_5b2") == 1,
            str(last.count("CX_ROOT_5b2")))
    added = [item for item in reqs[1]["body"].get("input", [])
             if isinstance(item, dict) and item.get("role") == "developer"
             and any("CX_API_7c1" in t for t in harness.text_items(item.get("content")))]
    c.check("the nested files come as one developer message", len(added) == 1, str(len(added)))
    runs = hook_runs(log, bin_)
    want = {"SessionStart": 1, "UserPromptSubmit": 1, "PreToolUse": 2, "SessionEnd": 1}
    c.check("installed twice, the hook ran once per event (PreToolUse once per patch)", runs == want,
            json.dumps(runs))
    with open(os.path.join(tree, "packages/api/src/handler.ts")) as f:
        c.check("both patches went through (the hook never blocks)", f.read() == "export const a = 3;\n")

    # The MCP server Codex launched, called by the model with no extra
    # flags (Codex 0.171 defers MCP tools: the call names its namespace).
    # Codex offers no MCP roots: the server's own launch directory (the
    # project) is what it may resolve; a foreign directory is refused.
    foreign = os.path.join(work, "codex", "foreign")
    write(f"{foreign}/AGENTS.md", "Foreign project: FOREIGN_7k3.\n")
    briefing = {"name": "session_briefing", "namespace": "mcp__agentspine"}
    json.dump([{"tool": dict(briefing, arguments={"project_root": tree})},
               {"tool": dict(briefing, arguments={"project_root": foreign})},
               {"text": "done"}], open(script, "w"))
    try:
        recs = cap.run_host("codex", tree, tree, home, script=script, prompt="Which rules apply here?",
                            extra_args=args)
    except cap.CaptureError as e:
        c.check("codex exec runs the MCP tool calls to the end", False, str(e))
        return c
    reqs = harness.requests(recs, "responses", main=True)
    c.check("the model was asked 3 times (2 MCP tool calls, then the answer)", len(reqs) == 3, str(len(reqs)))
    if len(reqs) == 3:
        own, refused = harness.text_of(reqs[1]), harness.text_of(reqs[2])
        c.check("Codex's MCP server: session_briefing for its own project returns the briefing",
                "CX_ROOT_5b2" in own and "not a root" not in own)
        c.check("Codex's MCP server: a foreign project_root is refused, nothing of it read",
                "not a root this server was started for" in refused and "FOREIGN_7k3" not in refused)

    # One hook turned off in Codex (`enabled = false`, what /hooks writes):
    # doctor says so, and Codex skips exactly that one.
    config = os.path.join(home, ".codex", "config.toml")
    key = f'[hooks.state."{os.path.join(home, ".codex", "hooks.json")}:user_prompt_submit:0:0"]\n'
    text = open(config).read()
    c.check("the trust record of UserPromptSubmit is in config.toml", key in text, key)
    if key not in text:
        return c
    head, tail = text.split(key, 1)
    hash_line, rest = tail.split("\n", 1)
    write(config, f"{head}{key}{hash_line}\nenabled = false\n{rest}")
    rc, statuses = trust_report()
    c.check("doctor: the hook turned off in Codex is reported disabled",
            rc != 0 and statuses.get("UserPromptSubmit") == "disabled in Codex"
            and statuses.get("SessionStart") == "trusted", f"exit {rc}, {statuses}")
    json.dump([{"text": "done"}], open(script, "w"))
    log2 = os.path.join(work, "codex", "strace-disabled.log")
    try:
        cap.run_host("codex", tree, tree, home, script=script, prompt="Anything else?",
                     extra_args=args, wrap=[*STRACE, "-o", log2])
    except cap.CaptureError as e:
        c.check("codex exec runs with one hook turned off", False, str(e))
        return c
    runs = hook_runs(log2, bin_)
    c.check("Codex skips the disabled UserPromptSubmit hook and runs the others",
            runs == {"SessionStart": 1, "SessionEnd": 1}, json.dumps(runs))
    return c


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agentspine", required=True)
    ap.add_argument("--host", action="append", choices=("claude", "plugin", "marketplace", "codex"))
    ap.add_argument("--keep", metavar="DIR", help="keep the raw requests of each run in DIR/<host>/")
    ap.add_argument("--work", metavar="DIR", help="build the projects under DIR (kept)")
    a = ap.parse_args(argv)
    bin_ = harness.agentspine(a.agentspine, real=True)
    if shutil.which("strace") is None:
        print("hooks.py: strace is needed", file=sys.stderr)
        return 2
    try:
        cap.client_bins()
    except cap.CaptureError as e:
        print(f"hooks.py: {e}", file=sys.stderr)
        return 2
    work = os.path.abspath(a.work) if a.work else tempfile.mkdtemp(prefix="agentspine-hooks-")
    results = []
    try:
        marketplace = lambda b, w, k: run_plugin(b, w, k, "marketplace")  # noqa: E731
        for host, run in (("claude", run_claude), ("plugin", run_plugin), ("marketplace", marketplace),
                          ("codex", run_codex)):
            if a.host and host not in a.host:
                continue
            shutil.rmtree(os.path.join(work, host), ignore_errors=True)
            results.append(run(bin_, work, a.keep))
            if host == "claude":
                shutil.rmtree(os.path.join(work, "agents"), ignore_errors=True)
                results.append(run_agents_md(bin_, work, a.keep))
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    return harness.summary(results)


if __name__ == "__main__":
    sys.exit(main())
