// agentspine for opencode (1.18): adds what opencode does not load itself.
//
// opencode reads its instruction files (the first of AGENTS.md, CLAUDE.md,
// CONTEXT.md from the working directory up to the git root) when a session
// starts, and on a `read` the files of the directories between the file and
// the working directory; nothing for a sibling directory, nothing for the
// other tools. This plugin asks `agentspine hook opencode` (stdin: one JSON
// payload, stdout: one JSON line or nothing, always exit 0) at these points:
//
//   event session.created     -> SessionStart (startup)  continuity, the
//                                                        sourceResolution
//                                                        report
//   chat.message              -> UserPromptSubmit        the instruction
//                                                        files of paths the
//                                                        prompt names
//   tool.execute.before       -> PreToolUse              the instruction
//                                                        files of the tool's
//                                                        target opencode has
//                                                        not loaded, sent
//                                                        with its result
//                                                        (tool.execute.after)
//   event session.compacted   -> SessionStart (compact)  the history is
//                                                        gone: forget, and
//                                                        send again
//   event session.deleted,
//   dispose                   -> SessionEnd              forgets the session
//
// A session's start and its prompts reach the model as a hidden (synthetic)
// text part of the user message, which opencode stores: every later request
// carries it once. A tool's text is appended to the tool's result, which
// opencode stores too. Every decision (what opencode loaded, what is new,
// what was already sent) is agentspine's; this file carries events and
// answers. It never blocks or fails a tool: a failed, slow (5 s) or garbled
// answer adds nothing, and no hook throws. `agentspine install opencode`
// writes a copy into opencode's plugins directory with the binary's absolute
// path filled in below.
//
// An ES module that imports only `node:` modules: opencode loads it with Bun
// and calls each exported function once, at start, for its hooks.

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";

const AGENTSPINE = process.env.AGENTSPINE_BIN || "agentspine";
const HOST = "opencode";
/** The hook bounds itself to two seconds; this is only a backstop. */
const TIMEOUT_MS = 5000;
/** opencode's tools whose input can name a path: a path of their own, or the
 *  files a `bash` command reads (agentspine decides which, if any). */
const PATH_TOOLS = new Set(["read", "edit", "write", "glob", "grep", "bash"]);

/** Runs `agentspine hook opencode` with `payload`; its additionalContext, or "". */
function ask(payload) {
  return new Promise((resolve) => {
    let done = false;
    const finish = (text) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(text);
    };
    let child;
    const timer = setTimeout(() => {
      try {
        child?.kill("SIGKILL");
      } catch {}
      finish("");
    }, TIMEOUT_MS);
    try {
      child = spawn(AGENTSPINE, ["hook", HOST], { stdio: ["pipe", "pipe", "ignore"] });
      const chunks = [];
      child.on("error", () => finish(""));
      child.stdout.on("data", (chunk) => chunks.push(chunk));
      child.on("close", () => {
        const line = Buffer.concat(chunks).toString("utf8").split("\n")[0];
        try {
          const text = JSON.parse(line)?.hookSpecificOutput?.additionalContext;
          finish(typeof text === "string" ? text : "");
        } catch {
          finish("");
        }
      });
      child.stdin.on("error", () => {});
      child.stdin.end(JSON.stringify(payload));
    } catch {
      finish("");
    }
  });
}

/** `text` as opencode marks what it adds for the model, not from the user. */
function reminder(text) {
  return `<system-reminder>\n${text}\n</system-reminder>`;
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A part id in opencode's ascending form (`prt_`, 12 hex digits of time and
 *  counter, 14 random characters) that sorts after every id in `ids`. */
function partIdAfter(ids) {
  let stamp = BigInt(Date.now()) * 4096n;
  for (const id of ids) {
    const hex = typeof id === "string" ? id.slice(4, 16) : "";
    if (/^[0-9a-f]{12}$/.test(hex) && BigInt(`0x${hex}`) >= stamp) stamp = BigInt(`0x${hex}`) + 1n;
  }
  const digits = (stamp & 0xffffffffffffn).toString(16).padStart(12, "0");
  const random = [...randomBytes(14)].map((b) => BASE62[b % 62]).join("");
  return `prt_${digits}${random}`;
}

export const AgentSpine = async (context) => {
  const directory = context?.directory;
  const cwd = typeof directory === "string" && directory !== "" ? directory : process.cwd();
  /** Per session: `queue`, the last question asked (questions about one
   *  session run in order), and `pending`, context no prompt or tool result
   *  has carried to the model yet (a session start's, a failed tool's). */
  const sessions = new Map();
  /** Context for a tool call, by its id, until its result is ready. */
  const forTool = new Map();

  const base = (sessionID, event) => ({ session_id: sessionID, cwd, hook_event_name: event });

  /** Runs `question` after the session's earlier ones; never rejects. */
  const enqueue = (state, question) => {
    const next = state.queue.then(question).catch(() => "");
    state.queue = next;
    return next;
  };

  /** Keeps `text` for the session's next carrier (a prompt or a tool result). */
  const hold = (state, text) => {
    if (text !== "") state.pending = state.pending === "" ? text : `${state.pending}\n\n${text}`;
  };

  /** Asks SessionStart (`source`) and holds its text. */
  const start = (state, sessionID, source) =>
    enqueue(state, async () => {
      hold(state, await ask({ ...base(sessionID, "SessionStart"), source }));
      return "";
    });

  /** The session's state; the first hook of a session opencode did not
   *  announce as new in this process (one it resumes) starts it. */
  const session = (sessionID, source = "resume") => {
    let state = sessions.get(sessionID);
    if (state === undefined) {
      state = { queue: Promise.resolve(""), pending: "" };
      sessions.set(sessionID, state);
      start(state, sessionID, source);
    }
    return state;
  };

  /** The session's pending context, handed over once. */
  const takePending = (state) => {
    const text = state.pending;
    state.pending = "";
    return text;
  };

  /** Asks SessionEnd once for a session this process knows. */
  const end = (sessionID) => {
    const state = sessions.get(sessionID);
    if (state === undefined) return Promise.resolve("");
    sessions.delete(sessionID);
    return enqueue(state, () => ask(base(sessionID, "SessionEnd")));
  };

  return {
    event: async (input) => {
      try {
        const event = input?.event;
        const id = event?.properties?.sessionID ?? event?.properties?.info?.id;
        if (typeof id !== "string") return;
        if (event.type === "session.created") session(id, "startup");
        else if (event.type === "session.compacted" && sessions.has(id)) start(sessions.get(id), id, "compact");
        else if (event.type === "session.deleted") await end(id);
        else if (event.type === "message.part.updated") {
          // A tool that failed has no result to carry its text: the next
          // carrier takes it (agentspine counts it as sent).
          const part = event.properties.part;
          const text = forTool.get(part?.callID);
          if (part?.type === "tool" && part.state?.status === "error" && text !== undefined) {
            forTool.delete(part.callID);
            if (sessions.has(id)) hold(sessions.get(id), text);
          }
        }
      } catch {}
    },

    "chat.message": async (input, output) => {
      try {
        const id = input?.sessionID;
        if (typeof id !== "string" || !Array.isArray(output?.parts)) return;
        const state = session(id);
        const prompt = output.parts
          .filter((p) => p?.type === "text" && !p.synthetic && typeof p.text === "string")
          .map((p) => p.text)
          .join("\n");
        const added = await enqueue(state, () => ask({ ...base(id, "UserPromptSubmit"), prompt }));
        const text = [takePending(state), added].filter((t) => t !== "").join("\n\n");
        if (text === "") return;
        output.parts.push({
          id: partIdAfter(output.parts.map((p) => p?.id)),
          sessionID: id,
          messageID: output.message?.id ?? output.parts[0]?.messageID,
          type: "text",
          text: reminder(text),
          synthetic: true,
        });
      } catch {}
    },

    "tool.execute.before": async (input, output) => {
      try {
        const id = input?.sessionID;
        if (typeof id !== "string" || !PATH_TOOLS.has(input.tool)) return;
        const state = session(id);
        const text = await enqueue(state, () =>
          ask({ ...base(id, "PreToolUse"), tool_name: input.tool, tool_input: output?.args ?? {} }),
        );
        if (text !== "") forTool.set(input.callID, text);
      } catch {}
    },

    "tool.execute.after": async (input, output) => {
      try {
        const own = forTool.get(input?.callID) ?? "";
        forTool.delete(input?.callID);
        if (typeof output?.output !== "string") return;
        const state = sessions.get(input?.sessionID);
        // What no prompt carried yet (a session start after a compaction,
        // a failed tool's text) goes with the next tool result.
        const pending = state !== undefined && PATH_TOOLS.has(input.tool) ? takePending(state) : "";
        const text = [pending, own].filter((t) => t !== "").join("\n\n");
        if (text === "") return;
        output.output = `${output.output}\n\n${reminder(text)}`;
      } catch {}
    },

    // opencode closes its plugins when it exits: every session this process
    // saw ends with it.
    dispose: async () => {
      try {
        await Promise.all([...sessions.keys()].map(end));
      } catch {}
    },
  };
};
