"""What agentspine's Python harnesses (tests/*/, benches/) share.

Each of them needs the same four things, and before this module each carried
its own copy; now there is one of each:

* a tally of checks -- `Tally`: `check(name, ok, detail)` counts a check and
  prints `PASS name` or `FAIL name` (the detail below a failure), `skip()`
  counts one that cannot be made here, and `summary()` prints `N passed,
  M failed` and gives the exit status (1 when any check failed);
  `summary(tallies)` does it over several;
* files in throwaway trees -- `scratch()` (a temporary directory for a
  `with` block, removed after it), `remove()`, `write()`, `write_tree()`,
  and `claude_project_key()` (where Claude Code keeps a project's memory);
* the agentspine binary -- `agentspine()` (the `--agentspine` argument,
  checked), `run()` (output captured, 60 s at most unless told), `run_json()`,
  `parse_json()`, `run_hook()` (a payload on stdin, as a host runs it) and
  `hook_context()` (what a hook added);
* the requests the mock model server (tests/e2e/mock_model.py) records --
  `endpoint()` and `is_main()` decide, for the mock and for the harnesses
  alike, which model API a request is and whether it is a main request (the
  ones the mock answers from its script); `load_requests()`, `requests()`,
  `text_items()`, `text_of()`, `system_text()` and `tool_names()` read them.

How it is found: the harnesses run with this directory on PYTHONPATH
(scripts/test exports PYTHONPATH=tests/lib), so `import harness` is all a
script says, and no script edits sys.path (one setting in one place rather
than a path computed in every script). By hand, from the repository root:

    PYTHONPATH=tests/lib python3 tests/surfaces/check.py --agentspine target/debug/agentspine

A script's own neighbours (tests/e2e/capture.py, tests/strace/checks.py,
benches/hooks.py, ...) need nothing more: Python puts the directory of the
script it runs first on sys.path. Standard library only.
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile


# ------------------------------------------------------------------ tallies
class Tally:
    """Checks counted as they are made, one printed line each.

    PREFIX, when given, starts every line (a harness that runs several
    hosts names the host)."""

    DETAIL_LIMIT = 3000  # characters of a failure's detail that are printed

    def __init__(self, prefix: str = ""):
        self.prefix = prefix
        self.passed = 0
        self.failed = 0
        self.skipped = 0

    def _line(self, text: str) -> None:
        print(f"{self.prefix:6} {text}" if self.prefix else text, flush=True)

    def check(self, name: str, ok, detail="") -> bool:
        """Counts one check named NAME that held when OK is true; a failure
        is printed with DETAIL below it. Returns whether it held."""
        ok = bool(ok)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        self._line(("PASS " if ok else "FAIL ") + name)
        text = "" if ok else str(detail)
        if len(text) > self.DETAIL_LIMIT:
            text = text[:self.DETAIL_LIMIT] + " [...]"
        for line in text.splitlines():
            print("     " + line, flush=True)
        return ok

    def skip(self, name: str, why: str) -> None:
        """Counts a check that could not be made here, and why."""
        self.skipped += 1
        self._line(f"SKIP {name}: {why}")

    def summary(self, label: str = "") -> int:
        """Prints this tally's closing line; the exit status."""
        return summary([self], label)


def summary(tallies, label: str = "") -> int:
    """Prints `[LABEL: ]N passed, M failed[, K skipped]` over TALLIES; the
    exit status: 1 when any check failed, else 0."""
    passed = sum(t.passed for t in tallies)
    failed = sum(t.failed for t in tallies)
    skipped = sum(t.skipped for t in tallies)
    line = f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else "")
    print(f"{label}: {line}" if label else line, flush=True)
    return 1 if failed else 0


# -------------------------------------------------------------------- files
@contextlib.contextmanager
def scratch(prefix: str, keep: bool = False, dir: str | None = None):
    """A new temporary directory (under DIR, else the system's) for the
    `with` block; removed after it, or kept and named on stderr when KEEP."""
    path = tempfile.mkdtemp(prefix=prefix, dir=dir)
    try:
        yield path
    finally:
        if keep:
            print(f"kept {path}", file=sys.stderr)
        else:
            remove(path)


def remove(path: str) -> None:
    """Removes the tree at PATH whatever modes a check left on its
    directories (each gets u+rwx first; links are not followed)."""
    def writable(p: str) -> None:
        try:
            os.chmod(p, os.stat(p, follow_symlinks=False).st_mode | stat.S_IRWXU)
        except OSError:
            pass
    if os.path.isdir(path) and not os.path.islink(path):
        writable(path)
        for root, dirs, _ in os.walk(path):
            for d in dirs:
                if not os.path.islink(os.path.join(root, d)):
                    writable(os.path.join(root, d))
    shutil.rmtree(path, ignore_errors=True)


def write(path, data) -> str:
    """Writes DATA (bytes, or a str as UTF-8) to PATH, making the
    directories above it; returns PATH."""
    parent = os.path.dirname(os.fspath(path))
    if parent:
        os.makedirs(parent, exist_ok=True)
    with open(path, "wb") as f:
        f.write(data.encode() if isinstance(data, str) else data)
    return path


def write_tree(root, files: dict) -> str:
    """write()s each relative path -> data of FILES under ROOT; returns ROOT."""
    for rel, data in files.items():
        write(os.path.join(root, rel), data)
    return root


def claude_project_key(path: str) -> str:
    """Claude Code's name for a project under ~/.claude/projects/ (its
    memory is in `<name>/memory`): each character outside [A-Za-z0-9] of
    the project's absolute path becomes `-`."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


# ------------------------------------------------------------------- binary
def agentspine(path: str, real: bool = False) -> str:
    """The binary under test from a `--agentspine PATH` argument: absolute,
    with its links resolved when REAL. Exits 2 when PATH is not an
    executable file."""
    full = os.path.realpath(path) if real else os.path.abspath(path)
    if not (os.path.isfile(full) and os.access(full, os.X_OK)):
        print(f"{path}: not an executable file (build it first: cargo build -p agentspine)", file=sys.stderr)
        sys.exit(2)
    return full


def run(argv, *, input=None, env=None, cwd=None, timeout: float = 60, text: bool = True,
        check: bool = False) -> subprocess.CompletedProcess:
    """Runs ARGV to its end with its output captured (str unless TEXT is
    false); subprocess.TimeoutExpired after TIMEOUT seconds, and
    CalledProcessError on a failure when CHECK."""
    return subprocess.run(list(argv), input=input, env=env, cwd=cwd, capture_output=True, text=text,
                          timeout=timeout, check=check)


def parse_json(text, default=None):
    """TEXT (str or bytes) as JSON; DEFAULT when it is empty or not JSON."""
    try:
        return json.loads(text) if text.strip() else default
    except ValueError:
        return default


def run_json(argv, **kwargs) -> tuple:
    """run(ARGV), and what it printed as JSON (None when empty or not
    JSON): (the finished process, the value)."""
    done = run(argv, **kwargs)
    return done, parse_json(done.stdout)


def run_hook(binary: str, host: str, payload, env, *, cwd=None, wrap=(), timeout: float = 60,
             text: bool = True) -> subprocess.CompletedProcess:
    """`BINARY hook HOST` as a host runs it: PAYLOAD on stdin (a dict is
    sent as JSON). WRAP is a command prefix (strace, qemu, a filter)."""
    if isinstance(payload, dict):
        payload = json.dumps(payload)
    if not text and isinstance(payload, str):
        payload = payload.encode()
    return run([*wrap, binary, "hook", host], input=payload, env=env, cwd=cwd, timeout=timeout, text=text)


def hook_context(out) -> str:
    """The context of what a hook printed (str or bytes), in any host's
    shape: `hookSpecificOutput.additionalContext`, GitHub Copilot CLI's
    top-level `additionalContext`, Kimi Code's `message`; "" when it
    printed nothing. Raises ValueError, KeyError or TypeError when it
    printed something that is not a hook's answer with a context."""
    if isinstance(out, bytes):
        out = out.decode()
    if not out.strip():
        return ""
    answer = json.loads(out)
    if "hookSpecificOutput" in answer:
        return answer["hookSpecificOutput"]["additionalContext"]
    if "additionalContext" in answer:
        return answer["additionalContext"]
    return answer["message"]


# ---------------------------------------------------------- model requests
# The model APIs the mock answers, by how a request's path ends (Anthropic
# Messages, OpenAI Responses and Chat Completions, the Gemini API). The
# longer Anthropic suffix comes first.
ENDPOINTS = ("/messages/count_tokens", "/messages", "/responses", "/chat/completions",
             ":countTokens", ":streamGenerateContent", ":generateContent")


def endpoint(path: str) -> str | None:
    """The model API a request path names (its query left aside): the
    ENDPOINTS suffix it ends with, less the leading `/` or `:` (such as
    "messages", "responses", "chat/completions", "streamGenerateContent");
    None for any other path."""
    path = path.split("?", 1)[0]
    for suffix in ENDPOINTS:
        if path.endswith(suffix):
            return suffix[1:]
    return None


def is_main(body) -> bool:
    """Whether a request body is a main model request: it offers tools and
    asks for no JSON schema (Gemini's model router and other side requests
    do). The mock answers main requests from its script, and the harnesses
    count them."""
    if not isinstance(body, dict) or not body.get("tools"):
        return False
    config = body.get("generationConfig") or {}
    return not (config.get("responseJsonSchema") or config.get("responseSchema"))


def load_requests(path: str) -> list:
    """The records the mock wrote to PATH (one JSON object a line), in
    order; [] when there is no such file."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def requests(recs: list, *endpoints: str, main: bool = False) -> list:
    """The recorded POSTs to one of ENDPOINTS (see endpoint()) whose body
    is a JSON object, in order; with MAIN, only the main ones."""
    return [r for r in recs
            if r["method"] == "POST" and endpoint(r["path"]) in endpoints and isinstance(r.get("body"), dict)
            and (not main or is_main(r["body"]))]


def text_items(content):
    """The texts of a message's content: the string itself, or the "text"
    of each part of a list."""
    if isinstance(content, str):
        yield content
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                yield part["text"]


# The fields of a request body that hold what the model reads, over the
# four APIs (Anthropic, Responses, Chat Completions, Gemini).
READ_FIELDS = ("system", "messages", "instructions", "input", "systemInstruction", "contents")


def text_of(req: dict) -> str:
    """Everything the model reads in one recorded request: each string
    below the READ_FIELDS of its body (tool definitions left out), joined
    by newlines."""
    out = []

    def walk(value):
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for key, item in value.items():
                if key != "tools":
                    walk(item)

    for field in READ_FIELDS:
        walk(req["body"].get(field))
    return "\n".join(out)


def system_text(req: dict) -> str:
    """A Chat Completions request's system prompt: the texts of its system
    and developer messages, joined by newlines."""
    return "\n".join(text for m in req["body"].get("messages") or [] if m.get("role") in ("system", "developer")
                     for text in text_items(m.get("content")))


def tool_names(req: dict) -> list:
    """The function names a Gemini API request declares, in order."""
    return [decl.get("name", "") for tool in req["body"].get("tools") or []
            for decl in tool.get("functionDeclarations") or []]
