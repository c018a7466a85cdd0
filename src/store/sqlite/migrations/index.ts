import type { Db } from '../connection.js';
import type { Migration } from './migration.js';
export type { Migration } from './migration.js';
import { MIGRATION as V1 } from './001-schema.js';
import { MIGRATION as V2 } from './002-delivery-and-history.js';
import { MIGRATION as V3 } from './003-list-indexes.js';
import { MIGRATION as V4 } from './004-due-since.js';
import { MIGRATION as V5 } from './005-call-requests.js';
import { MIGRATION as V6 } from './006-idempotency.js';
import { MIGRATION as V7 } from './007-nodes.js';
import { MIGRATION as V8 } from './008-job-secrets.js';
import { MIGRATION as V9 } from './009-retry-steps.js';
import { MIGRATION as V10 } from './010-success-and-auto-pause.js';
import { MIGRATION as V11 } from './011-executions-across-jobs.js';
import { MIGRATION as V12 } from './012-notifications.js';
import { MIGRATION as V13 } from './013-trace-context.js';
import { MIGRATION as V14 } from './014-cron-life.js';
import { MIGRATION as V15 } from './015-cron-tags.js';
import { MIGRATION as V16 } from './016-backfill.js';
import { MIGRATION as V17 } from './017-key-scopes.js';
import { MIGRATION as V18 } from './018-job-keys.js';
import { MIGRATION as V19 } from './019-audit.js';
import { MIGRATION as V20 } from './020-flow-control.js';
import { MIGRATION as V21 } from './021-flow-control-calls.js';

/**
 * The SQLite schema, as numbered migrations. Conventions:
 * - instants are INTEGER epoch ms (UTC); ids are UUID text; JSON is TEXT;
 * - STRICT tables, so a wrong type is an error and not a silent conversion;
 * - the dispatcher's hot queries each have a partial index holding only the rows they look at
 *   (pending schedules, active cron jobs, running executions), so "earliest due" is one
 *   descent of a small B-tree whatever the number of finished rows.
 *
 * Statuses of schedules and executions have no CHECK: later versions may add states, and SQLite
 * cannot alter a CHECK without rebuilding the table.
 *
 * Migrations 2 (executions, retries, cron policies), 3 (paged, filtered lists) and 4 (missed
 * and skipped occurrences) are described above their SQL.
 * Rebuilding a table that others reference (`executions`, referenced by `execution_attempts`)
 * needs care with `foreign_keys = ON`, which cannot be switched off inside the migration's
 * transaction: DROP TABLE of a referenced table runs an implicit DELETE that the foreign key
 * refuses. Do as migration 2 does (rename the old table away first, create the new one under the
 * final name, copy, drop the old one), or set `PRAGMA defer_foreign_keys = ON` in the migration.
 */
export const MIGRATIONS: readonly Migration[] = [
  V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11, V12, V13, V14, V15, V16, V17, V18, V19, V20, V21,
];

/** Highest schema version this code knows. */
export const LATEST_VERSION = MIGRATIONS.reduce((v, m) => Math.max(v, m.version), 0);

/**
 * Applies the migrations the database lacks, in one IMMEDIATE transaction (so two processes
 * migrating at once serialise and the second finds nothing to do), recording each in
 * `schema_migrations`. Idempotent.
 * @throws Error when the database was migrated by a newer version of Punctual.
 */
export function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): void {
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    INTEGER NOT NULL PRIMARY KEY,
      applied_at INTEGER NOT NULL
    ) STRICT`);
    const current = db.prepare<[], { v: number | null }>('SELECT max(version) AS v FROM schema_migrations').get()?.v ?? 0;
    const latest = migrations.reduce((v, m) => Math.max(v, m.version), 0);
    if (current > latest) {
      throw new Error(
        `The database schema is at version ${current}, newer than this version of Punctual knows ` +
          `(${latest}). Upgrade Punctual, or use a database made by this version.`,
      );
    }
    const record = db.prepare<[number, number]>('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)');
    for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
      if (m.version <= current) continue;
      db.exec(m.sql);
      record.run(m.version, Date.now());
    }
  }).immediate();
}
