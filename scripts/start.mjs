#!/usr/bin/env node
/**
 * `npm start`: serves the build in dist/ (`punctual serve`, with this script's arguments after
 * `serve`), rebuilding first (`npm run build`) only when the build is missing or a source is newer
 * than it (scripts/build-state.mjs).
 *
 * The server runs in this very process (dist/cli.js is imported with the arguments of `serve`),
 * not in a child: whatever ends npm's process group ends the server with it, SIGKILL included,
 * and no orphan is left holding the port, the database or npm's output. SIGTERM or SIGINT (npm
 * forwards both to this process; a terminal's Ctrl-C also reaches every process of the group)
 * start one graceful stop; see docs/deployment.md, "Stopping". Should npm itself die without
 * forwarding anything (SIGKILL to npm alone), this process notices it has lost its parent within
 * a second and stops as on SIGTERM.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import process from 'node:process';
import { clearInterval, setInterval } from 'node:timers';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';
import { staleReason } from './build-state.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const reason = staleReason();
if (reason !== null) {
  process.stderr.write(`punctual: ${reason}; building (npm run build)\n`);
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

// A parent that died (npm killed alone) leaves this process to init: stop as on SIGTERM. Not
// when started under init (ppid 1) in the first place, e.g. as a container's first process.
const parent = process.ppid;
if (parent > 1) {
  const watch = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(watch);
    process.kill(process.pid, 'SIGTERM');
  }, 1_000);
  watch.unref();
}

const cli = join(ROOT, 'dist/cli.js');
process.argv = [process.argv[0], cli, 'serve', ...process.argv.slice(2)];
await import(pathToFileURL(cli).href);
