#!/usr/bin/env python3
"""One resolver, the same answer on every surface.

    check.py --agentspine BIN

Each fixture below is resolved through the CLI (`resolve`, `briefing`),
both hooks (`hook claude`, `hook codex`), the MCP server (raw JSON lines
over stdio, launched the way a client launches it) and the desktop socket
(`serve`), and every surface must agree: the same root and root kind, the
same sources, the same verdicts, the same reason. Prints one line per check
and `N passed, M failed`.

Fixtures: the home directory, a directory above it, the home reached
through a link, a profile reached through a link, a dotfiles home (a `.git`
in `$HOME`), a project nested in a profile, a session started in a package
of a monorepo that has Claude memory, an unreadable `.claude/rules`
directory (run without the DAC capabilities), and a 40 KiB desktop chain, and a project's own accepted records.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

RESULTS = {"passed": 0, "failed": 0}


def check(name: str, ok: bool, detail: str = "") -> bool:
    RESULTS["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + name + ("" if ok or not detail else f": {detail}"))
    return ok


def write(path: str, text: str) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


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

    def cmd(self, args: list) -> list:
        full = [self.bin] + args
        if self.unprivileged and os.geteuid() == 0:
            drop = "-dac_override,-dac_read_search"
            full = ["setpriv", "--bounding-set", drop, "--inh-caps", drop] + full
        return full

    def run(self, args: list, cwd: str = None, stdin: str = None) -> subprocess.CompletedProcess:
        return subprocess.run(self.cmd(args), input=stdin, capture_output=True, text=True,
                              env=self.env, cwd=cwd or self.base, timeout=60)

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
        if not out.stdout.strip():
            return ""
        return json.loads(out.stdout)["hookSpecificOutput"]["additionalContext"]

    def audit(self) -> list:
        out = self.run(["audit", "--json"])
        try:
            return json.loads(out.stdout).get("events", [])
        except json.JSONDecodeError:
            return []

    def mcp(self, cwd: str, calls: list, args: list = ()) -> list:
        """Tool results ({"error": text} for an isError result), launched in `cwd`."""
        lines = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "surfaces", "version": "0"}}},
                 {"jsonrpc": "2.0", "method": "notifications/initialized"}]
        for i, (tool, arguments) in enumerate(calls, 1):
            lines.append({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                          "params": {"name": tool, "arguments": arguments}})
        proc = subprocess.Popen(self.cmd(["mcp", *args]), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, env=self.env, cwd=cwd, text=True)
        answers = {}
        for line in lines:
            proc.stdin.write(json.dumps(line) + "\n")
            proc.stdin.flush()
            if "id" not in line:
                continue
            while True:
                reply = json.loads(proc.stdout.readline())
                if reply.get("id") == line["id"]:
                    answers[line["id"]] = reply
                    break
        proc.stdin.close()
        proc.wait(timeout=10)
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
                out.append(json.loads(stream.readline()))
            conn.close()
            return out[1:]
        finally:
            proc.terminate()
            proc.wait(timeout=10)


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


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--agentspine", required=True)
    a = ap.parse_args()
    bin_ = os.path.abspath(a.agentspine)
    base = tempfile.mkdtemp(prefix="agentspine-surfaces-")
    try:
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
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", base], check=False)
        shutil.rmtree(base, ignore_errors=True)
    print(f"{RESULTS['passed']} passed, {RESULTS['failed']} failed")
    return 1 if RESULTS["failed"] else 0


if __name__ == "__main__":
    time.sleep(0)
    sys.exit(main())
