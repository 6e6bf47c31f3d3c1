// Client for `agentspine serve` (see index.d.ts for the typed API and
// README.md for a walk-through). Node's standard library only.
//
// The socket speaks JSON-RPC 2.0, one message per line, each line at most
// 1 MiB. Two roles share it:
//   - the host (Electron main) authenticates with the control token and
//     registers projects, binds sessions, begins prompts and edits the two
//     AGENTS.md files it manages;
//   - the sidecar holds only a session id and that session's token, and has
//     one method: resolve a path to the complete instruction chain of its
//     directory.

import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { readFile } from 'node:fs/promises';

/** The longest line the server reads, newline excluded (1 MiB). */
export const MAX_LINE = 1024 * 1024;

/** How long the server spends on one resolution before it answers with the base chain. */
export const SERVER_DEADLINE_MS = 2000;

/**
 * An error answer from the server: `code` is the JSON-RPC code, `reason`
 * the stable word programs branch on (`outside-root`, `symlink`,
 * `invalid-session-token`, `not-registered`, `stale`, `unauthorized`, ...).
 */
export class RpcError extends Error {
  /**
   * @param {string} method
   * @param {{code: number, message: string, data?: {reason?: string}}} error
   */
  constructor(method, error) {
    super(`${method}: ${error.message}`);
    this.name = 'RpcError';
    /** @type {string} */
    this.method = method;
    /** @type {number} */
    this.code = error.code;
    /** @type {string} */
    this.reason = error.data?.reason ?? 'error';
  }
}

/**
 * The socket `agentspine serve` listens on by default:
 * `$XDG_RUNTIME_DIR/agentspine/agentspine.sock`, else
 * `$TMPDIR` (or `/tmp`) `/agentspine-<uid>/agentspine.sock`.
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {string}
 */
export function defaultSocketPath(env = process.env) {
  const absolute = (/** @type {string | undefined} */ p) => (p && path.isAbsolute(p) ? p : undefined);
  const runtime = absolute(env.XDG_RUNTIME_DIR);
  if (runtime) return path.join(runtime, 'agentspine', 'agentspine.sock');
  const uid = typeof process.geteuid === 'function' ? process.geteuid() : os.userInfo().uid;
  return path.join(absolute(env.TMPDIR) ?? '/tmp', `agentspine-${uid}`, 'agentspine.sock');
}

/**
 * Reads the control token the server wrote beside its socket
 * (`<socket>.token`, mode 0600).
 * @param {string} socketPath
 * @returns {Promise<string>}
 */
export async function readControlToken(socketPath) {
  return (await readFile(`${socketPath}.token`, 'utf8')).trim();
}

/**
 * One connection: requests are matched to answers by id, so several may be
 * in flight at once.
 */
export class Connection {
  /** @type {net.Socket} */
  #socket;
  #next = 0;
  /** @type {Map<number, {method: string, resolve: (v: any) => void, reject: (e: Error) => void, timer?: NodeJS.Timeout}>} */
  #pending = new Map();
  #buffer = '';
  /** @type {Error | null} */
  #closed = null;

  /** @param {net.Socket} socket */
  constructor(socket) {
    this.#socket = socket;
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => this.#receive(String(chunk)));
    const fail = (/** @type {Error} */ error) => this.#failAll(error);
    socket.on('error', fail);
    socket.on('close', () => fail(new Error('the agentspine socket closed')));
  }

  /**
   * Connects to the socket.
   * @param {string} socketPath
   * @param {{timeoutMs?: number}} [options]
   * @returns {Promise<Connection>}
   */
  static connect(socketPath, { timeoutMs = 5000 } = {}) {
    return new Promise((resolve, reject) => {
      const socket = net.createConnection({ path: socketPath });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`${socketPath}: no connection within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        resolve(new Connection(socket));
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(new Error(`${socketPath}: cannot connect to agentspine serve (${error.message})`, { cause: error }));
      });
    });
  }

  /**
   * Sends one request and waits for its answer.
   * @param {string} method
   * @param {Record<string, unknown>} [params]
   * @param {{timeoutMs?: number}} [options]
   * @returns {Promise<any>}
   */
  request(method, params = {}, { timeoutMs } = {}) {
    if (this.#closed) return Promise.reject(this.#closed);
    const id = ++this.#next;
    const line = JSON.stringify({ jsonrpc: '2.0', id, method, params });
    if (Buffer.byteLength(line) > MAX_LINE) {
      return Promise.reject(new RangeError(`${method}: the request is over ${MAX_LINE} bytes; the server would drop it`));
    }
    return new Promise((resolve, reject) => {
      const entry = { method, resolve, reject, timer: /** @type {NodeJS.Timeout | undefined} */ (undefined) };
      if (timeoutMs !== undefined) {
        entry.timer = setTimeout(() => {
          this.#pending.delete(id);
          reject(new Error(`${method}: no answer within ${timeoutMs} ms`));
        }, timeoutMs);
      }
      this.#pending.set(id, entry);
      this.#socket.write(`${line}\n`);
    });
  }

  /** Whether the connection has closed (either side) or failed. */
  get closed() {
    return this.#closed !== null;
  }

  /** Closes the connection; requests still waiting are rejected. */
  close() {
    this.#failAll(new Error('the connection was closed'));
    this.#socket.end();
  }

  /** @param {string} chunk */
  #receive(chunk) {
    this.#buffer += chunk;
    let newline;
    while ((newline = this.#buffer.indexOf('\n')) >= 0) {
      const line = this.#buffer.slice(0, newline);
      this.#buffer = this.#buffer.slice(newline + 1);
      if (line.trim() === '') continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch (error) {
        this.#failAll(new Error(`the server sent a line that is not JSON: ${line.slice(0, 200)}`));
        return;
      }
      this.#answer(message);
    }
  }

  /** @param {any} message */
  #answer(message) {
    const entry = typeof message.id === 'number' ? this.#pending.get(message.id) : undefined;
    if (!entry) {
      // An error the server could not tie to a request (a refused peer, a
      // line it could not read): every waiting request gets it.
      if (message.error) {
        const error = new RpcError('connection', message.error);
        for (const [, waiting] of this.#pending) waiting.reject(error);
        this.#pending.clear();
      }
      return;
    }
    this.#pending.delete(message.id);
    if (entry.timer) clearTimeout(entry.timer);
    if (message.error) entry.reject(new RpcError(entry.method, message.error));
    else entry.resolve(message.result);
  }

  /** @param {Error} error */
  #failAll(error) {
    this.#closed ??= error;
    for (const [, entry] of this.#pending) {
      if (entry.timer) clearTimeout(entry.timer);
      entry.reject(error);
    }
    this.#pending.clear();
  }
}

/**
 * The host's side (Electron main): holds the control token.
 */
export class HostClient {
  /** @type {Connection} */
  #connection;

  /** @param {Connection} connection */
  constructor(connection) {
    this.#connection = connection;
  }

  /**
   * Connects and authenticates. Without `controlToken` it is read from the
   * file beside the socket.
   * @param {{socketPath?: string, controlToken?: string}} [options]
   * @returns {Promise<HostClient>}
   */
  static async connect({ socketPath = defaultSocketPath(), controlToken } = {}) {
    const token = controlToken ?? (await readControlToken(socketPath));
    const connection = await Connection.connect(socketPath);
    try {
      await connection.request('host.authenticate', { control_token: token });
    } catch (error) {
      connection.close();
      throw error;
    }
    return new HostClient(connection);
  }

  /** @param {string} root */
  registerProject(root) {
    return this.#connection.request('projects.register', { root });
  }

  /** @param {string} root */
  unregisterProject(root) {
    return this.#connection.request('projects.unregister', { root });
  }

  listProjects() {
    return this.#connection.request('projects.list');
  }

  /**
   * @param {string} sessionId
   * @param {string} projectRoot
   */
  bindSession(sessionId, projectRoot) {
    return this.#connection.request('session.bind', { session_id: sessionId, project_root: projectRoot });
  }

  /** @param {string} sessionId */
  beginPrompt(sessionId) {
    return this.#connection.request('session.prompt_begin', { session_id: sessionId });
  }

  /** @param {string} sessionId */
  endSession(sessionId) {
    return this.#connection.request('session.end', { session_id: sessionId });
  }

  readGlobalInstructions() {
    return this.#connection.request('instructions.global.read');
  }

  /**
   * @param {string} content
   * @param {string | null} expectedSha256
   */
  writeGlobalInstructions(content, expectedSha256) {
    return this.#connection.request('instructions.global.write', { content, expected_sha256: expectedSha256 });
  }

  /** @param {string} projectRoot */
  readProjectAgentsMd(projectRoot) {
    return this.#connection.request('project.agents_md.read', { project_root: projectRoot });
  }

  /**
   * @param {string} projectRoot
   * @param {string} content
   * @param {string | null} expectedSha256
   */
  writeProjectAgentsMd(projectRoot, content, expectedSha256) {
    return this.#connection.request('project.agents_md.write', {
      project_root: projectRoot,
      content,
      expected_sha256: expectedSha256,
    });
  }

  close() {
    this.#connection.close();
  }
}

/**
 * The sidecar's side: a session id and that session's token, nothing more.
 */
export class SidecarClient {
  /** @type {Connection | null} */
  #connection;
  #socketPath;
  #sessionId;
  #token;
  /** @type {any} */
  #baseChain;
  #timeoutMs;

  /**
   * @param {Connection | null} connection
   * @param {{socketPath: string, sessionId: string, token: string, baseChain?: any, timeoutMs?: number}} options
   */
  constructor(connection, { socketPath, sessionId, token, baseChain = null, timeoutMs = SERVER_DEADLINE_MS + 500 }) {
    this.#connection = connection;
    this.#socketPath = socketPath;
    this.#sessionId = sessionId;
    this.#token = token;
    this.#baseChain = baseChain;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * Connects. `baseChain` (the root chain from `session.bind` or the last
   * `session.prompt_begin`) is what `resolve` answers with when the proxy
   * cannot be reached.
   * @param {{socketPath?: string, sessionId: string, token: string, baseChain?: any, timeoutMs?: number}} options
   * @returns {Promise<SidecarClient>}
   */
  static async connect(options) {
    const socketPath = options.socketPath ?? defaultSocketPath();
    let connection = null;
    try {
      connection = await Connection.connect(socketPath);
    } catch (error) {
      if (!options.baseChain) throw error;
    }
    return new SidecarClient(connection, { ...options, socketPath });
  }

  /** Replaces the base chain (after a prompt rebuilt it). */
  set baseChain(chain) {
    this.#baseChain = chain;
  }

  /**
   * The complete chain for `targetPath`'s directory (absolute, or relative
   * to the session's root); it replaces the active chain whole. Refusals
   * (outside the root, through a link, a wrong token) throw an `RpcError`.
   * When the proxy cannot be reached or does not answer in time, and a base
   * chain was given, the answer is the base chain with
   * `fallback: {reason: "proxy-unavailable: ..."}`.
   * @param {string} targetPath
   */
  async resolve(targetPath) {
    const started = performance.now();
    const params = { session_id: this.#sessionId, token: this.#token, path: targetPath };
    try {
      return await this.#request(params);
    } catch (error) {
      if (error instanceof RpcError) throw error;
      // The connection is gone or stuck: the next call connects again.
      this.#connection?.close();
      this.#connection = null;
      if (!this.#baseChain) throw error;
      return {
        session_id: this.#sessionId,
        path: targetPath,
        chain: this.#baseChain,
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        cache: 'miss',
        fallback: { reason: `proxy-unavailable: ${/** @type {Error} */ (error).message}` },
      };
    }
  }

  close() {
    this.#connection?.close();
    this.#connection = null;
  }

  /**
   * One resolution. The server closes a connection that has not
   * authenticated within 3 s (`auth-timeout`), or when newer ones crowd it
   * out (`evicted`); a sidecar's connection authenticates with its first
   * resolution, so one opened early and left idle is replaced, and a
   * request the server closed that way is sent again once.
   * @param {Record<string, unknown>} params
   */
  async #request(params) {
    for (let attempt = 0; ; attempt++) {
      if (this.#connection?.closed) this.#connection = null;
      this.#connection ??= await Connection.connect(this.#socketPath, { timeoutMs: this.#timeoutMs });
      try {
        return await this.#connection.request('project.instructions.resolve', params, { timeoutMs: this.#timeoutMs });
      } catch (error) {
        const closedPending =
          error instanceof RpcError && error.method === 'connection' && ['auth-timeout', 'evicted'].includes(error.reason);
        if (!closedPending || attempt > 0) throw error;
        this.#connection.close();
        this.#connection = null;
      }
    }
  }
}
