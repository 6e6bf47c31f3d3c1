#!/usr/bin/env python3
"""Fixtures for GitHub Copilot CLI 1.0.102 (copilot.py, measure_copilot.py).

Each fixture is a project tree, a HOME and a start directory; what Copilot
sent for it is recorded in COPILOT-MEASURED.md.  Keys of a fixture:

    name, intent
    files    {relative path: str or bytes} under the tree
    home     {relative path: str or bytes} under HOME
    outside  {relative path: str or bytes} under the fixture's base directory
             (beside tree/ and home/: files outside the project)
    links    {relative path: target} symbolic links; a path starting "~/" is
             under HOME; the target may use {tree}, {home}, {base}
    modes    {relative path: mode} chmod after writing
    git      "init" (default), "none", "gitfile" (a `.git` file naming a
             missing gitdir), "gitfile-empty", "gitdir-empty" (an empty
             `.git` directory), "gitdir-head" (only .git/HEAD),
             "gitdir-min" (.git/HEAD, objects/, refs/), "nested" (a second
             repository at `nested/`, created with git init)
    cwd      start directory, relative to the tree ("." default)
    env      extra client environment ({tree}, {home}, {base} expanded)
    args     extra copilot arguments
    wrap     command prefix (DAC_AS_USER: the client without DAC override)

Listing: PYTHONPATH=tests/lib python3 tests/e2e/fixtures_copilot.py
"""
from __future__ import annotations

import os
import subprocess
import sys

sys.dont_write_bytecode = True

import harness  # noqa: E402

# The client without DAC override (as in fixtures.py): a mode-000 file is unreadable to it.
DAC_AS_USER = ("setpriv", "--bounding-set", "-dac_override,-dac_read_search",
               "--inh-caps", "-dac_override,-dac_read_search", "--")

I = ".github/instructions/"
R = ".claude/rules/"
NAMES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md", ".github/copilot-instructions.md", ".claude/CLAUDE.md",
         "CLAUDE.local.md", "AGENTS.override.md", ".github/AGENTS.md", "copilot-instructions.md")


def _every_name(dirs):
    files = {}
    for d in dirs:
        for n in NAMES:
            files[d + n] = f"{d or 'root/'}{n}\n"
    return files


def _ext_dir(prefix):
    return {f"{prefix}/AGENTS.md": f"{prefix}-AGENTS\n", f"{prefix}/CLAUDE.md": f"{prefix}-CLAUDE\n",
            f"{prefix}/.github/copilot-instructions.md": f"{prefix}-GHCI\n",
            f"{prefix}/{I}x.instructions.md": f"{prefix}-INSTR\n",
            f"{prefix}/x.instructions.md": f"{prefix}-BARE-INSTR\n",
            f"{prefix}/instructions/y.instructions.md": f"{prefix}-INSTRDIR\n",
            f"{prefix}/{R}r.md": f"{prefix}-RULE\n",
            f"{prefix}/copilot-instructions.md": f"{prefix}-BARE-CI\n",
            f"{prefix}/sub/AGENTS.md": f"{prefix}-SUB-AGENTS\n"}


FIXTURES = [
    # ------------------------------------------------------------ discovery
    dict(name="basic_root_cwd", intent="root AGENTS.md and .github/copilot-instructions.md, cwd = root",
         files={"AGENTS.md": "ROOT-AGENTS\n", ".github/copilot-instructions.md": "ROOT-GHCI\n"}),
    dict(name="order_every_name", intent="every candidate name at root, a, a/b, cwd a/b/c and below it (a/b/c/d)",
         files=_every_name(["", "a/", "a/b/", "a/b/c/", "a/b/c/d/"]), cwd="a/b/c"),
    dict(name="case_variants", intent="agents.md, Agents.md, AGENTS.MD, claude.md, Claude.md ... side by side",
         files={d + n: f"{d or 'root/'}{n}\n" for d in ("", "a/", "a/b/")
                for n in ("agents.md", "Agents.md", "AGENTS.MD", "claude.md", "Claude.md", "gemini.md",
                          ".github/Copilot-Instructions.md", ".GITHUB/copilot-instructions.md", ".claude/claude.md")},
         cwd="a/b"),
    dict(name="lowercase_alone", intent="only lower-case agents.md / claude.md, at root and cwd",
         files={"agents.md": "lower-root-agents\n", "pkg/claude.md": "lower-pkg-claude\n"}, cwd="pkg"),
    dict(name="both_agents_claude", intent="AGENTS.md and CLAUDE.md in one directory (root and cwd)",
         files={"AGENTS.md": "ROOT-A\n", "CLAUDE.md": "ROOT-C\n", "pkg/AGENTS.md": "PKG-A\n",
                "pkg/CLAUDE.md": "PKG-C\n"}, cwd="pkg"),
    dict(name="above_git_root", intent="an AGENTS.md in the directory above the git root",
         outside={"AGENTS.md": "ABOVE-ROOT\n"},
         files={"AGENTS.md": "root\n", "x/AGENTS.md": "x\n", "x/y/AGENTS.md": "xy\n"}, cwd="x/y"),
    dict(name="below_cwd", intent="nested AGENTS.md, .github/copilot-instructions.md below the start directory",
         files={"AGENTS.md": "ROOT\n", "pkg/AGENTS.md": "PKG\n", "pkg/deep/x/AGENTS.md": "DEEP\n",
                "pkg/CLAUDE.md": "PKG-CLAUDE\n", "other/.github/copilot-instructions.md": "OTHER-GH\n",
                f"other/{I}o.instructions.md": "OTHER-INSTR\n"}),
    dict(name="no_git", intent="no .git anywhere: only the start directory",
         git="none", files={"AGENTS.md": "root\n", "x/AGENTS.md": "x\n", "x/y/AGENTS.md": "xy\n",
                            "x/y/.github/copilot-instructions.md": "xy-gh\n", ".github/copilot-instructions.md": "root-gh\n",
                            "x/.github/copilot-instructions.md": "x-gh\n", "x/y/z/AGENTS.md": "below\n"}, cwd="x/y"),
    dict(name="git_file_bogus", intent="`.git` is a file `gitdir: /nonexistent`", git="gitfile",
         files={"AGENTS.md": "root\n", "x/AGENTS.md": "x\n", "x/y/AGENTS.md": "xy\n"}, cwd="x/y"),
    dict(name="git_file_empty", intent="`.git` is an empty file", git="gitfile-empty",
         files={"AGENTS.md": "root\n", "x/AGENTS.md": "x\n", "x/y/AGENTS.md": "xy\n"}, cwd="x/y"),
    dict(name="git_dir_empty", intent="`.git` is an empty directory", git="gitdir-empty",
         files={"AGENTS.md": "root\n", "x/AGENTS.md": "x\n", "x/y/AGENTS.md": "xy\n"}, cwd="x/y"),
    dict(name="git_dir_head_only", intent="`.git/HEAD` only", git="gitdir-head",
         files={"AGENTS.md": "root\n", "x/AGENTS.md": "x\n", "x/y/AGENTS.md": "xy\n"}, cwd="x/y"),
    dict(name="git_dir_minimal", intent="`.git/` with HEAD, objects/, refs/", git="gitdir-min",
         files={"AGENTS.md": "root\n", "x/AGENTS.md": "x\n", "x/y/AGENTS.md": "xy\n"}, cwd="x/y"),
    dict(name="nested_repo", intent="cwd inside a second repository nested in the first", git="nested",
         files={"AGENTS.md": "OUTER-ROOT\n", "nested/AGENTS.md": "NESTED-ROOT\n", "nested/x/AGENTS.md": "NESTED-X\n"},
         cwd="nested/x"),
    dict(name="no_custom_instructions_flag", intent="--no-custom-instructions",
         files={"AGENTS.md": "ROOT\n", f"{I}a.instructions.md": "RAW\n"},
         home={".copilot/copilot-instructions.md": "USER-CI\n"}, args=["--no-custom-instructions"]),
    # ------------------------------------------------------------ user scope
    dict(name="user_files", intent="~/.copilot/copilot-instructions.md, ~/.copilot/instructions/**, other homes",
         files={"AGENTS.md": "PROJ\n"},
         home={".copilot/copilot-instructions.md": "U-COPILOT-INSTR\n",
               ".copilot/instructions/a.instructions.md": "U-INSTR-A\n",
               ".copilot/instructions/deep/er/b.instructions.md": "U-INSTR-B-DEEP\n",
               ".copilot/instructions/c.md": "U-INSTR-C-PLAIN\n",
               ".copilot/instructions/scoped.instructions.md": '---\napplyTo: "src/**"\n---\nU-INSTR-SCOPED\n',
               ".copilot/AGENTS.md": "U-COPILOT-AGENTS\n", ".copilot/CLAUDE.md": "U-COPILOT-CLAUDE\n",
               ".claude/CLAUDE.md": "U-CLAUDE\n", ".gemini/GEMINI.md": "U-GEMINI\n", ".codex/AGENTS.md": "U-CODEX\n",
               "AGENTS.md": "HOME-AGENTS\n", ".config/copilot/copilot-instructions.md": "XDG-COPILOT\n",
               ".agents/AGENTS.md": "U-DOT-AGENTS\n"}),
    dict(name="copilot_home", intent="COPILOT_HOME replaces ~/.copilot",
         files={"AGENTS.md": "PROJ\n"},
         home={".copilot/copilot-instructions.md": "DEFAULT-HOME-CI\n",
               ".copilot/instructions/u.instructions.md": "DEFAULT-HOME-INSTR\n",
               "ch/copilot-instructions.md": "COPILOT_HOME-CI\n", "ch/instructions/u.instructions.md": "COPILOT_HOME-INSTR\n"},
         env={"COPILOT_HOME": "{home}/ch"}),
    dict(name="xdg_config_home", intent="XDG_CONFIG_HOME has no effect",
         files={"AGENTS.md": "PROJ\n"},
         home={".copilot/copilot-instructions.md": "DEFAULT-HOME-CI\n",
               "xdg/copilot/copilot-instructions.md": "XDG-CI\n", "xdg/.copilot/copilot-instructions.md": "XDG-DOT-CI\n"},
         env={"XDG_CONFIG_HOME": "{home}/xdg"}),
    dict(name="custom_instructions_dirs", intent="COPILOT_CUSTOM_INSTRUCTIONS_DIRS=ext1,ext2 with every kind of file",
         outside={**{k: v for k, v in _ext_dir("ext1").items()}, **{k: v for k, v in _ext_dir("ext2").items()}},
         files={"AGENTS.md": "PROJ\n", f"{I}p.instructions.md": "PROJ-INSTR\n"},
         home={".copilot/copilot-instructions.md": "USER-CI\n", ".copilot/instructions/u.instructions.md": "USER-INSTR\n"},
         env={"COPILOT_CUSTOM_INSTRUCTIONS_DIRS": "{base}/ext1,{base}/ext2"}),
    dict(name="custom_instructions_dirs_cwd_pkg", intent="COPILOT_CUSTOM_INSTRUCTIONS_DIRS, cwd a package",
         outside=_ext_dir("ext1"), files={"AGENTS.md": "PROJ\n", "pkg/AGENTS.md": "PKG\n"}, cwd="pkg",
         env={"COPILOT_CUSTOM_INSTRUCTIONS_DIRS": "{base}/ext1"}),
    # ------------------------------------------------------------- the text
    dict(name="text_whitespace", intent="no final newline, three newlines, leading blank lines, CRLF",
         files={"AGENTS.md": "P", "CLAUDE.md": "Q\n\n\n", "GEMINI.md": "\n\n  R  \n", "pkg/AGENTS.md": "S1\r\nS2\r\n"},
         cwd="pkg"),
    dict(name="text_empty_bom_latin1", intent="empty, blank, BOM, BOM-only, Latin-1, NUL files",
         files={"AGENTS.md": "", "CLAUDE.md": " \n\t\n", "GEMINI.md": "\ufeffBOM-GEMINI\n",
                ".github/copilot-instructions.md": b"LATIN1 \xe9\xff\n",
                "a/AGENTS.md": "\ufeff", "a/CLAUDE.md": b"\xef\xbb\xbf  \n", "a/GEMINI.md": "OK-A-GEMINI\n",
                f"{I}1-empty.instructions.md": "", f"{I}2-ws.instructions.md": "\n \n",
                f"{I}3-bom.instructions.md": "\ufeffBOM-INSTR\n", f"{I}4-latin.instructions.md": b"BAD \xff\n",
                f"{I}5-bomfm.instructions.md": '\ufeff---\napplyTo: "src/**"\n---\nBOMFM\n',
                f"{I}6-nul.instructions.md": b"NUL\x00BYTE\n", f"{I}7-fmonly.instructions.md": '---\napplyTo: "**"\n---\n'},
         cwd="a"),
    dict(name="text_dedup", intent="equal texts in several files (content dedup)",
         files={"AGENTS.md": "SAME\n", "CLAUDE.md": "SAME", "GEMINI.md": "SAME\r\n", "a/AGENTS.md": "\ufeffSAME\n",
                "a/CLAUDE.md": "SAME \n", ".github/copilot-instructions.md": "SAME\n",
                f"{I}x.instructions.md": "DUPI\n", f"{I}y.instructions.md": "DUPI\n",
                f"a/{I}z.instructions.md": "DUPI\n", f"{R}r.md": "DUPI\n"},
         home={".copilot/copilot-instructions.md": "SAME\n"}, cwd="a"),
    dict(name="text_user_latin1", intent="non-UTF-8 user files (skipped) beside non-UTF-8 project files (lossy)",
         files={"AGENTS.md": b"AG-LATIN \xe9\n", f"{R}r.md": b"RULE-LATIN \xe9\n"},
         home={".copilot/instructions/u.instructions.md": b"USER-LATIN \xe9\n",
               ".copilot/copilot-instructions.md": b"HOME-CI-LATIN \xe9\n"}),
    # ------------------------------------------------- instructions and rules
    dict(name="applyto_forms", intent="applyTo forms: **, *, lists, comments, none, excludeAgent, nesting",
         files={
             f"{I}01-star2.instructions.md": '---\napplyTo: "**"\n---\nSTAR2\n',
             f"{I}02-star2-unq.instructions.md": "---\napplyTo: **\n---\nSTAR2UNQ\n",
             f"{I}03-star2slash.instructions.md": '---\napplyTo: "**/*"\n---\nSTAR2SLASH\n',
             f"{I}04-star.instructions.md": '---\napplyTo: "*"\n---\nSTAR\n',
             f"{I}05-ts.instructions.md": '---\napplyTo: "src/**/*.ts"\ndescription: TS rules\n---\nTS\n',
             f"{I}06-comma.instructions.md": '---\napplyTo: "src/**,lib/**"\n---\nCOMMA\n',
             f"{I}07-flowlist.instructions.md": '---\napplyTo: ["src/**", "lib/**"]\n---\nFLOW\n',
             f"{I}08-blocklist.instructions.md": '---\napplyTo:\n  - "src/**"\n  - "lib/**"\n---\nBLOCK\n',
             f"{I}09-descronly.instructions.md": "---\ndescription: only a description\n---\nDESCRONLY\n",
             f"{I}10-empty-fm.instructions.md": "---\n---\nEMPTYFM\n",
             f"{I}11-applyto-empty.instructions.md": '---\napplyTo: ""\n---\nAPPLYEMPTY\n',
             f"{I}12-comment.instructions.md": '---\napplyTo: "src/**" # a comment\n---\nCOMMENTED\n',
             f"{I}13-single.instructions.md": "---\napplyTo: 'docs/*.md'\n---\nSINGLEQ\n",
             f"{I}14-star2-comma.instructions.md": '---\napplyTo: "**,src/**"\n---\nSTAR2COMMA\n',
             f"{I}15-unclosed.instructions.md": '---\napplyTo: "src/**"\nUNCLOSED\n',
             f"{I}16-pipe.instructions.md": '---\napplyTo: "a|b"\ndescription: "x | y"\n---\nPIPE\n',
             f"{I}sub/17-nested.instructions.md": "NESTEDDIR\n",
             f"{I}18-notinstr.md": "NOTINSTR\n",
             f"{I}19-Upper.INSTRUCTIONS.MD": "UPPERNAME\n",
             ".github/20-outside.instructions.md": "OUTSIDEDIR\n",
             f"{I}21-crlf.instructions.md": '---\r\napplyTo: "**"\r\n---\r\nCRLFFM\r\n',
             f"{I}22-excl-coding-agent.instructions.md": '---\napplyTo: "**"\nexcludeAgent: "coding-agent"\n---\nEXCLCA\n',
             f"{I}23-excl-code-review.instructions.md": '---\napplyTo: "**"\nexcludeAgent: "code-review"\n---\nEXCLCR\n'}),
    dict(name="claude_rules", intent=".claude/rules/**: no paths, paths string/list/flow, applyTo, **, []",
         files={f"{R}1-plain.md": "PLAIN\n", f"{R}2-paths.md": '---\npaths: "src/**/*.ts"\n---\nPATHS-STR\n',
                f"{R}3-pathslist.md": '---\npaths:\n  - "src/**"\n  - "lib/**"\ndescription: DD\n---\nPATHS-LIST\n',
                f"{R}4-pathsflow.md": '---\npaths: ["a/**", "b/**"]\n---\nPATHS-FLOW\n',
                f"{R}5-applyto.md": '---\napplyTo: "src/**"\n---\nRULE-APPLYTO\n',
                f"{R}6-star.md": '---\npaths: "**"\n---\nPATHS-STAR\n', f"{R}sub/7-nested.md": "RULE-NESTED\n",
                f"{R}8-notmd.txt": "NOTMD\n", f"{R}9-emptypaths.md": "---\npaths: []\n---\nEMPTY-PATHS\n",
                f"{R}10-upper.MD": "UPPER-MD\n", ".claude/CLAUDE.md": "ROOT-DOT-CLAUDE\n", "CLAUDE.local.md": "LOCAL\n"}),
    dict(name="instruction_dirs_by_level", intent=".github/instructions and .claude/rules at root, intermediate, cwd, below",
         files={f"{I}r.instructions.md": "ROOT-INSTR\n", f"a/{I}a.instructions.md": "A-INSTR\n",
                f"a/b/{I}b.instructions.md": "B-CWD-INSTR\n", f"a/b/c/{I}c.instructions.md": "C-BELOW-INSTR\n",
                f"a/b/{R}r.md": "CWD-CLAUDE-RULE\n", f"{R}r.md": "ROOT-CLAUDE-RULE\n", f"a/{R}r.md": "A-CLAUDE-RULE\n"},
         cwd="a/b"),
    dict(name="sections_all", intent="elements, raw files and the table together",
         files={"AGENTS.md": "P\n", f"{I}b.instructions.md": "RAW-B\n", f"{I}c.instructions.md": "RAW-C\n",
                f"{I}a.instructions.md": '---\napplyTo: "src/**"\n---\nA\n'}),
    dict(name="sections_raw_only", intent="one raw instruction file, nothing else",
         files={f"{I}a.instructions.md": "RAW-A\n"}),
    dict(name="sections_table_only", intent="one path-scoped instruction file, nothing else",
         files={f"{I}a.instructions.md": '---\napplyTo: "src/**"\ndescription: D1\n---\nA\n'}),
    dict(name="sections_none", intent="no instruction file at all", files={"README.md": "x\n"}),
    # ------------------------------------------------------------- symlinks
    dict(name="links_claude_to_agents", intent="CLAUDE.md -> AGENTS.md at root and in pkg (cwd pkg)",
         files={"AGENTS.md": "ROOT-AG\n", "pkg/AGENTS.md": "PKG-AG\n"},
         links={"CLAUDE.md": "AGENTS.md", "pkg/CLAUDE.md": "AGENTS.md"}, cwd="pkg"),
    dict(name="links_outside", intent="links out of the project: files, a directory of instructions, into HOME",
         outside={"outside.md": "OUTSIDE-TEXT\n", "ext-instr/o.instructions.md": "OUT-INSTR-DIR\n",
                  "o2.instructions.md": "OUT-INSTR-FILE\n"},
         home={"shared.md": "HOME-SHARED\n"}, files={"pkg/x": ""},
         links={"AGENTS.md": "../outside.md", "CLAUDE.md": "{home}/shared.md", "GEMINI.md": "{base}/outside.md",
                ".github/instructions": "{base}/ext-instr",
                f"pkg/{I}l.instructions.md": "{base}/o2.instructions.md", "pkg/AGENTS.md": ".agents/AGENTS.md"},
         cwd="pkg"),
    dict(name="links_dangling", intent="dangling AGENTS.md beside a CLAUDE.md (root and cwd)",
         files={"CLAUDE.md": "ROOT-CL\n", "pkg/CLAUDE.md": "PKG-CL\n"},
         links={"AGENTS.md": "gone.md", "pkg/AGENTS.md": "nope/AGENTS.md"}, cwd="pkg"),
    dict(name="links_loop", intent="AGENTS.md in a link loop at the root and at cwd",
         files={"CLAUDE.md": "ROOT-CL\n", "pkg/CLAUDE.md": "PKG-CL\n"},
         links={"AGENTS.md": "loop.md", "loop.md": "AGENTS.md", "pkg/AGENTS.md": "loop2.md", "pkg/loop2.md": "AGENTS.md"},
         cwd="pkg"),
    dict(name="links_dir_named", intent="AGENTS.md and copilot-instructions.md that are directories; a link to a directory",
         files={"AGENTS.md/x": "in dir\n", ".github/copilot-instructions.md/y": "z",
                f"{I}d.instructions.md/q": "q", "real/AGENTS.md": "REAL-AG\n", "GEMINI.md": "ROOT-GEM\n"},
         links={"CLAUDE.md": "real"}),
    dict(name="links_instructions_loop", intent="a directory loop and a file loop inside .github/instructions",
         files={"AGENTS.md": "ROOT-AG\n", f"{I}a.instructions.md": "A\n"},
         links={f"{I}sub/loop": "..", f"{I}l.instructions.md": "l2.instructions.md",
                f"{I}l2.instructions.md": "l.instructions.md"}),
    dict(name="links_instructions_subdir", intent="a linked directory inside .github/instructions",
         outside={"shared-instr/s.instructions.md": "SHARED-SUBDIR-INSTR\n"},
         files={"AGENTS.md": "ROOT-AG\n", f"{I}a.instructions.md": "A\n"},
         links={f"{I}linked": "{base}/shared-instr"}),
    dict(name="links_path_dir_inside", intent="cwd reached through a linked directory inside the project",
         files={"AGENTS.md": "ROOT-AG\n", "real/AGENTS.md": "REAL-AG\n", "real/pkg/AGENTS.md": "LINKED-PKG-AG\n",
                "real/pkg/sub/AGENTS.md": "LINKED-SUB-AG\n"},
         links={"pkg": "{tree}/real/pkg"}, cwd="pkg/sub"),
    dict(name="links_path_dir_outside", intent="cwd reached through a link to a directory outside the project",
         outside={"realpkg/AGENTS.md": "LINKED-PKG-AG\n", "realpkg/sub/AGENTS.md": "LINKED-SUB-AG\n"},
         files={"AGENTS.md": "ROOT-AG\n"}, links={"pkg": "{base}/realpkg"}, cwd="pkg/sub"),
    dict(name="unreadable_as_user", intent="mode-000 AGENTS.md (root, cwd) and instruction file, client without DAC override",
         files={"AGENTS.md": "ROOT-AG\n", "CLAUDE.md": "ROOT-CL\n", "pkg/AGENTS.md": "PKG-AG\n",
                f"{I}u.instructions.md": "UNREAD-INSTR\n", f"{I}ok.instructions.md": "OK-INSTR\n"},
         modes={"AGENTS.md": 0, "pkg/AGENTS.md": 0, f"{I}u.instructions.md": 0}, cwd="pkg", wrap=DAC_AS_USER),
    dict(name="unreadable_as_root", intent="the same tree, client as root (control)",
         files={"AGENTS.md": "ROOT-AG\n", "CLAUDE.md": "ROOT-CL\n", "pkg/AGENTS.md": "PKG-AG\n",
                f"{I}u.instructions.md": "UNREAD-INSTR\n", f"{I}ok.instructions.md": "OK-INSTR\n"},
         modes={"AGENTS.md": 0, "pkg/AGENTS.md": 0, f"{I}u.instructions.md": 0}, cwd="pkg"),
    dict(name="tables_user_repo_ext", intent="path-scoped files of the user and the repo, rules, an extra directory's AGENTS.md",
         outside={"ext1/AGENTS.md": "EXT1-AG\n"},
         files={"AGENTS.md": "ROOT\n", f"{I}b.instructions.md": '---\napplyTo: "b/**"\n---\nB\n',
                f"{R}r.md": '---\npaths: "r/**"\n---\nR\n', f"{I}a.instructions.md": "RAW-REPO\n"},
         home={".copilot/instructions/u.instructions.md": '---\napplyTo: "u/**"\ndescription: user\n---\nU\n',
               ".copilot/instructions/raw.instructions.md": "RAW-USER\n"},
         env={"COPILOT_CUSTOM_INSTRUCTIONS_DIRS": "{base}/ext1"}),
    dict(name="child_flag", intent="feature flag CHILD_CUSTOM_INSTRUCTIONS (user settings.json): table of child files",
         files={"AGENTS.md": "ROOT\n", "pkg/AGENTS.md": "PKG\n", "pkg/deep/x/AGENTS.md": "DEEP\n",
                "pkg/CLAUDE.md": "PKG-CLAUDE\n", "other/.github/copilot-instructions.md": "OTHER-GH\n",
                f"other/{I}o.instructions.md": "OTHER-INSTR\n"},
         home={".copilot/settings.json": '{"enabledFeatureFlags": {"CHILD_CUSTOM_INSTRUCTIONS": true}}'}),
]


def by_name(name: str) -> dict:
    for f in FIXTURES:
        if f["name"] == name:
            return f
    raise KeyError(name)


def _fmt(value: str, paths: dict) -> str:
    return value.replace("{tree}", paths["tree"]).replace("{home}", paths["home"]).replace("{base}", paths["base"])


def build(fixture: dict, work: str) -> dict:
    """Lays FIXTURE out under WORK/<name>/{tree,home}; returns the paths
    (base, tree, home, cwd) and the fixture's env, args and wrap, expanded."""
    base = os.path.join(os.path.abspath(work), fixture["name"])
    harness.remove(base)
    tree, home = os.path.join(base, "tree"), os.path.join(base, "home")
    os.makedirs(tree)
    os.makedirs(home)
    paths = {"base": base, "tree": tree, "home": home}
    git = fixture.get("git", "init")
    if git in ("init", "nested"):
        subprocess.run(["git", "init", "-q", tree], check=True)
    elif git == "gitfile":
        harness.write(os.path.join(tree, ".git"), "gitdir: /nonexistent/dir\n")
    elif git == "gitfile-empty":
        harness.write(os.path.join(tree, ".git"), "")
    elif git == "gitdir-empty":
        os.makedirs(os.path.join(tree, ".git"))
    elif git == "gitdir-head":
        harness.write(os.path.join(tree, ".git", "HEAD"), "ref: refs/heads/main\n")
    elif git == "gitdir-min":
        harness.write(os.path.join(tree, ".git", "HEAD"), "ref: refs/heads/main\n")
        os.makedirs(os.path.join(tree, ".git", "objects"))
        os.makedirs(os.path.join(tree, ".git", "refs"))
    if git == "nested":
        subprocess.run(["git", "init", "-q", os.path.join(tree, "nested")], check=True)
    for rel, data in (fixture.get("files") or {}).items():
        harness.write(os.path.join(tree, rel), data)
    for rel, data in (fixture.get("home") or {}).items():
        harness.write(os.path.join(home, rel), data)
    for rel, data in (fixture.get("outside") or {}).items():
        harness.write(os.path.join(base, rel), data)
    for rel, target in (fixture.get("links") or {}).items():
        path = os.path.join(home, rel[2:]) if rel.startswith("~/") else os.path.join(tree, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.symlink(_fmt(target, paths), path)
    for rel, mode in (fixture.get("modes") or {}).items():
        os.chmod(os.path.join(tree, rel), mode)
    cwd = os.path.join(tree, fixture.get("cwd", "."))
    os.makedirs(cwd, exist_ok=True)
    return dict(paths, cwd=os.path.normpath(cwd),
                env={k: _fmt(v, paths) for k, v in (fixture.get("env") or {}).items()},
                args=[_fmt(a, paths) for a in fixture.get("args") or []],
                wrap=list(fixture.get("wrap") or ()))


if __name__ == "__main__":
    for f in FIXTURES:
        print(f"{f['name']:32} cwd={f.get('cwd', '.'):8} {f['intent']}")
