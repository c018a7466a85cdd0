/**
 * `punctual/client`: a typed client of Punctual's HTTP API (docs/client.md). The types are
 * generated from the OpenAPI document (`schema.ts`, by openapi-typescript: `npm run client:types`);
 * the requests are made by openapi-fetch. A base URL and a token are all it needs:
 *
 * ```ts
 * import { createPunctualClient } from 'punctual/client';
 * const punctual = createPunctualClient({ baseUrl: 'http://127.0.0.1:8080', token: process.env.PUNCTUAL_TOKEN! });
 * const job = await punctual.cron.create({ expression: '0 9 * * MON-FRI', timezone: 'Europe/Berlin', endpoint: 'https://example.com/hook' });
 * await punctual.cron.pause(job.id);
 * for await (const s of punctual.schedules.listAll({ status: 'Pending' })) console.log(s.name);
 * ```
 *
 * Every method resolves with the answer's JSON body as the API defines it, or throws a
 * {@link PunctualProblem} (any 4xx or 5xx, with the RFC 9457 fields) or a
 * {@link PunctualConnectionError} (no answer). `get` of an unknown id resolves with null, as the
 * API answers a read of an id that names nothing (docs/interface.md).
 * This module imports nothing of the service: it runs in any runtime with `fetch`.
 */
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { PunctualConnectionError } from './errors.js';
import { flowControlKeyCalls } from './flow-control.js';
import type { paths } from './schema.js';
import { unwrap, type BodyOf, type QueryOf, type ResponseOf } from './wire.js';

export { PunctualConnectionError, PunctualProblem, type FieldProblem, type ProblemDetails } from './errors.js';
export type { components, operations, paths } from './schema.js';
export type { FlowControlKey, FlowControlKeyList, FlowControlKeyPut } from './flow-control.js';

/** A schedule (docs/interface.md), as the API answers it. */
export type Schedule = ResponseOf<'/schedules', 'post', 201>;
/** Body of `schedules.create` (POST /schedules). */
export type ScheduleCreate = BodyOf<'/schedules', 'post'>;
/** Body of `schedules.update` (PATCH /schedules/{id}): absent fields keep their values. */
export type ScheduleUpdate = BodyOf<'/schedules/{id}', 'patch'>;
/** Query of `schedules.list` (GET /schedules). */
export type ScheduleListQuery = QueryOf<'/schedules', 'get'>;
/** One page of schedules: `{ size, schedules, nextCursor }`. */
export type ScheduleList = ResponseOf<'/schedules', 'get', 200>;

/** A cron job (docs/interface.md), as the API answers it. */
export type CronJob = ResponseOf<'/cron', 'post', 201>;
/** Body of `cron.create` (POST /cron). */
export type CronJobCreate = BodyOf<'/cron', 'post'>;
/** Body of `cron.update` (PATCH /cron/{id}): absent fields keep their values, null clears a nullable one. */
export type CronJobUpdate = BodyOf<'/cron/{id}', 'patch'>;
/** Query of `cron.list` (GET /cron). */
export type CronJobListQuery = QueryOf<'/cron', 'get'>;
/** One page of cron jobs: `{ size, cronJobs, nextCursor }`. */
export type CronJobList = ResponseOf<'/cron', 'get', 200>;
/** Query of `cron.preview` (GET /cron/preview). */
export type CronPreviewQuery = QueryOf<'/cron/preview', 'get'>;
/** `{ occurrences: [ISO 8601…] }`. */
export type CronPreview = ResponseOf<'/cron/preview', 'get', 200>;

/** Body of `cron.bulk` (POST /cron/bulk): `action`, `filter` (`tag`, `status`, `ids`; at least one), `dryRun`. */
export type CronBulk = BodyOf<'/cron/bulk', 'post'>;
/** Body of `schedules.bulk` (POST /schedules/bulk). */
export type ScheduleBulk = BodyOf<'/schedules/bulk', 'post'>;
/** The answer of a bulk action: `{ count }`, the jobs changed (or, dry, that would be). */
export type BulkResult = ResponseOf<'/cron/bulk', 'post', 200>;

/** Body of `cron.backfill` (POST /cron/{id}/backfill): `from` (inclusive) and `to` (exclusive), ISO 8601. */
export type CronBackfill = BodyOf<'/cron/{id}/backfill', 'post'>;
/** Answer of `cron.backfill`: `{ count, executions }`, the executions created, oldest first. */
export type CronBackfilled = ResponseOf<'/cron/{id}/backfill', 'post', 202>;
/** An execution with its attempts. */
export type Execution = ResponseOf<'/schedules/{id}/trigger', 'post', 202>;
/** Query of `schedules.executions` and `cron.executions`: `limit` (1–100, default 20), `cursor`. */
export type ExecutionPageQuery = QueryOf<'/schedules/{id}/executions', 'get'>;
/** One page of executions, newest first: `{ size, executions, nextCursor }`. */
export type ExecutionPage = ResponseOf<'/schedules/{id}/executions', 'get', 200>;
/** Query of `executions.list`: `status` (any of), `jobType`, `jobId`, `from`, `to`, `limit` (1–1,000, default 100), `cursor`. */
export type ExecutionListQuery = QueryOf<'/executions', 'get'>;
/** One page of the audit log, newest first: `{ size, events, nextCursor }`. */
export type AuditEventPage = ResponseOf<'/audit-events', 'get', 200>;
/** One audit event. */
export type AuditEvent = AuditEventPage['events'][number];
/** Query of `auditEvents.list`: `actorKeyId`, `resourceType`, `resourceId`, `action`, `from`, `to`, `limit`, `cursor`. */
export type AuditEventQuery = QueryOf<'/audit-events', 'get'>;
/** Body of `executions.replayMany`: which Failed executions (`jobType`, `jobId`, `from`, `to`; at least one). */
export type ExecutionsReplayFilter = BodyOf<'/executions/replay', 'post'>;
/** Answer of `executions.replayMany`: `{ count }`. */
export type ExecutionsReplayed = ResponseOf<'/executions/replay', 'post', 202>;

/** An API key as listed and read (never with its token). */
export type ApiKey = NonNullable<ResponseOf<'/api-keys/{id}', 'get', 200>>;
/** A new API key with its token (shown only once). */
export type ApiKeyCreated = ResponseOf<'/api-keys', 'post', 201>;
/** Body of `apiKeys.create` (POST /api-keys). */
export type ApiKeyCreate = BodyOf<'/api-keys', 'post'>;
/** Body of `apiKeys.update` (PATCH /api-keys/{id}). */
export type ApiKeyUpdate = BodyOf<'/api-keys/{id}', 'patch'>;
/** `{ size, apiKeys }`. */
export type ApiKeyList = ResponseOf<'/api-keys', 'get', 200>;
/** Body of `apiKeys.rotate` (POST /api-keys/{id}/rotate). */
export type ApiKeyRotate = BodyOf<'/api-keys/{id}/rotate', 'post'>;
/** A scope of an API key. */
export type ApiKeyScope = ApiKey['scopes'][number];
/** `{ size, nodes }`: the live nodes of the cluster (GET /nodes). */
export type NodeList = ResponseOf<'/nodes', 'get', 200>;

/** A notification channel (docs/when-calls-fail.md). */
export type NotificationChannel = ResponseOf<'/notification-channels', 'post', 201>;
/** Body of `notificationChannels.create` (POST /notification-channels). */
export type NotificationChannelCreate = BodyOf<'/notification-channels', 'post'>;
/** Body of `notificationChannels.update` (PATCH /notification-channels/{id}). */
export type NotificationChannelUpdate = BodyOf<'/notification-channels/{id}', 'patch'>;
/** `{ size, notificationChannels }`. */
export type NotificationChannelList = ResponseOf<'/notification-channels', 'get', 200>;
/** `{ statusCode, durationMs, error }`: how the receiver took a test message. */
export type NotificationChannelTest = ResponseOf<'/notification-channels/{id}/test', 'post', 200>;

/** The answer of GET /healthz. */
export type Liveness = ResponseOf<'/healthz', 'get', 200>;
/** The answer of GET /readyz while the node is ready. */
export type Readiness = ResponseOf<'/readyz', 'get', 200>;

/** Options of {@link createPunctualClient}. */
export interface PunctualClientOptions {
  /** Where Punctual serves, e.g. `http://127.0.0.1:8080` (an absolute http or https URL; a path prefix is kept). */
  baseUrl: string;
  /** An API key's token (`pk_…`), sent as `Authorization: Bearer <token>` on every request. */
  token: string;
  /** The fetch to use (default `globalThis.fetch`), e.g. one with a dispatcher of your own. */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * Options of the calls that create or trigger (`schedules.create`, `createMany`, `trigger`,
 * `cron.create`, `trigger`).
 */
export interface WriteOptions {
  /**
   * Sent as `Idempotency-Key` (1–255 printable ASCII characters, e.g. `crypto.randomUUID()`): a
   * retry with the same key and body gets the first answer back instead of creating again
   * (docs/interface.md, "Idempotency-Key").
   */
  idempotencyKey?: string;
}

/** Every item of every page, fetching the next page (`nextCursor`) only when the previous one is consumed. */
async function* paged<P extends { nextCursor?: string | null }, T>(
  page: (cursor: string | undefined) => Promise<P>,
  items: (p: P) => T[],
  cursor?: string,
): AsyncGenerator<T, void, undefined> {
  let next: string | null | undefined = cursor;
  do {
    const p = await page(next ?? undefined);
    yield* items(p);
    next = p.nextCursor;
  } while (next);
}

/**
 * Every item of the pages `list` answers for `query`, page after page: {@link paged} with each
 * page's `nextCursor` passed back as the query's `cursor` (the first page from the start).
 */
function everyPage<Q, P extends { nextCursor?: string | null }, T>(
  list: (query: Q & { cursor: string | undefined }) => Promise<P>,
  items: (p: P) => T[],
  query: Q,
): AsyncGenerator<T, void, undefined> {
  return paged((cursor) => list({ ...query, cursor }), items);
}

/**
 * Creates a client of the Punctual API at `baseUrl` authenticating with `token`.
 * @throws TypeError when `baseUrl` is not an absolute http(s) URL or `token` is empty
 */
export function createPunctualClient(options: PunctualClientOptions) {
  let base: URL;
  try {
    base = new URL(options.baseUrl);
  } catch {
    throw new TypeError(`baseUrl must be an absolute http or https URL, got ${JSON.stringify(options.baseUrl)}`);
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') {
    throw new TypeError(`baseUrl must be an http or https URL, got ${JSON.stringify(options.baseUrl)}`);
  }
  if (typeof options.token !== 'string' || options.token.trim() === '') throw new TypeError('token must be a non-empty string');
  const authorization = `Bearer ${options.token}`;

  const auth: Middleware = {
    onRequest({ request }) {
      request.headers.set('authorization', authorization);
      return request;
    },
    onError({ request, error }) {
      // A caller's abort stays what it is; anything else fetch throws means no answer came.
      if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')) return error;
      return new PunctualConnectionError(request.url, error);
    },
  };
  const raw: Client<paths> = createClient<paths>({ baseUrl: base.href.replace(/\/+$/, ''), fetch: options.fetch });
  raw.use(auth);

  const id = (value: string) => ({ params: { path: { id: value } } });
  const header = (o: WriteOptions) => (o.idempotencyKey === undefined ? {} : { 'idempotency-key': o.idempotencyKey });
  const trigger = (path: '/schedules/{id}/trigger' | '/cron/{id}/trigger', jobId: string, o: WriteOptions) =>
    unwrap<Execution>(raw.POST(path, { params: { path: { id: jobId }, header: header(o) }, body: {} }));

  const schedules = {
    /** POST /schedules: creates a Pending schedule. */
    create: (body: ScheduleCreate, o: WriteOptions = {}) =>
      unwrap<Schedule>(raw.POST('/schedules', { params: { header: header(o) }, body })),
    /** POST /schedules/batch: creates up to PUNCTUAL_MAX_BATCH (1,000) schedules in one transaction, all or none; in request order. */
    createMany: async (bodies: ScheduleCreate[], o: WriteOptions = {}) =>
      (
        await unwrap<{ size: number; schedules: Schedule[] }>(
          raw.POST('/schedules/batch', { params: { header: header(o) }, body: { schedules: bodies } }),
        )
      ).schedules,
    /** GET /schedules: one page, oldest first; pass `nextCursor` back as `cursor` for the next. */
    list: (query: ScheduleListQuery = {}) => unwrap<ScheduleList>(raw.GET('/schedules', { params: { query } })),
    /** Every schedule matching `query`, following `nextCursor` page after page. */
    listAll: (query: ScheduleListQuery = {}) => everyPage(schedules.list, (p) => p.schedules, query),
    /** GET /schedules/{id}: the schedule, or null when none has this id. */
    get: (scheduleId: string) => unwrap<Schedule | null>(raw.GET('/schedules/{id}', id(scheduleId))),
    /** PATCH /schedules/{id}: a Pending schedule only (409 otherwise). */
    update: (scheduleId: string, body: ScheduleUpdate) =>
      unwrap<Schedule>(raw.PATCH('/schedules/{id}', { ...id(scheduleId), body })),
    /** DELETE /schedules/{id}. */
    delete: (scheduleId: string) => unwrap<void>(raw.DELETE('/schedules/{id}', id(scheduleId))),
    /** POST /schedules/bulk: deletes every schedule the filter matches (one transaction); `dryRun` only counts. */
    bulk: (body: ScheduleBulk) => unwrap<BulkResult>(raw.POST('/schedules/bulk', { body })),
    /** POST /schedules/{id}/trigger: runs a Pending schedule now; resolves with the new execution. */
    trigger: (scheduleId: string, o: WriteOptions = {}) => trigger('/schedules/{id}/trigger', scheduleId, o),
    /** POST /schedules/{id}/signing-secret: a new signing secret of the schedule's own, answered this once. */
    newSigningSecret: (scheduleId: string) =>
      unwrap<{ signingSecret: string }>(raw.POST('/schedules/{id}/signing-secret', { ...id(scheduleId), body: {} })),
    /** GET /schedules/{id}/executions: one page, newest first. */
    executions: (scheduleId: string, query: ExecutionPageQuery = {}) =>
      unwrap<ExecutionPage>(raw.GET('/schedules/{id}/executions', { params: { path: { id: scheduleId }, query } })),
    /** Every execution of the schedule, newest first, following `nextCursor`. */
    allExecutions: (scheduleId: string, query: ExecutionPageQuery = {}) =>
      everyPage((q) => schedules.executions(scheduleId, q), (p) => p.executions, query),
  };

  const cron = {
    /** POST /cron: creates an Active cron job. */
    create: (body: CronJobCreate, o: WriteOptions = {}) => unwrap<CronJob>(raw.POST('/cron', { params: { header: header(o) }, body })),
    /** GET /cron: one page, oldest first; pass `nextCursor` back as `cursor` for the next. */
    list: (query: CronJobListQuery = {}) => unwrap<CronJobList>(raw.GET('/cron', { params: { query } })),
    /** Every cron job matching `query`, following `nextCursor` page after page. */
    listAll: (query: CronJobListQuery = {}) => everyPage(cron.list, (p) => p.cronJobs, query),
    /** GET /cron/{id}: the job, or null when none has this id. */
    get: (jobId: string) => unwrap<CronJob | null>(raw.GET('/cron/{id}', id(jobId))),
    /** PATCH /cron/{id}. */
    update: (jobId: string, body: CronJobUpdate) => unwrap<CronJob>(raw.PATCH('/cron/{id}', { ...id(jobId), body })),
    /** PATCH /cron/{id} with `status: Paused` (and `pausedReason` when a reason is given): the job stops firing. */
    pause: (jobId: string, reason?: string) =>
      cron.update(jobId, reason === undefined ? { status: 'Paused' } : { status: 'Paused', pausedReason: reason }),
    /** PATCH /cron/{id} with `status: Active`: the job fires again from its next occurrence after now. */
    resume: (jobId: string) => cron.update(jobId, { status: 'Active' }),
    /** DELETE /cron/{id}. */
    delete: (jobId: string) => unwrap<void>(raw.DELETE('/cron/{id}', id(jobId))),
    /** POST /cron/bulk: pauses, resumes or deletes every job the filter matches (one transaction); `dryRun` only counts. */
    bulk: (body: CronBulk) => unwrap<BulkResult>(raw.POST('/cron/bulk', { body })),
    /** POST /cron/{id}/trigger: runs the job now, outside its schedule; resolves with the new execution. */
    trigger: (jobId: string, o: WriteOptions = {}) => trigger('/cron/{id}/trigger', jobId, o),
    /**
     * POST /cron/{id}/backfill: an execution (`backfill: true`) for each past occurrence in [from, to)
     * that has none (at most 1,000; docs/cron.md "Backfill"); `{ count, executions }`.
     */
    backfill: (cronJobId: string, body: CronBackfill, o: WriteOptions = {}) =>
      unwrap<CronBackfilled>(raw.POST('/cron/{id}/backfill', { params: { path: { id: cronJobId }, header: header(o) }, body })),
    /** POST /cron/{id}/signing-secret: a new signing secret of the job's own, answered this once. */
    newSigningSecret: (jobId: string) => unwrap<{ signingSecret: string }>(raw.POST('/cron/{id}/signing-secret', { ...id(jobId), body: {} })),
    /** GET /cron/{id}/executions: one page, newest first. */
    executions: (jobId: string, query: ExecutionPageQuery = {}) =>
      unwrap<ExecutionPage>(raw.GET('/cron/{id}/executions', { params: { path: { id: jobId }, query } })),
    /** Every execution of the job, newest first, following `nextCursor`. */
    allExecutions: (jobId: string, query: ExecutionPageQuery = {}) =>
      everyPage((q) => cron.executions(jobId, q), (p) => p.executions, query),
    /** GET /cron/preview: the next `count` (1–100, default 5) occurrences after `from` (default now). */
    preview: (query: CronPreviewQuery) => unwrap<CronPreview>(raw.GET('/cron/preview', { params: { query } })),
  };

  const executions = {
    /** GET /executions/{id}: the execution with its attempts, or null (unknown or pruned). */
    get: (executionId: string) => unwrap<Execution | null>(raw.GET('/executions/{id}', id(executionId))),
    /** GET /executions: one page of executions across jobs, newest first, filtered. */
    list: (query: ExecutionListQuery = {}) => unwrap<ExecutionPage>(raw.GET('/executions', { params: { query } })),
    /** POST /executions/{id}/replay: reopens a Failed execution (409 otherwise); the execution, Retrying and due now. */
    replay: (executionId: string) => unwrap<Execution>(raw.POST('/executions/{id}/replay', id(executionId))),
    /** POST /executions/replay: replays the Failed executions matching the filter (at most 10,000); how many. */
    replayMany: (body: ExecutionsReplayFilter) => unwrap<ExecutionsReplayed>(raw.POST('/executions/replay', { body })),
  };

  const apiKeys = {
    /** POST /api-keys: the key with its token, shown only in this answer. */
    create: (body: ApiKeyCreate) => unwrap<ApiKeyCreated>(raw.POST('/api-keys', { body })),
    /** GET /api-keys: every key, oldest first, without tokens. */
    list: () => unwrap<ApiKeyList>(raw.GET('/api-keys')),
    /** GET /api-keys/{id}: the key, or null. */
    get: (keyId: string) => unwrap<ApiKey | null>(raw.GET('/api-keys/{id}', id(keyId))),
    /** PATCH /api-keys/{id}: rename, enable/disable, set scopes or expiry (from the next request on). */
    update: (keyId: string, body: ApiKeyUpdate) => unwrap<ApiKey>(raw.PATCH('/api-keys/{id}', { ...id(keyId), body })),
    /** POST /api-keys/{id}/rotate: a new token (shown only in this answer); the old one stays valid for the grace period. */
    rotate: (keyId: string, body: ApiKeyRotate = {}) =>
      unwrap<ApiKeyCreated>(raw.POST('/api-keys/{id}/rotate', { ...id(keyId), body })),
    /** DELETE /api-keys/{id}. */
    delete: (keyId: string) => unwrap<void>(raw.DELETE('/api-keys/{id}', id(keyId))),
  };

  const notificationChannels = {
    /** POST /notification-channels. */
    create: (body: NotificationChannelCreate) => unwrap<NotificationChannel>(raw.POST('/notification-channels', { body })),
    /** GET /notification-channels: every channel, oldest first. */
    list: () => unwrap<NotificationChannelList>(raw.GET('/notification-channels')),
    /** GET /notification-channels/{id}: the channel, or null. */
    get: (channelId: string) => unwrap<NotificationChannel | null>(raw.GET('/notification-channels/{id}', id(channelId))),
    /** PATCH /notification-channels/{id}. */
    update: (channelId: string, body: NotificationChannelUpdate) =>
      unwrap<NotificationChannel>(raw.PATCH('/notification-channels/{id}', { ...id(channelId), body })),
    /** DELETE /notification-channels/{id} (its notifications not yet sent too). */
    delete: (channelId: string) => unwrap<void>(raw.DELETE('/notification-channels/{id}', id(channelId))),
    /** POST /notification-channels/{id}/test: sends a test message at once; how the receiver took it. */
    test: (channelId: string) => unwrap<NotificationChannelTest>(raw.POST('/notification-channels/{id}/test', id(channelId))),
  };

  const auditEvents = {
    /** GET /audit-events: one page of the audit log, newest first, filtered (needs keys:manage). */
    list: (query: AuditEventQuery = {}) => unwrap<AuditEventPage>(raw.GET('/audit-events', { params: { query } })),
  };

  return {
    schedules,
    cron,
    executions,
    apiKeys,
    notificationChannels,
    auditEvents,
    flowControlKeys: flowControlKeyCalls(raw),
    /** GET /healthz: answers while the process serves (liveness; needs no key). */
    liveness: () => unwrap<Liveness>(raw.GET('/healthz')),
    /** GET /readyz: answers while the node takes work and its store answers; a 503 PunctualProblem otherwise. */
    readiness: () => unwrap<Readiness>(raw.GET('/readyz')),
    /** GET /nodes: the live nodes of the cluster (needs `metrics:read`). */
    nodes: () => unwrap<NodeList>(raw.GET('/nodes')),
    /** GET /metrics: the node's metrics in the Prometheus text format. */
    metrics: () => unwrap<string>(raw.GET('/metrics', { parseAs: 'text' })),
    /** The underlying openapi-fetch client (authenticated), for anything the methods do not cover. */
    raw,
  };
}

/** The client {@link createPunctualClient} returns. */
export type PunctualClient = ReturnType<typeof createPunctualClient>;
