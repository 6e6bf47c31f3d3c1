/// <reference types="node" />
// Types for `agentspine serve`'s Node client (index.js). The wire names
// (snake_case) are kept as the server sends them.

/** The longest line the server reads, newline excluded (1 MiB). */
export declare const MAX_LINE: number;
/** How long the server spends on one resolution before it answers with the base chain (2000 ms). */
export declare const SERVER_DEADLINE_MS: number;

/** Stable words in `error.data.reason`. */
export type RefusalReason =
  | 'unauthorized'
  | 'peer-uid'
  | 'unknown-session'
  | 'invalid-session-token'
  | 'not-registered'
  | 'no-such-directory'
  | 'outside-root'
  | 'not-a-directory'
  | 'symlink'
  | 'stale'
  | 'invalid-params'
  | 'method-not-found'
  | 'line-too-long'
  | 'parse-error'
  | 'invalid-request'
  | 'busy'
  | 'root-chain-unavailable'
  | (string & {});

/** An error answer from the server. */
export declare class RpcError extends Error {
  readonly name: 'RpcError';
  /** The method that was refused. */
  readonly method: string;
  /** The JSON-RPC code (-32001 unauthorized, -32002 bad session, -32003 not registered, -32004 outside the root, -32005 symlink, -32006 stale, -32010 file error, -32011 busy, -326xx protocol). */
  readonly code: number;
  /** What programs branch on. */
  readonly reason: RefusalReason;
}

/** One file of a chain. */
export interface Source {
  /** `~/.pi/agent/AGENTS.md` for the global file, else the path relative to the root. */
  label: string;
  scope: 'user' | 'project';
  bytes: number;
  sha256: string;
  /** Bytes kept when the 32 KiB cap cut this file. */
  cut_at: number | null;
}

/** A complete chain: global file first, then root down to `dir`, each part labelled. */
export interface Chain {
  /** Directory of the chain, relative to the root (`.` for the root). */
  dir: string;
  /** The labelled text to put in front of the model; it replaces the active chain whole. */
  text: string;
  /** `sha256:` and the hex digest of `text`. */
  digest: string;
  sources: Source[];
}

export interface Project {
  root: string;
  sessions: number;
}

/**
 * A record the user accepted in another project and bound for the desktop
 * (`agentspine source-bind … --host desktop|all`). Context only: it grants
 * nothing. Read afresh at every bind and prompt, so a rollback or purge
 * holds from the next prompt.
 */
export interface ContinuityItem {
  /** `binding:ID/KIND/record:N`: where it comes from. */
  label: string;
  /** `preference`, `no-go`, `correction`, `reference` or `person-relationship`. */
  kind: string;
  text: string;
  sha256: string;
}

export interface Bound {
  session_id: string;
  /** The canonical root. */
  project_root: string;
  /** The sidecar's token for this session only (64 hex characters). */
  token: string;
  /** The root chain. */
  chain: Chain;
  /** What the user's desktop bindings carry (empty when none). */
  continuity: ContinuityItem[];
}

export interface PromptBegun {
  session_id: string;
  /** Prompts since the bind, this one included. */
  prompt: number;
  /** The root chain's digest changed since the previous prompt: rebuild the runtime with `chain`. */
  rebuild: boolean;
  chain: Chain;
  /** Set when the root chain could not be resolved again (2 s bound, resolver error): the previous one stays, `rebuild` is false. */
  fallback: { reason: string } | null;
  /** What the user's desktop bindings carry now (empty when none). */
  continuity: ContinuityItem[];
}

export interface Resolved {
  session_id: string;
  prompt: number;
  /** The path, relative to the root. */
  path: string;
  chain: Chain;
  /** Time the server (or, on fallback, the client) spent on this answer. */
  duration_ms: number;
  /** `hit`: this prompt already resolved the directory. */
  cache: 'hit' | 'miss';
  /** Set when `chain` is the base chain standing in (deadline, resolver error, proxy unavailable). */
  fallback: { reason: string } | null;
}

export interface FileVersion {
  path: string;
  exists: boolean;
  content: string;
  /** SHA-256 of the bytes on disk; pass it as `expectedSha256` to write. `null` when absent. */
  sha256: string | null;
  bytes: number;
}

export interface Written {
  path: string;
  sha256: string;
  bytes: number;
}

/**
 * The socket `agentspine serve` listens on by default:
 * `$XDG_RUNTIME_DIR/agentspine/agentspine.sock`, else
 * `$TMPDIR` (or `/tmp`) `/agentspine-<uid>/agentspine.sock`.
 */
export declare function defaultSocketPath(env?: NodeJS.ProcessEnv): string;

/** Reads the control token the server wrote beside its socket (`<socket>.token`). */
export declare function readControlToken(socketPath: string): Promise<string>;

/** One connection; answers are matched to requests by id. */
export declare class Connection {
  static connect(socketPath: string, options?: { timeoutMs?: number }): Promise<Connection>;
  request<T = unknown>(method: string, params?: Record<string, unknown>, options?: { timeoutMs?: number }): Promise<T>;
  /** Whether the connection has closed (either side) or failed. */
  readonly closed: boolean;
  close(): void;
}

/** The host's side (Electron main), authenticated with the control token. */
export declare class HostClient {
  /** Without `controlToken`, it is read from the file beside the socket. */
  static connect(options?: { socketPath?: string; controlToken?: string }): Promise<HostClient>;
  registerProject(root: string): Promise<{ root: string; registered: true; already: boolean }>;
  /** Ends the root's sessions too. */
  unregisterProject(root: string): Promise<{ root: string; registered: false; ended_sessions: number }>;
  listProjects(): Promise<{ projects: Project[] }>;
  /** The root must be registered. Binding an id again retires its previous token. */
  bindSession(sessionId: string, projectRoot: string): Promise<Bound>;
  /** A new prompt: the per-prompt cache is dropped; `rebuild` says whether the root chain changed. */
  beginPrompt(sessionId: string): Promise<PromptBegun>;
  endSession(sessionId: string): Promise<{ session_id: string; ended: true }>;
  /** `~/.pi/agent/AGENTS.md`, a fixed path. */
  readGlobalInstructions(): Promise<FileVersion>;
  /** `expectedSha256` is the version the edit started from (`null`: the file did not exist); otherwise refused as `stale`. */
  writeGlobalInstructions(content: string, expectedSha256: string | null): Promise<Written>;
  /** A registered root's `AGENTS.md`, never another path. */
  readProjectAgentsMd(projectRoot: string): Promise<FileVersion>;
  /** Atomic; refused as `stale` when the file is not the version `expectedSha256` names. */
  writeProjectAgentsMd(projectRoot: string, content: string, expectedSha256: string | null): Promise<Written>;
  close(): void;
}

export interface SidecarOptions {
  socketPath?: string;
  sessionId: string;
  token: string;
  /** The root chain: the answer when the proxy cannot be reached. */
  baseChain?: Chain;
  /** How long to wait for an answer before using `baseChain` (default 2500 ms). */
  timeoutMs?: number;
}

/** The sidecar's side: one session, one method. */
export declare class SidecarClient {
  static connect(options: SidecarOptions): Promise<SidecarClient>;
  /** Replaces the base chain (after a prompt rebuilt it). */
  set baseChain(chain: Chain);
  /**
   * The complete chain for `targetPath`'s directory (absolute, or relative
   * to the session's root). Refusals throw `RpcError`; an unreachable proxy
   * gives the base chain with `fallback`.
   */
  resolve(targetPath: string): Promise<Resolved>;
  close(): void;
}
