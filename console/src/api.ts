/**
 * Every call the console makes to the Punctual API, in one place. The wire shapes are not written
 * here: they are the types generated from the OpenAPI document (src/client/schema.ts, made by
 * `npm run client:types` from docs/openapi.json), and `request` (./api-request.ts) takes a path
 * template and a method of that document, so a call to an operation the API does not have fails
 * to typecheck. The API key is read from sessionStorage ({@link session}) and sent as
 * `Authorization: Bearer`; errors are RFC 9457 problem details, thrown as {@link ApiError}.
 *
 * Lists (`GET /schedules`, `GET /cron`) are paged and filtered by the service: the console sends
 * `limit`, `cursor`, `status`, `tag` (repeated) and `name`, and follows `nextCursor`.
 */
import type { components, paths } from '../../src/client/schema';
import { request } from './api-request';

export { ApiError, onUnauthorized, session, type FieldProblem, type Problem } from './api-request';

/** The statuses a list can be filtered by, and the methods of calls, as the service defines them (src/domain/enums.ts). */
export { CRON_JOB_STATUSES, HTTP_METHODS, SCHEDULE_STATUSES } from '../../src/domain/enums';

type Schemas = components['schemas'];

/** A one-time job. Instants are ISO 8601 UTC strings. */
export type Schedule = Schemas['Schedule'];
/** A recurring job. */
export type CronJob = Schemas['CronJob'];
/** One firing of a job, with its attempts (oldest first). */
export type Execution = Schemas['Execution'];
/** One event of the audit log. */
export type AuditEvent = paths['/audit-events']['get']['responses'][200]['content']['application/json']['events'][number];
/** One call of an endpoint; `durationMs` in ms. */
export type Attempt = Schemas['Attempt'];
/** Retry policy of a job; delays in ms. */
export type RetryPolicy = Schemas['RetryPolicy'];

export type ScheduleStatus = Schedule['status'];
export type CronStatus = CronJob['status'];
export type ExecutionStatus = Execution['status'];
export type JobType = Execution['jobType'];
export type MisfirePolicy = CronJob['misfire'];
export type OverlapPolicy = CronJob['overlap'];
/** The HTTP method of a job's calls. */
export type HttpMethod = Schedule['method'];
/** A job's authentication to its target as responses show it: no secret part. */
export type AuthPublic = NonNullable<Schedule['auth']>;
/** `auth` of a create or patch body, with its secret part (write-only). */
export type AuthInput = NonNullable<ScheduleInput['auth']>;
export type JsonObject = Record<string, unknown>;

/** Body of POST /schedules. */
export type ScheduleInput = Schemas['ScheduleCreate'];
/** Body of PATCH /schedules/{id}: absent fields keep their values. */
export type SchedulePatch = Schemas['SchedulePatch'];
/** Body of POST /cron. */
export type CronInput = Schemas['CronJobCreate'];
/** Body of PATCH /cron/{id}: absent fields keep their values; null sets a nullable field to null. */
export type CronPatch = Schemas['CronJobPatch'];

/** A page of a list; `nextCursor` is null on the last page (a page may be short while it is not). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

// ---- Keys -------------------------------------------------------------------------------------

/** Checks a key with `GET /schedules` (any authenticated read would do); throws the ApiError on refusal. */
export async function verifyKey(token: string): Promise<void> {
  await request('get', '/schedules', { token });
}

// ---- Lists --------------------------------------------------------------------------------------

/**
 * Filters and paging of a list. `tag`: every tag must match. `name`: a substring, the letters
 * A–Z in either case. `limit`: 1–1,000 (the service's default is 100).
 */
export interface ListQuery {
  limit?: number;
  cursor?: string | null;
  status?: string;
  tag?: string[];
  name?: string;
}

function listParams(q: ListQuery): URLSearchParams {
  const p = new URLSearchParams();
  if (q.limit !== undefined) p.set('limit', String(q.limit));
  if (q.cursor) p.set('cursor', q.cursor);
  if (q.status) p.set('status', q.status);
  for (const t of q.tag ?? []) if (t) p.append('tag', t);
  if (q.name) p.set('name', q.name);
  return p;
}

/** A page of schedules (oldest first). */
export async function listSchedules(q: ListQuery = {}): Promise<Page<Schedule>> {
  const answer = await request('get', '/schedules', { query: listParams(q) });
  return { items: answer.schedules, nextCursor: answer.nextCursor };
}

/** A page of cron jobs (oldest first). `tag` does not apply: cron jobs have no tags. */
export async function listCronJobs(q: ListQuery = {}): Promise<Page<CronJob>> {
  const answer = await request('get', '/cron', { query: listParams(q) });
  return { items: answer.cronJobs, nextCursor: answer.nextCursor };
}

/** Every item of a list (at most `max`), page by page from the service. */
export async function listAll<T>(fetchPage: (q: ListQuery) => Promise<Page<T>>, max = 5_000): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<T> = await fetchPage({ limit: 1_000, cursor });
    all.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor && all.length < max);
  return all.slice(0, max);
}

// ---- Schedules ----------------------------------------------------------------------------------

/** The schedule, or null when none has this id. */
export const getSchedule = (id: string) => request('get', '/schedules/{id}', { id });
export const createSchedule = (body: ScheduleInput) => request('post', '/schedules', { body });
export const updateSchedule = (id: string, body: SchedulePatch) => request('patch', '/schedules/{id}', { id, body });
export const deleteSchedule = (id: string) => request('delete', '/schedules/{id}', { id });

// ---- Cron jobs ----------------------------------------------------------------------------------

/** The cron job, or null when none has this id. */
export const getCronJob = (id: string) => request('get', '/cron/{id}', { id });
export const createCronJob = (body: CronInput) => request('post', '/cron', { body });
export const updateCronJob = (id: string, body: CronPatch) => request('patch', '/cron/{id}', { id, body });
export const deleteCronJob = (id: string) => request('delete', '/cron/{id}', { id });

/**
 * The next `count` occurrences (ISO UTC) of `expression` in `timezone` (UTC when empty), after
 * `from` (now); an `@every` expression counts from `startAt` (now).
 */
export async function previewCron(
  expression: string,
  timezone: string | null,
  count = 5,
  from?: string,
  startAt?: string,
): Promise<string[]> {
  const query = new URLSearchParams({ expression, count: String(count) });
  if (timezone) query.set('timezone', timezone);
  if (from) query.set('from', from);
  if (startAt) query.set('startAt', startAt);
  return (await request('get', '/cron/preview', { query })).occurrences;
}

// ---- Notification channels ------------------------------------------------------------------------

/** Where Punctual announces failures (docs/when-calls-fail.md). */
export type NotificationChannel = Schemas['NotificationChannel'];
/** Body of POST /notification-channels. */
export type NotificationChannelInput = Schemas['NotificationChannelCreate'];
/** How a receiver took a test message: `statusCode` null when none answered; `error` null on a 2xx. */
export type NotificationChannelTest = Schemas['NotificationChannelTest'];
export { CHANNEL_TYPES, NOTIFICATION_EVENTS } from '../../src/domain/notifications';

/** Every channel, oldest first. */
export const listChannels = async (): Promise<NotificationChannel[]> => (await request('get', '/notification-channels')).notificationChannels;
export const createChannel = (body: NotificationChannelInput) => request('post', '/notification-channels', { body });
export const deleteChannel = (id: string) => request('delete', '/notification-channels/{id}', { id });
/** Sends a test message to the channel now (POST …/test). */
export const testChannel = (id: string) => request('post', '/notification-channels/{id}/test', { id });

// ---- API keys ------------------------------------------------------------------------------------

/** An API key (never its token), with its scopes and expiry (docs/keys-and-audit.md). */
export type ApiKey = Schemas['ApiKey'];
/** A key with its token: the answer of a creation or a rotation, shown once. */
export type ApiKeyCreated = Schemas['ApiKeyCreated'];
/** Body of POST /api-keys. */
export type ApiKeyInput = Schemas['ApiKeyCreate'];
/** A scope of a key. */
export type ApiKeyScope = ApiKey['scopes'][number];
export { API_KEY_SCOPES } from '../../src/domain/enums';

/** Every key, oldest first. */
export const listApiKeys = async (): Promise<ApiKey[]> => (await request('get', '/api-keys')).apiKeys;
export const createApiKey = (body: ApiKeyInput) => request('post', '/api-keys', { body });
/** A new token for the key; the old one works for `gracePeriodSeconds`. */
export const rotateApiKey = (id: string, gracePeriodSeconds: number) =>
  request('post', '/api-keys/{id}/rotate', { id, body: { gracePeriodSeconds } });

// ---- Flow-control keys ------------------------------------------------------------------------

/** A flow-control key (docs/flow-control.md): its limits (`period` in ms) and its live state. */
export type FlowControlKey = NonNullable<paths['/flow-control-keys/{key}']['get']['responses'][200]['content']['application/json']>;
/** Body of PUT /flow-control-keys/{key}: all the key's limits (absent ones are null, `period` 1,000 ms, `paused` false). */
export type FlowControlKeyInput = paths['/flow-control-keys/{key}']['put']['requestBody']['content']['application/json'];

/** Every key in use (configured, or named by a job), in byte order of their names. */
export const listFlowControlKeys = async (): Promise<FlowControlKey[]> => (await request('get', '/flow-control-keys')).flowControlKeys;
/** Configures the key, replacing all its limits. */
export const putFlowControlKey = (key: string, body: FlowControlKeyInput) => request('put', '/flow-control-keys/{key}', { id: key, body });
/** Removes the key's limits (its waiting calls start at once). */
export const deleteFlowControlKey = (key: string) => request('delete', '/flow-control-keys/{key}', { id: key });
/** Pauses (`paused` true) or resumes a configured key. */
export const setFlowControlKeyPaused = (key: string, paused: boolean) =>
  paused ? request('post', '/flow-control-keys/{key}/pause', { id: key }) : request('post', '/flow-control-keys/{key}/resume', { id: key });

// ---- Executions ---------------------------------------------------------------------------------

/** A page of a job's executions, newest first (`limit` 1–100). */
export async function listExecutions(
  jobType: JobType,
  id: string,
  opts: { limit?: number; cursor?: string | null } = {},
): Promise<Page<Execution>> {
  const query = new URLSearchParams();
  if (opts.limit) query.set('limit', String(opts.limit));
  if (opts.cursor) query.set('cursor', opts.cursor);
  const answer =
    jobType === 'schedule'
      ? await request('get', '/schedules/{id}/executions', { id, query })
      : await request('get', '/cron/{id}/executions', { id, query });
  return { items: answer.executions, nextCursor: answer.nextCursor };
}

/**
 * Generates the job's own signing secret (POST …/signing-secret), replacing any; answers it, the
 * only time the service shows it (`whsec_…`).
 */
export const newSigningSecret = async (jobType: JobType, id: string): Promise<string> =>
  (jobType === 'schedule'
    ? await request('post', '/schedules/{id}/signing-secret', { id })
    : await request('post', '/cron/{id}/signing-secret', { id })
  ).signingSecret;

/** Runs a job now (POST …/trigger); answers the new execution. */
export const triggerJob = (jobType: JobType, id: string): Promise<Execution> =>
  jobType === 'schedule' ? request('post', '/schedules/{id}/trigger', { id }) : request('post', '/cron/{id}/trigger', { id });

/**
 * Backfills a cron job (POST /cron/{id}/backfill): an execution for each past occurrence in
 * [from, to) (ISO 8601) that has none; answers how many were created.
 */
export const backfillCron = async (id: string, from: string, to: string): Promise<number> =>
  (await request('post', '/cron/{id}/backfill', { id, body: { from, to } })).count;

/** Filters of the executions list across jobs (GET /executions); instants ISO 8601. */
export interface ExecutionFilter {
  status?: ExecutionStatus[];
  jobType?: JobType;
  jobId?: string;
  from?: string;
  to?: string;
}

/** A page of executions across jobs, newest first (`limit` 1–1,000). */
export async function searchExecutions(f: ExecutionFilter, opts: { limit?: number; cursor?: string | null } = {}): Promise<Page<Execution>> {
  const query = new URLSearchParams();
  for (const s of f.status ?? []) query.append('status', s);
  if (f.jobType) query.set('jobType', f.jobType);
  if (f.jobId) query.set('jobId', f.jobId);
  if (f.from) query.set('from', f.from);
  if (f.to) query.set('to', f.to);
  if (opts.limit) query.set('limit', String(opts.limit));
  if (opts.cursor) query.set('cursor', opts.cursor);
  const answer = await request('get', '/executions', { query });
  return { items: answer.executions, nextCursor: answer.nextCursor };
}

/** Replays a Failed execution (POST /executions/{id}/replay); answers it, Retrying and due now. */
export const replayExecution = (id: string): Promise<Execution> => request('post', '/executions/{id}/replay', { id });

/** Replays the Failed executions matching the filter (at least one field); answers how many. */
export const replayExecutions = async (f: Omit<ExecutionFilter, 'status'>): Promise<number> =>
  (await request('post', '/executions/replay', { body: f })).count;

/** The filter of a bulk action: tags (every one), status (one); at least one given. */
export interface BulkFilter {
  tag?: string[];
  status?: string;
}

/** POST /cron/bulk: pauses, resumes or deletes the matching cron jobs (or, dry, counts them); answers the count. */
export const bulkCronJobs = async (action: 'pause' | 'resume' | 'delete', filter: BulkFilter, dryRun: boolean): Promise<number> =>
  (await request('post', '/cron/bulk', { body: { action, filter: filter as never, dryRun } })).count;

/** POST /schedules/bulk: deletes the matching schedules (or, dry, counts them); answers the count. */
export const bulkSchedules = async (filter: BulkFilter, dryRun: boolean): Promise<number> =>
  (await request('post', '/schedules/bulk', { body: { action: 'delete', filter: filter as never, dryRun } })).count;

/** Filters of the audit log (GET /audit-events); empty fields are left out. */
export interface AuditFilter {
  action?: string;
  resourceType?: string;
  resourceId?: string;
  actorKeyId?: string;
}

/** A page of the audit log, newest first (GET /audit-events). */
export async function listAuditEvents(f: AuditFilter, opts: { limit?: number; cursor?: string | null } = {}): Promise<Page<AuditEvent>> {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v) query.set(k, v);
  if (opts.limit) query.set('limit', String(opts.limit));
  if (opts.cursor) query.set('cursor', opts.cursor);
  const answer = await request('get', '/audit-events', { query });
  return { items: answer.events, nextCursor: answer.nextCursor };
}
