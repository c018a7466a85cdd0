import type pg from 'pg';
import { lockKeySql } from '../connection.js';
import type { Migration } from './migration.js';
export type { Migration } from './migration.js';
import { MIGRATION as V1 } from './001-schema.js';
import { MIGRATION as V2 } from './002-list-indexes.js';
import { MIGRATION as V3 } from './003-due-since.js';
import { MIGRATION as V4 } from './004-call-requests.js';
import { MIGRATION as V5 } from './005-idempotency.js';
import { MIGRATION as V6 } from './006-nodes.js';
import { MIGRATION as V7 } from './007-job-secrets.js';
import { MIGRATION as V8 } from './008-retry-steps.js';
import { MIGRATION as V9 } from './009-success-and-auto-pause.js';
import { MIGRATION as V10 } from './010-executions-across-jobs.js';
import { MIGRATION as V11 } from './011-notifications.js';
import { MIGRATION as V12 } from './012-trace-context.js';
import { MIGRATION as V13 } from './013-cron-life.js';
import { MIGRATION as V14 } from './014-cron-tags.js';
import { MIGRATION as V15 } from './015-backfill.js';
import { MIGRATION as V16 } from './016-key-scopes.js';
import { MIGRATION as V17 } from './017-job-keys.js';
import { MIGRATION as V18 } from './018-audit.js';
import { MIGRATION as V19 } from './019-flow-control.js';
import { MIGRATION as V20 } from './020-flow-control-calls.js';

/**
 * The PostgreSQL schema, as numbered migrations of its own (the SQLite store has its own; the two
 * need not share version numbers). Migration 1 reaches what SQLite's migrations 1 + 2 reach, with
 * the same tables, columns, meanings and indexes, so one domain model and one conformance suite
 * serve both. Conventions:
 *
 * - Instants are `bigint` epoch ms (UTC), not `timestamptz`: the domain model, the cron engine and
 *   the SQLite store all speak epoch ms, and the claim compares them with the database clock
 *   converted once (`floor(extract(epoch FROM clock_timestamp()) * 1000)`), never per row.
 * - Ids and other keys are `text COLLATE "C"`: byte order, as SQLite compares them, whatever the
 *   database's collation. The execution list and the "newest execution" pointer order ties by id,
 *   and keyset paging compares ids, so a locale collation would give another order than SQLite.
 * - `data` and `tags` are `json`, not `jsonb` (a deliberate choice): `data` is the body Punctual
 *   sends, and `json` keeps the text as given, like SQLite's TEXT — key order, duplicate keys and
 *   the escapes `\u0000` and lone surrogates, which `jsonb` reorders, drops or rejects. Nothing
 *   queries inside these columns; a later migration can add a `jsonb` expression index for tags.
 * - `seq` (an identity column) on api_keys, schedules and cron_jobs orders rows created in the
 *   same millisecond by insertion, as SQLite's rowid does for the lists ("oldest first").
 * - Statuses have CHECK constraints (PostgreSQL, unlike SQLite, can replace a CHECK without
 *   rebuilding the table, so a later state costs one ALTER).
 *
 * Indexes: as in SQLite, each hot query of the dispatcher reads a partial index holding only the
 * rows it looks at, so "earliest due" is one descent whatever the number of finished rows:
 *   schedules_pending_due     Pending schedules by scheduled_at        (claim source 1, nextDueAt)
 *   cron_jobs_active_due      Active cron jobs by next_invocation      (claim source 2, nextDueAt)
 *   executions_waiting        Pending/Retrying executions by next attempt (claim source 3, nextDueAt)
 *   executions_running_lease  Running executions by lease expiry       (claim source 4, nextDueAt)
 *   executions_in_progress    cron executions Pending/Running/Retrying by job (overlap 'skip')
 *   executions_finished       finished executions by finished_at       (pruning)
 *   executions_by_job         a job's executions by (scheduled_for, id) (the list, read backwards)
 *   executions_occurrence     UNIQUE (job_type, job_id, scheduled_for) WHERE NOT triggered: one
 *                             execution per occurrence, the claim's ON CONFLICT target
 *
 * `executions` has no foreign key to its job (executions outlive a deleted job as history, and
 * job_id points into one of two tables); `execution_attempts` references its execution.
 * `cron_jobs.last_execution_id` names the job's newest execution (see SQLite's migration 2).
 */
export const MIGRATIONS: readonly Migration[] = [
  V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11, V12, V13, V14, V15, V16, V17, V18, V19, V20,
];

/** Highest schema version this code knows. */
export const LATEST_VERSION = MIGRATIONS.reduce((v, m) => Math.max(v, m.version), 0);

/**
 * Applies the migrations the schema lacks, recording each in `schema_migrations`. Idempotent.
 *
 * Several nodes starting at once: everything runs in ONE transaction that first takes
 * `pg_advisory_xact_lock` on a key of this schema (see {@link lockKeySql}), so the migrations of
 * concurrent starters run one after the other and the later ones find nothing to do. The
 * transaction-scoped form of the advisory lock is released by COMMIT or ROLLBACK, also when the
 * connection drops, so a node that dies mid-migration never leaves the lock held (the session
 * form, `pg_advisory_lock`, would need an explicit unlock on the same connection). PostgreSQL DDL
 * is transactional: a failed migration leaves the schema as it was.
 *
 * `statement_timeout` and `lock_timeout` are raised for this transaction only: a later migration
 * may rewrite a large table, and a node waiting for another's migration should wait for it.
 *
 * @param createSchema a schema to create first when missing (the `schema` URL parameter), or null
 * @throws Error when the schema was migrated by a newer version of Punctual.
 */
export async function migrate(
  client: pg.ClientBase,
  scope: string,
  createSchema: string | null,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query(`SET LOCAL statement_timeout = '10min'`);
    await client.query(`SET LOCAL lock_timeout = '10min'`);
    await client.query(`SELECT pg_advisory_xact_lock(${lockKeySql('migrate')})`, [scope]);
    if (createSchema !== null) await client.query(`CREATE SCHEMA IF NOT EXISTS "${createSchema}"`);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    integer NOT NULL PRIMARY KEY,
      applied_at bigint  NOT NULL
    )`);
    const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_migrations');
    const current = rows[0]?.v ?? 0;
    const latest = migrations.reduce((v, m) => Math.max(v, m.version), 0);
    if (current > latest) {
      throw new Error(
        `The database schema is at version ${current}, newer than this version of Punctual knows ` +
          `(${latest}). Upgrade Punctual, or use a database made by this version.`,
      );
    }
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (m.version <= current) continue;
      await client.query(m.sql);
      await client.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [m.version, Date.now()]);
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
