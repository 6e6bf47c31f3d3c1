#!/usr/bin/env python3
"""Run the real opencode CLI (opencode-ai 1.18.33) headless against the mock model.

    opencode.py --tree DIR --cwd DIR --home DIR [--prompt P] [--script FILE]
                [--env K=V ...] [--timeout 90] [--keep DIR] [--raw]

As a module (tests/e2e/ style, `PYTHONPATH=tests/lib`):

    import opencode as oc
    binary = oc.install()                       # idempotent npm install, checks --version
    recs = oc.run(tree, cwd, home, prompt)      # the requests the mock recorded
    text = oc.extract(recs)                     # the instruction text, byte-exact (or None)

install():  `npm install opencode-ai@1.18.33` (exact) into
            ${AGENTSPINE_E2E_CACHE:-~/.cache/agentspine-e2e}/opencode-1.18.33, the
            layout install-clients.sh uses; returns the native binary of the
            platform package npm picked (`opencode-linux-x64`, else its
            `-baseline` twin), after `--version` printed 1.18.33.  OPENCODE_BIN in
            the environment skips the install.

run():      one `opencode run --model mock/mock-model PROMPT` in a fresh network +
            PID namespace (`unshare --net --pid --fork --kill-child --mount-proc`,
            root needed) with the mock model (mock_model.py, Chat Completions on
            127.0.0.1) and its NXDOMAIN DNS responder; nothing can leave the
            machine, and every process of the run dies with the namespace.  HOME
            is the given directory (throwaway, prepared by the caller); XDG_* are
            unset unless ENV sets them.  The mock provider is passed in
            OPENCODE_CONFIG_CONTENT (merged into a caller's own
            OPENCODE_CONFIG_CONTENT, if ENV has one), so no config file of the
            caller is touched by the runner (opencode itself adds a `$schema`
            line to a config file that has none, and a `.gitignore` to each config
            directory it reads, ~/.config/opencode and a project's .opencode).
            Flags set: OPENCODE_DISABLE_MODELS_FETCH, _AUTOUPDATE, _SHARE,
            _LSP_DOWNLOAD, OPENCODE_DISABLE_TERMINAL_TITLE, and
            npm_config_fetch_retries=0 (ENV may override);
            PWD is the cwd as given.  opencode still looks up
            registry.npmjs.org (it installs @opencode-ai/plugin into each
            config directory): the mock's DNS answers NXDOMAIN and the run goes
            on.  A mock script (SCRIPT: a path or a list of turns) drives tool
            calls; tool names and arguments are opencode's (`read` with
            `filePath`, ...).
            Returns the recorded requests (harness.load_requests format).  Raises
            RunError on a failed run, a timeout, or no main model request.

extract():  the instruction text opencode sent, from the first main request
            (the first POST /v1/chat/completions with a non-empty `tools` list;
            the title request has none).  opencode sends its whole prompt as
            one `system` message, messages[0]: the model's base prompt, the
            `<env>` block, one part per instruction file, the MCP instructions
            (if any), the skills guidance, joined by "\n".  The span starts at
            the first line beginning "Instructions from: " after "</env>" (and
            after a "</available_references>" block, if any) and ends before the
            "\n" that precedes the next part: "\n<mcp_instructions>\n" or
            "\nSkills provide specialized instructions and workflows for
            specific tasks.\n" (the last of them), else the end of the message.
            So it is, byte for byte, the files' entries
                "Instructions from: <abs path>\n<content>"
            joined by "\n", global file first (OPENCODE-MEASURED.md), which is
            what `agentspine resolve --host opencode --format native` must
            reproduce.  None when no entry follows the environment block.  (A
            file whose text itself holds one of those markers would cut the
            span short; no fixture does.)
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # keep tests/e2e free of __pycache__

import harness  # noqa: E402

VERSION = "1.18.33"
PACKAGE = "opencode-ai"
TIMEOUT = 90
PROMPT = "Reply with the single word ok."
PROVIDER = "mock"
MODEL = "mock-model"
MOCK_KEY = "sk-agentspine-mock-not-a-real-key"
ENV_END = "</env>"
ENTRY = "Instructions from: "
REFS_END = "\n</available_references>"
MCP = "\n<mcp_instructions>\n"
SKILLS = "\nSkills provide specialized instructions and workflows for specific tasks.\n"
FLAGS = {
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_TERMINAL_TITLE": "1",
    # With a plugin in a config directory opencode waits for the npm install
    # of @opencode-ai/plugin there before it starts; offline, npm's default
    # retries make that about 70 s. No retry: it fails at once and the run
    # goes on as it would have (OPENCODE-MEASURED.md, "How it is run").
    "npm_config_fetch_retries": "0",
}


class RunError(Exception):
    pass


# ------------------------------------------------------------------- install
def cache_dir() -> str:
    return os.environ.get("AGENTSPINE_E2E_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "agentspine-e2e")


def _platform_packages() -> list:
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        platform.machine().lower(), platform.machine().lower())
    osname = {"linux": "linux", "darwin": "darwin"}.get(sys.platform, sys.platform)
    base = f"opencode-{osname}-{arch}"
    return [base, base + "-baseline"] if arch == "x64" else [base]


def version_ok(binary: str, want: str = VERSION) -> bool:
    """BINARY --version prints WANT (HOME isolated, no network)."""
    if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
        return False
    probe = tempfile.mkdtemp(prefix="agentspine-opencode-version-")
    try:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": probe, **FLAGS}
        done = subprocess.run([binary, "--version"], env=env, capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL)
        return want in (done.stdout + done.stderr)
    except (OSError, subprocess.TimeoutExpired):
        return False
    finally:
        shutil.rmtree(probe, ignore_errors=True)


def _binary_in(root: str) -> str | None:
    for pkg in _platform_packages():
        b = os.path.join(root, "node_modules", pkg, "bin", "opencode")
        if version_ok(b):
            return b
    return None


def install() -> str:
    """The opencode binary at VERSION, installed with npm when missing."""
    env_bin = os.environ.get("OPENCODE_BIN")
    if env_bin:
        if not version_ok(env_bin):
            raise RunError(f"OPENCODE_BIN={env_bin} does not report {VERSION}")
        return env_bin
    cache = cache_dir()
    root = os.path.join(cache, f"opencode-{VERSION}")
    found = _binary_in(root)
    if found:
        return found
    os.makedirs(cache, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".tmp-opencode-", dir=cache)
    with open(os.path.join(tmp, "package.json"), "w", encoding="utf-8") as f:
        json.dump({"name": "agentspine-e2e-opencode", "private": True,
                   "dependencies": {PACKAGE: VERSION}}, f)
    done = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--no-update-notifier",
                           "--loglevel=error"], cwd=tmp, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise RunError(f"npm install {PACKAGE}@{VERSION} failed:\n{done.stderr[-3000:]}")
    shutil.rmtree(root, ignore_errors=True)
    os.rename(tmp, root)
    found = _binary_in(root)
    if not found:
        raise RunError(f"no opencode binary reporting {VERSION} under {root}/node_modules "
                       f"(looked for {', '.join(_platform_packages())})")
    return found


# -------------------------------------------------------------- environment
def base_env() -> dict:
    """A clean process environment (nothing inherited from the caller's agent)."""
    return {"PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"), "LANG": "C.UTF-8",
            "TERM": "dumb", "NO_COLOR": "1", "USER": os.environ.get("USER", "root"),
            "SHELL": "/bin/bash", "TZ": "UTC"}


def provider_config(port: int) -> dict:
    return {
        "$schema": "https://opencode.ai/config.json",
        "provider": {PROVIDER: {
            "npm": "@ai-sdk/openai-compatible", "name": "agentspine mock",
            "options": {"baseURL": f"http://127.0.0.1:{port}/v1", "apiKey": MOCK_KEY},
            "models": {MODEL: {"name": "mock model", "tool_call": True}},
        }},
        "model": f"{PROVIDER}/{MODEL}",
        "small_model": f"{PROVIDER}/{MODEL}",
    }


def _merge(a: dict, b: dict) -> dict:
    out = dict(a)
    for k, v in b.items():
        out[k] = _merge(out[k], v) if isinstance(out.get(k), dict) and isinstance(v, dict) else v
    return out


# ------------------------------------------------------------------- inside
def _killpg(pid: int, sig: int):
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _inside(spec_path: str) -> int:
    """PID 1 of the fresh net+pid namespace: mock server + one opencode run."""
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
    elif spec.get("turns") is not None:
        turns = spec["turns"]
    record = os.path.join(work, "requests.jsonl")
    server, port = mock_model.start_server(record, turns)
    mock_model.start_dns(record)
    env = base_env()
    env["HOME"] = spec["home"]
    env["PWD"] = spec["cwd"]  # as a shell sets it (the cwd as given, links kept)
    env.update(FLAGS)
    env.update(spec["env"])
    config = provider_config(port)
    if env.get("OPENCODE_CONFIG_CONTENT"):
        config = _merge(json.loads(env["OPENCODE_CONFIG_CONTENT"]), config)
    env["OPENCODE_CONFIG_CONTENT"] = json.dumps(config)
    argv = [*spec.get("wrap", []), spec["bin"], "run", "--model", f"{PROVIDER}/{MODEL}",
            *spec["extra_args"], spec["prompt"]]
    meta = {"argv": argv, "cwd": spec["cwd"], "port": port,
            "env": {k: v for k, v in env.items()}}
    t0 = time.monotonic()
    timed_out = False
    with open(os.path.join(work, "stdout.txt"), "wb") as out, \
            open(os.path.join(work, "stderr.txt"), "wb") as err:
        try:
            proc = subprocess.Popen(argv, cwd=spec["cwd"], env=env, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=err, start_new_session=True)
        except OSError as e:
            meta.update(rc=None, error=f"cannot start {argv[0]}: {e}", duration=0.0)
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


# ------------------------------------------------------------------ outside
def run(tree: str, cwd: str, home: str, prompt: str = PROMPT, script=None, env: dict | None = None,
        timeout: int = TIMEOUT, keep: str | None = None, extra_args=(), wrap=(),
        allow_fail: bool = False) -> list:
    """Run opencode once in a fresh namespace against the mock; the recorded requests.

    SCRIPT is a path to a JSON list of mock turns, or the list itself.  ENV adds
    or overrides variables (XDG_CONFIG_HOME, OPENCODE_CONFIG_DIR, ...).  KEEP
    copies requests.jsonl, meta.json, stdout.txt and stderr.txt there.  WRAP
    is a command prefix (e.g. setpriv).  With ALLOW_FAIL a non-zero exit or a
    run without a main request returns what was recorded instead of raising."""
    tree, cwd, home = (os.path.abspath(p) for p in (tree, cwd, home))
    for label, p in (("tree", tree), ("cwd", cwd), ("home", home)):
        if not os.path.isdir(p):
            raise RunError(f"{label} {p} is not a directory")
    binary = install()
    work = tempfile.mkdtemp(prefix="agentspine-opencode-")
    os.chmod(work, 0o755)
    try:
        spec = {"bin": binary, "cwd": cwd, "home": home, "work": work, "env": dict(env or {}),
                "timeout": timeout, "prompt": prompt, "extra_args": list(extra_args),
                "wrap": list(wrap), "script": None, "turns": None}
        if isinstance(script, str):
            spec["script"] = os.path.abspath(script)
        elif script is not None:
            spec["turns"] = list(script)
        spec_path = os.path.join(work, "spec.json")
        with open(spec_path, "w", encoding="utf-8") as f:
            json.dump(spec, f, indent=2)
        cmd = ["unshare", "--net", "--pid", "--fork", "--kill-child", "--mount-proc", "--",
               sys.executable, os.path.abspath(__file__), "--inside", spec_path]
        try:
            ns = subprocess.run(cmd, capture_output=True, timeout=timeout + 30,
                                env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                    [HERE, os.path.join(HERE, "..", "lib")])})
        except subprocess.TimeoutExpired:
            raise RunError(f"opencode: namespace runner did not finish within {timeout + 30} s")
        meta_path = os.path.join(work, "meta.json")
        if ns.returncode != 0 or not os.path.exists(meta_path):
            raise RunError(f"opencode: namespace runner failed (rc={ns.returncode}):\n"
                           + ns.stderr.decode("utf-8", "replace")[-3000:])
        with open(meta_path, encoding="utf-8") as f:
            meta = json.load(f)
        recs = harness.load_requests(os.path.join(work, "requests.jsonl"))
        if allow_fail:
            return recs
        tail = open(os.path.join(work, "stderr.txt"), "rb").read()[-3000:].decode("utf-8", "replace")
        if meta.get("error"):
            raise RunError(f"opencode: {meta['error']}")
        if meta.get("timed_out"):
            raise RunError(f"opencode: timed out after {timeout} s ({len(recs)} request(s) seen); "
                           f"stderr tail:\n{tail}")
        if meta.get("rc") != 0:
            raise RunError(f"opencode: exited with {meta.get('rc')} ({len(recs)} request(s) seen); "
                           f"stderr tail:\n{tail}")
        if not main_requests(recs):
            raise RunError(f"opencode: no main model request seen ({len(recs)} request(s)); "
                           f"stderr tail:\n{tail}")
        return recs
    finally:
        if keep:
            os.makedirs(keep, exist_ok=True)
            for name in os.listdir(work):
                shutil.copy2(os.path.join(work, name), os.path.join(keep, name))
        shutil.rmtree(work, ignore_errors=True)


# --------------------------------------------------------------- extraction
def main_requests(recs: list) -> list:
    """The main model requests (Chat Completions POSTs with tools), in order."""
    return harness.requests(recs, "chat/completions", main=True)


def side_requests(recs: list) -> list:
    """Chat Completions POSTs without tools (the title request)."""
    return [r for r in harness.requests(recs, "chat/completions") if not harness.is_main(r["body"])]


def system_prompt(req: dict) -> str:
    """The text of the leading system messages of one request, joined by "\\n"."""
    parts = []
    for m in req["body"].get("messages") or []:
        if m.get("role") != "system":
            break
        parts.extend(harness.text_items(m.get("content")))
    return "\n".join(parts)


def extract(recs: list) -> str | None:
    """The instruction span of the first main request (see the module doc)."""
    reqs = main_requests(recs)
    if not reqs:
        raise RunError("the mock saw no main POST /v1/chat/completions request from opencode")
    return span(first_system(reqs[0]))


def first_system(req: dict) -> str:
    """The text of the request's first system message (opencode's own prompt)."""
    msgs = req["body"].get("messages") or []
    if not msgs or msgs[0].get("role") != "system":
        raise RunError("opencode: the request does not start with a system message")
    return "".join(harness.text_items(msgs[0].get("content")))


def span(text: str) -> str | None:
    """From the first line starting "Instructions from: " after the environment
    block (and the references block, if any) to the end of the last entry: the
    text up to the "\n" that precedes the next part opencode adds, the MCP
    instructions ("<mcp_instructions>") or the skills guidance ("Skills provide
    ..."), else to the end of the message."""
    head = text.find(ENV_END)
    if head == -1:
        raise RunError("opencode: no </env> block in the system prompt")
    refs = text.find(REFS_END, head)
    if refs != -1:
        head = refs
    start = text.find("\n" + ENTRY, head)
    if start == -1:
        return None
    start += 1
    end = len(text)
    for marker in (SKILLS, MCP):
        i = text.rfind(marker, start, end)
        if i != -1:
            end = i
    return text[start:end]


def to_bytes(text: str | None) -> bytes:
    return b"" if text is None else text.encode("utf-8", "surrogatepass")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--inside"]:
        return _inside(argv[1])
    ap = argparse.ArgumentParser(description="Run opencode headless against the mock model.")
    ap.add_argument("--tree", required=True)
    ap.add_argument("--cwd", required=True)
    ap.add_argument("--home", required=True)
    ap.add_argument("--prompt", default=PROMPT)
    ap.add_argument("--script")
    ap.add_argument("--env", action="append", default=[], metavar="K=V")
    ap.add_argument("--timeout", type=int, default=TIMEOUT)
    ap.add_argument("--keep")
    ap.add_argument("--raw", action="store_true", help="print the recorded requests as JSON lines")
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    env = dict(kv.split("=", 1) for kv in a.env)
    try:
        recs = run(a.tree, a.cwd, a.home, a.prompt, script=a.script, env=env, timeout=a.timeout,
                   keep=a.keep)
        data = (("\n".join(json.dumps(r, ensure_ascii=False) for r in recs) + "\n").encode()
                if a.raw else to_bytes(extract(recs)))
    except RunError as e:
        print(f"opencode.py: {e}", file=sys.stderr)
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
