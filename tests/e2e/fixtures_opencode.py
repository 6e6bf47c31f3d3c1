"""opencode's measurement fixtures (OPENCODE-MEASURED.md): which instruction
files opencode 1.18.33 sends at session start, and their exact text.

Each fixture is data, as in fixtures.py (whose Symlink, _write and _git_init
it reuses): the files of a tree, the directories that get `git init`, the
cwd, files in the throwaway HOME, extra environment, file modes, a command
prefix (`wrap`) and an optional `setup(tree, home)` for layouts plain files
cannot express (a linked git worktree, a submodule).  `build(fx, dest)` lays
it out as dest/tree and dest/home and returns (tree, cwd, home); `env(fx, tree,
home)` expands {tree} and {home} in its environment.

    PYTHONPATH=tests/lib python3 tests/e2e/fixtures_opencode.py   # list them
"""
from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from typing import Callable

import fixtures as fx_base
from fixtures import BOM, DAC_AS_USER, Symlink

GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}


@dataclass(frozen=True)
class OcFixture:
    name: str
    about: str
    files: dict = field(default_factory=dict)      # tree-relative path -> bytes | Symlink
    git: tuple = ()                                # tree-relative dirs that get `git init`
    git_files: dict = field(default_factory=dict)  # tree-relative dir -> content of a `.git` file
    dirs: tuple = ()                               # extra empty directories (tree-relative)
    cwd: str = "."
    home: dict = field(default_factory=dict)       # HOME-relative path -> bytes | Symlink
    env: dict = field(default_factory=dict)        # {tree} {home} expanded
    modes: dict = field(default_factory=dict)      # tree-relative path -> mode
    home_modes: dict = field(default_factory=dict)  # HOME-relative path -> mode
    wrap: tuple = ()
    setup: Callable | None = None                  # (tree, home) -> None, after the files
    pwd: str | None = None                         # run with this cwd (tree-relative, may cross a link)


def _git(*args, cwd):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": cwd, **GIT_ENV}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def _linked_worktree(tree, home):
    """tree/main: a repository with one commit; tree/wt: its linked worktree."""
    main = os.path.join(tree, "main")
    _git("init", "-q", "-b", "main", main, cwd=tree)
    with open(os.path.join(main, "README"), "w") as f:
        f.write("x\n")
    _git("add", "README", cwd=main)
    _git("commit", "-q", "-m", "init", cwd=main)
    _git("worktree", "add", "-q", "-b", "wt", os.path.join(tree, "wt"), cwd=main)
    for rel, text in (("AGENTS.md", "above both repositories\n"), ("main/AGENTS.md", "main checkout\n"),
                      ("wt/AGENTS.md", "linked worktree root\n"), ("wt/pkg/AGENTS.md", "linked worktree pkg\n")):
        fx_base._write(tree, rel, text.encode())


def _submodule_like(tree, home):
    """tree/outer: a repository; tree/outer/sub: a repository whose `.git` is a
    file (`git init --separate-git-dir`, the layout of a submodule)."""
    outer = os.path.join(tree, "outer")
    _git("init", "-q", "-b", "main", outer, cwd=tree)
    os.makedirs(os.path.join(outer, ".git", "modules"), exist_ok=True)
    _git("init", "-q", "-b", "main", "--separate-git-dir", os.path.join(outer, ".git", "modules", "sub"),
         os.path.join(outer, "sub"), cwd=tree)
    for rel, text in (("outer/AGENTS.md", "outer repository root\n"), ("outer/sub/AGENTS.md", "submodule root\n"),
                      ("outer/sub/pkg/AGENTS.md", "submodule pkg\n")):
        fx_base._write(tree, rel, text.encode())


def _above_tree(tree, home):
    """An AGENTS.md in the directory that holds the tree (outside the fixture's tree)."""
    fx_base._write(os.path.dirname(tree), "AGENTS.md", b"above the tree (dest)\n")


def _big(n: int, tag: str) -> bytes:
    return fx_base._filler(n, tag)


G = (".",)
NOCLAUDE = {"OPENCODE_DISABLE_CLAUDE_CODE": "1"}
PROJ_CFG = '{"$schema": "https://opencode.ai/config.json", "instructions": %s}\n'

FIXTURES: list[OcFixture] = [
    # --- project files: the walk and the first-name rule
    OcFixture("oc_git_nested", "AGENTS.md at the git root, a, a/b (cwd), below cwd and in a sibling.",
              files={"AGENTS.md": b"root agents\n", "a/AGENTS.md": b"a agents\n", "a/b/AGENTS.md": b"a/b agents\n",
                     "a/b/c/AGENTS.md": b"below cwd\n", "sibling/AGENTS.md": b"sibling\n"},
              git=G, cwd="a/b"),
    OcFixture("oc_git_root_cwd", "cwd is the git root; AGENTS.md there and below.",
              files={"AGENTS.md": b"root agents\n", "pkg/AGENTS.md": b"pkg agents\n"}, git=G),
    OcFixture("oc_agents_hides_claude", "Root AGENTS.md; CLAUDE.md in cwd and the root: only AGENTS.md.",
              files={"AGENTS.md": b"root agents\n", "CLAUDE.md": b"root claude\n", "a/CLAUDE.md": b"a claude\n"},
              git=G, cwd="a"),
    OcFixture("oc_claude_only", "CLAUDE.md at the root and in cwd, no AGENTS.md.",
              files={"CLAUDE.md": b"root claude\n", "a/CLAUDE.md": b"a claude\n", "a/CONTEXT.md": b"a context\n"},
              git=G, cwd="a"),
    OcFixture("oc_context_only", "CONTEXT.md at the root and in cwd only.",
              files={"CONTEXT.md": b"root context\n", "a/CONTEXT.md": b"a context\n"}, git=G, cwd="a"),
    OcFixture("oc_three_names_one_dir", "AGENTS.md, CLAUDE.md and CONTEXT.md in cwd.",
              files={"AGENTS.md": b"agents\n", "CLAUDE.md": b"claude\n", "CONTEXT.md": b"context\n"}, git=G),
    OcFixture("oc_claude_disabled", "CLAUDE.md and CONTEXT.md with OPENCODE_DISABLE_CLAUDE_CODE=1.",
              files={"CLAUDE.md": b"root claude\n", "a/CLAUDE.md": b"a claude\n", "a/CONTEXT.md": b"a context\n"},
              home={".claude/CLAUDE.md": b"global claude\n"}, git=G, cwd="a", env=NOCLAUDE),
    OcFixture("oc_claude_prompt_disabled", "As oc_claude_disabled with OPENCODE_DISABLE_CLAUDE_CODE_PROMPT=1.",
              files={"CLAUDE.md": b"root claude\n", "a/CLAUDE.md": b"a claude\n", "a/CONTEXT.md": b"a context\n"},
              home={".claude/CLAUDE.md": b"global claude\n"}, git=G, cwd="a",
              env={"OPENCODE_DISABLE_CLAUDE_CODE_PROMPT": "1"}),
    OcFixture("oc_claude_skills_disabled", "As oc_claude_disabled with OPENCODE_DISABLE_CLAUDE_CODE_SKILLS=1 (no effect expected).",
              files={"CLAUDE.md": b"root claude\n", "a/CLAUDE.md": b"a claude\n"},
              home={".claude/CLAUDE.md": b"global claude\n"}, git=G, cwd="a",
              env={"OPENCODE_DISABLE_CLAUDE_CODE_SKILLS": "1"}),
    OcFixture("oc_empty_agents_hides_claude", "An empty AGENTS.md at the root, CLAUDE.md in cwd.",
              files={"AGENTS.md": b"", "a/CLAUDE.md": b"a claude\n"}, git=G, cwd="a"),
    OcFixture("oc_lowercase_names", "agents.md, Agents.md, claude.md, AGENTS.MD in cwd; CONTEXT.md at the root.",
              files={"a/agents.md": b"lower agents\n", "a/Agents.md": b"mixed agents\n", "a/claude.md": b"lower claude\n",
                     "a/AGENTS.MD": b"upper ext\n", "CONTEXT.md": b"root context\n"}, git=G, cwd="a"),
    OcFixture("oc_deep_mixed", "Root AGENTS.md, a/CLAUDE.md, a/b/AGENTS.md, a/b/c cwd with CONTEXT.md.",
              files={"AGENTS.md": b"root agents\n", "a/CLAUDE.md": b"a claude\n", "a/b/AGENTS.md": b"a/b agents\n",
                     "a/b/c/CONTEXT.md": b"c context\n"}, git=G, cwd="a/b/c"),
    # --- the worktree root
    OcFixture("oc_no_git", "No .git anywhere: AGENTS.md in cwd, its parent and the tree top.",
              files={"AGENTS.md": b"tree top\n", "a/AGENTS.md": b"a agents\n", "a/b/AGENTS.md": b"a/b agents\n"},
              cwd="a/b"),
    OcFixture("oc_no_git_claude", "No .git: CLAUDE.md in cwd, AGENTS.md two levels up.",
              files={"AGENTS.md": b"tree top agents\n", "a/b/CLAUDE.md": b"a/b claude\n"}, cwd="a/b"),
    OcFixture("oc_no_git_above_tree", "No .git: an AGENTS.md in the directory above the tree is read too.",
              files={"a/AGENTS.md": b"a agents\n"}, cwd="a", setup=_above_tree),
    OcFixture("oc_agents_below_claude", "CLAUDE.md at the root, AGENTS.md in cwd: only the AGENTS.md.",
              files={"CLAUDE.md": b"root claude\n", "a/AGENTS.md": b"a agents\n"}, git=G, cwd="a"),
    OcFixture("oc_above_git_root", "AGENTS.md above the git root (repo), in repo and in cwd repo/pkg.",
              files={"AGENTS.md": b"above the root\n", "repo/AGENTS.md": b"repo root\n", "repo/pkg/AGENTS.md": b"pkg\n"},
              git=("repo",), cwd="repo/pkg"),
    OcFixture("oc_above_git_root_claude", "AGENTS.md above the git root only; CLAUDE.md inside.",
              files={"AGENTS.md": b"above the root\n", "repo/CLAUDE.md": b"repo claude\n"},
              git=("repo",), cwd="repo/pkg"),
    OcFixture("oc_git_worktree", "A linked git worktree (its .git is a file): cwd wt/pkg.",
              setup=_linked_worktree, cwd="wt/pkg"),
    OcFixture("oc_submodule_like", "A repository whose .git is a file (separate git dir) inside another: cwd outer/sub/pkg.",
              setup=_submodule_like, cwd="outer/sub/pkg"),
    OcFixture("oc_bogus_git_file", "A .git file pointing nowhere in repo; AGENTS.md above it.",
              files={"AGENTS.md": b"above\n", "repo/AGENTS.md": b"repo\n", "repo/pkg/AGENTS.md": b"pkg\n"},
              git_files={"repo": b"gitdir: /nonexistent/gitdir\n"}, cwd="repo/pkg"),
    OcFixture("oc_empty_git_dir", "An empty .git directory in repo; AGENTS.md above it.",
              files={"AGENTS.md": b"above\n", "repo/AGENTS.md": b"repo\n", "repo/pkg/AGENTS.md": b"pkg\n"},
              dirs=("repo/.git",), cwd="repo/pkg"),
    OcFixture("oc_nested_repo", "A git repo inside another: cwd in the inner one.",
              files={"AGENTS.md": b"outer root\n", "inner/AGENTS.md": b"inner root\n", "inner/pkg/AGENTS.md": b"inner pkg\n"},
              git=(".", "inner"), cwd="inner/pkg"),
    # --- global files
    OcFixture("oc_global_both", "~/.config/opencode/AGENTS.md and ~/.claude/CLAUDE.md, project AGENTS.md.",
              home={".config/opencode/AGENTS.md": b"global opencode\n", ".claude/CLAUDE.md": b"global claude\n"},
              files={"AGENTS.md": b"root agents\n", "a/AGENTS.md": b"a agents\n"}, git=G, cwd="a"),
    OcFixture("oc_global_claude_only", "~/.claude/CLAUDE.md only, project CLAUDE.md.",
              home={".claude/CLAUDE.md": b"global claude\n"}, files={"CLAUDE.md": b"root claude\n"}, git=G),
    OcFixture("oc_global_empty_opencode", "Empty ~/.config/opencode/AGENTS.md beside ~/.claude/CLAUDE.md.",
              home={".config/opencode/AGENTS.md": b"", ".claude/CLAUDE.md": b"global claude\n"},
              files={"AGENTS.md": b"root agents\n"}, git=G),
    OcFixture("oc_global_xdg", "XDG_CONFIG_HOME set: $XDG_CONFIG_HOME/opencode/AGENTS.md vs ~/.config/opencode/AGENTS.md.",
              home={"xdg/opencode/AGENTS.md": b"xdg opencode\n", ".config/opencode/AGENTS.md": b"dot-config opencode\n"},
              files={"AGENTS.md": b"root agents\n"}, git=G, env={"XDG_CONFIG_HOME": "{home}/xdg"}),
    OcFixture("oc_global_config_dir", "OPENCODE_CONFIG_DIR set to a directory holding AGENTS.md.",
              home={"ocdir/AGENTS.md": b"config dir agents\n", ".config/opencode/AGENTS.md": b"dot-config opencode\n"},
              files={"AGENTS.md": b"root agents\n"}, git=G, env={"OPENCODE_CONFIG_DIR": "{home}/ocdir"}),
    OcFixture("oc_global_link", "~/.config/opencode/AGENTS.md is a link to ~/dotfiles/agents.md.",
              home={"dotfiles/agents.md": b"dotfile rules\n", ".config/opencode/AGENTS.md": Symlink("../../dotfiles/agents.md")},
              git=G),
    OcFixture("oc_project_config_disabled", "OPENCODE_DISABLE_PROJECT_CONFIG=1: project files and config.",
              home={".config/opencode/AGENTS.md": b"global opencode\n"},
              files={"AGENTS.md": b"root agents\n", "opencode.json": (PROJ_CFG % '["docs/*.md"]').encode(),
                     "docs/a.md": b"docs a\n"}, git=G, env={"OPENCODE_DISABLE_PROJECT_CONFIG": "1"}),
    # --- text
    OcFixture("oc_text_edges", "No trailing newline, several trailing newlines, leading blank lines, whitespace-only.",
              files={"AGENTS.md": b"\n\nroot leading blanks", "a/AGENTS.md": b"a trailing\n\n\n",
                     "a/b/AGENTS.md": b" \n\t\n"}, git=G, cwd="a/b"),
    OcFixture("oc_bom_crlf", "UTF-8 BOM and CRLF in global and project files.",
              home={".config/opencode/AGENTS.md": BOM + b"global bom\r\nsecond\r\n"},
              files={"AGENTS.md": BOM + b"root line one\r\nroot line two\r\n\r\n", "sub/AGENTS.md": b"crlf sub\r\n"},
              git=G, cwd="sub"),
    OcFixture("oc_large_200k", "A 200,000-byte AGENTS.md (ASCII lines).",
              files={"AGENTS.md": _big(200_000, "big")}, git=G),
    OcFixture("oc_non_utf8", "Latin-1 and invalid UTF-8 bytes in AGENTS.md.",
              files={"AGENTS.md": b"caf\xe9 \xff\xfe bytes\nok \xc3\xa9 utf8\n\xed\xa0\x80 surrogate\n"}, git=G),
    OcFixture("oc_unicode_paths", "Directory names with spaces and non-ASCII; non-ASCII content.",
              files={"AGENTS.md": "root — “quotes” ünïcödé 日本語\n".encode(),
                     "dir with space/ünï/AGENTS.md": "deep ✓\n".encode()}, git=G, cwd="dir with space/ünï"),
    OcFixture("oc_nul_byte", "A NUL byte inside AGENTS.md.",
              files={"AGENTS.md": b"before\x00after\n"}, git=G),
    # --- links and special files
    OcFixture("oc_link_claude_to_agents", "CLAUDE.md -> AGENTS.md beside it, root and pkg.",
              files={"AGENTS.md": b"root agents\n", "CLAUDE.md": Symlink("AGENTS.md"),
                     "pkg/AGENTS.md": b"pkg agents\n", "pkg/CLAUDE.md": Symlink("AGENTS.md")}, git=G, cwd="pkg"),
    OcFixture("oc_link_only_claude", "CLAUDE.md -> ../shared/rules.md, no AGENTS.md.",
              files={"shared/rules.md": b"shared rules\n", "pkg/CLAUDE.md": Symlink("../shared/rules.md")},
              git=G, cwd="pkg"),
    OcFixture("oc_link_out_of_project", "AGENTS.md links to a file outside the project (in HOME), absolute and relative.",
              home={"outside/abs.md": b"outside absolute\n", "outside/rel.md": b"outside relative\n"},
              files={"AGENTS.md": Symlink("{home}/outside/abs.md"), "pkg/AGENTS.md": Symlink("../../home/outside/rel.md")},
              git=G, cwd="pkg"),
    OcFixture("oc_link_dangling", "cwd AGENTS.md dangles beside a plain CLAUDE.md; root AGENTS.md plain.",
              files={"AGENTS.md": b"root agents\n", "pkg/AGENTS.md": Symlink("gone.md"), "pkg/CLAUDE.md": b"pkg claude\n"},
              git=G, cwd="pkg"),
    OcFixture("oc_link_dangling_only", "The only AGENTS.md dangles; CLAUDE.md beside it.",
              files={"AGENTS.md": Symlink("gone.md"), "CLAUDE.md": b"root claude\n"}, git=G),
    OcFixture("oc_link_loop", "AGENTS.md -> loop.md -> AGENTS.md in cwd; CLAUDE.md beside.",
              files={"AGENTS.md": Symlink("loop.md"), "loop.md": Symlink("AGENTS.md"), "CLAUDE.md": b"root claude\n"},
              git=G),
    OcFixture("oc_dir_named_agents", "A directory named AGENTS.md in cwd beside CLAUDE.md.",
              files={"CLAUDE.md": b"root claude\n", "AGENTS.md/x": b"inside a dir\n"}, git=G),
    OcFixture("oc_link_to_dir", "AGENTS.md -> docs/ (a directory) beside CLAUDE.md.",
              files={"docs/x.md": b"x\n", "AGENTS.md": Symlink("docs"), "CLAUDE.md": b"root claude\n"}, git=G),
    OcFixture("oc_cwd_through_link", "cwd reached through a directory link (tree/link -> real); PWD names the link.",
              files={"AGENTS.md": b"root agents\n", "real/pkg/AGENTS.md": b"real pkg\n", "link": Symlink("real")},
              git=G, pwd="link/pkg"),
    OcFixture("oc_mid_path_link", "pkg/AGENTS.md -> ../linkeddir/rules.md, linkeddir -> shared.",
              files={"shared/rules.md": b"shared via dir link\n", "linkeddir": Symlink("shared"),
                     "pkg/AGENTS.md": Symlink("../linkeddir/rules.md")}, git=G, cwd="pkg"),
    OcFixture("oc_unreadable", "Mode-000 AGENTS.md in cwd beside CLAUDE.md, plain root AGENTS.md; run without DAC override.",
              files={"AGENTS.md": b"root agents\n", "pkg/AGENTS.md": b"unreadable\n", "pkg/CLAUDE.md": b"pkg claude\n"},
              modes={"pkg/AGENTS.md": 0o000}, git=G, cwd="pkg", wrap=DAC_AS_USER),
    OcFixture("oc_unreadable_global", "Mode-000 ~/.config/opencode/AGENTS.md beside ~/.claude/CLAUDE.md; no DAC override.",
              home={".config/opencode/AGENTS.md": b"unreadable global\n", ".claude/CLAUDE.md": b"global claude\n"},
              home_modes={".config/opencode/AGENTS.md": 0o000},
              files={"AGENTS.md": b"root agents\n"}, git=G, wrap=DAC_AS_USER),
    # --- config `instructions`
    OcFixture("oc_cfg_project", "Project opencode.json instructions: a file, a glob, a ** glob, a missing file.",
              files={"opencode.json": (PROJ_CFG % '["docs/rules.md", "guides/*.md", "deep/**/*.md", "missing.md"]').encode(),
                     "docs/rules.md": b"docs rules\n", "guides/b.md": b"guide b\n", "guides/a.md": b"guide a\n",
                     "deep/x/y/z.md": b"deep z\n", "deep/top.md": b"deep top\n", "AGENTS.md": b"root agents\n",
                     "pkg/AGENTS.md": b"pkg agents\n"}, git=G, cwd="pkg"),
    OcFixture("oc_cfg_relative_upward", "Project config instructions `notes.md`: searched from cwd up to the root.",
              files={"opencode.json": (PROJ_CFG % '["notes.md"]').encode(), "notes.md": b"root notes\n",
                     "pkg/notes.md": b"pkg notes\n", "pkg/sub/notes.md": b"below cwd notes\n"}, git=G, cwd="pkg"),
    OcFixture("oc_cfg_global", "Global config instructions: ~/ path, absolute path, relative glob, duplicate of AGENTS.md.",
              home={".config/opencode/opencode.json": (PROJ_CFG % '["~/rules/home.md", "{home}/rules/abs.md", "rel/*.md", "AGENTS.md"]').encode(),
                    "rules/home.md": b"home rule\n", "rules/abs.md": b"absolute rule\n"},
              files={"AGENTS.md": b"root agents\n", "rel/r.md": b"project rel\n"}, git=G),
    OcFixture("oc_cfg_custom_file", "$OPENCODE_CONFIG names a config file besides the global and project ones.",
              home={".config/opencode/opencode.json": (PROJ_CFG % '["g.md"]').encode(),
                    "custom/my.json": (PROJ_CFG % '["c.md", "g.md"]').encode()},
              files={"opencode.json": (PROJ_CFG % '["p.md"]').encode(), "g.md": b"global-listed\n",
                     "p.md": b"project-listed\n", "c.md": b"custom-listed\n"},
              env={"OPENCODE_CONFIG": "{home}/custom/my.json"}, git=G),
    OcFixture("oc_cfg_merge", "Global and project config both list instructions.",
              home={".config/opencode/opencode.json": (PROJ_CFG % '["g.md"]').encode()},
              files={"opencode.json": (PROJ_CFG % '["p.md"]').encode(), "g.md": b"global-listed\n", "p.md": b"project-listed\n"},
              git=G),
    OcFixture("oc_cfg_dot_opencode", "instructions in .opencode/opencode.json of the root; cwd pkg.",
              files={".opencode/opencode.json": (PROJ_CFG % '["docs/*.md"]').encode(), "docs/d.md": b"dot-opencode listed\n",
                     "AGENTS.md": b"root agents\n"}, git=G, cwd="pkg"),
    OcFixture("oc_cfg_glob_order", "A glob matching six files created out of name order, a dot file, a link, a directory named *.md, a file below.",
              files={"opencode.json": (PROJ_CFG % '["notes/*.md"]').encode(),
                     **{f"notes/{n}.md": f"note {n}\n".encode() for n in ("m", "z", "b", "y", "a", "k")},
                     "notes/.hidden.md": b"hidden note\n", "real.md": b"real via link\n",
                     "notes/link.md": Symlink("../real.md"), "notes/dir.md/x": b"in a dir\n",
                     "notes/sub/deep.md": b"below the glob\n"}, git=G),
    OcFixture("oc_cfg_doublestar", "A ** glob over nested directories created out of name order; a file in the cwd and the root.",
              files={"opencode.json": (PROJ_CFG % '["**/RULES.md"]').encode(),
                     "pkg/z/RULES.md": b"pkg z\n", "pkg/RULES.md": b"pkg\n", "pkg/a/RULES.md": b"pkg a\n",
                     "RULES.md": b"root\n", "other/RULES.md": b"other\n"}, git=G, cwd="pkg"),
    # The order of several matches of one brace group varies from run to
    # run in opencode (measured: `{b,a}/R.md` with both, `n/{z,y}.md` with
    # both), so each group here has one match besides names it must skip.
    OcFixture("oc_cfg_braces", "Braces in instructions globs: alternatives in one name and in a directory part.",
              files={"opencode.json": (PROJ_CFG % '["docs/*.{txt,md}", "{b,a}/R.md", "n/{z,y}.md", "{c}/R.md"]').encode(),
                     "docs/x.md": b"docs x md\n", "docs/y.txt": b"docs y txt\n", "docs/z.rst": b"docs z rst\n",
                     "docs/w.md": b"docs w md\n", "a/R.md": b"a R\n", "d/R.md": b"d R\n",
                     "n/y.md": b"n y\n", "n/x.md": b"n x\n", "c/R.md": b"c R\n"}, git=G),
    OcFixture("oc_cfg_braces_slash", "Braces in instructions globs whose alternatives hold a `/`: a path and a name, a glob below a directory.",
              files={"opencode.json": (PROJ_CFG % '["{b/x,a}/R.md", "{docs/*.txt,n/y.md}", "{q,s/t}/U.md"]').encode(),
                     "a/R.md": b"a R\n", "b/x/R.md": b"b x R\n", "b/R.md": b"b R\n",
                     "docs/y.txt": b"docs y txt\n", "docs/x.md": b"docs x md\n", "n/y.md": b"n y\n",
                     "q/U.md": b"q U\n", "s/t/U.md": b"s t U\n"}, git=G),
    OcFixture("oc_cfg_outside", "instructions naming files outside the project: ../ relative, absolute, ~/, an absolute glob; and absolute paths inside.",
              files={"opencode.json": (PROJ_CFG % '["../outside/rel.md", "{home}/abs/*.md", "~/tilde.md", "{tree}/inside/abs.md", "{tree}/inside/g*.md", "~/nope.md"]').encode(),
                     "inside/abs.md": b"inside absolute\n", "inside/g1.md": b"inside glob\n"},
              home={"abs/one.md": b"home abs glob\n", "tilde.md": b"home tilde\n"},
              git=G, setup=lambda tree, home: fx_base._write(os.path.dirname(tree), "outside/rel.md", b"outside relative\n")),
    OcFixture("oc_cfg_dupes_and_links", "instructions naming the cwd's AGENTS.md again, a link inside the project, a link out of it, an empty file, a directory.",
              files={"opencode.json": (PROJ_CFG % '["AGENTS.md", "in-link.md", "out-link.md", "empty.md", "adir", "./dot/rel.md"]').encode(),
                     "AGENTS.md": b"root agents\n", "docs/target.md": b"link target\n", "in-link.md": Symlink("docs/target.md"),
                     "out-link.md": Symlink("{home}/out.md"), "empty.md": b"", "adir/x.md": b"x\n", "dot/rel.md": b"dot rel\n"},
              home={"out.md": b"outside via link\n"}, git=G),
    OcFixture("oc_cfg_jsonc_places", "opencode.jsonc at the root, opencode.json in cwd, pkg/.opencode/opencode.json; comments and a trailing comma.",
              files={"opencode.jsonc": b'{\n  // a comment\n  "$schema": "https://opencode.ai/config.json",\n  "instructions": ["r1.md",],\n}\n',
                     "pkg/opencode.json": (PROJ_CFG % '["r2.md"]').encode(),
                     "pkg/.opencode/opencode.json": (PROJ_CFG % '["r3.md"]').encode(),
                     ".opencode/opencode.json": (PROJ_CFG % '["r4.md"]').encode(),
                     "r1.md": b"r1\n", "r2.md": b"r2\n", "r3.md": b"r3\n", "r4.md": b"r4\n"}, git=G, cwd="pkg"),
    OcFixture("oc_cfg_url", "An https:// instruction (fetched; offline here) beside a file.",
              files={"opencode.json": (PROJ_CFG % '["https://example.invalid/rules.md", "r.md"]').encode(),
                     "r.md": b"local r\n"}, git=G),
]

BY_NAME = {f.name: f for f in FIXTURES}
assert len(BY_NAME) == len(FIXTURES), "duplicate fixture names"


def _expand(text: str, tree: str, home: str) -> str:
    return text.replace("{tree}", tree).replace("{home}", home)


def build(fx: OcFixture, dest: str):
    """Lay out FX under DEST; (tree, cwd, home), absolute. cwd may cross a link (fx.pwd)."""
    dest = os.path.abspath(dest)
    tree, home = os.path.join(dest, "tree"), os.path.join(dest, "home")
    os.makedirs(tree, exist_ok=True)
    os.makedirs(home, exist_ok=True)
    for rel in fx.git:
        fx_base._git_init(os.path.normpath(os.path.join(tree, rel)))
    for rel, content in fx.git_files.items():
        fx_base._write(tree, os.path.join(rel, ".git"), content)
    for rel in fx.dirs:
        os.makedirs(os.path.join(tree, rel), exist_ok=True)
    places = {"tree": tree, "home": home}
    for rel, value in fx.files.items():
        if isinstance(value, bytes):
            value = _expand(value.decode("utf-8", "surrogateescape"), tree, home).encode("utf-8", "surrogateescape")
        fx_base._write(tree, rel, value, places)
    for rel, value in fx.home.items():
        if isinstance(value, bytes):
            value = _expand(value.decode("utf-8", "surrogateescape"), tree, home).encode("utf-8", "surrogateescape")
        fx_base._write(home, rel, value, places)
    if fx.setup:
        fx.setup(tree, home)
    for rel, mode in fx.modes.items():
        os.chmod(os.path.join(tree, rel), mode)
    for rel, mode in fx.home_modes.items():
        os.chmod(os.path.join(home, rel), mode)
    cwd = os.path.join(tree, fx.pwd) if fx.pwd else os.path.normpath(os.path.join(tree, fx.cwd))
    if not fx.pwd:
        os.makedirs(cwd, exist_ok=True)
    return tree, cwd, home


def env(fx: OcFixture, tree: str, home: str) -> dict:
    return {k: _expand(v, tree, home) for k, v in fx.env.items()}


if __name__ == "__main__":
    for f in FIXTURES:
        print(f"{f.name:30} {f.about}")
