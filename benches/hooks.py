#!/usr/bin/env python3
"""Whole-process hook times, measured with hyperfine.

    PYTHONPATH=tests/lib python3 benches/hooks.py [--runs N] [--repeat K] [--out FILE] [--hosts all]
    PYTHONPATH=tests/lib python3 benches/hooks.py --compare OLD_BINARY [--runs N]
    PYTHONPATH=tests/lib python3 benches/hooks.py --binary BIN [--compare OLD_BINARY] [--runs N]

What it does, in order:
1. installs `hyperfine` from the Debian packages when it is missing
   (`apt-get`, as root; otherwise it asks you to install it);
2. builds a binary with `scripts/build-release` (release profile;
   statically linked on Linux with glibc), in `$CARGO_TARGET_DIR` or
   `target/`, unless `--binary BIN` names the one to measure (such as
   scripts/dist's `dist/agentspine-x86_64-unknown-linux-musl`);
3. copies `examples/monorepo` to a temporary directory (with a `.git`
   directory, so it is its own project root) and generates a 50,000-file
   monorepo there, twelve directories deep, with `AGENTS.md` and
   `CLAUDE.md` at every level of the edited file's path and in sibling
   packages;
4. times `agentspine hook HOST` for each host of `--hosts` (Claude Code
   and Codex by default; `--hosts all` adds Gemini CLI, pi, opencode,
   GitHub Copilot CLI and Kimi Code, each in its own payload shape and
   event names, pi's and opencode's as their extension and plugin send
   them) as the hosts run them (a new process, the native payload on
   stdin, a throwaway
   `HOME` and state directory with a warm database) for SessionStart
   `startup`, UserPromptSubmit (a question, and a prompt that names the
   file to edit), PreToolUse on a file twelve levels down in
   another package than the session's
   (`Edit` for Claude Code, `apply_patch` for Codex; and a shell read of
   it, `Bash` with `nl -ba FILE | sed -n '1,80p'`) and SessionStart
   `compact`, next to `/bin/true`, `agentspine --version` and `node -e 0`
   in the same hyperfine run;
5. prints a markdown table (and writes it to `--out` if given): each
   command's median and its ratio to `/bin/true`'s in the same run, and
   whether the goal holds (every hook event within 2× `/bin/true`,
   `agentspine --version` within 1.3×); with `--repeat K`, K such runs
   in a row and then one table of every run's medians and ratios side by
   side (the machine's speed moves between runs: a ratio is a run's).

Each UserPromptSubmit and PreToolUse run first has its session reset
(a `SessionStart startup` hook in hyperfine's untimed `--prepare`), so every
timed run does the whole work and prints its context, as the first such
event of a session does. Every command is run as `sh -c 'CMD < payload'`
(hosts start hook commands through a shell; hyperfine 1.15 in Debian 12
has no `--input`), with hyperfine's own shell off: the times are whole,
one `sh` start included, and `/bin/true` run the same way is the floor.

`--compare OLD_BINARY` measures a change instead: the same trees and
payloads, OLD_BINARY and this build run in alternation in a random order
each round, and one table of both medians per event (see `compare`).

Not run by CI: it is a measurement, not a test (a slow CI machine is not a
bug).
"""
import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys

import harness
from harness import write

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = 50_000
DEPTH = 12
SCOPE = "project:blun,person:owner"
PROMPT = "what goes in a carbonara?"


def ensure_hyperfine() -> str:
    found = shutil.which("hyperfine")
    if found:
        return found
    if os.geteuid() != 0:
        sys.exit("hyperfine is missing: install it (apt-get install hyperfine) or run this as root")
    subprocess.run(["apt-get", "install", "-y", "-qq", "hyperfine"], check=False,
                   stdout=subprocess.DEVNULL)
    if not shutil.which("hyperfine"):
        subprocess.run(["apt-get", "update", "-qq"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(["apt-get", "install", "-y", "-qq", "hyperfine"], check=True,
                       stdout=subprocess.DEVNULL)
    return shutil.which("hyperfine")


def build() -> str:
    """A local build: scripts/build-release (release profile, static on Linux)."""
    out = subprocess.run([os.path.join(ROOT, "scripts", "build-release")], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout.strip().splitlines()[-1]
    return out if os.path.isabs(out) else os.path.join(ROOT, out)


def install_copy(binary: str, path: str) -> str:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    shutil.copy2(binary, path)
    return path


def git_marker(tree: str) -> None:
    """A `.git` directory every host counts as a repository's: `HEAD`,
    `objects/` and `refs/` (GitHub Copilot CLI passes over an empty one)."""
    os.makedirs(os.path.join(tree, ".git", "objects"))
    os.makedirs(os.path.join(tree, ".git", "refs"))
    with open(os.path.join(tree, ".git", "HEAD"), "w") as f:
        f.write("ref: refs/heads/main\n")


def copy_example(base: str) -> str:
    tree = os.path.join(base, "monorepo")
    shutil.copytree(os.path.join(ROOT, "examples", "monorepo"), tree)
    git_marker(tree)
    return tree


def generate(base: str) -> tuple[str, str]:
    """A monorepo of exactly FILES regular files besides its `.git` marker
    (see `git_marker`); returns the root and the deepest file's path."""
    tree = os.path.join(base, "generated")
    git_marker(tree)
    count = 0

    def put(rel: str, text: str) -> None:
        nonlocal count
        write(os.path.join(tree, rel), text)
        count += 1

    put("AGENTS.md", "# Root\n\nRun `make check` before every commit.\n")
    put("CLAUDE.md", "# Root\n\nRun `make check` before every commit.\n")
    put(".claude/rules/style.md", "Two spaces, no tabs.\n")
    put(".claude/rules/api.md", "---\npaths: services/**\n---\nEvery endpoint is versioned.\n")
    # The edited file's path: d01/…/d12/, an instruction file at every level.
    chain = ""
    for level in range(1, DEPTH + 1):
        chain = os.path.join(chain, f"d{level:02d}")
        put(os.path.join(chain, "AGENTS.md"), f"# Level {level}\n\nRules for level {level}.\n")
        put(os.path.join(chain, "CLAUDE.md"), f"# Level {level}\n\nRules for level {level}.\n")
    deep = os.path.join(chain, "main.ts")
    put(deep, "export {};\n")
    # Everything else: sibling packages at every level, each with its own
    # instruction files and source files, until FILES files exist.
    fillers = []
    prefix = ""
    for level in range(1, DEPTH + 1):
        for sibling in range(8):
            fillers.append(os.path.join(prefix, f"pkg{level:02d}-{sibling}"))
        prefix = os.path.join(prefix, f"d{level:02d}")
    for pkg in fillers:
        put(os.path.join(pkg, "AGENTS.md"), "Sibling rules: never loaded for d12.\n")
        put(os.path.join(pkg, "CLAUDE.md"), "Sibling rules: never loaded for d12.\n")
    i = 0
    while count < FILES:
        pkg = fillers[i % len(fillers)]
        put(os.path.join(pkg, "src", f"m{i // len(fillers) % 20:02d}", f"f{i}.ts"), f"export const v{i} = {i};\n")
        i += 1
    return tree, os.path.join(tree, deep)


# The hosts timed by default, and every host with hooks (`--hosts all`).
DEFAULT_HOSTS = ("claude", "codex")
ALL_HOSTS = ("claude", "codex", "gemini", "pi", "opencode", "copilot", "kimi")


def payloads(tree: str, cwd: str, target: str, home: str, host: str) -> dict:
    """Each event's payload as HOST sends it (pi's and opencode's as their
    extension and plugin send them): a session start, a prompt with a
    question and one that names the file, a tool call that edits the file,
    a shell read of it, and a compaction, where the host has the event."""
    session = f"bench-{host}-{os.path.basename(tree)}"
    rel = os.path.relpath(target, cwd)
    shell_read = f"nl -ba {shlex.quote(rel)} | sed -n '1,80p'"
    named = f"Add a comment to `{rel}`, then run the tests."
    if host == "copilot":
        # camelCase events name no event: their fields say which.
        common = {"sessionId": session, "timestamp": 1, "cwd": cwd}
        result = {"toolResult": {"resultType": "success", "textResultForLlm": "ok"}}
        return {
            "sessionStart": {**common, "source": "new", "initialPrompt": PROMPT},
            "userPromptSubmitted": {**common, "prompt": PROMPT},
            "userPromptSubmitted path": {**common, "prompt": named},
            "postToolUse": {**common, "toolName": "edit", "toolArgs": {"path": target}, **result},
            "postToolUse shell": {**common, "toolName": "bash", "toolArgs": {"command": shell_read}, **result},
        }
    if host == "kimi":
        # Kimi Code's prompt is a list of content parts; its prompt event
        # is the only one whose output reaches the model.
        common = {"session_id": session, "cwd": cwd, "client_type": "kimi_code_cli"}
        parts = lambda text: [{"type": "text", "text": text}]  # noqa: E731
        return {
            "UserPromptSubmit": {**common, "hook_event_name": "UserPromptSubmit", "prompt": parts(PROMPT)},
            "UserPromptSubmit path": {**common, "hook_event_name": "UserPromptSubmit", "prompt": parts(named)},
        }
    common = {"session_id": session, "cwd": cwd}
    prompt_event, tool_event = "UserPromptSubmit", "PreToolUse"
    shell = {"tool_name": "Bash", "tool_input": {"command": shell_read}}
    if host == "claude":
        common["transcript_path"] = os.path.join(home, ".claude", "projects", "-bench", f"{session}.jsonl")
        tool = {"tool_name": "Edit", "tool_use_id": "toolu_1",
                "tool_input": {"file_path": target, "old_string": "export {};", "new_string": "export {}; // x"}}
    elif host == "codex":
        common.update({"transcript_path": None, "model": "gpt-5", "permission_mode": "default"})
        patch = f"*** Begin Patch\n*** Update File: {rel}\n@@\n-export {{}};\n+export {{}}; // x\n*** End Patch\n"
        tool = {"tool_name": "apply_patch", "tool_input": {"command": patch}}
    elif host == "gemini":
        # Gemini adds a tool's context after it ran (AfterTool); it loads
        # what its own file tools touch in its workspace, and is not asked
        # about the shell.
        prompt_event, tool_event = "BeforeAgent", "AfterTool"
        tool = {"tool_name": "replace", "tool_input": {"file_path": target, "old_string": "a", "new_string": "b"}}
        shell = None
    elif host == "pi":
        tool = {"tool_name": "edit", "tool_input": {"path": target, "oldText": "a", "newText": "b"}}
        shell = {"tool_name": "bash", "tool_input": {"command": shell_read}}
    else:  # opencode
        tool = {"tool_name": "edit", "tool_input": {"filePath": target, "oldString": "a", "newString": "b"}}
        shell = {"tool_name": "bash", "tool_input": {"command": shell_read}}
    out = {
        "SessionStart startup": {**common, "hook_event_name": "SessionStart", "source": "startup"},
        prompt_event: {**common, "hook_event_name": prompt_event, "prompt": PROMPT},
        f"{prompt_event} path": {**common, "hook_event_name": prompt_event, "prompt": named},
        tool_event: {**common, "hook_event_name": tool_event, **tool},
    }
    if shell:
        out[f"{tool_event} shell"] = {**common, "hook_event_name": tool_event, **shell}
    if host in ("claude", "codex", "opencode"):
        out["SessionStart compact"] = {**common, "hook_event_name": "SessionStart", "source": "compact"}
    return out


def reset_payload(host: str, payload: dict) -> dict | None:
    """The session start that resets the session PAYLOAD belongs to; None
    for a host without one (Kimi Code's hooks answer only its prompts)."""
    if host == "kimi":
        return None
    if host == "copilot":
        return {k: v for k, v in payload.items() if k in ("sessionId", "timestamp", "cwd")} | {"source": "new"}
    return {**payload, "hook_event_name": "SessionStart", "source": "startup"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100, help="timed runs per command (default 100)")
    ap.add_argument("--out", help="also write the markdown table(s) here")
    ap.add_argument("--repeat", type=int, default=1,
                    help="hyperfine runs in a row (default 1); with more, also one table of every run's "
                         "medians and ratios side by side")
    ap.add_argument("--keep", action="store_true", help="keep the temporary trees")
    ap.add_argument("--hosts", default=",".join(DEFAULT_HOSTS),
                    help=f"comma-separated hosts to time, or `all` ({', '.join(ALL_HOSTS)}); "
                         f"default {','.join(DEFAULT_HOSTS)}")
    ap.add_argument("--binary", metavar="BIN",
                    help="measure BIN (e.g. a scripts/dist binary) instead of building with scripts/build-release")
    ap.add_argument("--compare", metavar="OLD_BINARY",
                    help="instead of hyperfine: time OLD_BINARY and this build in alternation, "
                         "--runs rounds, and print both medians per event")
    a = ap.parse_args()
    hosts = ALL_HOSTS if a.hosts == "all" else tuple(h for h in a.hosts.split(",") if h)
    unknown = [h for h in hosts if h not in ALL_HOSTS]
    if unknown:
        ap.error(f"--hosts: {', '.join(unknown)} (known: {', '.join(ALL_HOSTS)})")

    hyperfine = None if a.compare else ensure_hyperfine()
    built = harness.agentspine(a.binary) if a.binary else build()
    node = shutil.which("node")
    with harness.scratch("agentspine-bench-", keep=a.keep, dir="/tmp") as base:
        # What is timed is a copy, as `install` or a package would place
        # it: the linker's own output file runs measurably slower from the
        # page cache (about 0.3 to 0.6 ms per run here, same bytes), which
        # no installed binary pays.
        binary = install_copy(built, os.path.join(base, "bin", "agentspine"))
        home = os.path.join(base, "home")
        memory = os.path.join(home, "memory")
        shutil.copytree(os.path.join(ROOT, "examples", "claude-memory"), memory)
        write(os.path.join(home, ".claude", "settings.json"), json.dumps({"autoMemoryDirectory": memory}))
        os.makedirs(os.path.join(home, ".codex"))
        # Gemini CLI reads the example's AGENTS.md and CLAUDE.md files only
        # when its settings name them (its default is GEMINI.md alone).
        write(os.path.join(home, ".gemini", "settings.json"),
              json.dumps({"context": {"fileName": ["AGENTS.md", "CLAUDE.md", "GEMINI.md"]}}))
        example = copy_example(base)
        generated, deep = generate(base)
        # The session starts in one package and the tool edits a file in
        # another: the host loads neither that file's chain nor (Claude
        # Code, on Edit) the files of a sibling subtree, so the hook adds them.
        trees = [("examples/monorepo", example, os.path.join(example, "packages/web"),
                  os.path.join(example, "packages/api/src/handlers/users.ts")),
                 (f"generated ({FILES:,} files, depth {DEPTH})", generated,
                  os.path.join(generated, "pkg01-0"), deep)]
        env = {
            "PATH": os.environ["PATH"],
            "HOME": home,
            "XDG_STATE_HOME": os.path.join(base, "state"),
            "AGENTSPINE_SCOPE": SCOPE,
        }
        # Every command runs as `sh -c '…'`, the way hosts start a hook
        # command, with hyperfine's own shell off (`-N`): the times are
        # whole, one `sh` start included, and `/bin/true` run the same way
        # is the floor. (hyperfine 1.15 has no `--input`, and its estimate
        # of a shell's start-up, subtracted otherwise, is unstable on a
        # busy machine.)
        def hook_commands(binary: str) -> list:
            out = []
            for label, tree, cwd, target in trees:
                for host in hosts:
                    run = f"{shlex.quote(binary)} hook {host}"
                    for event, payload in payloads(tree, cwd, target, home, host).items():
                        name = f"{host}-{os.path.basename(tree)}-{event.replace(' ', '-')}.json"
                        path = os.path.join(base, name)
                        write(path, json.dumps(payload))
                        cmd = f"{run} < {shlex.quote(path)}"
                        prepare = None
                        reset_with = reset_payload(host, payload)
                        if event.startswith(("SessionStart", "sessionStart")):
                            pass
                        elif reset_with is None:
                            # A new session for each run: its first prompt.
                            prepare = (f"sed -i -E 's/\"session_id\": \"[^\"]*\"/\"session_id\": "
                                       f"\"bench-'$(date +%s%N)'\"/' {shlex.quote(path)}")
                        else:
                            reset = os.path.join(base, name.replace(".json", "-reset.json"))
                            write(reset, json.dumps(reset_with))
                            prepare = f"{run} < {shlex.quote(reset)} > /dev/null"
                        out.append((f"`hook {host}` {event}", label, cmd, prepare))
            return out

        if a.compare:
            old = install_copy(os.path.abspath(a.compare), os.path.join(base, "old", "agentspine"))
            return compare(old, hook_commands(old), binary, hook_commands(binary), env, a.runs, a.out)
        commands = [("`/bin/true`", "", "/bin/true", None),
                     ("`agentspine --version`", "", f"{shlex.quote(binary)} --version", None)]
        if node:
            commands.append(("`node -e 0`", "", f"{shlex.quote(node)} -e 0", None))
        commands += hook_commands(binary)
        # Each command's output once, to check that it does what is timed.
        for title, label, cmd, prepare in commands:
            if prepare:
                subprocess.run(prepare, shell=True, env=env, check=True)
            out = subprocess.run(cmd, shell=True, env=env, capture_output=True, text=True, check=True)
            ctx = harness.hook_context(out.stdout) if label else ""
            print(f"{label or '-':>44} {title:<40} {len(ctx):>6} characters of context", file=sys.stderr)
        export = os.path.join(base, "results.json")
        argv = [hyperfine, "-N", "--style", "basic", "--warmup", "5", "--runs", str(a.runs),
                "--export-json", export]
        for title, label, cmd, prepare in commands:
            # hyperfine takes one --prepare per command, in order, or none.
            argv += ["--prepare", "sh -c " + shlex.quote(prepare or "true")]
        for title, label, cmd, prepare in commands:
            argv += ["--command-name", f"{label} {title}".strip(), "sh -c " + shlex.quote(cmd)]
        texts = []
        runs = []
        for repeat in range(a.repeat):
            load_before = os.getloadavg()[0]
            subprocess.run(argv, env=env, check=True, stdout=sys.stderr)
            load_after = os.getloadavg()[0]
            results = json.load(open(export))["results"]
            text, held = one_table(commands, results, a.runs, load_before, load_after)
            print(text)
            texts.append(text)
            runs.append((results, held, load_before, load_after))
        if a.repeat > 1:
            text = runs_table(commands, runs)
            print(text)
            texts.append(text)
        if a.out:
            with open(a.out, "w") as f:
                f.write("\n".join(texts))
        return 0


def one_table(commands: list, results: list, runs: int, load_before: float, load_after: float) -> tuple:
    """One hyperfine run as a markdown table, each median with its ratio to
    `/bin/true`'s, and the verdict on the goal (issue 18): every hook event's
    median at most 2× `/bin/true`'s in the same run, `agentspine --version`
    within 1.3×. Wall-clock times suffer from whatever else the machine
    runs; the CPU time (user + system, mean) is the work itself."""
    floor = results[0]["median"]
    table = ["| tree | command | median | against `/bin/true` | mean ± σ | min | max | CPU (user + sys) |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    missed = []
    held = 0
    for (title, label, cmd, prepare), r in zip(commands, results):
        ms = lambda s: f"{s * 1000:.2f} ms"
        ratio = r["median"] / floor
        table.append(f"| {label or '—'} | {title} | {ms(r['median'])} | {ratio:.2f}× | "
                     f"{r['mean'] * 1000:.2f} ± {r['stddev'] * 1000:.2f} ms | {ms(r['min'])} | "
                     f"{ms(r['max'])} | {ms(r['user'] + r['system'])} |")
        if label:
            if ratio <= 2.0:
                held += 1
            else:
                missed.append(f"{label} {title} ({ratio:.2f}×)")
        elif "--version" in title and ratio > 1.3:
            missed.append(f"{title} ({ratio:.2f}×, goal 1.3×)")
    events = sum(1 for c in commands if c[1])
    table.append("")
    table.append(f"{runs} runs each after 5 warm-up runs; {os.cpu_count()} CPUs, load average "
                 f"{load_before:.2f} before and {load_after:.2f} after; {held} of {events} hook events "
                 f"within 2× `/bin/true`.")
    table.append("")
    if missed:
        table.append("Over the goal: " + "; ".join(missed) + ".")
    else:
        table.append("Every hook event within 2× `/bin/true`, `agentspine --version` within 1.3×.")
    return "\n".join(table) + "\n", held


def runs_table(commands: list, runs: list) -> str:
    """Every run's median and ratio per command, side by side, and how many
    hook events held the goal in each run."""
    head = "| tree | command | " + " | ".join(f"run {i + 1}" for i in range(len(runs))) + " |"
    rule = "|---|---|" + "---:|" * len(runs)
    lines = [head, rule]
    for n, (title, label, _, _) in enumerate(commands):
        if "node" in title:
            continue
        cells = []
        for results, _, _, _ in runs:
            r = results[n]["median"]
            cells.append(f"{r * 1000:.2f} ms ({r / results[0]['median']:.2f}×)")
        lines.append(f"| {label or '—'} | {title} | " + " | ".join(cells) + " |")
    events = sum(1 for c in commands if c[1])
    lines.append("")
    lines.append(f"Hook events within 2× `/bin/true` per run: "
                 + ", ".join(str(held) for _, held, _, _ in runs) + f" of {events}; load average "
                 + ", ".join(f"{b:.2f} → {e:.2f}" for _, _, b, e in runs) + ".")
    return "\n".join(lines) + "\n"


def compare(old: str, old_commands: list, new: str, new_commands: list, env: dict, rounds: int,
            out: str | None) -> int:
    """Times both binaries' commands in alternation: in each round every
    event runs once per binary, in a random order, each after its untimed
    reset. Drift in the machine's speed (other load, CPU frequency) then
    falls on both alike, which separate hyperfine runs cannot promise."""
    import random
    import statistics
    import time

    times = {(which, i): [] for which in ("old", "new") for i in range(len(new_commands))}
    commands = {"old": old_commands, "new": new_commands}
    # Each build keeps its own state directory: a build must never meet a
    # database of a newer schema (it would run without the store, and look
    # faster than it is).
    envs = {"old": dict(env, XDG_STATE_HOME=env["XDG_STATE_HOME"] + "-old"), "new": env}
    for done in range(rounds):
        jobs = [(which, i) for which in commands for i in range(len(new_commands))]
        random.shuffle(jobs)
        for which, i in jobs:
            title, label, cmd, prepare = commands[which][i]
            if prepare:
                subprocess.run(["sh", "-c", prepare], env=envs[which], check=True)
            started = time.perf_counter()
            subprocess.run(["sh", "-c", cmd], env=envs[which], check=True, stdout=subprocess.DEVNULL)
            times[(which, i)].append(time.perf_counter() - started)
        if (done + 1) % 20 == 0:
            print(f"{done + 1} of {rounds} rounds", file=sys.stderr)
    lines = [f"| tree | command | {os.path.basename(old)} (old) | this build | change |",
             "|---|---|---:|---:|---:|"]
    for i, (title, label, _, _) in enumerate(new_commands):
        before = statistics.median(times[("old", i)]) * 1000
        after = statistics.median(times[("new", i)]) * 1000
        lines.append(f"| {label} | {title} | {before:.2f} ms | {after:.2f} ms | {after - before:+.2f} ms |")
    lines.append("")
    lines.append(f"medians of {rounds} alternating runs each (`sh -c` included); {os.cpu_count()} CPUs.")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if out:
        with open(out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
