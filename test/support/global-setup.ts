import pg from 'pg';
import { PG_SKIP_MESSAGE } from './pg.js';

/**
 * Vitest global setup (vitest.config.ts): decides once per run whether the PostgreSQL suites
 * run.
 * - `PUNCTUAL_TEST_DATABASE_URL` unset: prints ONE line saying the PostgreSQL suites are skipped;
 *   with `PUNCTUAL_TEST_REQUIRE_POSTGRES=1` (set by .ci/run) the run fails instead.
 * - set: checks that the server answers, and fails the run at once with the reason when it does
 *   not (rather than every PostgreSQL test failing on its own).
 */
export default async function setup(): Promise<void> {
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
