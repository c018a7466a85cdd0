/**
 * Both ends of `punctual migrate-store` for the embedded store (see `TransferSource` and
 * `TransferTarget` in ../store.ts). Each end has its own connection to the file, so a copy never
 * goes through (or disturbs) a serving `SqliteStore`. Columns are copied as stored; JSON columns
 * are parsed, so the other end gets domain values.
 */
import type { Attempt, ExecutionStatus, JobType } from '../../domain/types.js';
import type {
  ApiKeyRecord,
  CronJobRecord,
  ExecutionRecord,
  ScheduleRecord,
  SettingRecord,
  TransferCounts,
  TransferKind,
  TransferRecords,
  TransferSource,
  TransferTarget,
} from '../store.js';
import { openConnection, toStoreError, type Db } from './connection.js';
import { nullableObjectFromColumn, objectFromColumn, stringsFromColumn } from './json.js';

/**
 * Table of each kind, and whether it is listed oldest first (`ORDER BY created_at, rowid`, as
 * api-keys.ts, schedules.ts and cron-jobs.ts list): those are read in that order, the others by
 * rowid. The cursor is `<created_at>:<rowid>` or `<rowid>`.
 */
const TABLES: Record<TransferKind, { table: string; listed: boolean }> = {
  apiKeys: { table: 'api_keys', listed: true },
  settings: { table: 'settings', listed: false },
  schedules: { table: 'schedules', listed: true },
  cronJobs: { table: 'cron_jobs', listed: true },
  executions: { table: 'executions', listed: false },
};

type Row = Record<string, unknown>;

const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

function counts(db: Db): TransferCounts {
  const out = {} as TransferCounts;
  for (const [kind, { table }] of Object.entries(TABLES) as [TransferKind, { table: string }][]) {
    out[kind] = num(db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${table}`).get()!.n);
  }
  return out;
}

/** Row → record, by kind (executions get their attempts afterwards). */
const FROM_ROW: { [K in TransferKind]: (r: Row) => TransferRecords[K] } = {
  apiKeys: (r): ApiKeyRecord => ({
    id: String(r.id),
    name: String(r.name),
    status: r.status as ApiKeyRecord['status'],
    digest: String(r.digest),
    createdAt: num(r.created_at),
    lastUsed: numOrNull(r.last_used),
  }),
  settings: (r): SettingRecord => ({ key: String(r.key), value: String(r.value) }),
  schedules: (r): ScheduleRecord => ({
    id: String(r.id),
    name: String(r.name),
    scheduledAt: num(r.scheduled_at),
    status: r.status as ScheduleRecord['status'],
    endpoint: String(r.endpoint),
    data: objectFromColumn(strOrNull(r.data)),
    tags: stringsFromColumn(strOrNull(r.tags)),
    createdAt: num(r.created_at),
    retry: {
      maxAttempts: num(r.retry_max_attempts),
      initialDelayMs: num(r.retry_initial_delay_ms),
      maxDelayMs: num(r.retry_max_delay_ms),
    },
    timeoutMs: num(r.timeout_ms),
  }),
  cronJobs: (r): CronJobRecord => ({
    id: String(r.id),
    expression: String(r.expression),
    name: strOrNull(r.name),
    timezone: strOrNull(r.timezone),
    status: r.status as CronJobRecord['status'],
    endpoint: String(r.endpoint),
    data: nullableObjectFromColumn(strOrNull(r.data)),
    invocations: num(r.invocations),
    nextInvocation: num(r.next_invocation),
    createdAt: num(r.created_at),
    retry: {
      maxAttempts: num(r.retry_max_attempts),
      initialDelayMs: num(r.retry_initial_delay_ms),
      maxDelayMs: num(r.retry_max_delay_ms),
    },
    timeoutMs: num(r.timeout_ms),
    misfire: r.misfire as CronJobRecord['misfire'],
    overlap: r.overlap as CronJobRecord['overlap'],
  }),
  executions: (r): ExecutionRecord => ({
    id: String(r.id),
    jobType: r.job_type as JobType,
    jobId: String(r.job_id),
    scheduledFor: num(r.scheduled_for),
    triggered: num(r.triggered) === 1,
    status: r.status as ExecutionStatus,
    attempt: num(r.attempt),
    createdAt: num(r.created_at),
    startedAt: numOrNull(r.started_at),
    finishedAt: numOrNull(r.finished_at),
    nextAttemptAt: numOrNull(r.next_attempt_at),
    leaseOwner: strOrNull(r.lease_owner),
    leaseExpiresAt: numOrNull(r.lease_expires_at),
    error: strOrNull(r.error),
    attempts: [],
  }),
};

/**
 * Opens the reading end on the migrated SQLite file at `path`: a read transaction (a snapshot
 * in WAL mode) held until `close()`.
 * @throws StoreUnavailableError when the file cannot be opened
 */
export function openSqliteTransferSource(path: string): TransferSource {
  const db = openConnection(path);
  db.exec('BEGIN');
  const attemptsOf = db.prepare<[string], Row>(
    `SELECT execution_id, number, started_at, duration_ms, status_code, error, response_body
       FROM execution_attempts WHERE execution_id IN (SELECT value FROM json_each(?))
      ORDER BY execution_id, number`,
  );
  const guard = <T>(fn: () => T): Promise<T> => {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(toStoreError(err));
    }
  };
  return {
    counts: () => guard(() => counts(db)),
    read: <K extends TransferKind>(kind: K, p: { cursor: string | null; limit: number }) =>
      guard(() => {
        const { table, listed } = TABLES[kind];
        const [a, b] = (p.cursor ?? '').split(':').map(Number);
        const rows = listed
          ? db
              .prepare<[number, number, number], Row>(
                `SELECT rowid AS _rowid, * FROM ${table} WHERE (created_at, rowid) > (?, ?) ORDER BY created_at, rowid LIMIT ?`,
              )
              .all(p.cursor === null ? Number.MIN_SAFE_INTEGER : a!, p.cursor === null ? 0 : b!, p.limit)
          : db
              .prepare<[number, number], Row>(`SELECT rowid AS _rowid, * FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT ?`)
              .all(p.cursor === null ? 0 : a!, p.limit);
        const last = rows[rows.length - 1];
        const cursor =
          rows.length < p.limit || last === undefined
            ? null
            : listed
              ? `${num(last.created_at)}:${num(last._rowid)}`
              : String(num(last._rowid));
        const records = rows.map((r) => FROM_ROW[kind](r)) as TransferRecords[K][];
        if (kind === 'executions' && records.length > 0) {
          const byId = new Map((records as ExecutionRecord[]).map((e) => [e.id, e]));
          for (const a of attemptsOf.all(JSON.stringify([...byId.keys()]))) {
            const attempt: Attempt = {
              number: num(a.number),
              startedAt: num(a.started_at),
              durationMs: num(a.duration_ms),
              statusCode: numOrNull(a.status_code),
              error: strOrNull(a.error),
              responseBody: strOrNull(a.response_body),
            };
            byId.get(String(a.execution_id))!.attempts.push(attempt);
          }
        }
        return { records, cursor };
      }),
    close: async () => {
      if (!db.open) return;
      if (db.inTransaction) db.exec('ROLLBACK');
      db.close();
    },
  };
}

/**
 * Opens the writing end on the migrated SQLite file at `path`: one IMMEDIATE transaction (the
 * write lock, so no node writes meanwhile) committed by `commit()`.
 * @throws StoreUnavailableError when the file cannot be opened or locked
 */
export function openSqliteTransferTarget(path: string): TransferTarget {
  const db = openConnection(path);
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (err) {
    db.close();
    throw toStoreError(err);
  }
  const insert = {
    apiKeys: db.prepare(
      `INSERT INTO api_keys (id, name, status, digest, created_at, last_used)
       VALUES (:id, :name, :status, :digest, :createdAt, :lastUsed)`,
    ),
    settings: db.prepare('INSERT INTO settings (key, value) VALUES (:key, :value)'),
    schedules: db.prepare(
      `INSERT INTO schedules (id, name, scheduled_at, status, endpoint, data, tags, created_at,
                              retry_max_attempts, retry_initial_delay_ms, retry_max_delay_ms, timeout_ms)
       VALUES (:id, :name, :scheduledAt, :status, :endpoint, :data, :tags, :createdAt,
               :maxAttempts, :initialDelayMs, :maxDelayMs, :timeoutMs)`,
    ),
    cronJobs: db.prepare(
      `INSERT INTO cron_jobs (id, expression, name, timezone, status, endpoint, data, invocations,
                              next_invocation, created_at, retry_max_attempts, retry_initial_delay_ms,
                              retry_max_delay_ms, timeout_ms, misfire, overlap, last_execution_id)
       VALUES (:id, :expression, :name, :timezone, :status, :endpoint, :data, :invocations,
               :nextInvocation, :createdAt, :maxAttempts, :initialDelayMs, :maxDelayMs, :timeoutMs,
               :misfire, :overlap, NULL)`,
    ),
    executions: db.prepare(
      `INSERT INTO executions (id, job_type, job_id, scheduled_for, triggered, status, attempt, created_at,
                               started_at, finished_at, next_attempt_at, lease_owner, lease_expires_at, error)
       VALUES (:id, :jobType, :jobId, :scheduledFor, :triggered, :status, :attempt, :createdAt,
               :startedAt, :finishedAt, :nextAttemptAt, :leaseOwner, :leaseExpiresAt, :error)`,
    ),
    attempts: db.prepare(
      `INSERT INTO execution_attempts (execution_id, number, started_at, duration_ms, status_code, error, response_body)
       VALUES (:executionId, :number, :startedAt, :durationMs, :statusCode, :error, :responseBody)`,
    ),
  };
  const delivery = (r: ScheduleRecord | CronJobRecord) => ({
    maxAttempts: r.retry.maxAttempts,
    initialDelayMs: r.retry.initialDelayMs,
    maxDelayMs: r.retry.maxDelayMs,
    timeoutMs: r.timeoutMs,
  });
  const writeOne: { [K in TransferKind]: (r: TransferRecords[K]) => void } = {
    apiKeys: (r) => insert.apiKeys.run(r),
    settings: (r) => insert.settings.run(r),
    schedules: (r) =>
      insert.schedules.run({
        id: r.id,
        name: r.name,
        scheduledAt: r.scheduledAt,
        status: r.status,
        endpoint: r.endpoint,
        data: JSON.stringify(r.data),
        tags: JSON.stringify(r.tags),
        createdAt: r.createdAt,
        ...delivery(r),
      }),
    cronJobs: (r) =>
      insert.cronJobs.run({
        id: r.id,
        expression: r.expression,
        name: r.name,
        timezone: r.timezone,
        status: r.status,
        endpoint: r.endpoint,
        data: r.data === null ? null : JSON.stringify(r.data),
        invocations: r.invocations,
        nextInvocation: r.nextInvocation,
        createdAt: r.createdAt,
        misfire: r.misfire,
        overlap: r.overlap,
        ...delivery(r),
      }),
    executions: (r) => {
      const { attempts, ...e } = r;
      insert.executions.run({ ...e, triggered: e.triggered ? 1 : 0 });
      for (const a of attempts) insert.attempts.run({ executionId: r.id, ...a });
    },
  };
  let committed = false;
  const guard = <T>(fn: () => T): Promise<T> => {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(toStoreError(err));
    }
  };
  return {
    counts: () => guard(() => counts(db)),
    write: <K extends TransferKind>(kind: K, records: TransferRecords[K][]) =>
      guard(() => {
        for (const r of records) writeOne[kind](r);
      }),
    commit: () =>
      guard(() => {
        // Each cron job's newest execution (as migration 2 derives it; see cron-jobs.ts).
        db.exec(`UPDATE cron_jobs SET last_execution_id = (
          SELECT e.id FROM executions e WHERE e.job_type = 'cron' AND e.job_id = cron_jobs.id
           ORDER BY e.scheduled_for DESC, e.id DESC LIMIT 1)`);
        db.exec('COMMIT');
        committed = true;
      }),
    close: async () => {
      if (!db.open) return;
      if (!committed && db.inTransaction) db.exec('ROLLBACK');
      db.close();
    },
  };
}
