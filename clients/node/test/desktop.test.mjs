// The Node client against the real `agentspine serve` (the binary named by
// $AGENTSPINE_BIN, else target/debug/agentspine): a whole desktop flow and
// the sidecar's guarantees, each test with its own server, tree and home.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, mkdir, writeFile, readFile, rm, symlink } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import path from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

import { HostClient, SidecarClient, RpcError, readControlToken, defaultSocketPath } from '../index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const binary =
  process.env.AGENTSPINE_BIN ?? path.join(process.env.CARGO_TARGET_DIR ?? path.join(repo, 'target'), 'debug/agentspine');

/** A tree (`proj` with `a/` and `b/`), a home with the global file, and a running server. */
async function desk(t) {
  const dir = await mkdtemp(path.join('/tmp', 'agentspine-node-'));
  const file = async (rel, text) => {
    await mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await writeFile(path.join(dir, rel), text);
  };
  await file('home/.pi/agent/AGENTS.md', 'global rule');
  await file('proj/AGENTS.md', 'root rule');
  await file('proj/a/AGENTS.md', 'a rule');
  await file('proj/a/x.ts', '');
  await file('proj/b/CLAUDE.md', 'b rule');
  await file('proj/b/y.ts', '');
  await file('outside/AGENTS.md', 'outside rule');
  await symlink(path.join(dir, 'outside'), path.join(dir, 'proj/outside-link'));
  const socketPath = path.join(dir, 'run/agentspine.sock');
  const server = spawn(binary, ['serve', '--socket', socketPath, '--json'], {
    env: { HOME: path.join(dir, 'home'), PATH: process.env.PATH },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [line] = await Promise.race([
    new Promise((resolve) => createInterface({ input: server.stdout }).once('line', (l) => resolve([l]))),
    new Promise((_, reject) => server.once('exit', (code) => reject(new Error(`${binary} exited (${code}) before listening`)))),
  ]);
  const ready = JSON.parse(line);
  assert.equal(ready.event, 'listening');
  assert.equal(ready.socket, socketPath);
  const exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
  t.after(async () => {
    server.kill('SIGTERM');
    await exited;
    await rm(dir, { recursive: true, force: true });
  });
  return { dir, root: path.join(dir, 'proj'), socketPath, server, exited, file };
}

const labels = (chain) => chain.sources.map((s) => s.label);

test('a full desktop flow: register, bind, prompt, resolve twice, edit AGENTS.md, the next prompt rebuilds', async (t) => {
  const { root, socketPath } = await desk(t);
  const host = await HostClient.connect({ socketPath });
  t.after(() => host.close());

  const registered = await host.registerProject(root);
  assert.deepEqual(registered, { root, registered: true, already: false });
  assert.deepEqual(await host.listProjects(), { projects: [{ root, sessions: 0 }] });
  const bound = await host.bindSession('session-1', root);
  assert.equal(bound.token.length, 64);
  assert.deepEqual(labels(bound.chain), ['~/.pi/agent/AGENTS.md', 'AGENTS.md']);
  // No binding for the desktop: no continuity (tests/cli/continuity.rs binds one).
  assert.deepEqual(bound.continuity, []);

  let prompt = await host.beginPrompt('session-1');
  assert.equal(prompt.prompt, 1);
  assert.equal(prompt.rebuild, false);
  assert.deepEqual(prompt.continuity, []);

  const sidecar = await SidecarClient.connect({ socketPath, sessionId: 'session-1', token: bound.token, baseChain: bound.chain });
  t.after(() => sidecar.close());
  const first = await sidecar.resolve('a/x.ts');
  assert.equal(first.cache, 'miss');
  assert.equal(first.fallback, null);
  assert.equal(typeof first.duration_ms, 'number');
  assert.deepEqual(labels(first.chain), ['~/.pi/agent/AGENTS.md', 'AGENTS.md', 'a/AGENTS.md']);
  assert.match(first.chain.text, /## a\/AGENTS\.md\n\na rule\n/);
  const second = await sidecar.resolve(path.join(root, 'a/x.ts'));
  assert.equal(second.cache, 'hit');
  assert.deepEqual(second.chain, first.chain);

  const current = await host.readProjectAgentsMd(root);
  assert.equal(current.content, 'root rule');
  const written = await host.writeProjectAgentsMd(root, 'root rule, edited in the Projects view\n', current.sha256);
  assert.equal(written.path, path.join(root, 'AGENTS.md'));
  assert.equal(await readFile(path.join(root, 'AGENTS.md'), 'utf8'), 'root rule, edited in the Projects view\n');

  prompt = await host.beginPrompt('session-1');
  assert.equal(prompt.prompt, 2);
  assert.equal(prompt.rebuild, true);
  assert.match(prompt.chain.text, /edited in the Projects view/);
  assert.notEqual(prompt.chain.digest, bound.chain.digest);
  sidecar.baseChain = prompt.chain;
  const third = await sidecar.resolve('a/x.ts');
  assert.equal(third.cache, 'miss');
  assert.match(third.chain.text, /edited in the Projects view/);

  prompt = await host.beginPrompt('session-1');
  assert.equal(prompt.rebuild, false);
  await host.endSession('session-1');
  await assert.rejects(sidecar.resolve('a/x.ts'), (e) => e instanceof RpcError && e.reason === 'invalid-session-token');
});

test('a sibling directory never leaks into the next answer', async (t) => {
  const { root, socketPath } = await desk(t);
  const host = await HostClient.connect({ socketPath, controlToken: await readControlToken(socketPath) });
  t.after(() => host.close());
  await host.registerProject(root);
  const bound = await host.bindSession('s', root);
  const sidecar = await SidecarClient.connect({ socketPath, sessionId: 's', token: bound.token });
  t.after(() => sidecar.close());
  await sidecar.resolve('a/x.ts');
  const b = await sidecar.resolve('b/y.ts');
  assert.deepEqual(labels(b.chain), ['~/.pi/agent/AGENTS.md', 'AGENTS.md', 'b/CLAUDE.md']);
  assert.doesNotMatch(b.chain.text, /a rule/);
});

test('refusals are RpcErrors with a reason and a message naming the cause', async (t) => {
  const { dir, root, socketPath } = await desk(t);
  const host = await HostClient.connect({ socketPath });
  t.after(() => host.close());
  await host.registerProject(root);
  const one = await host.bindSession('one', root);
  const two = await host.bindSession('two', root);
  const refused = (reason) => (e) => {
    assert.ok(e instanceof RpcError, String(e));
    assert.equal(e.reason, reason, e.message);
    return true;
  };
  const sidecar = await SidecarClient.connect({ socketPath, sessionId: 'one', token: one.token });
  t.after(() => sidecar.close());
  await assert.rejects(sidecar.resolve('../outside/AGENTS.md'), refused('outside-root'));
  await assert.rejects(sidecar.resolve('outside-link/AGENTS.md'), refused('symlink'));
  const thief = await SidecarClient.connect({ socketPath, sessionId: 'one', token: two.token });
  t.after(() => thief.close());
  await assert.rejects(thief.resolve('a/x.ts'), refused('invalid-session-token'));
  await assert.rejects(host.bindSession('x', path.join(dir, 'outside')), refused('not-registered'));
  await assert.rejects(host.writeProjectAgentsMd(path.join(dir, 'outside'), 'x', null), refused('not-registered'));
  const read = await host.readProjectAgentsMd(root);
  await writeFile(path.join(root, 'AGENTS.md'), 'changed elsewhere');
  await assert.rejects(host.writeProjectAgentsMd(root, 'mine', read.sha256), refused('stale'));
  assert.equal(await readFile(path.join(root, 'AGENTS.md'), 'utf8'), 'changed elsewhere');
  await assert.rejects(HostClient.connect({ socketPath, controlToken: 'f'.repeat(64) }), refused('unauthorized'));
});

test('the global file is read and written at its fixed path', async (t) => {
  const { dir, socketPath } = await desk(t);
  const host = await HostClient.connect({ socketPath });
  t.after(() => host.close());
  const global = await host.readGlobalInstructions();
  assert.equal(global.path, path.join(dir, 'home/.pi/agent/AGENTS.md'));
  assert.equal(global.content, 'global rule');
  await host.writeGlobalInstructions('be brief', global.sha256);
  assert.equal((await host.readGlobalInstructions()).content, 'be brief');
});

test('without the proxy the sidecar answers with the base chain and says why', async (t) => {
  const { root, socketPath, server, exited } = await desk(t);
  const host = await HostClient.connect({ socketPath });
  await host.registerProject(root);
  const bound = await host.bindSession('s', root);
  host.close();
  const sidecar = await SidecarClient.connect({ socketPath, sessionId: 's', token: bound.token, baseChain: bound.chain });
  t.after(() => sidecar.close());
  server.kill('SIGTERM');
  assert.deepEqual(await exited, { code: 0, signal: null });
  const answer = await sidecar.resolve('a/x.ts');
  assert.deepEqual(answer.chain, bound.chain);
  assert.equal(answer.cache, 'miss');
  assert.match(answer.fallback.reason, /^proxy-unavailable: /);
});

test('a sidecar reconnects when the server comes back on the same socket', async (t) => {
  const { root, socketPath, server, exited } = await desk(t);
  const host = await HostClient.connect({ socketPath });
  await host.registerProject(root);
  const bound = await host.bindSession('s', root);
  host.close();
  const sidecar = await SidecarClient.connect({ socketPath, sessionId: 's', token: bound.token });
  t.after(() => sidecar.close());
  assert.equal((await sidecar.resolve('a/x.ts')).cache, 'miss');
  server.kill('SIGTERM');
  await exited;
  // No base chain given: the failure is thrown, not papered over.
  await assert.rejects(sidecar.resolve('a/x.ts'), (e) => !(e instanceof RpcError));
  // A new server knows nothing of the old sessions: the token is refused, over a new connection.
  const again = spawn(binary, ['serve', '--socket', socketPath, '--json'], {
    env: { HOME: path.join(path.dirname(root), 'home'), PATH: process.env.PATH },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const againExited = new Promise((resolve) => again.once('exit', resolve));
  t.after(async () => {
    again.kill('SIGTERM');
    await againExited;
  });
  await new Promise((resolve) => createInterface({ input: again.stdout }).once('line', resolve));
  await assert.rejects(sidecar.resolve('a/x.ts'), (e) => e instanceof RpcError && e.reason === 'invalid-session-token');
});

test('a sidecar connected early and idle past the server\'s 3 s is still answered', async (t) => {
  const { root, socketPath } = await desk(t);
  const host = await HostClient.connect({ socketPath });
  t.after(() => host.close());
  await host.registerProject(root);
  const bound = await host.bindSession('s', root);
  // No base chain: a failure would be thrown, not papered over.
  const sidecar = await SidecarClient.connect({ socketPath, sessionId: 's', token: bound.token });
  t.after(() => sidecar.close());
  // The server closes a connection that has not authenticated within 3 s.
  await new Promise((resolve) => setTimeout(resolve, 3500));
  const answer = await sidecar.resolve('a/x.ts');
  assert.deepEqual([answer.cache, answer.fallback], ['miss', null]);
  assert.deepEqual(labels(answer.chain), ['~/.pi/agent/AGENTS.md', 'AGENTS.md', 'a/AGENTS.md']);
  // Authenticated by that answer, the new connection has no idle limit.
  await new Promise((resolve) => setTimeout(resolve, 3500));
  assert.equal((await sidecar.resolve('a/x.ts')).cache, 'hit');
  // And the host's connection, authenticated at once, never had one.
  assert.equal((await host.listProjects()).projects.length, 1);
});

test('sixteen sidecars in parallel, two sessions, each gets its own session only', async (t) => {
  const { root, socketPath } = await desk(t);
  const host = await HostClient.connect({ socketPath });
  t.after(() => host.close());
  await host.registerProject(root);
  const sessions = [await host.bindSession('s0', root), await host.bindSession('s1', root)];
  const results = await Promise.all(
    Array.from({ length: 16 }, async (_, n) => {
      const bound = sessions[n % 2];
      const sidecar = await SidecarClient.connect({ socketPath, sessionId: bound.session_id, token: bound.token });
      try {
        const answers = await Promise.all(['a/x.ts', 'b/y.ts', '.', 'a'].map((p) => sidecar.resolve(p)));
        return answers.every((a) => a.session_id === bound.session_id && a.fallback === null) ? 1 : 0;
      } finally {
        sidecar.close();
      }
    }),
  );
  assert.equal(results.reduce((a, b) => a + b, 0), 16);
});

test('defaultSocketPath follows the server rule', () => {
  assert.equal(defaultSocketPath({ XDG_RUNTIME_DIR: '/run/user/1000' }), '/run/user/1000/agentspine/agentspine.sock');
  assert.match(defaultSocketPath({ TMPDIR: '/var/tmp' }), /^\/var\/tmp\/agentspine-\d+\/agentspine\.sock$/);
  assert.match(defaultSocketPath({ XDG_RUNTIME_DIR: 'relative' }), /^\/tmp\/agentspine-\d+\/agentspine\.sock$/);
});
