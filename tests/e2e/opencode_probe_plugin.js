// A probe plugin for opencode (measurement only, not agentspine's plugin).
//
// Logs every hook opencode calls, with the shape of its input and output
// arguments, as JSON lines to $PROBE_LOG (one file shared by every copy).
// $PROBE_NAME_<file stem> or the file name tells the copies apart.  With
// PROBE_MUTATE=1 it changes what each hook may change, with a marker the
// measurement then looks for in the requests the model receives:
//   experimental.chat.system.transform   output.system.push("PROBE_SYSTEM_PUSH")
//   chat.message                         output.parts[text].text += " PROBE_CHAT_MESSAGE"
//   experimental.chat.messages.transform  the last user message's first text part += " PROBE_MESSAGES_TRANSFORM"
//   tool.execute.before                  (read) output.args.filePath = $PROBE_REDIRECT, when set
//   tool.execute.after                   output.output += "\nPROBE_TOOL_AFTER"
//   experimental.session.compacting      output.context.push("PROBE_COMPACTING_CONTEXT")
//   shell.env                            output.env.PROBE_SHELL_ENV = "1"
// PROBE_SLEEP_MS delays tool.execute.before by that many milliseconds.
// At load it starts a child process with Bun's $ and with node:child_process
// and logs what they printed.
import { appendFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { basename } from "node:path";

const LOG = process.env.PROBE_LOG;
const MUTATE = process.env.PROBE_MUTATE === "1";
const NAME = basename(new URL(import.meta.url).pathname);

function shape(value, depth = 0) {
  if (value === null || value === undefined) return value === null ? null : "<undefined>";
  const t = typeof value;
  if (t === "function") return "<function>";
  if (t === "string") return value.length > 400 ? value.slice(0, 400) + `…<${value.length} chars>` : value;
  if (t !== "object") return value;
  if (depth >= 5) return Array.isArray(value) ? `<array ${value.length}>` : "<object>";
  if (Array.isArray(value)) {
    const out = value.slice(0, 12).map((v) => shape(v, depth + 1));
    if (value.length > 12) out.push(`…<${value.length} items>`);
    return out;
  }
  const out = {};
  for (const k of Object.keys(value).slice(0, 40)) {
    try {
      out[k] = shape(value[k], depth + 1);
    } catch (e) {
      out[k] = `<error ${e}>`;
    }
  }
  return out;
}

function log(record) {
  if (!LOG) return;
  appendFileSync(LOG, JSON.stringify({ t: Date.now(), plugin: NAME, ...record }) + "\n");
}

function hook(name, mutate) {
  return async (input, output) => {
    const rec = { hook: name, input: shape(input), output: shape(output) };
    if (MUTATE && mutate) {
      try {
        rec.mutated = await mutate(input, output);
      } catch (e) {
        rec.mutateError = String(e);
      }
    }
    log(rec);
  };
}

export const Probe = async (ctx) => {
  const child = {};
  try {
    child.bun = ctx.$ ? (await ctx.$`sh -c ${"echo bun-shell pid=$$ cwd=$(pwd)"}`.text()).trim() : "<no $>";
  } catch (e) {
    child.bun = `<error ${e}>`;
  }
  try {
    child.node = execFileSync("sh", ["-c", "echo node-child pid=$$ cwd=$(pwd)"], { encoding: "utf8" }).trim();
  } catch (e) {
    child.node = `<error ${e}>`;
  }
  log({
    hook: "<load>",
    input: shape(ctx),
    project: ctx.project,
    directory: ctx.directory,
    worktree: ctx.worktree,
    serverUrl: String(ctx.serverUrl),
    processCwd: process.cwd(),
    pid: process.pid,
    argv: process.argv,
    versions: { bun: typeof Bun === "undefined" ? null : Bun.version, node: process.versions.node },
    child,
  });
  return {
    event: async ({ event }) => log({ hook: "event", type: event?.type, input: shape(event) }),
    config: hook("config"),
    "chat.message": hook("chat.message", (input, output) => {
      const part = (output.parts || []).find((p) => p.type === "text");
      if (part) part.text += " PROBE_CHAT_MESSAGE";
      return !!part;
    }),
    "chat.params": hook("chat.params"),
    "chat.headers": hook("chat.headers"),
    "permission.ask": hook("permission.ask"),
    "command.execute.before": hook("command.execute.before"),
    "tool.definition": hook("tool.definition"),
    "tool.execute.before": async (input, output) => {
      const t0 = Date.now();
      const ms = Number(process.env.PROBE_SLEEP_MS || 0);
      if (ms > 0) await new Promise((r) => setTimeout(r, ms));
      const rec = { hook: "tool.execute.before", input: shape(input), output: shape(output), slept: Date.now() - t0 };
      if (MUTATE && process.env.PROBE_REDIRECT && input.tool === "read" && output.args) {
        output.args.filePath = process.env.PROBE_REDIRECT;
        rec.mutated = "filePath";
      }
      log(rec);
    },
    "tool.execute.after": hook("tool.execute.after", (input, output) => {
      output.output = String(output.output) + "\nPROBE_TOOL_AFTER";
      return true;
    }),
    "shell.env": hook("shell.env", (input, output) => {
      output.env = output.env || {};
      output.env.PROBE_SHELL_ENV = "1";
      return true;
    }),
    "experimental.chat.system.transform": hook("experimental.chat.system.transform", (input, output) => {
      output.system.push("PROBE_SYSTEM_PUSH");
      return true;
    }),
    "experimental.chat.messages.transform": hook("experimental.chat.messages.transform", (input, output) => {
      const users = (output.messages || []).filter((m) => m.info?.role === "user");
      const last = users[users.length - 1];
      const part = last?.parts?.find((p) => p.type === "text");
      if (part) part.text += " PROBE_MESSAGES_TRANSFORM";
      return !!part;
    }),
    "experimental.session.compacting": hook("experimental.session.compacting", (input, output) => {
      output.context = output.context || [];
      output.context.push("PROBE_COMPACTING_CONTEXT");
      return true;
    }),
    "experimental.compaction.autocontinue": hook("experimental.compaction.autocontinue"),
    "experimental.text.complete": hook("experimental.text.complete"),
  };
};
