#!/usr/bin/env python3
"""Where a command hook's additionalContext lands, and how much of it a host keeps.

    PYTHONPATH=tests/lib python3 tests/e2e/measure_hook_context.py [--host codex|claude|gemini|pi|pi-0.73 ...]
                            [--part place|caps|units|chars ...] [--sizes 1000,10001,...]
                            [--filler ascii|bmp3|astral] [--eol] [--claude-model NAME]
                            [--json OUT] [--keep DIR] [--work DIR]

Black-box measurement of the real clients (the versions install-clients.sh
pins), each run headless inside its own network and PID namespace against the
mock model (capture.run_host, mock_model.py), with a throwaway HOME and
TMPDIR.  The hook under test is a tiny Python script written by this file
(HOOK below), not agentspine: it logs the payload it got and the state of the
files the run touches at that moment, and prints
`{"hookSpecificOutput": {"hookEventName", "additionalContext"}}` whose
context is a known text:

    [TAG:0000000].....[TAG:0000100]..... ... [END:TAG]

a marker at the start of every 100 characters (the offset of that block, in
characters) and one at the end; the filler between the markers is `.` (one
byte, one UTF-16 unit), `€` (three bytes, one unit) or `𝄞` (four bytes, two
units).  TAG names the event and the how-manieth run of it (`PRE2`: the second
PreToolUse).  What the model received is compared with what was sent: the
longest kept prefix, the host's text around it (a heading, a note), a kept
tail (a cut in the middle), and a file the host names that holds the text.

Each run asks for three tools by script: a read of edit.txt, an edit of it
(Codex: apply_patch), and a shell command that writes ran.txt.

Parts:
  place  300-character contexts on every event: which request each reaches,
         in which message and role, before, inside or after the tool's
         result; what the hook saw on disk (PreToolUse before the edit,
         PostToolUse after it); whether the tool's write happened before the
         request that first shows the context (file mtime against the mock's
         receive time).
  caps   every event emits the same size, once per size of --sizes (default
         1000 ... 500000, with 10000/10001 and 39887/39888 as edges).
  units  `€` and `𝄞` fillers (6000, 12000, 30000 characters), so a cap
         counted in bytes, UTF-16 units or characters cuts at different
         places; newlines every 100 characters, or only at character 899 or
         1499, to see whether a cut or preview stops at a line end.
  chars  a short context with `< > & " ' \\`, tabs, CR, wrapper-like closing
         tags, an emoji and a BOM, with blank lines around it: what arrives.

Hosts: codex (hooks.json, --dangerously-bypass-hook-trust), claude
(settings.json; capture.py pins --model claude-sonnet-4-5, --claude-model
default measures the model Claude Code picks itself), gemini (settings.json),
pi and pi-0.73 (plugins/pi's extension, with AGENTSPINE_BIN pointing at the
hook; it asks at session_start, before_agent_start and a path tool's
tool_call).

Prints one line per observation; --json writes everything for reading.
Results: HOOK-CONTEXT-MEASURED.md.  Needs root (namespaces).  Not part of CI.
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

import capture as cap

HERE = os.path.dirname(os.path.abspath(__file__))

REPO = os.path.dirname(os.path.dirname(HERE))
PI_EXTENSION = os.path.join(REPO, "plugins", "pi", "agentspine.js")

DEFAULT_SIZES = (1000, 5000, 9000, 10000, 10001, 11000, 20000, 39887, 39888, 50000, 100000, 500000)
FILLERS = {"ascii": ".", "bmp3": "\u20ac", "astral": "\U0001d11e"}
PLACE_SIZE = 300
PROMPT = "Edit the file."

# Short names that keep tags unique per event.
ABBR = {"SessionStart": "SS", "UserPromptSubmit": "UPS", "BeforeAgent": "BA", "PreToolUse": "PRE",
        "PostToolUse": "POST", "BeforeTool": "BT", "AfterTool": "AT"}

# The events each host is configured with (all of them emit a context).
EVENTS = {
    "codex": ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"),
    "claude": ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse"),
    "gemini": ("SessionStart", "BeforeAgent", "BeforeTool", "AfterTool"),
    # The extension asks its hook at these (PreToolUse for path tools only).
    "pi": ("SessionStart", "UserPromptSubmit", "PreToolUse"),
    "pi-0.73": ("SessionStart", "UserPromptSubmit", "PreToolUse"),
}

# ----------------------------------------------------------------- the hook
HOOK = r'''
import json, os, sys, time
plan = json.load(open(sys.argv[1], encoding="utf-8"))
raw = sys.stdin.buffer.read().decode("utf-8", "replace")
try:
    payload = json.loads(raw) if raw.strip() else {}
except ValueError:
    payload = {"unparsed": raw[:2000]}
event = payload.get("hook_event_name") or "?"
state = {}
for path in plan.get("watch", []):
    try:
        st = os.stat(path)
        state[path] = {"text": open(path, encoding="utf-8", errors="replace").read()[:200],
                       "mtime_ns": st.st_mtime_ns}
    except OSError:
        state[path] = None
log = plan["log"]
runs = 0
if os.path.exists(log):
    for line in open(log, encoding="utf-8"):
        if json.loads(line)["event"] == event:
            runs += 1
spec = plan["emit"].get(event)
tag = None
if spec:
    tag = "%s%d" % (plan["abbr"].get(event, event[:4].upper()), runs + 1)
with open(log, "a", encoding="utf-8") as f:
    f.write(json.dumps({"time": time.time(), "event": event, "tool": payload.get("tool_name"),
                        "tag": tag, "state": state, "payload": payload}, ensure_ascii=False) + "\n")
if not spec:
    sys.exit(0)
if "text" in spec:
    text = spec["lead"] + "[%s:0000000]" % tag + spec["text"] + "[END:%s]" % tag + spec["trail"]
    out = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
    sys.stdout.buffer.write(json.dumps(out, ensure_ascii=False).encode("utf-8") + b"\n")
    sys.exit(0)
size, filler = spec["size"], spec["filler"]
parts, length, i = [], 0, 0
while length < size:
    head = "[%s:%07d]" % (tag, i * 100)
    block = head + filler * (100 - len(head))
    eol = spec.get("eol")
    parts.append(block[:-1] + "\n" if eol is True or isinstance(eol, list) and i in eol else block)
    length += 100
    i += 1
end = "[END:%s]" % tag
text = "".join(parts)[:max(0, size - len(end))] + end
out = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}
sys.stdout.buffer.write(json.dumps(out, ensure_ascii=False).encode("utf-8") + b"\n")
'''


def expected(tag: str, size: int, filler: str, eol=False) -> str:
    """The context the hook prints for TAG (same construction as HOOK)."""
    parts, length, i = [], 0, 0
    while length < size:
        head = "[%s:%07d]" % (tag, i * 100)
        block = head + filler * (100 - len(head))
        parts.append(block[:-1] + "\n" if eol is True or isinstance(eol, list) and i in eol else block)
        length += 100
        i += 1
    end = "[END:%s]" % tag
    return "".join(parts)[:max(0, size - len(end))] + end


def u16(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


def b8(s: str) -> int:
    return len(s.encode("utf-8"))


# ------------------------------------------------------------- run a host
def write(path: str, text: str):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def setup(host: str, base: str, emit: dict) -> dict:
    """A throwaway HOME and git project with hook configuration for HOST."""
    shutil.rmtree(base, ignore_errors=True)
    tree = os.path.join(base, "tree")
    home = os.path.join(base, "home")
    os.makedirs(home)
    subprocess.run(["git", "init", "-q", tree], check=True)
    write(os.path.join(tree, "edit.txt"), "before edit\n")
    write(os.path.join(tree, "read.txt"), "a file to read\n")
    hook = os.path.join(base, "hook.py")
    write(hook, HOOK)
    plan = os.path.join(base, "plan.json")
    log = os.path.join(base, "hook.log")
    watch = [os.path.join(tree, "edit.txt"), os.path.join(tree, "ran.txt")]
    with open(plan, "w", encoding="utf-8") as f:
        json.dump({"log": log, "emit": emit, "abbr": ABBR, "watch": watch}, f, ensure_ascii=False)
    command = f"python3 {hook} {plan}"
    # Files a host saves (the whole text of a long context) stay in the run.
    tmp = os.path.join(base, "tmp")
    os.makedirs(tmp)
    env = {"TMPDIR": tmp}
    extra = []
    if host == "codex":
        groups = {}
        for event in EVENTS[host]:
            group = {"hooks": [{"type": "command", "command": command, "timeout": 60}]}
            if event == "SessionStart":
                group["matcher"] = "startup"
            groups[event] = [group]
        write(os.path.join(home, ".codex", "hooks.json"), json.dumps({"hooks": groups}, indent=2))
        extra = ["--dangerously-bypass-hook-trust", "--dangerously-bypass-approvals-and-sandbox"]
    elif host == "claude":
        groups = {}
        for event in EVENTS[host]:
            group = {"hooks": [{"type": "command", "command": command, "timeout": 60}]}
            if event in ("PreToolUse", "PostToolUse"):
                group["matcher"] = "*"
            groups[event] = [group]
        write(os.path.join(home, ".claude", "settings.json"), json.dumps({"hooks": groups}, indent=2))
        extra = ["--permission-mode", "acceptEdits", "--allowedTools", "Bash(*)", "Read", "Edit"]
    elif host == "gemini":
        groups = {}
        for event in EVENTS[host]:
            group = {"hooks": [{"type": "command", "command": command, "timeout": 60000}]}
            if event in ("BeforeTool", "AfterTool"):
                group["matcher"] = ".*"
            groups[event] = [group]
        write(os.path.join(home, ".gemini", "settings.json"), json.dumps({"hooks": groups}, indent=2))
        extra = ["--approval-mode", "yolo"]
    else:
        # plugins/pi's extension runs `$AGENTSPINE_BIN hook pi`: a wrapper
        # that runs the hook instead (the event comes in the payload).
        agent = os.path.join(home, ".pi", "agent")
        os.makedirs(os.path.join(agent, "extensions"))
        shutil.copy(PI_EXTENSION, os.path.join(agent, "extensions", "agentspine.js"))
        wrapper = os.path.join(base, "fake-agentspine")
        write(wrapper, f"#!/bin/sh\nexec python3 {hook} {plan}\n")
        os.chmod(wrapper, 0o755)
        env["AGENTSPINE_BIN"] = wrapper
    return {"tree": tree, "home": home, "tmp": tmp, "log_path": log, "env": env, "extra": extra, "base": base}


def tool_script(host: str, tree: str) -> list:
    """Read edit.txt, edit it, run a shell command that writes ran.txt."""
    f = lambda name: os.path.join(tree, name)  # noqa: E731
    shell = "echo ran > ran.txt && cat edit.txt"
    if host == "codex":
        patch = "*** Begin Patch\n*** Update File: edit.txt\n@@\n-before edit\n+after edit\n*** End Patch\n"
        return [{"tool": {"name": "exec_command", "arguments": {"cmd": "cat read.txt"}}},
                {"tool": {"name": "apply_patch", "custom_input": patch}},
                {"tool": {"name": "exec_command", "arguments": {"cmd": shell}}},
                {"text": "done"}]
    if host == "claude":
        return [{"tool": {"name": "Read", "input": {"file_path": f("edit.txt")}}},
                {"tool": {"name": "Edit", "input": {"file_path": f("edit.txt"), "old_string": "before edit",
                                                    "new_string": "after edit"}}},
                {"tool": {"name": "Bash", "input": {"command": shell, "description": "write ran.txt"}}},
                {"text": "done"}]
    if host == "gemini":
        return [{"tool": {"name": "read_file", "args": {"file_path": f("edit.txt")}}},
                {"tool": {"name": "replace", "args": {"file_path": f("edit.txt"), "old_string": "before edit",
                                                      "new_string": "after edit",
                                                      "instruction": "change the line"}}},
                {"tool": {"name": "run_shell_command", "args": {"command": shell, "description": "write ran.txt"}}},
                {"text": "done"}]
    return [{"tool": {"name": "read", "arguments": {"path": f("edit.txt")}}},
            {"tool": {"name": "edit", "arguments": {"path": f("edit.txt"),
                                                    "edits": [{"oldText": "before edit", "newText": "after edit"}]}}},
            {"tool": {"name": "bash", "arguments": {"command": shell}}},
            {"text": "done"}]


CLAUDE_MODEL: list = []  # --claude-model: appended `--model NAME` (capture.py pins claude-sonnet-4-5)


def run(host: str, base: str, emit: dict, keep: str | None, prompt: str = PROMPT) -> dict:
    s = setup(host, base, emit)
    if host == "claude" and CLAUDE_MODEL:
        s["extra"] = [*s["extra"], "--model", CLAUDE_MODEL[0]]
    script = os.path.join(base, "script.json")
    with open(script, "w", encoding="utf-8") as f:
        json.dump(tool_script(host, s["tree"]), f)
    error = None
    recs = []
    try:
        recs = cap.run_host(host, s["tree"], s["tree"], s["home"], env=s["env"], script=script, prompt=prompt,
                            extra_args=s["extra"], timeout=240, keep=keep)
    except cap.CaptureError as e:
        error = str(e)
    log = []
    if os.path.exists(s["log_path"]):
        with open(s["log_path"], encoding="utf-8") as f:
            log = [json.loads(line) for line in f if line.strip()]
    mtimes = {}
    for name in ("edit.txt", "ran.txt"):
        p = os.path.join(s["tree"], name)
        mtimes[name] = os.stat(p).st_mtime_ns if os.path.exists(p) else None
    return {"host": host, "error": error, "recs": recs, "log": log, "mtimes": mtimes, **s}


# -------------------------------------------------------- request contents
def main_requests(host: str, recs: list) -> list:
    out = []
    for r in recs:
        if r["method"] != "POST" or not isinstance(r.get("body"), dict) or not r["body"].get("tools"):
            continue
        path = r["path"].split("?")[0]
        if host == "codex" and path.endswith("/responses"):
            out.append(r)
        elif host == "claude" and path == "/v1/messages":
            out.append(r)
        elif host == "gemini" and path.endswith(":streamGenerateContent"):
            out.append(r)
        elif host.startswith("pi") and path.endswith("/chat/completions"):
            out.append(r)
    return out


def _strings(v) -> list:
    out = []
    if isinstance(v, str):
        out.append(v)
    elif isinstance(v, list):
        for x in v:
            out.extend(_strings(x))
    elif isinstance(v, dict):
        for x in v.values():
            out.extend(_strings(x))
    return out


def items(host: str, body: dict) -> list:
    """The request as a flat list of (label, text): one per message part the
    model reads, in order.  Labels name the role and the part's kind."""
    out = []
    if host == "codex":
        if body.get("instructions"):
            out.append(("instructions", body["instructions"]))
        for it in body.get("input") or []:
            kind = it.get("type", "message")
            if kind == "message":
                out.append((f"{it.get('role')} message", "\n".join(cap._text_items(it.get("content")))))
            elif kind in ("function_call", "custom_tool_call"):
                out.append((f"{kind} {it.get('name')}", it.get("arguments") or it.get("input") or ""))
            else:
                out.append((kind, "\n".join(_strings(it.get("output")))))
    elif host == "claude":
        system = body.get("system")
        if system:
            out.append(("system", "\n".join(_strings(system))))
        for i, m in enumerate(body.get("messages") or []):
            content = m.get("content")
            role = f"m{i} {m['role']}"
            if isinstance(content, str):
                out.append((f"{role} text", content))
                continue
            for block in content or []:
                kind = block.get("type")
                if kind == "tool_use":
                    out.append((f"{role} tool_use {block.get('name')}", json.dumps(block.get("input"))))
                elif kind == "tool_result":
                    out.append((f"{role} tool_result", "\n".join(_strings(block.get("content")))))
                else:
                    out.append((f"{role} {kind}", "\n".join(_strings(block.get("text")))))
    elif host == "gemini":
        if body.get("systemInstruction"):
            out.append(("systemInstruction", "\n".join(_strings(body["systemInstruction"]))))
        for i, c in enumerate(body.get("contents") or []):
            role = f"c{i} {c.get('role')}"
            for part in c.get("parts") or []:
                if "functionCall" in part:
                    out.append((f"{role} functionCall {part['functionCall'].get('name')}",
                                json.dumps(part["functionCall"].get("args"))))
                elif "functionResponse" in part:
                    out.append((f"{role} functionResponse {part['functionResponse'].get('name')}",
                                "\n".join(_strings(part["functionResponse"].get("response")))))
                elif "text" in part:
                    out.append((f"{role} text", part["text"]))
                else:
                    out.append((f"{role} {','.join(part)}", "\n".join(_strings(part))))
    else:
        for i, m in enumerate(body.get("messages") or []):
            role = f"m{i} {m.get('role')}"
            if m.get("tool_calls"):
                for call in m["tool_calls"]:
                    out.append((f"{role} tool_call {call['function']['name']}", call["function"]["arguments"]))
            if isinstance(m.get("content"), str):
                out.append((f"{role} message", m["content"]))
            elif isinstance(m.get("content"), list):
                for part in m["content"]:
                    out.append((f"{role} {part.get('type')}", "\n".join(_strings(part.get("text")))))
    return out


# ------------------------------------------------------------- comparison
PATH_RE = re.compile(r"(/[\w.\-/]+)")


def locate(sent: str, tag: str, req_items: list) -> list:
    """Where TAG's context SENT occurs in one request: per occurrence, the item
    index and label, how much of SENT is kept as a prefix, the host's text
    around it, and a kept tail (a cut in the middle)."""
    first = f"[{tag}:0000000]"
    end = f"[END:{tag}]"
    found = []
    for idx, (label, text) in enumerate(req_items):
        pos = text.find(first)
        while pos != -1:
            rest = text[pos:]
            n = 0
            limit = min(len(rest), len(sent))
            # longest common prefix (chunked for speed on 500k texts)
            step = 4096
            while n + step <= limit and rest[n:n + step] == sent[n:n + step]:
                n += step
            while n < limit and rest[n] == sent[n]:
                n += 1
            after = rest[n:]
            tail = 0
            trailer = after
            end_at = after.find(end) if n < len(sent) else -1
            if end_at != -1:
                # the end marker comes back after the note: a kept tail
                seg = after[:end_at + len(end)]
                while tail < min(len(seg), len(sent) - n) and seg[len(seg) - 1 - tail] == sent[len(sent) - 1 - tail]:
                    tail += 1
                trailer = after[end_at + len(end):]
            if tail:
                note = after[:end_at + len(end) - tail]
            elif n < len(sent):
                note, trailer = after, ""
            else:
                note = ""
            found.append({"item": idx, "label": label, "kept": n, "tail": tail, "note": note[:1200],
                          "before": text[max(0, pos - 600):pos], "trailer": trailer[:1200],
                          "item_len": len(text), "item_start": text[:300]})
            pos = text.find(first, pos + 1)
    return found


def saved_files(note: str, sent: str) -> list:
    """Paths in the host's note that name a file now holding the whole text."""
    out = []
    for p in PATH_RE.findall(note):
        p = p.rstrip(".")
        if os.path.isfile(p):
            try:
                data = open(p, encoding="utf-8", errors="replace").read()
            except OSError:
                continue
            out.append({"path": p, "whole": data == sent, "contains": sent in data, "len": len(data)})
    return out


def tags_emitted(result: dict) -> list:
    """The hook-log entries of the runs that printed a context."""
    out = []
    for entry in result["log"]:
        if entry.get("tag"):
            out.append(entry)
    return out


def describe(sent_len: int, occ: dict) -> str:
    if occ["kept"] == sent_len:
        return "whole"
    return f"cut at {occ['kept']}" + (f" + tail {occ['tail']}" if occ["tail"] else "")


def analyse(result: dict, emit: dict) -> list:
    """Per emitted context: where it went and what was kept."""
    host = result["host"]
    reqs = main_requests(host, result["recs"])
    req_items = [items(host, r["body"]) for r in reqs]
    out = []
    for entry in tags_emitted(result):
        spec = emit[entry["event"]]
        sent = expected(entry["tag"], spec["size"], spec["filler"], spec.get("eol", False))
        per_req = []
        for k, its in enumerate(req_items):
            occ = locate(sent, entry["tag"], its)
            if occ:
                per_req.append({"request": k, "occurrences": occ})
        first = per_req[0]["occurrences"][0] if per_req else None
        files = []
        if first and first["kept"] < len(sent):
            # the host names the file holding the whole text before the kept
            # part (Claude Code, Gemini CLI) or right after it (Codex)
            files = saved_files(first["before"] + "\n" + first["trailer"][:300], sent)
        out.append({"tag": entry["tag"], "event": entry["event"], "tool": entry.get("tool"),
                    "size": spec["size"], "filler": spec["filler"], "eol": spec.get("eol", False),
                    "hook_time": entry["time"],
                    "sent_chars": len(sent), "sent_u16": u16(sent), "sent_bytes": b8(sent),
                    "requests": per_req, "files": files})
    return out


# ------------------------------------------------------------------ parts
def emit_all(host: str, size: int, filler: str, eol: bool = False) -> dict:
    return {e: {"size": size, "filler": filler, "eol": eol} for e in EVENTS[host]}


def kept_units(sent: str, kept: int) -> str:
    part = sent[:kept]
    return f"{len(part)} chars / {u16(part)} UTF-16 / {b8(part)} bytes"


def report_caps(host: str, size: int, filler: str, result: dict, found: list, lines: list):
    if result["error"]:
        lines.append(f"{host:7} {size:>7} {filler!r}: run failed: {result['error'][:400]}")
    for c in found:
        head = f"{host:7} {c['size']:>7} {filler!r} {c['tag']:6} ({c['event']}{' ' + c['tool'] if c['tool'] else ''})"
        if not c["requests"]:
            lines.append(f"{head}: not in any request (dropped)")
            continue
        occ = c["requests"][0]["occurrences"][0]
        sent = expected(c["tag"], c["size"], c["filler"], c.get("eol", False))
        where = f"request {c['requests'][0]['request']} item {occ['item']} [{occ['label']}]"
        if occ["kept"] == len(sent):
            lines.append(f"{head}: whole, {where}")
        else:
            lines.append(f"{head}: kept {kept_units(sent, occ['kept'])}"
                         + (f" + tail {kept_units(sent[len(sent) - occ['tail']:], occ['tail'])}" if occ["tail"] else "")
                         + f", {where}; header {occ['before'][-200:]!r}; note {occ['note'][:300]!r}"
                         + (f"; trailer {occ['trailer'][:300]!r}" if occ["trailer"] else ""))
            for f in c["files"]:
                lines.append(f"{'':7} saved file {f['path']}: "
                             + ("exactly the context" if f["whole"] else "holds the whole context"
                                if f["contains"] else "does not hold the whole context") + f" ({f['len']} chars)")


def sweep(host: str, variants, work: str, keep: str | None, out: list, part: str, lines: list):
    """One run per (size, filler name, eol): every event emits that context."""
    for size, name, eol in variants:
        filler = FILLERS[name]
        emit = emit_all(host, size, filler, eol)
        label = f"{part}-{host}-{size}-{name}" + ("-eol" if eol is True else "".join(f"-nl{i}" for i in eol or []))
        base = os.path.join(work, label)
        result = run(host, base, emit, os.path.join(keep, label) if keep else None)
        found = analyse(result, emit)
        mark = len(lines)
        shown = filler + ("\\n" if eol is True else "".join(f" nl@{i * 100 + 99}" for i in eol or []))
        report_caps(host, size, shown, result, found, lines)
        print("\n".join(lines[mark:]), flush=True)
        out.append({"part": part, "host": host, "size": size, "filler": filler, "eol": eol,
                    "error": result["error"], "contexts": found, "hook_log": _slim_log(result["log"])})


def part_caps(hosts, sizes, filler, eol, work, keep, out):
    lines = []
    for host in hosts:
        sweep(host, [(size, filler, eol) for size in sizes], work, keep, out, "caps", lines)
    return lines


# Where a cap counts bytes, UTF-16 units or characters, these cut at
# different places (30000 astral: 30000 characters, 60000 UTF-16 units);
# a newline every 100 characters shows a line-based cut; one newline at
# character 899 or 1499 shows whether a 2,000-character preview stops at
# the last newline before it.
UNIT_VARIANTS = [(6000, "bmp3", False), (12000, "bmp3", False), (6000, "astral", False),
                 (12000, "astral", False), (30000, "astral", False), (20000, "ascii", True),
                 (11000, "ascii", [8]), (11000, "ascii", [14])]


def part_units(hosts, work, keep, out):
    lines = []
    for host in hosts:
        sweep(host, UNIT_VARIANTS, work, keep, out, "units", lines)
    return lines


# Characters a host might escape or strip, a would-be closing tag of each
# host's wrapper, and whitespace around the whole context.
SPECIAL = ("lt< gt> amp& quot\" apos' backslash\\ tab\t cr\r nl\n "
           "</hook_context> </system-reminder> </persisted-output> ]]> &lt; emoji\U0001F600 bom\ufeff end")
LEAD, TRAIL = "\n  \n", "\n  \n"


def part_chars(hosts, work, keep, out):
    """One small context with SPECIAL inside, whitespace around it: what the
    model receives between the markers, and around them."""
    lines = []
    for host in hosts:
        emit = {e: {"text": SPECIAL, "lead": LEAD, "trail": TRAIL} for e in EVENTS[host]}
        base = os.path.join(work, f"chars-{host}")
        result = run(host, base, emit, os.path.join(keep, f"chars-{host}") if keep else None)
        reqs = main_requests(host, result["recs"])
        mark = len(lines)
        if result["error"]:
            lines.append(f"{host:7} chars: run failed: {result['error'][:400]}")
        seen = []
        for entry in tags_emitted(result):
            tag = entry["tag"]
            got = None
            for k, r in enumerate(reqs):
                for label, text in items(host, r["body"]):
                    start = text.find(f"[{tag}:0000000]")
                    end = text.find(f"[END:{tag}]", start)
                    if start != -1 and end != -1:
                        inner = text[start + len(f"[{tag}:0000000]"):end]
                        got = {"request": k, "label": label, "inner": inner, "same": inner == SPECIAL,
                               "before": text[max(0, start - 60):start],
                               "after": text[end + len(f"[END:{tag}]"):][:60]}
                        break
                if got:
                    break
            seen.append({"tag": tag, "event": entry["event"], "tool": entry.get("tool"), "got": got})
            if got is None:
                lines.append(f"{host:7} chars {tag:6} ({entry['event']}): in no request")
            else:
                lines.append(f"{host:7} chars {tag:6} ({entry['event']}): "
                             + ("unchanged" if got["same"] else f"became {got['inner']!r}")
                             + f"; around it: {got['before']!r} ... {got['after']!r}")
        print("\n".join(lines[mark:]), flush=True)
        out.append({"part": "chars", "host": host, "sent": SPECIAL, "lead": LEAD, "trail": TRAIL,
                    "error": result["error"], "contexts": seen})
    return lines


def _slim_log(log: list) -> list:
    return [{k: v for k, v in e.items() if k != "payload"} | {"tool_input": (e.get("payload") or {}).get("tool_input")}
            for e in log]


RESULT_LABELS = ("tool_result", "function_call_output", "custom_tool_call_output", "functionResponse", "tool message")
TOOL_KIND = {"apply_patch": "edit", "Edit": "edit", "replace": "edit", "edit": "edit"}


def part_place(hosts, work, keep, out):
    lines = []
    for host in hosts:
        mark = len(lines)
        emit = emit_all(host, PLACE_SIZE, ".")
        base = os.path.join(work, f"place-{host}")
        result = run(host, base, emit, os.path.join(keep, f"place-{host}") if keep else None)
        reqs = main_requests(host, result["recs"])
        found = analyse(result, emit)
        if result["error"]:
            lines.append(f"{host:7} place: run failed: {result['error'][:600]}")
        layout = []
        tag_at = {}
        for c in found:
            for r in c["requests"]:
                for o in r["occurrences"]:
                    tag_at.setdefault((r["request"], o["item"]), []).append(c["tag"])
        for k, r in enumerate(reqs):
            its = items(host, r["body"])
            row = []
            for idx, (label, text) in enumerate(its):
                tags = tag_at.get((k, idx))
                prompt = PROMPT in text and "user" in label
                if tags or prompt or "tool" in label or "function" in label:
                    row.append(label + (" (the prompt)" if prompt else "") + (f" <{'+'.join(tags)}>" if tags else ""))
            layout.append({"request": k, "time": r["time"], "reply": r["reply"], "items": row})
            lines.append(f"{host:7} request {k} (reply {r['reply']}): " + " | ".join(row))
        for c in found:
            if not c["requests"]:
                lines.append(f"{host:7} {c['tag']:6} ({c['event']} {c['tool'] or ''}): in no request")
                continue
            r0 = c["requests"][0]
            o = r0["occurrences"][0]
            its = items(host, reqs[r0["request"]]["body"])
            text = its[o["item"]][1]
            start = text.find(f"[{c['tag']}:0000000]")
            stop = start + o["kept"]
            lines.append(f"{host:7} {c['tag']:6} ({c['event']} {c['tool'] or ''}): first in request {r0['request']}, "
                         f"{o['label']}; {describe(c['sent_chars'], o)}; wrapped as "
                         f"{text[:start][-160:]!r} + context + {text[stop:][:160]!r}"
                         f"{' (item starts with: ' + repr(text[:80]) + ')' if start > 160 else ''}")
        for entry in result["log"]:
            st = entry["state"]
            edit = next((v for p, v in st.items() if p.endswith("edit.txt")), None)
            ran = next((v for p, v in st.items() if p.endswith("ran.txt")), None)
            lines.append(f"{host:7} hook {entry['event']:16} tool={entry.get('tool')!s:18} tag={entry.get('tag')!s:6}"
                         f" edit.txt={(edit or {}).get('text', '').strip()!r} ran.txt={'yes' if ran else 'no'}")
        positions = []
        for c in found:
            if not c["tool"] or not c["requests"]:
                continue
            k = c["requests"][0]["request"]
            o = c["requests"][0]["occurrences"][0]
            its = items(host, reqs[k]["body"])
            results = [i for i, (label, _) in enumerate(its) if any(x in label for x in RESULT_LABELS)]
            last = results[-1] if results else None
            where = ("no tool result" if last is None else "inside the tool result" if o["item"] == last
                     else "after the tool result" if o["item"] > last else "before the tool result")
            entry = next(e for e in result["log"] if e.get("tag") == c["tag"])
            tool_input = json.dumps((entry.get("payload") or {}).get("tool_input"))
            effect = ("ran.txt" if "ran.txt" in tool_input
                      else "edit.txt" if TOOL_KIND.get(c["tool"]) == "edit" else None)
            done = None
            if effect and result["mtimes"].get(effect):
                done = result["mtimes"][effect] < reqs[k]["time"] * 1e9
            positions.append({"tag": c["tag"], "event": c["event"], "tool": c["tool"], "request": k,
                              "item": o["item"], "result_item": last, "where": where, "tool_effect_before": done})
            lines.append(f"{host:7} {c['tag']:6} ({c['event']} {c['tool']}): request {k}, item {o['item']} "
                         f"[{o['label']}], {where} (item {last})"
                         + (f"; {effect} already written when that request was sent: {done}" if effect else ""))
        print("\n".join(lines[mark:]), flush=True)
        out.append({"part": "place", "host": host, "error": result["error"], "contexts": found, "layout": layout,
                    "positions": positions, "mtimes": result["mtimes"], "hook_log": _slim_log(result["log"])})
    return lines


def _inside(spec_path: str) -> int:
    """capture.py's namespace runner, with the mock's recorder writing ASCII
    JSON: a request that holds a lone UTF-16 surrogate (a JSON escape the
    client sent after cutting a surrogate pair in two) is then recorded like
    any other, where the stock recorder fails to encode it and the client
    sees a dropped connection."""
    import mock_model

    def write(self, rec: dict):
        with self.lock:
            self.seq += 1
            rec = dict(seq=self.seq, time=time.time(), **rec)
            if self.path:
                with open(self.path, "a", encoding="utf-8") as f:
                    f.write(json.dumps(rec, ensure_ascii=True) + "\n")
            return rec

    mock_model.Recorder.write = write
    return cap._inside(spec_path)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--inside"]:
        return _inside(argv[1])
    # capture.run_host starts `python3 <capture's __file__> --inside SPEC` in
    # the namespace: this file's runner instead (see _inside).
    cap.__file__ = os.path.abspath(__file__)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", action="append", choices=tuple(EVENTS))
    ap.add_argument("--part", action="append", choices=("place", "caps", "units", "chars"))
    ap.add_argument("--sizes", help="comma-separated sizes in characters for --part caps")
    ap.add_argument("--filler", choices=tuple(FILLERS), default="ascii", help="filler for --part caps")
    ap.add_argument("--eol", action="store_true", help="--part caps: end every 100-character block with a newline")
    ap.add_argument("--claude-model", metavar="NAME", help="run Claude Code with --model NAME (default: capture.py's)")
    ap.add_argument("--json", metavar="OUT", help="write every observation here")
    ap.add_argument("--keep", metavar="DIR", help="keep the raw requests of each run in DIR/<run>/")
    ap.add_argument("--work", metavar="DIR", help="build the projects under DIR (kept)")
    a = ap.parse_args(argv)
    hosts = a.host or list(EVENTS)
    if a.claude_model:
        CLAUDE_MODEL.append(a.claude_model)
    parts = a.part or ["place", "caps", "units", "chars"]
    sizes = [int(s) for s in a.sizes.split(",")] if a.sizes else list(DEFAULT_SIZES)
    try:
        cap.client_bins()
    except cap.CaptureError as e:
        print(f"measure_hook_context.py: {e}", file=sys.stderr)
        return 2
    work = os.path.abspath(a.work) if a.work else tempfile.mkdtemp(prefix="agentspine-hook-ctx-")
    out: list = []
    try:
        if "place" in parts:
            part_place(hosts, work, a.keep, out)
        if "caps" in parts:
            part_caps(hosts, sizes, a.filler, a.eol, work, a.keep, out)
        if "units" in parts:
            part_units(hosts, work, a.keep, out)
        if "chars" in parts:
            part_chars(hosts, work, a.keep, out)
    finally:
        if a.json:
            with open(a.json, "w", encoding="utf-8") as f:
                json.dump(out, f, indent=1, ensure_ascii=True)
        if not a.work:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
