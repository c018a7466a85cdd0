import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { PG_SKIP_MESSAGE } from './pg.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Newest modification time (ms) of the files under `dir` whose names end in `.ts`. */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * The CLI tests and the tests' child servers run the build (`node dist/cli.js`), which starts in a
 * fraction of the time the sources take through tsx. After `npm ci` or `npm run build` it is
 * fresh; when a source under src/ is newer than dist/cli.js (or there is no build), the server's
 * part is rebuilt here, once per run (`tsc -p tsconfig.build.json`; the console is left as it is).
 */
function ensureBuild(): void {
  const built = (() => {
    try {
      return statSync(join(ROOT, 'dist', 'cli.js')).mtimeMs;
    } catch {
      return 0;
    }
  })();
  const sources = Math.max(
    newestSource(join(ROOT, 'src')),
    statSync(join(ROOT, 'tsconfig.json')).mtimeMs,
    statSync(join(ROOT, 'tsconfig.build.json')).mtimeMs,
  );
  if (built >= sources) return;
  console.log('\nBuilding dist/ for the CLI tests (src/ is newer than dist/cli.js): tsc -p tsconfig.build.json\n');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
}

/**
 * Vitest global setup (vitest.config.ts): decides once per run whether the PostgreSQL suites
 * run.
 * - `PUNCTUAL_TEST_DATABASE_URL` unset: prints ONE line saying the PostgreSQL suites are skipped;
 *   with `PUNCTUAL_TEST_REQUIRE_POSTGRES=1` (set by .ci/run) the run fails instead.
 * - set: checks that the server answers, and fails the run at once with the reason when it does
 *   not (rather than every PostgreSQL test failing on its own).
 * Before that, makes sure the build the CLI tests run is fresh (see {@link ensureBuild}).
 */
export default async function setup(): Promise<void> {
  ensureBuild();
  const url = process.env.PUNCTUAL_TEST_DATABASE_URL?.trim();
  if (!url) {
    if (process.env.PUNCTUAL_TEST_REQUIRE_POSTGRES === '1') {
      throw new Error('PUNCTUAL_TEST_REQUIRE_POSTGRES=1 but PUNCTUAL_TEST_DATABASE_URL is not set: the PostgreSQL suites would be skipped.');
    }
    console.log(`\n⚠ ${PG_SKIP_MESSAGE} (e.g. PUNCTUAL_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm test).\n`);
    return;
  }
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    throw new Error(`PUNCTUAL_TEST_DATABASE_URL is set but PostgreSQL does not answer: ${(err as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}
