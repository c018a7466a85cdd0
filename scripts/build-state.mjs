/**
 * Whether dist/ is older than its sources, for `npm start` (scripts/start.mjs), which rebuilds then,
 * and for the tests that run the build. Sources: everything under src/ and console/,
 * tsconfig*.json and package.json. The build's age is that of the older of dist/cli.js (tsc) and
 * dist/console/index.html (Vite), so a build that stopped half-way is redone.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
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

/** Why the build must be redone (a sentence), or null when dist/ is up to date. */
export function staleReason() {
  const built = BUILD_OUTPUTS.map((f) => mtime(join(ROOT, f)));
  if (built.some((t) => t === null)) return 'no build in dist/';
  return newestSource() > Math.min(...built) ? 'sources changed since the last build' : null;
}

