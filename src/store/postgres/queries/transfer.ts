/**
 * Both ends of `punctual migrate-store` for PostgreSQL (see `TransferSource` and `TransferTarget`
 * in store/transfer/records.ts; what is read and written is in store/transfer/ends.ts). Each end
 * has its own connection (the URL's settings, `schema` parameter included), so a copy never goes
 * through a serving store's pool.
 *
 * Reading: one `REPEATABLE READ READ ONLY` transaction, a snapshot of the whole store; the order of
 * insertion of a listed table is its `seq` (an identity column). Writing: one transaction; rows are
 * inserted in the order given, so `seq` follows the source's order and the lists read alike.
 */
import pg from 'pg';
import { PASS_THROUGH } from '../../rows/jobs.js';
import type { TransferSource, TransferTarget } from '../../transfer/records.js';
import { transferSource, transferTarget, type Row, type TransferConnection } from '../../transfer/ends.js';
import { connectionConfig, toStoreError } from '../connection.js';

/** Runs `fn`, translating pg errors into the store's vocabulary. */
async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toStoreError(err);
  }
}

/** The end's view of `client`: values passed through, `$i` placeholders, errors as the store's. */
function connectionOf(client: pg.ClientBase): TransferConnection {
  return {
    codec: PASS_THROUGH,
    mark: (i) => `$${i}`,
    insertionOrder: 'seq',
    inIds: (column, ids) => ({ sql: `${column} = ANY($1::text[])`, value: ids }),
    all: (text, values = []) => guard(async () => (await client.query<Row>(text, values)).rows),
  };
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client(connectionConfig(url).config);
  client.on('error', () => undefined); // a lost connection fails the next query, which reports it
  try {
    await client.connect();
    return client;
  } catch (err) {
    await client.end().catch(() => undefined);
    throw toStoreError(err);
  }
}

/**
 * Opens the reading end on the migrated PostgreSQL store at `url`: a `REPEATABLE READ READ ONLY`
 * snapshot held until `close()`.
 * @throws StoreUnavailableError when the database cannot be reached
 */
export async function openPostgresTransferSource(url: string): Promise<TransferSource> {
  const client = await connect(url);
  await guard(() => client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'));
  let closed = false;
  return transferSource(connectionOf(client), async () => {
    if (closed) return;
    closed = true;
    await client.query('ROLLBACK').catch(() => undefined);
    await client.end().catch(() => undefined);
  });
}

/**
 * Opens the writing end on the migrated PostgreSQL store at `url`: one transaction, committed by
 * `commit()`, rolled back by `close()` otherwise.
 * @throws StoreUnavailableError when the database cannot be reached
 */
export async function openPostgresTransferTarget(url: string): Promise<TransferTarget> {
  const client = await connect(url);
  await guard(() => client.query('BEGIN'));
  // A large copy may take longer than the serving store's statement timeout allows.
  await guard(() => client.query(`SET LOCAL statement_timeout = '30min'`));
  let committed = false;
  let closed = false;
  return transferTarget(connectionOf(client), {
    commit: async () => {
      await guard(() => client.query('COMMIT'));
      committed = true;
      // Statistics for the planner at once, rather than when autovacuum comes by (the list pages
      // walk their indexes when it knows the tables' sizes; see store/postgres/migrations/index.ts, version 2). Only
      // an optimisation: the copy is committed whatever happens here.
      await client
        .query('ANALYZE api_keys, settings, schedules, schedule_tags, cron_jobs, cron_job_tags, executions, execution_attempts')
        .catch(() => undefined);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      if (!committed) await client.query('ROLLBACK').catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  });
}
