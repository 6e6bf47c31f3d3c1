#!/usr/bin/env python3
"""A minimal stdio MCP server for measuring opencode (stdlib only).

    opencode_mcp_probe.py LOGFILE

Newline-delimited JSON-RPC on stdin/stdout.  Logs its start and every
message it receives to LOGFILE (JSON lines).  Answers `initialize` with
instructions "MCP_PROBE_INSTRUCTIONS line one\\nline two", offers one tool
`ping` (returns "pong MCP_PROBE_RESULT"), and answers other requests with
"method not found".
"""
import json
import os
import sys
import time

LOG = sys.argv[1] if len(sys.argv) > 1 else os.devnull


def log(rec):
    with open(LOG, "a", encoding="utf-8") as f:
        f.write(json.dumps({"t": time.time(), **rec}) + "\n")


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


log({"event": "start", "pid": os.getpid(), "cwd": os.getcwd(), "argv": sys.argv,
     "env": {k: v for k, v in os.environ.items() if k in ("HOME", "PWD", "PROBE_MCP_ENV")}})
for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    try:
        msg = json.loads(line)
    except ValueError:
        log({"event": "garbage", "line": line[:200]})
        continue
    log({"event": "recv", "msg": msg})
    if "id" not in msg:
        continue
    method = msg.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "protocolVersion": (msg.get("params") or {}).get("protocolVersion", "2024-11-05"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "agentspine-probe", "version": "0.0.1"},
            "instructions": "MCP_PROBE_INSTRUCTIONS line one\nline two"}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": [{
            "name": "ping", "description": "Probe tool: answers pong.",
            "inputSchema": {"type": "object", "properties": {"note": {"type": "string"}}}}]}})
    elif method == "tools/call":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {
            "content": [{"type": "text", "text": "pong MCP_PROBE_RESULT"}], "isError": False}})
    elif method == "ping":
        send({"jsonrpc": "2.0", "id": msg["id"], "result": {}})
    else:
        send({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32601, "message": f"no {method}"}})
log({"event": "eof"})
