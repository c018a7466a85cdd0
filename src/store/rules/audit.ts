/**
 * The rules of the audit log shared by both stores (docs/keys-and-audit.md): which fields are secret and
 * how they are redacted, the `changes` of an event (the diff of the rows before and after, computed
 * here once, inside each store's transaction), what each audited operation records, the row of an
 * event, and the statements valid in both dialects (named `:parameters`; PostgreSQL's driver turns
 * them into positional ones, store/postgres/queries/audit.ts).
 */
import type {
  AuditAction,
  AuditActor,
  AuditEvent,
  AuditFieldChange,
  AuditRecord,
  AuditResourceType,
} from '../../domain/audit.js';
import { newId } from '../../domain/ids.js';
import { decodeCursor, encodeCursor } from './paging.js';
import type { AuditPageParams } from '../contract/audit.js';

/** What replaces a secret value in `changes`. */
export const REDACTED = '[redacted]';

/**
 * The secret fields, the one list: their values never reach an event (null stays null, so that
 * "the secret was cleared" is still seen). `secrets`: the sealed secrets of a job's target
 * authentication and its signing secret; `signingSecret`: a job's signing secret; `url`: a
 * notification channel's URL (a Slack or Discord webhook URL is itself a credential); `digest`,
 * `token`: an API key's token and its digest. Besides these, `headers` keeps every header name but
 * replaces the value of each header whose name matches {@link SECRET_HEADER}.
 */
export const SECRET_FIELDS: ReadonlySet<string> = new Set(['secrets', 'signingSecret', 'url', 'digest', 'token']);

/** Header names whose values are credentials: `Authorization`, cookies, and any name with token, secret, key, password, signature, auth. */
export const SECRET_HEADER = /auth|cookie|token|secret|key|pass|signature/i;

/** Fields holding an instant (epoch ms) shown as ISO 8601 in `changes`, as on the wire. */
const INSTANT_FIELDS: ReadonlySet<string> = new Set([
  'createdAt', 'scheduledAt', 'dueAt', 'nextInvocation', 'lastInvocation', 'lastUsed', 'expiresAt',
  'scheduledFor', 'nextAttemptAt', 'finishedAt', 'startedAt', 'leaseExpiresAt',
]);

/** The value of field `name` as an event shows it: redacted when secret ({@link SECRET_FIELDS}), instants in ISO 8601. */
export function redact(name: string, value: unknown): unknown {
  if (value === null || value === undefined) return value ?? null;
  if (SECRET_FIELDS.has(name)) return REDACTED;
  if (name === 'headers' && typeof value === 'object' && !Array.isArray(value)) {
    return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, SECRET_HEADER.test(k) ? REDACTED : v]));
  }
  if (INSTANT_FIELDS.has(name) && typeof value === 'number' && Number.isFinite(value)) return new Date(value).toISOString();
  return value;
}

/** Equality of two field values (JSON values: deep, key order included, as stored). */
function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/**
 * The `changes` of an event: for a create (`before` null) every field of `after` with only
 * `after`; for a delete (`after` null) every field of `before` with only `before`; for an update
 * the fields whose values differ, with both. Values through {@link redact}.
 */
export function auditChanges(before: object | null, after: object | null): Record<string, AuditFieldChange> {
  const b = (before ?? {}) as Record<string, unknown>;
  const a = (after ?? {}) as Record<string, unknown>;
  const out: Record<string, AuditFieldChange> = {};
  for (const name of new Set([...Object.keys(b), ...Object.keys(a)])) {
    if (before !== null && after !== null && same(b[name], a[name])) continue;
    const change: AuditFieldChange = {};
    if (before !== null) change.before = redact(name, b[name]);
    if (after !== null) change.after = redact(name, a[name]);
    out[name] = change;
  }
  return out;
}

/**
 * What an audited store operation records, decided once for both stores: the resource, whether
 * the store reads the row before the change (`readBefore`: updates and deletes, inside the
 * transaction), and the state after the change from the operation's result: an object (created
 * or updated), null (deleted), or undefined when the operation changed nothing (not found, not
 * pending, a conflict): then no event is written.
 */
export interface AuditTarget<T> {
  resourceType: Exclude<AuditResourceType, 'address'>;
  resourceId: string;
  readBefore: boolean;
  after: (result: T) => object | null | undefined;
}

/** A create: no state before, the result after. */
export function createTarget<T extends object>(resourceType: AuditTarget<T>['resourceType'], resourceId: string): AuditTarget<T> {
  return { resourceType, resourceId, readBefore: false, after: (r) => r };
}
/** An update returning the row, or anything else (null, a string) when nothing changed. */
export function updateTarget<T>(resourceType: AuditTarget<T>['resourceType'], resourceId: string): AuditTarget<T> {
  return { resourceType, resourceId, readBefore: true, after: (r) => (r !== null && typeof r === 'object' ? r : undefined) };
}
/** A delete returning whether a row was deleted. */
export function deleteTarget(resourceType: AuditTarget<boolean>['resourceType'], resourceId: string): AuditTarget<boolean> {
  return { resourceType, resourceId, readBefore: true, after: (deleted) => (deleted ? null : undefined) };
}
/** A trigger of a job: the job is the resource, the change the execution it made (`executionId`). */
export function triggerTarget<T>(resourceType: 'schedule' | 'cronJob', resourceId: string): AuditTarget<T> {
  return {
    resourceType,
    resourceId,
    readBefore: false,
    after: (r) => (r !== null && typeof r === 'object' && 'id' in r ? { executionId: (r as { id: string }).id } : undefined),
  };
}

/**
 * A change of many rows at once (a bulk action, a replay by filter): the kind is the resource,
 * `resourceId` `*`, the change its parameters (`what`) and how many rows changed; no event when
 * none did (a dry run, or nothing matched).
 */
export function manyTarget<T>(resourceType: AuditTarget<T>['resourceType'], what: object, count: (result: T) => number): AuditTarget<T> {
  return {
    resourceType,
    resourceId: '*',
    readBefore: false,
    after: (r) => {
      const n = count(r);
      return n > 0 ? { ...what, count: n } : undefined;
    },
  };
}

/** The parameters of a bulk action, as its event shows them. */
export function bulkWhat(p: { action: string; filter: object }): object {
  return { action: p.action, filter: p.filter };
}

/** The filter of a replay by filter, as its event shows it (instants in ISO 8601). */
export function replayWhat(p: { jobType: string | null; jobId: string | null; from: number | null; to: number | null }): object {
  const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return { filter: { jobType: p.jobType, jobId: p.jobId, from: iso(p.from), to: iso(p.to) } };
}

/** A backfill of a cron job: the job is the resource, the change the executions made (count, first and last occurrence). */
export function backfillTarget(jobId: string): AuditTarget<readonly { scheduledFor: number }[] | 'not_found'> {
  return {
    resourceType: 'cronJob',
    resourceId: jobId,
    readBefore: false,
    after: (r) =>
      Array.isArray(r) && r.length > 0
        ? { backfilled: r.length, firstOccurrence: new Date(r[0]!.scheduledFor).toISOString(), lastOccurrence: new Date(r[r.length - 1]!.scheduledFor).toISOString() }
        : undefined,
  };
}

/** The tables of the audited resources (the row a store locks and reads before an update or delete). */
export const AUDIT_TABLES: Record<AuditTarget<unknown>['resourceType'], string> = {
  schedule: 'schedules',
  cronJob: 'cron_jobs',
  execution: 'executions',
  apiKey: 'api_keys',
  channel: 'notification_channels',
};

/** A row of `audit_events` (named parameters of {@link AUDIT_INSERT_SQL}). */
export interface AuditRow {
  id: string;
  occurred_at: number;
  /** `key`, `cli` or `system`. */
  actor_kind: string;
  actor_key_id: string | null;
  actor_key_name: string | null;
  action: string;
  resource_type: string;
  resource_id: string;
  request_id: string | null;
  source_address: string | null;
  /** JSON text of `changes`. */
  changes: string;
  /** Failed sign-ins counted in the row (`auth.failure`), else null. */
  failures: number | null;
  /** The key of a counted row (`auth.failure`: address and minute), else null. */
  dedupe: string | null;
}

function actorColumns(actor: AuditActor): Pick<AuditRow, 'actor_kind' | 'actor_key_id' | 'actor_key_name'> {
  return typeof actor === 'string'
    ? { actor_kind: actor, actor_key_id: null, actor_key_name: null }
    : { actor_kind: 'key', actor_key_id: actor.keyId, actor_key_name: actor.keyName };
}

/**
 * The row of the event of `record` on `target`, given the row `before` (null when none was read)
 * and the operation's `result`; null when the operation changed nothing (no event).
 */
export function auditRow<T>(record: AuditRecord, target: AuditTarget<T>, before: object | null, result: T): AuditRow | null {
  const after = target.after(result);
  if (after === undefined || (after === null && before === null)) return null;
  return {
    id: newId(),
    occurred_at: Math.floor(record.at),
    ...actorColumns(record.actor),
    action: record.action,
    resource_type: target.resourceType,
    resource_id: target.resourceId,
    request_id: record.requestId,
    source_address: record.sourceAddress,
    changes: JSON.stringify(auditChanges(before, after)),
    failures: null,
    dedupe: null,
  };
}

/** The changes of `cron.autoPause`: the job went from Active to Paused with this reason. */
export function autoPauseChanges(reason: string | null): string {
  return JSON.stringify({ status: { before: 'Active', after: 'Paused' }, pausedReason: { before: null, after: reason } });
}

/** The row of a `cron.autoPause` event (actor `system`), written in the finish transaction that paused the job. */
export function autoPauseRow(jobId: string, reason: string | null, at: number): AuditRow {
  return {
    id: newId(),
    occurred_at: Math.floor(at),
    ...actorColumns('system'),
    action: 'cron.autoPause' satisfies AuditAction,
    resource_type: 'cronJob',
    resource_id: jobId,
    request_id: null,
    source_address: null,
    changes: autoPauseChanges(reason),
    failures: null,
    dedupe: null,
  };
}

/** One minute, the window of the count of failed sign-ins. */
export const AUTH_FAILURE_WINDOW_MS = 60_000;

/**
 * The row counting one failed sign-in from `address` at `at`: `auth.failure` on resource
 * `address`, actor `system`, `occurredAt` the start of its minute (UTC); a second failure of the
 * same address and minute adds one to the same row ({@link AUTH_FAILURE_SQL}).
 */
export function authFailureRow(address: string, at: number): AuditRow {
  const minute = Math.floor(at / AUTH_FAILURE_WINDOW_MS) * AUTH_FAILURE_WINDOW_MS;
  return {
    id: newId(),
    occurred_at: minute,
    ...actorColumns('system'),
    action: 'auth.failure' satisfies AuditAction,
    resource_type: 'address',
    resource_id: address,
    request_id: null,
    source_address: address,
    changes: '{}',
    failures: 1,
    dedupe: `auth.failure ${minute} ${address}`,
  };
}

/** The columns of `audit_events` read back, in {@link AuditRow} order. */
export const AUDIT_COLUMNS =
  'id, occurred_at, actor_kind, actor_key_id, actor_key_name, action, resource_type, resource_id, request_id, source_address, changes, failures, dedupe';

const VALUES = AUDIT_COLUMNS.split(', ').map((c) => `:${c}`).join(', ');

/** Inserts one event (both dialects). */
export const AUDIT_INSERT_SQL = `INSERT INTO audit_events (${AUDIT_COLUMNS}) VALUES (${VALUES})`;

/** Inserts or counts one failed sign-in (both dialects: the unique index on `dedupe`). */
export const AUTH_FAILURE_SQL = `${AUDIT_INSERT_SQL}
ON CONFLICT (dedupe) DO UPDATE SET failures = audit_events.failures + 1`;

/** Deletes at most `:limit` events older than `:before` (epoch ms), oldest first, through `audit_events_by_time`. */
export const AUDIT_PRUNE_SQL = `DELETE FROM audit_events WHERE id IN (
  SELECT id FROM audit_events WHERE occurred_at < :before ORDER BY occurred_at, id LIMIT :limit)`;

/** An event from its row. */
export function auditFromRow(r: AuditRow): AuditEvent {
  const actor: AuditActor =
    r.actor_kind === 'key' ? { keyId: r.actor_key_id ?? '', keyName: r.actor_key_name ?? '' } : (r.actor_kind as 'cli' | 'system');
  const changes = r.failures !== null ? { count: { after: Number(r.failures) } } : (JSON.parse(r.changes) as AuditEvent['changes']);
  return {
    id: r.id,
    occurredAt: Number(r.occurred_at),
    actor,
    action: r.action as AuditAction,
    resourceType: r.resource_type as AuditResourceType,
    resourceId: r.resource_id,
    requestId: r.request_id,
    sourceAddress: r.source_address,
    changes,
  };
}

/**
 * The page statement for the filters given (both dialects; named parameters `:at`, `:id`,
 * `:limit` and one per filter given): newest first by `(occurred_at, id)`, after the cursor's
 * position. Each filter is written into the statement only when given, so that the database
 * walks the index that answers it: `audit_events_by_resource` for a resource, `_by_actor` for a
 * key, `_by_action` for an action, else `_by_time`; `from`/`to` bound the walk.
 */
export function auditPageSql(p: AuditPageParams): string {
  const where = ['(occurred_at, id) < (:at, :id)'];
  if (p.resourceType !== null) where.push('resource_type = :resourceType');
  if (p.resourceId !== null) where.push('resource_id = :resourceId');
  if (p.actorKeyId !== null) where.push('actor_key_id = :actorKeyId');
  if (p.action !== null) where.push('action = :action');
  if (p.from !== null) where.push('occurred_at >= :from');
  if (p.to !== null) where.push('occurred_at < :to');
  return `SELECT ${AUDIT_COLUMNS} FROM audit_events WHERE ${where.join(' AND ')} ORDER BY occurred_at DESC, id DESC LIMIT :limit`;
}

/**
 * The named parameters of {@link auditPageSql}: only those of the filters given; `limit` one more
 * than the page, to know whether another follows.
 * @throws InvalidInputError (path `/query/cursor`) for a cursor not made by {@link auditPageOf}
 */
export function auditPageParams(p: AuditPageParams): Record<string, string | number> {
  const start = p.cursor === null ? { at: Number.MAX_SAFE_INTEGER, id: '' } : decodeCursor(p.cursor);
  const out: Record<string, string | number> = { at: start.at, id: start.id, limit: Math.max(1, Math.floor(p.limit)) + 1 };
  for (const k of ['resourceType', 'resourceId', 'actorKeyId', 'action', 'from', 'to'] as const) {
    const v = p[k];
    if (v !== null) out[k] = v;
  }
  return out;
}

/** The page from the rows of {@link auditPageSql} (at most `limit + 1`), with its `nextCursor`. */
export function auditPageOf(rows: AuditRow[], limit: number): { events: AuditEvent[]; nextCursor: string | null } {
  const n = Math.max(1, Math.floor(limit));
  const page = rows.slice(0, n);
  const last = page[page.length - 1];
  return {
    events: page.map(auditFromRow),
    nextCursor: rows.length > n && last ? encodeCursor({ at: Number(last.occurred_at), id: last.id }) : null,
  };
}
