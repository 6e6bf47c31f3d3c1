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
LINKS = ("links out of the project are never followed (crates/agentspine-core/tests/core/differences.rs: "
         "gemini_never_follows_a_context_file_linked_out_of_the_project)")

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

# The in-project link fixtures of fixtures.py that get a `+names` twin, and
# those that also get a default-names twin with each CLAUDE.md renamed
# GEMINI.md (fixture name -> twin name).
LINKS_SHARED = (
    "links_claude_to_agents", "links_claude_to_agents_root", "links_to_parent", "links_hidden_dir",
    "links_shared_rules", "claude_see_agents_import", "links_dangling", "links_dangling_claude", "links_loop", "links_to_dir",
    "links_mid_path_dir", "links_nested_pairs", "links_into_git", "links_absolute_in_project",
    "links_agents_to_dotclaude", "links_cross_dir_chain", "links_three_names",
)
LINKS_AS_GEMINI = {
    "links_claude_to_agents": "gemini_links_to_agents",
    "links_claude_to_agents_root": "gemini_links_to_agents_root",
    "links_to_parent": "gemini_links_to_parent",
    "links_hidden_dir": "gemini_links_hidden_dir",
    "links_shared_rules": "gemini_links_shared_rules",
    "links_dangling_claude": "gemini_links_dangling",
    "links_loop": "gemini_links_loop",
    "links_to_dir": "gemini_links_to_dir",
    "links_mid_path_dir": "gemini_links_mid_path_dir",
    "links_nested_pairs": "gemini_links_nested_pairs",
    "links_into_git": "gemini_links_into_git",
    "links_absolute_in_project": "gemini_links_absolute_in_project",
    "links_cross_dir_chain": "gemini_links_cross_dir_chain",
    "links_three_names": "gemini_links_three_names",  # already holds GEMINI.md links: kept as is
}

LINKS_ABOUT = {
    "links_dangling_claude": "A dangling GEMINI.md link beside a plain AGENTS.md, alone at the root.",
    "links_three_names": "phnx-labs/agi-cli's layout: CLAUDE.md and GEMINI.md -> AGENTS.md at the root, "
                         "apps/ext and apps/ext/ui; cwd apps/ext/ui.",
}


def _claude_to_gemini(files, Symlink):
    """FILES with every CLAUDE.md (path or link target) renamed GEMINI.md."""
    def rename(p):
        head, _, tail = p.rpartition("/")
        return f"{head}/GEMINI.md" if head and tail == "CLAUDE.md" else ("GEMINI.md" if p == "CLAUDE.md" else p)
    if any(k.rpartition("/")[2] == "GEMINI.md" for k in files):
        return dict(files)
    return {rename(k): Symlink(rename(v.target)) if isinstance(v, Symlink) else v for k, v in files.items()}


def gemini_fixtures(shared, Fixture, Symlink, filler, bom, in_project="", out_of_profile="", in_profile=""):
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
    # A base fixture's declared difference (a link into .git) holds for its
    # Gemini twin too; in-project links are compared like any file.
    def carried(f):
        return {"gemini": next(iter(f.declared.values()))} if f.declared else {}

    links = []
    for name, twin in LINKS_AS_GEMINI.items():
        f = by_name[name]
        links.append(dataclasses.replace(
            f, name=twin, hosts=g, files=_claude_to_gemini(f.files, Symlink),
            about=LINKS_ABOUT.get(name, f.about.replace("CLAUDE.md", "GEMINI.md")) + " [default names]",
            declared=carried(f), pending={},
            unordered_entries=False))
    links += [
        Fixture(
            "gemini_global_links_in_profile", g,
            "~/.gemini/GEMINI.md -> notes/base.md, a link within the profile.",
            home={".gemini/GEMINI.md": Symlink("notes/base.md"),
                  ".gemini/notes/base.md": b"gemini global via a link into notes/\n"},
            files={"GEMINI.md": b"project gemini\n"},
            git=(".",), cwd="."),
        Fixture(
            "gemini_global_links_dotfiles", g,
            "~/.gemini/GEMINI.md -> ../dotfiles/gemini.md, a link out of the profile into $HOME (dotfiles style).",
            home={".gemini/GEMINI.md": Symlink("../dotfiles/gemini.md"),
                  "dotfiles/gemini.md": b"gemini global from dotfiles\n"},
            files={"GEMINI.md": b"project gemini\n"},
            git=(".",), cwd=".", declared={"gemini": out_of_profile}),
    ]
    links.append(Fixture(
        "gemini_same_text_two_names", g,
        "Control for the link cases: plain AGENTS.md and CLAUDE.md with the same text, names list set.",
        files={"AGENTS.md": b"same text in two plain files\n", "CLAUDE.md": b"same text in two plain files\n"},
        home={".gemini/settings.json": NAMES},
        git=(".",), cwd="."))
    twins = []
    for name in SHARED:
        f = by_name[name]
        declared = {"gemini": LINKS} if name == "symlinked_files" else {}
        twins.append(dataclasses.replace(
            f, name=f"{name}+names", hosts=g, home=dict(f.home, **{".gemini/settings.json": NAMES}),
            about=f"{f.about} [context.fileName list]", declared=declared, pending={},
            unordered_entries=False))
    for name in LINKS_SHARED:
        f = by_name[name]
        twins.append(dataclasses.replace(
            f, name=f"{name}+names", hosts=g, home=dict(f.home, **{".gemini/settings.json": NAMES}),
            about=f"{f.about} [context.fileName list]", declared=carried(f),
            pending={}, unordered_entries=False))
    for f in links[:2]:
        twins.append(dataclasses.replace(
            f, name=f"{f.name}+names", home=dict(f.home, **{".gemini/settings.json": NAMES}),
            about=f.about.replace(" [default names]", " [context.fileName list]")))
    for name in ("gemini_nested", "gemini_imports_basic", "gemini_sort_order"):
        f = next(x for x in own if x.name == name)
        twins.append(dataclasses.replace(
            f, name=f"{name}+names", home=dict(f.home, **{".gemini/settings.json": NAMES}),
            files=dict(f.files, **{"AGENTS.md": b"agents root\n", "CLAUDE.md": b"claude root\n"}),
            about=f"{f.about} [context.fileName list]"))
    return own + links + twins
