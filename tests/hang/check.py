#!/usr/bin/env python3
"""A project on a FUSE file system whose instruction files never answer.

The project root lies on the mount (the confined reader refuses to cross a
mount below a root, so this is the hang that remains: a project, profile or
memory directory that is itself on a hung network or FUSE file system).
`hangfs` (built here from hangfs.c against libfuse3) mirrors a backing
directory; its `packages/api/AGENTS.md`, `packages/api/CLAUDE.md` and
`packages/api/memory/MEMORY.md` never answer a read. Every other file
answers at once. The suite is the subreaper of what it starts, so the
children a command leaves behind become its own, to be followed.

Checked, each timed from spawn to the exit the caller observes:
- `hook claude` and `hook codex` (PreToolUse on packages/api/a.ts), twice
  each (the second run's open meets the page the first read still locks:
  an uninterruptible sleep): exit 0 within 2.0 s, audit row written,
  naming the file that never answered;
- `resolve --host codex --target packages/api/a.ts`, `briefing --json` and
  `check --json`: exit 2 within their bound (+ slack; 3 s, and 12 s for
  `check`, which stops starting reads at 10 s), the error names the project
  root and the file that never answered (`briefing --json`: code
  `deadline` on stdout);
- `doctor --json` (bound 5 s), `source-status` and `memory --memory-dir`
  (3 s) with the stuck file under the project: exit 2 within their bound
  (+ slack), the error naming the directory given and the stuck file; the
  child each left behind has SIGKILL pending while the mount hangs and is
  gone once the daemon is killed (no process left behind);
- MCP `session_briefing` on the stuck root: an isError result within its
  bound, while a second call for a healthy root on the same mount is
  answered meanwhile; the server exits when stdin closes;
- `hook claude` (PreToolUse) whose context is printed and whose record of
  what it sent then never finishes (the session's file is created on a
  second mount, at the state directory's `sessions/`, where creating that
  file never answers): exit 0 within 2.0 s, late (1.6 s or more), the
  context printed whole, and an audit row in the `session-state` phase;
- the desktop socket (`serve`): a sidecar's `project.instructions.resolve`
  for the stuck directory answers with the session's root chain and a
  `fallback` within its 2 s bound (+ slack), while a resolve for the healthy
  root on another connection is answered meanwhile; the server still
  answers afterwards and stops on SIGTERM.

Skips (exit 0, with the reason) when not root, without /dev/fuse, or when
libfuse3's headers or the mount are not available. Always unmounts.
"""
import argparse
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

import harness

HOOK_BOUND = 2.0
tally = harness.Tally()
check = tally.check


def skip(reason: str) -> int:
    print(f"skipped: {reason}")
    return 0


# The abandoned children the suite follows until the mount is gone: the
# suite is their subreaper (PR_SET_CHILD_SUBREAPER), so a child its command
# left behind becomes the suite's own, found by its parent pid and reaped.
LEFT_BEHIND = {}


def become_subreaper() -> bool:
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER


def adopted() -> set:
    """The pids of this process's children (its own and adopted ones)."""
    me, found = os.getpid(), set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me:
            found.add(int(pid))
    return found


def reap_all(pids, timeout: float) -> set:
    """The pids among `pids` not yet exited after `timeout` seconds (the
    rest reaped)."""
    left, end = set(pids), time.monotonic() + timeout
    while left and time.monotonic() < end:
        for pid in list(left):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                left.discard(pid)
        time.sleep(0.05)
    return left


def kill_pending(pid: int) -> bool:
    """Whether SIGKILL is pending for `pid` (in any of its threads)."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                for line in f:
                    key, _, value = line.partition(":")
                    if key in ("SigPnd", "ShdPnd") and int(value.strip(), 16) & (1 << 8):
                        return True
        except (OSError, ValueError):
            pass
    return False


def tasks(pid: int) -> list:
    """Each thread of `pid`: its state and pending signal masks (for a
    failure's detail)."""
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                keep = [line.strip() for line in f if line.split(":")[0] in ("State", "SigPnd", "ShdPnd")]
            out.append((tid, keep))
    except OSError as e:
        out.append(str(e))
    return out


def run_timed(argv, env, stdin=b"", kill_after=20.0):
    """(exit code, stdout, stderr, seconds from spawn to observed exit)."""
    started = time.monotonic()
    proc = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = proc.communicate(stdin, timeout=kill_after)
    except subprocess.TimeoutExpired:
        proc.kill()
        return None, b"", b"", time.monotonic() - started
    return proc.returncode, out, err, time.monotonic() - started


class Mcp:
    def __init__(self, argv, env, cwd):
        self.proc = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        os.set_blocking(self.proc.stdout.fileno(), False)
        self.buf = b""

    def send(self, obj) -> None:
        self.proc.stdin.write((json.dumps(obj) + "\n").encode())
        self.proc.stdin.flush()

    def read(self, timeout: float):
        """The next JSON line, or None after `timeout` seconds."""
        end = time.monotonic() + timeout
        while b"\n" not in self.buf:
            if time.monotonic() >= end:
                return None
            chunk = self.proc.stdout.read(65536)
            if chunk:
                self.buf += chunk
            elif chunk == b"":
                return None
            else:
                time.sleep(0.01)
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)


def call(id_: int, tool: str, args: dict) -> dict:
    return {"jsonrpc": "2.0", "id": id_, "method": "tools/call", "params": {"name": tool, "arguments": args}}


def mount(fs_bin: str, back: str, mnt: str, hang: str, mode: str, threads: int):
    """Starts hangfs mirroring `back` at `mnt`, `hang` never answering in
    `mode`: (the daemon, None once mounted, else why not within 5 s)."""
    daemon = subprocess.Popen([fs_bin, back, mnt, hang, mode, "-o", f"max_threads={threads}"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for _ in range(100):
        if os.path.ismount(mnt) or daemon.poll() is not None:
            break
        time.sleep(0.05)
    if os.path.ismount(mnt):
        return daemon, None
    err = daemon.stderr.read().decode().strip()[:300] if daemon.poll() is not None else "not mounted after 5 s"
    return daemon, err


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--agentspine", required=True)
    a = ap.parse_args()
    bin_ = harness.agentspine(a.agentspine)
    if os.geteuid() != 0:
        return skip("mounting a FUSE file system needs root here")
    if not os.path.exists("/dev/fuse"):
        return skip("no /dev/fuse")
    cflags = subprocess.run(["pkg-config", "--cflags", "--libs", "fuse3"], capture_output=True, text=True)
    if cflags.returncode != 0 or not shutil.which("cc"):
        return skip("libfuse3 headers or a C compiler missing (apt-get install libfuse3-dev fuse3 pkg-config)")
    if not become_subreaper():
        return skip("prctl(PR_SET_CHILD_SUBREAPER) refused")
    base = tempfile.mkdtemp(prefix="agentspine-hang-")
    here = os.path.dirname(os.path.abspath(__file__))
    fs_bin = os.path.join(base, "hangfs")
    built = subprocess.run(["cc", "-O1", "-o", fs_bin, os.path.join(here, "hangfs.c"), *cflags.stdout.split()],
                           capture_output=True, text=True)
    if built.returncode != 0:
        return skip(f"hangfs did not build: {built.stderr.strip()[:300]}")
    back, mnt = os.path.join(base, "back"), os.path.join(base, "mnt")
    home, state = os.path.join(base, "home"), os.path.join(base, "state")
    for d in (mnt, home, state, os.path.join(back, "proj", ".git"), os.path.join(back, "healthy", ".git")):
        os.makedirs(d)
    harness.write_tree(back, {
        "proj/AGENTS.md": "root rules\n",
        "proj/packages/api/AGENTS.md": "api rules (never answers)\n",
        "proj/packages/api/CLAUDE.md": "api claude rules (never answers)\n",
        "proj/packages/api/a.ts": "x\n",
        "proj/packages/api/memory/MEMORY.md": "- [a](a.md) never answers\n",
        "healthy/AGENTS.md": "healthy rules\n",
    })
    hang = "proj/packages/api/AGENTS.md,proj/packages/api/CLAUDE.md,proj/packages/api/memory/MEMORY.md"
    daemon, failed = mount(fs_bin, back, mnt, hang, "read", 64)
    try:
        if failed is not None:
            return skip(f"the FUSE mount did not come up: {failed}")
        checks(bin_, mnt, home, state)
        session_state_checks(bin_, fs_bin, base)
    finally:
        # Unmount first (lazily: stuck processes may still hold it), then
        # kill the daemon: closing /dev/fuse aborts every pending request,
        # so no process stays stuck after the suite.
        subprocess.run(["umount", "-l", mnt], capture_output=True)
        daemon.kill()
        daemon.wait()
        shutil.rmtree(base, ignore_errors=True)
    if LEFT_BEHIND:
        left = {name: reap_all(pids, 3.0) for name, pids in LEFT_BEHIND.items()}
        check(f"no process left behind by {', '.join(LEFT_BEHIND)} once the mount is gone (all reaped within 3 s)",
              not any(left.values()), f"{left}")
    return tally.summary()


def checks(bin_: str, mnt: str, home: str, state: str) -> None:
    env = {**os.environ, "HOME": home, "XDG_STATE_HOME": state}
    env.pop("AGENTSPINE_LOG", None)
    proj, healthy = os.path.join(mnt, "proj"), os.path.join(mnt, "healthy")
    target = os.path.join(proj, "packages", "api", "a.ts")
    stuck_files = [os.path.join(proj, "packages", "api", name) for name in ("AGENTS.md", "CLAUDE.md")]
    # The mount answers for the files that do not hang.
    with open(os.path.join(healthy, "AGENTS.md")) as f:
        check("fixture: healthy files answer", f.read() == "healthy rules\n")

    payloads = {
        "claude": lambda s: {"session_id": s, "transcript_path": None, "cwd": proj, "hook_event_name": "PreToolUse",
                             "tool_name": "Edit", "tool_input": {"file_path": target}},
        "codex": lambda s: {"session_id": s, "cwd": proj, "hook_event_name": "PreToolUse", "model": "m",
                            "permission_mode": "default", "tool_name": "apply_patch",
                            "tool_input": {"command": f"*** Begin Patch\n*** Update File: {target}\n*** End Patch\n"}},
    }
    for round_ in (1, 2):
        for host in ("claude", "codex"):
            payload = json.dumps(payloads[host](f"{host}-{round_}")).encode()
            code, out, err, took = run_timed([bin_, "hook", host], env, payload)
            check(f"hook {host} (run {round_}): exit 0 observed within {HOOK_BOUND} s, nothing printed",
                  code == 0 and took < HOOK_BOUND and out == b"",
                  f"code {code}, {took:.2f} s, stdout {out[:200]!r}, stderr {err[:300]!r}")
    db = sqlite3.connect(os.path.join(state, "agentspine", "state.db"))
    rows = db.execute("select host, event, phase, code from audit where code = 'deadline' order by id").fetchall()
    db.close()
    hosts = sorted({r[0] for r in rows})
    check("audit: a deadline row per host, in the chain phase of PreToolUse",
          hosts == ["claude", "codex"] and all(r[1:] == ("PreToolUse", "chain", "deadline") for r in rows), f"{rows}")
    # The row names the file the work waited on (asked of the kernel once
    # the run was late): one of the two that never answer, never another.
    db = sqlite3.connect(os.path.join(state, "agentspine", "state.db"))
    named = sorted(db.execute("select host, path from audit where code = 'deadline'").fetchall())
    db.close()
    # Both runs of a host wait on the same file: one row each (identical
    # rows are coalesced). Claude Code's chain waits on CLAUDE.md, Codex's
    # on AGENTS.md.
    check("audit: each host's deadline row names the file that never answered",
          named == [("claude", stuck_files[1]), ("codex", stuck_files[0])], f"{named}")

    code, out, err, took = run_timed([bin_, "resolve", "--host", "codex", "--root", proj, "--target", target], env)
    check("resolve: exit 2 within 3.5 s, the error names the root and the file that never answered",
          code == 2 and took < 3.5 and proj in err.decode() and "did not finish within 3 s" in err.decode()
          and f"reading {stuck_files[0]} did not finish" in err.decode(),
          f"code {code}, {took:.2f} s, stderr {err[:300]!r}")

    code, out, err, took = run_timed([bin_, "briefing", "--host", "codex", "--root", proj, "--cwd",
                                      os.path.dirname(target), "--json"], env)
    try:
        error = json.loads(out)["error"]
    except (ValueError, KeyError):
        error = {}
    check("briefing --json: exit 2 within 3.5 s, a deadline error naming the root and the stuck file",
          code == 2 and took < 3.5 and error.get("code") == "deadline" and proj in error.get("message", "")
          and stuck_files[0] in error.get("message", ""),
          f"code {code}, {took:.2f} s, stdout {out[:300]!r}")

    code, out, err, took = run_timed([bin_, "check", "--root", proj, "--host", "codex", "--json"], env)
    try:
        error = json.loads(out)["error"]
    except (ValueError, KeyError):
        error = {}
    check("check --json: exit 2 within its 12 s bound, a deadline error naming the root and the stuck file",
          code == 2 and took < 12.5 and error.get("code") == "deadline" and proj in error.get("message", "")
          and stuck_files[0] in error.get("message", ""),
          f"code {code}, {took:.2f} s, stdout {out[:300]!r}, stderr {err[:300]!r}")

    api = os.path.dirname(target)
    memory_dir = os.path.join(api, "memory")
    bounded = [
        ("doctor --json", [bin_, "doctor", "--host", "codex", "--cwd", api, "--json"], 5, api, stuck_files[0]),
        ("source-status", [bin_, "source-status", "--host", "codex", "--cwd", api], 3, api, stuck_files[0]),
        ("memory --memory-dir", [bin_, "memory", "--host", "claude", "--cwd", proj, "--memory-dir", memory_dir], 3,
         memory_dir, os.path.join(memory_dir, "MEMORY.md")),
    ]
    for name, argv, bound, given, stuck in bounded:
        before = adopted()
        code, out, err, took = run_timed(argv, env)
        if "--json" in argv:
            try:
                error = json.loads(out)["error"]
            except (ValueError, KeyError, TypeError):
                error = {}
            said = error.get("message", "") if error.get("code") == "deadline" else ""
        else:
            said = err.decode()
        check(f"{name}: exit 2 within {bound + 0.5} s, the error names {given} and the file that never answered",
              code == 2 and took < bound + 0.5 and f"{given}: reading {stuck} did not finish within {bound} s" in said,
              f"code {code}, {took:.2f} s, stdout {out[:300]!r}, stderr {err[:300]!r}")
        children = sorted(adopted() - before)
        LEFT_BEHIND[name.split()[0]] = children
        check(f"{name}: the one child left behind was sent SIGKILL while the mount hangs",
              len(children) == 1 and kill_pending(children[0]),
              f"children {children}: {[tasks(pid) for pid in children]}")

    started = time.monotonic()
    mcp = Mcp([bin_, "mcp", "--root", proj, "--root", healthy], env, home)
    mcp.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "hang", "version": "0"}}})
    init = mcp.read(5)
    check("mcp: initialize answered", init is not None and init.get("id") == 1, f"{init}")
    mcp.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    stuck_sent = time.monotonic()
    mcp.send(call(2, "session_briefing", {"project_root": proj, "host": "codex", "cwd": "packages/api"}))
    time.sleep(0.2)
    mcp.send(call(3, "session_briefing", {"project_root": healthy, "host": "codex"}))
    first = mcp.read(2.0)
    first_at = time.monotonic() - stuck_sent
    check("mcp: the healthy root is answered while the stuck call waits",
          first is not None and first.get("id") == 3 and not first["result"].get("isError")
          and "healthy rules" in first["result"]["structuredContent"]["text"],
          f"{json.dumps(first)[:300]}")
    second = mcp.read(4.0)
    second_at = time.monotonic() - stuck_sent
    text = (second or {}).get("result", {}).get("content", [{}])[0].get("text", "")
    check("mcp: the stuck root gets an isError result within 3 s naming it and the stuck file",
          second is not None and second.get("id") == 2 and second["result"].get("isError") is True
          and proj in text and stuck_files[0] in text and second_at < 3.0,
          f"after {second_at:.2f} s (healthy after {first_at:.2f} s): {json.dumps(second)[:300]}")
    mcp.send(call(4, "session_briefing", {"project_root": healthy, "host": "codex"}))
    again = mcp.read(2.0)
    check("mcp: still answering afterwards", again is not None and again.get("id") == 4, f"{again}")
    mcp.proc.stdin.close()
    try:
        mcp.proc.wait(timeout=3)
        exited = True
    except subprocess.TimeoutExpired:
        mcp.proc.kill()
        exited = False
    check("mcp: exit observed when stdin closes", exited and mcp.proc.returncode == 0,
          f"exited {exited}, code {mcp.proc.returncode}, {time.monotonic() - started:.2f} s in all")

    socket_checks(bin_, env, proj, healthy, home)


class Line:
    """One JSON-lines connection to the desktop socket."""

    def __init__(self, path: str):
        self.conn = socket.socket(socket.AF_UNIX)
        self.conn.connect(path)
        self.buf = b""

    def send(self, id_: int, method: str, params: dict) -> None:
        self.conn.sendall((json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params}) + "\n").encode())

    def read(self, timeout: float):
        """The next JSON line, or None after `timeout` seconds."""
        end = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            if left <= 0:
                return None
            self.conn.settimeout(left)
            try:
                chunk = self.conn.recv(65536)
            except (socket.timeout, OSError):
                return None
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def call(self, id_: int, method: str, params: dict, timeout: float = 5.0):
        self.send(id_, method, params)
        return self.read(timeout)


class Plain:
    """A local project whose hook answers at once: `packages/api` has its own
    CLAUDE.md, which a Claude Code Read there from `packages/web` gets (the
    fixture of the checks that make the hook itself late)."""

    def __init__(self, base: str, name: str):
        self.root = os.path.join(base, name)
        self.home, self.state = os.path.join(base, name + "-home"), os.path.join(base, name + "-state")
        os.makedirs(os.path.join(self.root, ".git"))
        harness.write_tree(self.root, {"CLAUDE.md": "root rules\n",
                                       "packages/api/CLAUDE.md": "api rules for Claude\n",
                                       "packages/api/a.ts": "x\n"})
        os.makedirs(os.path.join(self.root, "packages", "web"))
        os.makedirs(self.home)
        self.env = {**os.environ, "HOME": self.home, "XDG_STATE_HOME": self.state}
        self.env.pop("AGENTSPINE_LOG", None)
        # What the hook adds for that Read.
        self.context = (f"Contents of {os.path.join(self.root, 'packages', 'api', 'CLAUDE.md')}:\n\n"
                        "api rules for Claude")

    def read_payload(self, session: str) -> bytes:
        return json.dumps({"session_id": session, "transcript_path": None,
                           "cwd": os.path.join(self.root, "packages", "web"), "hook_event_name": "PreToolUse",
                           "tool_name": "Read",
                           "tool_input": {"file_path": os.path.join(self.root, "packages", "api", "a.ts")}}).encode()

    def printed_context(self, out: bytes) -> str:
        """The additionalContext of the one line `out` holds ("" otherwise)."""
        lines = out.decode(errors="replace").splitlines()
        try:
            return harness.hook_context(lines[0]) if len(lines) == 1 else ""
        except (ValueError, KeyError, TypeError):
            return ""

    def audit_rows(self) -> list:
        db = sqlite3.connect(os.path.join(self.state, "agentspine", "state.db"))
        rows = db.execute("select host, event, phase, code from audit order by id").fetchall()
        db.close()
        return rows


def session_state_checks(bin_: str, fs_bin: str, base: str) -> None:
    """A hook that printed its context and is late only with the session's
    record: the hook process prints the line the work process wrote, whole,
    and the audit row says where the run was."""
    import hashlib
    plain = Plain(base, "plain")
    session = "late-record"
    # The state directory and its database, made by an ordinary run first.
    code, _, err, _ = run_timed([bin_, "hook", "claude"], plain.env, plain.read_payload("warm"))
    check("session state: the state directory is made by a first hook", code == 0, f"{code} {err[:300]!r}")
    sessions = os.path.join(plain.state, "agentspine", "sessions")
    back = os.path.join(base, "sessions-back")
    os.makedirs(back, mode=0o700)
    os.makedirs(sessions, mode=0o700, exist_ok=True)
    name = hashlib.sha256(session.encode()).hexdigest()[:32]
    daemon, failed = mount(fs_bin, back, sessions, name, "create", 16)
    try:
        if failed is not None:
            check("session state: the second mount comes up", False, failed)
            return
        before = adopted()
        code, out, err, took = run_timed([bin_, "hook", "claude"], plain.env, plain.read_payload(session))
        LEFT_BEHIND["hook (session state)"] = sorted(adopted() - before)
        check(f"hook claude, late only with the session's record: exit 0 observed within {HOOK_BOUND} s, "
              "after the deadline, the context line printed whole",
              code == 0 and 1.6 <= took < HOOK_BOUND and out.endswith(b"\n")
              and plain.printed_context(out).startswith(plain.context),
              f"code {code}, {took:.2f} s, stdout {out[:300]!r}, stderr {err[:300]!r}")
        rows = plain.audit_rows()
        check("audit: the late record is a deadline row in the session-state phase",
              rows == [("claude", "PreToolUse", "session-state", "deadline")], f"{rows}; stderr {err[:300]!r}")
    finally:
        subprocess.run(["umount", "-l", sessions], capture_output=True)
        daemon.kill()
        daemon.wait()


def socket_checks(bin_: str, env: dict, proj: str, healthy: str, home: str) -> None:
    run_dir = os.path.join(home, "run")
    sock_path = os.path.join(run_dir, "s.sock")
    proc = subprocess.Popen([bin_, "serve", "--socket", sock_path, "--json"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    try:
        ready = json.loads(proc.stdout.readline())
        token = open(ready["token_file"]).read().strip()
        host = Line(ready["socket"])
        auth = host.call(1, "host.authenticate", {"control_token": token})
        sessions = {}
        for n, (name, root) in enumerate([("stuck", proj), ("healthy", healthy)]):
            host.call(10 + n, "projects.register", {"root": root})
            bound = host.call(20 + n, "session.bind", {"session_id": name, "project_root": root}) or {}
            sessions[name] = bound.get("result", {}).get("token")
        check("socket: authenticated, both roots bound", auth is not None and "result" in auth
              and all(sessions.values()), f"{auth} {sessions}")
        stuck, other = Line(ready["socket"]), Line(ready["socket"])
        sent = time.monotonic()
        stuck.send(1, "project.instructions.resolve",
                   {"session_id": "stuck", "token": sessions["stuck"], "path": "packages/api/a.ts"})
        time.sleep(0.2)
        answer = other.call(1, "project.instructions.resolve",
                            {"session_id": "healthy", "token": sessions["healthy"], "path": "AGENTS.md"}, 2.0)
        answered_at = time.monotonic() - sent
        chain = (answer or {}).get("result", {}).get("chain", {})
        check("socket: the healthy root is resolved while the stuck resolve waits",
              answer is not None and "healthy rules" in chain.get("text", "") and answered_at < 1.9,
              f"after {answered_at:.2f} s: {json.dumps(answer)[:300]}")
        late = stuck.read(4.0)
        late_at = time.monotonic() - sent
        result = (late or {}).get("result", {})
        check("socket: the stuck resolve falls back to the root chain within 2.5 s",
              late is not None and result.get("fallback") is not None
              and "root rules" in result.get("chain", {}).get("text", "") and late_at < 2.5,
              f"after {late_at:.2f} s: {json.dumps(late)[:300]}")
        again = host.call(30, "projects.list", {}, 2.0)
        check("socket: still answering afterwards", again is not None and "result" in again, f"{again}")
        for line in (host, stuck, other):
            line.conn.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=3)
            stopped = proc.returncode is not None
        except subprocess.TimeoutExpired:
            proc.kill()
            stopped = False
    check("socket: the server stops on SIGTERM", stopped, "still running 3 s after SIGTERM")

    # A launcher killed outright leaves no server behind: the server process
    # is told to stop when the process that was started dies.
    proc = subprocess.Popen([bin_, "serve", "--socket", sock_path, "--json"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    ready = json.loads(proc.stdout.readline())
    proc.kill()
    proc.wait()
    for _ in range(60):
        if not os.path.exists(ready["socket"]):
            break
        time.sleep(0.05)
    check("socket: a launcher killed with SIGKILL leaves no server (the socket is gone within 3 s)",
          not os.path.exists(ready["socket"]), f"{ready['socket']} still there")


if __name__ == "__main__":
    sys.exit(main())
