#!/usr/bin/env python3
"""Scale acceptance for indexed memory, checked with strace.

    memory_scale.py --agentspine BIN

Builds a memory directory holding 50,000 real unindexed files beside six
indexed facts (one scoped to a project that does not match), runs
`agentspine memory --json` under `strace -f`, and checks the system calls
themselves: no call names an unindexed file, nothing enumerates a directory
(`getdents64`), and exactly the index (twice) and five facts are opened
beneath the memory directory. The same run with 0 unindexed files must
report the same counts. Prints one line per check and `N passed, M failed`.
"""
import json
import os
import re
import sys

import harness
from checks import agentspine_binary

INDEX = """# Memory

- [Communication style](style.md) <!-- agentspine:always -->
- [BLUN project](blun.md) <!-- agentspine:project=project:blun -->
- [Alpha team](alpha.md) <!-- agentspine:group=group:alpha -->
- [Owner preference](owner.md) <!-- agentspine:entity=person:owner -->
- [Current handoff](handoff.md) <!-- agentspine:task=task:handoff -->
- [Other project](other.md) <!-- agentspine:project=project:other -->
"""
FACTS = ["style.md", "blun.md", "alpha.md", "owner.md", "handoff.md", "other.md"]
SCOPE = "project:blun,group:alpha,person:owner,task:handoff"


def build(base: str, unindexed: int) -> str:
    d = os.path.join(base, f"memory-{unindexed}")
    os.makedirs(d)
    harness.write_tree(d, {"MEMORY.md": INDEX, **{name: f"fact in {name}\n" for name in FACTS}})
    for i in range(unindexed):
        harness.write(os.path.join(d, f"unindexed-{i}.md"), "never read\n")
    return d


def run(bin_: str, d: str, trace: str) -> dict:
    cmd = ["strace", "-f", "-qq", "-e", "trace=%file,%desc", "-o", trace, bin_, "memory",
           "--memory-dir", d, "--scope", SCOPE, "--json"]
    out = harness.run(cmd, check=True, timeout=120, env={"PATH": os.environ["PATH"], "HOME": os.path.dirname(d)})
    return json.loads(out.stdout)


def main() -> int:
    bin_ = agentspine_binary(__doc__)
    tally = harness.Tally()
    check = tally.check
    with harness.scratch("agentspine-memory-scale-") as base:
        big = build(base, 50_000)
        small = build(base, 0)
        big_trace, small_trace = os.path.join(base, "big.trace"), os.path.join(base, "small.trace")
        big_out = run(bin_, big, big_trace)
        small_out = run(bin_, small, small_trace)
        trace = open(big_trace).read().splitlines()
        r = big_out["report"]
        check(f"5 facts loaded of 6 indexed, 1 out of scope (report {r})",
              r["loaded"] == 5 and r["indexed"] == 6 and r["scope_omissions"] == 1)
        check("the same report with 0 unindexed files", big_out["report"] == small_out["report"])
        named = [l for l in trace if "unindexed-" in l]
        check(f"no system call names an unindexed file ({len(named)} did)", not named)
        listings = [l for l in trace if re.search(r"\bgetdents(64)?\(", l)]
        check(f"no directory enumeration (getdents64) at all ({len(listings)} seen)", not listings)
        opens = [l for l in trace if re.search(r"\bopenat2?\(", l)]
        beneath = [l for l in opens if re.search(r'"(MEMORY\.md|' + "|".join(re.escape(f) for f in FACTS) + r')"', l)]
        names = sorted(re.search(r'"([^"]+)"', l).group(1) for l in beneath)
        expected = sorted(["MEMORY.md", "MEMORY.md"] + FACTS[:5])
        check(f"opens beneath the memory directory: MEMORY.md twice and the 5 facts ({names})", names == expected)
        check("the out-of-scope fact is never named", "other.md" not in " ".join(trace))
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
