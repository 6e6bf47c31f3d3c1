#!/usr/bin/env node
// Benchmark of `agentspine serve` through the Node client (clients/node):
// resolves per second and round-trip latency, cache hits and misses, one
// connection and many. Prints a Markdown table for BENCHMARKS.md.
//
//   cargo build --release -p agentspine
//   node benches/serve.mjs --agentspine target/release/agentspine
//
// The tree: a root AGENTS.md, a global file, and 64 leaf directories four
// levels deep, each level with its own AGENTS.md (a chain of six files).

import { spawn } from 'node:child_process';
import { mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import path from 'node:path';
import { parseArgs } from 'node:util';

import { HostClient, SidecarClient } from '../clients/node/index.js';

const { values } = parseArgs({
  options: {
    agentspine: { type: 'string', default: 'target/release/agentspine' },
    hits: { type: 'string', default: '20000' },
    rounds: { type: 'string', default: '20' },
    connections: { type: 'string', default: '16' },
  },
});
const binary = path.resolve(values.agentspine);
const HITS = Number(values.hits);
const ROUNDS = Number(values.rounds);
const CONNECTIONS = Number(values.connections);

const dir = await mkdtemp('/tmp/agentspine-bench-');
const root = path.join(dir, 'proj');
const home = path.join(dir, 'home');
const rule = (name) => `# ${name}\n\n${'Keep changes small and tested. '.repeat(20)}\n`;
await mkdir(path.join(home, '.pi/agent'), { recursive: true });
await writeFile(path.join(home, '.pi/agent/AGENTS.md'), rule('global'));
const leaves = [];
for (let a = 0; a < 4; a++) {
  for (let b = 0; b < 4; b++) {
    for (let c = 0; c < 4; c++) {
      const rel = `pkg${a}/mod${b}/src${c}/lib`;
      leaves.push(`${rel}/file.ts`);
      await mkdir(path.join(root, rel), { recursive: true });
      await writeFile(path.join(root, rel, 'file.ts'), '');
      for (const level of [`pkg${a}`, `pkg${a}/mod${b}`, `pkg${a}/mod${b}/src${c}`, rel]) {
        await writeFile(path.join(root, level, 'AGENTS.md'), rule(level));
      }
    }
  }
}
await writeFile(path.join(root, 'AGENTS.md'), rule('root'));

const socketPath = path.join(dir, 'run/agentspine.sock');
const server = spawn(binary, ['serve', '--socket', socketPath, '--json'], {
  env: { HOME: home, PATH: process.env.PATH },
  stdio: ['ignore', 'pipe', 'inherit'],
});
await new Promise((resolve) => createInterface({ input: server.stdout }).once('line', resolve));

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const fmt = (ms) => (ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : `${ms.toFixed(2)} ms`);
const rows = [];

try {
  const host = await HostClient.connect({ socketPath });
  await host.registerProject(root);
  const sessions = [];
  for (let i = 0; i < CONNECTIONS; i++) sessions.push(await host.bindSession(`s${i}`, root));
  const sidecars = await Promise.all(
    sessions.map((s) => SidecarClient.connect({ socketPath, sessionId: s.session_id, token: s.token })),
  );
  const one = sidecars[0];

  // Cache misses, one connection: every leaf once per prompt.
  let rtt = [];
  let server_ms = [];
  let started = performance.now();
  for (let round = 0; round < ROUNDS; round++) {
    await host.beginPrompt('s0');
    for (const leaf of leaves) {
      const t0 = performance.now();
      const answer = await one.resolve(leaf);
      rtt.push(performance.now() - t0);
      server_ms.push(answer.duration_ms);
      if (answer.cache !== 'miss' || answer.fallback) throw new Error(`unexpected ${answer.cache} ${JSON.stringify(answer.fallback)}`);
    }
  }
  let elapsed = (performance.now() - started) / 1000;
  rtt.sort((a, b) => a - b);
  server_ms.sort((a, b) => a - b);
  rows.push(['miss (6-file chain), 1 connection', rtt.length, rtt.length / elapsed, rtt, server_ms]);

  // Cache hits, one connection, one request at a time.
  await host.beginPrompt('s0');
  await one.resolve(leaves[0]);
  rtt = [];
  server_ms = [];
  started = performance.now();
  for (let i = 0; i < HITS; i++) {
    const t0 = performance.now();
    const answer = await one.resolve(leaves[0]);
    rtt.push(performance.now() - t0);
    server_ms.push(answer.duration_ms);
    if (answer.cache !== 'hit') throw new Error('expected a hit');
  }
  elapsed = (performance.now() - started) / 1000;
  rtt.sort((a, b) => a - b);
  server_ms.sort((a, b) => a - b);
  rows.push(['hit, 1 connection', rtt.length, rtt.length / elapsed, rtt, server_ms]);

  // Cache hits, CONNECTIONS connections (one session each) in parallel.
  for (const [i, s] of sidecars.entries()) {
    await host.beginPrompt(`s${i}`);
    for (const leaf of leaves.slice(0, 8)) await s.resolve(leaf);
  }
  rtt = [];
  server_ms = [];
  started = performance.now();
  await Promise.all(
    sidecars.map(async (s) => {
      for (let i = 0; i < HITS / CONNECTIONS; i++) {
        const t0 = performance.now();
        const answer = await s.resolve(leaves[i % 8]);
        rtt.push(performance.now() - t0);
        server_ms.push(answer.duration_ms);
        if (answer.cache !== 'hit') throw new Error('expected a hit');
      }
    }),
  );
  elapsed = (performance.now() - started) / 1000;
  rtt.sort((a, b) => a - b);
  server_ms.sort((a, b) => a - b);
  rows.push([`hit, ${CONNECTIONS} connections`, rtt.length, rtt.length / elapsed, rtt, server_ms]);

  // Cache misses, CONNECTIONS connections in parallel.
  rtt = [];
  server_ms = [];
  for (const [i] of sidecars.entries()) await host.beginPrompt(`s${i}`);
  started = performance.now();
  await Promise.all(
    sidecars.map(async (s) => {
      for (const leaf of leaves) {
        const t0 = performance.now();
        const answer = await s.resolve(leaf);
        rtt.push(performance.now() - t0);
        server_ms.push(answer.duration_ms);
        if (answer.cache !== 'miss' || answer.fallback) throw new Error('expected a miss');
      }
    }),
  );
  elapsed = (performance.now() - started) / 1000;
  rtt.sort((a, b) => a - b);
  server_ms.sort((a, b) => a - b);
  rows.push([`miss (6-file chain), ${CONNECTIONS} connections`, rtt.length, rtt.length / elapsed, rtt, server_ms]);

  for (const s of sidecars) s.close();
  host.close();
} finally {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  await rm(dir, { recursive: true, force: true });
}

console.log('| workload | resolves | resolves/s | round trip p50 | round trip p99 | server p50 | server p99 |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const [name, n, rate, rtt, srv] of rows) {
  console.log(
    `| ${name} | ${n} | ${Math.round(rate).toLocaleString('en')} | ${fmt(quantile(rtt, 0.5))} | ${fmt(quantile(rtt, 0.99))} | ${fmt(quantile(srv, 0.5))} | ${fmt(quantile(srv, 0.99))} |`,
  );
}
