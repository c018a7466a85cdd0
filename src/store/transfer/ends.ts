/**
 * The two ends of `punctual migrate-store` (`TransferSource`, `TransferTarget` in store/transfer/records.ts), once
 * for both databases: which table holds each kind, how a page is read and its cursor made, how
 * rows become records (rows*.ts) and records rows, how attempts join their executions, and what the
 * target derives at commit. Each database gives a {@link TransferConnection} (its placeholders,
 * the column that keeps the order of insertion, and how to run SQL on the end's own connection),
 * and opens and ends the transaction itself (`<database>/transfer.ts`).
 *
 * Order: API keys, schedules and cron jobs are read oldest first, by `created_at` then order of
 * insertion, as API keys are listed, and are written in the order read, so the target lists them
 * alike; settings and executions are read by their key.
 */
import type { RowCodec } from '../rows/jobs.js';
import {
  API_KEY_WRITE_COLUMNS,
  apiKeyFromRow,
  apiKeyToRow,
  columnList,
  SCHEDULE_COLUMNS,
  scheduleFromRow,
  scheduleToRow,
  type ApiKeyRow,
  type ScheduleRow,
} from '../rows/jobs.js';
import { CRON_JOB_COLUMNS, cronJobToRow, cronRecordFromRow, type CronJobRow } from '../rows/cron-jobs.js';
import {
  ATTEMPT_COLUMNS,
  attemptsByExecution,
  attemptToRow,
  EXECUTION_RECORD_COLUMNS,
  executionRecordFromRow,
  executionToRow,
  type AttemptRow,
  type ExecutionRecordRow,
} from '../rows/executions.js';
import { CHANNEL_COLUMNS, channelFromRow, listToColumn, type ChannelRow } from '../rules/notifications.js';
import { FLOW_CONTROL_KEY_COLUMNS, flowControlKeyFromRow, type FlowControlKeyRow } from '../rows/flow-control.js';
import { TRANSFER_KINDS } from './records.js';
import type { ExecutionRecord, TransferCounts, TransferKind, TransferRecords, TransferSource, TransferTarget } from './records.js';

/** A row as a driver returns it. */
export type Row = Record<string, unknown>;

/** What an end needs of its database's connection. Its methods reject with the store's errors. */
export interface TransferConnection {
  codec: RowCodec;
  /** The placeholder of the `i`th parameter (from 1): `?` in SQLite, `$i` in PostgreSQL. */
  mark(i: number): string;
  /** The column giving the order of insertion of a listed table: `rowid` (SQLite), `seq` (PostgreSQL). */
  insertionOrder: string;
  /** `<column> IN <the ids>` for `ids` bound as parameter 1, and the value to bind. */
  inIds(column: string, ids: string[]): { sql: string; value: unknown };
  /** Runs a query; `values` bind the placeholders in order. */
  all(text: string, values?: unknown[]): Promise<Row[]>;
}

/** Table of each kind, whether it is read oldest first (`listed`), and the key of the others. */
const TABLES: Record<TransferKind, { table: string; listed: boolean; key: string }> = {
  apiKeys: { table: 'api_keys', listed: true, key: 'id' },
  settings: { table: 'settings', listed: false, key: 'key' },
  schedules: { table: 'schedules', listed: true, key: 'id' },
  cronJobs: { table: 'cron_jobs', listed: true, key: 'id' },
  executions: { table: 'executions', listed: false, key: 'id' },
  // By id: UUID v7, so oldest first too (PostgreSQL's table has no `seq`).
  notificationChannels: { table: 'notification_channels', listed: false, key: 'id' },
  flowControlKeys: { table: 'flow_control_keys', listed: false, key: 'key' },
};

/** Row → record, by kind (executions get their attempts afterwards). */
const FROM_ROW: { [K in TransferKind]: (codec: RowCodec, r: Row) => TransferRecords[K] } = {
  apiKeys: (_c, r) => ({ ...apiKeyFromRow(r as unknown as ApiKeyRow), digest: String(r.digest), previousDigest: r.previous_digest == null ? null : String(r.previous_digest) }),
  settings: (_c, r) => ({ key: String(r.key), value: String(r.value) }),
  schedules: (c, r) => scheduleFromRow(c, r as unknown as ScheduleRow),
  cronJobs: (c, r) => cronRecordFromRow(c, r as unknown as CronJobRow),
  executions: (c, r) => executionRecordFromRow(c, r as unknown as ExecutionRecordRow),
  notificationChannels: (_c, r) => channelFromRow(r as unknown as ChannelRow),
  flowControlKeys: (_c, r) => flowControlKeyFromRow(r as unknown as FlowControlKeyRow),
};

/** Columns written for each kind and the values of a record's row (a cron job's newest execution is derived at commit). */
const TO_ROW: { [K in TransferKind]: { columns: readonly string[]; row: (codec: RowCodec, r: TransferRecords[K]) => Row } } = {
  apiKeys: { columns: API_KEY_WRITE_COLUMNS, row: (_c, r) => apiKeyToRow(r) },
  settings: { columns: ['key', 'value'], row: (_c, r) => ({ key: r.key, value: r.value }) },
  schedules: { columns: SCHEDULE_COLUMNS, row: (_c, r) => scheduleToRow(r) },
  cronJobs: { columns: CRON_JOB_COLUMNS, row: (_c, r) => cronJobToRow(r) },
  executions: { columns: EXECUTION_RECORD_COLUMNS, row: (c, r) => executionToRow(c, r) },
  notificationChannels: {
    columns: CHANNEL_COLUMNS.split(', '),
    row: (_c, r) => ({
      id: r.id,
      name: r.name,
      type: r.type,
      url: r.url,
      events: listToColumn(r.events),
      job_ids: r.jobIds === null ? null : listToColumn(r.jobIds),
      created_at: r.createdAt,
    }),
  },
  flowControlKeys: {
    columns: FLOW_CONTROL_KEY_COLUMNS.split(', '),
    row: (_c, r) => ({
      key: r.key,
      parallelism: r.parallelism,
      rate: r.rate,
      period_ms: r.periodMs,
      paused: r.paused ? 1 : 0,
      hold_until: r.holdUntil,
      created_at: r.createdAt,
      updated_at: r.updatedAt,
    }),
  },
};

/**
 * Each cron job's newest execution (by `scheduled_for`, then id, as the lists order executions),
 * as the stores keep it in `last_execution_id`.
 */
const DERIVE_LAST_EXECUTIONS_SQL = `UPDATE cron_jobs SET last_execution_id = (
  SELECT e.id FROM executions e WHERE e.job_type = 'cron' AND e.job_id = cron_jobs.id
   ORDER BY e.scheduled_for DESC, e.id DESC LIMIT 1)`;

/** Rows per INSERT statement: 1,000 rows of at most 16 columns stay well under either database's parameter limit. */
const ROWS_PER_INSERT = 1_000;

/** Rows of each kind. */
async function counts(c: TransferConnection): Promise<TransferCounts> {
  const out = {} as TransferCounts;
  for (const kind of TRANSFER_KINDS) {
    const [r] = await c.all(`SELECT count(*) AS n FROM ${TABLES[kind].table}`);
    out[kind] = Number(r!.n);
  }
  return out;
}

/** One multi-row INSERT per {@link ROWS_PER_INSERT} rows; rows keep their order (and so their order of insertion). */
async function insertRows(c: TransferConnection, table: string, columns: readonly string[], rows: Row[]): Promise<void> {
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const values: unknown[] = [];
    const tuples = rows.slice(i, i + ROWS_PER_INSERT).map((r) => {
      const marks = columns.map((col) => {
        values.push(r[col]);
        return c.mark(values.length);
      });
      return `(${marks.join(', ')})`;
    });
    await c.all(`INSERT INTO ${table} (${columnList(columns)}) VALUES ${tuples.join(', ')}`, values);
  }
}

/**
 * The reading end on `c`, which must be inside a snapshot (a read transaction) for as long as it
 * is read. `close` ends the snapshot and the connection.
 */
export function transferSource(c: TransferConnection, close: () => Promise<void>): TransferSource {
  return {
    counts: () => counts(c),
    read: async <K extends TransferKind>(kind: K, p: { cursor: string | null; limit: number }) => {
      const { table, listed, key } = TABLES[kind];
      let rows: Row[];
      if (listed) {
        // Cursor `<created_at>:<order of insertion>`; before every row at first.
        const [at, ord] = (p.cursor ?? `${Number.MIN_SAFE_INTEGER}:${Number.MIN_SAFE_INTEGER}`).split(':').map(Number);
        const o = c.insertionOrder;
        rows = await c.all(
          `SELECT ${o} AS _ord, * FROM ${table} WHERE (created_at, ${o}) > (${c.mark(1)}, ${c.mark(2)})
            ORDER BY created_at, ${o} LIMIT ${c.mark(3)}`,
          [at, ord, p.limit],
        );
      } else {
        // Cursor: the last key read; '' (before every key) at first.
        rows = await c.all(`SELECT * FROM ${table} WHERE ${key} > ${c.mark(1)} ORDER BY ${key} LIMIT ${c.mark(2)}`, [
          p.cursor ?? '',
          p.limit,
        ]);
      }
      const last = rows[rows.length - 1];
      const cursor =
        rows.length < p.limit || last === undefined ? null : listed ? `${Number(last.created_at)}:${Number(last._ord)}` : String(last[key]);
      const records = rows.map((r) => FROM_ROW[kind](c.codec, r));
      if (kind === 'executions' && records.length > 0) {
        const executions = records as ExecutionRecord[];
        const ids = c.inIds('execution_id', executions.map((e) => e.id));
        const attempts = await c.all(
          `SELECT ${columnList(ATTEMPT_COLUMNS)} FROM execution_attempts WHERE ${ids.sql} ORDER BY execution_id, number`,
          [ids.value],
        );
        const byExecution = attemptsByExecution(attempts as unknown as AttemptRow[]);
        for (const e of executions) e.attempts = byExecution.get(e.id) ?? [];
      }
      return { records, cursor };
    },
    close,
  };
}

/**
 * The writing end on `c`, which must be inside the transaction that `end.commit` commits and
 * `end.close` rolls back (unless committed) before closing the connection.
 */
export function transferTarget(c: TransferConnection, end: { commit(): Promise<void>; close(): Promise<void> }): TransferTarget {
  return {
    counts: () => counts(c),
    write: async <K extends TransferKind>(kind: K, records: TransferRecords[K][]) => {
      const { columns, row } = TO_ROW[kind];
      await insertRows(c, TABLES[kind].table, columns, records.map((r) => row(c.codec, r)));
      if (kind === 'executions') {
        const attempts = (records as ExecutionRecord[]).flatMap((e) => e.attempts.map((a) => attemptToRow(e.id, a)));
        await insertRows(c, 'execution_attempts', ATTEMPT_COLUMNS, attempts as unknown as Row[]);
      }
    },
    commit: async () => {
      await c.all(DERIVE_LAST_EXECUTIONS_SQL);
      await end.commit();
    },
    close: () => end.close(),
  };
}
