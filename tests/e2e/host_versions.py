#!/usr/bin/env python3
"""`agentspine doctor --host H` asks the real host for its version.

Each pinned client (tests/e2e/install-clients.sh installs exactly the
versions in crates/agentspine-core/src/hosts/verified-versions) is put on
PATH under its own program name in a throwaway HOME; doctor must find it,
read its answer and call it verified. Nothing here talks to a network: the
clients only print their version.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VERIFIED = REPO / "crates/agentspine-core/src/hosts/verified-versions"

# host -> (program name, environment variable with the installed client)
CLIENTS = {
    "codex": ("codex", "CODEX_BIN"),
    "claude": ("claude", "CLAUDE_BIN"),
    "gemini": ("gemini", "GEMINI_BIN"),
    "pi": ("pi", "PI1_BIN"),
    "pi-0.73": ("pi", "PI_BIN"),
}


def verified():
    out = {}
    for line in VERIFIED.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            host, version = line.split()[:2]
            out[host] = version
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agentspine", required=True)
    args = parser.parse_args()
    agentspine = os.path.abspath(args.agentspine)
    versions = verified()
    failures = []
    for host, (program, var) in CLIENTS.items():
        binary = os.environ.get(var)
        if not binary:
            failures.append(f"{host}: ${var} is not set (eval tests/e2e/install-clients.sh)")
            continue
        with tempfile.TemporaryDirectory() as tmp:
            bin_dir = Path(tmp, "bin")
            bin_dir.mkdir()
            (bin_dir / program).symlink_to(binary)
            home = Path(tmp, "home")
            project = Path(tmp, "project")
            home.mkdir()
            (project / ".git").mkdir(parents=True)
            env = {
                "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}",
                "HOME": str(home),
                "AGENTSPINE_STATE_DIR": str(Path(tmp, "state")),
                "PI_OFFLINE": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            }
            run = subprocess.run(
                [agentspine, "doctor", "--host", host, "--json"],
                cwd=project, env=env, capture_output=True, text=True, timeout=60,
            )
            try:
                report = json.loads(run.stdout)
            except json.JSONDecodeError:
                failures.append(f"{host}: doctor printed no JSON (exit {run.returncode}): {run.stderr.strip()}")
                continue
            got = report.get("host_version") or {}
            want = {"check": "verified", "found": versions[host], "verified": [versions[host]],
                    "path": str(bin_dir / program)}
            seen = {key: got.get(key) for key in want}
            if seen != want:
                failures.append(f"{host}: host_version {json.dumps(got)}, expected {json.dumps(want)}")
            else:
                print(f"ok {host}: {got['meaning']}")
    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    print(f"{len(CLIENTS) - len(failures)} of {len(CLIENTS)} hosts verified")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
