#!/usr/bin/env python3
"""Raw JSON-lines framing of `agentspine mcp` (stdlib only).

Writes bytes straight to the server's stdin, as a buggy or hostile client
might, and reads every frame it writes:

- a 2 MiB line, then a valid request: the request is still answered, and
  the long line gets a JSON-RPC error (id null);
- 64 MiB with no newline: the server's peak memory stays far below it;
- invalid JSON: a parse error (-32700, id null), and the server keeps serving;
- malformed params under an id: an error for that id;
- a notification (no id), valid or not: no response at all;
- end of input: the server answers what it already read and exits 0 at once,
  even before initialize;
- stdout carries nothing but JSON-RPC frames.

    PYTHONPATH=tests/lib python3 tests/mcp/framing.py --agentspine target/debug/agentspine

Prints one line per check and `N passed, M failed`.
"""

import argparse
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import harness

REPO = Path(__file__).resolve().parents[2]
MIB = 1024 * 1024
tally = harness.Tally()
check = tally.check


class Server:
    """One `agentspine mcp` process; every stdout line is kept."""

    def __init__(self, agentspine: Path, home: Path, cwd: Path | None = None):
        env = {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "AGENTSPINE_LOG": "warn"}
        self.proc = subprocess.Popen(
            [str(agentspine), "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            # Launched in its project, as a client launches it.
            cwd=str(cwd or home),
        )
        self.frames: queue.Queue = queue.Queue()
        self.raw: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.raw.append(line)
            try:
                self.frames.put(json.loads(line))
            except ValueError:
                self.frames.put({"not-json": line[:200].decode(errors="replace")})
        self.frames.put(None)

    def send(self, data: bytes) -> None:
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def request(self, id_: int, method: str, params: dict | None = None) -> None:
        message = {"jsonrpc": "2.0", "id": id_, "method": method}
        if params is not None:
            message["params"] = params
        self.send(json.dumps(message).encode() + b"\n")

    def next(self, timeout: float = 10.0):
        try:
            return self.frames.get(timeout=timeout)
        except queue.Empty:
            return "timeout"

    def until(self, id_, timeout: float = 10.0) -> tuple[dict | None, list]:
        """Frames up to the one with `id_`; (that frame, the others)."""
        others = []
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            frame = self.next(left)
            if frame in (None, "timeout"):
                break
            if frame.get("id") == id_ and ("result" in frame or "error" in frame):
                return frame, others
            others.append(frame)
        return None, others

    def quiet(self, seconds: float = 0.3) -> list:
        """Frames that arrive within `seconds` (none expected)."""
        extra = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            frame = self.next(left)
            if frame == "timeout":
                break
            if frame is not None:
                extra.append(frame)
        return extra

    def initialize(self) -> dict | None:
        self.request(
            1,
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "framing", "version": "0"}},
        )
        frame, _ = self.until(1)
        self.send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        return frame

    def close_and_wait(self, timeout: float = 5.0) -> tuple[int | None, float]:
        started = time.monotonic()
        self.proc.stdin.close()
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            code = None
        return code, time.monotonic() - started

    def peak_rss_kib(self) -> int:
        """The server's peak memory: `agentspine mcp` serves from a child
        process and relays its output, so the peak of the process or its
        children, whichever is higher (-1 when none is readable)."""
        pid = self.proc.pid
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        peaks = [-1]
        for p in [pid, *map(int, children)]:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peaks.append(int(line.split()[1]))
        return max(peaks)


def is_error(frame, code: int | tuple, id_=None) -> bool:
    codes = code if isinstance(code, tuple) else (code,)
    return (
        isinstance(frame, dict)
        and frame.get("jsonrpc") == "2.0"
        and frame.get("id", "absent") == id_
        and frame.get("error", {}).get("code") in codes
        and isinstance(frame["error"].get("message"), str)
    )


def session(agentspine: Path, home: Path, project: Path) -> list[bytes]:
    server = Server(agentspine, home, project)
    init = server.initialize()
    check("initialize answered", bool(init and init.get("result", {}).get("serverInfo", {}).get("name") == "agentspine"))

    # A 2 MiB line, then a valid request.
    big = b'{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"pad":"' + b"x" * (2 * MIB) + b'"}}\n'
    server.send(big)
    server.request(2, "tools/list")
    frame, others = server.until(2)
    check("2 MiB line: the next request is answered", bool(frame and len(frame["result"]["tools"]) == 4))
    check(
        "2 MiB line: answered with Invalid Request, id null",
        len(others) == 1 and is_error(others[0], -32600) and "1048576" in others[0]["error"]["message"],
        str(others)[:300],
    )

    # 64 MiB without a newline: never buffered whole.
    chunk = b"y" * MIB
    for _ in range(64):
        server.send(chunk)
    server.send(b"\n")
    server.request(3, "ping")
    frame, others = server.until(3, timeout=30)
    check("64 MiB line: the next request is answered", bool(frame and frame.get("result") == {}), str(frame))
    peak = server.peak_rss_kib()
    check("64 MiB line: peak memory stays under 40 MiB", 0 < peak < 40 * 1024, f"VmHWM {peak} KiB")
    check("64 MiB line: one Invalid Request", len(others) == 1 and is_error(others[0], -32600), str(others)[:300])

    # Invalid JSON.
    server.send(b"this is not json\n")
    server.request(4, "tools/list")
    frame, others = server.until(4)
    check("invalid JSON: a parse error with id null", len(others) == 1 and is_error(others[0], -32700), str(others)[:300])
    check("invalid JSON: the server keeps serving", bool(frame and "result" in frame))

    # A truncated object, and a non-object.
    server.send(b'{"jsonrpc":"2.0","id":5,"method":\n[1,2]\n')
    server.request(5, "ping")
    frame, others = server.until(5)
    check(
        "truncated JSON and a batch: parse error, then Invalid Request",
        len(others) == 2 and is_error(others[0], -32700) and is_error(others[1], -32600),
        str(others)[:300],
    )

    # Malformed params under an id.
    server.send(b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":5}}\n')
    frame, others = server.until(6)
    check(
        "malformed params: Invalid params for that id",
        bool(frame and is_error(frame, -32602, 6) and "Invalid params" in frame["error"]["message"]),
        str(frame),
    )

    # Notifications get no response, valid or not.
    server.send(b'{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}\n')
    server.send(b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":"bogus"}\n')
    server.send(b'{"jsonrpc":"2.0","method":"tools/call","params":{"name":5}}\n')
    server.request(8, "ping")
    frame, others = server.until(8)
    extra = server.quiet()
    check("notifications: no response", bool(frame) and not others and not extra, str(others + extra)[:300])

    # A tool call, then end of input at once: answered, then exit 0.
    server.request(
        9,
        "tools/call",
        {"name": "resolve_context", "arguments": {"project_root": str(project), "target_path": "packages/web"}},
    )
    code, took = server.close_and_wait()
    frame, _ = server.until(9, timeout=2)
    check(
        "EOF right after a call: the call is answered",
        bool(frame and frame.get("result", {}).get("isError") is False),
        str(frame)[:300],
    )
    check("EOF: exit 0 within 5 s", code == 0, f"exit {code} after {took:.2f} s")
    return server.raw


def eof_before_initialize(agentspine: Path, home: Path) -> None:
    server = Server(agentspine, home)
    code, took = server.close_and_wait()
    check("EOF before initialize: exit 0 within 5 s, nothing written", code == 0 and not server.raw, f"exit {code}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agentspine", required=True, type=Path)
    args = parser.parse_args()
    agentspine = Path(harness.agentspine(args.agentspine, real=True))
    with harness.scratch("agentspine-mcp-framing-") as tmp:
        home = Path(tmp) / "home"
        home.mkdir()
        project = Path(tmp) / "monorepo"
        subprocess.run(["cp", "-r", str(REPO / "examples" / "monorepo"), str(project)], check=True)
        (project / ".git").mkdir()
        raw = session(agentspine, home, project.resolve())
        eof_before_initialize(agentspine, home)
    frames = []
    for line in raw:
        try:
            frames.append(json.loads(line))
        except ValueError:
            frames.append(None)
    check(
        "stdout: only JSON-RPC 2.0 frames, one per line",
        all(isinstance(f, dict) and f.get("jsonrpc") == "2.0" for f in frames) and all(l.endswith(b"\n") for l in raw),
    )
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
