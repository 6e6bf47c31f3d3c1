#!/usr/bin/env python3
"""The npm packages scripts/dist packs, installed and used as a user would.

    npm.py --dist DIR [--keep]

DIR/npm holds the tarballs `npm pack` wrote: the `agentspine` launcher and
the platform package of this machine (`agentspine-linux-x64-<v>.tgz`).
Both are installed with `npm install --offline` into a throwaway prefix,
with an empty npm cache and an unreachable registry (inside `unshare -n`
when root: no network at all), so nothing can come from the registry.
Then the installed `agentspine` (`PREFIX/node_modules/.bin/agentspine`,
the launcher) is driven with a throwaway HOME:

1. `--version` names the crate version and the target of the binary;
2. `install claude` and `install codex --trust-hooks`: each hook file
   holds one agentspine hook per event, naming the platform package's
   binary (a path `npm update` keeps, and no Node start per hook run);
3. a Claude Code `PreToolUse` hook for an Edit in a sibling package, run
   with the installed command through `sh -c`: that package's CLAUDE.md
   arrives in `additionalContext`; a Codex `SessionStart` hook exits 0;
4. `doctor --host claude|codex --json`: the install is ok and the binary
   the entries name is this version;
5. `uninstall claude|codex`: no agentspine hook and no MCP entry is left.
"""

import argparse
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile

import harness

tally = harness.Tally()
check = tally.check


def ours(path: str, host: str) -> dict:
    """Event -> the commands of agentspine hooks in a hook file."""
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        value = json.load(f)
    found = {}
    for event, groups in value.get("hooks", {}).items():
        for group in groups:
            for hook in group.get("hooks", []):
                words = shlex.split(hook.get("command", ""))
                if len(words) == 3 and words[0].endswith("/agentspine") and words[1:] == ["hook", host]:
                    found.setdefault(event, []).append(hook["command"])
    return found


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--dist", required=True)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    machine = {"x86_64": "x64", "aarch64": "arm64"}[os.uname().machine]
    launcher = [t for t in glob.glob(os.path.join(args.dist, "npm", "agentspine-[0-9]*.tgz"))]
    platform = glob.glob(os.path.join(args.dist, "npm", f"agentspine-linux-{machine}-*.tgz"))
    if len(launcher) != 1 or len(platform) != 1:
        print(f"FAIL {args.dist}/npm must hold one launcher and one linux-{machine} tarball: "
              f"{launcher + platform}")
        sys.exit(1)
    version = re.search(r"agentspine-(.+)\.tgz$", launcher[0]).group(1)

    # Both license texts the `license` field names, in each tarball, equal to
    # the files at the repository root.
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    for tgz in launcher + platform:
        with tarfile.open(tgz) as tar:
            found = {}
            for name in ("LICENSE-MIT", "LICENSE-APACHE"):
                member = tar.extractfile(f"package/{name}") if f"package/{name}" in tar.getnames() else None
                found[name] = member.read() if member else None
        for name, text in found.items():
            with open(os.path.join(root, name), "rb") as f:
                check(f"{os.path.basename(tgz)} holds {name}", text == f.read(),
                      "missing" if text is None else "differs from the repository's")

    with harness.scratch("agentspine-npm-", keep=args.keep) as base:
        prefix, home = os.path.join(base, "prefix"), os.path.join(base, "home")
        os.makedirs(prefix)
        os.makedirs(home)
        env = {"HOME": home, "PATH": os.environ["PATH"], "npm_config_cache": os.path.join(base, "npm-cache"),
               "npm_config_registry": "http://127.0.0.1:9/", "npm_config_update_notifier": "false"}
        npm = ["npm", "install", "--prefix", prefix, "--offline", "--no-audit", "--no-fund",
               launcher[0], platform[0]]
        if os.geteuid() == 0 and shutil.which("unshare"):
            npm = ["unshare", "-n", "--"] + npm
        else:
            print("note: not root: npm runs with an unreachable registry but with the network")
        r = harness.run(npm, env=env, timeout=300)
        check("npm install --offline of the two tarballs", r.returncode == 0, r.stdout + r.stderr)
        if r.returncode != 0:
            sys.exit(tally.summary("npm packages"))
        bin_dir = os.path.join(prefix, "node_modules", ".bin")
        env["PATH"] = f"{bin_dir}:{os.environ['PATH']}"
        native = os.path.join(prefix, "node_modules", "@agentspine", f"linux-{machine}", "bin", "agentspine")

        def agentspine(*argv: str, cwd: str = home) -> subprocess.CompletedProcess:
            return harness.run(["agentspine", *argv], env=env, cwd=cwd)

        r = agentspine("--version")
        want = rf"^agentspine {re.escape(version)} \(commit ([0-9a-f]{{12}}|unknown), {os.uname().machine}-unknown-linux-musl\)$"
        check(f"--version through the launcher: {r.stdout.strip()}",
              r.returncode == 0 and re.match(want, r.stdout.strip()) is not None, r.stderr)

        # A project with a nested CLAUDE.md Claude Code does not load at start.
        app = os.path.join(base, "work", "app")
        os.makedirs(os.path.join(app, ".git"))
        harness.write_tree(app, {"CLAUDE.md": "# app\n", "AGENTS.md": "# app\n",
                                 "pkg/api/CLAUDE.md": "NPM-NESTED: the api has its own rules.\n",
                                 "pkg/api/main.ts": "export {};\n"})
        os.makedirs(os.path.join(app, "web"))

        for host, extra in (("claude", []), ("codex", ["--trust-hooks"])):
            r = agentspine("install", host, *extra)
            check(f"install {host} {' '.join(extra)}".strip(), r.returncode == 0, r.stdout + r.stderr)
        claude_settings = os.path.join(home, ".claude", "settings.json")
        codex_hooks = os.path.join(home, ".codex", "hooks.json")
        for path, host, events in ((claude_settings, "claude", 4), (codex_hooks, "codex", 5)):
            found = ours(path, host)
            commands = {shlex.split(c)[0] for cs in found.values() for c in cs}
            check(f"{host}: one hook per event ({events}), naming the platform package's binary",
                  len(found) == events and all(len(c) == 1 for c in found.values())
                  and commands == {native}, str(found))

        command = ours(claude_settings, "claude")["PreToolUse"][0]
        # An Edit in a package beside the start directory: Claude Code loads
        # nothing for it itself, the hook brings its CLAUDE.md.
        payload = {"session_id": "npm-1", "transcript_path": None, "cwd": os.path.join(app, "web"),
                   "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_use_id": "toolu_1",
                   "tool_input": {"file_path": os.path.join(app, "pkg", "api", "main.ts"), "old_string": "{}", "new_string": "{ }"}}
        r = harness.run(["sh", "-c", command], input=json.dumps(payload), env=env, cwd=os.path.join(app, "web"),
                        timeout=30)
        context = ""
        try:
            context = harness.hook_context(r.stdout)
        except (ValueError, KeyError, TypeError):
            pass
        check("Claude PreToolUse Edit in pkg/api through the installed command: its CLAUDE.md arrives",
              r.returncode == 0 and "NPM-NESTED" in context,
              r.stdout + r.stderr)
        command = ours(codex_hooks, "codex")["SessionStart"][0]
        payload = {"session_id": "npm-2", "transcript_path": None, "cwd": app, "hook_event_name": "SessionStart",
                   "source": "startup", "model": "mock"}
        r = harness.run(["sh", "-c", command], input=json.dumps(payload), env=env, cwd=app, timeout=30)
        check("Codex SessionStart through the installed command exits 0", r.returncode == 0, r.stdout + r.stderr)

        for host in ("claude", "codex"):
            r = agentspine("doctor", "--host", host, "--json", cwd=app)
            try:
                install = json.loads(r.stdout)["install"]
            except (ValueError, KeyError):
                install = {}
            statuses = [(b.get("path"), b.get("status")) for b in install.get("binaries", [])]
            check(f"doctor --host {host}: installed once, the named binary is this version",
                  install.get("ok") is True and statuses == [(native, "this-version")],
                  json.dumps(install)[:1500] + r.stderr)

        for host in ("claude", "codex"):
            r = agentspine("uninstall", host)
            check(f"uninstall {host}", r.returncode == 0, r.stdout + r.stderr)
        left = ours(claude_settings, "claude") or ours(codex_hooks, "codex")
        mcp = []
        for path in (os.path.join(home, ".claude.json"), os.path.join(home, ".codex", "config.toml")):
            if os.path.exists(path) and "agentspine" in open(path).read():
                mcp.append(path)
        check("uninstall leaves no agentspine hook and no MCP entry", not left and not mcp, f"{left} {mcp}")
    sys.exit(tally.summary("npm packages"))


if __name__ == "__main__":
    main()
