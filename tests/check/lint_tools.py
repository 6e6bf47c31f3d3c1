"""The Python tools the lint-entry tests drive, pinned, in one venv.

precommit.py and action.py call `reexec()` first: it makes (once) a venv
in ${AGENTSPINE_LINT_PY_CACHE:-~/.cache/agentspine-lint-py}, installs the
pinned requirements from PyPI when they differ, and runs the calling script
again under that venv's Python.
"""

import os
import subprocess
import sys
from pathlib import Path

REQUIREMENTS = ["pre-commit==4.7.0", "PyYAML==6.0.3", "jsonschema==4.26.0"]
MARKER = "AGENTSPINE_LINT_VENV"


def cache() -> Path:
    return Path(os.environ.get("AGENTSPINE_LINT_PY_CACHE") or Path.home() / ".cache" / "agentspine-lint-py")


def _installed(python: Path) -> list[str]:
    names = [r.split("==")[0] for r in REQUIREMENTS]
    probe = subprocess.run(
        [str(python), "-c",
         "import importlib.metadata as m, sys\n"
         "for n in sys.argv[1:]:\n"
         "    try: print(n + '==' + m.version(n))\n"
         "    except m.PackageNotFoundError: print(n)",
         *names],
        capture_output=True, text=True,
    )
    return probe.stdout.split() if probe.returncode == 0 else []


def reexec(script: str) -> None:
    """Runs `script` again under the venv unless this is that run."""
    if os.environ.get(MARKER) == "1":
        return
    venv = cache()
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"creating a venv in {venv}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    if _installed(python) != REQUIREMENTS:
        print(f"installing {' '.join(REQUIREMENTS)} into {venv}", file=sys.stderr)
        subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *REQUIREMENTS],
            check=True,
        )
    env = dict(os.environ, **{MARKER: "1"})
    sys.exit(subprocess.run([str(python), script, *sys.argv[1:]], env=env).returncode)
