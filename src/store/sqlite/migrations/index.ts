import type { Db } from '../connection.js';
import { LATER_MIGRATIONS } from './later.js';

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
  status             TEXT    NOT NULL,    -- Running | Succeeded | Failed (later migrations add more)
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
  /*
   * Delivery settings on both kinds of job (existing rows take the defaults of docs/calls.md);
   * cron policies; an execution history with one row per attempt; a settings table.
   *
   * `cron_jobs.last_execution_id` points at the job's newest execution (greatest scheduled_for,
   * then id, the first row of its execution list), so `lastInvocation`/`lastStatus` are a primary-
   * key join at read time. Only the claim and a trigger, which create executions and write the
   * job row anyway, move the pointer; recording an outcome (the hot path) never touches cron_jobs.
   * Columns copied into cron_jobs would have to follow every status change of the execution.
   *
   * `executions` is rebuilt, because its UNIQUE (job_type, job_id, scheduled_for) is a table
   * constraint (an automatic index SQLite cannot drop) and must now exclude triggered executions:
   * two triggers in the same millisecond are two executions. The uniqueness of occurrences becomes
   * a partial unique index. The old `last_*` columns of the one recorded attempt move to
   * `execution_attempts`; `error` keeps what ended an execution without an attempt of its own
   * ('job deleted'). `started_at` is the first attempt's start: in migration 1 it was the start of
   * the attempt that *finished*, which after a crash is not the first; an execution was created
   * when its first attempt was claimed, so `created_at` is the best value for those rows.
   *
   * Indexes, each for one query (see claim.ts and executions.ts):
   *   executions_occurrence   one execution per occurrence (the claim's ON CONFLICT target)
   *   executions_by_job       a job's executions newest first, keyset-paged (read backwards)
   *   executions_running_lease  expired leases (claim source 4, nextDueAt)
   *   executions_waiting      Pending/Retrying executions by next attempt (claim source 3)
   *   executions_in_progress  "does this cron job have an execution in progress?" (overlap:
   *                           skip). Cron executions only: a schedule never asks, and keeping
   *                           schedules' executions out saves a B-tree insert and delete per
   *                           execution on the burst path (measured: ~4 µs per claim, ~3 µs
   *                           per outcome, 100,000 executions, WAL + synchronous FULL).
   *   executions_finished     finished executions by age (pruning)
   */
  {
    version: 2,
    sql: `
ALTER TABLE schedules ADD COLUMN retry_max_attempts     INTEGER NOT NULL DEFAULT 5;
ALTER TABLE schedules ADD COLUMN retry_initial_delay_ms INTEGER NOT NULL DEFAULT 1000;
ALTER TABLE schedules ADD COLUMN retry_max_delay_ms     INTEGER NOT NULL DEFAULT 3600000;
ALTER TABLE schedules ADD COLUMN timeout_ms             INTEGER NOT NULL DEFAULT 30000;

ALTER TABLE cron_jobs ADD COLUMN retry_max_attempts     INTEGER NOT NULL DEFAULT 5;
ALTER TABLE cron_jobs ADD COLUMN retry_initial_delay_ms INTEGER NOT NULL DEFAULT 1000;
ALTER TABLE cron_jobs ADD COLUMN retry_max_delay_ms     INTEGER NOT NULL DEFAULT 3600000;
ALTER TABLE cron_jobs ADD COLUMN timeout_ms             INTEGER NOT NULL DEFAULT 30000;
ALTER TABLE cron_jobs ADD COLUMN misfire  TEXT NOT NULL DEFAULT 'once'  CHECK (misfire IN ('skip', 'once', 'all'));
ALTER TABLE cron_jobs ADD COLUMN overlap  TEXT NOT NULL DEFAULT 'allow' CHECK (overlap IN ('allow', 'skip'));
-- The newest execution. No foreign key: read with LEFT JOIN; pruning never deletes the row it names.
ALTER TABLE cron_jobs ADD COLUMN last_execution_id TEXT;

ALTER TABLE executions RENAME TO executions_v1;

CREATE TABLE executions (
  id               TEXT    NOT NULL PRIMARY KEY,
  job_type         TEXT    NOT NULL CHECK (job_type IN ('schedule', 'cron')),
  job_id           TEXT    NOT NULL,
  scheduled_for    INTEGER NOT NULL,            -- the occurrence; for a trigger, its instant
  triggered        INTEGER NOT NULL DEFAULT 0 CHECK (triggered IN (0, 1)),
  status           TEXT    NOT NULL,            -- Pending | Running | Retrying | Succeeded | Failed | Skipped
  attempt          INTEGER NOT NULL,            -- number of the latest attempt claimed; 0 before the first
  created_at       INTEGER NOT NULL,
  started_at       INTEGER,                     -- first attempt's start
  finished_at      INTEGER,
  next_attempt_at  INTEGER,                     -- when a Pending or Retrying execution is due
  lease_owner      TEXT,
  lease_expires_at INTEGER,
  error            TEXT,                        -- why it ended without an attempt ('job deleted')
  CHECK (status <> 'Running' OR (lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL)),
  CHECK (status NOT IN ('Pending', 'Retrying') OR next_attempt_at IS NOT NULL),
  CHECK (status IN ('Pending', 'Running', 'Retrying') OR finished_at IS NOT NULL)
) STRICT;

INSERT INTO executions (id, job_type, job_id, scheduled_for, triggered, status, attempt, created_at,
                        started_at, finished_at, next_attempt_at, lease_owner, lease_expires_at, error)
SELECT id, job_type, job_id, scheduled_for, 0, status, attempt, created_at,
       CASE WHEN attempt = 1 AND started_at IS NOT NULL THEN started_at ELSE created_at END,
       finished_at, NULL, lease_owner, lease_expires_at,
       CASE WHEN started_at IS NULL THEN last_error END
  FROM executions_v1;

-- One row per attempt whose outcome was recorded. number = the attempt claimed (1-based).
CREATE TABLE execution_attempts (
  execution_id  TEXT    NOT NULL REFERENCES executions (id),
  number        INTEGER NOT NULL,
  started_at    INTEGER NOT NULL,
  duration_ms   INTEGER NOT NULL,
  status_code   INTEGER,
  error         TEXT,
  response_body TEXT,
  PRIMARY KEY (execution_id, number)
) STRICT;

-- Migration 1 set started_at only when recording an outcome: those rows had one recorded attempt.
INSERT INTO execution_attempts (execution_id, number, started_at, duration_ms, status_code, error, response_body)
SELECT id, attempt, started_at, coalesce(last_duration_ms, 0), last_status_code, last_error, last_response_body
  FROM executions_v1
 WHERE started_at IS NOT NULL;

DROP TABLE executions_v1;

CREATE UNIQUE INDEX executions_occurrence ON executions (job_type, job_id, scheduled_for) WHERE triggered = 0;
CREATE INDEX executions_by_job ON executions (job_type, job_id, scheduled_for, id);
CREATE INDEX executions_running_lease ON executions (lease_expires_at) WHERE status = 'Running';
CREATE INDEX executions_waiting ON executions (next_attempt_at) WHERE status IN ('Pending', 'Retrying');
CREATE INDEX executions_in_progress ON executions (job_id) WHERE job_type = 'cron' AND status IN ('Pending', 'Running', 'Retrying');
CREATE INDEX executions_finished ON executions (finished_at) WHERE finished_at IS NOT NULL;

UPDATE cron_jobs SET last_execution_id = (
  SELECT e.id FROM executions e
   WHERE e.job_type = 'cron' AND e.job_id = cron_jobs.id
   ORDER BY e.scheduled_for DESC, e.id DESC LIMIT 1);

CREATE TABLE settings (
  key   TEXT NOT NULL PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
`,
  },
  /*
   * Lists that scale. `GET /schedules` and `GET /cron` are keyset-paged in list order
   * (created_at, then id) and filter by status, tags and name; each page must cost the same
   * whatever the number of jobs. Indexes, each for one driver of a page scan (schedules.ts,
   * cron-jobs.ts):
   *   schedules_by_created, cron_jobs_by_created   the whole list
   *   <table>_<status>_by_created                  one status: a partial index per status, so
   *                                                a page of one status walks only its rows (a
   *                                                claim moves a schedule from one to the next:
   *                                                two B-tree writes per status change)
   *   schedule_tags                                one tag: a row per (tag, schedule), in list order
   *
   * Partial indexes per status rather than one on (status, created_at, id): without statistics
   * (Punctual never runs ANALYZE) SQLite's planner takes an index whose first column is
   * constrained by equality over the claim's partial indexes (schedules_pending_due,
   * cron_jobs_active_due), and the claim would then read every Pending schedule and sort them
   * (test/store/sqlite.test.ts, "query plans", checks both plans).
   *
   * `schedule_tags` is derived from `schedules.tags` (a JSON array) and kept in step by triggers,
   * so that every writer — the store, `migrate-store`'s target, the bench's direct seeding — keeps
   * it right without knowing of it. It carries `created_at` so that one tag's schedules come in
   * list order straight from its primary key; `created_at` and `id` of a schedule never change.
   * No rowid (WITHOUT ROWID): the primary key is the whole row. A schedule's other tags are
   * checked by primary-key lookups into the same table.
   */
  {
    version: 3,
    sql: `
CREATE INDEX schedules_by_created ON schedules (created_at, id);
CREATE INDEX schedules_pending_by_created ON schedules (created_at, id) WHERE status = 'Pending';
CREATE INDEX schedules_running_by_created ON schedules (created_at, id) WHERE status = 'Running';
CREATE INDEX schedules_succeeded_by_created ON schedules (created_at, id) WHERE status = 'Succeeded';
CREATE INDEX schedules_failed_by_created ON schedules (created_at, id) WHERE status = 'Failed';
CREATE INDEX cron_jobs_by_created ON cron_jobs (created_at, id);
CREATE INDEX cron_jobs_active_by_created ON cron_jobs (created_at, id) WHERE status = 'Active';
CREATE INDEX cron_jobs_paused_by_created ON cron_jobs (created_at, id) WHERE status = 'Paused';

CREATE TABLE schedule_tags (
  tag         TEXT    NOT NULL,
  created_at  INTEGER NOT NULL,
  schedule_id TEXT    NOT NULL,
  PRIMARY KEY (tag, created_at, schedule_id)
) STRICT, WITHOUT ROWID;

INSERT INTO schedule_tags (tag, created_at, schedule_id)
SELECT DISTINCT j.value, s.created_at, s.id FROM schedules s, json_each(s.tags) j;

CREATE TRIGGER schedule_tags_insert AFTER INSERT ON schedules BEGIN
  INSERT INTO schedule_tags (tag, created_at, schedule_id)
  SELECT DISTINCT value, NEW.created_at, NEW.id FROM json_each(NEW.tags);
END;

CREATE TRIGGER schedule_tags_update AFTER UPDATE OF tags ON schedules WHEN OLD.tags IS NOT NEW.tags BEGIN
  DELETE FROM schedule_tags
   WHERE tag IN (SELECT value FROM json_each(OLD.tags)) AND created_at = OLD.created_at AND schedule_id = OLD.id;
  INSERT INTO schedule_tags (tag, created_at, schedule_id)
  SELECT DISTINCT value, NEW.created_at, NEW.id FROM json_each(NEW.tags);
END;

CREATE TRIGGER schedule_tags_delete AFTER DELETE ON schedules BEGIN
  DELETE FROM schedule_tags
   WHERE tag IN (SELECT value FROM json_each(OLD.tags)) AND created_at = OLD.created_at AND schedule_id = OLD.id;
END;
`,
  },
  /*
   * When an occurrence became due to the service: a schedule stored (or moved) with a
   * `scheduled_at` already past is due from that moment, not from its instant
   * (docs/interface.md, "Past instants"). `schedules.due_at` is the later of the two, NULL
   * meaning `scheduled_at` (rows written before, or seeded by SQL); `executions.due_at` copies it
   * when a claim starts a schedule, NULL meaning `scheduled_for`.
   *
   * Catch-up executions say what they stand for (docs/cron.md, "Missed
   * occurrences and overlap"). `missed_*` are all NULL for an execution that stands for itself,
   * all set for one made by misfire `once` for two or more occurrences (`missed_capped` 0 or 1).
   * `cron_jobs.skipped_occurrences` counts the occurrences misfire `skip` dropped. Both are written
   * only by the claim; existing rows take NULL and 0.
   */
  {
    version: 4,
    sql: `
ALTER TABLE schedules ADD COLUMN due_at INTEGER;
ALTER TABLE executions ADD COLUMN due_at INTEGER;
ALTER TABLE executions ADD COLUMN missed_count INTEGER;
ALTER TABLE executions ADD COLUMN missed_first INTEGER;
ALTER TABLE executions ADD COLUMN missed_last INTEGER;
ALTER TABLE executions ADD COLUMN missed_capped INTEGER;
ALTER TABLE cron_jobs ADD COLUMN skipped_occurrences INTEGER NOT NULL DEFAULT 0;
`,
  },
  /*
   * The request of a job's calls (docs/calls.md, "Method, headers and body"): `method`, `headers`
   * (a JSON object), `body` (text sent as it is, NULL: the JSON of `data`), and for target
   * authentication `auth` (its public part, JSON) and `secrets` (sealed texts, JSON). Existing
   * jobs keep their calls: POST, no headers, no body, no authentication. No CHECK on `method`:
   * the service checks it, and a later method would otherwise rebuild the tables. Each attempt
   * records the method and URL it used; older attempts were POSTs to a URL not kept (NULL).
   */
  {
    version: 5,
    sql: `
ALTER TABLE schedules ADD COLUMN method  TEXT NOT NULL DEFAULT 'POST';
ALTER TABLE schedules ADD COLUMN headers TEXT NOT NULL DEFAULT '{}';
ALTER TABLE schedules ADD COLUMN body    TEXT;
ALTER TABLE schedules ADD COLUMN auth    TEXT;
ALTER TABLE schedules ADD COLUMN secrets TEXT;
ALTER TABLE cron_jobs ADD COLUMN method  TEXT NOT NULL DEFAULT 'POST';
ALTER TABLE cron_jobs ADD COLUMN headers TEXT NOT NULL DEFAULT '{}';
ALTER TABLE cron_jobs ADD COLUMN body    TEXT;
ALTER TABLE cron_jobs ADD COLUMN auth    TEXT;
ALTER TABLE cron_jobs ADD COLUMN secrets TEXT;
ALTER TABLE execution_attempts ADD COLUMN method TEXT NOT NULL DEFAULT 'POST';
ALTER TABLE execution_attempts ADD COLUMN url    TEXT;
`,
  },
  /*
   * Idempotency records of the API (docs/interface.md, "Idempotency-Key";
   * src/store/rules/idempotency.ts): one per API key, method, path and key, `running` until the
   * request's answer is kept (`done`, with its status and body). Deleted with their API key; pruned
   * by `started_at` after 24 h.
   */
  {
    version: 6,
    sql: `
CREATE TABLE idempotency_keys (
  api_key_id      TEXT    NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  method          TEXT    NOT NULL,
  path            TEXT    NOT NULL,
  idem_key        TEXT    NOT NULL,
  fingerprint     TEXT    NOT NULL,   -- SHA-256 of the JSON of the parsed body, lowercase hex
  state           TEXT    NOT NULL CHECK (state IN ('running', 'done')),
  started_at      INTEGER NOT NULL,
  response_status INTEGER,
  response_body   TEXT,
  PRIMARY KEY (api_key_id, method, path, idem_key)
) STRICT;
CREATE INDEX idempotency_keys_started ON idempotency_keys (started_at);
`,
  },
  /*
   * Node liveness (docs/multinode.md, "Node liveness"): a row per serving node, heartbeated; a
   * node whose heartbeat is too old is removed and its leases released. One node per SQLite file,
   * but its row is kept all the same: a restart after a crash hands the old node's leases back as
   * soon as its heartbeat is too old. Not copied by `migrate-store` (it describes running processes).
   */
  {
    version: 7,
    sql: `
CREATE TABLE nodes (
  node_id      TEXT NOT NULL PRIMARY KEY,
  role         TEXT NOT NULL,
  started_at   INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL
) STRICT;
`,
  },
  /*
   * The jobs that carry sealed secrets, by id (partial indexes: a job without secrets is not in
   * them). The start of `punctual serve` reads the newest of each table to check that its keys
   * open them (`Store.secretsNewest`, src/serve-store.ts), and `secrets rekey` walks them
   * (`Store.secretsPage`): both walk the index, never the table, however many jobs have none.
   */
  {
    version: 8,
    sql: `
CREATE INDEX schedules_with_secrets ON schedules (id) WHERE secrets IS NOT NULL;
CREATE INDEX cron_jobs_with_secrets ON cron_jobs (id) WHERE secrets IS NOT NULL;
`,
  },
  ...LATER_MIGRATIONS,
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
