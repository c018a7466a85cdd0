/**
 * The layers of src/ import downwards only:
 * - src/domain/ (types, enums, pure defaults) imports nothing outside itself;
 * - src/net/ (the SSRF guard) imports nothing but src/domain/;
 * - src/service/ (the use cases) imports neither the dispatcher (src/dispatch/) nor the HTTP layer
 *   (src/http/) nor the CLI (src/cli/): what both the service and the dispatcher need lives below
 *   them, in src/domain/ or src/net/;
 * - src/cron/ imports only src/domain/; src/runtime/ (worker threads, durable file writes)
 *   nothing of src/; src/secrets/ (the sealing of job secrets) only src/runtime/;
 * - src/store/ (the Store contract, its rules and the two databases) imports only src/domain/,
 *   src/cron/ and src/runtime/: a store never calls up into the dispatcher, the service or metrics;
 * - src/dispatch/ imports neither src/service/ nor src/http/ nor src/cli/.
 * The imports are read from the source text (`from '…'` and `import('…')`), relative ones only.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = join(ROOT, 'src');

/** `file → imported file` (both relative to src/) for every relative import of the .ts files under `dir`. */
function importsUnder(dir: string): { file: string; target: string }[] {
  return readdirSync(join(SRC, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .flatMap((e) => {
      const path = join(e.parentPath, e.name);
      const text = readFileSync(path, 'utf8');
      return [...text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)].map((m) => ({
        file: relative(SRC, path),
        target: relative(SRC, resolve(dirname(path), m[1]!)),
      }));
    });
}

/** The imports of `dir` whose target is outside every directory of `allowed` (and not in `dir`). */
function outside(dir: string, allowed: string[]): string[] {
  return importsUnder(dir)
    .filter(({ target }) => ![dir, ...allowed].some((d) => target.startsWith(`${d}/`)))
    .map(({ file, target }) => `${file} → ${target}`);
}

describe('layering of src/', () => {
  it('reads the imports (the check would pass vacuously otherwise)', () => {
    const service = importsUnder('service');
    expect(service.some((i) => i.target === 'domain/enums.js')).toBe(true);
    expect(service.some((i) => i.target === 'net/ssrf.js')).toBe(true);
  });

  it('src/domain/ imports nothing outside itself', () => {
    expect(outside('domain', [])).toEqual([]);
  });

  it('src/net/ imports only src/domain/', () => {
    expect(outside('net', ['domain'])).toEqual([]);
  });

  it('src/service/ imports neither src/dispatch/ nor src/http/ nor src/cli/', () => {
    const upward = importsUnder('service')
      .filter(({ target }) => /^(dispatch|http|cli)\//.test(target))
      .map(({ file, target }) => `${file} → ${target}`);
    expect(upward).toEqual([]);
  });

  it('src/cron/ imports only src/domain/, src/runtime/ nothing of src/, src/secrets/ only src/runtime/', () => {
    expect(outside('cron', ['domain'])).toEqual([]);
    expect(outside('runtime', [])).toEqual([]);
    expect(outside('secrets', ['runtime'])).toEqual([]);
  });

  it('src/store/ imports only src/domain/, src/cron/ and src/runtime/', () => {
    expect(outside('store', ['domain', 'cron', 'runtime'])).toEqual([]);
  });

  it('src/dispatch/ imports neither src/service/ nor src/http/ nor src/cli/', () => {
    const upward = importsUnder('dispatch')
      .filter(({ target }) => /^(service|http|cli)\//.test(target))
      .map(({ file, target }) => `${file} → ${target}`);
    expect(upward).toEqual([]);
  });
});
