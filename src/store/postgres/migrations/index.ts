import type pg from 'pg';
import { lockKeySql } from '../connection.js';
import { LATER_MIGRATIONS } from './later.js';

/** One numbered schema change. Versions start at 1, increase by 1, and are never edited once released. */
export interface Migration {
  version: number;
  /** Statements run in the migration's transaction (PostgreSQL DDL is transactional). */
  sql: string;
}

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
  {
    version: 1,
    sql: `
CREATE TABLE api_keys (
  id         text COLLATE "C" NOT NULL PRIMARY KEY,
  seq        bigint GENERATED ALWAYS AS IDENTITY,
  name       text   NOT NULL,
  status     text   NOT NULL CHECK (status IN ('Enabled', 'Disabled')),
  digest     text COLLATE "C" NOT NULL UNIQUE,   -- SHA-256 of the token, lowercase hex
  created_at bigint NOT NULL,
  last_used  bigint
);

CREATE TABLE schedules (
  id                     text COLLATE "C" NOT NULL PRIMARY KEY,
  seq                    bigint  GENERATED ALWAYS AS IDENTITY,
  name                   text    NOT NULL,
  scheduled_at           bigint  NOT NULL,
  status                 text    NOT NULL CHECK (status IN ('Pending', 'Running', 'Succeeded', 'Failed')),
  endpoint               text    NOT NULL,
  data                   json    NOT NULL DEFAULT '{}',
  tags                   json    NOT NULL DEFAULT '[]',
  created_at             bigint  NOT NULL,
  retry_max_attempts     integer NOT NULL DEFAULT 5,
  retry_initial_delay_ms bigint  NOT NULL DEFAULT 1000,
  retry_max_delay_ms     bigint  NOT NULL DEFAULT 3600000,
  timeout_ms             bigint  NOT NULL DEFAULT 30000
);
CREATE INDEX schedules_pending_due ON schedules (scheduled_at) WHERE status = 'Pending';

CREATE TABLE cron_jobs (
  id                     text COLLATE "C" NOT NULL PRIMARY KEY,
  seq                    bigint  GENERATED ALWAYS AS IDENTITY,
  expression             text    NOT NULL,
  name                   text,
  timezone               text,
  status                 text    NOT NULL CHECK (status IN ('Active', 'Paused')),
  endpoint               text    NOT NULL,
  data                   json,
  invocations            bigint  NOT NULL DEFAULT 0,
  next_invocation        bigint  NOT NULL,
  created_at             bigint  NOT NULL,
  retry_max_attempts     integer NOT NULL DEFAULT 5,
  retry_initial_delay_ms bigint  NOT NULL DEFAULT 1000,
  retry_max_delay_ms     bigint  NOT NULL DEFAULT 3600000,
  timeout_ms             bigint  NOT NULL DEFAULT 30000,
  misfire                text    NOT NULL DEFAULT 'once'  CHECK (misfire IN ('skip', 'once', 'all')),
  overlap                text    NOT NULL DEFAULT 'allow' CHECK (overlap IN ('allow', 'skip')),
  last_execution_id      text COLLATE "C"   -- the newest execution; no foreign key (read with LEFT JOIN)
);
CREATE INDEX cron_jobs_active_due ON cron_jobs (next_invocation) WHERE status = 'Active';

CREATE TABLE executions (
  id               text COLLATE "C" NOT NULL PRIMARY KEY,
  job_type         text    NOT NULL CHECK (job_type IN ('schedule', 'cron')),
  job_id           text COLLATE "C" NOT NULL,
  scheduled_for    bigint  NOT NULL,            -- the occurrence; for a trigger, its instant
  triggered        boolean NOT NULL DEFAULT false,
  status           text    NOT NULL CHECK (status IN ('Pending', 'Running', 'Retrying', 'Succeeded', 'Failed', 'Skipped')),
  attempt          integer NOT NULL,            -- number of the latest attempt claimed; 0 before the first
  created_at       bigint  NOT NULL,
  started_at       bigint,                      -- first attempt's start
  finished_at      bigint,
  next_attempt_at  bigint,                      -- when a Pending or Retrying execution is due
  lease_owner      text,
  lease_expires_at bigint,
  error            text,                        -- why it ended without an attempt ('job deleted')
  CHECK (status <> 'Running' OR (lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL)),
  CHECK (status NOT IN ('Pending', 'Retrying') OR next_attempt_at IS NOT NULL),
  CHECK (status IN ('Pending', 'Running', 'Retrying') OR finished_at IS NOT NULL)
);
CREATE UNIQUE INDEX executions_occurrence ON executions (job_type, job_id, scheduled_for) WHERE NOT triggered;
CREATE INDEX executions_by_job ON executions (job_type, job_id, scheduled_for, id);
CREATE INDEX executions_running_lease ON executions (lease_expires_at) WHERE status = 'Running';
CREATE INDEX executions_waiting ON executions (next_attempt_at) WHERE status IN ('Pending', 'Retrying');
CREATE INDEX executions_in_progress ON executions (job_id) WHERE job_type = 'cron' AND status IN ('Pending', 'Running', 'Retrying');
CREATE INDEX executions_finished ON executions (finished_at) WHERE finished_at IS NOT NULL;

-- One row per attempt whose outcome was recorded. number = the attempt claimed (1-based).
CREATE TABLE execution_attempts (
  execution_id  text COLLATE "C" NOT NULL REFERENCES executions (id),
  number        integer NOT NULL,
  started_at    bigint  NOT NULL,
  duration_ms   bigint  NOT NULL,
  status_code   integer,
  error         text,
  response_body text,
  PRIMARY KEY (execution_id, number)
);

CREATE TABLE settings (
  key   text COLLATE "C" NOT NULL PRIMARY KEY,
  value text NOT NULL
);
`,
  },
  /*
   * Lists that scale, as SQLite's migration 3 (see there): indexes in list order
   * (created_at, id) for the whole lists and, partial, for each status (a status index leading
   * with `status` would compete with the claim's partial indexes for its `status = 'Pending'`),
   * and `schedule_tags` (tag, created_at, schedule_id) for one tag, kept in step with `schedules.tags` by a trigger, so `migrate-store`'s
   * target and any other writer keep it right. A GIN index on `tags` would find a tag's schedules
   * but not in list order: a page of a common tag would sort all of them. `json` has no equality
   * operator, hence the comparison as text in the update trigger's WHEN (a change in spacing only
   * rewrites the same tag rows).
   *
   * PostgreSQL chooses the ordered index walks of paging.ts from its statistics. With none (a
   * table never analysed, right after a bulk load) it may estimate a tag or status as rare and
   * sort all its rows instead, which costs in proportion to the rows matching. Autovacuum keeps
   * the statistics (it analyses a table after 10% of it changed); this migration and
   * `migrate-store` analyse the tables they fill.
   */
  {
    version: 2,
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
  tag         text COLLATE "C" NOT NULL,
  created_at  bigint NOT NULL,
  schedule_id text COLLATE "C" NOT NULL,
  PRIMARY KEY (tag, created_at, schedule_id)
);

INSERT INTO schedule_tags (tag, created_at, schedule_id)
SELECT DISTINCT t.tag, s.created_at, s.id FROM schedules s, json_array_elements_text(s.tags) AS t(tag);

CREATE FUNCTION schedule_tags_sync() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    DELETE FROM schedule_tags
     WHERE tag IN (SELECT json_array_elements_text(OLD.tags)) AND created_at = OLD.created_at AND schedule_id = OLD.id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO schedule_tags (tag, created_at, schedule_id)
    SELECT DISTINCT t.tag, NEW.created_at, NEW.id FROM json_array_elements_text(NEW.tags) AS t(tag);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER schedule_tags_insert AFTER INSERT ON schedules
  FOR EACH ROW EXECUTE FUNCTION schedule_tags_sync();
CREATE TRIGGER schedule_tags_update AFTER UPDATE OF tags ON schedules
  FOR EACH ROW WHEN (OLD.tags::text IS DISTINCT FROM NEW.tags::text) EXECUTE FUNCTION schedule_tags_sync();
CREATE TRIGGER schedule_tags_delete AFTER DELETE ON schedules
  FOR EACH ROW EXECUTE FUNCTION schedule_tags_sync();

-- The page statements walk these indexes only when the planner knows how many rows they hold
-- (without statistics it may sort instead; see paging.ts): give it statistics now.
ANALYZE schedules, schedule_tags, cron_jobs;
`,
  },
  /*
   * When an occurrence became due to the service: a schedule stored (or moved) with a
   * `scheduled_at` already past is due from that moment, not from its instant
   * (docs/interface.md, "Past instants"). `schedules.due_at` is the later of the two, NULL
   * meaning `scheduled_at` (rows written before, or seeded by SQL); `executions.due_at` copies it
   * when a claim starts a schedule, NULL meaning `scheduled_for`.
   *
   * Catch-up executions say what they stand for (docs/cron.md, "Missed occurrences
   * and overlap"): `missed_*` NULL for an execution that stands for itself, all set for one made
   * by misfire `once` for two or more occurrences; `cron_jobs.skipped_occurrences` counts the
   * occurrences misfire `skip` dropped. Written only by the claim; existing rows take NULL and 0
   * (ADD COLUMN with a constant default rewrites no table).
   */
  {
    version: 3,
    sql: `
ALTER TABLE schedules ADD COLUMN due_at bigint;
ALTER TABLE executions ADD COLUMN due_at bigint;
ALTER TABLE executions ADD COLUMN missed_count bigint, ADD COLUMN missed_first bigint,
  ADD COLUMN missed_last bigint, ADD COLUMN missed_capped boolean;
ALTER TABLE cron_jobs ADD COLUMN skipped_occurrences bigint NOT NULL DEFAULT 0;
`,
  },
  /*
   * The request of a job's calls (docs/calls.md, "Method, headers and body"): `method`, `headers`
   * (a JSON object), `body` (text sent as it is, NULL: the JSON of `data`), and for target
   * authentication `auth` (its public part) and `secrets` (sealed texts). Existing jobs keep
   * their calls: POST, no headers, no body, no authentication. No CHECK on `method`, as in
   * SQLite: the service checks it. Each attempt records the method and URL it used; older
   * attempts were POSTs to a URL not kept (NULL). Constant defaults: no table is rewritten.
   */
  {
    version: 4,
    sql: `
ALTER TABLE schedules ADD COLUMN method text NOT NULL DEFAULT 'POST', ADD COLUMN headers json NOT NULL DEFAULT '{}',
  ADD COLUMN body text, ADD COLUMN auth json, ADD COLUMN secrets json;
ALTER TABLE cron_jobs ADD COLUMN method text NOT NULL DEFAULT 'POST', ADD COLUMN headers json NOT NULL DEFAULT '{}',
  ADD COLUMN body text, ADD COLUMN auth json, ADD COLUMN secrets json;
ALTER TABLE execution_attempts ADD COLUMN method text NOT NULL DEFAULT 'POST', ADD COLUMN url text;
`,
  },
  // Idempotency records of the API, as SQLite's migration 6 (src/store/rules/idempotency.ts).
  {
    version: 5,
    sql: `
CREATE TABLE idempotency_keys (
  api_key_id      text COLLATE "C" NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  method          text COLLATE "C" NOT NULL,
  path            text COLLATE "C" NOT NULL,
  idem_key        text COLLATE "C" NOT NULL,
  fingerprint     text    NOT NULL,
  state           text    NOT NULL CHECK (state IN ('running', 'done')),
  started_at      bigint  NOT NULL,
  response_status integer,
  response_body   text,
  PRIMARY KEY (api_key_id, method, path, idem_key)
);
CREATE INDEX idempotency_keys_started ON idempotency_keys (started_at);
`,
  },
  /*
   * Node liveness (docs/multinode.md, "Node liveness"): a row per serving node, heartbeated on the
   * database's clock; a node whose heartbeat is too old is removed and its leases released at once
   * (found through executions_running_lease: the Running executions, as many as the calls in
   * flight, so no index of their owner is kept on the hot path). Not copied by `migrate-store`
   * (it describes running processes).
   */
  {
    version: 6,
    sql: `
CREATE TABLE nodes (
  node_id      text NOT NULL PRIMARY KEY,
  role         text NOT NULL,
  started_at   bigint NOT NULL,
  heartbeat_at bigint NOT NULL
);
`,
  },
  // The jobs that carry sealed secrets, by id, as SQLite's migration 8 (`Store.secretsNewest`, `Store.secretsPage`).
  {
    version: 7,
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
