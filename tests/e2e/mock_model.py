#!/usr/bin/env python3
"""Stdlib-only mock model server for agentspine's end-to-end capture harness.

Binds 127.0.0.1 on a free port (or --port), records every request as one JSON
line, and answers the four wire protocols the hosts use:

* Anthropic Messages      POST /v1/messages            (SSE and plain JSON)
                          POST /v1/messages/count_tokens
* OpenAI Responses        POST /v1/responses           (SSE, ends with
                          response.completed; Codex retries without it)
* OpenAI Chat Completions POST /v1/chat/completions    (SSE and plain JSON)
* Gemini API              POST /v1beta/models/M:generateContent, :streamGenerateContent
                          (SSE with ?alt=sse), :countTokens; a request whose
                          generationConfig carries a JSON schema (the model
                          router's) gets a JSON object that satisfies it

Anything else (GET /v1/models, telemetry, ...) gets a harmless 200 `{}` (or an
empty model list) and is recorded too.

Replies are the text "ok" unless a script is given (--script FILE): a JSON
list of turns, consumed in order by the "main" model requests (those that
carry a non-empty `tools` list; side requests such as title generation always
get plain text).  A turn is one of

    {"text": "hello"}
    {"tool": {"name": "Read", "input": {"file_path": "/abs/x"}}}        # claude: Anthropic tool_use
    {"tool": {"name": "exec_command", "arguments": {"cmd": "cat x"}}}   # codex 0.171: Responses function_call
    {"tool": {"name": "apply_patch", "custom_input": "*** Begin Patch\\n..."}}  # Responses custom_tool_call
    {"tool": {"name": "read", "arguments": {"path": "x"}}}              # pi: Chat Completions tool_calls
    {"tool": {"name": "read_file", "args": {"file_path": "/abs/x"}}}    # gemini: a functionCall part

(Measured: Codex 0.171 with model gpt-5.5 offers exec_command/write_stdin,
not shell/apply_patch; Claude's Read of a file under a directory holding a
CLAUDE.md appends "<system-reminder>\\nContents of <abs>:\\n\\n..." to the tool
result; pi's tools are read/bash/edit/write.)

`input` and `arguments` are interchangeable; the protocol of the request
decides the wire shape.  When the script is exhausted the reply is "ok".

Record format (one JSON object per line):
    {"seq", "time", "method", "path", "headers": {...}, "body": <json or null>,
     "body_text": <str when not JSON>, "reply": "text"|"tool:NAME"|...}
Authorization-like header values are replaced by "<redacted>".
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import threading
import time
import uuid
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import harness  # which API a request is, and whether it is a main request: the same for the readers

REDACT = {"authorization", "x-api-key", "api-key", "cookie", "proxy-authorization"}


class Script:
    """Ordered replies for main model requests; thread-safe."""

    def __init__(self, turns=None):
        self.turns = list(turns or [])
        self.lock = threading.Lock()

    def next(self, is_main: bool):
        if not is_main:
            return {"text": "ok"}
        with self.lock:
            if self.turns:
                return self.turns.pop(0)
        return {"text": "ok"}


def _sse(event: str | None, data) -> bytes:
    payload = data if isinstance(data, str) else json.dumps(data)
    head = f"event: {event}\n" if event else ""
    return (head + f"data: {payload}\n\n").encode()


def _tool_args(tool: dict):
    args = tool.get("input", tool.get("arguments", tool.get("args", {})))
    return args


# ---------------------------------------------------------------- Anthropic
def anthropic_reply(body: dict, turn: dict):
    model = body.get("model", "claude-mock")
    msg_id = "msg_" + uuid.uuid4().hex[:24]
    usage = {"input_tokens": 10, "output_tokens": 1,
             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    if "tool" in turn:
        tool = turn["tool"]
        block = {"type": "tool_use", "id": tool.get("id") or "toolu_" + uuid.uuid4().hex[:24],
                 "name": tool["name"], "input": _tool_args(tool)}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": turn.get("text", "ok")}
        stop = "end_turn"
    if not body.get("stream"):
        return "application/json", json.dumps({
            "id": msg_id, "type": "message", "role": "assistant", "model": model,
            "content": [block], "stop_reason": stop, "stop_sequence": None, "usage": usage,
        }).encode()
    out = [_sse("message_start", {"type": "message_start", "message": {
        "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": usage}})]
    if block["type"] == "text":
        out.append(_sse("content_block_start", {"type": "content_block_start", "index": 0,
                                                "content_block": {"type": "text", "text": ""}}))
        out.append(_sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                "delta": {"type": "text_delta", "text": block["text"]}}))
    else:
        out.append(_sse("content_block_start", {"type": "content_block_start", "index": 0,
                                                "content_block": {"type": "tool_use", "id": block["id"],
                                                                  "name": block["name"], "input": {}}}))
        out.append(_sse("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                "delta": {"type": "input_json_delta",
                                                          "partial_json": json.dumps(block["input"])}}))
    out.append(_sse("content_block_stop", {"type": "content_block_stop", "index": 0}))
    out.append(_sse("message_delta", {"type": "message_delta",
                                      "delta": {"stop_reason": stop, "stop_sequence": None},
                                      "usage": {"output_tokens": 1}}))
    out.append(_sse("message_stop", {"type": "message_stop"}))
    return "text/event-stream", b"".join(out)


# ---------------------------------------------------------------- Responses
def responses_reply(body: dict, turn: dict):
    model = body.get("model", "gpt-mock")
    rid = "resp_" + uuid.uuid4().hex[:24]
    if "tool" in turn:
        tool = turn["tool"]
        call_id = tool.get("id") or "call_" + uuid.uuid4().hex[:24]
        if "custom_input" in tool:
            item = {"type": "custom_tool_call", "id": "ctc_" + uuid.uuid4().hex[:16], "status": "completed",
                    "call_id": call_id, "name": tool["name"], "input": tool["custom_input"]}
        else:
            item = {"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:16], "status": "completed",
                    "call_id": call_id, "name": tool["name"], "arguments": json.dumps(_tool_args(tool))}
            if "namespace" in tool:
                # A deferred tool's call names its namespace apart (Codex's MCP tools).
                item["namespace"] = tool["namespace"]
    else:
        item = {"type": "message", "id": "msg_" + uuid.uuid4().hex[:16], "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": turn.get("text", "ok"), "annotations": []}]}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 1,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 11}
    base = {"id": rid, "object": "response", "created_at": int(time.time()), "model": model}
    done = dict(base, status="completed", output=[item], usage=usage)
    out = [_sse("response.created", {"type": "response.created", "sequence_number": 0,
                                     "response": dict(base, status="in_progress", output=[])})]
    seq = 1
    empty = dict(item)
    if item["type"] == "message":
        empty["content"] = []
        empty["status"] = "in_progress"
    out.append(_sse("response.output_item.added", {"type": "response.output_item.added", "sequence_number": seq,
                                                   "output_index": 0, "item": empty}))
    seq += 1
    if item["type"] == "message":
        text = item["content"][0]["text"]
        out.append(_sse("response.content_part.added", {
            "type": "response.content_part.added", "sequence_number": seq, "item_id": item["id"],
            "output_index": 0, "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []}}))
        seq += 1
        out.append(_sse("response.output_text.delta", {
            "type": "response.output_text.delta", "sequence_number": seq, "item_id": item["id"],
            "output_index": 0, "content_index": 0, "delta": text}))
        seq += 1
        out.append(_sse("response.output_text.done", {
            "type": "response.output_text.done", "sequence_number": seq, "item_id": item["id"],
            "output_index": 0, "content_index": 0, "text": text}))
        seq += 1
        out.append(_sse("response.content_part.done", {
            "type": "response.content_part.done", "sequence_number": seq, "item_id": item["id"],
            "output_index": 0, "content_index": 0, "part": item["content"][0]}))
        seq += 1
    out.append(_sse("response.output_item.done", {"type": "response.output_item.done", "sequence_number": seq,
                                                  "output_index": 0, "item": item}))
    seq += 1
    out.append(_sse("response.completed", {"type": "response.completed", "sequence_number": seq,
                                           "response": done}))
    if not body.get("stream", False):
        return "application/json", json.dumps(done).encode()
    return "text/event-stream", b"".join(out)


# ---------------------------------------------------------- Chat Completions
def chat_reply(body: dict, turn: dict):
    model = body.get("model", "gpt-mock")
    cid = "chatcmpl-" + uuid.uuid4().hex[:24]
    created = int(time.time())
    usage = {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}
    if "tool" in turn:
        tool = turn["tool"]
        call = {"index": 0, "id": tool.get("id") or "call_" + uuid.uuid4().hex[:24], "type": "function",
                "function": {"name": tool["name"], "arguments": json.dumps(_tool_args(tool))}}
        message = {"role": "assistant", "content": None, "tool_calls": [{k: v for k, v in call.items() if k != "index"}]}
        delta = {"role": "assistant", "content": None, "tool_calls": [call]}
        finish = "tool_calls"
    else:
        text = turn.get("text", "ok")
        message = {"role": "assistant", "content": text}
        delta = {"role": "assistant", "content": text}
        finish = "stop"
    if not body.get("stream"):
        return "application/json", json.dumps({
            "id": cid, "object": "chat.completion", "created": created, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage}).encode()
    chunk = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model}
    out = [_sse(None, dict(chunk, choices=[{"index": 0, "delta": delta, "finish_reason": None}])),
           _sse(None, dict(chunk, choices=[{"index": 0, "delta": {}, "finish_reason": finish}])),
           _sse(None, dict(chunk, choices=[], usage=usage)),
           _sse(None, "[DONE]")]
    return "text/event-stream", b"".join(out)


# ---------------------------------------------------------------- Gemini API
def _from_schema(schema):
    """A small value that satisfies a JSON schema (the router's request)."""
    if not isinstance(schema, dict):
        return "ok"
    if schema.get("enum"):
        return schema["enum"][0]
    kind = str(schema.get("type", "object")).lower()
    if kind == "object":
        props = schema.get("properties") or {}
        return {k: _from_schema(v) for k, v in props.items()}
    if kind == "array":
        return []
    if kind in ("number", "integer"):
        return schema.get("minimum", 1)
    if kind == "boolean":
        return False
    return "ok"


def gemini_reply(path: str, query: str, body: dict, turn: dict):
    usage = {"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11}
    if path.endswith(":countTokens"):
        return "application/json", json.dumps({"totalTokens": 10}).encode()
    config = body.get("generationConfig") or {}
    schema = config.get("responseJsonSchema") or config.get("responseSchema")
    if schema is not None:
        part = {"text": json.dumps(_from_schema(schema))}
    elif "tool" in turn:
        part = {"functionCall": {"name": turn["tool"]["name"], "args": _tool_args(turn["tool"])}}
    else:
        part = {"text": turn.get("text", "ok")}
    reply = {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP",
                             "index": 0}],
             "usageMetadata": usage, "modelVersion": "mock-gemini"}
    if path.endswith(":streamGenerateContent"):
        if "alt=sse" in query:
            return "text/event-stream", _sse(None, reply)
        return "application/json", json.dumps([reply]).encode()
    return "application/json", json.dumps(reply).encode()


class Recorder:
    def __init__(self, path: str | None):
        self.path = path
        self.lock = threading.Lock()
        self.seq = 0
        if path:
            open(path, "a").close()

    def write(self, rec: dict):
        with self.lock:
            self.seq += 1
            rec = dict(seq=self.seq, time=time.time(), **rec)
            if self.path:
                with open(self.path, "a", encoding="utf-8") as f:
                    f.write(json.dumps(rec, ensure_ascii=False) + "\n")
            return rec


def make_handler(recorder: Recorder, script: Script):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "agentspine-mock/1"

        def log_message(self, fmt, *args):  # quiet
            pass

        def _read_body(self) -> bytes:
            te = (self.headers.get("Transfer-Encoding") or "").lower()
            if "chunked" in te:
                data = b""
                while True:
                    line = self.rfile.readline().strip()
                    size = int(line.split(b";")[0] or b"0", 16)
                    if size == 0:
                        self.rfile.readline()
                        break
                    data += self.rfile.read(size)
                    self.rfile.readline()
            else:
                n = int(self.headers.get("Content-Length") or 0)
                data = self.rfile.read(n) if n else b""
            enc = (self.headers.get("Content-Encoding") or "").lower()
            try:
                if enc == "gzip":
                    data = gzip.decompress(data)
                elif enc == "deflate":
                    data = zlib.decompress(data)
            except Exception:
                pass
            return data

        def _send(self, code: int, ctype: str, payload: bytes):
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(payload)))
            if ctype == "text/event-stream":
                self.send_header("Cache-Control", "no-cache")
            self.send_header("request-id", "req_" + uuid.uuid4().hex[:16])
            self.send_header("x-request-id", "req_" + uuid.uuid4().hex[:16])
            self.end_headers()
            self.wfile.write(payload)
            self.wfile.flush()

        def _handle(self):
            raw = self._read_body() if self.command in ("POST", "PUT", "PATCH") else b""
            body = None
            body_text = None
            if raw:
                try:
                    body = json.loads(raw.decode("utf-8"))
                except Exception:
                    body_text = raw.decode("utf-8", "replace")
            headers = {k.lower(): ("<redacted>" if k.lower() in REDACT else v) for k, v in self.headers.items()}
            path, _, query = self.path.partition("?")
            b = body if isinstance(body, dict) else {}
            is_main = harness.is_main(b)
            api = harness.endpoint(path) if self.command == "POST" else None
            reply = "json:{}"
            ctype, payload = "application/json", b"{}"
            if api == "messages/count_tokens":
                payload = json.dumps({"input_tokens": 10}).encode()
                reply = "count_tokens"
            elif api == "messages":
                turn = script.next(is_main)
                ctype, payload = anthropic_reply(b, turn)
                reply = _describe(turn)
            elif api == "responses":
                turn = script.next(is_main)
                ctype, payload = responses_reply(b, turn)
                reply = _describe(turn)
            elif api == "chat/completions":
                turn = script.next(is_main)
                ctype, payload = chat_reply(b, turn)
                reply = _describe(turn)
            elif api in ("generateContent", "streamGenerateContent", "countTokens"):
                turn = script.next(is_main and api != "countTokens")
                ctype, payload = gemini_reply(path, query, b, turn)
                reply = "count_tokens" if api == "countTokens" else _describe(turn)
            elif self.command == "GET" and path.rstrip("/").endswith("/models"):
                payload = json.dumps({"object": "list", "data": [], "models": []}).encode()
                reply = "models"
            recorder.write({"method": self.command, "path": self.path, "headers": headers,
                            "body": body, "body_text": body_text, "reply": reply})
            self._send(200, ctype, payload)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle

        def do_HEAD(self):
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

    return Handler


def _describe(turn: dict) -> str:
    return "tool:" + turn["tool"]["name"] if "tool" in turn else "text"


def _dns_name(packet: bytes) -> str:
    labels, i = [], 12
    while i < len(packet) and packet[i]:
        n = packet[i]
        labels.append(packet[i + 1:i + 1 + n].decode("ascii", "replace"))
        i += 1 + n
    return ".".join(labels)


def start_dns(record_path: str | None, host: str = "127.0.0.1", port: int = 53):
    """Answer every DNS query with NXDOMAIN at once (and record the name).

    Inside the capture namespace /etc/resolv.conf points here, so a client's
    attempt to reach the internet (telemetry, plugin sync) fails immediately
    instead of after a resolver timeout."""
    import socket

    recorder = Recorder(record_path)
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind((host, port))

    def loop():
        while True:
            try:
                packet, addr = sock.recvfrom(4096)
            except OSError:
                return
            if len(packet) < 12:
                continue
            # header: same id, QR=1, opcode copied, RD copied, RA=1, RCODE=3
            flags = 0x8000 | (packet[2] & 0x79) << 8 | 0x80 | 3
            # echo the question section only (QDCOUNT kept, other counts 0)
            q_end = 12
            while q_end < len(packet) and packet[q_end]:
                q_end += 1 + packet[q_end]
            q_end += 5
            reply = packet[:2] + flags.to_bytes(2, "big") + packet[4:6] + b"\0\0\0\0\0\0" + packet[12:q_end]
            try:
                sock.sendto(reply, addr)
            except OSError:
                pass
            recorder.write({"method": "DNS", "path": _dns_name(packet), "headers": {}, "body": None,
                            "body_text": None, "reply": "NXDOMAIN"})

    threading.Thread(target=loop, daemon=True).start()
    return sock


def start_server(record_path: str | None, script_turns=None, port: int = 0, host: str = "127.0.0.1"):
    """Start the server in a daemon thread; returns (server, port)."""
    recorder = Recorder(record_path)
    server = ThreadingHTTPServer((host, port), make_handler(recorder, Script(script_turns)))
    server.daemon_threads = True
    # A short poll: shutdown() waits for the loop to notice, up to this long,
    # and every client run ends with one.
    t = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    t.start()
    return server, server.server_address[1]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record", required=True, help="JSON-lines file to append requests to")
    ap.add_argument("--port-file", help="write the bound port here (else print it on stdout)")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--script", help="JSON file: list of reply turns")
    args = ap.parse_args(argv)
    turns = None
    if args.script:
        with open(args.script, encoding="utf-8") as f:
            turns = json.load(f)
    server, port = start_server(args.record, turns, args.port)
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(str(port))
        os.replace(tmp, args.port_file)
    else:
        print(port, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()


if __name__ == "__main__":
    sys.exit(main())
