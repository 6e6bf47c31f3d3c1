// agentspine for pi (1.x, and 0.73, whose extension API has the same
// events): adds what pi does not load itself.
//
// pi reads one instruction file per directory from `/` down to its working
// directory when a session starts, and nothing after that. This extension
// asks `agentspine hook pi` (`hook pi-0.73` inside a pi 0.x, whose loader
// differs; stdin: one JSON payload, stdout: one JSON line or nothing, always
// exit 0) at four points of a session:
//
//   session_start       -> SessionStart      memory facts, continuity, the
//                                            sourceResolution report
//   before_agent_start  -> UserPromptSubmit  facts the prompt makes relevant
//   tool_call           -> PreToolUse        the instruction files of the
//                                            tool's target that pi has not
//                                            loaded (a nested or sibling
//                                            directory), sent with the
//                                            tool's result
//   session_shutdown    -> SessionEnd        forgets what the session had
//
// Every decision (what pi loaded, what is new, what was already sent this
// session) is agentspine's; this file only carries pi's events to it and
// its answers back. It never blocks a tool: a failed or slow answer adds
// nothing. `agentspine install pi` writes a copy into pi's extensions
// directory with the binary's absolute path filled in below.

import { spawn } from "node:child_process";
// The legacy package name: pi 0.73 is it, pi 1.x maps it to its own copy.
import { VERSION } from "@mariozechner/pi-coding-agent";

const AGENTSPINE = process.env.AGENTSPINE_BIN || "agentspine";
/** Whose loading rules apply: pi 0.x loads as 0.73 does, pi 1.x as 1.6. */
const HOST = /^0\./.test(String(VERSION)) ? "pi-0.73" : "pi";
/** The hook bounds itself to two seconds; this is only a backstop. */
const TIMEOUT_MS = 5000;
/** pi's tools whose input can name a path: a path of their own, or the files a
 *  `bash` command reads (agentspine decides which, if any). */
const PATH_TOOLS = new Set(["read", "write", "edit", "ls", "grep", "find", "bash"]);
const CUSTOM_TYPE = "agentspine";

/** Runs `agentspine hook pi` with `payload`; its additionalContext, or "". */
function ask(payload) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(AGENTSPINE, ["hook", HOST], { stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      resolve("");
      return;
    }
    const chunks = [];
    const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS);
    child.on("error", () => {
      clearTimeout(timer);
      resolve("");
    });
    child.stdout.on("data", (chunk) => chunks.push(chunk));
    child.on("close", () => {
      clearTimeout(timer);
      const line = Buffer.concat(chunks).toString("utf8").split("\n")[0];
      try {
        const text = JSON.parse(line)?.hookSpecificOutput?.additionalContext;
        resolve(typeof text === "string" ? text : "");
      } catch {
        resolve("");
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

export default function agentspine(pi) {
  /** Context from session_start, sent with the first prompt. */
  let pending = "";
  /** Context for a tool call, by its id, until its result is ready. */
  const forTool = new Map();

  const base = (ctx, event) => ({
    session_id: ctx.sessionManager.getSessionId(),
    cwd: ctx.cwd,
    hook_event_name: event,
  });

  pi.on("session_start", async (event, ctx) => {
    const source = event.reason === "startup" || event.reason === "new" ? "startup" : "resume";
    pending = await ask({ ...base(ctx, "SessionStart"), source });
  });

  pi.on("before_agent_start", async (event, ctx) => {
    // pi 1.x says what started the run; 0.73 starts runs only from prompts.
    const fromPrompt = event.messageType === undefined || event.messageType === "user";
    const added = fromPrompt ? await ask({ ...base(ctx, "UserPromptSubmit"), prompt: event.prompt ?? "" }) : "";
    const content = [pending, added].filter((text) => text !== "").join("\n\n");
    pending = "";
    if (content === "") return undefined;
    return { message: { customType: CUSTOM_TYPE, content, display: false } };
  });

  pi.on("tool_call", async (event, ctx) => {
    if (!PATH_TOOLS.has(event.toolName)) return undefined;
    const text = await ask({ ...base(ctx, "PreToolUse"), tool_name: event.toolName, tool_input: event.input });
    if (text !== "") forTool.set(event.toolCallId, text);
    return undefined;
  });

  pi.on("tool_result", async (event) => {
    const text = forTool.get(event.toolCallId);
    if (text === undefined) return undefined;
    forTool.delete(event.toolCallId);
    return { content: [...(event.content ?? []), { type: "text", text }] };
  });

  pi.on("session_shutdown", async (_event, ctx) => {
    await ask(base(ctx, "SessionEnd"));
  });
}
