#!/usr/bin/env python3
"""Capture the instruction text a real host CLI sends to its model.

    capture.py HOST --tree DIR --cwd DIR --home DIR [--out FILE] [--entries-only]
               [--keep DIR] [--timeout 60] [--script FILE] [--env K=V ...]

HOST is codex, claude, gemini, pi (pi 1.x, PI1_BIN) or pi-0.73 (PI_BIN).  The mock model server (mock_model.py) and the
CLI run together inside one fresh network namespace with its own PID namespace
(`unshare --net --pid --fork --kill-child --mount-proc`), so nothing can leave
the machine and every process of the run dies with it.  HOME is the given
directory (the caller prepares the profile files there); the run adds only what
it needs and never rewrites a caller's file:

* codex:  CODEX_HOME=$HOME/.codex (created if missing); the mock provider is
          passed with `-c` overrides, so $CODEX_HOME/config.toml is read as the
          caller wrote it (project_root_markers etc. stay in force).
* claude: ANTHROPIC_BASE_URL + dummy ANTHROPIC_API_KEY,
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1, `--model claude-sonnet-4-5`;
          CLAUDE_CONFIG_DIR is left unset (default ~/.claude) unless --env sets it.
* gemini: GEMINI_API_KEY (dummy) + GOOGLE_GEMINI_BASE_URL, GEMINI_CLI_NO_RELAUNCH,
          GEMINI_CLI_TRUST_WORKSPACE=true; the API-key auth is chosen in a
          system-defaults file on a tmpfs over /mnt inside the namespace, so
          ~/.gemini/settings.json is read as the caller wrote it.
* pi, pi-0.73:
          PI_CODING_AGENT_DIR=$HOME/.pi/agent (unless --env sets it); a provider
          entry is merged into its models.json for the run, and the file is
          restored byte-for-byte (or removed) afterwards.  PI_OFFLINE=1.

Extracted text (written byte-exactly, UTF-8, no newline added):
* codex:  the whole text of the input content item that begins
          "# AGENTS.md instructions" (first Responses request).
* claude: the whole "<system-reminder>...</system-reminder>" text block of the
          first user message that holds "Contents of " entries; with
          --entries-only, from the first "Contents of " up to (not including)
          the "\\n</system-reminder>" that closes the block.
* pi-0.73: the system prompt from the "# Project Context" line up to, not
          including, what pi appends next: the skills block
          ("\\n\\nThe following skills provide ...") if any, else the
          "\\nCurrent date: " line.  So it ends with the "\\n\\n" after the last file.
* pi:     the system prompt's "<project_context>" section, from its opening
          tag through its closing "</project_context>" tag.
* gemini: of the first main :streamGenerateContent request, the system
          instruction's "<loaded_context>...</loaded_context>" block (after the
          "# Contextual Instructions (" heading: the global files), then a blank
          line, then the first user message's
          "<loaded_context>\\n<project_context>...</loaded_context>" block (the
          project files); either may be absent.

No instruction text sent -> empty output, exit 0.  CLI failure, timeout, or no
model request seen -> message on stderr, exit 1.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # keep tests/e2e free of __pycache__

import harness  # noqa: E402

HOSTS = ("codex", "claude", "gemini", "pi", "pi-0.73")
PI_HOSTS = ("pi", "pi-0.73")
TIMEOUT = 60
PROMPT = "Reply with the single word ok."
CODEX_PROVIDER = "agentspine_mock"
CODEX_MODEL = "gpt-5.5"
CLAUDE_MODEL = "claude-sonnet-4-5"
PI_PROVIDER = "agentspine-mock"
PI_MODEL = "mock-model"
MOCK_KEY = "sk-agentspine-mock-not-a-real-key"
GEMINI_SYSTEM_DIR = "/mnt"  # a tmpfs inside the gemini run's namespace (see _inside)

CODEX_MARKER = "# AGENTS.md instructions"
CLAUDE_ENTRY = "Contents of "
CLAUDE_OPEN = "<system-reminder>"
CLAUDE_CLOSE = "</system-reminder>"
PI_START = "\n\n# Project Context\n\nProject-specific instructions and guidelines:\n\n"
PI_SKILLS = "\n\nThe following skills provide specialized instructions for specific tasks.\n"
PI_DATE = "\nCurrent date: "
PI1_OPEN = "<project_context>\n"
PI1_CLOSE = "\n</project_context>"
GEMINI_HEADING = "\n# Contextual Instructions ("
GEMINI_OPEN = "<loaded_context>\n"
GEMINI_CLOSE = "</loaded_context>"
GEMINI_PROJECT = "\n<loaded_context>\n<project_context>\n"


class CaptureError(Exception):
    pass


# ------------------------------------------------------------------ binaries
_BINS: dict | None = None


def client_bins() -> dict:
    """CODEX_BIN/CLAUDE_BIN/PI_BIN/PI1_BIN from the environment, else install-clients.sh."""
    global _BINS
    if _BINS is not None:
        return _BINS
    keys = ("CODEX_BIN", "CLAUDE_BIN", "PI_BIN", "PI1_BIN", "GEMINI_BIN")
    if all(os.environ.get(k) for k in keys):
        _BINS = {k: os.environ[k] for k in keys}
        return _BINS
    proc = subprocess.run(["bash", os.path.join(HERE, "install-clients.sh")],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise CaptureError("install-clients.sh failed:\n" + proc.stderr)
    bins = {}
    for line in proc.stdout.splitlines():
        if "=" in line:
            k, v = line.split("=", 1)
            bins[k] = shlex.split(v)[0] if v else ""
    for k in keys:
        bins[k] = os.environ.get(k) or bins.get(k)
        if not bins[k]:
            raise CaptureError(f"install-clients.sh gave no {k}")
    _BINS = bins
    return bins


# -------------------------------------------------------------- environment
def instruction_env(host: str, home: str, extra: dict | None = None) -> dict:
    """The variables that decide which instruction files a host reads.

    parity.py hands exactly these to `agentspine resolve`, so both sides see
    the same profile."""
    home = os.path.abspath(home)
    env = {"HOME": home}
    if host == "codex":
        env["CODEX_HOME"] = os.path.join(home, ".codex")
    elif host in PI_HOSTS:
        env["PI_CODING_AGENT_DIR"] = os.path.join(home, ".pi", "agent")
    for k, v in (extra or {}).items():
        env[k] = v
    return env


def base_env() -> dict:
    """A clean process environment (nothing inherited from the caller's agent)."""
    path = os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin")
    node = shutil.which("node")
    if node and os.path.dirname(node) not in path.split(":"):
        path = os.path.dirname(node) + ":" + path
    return {"PATH": path, "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1",
            "USER": os.environ.get("USER", "root"), "SHELL": "/bin/bash", "TZ": "UTC"}


# ------------------------------------------------------------------- inside
def _inside(spec_path: str) -> int:
    """Runs as PID 1 of the fresh net+pid namespace: mock server + one CLI run."""
    import mock_model

    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    work = spec["work"]
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    # Names resolve through our NXDOMAIN responder: telemetry and update
    # checks fail at once instead of after a 5 s resolver timeout.
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
    host, home, cwd = spec["host"], spec["home"], spec["cwd"]
    env = base_env()
    env.update(spec["ienv"])
    restore = None
    if host == "codex":
        if env["CODEX_HOME"] == os.path.join(home, ".codex"):
            os.makedirs(env["CODEX_HOME"], exist_ok=True)  # only the default; an override is the caller's
        env["AGENTSPINE_MOCK_KEY"] = MOCK_KEY
        provider = (f'{{name="agentspine mock",base_url="http://127.0.0.1:{port}/v1",'
                    f'env_key="AGENTSPINE_MOCK_KEY",wire_api="responses"}}')
        argv = [spec["bin"], "exec", "--skip-git-repo-check", "-C", cwd,
                "-c", f'model_provider="{CODEX_PROVIDER}"', "-c", f'model="{CODEX_MODEL}"',
                "-c", f"model_providers.{CODEX_PROVIDER}={provider}",
                *spec["extra_args"], spec["prompt"]]
    elif host == "claude":
        env.update({"ANTHROPIC_BASE_URL": f"http://127.0.0.1:{port}", "ANTHROPIC_API_KEY": MOCK_KEY,
                    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1"})
        argv = [spec["bin"], "-p", spec["prompt"], "--output-format", "json",
                "--model", CLAUDE_MODEL, *spec["extra_args"]]
    elif host == "gemini":
        # The API-key auth is chosen in a system-defaults file of the run's
        # own (the lowest settings layer), so the caller's settings.json is
        # read exactly as written and never touched.  Gemini skips a system
        # file with a group- or world-writable ancestor (/tmp is one), so
        # the file lives on a tmpfs mounted over /mnt inside this namespace.
        for p in (spec["bin"], home, cwd, work):
            if os.path.abspath(p).startswith(GEMINI_SYSTEM_DIR + "/"):
                raise SystemExit(f"capture: {p} lies under {GEMINI_SYSTEM_DIR}, which the gemini run hides")
        subprocess.run(["mount", "-t", "tmpfs", "-o", "mode=0755,size=1m", "tmpfs", GEMINI_SYSTEM_DIR],
                       check=True)
        defaults = os.path.join(GEMINI_SYSTEM_DIR, "system-defaults.json")
        with open(defaults, "w", encoding="utf-8") as f:
            json.dump({"security": {"auth": {"selectedType": "gemini-api-key"}}}, f)
        env.update({"GEMINI_API_KEY": MOCK_KEY, "GOOGLE_GEMINI_BASE_URL": f"http://127.0.0.1:{port}",
                    "GEMINI_CLI_NO_RELAUNCH": "true", "GEMINI_CLI_TRUST_WORKSPACE": "true",
                    "GEMINI_CLI_SYSTEM_DEFAULTS_PATH": defaults,
                    "GEMINI_CLI_SYSTEM_SETTINGS_PATH": os.path.join(GEMINI_SYSTEM_DIR, "settings.json")})
        argv = [spec["bin"], "-p", spec["prompt"], "--output-format", "json", *spec["extra_args"]]
    else:
        env["PI_OFFLINE"] = "1"
        agent_dir = env.get("PI_CODING_AGENT_DIR") or os.path.join(home, ".pi", "agent")
        agent_dir = os.path.expanduser(agent_dir) if agent_dir.startswith("~") else agent_dir
        os.makedirs(agent_dir, exist_ok=True)
        models = os.path.join(agent_dir, "models.json")
        original = open(models, "rb").read() if os.path.exists(models) else None
        restore = (models, original)
        data = {}
        if original is not None:
            try:
                data = json.loads(original.decode("utf-8"))
            except Exception as e:  # noqa: BLE001
                raise SystemExit(f"capture: cannot merge into {models}: {e}")
        data.setdefault("providers", {})[PI_PROVIDER] = {
            "baseUrl": f"http://127.0.0.1:{port}/v1", "api": "openai-completions", "apiKey": MOCK_KEY,
            "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
            "models": [{"id": PI_MODEL}]}
        with open(models, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2)
        argv = [spec["bin"], "-p", spec["prompt"], "--provider", PI_PROVIDER, "--model", PI_MODEL,
                "--no-session", *spec["extra_args"]]

    argv = [*spec.get("wrap", []), *argv]
    meta = {"host": host, "argv": argv, "cwd": cwd, "port": port,
            "env": {k: v for k, v in env.items() if k not in ("AGENTSPINE_MOCK_KEY", "GEMINI_API_KEY")}}
    t0 = time.monotonic()
    meta["started_at"] = time.time()
    timed_out = False
    with open(os.path.join(work, "stdout.txt"), "wb") as out, \
            open(os.path.join(work, "stderr.txt"), "wb") as err:
        try:
            proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
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
            _killpg(proc.pid, signal.SIGKILL)  # stragglers in the run's group
            meta.update(rc=rc, duration=round(time.monotonic() - t0, 3))
    meta["timed_out"] = timed_out
    if restore:
        path, original = restore
        if original is None:
            os.unlink(path)
        else:
            with open(path, "wb") as f:
                f.write(original)
    server.shutdown()
    with open(os.path.join(work, "meta.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2)
    return 0  # PID 1 exits: the kernel kills whatever is left in the namespace


def _killpg(pid: int, sig: int):
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


# --------------------------------------------------------------- extraction
# The recorded requests are read with harness.requests(), harness.text_items().
def extract_codex(recs) -> str | None:
    reqs = harness.requests(recs, "responses")
    if not reqs:
        raise CaptureError("the mock saw no POST /v1/responses request from codex")
    for r in reqs:
        for item in r["body"].get("input") or []:
            if isinstance(item, dict) and item.get("type", "message") == "message":
                for text in harness.text_items(item.get("content")):
                    if text.startswith(CODEX_MARKER):
                        return text
    return None


def extract_claude(recs, entries_only=False) -> str | None:
    reqs = harness.requests(recs, "messages")
    if not any(harness.is_main(r["body"]) for r in reqs):
        raise CaptureError("the mock saw no main POST /v1/messages request (with tools) from claude")
    for r in reqs:
        msgs = r["body"].get("messages") or []
        first = next((m for m in msgs if m.get("role") == "user"), None)
        if not first:
            continue
        for text in harness.text_items(first.get("content")):
            entry = text.find(CLAUDE_ENTRY)
            start = text.rfind(CLAUDE_OPEN, 0, entry) if entry != -1 else -1
            if start == -1:
                continue
            # 2.1.332 sends each reminder as its own text item, so the block
            # runs to the item's last close tag (robust to a file that itself
            # contains "</system-reminder>").
            end = text.rfind(CLAUDE_CLOSE)
            if end < entry:
                raise CaptureError("claude: unterminated <system-reminder> block")
            block = text[start:end + len(CLAUDE_CLOSE)]
            if not entries_only:
                return block
            body_end = len(block) - len(CLAUDE_CLOSE)
            if block[:body_end].endswith("\n"):
                body_end -= 1
            return block[block.find(CLAUDE_ENTRY):body_end]
    return None


def extract_pi(recs) -> str | None:
    reqs = harness.requests(recs, "chat/completions")
    if not reqs:
        raise CaptureError("the mock saw no POST /v1/chat/completions request from pi")
    for r in reqs:
        for m in r["body"].get("messages") or []:
            if m.get("role") not in ("system", "developer"):
                continue
            for text in harness.text_items(m.get("content")):
                i = text.find(PI_START)
                if i == -1:
                    continue
                start = i + 2
                end = text.rfind(PI_DATE)
                if end < start:
                    end = len(text)
                s = text.rfind(PI_SKILLS, start, end)
                if s != -1:
                    end = s
                return text[start:end]
        return None  # the first request's system prompt decides
    return None


def extract_pi1(recs) -> str | None:
    """pi 1.x: the whole <project_context> section of the first system prompt."""
    reqs = harness.requests(recs, "chat/completions")
    if not reqs:
        raise CaptureError("the mock saw no POST /v1/chat/completions request from pi")
    for m in reqs[0]["body"].get("messages") or []:
        if m.get("role") not in ("system", "developer"):
            continue
        for text in harness.text_items(m.get("content")):
            start = text.find(PI1_OPEN)
            if start == -1:
                continue
            end = text.rfind(PI1_CLOSE)
            if end < start:
                raise CaptureError("pi: unterminated <project_context> section")
            return text[start:end + len(PI1_CLOSE)]
    return None


def extract_gemini(recs) -> str | None:
    reqs = harness.requests(recs, "streamGenerateContent", main=True)
    if not reqs:
        raise CaptureError("the mock saw no main POST :streamGenerateContent request from gemini")
    body = reqs[0]["body"]
    blocks = []
    system = "".join(harness.text_items((body.get("systemInstruction") or {}).get("parts")))
    head = system.find(GEMINI_HEADING)
    if head != -1:
        start = system.find(GEMINI_OPEN, head)
        end = system.rfind(GEMINI_CLOSE)
        if start == -1 or end < start:
            raise CaptureError("gemini: unterminated <loaded_context> in the system instruction")
        blocks.append(system[start:end + len(GEMINI_CLOSE)])
    first = next((c for c in body.get("contents") or [] if c.get("role") == "user"), None)
    for text in harness.text_items((first or {}).get("parts")):
        start = text.find(GEMINI_PROJECT)
        if start == -1:
            continue
        end = text.rfind(GEMINI_CLOSE, start)
        if end == -1:
            raise CaptureError("gemini: unterminated <loaded_context> in the first user message")
        blocks.append(text[start + 1:end + len(GEMINI_CLOSE)])
        break
    return "\n\n".join(blocks) if blocks else None


def extract(host, recs, entries_only=False) -> str | None:
    if host == "gemini":
        return extract_gemini(recs)
    if host == "codex":
        return extract_codex(recs)
    if host == "claude":
        return extract_claude(recs, entries_only)
    if host == "pi":
        return extract_pi1(recs)
    return extract_pi(recs)


# ------------------------------------------------------------------ outside
def capture(host: str, tree: str, cwd: str, home: str, *, env: dict | None = None,
            entries_only: bool = False, keep: str | None = None, timeout: int = TIMEOUT,
            script: str | None = None, prompt: str = PROMPT, extra_args=()) -> bytes:
    """Run HOST once against the mock; return the instruction bytes (b"" if none).

    Raises CaptureError on a failed run."""
    recs = run_host(host, tree, cwd, home, env=env, keep=keep, timeout=timeout, script=script,
                    prompt=prompt, extra_args=extra_args)
    return to_bytes(extract(host, recs, entries_only))


def to_bytes(text: str | None) -> bytes:
    return b"" if text is None else text.encode("utf-8", "surrogatepass")


def run_host(host: str, tree: str, cwd: str, home: str, *, env: dict | None = None,
             keep: str | None = None, timeout: int = TIMEOUT, script: str | None = None,
             prompt: str = PROMPT, extra_args=(), wrap=()) -> list:
    """Run HOST once inside a fresh namespace with the mock; return the recorded
    requests.  Raises CaptureError when the CLI failed, timed out or sent no
    model request.  WRAP is a command prefix for the CLI (e.g. strace)."""
    if host not in HOSTS:
        raise CaptureError(f"unknown host {host!r} (want one of {', '.join(HOSTS)})")
    tree, cwd, home = (os.path.abspath(p) for p in (tree, cwd, home))
    for label, p in (("tree", tree), ("cwd", cwd), ("home", home)):
        if not os.path.isdir(p):
            raise CaptureError(f"--{label} {p} is not a directory")
    if os.path.commonpath([tree, cwd]) != tree:
        raise CaptureError(f"--cwd {cwd} is not inside --tree {tree}")
    bins = client_bins()
    binary = {"codex": bins["CODEX_BIN"], "claude": bins["CLAUDE_BIN"], "pi": bins["PI1_BIN"],
              "pi-0.73": bins["PI_BIN"], "gemini": bins["GEMINI_BIN"]}[host]
    work = tempfile.mkdtemp(prefix=f"agentspine-capture-{host}-")
    try:
        spec = {"host": host, "bin": binary, "cwd": cwd, "home": home, "work": work,
                "ienv": instruction_env(host, home, env), "timeout": timeout,
                "script": os.path.abspath(script) if script else None, "prompt": prompt,
                "extra_args": list(extra_args), "wrap": list(wrap)}
        spec_path = os.path.join(work, "spec.json")
        with open(spec_path, "w", encoding="utf-8") as f:
            json.dump(spec, f, indent=2)
        cmd = ["unshare", "--net", "--pid", "--fork", "--kill-child", "--mount-proc", "--",
               sys.executable, os.path.abspath(__file__), "--inside", spec_path]
        try:
            ns = subprocess.run(cmd, capture_output=True, timeout=timeout + 30)
        except subprocess.TimeoutExpired:
            raise CaptureError(f"{host}: namespace runner did not finish within {timeout + 30} s")
        meta_path = os.path.join(work, "meta.json")
        if ns.returncode != 0 or not os.path.exists(meta_path):
            raise CaptureError(f"{host}: namespace runner failed (rc={ns.returncode}):\n"
                               + ns.stderr.decode("utf-8", "replace")[-3000:])
        with open(meta_path, encoding="utf-8") as f:
            meta = json.load(f)
        recs = harness.load_requests(os.path.join(work, "requests.jsonl"))
        stderr_tail = open(os.path.join(work, "stderr.txt"), "rb").read()[-3000:].decode("utf-8", "replace")
        if meta.get("error"):
            raise CaptureError(f"{host}: {meta['error']}")
        if meta.get("timed_out"):
            raise CaptureError(f"{host}: timed out after {timeout} s "
                               f"({len(recs)} request(s) seen); stderr tail:\n{stderr_tail}")
        if meta.get("rc") != 0:
            raise CaptureError(f"{host}: exited with {meta.get('rc')} ({len(recs)} request(s) seen); "
                               f"stderr tail:\n{stderr_tail}")
        extract(host, recs)  # raises when no model request was seen
        return recs
    finally:
        if keep:
            os.makedirs(keep, exist_ok=True)
            for name in os.listdir(work):
                shutil.copy2(os.path.join(work, name), os.path.join(keep, name))
        shutil.rmtree(work, ignore_errors=True)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--inside"]:
        return _inside(argv[1])
    ap = argparse.ArgumentParser(description="Capture the instruction text a host CLI sends.")
    ap.add_argument("host", choices=HOSTS)
    ap.add_argument("--tree", required=True)
    ap.add_argument("--cwd", required=True)
    ap.add_argument("--home", required=True)
    ap.add_argument("--out")
    ap.add_argument("--entries-only", action="store_true", help="claude: only the Contents-of entries")
    ap.add_argument("--keep", help="copy the raw requests.jsonl, meta.json, stdout/stderr here")
    ap.add_argument("--timeout", type=int, default=TIMEOUT)
    ap.add_argument("--script", help="mock reply script (JSON list of turns)")
    ap.add_argument("--prompt", default=PROMPT)
    ap.add_argument("--env", action="append", default=[], metavar="K=V",
                    help="extra instruction-relevant variable (e.g. CLAUDE_CONFIG_DIR=...)")
    ap.add_argument("cli_args", nargs="*", help="extra CLI arguments (after --)")
    a = ap.parse_args(argv)
    env = dict(kv.split("=", 1) for kv in a.env)
    try:
        data = capture(a.host, a.tree, a.cwd, a.home, env=env, entries_only=a.entries_only,
                       keep=a.keep, timeout=a.timeout, script=a.script, prompt=a.prompt,
                       extra_args=a.cli_args)
    except CaptureError as e:
        print(f"capture.py: {e}", file=sys.stderr)
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
