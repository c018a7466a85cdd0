#!/usr/bin/env node
/**
 * `npm start`: serves the build in dist/ (`node dist/cli.js serve`), rebuilding first (`npm run
 * build`) only when the build is missing or a source is newer than it. Sources: everything under
 * src/ and console/, tsconfig*.json and package.json. The build's age is that of the older of
 * dist/cli.js (tsc) and dist/console/index.html (Vite), so a build that stopped half-way is redone.
 *
 * The server runs as a child in its own process group: a signal reaches it once, through this
 * script (SIGINT, SIGTERM, SIGHUP are forwarded, each the first time it arrives; a terminal's
 * Ctrl-C reaches both npm and this script, which would otherwise stop the server twice). This
 * script exits as the server did: with its exit code, or by the same signal.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCE_DIRS = ['src', 'console'];
const BUILD_OUTPUTS = ['dist/cli.js', 'dist/console/index.html'];

/** mtime (ms) of `path`, or null when it does not exist. */
function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

/** The newest mtime (ms) of the files under `dir` (0 when it is missing or empty). */
function newestUnder(dir) {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestUnder(path) : (mtime(path) ?? 0));
  }
  return newest;
}

/** The newest mtime (ms) of the sources the build is made from. */
function newestSource() {
  const rootFiles = readdirSync(ROOT).filter((name) => name === 'package.json' || /^tsconfig.*\.json$/.test(name));
  return Math.max(...SOURCE_DIRS.map((d) => newestUnder(join(ROOT, d))), ...rootFiles.map((f) => mtime(join(ROOT, f)) ?? 0));
}

/** Why the build must be redone, or null when dist/ is up to date. */
function staleReason() {
  const built = BUILD_OUTPUTS.map((f) => mtime(join(ROOT, f)));
  if (built.some((t) => t === null)) return 'no build in dist/';
  return newestSource() > Math.min(...built) ? 'sources changed since the last build' : null;
}

const reason = staleReason();
if (reason !== null) {
  process.stderr.write(`punctual: ${reason}; building (npm run build)\n`);
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const server = spawn(process.execPath, [join(ROOT, 'dist/cli.js'), 'serve', ...process.argv.slice(2)], {
  stdio: ['ignore', 'inherit', 'inherit'],
  detached: true,
});

const forwarded = new Set();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    if (forwarded.has(signal)) return;
    forwarded.add(signal);
    server.kill(signal);
  });
}
// Should this script end first (an uncaught error), the server goes with it.
process.on('exit', () => {
  if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
});

server.once('error', (err) => {
  process.stderr.write(`punctual: cannot start the server: ${err.message}\n`);
  process.exit(1);
});
server.once('exit', (code, signal) => {
  if (signal !== null) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
