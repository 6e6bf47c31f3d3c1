#!/usr/bin/env python3
"""Measure GitHub Copilot CLI 1.0.102, black box: what it loads, its text, its view tool, its hooks.

    PYTHONPATH=tests/lib python3 tests/e2e/measure_copilot.py [--part start|view|hooks|limits|mcp ...]
                 [--fixture NAME ...] [--work DIR] [--json OUT] [--markdown OUT]

Every run is copilot.run(): the real client, headless, in its own network and
PID namespace against the mock model, with a throwaway HOME.  Results are
printed; COPILOT-MEASURED.md records them.  Needs root (namespaces).  Not CI.

Parts:
  start   every fixture of fixtures_copilot.py: the instruction text of the
          first request (copilot.extract), its length and sha256
  view    the `view` tool (and edit, create, grep, glob, bash) on files below
          directories holding instruction files: the <system_reminder>
          messages that follow a tool result
  hooks   hook files (.github/hooks/*.json, ~/.copilot/hooks/*.json,
          settings.json `hooks`): trust, event names, output shapes, where a
          context lands, its cap, payloads, failures and timeouts
  limits  sizes (1 MiB per file, 10 MiB total, 10,000 entries) and large files
  mcp     MCP server configuration files
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time

sys.dont_write_bytecode = True

import copilot  # noqa: E402
import fixtures_copilot as fx  # noqa: E402
import harness  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_WORK = "/tmp/agentspine-copilot"  # fixed, so the paths in texts (and their sha256) repeat
BIG_CONTEXT = {"COPILOT_PROVIDER_MAX_PROMPT_TOKENS": "100000000"}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def run_fixture(fixture: dict, work: str, **kw):
    p = fx.build(fixture, work)
    env = dict(p["env"], **kw.pop("env", {}))
    recs = copilot.run(p["tree"], p["cwd"], p["home"], kw.pop("prompt", copilot.PROMPT), kw.pop("script", None),
                       env, kw.pop("timeout", 120), [*p["args"], *kw.pop("args", [])], wrap=p["wrap"],
                       keep=os.path.join(p["base"], "keep"), **kw)
    return recs, p


# ------------------------------------------------------------------- start
def part_start(names, work, out):
    for f in fx.FIXTURES:
        if names and f["name"] not in names:
            continue
        try:
            recs, p = run_fixture(f, work)
            text = copilot.extract(recs) or ""
            env_lines = [line for line in copilot.system_message(recs).splitlines()
                         if line.startswith(("* Current working directory:", "* Git repository root:"))]
            row = {"name": f["name"], "intent": f["intent"], "cwd": f.get("cwd", "."), "len": len(text),
                   "bytes": len(text.encode("utf-8", "surrogatepass")), "sha256": sha(text), "text": text,
                   "environment": env_lines}
        except copilot.CopilotError as e:
            row = {"name": f["name"], "intent": f["intent"], "error": str(e)[:2000]}
        out.append(row)
        print(f"=== {row['name']} ({row['intent']})")
        if "error" in row:
            print("ERROR:", row["error"])
        else:
            print(f"len={row['len']} bytes={row['bytes']} sha256={row['sha256']}")
            print("\n".join(row["environment"]))
            print(repr(row["text"]))
        sys.stdout.flush()


# -------------------------------------------------------------------- view
VIEW_TREE = {
    "AGENTS.md": "ROOT-AG\n",
    "pkg/.github/copilot-instructions.md": "P-GHCI\n", "pkg/AGENTS.md": "P-AG\n", "pkg/CLAUDE.md": "P-CL\n",
    "pkg/.claude/CLAUDE.md": "P-DOTCL\n", "pkg/GEMINI.md": "P-GEM\n", "pkg/CLAUDE.local.md": "P-LOCAL\n",
    "pkg/AGENTS.override.md": "P-OVR\n",
    "pkg/.github/instructions/a.instructions.md": "P-INSTR-A\n",
    "pkg/.github/instructions/rel.instructions.md": '---\napplyTo: "mid/**"\n---\nP-INSTR-REL\n',
    "pkg/.github/instructions/abs.instructions.md": '---\napplyTo: "pkg/mid/**"\n---\nP-INSTR-ABS\n',
    "pkg/.claude/rules/r.md": "P-RULE\n", "pkg/.claude/rules/relr.md": '---\npaths: "mid/**"\n---\nP-RULE-REL\n',
    "pkg/.claude/rules/absr.md": '---\npaths: "pkg/mid/**"\n---\nP-RULE-ABS\n',
    "pkg/mid/AGENTS.md": "MID-AG <b>\"q\" 'a' & done\n", "pkg/mid/leaf/AGENTS.md": "LEAF-AG\n",
    "pkg/mid/leaf/file.ts": "const x = 1;\n", "pkg/mid/other.ts": "other\n",
    "pkg/same/AGENTS.md": "ROOT-AG\n", "pkg/same/f.txt": "f\n",
    "app/AGENTS.md": "APP-AG\n", "app/a.ts": "a\n",
    "a/AGENTS.md": "A-AG\n", "a/f.txt": "f\n", "a/b/AGENTS.md": "AB-AG\n",
    ".github/instructions/ts.instructions.md": '---\napplyTo: "**/*.ts"\ndescription: TS\n---\nTS-INSTR\n',
    ".claude/rules/ts.md": '---\npaths: "**/*.ts"\n---\nTS-RULE\n',
}
for _p in ("p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"):
    VIEW_TREE[f"tools/{_p}/AGENTS.md"] = f"{_p.upper()}-AG\n"
    VIEW_TREE[f"tools/{_p}/f.ts"] = f"hello {_p}\n"

VIEW_CASES = [
    ("view_leaf_cwd_root", ".", ["view pkg/mid/leaf/file.ts", "view pkg/mid/leaf/file.ts", "view pkg/mid/other.ts"]),
    ("view_leaf_cwd_pkg", "pkg", ["view pkg/mid/leaf/file.ts"]),
    ("view_leaf_cwd_sibling", "app", ["view pkg/mid/leaf/file.ts"]),
    ("view_same_text_as_root", ".", ["view pkg/same/f.txt"]),
    ("view_intermediate_dir", "a/b", ["view a/f.txt"]),
    ("view_outside_repo", ".", ["view {base}/outside/x/f.txt"]),
    ("tools_each", "tools", ["create tools/p1/new.ts", "edit tools/p2/f.ts", "grep tools/p3", "glob tools/p4",
                             "bash tools/p5/f.ts", "view tools/p6", "viewrange tools/p7/f.ts", "view tools/p8/AGENTS.md"]),
    ("view_two_dirs", ".", ["view tools/p1/f.ts", "view tools/p2/f.ts"]),
]


def _step(word: str, tree: str, base: str) -> dict:
    verb, rel = word.split(" ", 1)
    path = rel.format(base=base) if rel.startswith("{") else os.path.join(tree, rel)
    if verb == "view":
        return {"name": "view", "arguments": {"path": path}}
    if verb == "viewrange":
        return {"name": "view", "arguments": {"path": path, "view_range": [1, 1]}}
    if verb == "create":
        return {"name": "create", "arguments": {"path": path, "file_text": "new\n"}}
    if verb == "edit":
        return {"name": "edit", "arguments": {"path": path, "old_str": "hello", "new_str": "bye"}}
    if verb == "grep":
        return {"name": "grep", "arguments": {"pattern": "hello", "paths": path}}
    if verb == "glob":
        return {"name": "glob", "arguments": {"pattern": "**/*.ts", "paths": path}}
    if verb == "bash":
        return {"name": "bash", "arguments": {"command": f"cat {path}", "description": "cat"}}
    raise ValueError(word)


def part_view(work, out):
    for name, cwd, steps in VIEW_CASES:
        f = {"name": name, "intent": "view", "files": VIEW_TREE, "cwd": cwd,
             "outside": {"outside/x/AGENTS.md": "OUTSIDE-X-AG\n", "outside/x/f.txt": "f\n", "outside/AGENTS.md": "OUT-AG\n"}}
        p = fx.build(f, work)
        script = []
        for s in steps:
            if isinstance(s, list):  # parallel calls in one assistant message: the mock sends one per turn
                script.extend({"tool": _step(w, p["tree"], p["base"])} for w in s)
            else:
                script.append({"tool": _step(s, p["tree"], p["base"])})
        script.append({"text": "done"})
        recs = copilot.run(p["tree"], p["cwd"], p["home"], "Do it.", script, None, 150, ["--allow-all-paths"],
                           keep=os.path.join(p["base"], "keep"))
        last = copilot.main_requests(recs)[-1]["body"]["messages"]
        rows = []
        print(f"=== {name} (cwd {cwd})")
        for i, m in enumerate(last[1:], 1):
            text = "".join(harness.text_items(m.get("content")))
            if m.get("tool_calls"):
                fn = m["tool_calls"][0]["function"]
                rows.append({"i": i, "kind": "call", "tool": fn["name"], "arguments": fn["arguments"]})
                print(f"  {i} call {fn['name']} {fn['arguments'][:120]}")
            elif "<system_reminder>" in text:
                src = re.findall(r"Custom instructions from (.*?)\. Apply these", text)
                rows.append({"i": i, "kind": "reminder", "role": m["role"], "sources": src, "text": text})
                print(f"  {i} {m['role']} reminder from {src}")
            else:
                rows.append({"i": i, "kind": m["role"], "text": text[:300]})
                print(f"  {i} {m['role']} {text[:100]!r}")
        start = copilot.extract(recs)
        out.append({"name": name, "cwd": cwd, "steps": steps, "start_text": start, "messages": rows})
        sys.stdout.flush()
    # the exact bytes of one reminder message
    first = next(r for r in out if r["name"] == "view_leaf_cwd_pkg")
    rem = next(m for m in first["messages"] if m["kind"] == "reminder")
    print("reminder bytes (view_leaf_cwd_pkg):", repr(rem["text"]))


# ------------------------------------------------------------------- hooks
HOOK = r'''
import json, os, sys, time
plan = json.load(open(sys.argv[1], encoding="utf-8"))
label = sys.argv[2]
raw = sys.stdin.buffer.read().decode("utf-8", "replace")
try:
    payload = json.loads(raw) if raw.strip() else {}
except ValueError:
    payload = {"unparsed": raw[:2000]}
log = plan["log"]
runs = 0
if os.path.exists(log):
    for line in open(log, encoding="utf-8"):
        if json.loads(line)["label"] == label:
            runs += 1
tag = "%s%d" % (label, runs + 1)
with open(log, "a", encoding="utf-8") as f:
    f.write(json.dumps({"time": time.time(), "label": label, "tag": tag, "payload": payload, "cwd": os.getcwd()}) + "\n")
spec = plan["emit"].get(label)
if not spec:
    sys.exit(0)
if spec.get("sleep"):
    time.sleep(spec["sleep"])
if spec.get("exit"):
    sys.stderr.write("hook failing on purpose\n")
    sys.exit(spec["exit"])
size = spec.get("size", 0)
if size:
    parts, length, i = [], 0, 0
    while length < size:
        head = "[%s:%07d]" % (tag, i * 100)
        parts.append(head + spec.get("filler", ".") * (100 - len(head)))
        length += 100
        i += 1
    end = "[END:%s]" % tag
    text = "".join(parts)[:max(0, size - len(end))] + end
else:
    text = "[%s:0000000]%s[END:%s]" % (tag, spec.get("text", " context "), tag)
shape = spec.get("shape", "flat")
if shape == "flat":
    out = {"additionalContext": text}
elif shape == "hso":
    out = {"hookSpecificOutput": {"hookEventName": spec.get("event", label), "additionalContext": text}}
elif shape == "plain":
    sys.stdout.write(text + "\n")
    sys.exit(0)
else:
    out = spec["raw"]
sys.stdout.write(json.dumps(out) + "\n")
'''

CAMEL = ["sessionStart", "userPromptSubmitted", "userPromptTransformed", "preToolUse", "postToolUse",
         "postToolUseFailure", "agentStop", "sessionEnd", "errorOccurred", "permissionRequest", "notification",
         "subagentStart", "subagentStop", "preCompact"]
PASCAL = ["SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop",
          "SessionEnd", "Notification", "PreCompact", "SubagentStop"]
FOUR = ["sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse"]


class HookRun:
    def __init__(self, work, name, files=None, cwd="."):
        f = {"name": name, "intent": "hooks", "files": files or {"AGENTS.md": "ROOT\n", "f.txt": "hello\n"}, "cwd": cwd}
        self.p = fx.build(f, work)
        self.base, self.tree, self.home, self.cwd = self.p["base"], self.p["tree"], self.p["home"], self.p["cwd"]
        self.hook = harness.write(os.path.join(self.base, "hook.py"), HOOK)
        self.plan = os.path.join(self.base, "plan.json")
        self.log = os.path.join(self.base, "hook.log")
        self.emit = {}

    def entry(self, label, timeout=30, **extra):
        e = {"type": "command", "bash": f"python3 {self.hook} {self.plan} {label}"}
        if timeout is not None:
            e["timeoutSec"] = timeout
        e.update(extra)
        return e

    def write_config(self, where, hooks, filename="hooks.json", root=None):
        cfg = {"version": 1, "hooks": hooks}
        root = root or self.tree
        if where == "repo":
            harness.write(os.path.join(root, ".github", "hooks", filename), json.dumps(cfg, indent=1))
        elif where == "user-dir":
            harness.write(os.path.join(self.home, ".copilot", "hooks", filename), json.dumps(cfg, indent=1))
        elif where == "user-settings":
            harness.write(os.path.join(self.home, ".copilot", "settings.json"), json.dumps({"hooks": hooks}, indent=1))
        elif where == "repo-settings":
            harness.write(os.path.join(root, ".github", "copilot", "settings.json"), json.dumps({"hooks": hooks}, indent=1))

    def run(self, script=None, args=("--trust-folder",), env=None, timeout=150, check=True):
        with open(self.plan, "w") as f:
            json.dump({"log": self.log, "emit": self.emit}, f)
        if script == "view":
            script = [{"tool": {"name": "view", "arguments": {"path": os.path.join(self.tree, "f.txt")}}}, {"text": "done"}]
        t0 = time.monotonic()
        self.recs = copilot.run(self.tree, self.cwd, self.home, "Do it.", script, env, timeout, list(args),
                                keep=os.path.join(self.base, "keep"), check=check)
        self.duration = round(time.monotonic() - t0, 1)
        self.entries = [json.loads(line) for line in open(self.log)] if os.path.exists(self.log) else []
        return self

    def messages(self, request=-1):
        reqs = copilot.main_requests(self.recs)
        return reqs[request]["body"]["messages"] if reqs else []

    def where(self, tag):
        """(request index, message index, role, text before the context in that message) of a tag's first arrival."""
        for k, q in enumerate(copilot.main_requests(self.recs)):
            for i, m in enumerate(q["body"]["messages"]):
                text = "".join(harness.text_items(m.get("content")))
                j = text.find(f"[{tag}:0000000]")
                if j != -1:
                    return k, i, m["role"], text[:j], text
        return None


def _expected(tag, size, filler="."):
    parts, length, i = [], 0, 0
    while length < size:
        head = "[%s:%07d]" % (tag, i * 100)
        parts.append(head + filler * (100 - len(head)))
        length += 100
        i += 1
    end = "[END:%s]" % tag
    return "".join(parts)[:max(0, size - len(end))] + end


def hooks_trust(work, out):
    print("--- trust and locations (sessionStart, flat output)")
    cases = [("repo, no trust", "repo", [], None, None, "."),
             ("repo, --trust-folder", "repo", ["--trust-folder"], None, None, "."),
             ("repo, COPILOT_ALLOW_ALL=true", "repo", [], {"COPILOT_ALLOW_ALL": "true"}, None, "."),
             ("repo, COPILOT_ALLOW_ALL=1", "repo", [], {"COPILOT_ALLOW_ALL": "1"}, None, "."),
             ("repo, --yolo", "repo", ["--yolo"], None, None, "."),
             ("repo, trustedFolders in config.json", "repo", [], None, ("config.json", "tree"), "."),
             ("repo, trustedFolders in settings.json", "repo", [], None, ("settings.json", "tree"), "."),
             ("repo settings.json hooks, no trust", "repo-settings", [], None, None, "."),
             ("repo settings.json hooks, --trust-folder", "repo-settings", ["--trust-folder"], None, None, "."),
             ("~/.copilot/settings.json hooks, no trust", "user-settings", [], None, None, "."),
             ("~/.copilot/hooks/*.json, no trust", "user-dir", [], None, None, ".")]
    for label, where, args, env, trusted, cwd in cases:
        h = HookRun(work, "hooks-trust-" + re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-"), cwd=cwd)
        h.emit = {"sessionStart": {"shape": "flat"}}
        h.write_config(where, {"sessionStart": [h.entry("sessionStart")]})
        if trusted:
            harness.write(os.path.join(h.home, ".copilot", trusted[0]), json.dumps({"trustedFolders": [h.tree]}))
        h.run(args=args, env=env)
        ran = bool(h.entries)
        arrived = h.where("sessionStart1") is not None
        print(f"  {label:45} hook ran: {ran}; context in request: {arrived}")
        out.append({"part": "trust", "case": label, "ran": ran, "arrived": arrived})
    print("--- which .github/hooks: hooks at the root (ROOT) and in the start directory pkg (PKG), cwd pkg")
    for label, args, env, cfg, git in [("--trust-folder", ["--trust-folder"], None, False, "init"),
                                       ("COPILOT_ALLOW_ALL=true", [], {"COPILOT_ALLOW_ALL": "true"}, False, "init"),
                                       ("trustedFolders root+pkg", [], None, True, "init"),
                                       ("no git, --trust-folder", ["--trust-folder"], None, False, "none"),
                                       ("no git, COPILOT_ALLOW_ALL=true", [], {"COPILOT_ALLOW_ALL": "true"}, False, "none")]:
        h = HookRun(work, "hooks-where-" + re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-"),
                    files={"AGENTS.md": "ROOT\n", "pkg/x": ""}, cwd="pkg")
        if git == "none":
            harness.remove(os.path.join(h.tree, ".git"))
        h.emit = {"ROOT": {"shape": "flat"}, "PKG": {"shape": "flat"}}
        h.write_config("repo", {"sessionStart": [h.entry("ROOT")]})
        h.write_config("repo", {"sessionStart": [h.entry("PKG")]}, root=h.cwd)
        if cfg:
            harness.write(os.path.join(h.home, ".copilot", "config.json"), json.dumps({"trustedFolders": [h.tree, h.cwd]}))
        h.run(args=args, env=env)
        print(f"  {label:45} ran: {[e['label'] for e in h.entries]}")
        out.append({"part": "which-hooks", "case": label, "ran": [e["label"] for e in h.entries]})


def hooks_place(work, out):
    print("--- event names x output shapes (view f.txt)")
    for names, shape in [(CAMEL, "flat"), (CAMEL, "hso"), (PASCAL, "flat"), (PASCAL, "hso")]:
        h = HookRun(work, f"hooks-place-{'camel' if names is CAMEL else 'pascal'}-{shape}")
        h.emit = {e: {"shape": shape} for e in names}
        h.write_config("repo", {e: [h.entry(e)] for e in names})
        h.run("view")
        print(f"  {'camelCase' if names is CAMEL else 'PascalCase'} + {shape}: ran {[e['tag'] for e in h.entries]}")
        rows = []
        for e in h.entries:
            w = h.where(e["tag"])
            rows.append({"tag": e["tag"], "arrived": w is not None, "request": w and w[0], "message": w and w[1],
                         "role": w and w[2], "before": w and w[3][-200:], "payload": e["payload"]})
            print(f"    {e['tag']:24} " + (f"request {w[0]} message {w[1]} {w[2]}: {w[3][-120:]!r}" if w else "not sent"))
        out.append({"part": "place", "names": "camel" if names is CAMEL else "pascal", "shape": shape,
                    "contexts": rows, "messages": h.messages()})
        if shape == "flat":
            print("    last request:")
            for i, m in enumerate(h.messages()[1:], 1):
                print(f"      {i} {m['role']} {json.dumps(m.get('content'))[:300]}"
                      + (f" calls {m['tool_calls'][0]['function']['name']}" if m.get("tool_calls") else ""))
            print("    payloads:")
            for e in h.entries:
                print(f"      {e['tag']}: {json.dumps(e['payload'])[:600]}")
    print("--- tools (edit, create, bash, failing view, grep, glob): payload tool names and where contexts land")
    for names in (["preToolUse", "postToolUse", "postToolUseFailure"], ["PreToolUse", "PostToolUse", "PostToolUseFailure"]):
        h = HookRun(work, f"hooks-tools-{names[0].lower()}")
        h.emit = {e: {"shape": "flat"} for e in names}
        h.write_config("repo", {e: [h.entry(e)] for e in names})
        t = h.tree
        script = [{"tool": {"name": "edit", "arguments": {"path": t + "/f.txt", "old_str": "hello", "new_str": "bye"}}},
                  {"tool": {"name": "create", "arguments": {"path": t + "/new.txt", "file_text": "new\n"}}},
                  {"tool": {"name": "bash", "arguments": {"command": "echo ran > ran.txt && cat f.txt", "description": "run"}}},
                  {"tool": {"name": "view", "arguments": {"path": t + "/missing.txt"}}},
                  {"tool": {"name": "grep", "arguments": {"pattern": "bye"}}},
                  {"tool": {"name": "glob", "arguments": {"pattern": "*.txt"}}},
                  {"text": "done"}]
        h.run(script)
        for e in h.entries:
            p = e["payload"]
            print(f"    {e['tag']:22} {p.get('toolName') or p.get('tool_name')!s:8} "
                  + json.dumps({k: v for k, v in p.items() if k not in ('sessionId', 'session_id', 'timestamp', 'cwd')})[:240])
        for i, m in enumerate(h.messages()[1:], 1):
            if m["role"] in ("tool", "user"):
                print(f"      {i} {m['role']} {json.dumps(m.get('content'))[:220]}")
        out.append({"part": "tools", "names": names, "payloads": [e["payload"] for e in h.entries], "messages": h.messages()})
    print("--- several hooks per event: ~/.copilot/hooks (D), ~/.copilot/settings.json (U), .github/hooks (R), two each")
    h = HookRun(work, "hooks-multi")
    hooks = {"R": {}, "U": {}, "D": {}}
    for e in FOUR:
        for who in hooks:
            for n in (1, 2):
                label = f"{who}{n}{e}"
                h.emit[label] = {"shape": "flat"}
                hooks[who].setdefault(e, []).append(h.entry(label))
    h.write_config("repo", hooks["R"])
    h.write_config("user-settings", hooks["U"])
    h.write_config("user-dir", hooks["D"])
    h.run("view")
    print("    ran:", [e["tag"] for e in h.entries])
    for i, m in enumerate(h.messages()[1:], 1):
        print(f"      {i} {m['role']} {json.dumps(m.get('content'))[:900]}")
    out.append({"part": "multi", "ran": [e["tag"] for e in h.entries], "messages": h.messages()})


def hooks_caps(work, out, sizes=(5000, 10000, 10240, 10241, 20000, 50000, 500000), units=True):
    print("--- caps: every one of the four events emits the same size (flat shape)")
    variants = [(s, ".") for s in sizes]
    if units:
        variants += [(10240, "\u20ac"), (10241, "\u20ac"), (6000, "\U0001d11e")]
    for size, filler in variants:
        h = HookRun(work, f"hooks-cap-{size}-{ord(filler):x}")
        h.emit = {e: {"shape": "flat", "size": size, "filler": filler} for e in FOUR}
        h.write_config("repo", {e: [h.entry(e)] for e in FOUR})
        h.run("view", env=BIG_CONTEXT)
        line = []
        for e in h.entries:
            sent = _expected(e["tag"], size, filler)
            w = h.where(e["tag"])
            if w is None:
                line.append(f"{e['tag']}: absent")
                continue
            rest = w[4][len(w[3]):]
            n = 0
            while n < min(len(rest), len(sent)) and rest[n] == sent[n]:
                n += 1
            kept = sent[:n]
            line.append(f"{e['tag']}: " + ("whole" if n == len(sent) else
                        f"cut to {n} chars / {len(kept.encode('utf-16-le')) // 2} UTF-16 / {len(kept.encode())} bytes, "
                        f"then {rest[n:n + 40]!r}"))
            out.append({"part": "caps", "size": size, "filler": filler, "tag": e["tag"], "kept": n, "sent": len(sent)})
        print(f"  {size:>7} {filler!r}: " + "; ".join(line))
        sys.stdout.flush()


SPECIAL = ("lt< gt> amp& quot\" apos' backslash\\ tab\t cr\r nl\n </system_reminder> &lt; emoji\U0001F600 end")


def hooks_chars(work, out):
    print("--- text changes: a context with markup characters and whitespace around it")
    h = HookRun(work, "hooks-chars")
    h.emit = {e: {"shape": "raw", "raw": {"additionalContext": "\n  \n[%s1:0000000]" % e + SPECIAL + "[END:%s1]\n  \n" % e}}
              for e in FOUR}
    h.write_config("repo", {e: [h.entry(e)] for e in FOUR})
    h.run("view")
    for e in FOUR:
        tag = e + "1"
        w = h.where(tag)
        if not w:
            print(f"  {tag}: not sent")
            continue
        text = w[4]
        start = text.find(f"[{tag}:0000000]")
        end = text.find(f"[END:{tag}]")
        inner = text[start + len(f"[{tag}:0000000]"):end]
        print(f"  {tag}: " + ("unchanged" if inner == SPECIAL else f"became {inner!r}")
              + f"; around: {text[max(0, start - 40):start]!r} ... {text[end + len(tag) + 6:][:40]!r}")
        out.append({"part": "chars", "tag": tag, "same": inner == SPECIAL, "inner": inner,
                    "before": text[max(0, start - 40):start], "after": text[end:][:60]})
    print("--- two postToolUse hooks of 8,000 characters each: is the 10,240 cap per hook or per tool result?")
    h = HookRun(work, "hooks-cap-two-post")
    h.emit = {"P1": {"shape": "flat", "size": 8000}, "P2": {"shape": "flat", "size": 8000}}
    h.write_config("repo", {"postToolUse": [h.entry("P1"), h.entry("P2")]})
    h.run("view")
    for tag in ("P11", "P21"):
        w = h.where(tag)
        sent = _expected(tag, 8000)
        rest = w[4][len(w[3]):] if w else ""
        n = 0
        while n < min(len(rest), len(sent)) and rest[n] == sent[n]:
            n += 1
        print(f"  {tag}: " + ("not sent" if not w else "whole" if n == len(sent) else f"cut to {n}"))
        out.append({"part": "caps-two", "tag": tag, "kept": n if w else None})


def hooks_failures(work, out):
    print("--- failures and timeouts (bash tool writes ran.txt)")
    cases = [("exit 1 on all four", {e: {"exit": 1} for e in FOUR}, 30),
             ("exit 2 on preToolUse", {"preToolUse": {"exit": 2}}, 30),
             ("exit 1 on postToolUse", {"postToolUse": {"exit": 1}}, 30),
             ("exit 2 on userPromptSubmitted", {"userPromptSubmitted": {"exit": 2}}, 30),
             ("exit 2 on sessionStart", {"sessionStart": {"exit": 2}}, 30),
             ("preToolUse sleeps 6 s, timeoutSec 2", {"preToolUse": {"sleep": 6, "shape": "flat"}}, 2),
             ("sessionStart sleeps 6 s, timeoutSec 2", {"sessionStart": {"sleep": 6, "shape": "flat"}}, 2),
             ("sessionStart sleeps 45 s, no timeoutSec", {"sessionStart": {"sleep": 45, "shape": "flat"}}, None),
             ("preToolUse permissionDecision deny", {"preToolUse": {"shape": "raw", "raw": {
                 "permissionDecision": "deny", "permissionDecisionReason": "NOPE-REASON"}}}, 30),
             ("plain text on stdout", {e: {"shape": "plain"} for e in FOUR}, 30),
             ("invalid JSON object keys", {e: {"shape": "raw", "raw": {"additionalContext": 5}} for e in FOUR}, 30)]
    for label, emit, timeout in cases:
        h = HookRun(work, "hooks-fail-" + re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-"))
        h.emit = emit
        h.write_config("repo", {e: [h.entry(e, timeout=timeout)] for e in FOUR})
        script = [{"tool": {"name": "bash", "arguments": {"command": "echo ran > ran.txt && cat f.txt",
                                                          "description": "run"}}}, {"text": "done"}]
        h.run(script, timeout=150, check=False)
        ran = os.path.exists(os.path.join(h.tree, "ran.txt"))
        tool = next((json.dumps(m.get("content")) for m in h.messages() if m["role"] == "tool"), None)
        ctx = [e["tag"] for e in h.entries if h.where(e["tag"])]
        print(f"  {label:42} rc={h.recs.rc} {h.duration:>5}s tool ran: {ran}; hooks: {[e['tag'] for e in h.entries]};"
              f" contexts sent: {ctx}; tool result: {tool and tool[:160]}")
        logs = [line for line in h.recs.logs.splitlines() if "[rust:hooks]" in line and ("WARN" in line or "ERROR" in line)]
        for line in logs[:3]:
            print("     log:", line[:260])
        out.append({"part": "failures", "case": label, "rc": h.recs.rc, "duration": h.duration, "tool_ran": ran,
                    "tool_result": tool, "contexts": ctx})


def part_hooks(work, out, sub):
    if "trust" in sub:
        hooks_trust(work, out)
    if "place" in sub:
        hooks_place(work, out)
    if "caps" in sub:
        hooks_caps(work, out)
    if "chars" in sub:
        hooks_chars(work, out)
    if "failures" in sub:
        hooks_failures(work, out)


# ------------------------------------------------------------------ limits
def _marked(tag, size):
    parts, length, i = [], 0, 0
    while length < size:
        head = "[%s:%07d]" % (tag, i * 100)
        parts.append(head + "." * (99 - len(head)) + "\n")
        length += 100
        i += 1
    end = "[END:%s]" % tag
    return "".join(parts)[:max(0, size - len(end))] + end


def _seen(text, tags):
    res = {}
    for tag in tags:
        offs = [int(m) for m in re.findall(r"\[%s:(\d{7})\]" % re.escape(tag), text)]
        res[tag] = "absent" if not offs else ("whole" if f"[END:{tag}]" in text else f"cut after {max(offs)}")
    return res


def part_limits(work, out):
    mib = 1 << 20
    cases = [
        ("1 MB and 1.1 MB project files", {"AGENTS.md": _marked("A", 1_100_000), f"{fx.I}r.instructions.md": _marked("R", 1_100_000),
                                          f"{fx.R}c.md": _marked("C", 1_100_000), ".github/copilot-instructions.md": _marked("G", 1_000_000)},
         {".copilot/copilot-instructions.md": _marked("H", 1_100_000)}, None),
        ("user instruction file at 1 MiB and 1 MiB + 1", {},
         {".copilot/instructions/a.instructions.md": _marked("U1", mib),
          ".copilot/instructions/b.instructions.md": _marked("U2", mib + 1)}, None),
        ("user instruction files: 10 MiB total, then more", {},
         {**{f".copilot/instructions/u{i:02d}.instructions.md": _marked(f"U{i:02d}", mib) for i in range(9)},
          ".copilot/instructions/u09.instructions.md": _marked("U09", mib - 6),
          ".copilot/instructions/a0.instructions.md": "FIRST\n",
          ".copilot/instructions/u10.instructions.md": "SIX..\n", ".copilot/instructions/u11.instructions.md": "SEVEN.\n"}, None),
        ("COPILOT_CUSTOM_INSTRUCTIONS_DIRS file of 1.1 MB", {}, {}, "ext"),
    ]
    for label, files, home, ext in cases:
        f = {"name": "limits-" + re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-"), "intent": label, "files": files,
             "home": home}
        env = dict(BIG_CONTEXT)
        if ext:
            f["outside"] = {"ext/e.instructions.md": _marked("E", 1_100_000)}
            env["COPILOT_CUSTOM_INSTRUCTIONS_DIRS"] = "{base}/ext"
        p = fx.build(f, work)
        env = {k: v.replace("{base}", p["base"]) for k, v in env.items()}
        recs = copilot.run(p["tree"], p["cwd"], p["home"], copilot.PROMPT, None, env, 300, [])
        text = copilot.extract(recs) or ""
        tags = sorted(set(re.findall(r"\[([A-Z0-9]+):0000000\]", "".join(str(v) for v in {**files, **home}.values()))) | ({"E"} if ext else set()))
        seen = _seen(text, tags)
        extra = {w: (w in text) for w in ("FIRST", "SIX..", "SEVEN.")} if "total" in label else {}
        warn = [line.split("] ", 2)[-1][:300] for line in recs.logs.splitlines() if "repo_instruction_discovery" in line]
        print(f"  {label}: {seen} {extra or ''}")
        for w in warn:
            print("     log:", w)
        out.append({"part": "limits", "case": label, "seen": seen, "extra": extra, "log": warn})
        harness.remove(p["base"])
    # entries
    f = {"name": "limits-entries", "intent": "12,000 user instruction files",
         "home": {f".copilot/instructions/u{i:05d}.instructions.md": f"U{i:05d}\n" for i in range(12000)}}
    p = fx.build(f, work)
    recs = copilot.run(p["tree"], p["cwd"], p["home"], copilot.PROMPT, None, None, 300, [])
    ids = re.findall(r"U(\d{5})", copilot.extract(recs) or "")
    warn = [line.split("] ", 2)[-1][:300] for line in recs.logs.splitlines() if "repo_instruction_discovery" in line]
    print(f"  12,000 user instruction files: {len(ids)} sent; log: {warn}")
    out.append({"part": "limits", "case": "entries", "sent": len(ids), "log": warn})
    harness.remove(p["base"])
    # context budget
    f = {"name": "limits-budget", "intent": "4 x 1 MB", "files": {"AGENTS.md": _marked("A", 4_000_000)}}
    p = fx.build(f, work)
    recs = copilot.run(p["tree"], p["cwd"], p["home"], copilot.PROMPT, None, None, 300, [], check=False)
    print(f"  a 4 MB AGENTS.md with the default context window: rc={recs.rc}, requests={len(recs)}; "
          f"stderr: {recs.stderr.strip().splitlines()[:2]}")
    out.append({"part": "limits", "case": "budget", "rc": recs.rc, "requests": len(recs), "stderr": recs.stderr[-500:]})
    harness.remove(p["base"])


# --------------------------------------------------------------------- mcp
MCP_SERVER = r'''
import json, sys, time
name, log = sys.argv[1], sys.argv[2]
def w(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush()
open(log, "a").write(json.dumps({"started": name}) + "\n")
for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if "id" not in msg:
        continue
    m = msg.get("method")
    if m == "initialize":
        w({"jsonrpc": "2.0", "id": msg["id"], "result": {"protocolVersion": msg["params"].get("protocolVersion", "2024-11-05"),
           "capabilities": {"tools": {}}, "serverInfo": {"name": name, "version": "1"}, "instructions": "MCP-INSTRUCTIONS-" + name}})
    elif m == "tools/list":
        w({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": [{"name": "probe", "description": "probe " + name,
           "inputSchema": {"type": "object", "properties": {}}}]}})
    else:
        w({"jsonrpc": "2.0", "id": msg["id"], "result": {}})
'''


def part_mcp(work, out):
    for args in ([], ["--trust-folder"], ["--trust-folder", "--allow-all-mcp-server-instructions"]):
        f = {"name": "mcp-" + "-".join(a.strip("-") for a in args), "intent": "mcp", "files": {"AGENTS.md": "ROOT\n"}}
        p = fx.build(f, work)
        server = harness.write(os.path.join(p["base"], "server.py"), MCP_SERVER)
        log = os.path.join(p["base"], "mcp.log")

        def srv(name, kind="local"):
            return {"type": kind, "command": "python3", "args": [server, name, log], "tools": ["*"]}
        harness.write(os.path.join(p["home"], ".copilot", "mcp-config.json"), json.dumps({"mcpServers": {"user": srv("user")}}))
        harness.write(os.path.join(p["tree"], ".mcp.json"), json.dumps({"mcpServers": {"dotmcp": srv("dotmcp", "stdio")}}))
        harness.write(os.path.join(p["tree"], ".github", "mcp.json"),
                      json.dumps({"mcpServers": {"ghmcp": srv("ghmcp")}, "servers": {"ghservers": srv("ghservers")}}))
        harness.write(os.path.join(p["tree"], ".vscode", "mcp.json"),
                      json.dumps({"servers": {"vscode": srv("vscode")}, "mcpServers": {"vscode2": srv("vscode2")}}))
        harness.write(os.path.join(p["tree"], ".copilot", "mcp-config.json"), json.dumps({"mcpServers": {"projcopilot": srv("projcopilot")}}))
        recs = copilot.run(p["tree"], p["cwd"], p["home"], copilot.PROMPT, None, None, 120, args)
        tools = [t["function"]["name"] for t in copilot.main_requests(recs)[0]["body"]["tools"] if "probe" in t["function"]["name"]]
        started = sorted({json.loads(line)["started"] for line in open(log)}) if os.path.exists(log) else []
        system = copilot.system_message(recs)
        i = system.find("MCP-INSTRUCTIONS")
        print(f"  args {args}: tools {tools}; servers started {started}; instructions: "
              + (repr(system[system.rfind('<', 0, i - 2):i + 60]) if i != -1 else "none"))
        out.append({"part": "mcp", "args": args, "tools": tools, "started": started, "instructions": i != -1})


# -------------------------------------------------------------------- main
def markdown(rows) -> str:
    lines = ["| Fixture | cwd | Bytes | sha256 (first 16) | Text sent (JSON string) |", "|---|---|---|---|---|"]
    for r in rows:
        if "text" not in r:
            continue
        t = json.dumps(r["text"], ensure_ascii=False)
        if len(t) > 700:
            t = t[:340] + " … " + t[-300:]
        t = t.replace("|", "\\|")
        code = f"`` {t} ``" if "`" in t else f"`{t}`"
        lines.append(f"| `{r['name']}` | `{r['cwd']}` | {r['bytes']} | `{r['sha256'][:16]}` | {code} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", action="append", choices=("start", "view", "hooks", "limits", "mcp"))
    ap.add_argument("--hooks", action="append", choices=("trust", "place", "caps", "chars", "failures"))
    ap.add_argument("--fixture", action="append")
    ap.add_argument("--work", default=DEFAULT_WORK)
    ap.add_argument("--json")
    ap.add_argument("--markdown")
    a = ap.parse_args(argv)
    parts = a.part or ["start", "view", "hooks", "mcp"]
    print("copilot:", copilot.install(), flush=True)
    os.makedirs(a.work, exist_ok=True)
    out: list = []
    try:
        if "start" in parts:
            part_start(a.fixture, a.work, out)
        if "view" in parts:
            part_view(a.work, out)
        if "hooks" in parts:
            part_hooks(a.work, out, a.hooks or ["trust", "place", "caps", "chars", "failures"])
        if "limits" in parts:
            part_limits(a.work, out)
        if "mcp" in parts:
            part_mcp(a.work, out)
    finally:
        if a.json:
            with open(a.json, "w", encoding="utf-8") as f:
                json.dump(out, f, indent=1, ensure_ascii=True)
        if a.markdown:
            with open(a.markdown, "w", encoding="utf-8") as f:
                f.write(markdown([r for r in out if "sha256" in r]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
