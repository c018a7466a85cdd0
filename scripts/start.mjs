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
 * start one graceful stop, and so does the end of npm itself (src/cli/parent-watch.ts); see
 * docs/deployment.md, "Stopping".
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';
import { staleReason } from './build-state.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const reason = staleReason();
if (reason !== null) {
  process.stderr.write(`punctual: ${reason}; building (npm run build)\n`);
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const cli = join(ROOT, 'dist/cli.js');
process.argv = [process.argv[0], cli, 'serve', ...process.argv.slice(2)];
await import(pathToFileURL(cli).href);
