#!/usr/bin/env python3
"""The installed-bundle check: agentspine installed as a user installs it,
driven the way Claude Code, Codex, Gemini CLI and pi 1.x's extension drive
it, checked with strace.

    check.py --agentspine BIN

BIN is copied into a temporary prefix (`PREFIX/bin/agentspine`, what
`cargo install --root PREFIX` lays out) and every command below runs that
copy, with a throwaway HOME, custom `CLAUDE_CONFIG_DIR`, `CODEX_HOME`,
`GEMINI_CLI_HOME` and `PI_CODING_AGENT_DIR`,
and a state directory of its own. scripts/test passes its debug build
(a release build would add minutes on a 2-core CI machine; the code is the
same).

The world: a project `work/app` (a git root) started in `packages/web`,
with nested instruction files in `packages/api` and `packages/lib` and a
Claude Code auto-memory directory; a sibling project `work/sibling-secret`
beside it; the agentspine checkout the install is run from.

1. The zero-source case. Without agentspine, none of the sources this
   session needs beyond the host's own chain reaches the model: the
   host-native view (`agentspine resolve --host H --format json`, which CI
   checks byte for byte against the real clients) holds none of the memory
   facts, nothing of `packages/api` and nothing of `packages/lib`.
2. Install the three hosts twice, from the checkout: each installed file
   holds exactly one agentspine hook per event; pi's extensions directory
   holds one extension, which runs the installed binary.
3. Fixed by the installed hooks: each hook is run with the command read
   from the installed `settings.json` / `hooks.json` (group chosen by the
   event's matcher, as the host does), `sh -c`, the host's native payload
   on stdin, from a cwd outside any checkout. Claude Code: startup brings
   the `always` facts, a prompt its keyword fact, an Edit in `packages/api`
   that package's `CLAUDE.md`; a restart (`resume`) repeats nothing, a
   compaction brings the facts again. Codex: `apply_patch` into
   `packages/api` brings `AGENTS.override.md` (never the `AGENTS.md` it
   overrides), into `packages/lib` the fallback file named in config.toml;
   a restart repeats nothing; after a compaction (PostCompact, or
   SessionStart `compact`) the same patch brings them again. Gemini CLI:
   grep_search in `packages/web/src` brings its GEMINI.md once (Gemini
   loads nothing for grep), read_file there adds nothing (Gemini loads it
   itself), and the same grep again adds nothing. The same payload
   run from the checkout gives the same bytes (nothing depends on where
   agentspine was installed from or started). pi, as its extension asks
   (`BIN hook pi` with the binary the installed extension names): startup
   brings the `always` fact, a prompt its keyword fact, a `read` in
   `packages/api` its `AGENTS.override.md` (pi 1.x's winner, never the
   `AGENTS.md` beside it); the same read again and a restart add nothing;
   after `SessionEnd` the file comes again.
4. strace -f over every hook run: no `getdents64` on $HOME, no system call
   naming anything under the sibling project, no `connect` and no second
   agentspine process (no MCP server: the context is in the hook output,
   so the model needs zero MCP calls for it), and a hook whose cwd is
   $HOME itself adds nothing and lists nothing.
5. SHA-256 of every file of both projects and the memory directory, before
   and after: unchanged.

Prints one line per check and `N passed, M failed`; exit 1 on a failure.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import sys

import harness

CHECKOUT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

tally = harness.Tally()
check = tally.check
write = harness.write


def hashes(*roots: str) -> dict:
    out = {}
    for root in roots:
        for d, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(files):
                p = os.path.join(d, name)
                with open(p, "rb") as f:
                    out[p] = hashlib.sha256(f.read()).hexdigest()
    return out


class World:
    def __init__(self, base: str, binary: str):
        self.base = base
        self.prefix = os.path.join(base, "prefix")
        self.bin = os.path.join(self.prefix, "bin", "agentspine")
        os.makedirs(os.path.dirname(self.bin))
        shutil.copy2(binary, self.bin)
        self.home = os.path.join(base, "home")
        self.claude_home = os.path.join(base, "profiles", "claude-config")
        self.codex_home = os.path.join(base, "profiles", "codex-home")
        self.pi_home = os.path.join(base, "profiles", "pi-agent")
        self.gemini_cli_home = os.path.join(base, "profiles", "gemini-cli-home")
        self.state = os.path.join(base, "state")
        self.outside = os.path.join(base, "elsewhere")
        self.app = os.path.join(base, "work", "app")
        self.web = os.path.join(self.app, "packages", "web")
        self.sibling = os.path.join(base, "work", "sibling-secret")
        for d in (self.home, self.claude_home, self.codex_home, self.gemini_cli_home, self.pi_home, self.outside):
            os.makedirs(d)
        self.traces = os.path.join(base, "traces")
        os.makedirs(self.traces)
        self.runs = 0

        os.makedirs(os.path.join(self.app, ".git"))
        write(os.path.join(self.app, "AGENTS.md"), "# app\n\nRoot rules for every host.\n")
        write(os.path.join(self.app, "CLAUDE.md"), "# app\n\nRoot rules for Claude.\n")
        write(os.path.join(self.web, "AGENTS.md"), "# web\n\nWeb rules.\n")
        write(os.path.join(self.web, "CLAUDE.md"), "# web\n\nWeb rules for Claude.\n")
        write(os.path.join(self.web, "index.ts"), "export {};\n")
        write(os.path.join(self.app, "GEMINI.md"), "# app\n\nRoot rules for Gemini.\n")
        write(os.path.join(self.web, "src", "GEMINI.md"), "# web/src\n\nWEB-SRC-GEMINI: no default exports.\n")
        write(os.path.join(self.web, "src", "button.ts"), "export const b = 1;\n")
        # A rules directory: the one listing a Claude Code chain needs.
        write(os.path.join(self.app, ".claude", "rules", "style.md"), "Two spaces.\n")
        api = os.path.join(self.app, "packages", "api")
        write(os.path.join(api, "AGENTS.override.md"), "# api override\n\nAPI-OVERRIDE: endpoints are versioned.\n")
        write(os.path.join(api, "AGENTS.md"), "# api\n\nAPI-PLAIN: shadowed by the override.\n")
        write(os.path.join(api, "CLAUDE.md"), "# api\n\nAPI-CLAUDE: run the api tests after every edit.\n")
        write(os.path.join(api, "src", "users.ts"), "export const users = [];\n")
        lib = os.path.join(self.app, "packages", "lib")
        write(os.path.join(lib, "TEAM.md"), "# lib\n\nLIB-FALLBACK: no default exports.\n")
        write(os.path.join(lib, "src", "util.ts"), "export const u = 1;\n")
        os.makedirs(os.path.join(self.sibling, ".git"))
        write(os.path.join(self.sibling, "AGENTS.md"), "SIBLING-SECRET\n")
        write(os.path.join(self.sibling, "CLAUDE.md"), "SIBLING-SECRET\n")
        write(os.path.join(self.sibling, "MEMORY.md"), "SIBLING-SECRET\n")
        # Claude Code's auto memory for the app's git root, where Claude
        # Code keeps it: <config>/projects/<encoded root>/memory.
        self.enc = harness.claude_project_key(self.app)
        self.memory = os.path.join(self.claude_home, "projects", self.enc, "memory")
        write(os.path.join(self.memory, "MEMORY.md"),
              "# Memory\n\n"
              "- [Style](style.md) <!-- agentspine:always -->\n"
              "- [Carbonara](pasta.md) <!-- agentspine:keywords=carbonara -->\n"
              "- [Old](old.md)\n")
        write(os.path.join(self.memory, "style.md"), "FACT-STYLE: answer briefly.\n")
        write(os.path.join(self.memory, "pasta.md"), "FACT-PASTA: guanciale, never cream.\n")
        write(os.path.join(self.memory, "old.md"), "FACT-OLD: never relevant.\n")
        # Codex: a fallback name, in the user's config (kept by install).
        write(os.path.join(self.codex_home, "config.toml"),
              "# the user's own settings\nproject_doc_fallback_filenames = [\"TEAM.md\"]\n")
        # Files in the home directory itself, which nothing may list.
        write(os.path.join(self.home, "notes.md"), "HOME-NOTES\n")

    def env(self) -> dict:
        return {
            "PATH": os.path.dirname(self.bin) + ":" + os.environ["PATH"],
            "HOME": self.home,
            "CLAUDE_CONFIG_DIR": self.claude_home,
            "CODEX_HOME": self.codex_home,
            "PI_CODING_AGENT_DIR": self.pi_home,
            "GEMINI_CLI_HOME": self.gemini_cli_home,
            "XDG_STATE_HOME": self.state,
            "LANG": "C.UTF-8",
        }

    def agentspine(self, args: list, cwd: str):
        return harness.run([self.bin, *args], cwd=cwd, env=self.env())

    def installed(self, host: str) -> dict:
        path = {"claude": os.path.join(self.claude_home, "settings.json"),
                "codex": os.path.join(self.codex_home, "hooks.json"),
                "gemini": os.path.join(self.gemini_cli_home, ".gemini", "settings.json")}[host]
        with open(path) as f:
            return json.load(f)

    def pi_binary(self) -> str:
        """The binary the installed pi extension runs (its AGENTSPINE line)."""
        with open(os.path.join(self.pi_home, "extensions", "agentspine.js"), encoding="utf-8") as f:
            m = re.search(r'^const AGENTSPINE = ("(?:[^"\\]|\\.)*");', f.read(), re.M)
        assert m, "the installed extension names no binary"
        return json.loads(m.group(1))

    def command(self, host: str, event: str, match: str | None) -> str:
        """The command the host would run for `event` (the group whose
        matcher matches `match`, as the host selects it); for pi, what its
        extension runs for every event."""
        if host == "pi":
            return f"{self.pi_binary()} hook pi"
        found = []
        for group in self.installed(host)["hooks"].get(event, []):
            matcher = group.get("matcher")
            if matcher not in (None, "", "*") and (match is None or not re.fullmatch(matcher, match)):
                continue
            found += [h["command"] for h in group["hooks"] if " hook " in h.get("command", "")]
        assert len(found) == 1, f"{host} {event} {match}: {found}"
        return found[0]

    def hook(self, host: str, payload: dict, cwd: str, match: str | None = None, extra_env=None) -> str:
        """Runs the installed hook command under strace; its additionalContext."""
        cmd = self.command(host, payload["hook_event_name"], match)
        self.runs += 1
        trace = os.path.join(self.traces, f"{self.runs:02d}-{host}-{payload['hook_event_name']}.trace")
        env = self.env()
        env.update(extra_env or {})
        out = harness.run(["strace", "-f", "-y", "-qq", "-s", "256", "-o", trace, "sh", "-c", cmd],
                          input=json.dumps(payload), cwd=cwd, env=env)
        assert out.returncode == 0, out.stderr
        self.last_report = None
        if not out.stdout.strip():
            return ""
        value = json.loads(out.stdout)
        spec = value["hookSpecificOutput"]
        assert spec["hookEventName"] == payload["hook_event_name"], out.stdout
        # A session start ends with the compact sourceResolution report;
        # it is kept apart (last_report) from what the hook adds.
        context, marker = spec["additionalContext"], "[agentspine sourceResolution]\n\n"
        at = context.rfind(marker)
        if at >= 0:
            self.last_report = context[at + len(marker):]
            context = context[:at].rstrip("\n")
        return context


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--agentspine", required=True)
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    a = ap.parse_args()
    if not shutil.which("strace"):
        print("strace is missing (apt-get install strace)")
        return 1
    binary = harness.agentspine(a.agentspine)
    with harness.scratch("agentspine-bundle-", keep=a.keep) as base:
        return run(World(base, binary))


def run(w: World) -> int:
    before = hashes(w.app, w.sibling, w.memory)

    # 1. The zero-source case: what the hosts load by themselves.
    needed = ["FACT-STYLE", "FACT-PASTA", "API-OVERRIDE", "API-CLAUDE", "LIB-FALLBACK", "WEB-SRC-GEMINI"]
    native = ""
    for host in ("claude", "codex", "gemini", "pi"):
        r = w.agentspine(["resolve", "--host", host, "--cwd", w.web, "--format", "json"], w.outside)
        check(f"resolve --host {host} runs from outside any checkout ({r.stderr.strip()})", r.returncode == 0)
        doc = json.loads(r.stdout)
        native += doc.get("native", "")
        paths = [p["path"] for p in doc["parts"]]
        # Claude Code loads the memory index itself, never the facts.
        facts = [p for p in paths if "/memory/" in p and not p.endswith("/memory/MEMORY.md")]
        check(f"{host} natively loads none of the nested files or memory facts ({len(paths)} parts)",
              not facts and not any("/packages/api" in p or "/packages/lib" in p for p in paths))
    missing = [n for n in needed if n not in native]
    check(f"zero of the {len(needed)} needed sources reach the model natively", missing == needed)

    # 2. Install twice, from the checkout: one hook set per host.
    for host in ("claude", "codex", "gemini", "pi"):
        for _ in range(2):
            r = w.agentspine(["install", host], CHECKOUT)
            check(f"install {host} ({r.stderr.strip() or 'ok'})", r.returncode == 0)
    check("nothing written to ~/.claude, ~/.codex, ~/.gemini or ~/.pi: CLAUDE_CONFIG_DIR, CODEX_HOME, "
          "GEMINI_CLI_HOME and PI_CODING_AGENT_DIR are honoured",
          not any(os.path.exists(os.path.join(w.home, d)) for d in (".claude", ".codex", ".gemini", ".pi")))
    extensions = sorted(os.listdir(os.path.join(w.pi_home, "extensions")))
    check(f"pi: one extension after installing twice, running the installed binary ({extensions})",
          extensions == ["agentspine.js"] and w.pi_binary() == w.bin)
    for host in ("claude", "codex", "gemini"):
        hooks = w.installed(host)["hooks"]
        counts = {event: sum(1 for g in groups for h in g["hooks"] if " hook " in h.get("command", ""))
                  for event, groups in hooks.items()}
        check(f"{host}: exactly one agentspine hook per event after installing twice ({counts})",
              counts and all(c == 1 for c in counts.values()))
        cmds = {h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]}
        check(f"{host}: the hooks run the installed binary ({cmds})", cmds == {f"{w.bin} hook {host}"})
    with open(os.path.join(w.codex_home, "config.toml")) as f:
        toml = f.read()
    check("Codex config.toml keeps the user's comment and fallback names beside the MCP server",
          "# the user's own settings" in toml and "TEAM.md" in toml and "[mcp_servers.agentspine]" in toml)

    # 3. The installed hooks, driven as the hosts drive them.
    session = "bundle-claude-1"
    transcript = os.path.join(w.claude_home, "projects", harness.claude_project_key(w.web), f"{session}.jsonl")
    claude_env = {"CLAUDE_PROJECT_DIR": w.web}

    def claude(event: str, match=None, **fields) -> str:
        payload = {"session_id": session, "transcript_path": transcript, "cwd": w.web,
                   "hook_event_name": event, **fields}
        return w.hook("claude", payload, w.web, match, claude_env)

    start = claude("SessionStart", "startup", source="startup")
    check("Claude startup: the `always` fact, not the others",
          "FACT-STYLE" in start and "FACT-PASTA" not in start and "FACT-OLD" not in start)
    prompt = claude("UserPromptSubmit", prompt="what goes in a carbonara?")
    check("Claude prompt: the keyword fact, and the startup fact is not repeated",
          "FACT-PASTA" in prompt and "FACT-STYLE" not in prompt)
    edit = {"file_path": os.path.join(w.app, "packages/api/src/users.ts"), "old_string": "[]", "new_string": "[1]"}
    tool = claude("PreToolUse", "Edit", tool_name="Edit", tool_input=edit, tool_use_id="toolu_1")
    check("Claude Edit in packages/api: that package's CLAUDE.md",
          "API-CLAUDE" in tool and "SIBLING" not in tool)
    resume = claude("SessionStart", "resume", source="resume")
    check(f"Claude restart (resume): nothing repeated ({len(resume)} characters)", resume == "")
    again = claude("PreToolUse", "Edit", tool_name="Edit", tool_input=edit, tool_use_id="toolu_2")
    check("Claude: the same Edit again adds nothing", again == "")
    compact = claude("SessionStart", "compact", source="compact")
    check("Claude compaction: the facts come again", "FACT-STYLE" in compact)
    # Same payload, started from the agentspine checkout: same bytes.
    payload = {"session_id": "bundle-claude-2", "transcript_path": transcript, "cwd": w.web,
               "hook_event_name": "SessionStart", "source": "startup"}
    from_outside = w.hook("claude", payload, w.outside, "startup", claude_env)
    payload["session_id"] = "bundle-claude-3"
    from_checkout = w.hook("claude", payload, CHECKOUT, "startup", claude_env)
    check("Claude: the hook's output does not depend on the directory it is started from",
          from_outside != "" and from_outside == from_checkout)

    def codex(event: str, match=None, session_id="bundle-codex-1", **fields) -> str:
        payload = {"session_id": session_id, "transcript_path": None, "cwd": w.web, "hook_event_name": event,
                   "model": "gpt-5", "permission_mode": "default", **fields}
        return w.hook("codex", payload, w.web, match)

    def patch(*rels: str) -> dict:
        body = "".join(f"*** Update File: {r}\n@@\n-x\n+y\n" for r in rels)
        return {"command": f"*** Begin Patch\n{body}*** End Patch\n"}

    check("Codex startup: nothing (Codex loads its own chain)",
          codex("SessionStart", "startup", source="startup") == "")
    check(f"Codex startup: the compact sourceResolution report ({w.last_report})",
          (w.last_report or "").startswith(f"host codex; root {os.path.realpath(w.app)} (project); sources ")
          and w.last_report.endswith("; reason none"))
    api_patch = codex("PreToolUse", tool_name="apply_patch", tool_input=patch("../api/src/users.ts"))
    check("Codex apply_patch in packages/api: AGENTS.override.md, not the AGENTS.md it overrides",
          "API-OVERRIDE" in api_patch and "API-PLAIN" not in api_patch)
    lib_patch = codex("PreToolUse", tool_name="apply_patch", tool_input=patch("../lib/src/util.ts"))
    check("Codex apply_patch in packages/lib: the fallback file TEAM.md", "LIB-FALLBACK" in lib_patch)
    check("Codex: the same patch again adds nothing",
          codex("PreToolUse", tool_name="apply_patch", tool_input=patch("../api/src/users.ts")) == "")
    codex("PostCompact", trigger="auto")
    after = codex("PreToolUse", tool_name="apply_patch", tool_input=patch("../api/src/users.ts", "../lib/src/util.ts"))
    check("Codex after compaction: both files come again", "API-OVERRIDE" in after and "LIB-FALLBACK" in after)
    # A restart (resume) keeps what the session was sent; a compaction
    # announced at SessionStart forgets it, as PostCompact does.
    check("Codex restart (resume): nothing added", codex("SessionStart", "resume", source="resume") == "")
    check("Codex after a restart: the file already sent is not repeated",
          codex("PreToolUse", tool_name="apply_patch", tool_input=patch("../api/src/users.ts")) == "")
    codex("SessionStart", "compact", source="compact")
    again = codex("PreToolUse", tool_name="apply_patch", tool_input=patch("../api/src/users.ts"))
    check("Codex after SessionStart compact: the file comes again", "API-OVERRIDE" in again)
    def gemini(event: str, match=None, **fields) -> str:
        payload = {"session_id": "bundle-gemini-1", "transcript_path": "", "cwd": w.web,
                   "hook_event_name": event, "timestamp": "2026-12-01T00:00:00.000Z", **fields}
        return w.hook("gemini", payload, w.web, match)

    gemini("SessionStart", source="startup")
    check(f"Gemini startup: the compact sourceResolution report ({w.last_report})",
          (w.last_report or "").startswith(f"host gemini; root {os.path.realpath(w.app)} (project); sources "))
    src = os.path.join(w.web, "src")
    grep = gemini("AfterTool", "grep_search", tool_name="grep_search",
                  tool_input={"pattern": "export", "dir_path": src}, tool_response={})
    check("Gemini grep_search in packages/web/src: that folder's GEMINI.md, never the ones loaded at start",
          "WEB-SRC-GEMINI" in grep and "Root rules" not in grep)
    read = gemini("AfterTool", "read_file", tool_name="read_file",
                  tool_input={"file_path": os.path.join(src, "button.ts")}, tool_response={})
    check("Gemini read_file there: nothing (Gemini loads that GEMINI.md itself)", read == "")
    check("Gemini: the same grep again adds nothing",
          gemini("AfterTool", "grep_search", tool_name="grep_search",
                 tool_input={"pattern": "export", "dir_path": src}, tool_response={}) == "")
    home_payload = {"session_id": "bundle-codex-home", "transcript_path": None, "cwd": w.home,
                    "hook_event_name": "PreToolUse", "tool_name": "apply_patch",
                    "tool_input": patch("notes.md")}
    check("a session in $HOME itself: nothing added", w.hook("codex", home_payload, w.home) == "")

    def pi(event: str, session_id="bundle-pi-1", **fields) -> str:
        payload = {"session_id": session_id, "cwd": w.web, "hook_event_name": event, **fields}
        return w.hook("pi", payload, w.web)

    read_api = {"path": os.path.join(w.app, "packages/api/src/users.ts")}
    pi_start = pi("SessionStart", source="startup")
    check("pi startup: the `always` fact, not the others",
          "FACT-STYLE" in pi_start and "FACT-PASTA" not in pi_start and "FACT-OLD" not in pi_start)
    check(f"pi startup: the compact sourceResolution report ({w.last_report})",
          (w.last_report or "").startswith(f"host pi; root {os.path.realpath(w.app)} (project); sources "))
    pi_prompt = pi("UserPromptSubmit", prompt="what goes in a carbonara?")
    check("pi prompt: the keyword fact, and the startup fact is not repeated",
          "FACT-PASTA" in pi_prompt and "FACT-STYLE" not in pi_prompt)
    pi_read = pi("PreToolUse", tool_name="read", tool_input=read_api)
    check("pi read in packages/api: AGENTS.override.md, not the AGENTS.md or CLAUDE.md beside it",
          "API-OVERRIDE" in pi_read and "API-PLAIN" not in pi_read and "API-CLAUDE" not in pi_read)
    check("pi: the same read again adds nothing", pi("PreToolUse", tool_name="read", tool_input=read_api) == "")
    check("pi restart (resume): nothing repeated", pi("SessionStart", source="resume") == "")
    pi("SessionEnd")
    check("pi after SessionEnd: the session is forgotten, the file comes again",
          "API-OVERRIDE" in pi("PreToolUse", tool_name="read", tool_input=read_api))

    # 4. What the hook processes did, from their system calls.
    lines = []
    for name in sorted(os.listdir(w.traces)):
        with open(os.path.join(w.traces, name)) as f:
            lines += f.read().splitlines()
    home_listings = [l for l in lines if re.search(r"getdents64?\(\d+<" + re.escape(w.home) + r">", l)]
    listed = sorted({m.group(1) for l in lines for m in [re.search(r"getdents64?\(\d+<([^>]*)>", l)] if m})
    check(f"no getdents64 on $HOME in {w.runs} hook runs; the only directory listed is the project's "
          f".claude/rules ({[os.path.relpath(d, w.base) for d in listed]})",
          not home_listings and listed == [os.path.join(w.app, ".claude", "rules")])
    sibling = [l for l in lines if "sibling-secret" in l]
    check(f"no system call touches the sibling project ({len(sibling)} did)", not sibling)
    connects = [l for l in lines if re.search(r"\bconnect\(", l)]
    check(f"no connect(): no MCP server or socket is used ({len(connects)} seen)", not connects)
    # An execve line may be split by strace into "<unfinished ...>" and
    # "resumed" halves when another process writes in between, so a process
    # is counted by the program its execve names, not by the "= 0" tail.
    execs = [l for l in lines if re.search(r"\bexecve\(", l)]
    agentspine_execs = [l for l in execs if re.search(r"\bexecve\(" + re.escape(json.dumps(w.bin)) + ",", l)]
    check(f"one agentspine process per hook run and never `agentspine mcp` ({len(agentspine_execs)} for {w.runs})",
          len(agentspine_execs) == w.runs and not any('"mcp"' in l for l in execs))
    check("no sibling or home file in any context",
          all(n not in start + prompt + tool + compact + pi_start + pi_prompt + pi_read
              for n in ("SIBLING", "HOME-NOTES")))

    # 5. Source bytes.
    after_hashes = hashes(w.app, w.sibling, w.memory)
    changed = [p for p in before if before[p] != after_hashes.get(p)]
    added = [p for p in after_hashes if p not in before]
    check(f"SHA-256 of all {len(before)} project and memory files unchanged ({changed + added})",
          not changed and not added)
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
