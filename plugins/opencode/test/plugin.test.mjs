// The opencode plugin (../agentspine.js) driven as opencode drives it, with a
// stand-in for `agentspine hook opencode` that logs each payload and answers
// as told: what each hook asks, what it adds where, and that nothing a
// failing binary does (missing, garbage, silence past the backstop) adds
// anything or throws. The real opencode runs it in tests/e2e/opencode_plugin.py.

import { test } from "node:test";
import assert from "node:assert/strict";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import os from "node:os";

/** A stand-in binary: appends each payload to $FAKE_LOG and answers
 *  `<event>:<tool or prompt>` as context, or as $FAKE_MODE says. */
const FAKE = `#!/usr/bin/env node
const fs = require("node:fs");
let input = "";
process.stdin.on("data", (c) => (input += c));
process.stdin.on("end", () => {
  fs.appendFileSync(process.env.FAKE_LOG, input + "\\n");
  const p = JSON.parse(input);
  const mode = process.env.FAKE_MODE || "ok";
  if (mode === "garbage") return process.stdout.write("not json\\n");
  if (mode === "silent") return setTimeout(() => {}, 60000);
  if (mode === "empty") return;
  const what = p.tool_name || p.prompt || p.source || "";
  const ctx = p.hook_event_name + ":" + what;
  process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: p.hook_event_name, additionalContext: ctx } }) + "\\n");
});
`;

let dir;
let log;
let loads = 0;

/** A fresh copy of the plugin (its own module instance), initialised. */
async function plugin(bin) {
  process.env.AGENTSPINE_BIN = bin;
  const url = new URL(`../agentspine.js?copy=${loads++}`, import.meta.url);
  const mod = await import(url.href);
  const exported = Object.values(mod).filter((v) => typeof v === "function");
  assert.equal(exported.length, 1, "one exported function: opencode calls each");
  return exported[0]({ directory: "/projects/example", worktree: "/projects/example" });
}

async function asked() {
  const text = await readFile(log, "utf8").catch(() => "");
  return text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
}

const userMessage = (session, prompt) => ({
  message: { id: "msg_0001", role: "user", sessionID: session },
  parts: [{ id: "prt_23d762337001svZ4wuhyXKpEA2", messageID: "msg_0001", sessionID: session, type: "text", text: prompt }],
});

test.before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "agentspine-oc-plugin-"));
  await writeFile(path.join(dir, "fake"), FAKE);
  await chmod(path.join(dir, "fake"), 0o755);
});
test.after(() => rm(dir, { recursive: true, force: true }));
test.beforeEach(async (t) => {
  log = path.join(dir, `${t.name.replace(/\W+/g, "_")}.log`);
  process.env.FAKE_LOG = log;
  process.env.FAKE_MODE = "ok";
});

test("a new session's start and its prompt reach the model once, as a hidden part of the user message", async () => {
  const hooks = await plugin(path.join(dir, "fake"));
  await hooks.event({ event: { type: "session.created", properties: { sessionID: "ses_a", info: { id: "ses_a" } } } });
  const first = userMessage("ses_a", "look at pkg/x");
  await hooks["chat.message"]({ sessionID: "ses_a" }, first);
  assert.equal(first.parts.length, 2);
  const added = first.parts[1];
  assert.equal(added.type, "text");
  assert.equal(added.synthetic, true);
  assert.equal(added.messageID, "msg_0001");
  assert.equal(added.sessionID, "ses_a");
  assert.match(added.id, /^prt_[0-9a-f]{12}[0-9A-Za-z]{14}$/);
  assert.ok(added.id > first.parts[0].id, "sorts after the prompt's part");
  assert.equal(
    added.text,
    "<system-reminder>\nSessionStart:startup\n\nUserPromptSubmit:look at pkg/x\n</system-reminder>",
  );
  const second = userMessage("ses_a", "again");
  await hooks["chat.message"]({ sessionID: "ses_a" }, second);
  assert.equal(second.parts[1].text, "<system-reminder>\nUserPromptSubmit:again\n</system-reminder>");
  const payloads = await asked();
  assert.deepEqual(
    payloads.map((p) => [p.hook_event_name, p.session_id, p.cwd]),
    [
      ["SessionStart", "ses_a", "/projects/example"],
      ["UserPromptSubmit", "ses_a", "/projects/example"],
      ["UserPromptSubmit", "ses_a", "/projects/example"],
    ],
  );
  assert.equal(payloads[0].source, "startup");
});

test("a session opencode did not announce (one it resumes) starts as a resume", async () => {
  const hooks = await plugin(path.join(dir, "fake"));
  const first = userMessage("ses_r", "hi");
  await hooks["chat.message"]({ sessionID: "ses_r" }, first);
  assert.equal(first.parts[1].text, "<system-reminder>\nSessionStart:resume\n\nUserPromptSubmit:hi\n</system-reminder>");
});

test("a path tool's context is appended to its result; other tools ask nothing", async () => {
  const hooks = await plugin(path.join(dir, "fake"));
  await hooks["chat.message"]({ sessionID: "ses_t" }, userMessage("ses_t", "go"));
  const args = { filePath: "/projects/example/pkg/a.ts" };
  await hooks["tool.execute.before"]({ tool: "read", sessionID: "ses_t", callID: "c1" }, { args });
  const out = { title: "", output: "file text", metadata: {} };
  await hooks["tool.execute.after"]({ tool: "read", sessionID: "ses_t", callID: "c1", args }, out);
  assert.equal(out.output, "file text\n\n<system-reminder>\nPreToolUse:read\n</system-reminder>");
  assert.deepEqual(args, { filePath: "/projects/example/pkg/a.ts" }, "the tool's arguments are never changed");
  await hooks["tool.execute.before"]({ tool: "webfetch", sessionID: "ses_t", callID: "c2" }, { args: { url: "x" } });
  const web = { output: "page" };
  await hooks["tool.execute.after"]({ tool: "webfetch", sessionID: "ses_t", callID: "c2" }, web);
  assert.equal(web.output, "page");
  const tools = (await asked()).filter((p) => p.hook_event_name === "PreToolUse");
  assert.deepEqual(tools.map((p) => [p.tool_name, p.tool_input]), [["read", args]]);
});

test("a failed tool's context goes with the next prompt; a compaction starts the session again", async () => {
  const hooks = await plugin(path.join(dir, "fake"));
  await hooks["chat.message"]({ sessionID: "ses_f" }, userMessage("ses_f", "go"));
  await hooks["tool.execute.before"]({ tool: "edit", sessionID: "ses_f", callID: "c9" }, { args: { filePath: "x" } });
  await hooks.event({
    event: {
      type: "message.part.updated",
      properties: { sessionID: "ses_f", part: { type: "tool", callID: "c9", state: { status: "error" } } },
    },
  });
  const next = userMessage("ses_f", "next");
  await hooks["chat.message"]({ sessionID: "ses_f" }, next);
  assert.equal(next.parts[1].text, "<system-reminder>\nPreToolUse:edit\n\nUserPromptSubmit:next\n</system-reminder>");
  await hooks.event({ event: { type: "session.compacted", properties: { sessionID: "ses_f" } } });
  await hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_f", callID: "c10" }, { args: { command: "ls" } });
  const out = { output: "listing" };
  await hooks["tool.execute.after"]({ tool: "bash", sessionID: "ses_f", callID: "c10" }, out);
  assert.equal(out.output, "listing\n\n<system-reminder>\nSessionStart:compact\n\nPreToolUse:bash\n</system-reminder>");
});

test("a deleted session ends, and so does every session when opencode closes the plugin", async () => {
  const hooks = await plugin(path.join(dir, "fake"));
  for (const id of ["ses_1", "ses_2", "ses_3"]) {
    await hooks.event({ event: { type: "session.created", properties: { sessionID: id, info: { id } } } });
  }
  await hooks.event({ event: { type: "session.deleted", properties: { sessionID: "ses_2", info: { id: "ses_2" } } } });
  await hooks.dispose();
  await hooks.dispose();
  const ends = (await asked()).filter((p) => p.hook_event_name === "SessionEnd").map((p) => p.session_id);
  assert.deepEqual(ends.sort(), ["ses_1", "ses_2", "ses_3"]);
});

for (const [name, bin, mode] of [
  ["a missing binary", "/nonexistent/agentspine", "ok"],
  ["an answer that is not JSON", "fake", "garbage"],
  ["an empty answer", "fake", "empty"],
]) {
  test(`${name} adds nothing and throws nothing`, async () => {
    process.env.FAKE_MODE = mode;
    const hooks = await plugin(bin === "fake" ? path.join(dir, "fake") : bin);
    await hooks.event({ event: { type: "session.created", properties: { sessionID: "ses_x" } } });
    const msg = userMessage("ses_x", "hi");
    await hooks["chat.message"]({ sessionID: "ses_x" }, msg);
    assert.equal(msg.parts.length, 1);
    await hooks["tool.execute.before"]({ tool: "read", sessionID: "ses_x", callID: "c" }, { args: {} });
    const out = { output: "same" };
    await hooks["tool.execute.after"]({ tool: "read", sessionID: "ses_x", callID: "c" }, out);
    assert.equal(out.output, "same");
    await hooks.dispose();
  });
}

test("an answer that never comes is given up after the 5 s backstop", async () => {
  process.env.FAKE_MODE = "silent";
  const hooks = await plugin(path.join(dir, "fake"));
  const t0 = Date.now();
  await hooks["tool.execute.before"]({ tool: "read", sessionID: "ses_s", callID: "c" }, { args: {} });
  const waited = Date.now() - t0;
  // The session's start and the tool's question, one after the other.
  assert.ok(waited >= 9000 && waited < 12000, `waited ${waited} ms`);
  const out = { output: "same" };
  await hooks["tool.execute.after"]({ tool: "read", sessionID: "ses_s", callID: "c" }, out);
  assert.equal(out.output, "same");
});

test("hooks given nothing they expect neither throw nor ask", async () => {
  const hooks = await plugin(path.join(dir, "fake"));
  await hooks.event({});
  await hooks.event(undefined);
  await hooks.event({ event: null });
  await hooks["chat.message"](undefined, undefined);
  await hooks["chat.message"]({ sessionID: "ses_n" }, { parts: "nope" });
  await hooks["tool.execute.before"](undefined, undefined);
  await hooks["tool.execute.after"](undefined, undefined);
  await hooks["tool.execute.after"]({ callID: "c", tool: "read" }, { output: 3 });
  await hooks.dispose();
  assert.deepEqual(await asked(), []);
});
