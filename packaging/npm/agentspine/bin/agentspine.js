#!/usr/bin/env node
// The `agentspine` command of the npm package: finds the platform package
// npm installed beside this one (@agentspine/<os>-<cpu>) and runs its
// binary with the same arguments, stdio and exit status. Nothing else: no
// install script, no network.
//
// `agentspine install` run through here writes the binary's own path into
// the hosts' settings, so a hook starts the native binary directly (no
// Node start per event); that path stays the same across `npm update`.
"use strict";

const { spawnSync } = require("node:child_process");
const path = require("node:path");

const suffix = `${process.platform}-${process.arch}`;
const pkg = `@agentspine/${suffix}`;

let binary;
try {
  binary = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "bin", "agentspine");
} catch {
  process.stderr.write(
    `agentspine: no binary for ${suffix}: the package ${pkg} is not installed. npm installs it with ` +
      "agentspine unless optional dependencies are turned off (--omit=optional, --no-optional): " +
      "install agentspine again without that. Other ways in: `cargo install --locked agentspine`, " +
      "or a release binary (https://github.com/agentspine/agentspine/releases).\n",
  );
  process.exit(127);
}

const run = spawnSync(binary, process.argv.slice(2), { stdio: "inherit" });
if (run.error) {
  process.stderr.write(`agentspine: cannot run ${binary}: ${run.error.message}\n`);
  process.exit(126);
}
if (run.signal) {
  process.kill(process.pid, run.signal);
}
process.exit(run.status ?? 1);
