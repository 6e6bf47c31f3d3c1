#!/usr/bin/env python3
"""Byte parity between the real opencode 1.18.33 and
`agentspine resolve --host opencode --format native`.

    PYTHONPATH=tests/lib python3 tests/e2e/parity_opencode.py --agentspine BIN [--fixture NAME ...] [--jobs N]

The cases: every fixture of fixtures_opencode.py, and every shared fixture of
fixtures.py that lays out AGENTS.md/CLAUDE.md trees (those of another host's
own configuration, a Codex config.toml, Claude settings, Claude memory, and
the GEMINI.md ones, say nothing about opencode and are left out). For each:
build it in a fresh directory, run agentspine in it (same HOME, cwd, the
fixture's variables and command prefix), then capture what opencode sends
(opencode.py: the `Instructions from:` span of its system prompt,
byte-exact, inside `unshare -n`), and compare bytes. agentspine runs first
so that it sees the tree as built (opencode adds a `.gitignore` to each
config directory it reads). Each case is one of

  equal     the same bytes;
  declared  a difference agentspine declares (DECLARED below, and the doc
            comment of crates/agentspine-core/src/hosts/opencode/mod.rs):
            a link out of the project or a file outside it that opencode
            reads and agentspine never opens, or files above the root
            (opencode walks on up to `/` without a git repository);
            or, for a fixture in RACE, the same blocks where only the
            order of sibling directories' matches differs (a race in
            opencode's glob walk), or for a fixture in RACE_ANY, the same
            blocks in any order (alternatives of a brace group holding a
            `/`, globbed at once);
            a declared case that turns equal is a mismatch (a stale
            declaration);
  mismatch  anything else, an error included: the run exits 1.

Prints one row per case, in fixture order, then `N equal, M declared, K
mismatch`. Nothing is cached: every case is built and captured afresh.
Cases run --jobs at a time (default 4), each opencode in its own namespace.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(os.path.dirname(HERE), "lib"), HERE]

import fixtures as fx  # noqa: E402
import fixtures_opencode as fxo  # noqa: E402
import harness  # noqa: E402
import opencode as oc  # noqa: E402
import parity  # noqa: E402

OUT = "a link out of the project: opencode follows it, agentspine never does"
OUT_PROFILE = "a link out of the user's config directory: opencode follows it, agentspine never does"
ABOVE = ("files above the root: without a git repository opencode walks on up to `/`, agentspine stops at "
         "the root and lists them outside-root")
BOGUS_GIT = ("files above the root: opencode takes a `.git` git would not accept for no repository and walks "
             "on up to `/`; agentspine's git rule binds the root there and lists them outside-root")
CFG_OUT = ("files outside the project named by the config's instructions: opencode reads them, agentspine "
           "lists them and never opens them")

# Differences agentspine declares, by fixture: why its text differs.
DECLARED = {
    # shared fixtures
    "symlinked_files": OUT,
    "global_links_dotfiles": OUT_PROFILE,
    "hard_linked_files": "a hard link whose other name lies out of the project: opencode reads it, "
                         "agentspine never reads a file with two names",
    "mounted_package": "a bind mount of a tree out of the project: opencode reads through it, agentspine "
                       "never crosses a mount point",
    "links_into_git": "a link into .git: opencode follows it, agentspine never reads inside .git",
    "no_git": ABOVE,
    # opencode's fixtures
    "oc_no_git": ABOVE,
    "oc_no_git_claude": ABOVE,
    "oc_no_git_above_tree": ABOVE,
    "oc_bogus_git_file": BOGUS_GIT,
    "oc_empty_git_dir": BOGUS_GIT,
    "oc_link_out_of_project": OUT,
    "oc_global_link": OUT_PROFILE,
    "oc_cfg_global": CFG_OUT,
    "oc_cfg_outside": CFG_OUT,
    "oc_cfg_dupes_and_links": OUT,
}


# Fixtures where opencode's order is a race: its glob walk reads sibling
# directories concurrently, so the matches under each directory named here
# come in a different order from run to run (measured: five runs over ten
# siblings, four orders). agentspine takes the siblings in name order; the
# case is equal when the bytes are, declared when only the order of those
# runs of matches differs, a mismatch otherwise.
RACE = {
    "oc_cfg_doublestar": "pkg",
}
RACE_WHY = ("opencode's ** walk reads sibling directories concurrently, so their matches come in no fixed "
            "order; agentspine sends them in name order (the same files and texts, each run in another order)")


# Fixtures where the order of all the config's matches is a race: a brace
# group holding a `/` makes opencode glob each alternative at once, and
# their matches come in whichever order the globs finish (measured: two
# runs of oc_cfg_braces_slash, `{q,s/t}/U.md` in both orders). agentspine
# sends them in the order written; the case is declared when the same
# blocks come in another order.
RACE_ANY = {
    "oc_cfg_braces_slash": ("opencode globs a brace group's alternatives that hold a `/` at once, so their "
                            "matches come in no fixed order; agentspine sends them in the order written"),
}


def blocks(text: bytes) -> list:
    """The `Instructions from:` blocks of TEXT, each with its label (trailing newlines dropped)."""
    out = []
    for i, part in enumerate(text.split(b"\n\nInstructions from: ")):
        out.append((part if i == 0 else b"Instructions from: " + part).rstrip(b"\n"))
    return out


def race_normal(text: bytes, tree: str, parent: str) -> list:
    """TEXT's blocks with every run of consecutive blocks under `<tree>/<parent>/<sub>/` sorted."""
    inside = f"Instructions from: {tree}/{parent}/".encode()

    def racing(b):
        rest = b[len(inside):].split(b"\n", 1)[0] if b.startswith(inside) else b""
        return b"/" in rest

    out, run = [], []
    for b in blocks(text):
        if racing(b):
            run.append(b)
            continue
        out.extend(sorted(run))
        run = []
        out.append(b)
    out.extend(sorted(run))
    return out


def shared_applies(f) -> bool:
    """Whether the shared fixture F is an AGENTS.md/CLAUDE.md tree opencode reads as it is."""
    return (set(f.hosts) & {"codex", "claude", "pi", "pi-0.73"} and f.codex_config is None
            and f.claude_settings is None and f.home_fn is None)


def cases(names):
    out = [("shared", f) for f in fx.FIXTURES if shared_applies(f)]
    out += [("opencode", f) for f in fxo.FIXTURES]
    if names:
        known = {f.name for _, f in out}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise SystemExit(f"unknown fixture(s): {', '.join(unknown)}")
        out = [(kind, f) for kind, f in out if f.name in names]
    return out


def build(kind, f, dest):
    """(tree, cwd, home, env, wrap, mounts) of a built case, or a reason it cannot run here."""
    if kind == "shared":
        tree, cwd, home = fx.build_fixture(f.name, dest)
        env = fx.fixture_env(f.name, tree, home)
        why = parity.bind_mounts(f, tree) or parity.wrap_refused(f, tree)
        mounts = [os.path.join(tree, t) for _, t in f.mounts]
    else:
        tree, cwd, home = fxo.build(f, dest)
        env = fxo.env(f, tree, home)
        why = None
        mounts = []
        if f.wrap and not shutil.which(f.wrap[0]):
            why = f"{f.wrap[0]} is not installed"
    return tree, cwd, home, env, tuple(f.wrap), mounts, why


def agentspine(binary, cwd, home, env, wrap) -> bytes:
    run_env = oc.base_env()
    run_env.update({"HOME": home, "PWD": cwd})
    run_env.update(env)
    p = harness.run([*wrap, binary, "resolve", "--host", "opencode", "--cwd", cwd, "--format", "native"],
                    cwd=cwd, env=run_env, timeout=60, text=False)
    if p.returncode != 0:
        raise RuntimeError(f"agentspine exit {p.returncode}: {p.stderr.decode('utf-8', 'replace').strip()}")
    return p.stdout


def one(binary, work, kind, f):
    """(result, detail, seconds) of one case."""
    t0 = time.monotonic()
    dest = os.path.join(work, f.name)
    mounts = []
    try:
        tree, cwd, home, env, wrap, mounts, why = build(kind, f, dest)
        if why:
            return "mismatch", f"cannot run here: {why}", time.monotonic() - t0
        ours = agentspine(binary, cwd, home, env, wrap)
        recs = oc.run(tree, cwd, home, env=env, wrap=wrap)
        theirs = oc.to_bytes(oc.extract(recs))
    except (oc.RunError, RuntimeError, OSError, subprocess.SubprocessError) as e:
        lines = str(e).strip().splitlines()
        return "mismatch", "ERROR " + (lines[0] if lines else repr(e)), time.monotonic() - t0
    finally:
        parity.unmount(mounts)
        shutil.rmtree(dest, ignore_errors=True)
    secs = time.monotonic() - t0
    off = parity.first_diff(theirs, ours)
    if f.name in DECLARED:
        if off is None:
            return "mismatch", f"declared, yet equal (a stale declaration): {DECLARED[f.name]}", secs
        return "declared", DECLARED[f.name], secs
    if off is None:
        return "equal", f"{len(ours)} bytes", secs
    if f.name in RACE and len(theirs) == len(ours) and race_normal(theirs, tree, RACE[f.name]) == race_normal(ours, tree, RACE[f.name]):
        return "declared", RACE_WHY, secs
    if f.name in RACE_ANY and len(theirs) == len(ours) and sorted(blocks(theirs)) == sorted(blocks(ours)):
        return "declared", RACE_ANY[f.name], secs
    return "mismatch", (f"at byte {off} (opencode {len(theirs)} B, agentspine {len(ours)} B): "
                        f"opencode {parity.ctx(theirs, off, 60)} / agentspine {parity.ctx(ours, off, 60)}"), secs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--agentspine", required=True)
    ap.add_argument("--fixture", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=4, help="cases captured at once (default 4)")
    a = ap.parse_args(argv)
    binary = harness.agentspine(os.path.abspath(a.agentspine))
    todo = cases(a.fixture)
    oc.install()
    work = tempfile.mkdtemp(prefix="agentspine-parity-opencode-")
    stray = parity.stray_ancestor_files(work)
    if stray:
        print("parity_opencode.py: warning: instruction files above the fixtures reach opencode: "
              + ", ".join(stray), file=sys.stderr)
    t0 = time.monotonic()
    try:
        with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            results = list(pool.map(lambda c: one(binary, work, *c), todo))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    tally = {"equal": 0, "declared": 0, "mismatch": 0}
    print(f"{'fixture':34} {'result':9} {'secs':>5}  detail")
    for (kind, f), (result, detail, secs) in zip(todo, results):
        tally[result] += 1
        print(f"{f.name:34} {result.upper() if result == 'mismatch' else result:9} {secs:5.1f}  {detail}")
    print(f"{tally['equal']} equal, {tally['declared']} declared, {tally['mismatch']} mismatch "
          f"({len(todo)} cases in {time.monotonic() - t0:.0f} s)")
    return 1 if tally["mismatch"] else 0


if __name__ == "__main__":
    sys.exit(main())
