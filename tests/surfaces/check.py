#!/usr/bin/env python3
"""One resolver, the same answer on every surface.

    check.py --agentspine BIN

Each fixture below is resolved through the CLI (`resolve`, `briefing`,
`check`, `doctor`), the hooks (`hook claude`, `hook codex`, `hook gemini`),
the MCP server (raw JSON lines over stdio, launched the way a client
launches it) and the desktop socket (`serve`), and every surface must
agree: the same root and root kind, the same sources, the same verdicts,
the same reason. Prints one line per check and `N passed, M failed`.

Fixtures: the home directory, a directory above it, the home reached
through a link, a profile reached through a link, a dotfiles home (a `.git`
in `$HOME`), a project nested in a profile, a session started in a package
of a monorepo that has Claude memory, an unreadable `.claude/rules`
directory (run without the DAC capabilities), a 40 KiB desktop chain, and a
project's own accepted records.

Links, one World per layout real repositories use (tests/e2e/
LINKS-MEASURED.md): `CLAUDE.md -> AGENTS.md` at the root and in a package;
`AGENTS.md -> .agents/AGENTS.md` with `CLAUDE.md -> AGENTS.md`; packages
linking `../shared/rules.md`; a pointer `CLAUDE.md` (`See @AGENTS.md`); a
GEMINI.md-only monorepo with one linked GEMINI.md; links to a missing file,
in a loop and to a directory; nested pairs (`a/b/c`, each AGENTS.md with
`CLAUDE.md -> AGENTS.md`); skills (`.agents/skills/x/AGENTS.md`,
`.claude/skills/y/AGENTS.md` linking into `.agents/skills`, directory links
`.claude/skills/x` inside and `.claude/skills/z` out of the project); links
out of the project and into `.git`. For each: `resolve` for every host
(labels, texts, link targets and verdicts as LINKS-MEASURED.md has the
hosts send them, `--explain`'s line; Claude's chain beside a CLAUDE.md
linked out of the project is left open), `check --json`'s exact findings and
`--deny error`'s exit code, `doctor --host claude`'s findings against
`check`'s for the same session, the hooks (Claude Code's SessionStart in
the session directory and PreToolUse Read of a package file from the root,
Codex's apply_patch: the target's chain less the root's, Gemini's AfterTool
read_file), MCP `resolve_context` and `session_briefing` against the CLI's
resolve and briefing for every host, and the socket's chain against
`resolve --host desktop`; no output of any surface ever carries the text of
a file outside the project or in `.git`.

Hostile roots, the same on every surface: a link to the project, a link
inside it to a package, a link inside it to a directory outside, a
`/proc/self/root` spelling and a path through a link. The CLI follows a
link in `--root`/`--cwd` once and binds the link-free directory (`--root
tree/current`, a link to `pkg`, binds the package as the root; `--root
tree/vendor`, a link out, binds the directory outside, which the user
named; `briefing`, `check` and `doctor` bind the same). A client's root is
taken as given and refused: the hooks (cwd) add nothing, exit 0 and write a
`root-through-link` audit row per host and event; MCP (`project_root`, a
client's `roots/list`) answers isError naming the root and the link;
`projects.register` answers reason `root-through-link`. `--memory-dir`
through a link is `memory-dir-through-link` (exit 2). A `.agentspine.toml`
that is a FIFO, a link out, 2 MiB, a directory or a dangling link makes
`check` exit 2 with `config-unreadable` (malformed: `config-malformed`)
naming the file, while resolve, briefing, MCP, the socket and the hooks
answer as without it; one linked inside the project is read by its target.
Profile directories named by `$AGENTSPINE_PROFILE_DIRS` (through a link)
and by `[roots] profiles` are never a project on any surface.
"""
import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import harness

tally = harness.Tally()
check = tally.check
write = harness.write


def closest_first(parts: list) -> list:
    """(label, text) pairs as a hook sends them: from the deepest directory
    up (a `.claude/rules` file is its holder's), in resolve's order within
    one directory."""
    def depth(label: str) -> int:
        head = label.split("/.claude/rules/")[0] if "/.claude/rules/" in label else os.path.dirname(label)
        return 0 if label.startswith(".claude/rules/") or head == "" else head.count("/") + 1
    return sorted(parts, key=lambda p: -depth(p[0]))


class World:
    """A throwaway HOME and state directory, and the binary."""

    def __init__(self, bin_: str, base: str, name: str):
        self.bin = bin_
        self.base = os.path.join(base, name)
        self.home = os.path.join(self.base, "home")
        os.makedirs(self.home)
        self.env = {
            "PATH": os.environ["PATH"],
            "HOME": self.home,
            "AGENTSPINE_STATE_DIR": os.path.join(self.base, "state"),
        }
        self.unprivileged = False
        # Everything any surface printed, for the checks that text placed
        # outside the project never reaches any output.
        self.transcript = []

    def cmd(self, args: list) -> list:
        full = [self.bin] + args
        if self.unprivileged and os.geteuid() == 0:
            drop = "-dac_override,-dac_read_search"
            full = ["setpriv", "--bounding-set", drop, "--inh-caps", drop] + full
        return full

    def run(self, args: list, cwd: str = None, stdin: str = None) -> subprocess.CompletedProcess:
        out = harness.run(self.cmd(args), input=stdin, env=self.env, cwd=cwd or self.base)
        self.transcript += [out.stdout, out.stderr]
        return out

    def leaked(self, *markers: str) -> list:
        """The markers found in anything a surface printed so far."""
        seen = "".join(self.transcript)
        return [m for m in markers if m in seen]

    def json(self, args: list, cwd: str = None) -> dict:
        out = self.run(args, cwd)
        try:
            return json.loads(out.stdout)
        except json.JSONDecodeError:
            return {"error": {"code": "not-json", "message": out.stdout + out.stderr}}

    def hook(self, host: str, payload: dict) -> str:
        out = self.run(["hook", host], stdin=json.dumps(payload))
        if out.returncode != 0:
            return f"<exit {out.returncode}>"
        return harness.hook_context(out.stdout)

    def audit(self) -> list:
        out = self.run(["audit", "--json"])
        try:
            return json.loads(out.stdout).get("events", [])
        except json.JSONDecodeError:
            return []

    def mcp(self, cwd: str, calls: list, args: list = (), roots: list = None) -> list:
        """Tool results ({"error": text} for an isError result), launched in
        `cwd`; with `roots`, the client offers them and answers the server's
        `roots/list` with them."""
        capabilities = {} if roots is None else {"roots": {"listChanged": False}}
        lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": capabilities,
                             "clientInfo": {"name": "surfaces", "version": "0"}}},
                 {"jsonrpc": "2.0", "method": "notifications/initialized"}]
        for i, (tool, arguments) in enumerate(calls, 1):
            lines.append({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                          "params": {"name": tool, "arguments": arguments}})
        log = tempfile.TemporaryFile("w+")
        proc = subprocess.Popen(self.cmd(["mcp", *args]), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=log, env=self.env, cwd=cwd, text=True)
        answers = {}
        for line in lines:
            proc.stdin.write(json.dumps(line) + "\n")
            proc.stdin.flush()
            if "id" not in line:
                continue
            while True:
                raw = proc.stdout.readline()
                self.transcript.append(raw)
                reply = json.loads(raw)
                if reply.get("method") == "roots/list" and "id" in reply:
                    listed = [{"uri": "file://" + r} for r in roots or []]
                    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": reply["id"],
                                                 "result": {"roots": listed}}) + "\n")
                    proc.stdin.flush()
                    continue
                if reply.get("id") == line["id"] and "method" not in reply:
                    answers[line["id"]] = reply
                    break
        proc.stdin.close()
        proc.wait(timeout=10)
        log.seek(0)
        self.transcript.append(log.read())
        out = []
        for i in range(1, len(calls) + 1):
            result = answers[i].get("result", {})
            if result.get("isError"):
                out.append({"error": result["content"][0]["text"]})
            else:
                out.append(result.get("structuredContent", {}))
        return out

    def socket_calls(self, calls: list) -> list:
        """Host calls on the desktop socket, after authenticating."""
        sock_path = os.path.join(self.base, "run", "s.sock")
        proc = subprocess.Popen(self.cmd(["serve", "--socket", sock_path, "--json"]), stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, env=self.env, text=True)
        try:
            ready = json.loads(proc.stdout.readline())
            token = open(ready["token_file"]).read().strip()
            conn = socket.socket(socket.AF_UNIX)
            conn.connect(ready["socket"])
            stream = conn.makefile("rw")
            out = []
            for n, (method, params) in enumerate([("host.authenticate", {"control_token": token})] + calls):
                stream.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}) + "\n")
                stream.flush()
                raw = stream.readline()
                self.transcript.append(raw)
                out.append(json.loads(raw))
            conn.close()
            return out[1:]
        finally:
            proc.terminate()
            proc.wait(timeout=10)

    def socket_session(self, root: str, paths: list) -> tuple:
        """On one live server: `projects.register` of `root`, `session.bind`
        to it, then `project.instructions.resolve` of each path (the
        sidecar's call, with the session's token)."""
        def calls(stream):
            def call(n, method, params):
                stream.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}) + "\n")
                stream.flush()
                raw = stream.readline()
                self.transcript.append(raw)
                return json.loads(raw)
            registered = call(1, "projects.register", {"root": root})
            bound = call(2, "session.bind", {"session_id": "s", "project_root": root})
            token = bound.get("result", {}).get("token", "")
            return registered, bound, [call(3 + i, "project.instructions.resolve",
                                            {"session_id": "s", "token": token, "path": path})
                                       for i, path in enumerate(paths)]
        return self.socket_with(calls)

    def socket_with(self, body):
        """Runs `body(stream)` on an authenticated connection to a live server."""
        sock_path = os.path.join(self.base, "run", "s.sock")
        log = tempfile.TemporaryFile("w+")
        proc = subprocess.Popen(self.cmd(["serve", "--socket", sock_path, "--json"]), stdout=subprocess.PIPE,
                                stderr=log, env=self.env, text=True)
        try:
            ready = json.loads(proc.stdout.readline())
            token = open(ready["token_file"]).read().strip()
            conn = socket.socket(socket.AF_UNIX)
            conn.connect(ready["socket"])
            stream = conn.makefile("rw")
            stream.write(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "host.authenticate",
                                     "params": {"control_token": token}}) + "\n")
            stream.flush()
            stream.readline()
            try:
                return body(stream)
            finally:
                conn.close()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
            log.seek(0)
            self.transcript.append(log.read())


def claude_payload(session: str, cwd: str, event: str, **extra) -> dict:
    return {"session_id": session, "transcript_path": None, "cwd": cwd, "hook_event_name": event, **extra}


def codex_patch(session: str, cwd: str, target: str) -> dict:
    patch = f"*** Begin Patch\n*** Update File: {target}\n*** End Patch\n"
    return {"session_id": session, "cwd": cwd, "hook_event_name": "PreToolUse", "model": "m",
            "permission_mode": "default", "tool_name": "apply_patch", "tool_input": {"command": patch}}


def never_a_project(w: World, name: str, root: str, reason: str, cwd: str = None) -> None:
    """`root` is never a project: every surface says so with `reason`."""
    cwd = cwd or root
    write(os.path.join(root, "sub", "AGENTS.md"), "never context\n")
    write(os.path.join(root, "sub", "a.ts"), "x\n")
    for host in ("claude", "codex", "generic"):
        r = w.json(["resolve", "--host", host, "--root", root, "--cwd", cwd, "--json"])
        kinds = {"root-is-home": "home", "root-above-home": "above-home", "root-is-profile": "profile"}
        check(f"{name}: resolve --host {host}: root kind {kinds[reason]}, no project part",
              r.get("root_kind") == kinds[reason] and all(p["scope"] == "user" for p in r.get("parts", [])),
              json.dumps(r)[:300])
        b = w.json(["briefing", "--host", host, "--root", root, "--json"])
        res = b.get("sourceResolution", {})
        check(f"{name}: briefing --host {host}: reason {reason}, user-wide sources only",
              res.get("reason") == reason and all(s["scope"] in ("user", "memory") for s in b.get("sources", [])),
              json.dumps(b)[:300])
    target = os.path.join(root, "sub", "a.ts")
    sent = w.hook("claude", claude_payload("s", cwd, "PreToolUse", tool_name="Grep",
                                           tool_input={"pattern": "x", "path": os.path.dirname(target)}))
    check(f"{name}: hook claude: exit 0, nothing added", sent == "", sent[:200])
    sent = w.hook("codex", codex_patch("c", cwd, target))
    check(f"{name}: hook codex: exit 0, nothing added", sent == "", sent[:200])
    (answer,) = w.mcp(cwd, [("session_briefing", {"project_root": root})], ["--root", root])
    check(f"{name}: mcp: refused even when --root names it", "never a project root" in answer.get("error", ""),
          json.dumps(answer)[:300])
    (reply,) = w.socket_calls([("projects.register", {"root": root})])
    check(f"{name}: socket: projects.register refused with {reason}",
          reply.get("error", {}).get("data", {}).get("reason") == reason, json.dumps(reply)[:300])


# ---------------------------------------------------------------- links
# Real-world link layouts (tests/e2e/LINKS-MEASURED.md, "Public
# repositories using such links"), each one World: every host's `resolve`,
# `check`, `doctor`, the hooks, MCP and the socket must tell the same story.

HOSTS = ("codex", "claude", "gemini", "pi", "pi-0.73", "desktop", "generic")
AGENTS_HOSTS = ("codex", "pi", "pi-0.73", "desktop", "generic")
SECRET = "SECRET-OUTSIDE-THE-PROJECT"
GITDB = "GIT-DIRECTORY-RULES"


def expand(table: dict) -> dict:
    """`{host or tuple of hosts: value}` to `{host: value}`."""
    out = {}
    for hosts, value in table.items():
        for host in (hosts,) if isinstance(hosts, str) else hosts:
            out[host] = value
    return out


def parts_of(r: dict) -> list:
    """(label, text, link target) of each part of a resolution."""
    return [(p["label"], p["text"].strip(), (p.get("link") or {}).get("target")) for p in r.get("parts", [])]


def verdicts_of(r: dict) -> dict:
    """Each probe's verdict with its refusal or kind: `link-refused (loop)`."""
    out = {}
    for p in r.get("probes", []):
        why = p.get("refusal") or p.get("kind")
        out[p["path"]] = p["verdict"] + (f" ({why})" if why else "")
    return out


def findings_of(report: dict) -> list:
    return sorted((f["id"], f["host"] or "-", f["path"]) for f in report.get("findings", []))


HEADER = re.compile(r"^(?:## (?P<codex>.+)|Contents of (?P<claude>.+):|--- Context from: (?P<gemini>.+) ---)$")


def blocks(context: str, tree: str) -> list:
    """(label, text) of each file a hook's context carries, labels relative
    to the tree, up to agentspine's own sourceResolution line."""
    out = []
    for line in context.split("\n"):
        if line == "[agentspine sourceResolution]":
            break
        m = HEADER.match(line)
        if m:
            label = m.group("codex") or m.group("claude") or m.group("gemini")
            out.append([os.path.relpath(label, tree) if label.startswith("/") else label, []])
        elif out:
            out[-1][1].append(line)
    return [(label, "\n".join(text).strip()) for label, text in out]


# Each layout: files (text) and links (target) below the tree, the session
# directory (`cwd`) and a file a tool touches (`target`), then what every
# surface must say:
#   parts     per host, (label, text, link target) of the chain in cwd;
#             a host left out is only held to the cross-surface checks
#   verdicts  per host, {candidate: verdict} among its probes
#   explain   (host, a line `resolve --explain` prints)
#   findings  (id, host or "-", path) of `check --json`, exactly
#   deny      `check --deny error`'s exit code
#   start     (label, text) Claude Code's SessionStart hook adds in cwd
#   read      (label, text) its PreToolUse adds for a Read of `target` in a
#             session started at the root
#   gemini    (session dir, file read, [(label, text)]): Gemini's AfterTool
#             after read_file
#   into_git  a directory whose AGENTS.md links into .git
LAYOUTS = [
    dict(name="claude-to-agents",  # getsentry/sentry-cli, sablier-labs/evm-monorepo, ryoppippi/ccusage
         files={"AGENTS.md": "root rules\n", "pkg/AGENTS.md": "pkg rules\n", "pkg/a.ts": "x\n"},
         links={"CLAUDE.md": "AGENTS.md", "pkg/CLAUDE.md": "AGENTS.md"},
         cwd="pkg", target="pkg/a.ts",
         parts=expand({AGENTS_HOSTS: [("AGENTS.md", "root rules", None), ("pkg/AGENTS.md", "pkg rules", None)],
                       "claude": [("CLAUDE.md", "root rules", "AGENTS.md"),
                                  ("pkg/CLAUDE.md", "pkg rules", "pkg/AGENTS.md")],
                       "gemini": []}),
         explain=("claude", "↳ a link to pkg/AGENTS.md, read by its own path"),
         findings=[("link-inside", "-", "CLAUDE.md"), ("link-inside", "-", "pkg/CLAUDE.md")],
         deny=0, start=[], read=[]),
    dict(name="hidden-dir",  # AGENTS.md -> .agents/AGENTS.md, CLAUDE.md -> AGENTS.md: two hops
         files={".agents/AGENTS.md": "hidden rules\n", "pkg/a.ts": "x\n"},
         links={"AGENTS.md": ".agents/AGENTS.md", "CLAUDE.md": "AGENTS.md"},
         cwd="pkg", target="pkg/a.ts",
         parts=expand({AGENTS_HOSTS: [("AGENTS.md", "hidden rules", ".agents/AGENTS.md")],
                       "claude": [("CLAUDE.md", "hidden rules", ".agents/AGENTS.md")],
                       "gemini": []}),
         hops={"claude": 2, "codex": 1},
         explain=("codex", "↳ a link to .agents/AGENTS.md, read by its own path"),
         findings=[("link-inside", "-", "AGENTS.md"), ("link-inside", "-", "CLAUDE.md")],
         deny=0, start=[], read=[]),
    dict(name="shared-rules",  # packages linking one shared file
         files={"AGENTS.md": "root rules\n", "shared/rules.md": "shared rules\n", "pkg/a.ts": "x\n"},
         links={"pkg/AGENTS.md": "../shared/rules.md", "pkg/CLAUDE.md": "../shared/rules.md",
                "web/AGENTS.md": "../shared/rules.md"},
         cwd="pkg", target="pkg/a.ts",
         parts=expand({AGENTS_HOSTS: [("AGENTS.md", "root rules", None),
                                      ("pkg/AGENTS.md", "shared rules", "shared/rules.md")],
                       "claude": [("pkg/CLAUDE.md", "shared rules", "shared/rules.md")],
                       "gemini": []}),
         explain=("pi", "↳ a link to shared/rules.md, read by its own path"),
         findings=[("link-inside", "-", "pkg/AGENTS.md"), ("link-inside", "-", "pkg/CLAUDE.md"),
                   ("link-inside", "-", "web/AGENTS.md")],
         deny=0, start=[], read=[]),
    dict(name="pointer",  # root CLAUDE.md is `See @AGENTS.md` (Anthropic's advice for AGENTS.md repositories)
         files={"CLAUDE.md": "See @AGENTS.md\n", "AGENTS.md": "root agents\n", "pkg/AGENTS.md": "pkg agents\n",
                "pkg/a.ts": "x\n"},
         links={},
         cwd="pkg", target="pkg/a.ts",
         parts=expand({AGENTS_HOSTS: [("AGENTS.md", "root agents", None), ("pkg/AGENTS.md", "pkg agents", None)],
                       "claude": [("CLAUDE.md", "See @AGENTS.md", None)],
                       "gemini": []}),
         verdicts={"claude": {"AGENTS.md": "import-external-not-approved"}},
         findings=[("delivered-by-agentspine", "claude", "CLAUDE.md")],
         deny=0,
         start=[("AGENTS.md", "root agents"), ("pkg/AGENTS.md", "pkg agents")],
         read=[("pkg/AGENTS.md", "pkg agents")]),
    dict(name="gemini-only",  # a monorepo with GEMINI.md files only, one of them a link
         files={"GEMINI.md": "root gemini\n", "packages/api/GEMINI.md": "api gemini\n",
                "docs/web-gemini.md": "web gemini\n", "packages/api/a.ts": "x\n", "packages/web/b.ts": "x\n"},
         links={"packages/web/GEMINI.md": "../../docs/web-gemini.md"},
         cwd="packages/web", target="packages/api/a.ts",
         parts=expand({("codex", "claude", "pi", "pi-0.73", "desktop", "generic"): [],
                       "gemini": [("GEMINI.md", "root gemini", None),
                                  ("packages/web/GEMINI.md", "web gemini", "docs/web-gemini.md")]}),
         explain=("gemini", "↳ a link to docs/web-gemini.md, read by its own path"),
         findings=[("link-inside", "-", "packages/web/GEMINI.md")],
         deny=0, start=[], read=[],
         gemini=[("packages/web", "packages/api/a.ts", [("packages/api/GEMINI.md", "api gemini")]),
                 ("packages/api", "packages/web/b.ts", [("packages/web/GEMINI.md", "web gemini")])]),
    dict(name="dangling",  # links to missing files: the slot passes to the next name
         files={"AGENTS.md": "root rules\n", "pkg/CLAUDE.md": "pkg claude\n", "pkg/a.ts": "x\n"},
         links={"CLAUDE.md": "gone.md", "pkg/AGENTS.md": "missing.md"},
         cwd="pkg", target="pkg/a.ts",
         parts=expand({"codex": [("AGENTS.md", "root rules", None)],
                       "claude": [("pkg/CLAUDE.md", "pkg claude", None)],
                       ("pi", "pi-0.73", "desktop", "generic"): [("AGENTS.md", "root rules", None),
                                                                 ("pkg/CLAUDE.md", "pkg claude", None)],
                       "gemini": []}),
         verdicts=expand({"claude": {"CLAUDE.md": "link-refused (dangling)"},
                          AGENTS_HOSTS: {"pkg/AGENTS.md": "link-refused (dangling)"}}),
         explain=("codex", "link-refused (dangling: missing.md)"),
         findings=[("link-broken", "-", "CLAUDE.md"), ("link-broken", "-", "pkg/AGENTS.md"),
                   ("never-read", "claude", "pkg/AGENTS.md"), ("never-read", "codex", "CLAUDE.md"),
                   ("never-read", "codex", "pkg/CLAUDE.md")],
         deny=0, start=[], read=[]),
    dict(name="loop",  # AGENTS.md -> loop.md -> AGENTS.md, CLAUDE.md -> CLAUDE.md
         files={"pkg/AGENTS.md": "pkg rules\n", "pkg/a.ts": "x\n"},
         links={"AGENTS.md": "loop.md", "loop.md": "AGENTS.md", "CLAUDE.md": "CLAUDE.md"},
         cwd="pkg", target="pkg/a.ts",
         parts=expand({"codex": [],  # Codex sends no project file past a loop
                       ("claude", "pi", "pi-0.73", "desktop", "generic"): [("pkg/AGENTS.md", "pkg rules", None)],
                       "gemini": []}),
         verdicts=expand({"codex": {"AGENTS.md": "link-refused (loop)"},
                          ("claude", "pi", "desktop"): {"AGENTS.md": "link-refused (loop)",
                                                        "CLAUDE.md": "link-refused (loop)"}}),
         explain=("codex", "link-refused (loop: loop.md)"),
         # Codex stops at the loop: pkg/AGENTS.md is off for it, not "never read".
         findings=[("link-broken", "-", "AGENTS.md"), ("link-broken", "-", "CLAUDE.md"),
                   ("link-broken", "codex", "AGENTS.md"), ("never-read", "codex", "CLAUDE.md")],
         deny=1, start=[], read=[]),
    dict(name="to-dir",  # AGENTS.md -> docs (a directory), pkg/CLAUDE.md -> ../docs
         files={"docs/x.md": "docs\n", "CLAUDE.md": "root claude\n", "pkg/AGENTS.md": "pkg agents\n",
                "pkg/a.ts": "x\n"},
         links={"AGENTS.md": "docs", "pkg/CLAUDE.md": "../docs"},
         cwd="pkg", target="pkg/a.ts",
         parts=expand({"codex": [("pkg/AGENTS.md", "pkg agents", None)],
                       "claude": [("CLAUDE.md", "root claude", None)],
                       ("pi", "pi-0.73", "desktop", "generic"): [("CLAUDE.md", "root claude", None),
                                                                 ("pkg/AGENTS.md", "pkg agents", None)],
                       "gemini": []}),
         verdicts=expand({AGENTS_HOSTS: {"AGENTS.md": "not-regular (directory)"},
                          "claude": {"pkg/CLAUDE.md": "not-regular (directory)"}}),
         explain=("codex", "not-regular (directory)"),
         findings=[("never-read", "claude", "AGENTS.md"), ("never-read", "claude", "pkg/AGENTS.md"),
                   ("never-read", "codex", "CLAUDE.md"), ("never-read", "codex", "pkg/CLAUDE.md"),
                   ("special-file", "claude", "pkg/CLAUDE.md"), ("special-file", "codex", "AGENTS.md")],
         deny=0, start=[], read=[]),
    dict(name="nested-pairs",  # a/b/c, each AGENTS.md with CLAUDE.md -> AGENTS.md
         files={**{f"{d}AGENTS.md": f"rules {d or 'root'}\n" for d in ("", "a/", "a/b/", "a/b/c/")},
                "a/b/c/x.ts": "x\n"},
         links={f"{d}CLAUDE.md": "AGENTS.md" for d in ("", "a/", "a/b/", "a/b/c/")},
         cwd="a/b/c", target="a/b/c/x.ts",
         parts=expand({AGENTS_HOSTS: [(f"{d}AGENTS.md", f"rules {d or 'root'}", None)
                                      for d in ("", "a/", "a/b/", "a/b/c/")],
                       "claude": [(f"{d}CLAUDE.md", f"rules {d or 'root'}", f"{d}AGENTS.md")
                                  for d in ("", "a/", "a/b/", "a/b/c/")],
                       "gemini": []}),
         findings=[("link-inside", "-", f"{d}CLAUDE.md") for d in ("", "a/", "a/b/", "a/b/c/")],
         deny=0, start=[], read=[]),
    dict(name="skills",  # sablier-labs/evm-monorepo: .claude/skills/* -> ../../.agents/skills/*
         files={"AGENTS.md": "root rules\n", ".agents/skills/x/AGENTS.md": "skill x\n",
                ".agents/skills/x/a.ts": "x\n", ".agents/skills/y/AGENTS.md": "skill y\n",
                ".claude/skills/y/SKILL.md": "y\n"},
         links={"CLAUDE.md": "AGENTS.md", ".claude/skills/y/AGENTS.md": "../../../.agents/skills/y/AGENTS.md",
                ".claude/skills/x": "../../.agents/skills/x",
                ".claude/skills/z": "../../../outskill"},  # a skill linked from outside (dotfiles)
         cwd=".claude/skills/y", target=".agents/skills/x/a.ts",
         parts=expand({AGENTS_HOSTS: [("AGENTS.md", "root rules", None),
                                      (".claude/skills/y/AGENTS.md", "skill y", ".agents/skills/y/AGENTS.md")],
                       "claude": [("CLAUDE.md", "root rules", "AGENTS.md")],
                       "gemini": []}),
         explain=("generic", "↳ a link to .agents/skills/y/AGENTS.md, read by its own path"),
         findings=[("link-inside", "-", "CLAUDE.md")],  # the walk skips hidden directories
         deny=0,
         start=[(".claude/skills/y/AGENTS.md", "skill y")],
         read=[(".agents/skills/x/AGENTS.md", "skill x")]),
    dict(name="link-out",  # links out of the project and into .git: refused everywhere
         files={"AGENTS.md": "root rules\n", "pkg/a.ts": "x\n", ".git/info/rules.md": GITDB + "\n",
                "gitdir/a.ts": "x\n"},
         links={"pkg/AGENTS.md": "../../secret.md", "pkg/CLAUDE.md": "{base}/secret.md",
                "gitdir/AGENTS.md": "../.git/info/rules.md"},
         cwd="pkg", target="pkg/a.ts",
         # A CLAUDE.md linked out of the project still counts for Claude Code
         # (it reads it): no AGENTS.md on the chain, and agentspine refuses
         # the link, so nothing is sent.
         parts=expand({AGENTS_HOSTS: [("AGENTS.md", "root rules", None)], ("gemini", "claude"): []}),
         verdicts=expand({AGENTS_HOSTS: {"pkg/AGENTS.md": "link-refused (outside)"},
                          "claude": {"pkg/CLAUDE.md": "link-refused (outside)"}}),
         explain=("codex", "link-refused (outside: ../../secret.md)"),
         into_git="gitdir",
         findings=[("never-read", "claude", "pkg/AGENTS.md"), ("never-read", "codex", "pkg/CLAUDE.md"),
                   ("symlink", "claude", "gitdir/AGENTS.md"), ("symlink", "claude", "pkg/CLAUDE.md"),
                   ("symlink", "codex", "gitdir/AGENTS.md"), ("symlink", "codex", "pkg/AGENTS.md")],
         deny=1, start=[], read=[]),
]


def link_layout(bin_: str, base: str, spec: dict) -> None:
    name = spec["name"]
    w = World(bin_, base, name)
    tree = os.path.join(w.base, "tree")
    os.makedirs(os.path.join(tree, ".git", "info"))
    write(os.path.join(w.base, "secret.md"), SECRET + "\n")
    write(os.path.join(w.base, "outskill", "AGENTS.md"), SECRET + " skill\n")
    write(os.path.join(w.base, "outskill", "a.ts"), "x\n")
    for rel, text in spec["files"].items():
        write(os.path.join(tree, rel), text)
    for rel, target in spec["links"].items():
        os.makedirs(os.path.dirname(os.path.join(tree, rel)), exist_ok=True)
        os.symlink(target.format(base=w.base), os.path.join(tree, rel))
    cwd, target = os.path.join(tree, spec["cwd"]), os.path.join(tree, spec["target"])

    # resolve, every host: the chain in cwd, and the one a tool touching
    # the target gets (what MCP and the socket answer).
    chains, targeted, said = {}, {}, set()
    for host in HOSTS:
        r = chains[host] = w.json(["resolve", "--host", host, "--cwd", cwd, "--json"])
        targeted[host] = w.json(["resolve", "--host", host, "--root", tree, "--target", target, "--json"])
        said |= {(label, text) for label, text, _ in parts_of(r) + parts_of(targeted[host])}
        ok = "error" not in r and r.get("project_root") == tree
        want = spec["parts"].get(host)
        if want is not None:
            ok = ok and parts_of(r) == want
        check(f"{name}: resolve --host {host}: " + (f"{[p[0] for p in want]}" if want is not None else "resolves"),
              ok, json.dumps(parts_of(r) if "error" not in r else r)[:300])
        for path, verdict in spec.get("verdicts", {}).get(host, {}).items():
            got = verdicts_of(r).get(path)
            check(f"{name}: resolve --host {host}: {path} is {verdict}", got == verdict, f"{got}")
    for host, hops in spec.get("hops", {}).items():
        got = [p["link"]["hops"] for p in chains[host].get("parts", []) if p.get("link")]
        check(f"{name}: resolve --host {host}: the link is {hops} hop(s) long", got == [hops], f"{got}")
    if "explain" in spec:
        host, line = spec["explain"]
        out = w.run(["resolve", "--host", host, "--cwd", cwd, "--explain"])
        check(f"{name}: resolve --host {host} --explain shows `{line}`", line in out.stdout, out.stdout[-600:])

    # check: exact findings, and the verdict of --deny error.
    report = w.json(["check", "--root", tree, "--json"])
    check(f"{name}: check --json: findings {[f[0] for f in spec['findings']]}",
          findings_of(report) == sorted(spec["findings"]), json.dumps(findings_of(report) or report)[:600])
    out = w.run(["check", "--root", tree, "--deny", "error"])
    check(f"{name}: check --deny error exits {spec['deny']}", out.returncode == spec["deny"],
          f"exit {out.returncode}: {out.stdout[-300:]}")

    # A never-read finding says why in the host's terms: Codex's never
    # claims that AGENTS.md is not one of its names.
    wrong = [f["path"] for f in report.get("findings", []) if f["id"] == "never-read" and f["host"] == "codex"
             and f["path"].rsplit("/", 1)[-1] in ("AGENTS.md", "AGENTS.override.md")
             and "is none of them" in f["message"]]
    check(f"{name}: check: no Codex never-read says AGENTS.md is not a name Codex reads", not wrong, f"{wrong}")

    # doctor: its findings are check's for Claude Code sessions in cwd
    # (`--paths`: a directory check's walk skips, hidden or ignored, is
    # checked as doctor checks it).
    doctor = w.json(["doctor", "--host", "claude", "--cwd", cwd, "--json"])
    session = w.json(["check", "--host", "claude", "--root", tree, "--paths", cwd, "--json"])
    chain = ["."] + ["/".join(spec["cwd"].split("/")[:i + 1]) for i in range(len(spec["cwd"].split("/")))]
    want = sorted((f["id"], f["host"] or "-", f["path"]) for f in session.get("findings", [])
                  if not f["dirs"] or set(f["dirs"]) & set(chain))
    check(f"{name}: doctor --host claude --cwd {spec['cwd']}: check's findings for that session",
          "findings" in doctor and findings_of(doctor) == want,
          f"doctor {findings_of(doctor)} check {want}"[:600])

    # The hooks: what Claude Code is sent at start in cwd and on a Read of
    # the target from the root; what Codex is sent on apply_patch of it
    # from the root: the target's chain less the root's.
    sent = w.hook("claude", claude_payload("s1", cwd, "SessionStart", source="startup"))
    got = blocks(sent, tree)
    check(f"{name}: hook claude SessionStart in {spec['cwd']}: {[b[0] for b in spec['start']]}",
          got == spec["start"], sent[:300])
    sent = w.hook("claude", claude_payload("s2", tree, "PreToolUse", tool_name="Read",
                                           tool_input={"file_path": target}))
    got = blocks(sent, tree)
    check(f"{name}: hook claude PreToolUse Read {spec['target']}: {[b[0] for b in spec['read']]}",
          got == spec["read"], sent[:300])
    hooked = got + blocks(w.hook("claude", claude_payload("s1", cwd, "SessionStart", source="startup")), tree)
    root_labels = {p[0] for p in parts_of(w.json(["resolve", "--host", "codex", "--cwd", tree, "--json"]))}
    want = closest_first([(label, text) for label, text, _ in parts_of(targeted["codex"]) if label not in root_labels])
    sent = w.hook("codex", codex_patch("c1", tree, target))
    got = blocks(sent, tree)
    check(f"{name}: hook codex apply_patch {spec['target']}: the target's chain less the root's {[b[0] for b in want]}",
          got == want, sent[:300])
    hooked += got
    for session_dir, read, want in spec.get("gemini", []):
        sent = w.hook("gemini", {"session_id": "g-" + session_dir, "transcript_path": None,
                                 "cwd": os.path.join(tree, session_dir), "hook_event_name": "AfterTool",
                                 "timestamp": "2026-12-01T16:00:00.000Z", "tool_name": "read_file",
                                 "tool_input": {"file_path": os.path.join(tree, read)},
                                 "tool_response": {"llmContent": "x"}})
        got = blocks(sent, tree)
        check(f"{name}: hook gemini AfterTool read_file {read} from {session_dir}: {[b[0] for b in want]}",
              got == want, sent[:300])
        hooked += got
    odd = [b for b in hooked if b not in said]
    check(f"{name}: every file a hook sends is a text resolve gives under that label", not odd, f"{odd}")

    # MCP: resolve_context is the CLI's resolve of the target, and
    # session_briefing the CLI's briefing (with Markdown, as MCP gives it).
    calls = [("resolve_context", {"project_root": tree, "host": h, "target_path": spec["target"]}) for h in HOSTS]
    calls += [("session_briefing", {"project_root": tree, "host": h, "cwd": spec["cwd"]}) for h in HOSTS]
    answers = w.mcp(tree, calls)
    differ = [h for h, a in zip(HOSTS, answers) if "error" in a
              or (a.get("parts"), a.get("native"), a.get("probes")) !=
              (targeted[h].get("parts"), targeted[h].get("native"), targeted[h].get("probes"))]
    check(f"{name}: mcp resolve_context: the CLI's parts, text and verdicts for every host", not differ,
          f"{differ}: {json.dumps(answers[HOSTS.index(differ[0])])[:300] if differ else ''}")
    differ = []
    for h, a in zip(HOSTS, answers[len(HOSTS):]):
        b = w.json(["briefing", "--host", h, "--root", tree, "--cwd", cwd, "--markdown", "--json"])
        if "error" in a or a.get("sources") != b.get("sources") or a.get("text") != b.get("text"):
            differ.append(h)
        project = [(s["rel_path"], s["sha256"]) for s in a.get("sources", []) if s["scope"] == "project"]
        chain = [(p["label"], p["sha256"]) for p in chains[h].get("parts", []) if p["scope"] == "project"]
        if project != chain:
            differ.append(f"{h} (resolve)")
    check(f"{name}: mcp session_briefing: the CLI's briefing, its project sources resolve's chain, every host",
          not differ, f"{differ}")

    # The socket: the sidecar's chain for the target is the desktop resolve.
    registered, bound, (resolved,) = w.socket_session(tree, [spec["target"]])
    chain = resolved.get("result", {}).get("chain", {})
    check(f"{name}: socket: the chain for {spec['target']} is resolve --host desktop's",
          chain.get("text") == targeted["desktop"].get("native")
          and [s["label"] for s in chain.get("sources", [])] == [p["label"] for p in targeted["desktop"]["parts"]],
          json.dumps(resolved)[:300])

    if "into_git" in spec:
        # Every host would read a link into .git; agentspine never does.
        d = spec["into_git"]
        got = {h: verdicts_of(w.json(["resolve", "--host", h, "--cwd", os.path.join(tree, d), "--json"]))
               .get(f"{d}/AGENTS.md") for h in HOSTS if h != "gemini"}
        check(f"{name}: resolve in {d}, every host: {d}/AGENTS.md is link-refused (into-git)",
              set(got.values()) == {"link-refused (into-git)"}, f"{got}")
        sent = w.hook("codex", codex_patch("c4", tree, os.path.join(tree, d, "a.ts")))
        (answer,) = w.mcp(tree, [("resolve_context", {"project_root": tree, "host": "pi", "target_path": d})])
        check(f"{name}: hook codex and mcp resolve_context on {d}: nothing from .git, the root's file only",
              sent == "" and [p["label"] for p in answer.get("parts", [])] == ["AGENTS.md"],
              f"{sent[:200]} {json.dumps(answer)[:200]}")

    if name == "skills":
        # check --paths through the link out names a directory outside the
        # root, as that directory named directly does.
        out = w.run(["check", "--root", tree, "--paths", os.path.join(tree, ".claude/skills/z"), "--json"])
        error = json.loads(out.stdout or "{}").get("error", {})
        check(f"{name}: check --paths .claude/skills/z (a link out): exit 2, path-through-link",
              out.returncode == 2 and error.get("code") == "path-through-link", out.stdout[:300])
        # A tool or a session through the skills' directory links: refused
        # on every surface, never read through (the link out holds a
        # secret, the link in is refused the same way).
        for rel in (".claude/skills/x/a.ts", ".claude/skills/z/a.ts"):
            path = os.path.join(tree, rel)
            r = w.json(["resolve", "--host", "codex", "--root", tree, "--target", path, "--json"])
            check(f"{name}: resolve --target {rel}: target-through-symlink",
                  r.get("error", {}).get("code") == "target-through-symlink", json.dumps(r)[:300])
            sent = w.hook("claude", claude_payload("s3", tree, "PreToolUse", tool_name="Read",
                                                   tool_input={"file_path": path}))
            sent += w.hook("codex", codex_patch("c3", tree, path))
            rows = [(e["host"], e["code"], e["path"]) for e in w.audit()]
            check(f"{name}: hooks claude and codex on {rel}: nothing sent, an audit row each",
                  sent == "" and ("claude", "target-through-symlink", path) in rows
                  and ("codex", "target-through-symlink", path) in rows, f"{sent[:200]} {rows}")
            (answer,) = w.mcp(tree, [("resolve_context", {"project_root": tree, "host": "claude",
                                                          "target_path": rel})])
            check(f"{name}: mcp resolve_context {rel}: an error naming the link",
                  "a symbolic link is on the path" in answer.get("error", ""), json.dumps(answer)[:300])
            _, _, (resolved,) = w.socket_session(tree, [rel])
            check(f"{name}: socket resolve {rel}: refused, reason symlink",
                  resolved.get("error", {}).get("data", {}).get("reason") == "symlink", json.dumps(resolved)[:300])

    leaked = w.leaked(SECRET, GITDB)
    check(f"{name}: no surface ever printed text from outside the project or from .git", not leaked, f"{leaked}")


# ---------------------------------------------------------------- hostile
# The same hostile roots on every surface: the user's command line follows
# a link once and binds the directory it names; a client's root (a hook's
# cwd, MCP project_root and roots, projects.register) is taken as given
# and refused through a link.

def hostile_roots(bin_: str, base: str) -> None:
    w = World(bin_, base, "hostile-roots")
    tree, outside = os.path.join(w.base, "tree"), os.path.join(w.base, "outside")
    os.makedirs(os.path.join(tree, ".git"))
    write(os.path.join(tree, "AGENTS.md"), "root rules\n")
    write(os.path.join(tree, "pkg", "AGENTS.md"), "pkg rules\n")
    write(os.path.join(tree, "pkg", "GEMINI.md"), "pkg gemini\n")
    write(os.path.join(tree, "pkg", "a.ts"), "x\n")
    write(os.path.join(outside, "AGENTS.md"), "OUTSIDE-RULES\n")
    write(os.path.join(w.base, "secret.md"), SECRET + "\n")
    os.symlink(tree, os.path.join(w.base, "linked"))
    os.symlink("pkg", os.path.join(tree, "current"))
    os.symlink("../outside", os.path.join(tree, "vendor"))
    linked, proc = os.path.join(w.base, "linked"), "/proc/self/root" + tree
    pkg = os.path.join(tree, "pkg")

    def short(path: str) -> str:
        return path.replace(w.base, "<base>")

    # The CLI: a link in --root or --cwd is followed once; the request is
    # bound to the link-free directory (for tree/current the package, for
    # tree/vendor the directory outside: the user named it).
    for flag, named, root, labels in [
        ("--root", linked, tree, ["AGENTS.md"]),
        ("--root", proc, tree, ["AGENTS.md"]),
        ("--root", os.path.join(tree, "current"), pkg, ["AGENTS.md"]),
        ("--root", os.path.join(tree, "vendor"), outside, ["AGENTS.md"]),
        ("--cwd", os.path.join(linked, "pkg"), tree, ["AGENTS.md", "pkg/AGENTS.md"]),
        ("--cwd", proc + "/pkg", tree, ["AGENTS.md", "pkg/AGENTS.md"]),
    ]:
        r = w.json(["resolve", "--host", "codex", flag, named, "--json"])
        check(f"hostile roots: resolve {flag} {short(named)}: bound to {short(root)}, {labels}",
              r.get("project_root") == root and [p["label"] for p in r.get("parts", [])] == labels,
              json.dumps(r)[:300])
    b = w.json(["briefing", "--host", "codex", "--root", linked, "--json"])
    c = w.json(["check", "--root", linked, "--json"])
    d = w.json(["doctor", "--host", "codex", "--root", proc, "--json"])
    check("hostile roots: briefing, check and doctor bind the same link-free root",
          b.get("sourceResolution", {}).get("project_root") == tree and c.get("root") == tree
          and d.get("sourceResolution", {}).get("project_root") == tree, json.dumps([b, c, d])[:300])

    # Every client surface refuses each of these roots: the hooks (cwd),
    # MCP (project_root), the socket (projects.register).
    named = [linked, os.path.join(linked, "pkg"), proc, os.path.join(tree, "current"), os.path.join(tree, "vendor")]
    target = os.path.join(pkg, "a.ts")

    def hooks(cwd: str, n: str) -> list:
        return [w.hook("claude", claude_payload("s" + n, cwd, "SessionStart", source="startup")),
                w.hook("claude", claude_payload("s" + n, cwd, "PreToolUse", tool_name="Grep",
                                                tool_input={"pattern": "x", "path": pkg})),
                w.hook("codex", codex_patch("c" + n, cwd, target)),
                w.hook("gemini", {"session_id": "g" + n, "transcript_path": None, "cwd": cwd,
                                  "hook_event_name": "AfterTool", "timestamp": "2026-12-01T16:00:00.000Z",
                                  "tool_name": "grep_search", "tool_input": {"pattern": "x", "dir_path": pkg},
                                  "tool_response": {"llmContent": "x"}})]
    sent = hooks(tree, "-control")
    check("hostile roots: control: with the tree itself every hook adds context",
          all(sent) and "pkg rules" in sent[2] and "pkg gemini" in sent[3], json.dumps(sent)[:300])
    for n, cwd in enumerate(named):
        sent = hooks(cwd, str(n))
        rows = {(e["host"], e["event"]) for e in w.audit() if e["code"] == "root-through-link" and e["path"] == cwd}
        check(f"hostile roots: hooks with cwd {short(cwd)}: exit 0, nothing added, "
              "a root-through-link audit row per host and event",
              sent == ["", "", "", ""] and rows == {("claude", "SessionStart"), ("claude", "PreToolUse"),
                                                    ("codex", "PreToolUse"), ("gemini", "AfterTool")},
              f"{sent} {rows}"[:300])
    calls = []
    for root in named:
        calls += [("session_briefing", {"project_root": root, "host": "codex"}),
                  ("resolve_context", {"project_root": root, "host": "codex", "target_path": "AGENTS.md"})]
    answers = w.mcp(tree, calls + [("session_briefing", {"project_root": tree, "host": "codex"})])
    for i, root in enumerate(named):
        for tool, answer in zip(("session_briefing", "resolve_context"), answers[2 * i:2 * i + 2]):
            error = answer.get("error", "")
            check(f"hostile roots: mcp {tool} project_root {short(root)}: isError naming the root and the link",
                  error.startswith(f"{root}: refused: ") and "is a symbolic link; a root named "
                  "by a client is taken exactly as given" in error, json.dumps(answer)[:300])
    check("hostile roots: mcp: control: the tree itself resolves", "error" not in answers[-1],
          json.dumps(answers[-1])[:200])
    # Launched with --root through a link (the user's): the directory it
    # names is allowed, the link's spelling from a client still refused.
    given, spelled = w.mcp(tree, [("session_briefing", {"project_root": tree}),
                                  ("session_briefing", {"project_root": linked})], ["--root", linked])
    check("hostile roots: mcp --root <link>: the link-free root resolves, the link's spelling is refused",
          given.get("sourceResolution", {}).get("project_root") == tree
          and "is a symbolic link" in spelled.get("error", ""), json.dumps([given, spelled])[:300])
    # A client's roots (roots/list), launched in the home directory.
    offered = [linked, proc, os.path.join(tree, "current"), tree]
    answers = w.mcp(w.home, [("session_briefing", {"project_root": r}) for r in offered], roots=offered)
    check("hostile roots: mcp client roots: each offered link refused, the tree offered resolves",
          all("is a symbolic link" in a.get("error", "") for a in answers[:3])
          and answers[3].get("sourceResolution", {}).get("project_root") == tree, json.dumps(answers)[:400])
    replies = w.socket_calls([("projects.register", {"root": r}) for r in named]
                             + [("projects.register", {"root": tree}),
                                ("session.bind", {"session_id": "s", "project_root": linked})])
    for root, reply in zip(named, replies):
        error = reply.get("error", {})
        check(f"hostile roots: socket projects.register {short(root)}: root-through-link",
              error.get("data", {}).get("reason") == "root-through-link" and error.get("message", "").startswith(root),
              json.dumps(reply)[:300])
    check("hostile roots: socket: the tree registers, a session bound through the link is refused",
          replies[-2].get("result", {}).get("root") == tree and "error" in replies[-1], json.dumps(replies[-2:])[:300])

    # --memory-dir through a link, in each spelling, on each command.
    memory = os.path.join(w.base, "memory")
    write(os.path.join(memory, "MEMORY.md"), "# Memory\n\n- [Style](style.md) <!-- agentspine:always -->\n")
    write(os.path.join(memory, "style.md"), "MEMORY-FACT\n")
    os.symlink(memory, os.path.join(w.base, "memory-link"))
    os.makedirs(os.path.join(w.base, "via"))
    os.symlink("../memory", os.path.join(w.base, "via", "m"))
    for spelled in (os.path.join(w.base, "memory-link"), os.path.join(w.base, "via", "m"), "/proc/self/root" + memory):
        for args in (["memory", "--host", "claude"], ["doctor", "--host", "claude", "--offline-memory-orphans"]):
            out = w.run(args + ["--memory-dir", spelled, "--json"])
            error = json.loads(out.stdout or "{}").get("error", {})
            check(f"hostile roots: {args[0]} --memory-dir {short(spelled)}: exit 2, "
                  "memory-dir-through-link", out.returncode == 2 and error.get("code") == "memory-dir-through-link"
                  and error.get("path") == spelled, out.stdout[:300])
    r = w.json(["memory", "--host", "claude", "--memory-dir", memory, "--json"])
    check("hostile roots: memory --memory-dir: control: the directory itself loads its fact",
          r.get("report", {}).get("loaded") == 1, json.dumps(r)[:300])

    # A hostile .agentspine.toml: check exits 2 naming the file; every
    # other surface answers as without it, at once (a FIFO is never opened
    # for reading).
    config = os.path.join(tree, ".agentspine.toml")
    write(os.path.join(w.base, "secret.toml"), f'[check]\nnote = "{SECRET}"\n')

    def surfaces(n: str) -> list:
        r = w.json(["resolve", "--host", "codex", "--cwd", pkg, "--json"])
        b = w.json(["briefing", "--host", "codex", "--cwd", pkg, "--json"])
        (m,) = w.mcp(tree, [("resolve_context", {"project_root": tree, "host": "codex", "target_path": "pkg/a.ts"})])
        _, _, (s,) = w.socket_session(tree, ["pkg/a.ts"])
        return [r.get("native"), [x["sha256"] for x in b.get("sources", [])], m.get("native"),
                s.get("result", {}).get("chain", {}).get("text"),
                w.hook("claude", claude_payload("cfg" + n, tree, "SessionStart", source="startup")),
                w.hook("codex", codex_patch("cfg" + n, tree, target))]
    baseline = surfaces("-none")
    hostile = [
        ("a FIFO", lambda: os.mkfifo(config), "config-unreadable", "it is a FIFO"),
        ("a link out of the project", lambda: os.symlink("../secret.toml", config), "config-unreadable",
         "a link out of its directory's tree"),
        ("2 MiB", lambda: write(config, "# padding\n" * (2 * 1024 * 1024 // 10 + 1)), "config-unreadable",
         "over the 1048576"),
        ("a directory", lambda: os.makedirs(config), "config-unreadable", "it is a directory"),
        ("a dangling link", lambda: os.symlink("gone.toml", config), "config-unreadable", "dangling"),
        ("malformed", lambda: write(config, "[check\n"), "config-malformed", ""),
    ]
    for n, (what, make, code, why) in enumerate(hostile):
        make()
        started = time.monotonic()
        out = w.run(["check", "--root", tree, "--json"])
        error = json.loads(out.stdout or "{}").get("error", {})
        check(f"hostile roots: .agentspine.toml {what}: check exits 2, {code}, naming the file",
              out.returncode == 2 and error.get("code") == code and error.get("path") == config
              and error.get("message", "").startswith(config) and why in error.get("message", ""), out.stdout[:300])
        out = w.run(["check", "--root", tree])
        check(f"hostile roots: .agentspine.toml {what}: check's text names it on stderr",
              out.returncode == 2 and config in out.stderr, out.stderr[:300])
        if n < 3:
            got = surfaces(str(n))
            check(f"hostile roots: .agentspine.toml {what}: resolve, briefing, mcp, the socket and the hooks "
                  "answer as without it, at once",
                  got[:4] == baseline[:4] and got[4] == baseline[4] and "pkg rules" in got[5]
                  and time.monotonic() - started < 20, json.dumps(got)[:300])
        if os.path.isdir(config) and not os.path.islink(config):
            os.rmdir(config)
        else:
            os.remove(config)
    # A link inside the project is read by its target.
    write(os.path.join(tree, "docs", "CLAUDE.md"), "docs claude\n")
    write(os.path.join(tree, "conf", "agentspine.toml"),
          '[[check.silence]]\nid = "never-read"\npath = "docs/CLAUDE.md"\n')
    shutil.copy(os.path.join(tree, "conf", "agentspine.toml"), config)
    copied = w.json(["check", "--root", tree, "--json"])
    os.remove(config)
    os.symlink("conf/agentspine.toml", config)
    report = w.json(["check", "--root", tree, "--json"])
    check("hostile roots: .agentspine.toml linked inside the project: read by its target, as a copy is",
          report.get("summary", {}).get("silenced", 0) > 0 and report.get("summary") == copied.get("summary")
          and findings_of(report) == findings_of(copied)
          and not [f for f in findings_of(report) if f[2] == "docs/CLAUDE.md"], json.dumps(report)[:300])
    leaked = w.leaked(SECRET, "MEMORY-FACT")
    check("hostile roots: no surface ever printed the secret or the memory fact", not leaked, f"{leaked}")


def named_profiles(bin_: str, base: str) -> None:
    """Profile directories the user names are never a project, like the
    built-in ones, on every surface: $AGENTSPINE_PROFILE_DIRS (here through
    a link) and `[roots] profiles` in the user's configuration file."""
    w = World(bin_, base, "profile-dirs-env")
    real = os.path.join(w.base, "profiles", "team")
    os.makedirs(real)
    os.symlink(real, os.path.join(w.base, "team-link"))
    w.env["AGENTSPINE_PROFILE_DIRS"] = os.path.join(w.base, "team-link")
    never_a_project(w, "AGENTSPINE_PROFILE_DIRS", real, "root-is-profile")
    out = w.run(["check", "--root", real, "--json"])
    check("AGENTSPINE_PROFILE_DIRS: check: not-a-project, exit 2",
          out.returncode == 2 and json.loads(out.stdout)["error"]["code"] == "not-a-project", out.stdout[:300])
    r = w.json(["resolve", "--host", "codex", "--cwd", os.path.join(real, "sub"), "--json"])
    check("AGENTSPINE_PROFILE_DIRS: a directory inside it is an ordinary project",
          r.get("root_kind") == "project" and [p["label"] for p in r.get("parts", [])] == ["AGENTS.md"],
          json.dumps(r)[:300])

    w = World(bin_, base, "profile-dirs-config")
    real = os.path.join(w.home, "agent-profiles", "team")
    os.makedirs(real)
    write(os.path.join(w.home, ".config", "agentspine", "config.toml"),
          '[roots]\nprofiles = ["~/agent-profiles/team"]\n')
    never_a_project(w, "[roots] profiles", real, "root-is-profile")
    out = w.run(["check", "--root", real, "--json"])
    check("[roots] profiles: check: not-a-project, exit 2",
          out.returncode == 2 and json.loads(out.stdout)["error"]["code"] == "not-a-project", out.stdout[:300])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--agentspine", required=True)
    a = ap.parse_args()
    bin_ = harness.agentspine(a.agentspine)
    # (removed afterwards whatever modes a fixture left on its directories)
    with harness.scratch("agentspine-surfaces-") as base:
        base = os.path.realpath(base)
        # Home, above home.
        w = World(bin_, base, "home")
        write(os.path.join(w.home, ".claude", "CLAUDE.md"), "user claude rules\n")
        never_a_project(w, "home", w.home, "root-is-home")
        never_a_project(w, "above home", w.base, "root-above-home")

        # Home through a link: HOME names a link to the real home.
        w = World(bin_, base, "linked-home")
        real = os.path.join(w.base, "real-home")
        os.rename(w.home, real)
        os.symlink(real, w.home)
        never_a_project(w, "home through a link", real, "root-is-home")

        # A profile through a link: CLAUDE_CONFIG_DIR names a link.
        w = World(bin_, base, "linked-profile")
        real = os.path.join(w.base, "claude-config")
        os.makedirs(real)
        os.symlink(real, os.path.join(w.base, "claude-link"))
        w.env["CLAUDE_CONFIG_DIR"] = os.path.join(w.base, "claude-link")
        never_a_project(w, "profile through a link", real, "root-is-profile")

        # A dotfiles home: its `.git` makes no root; a directory below with
        # no marker of its own is its own project, the same everywhere.
        w = World(bin_, base, "dotfiles")
        os.makedirs(os.path.join(w.home, ".git"))
        app = os.path.join(w.home, "src", "app")
        write(os.path.join(app, "AGENTS.md"), "app rules\n")
        write(os.path.join(app, "pkg", "AGENTS.md"), "pkg rules\n")
        write(os.path.join(app, "pkg", "a.ts"), "x\n")
        r = w.json(["resolve", "--host", "codex", "--cwd", app, "--json"])
        check("dotfiles: resolve binds the working directory", r.get("project_root") == app
              and r.get("root_kind") == "project", json.dumps(r)[:300])
        b = w.json(["briefing", "--host", "codex", "--json"], cwd=app)
        check("dotfiles: briefing from the same directory binds the same root",
              b.get("sourceResolution", {}).get("project_root") == app
              and [s["rel_path"] for s in b.get("sources", []) if s["scope"] == "project"] == ["AGENTS.md"],
              json.dumps(b)[:300])
        sent = w.hook("codex", codex_patch("c", app, os.path.join(app, "pkg", "a.ts")))
        check("dotfiles: hook codex sends the package's own file", "pkg rules" in sent and "app rules" not in sent,
              sent[:200])
        (answer,) = w.mcp(app, [("session_briefing", {"project_root": app})])
        check("dotfiles: mcp launched in the directory resolves it",
              "error" not in answer and answer["sourceResolution"]["project_root"] == app, json.dumps(answer)[:300])
        (answer,) = w.mcp(app, [("session_briefing", {"project_root": w.home})])
        check("dotfiles: mcp never resolves the home", "never a project root" in answer.get("error", ""),
              json.dumps(answer)[:300])
        (reply,) = w.socket_calls([("projects.register", {"root": app})])
        check("dotfiles: socket registers the directory", reply.get("result", {}).get("root") == app,
              json.dumps(reply)[:300])

        # A project nested in a profile is a project.
        w = World(bin_, base, "nested-profile")
        nested = os.path.join(w.home, ".claude", "projects", "tool")
        os.makedirs(os.path.join(nested, ".git"))
        write(os.path.join(nested, "AGENTS.md"), "tool rules\n")
        r = w.json(["resolve", "--host", "codex", "--cwd", nested, "--json"])
        check("nested in a profile: resolve: a project", r.get("root_kind") == "project"
              and any(p["label"] == "AGENTS.md" for p in r.get("parts", [])), json.dumps(r)[:300])
        (answer,) = w.mcp(nested, [("session_briefing", {"project_root": nested})])
        check("nested in a profile: mcp: a project", "error" not in answer, json.dumps(answer)[:300])
        (reply,) = w.socket_calls([("projects.register", {"root": nested})])
        check("nested in a profile: socket: registered", "result" in reply, json.dumps(reply)[:300])

        # A session started in a package of a monorepo with Claude memory.
        w = World(bin_, base, "monorepo")
        repo = os.path.join(w.base, "repo")
        shutil.copytree(os.path.join(os.path.dirname(__file__), "..", "..", "examples", "monorepo"), repo)
        os.makedirs(os.path.join(repo, ".git"))
        enc = "".join(c if c.isalnum() and c.isascii() else "-" for c in repo)
        memory = os.path.join(w.home, ".claude", "projects", enc, "memory")
        write(os.path.join(memory, "MEMORY.md"), "# Memory\n\n- [Style](style.md) <!-- agentspine:always -->\n")
        write(os.path.join(memory, "style.md"), "Answer in short sentences.\n")
        api = os.path.join(repo, "packages", "api")
        r = w.json(["resolve", "--host", "claude", "--cwd", api, "--json"])
        check("monorepo package: resolve loads MEMORY.md",
              any(p["scope"] == "memory" for p in r.get("parts", [])), json.dumps(r)[:300])
        b = w.json(["briefing", "--host", "claude", "--json"], cwd=api)
        mem = [s["rel_path"] for s in b.get("sources", []) if s["scope"] == "memory"]
        check("monorepo package: briefing has the index and the fact", mem == ["MEMORY.md", "memory:1"], f"{mem}")
        sent = w.hook("claude", claude_payload("s", api, "SessionStart", source="startup"))
        check("monorepo package: hook SessionStart sends the fact", "short sentences" in sent, sent[:200])
        (answer,) = w.mcp(api, [("session_briefing", {"project_root": repo, "host": "claude", "cwd": api})])
        mem = [s["rel_path"] for s in answer.get("sources", []) if s["scope"] == "memory"]
        check("monorepo package: mcp briefing has the same memory", mem == ["MEMORY.md", "memory:1"],
              json.dumps(answer)[:300])

        # An unreadable .claude/rules directory: a gap everywhere.
        w = World(bin_, base, "unreadable")
        proj = os.path.join(w.base, "proj")
        write(os.path.join(proj, "CLAUDE.md"), "root claude\n")
        write(os.path.join(proj, ".claude", "rules", "a.md"), "rule a\n")
        os.makedirs(os.path.join(proj, ".git"))
        os.chmod(os.path.join(proj, ".claude", "rules"), 0)
        w.unprivileged = True
        r = w.json(["resolve", "--host", "claude", "--cwd", proj, "--json"])
        verdicts = {p["path"]: p["verdict"] for p in r.get("probes", [])}
        check("unreadable rules: resolve: permission-denied", verdicts.get(".claude/rules") == "permission-denied",
              f"{verdicts}")
        out = w.run(["briefing", "--host", "claude", "--required", "--json"], cwd=proj)
        causes = json.loads(out.stdout).get("error", {}).get("causes", []) if out.stdout.strip() else []
        check("unreadable rules: briefing --required: exit 3, no receipt, the gap named",
              out.returncode == 3 and [(c["what"], c["cause"]) for c in causes]
              == [(".claude/rules", "permission-denied")], out.stdout[:300])
        (answer,) = w.mcp(proj, [("session_briefing", {"project_root": proj, "host": "claude", "required": True})])
        check("unreadable rules: mcp required: isError naming the gap",
              ".claude/rules (permission-denied)" in answer.get("error", ""), json.dumps(answer)[:300])
        write(os.path.join(proj, "src", "a.ts"), "x\n")
        w.hook("claude", claude_payload("s", proj, "PreToolUse", tool_name="Grep",
                                        tool_input={"pattern": "x", "path": os.path.join(proj, "src")}))
        rows = [(e["event"], e["phase"], e["code"], e["path"]) for e in w.audit()]
        check("unreadable rules: hook: one audit row with event, phase, code, path",
              rows.count(("PreToolUse", "chain", "permission-denied", ".claude/rules")) == 1, f"{rows}")
        w.unprivileged = False
        os.chmod(os.path.join(proj, ".claude", "rules"), 0o755)
        w.unprivileged = True
        out = w.run(["briefing", "--host", "claude", "--required", "--json"], cwd=proj)
        check("unreadable rules: the retry after the fix gives a receipt",
              out.returncode == 0 and json.loads(out.stdout).get("receipt"), out.stdout[:200])

        # A 40 KiB desktop chain: the same text on the CLI, MCP and the socket.
        w = World(bin_, base, "desktop")
        proj = os.path.join(w.base, "proj")
        os.makedirs(os.path.join(proj, ".git"))
        write(os.path.join(w.home, ".pi", "agent", "AGENTS.md"), "global\n")
        write(os.path.join(proj, "AGENTS.md"), "root " * 2400)
        write(os.path.join(proj, "a", "AGENTS.md"), "mid " * 4000)
        write(os.path.join(proj, "a", "b", "AGENTS.md"), "near " * 3200)
        write(os.path.join(proj, "a", "b", "x.ts"), "x\n")
        r = w.json(["resolve", "--host", "desktop", "--root", proj, "--target", os.path.join(proj, "a/b/x.ts"), "--json"])
        kept = {p["label"]: p["cut"] for p in r.get("parts", [])}
        check("desktop 40 KiB: the closest files whole, the root file cut, the global file out",
              kept.get("a/b/AGENTS.md") is None and kept.get("a/AGENTS.md") is None
              and kept.get("AGENTS.md") is not None and "~/.pi/agent/AGENTS.md" not in kept, f"{kept}")
        (answer,) = w.mcp(proj, [("resolve_context", {"project_root": proj, "host": "desktop", "target_path": "a/b/x.ts"})])
        check("desktop 40 KiB: mcp resolve_context has the same text", answer.get("native") == r.get("native"),
              json.dumps(answer)[:200])
        replies = w.socket_calls([("projects.register", {"root": proj}),
                                  ("session.bind", {"session_id": "s", "project_root": proj})])
        bound = replies[1].get("result", {})
        sock_path = os.path.join(w.base, "run", "s.sock")
        check("desktop 40 KiB: the socket binds", "token" in bound, json.dumps(replies)[:300])
        # The sidecar's resolution of the same target, on the live server.
        proc = subprocess.Popen(w.cmd(["serve", "--socket", sock_path, "--json"]), stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, env=w.env, text=True)
        try:
            ready = json.loads(proc.stdout.readline())
            token = open(ready["token_file"]).read().strip()
            conn = socket.socket(socket.AF_UNIX)
            conn.connect(ready["socket"])
            stream = conn.makefile("rw")

            def call(n, method, params):
                stream.write(json.dumps({"jsonrpc": "2.0", "id": n, "method": method, "params": params}) + "\n")
                stream.flush()
                return json.loads(stream.readline())

            call(1, "host.authenticate", {"control_token": token})
            call(2, "projects.register", {"root": proj})
            bound = call(3, "session.bind", {"session_id": "s", "project_root": proj})["result"]
            chain = call(4, "project.instructions.resolve",
                         {"session_id": "s", "token": bound["token"], "path": "a/b/x.ts"})["result"]["chain"]
            check("desktop 40 KiB: the socket's chain text is the CLI's", chain["text"] == r.get("native"),
                  chain["text"][:200])
            conn.close()
        finally:
            proc.terminate()
            proc.wait(timeout=10)
        # A project's own accepted records: context in it on every surface.
        w = World(bin_, base, "own-records")
        proj = os.path.join(w.base, "proj")
        os.makedirs(os.path.join(proj, ".git"))
        write(os.path.join(proj, "AGENTS.md"), "proj rules\n")
        for kind, text in [("preference", "Answer in British English."), ("secret", "The password is hunter2.")]:
            added = w.run(["record", "add", "--kind", kind, text, "--cwd", proj])
            w.run(["record", "accept", added.stdout.split()[1], "--cwd", proj])
        own = ["project/preference/record:1"]
        b = w.json(["briefing", "--host", "desktop", "--cwd", proj, "--json"])
        cli = [s["rel_path"] for s in b.get("sources", []) if s["scope"] == "continuity"]
        check("own records: briefing carries the accepted preference, not the secret", cli == own, f"{cli}")
        (answer,) = w.mcp(proj, [("session_briefing", {"project_root": proj, "host": "desktop"})])
        mcp = [s["rel_path"] for s in answer.get("sources", []) if s["scope"] == "continuity"]
        check("own records: mcp briefing carries the same", mcp == own, json.dumps(answer)[:300])
        sent = w.hook("claude", claude_payload("s", proj, "SessionStart", source="startup"))
        check("own records: hook SessionStart sends the preference, not the secret",
              "project/preference/record:1" in sent and "British" in sent and "hunter2" not in sent, sent[:300])
        replies = w.socket_calls([("projects.register", {"root": proj}),
                                  ("session.bind", {"session_id": "s", "project_root": proj}),
                                  ("session.prompt_begin", {"session_id": "s"})])
        for name, reply in [("session.bind", replies[1]), ("session.prompt_begin", replies[2])]:
            items = reply.get("result", {}).get("continuity", [])
            check(f"own records: socket {name} carries the same",
                  [i["label"] for i in items] == own and "hunter2" not in json.dumps(reply), json.dumps(reply)[:300])
        for spec in LAYOUTS:
            link_layout(bin_, base, spec)
        hostile_roots(bin_, base)
        named_profiles(bin_, base)
    return tally.summary()


if __name__ == "__main__":
    time.sleep(0)
    sys.exit(main())
