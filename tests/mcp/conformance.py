#!/usr/bin/env python3
"""`agentspine mcp` against the official MCP Python SDK client.

Spawns the server through the SDK's stdio client, as an MCP client would,
and checks the handshake, the tool list and every tool against a copy of
examples/monorepo (with a `.git` directory, and a Claude memory directory
from examples/claude-memory), with HOME in a temp directory. Bad arguments
must come back as error results or JSON-RPC errors, never as a crash.

    PYTHONPATH=tests/lib python3 tests/mcp/conformance.py --agentspine target/debug/agentspine

The SDK is installed on first use into a venv in
${AGENTSPINE_PY_CACHE:-~/.cache/agentspine-py}; this script re-executes
itself there. Prints one line per check and `N passed, M failed`.
"""

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

import harness

REQUIREMENT = "mcp==2.3.0"
REPO = Path(__file__).resolve().parents[2]


def venv_python() -> Path:
    cache = Path(os.environ.get("AGENTSPINE_PY_CACHE") or Path.home() / ".cache" / "agentspine-py")
    python = cache / "bin" / "python"
    if not python.exists():
        print(f"creating a venv in {cache}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(cache)], check=True)
    probe = subprocess.run(
        [str(python), "-c", "import importlib.metadata as m; print(m.version('mcp'))"],
        capture_output=True,
        text=True,
    )
    if probe.returncode != 0 or probe.stdout.strip() != REQUIREMENT.split("==")[1]:
        print(f"installing {REQUIREMENT} into {cache}", file=sys.stderr)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", REQUIREMENT], check=True)
    return python


# Run under the venv that has the SDK (once; the marker stops a loop).
if os.environ.get("AGENTSPINE_MCP_VENV") != "1":
    python = venv_python()
    env = dict(os.environ, AGENTSPINE_MCP_VENV="1")
    sys.exit(subprocess.run([str(python), __file__, *sys.argv[1:]], env=env).returncode)

import anyio  # noqa: E402
import tomllib  # noqa: E402
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client  # noqa: E402
from mcp import types  # noqa: E402

TOOLS = {"session_briefing", "delivery_knowledge_query", "resolve_context", "read_document"}
tally = harness.Tally()
check = tally.check


def fixture(tmp: Path) -> tuple[Path, Path, dict[str, str]]:
    """A copy of the example project with a `.git` dir, and a HOME whose
    Claude config holds the example memory directory."""
    project = tmp / "monorepo"
    shutil.copytree(REPO / "examples" / "monorepo", project)
    (project / ".git").mkdir()
    home = tmp / "home"
    claude = home / ".claude"
    shutil.copytree(REPO / "examples" / "claude-memory", claude / "projects" / "mcp-test" / "memory")
    env = {
        "HOME": str(home),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "CLAUDE_CONFIG_DIR": str(claude),
        "CLAUDE_CODE_PROJECT_DIR_NAME": "mcp-test",
        "AGENTSPINE_LOG": "warn",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }
    return project.resolve(), home.resolve(), env


def text_of(result) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def call(session: ClientSession, name: str, arguments: dict):
    """(result, None) or (None, MCPError)."""
    try:
        return await session.call_tool(name, arguments), None
    except MCPError as e:
        return None, e


async def refused(session: ClientSession, label: str, name: str, arguments: dict, needle: str = "") -> None:
    """A bad call: an isError result (with `needle` in its message) or a
    JSON-RPC error, and never a crash."""
    result, error = await call(session, name, arguments)
    if error is not None:
        check(label, needle.lower() in error.message.lower() or not needle, f"JSON-RPC error {error.message!r}")
        return
    message = text_of(result)
    check(
        label,
        result.is_error and "\n" not in message and needle.lower() in message.lower(),
        f"is_error={result.is_error} message={message[:200]!r}",
    )


async def run(agentspine: Path, project: Path, home: Path, env: dict[str, str]) -> None:
    version = tomllib.loads((REPO / "Cargo.toml").read_text())["workspace"]["package"]["version"]
    # Launched in the project, as a client launches it; the second project
    # the oversized check uses is allowed with --root.
    params = StdioServerParameters(
        command=str(agentspine), args=["mcp", "--root", str(project.parent / "oversized")], env=env, cwd=str(project)
    )
    root = str(project)
    with open(home / "server.log", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                info = init.server_info
                check("initialize: server name is agentspine", info.name == "agentspine", info.name)
                check(f"initialize: server version is {version}", info.version == version, info.version)
                check("initialize: tools capability", init.capabilities.tools is not None)

                listed = (await session.list_tools()).tools
                names = {t.name for t in listed}
                check("tools/list: exactly the four tools", names == TOOLS, str(sorted(names)))
                for tool in listed:
                    schema = tool.input_schema
                    props = schema.get("properties", {})
                    check(
                        f"tools/list: {tool.name} schema requires project_root and refuses unknown fields",
                        schema.get("type") == "object"
                        and "project_root" in schema.get("required", [])
                        and schema.get("additionalProperties") is False
                        and props.get("host", {}).get("enum") == ["codex", "claude", "gemini", "pi", "pi-0.73", "opencode", "kimi", "copilot", "desktop", "generic"],
                        str(schema)[:300],
                    )
                    description = tool.description or ""
                    check(
                        f"tools/list: {tool.name} description teaches when to call it",
                        len(description) >= 400 and "project_root" in description and "absolute" in description,
                        f"{len(description)} chars",
                    )

                await resolve_context(session, root)
                briefing_ids = await session_briefing(session, root, home)
                await knowledge_query(session, root)
                await read_document(session, root, briefing_ids)
                await bad_arguments(session, root, project)

                try:
                    await session.call_tool("no_such_tool", {"project_root": root})
                    check("unknown tool: JSON-RPC error", False, "answered with a result")
                except MCPError as e:
                    check("unknown tool: JSON-RPC error", e.code in (-32601, -32602), f"{e.code} {e.message}")

                again = await session.list_tools()
                check("still serving after every error", len(again.tools) == 4)


async def resolve_context(session: ClientSession, root: str) -> None:
    result, error = await call(
        session, "resolve_context", {"project_root": root, "host": "codex", "target_path": "packages/api/src/handlers/users.ts"}
    )
    ok = error is None and not result.is_error
    if not check("resolve_context codex: a result", ok, str(error or text_of(result))[:200]):
        return
    doc = result.structured_content
    native = doc.get("native", "")
    check(
        "resolve_context codex: root, override and handlers files, nothing from a sibling",
        "make check" in native
        and "v2 migration" in native
        and "never touch the database" in native
        and "The HTTP API" not in native  # AGENTS.md shadowed by AGENTS.override.md
        and "function components" not in native,  # packages/web
        native[:300],
    )
    check(
        "resolve_context codex: shape of `agentspine resolve --json`",
        doc.get("host") == "codex"
        and doc.get("chain_dir") == "packages/api/src/handlers"
        and doc.get("native_bytes") == len(native.encode())
        and isinstance(doc.get("probes"), list)
        and isinstance(doc.get("counters"), dict),
        str(sorted(doc))[:300],
    )
    result, error = await call(session, "resolve_context", {"project_root": root, "target_path": f"{root}/packages/web"})
    native = (result.structured_content or {}).get("native", "") if result else ""
    check(
        "resolve_context generic, absolute target: the web chain only",
        error is None and not result.is_error and "function components" in native and "v2 migration" not in native,
        native[:300],
    )


async def session_briefing(session: ClientSession, root: str, home: Path) -> dict[str, str]:
    result, error = await call(session, "session_briefing", {"project_root": root})
    ok = error is None and not result.is_error
    if not check("session_briefing generic: a result", ok, str(error or text_of(result))[:200]):
        return {}
    doc = result.structured_content
    text = doc.get("text", "")
    parts = doc.get("parts", [])
    check(
        "session_briefing generic: root instructions first, then project Markdown",
        "make check" in text
        and "Shared conventions" in text
        and parts
        and parts[0]["scope"] == "project"
        and any(p["scope"] == "doc" for p in parts),
        text[:300],
    )
    check(
        "session_briefing generic: every part labelled with its source id",
        all(p["source_id"].startswith("src_") and f"· {p['source_id']}" in text for p in parts),
    )
    check(
        "session_briefing generic: sourceResolution and no receipt unless required",
        doc.get("sourceResolution", {}).get("host") == "generic" and doc.get("receipt") is None,
    )

    result, _ = await call(session, "session_briefing", {"project_root": root, "required": True})
    receipt = (result.structured_content or {}).get("receipt") if result and not result.is_error else None
    check(
        "session_briefing required: a receipt",
        isinstance(receipt, dict) and receipt.get("id", "").startswith("rcpt_"),
        text_of(result)[:200] if result else "",
    )

    result, _ = await call(session, "session_briefing", {"project_root": root, "budget_bytes": 300})
    doc = result.structured_content if result and not result.is_error else {}
    check(
        "session_briefing budget_bytes=300: within budget, the rest omitted",
        doc and len(doc["text"].encode()) <= 300 and doc["omitted"] and doc["budget_bytes"] == 300,
        str(doc)[:200],
    )

    result, _ = await call(
        session,
        "session_briefing",
        {
            "project_root": root,
            "host": "claude",
            "cwd": "packages/api",
            "scope": ["project:blun"],
            "prompt": "what goes in a carbonara?",
        },
    )
    doc = result.structured_content if result and not result.is_error else {}
    text = doc.get("text", "")
    check(
        "session_briefing claude: chain for cwd, always/scoped/prompted memory facts",
        "Run `make -C packages/api test`" in text
        and "guanciale" in text  # keywords=carbonara
        and "Memory" in text,  # the index
        text[:400],
    )
    check(
        "session_briefing claude: unproven facts stay unopened",
        "do not resurrect" not in text and "Scratch:" not in text,
        text[-400:],
    )
    ids = {p["rel_path"]: p["source_id"] for p in doc.get("parts", [])}
    return ids


async def knowledge_query(session: ClientSession, root: str) -> None:
    result, error = await call(session, "delivery_knowledge_query", {"project_root": root, "query": "doc comments", "k": 3})
    ok = error is None and not result.is_error
    if not check("delivery_knowledge_query: a result", ok, str(error or text_of(result))[:200]):
        return
    doc = result.structured_content
    hits = doc.get("hits", [])
    check(
        "delivery_knowledge_query: the docs passage first, at most k hits, with the briefing",
        hits
        and len(hits) <= 3
        and "doc comments" in hits[0]["excerpt"]
        and hits[0]["source_id"].startswith("src_")
        and "text" in doc.get("briefing", {}),
        str(hits)[:300],
    )
    result, _ = await call(session, "read_document", {"project_root": root, "source_id": hits[0]["source_id"]})
    body = (result.structured_content or {}) if result and not result.is_error else {}
    check(
        "read_document of a query hit: the whole file, unchanged",
        "doc comments" in body.get("text", "") and body.get("changed") is False and len(body.get("sha256", "")) == 64,
        str(body)[:200],
    )
    result, _ = await call(session, "delivery_knowledge_query", {"project_root": root, "query": "zeppelin"})
    check(
        "delivery_knowledge_query: no shared word, no hits",
        result is not None and not result.is_error and result.structured_content.get("hits") == [],
    )


async def read_document(session: ClientSession, root: str, ids: dict[str, str]) -> None:
    # memory:4 is the carbonara fact, opened only because of the prompt: a
    # catalog rebuilt without it would not know the id.
    fact = ids.get("memory:4")
    if not check("session_briefing claude: the prompted fact's source id", fact is not None, str(ids)):
        return
    result, _ = await call(session, "read_document", {"project_root": root, "host": "claude", "source_id": fact})
    body = (result.structured_content or {}) if result and not result.is_error else {}
    check(
        "read_document of the prompted memory fact (the briefing's catalog, not rediscovered)",
        "guanciale" in body.get("text", "") and body.get("scope") == "memory" and body.get("changed") is False,
        text_of(result)[:200] if result else "",
    )
    await refused(
        session,
        "read_document unknown id: error result",
        "read_document",
        {"project_root": root, "source_id": "src_000000000000000000000000"},
        "not a source",
    )
    await refused(
        session, "read_document a path: refused", "read_document", {"project_root": root, "source_id": "AGENTS.md"}, "src_"
    )


async def bad_arguments(session: ClientSession, root: str, project: Path) -> None:
    target = {"target_path": "AGENTS.md"}
    await refused(
        session, "relative project_root: refused", "resolve_context", {"project_root": "monorepo", **target}, "absolute"
    )
    await refused(
        session,
        "project_root with `..`: refused",
        "session_briefing",
        {"project_root": f"{root}/packages/.."},
        "..",
    )
    await refused(
        session,
        "missing project_root: refused",
        "session_briefing",
        {},
        "project_root",
    )
    await refused(session, "missing target_path: refused", "resolve_context", {"project_root": root}, "target_path")
    await refused(
        session,
        "unknown field (a catalog): refused",
        "resolve_context",
        {"project_root": root, "catalog": "/tmp/x", **target},
        "unknown field",
    )
    await refused(
        session,
        "unknown host: refused",
        "session_briefing",
        {"project_root": root, "host": "vim"},
        "vim",
    )
    await refused(
        session,
        "missing project_root directory: refused",
        "session_briefing",
        {"project_root": f"{root}/nope"},
        "no such directory",
    )
    await refused(
        session,
        "project_root that is a file: refused",
        "delivery_knowledge_query",
        {"project_root": f"{root}/AGENTS.md", "query": "x"},
        "not a directory",
    )
    await refused(
        session,
        "target_path outside the root: refused",
        "resolve_context",
        {"project_root": f"{root}/packages/api", "target_path": f"{root}/packages/web/AGENTS.md"},
        "outside the project root",
    )
    await refused(
        session,
        "budget_bytes 0: refused",
        "session_briefing",
        {"project_root": root, "budget_bytes": 0},
        "budget_bytes",
    )
    await refused(
        session,
        "empty query: refused",
        "delivery_knowledge_query",
        {"project_root": root, "query": "  "},
        "query",
    )
    await refused(
        session,
        "required with an instruction file over the cap: no receipt",
        "session_briefing",
        {"project_root": str(oversized(project)), "required": True},
        "required preflight incomplete",
    )


def oversized(project: Path) -> Path:
    """A second project whose root AGENTS.md is over the 32 KiB cap, so the
    host would see it cut: discovery is incomplete."""
    other = project.parent / "oversized"
    other.mkdir(exist_ok=True)
    (other / ".git").mkdir(exist_ok=True)
    (other / "AGENTS.md").write_text("- keep every line short.\n" * 2000)
    return other.resolve()


async def roots(agentspine: Path, project: Path, home: Path, env: dict[str, str]) -> None:
    """The server resolves only the roots its launch gave it. Launched in
    the home directory (never a project) with no --root: a client without
    the roots capability gets nothing resolved; a client offering roots
    gets exactly those, and a new list after roots/list_changed."""
    other = project.parent / "second"
    shutil.copytree(REPO / "examples" / "monorepo", other, dirs_exist_ok=True)
    (other / ".git").mkdir(exist_ok=True)
    other = other.resolve()
    params = StdioServerParameters(command=str(agentspine), args=["mcp"], env=env, cwd=str(home))
    briefing = lambda root: {"project_root": str(root)}  # noqa: E731

    with open(home / "server-roots.log", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                result, _ = await call(session, "session_briefing", briefing(project))
                message = text_of(result) if result else ""
                check(
                    "no client roots, launched in home: the project is refused, naming how to add it",
                    result is not None and result.is_error and "not a root this server was started for" in message
                    and "--root" in message,
                    message[:200],
                )

    offered = [project]

    async def list_roots(_context) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=f"file://{root}", name=root.name) for root in offered])

    with open(home / "server-roots.log", "a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, list_roots_callback=list_roots) as session:
                await session.initialize()
                result, error = await call(session, "session_briefing", briefing(project))
                check(
                    "client roots: a root the client offers is resolved",
                    error is None and result is not None and not result.is_error,
                    text_of(result)[:200] if result else str(error),
                )
                result, _ = await call(session, "session_briefing", briefing(other))
                check(
                    "client roots: a root the client does not offer is refused",
                    result is not None and result.is_error and "not a root" in text_of(result),
                    text_of(result)[:200] if result else "",
                )
                result, _ = await call(session, "session_briefing", briefing(home))
                check(
                    "client roots: the home directory is never a project",
                    result is not None and result.is_error and "never a project root" in text_of(result),
                    text_of(result)[:200] if result else "",
                )
                offered.append(other)
                await session.send_roots_list_changed()
                await anyio.sleep(0.2)
                result, error = await call(session, "session_briefing", briefing(other))
                check(
                    "client roots: after roots/list_changed the new root is resolved",
                    error is None and result is not None and not result.is_error,
                    text_of(result)[:200] if result else str(error),
                )


async def hostile_roots(agentspine: Path, project: Path, home: Path, env: dict[str, str]) -> None:
    """Client roots an attacker controls never widen what a tool reads. The
    client's roots/list answers `/`, the home directory, a link to a
    directory outside the project (holding a secret), a link into the
    project, a `/proc/self/root` spelling of the project, a path that does
    not exist yet (created as a link before roots/list_changed), and a real
    directory swapped for a link after it was listed (no list_changed).
    Every tool naming any of them is an error naming the root and the
    reason, and no result ever carries the secret."""
    base = project.parent / "hostile"
    base.mkdir()
    outside = base / "outside"
    (outside / ".git").mkdir(parents=True)
    (outside / "AGENTS.md").write_text("SECRET-OUTSIDE-THE-PROJECT\n")
    link_out = base / "link-out"
    link_out.symlink_to(outside)
    link_in = base / "link-in"
    link_in.symlink_to(project / "packages" / "api")
    proc = Path(f"/proc/self/root{project}")
    later = base / "later"
    swapped = base / "swapped"
    shutil.copytree(REPO / "examples" / "monorepo", swapped)
    (swapped / ".git").mkdir()
    offered = [Path("/"), home, link_out, link_in, proc, later, swapped]

    async def list_roots(_context) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=f"file://{root}") for root in offered])

    calls = [
        ("session_briefing", lambda root: {"project_root": str(root)}),
        ("resolve_context", lambda root: {"project_root": str(root), "target_path": "AGENTS.md"}),
        ("delivery_knowledge_query", lambda root: {"project_root": str(root), "query": "SECRET outside project"}),
    ]
    leaked: list[str] = []

    async def each_tool(session, label: str, root: Path, needle: str) -> None:
        for name, arguments in calls:
            result, error = await call(session, name, arguments(root))
            text = text_of(result) + str(result.structured_content) if result else str(error)
            if "SECRET-OUTSIDE" in text:
                leaked.append(f"{label} {name}")
            check(
                f"hostile roots: {label}: {name} is an error naming the root and why",
                result is not None and result.is_error and needle in text_of(result),
                text[:240],
            )

    params = StdioServerParameters(command=str(agentspine), args=["mcp"], env=env, cwd=str(home))
    with open(home / "server-hostile.log", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, list_roots_callback=list_roots) as session:
                await session.initialize()
                await each_tool(session, "/", Path("/"), "never a project root")
                await each_tool(session, "the home directory", home, "never a project root")
                await each_tool(session, "a link out of the project", link_out, "is a symbolic link")
                await each_tool(session, "the link's target, never offered itself", outside, "not a root")
                await each_tool(session, "a link into the project", link_in, "is a symbolic link")
                await each_tool(session, "a /proc/self/root spelling", proc, "is a symbolic link")
                await each_tool(session, "a root that does not exist", later, "no such directory")
                result, _ = await call(session, "session_briefing", {"project_root": str(swapped)})
                check(
                    "hostile roots: a real directory offered is resolved",
                    result is not None and not result.is_error,
                    text_of(result)[:200] if result else "",
                )
                # Swapped for a link after roots/list, with no list_changed:
                # the next call checks the root again.
                swapped.rename(base / "swapped-away")
                swapped.symlink_to(outside)
                await each_tool(session, "a listed root swapped for a link", swapped, "is a symbolic link")
                # A path that did not exist at listing becomes a link, then
                # the client says its roots changed.
                later.symlink_to(outside)
                await session.send_roots_list_changed()
                await anyio.sleep(0.2)
                await each_tool(session, "a new root that is a link after roots/list_changed", later, "is a symbolic link")
                await each_tool(session, "its target", outside, "not a root")
    check("hostile roots: no tool result carries the secret", not leaked, ", ".join(leaked))


async def damaged(agentspine: Path, project: Path, home: Path, env: dict[str, str]) -> None:
    """A state database that is not one: the client's logging callback gets
    one warning saying so (for its user), and no tool result carries it."""
    state = home / "damaged-state"
    state.mkdir()
    (state / "state.db").write_bytes(b"this is not a database")
    env = dict(env, AGENTSPINE_STATE_DIR=str(state))
    logged: list = []

    async def on_log(params) -> None:
        logged.append(params)

    params = StdioServerParameters(command=str(agentspine), args=["mcp"], env=env, cwd=str(project))
    with open(home / "server-damaged.log", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, logging_callback=on_log) as session:
                init = await session.initialize()
                check("damaged state: logging capability", init.capabilities.logging is not None)
                result, error = await call(session, "session_briefing", {"project_root": str(project), "host": "claude"})
                await anyio.sleep(0.5)
                check(
                    "damaged state: one warning log for the user, naming the damaged copy",
                    len(logged) == 1
                    and logged[0].level == "warning"
                    and logged[0].logger == "agentspine"
                    and "the state database was damaged" in logged[0].data.get("message", "")
                    and str(state / "state.db.corrupt-") in logged[0].data.get("message", "")
                    and len(logged[0].data.get("state_incidents", [])) == 1,
                    repr(logged)[:400],
                )
                check(
                    "damaged state: never in a tool result (model context)",
                    error is None and not result.is_error and "damaged" not in text_of(result)
                    and "damaged" not in str(result.structured_content),
                    str(error or text_of(result))[:200],
                )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agentspine", required=True, type=Path)
    args = parser.parse_args()
    agentspine = Path(harness.agentspine(args.agentspine, real=True))
    with harness.scratch("agentspine-mcp-") as tmp:
        project, home, env = fixture(Path(tmp))
        try:
            anyio.run(run, agentspine, project, home, env)
            anyio.run(roots, agentspine, project, home, env)
            anyio.run(hostile_roots, agentspine, project, home, env)
            anyio.run(damaged, agentspine, project, home, env)
        except Exception as e:  # the session died: that is a failure too
            check("the session completes", False, f"{type(e).__name__}: {e}")
            log = home / "server.log"
            if log.exists():
                print(log.read_text()[-2000:], file=sys.stderr)
    return tally.summary()


if __name__ == "__main__":
    sys.exit(main())
