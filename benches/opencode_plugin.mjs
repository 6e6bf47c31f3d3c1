#!/usr/bin/env node
// The time agentspine's opencode plugin (plugins/opencode) adds to one tool
// call: its `tool.execute.before` and `tool.execute.after` hooks awaited in
// a row, as opencode awaits them around a tool, for a `read` of a file in a
// sibling package (so agentspine finds files to add and adds them), each
// call in a new session so every one does the whole work. Prints a
// Markdown table for BENCHMARKS.md.
//
//   scripts/build-release
//   node benches/opencode_plugin.mjs --agentspine target/x86_64-unknown-linux-gnu/release/agentspine [--calls 200]
//
// Rows: the plugin with the real binary; the plugin with `/bin/true` in
// its place (the cost of starting a process from Node and reading its
// empty answer, the floor of any command hook); and a tool call with no
// plugin (the hooks not called: zero, the reference). The tree is a copy
// of examples/monorepo with a `.git` of its own; HOME and the state
// directory are throwaway. Not run by CI: a measurement, not a test.

import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';

const { values } = parseArgs({
  options: {
    agentspine: { type: 'string', default: 'target/x86_64-unknown-linux-gnu/release/agentspine' },
    calls: { type: 'string', default: '200' },
  },
});
const repo = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const binary = path.resolve(values.agentspine);
const CALLS = Number(values.calls);

const work = mkdtempSync(path.join(os.tmpdir(), 'agentspine-plugin-bench-'));
const tree = path.join(work, 'monorepo');
cpSync(path.join(repo, 'examples/monorepo'), tree, { recursive: true });
mkdirSync(path.join(tree, '.git'));
mkdirSync(path.join(work, 'home'));
process.env.HOME = path.join(work, 'home');
process.env.AGENTSPINE_STATE_DIR = path.join(work, 'state');
const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();

/** The plugin module, loaded afresh with AGENTSPINE_BIN = `bin`. */
async function plugin(bin) {
  process.env.AGENTSPINE_BIN = bin;
  const url = pathToFileURL(path.join(repo, 'plugins/opencode/agentspine.js'));
  const mod = await import(`${url.href}?bin=${encodeURIComponent(bin)}`);
  // Started in packages/web, as a user would; the read is in packages/api.
  return mod.AgentSpine({ directory: path.join(tree, 'packages/web') });
}

const target = path.join(tree, 'packages/api/src/handlers/users.ts');

/** Milliseconds for `n` tool calls, one per new session; the last added text. */
async function run(hooks, n) {
  const times = [];
  let added = '';
  for (let i = 0; i < n; i += 1) {
    const sessionID = `ses_bench_${process.pid}_${i}_${Math.random().toString(36).slice(2)}`;
    const input = { tool: 'read', sessionID, callID: `call_${i}` };
    const output = { output: 'file text', title: '', metadata: {} };
    const started = process.hrtime.bigint();
    if (hooks) {
      await hooks['tool.execute.before'](input, { args: { filePath: target } });
      await hooks['tool.execute.after'](input, output);
    }
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    added = output.output.slice('file text'.length);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], p90: times[Math.floor(times.length * 0.9)], added };
}

const real = await plugin(binary);
const floor = await plugin('/bin/true');
// Warm-up, untimed: page cache and the state database.
await run(real, 10);
await run(floor, 10);
const rows = [];
for (const [name, hooks] of [['the plugin, agentspine', real], ['the plugin, `/bin/true` in its place', floor], ['no plugin', null]]) {
  rows.push([name, await run(hooks, CALLS)]);
}
const base = rows[1][1].median;
console.log(`opencode plugin, one \`read\` tool call (before + after hooks), ${CALLS} calls each; ${version}; ${os.cpus().length} CPUs, load ${os.loadavg()[0].toFixed(2)}\n`);
console.log('| hooks | median per call | p90 | against `/bin/true` | text added |');
console.log('|---|---:|---:|---:|---:|');
for (const [name, r] of rows) {
  const ratio = name === 'no plugin' ? '—' : `${(r.median / base).toFixed(2)}×`;
  console.log(`| ${name} | ${r.median.toFixed(2)} ms | ${r.p90.toFixed(2)} ms | ${ratio} | ${r.added.length} chars |`);
}
const ok = rows[0][1].added.length > 0;
console.log(`\n${ok ? 'agentspine added its text to every result' : 'agentspine added nothing: the measurement is not of the work'}`);
rmSync(work, { recursive: true, force: true });
process.exit(ok ? 0 : 1);
