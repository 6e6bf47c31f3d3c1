"""Gemini CLI's parity fixtures (fixtures.py appends them to FIXTURES).

Two kinds:
* `gemini_*`: trees with GEMINI.md files, compared under Gemini's default
  settings (and, where the names matter, once more with the list below);
* `<fixture>+names`: the shared fixtures in SHARED again, with ~/.gemini/settings.json
  setting context.fileName = ["AGENTS.md", "CLAUDE.md", "GEMINI.md"], so
  Gemini reads the AGENTS.md and CLAUDE.md files the other hosts read.
"""
from __future__ import annotations

import dataclasses

NAMES = b'{"context": {"fileName": ["AGENTS.md", "CLAUDE.md", "GEMINI.md"]}}\n'
LINKS = ("links are never followed (crates/agentspine-core/tests/core/differences.rs: "
         "gemini_never_follows_a_linked_context_file)")

# Shared fixtures that get a `+names` twin: one of each shape Gemini reads
# differently under the list (Codex-only config fixtures and near repeats
# are left out: each case costs a Gemini start, about 2.5 s).
SHARED = (
    "nested_cwd_sub", "override_beside_agents", "empty_and_blank", "over_32k_single",
    "global_plus_project", "bom_crlf", "claude_imports_basic", "claude_imports_ancestor",
    "claude_local_and_dotclaude", "claude_frontmatter_comments", "no_git", "git_file_marker",
    "whitespace_edges", "uppercase_names", "dir_named_like_candidate", "symlinked_files",
    "unicode_and_spaces",
)


def gemini_fixtures(shared, Fixture, Symlink, filler, bom):
    g = ("gemini",)
    own = [
        Fixture(
            "gemini_nested", g,
            "GEMINI.md at the root, in a, in cwd a/b, below cwd and in a sibling (only root..cwd load).",
            files={"GEMINI.md": b"root gemini\n", "a/GEMINI.md": b"a gemini\n", "a/b/GEMINI.md": b"a/b gemini\n",
                   "a/b/c/GEMINI.md": b"below cwd gemini\n", "sibling/GEMINI.md": b"sibling gemini\n"},
            home={".gemini/GEMINI.md": b"# Global gemini\n\nglobal gemini rule\n"},
            git=(".",), cwd="a/b"),
        Fixture(
            "gemini_sort_order", g,
            "Upper-case directory names sort before GEMINI.md: Gemini orders files by path string, not depth.",
            files={"GEMINI.md": b"root\n", "Alpha/GEMINI.md": b"alpha\n", "Alpha/sub/GEMINI.md": b"alpha sub\n"},
            git=(".",), cwd="Alpha/sub"),
        Fixture(
            "gemini_empty_and_blank", g,
            "Empty root file, whitespace-only middle file, real cwd file; a blank global file.",
            files={"GEMINI.md": b"", "a/GEMINI.md": b"  \n\t\n \r\n", "a/b/GEMINI.md": b"real text\n"},
            home={".gemini/GEMINI.md": b"\n \n"},
            git=(".",), cwd="a/b"),
        Fixture(
            "gemini_bom_crlf", g,
            "BOM and CRLF in the global and project files; a BOM inside an imported file.",
            files={"GEMINI.md": bom + b"root line one\r\nroot line two\r\n@imp.md\r\n", "imp.md": bom + b"imported\r\n",
                   "sub/GEMINI.md": b"crlf sub\r\n"},
            home={".gemini/GEMINI.md": bom + b"global bom\r\nsecond line\r\n"},
            git=(".",), cwd="sub"),
        Fixture(
            "gemini_big_file", g,
            "A 50,000-byte GEMINI.md (Gemini has no cap) and a 40,000-byte global file.",
            files={"GEMINI.md": filler(50000, "big")},
            home={".gemini/GEMINI.md": filler(40000, "global")},
            git=(".",), cwd="."),
        Fixture(
            "gemini_whitespace_edges", g,
            "Leading blank lines, trailing spaces, no final newline, a non-breaking space at the end.",
            files={"GEMINI.md": b"\n\n  leading blank lines\ntrailing spaces   \n\n\n",
                   "sub/GEMINI.md": "no newline at end\u00a0".encode()},
            home={".gemini/GEMINI.md": b"\n\n  global indented\t\n\n\n"},
            git=(".",), cwd="sub"),
        Fixture(
            "gemini_imports_basic", g,
            "Relative and ./ imports, code span and fence, missing target, e-mail, @~/ and a cycle back to the top file.",
            files={
                "GEMINI.md": (b"# Root\nSee @docs/a.md for more.\n"
                              b"Inline code `@docs/code.md` stays.\n"
                              b"```\n@docs/fence.md\n```\n"
                              b"Missing: @docs/missing.md\n"
                              b"Mail me@example.com please.\n"
                              b"Home: @~/notes.md\n"
                              b"@./docs/b.md\n"
                              b"Top again: @docs/back.md\n"),
                "docs/a.md": b"doc a\n@c.md\n",
                "docs/b.md": b"doc b\n",
                "docs/c.md": b"doc c imports a back\n@a.md\n",
                "docs/back.md": b"back imports the top file\n@../GEMINI.md\n",
                "docs/code.md": b"code span target (must not load)\n",
                "docs/fence.md": b"fence target (must not load)\n",
            },
            home={"notes.md": b"home notes (must not load)\n"},
            git=(".",), cwd="."),
        Fixture(
            "gemini_imports_depth", g,
            "An import chain seven hops deep: GEMINI.md -> d1 -> ... -> d7.",
            files={"GEMINI.md": b"depth 0\n@d1.md\n",
                   **{f"d{i}.md": f"depth {i}\n@d{i + 1}.md\n".encode() for i in range(1, 7)},
                   "d7.md": b"depth 7\n"},
            git=(".",), cwd="."),
        Fixture(
            "gemini_imports_outside", g,
            "Imports from cwd's file reaching up inside the git root, out of it, by absolute path, and a URL.",
            files={"proj/GEMINI.md": b"proj\n", "proj/docs/x.md": b"x inside the root\n",
                   "proj/sub/GEMINI.md": (b"sub\n@../docs/x.md\n@../../outside.md\n@/etc/hostname\n"
                                          b"@https://example.com/x.md\n"),
                   "outside.md": b"outside the root (must not load)\n"},
            git=("proj",), cwd="proj/sub"),
        Fixture(
            "gemini_imports_no_git", g,
            "No git: the cwd file may not import from its parent directory.",
            files={"GEMINI.md": b"parent (not read)\n", "sub/GEMINI.md": b"sub\n@../up.md\n@here.md\n",
                   "up.md": b"up (must not load)\n", "sub/here.md": b"here\n"},
            cwd="sub"),
        Fixture(
            "gemini_global_imports", g,
            "The global file imports a file beside it, one in a folder, and one outside ~/.gemini.",
            home={".gemini/GEMINI.md": b"global\n@extra.md\n@more/deep.md\n@../outside.md\n",
                  ".gemini/extra.md": b"extra beside the global file\n",
                  ".gemini/more/deep.md": b"deep global import\n",
                  "outside.md": b"outside the profile (must not load)\n"},
            files={"GEMINI.md": b"project\n"},
            git=(".",), cwd="."),
        Fixture(
            "gemini_above_git_root", g,
            "A GEMINI.md above the git root is not read.",
            files={"GEMINI.md": b"above the git root\n", "proj/GEMINI.md": b"proj\n", "proj/sub/GEMINI.md": b"sub\n"},
            git=("proj",), cwd="proj/sub"),
        Fixture(
            "gemini_no_git", g,
            "No git anywhere: only the cwd's file is read.",
            files={"GEMINI.md": b"parent (not read)\n", "sub/GEMINI.md": b"sub\n"},
            cwd="sub"),
        Fixture(
            "gemini_deep_chain", g,
            "Ten levels, each with a GEMINI.md.",
            files={"/".join(["d"] * i + ["GEMINI.md"]): f"level {i}\n".encode() for i in range(11)},
            git=(".",), cwd="/".join(["d"] * 10)),
        Fixture(
            "gemini_unicode", g,
            "Directory names with spaces and non-ASCII characters; non-ASCII content.",
            files={"GEMINI.md": "root — “quotes” ünïcödé 日本語\n".encode(),
                   "dir with space/ünï/GEMINI.md": "deep ✓ 😀\n".encode()},
            git=(".",), cwd="dir with space/ünï"),
        Fixture(
            "gemini_dir_named_like_candidate", g,
            "A directory named GEMINI.md at the root (skipped), a file in cwd.",
            files={"GEMINI.md/keep.txt": b"x\n", "sub/GEMINI.md": b"sub\n"},
            git=(".",), cwd="sub"),
        Fixture(
            "gemini_symlinks", g,
            "GEMINI.md links to a file outside the project, and one inside it (Gemini follows both).",
            files={"shared/real.md": b"via link out\n", "proj/GEMINI.md": Symlink("../shared/real.md"),
                   "proj/inner.md": b"via link in\n", "proj/sub/GEMINI.md": Symlink("../inner.md")},
            git=("proj",), cwd="proj/sub",
            declared={"gemini": LINKS}),
        Fixture(
            "gemini_filename_string", g,
            "context.fileName as a single string: Gemini still adds GEMINI.md after it.",
            files={"AGENTS.md": b"agents\n", "GEMINI.md": b"gemini\n", "CLAUDE.md": b"claude (not listed)\n"},
            home={".gemini/settings.json": b'{"context": {"fileName": "AGENTS.md"}}\n'},
            git=(".",), cwd="."),
        Fixture(
            "gemini_workspace_settings", g,
            "The cwd's .gemini/settings.json names CLAUDE.md; with comments in the user settings.",
            files={"CLAUDE.md": b"claude root\n", "sub/CLAUDE.md": b"claude sub\n", "sub/GEMINI.md": b"gemini sub\n",
                   "sub/.gemini/settings.json": b'{"context": {"fileName": ["CLAUDE.md"]}}\n'},
            home={".gemini/settings.json": b'// user settings\n{"context": {"fileName": ["AGENTS.md"]}}\n'},
            git=(".",), cwd="sub"),
        Fixture(
            "gemini_boundary_markers_empty", g,
            "context.memoryBoundaryMarkers = []: only the cwd's files.",
            files={"GEMINI.md": b"root\n", "sub/GEMINI.md": b"sub\n"},
            home={".gemini/settings.json": b'{"context": {"memoryBoundaryMarkers": []}}\n'},
            git=(".",), cwd="sub"),
    ]
    by_name = {f.name: f for f in shared}
    twins = []
    for name in SHARED:
        f = by_name[name]
        declared = {"gemini": LINKS} if name == "symlinked_files" else {}
        twins.append(dataclasses.replace(
            f, name=f"{name}+names", hosts=g, home=dict(f.home, **{".gemini/settings.json": NAMES}),
            about=f"{f.about} [context.fileName list]", declared=declared, pending={},
            unordered_entries=False))
    for name in ("gemini_nested", "gemini_imports_basic", "gemini_sort_order"):
        f = next(x for x in own if x.name == name)
        twins.append(dataclasses.replace(
            f, name=f"{name}+names", home=dict(f.home, **{".gemini/settings.json": NAMES}),
            files=dict(f.files, **{"AGENTS.md": b"agents root\n", "CLAUDE.md": b"claude root\n"}),
            about=f"{f.about} [context.fileName list]"))
    return own + twins
