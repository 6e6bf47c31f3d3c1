"""Prepares agentspine's SARIF log for code scanning and counts its results.

    sarif.py LOG ROOT REPOSITORY

Code scanning places a result by its path from the repository root; a
check of a directory below it (the action's working-directory) names
paths from that directory, so each location gets the directory put in
front and SRCROOT names the repository root. Prints the number of
results at each level: `ERRORS WARNINGS NOTES`.
"""

import json
import os
import sys

path, root, repository = sys.argv[1:]
with open(path) as f:
    log = json.load(f)
prefix = os.path.relpath(root, repository)
rewrite = prefix != "." and not prefix.startswith("..")
counts = {"error": 0, "warning": 0, "note": 0}
for run in log["runs"]:
    if rewrite:
        run["originalUriBaseIds"]["SRCROOT"]["uri"] = "file://" + repository.rstrip("/") + "/"
    for result in run["results"]:
        counts[result["level"]] += 1
        for location in result.get("locations", []) if rewrite else []:
            artifact = location["physicalLocation"]["artifactLocation"]
            artifact["uri"] = prefix + "/" + artifact["uri"]
if rewrite:
    with open(path, "w") as f:
        json.dump(log, f, indent=2)
        f.write("\n")
print(counts["error"], counts["warning"], counts["note"])
