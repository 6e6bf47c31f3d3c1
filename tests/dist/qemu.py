#!/usr/bin/env python3
"""A foreign-architecture binary from scripts/dist, run under qemu-user.

    qemu.py --agentspine dist/agentspine-aarch64-unknown-linux-musl [--qemu qemu-aarch64-static]

The binary is static, so qemu's user-mode emulator runs it with no
sysroot. Checked: `--version` names the binary's own target, and one
Claude Code PreToolUse hook (a Read in a nested package of a throwaway
project, the command the installer writes) brings that package's
CLAUDE.md, exactly as the native build does.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--agentspine", required=True)
    ap.add_argument("--qemu", default="qemu-aarch64-static")
    args = ap.parse_args()
    target = re.sub(r"^agentspine-", "", os.path.basename(args.agentspine))
    failed = 0

    def check(ok: bool, what: str, detail: str = "") -> None:
        nonlocal failed
        print(f"{'ok  ' if ok else 'FAIL'} {what}" + ("" if ok else f"\n     {detail[:1500]}"))
        failed += 0 if ok else 1

    base = tempfile.mkdtemp(prefix="agentspine-qemu-")
    try:
        home, app = os.path.join(base, "home"), os.path.join(base, "app")
        for d in (home, os.path.join(app, ".git"), os.path.join(app, "pkg", "api"), os.path.join(app, "web")):
            os.makedirs(d)
        for rel, text in (("CLAUDE.md", "# app\n"), ("pkg/api/CLAUDE.md", "QEMU-NESTED: api rules.\n"),
                          ("pkg/api/main.ts", "export {};\n")):
            with open(os.path.join(app, rel), "w") as f:
                f.write(text)
        env = {"HOME": home, "PATH": os.environ["PATH"], "AGENTSPINE_STATE_DIR": os.path.join(base, "state")}
        run = [args.qemu, os.path.abspath(args.agentspine)]
        r = subprocess.run([*run, "--version"], env=env, capture_output=True, text=True, timeout=60)
        check(r.returncode == 0 and r.stdout.strip().endswith(f", {target})"),
              f"--version under {args.qemu}: {r.stdout.strip()}", r.stderr)
        # An Edit in a package beside the start directory: Claude Code loads
        # nothing for it itself, the hook brings its CLAUDE.md.
        payload = {"session_id": "qemu-1", "transcript_path": None, "cwd": os.path.join(app, "web"),
                   "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_use_id": "toolu_1",
                   "tool_input": {"file_path": os.path.join(app, "pkg", "api", "main.ts"), "old_string": "{}", "new_string": "{ }"}}
        r = subprocess.run([*run, "hook", "claude"], input=json.dumps(payload), env=env, cwd=os.path.join(app, "web"),
                           capture_output=True, text=True, timeout=60)
        try:
            context = json.loads(r.stdout)["hookSpecificOutput"].get("additionalContext", "")
        except (ValueError, KeyError, TypeError):
            context = ""
        check(r.returncode == 0 and "QEMU-NESTED" in context,
              "a Claude PreToolUse hook under qemu brings the nested CLAUDE.md", r.stdout + r.stderr)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"qemu: {2 - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
