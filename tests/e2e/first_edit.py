#!/usr/bin/env python3
"""The package's rules reach the model before the first edit in that
package, with the real clients.

    first_edit.py --agentspine BIN [--host codex|claude|gemini|pi|pi-0.73 ...]
                  [--scenario A|B|C ...] [--keep DIR] [--work DIR] [--timeout S]
                  [--shell-matcher]

The claim under test: every package rule the host does not load itself
reaches the model before the first edit in that package, the closest files
whole and first, nothing repeated.

Fixture (one git monorepo per run, the session started at its root):

    AGENTS.md                 small; CLAUDE.md -> AGENTS.md beside it
    web/AGENTS.md             LARGE: 220 distinct lines (about 19 KB, each
                              with its own marker [WEB-nnnn] and non-ASCII
                              text, so bytes and UTF-16 units differ)
    web/f/AGENTS.md           about 450 bytes, markers [WF-nn]
    web/f/v2/AGENTS.md        about 450 bytes, markers [V2-nn];
                              CLAUDE.md -> AGENTS.md beside it (as real
                              repositories link them)
    web/f/v2/app.tsx          the file the model edits
    web/f/v2/LINKED.md        -> ../../../../outside/secret.md
    api/AGENTS.md             a sibling package nothing touches: never sent
    ../outside/secret.md      outside the root, [SECRET-FILE] (read through
                              the link by the shell in scenario A: only the
                              shell's own output may carry it)
    ../outside/AGENTS.md      outside the root, [SECRET-RULES]: never sent

Gemini runs with `context.fileName = ["AGENTS.md", "GEMINI.md"]` (without
it Gemini reads no AGENTS.md, and agentspine adds none for it). Everything
is installed with `agentspine install HOST` into a throwaway HOME (Codex:
`--trust-hooks`), each client headless in its own network and PID namespace
against the mock model (capture.py), which asks for the tools by script:

 A  shell read, then edit: the host's shell tool runs
    `sed -n '1,80p' web/f/v2/app.tsx` (Codex exec_command, reported to hooks
    as Bash; Claude Bash; Gemini run_shell_command; pi bash), then the host's
    edit tool (Codex apply_patch; Claude Edit, which Claude Code 2.1.332
    accepts after that sed as after a Read; Gemini replace; pi edit);
 B  file tools: the host's read tool, then its edit tool (Codex 0.171 has no
    read tool: skipped);
 C  the prompt names the file ("Add a comment at the top of
    web/f/v2/app.tsx") and the model edits at once (Claude Code refuses an
    Edit of a file not read yet, "File has not been read yet": Read, then
    Edit).

Each scenario then asks for three more reads (A: the link through the shell,
then app.tsx twice), so that what the cap deferred can arrive, then ends.

Asserted per host and scenario, on the requests the model received (each
request repeats the conversation so far: the first request that holds a
marker is when the model first saw it):
- each nested file's markers first reach the model in a request before the
  one answered with the edit (the model saw them when it decided the edit);
  where a host loads a file itself only with the edit's own result, the
  script asserts exactly that instead (LATE, below) and says so;
- web/f/v2's and web/f's files arrive whole (all their markers first in one
  request) no later than web/AGENTS.md's first part (Claude's C: the v2
  text is Claude Code's own load with the Read, HOST_READ_FIRST below);
- every cut of web/AGENTS.md shows an exact count: `cut at character X of Y`
  with Y the file's trimmed length in UTF-16 units and the text shown
  exactly the file's characters from the previous cut (0, or the
  `continued from character X0 of Y` it resumed from) to X;
- the parts of web/AGENTS.md sent over the session tile the file exactly
  once (no gap, no overlap), and each of its lines' markers is in the last
  request at most once (exactly once unless a cut splits it);
- no marker is in the last request twice (nothing repeated);
- api/AGENTS.md and outside/AGENTS.md never reach the model, outside/secret.md
  only as the shell's own output of the read through the link (once);
- the edit reached the disk; Claude's A: `install claude` hooks Bash.

Prints a table of where each file arrived (request indexes), one line per
check, and `N passed, M failed`; exit 1 on any failure. Needs root
(namespaces). About 25 s for the 14 sessions.

--shell-matcher (diagnosis) adds the shell tool to the installed tool hook's
matcher (Claude: Bash to PreToolUse; Gemini: run_shell_command to
AfterTool) before the session, to see what the hook itself does with a
shell read.

Measured with agentspine 92c4602 (6 failures, all Claude Code's):
- claude A: `install claude` hooks PreToolUse only for
  Read|Edit|MultiEdit|Write|NotebookEdit|Grep|Glob, so the Bash read never
  reaches agentspine: web/f's file and web/AGENTS.md's first part come with
  the Edit's result (request 2, after the edit decided in 1), and the
  rest of web/AGENTS.md never (the later Bash calls run no hook). With
  --shell-matcher both come before the edit, but the v2 text is then
  sent twice: Claude Code 2.1.332 itself attaches web/f/v2/CLAUDE.md to
  the Bash result of `sed -n '1,80p' web/f/v2/app.tsx`, and agentspine's
  Claude profile says a shell read loads nothing.
- claude C: the v2 text twice: the prompt's hook cut web/AGENTS.md and
  deferred the rest; the Read's hook then resends the deferred part and,
  with it, web/f/v2/CLAUDE.md, which Claude Code loads itself with that
  very Read (the deferred file's target is resolved again as if the host
  loaded nothing).
- gemini A and C hold only as LATE says; with --shell-matcher Gemini's A
  gets the files before the edit, and then every one of them again with
  replace's result (Gemini's own load).
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
import time

sys.dont_write_bytecode = True

import capture as cap  # noqa: E402
import harness  # noqa: E402
from harness import Tally, write  # noqa: E402

HOSTS = ("codex", "claude", "gemini", "pi", "pi-0.73")
SCENARIOS = ("A", "B", "C")
TARGET = "web/f/v2/app.tsx"
APP = "export function App() {\n  return null;\n}\n"
EDITED = "// first edit\nexport function App() {\n  return null;\n}\n"
PROMPTS = {"A": "Look at the app component and add a comment at its top.",
           "B": "Look at the app component and add a comment at its top.",
           "C": f"Add a comment at the top of {TARGET}"}
GEMINI_NAMES = {"context": {"fileName": ["AGENTS.md", "GEMINI.md"]}}


# ----------------------------------------------------------------- fixture
def small_file(tag: str, what: str) -> tuple[str, list]:
    """About 500 bytes of rules for WHAT, one marker [TAG-nn] a line."""
    marks = [f"[{tag}-{n:02}]" for n in range(1, 7)]
    lines = [f"# {what} rules {marks[0]}", ""]
    lines += [f"- {m} {what}: rule {n} of {len(marks) - 1}, kept here for the package's own code paths only."
              for n, m in enumerate(marks[1:], 1)]
    return "\n".join(lines) + "\n", marks


def large_file() -> tuple[str, list]:
    """web/AGENTS.md: 200 distinct lines, each with its marker [WEB-nnnn]
    (non-ASCII in every line: UTF-16 units are fewer than bytes)."""
    marks = [f"[WEB-{n:04}]" for n in range(0, 221)]
    words = ("components", "hooks", "styles", "routes", "stores", "tests", "icons", "forms")
    lines = [f"# Web package rules {marks[0]}", ""]
    for n, m in enumerate(marks[1:], 1):
        lines.append(f"- {m} {words[n % len(words)]} n°{n}: keep the café naming — "
                     f"never the legacy one (rule {n * 7 % 1000:03}).")
    return "\n".join(lines) + "\n", marks


class Fixture:
    """The files and markers of one run's tree (built by `build`)."""

    def __init__(self, base: str):
        self.base = os.path.realpath(base)
        self.tree = os.path.join(self.base, "repo")
        self.home = os.path.join(self.base, "home")
        self.outside = os.path.join(self.base, "outside")
        self.root_text, self.root_marks = small_file("ROOT", "Monorepo")
        self.web_text, self.web_marks = large_file()
        self.f_text, self.f_marks = small_file("WF", "web/f")
        self.v2_text, self.v2_marks = small_file("V2", "web/f/v2")
        self.api_text, self.api_marks = small_file("API", "api")
        self.secret_file = "[SECRET-FILE-6h0]"
        self.secret_rules = "[SECRET-RULES-6h0]"

    def build(self):
        os.makedirs(self.home)
        subprocess.run(["git", "init", "-q", self.tree], check=True)
        harness.write_tree(self.tree, {
            "AGENTS.md": self.root_text,
            "web/AGENTS.md": self.web_text,
            "web/f/AGENTS.md": self.f_text,
            "web/f/v2/AGENTS.md": self.v2_text,
            TARGET: APP,
            "api/AGENTS.md": self.api_text,
            "api/src/server.ts": "export const port = 1;\n",
        })
        os.symlink("AGENTS.md", os.path.join(self.tree, "CLAUDE.md"))
        os.symlink("AGENTS.md", os.path.join(self.tree, "web/f/v2/CLAUDE.md"))
        os.symlink("../../../../outside/secret.md", os.path.join(self.tree, "web/f/v2/LINKED.md"))
        harness.write_tree(self.outside, {
            "secret.md": f"Outside the repository: {self.secret_file}\n",
            "AGENTS.md": f"Rules outside the repository: {self.secret_rules}\n",
        })
        os.symlink("AGENTS.md", os.path.join(self.outside, "CLAUDE.md"))
        subprocess.run(["git", "-C", self.tree, "add", "-A"], check=True)
        subprocess.run(["git", "-C", self.tree, "-c", "user.name=e2e", "-c", "user.email=e2e@example.invalid",
                        "commit", "-qm", "fixture"], check=True)

    def path(self, rel: str) -> str:
        return os.path.join(self.tree, rel)

    def nested(self) -> dict:
        """The nested files, closest to the target first: name -> markers."""
        return {"web/f/v2/AGENTS.md": self.v2_marks, "web/f/AGENTS.md": self.f_marks,
                "web/AGENTS.md": self.web_marks}

    def all_marks(self) -> list:
        return [*self.root_marks, *self.web_marks, *self.f_marks, *self.v2_marks, *self.api_marks]


# ------------------------------------------------------------------- turns
def shell(host: str, command: str) -> dict:
    if host == "codex":
        return {"tool": {"name": "exec_command", "arguments": {"cmd": command}}}
    if host == "claude":
        return {"tool": {"name": "Bash", "input": {"command": command, "description": "read the file"}}}
    if host == "gemini":
        return {"tool": {"name": "run_shell_command", "args": {"command": command, "description": "read the file"}}}
    return {"tool": {"name": "bash", "arguments": {"command": command}}}


def read(host: str, fx: Fixture, rel: str) -> dict:
    if host == "claude":
        return {"tool": {"name": "Read", "input": {"file_path": fx.path(rel)}}}
    if host == "gemini":
        return {"tool": {"name": "read_file", "args": {"file_path": fx.path(rel)}}}
    if host == "codex":  # no read tool: its further reads go through the shell
        return shell(host, f"cat {rel}")
    return {"tool": {"name": "read", "arguments": {"path": fx.path(rel)}}}


EDIT_TOOL = {"codex": "apply_patch", "claude": "Edit", "gemini": "replace", "pi": "edit", "pi-0.73": "edit"}


def edit(host: str, fx: Fixture) -> dict:
    old, new = "export function App() {", "// first edit\nexport function App() {"
    if host == "codex":
        patch = (f"*** Begin Patch\n*** Update File: {TARGET}\n@@\n-{old}\n+// first edit\n+{old}\n"
                 "*** End Patch\n")
        return {"tool": {"name": "apply_patch", "custom_input": patch}}
    if host == "claude":
        return {"tool": {"name": "Edit", "input": {"file_path": fx.path(TARGET), "old_string": old,
                                                   "new_string": new}}}
    if host == "gemini":
        return {"tool": {"name": "replace", "args": {"file_path": fx.path(TARGET), "old_string": old,
                                                     "new_string": new, "instruction": "add a comment at the top"}}}
    return {"tool": {"name": "edit", "arguments": {"path": fx.path(TARGET),
                                                   "edits": [{"oldText": old, "newText": new}]}}}


def turns(host: str, scenario: str, fx: Fixture) -> list:
    """The mock's script for HOST in SCENARIO."""
    sed = f"sed -n '1,80p' {TARGET}"
    if scenario == "A":
        first = [shell(host, sed), edit(host, fx)]
        more = [shell(host, "sed -n '1,80p' web/f/v2/LINKED.md"), shell(host, f"head -n 3 {TARGET}"),
                shell(host, f"head -n 5 {TARGET}")]
    elif scenario == "B":
        first = [read(host, fx, TARGET), edit(host, fx)]
        more = [read(host, fx, TARGET) for _ in range(3)]
    else:
        first = [edit(host, fx)]
        if host == "claude":  # Edit is refused before a Read
            first = [read(host, fx, TARGET), edit(host, fx)]
        more = [read(host, fx, TARGET) for _ in range(3)]
    return [*first, *more, {"text": "done"}]


# --------------------------------------------------------------------- run
API = {"codex": "responses", "claude": "messages", "gemini": "streamGenerateContent", "pi": "chat/completions",
       "pi-0.73": "chat/completions"}


SHELL_TOOL = {"claude": "Bash", "gemini": "run_shell_command"}


def widen(host: str, fx: Fixture) -> None:
    """Adds the host's shell tool to the installed tool-event matcher
    (--shell-matcher: what `agentspine install` would have to write for
    a shell read to reach the hook)."""
    if host not in SHELL_TOOL:
        return
    path = os.path.join(fx.home, "." + host, "settings.json")
    data = json.load(open(path, encoding="utf-8"))
    event = "PreToolUse" if host == "claude" else "AfterTool"
    for group in data["hooks"][event]:
        if any("agentspine" in h.get("command", "") for h in group.get("hooks", [])):
            m = group["matcher"]
            group["matcher"] = (m + "|Bash" if host == "claude"
                                else m.replace("grep_search)", "grep_search|run_shell_command)"))
    write(path, json.dumps(data, indent=2))


def install(bin_: str, host: str, fx: Fixture) -> tuple[int, str]:
    """`agentspine install` into the run's HOME, as a user installs it."""
    env = cap.base_env()
    env["HOME"] = fx.home
    extra = []
    if host == "codex":
        env["CODEX_HOME"] = os.path.join(fx.home, ".codex")
        os.makedirs(env["CODEX_HOME"], exist_ok=True)
        extra = ["--trust-hooks"]
    if host in cap.PI_HOSTS:
        env["PI_CODING_AGENT_DIR"] = os.path.join(fx.home, ".pi", "agent")
        os.makedirs(env["PI_CODING_AGENT_DIR"], exist_ok=True)
    name = "pi" if host in cap.PI_HOSTS else host
    p = harness.run([bin_, "install", name, "--json", "--command", bin_, *extra], env=env)
    if p.returncode == 0 and host == "gemini":
        settings = os.path.join(fx.home, ".gemini", "settings.json")
        data = json.load(open(settings, encoding="utf-8"))
        data.setdefault("context", {}).update(GEMINI_NAMES["context"])
        write(settings, json.dumps(data, indent=2))
    return p.returncode, p.stdout + p.stderr


def extra_args(host: str) -> list:
    if host == "codex":
        return ["--dangerously-bypass-approvals-and-sandbox"]
    if host == "claude":
        return ["--permission-mode", "acceptEdits", "--allowedTools", "Bash(*)", "Read", "Edit", "Write"]
    if host == "gemini":
        return ["--approval-mode", "yolo"]
    return []


class Run:
    """One client session: its fixture, the main requests' texts and replies."""

    def __init__(self, host: str, scenario: str, fx: Fixture, recs: list, seconds: float):
        self.host, self.scenario, self.fx, self.seconds = host, scenario, fx, seconds
        self.reqs = harness.requests(recs, API[host], main=True)
        self.recs = recs
        self.texts = [harness.text_of(r) for r in self.reqs]
        self.replies = [r.get("reply", "") for r in self.reqs]

    def first(self, marker: str):
        """The index of the first request that holds MARKER, or None."""
        return next((i for i, t in enumerate(self.texts) if marker in t), None)

    def edit_decided(self):
        """The index of the request the model answered with the edit that
        went through (Claude's first Edit in A is refused: its second)."""
        hits = [i for i, r in enumerate(self.replies) if r == "tool:" + EDIT_TOOL[self.host]]
        return hits[0] if hits else None


def run_session(bin_: str, host: str, scenario: str, work: str, keep: str | None, timeout: int,
                shell_matcher: bool = False):
    """Builds a fresh tree and HOME, installs, runs the client; (Run or None, error)."""
    base = os.path.join(work, f"{host}-{scenario}")
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    fx = Fixture(base)
    fx.build()
    rc, out = install(bin_, host, fx)
    if rc != 0:
        return None, f"agentspine install failed ({rc}):\n{out}"
    if shell_matcher:
        widen(host, fx)
    script = os.path.join(base, "script.json")
    json.dump(turns(host, scenario, fx), open(script, "w"), indent=1)
    t0 = time.monotonic()
    try:
        recs = cap.run_host(host, fx.tree, fx.tree, fx.home, script=script, prompt=PROMPTS[scenario],
                            extra_args=extra_args(host), timeout=timeout,
                            keep=os.path.join(keep, f"{host}-{scenario}") if keep else None)
    except cap.CaptureError as e:
        return None, str(e)
    return Run(host, scenario, fx, recs, time.monotonic() - t0), ""


# ----------------------------------------------------------------- checks
# What each host loads itself of the nested files, as measured with these
# clients (the rest is agentspine's to send): Codex and pi nothing after
# they start; Claude Code the web/f/v2/CLAUDE.md link (the v2 text) with a
# Read below its start directory, and also with the Bash result of a read
# command that names a file there (measured: `sed -n` of app.tsx); Gemini
# CLI every context file between the file and its root with the result of
# read_file and of replace.
HOST_LOADS = {
    "claude": {"web/f/v2/AGENTS.md"},
    "gemini": {"web/f/v2/AGENTS.md", "web/f/AGENTS.md", "web/AGENTS.md"},
}
# Where a requirement cannot hold as measured, and what the script asserts
# instead (reported, with the request indexes, in the run's table):
# - gemini A and C: Gemini appends the files to replace's own result, so a
#   model that edits without read_file sees them only after the edit
#   (request edit + 1). agentspine adds nothing before: run_shell_command is
#   not among the AfterTool tools `install gemini` hooks (were it hooked,
#   Gemini's replace would then load the same files again: a repeat), and
#   a prompt's paths leave to Gemini what its read would load (47bf66b).
# - claude C: the v2 text is Claude Code's own load with the Read, one
#   request after the prompt brought web/f's file and web/AGENTS.md's
#   first part: still before the edit, but not before the farther file.
LATE = {("gemini", "A"), ("gemini", "C")}
HOST_READ_FIRST = {("claude", "C")}

CUT = re.compile(r"\n\n\[agentspine: cut at character (\d+) of (\d+); ")
CONTINUED = re.compile(r"\[agentspine: continued from character (\d+) of (\d+)\]\n\n")


def utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def web_heading(host: str, fx: Fixture) -> str:
    """agentspine's heading for web/AGENTS.md on HOST (the profiles')."""
    path = fx.path("web/AGENTS.md")
    return {"codex": "## web/AGENTS.md", "claude": f"Contents of {path}:",
            "gemini": f"--- Context from: {path} ---"}.get(host, f"## {path}")


def web_parts(run: Run):
    """The parts of web/AGENTS.md in the last request: ([(from, to, request)],
    copies the host loaded itself, problems). Each agentspine part is its
    heading, a blank line, `[agentspine: continued from character X0 of Y]`
    when it resumes, then the text up to the cut note or the file's end."""
    text, heading = run.texts[-1], web_heading(run.host, run.fx)
    full = run.fx.web_text.strip()
    total = utf16(full)
    parts, problems, own = [], [], 0
    pos = 0
    while (h := text.find(heading, pos)) != -1:
        pos = h + len(heading)
        if not text.startswith("\n\n", pos):
            # A host's own copy (Gemini: the heading, one newline, the text).
            if text.startswith("\n" + full, pos):
                own += 1
            continue
        start, x0 = pos + 2, 0
        m = CONTINUED.match(text, start)
        if m:
            x0, y = int(m.group(1)), int(m.group(2))
            if y != total:
                problems.append(f"continued from {x0} of {y}: the file has {total} UTF-16 units")
            start = m.end()
        at = run.first(text[h:start + 80])
        rest = full[x0:]
        cut = CUT.search(text, start)
        if text.startswith(rest, start) and (cut is None or cut.start() >= start + len(rest)):
            parts.append((x0, total, at))
            continue
        if cut is None:
            problems.append(f"a part from {x0} neither runs to the file's end nor ends in a cut note: "
                            f"{text[start:start + 200]!r}")
            continue
        x, y = int(cut.group(1)), int(cut.group(2))
        shown = text[start:cut.start()]
        if y != total:
            problems.append(f"cut at {x} of {y}: the file has {total} UTF-16 units")
        if utf16(shown) != x - x0:
            problems.append(f"cut at {x} (from {x0}): {utf16(shown)} units shown, not {x - x0}")
        elif shown != full[x0:x]:
            problems.append(f"cut at {x} (from {x0}): the text shown is not the file's characters {x0}..{x}")
        parts.append((x0, x, at))
    return parts, own, problems


def tiles(parts, total: int) -> bool:
    """Whether PARTS cover 0..TOTAL exactly once, in order."""
    at = 0
    for x0, x1, _ in sorted(parts):
        if x0 != at:
            return False
        at = x1
    return at == total


def check_run(c: Tally, run: Run, script: list, shell_matcher: bool = False) -> None:
    host, scen, fx = run.host, run.scenario, run.fx
    # With the shell hooked (--shell-matcher), Gemini's A is held to the claim itself.
    late = LATE - ({("gemini", "A")} if shell_matcher else set())
    name = f"{scen}:"
    c.check(f"{name} the model was asked {len(script)} times (its scripted turns, then the answer)",
            len(run.reqs) == len(script), f"{len(run.reqs)} requests, replies {run.replies}")
    with open(fx.path(TARGET), encoding="utf-8") as f:
        c.check(f"{name} the edit reached the disk", f.read() == EDITED)
    edit_at = run.edit_decided()
    if edit_at is None or len(run.reqs) < 2:
        c.check(f"{name} the model was answered with the edit", False, str(run.replies))
        return
    if host == "claude" and scen == "A":
        settings = json.load(open(os.path.join(fx.home, ".claude", "settings.json"), encoding="utf-8"))
        matchers = [g.get("matcher", "") for g in settings.get("hooks", {}).get("PreToolUse", [])
                    if any("agentspine" in h.get("command", "") for h in g.get("hooks", []))]
        c.check("A: `install claude` hooks PreToolUse for Bash (else a shell read never reaches agentspine)",
                any(re.fullmatch(m or ".*", "Bash") for m in matchers), f"matchers {matchers}")
    if host == "codex" and scen == "A":
        tools = [t.get("name") for t in run.reqs[0]["body"].get("tools") or []]
        c.check("A: Codex offers no file-read tool (scenario B does not apply to it)",
                not any(t and "read" in t.lower() and "mcp" not in t.lower() for t in tools), str(tools))

    firsts = {rel: [run.first(m) for m in marks] for rel, marks in fx.nested().items()}
    loads = HOST_LOADS.get(host, set())
    for rel, seen in firsts.items():
        first = min((i for i in seen if i is not None), default=None)
        never = sum(i is None for i in seen)
        when = (f"first in request {first}" + (f" ({never} of {len(seen)} markers never)" if never else "")
                + f", the edit decided in request {edit_at}")
        if (host, scen) in late and rel in loads:
            c.check(f"{name} {rel} arrives whole with the edit's own result, request {edit_at + 1} "
                    f"(Gemini's own load; it cannot come before an edit made without a read)",
                    set(seen) == {edit_at + 1}
                    and "--- Newly Discovered Project Context ---" in run.texts[edit_at + 1], when)
            continue
        who = "Gemini's own load" if rel in loads and host == "gemini" else \
            "Claude Code's own load" if rel in loads else "agentspine's"
        c.check(f"{name} {rel} ({who}) reaches the model before it decides the edit",
                first is not None and first <= edit_at, when)

    # Closest whole and first.
    web_first = min((i for i in firsts["web/AGENTS.md"] if i is not None), default=None)
    for rel in ("web/f/v2/AGENTS.md", "web/f/AGENTS.md"):
        seen = set(firsts[rel])
        if (host, scen) in HOST_READ_FIRST and rel in loads:
            read_at = run.replies.index("tool:Read") + 1
            c.check(f"{name} {rel} arrives whole with the Read's result (Claude Code's own load), request "
                    f"{read_at}, after the prompt brought the farther files, before the edit",
                    seen == {read_at} and read_at <= edit_at, f"markers first in {sorted(seen, key=str)}")
            continue
        c.check(f"{name} {rel} arrives whole, no later than web/AGENTS.md's first part",
                len(seen) == 1 and None not in seen and web_first is not None and min(seen) <= web_first,
                f"markers first in {sorted(seen, key=str)}, web/AGENTS.md first in {web_first}")

    # The large file: exact cuts, and every character once over the session.
    full = fx.web_text.strip()
    total = utf16(full)
    parts, own, problems = web_parts(run)
    run.web = (parts, own)
    if parts:
        notes = sum(1 for p in parts if p[1] < total) + sum(1 for p in parts if p[0] > 0)
        c.check(f"{name} web/AGENTS.md's {notes} cut and continued notes count exactly "
                f"(of {total} UTF-16 units; the text shown is the file's own)",
                not problems, "\n".join(problems) or str(parts))
    elif own:
        c.check(f"{name} web/AGENTS.md arrives whole from the host itself, uncut", not problems, "\n".join(problems))
    else:
        c.check(f"{name} web/AGENTS.md arrives", False, "no part of it in the last request")
    bounds = {x1 for _, x1, _ in parts if x1 < total}
    c.check(f"{name} over the session web/AGENTS.md arrives exactly once: "
            + (f"{len(parts)} part{'s' * (len(parts) != 1)} tile its {total} units" if parts else "one whole copy"),
            (own == 1 and not parts) or (own == 0 and tiles(parts, total)),
            f"parts {[(a, b) for a, b, _ in sorted(parts)]}, whole copies from the host {own}")
    last = run.texts[-1]
    split = [m for m in fx.web_marks
             if any(full.find(m) < b < full.find(m) + len(m) for b in bounds)]
    wrong = {m: last.count(m) for m in fx.web_marks if last.count(m) != (0 if m in split else 1)}
    c.check(f"{name} each line of web/AGENTS.md is in the last request once"
            + (f" ({len(split)} marker split by a cut)" if split else ""), not wrong,
            f"{len(wrong)} markers counted wrong: {dict(list(wrong.items())[:12])}")

    # Nothing repeated, nothing from the sibling or from outside the root.
    twice = {m: last.count(m) for m in fx.all_marks() if last.count(m) > 1}
    c.check(f"{name} no marker is in the last request twice (nothing repeated)", not twice,
            f"{len(twice)} markers repeated: {dict(list(twice.items())[:12])}")
    c.check(f"{name} the sibling api/AGENTS.md never reaches the model",
            all(m not in t for t in run.texts for m in fx.api_marks))
    c.check(f"{name} outside/AGENTS.md (beside the link's target, outside the root) never reaches the model",
            all(fx.secret_rules not in t for t in run.texts))
    if scen == "A":
        link_at = next((i for i, t in enumerate(script) if "LINKED.md" in json.dumps(t)), None)
        first = run.first(fx.secret_file)
        c.check(f"{name} outside/secret.md reaches the model only as the shell's own output of the read "
                f"through the link (request {None if link_at is None else link_at + 1}), once",
                link_at is not None and first == link_at + 1 and last.count(fx.secret_file) == 1,
                f"first in {first}, {last.count(fx.secret_file)} times in the last request")
    else:
        c.check(f"{name} outside/secret.md never reaches the model", all(fx.secret_file not in t for t in run.texts))


def table(run: Run) -> str:
    """Where each file arrived: the request indexes (0 = the first request)."""
    fx = run.fx
    rows = [f"{run.host} {run.scenario}: {len(run.reqs)} requests ({run.seconds:.1f} s), replies "
            + ", ".join(f"{i}:{r.removeprefix('tool:')}" for i, r in enumerate(run.replies))
            + f"; the edit decided in request {run.edit_decided()}"]
    files = {"AGENTS.md (root)": fx.root_marks, **fx.nested(), "api/AGENTS.md": fx.api_marks,
             "outside/secret.md": [fx.secret_file], "outside/AGENTS.md": [fx.secret_rules]}
    for name, marks in files.items():
        seen = sorted({run.first(m) for m in marks} - {None})
        missing = sum(run.first(m) is None for m in marks)
        rows.append(f"    {name:19} first in request {seen if seen else '-'}"
                    + (f" ({missing} of {len(marks)} markers never)" if missing and seen else ""))
    parts, own = getattr(run, "web", ([], 0))
    if parts:
        rows.append("    web/AGENTS.md parts: " + ", ".join(f"{a}..{b} in request {at}" for a, b, at in sorted(parts))
                    + f" (of {utf16(fx.web_text.strip())} units)")
    if own:
        rows.append(f"    web/AGENTS.md: {own} whole copy loaded by the host itself")
    return "\n".join(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agentspine", required=True)
    ap.add_argument("--host", action="append", choices=HOSTS,
                    help="repeatable; default: every host (pi-0.73 included)")
    ap.add_argument("--scenario", action="append", choices=SCENARIOS)
    ap.add_argument("--keep", metavar="DIR", help="keep each run's raw requests in DIR/<host>-<scenario>/")
    ap.add_argument("--work", metavar="DIR", help="build the trees under DIR (kept)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per client run (default 120)")
    ap.add_argument("--shell-matcher", action="store_true",
                    help="diagnosis: add the shell tool (Claude Bash, Gemini run_shell_command) to the "
                         "installed tool hook's matcher, to see what the hook does with a shell read "
                         "(Gemini's A is then held to the claim itself: before the edit, never repeated)")
    a = ap.parse_args(argv)
    bin_ = harness.agentspine(a.agentspine, real=True)
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        print("first_edit.py: needs root and unshare (each client runs in its own namespaces)", file=sys.stderr)
        return 2
    try:
        cap.client_bins()
    except cap.CaptureError as e:
        print(f"first_edit.py: {e}", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    work = os.path.abspath(a.work) if a.work else tempfile.mkdtemp(prefix="agentspine-first-edit-")
    results, tables = [], []
    try:
        for host in a.host or HOSTS:
            c = Tally(host)
            results.append(c)
            for scen in a.scenario or SCENARIOS:
                if host == "codex" and scen == "B":
                    c.skip("B", "Codex 0.171 has no file-read tool (its reads are exec_command: scenario A)")
                    continue
                run, error = run_session(bin_, host, scen, work, a.keep, a.timeout, a.shell_matcher)
                if run is None:
                    c.check(f"{scen}: the session runs to its end", False, error)
                    continue
                check_run(c, run, turns(host, scen, run.fx), a.shell_matcher)
                tables.append(table(run))
                print(tables[-1], flush=True)
    finally:
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    print("\nWhere each file first reached the model (request indexes):")
    print("\n".join(tables))
    print(f"first_edit.py: {time.monotonic() - t0:.0f} s")
    return harness.summary(results)


if __name__ == "__main__":
    sys.exit(main())
