#!/usr/bin/env python3
"""`agentspine doctor --host H` asks the real host for its version.

Run with PYTHONPATH=tests/lib (scripts/test sets it). Each pinned client (tests/e2e/install-clients.sh installs exactly the
versions in crates/agentspine-core/src/hosts/verified-versions) is put on
PATH under its own program name in a throwaway HOME; doctor must find it,
read its answer and call it verified. Nothing here talks to a network: the
clients only print their version.
"""

import argparse
import json
import os
import sys
from pathlib import Path

import harness

REPO = Path(__file__).resolve().parents[2]
VERIFIED = REPO / "crates/agentspine-core/src/hosts/verified-versions"

sys.path.insert(0, str(Path(__file__).resolve().parent))

# host -> (program name, environment variable with the installed client)
CLIENTS = {
    "codex": ("codex", "CODEX_BIN"),
    "claude": ("claude", "CLAUDE_BIN"),
    "gemini": ("gemini", "GEMINI_BIN"),
    "pi": ("pi", "PI1_BIN"),
    "pi-0.73": ("pi", "PI_BIN"),
    "opencode": ("opencode", "OPENCODE_BIN"),
    "kimi": ("kimi", "KIMI_BIN"),
    "copilot": ("copilot", "COPILOT_BIN"),
}


def installed(host: str) -> str | None:
    """The client of a host that installs itself (opencode, Kimi Code,
    Copilot CLI: each runner's install(), idempotent and cached), and the
    variables its start needs."""
    if host == "opencode":
        import opencode
        return opencode.install()
    if host == "kimi":
        import kimi
        return kimi.install()
    if host == "copilot":
        import copilot
        return copilot.install()
    return None


def client_env(host: str) -> dict:
    """Variables a client needs to print its version offline: Copilot
    unpacks its package into $XDG_CACHE_HOME at first start (the shared
    unpacked copy of the install cache)."""
    if host == "copilot":
        import copilot
        return {"XDG_CACHE_HOME": copilot.xdg_cache(), "COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false"}
    if host == "opencode":
        return {"OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_MODELS_FETCH": "1"}
    return {}


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
    agentspine = harness.agentspine(args.agentspine)
    versions = verified()
    tally = harness.Tally()
    for host, (program, var) in CLIENTS.items():
        binary = os.environ.get(var) or installed(host)
        if not tally.check(f"{host}: ${var} names the installed client", bool(binary),
                           "eval tests/e2e/install-clients.sh first"):
            continue
        with harness.scratch(f"as-version-{host}-") as tmp:
            bin_dir = Path(tmp, "bin")
            bin_dir.mkdir()
            (bin_dir / program).symlink_to(binary)
            project = Path(tmp, "project")
            (project / ".git").mkdir(parents=True)
            Path(tmp, "home").mkdir()
            env = {
                "PATH": f"{bin_dir}:{os.environ.get('PATH', '')}",
                "HOME": str(Path(tmp, "home")),
                "AGENTSPINE_STATE_DIR": str(Path(tmp, "state")),
                "PI_OFFLINE": "1",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
                **client_env(host),
            }
            # One untimed start first: doctor waits 3 s for an answer, and
            # a Node client's first start from a cold disk cache can take
            # longer than that on a loaded machine (what doctor then says,
            # `no-answer`, is right; it is not what this checks).
            harness.run([str(bin_dir / program), "--version"], cwd=project, env=env, timeout=60)
            run, report = harness.run_json([agentspine, "doctor", "--host", host, "--json"], cwd=project, env=env)
            got = (report or {}).get("host_version") or {}
            want = {"check": "verified", "found": versions[host], "verified": [versions[host]],
                    "path": str(bin_dir / program)}
            seen = {key: got.get(key) for key in want}
            tally.check(f"{host}: doctor finds {program} on PATH and calls {versions[host]} verified",
                        seen == want, f"host_version {json.dumps(got)}; exit {run.returncode}; {run.stderr.strip()}")
    return tally.summary("host versions")


if __name__ == "__main__":
    sys.exit(main())
