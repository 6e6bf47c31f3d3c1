#!/usr/bin/env python3
"""`agentspine check --format sarif` validates against the SARIF 2.1.0 schema.

A copy of examples/monorepo gets a blank AGENTS.override.md, a linked
AGENTS.md and a 40 KiB AGENTS.md (Codex cuts it at a line), so the log
holds results with and without a region; every result must name a rule
of the run, and the log must validate against the vendored schema.
"""

import argparse
import json
import os
import shutil
import sys

import harness
import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--agentspine", required=True)
    args = parser.parse_args()
    with open(os.path.join(HERE, "sarif-2.1.0-rtm.5.json")) as f:
        schema = json.load(f)
    agentspine = harness.agentspine(args.agentspine)
    with harness.scratch("agentspine-sarif-", dir="/tmp") as tmp:
        tree = os.path.join(tmp, "tree")
        home = os.path.join(tmp, "home")
        shutil.copytree(os.path.join(REPO, "examples", "monorepo"), tree, symlinks=True)
        os.makedirs(os.path.join(tree, ".git"), exist_ok=True)
        os.makedirs(home)
        harness.write(os.path.join(tree, "packages/web/AGENTS.override.md"), "\n")
        link = os.path.join(tree, "services/billing/AGENTS.md")
        if not os.path.lexists(link):
            os.symlink("../../README.md", link)
        # A link out of the project (an error) beside the one inside it (a note).
        harness.write(os.path.join(tmp, "outside.md"), "outside the project\n")
        os.symlink("../../../outside.md", os.path.join(tree, "services/billing/AGENTS.override.md"))
        harness.write(os.path.join(tree, "packages/api/AGENTS.override.md"),
                      "".join(f"rule {i:04} " + "x" * 90 + "\n" for i in range(400)))
        env = {"HOME": home, "PATH": os.environ.get("PATH", "")}

        def run(*extra):
            out = harness.run([agentspine, "check", "--root", tree, "--all-hosts", *extra], env=env, cwd=tree,
                              check=True)
            return json.loads(out.stdout)

        log = run("--format", "sarif")
        findings = run("--json")["findings"]
    jsonschema.Draft4Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(log), key=lambda e: list(e.path))
    for error in errors[:10]:
        print(f"invalid at {list(error.path)}: {error.message}", file=sys.stderr)
    results = log["runs"][0]["results"]
    rules = [r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]]
    checks = [
        ("the log validates against the SARIF 2.1.0 schema", not errors),
        ("one result per finding", len(results) == len(findings) and len(results) > 0),
        ("each result names its rule by id and index",
         all(rules[r["ruleIndex"]] == r["ruleId"] for r in results)),
        ("the Codex cut has a line region",
         any(r["ruleId"] == "budget-cut" and r["locations"][0]["physicalLocation"]["region"]["startLine"] > 1
             for r in results)),
        ("kinds seen", {"budget-cut", "shadowed-by-empty", "symlink", "link-inside", "never-read"}
         <= {r["ruleId"] for r in results}),
    ]
    tally = harness.Tally()
    for name, ok in checks:
        tally.check(name, ok)
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
