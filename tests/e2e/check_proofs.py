"""Evidence for `agentspine check`: per fixture and host, findings that
check must report, each with what the real client's own capture must
show. A proof holds when `agentspine check --root <root> --paths <cwd>
--host H --json` lists a finding of `kind` whose path ends with `path`,
and `marker` occurs exactly `times` times in what the client sent its
model (0: the client cut, skipped or dropped it, as the finding says;
1: the client read it, e.g. followed the link). parity.py checks every
proof of a case after capturing it.
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass

import harness


@dataclass(frozen=True)
class Proof:
    kind: str
    path: str
    marker: bytes
    times: int


PROOFS: dict = {
    ("over_32k_single", "codex"): (Proof("budget-cut", "AGENTS.md", b"big line 00624", 0),),
    ("over_32k_two_files", "codex"): (Proof("budget-cut", "sub/AGENTS.md", b"sub line 00312", 0),),
    ("max_bytes_small", "codex"): (
        Proof("budget-cut", "AGENTS.md", b"cdef", 0),
        Proof("budget-dropped", "sub/", b"second file", 0),
    ),
    ("empty_override_hides", "codex"): (
        Proof("shadowed-by-empty", "AGENTS.md", b"hidden by blank override?", 0),
    ),
    ("global_plus_project", "claude"): (Proof("never-read", "pkg/AGENTS.md", b"pkg agents", 0),),
    ("global_plus_project", "pi"): (Proof("never-read", "pkg/CLAUDE.md", b"pkg claude", 0),),
    ("global_plus_project", "codex"): (Proof("never-read", "pkg/CLAUDE.md", b"pkg claude", 0),),
    ("override_beside_agents", "claude"): (Proof("never-read", "AGENTS.override.md", b"override root", 0),),
    # pi 1.x reads AGENTS.override.md first (it wins), pi 0.73 never reads it.
    ("override_beside_agents", "pi"): (Proof("never-read", "AGENTS.md", b"plain root", 0),),
    ("override_beside_agents", "pi-0.73"): (Proof("never-read", "AGENTS.override.md", b"override root", 0),),
    ("global_plus_project", "pi-0.73"): (Proof("never-read", "pkg/CLAUDE.md", b"pkg claude", 0),),
    ("symlinked_files", "pi-0.73"): (Proof("symlink", "AGENTS.md", b"agents via symlink", 1),),
    ("override_beside_agents", "codex"): (Proof("never-read", "AGENTS.md", b"plain root", 0),),
    ("claude_imports_ancestor", "claude"): (
        Proof("import-outside-cwd", "CLAUDE.md", b"x from root import", 0),
        Proof("import-outside-cwd", "sub/CLAUDE.md", b"y from sub import", 0),
    ),
    ("claude_imports_depth", "claude"): (Proof("import-depth", "d4.md", b"depth 5", 0),),
    ("above_the_root", "claude"): (Proof("above-root", "tree/CLAUDE.md", b"claude above the root", 1),),
    ("above_the_root", "pi"): (Proof("above-root", "tree/AGENTS.md", b"agents above the root", 1),),
    ("hard_linked_files", "codex"): (Proof("hard-link", "AGENTS.md", b"agents via hard link", 1),),
    ("hard_linked_files", "claude"): (Proof("hard-link", "CLAUDE.md", b"claude via hard link", 1),),
    ("hard_linked_files", "pi"): (Proof("hard-link", "AGENTS.md", b"agents via hard link", 1),),
    ("hard_linked_files", "pi-0.73"): (Proof("hard-link", "AGENTS.md", b"agents via hard link", 1),),
    ("claude_too_large", "claude"): (Proof("too-large", "CLAUDE.md", b"huge line 00000", 0),),
    ("claude_rules_unmatched", "claude"): (Proof("rules-paths-unmatched", ".claude/rules/api.md", b"api-only rule", 0),),
    ("symlinked_files", "codex"): (Proof("symlink", "AGENTS.md", b"agents via symlink", 1),),
    ("symlinked_files", "claude"): (Proof("symlink", "CLAUDE.md", b"claude via symlink", 1),),
    ("symlinked_files", "pi"): (Proof("symlink", "AGENTS.md", b"agents via symlink", 1),),
    ("claude_auto_memory_long", "claude"): (
        Proof("memory-cut", "/memory/MEMORY.md", b"- fact 249", 0),
        Proof("memory-cut", "/memory/MEMORY.md", b"- fact 199\n", 1),
    ),
    ("dir_named_like_candidate", "codex"): (Proof("special-file", "AGENTS.override.md", b"root agents file", 1),),
    # Every client reads through a bind mount below the root.
    ("mounted_package", "codex"): (Proof("mount-crossing", "pkg/", b"agents via mount", 1),),
    ("mounted_package", "claude"): (Proof("mount-crossing", "pkg/", b"claude via mount", 1),),
    ("mounted_package", "pi"): (Proof("mount-crossing", "pkg/", b"agents via mount", 1),),
    ("mounted_package", "pi-0.73"): (Proof("mount-crossing", "pkg/", b"agents via mount", 1),),
    # Without DAC override a mode-000 file is unreadable: Claude Code and
    # pi leave it out and go on; Codex then sends no project doc at all.
    ("unreadable_files", "codex"): (
        Proof("unreadable", "AGENTS.md", b"agents unreadable", 0),
        Proof("unreadable", "AGENTS.md", b"sub agents readable", 0),
        Proof("unreadable", "AGENTS.md", b"global codex rule", 1),
    ),
    ("unreadable_files", "claude"): (
        Proof("unreadable", "CLAUDE.md", b"claude unreadable", 0),
        Proof("unreadable", "CLAUDE.md", b"sub claude readable", 1),
    ),
    ("unreadable_files", "pi"): (
        Proof("unreadable", "AGENTS.md", b"agents unreadable", 0),
        Proof("unreadable", "AGENTS.md", b"sub agents readable", 1),
    ),
    ("unreadable_files", "pi-0.73"): (
        Proof("unreadable", "AGENTS.md", b"agents unreadable", 0),
        Proof("unreadable", "AGENTS.md", b"sub agents readable", 1),
    ),
    ("claude_import_outside_root", "claude"): (
        Proof("import-outside-root", "CLAUDE.md", b"notes outside the root", 1),
    ),
    # Claude Code reads all 300; agentspine follows 256 and says so.
    ("claude_import_limit", "claude"): (Proof("import-limit", "CLAUDE.md", b"import number 299", 1),),
    # Both rules load unconditionally; the unclosed one with its `---` line.
    ("claude_rules_frontmatter", "claude"): (
        Proof("rules-frontmatter-malformed", ".claude/rules/open.md", b"---\npaths: api/**\nunclosed rule body", 1),
        Proof("rules-frontmatter-malformed", ".claude/rules/empty.md", b"empty paths rule", 1),
    ),
    # A link inside the project: the client sends the file it names, once.
    ("links_claude_to_agents", "claude"): (Proof("link-inside", "CLAUDE.md", b"root agents", 1),),
    # A dangling AGENTS.md gives pi nothing: it reads the CLAUDE.md beside it.
    ("links_dangling", "pi"): (
        Proof("link-broken", "pkg/AGENTS.md", b"pkg claude beside a dangling AGENTS.md", 1),
    ),
    # A pointer CLAUDE.md in a package's session: Claude Code alone sends
    # neither AGENTS.md (agentspine's hooks deliver them).
    ("claude_see_agents_import", "claude"): (
        Proof("delivered-by-agentspine", "CLAUDE.md", b"root agents", 0),
        Proof("delivered-by-agentspine", "CLAUDE.md", b"pkg agents", 0),
    ),
    # An @path in a code span or a fence is not expanded.
    ("claude_imports_basic", "claude"): (
        Proof("import-missing", "CLAUDE.md", b"docs/missing.md (", 0),
        Proof("import-repeated", "docs/c.md", b"doc a\n", 1),
        Proof("import-in-code", "CLAUDE.md", b"code span target (must not load)", 0),
        Proof("import-in-code", "CLAUDE.md", b"fence target (must not load)", 0),
    ),
}

# Finding kinds with a proof above, for the README's list.
PROVEN = sorted({p.kind for proofs in PROOFS.values() for p in proofs})

# Kinds about agentspine's own memory selection and discovery bound: no
# host behaviour to measure.
OWN = {"memory-link-unselectable", "memory-link-missing", "memory-link-unsafe", "bounded-truncated"}


def unproven(agentspine: str, timeout: int) -> list:
    """The finding kinds `check` knows (its SARIF rules) with no proof here."""
    with tempfile.TemporaryDirectory() as scratch:
        empty, home = os.path.join(scratch, "proj"), os.path.join(scratch, "home")
        os.makedirs(os.path.join(empty, ".git"))
        os.mkdir(home)
        done = harness.run([agentspine, "check", "--root", empty, "--format", "sarif"], timeout=timeout,
                           env={"HOME": home, "PATH": os.environ["PATH"]}, text=False)
    rules = json.loads(done.stdout)["runs"][0]["tool"]["driver"]["rules"]
    return sorted({r["id"] for r in rules} - set(PROVEN) - OWN)


def check_case(agentspine: str, fixture: str, host: str, cwd: str, env: dict, captured: bytes,
               timeout: int, wrap=()) -> list:
    """The failures of the proofs for one case (empty: all hold). WRAP
    prefixes both agentspine runs, as it prefixed the client's."""
    proofs = PROOFS.get((fixture, host), ())
    if not proofs:
        return []
    resolved = harness.run([*wrap, agentspine, "resolve", "--host", host, "--cwd", cwd, "--json"],
                           cwd=cwd, env=env, timeout=timeout, text=False)
    if resolved.returncode != 0:
        return [f"resolve exit {resolved.returncode}"]
    root = json.loads(resolved.stdout)["project_root"]
    done = harness.run([*wrap, agentspine, "check", "--root", root, "--paths", cwd, "--host", host, "--json"],
                       cwd=cwd, env=env, timeout=timeout, text=False)
    if done.returncode != 0:
        return [f"check exit {done.returncode}: {done.stderr.decode('utf-8', 'replace').strip()[-200:]}"]
    findings = json.loads(done.stdout)["findings"]
    failures = []
    for proof in proofs:
        # A finding of every host (a link's) names none: it holds for this one.
        if not any(f["id"] == proof.kind and f["host"] in (host, None) and f["path"].endswith(proof.path)
                   for f in findings):
            got = ", ".join(f"{f['id']} {f['path']}" for f in findings) or "none"
            failures.append(f"check reports no {proof.kind} for {proof.path} (it reports: {got})")
        seen = captured.count(proof.marker)
        if seen != proof.times:
            failures.append(f"{proof.kind} {proof.path}: the client sent {proof.marker!r} {seen} times, "
                            f"expected {proof.times}")
    return failures
