#!/usr/bin/env python3
"""What Kimi Code 2.x loads, the text it sends, and what its hooks do: measured.

    PYTHONPATH=tests/lib python3 tests/e2e/measure_kimi.py [--part files|reminders|hooks|caps|mcp ...]
                            [--fixture NAME ...] [--json OUT] [--texts DIR] [--work DIR] [--keep]

Black box: each case is one headless `kimi -p` run (kimi.run: its own network
and PID namespace, the mock model on loopback, a throwaway HOME) on a tree
this script lays out; the checks compare what the mock recorded with what the
case expects, one PASS/FAIL line each.  Results: KIMI-MEASURED.md.  Needs
root (namespaces, setpriv).  Not part of CI.

Parts:
  files      FIXTURES: which instruction files are read, in which order, and
             the exact text (kimi.extract) -- each against its expected text.
  caps       large files (32 KiB and beyond): kept whole or cut, and the note.
  reminders  what a tool call that touches a directory with an AGENTS.md not
             in the system prompt adds (Read, Glob, Grep, Bash, Write), and an
             AGENTS.md changed on disk during the session.
  hooks      [[hooks]] in config.toml: the payload of each event, which
             output reaches the model and where, its size limit, exit codes,
             timeouts, blocking, invalid entries, project-level config.
  mcp        mcp.json at the user, project-root and start-directory levels.

--texts DIR writes each fixture's extracted text to DIR/<fixture>.kimi.txt
(byte-exact, empty when nothing was sent).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # keep tests/e2e free of __pycache__

import harness  # noqa: E402
import kimi  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DAC_AS_USER = ("setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--")


class Link:
    """A symbolic link to TARGET ({tree}, {home}, {base} expanded)."""

    def __init__(self, target: str):
        self.target = target


class Dir:
    """An empty directory."""


class Mode:
    """A file with DATA and permission bits MODE."""

    def __init__(self, data, mode: int):
        self.data, self.mode = data, mode


def F(name, intent, expect, tree=None, home=None, outside=None, cwd=".", git=".", env=None, wrap=(),
      args=()):
    """A fixture.  EXPECT: a list of (path template, text) -- the files Kimi
    should send, in order -- or a str (the exact text, templates expanded),
    or None (nothing sent).  GIT: the directory (relative to the tree) that
    gets `git init`, a list of them, None for no repository, or
    ("file", DIR, CONTENT) for a `.git` file."""
    return {"name": name, "intent": intent, "expect": expect, "tree": tree or {}, "home": home or {},
            "outside": outside or {}, "cwd": cwd, "git": git, "env": env or {}, "wrap": tuple(wrap),
            "args": tuple(args)}


def files(*pairs):
    return list(pairs)


FIXTURES = [
    # ------------------------------------------------------------ user scope
    F("user_kimi_code", "~/.kimi-code/AGENTS.md alone",
      files(("{home}/.kimi-code/AGENTS.md", "user kimi-code rules")),
      home={".kimi-code/AGENTS.md": "user kimi-code rules\n"}),
    F("user_agents_dir", "~/.agents/AGENTS.md alone",
      files(("{home}/.agents/AGENTS.md", "user .agents rules")),
      home={".agents/AGENTS.md": "user .agents rules\n"}),
    F("user_agents_lower", "~/.agents/agents.md alone (lowercase)",
      files(("{home}/.agents/agents.md", "user .agents lowercase")),
      home={".agents/agents.md": "user .agents lowercase\n"}),
    F("user_agents_both_names", "~/.agents/AGENTS.md and ~/.agents/agents.md: the first only",
      files(("{home}/.agents/AGENTS.md", "upper")),
      home={".agents/AGENTS.md": "upper\n", ".agents/agents.md": "lower\n"}),
    F("user_agents_upper_empty", "~/.agents/AGENTS.md empty: ~/.agents/agents.md is read",
      files(("{home}/.agents/agents.md", "lower")),
      home={".agents/AGENTS.md": "", ".agents/agents.md": "lower\n"}),
    F("user_both_levels", "~/.kimi-code/AGENTS.md and ~/.agents/AGENTS.md: both, kimi-code first",
      files(("{home}/.kimi-code/AGENTS.md", "kimi"), ("{home}/.agents/AGENTS.md", "agents")),
      home={".kimi-code/AGENTS.md": "kimi\n", ".agents/AGENTS.md": "agents\n"}),
    F("user_other_names", "user files Kimi does not read",
      None,
      home={".claude/CLAUDE.md": "claude\n", ".codex/AGENTS.md": "codex\n", ".kimi/AGENTS.md": "legacy kimi\n",
            ".kimi-code/agents.md": "lower in kimi-code\n", ".kimi-code/CLAUDE.md": "claude in kimi-code\n",
            ".kimi-code/KIMI.md": "kimi.md\n", "AGENTS.md": "home root\n", ".config/kimi-code/AGENTS.md": "xdg\n",
            ".agents/CLAUDE.md": "agents claude\n", ".kimi-code/rules/a.md": "rule\n"}),
    F("user_env_home", "KIMI_CODE_HOME replaces ~/.kimi-code",
      files(("{home}/kh/AGENTS.md", "from KIMI_CODE_HOME"), ("{home}/.agents/AGENTS.md", "agents")),
      home={"kh/AGENTS.md": "from KIMI_CODE_HOME\n", ".kimi-code/AGENTS.md": "default home\n",
            ".agents/AGENTS.md": "agents\n"},
      env={"KIMI_CODE_HOME": "{home}/kh"}),
    F("user_env_home_without_file", "KIMI_CODE_HOME without AGENTS.md: ~/.kimi-code/AGENTS.md is not read",
      None,
      home={"kh/config.toml": "", ".kimi-code/AGENTS.md": "default home\n"},
      env={"KIMI_CODE_HOME": "{home}/kh"}),
    F("user_env_home_slash", "KIMI_CODE_HOME with a trailing slash and a `..` segment",
      files(("{home}/kh/AGENTS.md", "kh")),
      home={"kh/AGENTS.md": "kh\n", "other/.keep": ""},
      env={"KIMI_CODE_HOME": "{home}/other/../kh/"}),
    F("user_env_home_relative", "KIMI_CODE_HOME relative: resolved against the start directory, label kept relative",
      files(("kh/AGENTS.md", "relative home")),
      tree={"kh/AGENTS.md": "relative home\n"},
      env={"KIMI_CODE_HOME": "kh"}),
    F("user_env_home_empty", "KIMI_CODE_HOME set to the empty string",
      files(("AGENTS.md", "root"), ("{tree}/AGENTS.md", "root")),
      tree={"AGENTS.md": "root\n"},
      env={"KIMI_CODE_HOME": ""}),
    F("user_whitespace", "~/.kimi-code/AGENTS.md of whitespace only: skipped",
      None,
      home={".kimi-code/AGENTS.md": " \n\t\r\n  \n"}),
    F("user_env_home_is_project", "KIMI_CODE_HOME = the project's .kimi-code: that file once, as the user file",
      files(("{tree}/.kimi-code/AGENTS.md", "project kimi-code"), ("{tree}/AGENTS.md", "root")),
      tree={".kimi-code/AGENTS.md": "project kimi-code\n", "AGENTS.md": "root\n"},
      env={"KIMI_CODE_HOME": "{tree}/.kimi-code"}),

    F("home_is_project", "HOME is the project root: ~/.kimi-code/AGENTS.md once (as the user file), ~/.agents, then ~/AGENTS.md",
      files(("{tree}/.kimi-code/AGENTS.md", "kimi home"), ("{tree}/.agents/AGENTS.md", "agents"),
            ("{tree}/AGENTS.md", "home root")),
      tree={".kimi-code/AGENTS.md": "kimi home\n", "AGENTS.md": "home root\n", ".agents/AGENTS.md": "agents\n"},
      env={"HOME": "{tree}"}),

    # --------------------------------------------------------- project files
    F("project_names", "every candidate name at the root: .kimi-code/AGENTS.md then AGENTS.md only",
      files(("{tree}/.kimi-code/AGENTS.md", "dot kimi-code"), ("{tree}/AGENTS.md", "AGENTS")),
      tree={".kimi-code/AGENTS.md": "dot kimi-code\n", "AGENTS.md": "AGENTS\n", "agents.md": "agents lower\n",
            ".kimi/AGENTS.md": "dot kimi\n", "CLAUDE.md": "claude\n", ".agents/AGENTS.md": "dot agents\n",
            "AGENTS.override.md": "override\n", "Agents.md": "Agents\n", ".claude/CLAUDE.md": "dot claude\n",
            "KIMI.md": "kimi\n", ".kimi-code/agents.md": "kimi-code lower\n", "GEMINI.md": "gemini\n",
            ".kimi-code/rules/r.md": "rule\n"}),
    F("project_lower_only", "agents.md alone",
      files(("{tree}/agents.md", "lower only")),
      tree={"agents.md": "lower only\n"}),
    F("project_claude_only", "CLAUDE.md alone: nothing",
      None, tree={"CLAUDE.md": "claude only\n"}),
    F("project_empty_falls_through", "empty AGENTS.md: agents.md beside it is read",
      files(("{tree}/agents.md", "lower")),
      tree={"AGENTS.md": "", "agents.md": "lower\n"}),
    F("project_ws_falls_through", "whitespace-only AGENTS.md: agents.md beside it is read",
      files(("{tree}/agents.md", "lower")),
      tree={"AGENTS.md": "  \n\t\n", "agents.md": "lower\n"}),
    F("project_kimi_code_empty", "empty .kimi-code/AGENTS.md: skipped, AGENTS.md still read",
      files(("{tree}/AGENTS.md", "root")),
      tree={".kimi-code/AGENTS.md": "\n", "AGENTS.md": "root\n"}),
    F("project_walk", "git root to cwd, each directory .kimi-code/AGENTS.md then AGENTS.md; not above the root, not below cwd",
      files(("{tree}/repo/AGENTS.md", "root"), ("{tree}/repo/a/.kimi-code/AGENTS.md", "a kimi-code"),
            ("{tree}/repo/a/AGENTS.md", "a"), ("{tree}/repo/a/b/agents.md", "b lower"),
            ("{tree}/repo/a/b/c/.kimi-code/AGENTS.md", "c kimi-code")),
      tree={"AGENTS.md": "above git root\n", "repo/AGENTS.md": "root\n", "repo/a/.kimi-code/AGENTS.md": "a kimi-code\n",
            "repo/a/AGENTS.md": "a\n", "repo/a/b/agents.md": "b lower\n", "repo/a/b/c/.kimi-code/AGENTS.md": "c kimi-code\n",
            "repo/a/b/c/d/AGENTS.md": "below cwd\n", "repo/x/AGENTS.md": "sibling\n"},
      git="repo", cwd="repo/a/b/c"),
    F("project_below_cwd", "cwd the root: files in subdirectories are not read at start",
      files(("{tree}/AGENTS.md", "root")),
      tree={"AGENTS.md": "root\n", "pkg/AGENTS.md": "pkg\n", "pkg/.kimi-code/AGENTS.md": "pkg kimi\n"}),
    F("project_no_git", "no repository: the start directory alone",
      files(("{tree}/a/b/AGENTS.md", "b")),
      tree={"AGENTS.md": "top\n", "a/AGENTS.md": "a\n", "a/b/AGENTS.md": "b\n"},
      git=None, cwd="a/b"),
    F("project_git_file", "a .git file `gitdir: <path>` marks the root (the path need not exist)",
      files(("{tree}/AGENTS.md", "root"), ("{tree}/a/AGENTS.md", "a")),
      tree={"AGENTS.md": "root\n", "a/AGENTS.md": "a\n"},
      git=("file", ".", "gitdir: /nonexistent/worktrees/x\n"), cwd="a"),
    F("project_git_file_bad", "a .git file without `gitdir:` does not mark a root",
      files(("{tree}/a/AGENTS.md", "a")),
      tree={"AGENTS.md": "root\n", "a/AGENTS.md": "a\n"},
      git=("file", ".", "not a pointer\n"), cwd="a"),
    F("project_git_empty_dir", "an empty .git directory marks the root",
      files(("{tree}/AGENTS.md", "root"), ("{tree}/a/AGENTS.md", "a")),
      tree={"AGENTS.md": "root\n", "a/AGENTS.md": "a\n", ".git/": Dir()},
      git=None, cwd="a"),
    F("project_nested_git", "a nested repository: its root is where the walk starts",
      files(("{tree}/pkg/AGENTS.md", "pkg"), ("{tree}/pkg/sub/AGENTS.md", "sub")),
      tree={"AGENTS.md": "outer\n", "pkg/AGENTS.md": "pkg\n", "pkg/sub/AGENTS.md": "sub\n"},
      git=[".", "pkg"], cwd="pkg/sub"),
    F("project_add_dir", "--add-dir: its AGENTS.md is not loaded",
      files(("{tree}/AGENTS.md", "root")),
      tree={"AGENTS.md": "root\n"}, outside={"extra/AGENTS.md": "extra dir\n"},
      args=("--add-dir", "{base}/extra")),
    F("order_user_project", "user files before project files",
      files(("{home}/.kimi-code/AGENTS.md", "u1"), ("{home}/.agents/agents.md", "u2"),
            ("{tree}/.kimi-code/AGENTS.md", "p1"), ("{tree}/AGENTS.md", "p2"), ("{tree}/pkg/agents.md", "p3")),
      home={".kimi-code/AGENTS.md": "u1\n", ".agents/agents.md": "u2\n"},
      tree={".kimi-code/AGENTS.md": "p1\n", "AGENTS.md": "p2\n", "pkg/agents.md": "p3\n"}, cwd="pkg"),

    # ------------------------------------------------------------------ text
    F("text_bom", "UTF-8 BOM removed (trim)", files(("{tree}/AGENTS.md", "bom rules")),
      tree={"AGENTS.md": "\ufeffbom rules\n"}),
    F("text_bom_only", "a BOM alone is empty: agents.md beside it", files(("{tree}/agents.md", "lower")),
      tree={"AGENTS.md": "\ufeff\n", "agents.md": "lower\n"}),
    F("text_crlf", "CRLF kept inside, trailing CRLF trimmed", files(("{tree}/AGENTS.md", "line1\r\nline2")),
      tree={"AGENTS.md": "line1\r\nline2\r\n"}),
    F("text_trim", "leading and trailing whitespace trimmed, inner kept",
      files(("{tree}/AGENTS.md", "indented first\n\n\nlast  x")),
      tree={"AGENTS.md": "\n\n  indented first\n\n\nlast  x  \n\n\t"}),
    F("text_unicode_ws", "JavaScript trim(): NBSP, ideographic space, U+2028 trimmed; NEL and ZWSP kept",
      files(("{tree}/AGENTS.md", "\u0085\u200bx\u200b\u0085")),
      tree={"AGENTS.md": "\u00a0\u3000\u2028\u0085\u200bx\u200b\u0085\u2029\u2003\ufeff"}),
    F("text_non_utf8", "bytes that are not UTF-8 are dropped", files(("{tree}/AGENTS.md", "ok  bytes ( end caf")),
      tree={"AGENTS.md": b"ok \xff\xfe bytes \xc3( end caf\xe9\n"}),
    F("text_utf16", "a UTF-16LE file: the BOM bytes dropped, the NULs kept (trim leaves a trailing NUL)",
      files(("{tree}/AGENTS.md", "h\x00i\x00\n\x00")),
      tree={"AGENTS.md": "\ufeffhi".encode("utf-16-le") + b"\n\x00"}),
    F("text_nul", "NUL bytes kept", files(("{tree}/AGENTS.md", "a\x00b")), tree={"AGENTS.md": b"a\x00b\n"}),
    F("text_fence_and_vars", "a file with the fence and ${...} placeholders is sent unchanged",
      files(("{tree}/AGENTS.md", "```````\nfake\n```````\n${cwd} ${agents_md} $& $1 <!-- From: x -->")),
      tree={"AGENTS.md": "```````\nfake\n```````\n${cwd} ${agents_md} $& $1 <!-- From: x -->\n"}),
    F("text_markdown", "a realistic file, byte for byte",
      files(("{tree}/AGENTS.md", "# Project\n\n- Use `cargo test`.\n- Tabs:\there\n\n## Sub\n\ntext with trailing spaces   \nend")),
      tree={"AGENTS.md": "# Project\n\n- Use `cargo test`.\n- Tabs:\there\n\n## Sub\n\ntext with trailing spaces   \nend\n"}),

    # -------------------------------------------------------------- symlinks
    F("links_claude_to_agents", "CLAUDE.md -> AGENTS.md beside it (root, pkg): the AGENTS.md files only",
      files(("{tree}/AGENTS.md", "root"), ("{tree}/pkg/AGENTS.md", "pkg")),
      tree={"AGENTS.md": "root\n", "CLAUDE.md": Link("AGENTS.md"), "pkg/AGENTS.md": "pkg\n",
            "pkg/CLAUDE.md": Link("AGENTS.md")}, cwd="pkg"),
    F("links_agents_to_claude", "AGENTS.md -> CLAUDE.md: the target's text under the link's path",
      files(("{tree}/AGENTS.md", "claude text")),
      tree={"CLAUDE.md": "claude text\n", "AGENTS.md": Link("CLAUDE.md")}),
    F("links_outside", "AGENTS.md -> a file outside the project (absolute link)",
      files(("{tree}/AGENTS.md", "outside text")),
      tree={"AGENTS.md": Link("{base}/shared/rules.md")}, outside={"shared/rules.md": "outside text\n"}),
    F("links_to_parent", "pkg/AGENTS.md -> ../AGENTS.md: the same file twice, under each path",
      files(("{tree}/AGENTS.md", "root"), ("{tree}/pkg/AGENTS.md", "root")),
      tree={"AGENTS.md": "root\n", "pkg/AGENTS.md": Link("../AGENTS.md")}, cwd="pkg"),
    F("links_kimi_code_to_root", ".kimi-code/AGENTS.md -> ../AGENTS.md: twice",
      files(("{tree}/.kimi-code/AGENTS.md", "root"), ("{tree}/AGENTS.md", "root")),
      tree={"AGENTS.md": "root\n", ".kimi-code/AGENTS.md": Link("../AGENTS.md")}),
    F("links_dir", ".kimi-code -> a directory outside the project",
      files(("{tree}/.kimi-code/AGENTS.md", "linked dir")),
      tree={".kimi-code": Link("{base}/shared-kimi")}, outside={"shared-kimi/AGENTS.md": "linked dir\n"}),
    F("links_cwd_via_link", "start directory reached through a linked directory: real paths",
      files(("{tree}/AGENTS.md", "root"), ("{tree}/real/AGENTS.md", "real")),
      tree={"AGENTS.md": "root\n", "real/AGENTS.md": "real\n", "alias": Link("real")}, cwd="alias"),
    F("links_dangling", "dangling AGENTS.md: agents.md beside it is read",
      files(("{tree}/agents.md", "lower")),
      tree={"AGENTS.md": Link("missing.md"), "agents.md": "lower\n"}),
    F("links_dangling_alone", "dangling AGENTS.md alone: skipped, the rest loads",
      files(("{tree}/.kimi-code/AGENTS.md", "kimi")),
      tree={"AGENTS.md": Link("missing.md"), ".kimi-code/AGENTS.md": "kimi\n"}),
    F("links_loop", "AGENTS.md in a link loop: agents.md beside it is read",
      files(("{tree}/agents.md", "lower")),
      tree={"AGENTS.md": Link("loop.md"), "loop.md": Link("AGENTS.md"), "agents.md": "lower\n"}),
    F("links_loop_kimi_code", ".kimi-code/AGENTS.md in a loop: skipped",
      files(("{tree}/AGENTS.md", "root")),
      tree={".kimi-code/AGENTS.md": Link("AGENTS.md"), "AGENTS.md": "root\n"}),
    F("links_to_directory", "AGENTS.md a directory: agents.md beside it is read",
      files(("{tree}/agents.md", "lower")),
      tree={"AGENTS.md/": Dir(), "agents.md": "lower\n"}),
    F("links_user", "~/.kimi-code/AGENTS.md -> ~/dotfiles/agents.md",
      files(("{home}/.kimi-code/AGENTS.md", "dotfile")),
      home={".kimi-code/AGENTS.md": Link("{home}/dotfiles/agents.md"), "dotfiles/agents.md": "dotfile\n"}),
    F("unreadable", "AGENTS.md mode 000 (run without DAC override): agents.md beside it is read",
      files(("{tree}/agents.md", "lower"), ("{tree}/pkg/AGENTS.md", "pkg")),
      tree={"AGENTS.md": Mode("secret\n", 0o000), "agents.md": "lower\n", "pkg/AGENTS.md": "pkg\n"},
      cwd="pkg", wrap=DAC_AS_USER),
    F("unreadable_kimi_code", ".kimi-code/AGENTS.md mode 000: skipped",
      files(("{tree}/AGENTS.md", "root")),
      tree={".kimi-code/AGENTS.md": Mode("secret\n", 0o000), "AGENTS.md": "root\n"}, wrap=DAC_AS_USER),
    F("unreadable_dir", "a directory on the walk mode 111 (search, no read): its files still read by name",
      files(("{tree}/AGENTS.md", "root"), ("{tree}/locked/AGENTS.md", "locked"), ("{tree}/locked/sub/AGENTS.md", "sub")),
      tree={"AGENTS.md": "root\n", "locked/AGENTS.md": "locked\n", "locked/sub/AGENTS.md": "sub\n"},
      wrap=DAC_AS_USER, cwd="locked/sub"),
]


def expand(s: str, ctx: dict) -> str:
    return s.replace("{tree}", ctx["tree"]).replace("{home}", ctx["home"]).replace("{base}", ctx["base"])


def expected_text(fx, ctx) -> str | None:
    exp = fx["expect"]
    if exp is None:
        return None
    if isinstance(exp, str):
        return expand(exp, ctx)
    return "\n\n".join(f"<!-- From: {expand(p, ctx)} -->\n{t}" for p, t in exp)


def lay_out(root: str, spec: dict, ctx: dict):
    modes = []
    for rel, data in spec.items():
        path = os.path.join(root, rel.rstrip("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if isinstance(data, Link):
            os.symlink(expand(data.target, ctx), path)
        elif isinstance(data, Dir):
            os.makedirs(path, exist_ok=True)
        elif isinstance(data, Mode):
            harness.write(path, data.data)
            modes.append((path, data.mode))
        else:
            harness.write(path, data)
    return modes


def setup(fx, base: str) -> dict:
    harness.remove(base)
    ctx = {"base": base, "tree": os.path.join(base, "tree"), "home": os.path.join(base, "home")}
    os.makedirs(ctx["tree"])
    os.makedirs(ctx["home"])
    git = fx["git"]
    if isinstance(git, tuple) and git[0] == "file":
        harness.write(os.path.join(ctx["tree"], git[1], ".git"), git[2])
    elif git is not None:
        for d in [git] if isinstance(git, str) else git:
            os.makedirs(os.path.join(ctx["tree"], d), exist_ok=True)
            subprocess.run(["git", "init", "-q", os.path.join(ctx["tree"], d)], check=True)
    modes = lay_out(ctx["tree"], fx["tree"], ctx) + lay_out(ctx["home"], fx["home"], ctx) \
        + lay_out(base, fx["outside"], ctx)
    if fx["name"] == "unreadable_dir":
        modes.append((os.path.join(ctx["tree"], "locked"), 0o111))
    for path, mode in modes:
        os.chmod(path, mode)
    return ctx


def sha(text: str | None) -> str:
    return hashlib.sha256(kimi.to_bytes(text)).hexdigest()


def run_fixture(fx, work: str, tally: harness.Tally, results: dict, texts: str | None):
    base = os.path.join(work, fx["name"])
    ctx = setup(fx, base)
    env = {k: expand(v, ctx) for k, v in fx["env"].items()}
    raw = os.path.join(base, "raw")
    try:
        recs = kimi.run(ctx["tree"], os.path.join(ctx["tree"], fx["cwd"]), ctx["home"], env=env, keep=raw,
                        wrap=fx["wrap"], extra_args=[expand(a, ctx) for a in fx["args"]])
        got = kimi.extract(recs)
    except kimi.KimiError as e:
        tally.check(f"files {fx['name']}: run", False, str(e))
        results[fx["name"]] = {"error": str(e)}
        return
    want = expected_text(fx, ctx)
    generic = lambda s: None if s is None else s.replace(ctx["tree"], "<tree>").replace(ctx["home"], "<home>") \
        .replace(ctx["base"], "<base>")
    out = (open(os.path.join(raw, "stdout.txt"), "rb").read() + open(os.path.join(raw, "stderr.txt"), "rb").read()) \
        .decode("utf-8", "replace")
    warnings = [line for line in out.splitlines() if "Instruction file" in line or "AGENTS.md total" in line]
    results[fx["name"]] = {"intent": fx["intent"], "text": generic(got), "sha256": sha(got),
                           "bytes": len(kimi.to_bytes(got)), "expected": generic(want), "warnings": warnings}
    if texts:
        with open(os.path.join(texts, fx["name"] + ".kimi.txt"), "wb") as f:
            f.write(kimi.to_bytes(got))
    tally.check(f"files {fx['name']}: {fx['intent']}", got == want,
                f"want {want!r}\ngot  {got!r}")


# ------------------------------------------------------------------ caps
def part_caps(work: str, tally, results):
    """One AGENTS.md of N bytes (a marker every 100 bytes), and several files
    that together pass 32 KiB: whole or cut?"""
    out = {}
    for size in (32768, 32769, 100000, 400000, 1000000, 4000000):
        fx = F(f"cap_{size}", f"one {size}-byte AGENTS.md", None, tree={"AGENTS.md": marked(size)})
        base = os.path.join(work, fx["name"])
        ctx = setup(fx, base)
        t0 = time.monotonic()
        try:
            recs = kimi.run(ctx["tree"], ctx["tree"], ctx["home"], keep=os.path.join(base, "raw"), timeout=180,
                            check=False)
            got = kimi.extract(recs) if harness.requests(recs, "chat/completions", main=True) else None
        except kimi.KimiError as e:
            got, recs = None, []
            out[size] = {"error": str(e)}
        whole = got == f"<!-- From: {ctx['tree']}/AGENTS.md -->\n" + marked(size).strip()
        meta = json.load(open(os.path.join(base, "raw", "meta.json")))
        stdout = open(os.path.join(base, "raw", "stdout.txt"), "rb").read().decode("utf-8", "replace")
        stderr = open(os.path.join(base, "raw", "stderr.txt"), "rb").read().decode("utf-8", "replace")
        out[size] = {"whole": whole, "received_bytes": len(kimi.to_bytes(got)), "rc": meta.get("rc"),
                     "requests": len(harness.requests(recs, "chat/completions")),
                     "seconds": round(time.monotonic() - t0, 1), "stdout_tail": stdout[-600:],
                     "stderr_tail": stderr[-600:],
                     "last_marker": last_marker(got)}
        tally.check(f"caps {size} bytes: sent whole", whole, json.dumps(out[size], indent=1)[:1500])
    # Several files over 32 KiB in total.
    fx = F("cap_total", "five 10,000-byte files (50 KB in all)", None,
           tree={"AGENTS.md": marked(10000, "R"), "a/AGENTS.md": marked(10000, "A"),
                 "a/.kimi-code/AGENTS.md": marked(10000, "K"), "a/b/AGENTS.md": marked(10000, "B")},
           home={".kimi-code/AGENTS.md": marked(10000, "U")}, cwd="a/b")
    base = os.path.join(work, fx["name"])
    ctx = setup(fx, base)
    recs = kimi.run(ctx["tree"], os.path.join(ctx["tree"], "a/b"), ctx["home"], keep=os.path.join(base, "raw"))
    got = kimi.extract(recs)
    want = "\n\n".join(f"<!-- From: {p} -->\n{marked(10000, t).strip()}" for p, t in (
        (f"{ctx['home']}/.kimi-code/AGENTS.md", "U"), (f"{ctx['tree']}/AGENTS.md", "R"),
        (f"{ctx['tree']}/a/.kimi-code/AGENTS.md", "K"), (f"{ctx['tree']}/a/AGENTS.md", "A"),
        (f"{ctx['tree']}/a/b/AGENTS.md", "B")))
    stdout = open(os.path.join(base, "raw", "stdout.txt"), "rb").read().decode("utf-8", "replace")
    out["total_50k"] = {"whole": got == want, "bytes": len(kimi.to_bytes(got)), "stdout": stdout[-800:]}
    tally.check("caps five 10,000-byte files: all whole", got == want, f"got {len(got or '')} chars")
    results["caps"] = out


def marked(size: int, tag: str = "M") -> str:
    """SIZE bytes of ASCII: `[TAG:0000000]....` a marker every 100 bytes,
    a newline ending each 100-byte block."""
    parts, i = [], 0
    while len(parts) * 100 < size:
        head = "[%s:%07d]" % (tag, i * 100)
        parts.append(head + "." * (99 - len(head)) + "\n")
        i += 1
    return "".join(parts)[:size]


def last_marker(text):
    if not text:
        return None
    i = text.rfind("[M:")
    return text[i:i + 12] if i != -1 else None


# ------------------------------------------------------------- reminders
def part_reminders(work: str, tally, results, only=None):
    out = {}
    tree_spec = {"AGENTS.md": "root\n", "pkg/AGENTS.md": "pkg rules\n", "pkg/file.txt": "pkg file\n",
                 "pkg/sub/AGENTS.md": "sub rules\n", "pkg/sub/file.txt": "sub file\n",
                 "lib/.kimi-code/AGENTS.md": "lib kimi\n", "lib/x.txt": "x\n", "docs/agents.md": "docs\n",
                 "docs/d.txt": "d\n", "plain/p.txt": "p\n"}
    cases = {
        "read_nested": [{"tool": {"name": "Read", "arguments": {"path": "pkg/sub/file.txt"}}}],
        "read_kimi_code": [{"tool": {"name": "Read", "arguments": {"path": "lib/x.txt"}}}],
        "read_lower": [{"tool": {"name": "Read", "arguments": {"path": "docs/d.txt"}}}],
        "read_plain": [{"tool": {"name": "Read", "arguments": {"path": "plain/p.txt"}}}],
        "read_agents_itself": [{"tool": {"name": "Read", "arguments": {"path": "pkg/AGENTS.md"}}}],
        "read_twice": [{"tool": {"name": "Read", "arguments": {"path": "pkg/file.txt"}}},
                       {"tool": {"name": "Read", "arguments": {"path": "pkg/file.txt"}}}],
        "glob": [{"tool": {"name": "Glob", "arguments": {"pattern": "*.txt", "path": "pkg"}}}],
        "grep": [{"tool": {"name": "Grep", "arguments": {"pattern": "file", "path": "pkg"}}}],
        "bash_cat": [{"tool": {"name": "Bash", "arguments": {"command": "cat pkg/sub/file.txt"}}}],
        "bash_cd": [{"tool": {"name": "Bash", "arguments": {"command": "cd pkg && ls"}}}],
        "write_new": [{"tool": {"name": "Write", "arguments": {"path": "pkg/new.txt", "content": "new\n"}}}],
        "edit_root_agents": [{"tool": {"name": "Edit", "arguments": {"path": "AGENTS.md", "old_string": "root",
                                                                      "new_string": "root changed"}}}],
        "bash_edit_root_agents": [{"tool": {"name": "Bash", "arguments": {"command": "echo more >> AGENTS.md"}}}],
        "edit_root_agents_wait": [{"tool": {"name": "Edit", "arguments": {"path": "AGENTS.md", "old_string": "root",
                                                                           "new_string": "root changed"}}},
                                  {"tool": {"name": "Bash", "arguments": {"command": "sleep 3"}}},
                                  {"tool": {"name": "Bash", "arguments": {"command": "rm pkg/AGENTS.md; sleep 3"}}}],
        "read_then_create_nested": [{"tool": {"name": "Read", "arguments": {"path": "plain/p.txt"}}},
                                    {"tool": {"name": "Write", "arguments": {"path": "plain/AGENTS.md",
                                                                             "content": "new rules\n"}}},
                                    {"tool": {"name": "Read", "arguments": {"path": "plain/p.txt"}}}],
    }
    for name, turns in cases.items():
        if only and name not in only:
            continue
        fx = F(f"rem_{name}", name, None, tree=tree_spec)
        base = os.path.join(work, fx["name"])
        ctx = setup(fx, base)
        try:
            recs = kimi.run(ctx["tree"], ctx["tree"], ctx["home"], script=turns + [{"text": "done"}],
                            keep=os.path.join(base, "raw"))
        except kimi.KimiError as e:
            out[name] = {"error": str(e)}
            tally.check(f"reminders {name}: run", False, str(e))
            continue
        reqs = kimi.main_requests(recs)
        first = reqs[0]["body"]["messages"]
        added = []
        for i, r in enumerate(reqs[1:], 1):
            msgs = r["body"]["messages"]
            prev = reqs[i - 1]["body"]["messages"]
            new = msgs[len(prev):]
            for m in new:
                if m["role"] == "assistant":
                    continue
                text = m.get("content") if isinstance(m.get("content"), str) else json.dumps(m.get("content"))
                added.append({"request": i + 1, "role": m["role"],
                              "text": text.replace(ctx["tree"], "<tree>")[:1500]})
        # The system prompt: does it change later?
        systems = {harness.system_text(r) for r in reqs}
        out[name] = {"added": added, "system_prompts": len(systems), "requests": len(reqs),
                     "first_messages": len(first)}
    results["reminders"] = out


# ------------------------------------------------------------------ hooks
HOOK = r'''
import json, os, sys, time
cfg = json.loads(sys.argv[1])
raw = sys.stdin.buffer.read().decode("utf-8", "replace")
with open(cfg["log"], "a", encoding="utf-8") as f:
    f.write(json.dumps({"time": time.time(), "id": cfg["id"], "cwd": os.getcwd(),
                        "env": {k: v for k, v in os.environ.items() if k.startswith(("KIMI", "CLAUDE"))
                                and "KEY" not in k},
                        "stdin": raw}, ensure_ascii=False) + "\n")
if cfg.get("sleep"):
    time.sleep(cfg["sleep"])
    with open(cfg["log"], "a", encoding="utf-8") as f:
        f.write(json.dumps({"time": time.time(), "id": cfg["id"] + ":end", "cwd": os.getcwd(), "env": {},
                            "stdin": ""}) + "\n")
text = cfg.get("text")
if text is None and cfg.get("size"):
    tag, size = cfg["tag"], cfg["size"]
    parts, i = [], 0
    while len(parts) * 100 < size:
        head = "[%s:%07d]" % (tag, i * 100)
        parts.append(head + "." * (100 - len(head)))
        i += 1
    end = "[END:%s]" % tag
    text = "".join(parts)[:size - len(end)] + end
form = cfg.get("form", "plain")
if text is not None:
    if form == "plain":
        out = text
    elif form == "hso":
        out = json.dumps({"hookSpecificOutput": {"hookEventName": cfg["event"], "additionalContext": text}})
    elif form == "ac":
        out = json.dumps({"additionalContext": text})
    elif form == "msg":
        out = json.dumps({"message": text})
    elif form == "hso_msg":
        out = json.dumps({"hookSpecificOutput": {"hookEventName": cfg["event"], "message": text}})
    elif form == "deny":
        out = json.dumps({"hookSpecificOutput": {"hookEventName": cfg["event"], "permissionDecision": "deny",
                                                  "permissionDecisionReason": text}})
    elif form == "block":
        out = json.dumps({"decision": "block", "reason": text})
    else:
        out = text
    sys.stdout.write(cfg.get("lead", "") + out + cfg.get("trail", "\n"))
if cfg.get("stderr"):
    sys.stderr.write(cfg["stderr"])
sys.exit(cfg.get("exit", 0))
'''


def toml_str(s: str) -> str:
    return json.dumps(s)


def hook_setup(name: str, work: str, hooks: list, tree_extra=None, config_extra: str = "",
               project_config: str | None = None, hooks_in_project=False, trusted=False):
    """A tree and HOME with [[hooks]] HOOKS (dicts: event, matcher, timeout,
    and the hook's own cfg) in ~/.kimi-code/config.toml."""
    base = os.path.join(work, name)
    harness.remove(base)
    tree, home = os.path.join(base, "tree"), os.path.join(base, "home")
    os.makedirs(home)
    subprocess.run(["git", "init", "-q", tree], check=True)
    harness.write_tree(tree, {"edit.txt": "before edit\n", "read.txt": "a file to read\n", **(tree_extra or {})})
    hook = harness.write(os.path.join(base, "hook.py"), HOOK)
    log = os.path.join(base, "hook.log")
    lines = []
    for i, h in enumerate(hooks):
        cfg = dict(h.get("cfg", {}), log=log, id=h.get("id", f"h{i}"), event=h["event"])
        command = f"python3 {hook} " + shlex_quote(json.dumps(cfg))
        entry = [f"[[hooks]]", f"event = {toml_str(h['event'])}", f"command = {toml_str(command)}"]
        if "matcher" in h:
            entry.append(f"matcher = {toml_str(h['matcher'])}")
        if "timeout" in h:
            entry.append(f"timeout = {h['timeout']}")
        for k, v in h.get("extra", {}).items():
            entry.append(f"{k} = {v}")
        lines.append("\n".join(entry))
    text = config_extra + "\n" + "\n\n".join(lines) + "\n"
    if hooks_in_project:
        harness.write(os.path.join(tree, ".kimi-code", "config.toml"), text)
        harness.write(os.path.join(home, ".kimi-code", "config.toml"), "")
    else:
        harness.write(os.path.join(home, ".kimi-code", "config.toml"), text)
    if trusted:
        kimi.trust(os.path.join(home, ".kimi-code"), tree)
    if project_config is not None:
        harness.write(os.path.join(tree, ".kimi-code", "config.toml"), project_config)
    return {"base": base, "tree": tree, "home": home, "log": log}


def shlex_quote(s: str) -> str:
    return "'" + s.replace("'", "'\"'\"'") + "'"


def hook_log(ctx) -> list:
    if not os.path.exists(ctx["log"]):
        return []
    out = []
    for line in open(ctx["log"], encoding="utf-8"):
        rec = json.loads(line)
        rec["payload"] = harness.parse_json(rec["stdin"], rec["stdin"])
        out.append(rec)
    return out


TOOLS = [{"tool": {"name": "Read", "arguments": {"path": "read.txt"}}},
         {"tool": {"name": "Edit", "arguments": {"path": "edit.txt", "old_string": "before edit",
                                                 "new_string": "after edit"}}},
         {"tool": {"name": "Bash", "arguments": {"command": "echo ran > ran.txt && cat edit.txt"}}},
         {"tool": {"name": "Read", "arguments": {"path": "missing.txt"}}},
         {"text": "done"}]


def where(recs, needle: str, ctx) -> list:
    """Each (request number, message index, role, text around) where NEEDLE occurs."""
    found = []
    for n, r in enumerate(harness.requests(recs, "chat/completions"), 1):
        for i, m in enumerate(r["body"].get("messages") or []):
            for text in harness.text_items(m.get("content")):
                j = text.find(needle)
                if j != -1:
                    found.append({"request": n, "message": i, "role": m["role"],
                                  "text": text.replace(ctx["tree"], "<tree>")[:400]})
    return found


def run_hooks(ctx, script, check=True, timeout=120, prompt=kimi.PROMPT):
    raw = os.path.join(ctx["base"], "raw")
    t0 = time.monotonic()
    recs = kimi.run(ctx["tree"], ctx["tree"], ctx["home"], prompt=prompt, script=script, keep=raw, check=check,
                    timeout=timeout)
    dur = round(time.monotonic() - t0, 2)
    meta = json.load(open(os.path.join(raw, "meta.json")))
    out = open(os.path.join(raw, "stdout.txt"), "rb").read().decode("utf-8", "replace")
    err = open(os.path.join(raw, "stderr.txt"), "rb").read().decode("utf-8", "replace")
    return recs, {"rc": meta.get("rc"), "seconds": dur, "stdout": out[-1500:], "stderr": err[-1500:]}


def first_prompt_messages(recs, ctx):
    reqs = harness.requests(recs, "chat/completions", main=True)
    if not reqs:
        return None
    return [{"role": m["role"], "text": "".join(harness.text_items(m.get("content"))).replace(ctx["tree"], "<tree>")[:600]}
            for m in reqs[0]["body"]["messages"][1:]]


def part_hooks(work: str, tally, results, only=None):
    out = results.setdefault("hooks", {})
    want = lambda name: not only or name in only
    events = ["SessionStart", "UserPromptSubmit", "TurnStarted", "PreToolUse", "PostToolUse", "PostToolUseFailure",
              "Stop", "SessionEnd", "PermissionRequest", "PermissionResult", "Notification", "PreCompact",
              "UserPromptQueued", "StopFailure", "Interrupt", "SubagentStart", "SubagentStop", "TaskStarted",
              "PostCompact", "SessionHeartbeat"]
    # 1. Every event with plain, hookSpecificOutput.additionalContext, {"additionalContext"} and {"message"}.
    hooks = []
    for ev in events if want("events") else ():
        for form in ("plain", "hso", "ac", "msg", "hso_msg"):
            tag = f"[{ev}-{form}]"
            hooks.append({"event": ev, "id": f"{ev}:{form}", "cfg": {"form": form, "text": f"{tag} context"}})
    if want("events"):
        _hooks_events(work, tally, out, events, hooks)
    if want("caps"):
        _hooks_caps(work, tally, out)
    if want("chars"):
        _hooks_chars(work, tally, out)
    _hooks_codes(work, tally, out, want)
    _hooks_config(work, tally, out, want)


def _hooks_events(work, tally, out, events, hooks):
    ctx = hook_setup("hooks_events", work, hooks)
    recs, info = run_hooks(ctx, TOOLS)
    log = hook_log(ctx)
    ran = {}
    for rec in log:
        ev = rec["id"].split(":")[0]
        ran.setdefault(ev, rec)
    reach = {}
    for ev in events:
        for form in ("plain", "hso", "ac", "msg", "hso_msg"):
            w = where(recs, f"[{ev}-{form}]", ctx)
            if w:
                reach[f"{ev}:{form}"] = w
    payloads = {ev: {"cwd": rec["cwd"].replace(ctx["tree"], "<tree>"), "env": rec["env"],
                     "payload": _generic(rec["payload"], ctx)} for ev, rec in ran.items()}
    order = []
    for rec in log:
        ev = rec["id"].split(":")[0]
        p = rec["payload"] if isinstance(rec["payload"], dict) else {}
        label = ev + (f"({p.get('tool_name')})" if p.get("tool_name") else "")
        if not order or order[-1] != label:
            order.append(label)
    out["events"] = {"ran": sorted(ran), "not_ran": [e for e in events if e not in ran], "reach": reach,
                     "payloads": payloads, "order": order, "info": info,
                     "first_request": first_prompt_messages(recs, ctx)}
    tally.check("hooks events: UserPromptSubmit plain stdout reaches the model",
                "UserPromptSubmit:plain" in reach, json.dumps(reach, indent=1)[:2000])


def _hooks_caps(work, tally, out):
    # 2. Sizes (UserPromptSubmit, plain and hso), whitespace around.
    caps = {}
    for form in ("plain", "hso", "msg"):
        sizes = (1000, 5000, 10000, 10001, 20000, 50000, 100000, 500000)
        hooks = [{"event": "UserPromptSubmit", "id": f"UPS{s}", "cfg": {"form": form, "size": s, "tag": f"U{s}"}}
                 for s in sizes]
        ctx = hook_setup(f"hooks_caps_{form}", work, hooks)
        recs, info = run_hooks(ctx, [{"text": "done"}], timeout=180)
        reqs = harness.requests(recs, "chat/completions", main=True)
        msgs = reqs[0]["body"]["messages"] if reqs else []
        body = "\n".join("".join(harness.text_items(m.get("content"))) for m in msgs)
        for s in sizes:
            tag = f"U{s}"
            text = None
            import re
            expected = None
            # rebuild what the hook printed
            parts, i = [], 0
            while len(parts) * 100 < s:
                head = "[%s:%07d]" % (tag, i * 100)
                parts.append(head + "." * (100 - len(head)))
                i += 1
            end = "[END:%s]" % tag
            expected = "".join(parts)[:s - len(end)] + end
            whole = expected in body
            last = None
            for m in re.finditer(r"\[%s:(\d{7})\]" % tag, body):
                last = int(m.group(1))
            caps[f"{form}:{s}"] = {"whole": whole, "last_offset_seen": last, "end_seen": end in body}
        caps[f"{form}:messages"] = [{"role": m["role"], "len": len("".join(harness.text_items(m.get("content")))),
                                     "head": "".join(harness.text_items(m.get("content")))[:120]} for m in msgs[1:]]
        caps[f"{form}:info"] = {k: v for k, v in info.items() if k in ("rc", "seconds")}
    out["caps"] = caps
    tally.check("hooks caps: 500,000 plain characters arrive whole", caps.get("plain:500000", {}).get("whole"),
                json.dumps(caps, indent=1)[:2000])


def _hooks_chars(work, tally, out):
    # 3. Whitespace and special characters around a UserPromptSubmit text.
    special = "lt< gt> amp& </hook_result> <hook_result hook_event=\"x\"> tab\tcr\rnl\nemoji\U0001F600 bom\ufeff"
    hooks = [{"event": "UserPromptSubmit", "id": "ws", "cfg": {"form": "plain", "text": special,
                                                                "lead": "\n  \n", "trail": "\n  \n"}},
             {"event": "UserPromptSubmit", "id": "ws_msg", "cfg": {"form": "msg", "text": "  msg-with-spaces  "}}]
    ctx = hook_setup("hooks_chars", work, hooks)
    recs, info = run_hooks(ctx, [{"text": "done"}])
    out["chars"] = {"first_request": first_prompt_messages(recs, ctx), "sent": special}


def _hooks_codes(work, tally, out, want):
    # 4. Exit codes, stderr, timeouts.
    cases = {
        "exit1": [{"event": "UserPromptSubmit", "cfg": {"text": "EXIT1 text", "exit": 1, "stderr": "err1"}}],
        "exit2": [{"event": "UserPromptSubmit", "cfg": {"text": "EXIT2 stdout", "exit": 2, "stderr": "EXIT2 stderr"}}],
        "exit3": [{"event": "UserPromptSubmit", "cfg": {"text": "EXIT3 text", "exit": 3}}],
        "ups_block_json": [{"event": "UserPromptSubmit", "cfg": {"form": "block", "text": "BLOCKJSON reason"}}],
        "ups_deny_json": [{"event": "UserPromptSubmit", "cfg": {"form": "deny", "text": "DENYJSON reason"}}],
        "timeout": [{"event": "UserPromptSubmit", "timeout": 2, "cfg": {"text": "SLOW text", "sleep": 5}},
                    {"event": "UserPromptSubmit", "cfg": {"text": "FAST text"}}],
        "pre_exit2": [{"event": "PreToolUse", "matcher": "^Edit$",
                       "cfg": {"text": "PRE2 stdout", "exit": 2, "stderr": "PRE2 blocked by hook"}}],
        "pre_deny": [{"event": "PreToolUse", "matcher": "Edit",
                      "cfg": {"form": "deny", "text": "PREDENY reason"}}],
        "pre_exit1": [{"event": "PreToolUse", "matcher": "Edit", "cfg": {"text": "PRE1", "exit": 1, "stderr": "x"}}],
        "pre_timeout": [{"event": "PreToolUse", "matcher": "Edit", "timeout": 1, "cfg": {"sleep": 4, "text": "PRET"}}],
        "stop_exit2": [{"event": "Stop", "cfg": {"exit": 2, "stderr": "STOP2 continue please"}}],
        "session_start_exit2": [{"event": "SessionStart", "cfg": {"exit": 2, "stderr": "SS2 blocked"}}],
        "post_exit2": [{"event": "PostToolUse", "matcher": "Edit", "cfg": {"exit": 2, "stderr": "POST2 feedback"}}],
        "matchers": [{"event": "PreToolUse", "matcher": "^Read$", "id": "m_read", "cfg": {}},
                     {"event": "PreToolUse", "matcher": "Bash|Edit", "id": "m_bash_edit", "cfg": {}},
                     {"event": "PreToolUse", "matcher": "[", "id": "m_bad_regex", "cfg": {}},
                     {"event": "PreToolUse", "matcher": "read", "id": "m_lower", "cfg": {}},
                     {"event": "PreToolUse", "matcher": "", "id": "m_empty", "cfg": {}},
                     {"event": "PreToolUse", "matcher": "*", "id": "m_star", "cfg": {}},
                     {"event": "UserPromptSubmit", "matcher": "single word", "id": "m_prompt", "cfg": {}},
                     {"event": "UserPromptSubmit", "matcher": "^nomatch$", "id": "m_prompt_no", "cfg": {}},
                     {"event": "SessionStart", "matcher": "^startup$", "id": "m_ss", "cfg": {}},
                     {"event": "SessionStart", "matcher": "resume", "id": "m_ss_no", "cfg": {}}],
    }
    codes = out.setdefault("codes", {})
    for name, hooks in cases.items():
        if not want(name):
            continue
        ctx = hook_setup(f"hooks_{name}", work, hooks)
        script = TOOLS if name.startswith(("pre_", "post_", "matchers")) else [{"text": "done"}]
        try:
            recs, info = run_hooks(ctx, script, check=False)
        except kimi.KimiError as e:
            codes[name] = {"error": str(e)}
            continue
        log = hook_log(ctx)
        reqs = harness.requests(recs, "chat/completions", main=True)
        tail = []
        if reqs:
            last = reqs[-1]["body"]["messages"]
            tail = [{"role": m["role"], "text": "".join(harness.text_items(m.get("content"))).replace(
                ctx["tree"], "<tree>")[:500]} for m in last[1:] if m["role"] != "system"]
        edit_text = open(os.path.join(ctx["tree"], "edit.txt")).read()
        codes[name] = {"requests": len(reqs), "ran": [r["id"] for r in log], "info": info,
                       "messages_of_last_request": tail, "edit.txt": edit_text,
                       "durations": [round(r["time"], 2) for r in log]}



def _hooks_config(work, tally, out, want):
    # 5. Config shapes: fail_mode, an unknown event, project-level config, a trailing table.
    configs = {
        "fail_mode": dict(hooks=[{"event": "UserPromptSubmit", "cfg": {"text": "FAILMODE ctx"},
                                  "extra": {"fail_mode": '"open"'}}]),
        "unknown_event": dict(hooks=[{"event": "BeforeTool", "cfg": {"text": "UNKNOWN ctx"}},
                                     {"event": "UserPromptSubmit", "cfg": {"text": "KNOWN ctx"}}]),
        "timeout_zero": dict(hooks=[{"event": "UserPromptSubmit", "timeout": 0, "cfg": {"text": "T0 ctx"}}]),
        "timeout_601": dict(hooks=[{"event": "UserPromptSubmit", "timeout": 601, "cfg": {"text": "T601 ctx"}}]),
        "project_config": dict(hooks=[{"event": "UserPromptSubmit", "cfg": {"text": "PROJECT ctx"}}],
                               hooks_in_project=True),
        "duplicate_command": dict(hooks=[{"event": "UserPromptSubmit", "id": "dup", "cfg": {"text": "DUP ctx"}},
                                         {"event": "UserPromptSubmit", "id": "dup", "cfg": {"text": "DUP ctx"}}]),
        "project_config_trusted": dict(hooks=[{"event": "UserPromptSubmit", "cfg": {"text": "PROJECTT ctx"}}],
                                       hooks_in_project=True, trusted=True),
        "default_timeout": dict(hooks=[{"event": "UserPromptSubmit", "cfg": {"text": "SLOW33 ctx", "sleep": 33}},
                                       {"event": "UserPromptSubmit", "cfg": {"text": "FAST ctx"}}]),
        "two_hooks_order": dict(hooks=[{"event": "UserPromptSubmit", "id": "first",
                                        "cfg": {"text": "FIRST ctx", "sleep": 1.5}},
                                       {"event": "UserPromptSubmit", "id": "second", "cfg": {"text": "SECOND ctx"}}]),
    }
    cfgs = out.setdefault("config", {})
    for name, kw in configs.items():
        if not want(name):
            continue
        ctx = hook_setup(f"hooks_cfg_{name}", work, **kw)
        try:
            recs, info = run_hooks(ctx, [{"text": "done"}], check=False)
        except kimi.KimiError as e:
            cfgs[name] = {"error": str(e)}
            continue
        cfgs[name] = {"ran": [r["id"] for r in hook_log(ctx)], "info": info,
                      "times": [(r["id"], round(r["time"], 3)) for r in hook_log(ctx)],
                      "first_request": first_prompt_messages(recs, ctx)}


def _generic(value, ctx):
    text = json.dumps(value, ensure_ascii=False).replace(ctx["tree"], "<tree>").replace(ctx["home"], "<home>")
    return json.loads(text)


# -------------------------------------------------------------------- MCP
MCP_SERVER = r'''
import json, sys, os
name = sys.argv[1]
log = sys.argv[2]
with open(log, "a") as f:
    f.write(json.dumps({"server": name, "cwd": os.getcwd()}) + "\n")
for line in sys.stdin:
    try:
        msg = json.loads(line)
    except ValueError:
        continue
    if "id" not in msg:
        continue
    m = msg.get("method")
    if m == "initialize":
        res = {"protocolVersion": msg["params"].get("protocolVersion", "2024-11-05"),
               "capabilities": {"tools": {}}, "serverInfo": {"name": name, "version": "1"}}
    elif m == "tools/list":
        res = {"tools": [{"name": "probe_" + name, "description": "probe tool of " + name,
                          "inputSchema": {"type": "object", "properties": {}}}]}
    elif m == "tools/call":
        res = {"content": [{"type": "text", "text": "called " + name}]}
    else:
        res = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": res}) + "\n")
    sys.stdout.flush()
'''


def part_mcp(work: str, tally, results):
    base = os.path.join(work, "mcp")
    harness.remove(base)
    tree, home = os.path.join(base, "tree"), os.path.join(base, "home")
    os.makedirs(home)
    subprocess.run(["git", "init", "-q", tree], check=True)
    server = harness.write(os.path.join(base, "server.py"), MCP_SERVER)
    log = os.path.join(base, "mcp.log")

    def entry(name):
        return {"mcpServers": {name: {"command": "python3", "args": [server, name, log]}}}
    harness.write(os.path.join(home, ".kimi-code", "mcp.json"), json.dumps(entry("user")))
    harness.write(os.path.join(tree, ".mcp.json"), json.dumps(entry("rootjson")))
    harness.write(os.path.join(tree, ".kimi-code", "mcp.json"), json.dumps(entry("rootkimi")))
    harness.write(os.path.join(tree, "sub", ".kimi-code", "mcp.json"), json.dumps(entry("subkimi")))
    harness.write(os.path.join(tree, "sub", ".mcp.json"), json.dumps(entry("subjson")))
    harness.write(os.path.join(tree, ".claude", "settings.json"), json.dumps(entry("claude")))
    harness.write(os.path.join(home, ".kimi-code", "config.toml"), "")
    out = {}
    trust_dir = os.path.join(home, ".kimi-code", "workspace-trust")
    for label, cwd, trusted in (("root", tree, ()), ("sub", os.path.join(tree, "sub"), ()),
                                ("root_trusted", tree, (tree,)),
                                ("sub_root_trusted", os.path.join(tree, "sub"), (tree,)),
                                ("sub_trusted", os.path.join(tree, "sub"), (os.path.join(tree, "sub"),))):
        if os.path.exists(log):
            os.unlink(log)
        shutil.rmtree(trust_dir, ignore_errors=True)
        for d in trusted:
            kimi.trust(os.path.join(home, ".kimi-code"), d)
        recs = kimi.run(tree, cwd, home, script=[{"text": "done"}], keep=os.path.join(base, "raw-" + label))
        req = kimi.main_requests(recs)[0]
        names = [t["function"]["name"] for t in req["body"]["tools"]]
        started = [json.loads(l) for l in open(log)] if os.path.exists(log) else []
        err = open(os.path.join(base, "raw-" + label, "stderr.txt"), "rb").read().decode("utf-8", "replace")
        out[label] = {"trusted": [d.replace(tree, "<tree>") for d in trusted],
                      "stderr": err.replace(tree, "<tree>").replace(base, "<base>")[-700:],
                      "mcp_tools": [n for n in names if "probe" in n or n.startswith("mcp")],
                      "started": [{"server": s["server"], "cwd": s["cwd"].replace(tree, "<tree>")} for s in started]}
    results["mcp"] = out


# ----------------------------------------------------------------- checks
REMINDERS = {  # case -> the AGENTS.md paths the reminder names (relative), in order; [] for none
    "read_nested": ["pkg/AGENTS.md", "pkg/sub/AGENTS.md"], "read_kimi_code": ["lib/.kimi-code/AGENTS.md"],
    "read_lower": ["docs/agents.md"], "read_plain": [], "read_agents_itself": [], "read_twice": ["pkg/AGENTS.md"],
    "glob": ["pkg/AGENTS.md"], "grep": ["pkg/AGENTS.md"], "bash_cat": [], "bash_cd": ["pkg/AGENTS.md"],
    "write_new": ["pkg/AGENTS.md"], "edit_root_agents": [], "bash_edit_root_agents": [],
    "edit_root_agents_wait": [], "read_then_create_nested": ["plain/AGENTS.md"],
}


def check_results(tally, results):
    """The facts KIMI-MEASURED.md states about reminders, hooks and MCP,
    checked on what this run recorded."""
    for name, v in (results.get("reminders") or {}).items():
        if "added" not in v:
            continue
        named = [line[len("- <tree>/"):] for a in v["added"] if a["role"] == "user"
                 for line in a["text"].splitlines() if line.startswith("- <tree>/")]
        tally.check(f"reminders {name}: names {REMINDERS.get(name)}", named == REMINDERS.get(name), f"got {named}")
        tally.check(f"reminders {name}: the system prompt never changes", v["system_prompts"] == 1)
    hooks = results.get("hooks") or {}
    ev = hooks.get("events")
    if ev:
        reached = sorted(ev["reach"])
        want = sorted(f"UserPromptSubmit:{f}" for f in ("plain", "hso", "ac", "msg", "hso_msg"))
        tally.check("hooks: only UserPromptSubmit output reaches the model (all five forms)", reached == want,
                    f"got {reached}")
        first = ev["first_request"][0]["text"] if ev["first_request"] else ""
        tally.check("hooks: the UserPromptSubmit message comes before the prompt",
                    first.startswith('<hook_result hook_event="UserPromptSubmit">\n[UserPromptSubmit-plain] context\n'
                                     '</hook_result>') and ev["first_request"][1]["text"] == kimi.PROMPT, first[:300])
        tally.check("hooks: additionalContext JSON arrives as raw JSON, `message` as its text",
                    '\n{"additionalContext": "[UserPromptSubmit-ac] context"}\n' in first
                    and "\n[UserPromptSubmit-msg] context\n" in first and "\n[UserPromptSubmit-hso_msg] context\n" in first,
                    first)
        ups = ev["payloads"].get("UserPromptSubmit", {}).get("payload", {})
        tally.check("hooks: UserPromptSubmit `prompt` is a list of parts",
                    ups.get("prompt") == [{"type": "text", "text": kimi.PROMPT}], json.dumps(ups))
        tally.check("hooks: event order", ev["order"] == [
            "SessionStart", "UserPromptSubmit", "TurnStarted", "PreToolUse(Read)", "PostToolUse(Read)",
            "PreToolUse(Edit)", "PostToolUse(Edit)", "PreToolUse(Bash)", "PostToolUse(Bash)", "PreToolUse(Read)",
            "PostToolUseFailure(Read)", "Stop"], ev["order"])
    caps = hooks.get("caps") or {}
    for key, v in caps.items():
        if isinstance(v, dict) and "whole" in v:
            tally.check(f"hooks caps {key}: whole", v["whole"], json.dumps(v))
    codes = hooks.get("codes") or {}

    def texts(name):
        return "\n".join(m["text"] for m in codes.get(name, {}).get("messages_of_last_request", []))
    expect = {
        "exit1": lambda c: c["requests"] == 1 and "EXIT1" not in texts("exit1"),
        "exit3": lambda c: c["requests"] == 1 and "EXIT3" not in texts("exit3"),
        "exit2": lambda c: c["requests"] == 0 and c["info"]["rc"] == 1 and "EXIT2 stderr" in c["info"]["stdout"],
        "ups_deny_json": lambda c: c["requests"] == 0 and c["info"]["rc"] == 1,
        "ups_block_json": lambda c: c["requests"] == 1 and '{"decision": "block"' in texts("ups_block_json"),
        "timeout": lambda c: "FAST text" in texts("timeout") and "SLOW" not in texts("timeout"),
        "pre_exit2": lambda c: c["edit.txt"] == "before edit\n" and
        "<system>ERROR: Tool execution failed.</system>\nPRE2 blocked by hook" in texts("pre_exit2"),
        "pre_deny": lambda c: c["edit.txt"] == "before edit\n" and
        "<system>ERROR: Tool execution failed.</system>\nPREDENY reason" in texts("pre_deny"),
        "pre_exit1": lambda c: c["edit.txt"] == "after edit\n",
        "pre_timeout": lambda c: c["edit.txt"] == "after edit\n",
        "post_exit2": lambda c: c["edit.txt"] == "after edit\n" and "POST2" not in texts("post_exit2"),
        "session_start_exit2": lambda c: c["requests"] == 1 and "SS2" not in texts("session_start_exit2"),
        "stop_exit2": lambda c: c["requests"] == 2 and "STOP2 continue please" in texts("stop_exit2"),
        "matchers": lambda c: sorted(set(c["ran"])) == ["m_bash_edit", "m_empty", "m_prompt", "m_read", "m_ss"]
        and c["ran"].count("m_read") == 2 and c["ran"].count("m_empty") == 4,
    }
    for name, c in codes.items():
        if name in expect and "error" not in c:
            tally.check(f"hooks {name}", expect[name](c), json.dumps(c, ensure_ascii=False)[:2500])
    cfg = hooks.get("config") or {}
    for name in ("fail_mode", "unknown_event", "timeout_zero", "timeout_601", "project_config",
                 "project_config_trusted"):
        if name in cfg:
            tally.check(f"hooks config {name}: no hook runs", cfg[name].get("ran") == [], json.dumps(cfg[name])[:1500])
    for name in ("fail_mode", "unknown_event", "timeout_zero", "timeout_601"):
        if name in cfg:
            tally.check(f"hooks config {name}: warning on stderr",
                        "Ignored invalid config section 'hooks'" in cfg[name]["info"]["stderr"])
    if "duplicate_command" in cfg:
        tally.check("hooks config duplicate_command: runs once", cfg["duplicate_command"]["ran"] == ["dup"])
    if "two_hooks_order" in cfg:
        first = cfg["two_hooks_order"]["first_request"][0]["text"]
        tally.check("hooks config two_hooks_order: config order kept", first.find("FIRST") < first.find("SECOND") and
                    first.count("<hook_result") == 2, first)
        times = dict(cfg["two_hooks_order"].get("times") or [])
        tally.check("hooks config two_hooks_order: run in parallel",
                    times.get("second", 1e18) < times.get("first:end", 0), times)
    if "default_timeout" in cfg:
        first = cfg["default_timeout"]["first_request"][0]["text"]
        tally.check("hooks config default_timeout: killed at 30 s", "FAST ctx" in first and "SLOW33" not in first
                    and 30 < cfg["default_timeout"]["info"]["seconds"] < 60, first)
    mcp = results.get("mcp") or {}
    want_mcp = {"root": ["mcp__user__probe_user"], "sub": ["mcp__user__probe_user"],
                "root_trusted": ["mcp__rootjson__probe_rootjson", "mcp__rootkimi__probe_rootkimi",
                                 "mcp__user__probe_user"],
                "sub_root_trusted": ["mcp__user__probe_user"],
                "sub_trusted": ["mcp__rootjson__probe_rootjson", "mcp__subkimi__probe_subkimi",
                                "mcp__user__probe_user"]}
    for label, v in mcp.items():
        tally.check(f"mcp {label}: {want_mcp.get(label)}", sorted(v["mcp_tools"]) == want_mcp.get(label),
                    v["mcp_tools"])


# ------------------------------------------------------------------ main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", action="append", choices=("files", "caps", "reminders", "hooks", "mcp"))
    ap.add_argument("--fixture", action="append")
    ap.add_argument("--json")
    ap.add_argument("--texts")
    ap.add_argument("--work")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args(argv)
    parts = a.part or ["files", "caps", "reminders", "hooks", "mcp"]
    kimi.install()
    tally = harness.Tally("kimi")
    results = {"version": kimi.VERSION, "files": {}}
    work = a.work or tempfile.mkdtemp(prefix="agentspine-kimi-measure-")
    os.makedirs(work, exist_ok=True)
    if a.texts:
        os.makedirs(a.texts, exist_ok=True)
    try:
        if "files" in parts:
            for fx in FIXTURES:
                if a.fixture and fx["name"] not in a.fixture:
                    continue
                run_fixture(fx, work, tally, results["files"], a.texts)
        if "caps" in parts:
            part_caps(work, tally, results)
        if "reminders" in parts:
            part_reminders(work, tally, results, a.fixture)
        if "hooks" in parts:
            part_hooks(work, tally, results, a.fixture)
        if "mcp" in parts:
            part_mcp(work, tally, results)
        check_results(tally, results)
    finally:
        if a.json:
            with open(a.json, "w", encoding="utf-8") as f:
                json.dump(results, f, indent=1, ensure_ascii=False)
        if not (a.work or a.keep):
            harness.remove(work)
        else:
            print(f"work kept in {work}", file=sys.stderr)
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
