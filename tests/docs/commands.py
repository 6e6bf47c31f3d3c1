#!/usr/bin/env python3
"""The docs never drift from the binary: every command of README.md and
GUIDE.md runs as written, and every link between the docs resolves.

    PYTHONPATH=tests/lib python3 tests/docs/commands.py --agentspine target/debug/agentspine [--keep]

Commands. Every line of a ```sh block (a trailing `\\` joins the next line;
comment lines are not commands) and every `$ ` line of a ```console block
(its output is not compared: paths and source ids differ per machine) is
run with bash, in order, document by document, in a throwaway world:

- a copy of examples/monorepo, with a `.git` of its own (as a cloned
  project has), and of examples/claude-memory, under `examples/` of a
  scratch directory that stands for the repository root: each code block
  starts there (a `cd` lasts to the end of its block; exported variables
  last to the end of the document);
- a throwaway HOME (with `~/.pi/agent` and `~/.config/opencode`, as on a
  machine where pi and opencode have run once) and AGENTSPINE_STATE_DIR;
  no other variable of the caller's but PATH, whose first entry holds the
  binary under test as `agentspine` (a copy outside the cargo build
  directory, as an installed one is);
- `cargo run [--release] -p agentspine -- ARGS` runs the binary under test
  with ARGS (the suite has built it; this test checks the arguments), and
  `cargo build -p agentspine` is that build, not run again.

A command must exit 0, or the code its trailing comment names:

    agentspine check --root examples/monorepo --deny warning   # exit 1

A command holding `…` is a template the reader fills in (a source id, which
is a keyed digest that differs per state directory); it is listed, not
run. What cannot run offline or in CI (a registry, a host's own CLI, a
release download, a build of minutes) is marked in the document, with why,
on the line before its block:

    <!-- doc-test: skip: npm and the Claude Code CLI need the network -->

or, for some commands of a block only (those starting with the text in
quotes):

    <!-- doc-test: skip "scripts/test": the suite this test is part of -->

Every skip and template is printed with its reason; the test fails on a
marker that names no reason or matches no command.

Links. Every relative link of README.md, GUIDE.md, BENCHMARKS.md and
docs/*.md (outside code) must name a file or directory of the repository,
and a `#anchor` must be a heading of the file it names, spelt as GitHub
spells heading anchors. So must every link to this repository's own pages
on GitHub (`https://github.com/agentspine/agentspine/blob/main/…`) that the
binary prints (the `--help` texts under crates/agentspine/src) and the man
pages under docs/ carry: they are how `--help` points to the reference.
"""

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys

import harness

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
RUN = ("README.md", "GUIDE.md")
SHELL = {"sh", "bash", "shell"}
EXIT = re.compile(r"#\s*exit\s+(\d+)\s*$")
MARKER = re.compile(r"<!--\s*doc-test:\s*(.*?)\s*-->")
SKIP = re.compile(r'skip(?:\s+"([^"]+)")?\s*:\s*(\S.*)$')
CARGO_RUN = re.compile(r"^cargo run(?: --release)? -p agentspine -- ")
CARGO_BUILD = re.compile(r"^cargo build(?: --release)? -p agentspine\s*$")
TIMEOUT = 60


class Command:
    def __init__(self, doc, line, text, block, skip=None, template=False):
        self.doc, self.line, self.text, self.block = doc, line, text, block
        self.skip, self.template = skip, template
        m = EXIT.search(text)
        self.exit = int(m.group(1)) if m else 0


def blocks(doc: str):
    """(first line number, language, lines, marker) of every fenced block."""
    lines = open(os.path.join(REPO, doc), encoding="utf-8").read().split("\n")
    i, marker = 0, None
    while i < len(lines):
        line = lines[i]
        m = MARKER.search(line)
        if m:
            marker = (i + 1, m.group(1))
        fence = re.match(r"^(\s*)(```+)\s*([\w-]*)", line)
        if fence:
            indent, ticks, lang = fence.groups()
            body, start = [], i + 1
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(ticks):
                body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
                i += 1
            yield start, lang, body, marker
            marker = None
        elif line.strip() and not m:
            marker = None
        i += 1


def commands(doc: str, problems: list) -> list:
    out = []
    for block, (start, lang, body, marker) in enumerate(blocks(doc)):
        found = []
        if lang in SHELL:
            j = 0
            while j < len(body):
                text, line = body[j].strip(), start + j + 1
                while text.endswith("\\") and j + 1 < len(body):
                    j += 1
                    text = text[:-1].rstrip() + " " + body[j].strip()
                j += 1
                if text and not text.startswith("#"):
                    found.append((line, text))
        elif lang == "console":
            j = 0
            while j < len(body):
                raw, line = body[j], start + j + 1
                j += 1
                if not raw.startswith("$ "):
                    continue
                text = raw[2:].strip()
                while text.endswith("\\") and j < len(body):
                    text = text[:-1].rstrip() + " " + body[j].strip()
                    j += 1
                found.append((line, text))
        elif marker:
            problems.append(f"{doc}:{marker[0]}: a doc-test marker before a block that is not sh or console")
            continue
        skip_all, skip_prefix, reason = False, None, None
        if marker:
            m = SKIP.match(marker[1])
            if not m:
                problems.append(f"{doc}:{marker[0]}: doc-test marker without a reason: {marker[1]!r}")
                continue
            skip_prefix, reason = m.group(1), m.group(2)
            skip_all = skip_prefix is None
            if skip_prefix and not any(t.startswith(skip_prefix) for _, t in found):
                problems.append(f"{doc}:{marker[0]}: doc-test marker names {skip_prefix!r}, "
                                "which no command of its block starts with")
        for line, text in found:
            skipped = reason if skip_all or (skip_prefix and text.startswith(skip_prefix)) else None
            out.append(Command(doc, line, text, block, skip=skipped, template="…" in text))
    return out


def world(binary: str, scratch: str) -> tuple:
    """The repository stand-in, HOME and the environment every command gets."""
    root = os.path.join(scratch, "repo")
    home = os.path.join(scratch, "home")
    bin_dir = os.path.join(scratch, "bin")
    for name in ("monorepo", "claude-memory"):
        shutil.copytree(os.path.join(REPO, "examples", name), os.path.join(root, "examples", name),
                        symlinks=True)
    subprocess.run(["git", "init", "-q", os.path.join(root, "examples", "monorepo")], check=True)
    os.makedirs(os.path.join(home, ".pi", "agent"))
    os.makedirs(os.path.join(home, ".config", "opencode"))
    os.makedirs(bin_dir)
    shutil.copy2(binary, os.path.join(bin_dir, "agentspine"))
    env = {
        "HOME": home,
        "AGENTSPINE_STATE_DIR": os.path.join(scratch, "state"),
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "NO_COLOR": "1",
    }
    return root, env


def run_docs(binary: str, scratch: str, cmds: list, tally: harness.Tally) -> int:
    """Runs CMDS, each a check of TALLY; how many ran."""
    root, env = world(binary, scratch)
    env_file = os.path.join(scratch, "env.sh")
    ran = 0
    doc = block = cwd = None
    for c in cmds:
        where = f"{c.doc}:{c.line}"
        if c.doc != doc:
            doc = c.doc
            open(env_file, "w").close()
        if (c.doc, c.block) != block:
            block, cwd = (c.doc, c.block), root
        if c.skip:
            tally.skip(f"{where}: {c.text}", c.skip)
            continue
        if c.template:
            print(f"template  {where}: {c.text}\n          (a placeholder `…` the reader fills in)")
            continue
        text = c.text
        if CARGO_BUILD.match(text):
            print(f"built     {where}: {text}\n          (the binary under test is this build)")
            continue
        text = CARGO_RUN.sub("agentspine ", text)
        cwd_file = os.path.join(scratch, "cwd")
        script = (f"cd {shlex.quote(cwd)} || exit 97\n. {shlex.quote(env_file)}\n{text}\n"
                  f"rc=$?\nexport -p > {shlex.quote(env_file)}\npwd > {shlex.quote(cwd_file)}\nexit $rc\n")
        try:
            r = subprocess.run(["bash", "-c", script], env=env, stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=TIMEOUT)
            code, out = r.returncode, r.stdout + r.stderr
        except subprocess.TimeoutExpired as e:
            code, out = None, f"still running after {TIMEOUT} s\n{e.stdout or ''}{e.stderr or ''}"
        if os.path.exists(cwd_file):
            cwd = open(cwd_file).read().strip() or cwd
            os.remove(cwd_file)
        ran += 1
        said = "\n".join([f"exit {code}, the document says {c.exit}:"]
                         + [f"| {line}" for line in out.rstrip().splitlines()[-15:]])
        tally.check(f"{where}: {c.text}" + (f"  (exit {code}, as marked)" if code and code == c.exit else ""),
                    code == c.exit, said)
    return ran


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text as rendered, lowercased,
    without punctuation other than `-` and `_`, spaces made hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").replace("*", "")
    text = text.strip().lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


def anchors(path: str) -> set:
    out, seen, fenced = set(), {}, False
    for line in open(path, encoding="utf-8"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
        for a in re.findall(r'<a\s+(?:name|id)="([^"]+)"', line):
            out.add(a)
    return out


def links(doc: str):
    """(line, target) of every link outside code."""
    fenced = False
    for n, line in enumerate(open(os.path.join(REPO, doc), encoding="utf-8"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        line = re.sub(r"`[^`]*`", "", line)
        for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", line):
            yield n, target
        for target in re.findall(r'href="([^"]+)"', line):
            yield n, target


OWN = re.compile(r"https://github\.com/agentspine/agentspine/(?:blob|tree)/main/([^\s)\"'`<>\\]+)")


def own_links():
    """(file, line, target) of every link to this repository's pages in the
    binary's sources and the man pages, as a relative target."""
    files = []
    for base, _, names in os.walk(os.path.join(REPO, "crates", "agentspine", "src")):
        files += [os.path.join(base, n) for n in names if n.endswith(".rs")]
    files += [os.path.join(REPO, "docs", "agentspine.1")]
    files += [os.path.join(REPO, "docs", "man", n) for n in os.listdir(os.path.join(REPO, "docs", "man"))]
    for path in sorted(files):
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            for target in OWN.findall(line.replace("\\-", "-")):
                yield os.path.relpath(path, REPO), n, target.rstrip(".,;:")


def resolve_link(doc_dir: str, target: str, cache: dict):
    """None when `target` (relative to doc_dir) names an existing file and
    heading, else what is wrong."""
    path, _, anchor = target.partition("#")
    full = os.path.normpath(os.path.join(REPO, doc_dir, path))
    if not full.startswith(REPO + os.sep) and full != REPO:
        return "leaves the repository"
    if not os.path.exists(full):
        return "no such file"
    if anchor:
        if not full.endswith(".md"):
            return "an anchor into a file that is not Markdown"
        if full not in cache:
            cache[full] = anchors(full)
        if anchor not in cache[full]:
            return f"no heading #{anchor} in {os.path.relpath(full, REPO)}"
    return None


def check_links() -> tuple:
    docs = ["README.md", "GUIDE.md", "BENCHMARKS.md"] + sorted(
        os.path.join("docs", f) for f in os.listdir(os.path.join(REPO, "docs")) if f.endswith(".md"))
    checked, broken = 0, []
    cache = {}
    for doc in docs:
        for n, target in links(doc):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue
            checked += 1
            path, _, anchor = target.partition("#")
            full = os.path.normpath(os.path.join(REPO, os.path.dirname(doc), path)) if path \
                else os.path.join(REPO, doc)
            if not full.startswith(REPO + os.sep) and full != REPO:
                broken.append(f"{doc}:{n}: {target}: leaves the repository")
                continue
            if not os.path.exists(full):
                broken.append(f"{doc}:{n}: {target}: no such file")
                continue
            if anchor:
                if not full.endswith(".md"):
                    broken.append(f"{doc}:{n}: {target}: an anchor into a file that is not Markdown")
                    continue
                if full not in cache:
                    cache[full] = anchors(full)
                if anchor not in cache[full]:
                    broken.append(f"{doc}:{n}: {target}: no heading #{anchor} in {os.path.relpath(full, REPO)}")
    for doc in docs:
        for n, line in enumerate(open(os.path.join(REPO, doc), encoding="utf-8"), 1):
            for target in OWN.findall(line):
                checked += 1
                wrong = resolve_link("", target.rstrip(".,;:"), cache)
                if wrong:
                    broken.append(f"{doc}:{n}: {target}: {wrong}")
    for path, n, target in own_links():
        checked += 1
        wrong = resolve_link("", target, cache)
        if wrong:
            broken.append(f"{path}:{n}: {target}: {wrong}")
    return checked, broken


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agentspine", required=True, help="the binary under test")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = ap.parse_args()
    binary = harness.agentspine(args.agentspine)
    problems = []
    cmds = [c for doc in RUN for c in commands(doc, problems)]
    tally = harness.Tally()
    with harness.scratch("agentspine-docs-", keep=args.keep, dir="/tmp") as scratch:
        ran = run_docs(binary, scratch, cmds, tally)
    failed = tally.failed
    tally.check("at least one command ran", ran > 0)
    tally.check("every doc-test marker names a reason and a command of its block", not problems, "\n".join(problems))
    checked, broken = check_links()
    tally.check(f"{checked - len(broken)} of {checked} links resolve", not broken, "\n".join(broken))
    templates = sum(1 for c in cmds if c.template and not c.skip)
    print(f"{ran - failed} of {ran} commands ran as written ({tally.skipped} skipped as marked, "
          f"{templates} templates); {checked - len(broken)} of {checked} links resolve")
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
