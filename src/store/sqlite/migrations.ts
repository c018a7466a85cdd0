import type { Db } from './connection.js';

/** One numbered schema change. Versions start at 1, increase by 1, and are never edited once released. */
export interface Migration {
  version: number;
  /** Statements run in the migration's transaction. */
  sql: string;
}

/**
 * The SQLite schema, as numbered migrations. Conventions:
 * - instants are INTEGER epoch ms (UTC); ids are UUID text; JSON is TEXT;
 * - STRICT tables, so a wrong type is an error and not a silent conversion;
 * - the dispatcher's hot queries each have a partial index holding only the rows they look at
 *   (pending schedules, active cron jobs, running executions), so "earliest due" is one
 *   descent of a small B-tree whatever the number of finished rows.
 *
 * Statuses of schedules and executions have no CHECK: issue #3 adds states (`Retrying`, skipped
 * occurrences), and SQLite cannot alter a CHECK without rebuilding the table.
 *
 * Room left for issue #3: an `execution_attempts` table (FK → executions.id), `next_attempt_at`
 * on executions with its own partial index for `Retrying`; listing a job's executions newest
 * first is served by the UNIQUE (job_type, job_id, scheduled_for) index read backwards.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
CREATE TABLE api_keys (
  id         TEXT    NOT NULL PRIMARY KEY,
  name       TEXT    NOT NULL,
  status     TEXT    NOT NULL CHECK (status IN ('Enabled', 'Disabled')),
  digest     TEXT    NOT NULL UNIQUE,   -- SHA-256 of the token, lowercase hex
  created_at INTEGER NOT NULL,
  last_used  INTEGER
) STRICT;

CREATE TABLE schedules (
  id           TEXT    NOT NULL PRIMARY KEY,
  name         TEXT    NOT NULL,
  scheduled_at INTEGER NOT NULL,
  status       TEXT    NOT NULL,          -- Pending | Running | Succeeded | Failed
  endpoint     TEXT    NOT NULL,
  data         TEXT    NOT NULL DEFAULT '{}',
  tags         TEXT    NOT NULL DEFAULT '[]',
  created_at   INTEGER NOT NULL
) STRICT;
CREATE INDEX schedules_pending_due ON schedules (scheduled_at) WHERE status = 'Pending';

CREATE TABLE cron_jobs (
  id              TEXT    NOT NULL PRIMARY KEY,
  expression      TEXT    NOT NULL,
  name            TEXT,
  timezone        TEXT,
  status          TEXT    NOT NULL CHECK (status IN ('Active', 'Paused')),
  endpoint        TEXT    NOT NULL,
  data            TEXT,
  invocations     INTEGER NOT NULL DEFAULT 0,
  next_invocation INTEGER NOT NULL,
  created_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX cron_jobs_active_due ON cron_jobs (next_invocation) WHERE status = 'Active';

-- One row per occurrence of a job. No foreign key to the job: executions outlive a deleted job
-- as history, and job_id points into one of two tables.
CREATE TABLE executions (
  id                 TEXT    NOT NULL PRIMARY KEY,
  job_type           TEXT    NOT NULL CHECK (job_type IN ('schedule', 'cron')),
  job_id             TEXT    NOT NULL,
  scheduled_for      INTEGER NOT NULL,
  status             TEXT    NOT NULL,    -- Running | Succeeded | Failed (issue #3: more)
  attempt            INTEGER NOT NULL,
  created_at         INTEGER NOT NULL,
  started_at         INTEGER,             -- first attempt's start
  finished_at        INTEGER,
  lease_owner        TEXT,
  lease_expires_at   INTEGER,
  last_status_code   INTEGER,
  last_error         TEXT,
  last_duration_ms   INTEGER,
  last_response_body TEXT,
  UNIQUE (job_type, job_id, scheduled_for),
  CHECK (status <> 'Running' OR (lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL))
) STRICT;
CREATE INDEX executions_running_lease ON executions (lease_expires_at) WHERE status = 'Running';
`,
  },
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
