/**
 * One row mapping for both stores: the columns of each table, row → domain object, and domain
 * object → the values of a row (for inserts and whole-row writes), keyed by column name: here API
 * keys and schedules, in store/rows/cron-jobs.ts cron jobs, in store/rows/executions.ts executions and attempts. The
 * SQL lives with each database; what a column holds is written once, so adding a field means the
 * domain type, its mapper, the SQL column lists and each store's migration.
 *
 * The few real differences between the drivers are a {@link RowCodec}: better-sqlite3 hands back
 * JSON columns as text and booleans as 0/1; `pg` parses `json` itself and has booleans. Both
 * stores' connections read BIGINT (epoch ms, counts) as JavaScript numbers (see
 * postgres/connection.ts), so instants need no decoding. Values written to JSON columns are JSON
 * text in both databases.
 */
import type {
  HttpMethod,
  JobIdentity,
  JobManager,
  JobRequest,
  JsonObject,
  RetryPolicy,
  Schedule,
  ScheduleStatus,
  SealedSecrets,
  SuccessStatus,
  TargetAuthPublic,
} from '../../domain/types.js';
import { DEFAULT_SUCCESS_STATUSES } from '../../domain/success-statuses.js';
import type { CronCreateParams, ScheduleCreateParams, ScheduleUpdateParams } from '../contract/jobs.js';

/** How a database's driver hands back (and takes) the values that differ between databases. */
export interface RowCodec {
  /** A JSON column as read → its value, null for SQL NULL. */
  json(value: unknown): unknown;
  /** A boolean column as read → boolean. */
  bool(value: unknown): boolean;
  /** A boolean → the value to bind for a boolean column. */
  boolValue(b: boolean): unknown;
}

/** The codec of a driver that hands back values as the domain has them (PostgreSQL's `pg`). */
export const PASS_THROUGH: RowCodec = {
  json: (v) => v ?? null,
  bool: (v) => v === true,
  boolValue: (b) => b,
};

/** `a, b, c`, each prefixed with `alias.` when given. */
export function columnList(columns: readonly string[], alias?: string): string {
  return columns.map((c) => (alias === undefined ? c : `${alias}.${c}`)).join(', ');
}

/** The values of `row` in the order of `columns` (for positional parameters). */
export function valuesOf<C extends string>(row: Record<C, unknown>, columns: readonly C[]): unknown[] {
  return columns.map((c) => row[c]);
}

/** A row read by key, mapped; null when there is none. */
export function mappedOrNull<R, T>(row: R | undefined, map: (r: R) => T): T | null {
  return row === undefined ? null : map(row);
}

/** JSON text of a value for a JSON column; null stays NULL. */
export function jsonText(v: unknown): string | null {
  return v === null || v === undefined ? null : JSON.stringify(v);
}

// ---- The request of a job's calls (both job tables) ---------------------------------------------

/**
 * The columns of a job's request, last in both job tables (SQLite migration 5, PostgreSQL 4):
 * `headers`, `auth` and `secrets` are JSON, `body` text.
 */
export const REQUEST_COLUMNS = ['method', 'headers', 'body', 'auth', 'secrets'] as const;
type RequestColumn = (typeof REQUEST_COLUMNS)[number];

/** The {@link REQUEST_COLUMNS} of a row; JSON as the driver gives it. */
export interface RequestRow {
  method: HttpMethod;
  headers: unknown;
  body: string | null;
  auth: unknown;
  secrets: unknown;
}

/** Row → the request of a job; NULL `headers` reads `{}`. */
export function requestFromRow(codec: RowCodec, r: RequestRow): JobRequest {
  return {
    method: r.method,
    headers: (codec.json(r.headers) as Record<string, string> | null) ?? {},
    body: r.body,
    auth: (codec.json(r.auth) as TargetAuthPublic | null) ?? null,
    secrets: (codec.json(r.secrets) as SealedSecrets | null) ?? null,
  };
}

/** The request a new job's params make: absent fields are `POST`, `{}` and null. */
export function newRequest(p: ScheduleCreateParams | CronCreateParams): JobRequest {
  return { method: p.method ?? 'POST', headers: p.headers ?? {}, body: p.body ?? null, auth: p.auth ?? null, secrets: p.secrets ?? null };
}

/** The request of a job → the values of its columns (JSON as text, NULL for null). */
export function requestToRow(j: JobRequest): Record<RequestColumn, unknown> {
  return { method: j.method, headers: JSON.stringify(j.headers ?? {}), body: j.body, auth: jsonText(j.auth), secrets: jsonText(j.secrets) };
}

// ---- What counts as success (both job tables) -----------------------------------------------------

/**
 * `success_statuses` (SQLite migration 10, PostgreSQL 9): JSON text of the job's
 * `successStatuses`, `["2xx"]` for the jobs stored before it.
 */
export function successStatusesFromRow(codec: RowCodec, value: unknown): SuccessStatus[] {
  return (codec.json(value) as SuccessStatus[] | null) ?? [...DEFAULT_SUCCESS_STATUSES];
}

/** The `successStatuses` of new job params: `["2xx"]` when absent. */
export function newSuccessStatuses(p: { successStatuses?: SuccessStatus[] }): SuccessStatus[] {
  return p.successStatuses ?? [...DEFAULT_SUCCESS_STATUSES];
}

// ---- The retry policy of a job (both job tables) -----------------------------------------------

/**
 * The columns of a job's retry policy in both job tables. `retry_delays_ms` (SQLite migration 9,
 * PostgreSQL 8; last in the tables, after {@link REQUEST_COLUMNS}) holds the steps as a JSON array
 * of ms, NULL for the exponential rule: the value of rows made before it, so they keep the
 * exponential policy they were created with.
 */
export const RETRY_COLUMNS = ['retry_max_attempts', 'retry_initial_delay_ms', 'retry_max_delay_ms', 'retry_delays_ms'] as const;
type RetryColumn = (typeof RETRY_COLUMNS)[number];

/** The {@link RETRY_COLUMNS} of a row; `retry_delays_ms` as the driver gives JSON. */
export interface RetryRow {
  retry_max_attempts: number;
  retry_initial_delay_ms: number;
  retry_max_delay_ms: number;
  retry_delays_ms: unknown;
}

/** Row → the retry policy of a job; NULL `retry_delays_ms` reads `delaysMs: null` (exponential). */
export function retryFromRow(codec: RowCodec, r: RetryRow): RetryPolicy {
  const delays = codec.json(r.retry_delays_ms) as number[] | null;
  return {
    maxAttempts: r.retry_max_attempts,
    initialDelayMs: r.retry_initial_delay_ms,
    maxDelayMs: r.retry_max_delay_ms,
    delaysMs: Array.isArray(delays) ? delays : null,
  };
}

/** A retry policy → the values of its columns (the steps as JSON text, NULL when absent or null). */
export function retryToRow(p: RetryPolicy): Record<RetryColumn, unknown> {
  return {
    retry_max_attempts: p.maxAttempts,
    retry_initial_delay_ms: p.initialDelayMs,
    retry_max_delay_ms: p.maxDelayMs,
    retry_delays_ms: jsonText(p.delaysMs ?? null),
  };
}

// ---- The key of a job and who manages it (both job tables) ---------------------------------------

/**
 * `key` and `managed_by` (SQLite migration 18, PostgreSQL 17; last in both job tables): the job's
 * key, unique per table through the partial unique index `<table>_by_key` (job-keys.ts), and
 * `apply` for a job created by `punctual apply`; `flow_control_key` (SQLite migration 21,
 * PostgreSQL 20), the flow-control key its calls count against. NULL for the rows made before.
 */
export const IDENTITY_COLUMNS = ['key', 'managed_by', 'flow_control_key'] as const;
type IdentityColumn = (typeof IDENTITY_COLUMNS)[number];

/** The {@link IDENTITY_COLUMNS} of a row. */
export interface IdentityRow {
  key: string | null;
  managed_by: JobManager | null;
  flow_control_key: string | null;
}

/** Row → the key and manager of a job. */
export function identityFromRow(r: IdentityRow): JobIdentity {
  return { key: r.key ?? null, managedBy: r.managed_by ?? null, flowControlKey: r.flow_control_key ?? null };
}

/** The key and manager new job params give: null when absent. */
export function newIdentity(p: { key?: string | null; managedBy?: JobManager | null; flowControlKey?: string | null }): JobIdentity {
  return { key: p.key ?? null, managedBy: p.managedBy ?? null, flowControlKey: p.flowControlKey ?? null };
}

/** The key and manager of a job → the values of their columns. */
export function identityToRow(j: JobIdentity): Record<IdentityColumn, unknown> {
  return { key: j.key ?? null, managed_by: j.managedBy ?? null, flow_control_key: j.flowControlKey ?? null };
}

// ---- API keys ---------------------------------------------------------------------------------

// In store/rows/api-keys.ts; re-exported here, where the other tables' mappers are.
export { API_KEY_COLUMNS, API_KEY_WRITE_COLUMNS, apiKeyFromRow, apiKeyToRow, scopesText, type ApiKeyRow } from './api-keys.js';

// ---- Schedules --------------------------------------------------------------------------------

/** Every column of `schedules`, in the order of the table. */
export const SCHEDULE_COLUMNS = [
  'id',
  'name',
  'scheduled_at',
  'status',
  'endpoint',
  'data',
  'tags',
  'created_at',
  'retry_max_attempts',
  'retry_initial_delay_ms',
  'retry_max_delay_ms',
  'timeout_ms',
  'due_at',
  ...REQUEST_COLUMNS,
  'retry_delays_ms',
  'success_statuses',
  ...IDENTITY_COLUMNS,
] as const;
type ScheduleColumn = (typeof SCHEDULE_COLUMNS)[number];

/** A row of `schedules` ({@link SCHEDULE_COLUMNS}); `data` and `tags` as the driver gives JSON. */
export interface ScheduleRow extends RequestRow, RetryRow, IdentityRow {
  id: string;
  name: string;
  scheduled_at: number;
  status: ScheduleStatus;
  endpoint: string;
  data: unknown;
  tags: unknown;
  created_at: number;
  timeout_ms: number;
  /** NULL: `scheduled_at` (a row written before due times were kept, or seeded by SQL). */
  due_at: number | null;
  /** JSON as the driver gives it ({@link successStatusesFromRow}). */
  success_statuses: unknown;
}

/** Row → schedule; NULL `data` reads `{}`, NULL `tags` `[]`. */
export function scheduleFromRow(codec: RowCodec, r: ScheduleRow): Schedule {
  return {
    id: r.id,
    name: r.name,
    scheduledAt: r.scheduled_at,
    status: r.status,
    endpoint: r.endpoint,
    data: (codec.json(r.data) as JsonObject | null) ?? {},
    tags: (codec.json(r.tags) as string[] | null) ?? [],
    createdAt: r.created_at,
    retry: retryFromRow(codec, r),
    timeoutMs: r.timeout_ms,
    dueAt: r.due_at ?? r.scheduled_at,
    ...requestFromRow(codec, r),
    successStatuses: successStatusesFromRow(codec, r.success_statuses),
    ...identityFromRow(r),
  };
}

/**
 * When a schedule with this `scheduledAt`, stored or moved at `now`, is due to the service: the
 * later of the two (epoch ms, UTC; docs/interface.md, "Past instants").
 */
export function scheduleDueAt(scheduledAt: number, now: number): number {
  return Math.max(scheduledAt, now);
}

/** The schedule that {@link ScheduleCreateParams} make: `Pending`, created at `p.now`. */
export function newSchedule(p: ScheduleCreateParams): Schedule {
  return {
    id: p.id,
    name: p.name,
    scheduledAt: p.scheduledAt,
    status: 'Pending',
    endpoint: p.endpoint,
    data: p.data ?? {},
    tags: p.tags ?? [],
    createdAt: p.now,
    retry: p.retry,
    timeoutMs: p.timeoutMs,
    dueAt: scheduleDueAt(p.scheduledAt, p.now),
    ...newRequest(p),
    successStatuses: newSuccessStatuses(p),
    ...newIdentity(p),
  };
}

/** Schedule → the values of its row (JSON columns as text). */
export function scheduleToRow(s: Schedule): Record<ScheduleColumn, unknown> {
  return {
    id: s.id,
    name: s.name,
    scheduled_at: s.scheduledAt,
    status: s.status,
    endpoint: s.endpoint,
    data: JSON.stringify(s.data ?? {}),
    tags: JSON.stringify(s.tags ?? []),
    created_at: s.createdAt,
    ...retryToRow(s.retry),
    timeout_ms: s.timeoutMs,
    due_at: s.dueAt,
    ...requestToRow(s),
    success_statuses: JSON.stringify(s.successStatuses ?? DEFAULT_SUCCESS_STATUSES),
    ...identityToRow(s),
  };
}

/** Columns a patch never sets: the status (the claim's), the creation instant and the manager (set at create). */
const NOT_PATCHED: readonly string[] = ['status', 'created_at', 'managed_by'];

/** The columns a schedule patch may set, in the order of the table, each NULL when the patch leaves it. */
export const SCHEDULE_PATCH_COLUMNS = SCHEDULE_COLUMNS.filter(
  (c): c is Exclude<ScheduleColumn, 'status' | 'created_at' | 'managed_by'> => !NOT_PATCHED.includes(c),
);

/**
 * The nullable columns a patch may clear: each has a parameter `<column>_set`, 1 when the patch
 * writes the column (NULL included), 0 when it keeps it. The other columns are NULL when kept.
 */
export const SCHEDULE_PATCH_CLEARABLE = ['body', 'auth', 'secrets', 'retry_delays_ms', 'key', 'flow_control_key'] as const;

/** The parameters of a schedule patch, in order: {@link SCHEDULE_PATCH_COLUMNS}, then the `_set` flags. */
export const SCHEDULE_PATCH_PARAMS = [...SCHEDULE_PATCH_COLUMNS, 'body_set', 'auth_set', 'secrets_set', 'retry_delays_ms_set', 'key_set', 'flow_control_key_set'] as const;

/** A parameter of a schedule patch by name ({@link SCHEDULE_PATCH_PARAMS}). */
export type SchedulePatchParam = (typeof SCHEDULE_PATCH_PARAMS)[number];

/**
 * The SET list of a schedule patch: for each of {@link SCHEDULE_PATCH_COLUMNS} but the id,
 * `coalesce(<param>, <column>)` (NULL keeps the old value), or for a
 * {@link SCHEDULE_PATCH_CLEARABLE} column `CASE WHEN <flag> = 1 THEN <param> ELSE <column> END`.
 * @param param the SQL of a parameter by its name, in the database's syntax (`:name`, `$2::json`)
 */
export function schedulePatchSet(param: (name: SchedulePatchParam) => string): string {
  const clearable: readonly string[] = SCHEDULE_PATCH_CLEARABLE;
  return SCHEDULE_PATCH_COLUMNS.filter((c) => c !== 'id')
    .map((c) =>
      clearable.includes(c)
        ? `${c} = CASE WHEN ${param(`${c}_set` as SchedulePatchParam)} = 1 THEN ${param(c)} ELSE ${c} END`
        : `${c} = coalesce(${param(c)}, ${c})`,
    )
    .join(',\n         ');
}

/**
 * A schedule patch → the values of the columns it sets, NULL for a field it leaves (the SQL keeps
 * the old value with `coalesce`), and for the {@link SCHEDULE_PATCH_CLEARABLE} columns a `_set`
 * flag (their NULL may be a value).
 */
export function schedulePatchToRow(
  p: ScheduleUpdateParams,
): Record<(typeof SCHEDULE_PATCH_PARAMS)[number], unknown> & { id: string } {
  return {
    id: p.id,
    name: p.name ?? null,
    scheduled_at: p.scheduledAt ?? null,
    endpoint: p.endpoint ?? null,
    data: jsonText(p.data),
    tags: jsonText(p.tags),
    // A patch writes a whole policy (the service merged it), its steps included (NULL: exponential).
    ...(p.retry === undefined
      ? { retry_max_attempts: null, retry_initial_delay_ms: null, retry_max_delay_ms: null, retry_delays_ms: null }
      : retryToRow(p.retry)),
    timeout_ms: p.timeoutMs ?? null,
    // A new instant is due from the later of it and the patch; the others keep the stored moment.
    due_at: p.scheduledAt === undefined ? null : scheduleDueAt(p.scheduledAt, p.now),
    method: p.method ?? null,
    headers: jsonText(p.headers),
    body: p.body ?? null,
    auth: jsonText(p.auth),
    secrets: jsonText(p.secrets),
    success_statuses: jsonText(p.successStatuses),
    key: p.key ?? null,
    flow_control_key: p.flowControlKey ?? null,
    body_set: p.body === undefined ? 0 : 1,
    auth_set: p.auth === undefined ? 0 : 1,
    secrets_set: p.secrets === undefined ? 0 : 1,
    retry_delays_ms_set: p.retry === undefined ? 0 : 1,
    key_set: p.key === undefined ? 0 : 1,
    flow_control_key_set: p.flowControlKey === undefined ? 0 : 1,
  };
}
