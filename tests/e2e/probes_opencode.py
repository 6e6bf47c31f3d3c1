"""Scripted opencode sessions for OPENCODE-MEASURED.md (run by measure_opencode.py probes).

Each probe lays out a tree and a throwaway HOME under WORK/<probe>, runs
opencode once (or a few times) with a mock script, and writes OUT/<probe>.json:
the tool calls it asked for, each tool's result as the model received it in the
next request, the probe plugin's log (opencode_probe_plugin.js), and whatever
else the probe looks at.  A summary is printed.
"""
from __future__ import annotations

import json
import os
import shutil
import sys

import fixtures as fx_base
import harness
import opencode as oc
from fixtures import Symlink

HERE = os.path.dirname(os.path.abspath(__file__))
PLUGIN = os.path.join(HERE, "opencode_probe_plugin.js")
MCP = os.path.join(HERE, "opencode_mcp_probe.py")


# ------------------------------------------------------------------ helpers
def lay(dest: str, files: dict, home_files: dict | None = None, git=True):
    harness.remove(dest)
    tree, home = os.path.join(dest, "tree"), os.path.join(dest, "home")
    os.makedirs(tree)
    os.makedirs(home)
    if git:
        fx_base._git_init(tree)
    places = {"tree": tree, "home": home}
    for rel, v in files.items():
        fx_base._write(tree, rel, v, places)
    for rel, v in (home_files or {}).items():
        fx_base._write(home, rel, v, places)
    return tree, home


def read(path, **kw):
    return {"tool": {"name": "read", "arguments": {"filePath": path, **kw}}}


def tool(name, **args):
    return {"tool": {"name": name, "arguments": args}}


def exchanges(recs: list) -> list:
    """Per tool call of the session (from the last main request's history):
    {name, arguments, result, after}: the tool message's content, and any
    message that came between it and the next assistant message."""
    reqs = oc.main_requests(recs)
    if not reqs:
        return []
    msgs = reqs[-1]["body"]["messages"]
    out = []
    by_id = {}
    for i, m in enumerate(msgs):
        if m.get("role") == "assistant":
            for c in m.get("tool_calls") or []:
                rec = {"name": c["function"]["name"], "arguments": json.loads(c["function"]["arguments"] or "{}"),
                       "result": None, "after": []}
                by_id[c["id"]] = rec
                out.append(rec)
        elif m.get("role") == "tool":
            rec = by_id.get(m.get("tool_call_id"))
            if rec is not None:
                rec["result"] = "".join(harness.text_items(m.get("content")))
                j = i + 1
                while j < len(msgs) and msgs[j].get("role") not in ("assistant", "tool"):
                    rec["after"].append(msgs[j])
                    j += 1
    return out


def reminder(result: str | None) -> str | None:
    """The `<system-reminder>` block of a tool result, from its "\\n\\n" lead to its end."""
    if not result:
        return None
    i = result.find("\n<system-reminder>\n")
    return None if i == -1 else result[i:]


def plugin_log(path: str) -> list:
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def rel(obj, tree, home):
    text = json.dumps(obj, ensure_ascii=False)
    text = text.replace(tree, "<tree>").replace(home, "<home>")
    return json.loads(text)


def save(out, name, data):
    with open(os.path.join(out, name + ".json"), "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, ensure_ascii=False)


def request_summary(recs: list) -> list:
    rows = []
    for r in recs:
        if r["method"] == "DNS":
            rows.append({"seq": r["seq"], "dns": r["path"]})
            continue
        b = r.get("body") if isinstance(r.get("body"), dict) else {}
        msgs = b.get("messages") or []
        rows.append({"seq": r["seq"], "method": r["method"], "path": r["path"],
                     "tools": len(b.get("tools") or []), "roles": [m.get("role") for m in msgs],
                     "system0": ("".join(harness.text_items(msgs[0].get("content")))[:80]
                                 if msgs and msgs[0].get("role") == "system" else None),
                     "reply": r.get("reply")})
    return rows


# ------------------------------------------------------------------- probes
def probe_read(out, work):
    """The read tool's reminders, and what the other tools add (cwd = git root)."""
    dest = os.path.join(work, "read")
    files = {
        "AGENTS.md": b"root agents\n", "README.md": b"readme\n",
        "pkg/AGENTS.md": b"PKG agents\n", "pkg/other.txt": b"other\n",
        "pkg/sub/CLAUDE.md": b"SUB claude\n", "pkg/sub/deep/file.txt": b"hello\nworld\n",
        "mixed/AGENTS.md": b"mixed agents\n", "mixed/CLAUDE.md": b"mixed claude\n", "mixed/f.txt": b"m\n",
        "ctx/CONTEXT.md": b"ctx context\n", "ctx/f.txt": b"c\n",
        "empty/AGENTS.md": b"", "empty/CLAUDE.md": b"empty-dir claude\n", "empty/f.txt": b"e\n",
        "w/AGENTS.md": b"W agents (write)\n",
        "e/AGENTS.md": b"E agents (edit)\n", "e/f.txt": b"alpha\n",
        "g/AGENTS.md": b"G agents (glob/grep)\n", "g/f.txt": b"needle\n",
        "d/AGENTS.md": b"D agents (directory read)\n", "d/f.txt": b"d\n",
        "rel/AGENTS.md": b"REL agents\n", "rel/f.txt": b"r\n",
        "real/AGENTS.md": b"REAL agents (via link)\n", "real/f.txt": b"l\n", "lnk": Symlink("real"),
        "b/AGENTS.md": b"B agents (bash)\n", "b/f.txt": b"b\n",
        "nt/AGENTS.md": b"no trailing newline", "nt/f.txt": b"n\n",
        "ws/AGENTS.md": b"  \n", "ws/f.txt": b"w\n",
        "crlf/AGENTS.md": b"crlf line\r\nsecond\r\n", "crlf/f.txt": b"c\n",
    }
    tree, home = lay(dest, files)
    t = lambda p: os.path.join(tree, p)  # noqa: E731
    script = [
        read(t("pkg/sub/deep/file.txt")), read(t("pkg/sub/deep/file.txt")), read(t("pkg/other.txt")),
        read(t("mixed/f.txt")), read(t("ctx/f.txt")), read(t("empty/f.txt")),
        tool("write", filePath=t("w/new.txt"), content="new\n"),
        tool("edit", filePath=t("e/f.txt"), oldString="alpha", newString="beta"),
        tool("glob", pattern="*.txt", path=t("g")), tool("grep", pattern="needle", path=t("g")),
        read(t("d")), read("rel/f.txt"), read(t("lnk/f.txt")),
        tool("bash", command="cat b/f.txt", description="Print b/f.txt"),
        read(t("nt/f.txt")), read(t("README.md")), read(t("d/f.txt")), read(t("ws/f.txt")),
        read(t("crlf/f.txt")), read(t("e/f.txt")), tool("edit", filePath=t("e/f.txt"), oldString="alpha", newString="beta"),
        {"text": "done"},
    ]
    recs = oc.run(tree, tree, home, script=script, timeout=240, keep=os.path.join(dest, "raw"))
    ex = exchanges(recs)
    main = oc.main_requests(recs)
    tools = main[0]["body"]["tools"]
    data = {"tree": tree, "cwd": tree,
            "tools": [{"name": x["function"]["name"], "parameters": x["function"].get("parameters")} for x in tools],
            "exchanges": [dict(e, reminder=reminder(e["result"])) for e in ex],
            "requests": request_summary(recs)}
    save(out, "read", rel(data, tree, home))
    for e in data["exchanges"]:
        r = e["reminder"]
        print(f"read: {e['name']:6} {json.dumps(e['arguments'])[:70]:72} -> "
              f"{'reminder ' + repr(rel(r, tree, home))[:160] if r else 'no reminder'}")


def probe_read_scope(out, work):
    """cwd below the root: which directories a read loads (below cwd, a sibling
    sharing cwd's name as a prefix, outside cwd, outside the tree)."""
    dest = os.path.join(work, "read_scope")
    files = {
        "AGENTS.md": b"root agents\n", "pkg/AGENTS.md": b"pkg agents (system)\n",
        "pkg/a/AGENTS.md": b"pkg/a agents\n", "pkg/a/f.txt": b"1\n",
        "pkg2/AGENTS.md": b"pkg2 agents\n", "pkg2/x/AGENTS.md": b"pkg2/x agents\n", "pkg2/x/f.txt": b"2\n",
        "other/AGENTS.md": b"other agents\n", "other/f.txt": b"3\n",
        "pkg/b/c/AGENTS.md": b"pkg/b/c agents\n", "pkg/b/CLAUDE.md": b"pkg/b claude\n", "pkg/b/c/d/f.txt": b"4\n",
    }
    tree, home = lay(dest, files, {"outside/AGENTS.md": b"outside agents\n", "outside/f.txt": b"5\n"})
    t = lambda p: os.path.join(tree, p)  # noqa: E731
    script = [read(t("pkg/a/f.txt")), read(t("pkg2/x/f.txt")), read(t("other/f.txt")),
              read(t("pkg/b/c/d/f.txt")), read(os.path.join(home, "outside/f.txt")), {"text": "done"}]
    recs = oc.run(tree, t("pkg"), home, script=script, timeout=180, keep=os.path.join(dest, "raw"))
    ex = exchanges(recs)
    data = {"cwd": "<tree>/pkg", "system": oc.extract(recs),
            "exchanges": [dict(e, reminder=reminder(e["result"])) for e in ex]}
    save(out, "read_scope", rel(data, tree, home))
    for e in data["exchanges"]:
        print(f"read_scope: {e['arguments'].get('filePath')!s:40} -> {rel(e['reminder'], tree, home)!r}"[:300])
        if not e["reminder"]:
            print("            result:", repr(rel(e["result"], tree, home))[:200])


def _plugin_home(home, where="plugin/probe.js"):
    dst = os.path.join(home, ".config", "opencode", where)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copy(PLUGIN, dst)
    return dst


def probe_plugin(out, work, mutate=False, name="plugin", extra_env=None, script_fn=None, timeout=180):
    """The probe plugin in ~/.config/opencode/plugin/: every hook and its shapes;
    with MUTATE, what each mutation does to the requests."""
    dest = os.path.join(work, name)
    files = {"AGENTS.md": b"root agents\n", "pkg/AGENTS.md": b"PKG agents\n", "pkg/f.txt": b"hello\n",
             "other.txt": b"other file\n"}
    tree, home = lay(dest, files)
    _plugin_home(home)
    log = os.path.join(dest, "probe.log")
    env = {"PROBE_LOG": log, **({"PROBE_MUTATE": "1"} if mutate else {}), **(extra_env or {})}
    env = {k: v.replace("{tree}", tree) for k, v in env.items()}
    script = script_fn(tree) if script_fn else [
        read(os.path.join(tree, "pkg/f.txt")),
        tool("bash", command="echo shell-env=${PROBE_SHELL_ENV:-unset}", description="Echo a variable"),
        {"text": "done"}]
    recs = oc.run(tree, tree, home, script=script, env=env, timeout=timeout, keep=os.path.join(dest, "raw"))
    entries = plugin_log(log)
    main = oc.main_requests(recs)
    data = {"requests": request_summary(recs), "exchanges": exchanges(recs),
            "hooks_in_order": [e["hook"] + (":" + e["type"] if e.get("type") else "") for e in entries],
            "first_of_each": {}, "main_system_messages": [], "main_user_messages": [],
            "title_system_messages": []}
    for e in entries:
        key = e["hook"]
        data["first_of_each"].setdefault(key, e)
    for r in main:
        msgs = r["body"]["messages"]
        data["main_system_messages"].append(["".join(harness.text_items(m.get("content")))[-300:]
                                             for m in msgs if m.get("role") == "system"])
        data["main_user_messages"].append([m.get("content") for m in msgs if m.get("role") == "user"])
    for r in oc.side_requests(recs):
        data["title_system_messages"].append(["".join(harness.text_items(m.get("content")))[-200:]
                                              for m in r["body"]["messages"] if m.get("role") == "system"])
    data["log"] = entries
    save(out, name, rel(data, tree, home))
    print(f"{name}: hooks seen: {sorted(set(e['hook'] for e in entries))}")
    print(f"{name}: system messages per main request: {[len(s) for s in data['main_system_messages']]}")
    for e in data["exchanges"]:
        print(f"{name}: {e['name']} -> {repr(rel(e['result'], tree, home))[-220:]}")
    return data


def probe_plugin_locations(out, work):
    """Where plugin files are loaded from."""
    dest = os.path.join(work, "plugin_locations")
    files = {"AGENTS.md": b"root agents\n"}
    tree, home = lay(dest, files, {"elsewhere/cfg-abs.js": b"", "elsewhere/cfg-home-rel.js": b""})
    places = {
        "home-plugin": os.path.join(home, ".config/opencode/plugin/home-plugin.js"),
        "home-plugins": os.path.join(home, ".config/opencode/plugins/home-plugins.js"),
        "home-plugin-ts": os.path.join(home, ".config/opencode/plugin/home-ts.ts"),
        "home-plugin-mjs": os.path.join(home, ".config/opencode/plugin/home-mjs.mjs"),
        "home-plugin-nested": os.path.join(home, ".config/opencode/plugin/nested/home-nested.js"),
        "proj-plugin": os.path.join(tree, ".opencode/plugin/proj-plugin.js"),
        "proj-plugins": os.path.join(tree, ".opencode/plugins/proj-plugins.js"),
        "pkg-plugin": os.path.join(tree, "pkg/.opencode/plugin/pkg-plugin.js"),
        "cfg-abs": os.path.join(home, "elsewhere/cfg-abs.js"),
        "cfg-proj-rel": os.path.join(tree, "cfgplugins/cfg-proj-rel.js"),
        "cfg-home-rel": os.path.join(home, "elsewhere/cfg-home-rel.js"),
    }
    for p in places.values():
        os.makedirs(os.path.dirname(p), exist_ok=True)
        shutil.copy(PLUGIN, p)
    harness.write(os.path.join(home, ".config/opencode/opencode.json"), json.dumps({
        "$schema": "https://opencode.ai/config.json",
        "plugin": ["file://" + places["cfg-abs"], "../../elsewhere/cfg-home-rel.js"]}))
    harness.write(os.path.join(tree, "opencode.json"), json.dumps({
        "$schema": "https://opencode.ai/config.json", "plugin": ["./cfgplugins/cfg-proj-rel.js"]}))
    log = os.path.join(dest, "probe.log")
    recs = oc.run(tree, os.path.join(tree, "pkg"), home, script=[{"text": "done"}], env={"PROBE_LOG": log},
                  timeout=180, keep=os.path.join(dest, "raw"))
    entries = plugin_log(log)
    loaded = [e for e in entries if e["hook"] == "<load>"]
    by_file = {}
    for e in entries:
        by_file.setdefault(e["plugin"], set()).add(e["hook"])
    data = {"placed": {k: rel(v, tree, home) for k, v in places.items()},
            "loaded": [{"plugin": e["plugin"], "directory": rel(e["directory"], tree, home),
                        "worktree": rel(e["worktree"], tree, home)} for e in loaded],
            "hooks_per_file": {k: sorted(v) for k, v in by_file.items()},
            "config_plugin": [rel(e["input"].get("plugin"), tree, home) for e in entries if e["hook"] == "config"][:1],
            "requests": len(oc.main_requests(recs))}
    save(out, "plugin_locations", data)
    names = {os.path.basename(p): k for k, p in places.items()}
    got = sorted({e["plugin"] for e in loaded})
    print("plugin_locations: loaded:", [names.get(g, g) for g in got])
    print("plugin_locations: not loaded:", sorted(k for k, p in places.items() if os.path.basename(p) not in got))
    print("plugin_locations: load count per file:", {names.get(k, k): sum(1 for e in loaded if e['plugin'] == k) for k in got})


def probe_mcp(out, work):
    """A local MCP server in the global config: started headless? its tool and instructions?"""
    dest = os.path.join(work, "mcp")
    tree, home = lay(dest, {"AGENTS.md": b"root agents\n"})
    log = os.path.join(dest, "mcp.log")
    harness.write(os.path.join(home, ".config/opencode/opencode.json"), json.dumps({
        "$schema": "https://opencode.ai/config.json",
        "mcp": {"probe": {"type": "local", "command": [sys.executable, MCP, log],
                          "environment": {"PROBE_MCP_ENV": "set"}, "enabled": True}}}))
    recs = oc.run(tree, tree, home, script=[tool("probe_ping", note="x"), {"text": "done"}], timeout=180,
                  keep=os.path.join(dest, "raw"))
    main = oc.main_requests(recs)
    sysmsg = oc.first_system(main[0])
    i = sysmsg.find("<mcp_instructions>")
    data = {"tools": [t["function"]["name"] for t in main[0]["body"]["tools"]],
            "mcp_instructions": sysmsg[i - 1:sysmsg.find("</mcp_instructions>") + 19] if i != -1 else None,
            "instruction_span": oc.extract(recs),
            "exchanges": exchanges(recs), "server_log": plugin_log(log)}
    save(out, "mcp", rel(data, tree, home))
    print("mcp: tools:", data["tools"])
    print("mcp: instructions block:", repr(data["mcp_instructions"]))
    print("mcp: server events:", [e.get("event") + ":" + str((e.get("msg") or {}).get("method")) for e in data["server_log"]])
    print("mcp: exchanges:", [(e["name"], e["result"]) for e in data["exchanges"]])


def probe_compaction(out, work):
    """Auto compaction (a tiny context limit on the model) with the mutating plugin.

    Bounded at 150 s: it never ends by itself (see below)."""
    dest = os.path.join(work, "compaction")
    tree, home = lay(dest, {"AGENTS.md": b"root agents COMPACT_TEST\n"})
    _plugin_home(home)
    log = os.path.join(dest, "probe.log")
    cfg = {"provider": {oc.PROVIDER: {"models": {oc.MODEL: {"limit": {"context": 10, "output": 2}}}}}}
    recs = oc.run(tree, tree, home, script=[read(os.path.join(tree, "AGENTS.md")), {"text": "done"}],
                  env={"PROBE_LOG": log, "PROBE_MUTATE": "1", "OPENCODE_CONFIG_CONTENT": json.dumps(cfg)},
                  timeout=150, keep=os.path.join(dest, "raw"), allow_fail=True)
    # With the mock's constant usage every request overflows the tiny window,
    # so opencode compacts again and again until the timeout: the first round
    # is what this probe looks at.
    entries = plugin_log(log)
    chats = harness.requests(recs, "chat/completions")
    data = {"requests": request_summary(recs)[:20], "request_count": len(chats),
            "compacting_hooks": [e for e in entries[:400] if e["hook"].startswith("experimental.session.compacting")
                                 or e["hook"].startswith("experimental.compaction")],
            "requests_with_marker": [r["seq"] for r in chats[:12] if "PROBE_COMPACTING_CONTEXT" in json.dumps(r["body"])],
            "compaction_request_tail": None}
    for r in chats:
        if "PROBE_COMPACTING_CONTEXT" in json.dumps(r["body"]):
            data["compaction_request_tail"] = [json.dumps(m)[-1500:] for m in r["body"]["messages"][-2:]]
            break
    save(out, "compaction", rel(data, tree, home))
    print("compaction: first requests:", [(r.get("seq"), r.get("tools"), (r.get("system0") or "")[:40])
                                          for r in data["requests"] if "dns" not in r][:5])
    print("compaction: compacting hooks:", len(data["compacting_hooks"]), "marker in requests:", data["requests_with_marker"])


PROBES = {
    "read": probe_read,
    "read_scope": probe_read_scope,
    "plugin": lambda out, work: probe_plugin(out, work),
    "plugin_mutate": lambda out, work: probe_plugin(out, work, mutate=True, name="plugin_mutate"),
    "plugin_redirect": lambda out, work: probe_plugin(
        out, work, mutate=True, name="plugin_redirect", extra_env={"PROBE_REDIRECT": "{tree}/other.txt"},
        script_fn=lambda tree: [read(os.path.join(tree, "pkg/f.txt")), {"text": "done"}]),
    "plugin_sleep": lambda out, work: probe_plugin(
        out, work, name="plugin_sleep", extra_env={"PROBE_SLEEP_MS": "45000"}, timeout=240,
        script_fn=lambda tree: [read(os.path.join(tree, "pkg/f.txt")), {"text": "done"}]),
    "plugin_locations": probe_plugin_locations,
    "mcp": probe_mcp,
    "compaction": probe_compaction,
}


def run(names, out, work) -> int:
    failed = 0
    for name, fn in PROBES.items():
        if names and name not in names:
            continue
        try:
            fn(out, work)
        except oc.RunError as e:
            failed += 1
            print(f"{name}: FAILED: {e}", flush=True)
    return 1 if failed else 0
