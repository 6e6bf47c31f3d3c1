#!/usr/bin/env python3
"""The `agentspine-check` pre-commit hook, run by the real pre-commit.

A throwaway git repository holds a copy of this checkout's
`.pre-commit-hooks.yaml` (the file as it is in the work tree, committed
there), and a sample project's `.pre-commit-config.yaml` names it by path
and commit, as a user's names this repository by URL and tag: pre-commit
clones it and reads the hook from the manifest, offline. `agentspine` is
the binary under test, on PATH as a user installs it; HOME and
PRE_COMMIT_HOME are temporary.

    PYTHONPATH=tests/lib python3 tests/check/precommit.py --agentspine target/debug/agentspine

pre-commit (pinned) is installed into a venv on first use (lint_tools.py).
Prints one line per check and `N passed, M failed`.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import harness
import lint_tools

lint_tools.reexec(__file__)

import yaml  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
MANIFEST = REPO / ".pre-commit-hooks.yaml"

tally = harness.Tally()
check = tally.check
write = harness.write


def git(cwd: Path, *args: str) -> str:
    env = dict(
        os.environ,
        GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid",
        GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.invalid",
    )
    out = subprocess.run(["git", "-c", "init.defaultBranch=main", *args], cwd=cwd, env=env,
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agentspine", required=True)
    args = parser.parse_args()
    agentspine = Path(harness.agentspine(args.agentspine, real=True))

    hooks = yaml.safe_load(MANIFEST.read_text())
    hook = {h["id"]: h for h in hooks}.get("agentspine-check", {})
    check("the manifest offers agentspine-check: `agentspine check --deny error`, once per run, no file names",
          hook.get("entry") == "agentspine check" and hook.get("args") == ["--deny", "error"]
          and hook.get("pass_filenames") is False and hook.get("always_run") is False
          and hook.get("language") == "system" and hook.get("types") == []
          and hook.get("types_or") == ["file", "symlink"], repr(hook))
    files = re.compile(hook.get("files", "^$"))
    matched = ["AGENTS.md", "AGENTS.override.md", "pkg/AGENTS.MD", "CLAUDE.md", "CLAUDE.local.md",
               "pkg/CLAUDE.MD", "GEMINI.md", "memory/MEMORY.md", ".agentspine.toml", ".claude/CLAUDE.md",
               ".claude/rules/style.md", "pkg/.claude/rules/deep/api.md", ".gemini/settings.json"]
    unmatched = ["README.md", "docs/AGENTS.md.bak", "NOTAGENTS.md", "src/main.rs", "CLAUDE.txt",
                 "my.claude/x", ".gemini/other.json"]
    check("its files pattern matches every instruction file, .claude/ and .agentspine.toml, nothing else",
          all(files.search(p) for p in matched) and not any(files.search(p) for p in unmatched),
          f"missed: {[p for p in matched if not files.search(p)]}, "
          f"wrongly matched: {[p for p in unmatched if files.search(p)]}")

    with harness.scratch("agentspine-precommit-", dir="/tmp") as tmp:
        tmp = Path(tmp)
        home, bin_dir, hook_repo, project, outside = (tmp / n for n in
                                                      ("home", "bin", "hooks", "project", "outside"))
        for d in (home, bin_dir, hook_repo, project, outside):
            d.mkdir()
        shutil.copy(agentspine, bin_dir / "agentspine")
        shutil.copy(MANIFEST, hook_repo / ".pre-commit-hooks.yaml")
        git(hook_repo, "init", "-q")
        git(hook_repo, "add", ".")
        git(hook_repo, "commit", "-q", "-m", "hooks")
        rev = git(hook_repo, "rev-parse", "HEAD")

        venv_bin = str(Path(sys.executable).parent)
        system_path = os.environ.get("PATH", "")
        env = {
            "HOME": str(home), "PATH": f"{bin_dir}:{venv_bin}:{system_path}",
            "PRE_COMMIT_HOME": str(tmp / "pre-commit-cache"), "PRE_COMMIT_COLOR": "never",
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
        }

        def config(hook_args=None) -> None:
            entry = {"id": "agentspine-check"}
            if hook_args is not None:
                entry["args"] = hook_args
            doc = {"repos": [{"repo": str(hook_repo), "rev": rev, "hooks": [entry]}]}
            write(project / ".pre-commit-config.yaml", yaml.safe_dump(doc, sort_keys=False))

        def pre_commit(*argv: str, path: str | None = None) -> subprocess.CompletedProcess:
            run_env = dict(env, PATH=path) if path is not None else env
            git(project, "add", "-A")
            return subprocess.run([str(Path(venv_bin) / "pre-commit"), *argv], cwd=project, env=run_env,
                                  capture_output=True, text=True)

        def shown(out: subprocess.CompletedProcess) -> str:
            return f"exit {out.returncode}\n{out.stdout}{out.stderr}"

        # A healthy project: nothing lost or read from outside, so no error;
        # Codex never reads pkg/CLAUDE.md, a warning the default lets pass.
        git(project, "init", "-q")
        write(project / "AGENTS.md", "# Rules\n\nRun the tests before a commit.\n")
        write(project / "pkg" / "AGENTS.md", "# pkg\n\nKeep the API stable.\n")
        write(project / "pkg" / "CLAUDE.md", "# pkg\n\nKeep the API stable for Claude too.\n")
        write(project / ".claude" / "rules" / "style.md", "Prefer small functions.\n")
        write(project / "README.txt", "a sample project\n")
        write(outside / "shared.md", "Rules kept outside the project.\n")
        config()

        out = subprocess.run([str(Path(venv_bin) / "pre-commit"), "validate-manifest", str(MANIFEST)],
                             env=env, capture_output=True, text=True)
        check("pre-commit validate-manifest accepts .pre-commit-hooks.yaml", out.returncode == 0, shown(out))

        out = pre_commit("run", "--all-files")
        check("a healthy project passes: exit 0, the hook Passed, no warning from pre-commit",
              out.returncode == 0 and re.search(r"^agentspine check\.+Passed$", out.stdout, re.M) is not None
              and "[WARNING]" not in out.stdout + out.stderr, shown(out))

        out = pre_commit("run", "--files", "README.txt")
        check("a commit that touches no instruction file skips the hook: exit 0, (no files to check)Skipped",
              out.returncode == 0 and "(no files to check)Skipped" in out.stdout, shown(out))

        out = pre_commit("run", "--files", ".claude/rules/style.md")
        check("a commit that touches a .claude/rules file runs it over the whole repository: exit 0, Passed",
              out.returncode == 0 and re.search(r"^agentspine check\.+Passed$", out.stdout, re.M) is not None,
              shown(out))

        config(["--deny", "warning"])
        out = pre_commit("run", "--all-files")
        check("the config's args replace the default: --deny warning fails on a warning, exit 1, finding shown",
              out.returncode == 1 and "- exit code: 1" in out.stdout
              and "warning codex   never-read: Codex reads AGENTS.override.md, AGENTS.md" in out.stdout, shown(out))
        config()

        # CLAUDE.md, a link to a file outside the project: Claude Code reads
        # it, agentspine never does; an error.
        (project / "CLAUDE.md").symlink_to(Path("..") / "outside" / "shared.md")
        out = pre_commit("run", "--all-files")
        check("a link out of the project fails the commit: exit 1, the hook's exit code 1 and the finding shown",
              out.returncode == 1 and re.search(r"^agentspine check\.+Failed$", out.stdout, re.M) is not None
              and "- exit code: 1" in out.stdout
              and re.search(r"^CLAUDE\.md\n  error   claude  symlink: Claude Code follows this link",
                            out.stdout, re.M) is not None
              and "1 error," in out.stdout, shown(out))
        out = pre_commit("run", "--files", "CLAUDE.md")
        check("committing the link alone runs the hook and fails: exit 1",
              out.returncode == 1 and "symlink" in out.stdout, shown(out))
        (project / "CLAUDE.md").unlink()

        write(project / ".agentspine.toml", "[[check.silence]\nid =\n")
        out = pre_commit("run", "--files", ".agentspine.toml")
        check("a broken .agentspine.toml fails the commit: exit 1, agentspine's exit code 2 and the file named",
              out.returncode == 1 and "- exit code: 2" in out.stdout and ".agentspine.toml" in out.stdout,
              shown(out))
        (project / ".agentspine.toml").unlink()

        # Only git and the venv on PATH, whatever else this machine has.
        git_bin = tmp / "git-only"
        git_bin.mkdir()
        (git_bin / "git").symlink_to(shutil.which("git") or "/usr/bin/git")
        out = pre_commit("run", "--all-files", path=f"{venv_bin}:{git_bin}")
        check("without agentspine on PATH the hook fails and says so: exit 1, `agentspine` not found",
              out.returncode == 1 and "Executable `agentspine` not found" in out.stdout, shown(out))

        out = pre_commit("run", "--all-files")
        check("the healthy project passes again: exit 0", out.returncode == 0, shown(out))

    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
