/**
 * Both ends of `punctual migrate-store` for PostgreSQL (see `TransferSource` and `TransferTarget`
 * in ../store.ts). Each end has its own connection (the URL's settings, `schema` parameter
 * included), so a copy never goes through a serving store's pool.
 *
 * Reading: one `REPEATABLE READ READ ONLY` transaction, a snapshot of the whole store. API keys,
 * schedules and cron jobs come in their list order (`created_at`, then `seq`, the order of
 * insertion); executions by id, settings by key. Writing: one transaction; rows are inserted in the
 * order given, so `seq` (an identity column) follows the source's order and the lists read alike.
 */
import pg from 'pg';
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
import { connectionConfig, toStoreError } from './connection.js';

type Row = Record<string, unknown>;

/** Table of each kind; `listed`: read oldest first by (created_at, seq), else by `key`. */
const TABLES: Record<TransferKind, { table: string; listed: boolean; key: string }> = {
  apiKeys: { table: 'api_keys', listed: true, key: 'id' },
  settings: { table: 'settings', listed: false, key: 'key' },
  schedules: { table: 'schedules', listed: true, key: 'id' },
  cronJobs: { table: 'cron_jobs', listed: true, key: 'id' },
  executions: { table: 'executions', listed: false, key: 'id' },
};

const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

/** Row → record, by kind (`json` columns arrive parsed; executions get their attempts afterwards). */
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
    data: (r.data ?? {}) as ScheduleRecord['data'],
    tags: (r.tags ?? []) as string[],
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
    data: (r.data ?? null) as CronJobRecord['data'],
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
    triggered: r.triggered === true,
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

/** Columns written for each kind, and how a record gives their values (JSON columns as text). */
const COLUMNS: { [K in TransferKind]: [column: string, value: (r: TransferRecords[K]) => unknown][] } = {
  apiKeys: [
    ['id', (r) => r.id],
    ['name', (r) => r.name],
    ['status', (r) => r.status],
    ['digest', (r) => r.digest],
    ['created_at', (r) => r.createdAt],
    ['last_used', (r) => r.lastUsed],
  ],
  settings: [
    ['key', (r) => r.key],
    ['value', (r) => r.value],
  ],
  schedules: [
    ['id', (r) => r.id],
    ['name', (r) => r.name],
    ['scheduled_at', (r) => r.scheduledAt],
    ['status', (r) => r.status],
    ['endpoint', (r) => r.endpoint],
    ['data', (r) => JSON.stringify(r.data)],
    ['tags', (r) => JSON.stringify(r.tags)],
    ['created_at', (r) => r.createdAt],
    ['retry_max_attempts', (r) => r.retry.maxAttempts],
    ['retry_initial_delay_ms', (r) => r.retry.initialDelayMs],
    ['retry_max_delay_ms', (r) => r.retry.maxDelayMs],
    ['timeout_ms', (r) => r.timeoutMs],
  ],
  cronJobs: [
    ['id', (r) => r.id],
    ['expression', (r) => r.expression],
    ['name', (r) => r.name],
    ['timezone', (r) => r.timezone],
    ['status', (r) => r.status],
    ['endpoint', (r) => r.endpoint],
    ['data', (r) => (r.data === null ? null : JSON.stringify(r.data))],
    ['invocations', (r) => r.invocations],
    ['next_invocation', (r) => r.nextInvocation],
    ['created_at', (r) => r.createdAt],
    ['retry_max_attempts', (r) => r.retry.maxAttempts],
    ['retry_initial_delay_ms', (r) => r.retry.initialDelayMs],
    ['retry_max_delay_ms', (r) => r.retry.maxDelayMs],
    ['timeout_ms', (r) => r.timeoutMs],
    ['misfire', (r) => r.misfire],
    ['overlap', (r) => r.overlap],
  ],
  executions: [
    ['id', (r) => r.id],
    ['job_type', (r) => r.jobType],
    ['job_id', (r) => r.jobId],
    ['scheduled_for', (r) => r.scheduledFor],
    ['triggered', (r) => r.triggered],
    ['status', (r) => r.status],
    ['attempt', (r) => r.attempt],
    ['created_at', (r) => r.createdAt],
    ['started_at', (r) => r.startedAt],
    ['finished_at', (r) => r.finishedAt],
    ['next_attempt_at', (r) => r.nextAttemptAt],
    ['lease_owner', (r) => r.leaseOwner],
    ['lease_expires_at', (r) => r.leaseExpiresAt],
    ['error', (r) => r.error],
  ],
};

const ATTEMPT_COLUMNS: [string, (a: Attempt & { executionId: string }) => unknown][] = [
  ['execution_id', (a) => a.executionId],
  ['number', (a) => a.number],
  ['started_at', (a) => a.startedAt],
  ['duration_ms', (a) => a.durationMs],
  ['status_code', (a) => a.statusCode],
  ['error', (a) => a.error],
  ['response_body', (a) => a.responseBody],
];

/** Rows per INSERT statement: well under PostgreSQL's 65,535 parameters per statement. */
const ROWS_PER_INSERT = 1_000;

/** One multi-row INSERT per {@link ROWS_PER_INSERT} rows; rows keep their order (and so their `seq`). */
async function insertRows<T>(client: pg.ClientBase, table: string, columns: [string, (r: T) => unknown][], rows: T[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const chunk = rows.slice(i, i + ROWS_PER_INSERT);
    const values: unknown[] = [];
    const tuples = chunk.map((r) => {
      const marks = columns.map(([, get]) => {
        values.push(get(r));
        return `$${values.length}`;
      });
      return `(${marks.join(', ')})`;
    });
    await client.query(`INSERT INTO ${table} (${columns.map(([c]) => c).join(', ')}) VALUES ${tuples.join(', ')}`, values);
  }
}

async function counts(client: pg.ClientBase): Promise<TransferCounts> {
  const out = {} as TransferCounts;
  for (const [kind, { table }] of Object.entries(TABLES) as [TransferKind, { table: string }][]) {
    const { rows } = await client.query<{ n: number }>(`SELECT count(*)::bigint AS n FROM ${table}`);
    out[kind] = num(rows[0]!.n);
  }
  return out;
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

/** Runs `fn`, translating pg errors into the store's vocabulary. */
async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
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
  return {
    counts: () => guard(() => counts(client)),
    read: <K extends TransferKind>(kind: K, p: { cursor: string | null; limit: number }) =>
      guard(async () => {
        const { table, listed, key } = TABLES[kind];
        let rows: Row[];
        if (listed) {
          const [createdAt, seq] = (p.cursor ?? `${Number.MIN_SAFE_INTEGER}:${Number.MIN_SAFE_INTEGER}`).split(':').map(Number);
          rows = (
            await client.query<Row>(
              `SELECT * FROM ${table} WHERE (created_at, seq) > ($1, $2) ORDER BY created_at, seq LIMIT $3`,
              [createdAt, seq, p.limit],
            )
          ).rows;
        } else {
          rows = (
            await client.query<Row>(`SELECT * FROM ${table} WHERE $1::text IS NULL OR ${key} > $1 ORDER BY ${key} LIMIT $2`, [
              p.cursor,
              p.limit,
            ])
          ).rows;
        }
        const last = rows[rows.length - 1];
        const cursor =
          rows.length < p.limit || last === undefined
            ? null
            : listed
              ? `${num(last.created_at)}:${num(last.seq)}`
              : String(last[key]);
        const records = rows.map((r) => FROM_ROW[kind](r)) as TransferRecords[K][];
        if (kind === 'executions' && records.length > 0) {
          const byId = new Map((records as ExecutionRecord[]).map((e) => [e.id, e]));
          const attempts = await client.query<Row>(
            `SELECT execution_id, number, started_at, duration_ms, status_code, error, response_body
               FROM execution_attempts WHERE execution_id = ANY($1::text[]) ORDER BY execution_id, number`,
            [[...byId.keys()]],
          );
          for (const a of attempts.rows) {
            byId.get(String(a.execution_id))!.attempts.push({
              number: num(a.number),
              startedAt: num(a.started_at),
              durationMs: num(a.duration_ms),
              statusCode: numOrNull(a.status_code),
              error: strOrNull(a.error),
              responseBody: strOrNull(a.response_body),
            });
          }
        }
        return { records, cursor };
      }),
    close: async () => {
      if (closed) return;
      closed = true;
      await client.query('ROLLBACK').catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
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
  return {
    counts: () => guard(() => counts(client)),
    write: <K extends TransferKind>(kind: K, records: TransferRecords[K][]) =>
      guard(async () => {
        const { table } = TABLES[kind];
        await insertRows(client, table, COLUMNS[kind] as [string, (r: TransferRecords[K]) => unknown][], records);
        if (kind === 'executions') {
          const attempts = (records as ExecutionRecord[]).flatMap((e) => e.attempts.map((a) => ({ ...a, executionId: e.id })));
          await insertRows(client, 'execution_attempts', ATTEMPT_COLUMNS, attempts);
        }
      }),
    commit: () =>
      guard(async () => {
        // Each cron job's newest execution (as the store keeps it; see migrations.ts).
        await client.query(`UPDATE cron_jobs c SET last_execution_id = (
          SELECT e.id FROM executions e WHERE e.job_type = 'cron' AND e.job_id = c.id
           ORDER BY e.scheduled_for DESC, e.id DESC LIMIT 1)`);
        await client.query('COMMIT');
        committed = true;
        // Statistics for the planner at once, rather than when autovacuum comes by (the list pages
        // walk their indexes when it knows the tables' sizes; see migrations.ts, version 2). Only
        // an optimisation: the copy is committed whatever happens here.
        await client
          .query('ANALYZE api_keys, settings, schedules, schedule_tags, cron_jobs, executions, execution_attempts')
          .catch(() => undefined);
      }),
    close: async () => {
      if (closed) return;
      closed = true;
      if (!committed) await client.query('ROLLBACK').catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}
