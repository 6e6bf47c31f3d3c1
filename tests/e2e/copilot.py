#!/usr/bin/env python3
"""GitHub Copilot CLI (1.0.102) against the mock model: install, run, extract.

    PYTHONPATH=tests/lib python3 tests/e2e/copilot.py install
    PYTHONPATH=tests/lib python3 tests/e2e/copilot.py capture --tree T --cwd T/sub --home H
                      [--prompt P] [--script turns.json] [--env K=V ...] [--keep DIR] [--timeout 90]
                      [-- extra copilot args]

As a module (tests/e2e on sys.path, PYTHONPATH=tests/lib):

    import copilot
    binary = copilot.install()                      # idempotent; the native binary's path
    recs = copilot.run(tree, cwd, home, prompt)     # the requests the mock recorded
    text = copilot.extract(recs)                    # the instruction text, byte-exact (str)

Install: `@github/copilot@1.0.102` with npm into
${AGENTSPINE_E2E_CACHE:-~/.cache/agentspine-e2e}/copilot-1.0.102.  The
package `@github/copilot` is only a Node loader (npm-loader.js) that spawns
its platform package's executable, `@github/copilot-linux-x64/copilot` (a
Node single-file executable with a native `runtime.node`); install() returns
that executable, which runs without any Node on PATH.  npm's optional
dependency brings it; nothing is downloaded at run time.

Run: like capture.py, the mock model (mock_model.py, Chat Completions on
127.0.0.1) and the client run together as PID 1's children of a fresh
network + PID namespace (`unshare --net --pid --fork --kill-child
--mount-proc`), names resolve to NXDOMAIN at once, and every process of the
run dies with the namespace.  The client's environment is a clean one plus

    HOME=<home>  COPILOT_OFFLINE=true  COPILOT_PROVIDER_BASE_URL=http://127.0.0.1:PORT/v1
    COPILOT_PROVIDER_API_KEY=<dummy>  COPILOT_MODEL=mock-model  COPILOT_AUTO_UPDATE=false
    XDG_CACHE_HOME=<install cache>/xdg-cache   (the unpacked package, shared)

and the command line is `copilot -p PROMPT --allow-all-tools
--no-auto-update --log-level all --log-dir <run>/logs [extra args]`
(each of these names was checked against the 1.0.102 client: `copilot help
environment`, `copilot help providers`).  COPILOT_HOME is left unset
(default ~/.copilot) unless ENV sets it.  Project configuration (hooks,
MCP servers, skills) is read only from a trusted folder: pass
`--trust-folder` in EXTRA_ARGS, or COPILOT_ALLOW_ALL=true in ENV
(COPILOT-MEASURED.md); instruction files need no trust.

Extract: the instruction text is the section of the first main request's
system message (the first message, role "system") that starts right after
"\n</tools>\n\n" and ends right before the "\n<system_notifications>\n"
that follows it (SECTION_START / SECTION_END).  It holds the
`<custom_instruction>\n<text>\n</custom_instruction>` elements, the
always-applied instruction files pasted raw and the tables of path-scoped and
nested instruction files; COPILOT-MEASURED.md has the exact rules.  Empty
section -> None.  No main request, or no such frame -> CopilotError.
reminders() returns the `<system_reminder>` messages the view tool adds.

Black-box: nothing of the client's code or prose is copied here.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True

import harness  # noqa: E402

VERSION = "1.0.102"
PACKAGE = "@github/copilot"
PLATFORM_PACKAGE = "@github/copilot-linux-x64"
MODEL = "mock-model"
# Any value works; a long unique one, because the client masks every
# occurrence of the key's text in its own log (a key "x" masks each letter x).
API_KEY = "sk-agentspine-mock-not-a-real-key"
PROMPT = "Reply with the single word ok."
TIMEOUT = 90


class CopilotError(Exception):
    pass


# ----------------------------------------------------------------- install
def cache_dir() -> str:
    return os.path.join(os.environ.get("AGENTSPINE_E2E_CACHE")
                        or os.path.join(os.path.expanduser("~"), ".cache", "agentspine-e2e"),
                        f"copilot-{VERSION}")


def binary_path() -> str:
    return os.path.join(cache_dir(), "node_modules", *PLATFORM_PACKAGE.split("/"), "copilot")


def xdg_cache() -> str:
    """Where the executable unpacks its package (copilot/pkg/linux-x64/VERSION,
    ~235 MB, at its first start under a cache directory): one shared directory
    in the install cache instead of every throwaway HOME's ~/.cache."""
    return os.path.join(cache_dir(), "xdg-cache")


def version_ok(binary: str) -> bool:
    """BINARY --version (HOME isolated) names VERSION."""
    if not os.access(binary, os.X_OK):
        return False
    probe = tempfile.mkdtemp(prefix="agentspine-copilot-probe-")
    try:
        env = dict(base_env(), HOME=probe, COPILOT_AUTO_UPDATE="false", COPILOT_OFFLINE="true",
                   XDG_CACHE_HOME=xdg_cache())
        done = subprocess.run([binary, "--version"], env=env, capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL)
        return f"GitHub Copilot CLI {VERSION}." in (done.stdout + done.stderr)
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        shutil.rmtree(probe, ignore_errors=True)


def install() -> str:
    """npm-installs @github/copilot@VERSION (exact) into the cache unless the
    binary there already reports VERSION; returns the binary's path."""
    binary = binary_path()
    if version_ok(binary):
        return binary
    if not shutil.which("npm"):
        raise CopilotError("npm not found on PATH")
    final = cache_dir()
    os.makedirs(os.path.dirname(final), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".tmp-copilot-", dir=os.path.dirname(final))
    with open(os.path.join(tmp, "package.json"), "w") as f:
        json.dump({"name": "agentspine-e2e-copilot", "private": True,
                   "dependencies": {PACKAGE: VERSION}}, f)
    done = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--no-update-notifier",
                           "--loglevel=error", "--save-exact"], cwd=tmp, capture_output=True, text=True,
                          timeout=900)
    if done.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise CopilotError(f"npm install of {PACKAGE}@{VERSION} failed:\n{done.stdout}{done.stderr}")
    shutil.rmtree(final, ignore_errors=True)
    os.rename(tmp, final)
    if not version_ok(binary):
        raise CopilotError(f"{binary} does not report {VERSION}")
    return binary


# --------------------------------------------------------------------- run
def base_env() -> dict:
    path = os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin")
    return {"PATH": path, "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1",
            "USER": os.environ.get("USER", "root"), "SHELL": "/bin/bash", "TZ": "UTC"}


def client_env(home: str, port: int, extra: dict | None = None) -> dict:
    env = base_env()
    env.update({"HOME": home, "COPILOT_OFFLINE": "true",
                "COPILOT_PROVIDER_BASE_URL": f"http://127.0.0.1:{port}/v1",
                "COPILOT_PROVIDER_API_KEY": API_KEY, "COPILOT_MODEL": MODEL,
                "COPILOT_AUTO_UPDATE": "false", "XDG_CACHE_HOME": xdg_cache()})
    for k, v in (extra or {}).items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


def _killpg(pid: int, sig: int):
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _inside(spec_path: str) -> int:
    """PID 1 of the run's namespace: loopback up, NXDOMAIN resolver, mock, one client run."""
    import mock_model

    def write(self, rec: dict):  # ASCII JSON: a lone surrogate in a request is recorded too
        with self.lock:
            self.seq += 1
            rec = dict(seq=self.seq, time=time.time(), **rec)
            if self.path:
                with open(self.path, "a", encoding="utf-8") as f:
                    f.write(json.dumps(rec, ensure_ascii=True) + "\n")
            return rec

    mock_model.Recorder.write = write
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    work = spec["work"]
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    resolv = os.path.join(work, "resolv.conf")
    with open(resolv, "w") as f:
        f.write("nameserver 127.0.0.1\noptions attempts:1 timeout:1\n")
    subprocess.run(["mount", "--bind", resolv, "/etc/resolv.conf"], check=True)
    turns = None
    if spec.get("script"):
        with open(spec["script"], encoding="utf-8") as f:
            turns = json.load(f)
    server, port = mock_model.start_server(os.path.join(work, "requests.jsonl"), turns)
    mock_model.start_dns(os.path.join(work, "dns.jsonl"))
    env = client_env(spec["home"], port, spec["env"])
    logs = os.path.join(work, "logs")
    argv = [*spec.get("wrap", []), spec["bin"], "-p", spec["prompt"], "--allow-all-tools", "--no-auto-update",
            "--log-level", "all", "--log-dir", logs, *spec["extra_args"]]
    meta = {"argv": argv, "cwd": spec["cwd"], "port": port, "env": env}
    t0 = time.monotonic()
    timed_out = False
    with open(os.path.join(work, "stdout.txt"), "wb") as out, open(os.path.join(work, "stderr.txt"), "wb") as err:
        try:
            proc = subprocess.Popen(argv, cwd=spec["cwd"], env=env, stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=err, start_new_session=True)
        except OSError as e:
            meta.update(rc=None, error=f"cannot start {argv[0]}: {e}")
            proc = None
        if proc is not None:
            try:
                rc = proc.wait(timeout=spec["timeout"])
            except subprocess.TimeoutExpired:
                timed_out = True
                _killpg(proc.pid, signal.SIGTERM)
                try:
                    rc = proc.wait(timeout=3)
                except subprocess.TimeoutExpired:
                    _killpg(proc.pid, signal.SIGKILL)
                    rc = proc.wait()
            _killpg(proc.pid, signal.SIGKILL)
            meta.update(rc=rc)
    meta.update(timed_out=timed_out, duration=round(time.monotonic() - t0, 3))
    server.shutdown()
    with open(os.path.join(work, "meta.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2)
    return 0


class Run(list):
    """The recorded requests (a list), with the run's other outputs as attributes:
    rc, timed_out, stdout, stderr, logs (the client's log text), duration."""


def run(tree: str, cwd: str, home: str, prompt: str = PROMPT, script=None, env: dict | None = None,
        timeout: int = TIMEOUT, extra_args=(), keep: str | None = None, wrap=(), check: bool = True) -> Run:
    """Runs Copilot once in CWD (inside TREE) with HOME against the mock; returns the
    recorded requests (a Run).  SCRIPT: mock reply turns, a list or a JSON file path.
    ENV: variables added to (or, with value None, removed from) the client's environment.
    With CHECK, raises CopilotError on a timeout, a non-zero exit or no main request."""
    binary = install()
    tree, cwd, home = (os.path.abspath(p) for p in (tree, cwd, home))
    for label, p in (("tree", tree), ("cwd", cwd), ("home", home)):
        if not os.path.isdir(p):
            raise CopilotError(f"{label} {p} is not a directory")
    work = tempfile.mkdtemp(prefix="agentspine-copilot-")
    try:
        script_path = None
        if isinstance(script, (list, tuple)):
            script_path = os.path.join(work, "script.json")
            with open(script_path, "w", encoding="utf-8") as f:
                json.dump(list(script), f)
        elif script:
            script_path = os.path.abspath(script)
        spec = {"bin": binary, "cwd": cwd, "home": home, "work": work, "prompt": prompt, "script": script_path,
                "env": dict(env or {}), "timeout": timeout, "extra_args": list(extra_args), "wrap": list(wrap)}
        spec_path = os.path.join(work, "spec.json")
        with open(spec_path, "w", encoding="utf-8") as f:
            json.dump(spec, f, indent=2)
        cmd = ["unshare", "--net", "--pid", "--fork", "--kill-child", "--mount-proc", "--",
               sys.executable, os.path.abspath(__file__), "--inside", spec_path]
        try:
            ns = subprocess.run(cmd, capture_output=True, timeout=timeout + 30,
                                env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                                    [os.path.join(os.path.dirname(HERE), "lib"), HERE])))
        except subprocess.TimeoutExpired:
            raise CopilotError(f"namespace runner did not finish within {timeout + 30} s")
        meta_path = os.path.join(work, "meta.json")
        if ns.returncode != 0 or not os.path.exists(meta_path):
            raise CopilotError(f"namespace runner failed (rc={ns.returncode}):\n"
                               + ns.stderr.decode("utf-8", "replace")[-3000:])
        with open(meta_path, encoding="utf-8") as f:
            meta = json.load(f)
        recs = Run(harness.load_requests(os.path.join(work, "requests.jsonl")))
        recs.rc, recs.timed_out, recs.duration = meta.get("rc"), meta.get("timed_out"), meta.get("duration")
        recs.stdout = open(os.path.join(work, "stdout.txt"), "rb").read().decode("utf-8", "replace")
        recs.stderr = open(os.path.join(work, "stderr.txt"), "rb").read().decode("utf-8", "replace")
        logs = []
        logdir = os.path.join(work, "logs")
        if os.path.isdir(logdir):
            for name in sorted(os.listdir(logdir)):
                with open(os.path.join(logdir, name), "rb") as f:
                    logs.append(f.read().decode("utf-8", "replace"))
        recs.logs = "\n".join(logs)
        if check:
            if meta.get("error"):
                raise CopilotError(meta["error"])
            if meta.get("timed_out"):
                raise CopilotError(f"timed out after {timeout} s ({len(recs)} request(s) seen); stderr tail:\n"
                                   + recs.stderr[-3000:])
            if meta.get("rc") != 0:
                raise CopilotError(f"exited with {meta.get('rc')} ({len(recs)} request(s) seen); stderr tail:\n"
                                   + recs.stderr[-3000:] + "\nstdout tail:\n" + recs.stdout[-2000:])
            if not main_requests(recs):
                raise CopilotError("the mock saw no main chat/completions request")
        return recs
    finally:
        if keep:
            os.makedirs(keep, exist_ok=True)
            for name in os.listdir(work):
                src = os.path.join(work, name)
                if os.path.isdir(src):
                    shutil.copytree(src, os.path.join(keep, name), dirs_exist_ok=True)
                else:
                    shutil.copy2(src, os.path.join(keep, name))
        shutil.rmtree(work, ignore_errors=True)


# ----------------------------------------------------------------- extract
def main_requests(recs) -> list:
    return harness.requests(recs, "chat/completions", main=True)


def system_message(recs) -> str:
    reqs = main_requests(recs)
    if not reqs:
        raise CopilotError("the mock saw no main chat/completions request")
    return harness.system_text(reqs[0])


# The instruction section of the system message sits between the end of the
# tool guidelines and the runtime-notification section:
#     ...</tools>\n\n<SECTION>\n<system_notifications>\n...
# (measured; COPILOT-MEASURED.md "The text").  SECTION is what extract() returns.
SECTION_START = "\n</tools>\n\n"
SECTION_END = "\n<system_notifications>\n"


def section(recs) -> str:
    """The system message's instruction section (see SECTION_START/SECTION_END), "" when empty."""
    system = system_message(recs)
    start = system.find(SECTION_START)
    end = system.rfind(SECTION_END)
    if start == -1 or end == -1 or end < start + len(SECTION_START) - 1:
        raise CopilotError("copilot: the system message has no </tools> ... <system_notifications> frame")
    start += len(SECTION_START)
    return system[start:end] if end >= start else ""


def extract(recs) -> str | None:
    """The instruction text of the first main request, byte-exact: the system
    message from just after "</tools>\n\n" up to (not including) the
    "\n<system_notifications>\n" that follows.  It holds, in order, the
    `<custom_instruction>` elements, the always-applied instruction files pasted
    raw, and the tables of path-scoped / nested instruction files, joined by
    blank lines (COPILOT-MEASURED.md).  None when the section is empty."""
    text = section(recs)
    return text or None


def reminders(recs, request: int = -1) -> list:
    """The `<system_reminder>` user messages of one main request (default: the
    last), as (message index, text)."""
    reqs = main_requests(recs)
    out = []
    for i, m in enumerate(reqs[request]["body"].get("messages") or []):
        text = "".join(harness.text_items(m.get("content")))
        if m.get("role") == "user" and text.startswith("\n<system_reminder>\nCustom instructions from "):
            out.append((i, text))
    return out


# -------------------------------------------------------------------- main
def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--inside"]:
        return _inside(argv[1])
    ap = argparse.ArgumentParser(description="Copilot CLI against the mock model.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("install")
    c = sub.add_parser("capture")
    c.add_argument("--tree", required=True)
    c.add_argument("--cwd", required=True)
    c.add_argument("--home", required=True)
    c.add_argument("--prompt", default=PROMPT)
    c.add_argument("--script")
    c.add_argument("--env", action="append", default=[], metavar="K=V")
    c.add_argument("--keep")
    c.add_argument("--timeout", type=int, default=TIMEOUT)
    c.add_argument("--out")
    c.add_argument("cli_args", nargs="*")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "install":
            print(install())
            return 0
        recs = run(a.tree, a.cwd, a.home, a.prompt, a.script, dict(kv.split("=", 1) for kv in a.env),
                   a.timeout, a.cli_args, a.keep)
        text = extract(recs)
    except CopilotError as e:
        print(f"copilot.py: {e}", file=sys.stderr)
        return 1
    data = b"" if text is None else text.encode("utf-8", "surrogatepass")
    if a.out:
        with open(a.out, "wb") as f:
            f.write(data)
    else:
        sys.stdout.buffer.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
