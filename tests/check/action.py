#!/usr/bin/env python3
"""The GitHub Action: action.yml's structure, and its script run directly.

packaging/action/run.sh runs as the runner would run the action's step:
INPUT_* variables as action.yml passes them, a fake runner environment
(GITHUB_OUTPUT, GITHUB_PATH, GITHUB_STEP_SUMMARY, GITHUB_WORKSPACE,
RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP) and a sample repository. The binary
under test comes in through `binary`, through a fake `cargo` on PATH
(`build: true`: the script's cargo command is recorded) or through the
download path, offline, from a file:// release directory laid out as
GitHub serves one (the checksum file made as scripts/dist makes it).
Every SARIF log must validate against the vendored SARIF 2.1.0 schema.

    PYTHONPATH=tests/lib python3 tests/check/action.py --agentspine target/debug/agentspine

PyYAML and jsonschema (pinned) come from the venv lint_tools.py makes.
Prints one line per check and `N passed, M failed`.
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import harness
import lint_tools

lint_tools.reexec(__file__)

import jsonschema  # noqa: E402
import yaml  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
ACTION = REPO / "action.yml"
SCRIPT = REPO / "packaging" / "action" / "run.sh"

tally = harness.Tally()
check = tally.check
write = harness.write


def structure() -> None:
    """action.yml: a composite action whose step passes every input the
    script reads, whose outputs are the script's, and whose upload runs
    after a failed check too."""
    action = yaml.safe_load(ACTION.read_text())
    runs = action.get("runs", {})
    steps = runs.get("steps", [])
    check("action.yml has a name, a description and a composite run of two steps",
          bool(action.get("name")) and bool(action.get("description")) and runs.get("using") == "composite"
          and len(steps) == 2, repr(runs))
    if len(steps) != 2:
        return
    step, upload = steps
    inputs = action.get("inputs", {})
    script = SCRIPT.read_text()
    read = set(re.findall(r"\bINPUT_[A-Z_]+", script))
    passed = step.get("env", {})
    check("the check step runs packaging/action/run.sh in bash from the action's own path",
          step.get("id") == "check" and step.get("shell") == "bash"
          and step.get("run") == 'bash "$GITHUB_ACTION_PATH/packaging/action/run.sh"', repr(step))
    check("every INPUT_ the script reads is passed, each from its own input, and every input is used",
          set(passed) == read
          and all(v == "${{ inputs.%s }}" % k[len("INPUT_"):].lower().replace("_", "-") for k, v in passed.items())
          and set(inputs) == {k[len("INPUT_"):].lower().replace("_", "-") for k in read} | {"upload-sarif", "category"},
          f"script reads {sorted(read)}, step passes {sorted(passed)}, inputs {sorted(inputs)}")
    check("every input has a description and a default (none is required)",
          all(isinstance(i, dict) and i.get("description") and "default" in i and not i.get("required")
              for i in inputs.values()))
    written = set(re.findall(r"^\s*output ([a-z-]+) ", script, re.M))
    outputs = action.get("outputs", {})
    check("the action's outputs are exactly the script's, each from the check step",
          set(outputs) == written
          and all(o.get("value") == "${{ steps.check.outputs.%s }}" % k for k, o in outputs.items()),
          f"outputs {sorted(outputs)}, script writes {sorted(written)}")
    condition = upload.get("if", "")
    check("the upload is github/codeql-action/upload-sarif@v4 with the log and the category",
          upload.get("uses") == "github/codeql-action/upload-sarif@v4"
          and upload.get("with") == {"sarif_file": "${{ steps.check.outputs.sarif-file }}",
                                     "category": "${{ inputs.category }}"}, repr(upload))
    check("the upload runs after a failed check (not only on success), when asked and when there is a log",
          "!cancelled()" in condition and "inputs.upload-sarif == 'true'" in condition
          and "steps.check.outputs.sarif-file != ''" in condition, condition)
    check("the defaults: latest release, deny error, every host, annotations and upload on",
          inputs["version"]["default"] == "latest" and inputs["deny"]["default"] == "error"
          and inputs["hosts"]["default"] == "" and inputs["annotations"]["default"] == "true"
          and inputs["upload-sarif"]["default"] == "true" and inputs["build"]["default"] == "false")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agentspine", required=True)
    args = parser.parse_args()
    agentspine = Path(harness.agentspine(args.agentspine, real=True))
    schema = json.loads((HERE / "sarif-2.1.0-rtm.5.json").read_text())
    validator = jsonschema.Draft4Validator(schema)

    structure()

    with harness.scratch("agentspine-action-", dir="/tmp") as tmp:
        tmp = Path(tmp)
        home, workspace, outside, fake_bin = (tmp / n for n in ("home", "workspace", "outside", "fake-bin"))
        for d in (home, workspace, outside, fake_bin):
            d.mkdir()
        (workspace / ".git").mkdir()
        write(workspace / "AGENTS.md", "# Rules\n\nRun the tests before a commit.\n")
        write(workspace / "pkg" / "AGENTS.md", "# pkg\n\nKeep the API stable.\n")
        write(workspace / "sub" / "AGENTS.md", "# sub\n\nA project of its own.\n")
        # A GEMINI.md addresses Gemini CLI, which then never reads AGENTS.md:
        # the warnings the checks below count.
        write(workspace / "GEMINI.md", "# Gemini\n\nSee AGENTS.md.\n")
        write(workspace / "sub" / "GEMINI.md", "# Gemini\n\nSee AGENTS.md.\n")
        write(outside / "shared.md", "Rules kept outside the project.\n")
        runs = iter(range(1000))

        def action(inputs: dict, path: str | None = None, **runner) -> dict:
            """Runs the script with these inputs; returns its exit status,
            output, the outputs it wrote and the other runner files."""
            n = next(runs)
            files = {name: tmp / f"{name}-{n}" for name in ("output", "path", "summary")}
            for f in files.values():
                f.touch()
            env = {
                "HOME": str(home), "PATH": path or os.environ.get("PATH", ""),
                "GITHUB_OUTPUT": str(files["output"]), "GITHUB_PATH": str(files["path"]),
                "GITHUB_STEP_SUMMARY": str(files["summary"]), "GITHUB_WORKSPACE": str(workspace),
                "RUNNER_OS": "Linux", "RUNNER_ARCH": "X64", "RUNNER_TEMP": str(tmp / f"runner-temp-{n}"),
                **runner,
            }
            Path(env["RUNNER_TEMP"]).mkdir()
            env.update({"INPUT_" + k.upper().replace("-", "_"): v for k, v in inputs.items()})
            out = subprocess.run(["bash", str(SCRIPT)], cwd=workspace, env=env, capture_output=True, text=True)
            outputs = dict(line.split("=", 1) for line in files["output"].read_text().splitlines())
            return {
                "status": out.returncode, "stdout": out.stdout, "stderr": out.stderr, "outputs": outputs,
                "path": files["path"].read_text(), "summary": files["summary"].read_text(),
                "temp": Path(env["RUNNER_TEMP"]),
            }

        def shown(r: dict) -> str:
            return f"exit {r['status']}\n{r['stdout']}{r['stderr']}outputs: {r['outputs']}"

        def log_of(r: dict) -> dict | None:
            path = r["outputs"].get("sarif-file")
            return json.loads(Path(path).read_text()) if path and Path(path).is_file() else None

        def valid(log: dict | None) -> bool:
            return log is not None and not any(validator.iter_errors(log))

        def truth(*extra: str, root: Path = workspace) -> dict:
            """What agentspine itself counts for the same check."""
            out = harness.run([str(agentspine), "check", "--root", str(root), "--json", *extra],
                              env={"HOME": str(home), "PATH": os.environ.get("PATH", "")}, check=True)
            return json.loads(out.stdout)["summary"]["counts"]

        # --- a healthy repository: warnings only
        counts = truth()
        r = action({"binary": str(agentspine)})
        log = log_of(r)
        check("binary: a healthy repository passes at the default deny error: exit 0, denied false",
              r["status"] == 0 and r["outputs"].get("denied") == "false", shown(r))
        check("the SARIF log is written to RUNNER_TEMP/agentspine.sarif and validates against SARIF 2.1.0",
              r["outputs"].get("sarif-file") == str(r["temp"] / "agentspine.sarif") and valid(log), shown(r))
        check("the counts are agentspine's own (0 errors, its warnings and notes)",
              (r["outputs"].get("errors"), r["outputs"].get("warnings"), r["outputs"].get("notes"))
              == ("0", str(counts.get("warning", 0)), str(counts.get("note", 0)))
              and counts.get("warning", 0) > 0, f"{shown(r)}\nagentspine says {counts}")
        check("the binary, its version and PATH: the outputs name them, GITHUB_PATH gets its directory",
              r["outputs"].get("agentspine") == str(agentspine)
              and r["outputs"].get("version", "").startswith("agentspine ")
              and r["path"].strip() == str(agentspine.parent), shown(r))
        check("the findings are workflow annotations (::warning file=AGENTS.md,...) and the summary counts them",
              re.search(r"^::warning file=AGENTS\.md,title=agentspine never-read \(gemini\)::", r["stdout"], re.M)
              is not None
              and r["summary"].strip() == f"agentspine check: 0 errors, {counts['warning']} warnings, "
                                          f"{counts.get('note', 0)} notes; --deny error: passed", shown(r))

        r = action({"binary": str(agentspine), "deny": "warning", "annotations": "false"})
        check("deny warning fails on a warning: exit 1, denied true, the log still written and valid",
              r["status"] == 1 and r["outputs"].get("denied") == "true" and valid(log_of(r)), shown(r))
        check("annotations false: the findings as text, no workflow command",
              "never-read: Gemini CLI never reads AGENTS.md" in r["stdout"] and "::" not in r["stdout"], shown(r))

        r = action({"binary": "agentspine"}, path=f"{agentspine.parent}:{os.environ.get('PATH', '')}")
        check("binary: a command name is found on PATH", r["status"] == 0
              and r["outputs"].get("agentspine") == str(agentspine), shown(r))

        # --- an error: CLAUDE.md links out of the project
        (workspace / "CLAUDE.md").symlink_to(Path("..") / "outside" / "shared.md")
        r = action({"binary": str(agentspine)})
        log = log_of(r)
        results = log["runs"][0]["results"] if log else []
        check("a link out of the project fails at deny error: exit 1, errors 1, denied true",
              r["status"] == 1 and r["outputs"].get("errors") == "1" and r["outputs"].get("denied") == "true",
              shown(r))
        check("the log holds it, valid: an error result `symlink` at CLAUDE.md, from SRCROOT",
              valid(log) and any(
                  x["ruleId"] == "symlink" and x["level"] == "error"
                  and x["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "CLAUDE.md",
                                                                                   "uriBaseId": "SRCROOT"}
                  for x in results), shown(r))
        check("its annotation is an error on CLAUDE.md",
              re.search(r"^::error file=CLAUDE\.md,title=agentspine symlink \(claude\)::", r["stdout"], re.M)
              is not None, shown(r))
        r = action({"binary": str(agentspine), "deny": "none"})
        check("deny none never fails: exit 0 with the error counted, denied false",
              r["status"] == 0 and r["outputs"].get("errors") == "1" and r["outputs"].get("denied") == "false"
              and r["summary"].strip().startswith("agentspine check: 1 error, ")
              and r["summary"].strip().endswith(" notes"), shown(r))
        r = action({"binary": str(agentspine), "hosts": "codex", "deny": "error"})
        log = log_of(r)
        hosts = {x["properties"]["host"] for x in (log["runs"][0]["results"] if log else [])}
        check("hosts codex: only Codex's findings (the link is Claude Code's): exit 0",
              r["status"] == 0 and valid(log) and hosts <= {"codex", "agentspine"}
              and r["outputs"].get("errors") == "0", f"{shown(r)}\nhosts {hosts}")
        (workspace / "CLAUDE.md").unlink()

        # --- a working directory below the repository root
        r = action({"binary": str(agentspine), "working-directory": "sub", "sarif-file": "out/sub.sarif"})
        log = log_of(r)
        uris = [x["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                for x in (log["runs"][0]["results"] if log else []) if x.get("locations")]
        check("working-directory sub: checked alone, paths from the repository root (sub/AGENTS.md), valid",
              r["status"] == 0 and valid(log) and uris and all(u.startswith("sub/") for u in uris)
              and "sub/AGENTS.md" in uris
              and log["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"] == f"file://{workspace.resolve()}/"
              and r["outputs"].get("warnings") == str(truth(root=workspace / "sub").get("warning", 0)),
              f"{shown(r)}\nuris {uris}")
        check("sarif-file relative to the workspace", r["outputs"].get("sarif-file")
              == str(workspace / "out" / "sub.sarif"), shown(r))
        shutil.rmtree(workspace / "out")

        # --- errors of the action itself: exit 2, named, no log to upload
        for name, inputs, runner, says in [
            ("an unknown check argument", {"binary": str(agentspine), "args": "--no-such-flag"}, {},
             "--format sarif failed (exit 2)"),
            ("a deny level check does not have", {"binary": str(agentspine), "deny": "note"}, {},
             "deny must be error, warning or none"),
            ("a binary that does not exist", {"binary": str(tmp / "nowhere")}, {}, "not an executable"),
            ("a working directory that does not exist", {"binary": str(agentspine), "working-directory": "nope"},
             {}, "working-directory nope is not a directory"),
            ("Windows", {}, {"RUNNER_OS": "Windows"}, "runs on Linux and macOS, not Windows"),
        ]:
            r = action(inputs, **runner)
            check(f"{name}: exit 2, an ::error naming it, no sarif-file output",
                  r["status"] == 2 and "::error title=agentspine action::" in r["stdout"] and says in r["stdout"]
                  and "sarif-file" not in r["outputs"], shown(r))

        # --- the download path, from a file:// release directory
        target = "x86_64-unknown-linux-musl"
        releases = tmp / "releases"
        for where in (releases / "latest" / "download", releases / "download" / "v0.1.0"):
            where.mkdir(parents=True)
            shutil.copy(agentspine, where / f"agentspine-{target}")
            digest = hashlib.sha256((where / f"agentspine-{target}").read_bytes()).hexdigest()
            write(where / f"agentspine-{target}.sha256", f"{digest}  agentspine-{target}\n")
        url = f"file://{releases}"
        for version, asked in [("latest", "latest"), ("0.1.0", "v0.1.0"), ("v0.1.0", "v0.1.0")]:
            r = action({"version": version, "releases-url": url})
            installed = r["temp"] / "agentspine" / "bin" / "agentspine"
            check(f"version {version}: the {asked} asset for Linux X64 is downloaded, checked and run: exit 0",
                  r["status"] == 0 and r["outputs"].get("agentspine") == str(installed)
                  and installed.read_bytes() == agentspine.read_bytes() and os.access(installed, os.X_OK)
                  and valid(log_of(r)) and not (r["temp"] / "agentspine-download").exists(), shown(r))
        r = action({"version": "v9.9.9", "releases-url": url})
        check("a release that does not exist: exit 2, the URL named",
              r["status"] == 2 and f"{url}/download/v9.9.9/agentspine-{target}" in r["stdout"], shown(r))
        r = action({"releases-url": url}, RUNNER_ARCH="ARM64")
        check("ARM64 asks for the aarch64 binary (absent here): exit 2, named",
              r["status"] == 2 and "latest/download/agentspine-aarch64-unknown-linux-musl" in r["stdout"], shown(r))
        sums = releases / "latest" / "download" / f"agentspine-{target}.sha256"
        sums.write_text("0" * 64 + f"  agentspine-{target}\n")
        r = action({"releases-url": url})
        check("a binary that does not match its .sha256 is never installed or run: exit 2",
              r["status"] == 2 and "does not match its checksum" in r["stdout"]
              and not (r["temp"] / "agentspine" / "bin" / "agentspine").exists()
              and "agentspine" not in r["outputs"], shown(r))

        # --- build: true, with a cargo that records what it is asked
        record = tmp / "cargo-args"
        write(fake_bin / "cargo", "#!/bin/sh\n"
              f"printf '%s\\n' \"$@\" > {record}\n"
              "while [ $# -gt 0 ]; do [ \"$1\" = --root ] && root=$2; shift; done\n"
              f"mkdir -p \"$root/bin\" && cp {agentspine} \"$root/bin/agentspine\"\n")
        (fake_bin / "cargo").chmod(0o755)
        r = action({"build": "true"}, path=f"{fake_bin}:{os.environ.get('PATH', '')}")
        asked = record.read_text().splitlines() if record.exists() else []
        check("build true: cargo install --locked of the action's crates/agentspine into RUNNER_TEMP, then run",
              r["status"] == 0 and asked == ["install", "--locked", "--path", str(REPO / "crates" / "agentspine"),
                                             "--root", str(r["temp"] / "agentspine")]
              and r["outputs"].get("agentspine") == str(r["temp"] / "agentspine" / "bin" / "agentspine"),
              f"{shown(r)}\ncargo got {asked}")
        r = action({"build": "yes"})
        check("build must be true or false: exit 2", r["status"] == 2 and "build must be true or false" in r["stdout"],
              shown(r))

    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
