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
import os
import re
import sys

import harness


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--agentspine", required=True)
    ap.add_argument("--qemu", default="qemu-aarch64-static")
    args = ap.parse_args()
    target = re.sub(r"^agentspine-", "", os.path.basename(args.agentspine))
    binary = harness.agentspine(args.agentspine)
    tally = harness.Tally()
    check = tally.check

    with harness.scratch("agentspine-qemu-") as base:
        home, app = os.path.join(base, "home"), os.path.join(base, "app")
        for d in (home, os.path.join(app, ".git"), os.path.join(app, "pkg", "api"), os.path.join(app, "web")):
            os.makedirs(d)
        harness.write_tree(app, {"CLAUDE.md": "# app\n", "pkg/api/CLAUDE.md": "QEMU-NESTED: api rules.\n",
                                 "pkg/api/main.ts": "export {};\n"})
        env = {"HOME": home, "PATH": os.environ["PATH"], "AGENTSPINE_STATE_DIR": os.path.join(base, "state")}
        r = harness.run([args.qemu, binary, "--version"], env=env)
        check(f"--version under {args.qemu}: {r.stdout.strip()}",
              r.returncode == 0 and r.stdout.strip().endswith(f", {target})"), r.stderr)
        # An Edit in a package beside the start directory: Claude Code loads
        # nothing for it itself, the hook brings its CLAUDE.md.
        payload = {"session_id": "qemu-1", "transcript_path": None, "cwd": os.path.join(app, "web"),
                   "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_use_id": "toolu_1",
                   "tool_input": {"file_path": os.path.join(app, "pkg", "api", "main.ts"), "old_string": "{}", "new_string": "{ }"}}
        r = harness.run_hook(binary, "claude", payload, env, cwd=os.path.join(app, "web"), wrap=[args.qemu])
        try:
            context = harness.hook_context(r.stdout)
        except (ValueError, KeyError, TypeError):
            context = ""
        check("a Claude PreToolUse hook under qemu brings the nested CLAUDE.md",
              r.returncode == 0 and "QEMU-NESTED" in context, r.stdout + r.stderr)
    return tally.summary("qemu")


if __name__ == "__main__":
    sys.exit(main())
