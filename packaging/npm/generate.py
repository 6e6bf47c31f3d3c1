#!/usr/bin/env python3
"""Writes the npm packages of one release from the binaries scripts/dist built.

    generate.py --version 0.1.0 --dist dist --out dist/npm/src

- `agentspine`: the launcher (packaging/npm/agentspine: bin/agentspine.js
  and a README), no install script, with one optional dependency per
  platform at the same version. npm installs the one whose `os` and `cpu`
  match the machine and skips the others.
- `@agentspine/<platform>`: one per binary found in --dist
  (`agentspine-<target>`), holding it as bin/agentspine.

The launcher's list of platforms is always complete (PLATFORMS), so a
launcher built on a machine that produced fewer binaries installs the same
way once the others are published.
"""

import argparse
import json
import os
import shutil
import stat

HERE = os.path.dirname(os.path.abspath(__file__))
# The license texts the `license` field names, at the repository root; every
# package carries both (npm packs LICENSE* files anyway, `files` says so).
LICENSES = [os.path.join(HERE, "..", "..", name) for name in ("LICENSE-MIT", "LICENSE-APACHE")]

# Rust target -> (npm platform suffix, os, cpu).
PLATFORMS = {
    "x86_64-unknown-linux-musl": ("linux-x64", "linux", "x64"),
    "aarch64-unknown-linux-musl": ("linux-arm64", "linux", "arm64"),
    "x86_64-apple-darwin": ("darwin-x64", "darwin", "x64"),
    "aarch64-apple-darwin": ("darwin-arm64", "darwin", "arm64"),
}
SCOPE = "@agentspine"
COMMON = {
    "license": "MIT OR Apache-2.0",
    "homepage": "https://github.com/agentspine/agentspine",
    "repository": {"type": "git", "url": "git+https://github.com/agentspine/agentspine.git"},
}


def write_json(path: str, value: dict) -> None:
    with open(path, "w") as f:
        json.dump(value, f, indent=2)
        f.write("\n")


def add_licenses(pkg: str) -> list:
    """Copies the license texts into a package folder; returns their names."""
    names = []
    for path in LICENSES:
        shutil.copyfile(path, os.path.join(pkg, os.path.basename(path)))
        names.append(os.path.basename(path))
    return names


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--version", required=True)
    ap.add_argument("--dist", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if os.path.exists(args.out):
        shutil.rmtree(args.out)
    os.makedirs(args.out)

    launcher = os.path.join(args.out, "agentspine")
    shutil.copytree(os.path.join(HERE, "agentspine"), launcher)
    os.chmod(os.path.join(launcher, "bin", "agentspine.js"), 0o755)
    licenses = add_licenses(launcher)
    write_json(os.path.join(launcher, "package.json"), {
        "name": "agentspine",
        "version": args.version,
        "description": "Resolves the instructions and memory a coding agent puts in front of its model: "
                       "hooks and an MCP server for Claude Code and Codex.",
        **COMMON,
        "bin": {"agentspine": "bin/agentspine.js"},
        "files": ["bin", "README.md", *licenses],
        "engines": {"node": ">=18"},
        "optionalDependencies": {f"{SCOPE}/{p[0]}": args.version for p in PLATFORMS.values()},
    })

    built = 0
    for target, (suffix, os_name, cpu) in PLATFORMS.items():
        binary = os.path.join(args.dist, f"agentspine-{target}")
        if not os.path.exists(binary):
            continue
        pkg = os.path.join(args.out, suffix)
        os.makedirs(os.path.join(pkg, "bin"))
        dest = os.path.join(pkg, "bin", "agentspine")
        shutil.copyfile(binary, dest)
        add_licenses(pkg)
        os.chmod(dest, os.stat(dest).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        write_json(os.path.join(pkg, "package.json"), {
            "name": f"{SCOPE}/{suffix}",
            "version": args.version,
            "description": f"The agentspine binary for {os_name} {cpu} ({target}); installed by the "
                           "`agentspine` package.",
            **COMMON,
            "os": [os_name],
            "cpu": [cpu],
            "files": ["bin", *licenses],
            "preferUnplugged": True,
        })
        with open(os.path.join(pkg, "README.md"), "w") as f:
            f.write(f"The `agentspine` binary for {target}. Install `agentspine` instead: it picks this "
                    "package on this platform.\n")
        built += 1
    print(f"npm packages: agentspine and {built} platform packages, version {args.version}")


if __name__ == "__main__":
    main()
