"""Named file-tree fixtures for the end-to-end parity harness.

A fixture is data: the files of a project tree (relative path -> bytes, or a
Symlink), the directories that get a `.git` (a real `git init`), the cwd inside
the tree, files in the throwaway HOME, optional Codex config.toml and Claude
settings.json text, extra instruction-relevant environment variables, and the
hosts it applies to.  `build_fixture(name, dest)` lays it out as

    dest/tree/...   the project tree (cwd somewhere inside)
    dest/home/...   the throwaway HOME

and returns (tree_dir, cwd, home).  `fixture_env(name, tree, home)` gives the
fixture's extra environment (values may use {home} and {tree}, as may the
targets of Symlinks).
"""
from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Callable

import harness

ALL = ("codex", "claude", "pi", "pi-0.73")
PIS = ("pi", "pi-0.73")  # pi 1.x (the current package) and pi 0.73
BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Symlink:
    # stored as given (relative targets are relative to the link's dir);
    # "{tree}" and "{home}" become the built tree's and HOME's absolute paths
    target: str


@dataclass(frozen=True)
class Hardlink:
    target: str  # another name of the same file, relative to the same root (written before it)


@dataclass(frozen=True)
class Fixture:
    name: str
    hosts: tuple
    about: str
    files: dict = field(default_factory=dict)        # tree-relative path -> bytes | Symlink
    git: tuple = ()                                  # tree-relative dirs that get `git init`
    git_files: dict = field(default_factory=dict)    # tree-relative dir -> content of a `.git` *file*
    dirs: tuple = ()                                 # extra (empty) directories, tree-relative
    cwd: str = "."
    home: dict = field(default_factory=dict)         # HOME-relative path -> bytes | Symlink
    home_dirs: tuple = ()
    codex_config: str | None = None                  # -> $HOME/.codex/config.toml
    claude_settings: str | None = None               # -> $HOME/.claude/settings.json
    env: dict = field(default_factory=dict)          # extra env; {home} {tree} expanded
    home_fn: Callable | None = None                  # (tree, home) -> {HOME-relative path: bytes}
    # host -> why agentspine differs on purpose. parity.py requires the
    # outputs to differ (a stale declaration fails) and the Rust test named
    # in the reason asserts agentspine's choice and its --explain verdict.
    declared: dict = field(default_factory=dict)
    # host -> why this case is not compared yet (reported as skipped).
    pending: dict = field(default_factory=dict)
    # Claude: compare the "Contents of" entries as a set (the host reads
    # .claude/rules in directory-listing order; agentspine sorts).
    unordered_entries: bool = False
    modes: dict = field(default_factory=dict)        # tree-relative path -> mode, set after writing
    # (source, target) tree-relative directories: parity.py bind-mounts
    # source on target after building (as root) and unmounts it after.
    mounts: tuple = ()
    # A command prefix for the client, `resolve` and `check` of this case
    # (e.g. DAC_AS_USER, so that a mode-000 file is unreadable as root).
    wrap: tuple = ()


def _filler(nbytes: int, tag: str) -> bytes:
    """ASCII lines of 64 bytes ("tag NNNNN ...\\n"), exactly nbytes long."""
    out = bytearray()
    i = 0
    while len(out) < nbytes:
        line = f"{tag} line {i:05d} ".encode()
        line += b"." * (63 - len(line)) + b"\n"
        out += line
        i += 1
    return bytes(out[:nbytes])


# Runs a command without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (uid 0
# keeps its files; the permission bits then apply to it as to a user).
DAC_AS_USER = ("setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--")

GLOBALS = {
    ".codex/AGENTS.md": b"# Global codex\n\nglobal codex rule\n",
    ".claude/CLAUDE.md": b"# Global claude\n\nglobal claude rule\n",
    ".pi/agent/AGENTS.md": b"# Global pi\n\nglobal pi rule\n",
}

FIXTURES: list[Fixture] = [
    Fixture(
        "nested_cwd_sub", ALL,
        "Both families at several levels, cwd two levels down; files below cwd and in a sibling must not load.",
        files={
            "AGENTS.md": b"root agents\n",
            "CLAUDE.md": b"root claude\n",
            "a/AGENTS.md": b"a agents\n",
            "a/b/AGENTS.md": b"a/b agents\n",
            "a/b/CLAUDE.md": b"a/b claude\n",
            "a/b/c/AGENTS.md": b"below cwd agents\n",
            "a/b/c/CLAUDE.md": b"below cwd claude\n",
            "sibling/AGENTS.md": b"sibling agents\n",
        },
        git=(".",), cwd="a/b"),
    Fixture(
        "agents_only_nested", ALL,
        "Only AGENTS.md files (no CLAUDE.md anywhere): Claude 2.1.332 should read them.",
        files={"AGENTS.md": b"root agents\n", "a/AGENTS.md": b"a agents\n", "a/b/AGENTS.md": b"a/b agents\n"},
        git=(".",), cwd="a/b"),
    Fixture(
        "override_beside_agents", ALL,
        "AGENTS.override.md beside AGENTS.md at the root; plain AGENTS.md in cwd.",
        files={"AGENTS.override.md": b"override root\n", "AGENTS.md": b"plain root\n",
               "sub/AGENTS.md": b"plain sub\n"},
        git=(".",), cwd="sub"),
    Fixture(
        "empty_override_hides", ALL,
        "A blank AGENTS.override.md beside a non-empty AGENTS.md (Codex: the blank winner hides its sibling).",
        files={"AGENTS.override.md": b" \n\n", "AGENTS.md": b"hidden by blank override?\n",
               "sub/AGENTS.md": b"sub text\n"},
        git=(".",), cwd="sub"),
    Fixture(
        "empty_and_blank", ALL,
        "Empty file at the root, whitespace-only in the middle, real text in cwd (AGENTS.md only).",
        files={"AGENTS.md": b"", "a/AGENTS.md": b"  \n\t\n \r\n", "a/b/AGENTS.md": b"real text\n"},
        home={".codex/AGENTS.md": b"\n\n", ".pi/agent/AGENTS.md": b"", ".claude/CLAUDE.md": b"  \n"},
        git=(".",), cwd="a/b"),
    Fixture(
        "empty_and_blank_claude", ("claude", *PIS),
        "Same shape with CLAUDE.md files: empty root, blank middle, real cwd; blank CLAUDE.local.md.",
        files={"CLAUDE.md": b"", "a/CLAUDE.md": b"\n \n\t", "a/b/CLAUDE.md": b"claude real\n",
               "a/b/CLAUDE.local.md": b"\n\n"},
        git=(".",), cwd="a/b"),
    Fixture(
        "blank_claude_beside_agents", ALL,
        "A blank CLAUDE.md beside a non-empty AGENTS.md (does the blank CLAUDE.md block AGENTS.md in Claude?).",
        files={"CLAUDE.md": b"  \n", "AGENTS.md": b"agents text\n"},
        git=(".",), cwd="."),
    Fixture(
        "fallback_filenames", ("codex",),
        "Codex project_doc_fallback_filenames (with invalid entries '../x.md' and 'sub/y.md').",
        files={"TEAM.md": b"team root\n", "x.md": b"x (must not load)\n",
               "a/CLAUDE.md": b"claude a\n", "a/TEAM.md": b"team a\n",
               "a/b/AGENTS.md": b"agents b\n", "a/b/TEAM.md": b"team b (hidden)\n",
               "a/b/sub/y.md": b"y (must not load)\n"},
        codex_config='project_doc_fallback_filenames = ["TEAM.md", "CLAUDE.md", "../x.md", "sub/y.md"]\n',
        git=(".",), cwd="a/b"),
    Fixture(
        "over_32k_single", ALL,
        "One 40,000-byte AGENTS.md; a 2-byte UTF-8 char straddles byte 32768.",
        files={"AGENTS.md": _filler(32767, "big") + "é".encode() + _filler(40000 - 32769, "tail")},
        git=(".",), cwd="."),
    Fixture(
        "over_32k_two_files", ALL,
        "Two 20,000-byte files (root, cwd) crossing 32 KiB together; a 3-byte char straddles the cut; globals present.",
        files={"AGENTS.md": _filler(20000, "root"),
               "sub/AGENTS.md": _filler(12767, "sub") + "€".encode() + _filler(20000 - 12770, "subtail")},
        home=dict(GLOBALS, **{".codex/AGENTS.md": _filler(1000, "global")}),
        git=(".",), cwd="sub"),
    Fixture(
        "global_only", ALL,
        "Only the global/user files; the project has a .git and no instruction files.",
        home={".codex/AGENTS.md": b"\n# Global codex\n\nglobal codex rule\n\n\n",
              ".claude/CLAUDE.md": b"\n# Global claude\n\nglobal claude rule\n\n\n",
              ".pi/agent/AGENTS.md": b"\n# Global pi\n\nglobal pi rule\n\n\n"},
        git=(".",), cwd="."),
    Fixture(
        "global_blank_override", ("codex",),
        "Global AGENTS.override.md is blank, global AGENTS.md has text (Codex global falls through?).",
        home={".codex/AGENTS.override.md": b" \n", ".codex/AGENTS.md": b"global text\n"},
        files={"AGENTS.md": b"project text\n"},
        git=(".",), cwd="."),
    Fixture(
        "global_override", ("codex",),
        "Global AGENTS.override.md and AGENTS.md both non-blank.",
        home={".codex/AGENTS.override.md": b"global override\n", ".codex/AGENTS.md": b"global plain\n"},
        git=(".",), cwd="."),
    Fixture(
        "global_plus_project", ALL,
        "Global files plus AGENTS.md and CLAUDE.md at the root and in cwd.",
        home=GLOBALS,
        files={"AGENTS.md": b"# Project agents\n\nproject agents rule\n", "CLAUDE.md": b"# Project claude\n\nproject claude rule\n",
               "pkg/AGENTS.md": b"pkg agents\n", "pkg/CLAUDE.md": b"pkg claude\n"},
        git=(".",), cwd="pkg"),
    Fixture(
        "bom_crlf", ALL,
        "UTF-8 BOM and CRLF line ends in global and project AGENTS.md files.",
        home={".codex/AGENTS.md": BOM + b"global bom\r\nsecond line\r\n",
              ".pi/agent/AGENTS.md": BOM + b"global bom\r\nsecond line\r\n",
              ".claude/CLAUDE.md": BOM + b"global bom\r\nsecond line\r\n"},
        files={"AGENTS.md": BOM + b"root line one\r\nroot line two\r\n\r\n", "sub/AGENTS.md": b"crlf sub\r\n"},
        git=(".",), cwd="sub"),
    Fixture(
        "bom_crlf_claude", ("claude", *PIS),
        "BOM + CRLF in CLAUDE.md, with a CRLF import line.",
        files={"CLAUDE.md": BOM + b"claude bom line\r\n@imp.md\r\nafter import\r\n", "imp.md": b"imported crlf\r\n"},
        git=(".",), cwd="."),
    Fixture(
        "claude_imports_basic", ("claude", *PIS),
        "Relative imports, ./ prefix, @ in a code span and a fence, a missing target, an e-mail address, a cycle.",
        files={
            "CLAUDE.md": (b"# Root\n"
                          b"See @docs/a.md for more.\n"
                          b"Inline code `@docs/code.md` must not import.\n"
                          b"```\n@docs/fence.md\n```\n"
                          b"Missing: @docs/missing.md\n"
                          b"Mail me@example.com please.\n"
                          b"@./docs/b.md\n"),
            "docs/a.md": b"doc a\n@c.md\n",
            "docs/b.md": b"doc b\n",
            "docs/c.md": b"doc c (imported by a, imports a back)\n@a.md\n",
            "docs/code.md": b"code span target (must not load)\n",
            "docs/fence.md": b"fence target (must not load)\n",
        },
        git=(".",), cwd="."),
    Fixture(
        "claude_imports_depth", ("claude",),
        "An import chain six hops deep: CLAUDE.md -> d1 -> ... -> d6.",
        files={"CLAUDE.md": b"depth 0\n@d1.md\n",
               **{f"d{i}.md": f"depth {i}\n@d{i + 1}.md\n".encode() for i in range(1, 6)},
               "d6.md": b"depth 6\n"},
        git=(".",), cwd="."),
    Fixture(
        "claude_imports_home", ("claude",),
        "~/ imports from the user CLAUDE.md and from the project CLAUDE.md.",
        home={".claude/CLAUDE.md": b"user file\n@~/notes/user-notes.md\n",
              "notes/user-notes.md": b"user notes via ~/\n",
              "notes/proj-notes.md": b"project notes via ~/\n"},
        files={"CLAUDE.md": b"project file\n@~/notes/proj-notes.md\n"},
        git=(".",), cwd=".",
        declared={"claude": "a user import outside the config home is never read (crates/agentspine-core/tests/core/differences.rs: a_user_import_outside_the_config_home_is_not_read)"}),
    Fixture(
        "claude_imports_home_config", ("claude",),
        "A ~/ import from the user CLAUDE.md that stays inside the config home (~/.claude).",
        home={".claude/CLAUDE.md": b"user file\n@~/.claude/notes.md\n",
              ".claude/notes.md": b"notes inside the config home\n"},
        files={"CLAUDE.md": b"project file\n"},
        git=(".",), cwd="."),
    Fixture(
        "claude_imports_ancestor", ("claude",),
        "Imports in an ancestor CLAUDE.md (above cwd) and in cwd's CLAUDE.md (one reaching up with ../).",
        files={"CLAUDE.md": b"root file\n@docs/x.md\n", "docs/x.md": b"x from root import\n",
               "sub/CLAUDE.md": b"sub file\n@local.md\n@../docs/y.md\n", "sub/local.md": b"local import\n",
               "docs/y.md": b"y from sub import\n"},
        git=(".",), cwd="sub"),
    Fixture(
        "claude_rules", ("claude",),
        ".claude/rules with and without paths: frontmatter, nested rule dir, user rules, cwd-level rules.",
        files={"CLAUDE.md": b"root claude\n",
               ".claude/rules/general.md": b"general rule\n",
               ".claude/rules/ts.md": b"---\npaths:\n  - \"**/*.ts\"\n---\nts-only rule\n",
               ".claude/rules/described.md": b"---\ndescription: has frontmatter, no paths\n---\ndescribed rule\n",
               ".claude/rules/nested/deep.md": b"deep rule\n",
               "sub/.claude/rules/sub-rule.md": b"sub rule\n",
               "sub/app.ts": b"export {};\n"},
        home={".claude/rules/user-rule.md": b"user rule\n"},
        git=(".",), cwd="sub",
        unordered_entries=True),
    Fixture(
        "claude_local_and_dotclaude", ("claude", *PIS),
        "CLAUDE.md, .claude/CLAUDE.md and CLAUDE.local.md at the root; CLAUDE.local.md alone in cwd.",
        files={"CLAUDE.md": b"root claude\n", ".claude/CLAUDE.md": b"root dot-claude\n",
               "CLAUDE.local.md": b"root local\n", "sub/CLAUDE.local.md": b"sub local\n"},
        git=(".",), cwd="sub"),
    Fixture(
        "claude_frontmatter_comments", ("claude", *PIS),
        "YAML frontmatter, block and inline HTML comments, a comment inside a fence.",
        files={"CLAUDE.md": (b"---\ntitle: x\n---\n# Heading\n\n<!-- block comment -->\n\n"
                             b"text <!-- inline comment --> after\n\n<!--\nmulti\nline\n-->\n"
                             b"```\n<!-- in fence -->\n```\nend\n")},
        git=(".",), cwd="."),
    Fixture(
        "claude_and_agents_mode", ("claude",),
        "Claude settings pluginConfigs agents-md mode claude-md-and-agents-md: both families per directory.",
        files={"CLAUDE.md": b"root claude\n", "AGENTS.md": b"root agents\n", "sub/AGENTS.md": b"sub agents\n"},
        claude_settings='{"pluginConfigs": {"agents-md@builtin": {"options": {"instructionFiles": "claude-md-and-agents-md"}}}}\n',
        git=(".",), cwd="sub"),
    Fixture(
        "claude_auto_memory", ("claude",),
        "Auto-memory MEMORY.md under ~/.claude/projects/<enc(git root)>/memory/.",
        files={"CLAUDE.md": b"root claude\n", "sub/keep.txt": b"x\n"},
        home_fn=lambda tree, home: {
            f".claude/projects/{harness.claude_project_key(tree)}/memory/MEMORY.md": b"# Memory\n\nremembered fact\n"},
        git=(".",), cwd="sub"),
    Fixture(
        "claude_auto_memory_long", ("claude",),
        "A MEMORY.md of 250 lines: Claude Code loads the first 200 lines (or 25,000 characters).",
        files={"CLAUDE.md": b"root claude\n"},
        home_fn=lambda tree, home: {
            f".claude/projects/{harness.claude_project_key(tree)}/memory/MEMORY.md":
                b"".join(b"- fact %03d\n" % i for i in range(250))},
        git=(".",), cwd="."),
    Fixture(
        "claude_auto_memory_wide", ("claude",),
        "A MEMORY.md of 40 lines of 1,000 characters: the character limit applies first.",
        files={"CLAUDE.md": b"root claude\n"},
        home_fn=lambda tree, home: {
            f".claude/projects/{harness.claude_project_key(tree)}/memory/MEMORY.md":
                b"".join((b"%02d" % i) + b"x" * 997 + b"\n" for i in range(40))},
        git=(".",), cwd="."),
    Fixture(
        "claude_config_dir_env", ("claude",),
        "CLAUDE_CONFIG_DIR points elsewhere: its CLAUDE.md replaces ~/.claude/CLAUDE.md.",
        home={".claude/CLAUDE.md": b"default config dir (should be ignored)\n", "altclaude/CLAUDE.md": b"alt config dir\n"},
        files={"CLAUDE.md": b"project\n"},
        env={"CLAUDE_CONFIG_DIR": "{home}/altclaude"},
        git=(".",), cwd="."),
    Fixture(
        "pi_agent_dir_env", PIS,
        "PI_CODING_AGENT_DIR points elsewhere: its AGENTS.md replaces ~/.pi/agent/AGENTS.md.",
        home={".pi/agent/AGENTS.md": b"default agent dir (should be ignored)\n", "altpi/AGENTS.md": b"alt agent dir\n"},
        files={"AGENTS.md": b"project\n"},
        env={"PI_CODING_AGENT_DIR": "{home}/altpi"},
        git=(".",), cwd="."),
    Fixture(
        "pi_global_override", PIS,
        "pi's agent dir holds AGENTS.override.md, AGENTS.md and CLAUDE.md; the project a CLAUDE.md only (the fallback).",
        home={".pi/agent/AGENTS.override.md": b"global override\n", ".pi/agent/AGENTS.md": b"global plain\n",
              ".pi/agent/CLAUDE.md": b"global claude\n"},
        files={"CLAUDE.md": b"project claude fallback\n", "sub/CLAUDE.MD": b"upper claude\n"},
        git=(".",), cwd="sub"),
    Fixture(
        "pi_global_claude_only", PIS,
        "The agent dir holds only CLAUDE.md (with a BOM and CRLF); the project an empty AGENTS.override.md.",
        home={".pi/agent/CLAUDE.md": BOM + b"global claude only\r\n"},
        files={"AGENTS.override.md": b"", "AGENTS.md": b"hidden by the empty override\n"},
        git=(".",), cwd="."),
    Fixture(
        "pi_50000_bytes", PIS,
        "50,000-byte files: the global file, the root AGENTS.md, and a cwd file ending in multi-byte characters.",
        home={".pi/agent/AGENTS.md": _filler(50000, "global")},
        files={"AGENTS.md": _filler(50000, "root"),
               "sub/AGENTS.override.md": _filler(49994, "sub") + "€é".encode() + b"\n"},
        git=(".",), cwd="sub"),
    Fixture(
        "pi_deep_chain", PIS,
        "Twelve levels below the root, each with a different winner (override, AGENTS.md, CLAUDE.md, none).",
        files={**{"/".join(f"d{j}" for j in range(1, i + 1)) + ("/" if i else "") + name: f"level {i} {name}\n".encode()
                  for i, name in ((i, ("AGENTS.override.md", "AGENTS.md", "CLAUDE.md", None)[i % 4])
                                  for i in range(13)) if name},
               "d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12/keep.txt": b"x\n",
               "d1/CLAUDE.md": b"level 1 claude hidden by AGENTS.md\n"},
        git=(".",), cwd="d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/d11/d12"),
    Fixture(
        "pi_above_git_root", PIS,
        "Instruction files above the git root (the repository is proj/): pi reads them, agentspine stops at the root.",
        files={"AGENTS.md": b"above the git root\n", "proj/AGENTS.md": b"proj agents\n",
               "proj/sub/AGENTS.md": b"proj sub\n"},
        git=("proj",), cwd="proj/sub",
        declared={h: "files above the project root are reported outside-root, not read (crates/agentspine-core/tests/core/differences.rs: files_above_the_root_are_reported_not_read)" for h in PIS}),
    Fixture(
        "pi_symlink_inside", PIS,
        "AGENTS.md in cwd is a symlink to a file inside the project; CLAUDE.md beside it is a plain file.",
        files={"AGENTS.md": b"root agents\n", "docs/rules.md": b"rules via an inside link\n",
               "sub/AGENTS.md": Symlink("../docs/rules.md"), "sub/CLAUDE.md": b"sub claude\n"},
        git=(".",), cwd="sub"),
    Fixture(
        "pi_dangling_link", PIS,
        "AGENTS.md in cwd is a link to a missing file; CLAUDE.md beside it is a plain file.",
        files={"AGENTS.md": b"root agents\n", "sub/AGENTS.md": Symlink("../missing.md"),
               "sub/CLAUDE.md": b"sub claude beside a dangling link\n"},
        git=(".",), cwd="sub"),
    Fixture(
        "no_git", ALL,
        "No .git anywhere: Codex's root falls back to cwd; Claude and pi walk to /.",
        files={"AGENTS.md": b"root agents\n", "CLAUDE.md": b"root claude\n", "sub/AGENTS.md": b"sub agents\n"},
        cwd="sub",
        declared={h: "files above the project root are reported outside-root, not read (crates/agentspine-core/tests/core/differences.rs: files_above_the_root_are_reported_not_read)" for h in ("claude", *PIS)}),
    Fixture(
        "git_file_marker", ALL,
        "A .git *file* (worktree style) marks the root.",
        files={"AGENTS.md": b"root agents\n", "sub/AGENTS.md": b"sub agents\n"},
        git_files={".": b"gitdir: /nonexistent/worktrees/x\n"},
        cwd="sub"),
    Fixture(
        "root_markers_custom", ("codex",),
        "project_root_markers = [\".hg\"]: the .git at the top no longer counts, app/.hg does.",
        files={"AGENTS.md": b"top agents (above marker)\n", "app/AGENTS.md": b"app agents\n",
               "app/src/AGENTS.md": b"src agents\n"},
        dirs=("app/.hg",),
        codex_config='project_root_markers = [".hg"]\n',
        git=(".",), cwd="app/src"),
    Fixture(
        "root_markers_empty", ("codex",),
        "project_root_markers = []: cwd alone is the root.",
        files={"AGENTS.md": b"root agents\n", "sub/AGENTS.md": b"sub agents\n"},
        codex_config="project_root_markers = []\n",
        git=(".",), cwd="sub"),
    Fixture(
        "max_bytes_small", ("codex",),
        "project_doc_max_bytes = 12: the root file is cut at byte 12, the cwd file dropped; global uncapped.",
        home={".codex/AGENTS.md": b"global text is not capped at all\n"},
        files={"AGENTS.md": b"0123456789abcdef\n", "sub/AGENTS.md": b"second file\n"},
        codex_config="project_doc_max_bytes = 12\n",
        git=(".",), cwd="sub"),
    Fixture(
        "max_bytes_zero", ("codex",),
        "project_doc_max_bytes = 0 disables project docs; the global file stays.",
        home={".codex/AGENTS.md": b"global only\n"},
        files={"AGENTS.md": b"project (disabled)\n"},
        codex_config="project_doc_max_bytes = 0\n",
        git=(".",), cwd="."),
    Fixture(
        "whitespace_edges", ALL,
        "Leading blank lines, trailing spaces and newlines, no final newline, tabs.",
        home={".codex/AGENTS.md": b"\n\n  global indented\t\n\n\n",
              ".pi/agent/AGENTS.md": b"\n\n  global indented\t\n\n\n",
              ".claude/CLAUDE.md": b"\n\n  global indented\t\n\n\n"},
        files={"AGENTS.md": b"\n\n  leading blank lines\ntrailing spaces   \n\n\n",
               "sub/AGENTS.md": b"no newline at end"},
        git=(".",), cwd="sub"),
    Fixture(
        "uppercase_names", ALL,
        "AGENTS.MD and CLAUDE.MD (upper-case extension) only.",
        files={"AGENTS.MD": b"upper agents root\n", "sub/CLAUDE.MD": b"upper claude sub\n"},
        git=(".",), cwd="sub"),
    Fixture(
        "dir_named_like_candidate", ALL,
        "A directory named AGENTS.override.md beside a file AGENTS.md; a directory AGENTS.md beside CLAUDE.md in cwd.",
        files={"AGENTS.md": b"root agents file\n", "AGENTS.override.md/keep.txt": b"x\n",
               "sub/AGENTS.md/keep.txt": b"x\n", "sub/CLAUDE.md": b"sub claude\n"},
        git=(".",), cwd="sub"),
    Fixture(
        "symlinked_files", ALL,
        "AGENTS.md and CLAUDE.md are symlinks to files outside the project root (hosts follow; agentspine does not).",
        files={"shared/agents-real.md": b"agents via symlink\n", "shared/claude-real.md": b"claude via symlink\n",
               "proj/AGENTS.md": Symlink("../shared/agents-real.md"),
               "proj/CLAUDE.md": Symlink("../shared/claude-real.md")},
        git=("proj",), cwd="proj",
        declared={h: "links out of the project are never followed (crates/agentspine-core/tests/core/differences.rs: a_link_out_of_the_project_is_never_followed)" for h in ALL}),
    Fixture(
        "unicode_and_spaces", ALL,
        "Directory names with spaces and non-ASCII characters; non-ASCII content.",
        files={"AGENTS.md": "root — “quotes” ünïcödé 日本語\n".encode(),
               "dir with space/ünï/AGENTS.md": "deep ✓\n".encode(),
               "dir with space/ünï/CLAUDE.md": "claude ✓\n".encode()},
        git=(".",), cwd="dir with space/ünï"),
    Fixture(
        "above_the_root", ("claude", "pi"),
        "A CLAUDE.md and an AGENTS.md in the directory above the git root (agentspine check: above-root).",
        files={"CLAUDE.md": b"claude above the root\n", "AGENTS.md": b"agents above the root\n",
               "proj/CLAUDE.md": b"proj claude\n", "proj/AGENTS.md": b"proj agents\n"},
        git=("proj",), cwd="proj",
        declared={"claude": "files above the project root are reported outside-root, not read (crates/agentspine-core/tests/core/differences.rs: files_above_the_root_are_reported_not_read)", "pi": "files above the project root are reported outside-root, not read (crates/agentspine-core/tests/core/differences.rs: files_above_the_root_are_reported_not_read)"}),
    Fixture(
        "hard_linked_files", ALL,
        "AGENTS.md and CLAUDE.md are hard links to files outside the project root (hosts read them; agentspine does not).",
        files={"shared/agents-real.md": b"agents via hard link\n",
               "shared/claude-real.md": b"claude via hard link\n",
               "proj/AGENTS.md": Hardlink("shared/agents-real.md"),
               "proj/CLAUDE.md": Hardlink("shared/claude-real.md")},
        git=("proj",), cwd="proj",
        declared={h: "a file with more than one name is never read (crates/agentspine-core/tests/core/check.rs: links_hard_links_and_special_files_with_each_hosts_verdict)" for h in ALL}),
    Fixture(
        "claude_too_large", ("claude",),
        "A CLAUDE.md over 4 MiB beside a small .claude/CLAUDE.md (agentspine check: too-large).",
        files={"CLAUDE.md": _filler(5 * 1024 * 1024, "huge"),
               ".claude/CLAUDE.md": b"small claude\n"},
        git=(".",), cwd="."),
    Fixture(
        "claude_rules_unmatched", ("claude",),
        "A .claude/rules file whose paths: match no file in the project (agentspine check: rules-paths-unmatched).",
        files={"CLAUDE.md": b"root claude\n",
               ".claude/rules/api.md": b"---\npaths: api/**\n---\napi-only rule\n",
               "src/main.ts": b"export {};\n"},
        git=(".",), cwd="."),
    Fixture(
        "mounted_package", ALL,
        "A package directory that is a bind mount of a tree outside the project (agentspine check: mount-crossing).",
        files={"proj/AGENTS.md": b"proj agents\n", "proj/CLAUDE.md": b"proj claude\n",
               "outside/AGENTS.md": b"agents via mount\n", "outside/CLAUDE.md": b"claude via mount\n"},
        dirs=("proj/pkg",), mounts=(("outside", "proj/pkg"),),
        git=("proj",), cwd="proj/pkg",
        declared={h: "a mount point below the root is never crossed (crates/agentspine-core/tests/core/check.rs: a_bind_mount_below_the_root_is_one_finding_per_directory)" for h in ALL}),
    Fixture(
        "unreadable_files", ALL,
        "Mode-000 AGENTS.md and CLAUDE.md at the root, readable ones in cwd; run without DAC override (agentspine check: unreadable).",
        files={"AGENTS.md": b"agents unreadable\n", "CLAUDE.md": b"claude unreadable\n",
               "sub/AGENTS.md": b"sub agents readable\n", "sub/CLAUDE.md": b"sub claude readable\n"},
        home=GLOBALS, modes={"AGENTS.md": 0o000, "CLAUDE.md": 0o000}, wrap=DAC_AS_USER,
        git=(".",), cwd="sub",
        declared={"codex": "agentspine leaves out only the unreadable file (crates/agentspine-core/tests/core/check.rs: an_unreadable_file_is_left_out_and_codex_loses_every_project_doc)"}),
    Fixture(
        "claude_import_outside_root", ("claude",),
        "An approved @../ import of a file outside the git root (agentspine check: import-outside-root).",
        files={"proj/CLAUDE.md": b"proj claude\n@../shared/notes.md\n", "shared/notes.md": b"notes outside the root\n"},
        home_fn=lambda tree, home: {".claude.json": (
            '{"projects": {"%s": {"hasClaudeMdExternalIncludesApproved": true, '
            '"hasClaudeMdExternalIncludesWarningShown": true}}}' % os.path.join(tree, "proj")).encode()},
        git=("proj",), cwd="proj",
        declared={"claude": "never reads outside the project root (crates/agentspine-core/tests/core/differences.rs: a_project_import_outside_the_cwd_needs_approval_and_stays_in_the_root)"}),
    Fixture(
        "claude_import_limit", ("claude",),
        "A CLAUDE.md with 300 imports, more than agentspine follows (agentspine check: import-limit).",
        files={"CLAUDE.md": b"many imports\n" + b"".join(b"@d/i%03d.md\n" % i for i in range(300)),
               **{f"d/i{i:03d}.md": f"import number {i:03d}\n".encode() for i in range(300)}},
        git=(".",), cwd=".",
        declared={"claude": "agentspine follows at most 256 imports (crates/agentspine-core/tests/core/bad_input.rs: a_file_with_ten_thousand_imports_stays_bounded)"}),
    Fixture(
        "claude_rules_frontmatter", ("claude",),
        "Rules whose frontmatter never closes and whose paths: list is empty (agentspine check: rules-frontmatter-malformed).",
        files={"CLAUDE.md": b"root claude\n",
               ".claude/rules/open.md": b"---\npaths: api/**\nunclosed rule body\n",
               ".claude/rules/empty.md": b"---\npaths: []\n---\nempty paths rule\n",
               "src/main.ts": b"export {};\n"},
        git=(".",), cwd=".",
        unordered_entries=True),
]

# Links whose target stays inside the project (or the profile): every host
# follows them and so does agentspine, by the target's own path.
# LINKS-MEASURED.md records what each client sent for each of these.
IN_PROJECT = "in-project links are read like any file"  # kept for fixtures_gemini's signature
IN_PROFILE = "links inside the user's profile are read like any file"
OUT_OF_PROFILE = ("a link out of the user's profile is never followed (crates/agentspine-core/tests/core/"
                  "links.rs: a_global_file_linked_out_of_its_profile_is_refused)")
INTO_GIT = ("a link into .git is never followed (crates/agentspine-core/tests/core/links.rs: "
            "links_leaving_the_project_or_into_git_are_refused_and_nothing_is_read)")


# CLAUDE.md -> AGENTS.md beside it, at the root and in a package.
_CLAUDE_TO_AGENTS = {"AGENTS.md": b"root agents\n", "CLAUDE.md": Symlink("AGENTS.md"),
                     "pkg/AGENTS.md": b"pkg agents\n", "pkg/CLAUDE.md": Symlink("AGENTS.md")}

# A linked .claude/CLAUDE.md (root and pkg) and .claude/rules links: to a
# file inside pkg, to one outside it, and to a sibling rule.
_DOTCLAUDE_LINKS = {"CLAUDE.md": b"root claude\n", ".claude/CLAUDE.md": Symlink("../docs/dot-claude.md"),
                    "docs/dot-claude.md": b"dot-claude via a link\n",
                    ".claude/rules/plain.md": b"plain rule\n", ".claude/rules/alias.md": Symlink("plain.md"),
                    ".claude/rules/inside.md": Symlink("../../pkg/rules/inside.md"),
                    "pkg/rules/inside.md": b"rule whose target is inside cwd\n",
                    ".claude/rules/outside.md": Symlink("../../shared/outside.md"),
                    "shared/outside.md": b"rule whose target is outside cwd\n",
                    "pkg/.claude/CLAUDE.md": Symlink("../../docs/pkg-dot-claude.md"),
                    "docs/pkg-dot-claude.md": b"pkg dot-claude via a link\n"}

LINK_FIXTURES: list[Fixture] = [
    Fixture(
        "links_claude_to_agents", ALL,
        "CLAUDE.md -> AGENTS.md (relative, same directory) at the root and in pkg; cwd pkg.",
        files=_CLAUDE_TO_AGENTS,
        git=(".",), cwd="pkg"),
    Fixture(
        "links_claude_to_agents_root", ALL,
        "CLAUDE.md -> AGENTS.md (relative, same directory) at the root and in pkg; cwd the root.",
        files=_CLAUDE_TO_AGENTS,
        git=(".",), cwd="."),
    Fixture(
        "links_to_parent", ALL,
        "pkg/AGENTS.md -> ../AGENTS.md and pkg/CLAUDE.md -> ../CLAUDE.md -> AGENTS.md: one root file reached from two "
        "directories; cwd pkg.",
        files={"AGENTS.md": b"root agents, also linked from pkg\n", "CLAUDE.md": Symlink("AGENTS.md"),
               "pkg/AGENTS.md": Symlink("../AGENTS.md"), "pkg/CLAUDE.md": Symlink("../CLAUDE.md")},
        git=(".",), cwd="pkg"),
    Fixture(
        "links_hidden_dir", ALL,
        "Root AGENTS.md -> .agents/AGENTS.md (a hidden directory) and CLAUDE.md -> AGENTS.md (a link to that link).",
        files={".agents/AGENTS.md": b"agents kept in a hidden directory\n",
               "AGENTS.md": Symlink(".agents/AGENTS.md"), "CLAUDE.md": Symlink("AGENTS.md")},
        git=(".",), cwd="."),
    Fixture(
        "links_shared_rules", ALL,
        "pkg/AGENTS.md and pkg/CLAUDE.md both -> ../shared/rules.md (one shared file elsewhere in the project); cwd pkg.",
        files={"AGENTS.md": b"root agents\n", "shared/rules.md": b"shared rules for pkg\n",
               "pkg/AGENTS.md": Symlink("../shared/rules.md"), "pkg/CLAUDE.md": Symlink("../shared/rules.md")},
        git=(".",), cwd="pkg"),
    Fixture(
        "claude_see_agents_import", ALL,
        "Root CLAUDE.md is only 'See @AGENTS.md'; plain AGENTS.md at the root and in pkg; cwd pkg (the import lies above cwd).",
        files={"CLAUDE.md": b"See @AGENTS.md\n", "AGENTS.md": b"root agents\n", "pkg/AGENTS.md": b"pkg agents\n"},
        git=(".",), cwd="pkg"),
    Fixture(
        "links_dangling", ALL,
        "Dangling links: root AGENTS.override.md and CLAUDE.md -> missing files beside a plain AGENTS.md; "
        "pkg/AGENTS.md -> a missing file beside a plain pkg/CLAUDE.md; cwd pkg.",
        files={"AGENTS.override.md": Symlink("gone-override.md"), "AGENTS.md": b"root agents\n",
               "CLAUDE.md": Symlink("gone-claude.md"),
               "pkg/AGENTS.md": Symlink("../gone.md"), "pkg/CLAUDE.md": b"pkg claude beside a dangling AGENTS.md\n"},
        git=(".",), cwd="pkg"),
    Fixture(
        "links_dangling_claude", ALL,
        "A dangling CLAUDE.md link beside a plain AGENTS.md, alone at the root (does it block Claude's AGENTS.md?).",
        files={"CLAUDE.md": Symlink("gone.md"), "AGENTS.md": b"agents beside a dangling CLAUDE.md\n"},
        git=(".",), cwd="."),
    Fixture(
        "links_loop", ALL,
        "Link loops at the root: AGENTS.md -> loop.md -> AGENTS.md, CLAUDE.md -> CLAUDE.md; plain pkg/AGENTS.md; cwd pkg.",
        files={"AGENTS.md": Symlink("loop.md"), "loop.md": Symlink("AGENTS.md"), "CLAUDE.md": Symlink("CLAUDE.md"),
               "pkg/AGENTS.md": b"pkg agents below a looping root\n"},
        git=(".",), cwd="pkg"),
    Fixture(
        "links_loop_below_root", ALL,
        "A loop in cwd: pkg/AGENTS.md -> loop.md -> AGENTS.md beside a plain pkg/CLAUDE.md; plain root AGENTS.md; "
        "global files present; cwd pkg.",
        files={"AGENTS.md": b"root agents above a looping pkg\n", "pkg/AGENTS.md": Symlink("loop.md"),
               "pkg/loop.md": Symlink("AGENTS.md"), "pkg/CLAUDE.md": b"pkg claude beside a looping AGENTS.md\n"},
        home=GLOBALS,
        git=(".",), cwd="pkg"),
    Fixture(
        "links_to_dir", ALL,
        "Links to a directory: root AGENTS.md -> docs/ beside a plain CLAUDE.md; pkg/CLAUDE.md -> ../docs "
        "beside a plain pkg/AGENTS.md; cwd pkg.",
        files={"docs/guide.md": b"a file inside the linked directory\n", "AGENTS.md": Symlink("docs/"),
               "CLAUDE.md": b"root claude beside a directory link\n",
               "pkg/CLAUDE.md": Symlink("../docs"), "pkg/AGENTS.md": b"pkg agents beside a directory link\n"},
        git=(".",), cwd="pkg"),
    Fixture(
        "links_mid_path_dir", ALL,
        "pkg/AGENTS.md and pkg/CLAUDE.md -> ../linkeddir/rules.md, where linkeddir -> shared is a directory link; cwd pkg.",
        files={"AGENTS.md": b"root agents\n", "shared/rules.md": b"rules reached through a directory link\n",
               "linkeddir": Symlink("shared"),
               "pkg/AGENTS.md": Symlink("../linkeddir/rules.md"), "pkg/CLAUDE.md": Symlink("../linkeddir/rules.md")},
        git=(".",), cwd="pkg"),
    Fixture(
        "links_nested_pairs", ALL,
        "Root, a, a/b and a/b/c each hold a plain AGENTS.md and CLAUDE.md -> AGENTS.md; cwd a/b/c.",
        files={f"{d}AGENTS.md" if d else "AGENTS.md": f"{d or 'root/'} agents\n".encode()
               for d in ("", "a/", "a/b/", "a/b/c/")}
        | {f"{d}CLAUDE.md": Symlink("AGENTS.md") for d in ("", "a/", "a/b/", "a/b/c/")},
        git=(".",), cwd="a/b/c"),
    Fixture(
        "links_into_git", ALL,
        "AGENTS.md and CLAUDE.md -> .git/info/rules.md (a target inside .git).",
        files={".git/info/rules.md": b"rules kept inside .git\n",
               "AGENTS.md": Symlink(".git/info/rules.md"), "CLAUDE.md": Symlink(".git/info/rules.md")},
        git=(".",), cwd=".", declared={h: INTO_GIT for h in ALL}),
    Fixture(
        "links_absolute_in_project", ALL,
        "Absolute links whose target is inside the project: AGENTS.md and CLAUDE.md -> <tree>/shared/rules.md; "
        "pkg/AGENTS.md -> <tree>/pkg/real.md; cwd pkg.",
        files={"shared/rules.md": b"rules via an absolute link\n", "AGENTS.md": Symlink("{tree}/shared/rules.md"),
               "CLAUDE.md": Symlink("{tree}/shared/rules.md"),
               "pkg/real.md": b"pkg rules via an absolute link\n", "pkg/AGENTS.md": Symlink("{tree}/pkg/real.md")},
        git=(".",), cwd="pkg"),
    Fixture(
        "global_links_in_profile", ALL,
        "Global files that link within their profile: ~/.claude/CLAUDE.md -> rules/base.md (also a user rule), "
        "~/.codex/AGENTS.md -> x.md, ~/.pi/agent/AGENTS.md -> x.md; plain project files.",
        home={".claude/CLAUDE.md": Symlink("rules/base.md"), ".claude/rules/base.md": b"claude global via a link into rules/\n",
              ".codex/AGENTS.md": Symlink("x.md"), ".codex/x.md": b"codex global via a link\n",
              ".pi/agent/AGENTS.md": Symlink("x.md"), ".pi/agent/x.md": b"pi global via a link\n"},
        files={"AGENTS.md": b"project agents\n", "CLAUDE.md": b"project claude\n"},
        git=(".",), cwd="."),
    Fixture(
        "claude_global_link_in_profile", ("claude",),
        "~/.claude/CLAUDE.md -> notes/base.md (inside ~/.claude, not under rules/).",
        home={".claude/CLAUDE.md": Symlink("notes/base.md"), ".claude/notes/base.md": b"claude global via a link into notes/\n"},
        files={"CLAUDE.md": b"project claude\n"},
        git=(".",), cwd="."),
    Fixture(
        "global_links_dotfiles", ALL,
        "Global files that link out of the profile into $HOME (dotfiles style): ~/.claude/CLAUDE.md -> "
        "<home>/dotfiles/claude.md (absolute), ~/.codex/AGENTS.md -> ../dotfiles/codex.md, "
        "~/.pi/agent/AGENTS.md -> ../../dotfiles/pi.md.",
        home={".claude/CLAUDE.md": Symlink("{home}/dotfiles/claude.md"), "dotfiles/claude.md": b"claude global from dotfiles\n",
              ".codex/AGENTS.md": Symlink("../dotfiles/codex.md"), "dotfiles/codex.md": b"codex global from dotfiles\n",
              ".pi/agent/AGENTS.md": Symlink("../../dotfiles/pi.md"), "dotfiles/pi.md": b"pi global from dotfiles\n"},
        files={"AGENTS.md": b"project agents\n", "CLAUDE.md": b"project claude\n"},
        git=(".",), cwd=".", declared={h: OUT_OF_PROFILE for h in ALL}),
    Fixture(
        "claude_links_dotclaude", ("claude",),
        "A linked .claude/CLAUDE.md; .claude/rules links to a file inside cwd (pkg), outside cwd, and to a sibling rule; cwd pkg.",
        files=_DOTCLAUDE_LINKS,
        git=(".",), cwd="pkg", unordered_entries=True),
    Fixture(
        "claude_links_dotclaude_root", ("claude",),
        "The claude_links_dotclaude tree with cwd the root (every rule target inside cwd).",
        files=_DOTCLAUDE_LINKS,
        git=(".",), cwd=".", unordered_entries=True),
    Fixture(
        "claude_links_and_agents_mode", ("claude",),
        "claude-md-and-agents-md mode on CLAUDE.md -> AGENTS.md at the root and in pkg; cwd pkg.",
        files=_CLAUDE_TO_AGENTS,
        claude_settings='{"pluginConfigs": {"agents-md@builtin": {"options": {"instructionFiles": "claude-md-and-agents-md"}}}}\n',
        git=(".",), cwd="pkg"),
    Fixture(
        "claude_links_and_agents_mode_root", ("claude",),
        "claude-md-and-agents-md mode on CLAUDE.md -> AGENTS.md at the root and in pkg; cwd the root.",
        files=_CLAUDE_TO_AGENTS,
        claude_settings='{"pluginConfigs": {"agents-md@builtin": {"options": {"instructionFiles": "claude-md-and-agents-md"}}}}\n',
        git=(".",), cwd="."),
    Fixture(
        "claude_and_agents_mode_same_text", ("claude",),
        "Control for the link cases: plain CLAUDE.md and AGENTS.md with the same text under claude-md-and-agents-md.",
        files={"CLAUDE.md": b"same text in two plain files\n", "AGENTS.md": b"same text in two plain files\n"},
        claude_settings='{"pluginConfigs": {"agents-md@builtin": {"options": {"instructionFiles": "claude-md-and-agents-md"}}}}\n',
        git=(".",), cwd="."),
    Fixture(
        "claude_and_agents_mode_same_text_pkg", ("claude",),
        "Control: under claude-md-and-agents-md, a root CLAUDE.md and a pkg/AGENTS.md with the same text; cwd pkg.",
        files={"CLAUDE.md": b"same text in two plain files\n", "pkg/AGENTS.md": b"same text in two plain files\n"},
        claude_settings='{"pluginConfigs": {"agents-md@builtin": {"options": {"instructionFiles": "claude-md-and-agents-md"}}}}\n',
        git=(".",), cwd="pkg"),
    # Layouts of public repositories (LINKS-MEASURED.md names them).
    Fixture(
        "links_agents_to_dotclaude", ALL,
        "Root AGENTS.md -> .claude/CLAUDE.md, the only instruction file (NVIDIA/nodewright's layout).",
        files={".claude/CLAUDE.md": b"kept in .claude/CLAUDE.md\n", "AGENTS.md": Symlink(".claude/CLAUDE.md")},
        git=(".",), cwd="."),
    Fixture(
        "claude_links_agents_to_dotclaude_and_mode", ("claude",),
        "links_agents_to_dotclaude under claude-md-and-agents-md: one file as .claude/CLAUDE.md and as AGENTS.md.",
        files={".claude/CLAUDE.md": b"kept in .claude/CLAUDE.md\n", "AGENTS.md": Symlink(".claude/CLAUDE.md")},
        claude_settings='{"pluginConfigs": {"agents-md@builtin": {"options": {"instructionFiles": "claude-md-and-agents-md"}}}}\n',
        git=(".",), cwd="."),
    Fixture(
        "links_cross_dir_chain", ALL,
        "getsentry/sentry-cli's layout: CLAUDE.md -> AGENTS.md everywhere; scripts/AGENTS.md -> ../lib/AGENTS.md "
        "(so scripts/CLAUDE.md is a link to a link in another directory); docs/AGENTS.md -> README.md; cwd scripts.",
        files={"AGENTS.md": b"root agents\n", "CLAUDE.md": Symlink("AGENTS.md"),
               "lib/AGENTS.md": b"lib agents\n", "lib/CLAUDE.md": Symlink("AGENTS.md"),
               "scripts/AGENTS.md": Symlink("../lib/AGENTS.md"), "scripts/CLAUDE.md": Symlink("AGENTS.md"),
               "docs/README.md": b"docs readme\n", "docs/AGENTS.md": Symlink("README.md")},
        git=(".",), cwd="scripts"),
    Fixture(
        "links_cross_dir_chain_docs", ALL,
        "The links_cross_dir_chain tree with cwd docs (AGENTS.md -> README.md, no CLAUDE.md there).",
        files={"AGENTS.md": b"root agents\n", "CLAUDE.md": Symlink("AGENTS.md"),
               "lib/AGENTS.md": b"lib agents\n", "lib/CLAUDE.md": Symlink("AGENTS.md"),
               "scripts/AGENTS.md": Symlink("../lib/AGENTS.md"), "scripts/CLAUDE.md": Symlink("AGENTS.md"),
               "docs/README.md": b"docs readme\n", "docs/AGENTS.md": Symlink("README.md")},
        git=(".",), cwd="docs"),
    Fixture(
        "links_three_names", ALL,
        "phnx-labs/agi-cli's layout: CLAUDE.md and GEMINI.md -> AGENTS.md at the root, apps/ext and apps/ext/ui; cwd apps/ext/ui.",
        files={f"{d}{n}": (f"{d or 'root/'} agents\n".encode() if n == "AGENTS.md" else Symlink("AGENTS.md"))
               for d in ("", "apps/ext/", "apps/ext/ui/") for n in ("AGENTS.md", "CLAUDE.md", "GEMINI.md")},
        git=(".",), cwd="apps/ext/ui"),
]
FIXTURES.extend(LINK_FIXTURES)

from fixtures_gemini import gemini_fixtures  # noqa: E402

FIXTURES.extend(gemini_fixtures(FIXTURES, Fixture, Symlink, _filler, BOM, IN_PROJECT, OUT_OF_PROFILE,
                                 IN_PROFILE))

BY_NAME = {f.name: f for f in FIXTURES}
assert len(BY_NAME) == len(FIXTURES), "duplicate fixture names"


def get(name: str) -> Fixture:
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown fixture {name!r}; known: {', '.join(BY_NAME)}") from None


def _write(root: str, rel: str, value, places: dict | None = None):
    path = os.path.join(root, rel)
    if isinstance(value, (Symlink, Hardlink)):
        os.makedirs(os.path.dirname(path), exist_ok=True)
    if isinstance(value, Symlink):
        target = value.target
        for key, abs_path in (places or {}).items():
            target = target.replace("{" + key + "}", abs_path)
        os.symlink(target, path)
    elif isinstance(value, Hardlink):
        os.link(os.path.join(root, value.target), path)
    else:
        harness.write(path, value)


def _git_init(d: str):
    os.makedirs(d, exist_ok=True)
    if shutil.which("git"):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": d,
               "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
        subprocess.run(["git", "init", "-q", "-b", "main", d], check=True, env=env)
    else:
        os.makedirs(os.path.join(d, ".git"), exist_ok=True)


def build_fixture(name: str, dest: str):
    """Lay out fixture NAME under DEST; return (tree_dir, cwd, home), all absolute."""
    fx = get(name)
    dest = os.path.abspath(dest)
    tree = os.path.join(dest, "tree")
    home = os.path.join(dest, "home")
    os.makedirs(tree, exist_ok=True)
    os.makedirs(home, exist_ok=True)
    for rel in fx.git:
        _git_init(os.path.normpath(os.path.join(tree, rel)))
    for rel, content in fx.git_files.items():
        _write(tree, os.path.join(rel, ".git"), content)
    for rel in fx.dirs:
        os.makedirs(os.path.join(tree, rel), exist_ok=True)
    places = {"tree": tree, "home": home}
    for rel, value in fx.files.items():
        _write(tree, rel, value, places)
    for rel, mode in fx.modes.items():
        os.chmod(os.path.join(tree, rel), mode)
    for rel in fx.home_dirs:
        os.makedirs(os.path.join(home, rel), exist_ok=True)
    for rel, value in fx.home.items():
        _write(home, rel, value, places)
    if fx.home_fn:
        for rel, value in fx.home_fn(tree, home).items():
            _write(home, rel, value)
    if fx.codex_config is not None:
        _write(home, ".codex/config.toml", fx.codex_config.encode())
    if fx.claude_settings is not None:
        _write(home, ".claude/settings.json", fx.claude_settings.encode())
    cwd = os.path.normpath(os.path.join(tree, fx.cwd))
    os.makedirs(cwd, exist_ok=True)
    return tree, cwd, home


def fixture_env(name: str, tree: str, home: str) -> dict:
    return {k: v.format(home=home, tree=tree) for k, v in get(name).env.items()}


if __name__ == "__main__":
    for f in FIXTURES:
        print(f"{f.name:28} {','.join(f.hosts):16} {f.about}")
