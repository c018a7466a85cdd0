/**
 * PostgreSQL for tests: the server comes from `PUNCTUAL_TEST_DATABASE_URL`
 * (e.g. `postgres://postgres@127.0.0.1:5432/test`); each test file, or each test, works in a
 * schema of its own, created empty and dropped at the end, so runs never see each other's rows.
 *
 * Suites that need PostgreSQL skip when the variable is unset: `describe.skipIf(!pgTestUrl())`.
 * The one line saying so is printed once per run by test/support/global-setup.ts.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** Said (once per run, by test/support/global-setup.ts) when the PostgreSQL suites are skipped. */
export const PG_SKIP_MESSAGE = 'PostgreSQL suites skipped: PUNCTUAL_TEST_DATABASE_URL is not set';

/** `PUNCTUAL_TEST_DATABASE_URL`, or null when unset or empty. */
export function pgTestUrl(): string | null {
  const url = process.env.PUNCTUAL_TEST_DATABASE_URL?.trim();
  return url ? url : null;
}

/** A schema made for one test (file), and how to drop it. */
export interface TestSchema {
  /** `url` with `schema=<the new schema>`: a `DATABASE_URL` for the store under test. */
  url: string;
  /** The schema's name (`punctual_test_<random>`). */
  schema: string;
  /** Drops the schema and everything in it. Idempotent; never throws. */
  drop(): Promise<void>;
}

/**
 * Creates an empty schema `punctual_test_<random>` on the server at `url` and returns a URL that
 * selects it (the store's `schema` parameter; see src/store/postgres/connection.ts).
 */
export async function createTestSchema(url: string): Promise<TestSchema> {
  const schema = `punctual_test_${randomBytes(6).toString('hex')}`;
  await adminQuery(url, `CREATE SCHEMA "${schema}"`);
  const u = new URL(url);
  u.searchParams.set('schema', schema);
  let dropped = false;
  return {
    url: u.toString(),
    schema,
    async drop() {
      if (dropped) return;
      dropped = true;
      await adminQuery(url, `DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch((err: unknown) => {
        console.warn(`could not drop test schema ${schema}: ${(err as Error).message}`);
      });
    },
  };
}

/** Runs one statement on a short-lived connection to `url` (without a `schema` parameter). */
export async function adminQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const u = new URL(url);
  u.searchParams.delete('schema');
  const client = new pg.Client({ connectionString: u.toString(), connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}
