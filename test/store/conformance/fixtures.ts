/**
 * What the areas of the Store conformance suite share: the suite's instant (`T0`), the policies,
 * requests and cron expressions of its jobs, and {@link suiteHelpers}, the calls most areas make
 * (claim, create, finish, walk a history) on the store of the running test. Times are epoch
 * milliseconds; durations are milliseconds.
 */
import { createHash } from 'node:crypto';
import { newId } from '../../../src/domain/ids.js';
import type {
  AttemptOutcome,
  ClaimedExecution,
  Execution,
  MisfirePolicy,
  OverlapPolicy,
  RetryPolicy,
} from '../../../src/domain/types.js';
import type { ClaimDueParams, CronCreateParams, Store } from '../../../src/store/store.js';

/** 2030-01-01T00:00:00.000Z (a whole hour), epoch ms: the suite's "now". */
export const T0 = Date.UTC(2030, 0, 1);

/**
 * A UUID whose lexical order is `n`'s: lets a test make id order differ from creation order.
 * @param n a non-negative integer below 16^12
 * @returns `00000000-0000-4000-8000-` and `n` in 12 hex digits
 */
export function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

/**
 * The digest an API key's token is stored under.
 * @returns the SHA-256 of `token`, 64 lowercase hex digits
 */
export function digestOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Default lease of the tests' claims, ms (30 days): long enough never to expire unless a test means it to. */
export const LONG_LEASE = 30 * 86_400_000;

/* Expressions of the tests' cron jobs: occurrences at T0 + k·period (T0 is on a whole hour). */
/** Every minute: occurrences at T0 + k·60,000 ms. */
export const EVERY_MINUTE = '* * * * *';
/** Every second (six fields): occurrences at T0 + k·1,000 ms. */
export const EVERY_SECOND = '* * * * * *';
/** Every hour on the hour: occurrences at T0 + k·3,600,000 ms. */
export const HOURLY = '0 * * * *';

/** Misfire threshold of the tests' claims, ms (the service's default). */
export const THRESHOLD = 60_000;

/** Retry policy of the tests' jobs: 5 attempts, from 1 s up to an hour apart. */
export const RETRY: RetryPolicy = { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 3_600_000, delaysMs: null };
/** Call timeout of the tests' jobs, ms. A lease runs to now + TIMEOUT + leaseMs. */
export const TIMEOUT = 1_000;
/** A schedule's request with every field, auth and sealed secrets included (stored, never interpreted). */
export const REQUEST = {
  method: 'PUT',
  headers: { 'X-Tenant': 'acme', 'content-type': 'application/x-www-form-urlencoded' },
  body: 'a=1&b=%C3%A9',
  auth: { type: 'basic', username: 'ada' },
  secrets: { password: 'sealed:v1:abc' },
} as const;
/** A cron job's request: a GET with OAuth 2 authentication. */
export const CRON_REQUEST = {
  method: 'GET',
  headers: { Accept: 'text/csv' },
  body: null,
  auth: { type: 'oauth2', tokenUrl: 'https://auth.example.com/token', clientId: 'punctual', scope: 'jobs', audience: null },
  secrets: { clientSecret: 'sealed:v1:def' },
} as const;
/** What an attempt of a job made by `newSchedule` records of its call (an outcome without trace ids records null). */
export const CALLED = { method: 'POST', url: 'https://example.com/hook', traceId: null, spanId: null, waitedMs: null } as const;
/** The request of a job created without one: POST, no headers, no body, no authentication. */
export const NO_REQUEST = { method: 'POST', headers: {}, body: null, auth: null, secrets: null } as const;

/**
 * The parameters of a cron job every minute (no timezone), created at `now` (default T0), due an hour
 * after T0, named `cron` unless told, no data, no tags unless told.
 * @returns `CronCreateParams` for `store.cronCreate`
 */
export function cronParams(o: { name?: string | null; now?: number; id?: string; tags?: string[] } = {}): CronCreateParams {
  return {
    id: o.id ?? newId(),
    expression: '* * * * *',
    name: o.name === undefined ? 'cron' : o.name,
    timezone: null,
    endpoint: 'https://example.com/cron',
    data: null,
    nextInvocation: T0 + 3_600_000,
    retry: RETRY,
    timeoutMs: 1_000,
    misfire: 'once',
    overlap: 'allow',
    tags: o.tags ?? [],
    now: o.now ?? T0,
  };
}

/**
 * The calls most areas make, on the store of the running test.
 * @param store the store of the running test (exerciseStore's, made fresh before each test)
 * @returns
 * - `claim(now, o?)`: the executions `node-a` claims at `now` (epoch ms), 100 at most, with a
 *   lease of {@link LONG_LEASE} and a misfire threshold of {@link THRESHOLD}; `o` overrides any
 *   `ClaimDueParams` field
 * - `newSchedule(o?)`: a schedule `job` to https://example.com/hook, due at T0, created a minute
 *   before, data `{ n: 1 }`, tags `['a']`, {@link RETRY}, {@link TIMEOUT}; `o` overrides these
 * - `newCron(o?)`: a cron job `every minute` in Europe/Paris to https://example.com/cron, next
 *   at T0, created a minute before, data `{ c: 1 }`, misfire `once`, overlap `allow`
 * - `outcome(c, o?)`: a Succeeded outcome of claim `c` (200 `ok`, 12 ms, started 3 ms after its
 *   instant); `o` overrides any field
 * - `finish(c, o?, nodeId?)`: records that outcome, held by `nodeId` (`node-a`)
 * - `retryAt(c, at, nodeId?)`: records a retryable 503 of `c`, next attempt at `at` (epoch ms)
 * - `history(jobType, jobId)`: every execution of a job, newest first, all pages walked
 */
export function suiteHelpers(store: () => Store) {
  const claim = (now: number, o: Partial<ClaimDueParams> = {}): Promise<ClaimedExecution[]> =>
    store().claimDue({
      now,
      limit: 100,
      nodeId: 'node-a',
      leaseMs: LONG_LEASE,
      misfireThresholdMs: THRESHOLD,
      ...o,
    }).then((r) => r.claimed);

  const newSchedule = (
    o: {
      scheduledAt?: number;
      now?: number;
      id?: string;
      data?: object;
      tags?: string[];
      retry?: RetryPolicy;
      timeoutMs?: number;
      flowControlKey?: string;
    } = {},
  ) =>
    store().scheduleCreate({
      id: o.id ?? newId(),
      name: 'job',
      scheduledAt: o.scheduledAt ?? T0,
      endpoint: 'https://example.com/hook',
      data: (o.data ?? { n: 1 }) as Record<string, unknown>,
      tags: o.tags ?? ['a'],
      retry: o.retry ?? RETRY,
      timeoutMs: o.timeoutMs ?? TIMEOUT,
      now: o.now ?? T0 - 60_000,
      ...(o.flowControlKey !== undefined && { flowControlKey: o.flowControlKey }),
    });

  const newCron = (
    o: {
      nextInvocation?: number;
      now?: number;
      id?: string;
      expression?: string;
      timezone?: string;
      data?: object | null;
      misfire?: MisfirePolicy;
      overlap?: OverlapPolicy;
      retry?: RetryPolicy;
      timeoutMs?: number;
      flowControlKey?: string;
      jitterMs?: number;
    } = {},
  ) =>
    store().cronCreate({
      id: o.id ?? newId(),
      expression: o.expression ?? EVERY_MINUTE,
      name: 'every minute',
      timezone: o.timezone ?? 'Europe/Paris',
      endpoint: 'https://example.com/cron',
      data: (o.data === undefined ? { c: 1 } : o.data) as Record<string, unknown> | null,
      nextInvocation: o.nextInvocation ?? T0,
      retry: o.retry ?? RETRY,
      timeoutMs: o.timeoutMs ?? TIMEOUT,
      misfire: o.misfire ?? 'once',
      overlap: o.overlap ?? 'allow',
      now: o.now ?? T0 - 60_000,
      ...(o.flowControlKey !== undefined && { flowControlKey: o.flowControlKey }),
      ...(o.jitterMs !== undefined && { jitterMs: o.jitterMs }),
    });

  const outcome = (c: ClaimedExecution, o: Partial<AttemptOutcome> = {}): AttemptOutcome => ({
    executionId: c.executionId,
    attempt: c.attempt,
    status: 'Succeeded',
    nextAttemptAt: null,
    startedAt: c.scheduledFor + 3,
    durationMs: 12,
    statusCode: 200,
    error: null,
    responseBody: 'ok',
    method: c.method,
    url: c.endpoint,
    ...o,
  });

  /** Records one outcome for `c`, held by `c`'s claimer (`node-a` unless told). */
  const finish = (c: ClaimedExecution, o: Partial<AttemptOutcome> = {}, nodeId = 'node-a') =>
    store().executionsFinish({ nodeId, outcomes: [outcome(c, o)] });

  /** A retryable failure of `c`, next attempt at `at`. */
  const retryAt = (c: ClaimedExecution, at: number, nodeId = 'node-a') =>
    finish(c, { status: 'Retrying', nextAttemptAt: at, statusCode: 503, error: 'HTTP 503', responseBody: 'busy' }, nodeId);

  /** Every execution of a job, newest first, walking all pages. */
  const history = async (jobType: 'schedule' | 'cron', jobId: string): Promise<Execution[]> => {
    const all: Execution[] = [];
    let cursor: string | null = null;
    do {
      const page: { executions: Execution[]; nextCursor: string | null } = await store().executionList({ jobType, jobId, limit: 100, cursor });
      all.push(...page.executions);
      cursor = page.nextCursor;
    } while (cursor !== null);
    return all;
  };

  return { claim, newSchedule, newCron, outcome, finish, retryAt, history };
}
