/**
 * The rules of idempotency records (store/contract/idempotency.ts, docs/interface.md "Idempotency-Key"),
 * once for both databases: how long a record lives, when a `running` one counts as abandoned,
 * what a new request finds, and the row ↔ value mapping. Pure: no SQL, no clock.
 */
import type { IdempotencyBegin, IdempotencyBeginParams, IdempotencyRef } from '../contract/idempotency.js';

/** A record is kept this long after its request started: 24 h, in ms. */
export const IDEMPOTENCY_RETENTION_MS = 24 * 3_600_000;

/**
 * A record `running` this long (ms) is taken for abandoned (its node died or lost the store
 * mid-request) and a new request with its key runs again. An API request's own store work is
 * bounded well below this (PostgreSQL's statement timeout, 30 s; SQLite's busy timeout).
 */
export const IDEMPOTENCY_ABANDON_MS = 60_000;

/** The table of the records (migrations: SQLite 6, PostgreSQL 5). */
export const IDEMPOTENCY_TABLE = 'idempotency_keys';

/** A stored record, as both databases read it (`started_at` and `response_status` as numbers). */
export interface IdempotencyRow {
  fingerprint: string;
  state: 'running' | 'done';
  started_at: number;
  response_status: number | null;
  response_body: string | null;
}

/**
 * What a request with `p` does with the stored record `row`:
 * - `replace`: the record is expired (started `IDEMPOTENCY_RETENTION_MS` ago or more, not yet
 *   pruned) or abandoned (`running` for `IDEMPOTENCY_ABANDON_MS` or more): overwrite it with a new
 *   `running` record and run the request;
 * - otherwise the answer to give: `mismatch` for another fingerprint (checked first: another body
 *   is a client error whatever the state), `running`, or `done` with the kept answer.
 */
export function beginDecision(row: IdempotencyRow, p: IdempotencyBeginParams): 'replace' | Exclude<IdempotencyBegin, { state: 'new' }> {
  if (row.started_at <= p.now - IDEMPOTENCY_RETENTION_MS) return 'replace';
  if (row.state === 'running' && row.started_at <= p.now - IDEMPOTENCY_ABANDON_MS) return 'replace';
  if (row.fingerprint !== p.fingerprint) return { state: 'mismatch' };
  if (row.state === 'running' || row.response_status === null) return { state: 'running' };
  return { state: 'done', status: row.response_status, body: row.response_body ?? '' };
}

/** The parameters of the statements of {@link idempotencySql}, by name. */
export interface IdempotencyBinding {
  apiKeyId: string;
  method: string;
  path: string;
  key: string;
  fingerprint: string | null;
  startedAt: number | null;
  status: number | null;
  body: string | null;
}

/** The binding of `ref` with `more` (absent ones null). */
export function idempotencyBinding(ref: IdempotencyRef, more: Partial<IdempotencyBinding> = {}): IdempotencyBinding {
  const { apiKeyId, method, path, key } = ref;
  return { apiKeyId, method, path, key, fingerprint: null, startedAt: null, status: null, body: null, ...more };
}

/** One statement: its text, and the names of its parameters in the order of their markers. */
export interface NamedStatement {
  text: string;
  names: Array<keyof IdempotencyBinding>;
}

/**
 * The statements of idempotency records, valid in both dialects, with the parameter marker of
 * each: `marker(name, n)` for the n-th distinct parameter (1-based; SQLite: `@name`, PostgreSQL:
 * `$n`). All take the record's key (`apiKeyId`, `method`, `path`, `key`); then:
 * - `insert`: `fingerprint`, `startedAt`; inserts a `running` record unless one exists;
 * - `select`: the record's {@link IdempotencyRow} (PostgreSQL appends `FOR UPDATE`);
 * - `replace`: `fingerprint`, `startedAt`; makes the record a new `running` one;
 * - `finish`: `startedAt`, `status`, `body`; `running` with that start → `done`;
 * - `abandon`: `startedAt`; deletes the record if `running` with that start.
 */
export function idempotencySql(marker: (name: keyof IdempotencyBinding, n: number) => string) {
  const statement = (build: (p: (name: keyof IdempotencyBinding) => string) => string): NamedStatement => {
    const names: Array<keyof IdempotencyBinding> = [];
    const text = build((name) => {
      if (!names.includes(name)) names.push(name);
      return marker(name, names.indexOf(name) + 1);
    });
    return { text, names };
  };
  const where = (p: (name: keyof IdempotencyBinding) => string) =>
    `api_key_id = ${p('apiKeyId')} AND method = ${p('method')} AND path = ${p('path')} AND idem_key = ${p('key')}`;
  return {
    insert: statement(
      (p) =>
        `INSERT INTO ${IDEMPOTENCY_TABLE} (api_key_id, method, path, idem_key, fingerprint, state, started_at) ` +
        `VALUES (${p('apiKeyId')}, ${p('method')}, ${p('path')}, ${p('key')}, ${p('fingerprint')}, 'running', ${p('startedAt')}) ` +
        'ON CONFLICT (api_key_id, method, path, idem_key) DO NOTHING',
    ),
    select: statement(
      (p) => `SELECT fingerprint, state, started_at, response_status, response_body FROM ${IDEMPOTENCY_TABLE} WHERE ${where(p)}`,
    ),
    replace: statement(
      (p) =>
        `UPDATE ${IDEMPOTENCY_TABLE} SET fingerprint = ${p('fingerprint')}, state = 'running', started_at = ${p('startedAt')}, ` +
        `response_status = NULL, response_body = NULL WHERE ${where(p)}`,
    ),
    finish: statement(
      (p) =>
        `UPDATE ${IDEMPOTENCY_TABLE} SET state = 'done', response_status = ${p('status')}, response_body = ${p('body')} ` +
        `WHERE ${where(p)} AND state = 'running' AND started_at = ${p('startedAt')}`,
    ),
    abandon: statement(
      (p) => `DELETE FROM ${IDEMPOTENCY_TABLE} WHERE ${where(p)} AND state = 'running' AND started_at = ${p('startedAt')}`,
    ),
  };
}
