/**
 * The Store conformance suite (after River's `riverdrivertest.Exercise`): one set of tests that
 * every store implementation must pass. It uses only the `Store` interface, so the PostgreSQL
 * store (PostgreSQL) runs exactly these tests by calling {@link exerciseStore} with its factory.
 *
 * Time is a fixed value (`T0`) plus offsets: the store takes `now` as a parameter and reads no
 * clock, so nothing here sleeps. Cron occurrences come from the real cron engine (each store calls
 * it through src/store/rules/claim.ts), with expressions whose occurrences are whole minutes or
 * seconds from T0; the rules themselves, broken engines included, are unit-tested in
 * test/unit/claim-rules.test.ts.
 */
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError, StoreUnavailableError } from '../../../src/domain/errors.js';
import { newId } from '../../../src/domain/ids.js';
import type {
  AttemptOutcome,
  ClaimedExecution,
  CronJob,
  Execution,
  MisfirePolicy,
  OverlapPolicy,
  RetryPolicy,
} from '../../../src/domain/types.js';
import type { ClaimDueParams, Store } from '../../../src/store/store.js';
import { describeExecutionSearch } from './execution-search.js';
import { describeLists } from './lists.js';
import { describeBatch, describeGroupCommit } from './batch.js';
import { describeBulk } from './bulk.js';
import { describeJobKeys } from './job-keys.js';
import { describeIdempotency } from './idempotency.js';
import { describeKeys } from './api-key-scopes.js';
import { describeNodes } from './nodes.js';
import { describeNotifications } from './notifications.js';
import { describeAhead } from './ahead.js';
import { describeLife } from './life.js';
import { describeBackfill } from './backfill.js';
import { describeOutcomes } from './outcomes.js';
import { describeSecrets } from './secrets.js';
import { describeAudit } from './audit.js';

/** 2030-01-01T00:00:00.000Z: the suite's "now". */
export const T0 = Date.UTC(2030, 0, 1);

/** What a store factory hands the suite. */
export interface StoreUnderTest {
  /** A store on a fresh, empty database; opened, migrated or not (the suite migrates). */
  store: Store;
  /** Releases the store and its database; must tolerate a store already closed. */
  cleanup: () => Promise<void>;
}

/** A UUID whose lexical order is `n`'s: lets a test make id order differ from creation order. */
function uuid(n: number): string {
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

function digestOf(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Default lease of the tests' claims: long enough never to expire unless a test means it to. */
const LONG_LEASE = 30 * 86_400_000;

/** Expressions of the tests' cron jobs: occurrences at T0 + k·period (T0 is on a whole hour). */
const EVERY_MINUTE = '* * * * *';
const EVERY_SECOND = '* * * * * *';
const HOURLY = '0 * * * *';

/** Misfire threshold of the tests' claims (the service's default). */
const THRESHOLD = 60_000;

/** Retry policy and call timeout of the tests' jobs. A lease runs to now + TIMEOUT + leaseMs. */
const RETRY: RetryPolicy = { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 3_600_000, delaysMs: null };
const TIMEOUT = 1_000;
/** A schedule's request with every field, auth and sealed secrets included (stored, never interpreted). */
const REQUEST = {
  method: 'PUT',
  headers: { 'X-Tenant': 'acme', 'content-type': 'application/x-www-form-urlencoded' },
  body: 'a=1&b=%C3%A9',
  auth: { type: 'basic', username: 'ada' },
  secrets: { password: 'sealed:v1:abc' },
} as const;
/** A cron job's request: a GET with OAuth 2 authentication. */
const CRON_REQUEST = {
  method: 'GET',
  headers: { Accept: 'text/csv' },
  body: null,
  auth: { type: 'oauth2', tokenUrl: 'https://auth.example.com/token', clientId: 'punctual', scope: 'jobs', audience: null },
  secrets: { clientSecret: 'sealed:v1:def' },
} as const;
/** What an attempt of a job made by `newSchedule` records of its call (an outcome without trace ids records null). */
const CALLED = { method: 'POST', url: 'https://example.com/hook', traceId: null, spanId: null } as const;
/** The request of a job created without one: POST, no headers, no body, no authentication. */
const NO_REQUEST = { method: 'POST', headers: {}, body: null, auth: null, secrets: null } as const;

/**
 * Registers the conformance tests of the `Store` contract (src/store/store.ts) for one store.
 * @param name shown in the describe block, e.g. `sqlite`
 * @param factory called before each test for a fresh store on an empty database
 */
export function exerciseStore(name: string, factory: () => Promise<StoreUnderTest>): void {
  describe(`Store conformance: ${name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ store, cleanup } = await factory());
      await store.migrate();
    });
    afterEach(async () => {
      await cleanup();
    });

    // ---- helpers -------------------------------------------------------------------------
    const claim = (now: number, o: Partial<ClaimDueParams> = {}): Promise<ClaimedExecution[]> =>
      store.claimDue({
        now,
        limit: 100,
        nodeId: 'node-a',
        leaseMs: LONG_LEASE,
        misfireThresholdMs: THRESHOLD,
        ...o,
      }).then((r) => r.claimed);

    const newSchedule = (
      o: { scheduledAt?: number; now?: number; id?: string; data?: object; tags?: string[]; retry?: RetryPolicy; timeoutMs?: number } = {},
    ) =>
      store.scheduleCreate({
        id: o.id ?? newId(),
        name: 'job',
        scheduledAt: o.scheduledAt ?? T0,
        endpoint: 'https://example.com/hook',
        data: (o.data ?? { n: 1 }) as Record<string, unknown>,
        tags: o.tags ?? ['a'],
        retry: o.retry ?? RETRY,
        timeoutMs: o.timeoutMs ?? TIMEOUT,
        now: o.now ?? T0 - 60_000,
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
      } = {},
    ) =>
      store.cronCreate({
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
      store.executionsFinish({ nodeId, outcomes: [outcome(c, o)] });

    /** A retryable failure of `c`, next attempt at `at`. */
    const retryAt = (c: ClaimedExecution, at: number, nodeId = 'node-a') =>
      finish(c, { status: 'Retrying', nextAttemptAt: at, statusCode: 503, error: 'HTTP 503', responseBody: 'busy' }, nodeId);

    /** Every execution of a job, newest first, walking all pages. */
    const history = async (jobType: 'schedule' | 'cron', jobId: string): Promise<Execution[]> => {
      const all: Execution[] = [];
      let cursor: string | null = null;
      do {
        const page: { executions: Execution[]; nextCursor: string | null } = await store.executionList({ jobType, jobId, limit: 100, cursor });
        all.push(...page.executions);
        cursor = page.nextCursor;
      } while (cursor !== null);
      return all;
    };

    // ---- paged, filtered lists (keyset pages, bounded scans): lists.ts ----------------
    describeLists(() => store);
    // ---- executions across jobs and replay: execution-search.ts ---------------------------
    describeExecutionSearch(() => store);
    // ---- job secrets (secretsPage, secretsReplace): secrets.ts -------------------------
    describeSecrets(() => store);

    // ---- batch create (scheduleCreateMany): batch.ts ----------------------------------
    describeBatch(() => store);
    describeGroupCommit(() => store);
    // ---- bulk actions by filter (scheduleBulk, cronBulk): bulk.ts ----------------------
    describeBulk(() => store);
    // ---- job keys (key, managedBy, the key filter): job-keys.ts ---------------------------
    describeJobKeys(() => store);
    // ---- idempotency records (idempotencyBegin, …Finish, …Abandon, …Prune): idempotency.ts
    describeIdempotency(() => store);
    // ---- node liveness (heartbeats, reaping, re-registration): nodes.ts ----------------
    describeNodes(() => store);
    // ---- notification channels and outbox: notifications.ts ---------------------------
    describeNotifications(() => store);
    // ---- claiming ahead (ClaimDueParams.aheadMs): ahead.ts ---------------------------
    describeAhead(() => store);
    // ---- start, end, limit and jitter of cron jobs: life.ts ---------------------------
    describeLife(() => store);
    // ---- backfill of cron jobs (cronBackfill): backfill.ts ----------------------------
    describeBackfill(() => store);
    // ---- successStatuses and the auto-pause of cron jobs: outcomes.ts -----------------
    describeOutcomes(() => store);
    // ---- scopes, expiry and rotation of API keys: api-key-scopes.ts -----------------------------
    describeKeys(() => store);
    // ---- the audit log: audit.ts ----------------------------------------------------
    describeAudit(() => store);

    // ---- lifecycle -------------------------------------------------------------------------
    describe('migrate, ping, close', () => {
      it('migrate is idempotent and keeps the data', async () => {
        const k = await store.apiKeyCreate({ id: newId(), name: 'k', status: 'Enabled', digest: digestOf('t'), now: T0 });
        await store.migrate();
        await store.migrate();
        expect(await store.apiKeyGet({ id: k.id })).toEqual(k);
      });

      it('ping resolves on a working store', async () => {
        await expect(store.ping()).resolves.toBeUndefined();
      });

      it('after close, the store refuses work with StoreUnavailableError; close again is harmless', async () => {
        await store.close();
        await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(store.scheduleList()).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(store.close()).resolves.toBeUndefined();
      });
    });

    // ---- API keys --------------------------------------------------------------------------
    describe('API keys', () => {
      it('create returns the key without any secret, never used; get returns the same', async () => {
        const id = newId();
        const k = await store.apiKeyCreate({ id, name: 'ci', status: 'Enabled', digest: digestOf('tok'), now: T0 });
        expect(k).toEqual({
          id,
          name: 'ci',
          status: 'Enabled',
          createdAt: T0,
          lastUsed: null,
          scopes: ['jobs:read', 'jobs:write', 'keys:manage', 'metrics:read'],
          expiresAt: null,
          previousTokenExpiresAt: null,
        });
        expect(await store.apiKeyGet({ id })).toEqual(k);
      });

      it('create keeps a Disabled status', async () => {
        const k = await store.apiKeyCreate({ id: newId(), name: 'off', status: 'Disabled', digest: digestOf('x'), now: T0 });
        expect(k.status).toBe('Disabled');
      });

      it('get of an unknown id is null', async () => {
        expect(await store.apiKeyGet({ id: newId() })).toBeNull();
      });

      it('list is empty at first, then oldest first whatever the id order', async () => {
        expect(await store.apiKeyList()).toEqual([]);
        for (const [i, n] of [3, 1, 2].entries()) {
          await store.apiKeyCreate({ id: uuid(10 - n), name: `k${n}`, status: 'Enabled', digest: digestOf(`t${n}`), now: T0 + n * 1000 + i });
        }
        expect((await store.apiKeyList()).map((k) => k.name)).toEqual(['k1', 'k2', 'k3']);
      });

      it('update changes only the fields given', async () => {
        const k = await store.apiKeyCreate({ id: newId(), name: 'a', status: 'Enabled', digest: digestOf('a'), now: T0 });
        expect(await store.apiKeyUpdate({ id: k.id, name: 'b' })).toEqual({ ...k, name: 'b' });
        expect(await store.apiKeyUpdate({ id: k.id, status: 'Disabled' })).toEqual({ ...k, name: 'b', status: 'Disabled' });
        expect(await store.apiKeyUpdate({ id: k.id })).toEqual({ ...k, name: 'b', status: 'Disabled' });
        expect(await store.apiKeyUpdate({ id: k.id, name: 'c', status: 'Enabled' })).toEqual({ ...k, name: 'c' });
        expect(await store.apiKeyGet({ id: k.id })).toEqual({ ...k, name: 'c' });
      });

      it('update of an unknown id is null', async () => {
        expect(await store.apiKeyUpdate({ id: newId(), name: 'x' })).toBeNull();
      });

      it('delete answers true, then false; the key is gone, also by digest', async () => {
        const k = await store.apiKeyCreate({ id: newId(), name: 'a', status: 'Enabled', digest: digestOf('a'), now: T0 });
        expect(await store.apiKeyDelete({ id: k.id })).toBe(true);
        expect(await store.apiKeyDelete({ id: k.id })).toBe(false);
        expect(await store.apiKeyGet({ id: k.id })).toBeNull();
        expect(await store.apiKeyFindByDigest({ digest: digestOf('a') })).toBeNull();
        expect(await store.apiKeyList()).toEqual([]);
      });

      it('findByDigest finds the key of a digest, Disabled ones included; an unknown digest is null', async () => {
        const a = await store.apiKeyCreate({ id: newId(), name: 'a', status: 'Enabled', digest: digestOf('a'), now: T0 });
        const b = await store.apiKeyCreate({ id: newId(), name: 'b', status: 'Disabled', digest: digestOf('b'), now: T0 });
        expect(await store.apiKeyFindByDigest({ digest: digestOf('a') })).toEqual({ key: a, token: 'current' });
        expect(await store.apiKeyFindByDigest({ digest: digestOf('b') })).toEqual({ key: b, token: 'current' });
        expect(await store.apiKeyFindByDigest({ digest: digestOf('c') })).toBeNull();
      });

      it('touch sets lastUsed of several keys in one call, only ever forward, ignoring unknown ids', async () => {
        const a = await store.apiKeyCreate({ id: newId(), name: 'a', status: 'Enabled', digest: digestOf('a'), now: T0 });
        const b = await store.apiKeyCreate({ id: newId(), name: 'b', status: 'Enabled', digest: digestOf('b'), now: T0 });
        await store.apiKeyTouch({ lastUsed: new Map([[a.id, T0 + 5000], [b.id, T0 + 7000], [newId(), T0]]) });
        expect((await store.apiKeyGet({ id: a.id }))?.lastUsed).toBe(T0 + 5000);
        expect((await store.apiKeyGet({ id: b.id }))?.lastUsed).toBe(T0 + 7000);
        await store.apiKeyTouch({ lastUsed: new Map([[a.id, T0 + 4000], [b.id, T0 + 8000]]) });
        expect((await store.apiKeyGet({ id: a.id }))?.lastUsed).toBe(T0 + 5000);
        expect((await store.apiKeyGet({ id: b.id }))?.lastUsed).toBe(T0 + 8000);
        await store.apiKeyTouch({ lastUsed: new Map() });
        expect((await store.apiKeyGet({ id: a.id }))?.lastUsed).toBe(T0 + 5000);
      });

      it('ensure creates an Enabled key with the given id and name when no key has the digest', async () => {
        const id = newId();
        const k = await store.apiKeyEnsure({ id, name: 'bootstrap', status: 'Enabled', digest: digestOf('boot'), now: T0 });
        expect(k).toEqual({ id, name: 'bootstrap', status: 'Enabled', createdAt: T0, lastUsed: null, scopes: ['jobs:read', 'jobs:write', 'keys:manage', 'metrics:read'], expiresAt: null, previousTokenExpiresAt: null });
        expect(await store.apiKeyFindByDigest({ digest: digestOf('boot') })).toEqual({ key: k, token: 'current' });
      });

      it('ensure re-enables and renames the key that has the digest, keeping its id, createdAt and lastUsed', async () => {
        const k = await store.apiKeyCreate({ id: newId(), name: 'old', status: 'Disabled', digest: digestOf('boot'), now: T0 });
        await store.apiKeyTouch({ lastUsed: new Map([[k.id, T0 + 1]]) });
        const e = await store.apiKeyEnsure({ id: newId(), name: 'bootstrap', status: 'Enabled', digest: digestOf('boot'), now: T0 + 99 });
        expect(e).toEqual({ id: k.id, name: 'bootstrap', status: 'Enabled', createdAt: T0, lastUsed: T0 + 1, scopes: ['jobs:read', 'jobs:write', 'keys:manage', 'metrics:read'], expiresAt: null, previousTokenExpiresAt: null });
        const again = await store.apiKeyEnsure({ id: newId(), name: 'bootstrap', status: 'Enabled', digest: digestOf('boot'), now: T0 + 200 });
        expect(again).toEqual(e);
        expect(await store.apiKeyList()).toEqual([e]);
      });
    });

    // ---- schedules -------------------------------------------------------------------------
    describe('schedules', () => {
      it('create stores a Pending schedule with every field; get returns the same', async () => {
        const id = newId();
        const data = { nested: { list: [1, 'two', null, true], n: 1.5 }, unicode: 'é 🎉' };
        const s = await store.scheduleCreate({
          id,
          name: 'report',
          scheduledAt: T0 + 123,
          endpoint: 'https://example.com/r?q=1',
          data,
          tags: ['x', 'y'],
          retry: { maxAttempts: 7, initialDelayMs: 250, maxDelayMs: 90_000, delaysMs: null },
          timeoutMs: 4_500,
          ...REQUEST,
          successStatuses: [302, '2xx'],
          now: T0,
        });
        expect(s).toEqual({
          id,
          name: 'report',
          scheduledAt: T0 + 123,
          status: 'Pending',
          endpoint: 'https://example.com/r?q=1',
          data,
          tags: ['x', 'y'],
          createdAt: T0,
          retry: { maxAttempts: 7, initialDelayMs: 250, maxDelayMs: 90_000, delaysMs: null },
          timeoutMs: 4_500,
          dueAt: T0 + 123,
          ...REQUEST,
          successStatuses: [302, '2xx'],
          key: null,
          managedBy: null,
        });
        expect(await store.scheduleGet({ id })).toEqual(s);
      });

      it('no data and no tags read back as {} and []', async () => {
        const s = await newSchedule({ data: {}, tags: [] });
        expect((await store.scheduleGet({ id: s.id }))).toMatchObject({ data: {}, tags: [] });
      });

      it('get of an unknown id is null', async () => {
        expect(await store.scheduleGet({ id: newId() })).toBeNull();
      });

      it('list is empty at first, then oldest first whatever the id order', async () => {
        expect(await store.scheduleList()).toEqual([]);
        await newSchedule({ id: uuid(3), now: T0 + 1 });
        await newSchedule({ id: uuid(1), now: T0 + 3 });
        await newSchedule({ id: uuid(2), now: T0 + 2 });
        expect((await store.scheduleList()).map((s) => s.id)).toEqual([uuid(3), uuid(2), uuid(1)]);
      });

      it('update is partial: absent fields keep their values', async () => {
        const s = await newSchedule();
        let expected = { ...s, name: 'renamed' };
        expect(await store.scheduleUpdate({ now: T0, id: s.id, name: 'renamed' })).toEqual(expected);
        expected = { ...expected, scheduledAt: T0 + 5000, dueAt: T0 + 5000 };
        expect(await store.scheduleUpdate({ now: T0, id: s.id, scheduledAt: T0 + 5000 })).toEqual(expected);
        expected = { ...expected, endpoint: 'http://other.example/x' };
        expect(await store.scheduleUpdate({ now: T0, id: s.id, endpoint: 'http://other.example/x' })).toEqual(expected);
        expected = { ...expected, data: { replaced: true } };
        expect(await store.scheduleUpdate({ now: T0, id: s.id, data: { replaced: true } })).toEqual(expected);
        expected = { ...expected, tags: [] };
        expect(await store.scheduleUpdate({ now: T0, id: s.id, tags: [] })).toEqual(expected);
        expected = { ...expected, retry: { maxAttempts: 1, initialDelayMs: 2000, maxDelayMs: 2000, delaysMs: null } };
        expect(await store.scheduleUpdate({ now: T0, id: s.id, retry: { maxAttempts: 1, initialDelayMs: 2000, maxDelayMs: 2000, delaysMs: null } })).toEqual(expected);
        expected = { ...expected, timeoutMs: 900_000 };
        expect(await store.scheduleUpdate({ now: T0, id: s.id, timeoutMs: 900_000 })).toEqual(expected);
        expect(await store.scheduleUpdate({ now: T0, id: s.id })).toEqual(expected);
        expect(await store.scheduleGet({ id: s.id })).toEqual(expected);
      });

      it("update of an unknown id is 'not_found'", async () => {
        expect(await store.scheduleUpdate({ now: T0, id: newId(), name: 'x' })).toBe('not_found');
      });

      it("update of a schedule no longer Pending is 'not_pending' and changes nothing", async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        await claim(T0);
        const running = await store.scheduleGet({ id: s.id });
        expect(running?.status).toBe('Running');
        expect(await store.scheduleUpdate({ now: T0, id: s.id, name: 'late', scheduledAt: T0 + 9999 })).toBe('not_pending');
        expect(await store.scheduleGet({ id: s.id })).toEqual(running);
      });

      it('delete answers true, then false; a deleted schedule is never claimed', async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        expect(await store.scheduleDelete({ id: s.id })).toBe(true);
        expect(await store.scheduleDelete({ id: s.id })).toBe(false);
        expect(await store.scheduleGet({ id: s.id })).toBeNull();
        expect(await claim(T0 + 1000)).toEqual([]);
        expect(await store.nextDueAt()).toBeNull();
      });
    });

    // ---- cron jobs -------------------------------------------------------------------------
    describe('cron jobs', () => {
      it('create stores an Active job with 0 invocations; get returns the same', async () => {
        const id = newId();
        const c = await store.cronCreate({
          id,
          expression: '0 9 * * 1-5',
          name: 'weekdays',
          timezone: 'America/New_York',
          endpoint: 'https://example.com/c',
          data: { k: [1, { v: 'w' }] },
          nextInvocation: T0 + 3_600_000,
          retry: { maxAttempts: 20, initialDelayMs: 10, maxDelayMs: 20, delaysMs: null },
          timeoutMs: 1000,
          misfire: 'all',
          overlap: 'skip',
          ...CRON_REQUEST,
          successStatuses: ['4xx', 200],
          pauseAfterFailures: 3,
          tags: ['nightly', 'eu'],
          now: T0,
        });
        expect(c).toEqual({
          id,
          expression: '0 9 * * 1-5',
          name: 'weekdays',
          invocations: 0,
          timezone: 'America/New_York',
          status: 'Active',
          endpoint: 'https://example.com/c',
          data: { k: [1, { v: 'w' }] },
          createdAt: T0,
          nextInvocation: T0 + 3_600_000,
          retry: { maxAttempts: 20, initialDelayMs: 10, maxDelayMs: 20, delaysMs: null },
          timeoutMs: 1000,
          misfire: 'all',
          overlap: 'skip',
          lastInvocation: null,
          lastStatus: null,
          skippedOccurrences: 0,
          ...CRON_REQUEST,
          successStatuses: ['4xx', 200],
          pauseAfterFailures: 3,
          pausedReason: null,
          consecutiveFailures: 0,
          startAt: null,
          endAt: null,
          maxInvocations: null,
          jitterMs: 0,
          tags: ['nightly', 'eu'],
          key: null,
          managedBy: null,
        });
        expect(await store.cronGet({ id })).toEqual(c);
      });

      it('null name, timezone and data stay null', async () => {
        const c = await store.cronCreate({
          id: newId(),
          expression: '* * * * *',
          name: null,
          timezone: null,
          endpoint: 'https://example.com/c',
          data: null,
          nextInvocation: T0,
          retry: RETRY,
          timeoutMs: TIMEOUT,
          misfire: 'skip',
          overlap: 'allow',
          now: T0,
        });
        expect(await store.cronGet({ id: c.id })).toMatchObject({ name: null, timezone: null, data: null, misfire: 'skip' });
      });

      it('get of an unknown id is null', async () => {
        expect(await store.cronGet({ id: newId() })).toBeNull();
      });

      it('list is empty at first, then oldest first whatever the id order', async () => {
        expect(await store.cronList()).toEqual([]);
        await newCron({ id: uuid(2), now: T0 + 1 });
        await newCron({ id: uuid(3), now: T0 + 2 });
        await newCron({ id: uuid(1), now: T0 + 3 });
        expect((await store.cronList()).map((c) => c.id)).toEqual([uuid(2), uuid(3), uuid(1)]);
      });

      it('update is partial: absent fields keep their values, null sets null', async () => {
        const c = await newCron();
        let expected: CronJob = { ...c, expression: '*/5 * * * *' };
        expect(await store.cronUpdate({ id: c.id, expression: '*/5 * * * *' })).toEqual(expected);
        expected = { ...expected, name: null, timezone: null };
        expect(await store.cronUpdate({ id: c.id, name: null, timezone: null })).toEqual(expected);
        expected = { ...expected, data: null };
        expect(await store.cronUpdate({ id: c.id, data: null })).toEqual(expected);
        expected = { ...expected, data: { again: 1 }, name: 'n', timezone: 'Asia/Tokyo', endpoint: 'http://e.example/' };
        expect(
          await store.cronUpdate({ id: c.id, data: { again: 1 }, name: 'n', timezone: 'Asia/Tokyo', endpoint: 'http://e.example/' }),
        ).toEqual(expected);
        expected = { ...expected, retry: { maxAttempts: 2, initialDelayMs: 5, maxDelayMs: 6, delaysMs: null }, timeoutMs: 2500 };
        expect(await store.cronUpdate({ id: c.id, retry: { maxAttempts: 2, initialDelayMs: 5, maxDelayMs: 6, delaysMs: null }, timeoutMs: 2500 })).toEqual(expected);
        expected = { ...expected, misfire: 'all' };
        expect(await store.cronUpdate({ id: c.id, misfire: 'all' })).toEqual(expected);
        expected = { ...expected, overlap: 'skip' };
        expect(await store.cronUpdate({ id: c.id, overlap: 'skip' })).toEqual(expected);
        expect(await store.cronUpdate({ id: c.id })).toEqual(expected);
        expect(await store.cronGet({ id: c.id })).toEqual(expected);
      });

      it('update moves status between Active and Paused', async () => {
        const c = await newCron();
        expect((await store.cronUpdate({ id: c.id, status: 'Paused' }))?.status).toBe('Paused');
        expect((await store.cronGet({ id: c.id }))?.status).toBe('Paused');
        expect((await store.cronUpdate({ id: c.id, status: 'Active' }))?.status).toBe('Active');
      });

      it('update with recomputeAfter stores the next occurrence of the job as patched after that instant', async () => {
        const c = await newCron({ nextInvocation: T0 });
        // Noon in UTC (the patched zone), not in Europe/Paris (the stored one, an hour ahead in January).
        const u = await store.cronUpdate({ id: c.id, expression: '0 12 * * *', timezone: null, recomputeAfter: T0 });
        expect(u).toEqual({ ...c, expression: '0 12 * * *', timezone: null, nextInvocation: T0 + 12 * 3_600_000 });
        expect(await store.cronGet({ id: c.id })).toEqual(u);
        // The stored expression and zone when the patch leaves them: noon in Paris is 11:00 UTC.
        const v = await store.cronUpdate({ id: c.id, timezone: 'Europe/Paris', recomputeAfter: T0 });
        expect(v?.nextInvocation).toBe(T0 + 11 * 3_600_000);
      });

      it('update without recomputeAfter keeps nextInvocation', async () => {
        const c = await newCron({ nextInvocation: T0 + 42 });
        expect((await store.cronUpdate({ id: c.id, expression: '1 2 3 4 5' }))?.nextInvocation).toBe(T0 + 42);
      });

      it('an update whose job has no occurrence after recomputeAfter fails and changes nothing', async () => {
        const c = await newCron();
        for (const expression of ['0 0 31 2 *', 'nope']) {
          const err = await store.cronUpdate({ id: c.id, expression, recomputeAfter: T0 }).catch((e: unknown) => e);
          expect(err).toBeInstanceOf(InvalidInputError);
          expect((err as InvalidInputError).errors).toEqual([{ path: '/expression', message: 'has no occurrence after now' }]);
          expect(await store.cronGet({ id: c.id })).toEqual(c);
        }
      });

      it('update of an unknown id is null', async () => {
        expect(await store.cronUpdate({ id: newId(), name: 'x', recomputeAfter: T0 })).toBeNull();
      });

      it('delete answers true, then false; a deleted job is never claimed', async () => {
        const c = await newCron({ nextInvocation: T0 });
        expect(await store.cronDelete({ id: c.id })).toBe(true);
        expect(await store.cronDelete({ id: c.id })).toBe(false);
        expect(await store.cronGet({ id: c.id })).toBeNull();
        expect(await claim(T0 + 1000)).toEqual([]);
        expect(await store.nextDueAt()).toBeNull();
      });
    });

    // ---- claimDue ----------------------------------------------------------------------------
    describe('claimDue', () => {
      it("claims a schedule due now, leases it for its timeout plus the margin, marks it Running", async () => {
        const retry = { maxAttempts: 3, initialDelayMs: 10, maxDelayMs: 99, delaysMs: null };
        const s = await newSchedule({ scheduledAt: T0, data: { hello: 'world' }, retry, timeoutMs: 2500 });
        const claimed = await claim(T0, { nodeId: 'n1', leaseMs: 15_000 });
        expect(claimed).toEqual([
          {
            executionId: expect.any(String),
            jobType: 'schedule',
            jobId: s.id,
            scheduledFor: T0,
            dueAt: T0,
            attempt: 1,
            endpoint: s.endpoint,
            data: { hello: 'world' },
            retry,
            timeoutMs: 2500,
            ...NO_REQUEST,
            successStatuses: ['2xx'],
            leaseExpiresAt: T0 + 2500 + 15_000,
          },
        ]);
        expect(claimed[0]!.executionId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Running');
        expect(await store.executionGet({ id: claimed[0]!.executionId })).toEqual({
          id: claimed[0]!.executionId,
          jobType: 'schedule',
          jobId: s.id,
          scheduledFor: T0,
          status: 'Running',
          triggered: false,
          backfill: false,
          createdAt: T0,
          startedAt: T0,
          finishedAt: null,
          nextAttemptAt: null,
          lateMs: 0,
          jitterMs: 0,
          missedOccurrences: null,
          attempts: [],
        });
      });

      it('never early: a schedule due at now + 1 ms waits for that instant', async () => {
        const s = await newSchedule({ scheduledAt: T0 + 1 });
        expect(await claim(T0)).toEqual([]);
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Pending');
        expect((await claim(T0 + 1)).map((c) => c.jobId)).toEqual([s.id]);
      });

      it('a past schedule is claimed at once', async () => {
        const s = await newSchedule({ scheduledAt: T0 - 86_400_000 });
        expect((await claim(T0)).map((c) => [c.jobId, c.scheduledFor])).toEqual([[s.id, T0 - 86_400_000]]);
      });

      it('a schedule without data is claimed with {}', async () => {
        await newSchedule({ data: {} });
        expect((await claim(T0))[0]?.data).toEqual({});
      });

      it('claims a due cron occurrence, counts it, and advances nextInvocation from that occurrence', async () => {
        const c = await newCron({ nextInvocation: T0 });
        const claimed = await claim(T0 + 500, { leaseMs: 1000 });
        expect(claimed).toEqual([
          {
            executionId: expect.any(String),
            jobType: 'cron',
            jobId: c.id,
            scheduledFor: T0,
            dueAt: T0,
            attempt: 1,
            endpoint: c.endpoint,
            data: { c: 1 },
            retry: RETRY,
            timeoutMs: TIMEOUT,
            ...NO_REQUEST,
            successStatuses: ['2xx'],
            leaseExpiresAt: T0 + 500 + TIMEOUT + 1000,
          },
        ]);
        expect(await store.cronGet({ id: c.id })).toEqual({
          ...c,
          invocations: 1,
          nextInvocation: T0 + 60_000,
          lastInvocation: T0,
          lastStatus: 'Running',
          skippedOccurrences: 0,
        });
      });

      it('never early: a cron occurrence at now + 1 ms waits for that instant', async () => {
        const c = await newCron({ nextInvocation: T0 + 1 });
        expect(await claim(T0)).toEqual([]);
        expect(await store.cronGet({ id: c.id })).toEqual(c);
        expect((await claim(T0 + 1)).map((x) => x.scheduledFor)).toEqual([T0 + 1]);
      });

      it('occurrences missed while down run once (the default), then the job continues after now', async () => {
        const c = await newCron({ nextInvocation: T0 - 10 * 60_000 });
        const claimed = await claim(T0);
        expect(claimed.map((x) => x.scheduledFor)).toEqual([T0 - 10 * 60_000]);
        expect(await claim(T0)).toEqual([]);
        expect(await store.cronGet({ id: c.id })).toMatchObject({ invocations: 1, nextInvocation: T0 + 60_000 });
        expect((await claim(T0 + 60_000)).map((x) => x.scheduledFor)).toEqual([T0 + 60_000]);
        expect((await store.cronGet({ id: c.id }))?.invocations).toBe(2);
      });

      it('a cron job without data is claimed with {}', async () => {
        await newCron({ data: null });
        expect((await claim(T0))[0]?.data).toEqual({});
      });

      it('a Paused cron job is not claimed, and runs again once Active', async () => {
        const c = await newCron({ nextInvocation: T0 });
        await store.cronUpdate({ id: c.id, status: 'Paused' });
        expect(await claim(T0 + 5000)).toEqual([]);
        await store.cronUpdate({ id: c.id, status: 'Active', expression: '* * * * * *', recomputeAfter: T0 + 5000 });
        expect((await claim(T0 + 6000)).map((x) => x.scheduledFor)).toEqual([T0 + 6000]);
      });

      it('a cron job the engine cannot continue (its zone no longer exists) runs its occurrence and is Paused', async () => {
        // The service validates zones; a stored one can still vanish from a later tzdata.
        const c = await newCron({ nextInvocation: T0, timezone: 'Mars/Olympus_Mons' });
        expect((await claim(T0)).map((x) => x.jobId)).toEqual([c.id]);
        expect(await store.cronGet({ id: c.id })).toEqual({
          ...c,
          status: 'Paused',
          invocations: 1,
          nextInvocation: T0,
          lastInvocation: T0,
          lastStatus: 'Running',
          skippedOccurrences: 0,
        });
        expect(await claim(T0 + 3_600_000)).toEqual([]);
      });

      it('an occurrence claimed once is never claimed again, even when a job is set back onto it', async () => {
        const c = await newCron({ nextInvocation: T0 });
        const [first] = await claim(T0);
        expect(first?.scheduledFor).toBe(T0);
        // Resume onto the occurrence that already ran (a clock set back would do the same).
        await store.cronUpdate({ id: c.id, status: 'Paused' });
        await store.cronUpdate({ id: c.id, status: 'Active', recomputeAfter: T0 - 1 }); // the minute T0
        expect(await claim(T0 + 1)).toEqual([]);
        expect(await store.cronGet({ id: c.id })).toMatchObject({ invocations: 1, nextInvocation: T0 + 60_000 });
        expect(await history('cron', c.id)).toHaveLength(1);
      });

      it('two claims at the same now: one execution per occurrence', async () => {
        await newSchedule({ scheduledAt: T0 });
        await newCron({ nextInvocation: T0 });
        const first = await claim(T0);
        const second = await claim(T0, { nodeId: 'node-b' });
        expect(first).toHaveLength(2);
        expect(second).toEqual([]);
      });

      it('concurrent claims share the work out: every item once, none twice', async () => {
        const ids = new Set<string>();
        for (let i = 0; i < 20; i++) ids.add((await newSchedule({ scheduledAt: T0 - i })).id);
        for (let i = 0; i < 5; i++) ids.add((await newCron({ nextInvocation: T0 - i })).id);
        const batches = await Promise.all(['n1', 'n2', 'n3'].map((nodeId) => claim(T0, { nodeId, limit: 10 })));
        const rest = await claim(T0, { limit: 100 });
        const all = [...batches.flat(), ...rest];
        expect(all.map((c) => c.jobId).sort()).toEqual([...ids].sort());
        expect(new Set(all.map((c) => c.executionId)).size).toBe(25);
      });

      it('returns at most limit items, the earliest due first across schedules, cron jobs, retries and leases', async () => {
        // A retry due at T0 - 25.
        const retried = await newSchedule({ scheduledAt: T0 - 3000 });
        const [r] = await claim(T0 - 3000);
        await retryAt(r!, T0 - 25);
        // A lease that expires at T0 - 45: claimed at T0 - 2000 (timeout 1000, margin 955), never finished.
        const stale = await newSchedule({ scheduledAt: T0 - 2000 });
        expect(await claim(T0 - 2000, { leaseMs: 955 })).toHaveLength(1);
        const s50 = await newSchedule({ scheduledAt: T0 - 50 });
        const s30 = await newSchedule({ scheduledAt: T0 - 30 });
        const s10 = await newSchedule({ scheduledAt: T0 - 10 });
        const c40 = await newCron({ nextInvocation: T0 - 40 });
        const c20 = await newCron({ nextInvocation: T0 - 20 });
        await newSchedule({ scheduledAt: T0 + 1 }); // not due
        const first = await claim(T0, { limit: 3 });
        expect(first.map((c) => c.jobId)).toEqual([s50.id, stale.id, c40.id]);
        const second = await claim(T0, { limit: 3 });
        expect(second.map((c) => c.jobId)).toEqual([s30.id, retried.id, c20.id]);
        expect((await claim(T0, { limit: 3 })).map((c) => c.jobId)).toEqual([s10.id]);
        expect(await claim(T0, { limit: 3 })).toEqual([]);
      });

      it('an expired lease is claimed again as the same execution with attempt + 1, not before expiry', async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0, { nodeId: 'node-a', leaseMs: 1000 });
        expect(a?.leaseExpiresAt).toBe(T0 + TIMEOUT + 1000);
        expect(await claim(T0 + TIMEOUT + 999, { nodeId: 'node-b' })).toEqual([]);
        const [b] = await claim(T0 + 2000, { nodeId: 'node-b', leaseMs: 2000 });
        expect(b).toEqual({ ...a, attempt: 2, leaseExpiresAt: T0 + 2000 + TIMEOUT + 2000 });
        const [c] = await claim(T0 + 5000, { nodeId: 'node-c', leaseMs: 2000 });
        expect(c).toEqual({ ...a, attempt: 3, leaseExpiresAt: T0 + 5000 + TIMEOUT + 2000 });
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Running');
      });

      it('an expired lease of a cron occurrence is claimed again without advancing the job', async () => {
        const c = await newCron({ nextInvocation: T0 });
        const [a] = await claim(T0, { leaseMs: 1000 });
        const [b] = await claim(T0 + 2000, { nodeId: 'node-b' });
        expect(b).toMatchObject({ executionId: a!.executionId, scheduledFor: T0, attempt: 2 });
        expect(await store.cronGet({ id: c.id })).toMatchObject({ invocations: 1, nextInvocation: T0 + 60_000 });
      });

      it("a re-leased or retried execution is sent with its job's current endpoint, data, retry and timeout", async () => {
        const c = await newCron({ nextInvocation: T0 });
        const [a] = await claim(T0, { leaseMs: 1000 });
        const retry = { maxAttempts: 9, initialDelayMs: 3, maxDelayMs: 4, delaysMs: null };
        await store.cronUpdate({ id: c.id, endpoint: 'https://fixed.example/', data: { v: 2 }, retry, timeoutMs: 7000 });
        const [b] = await claim(T0 + 2000, { nodeId: 'node-b', leaseMs: 10 });
        expect(b).toEqual({
          ...a,
          attempt: 2,
          endpoint: 'https://fixed.example/',
          data: { v: 2 },
          retry,
          timeoutMs: 7000,
          leaseExpiresAt: T0 + 2000 + 7000 + 10,
        });
        await retryAt(b!, T0 + 3000, 'node-b');
        await store.cronUpdate({ id: c.id, timeoutMs: 8000 });
        const [d] = await claim(T0 + 3000, { leaseMs: 10 });
        expect(d).toMatchObject({ executionId: a!.executionId, attempt: 3, timeoutMs: 8000, leaseExpiresAt: T0 + 3000 + 8000 + 10 });
      });

      it('the lease of a deleted schedule is not claimed again and no longer due; its execution is Failed', async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0, { leaseMs: 1000 });
        await store.scheduleDelete({ id: s.id });
        expect(await store.nextDueAt()).toBe(T0 + 2000);
        expect(await claim(T0 + 2000)).toEqual([]);
        expect(await store.nextDueAt()).toBeNull();
        expect(await claim(T0 + 100_000)).toEqual([]);
        expect(await store.executionGet({ id: a!.executionId })).toMatchObject({ status: 'Failed', finishedAt: T0 + 2000, attempts: [] });
      });

      it('the lease of a deleted cron job is not claimed again', async () => {
        const c = await newCron({ nextInvocation: T0 });
        await claim(T0, { leaseMs: 1000 });
        await store.cronDelete({ id: c.id });
        expect(await claim(T0 + 2000)).toEqual([]);
        expect(await store.nextDueAt()).toBeNull();
      });

      it('a finished execution is not claimed again when its lease time passes', async () => {
        await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0, { leaseMs: 1000 });
        await finish(a!);
        expect(await claim(T0 + 1_000_000)).toEqual([]);
      });

      it('a limit of 0 claims nothing', async () => {
        await newSchedule({ scheduledAt: T0 });
        expect(await claim(T0, { limit: 0 })).toEqual([]);
        expect(await claim(T0, { limit: 1 })).toHaveLength(1);
      });
    });

    // ---- leasesRelease (a graceful stop hands its calls back) ----------------------------------
    describe('leasesRelease', () => {
      it("makes the node's Running executions due at once: any node claims them as the same execution, attempt + 1", async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        const c = await newCron({ nextInvocation: T0 });
        const held = await claim(T0, { leaseMs: 60_000 });
        expect(held).toHaveLength(2);
        expect(await claim(T0 + 500, { nodeId: 'node-b' })).toEqual([]); // leased until T0 + 61 s
        await store.leasesRelease({ nodeId: 'node-a', executionIds: held.map((x) => x.executionId), now: T0 + 500 });
        expect(await store.nextDueAt()).toBe(T0 + 500);
        const again = await claim(T0 + 500, { nodeId: 'node-b', leaseMs: 1000 });
        expect(again.map((x) => [x.executionId, x.attempt]).sort()).toEqual(held.map((x) => [x.executionId, 2]).sort());
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Running');
        expect(await store.cronGet({ id: c.id })).toMatchObject({ invocations: 1, nextInvocation: T0 + 60_000 });
      });

      it("leaves alone other nodes' leases, finished and Retrying executions, unknown ids and an empty list", async () => {
        await newSchedule({ scheduledAt: T0 });
        await newSchedule({ scheduledAt: T0 });
        await newSchedule({ scheduledAt: T0 });
        const [mine] = await claim(T0, { limit: 1, leaseMs: 60_000 });
        const [theirs] = await claim(T0, { limit: 1, nodeId: 'node-b', leaseMs: 60_000 });
        const [retrying] = await claim(T0, { limit: 1, leaseMs: 60_000 });
        await retryAt(retrying!, T0 + 30_000);
        const [done] = await (async () => {
          await newSchedule({ scheduledAt: T0 });
          return claim(T0, { limit: 1, leaseMs: 60_000 });
        })();
        await finish(done!);

        await store.leasesRelease({ nodeId: 'node-a', executionIds: [], now: T0 + 10 });
        await store.leasesRelease({
          nodeId: 'node-a',
          executionIds: [theirs!.executionId, retrying!.executionId, done!.executionId, newId()],
          now: T0 + 10,
        });
        expect(await claim(T0 + 10, { nodeId: 'node-c' })).toEqual([]);
        expect(await store.nextDueAt()).toBe(T0 + 30_000); // the retry; the leases run to T0 + 61 s
        expect(await store.executionGet({ id: retrying!.executionId })).toMatchObject({ status: 'Retrying' });
        expect(await store.executionGet({ id: done!.executionId })).toMatchObject({ status: 'Succeeded' });
        // Only the node's own id is handed back.
        await store.leasesRelease({ nodeId: 'node-a', executionIds: [mine!.executionId], now: T0 + 20 });
        expect((await claim(T0 + 20, { nodeId: 'node-c' })).map((x) => x.executionId)).toEqual([mine!.executionId]);
      });

      it('never pushes a lease later, and a late outcome of the released attempt is kept until the execution is claimed again', async () => {
        await newSchedule({ scheduledAt: T0 });
        await newSchedule({ scheduledAt: T0 });
        const [a, b] = await claim(T0, { leaseMs: 1000 }); // both leased until T0 + 2 s
        // A release "at" a later instant than the lease's expiry keeps the earlier expiry.
        await store.leasesRelease({ nodeId: 'node-a', executionIds: [a!.executionId, b!.executionId], now: T0 + 5000 });
        expect(await store.nextDueAt()).toBe(T0 + TIMEOUT + 1000);
        // The outcome of a's released attempt arrives before anyone claims it again: recorded.
        await finish(a!);
        expect(await store.executionGet({ id: a!.executionId })).toMatchObject({ status: 'Succeeded', attempts: [{ number: 1 }] });
        // b is taken over; its old attempt's outcome then counts for nothing.
        const [b2] = await claim(T0 + TIMEOUT + 1000, { nodeId: 'node-b' });
        expect(b2).toMatchObject({ executionId: b!.executionId, attempt: 2 });
        await finish(b!, { status: 'Failed', statusCode: 500 });
        expect(await store.executionGet({ id: b!.executionId })).toMatchObject({ status: 'Running', attempts: [] });
      });
    });

    // ---- retries ---------------------------------------------------------------------------------
    describe('retries', () => {
      it('a Retrying execution is claimed again at nextAttemptAt, not before, as attempt + 1', async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0);
        await retryAt(a!, T0 + 5000);
        expect(await store.nextDueAt()).toBe(T0 + 5000);
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Running');
        expect(await store.executionGet({ id: a!.executionId })).toMatchObject({ status: 'Retrying', finishedAt: null, nextAttemptAt: T0 + 5000 });
        expect(await claim(T0 + 4999, { nodeId: 'node-b' })).toEqual([]);
        const [b] = await claim(T0 + 5000, { nodeId: 'node-b', leaseMs: 100 });
        expect(b).toEqual({ ...a, attempt: 2, leaseExpiresAt: T0 + 5000 + TIMEOUT + 100 });
        expect(await store.executionGet({ id: a!.executionId })).toMatchObject({ status: 'Running', nextAttemptAt: null });
        expect(await claim(T0 + 5000)).toEqual([]);
      });

      it('the steps of a retry policy are stored and carried by every claim; a Retrying execution a day away is claimed again then', async () => {
        const STEPS: RetryPolicy = { maxAttempts: 8, initialDelayMs: 1000, maxDelayMs: 43_200_000, delaysMs: [5_000, 300_000, 36_000_000] };
        const s = await newSchedule({ scheduledAt: T0, retry: STEPS });
        expect((await store.scheduleGet({ id: s.id }))?.retry).toEqual(STEPS);
        const c = await newCron({ nextInvocation: T0, retry: { ...STEPS, delaysMs: [60_000] } });
        expect((await store.cronGet({ id: c.id }))?.retry).toEqual({ ...STEPS, delaysMs: [60_000] });
        const first = await claim(T0);
        expect(first.find((x) => x.jobId === s.id)?.retry).toEqual(STEPS);
        expect(first.find((x) => x.jobId === c.id)?.retry).toEqual({ ...STEPS, delaysMs: [60_000] });
        // Both wait, as rows, for their next attempts a day later (nothing held in memory).
        const DAY = 86_400_000;
        for (const x of first) await retryAt(x, T0 + DAY);
        await store.cronUpdate({ id: c.id, status: 'Paused' }); // its next occurrences out of the way
        expect(await store.executionGet({ id: first[0]!.executionId })).toMatchObject({ status: 'Retrying', nextAttemptAt: T0 + DAY });
        expect(await store.nextDueAt()).toBe(T0 + DAY);
        expect(await claim(T0 + DAY - 1, { nodeId: 'node-b' })).toEqual([]);
        // The cron job's steps changed meanwhile: its retry is sent with the job's current policy.
        await store.cronUpdate({ id: c.id, retry: { ...STEPS, delaysMs: null } });
        const again = await claim(T0 + DAY, { nodeId: 'node-b' });
        expect(again.find((x) => x.jobId === s.id)).toMatchObject({ attempt: 2, retry: STEPS });
        expect(again.find((x) => x.jobId === c.id)).toMatchObject({ attempt: 2, retry: { ...STEPS, delaysMs: null } });
      });

      it('Retrying, Retrying, then Succeeded: the schedule follows, and every attempt is kept in order', async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        const [a1] = await claim(T0);
        await finish(a1!, {
          status: 'Retrying',
          nextAttemptAt: T0 + 1000,
          startedAt: T0 + 2,
          durationMs: 10,
          statusCode: 503,
          error: 'HTTP 503',
          responseBody: 'busy',
        });
        const [a2] = await claim(T0 + 1000);
        expect(a2?.attempt).toBe(2);
        await finish(a2!, {
          status: 'Retrying',
          nextAttemptAt: T0 + 3000,
          startedAt: T0 + 1001,
          durationMs: 20,
          statusCode: null,
          error: 'timeout',
          responseBody: null,
        });
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Running');
        const [a3] = await claim(T0 + 3000);
        expect(a3?.attempt).toBe(3);
        await finish(a3!, { startedAt: T0 + 3002, durationMs: 7 });
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Succeeded');
        expect(await store.executionGet({ id: a1!.executionId })).toEqual({
          id: a1!.executionId,
          jobType: 'schedule',
          jobId: s.id,
          scheduledFor: T0,
          status: 'Succeeded',
          triggered: false,
          backfill: false,
          createdAt: T0,
          startedAt: T0 + 2,
          finishedAt: T0 + 3009,
          nextAttemptAt: null,
          lateMs: 2,
          jitterMs: 0,
          missedOccurrences: null,
          attempts: [
            { number: 1, startedAt: T0 + 2, durationMs: 10, statusCode: 503, error: 'HTTP 503', responseBody: 'busy', ...CALLED },
            { number: 2, startedAt: T0 + 1001, durationMs: 20, statusCode: null, error: 'timeout', responseBody: null, ...CALLED },
            { number: 3, startedAt: T0 + 3002, durationMs: 7, statusCode: 200, error: null, responseBody: 'ok', ...CALLED },
          ],
        });
        expect(await store.nextDueAt()).toBeNull();
      });

      it('a retried execution can end Failed; the schedule takes that status', async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        const [a1] = await claim(T0);
        await retryAt(a1!, T0 + 100);
        const [a2] = await claim(T0 + 100);
        await finish(a2!, { status: 'Failed', statusCode: 500, error: 'HTTP 500' });
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Failed');
        expect(await store.executionGet({ id: a1!.executionId })).toMatchObject({ status: 'Failed', attempts: [{ number: 1 }, { number: 2 }] });
      });

      it('a cron occurrence retries without holding its job back: the next occurrence runs meanwhile', async () => {
        const c = await newCron({ nextInvocation: T0 });
        const [a] = await claim(T0);
        await retryAt(a!, T0 + 90_000);
        const next = await claim(T0 + 60_000);
        expect(next.map((x) => x.scheduledFor)).toEqual([T0 + 60_000]);
        expect((await claim(T0 + 90_000)).map((x) => [x.executionId, x.attempt])).toEqual([[a!.executionId, 2]]);
        expect((await store.cronGet({ id: c.id }))?.invocations).toBe(2);
      });

      it('a Retrying execution whose job was deleted is Failed at its next attempt, not claimed', async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0);
        await retryAt(a!, T0 + 1000);
        await store.scheduleDelete({ id: s.id });
        expect(await claim(T0 + 1000)).toEqual([]);
        expect(await store.executionGet({ id: a!.executionId })).toMatchObject({ status: 'Failed', finishedAt: T0 + 1000 });
        expect(await store.nextDueAt()).toBeNull();
      });

      it("started_at and lateMs are attempt 1's, even when attempt 1's node died", async () => {
        await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0 + 5, { leaseMs: 100 }); // node-a dies with the call in flight
        expect(await store.executionGet({ id: a!.executionId })).toMatchObject({ status: 'Running', startedAt: T0 + 5, lateMs: 5 });
        const [b] = await claim(T0 + 2000, { nodeId: 'node-b' });
        await finish(b!, { startedAt: T0 + 2001 }, 'node-b');
        expect(await store.executionGet({ id: a!.executionId })).toMatchObject({
          status: 'Succeeded',
          startedAt: T0 + 5,
          lateMs: 5,
          jitterMs: 0,
          missedOccurrences: null,
          finishedAt: T0 + 2013,
          nextAttemptAt: null,
          attempts: [{ number: 2, startedAt: T0 + 2001 }],
        });
      });

      it('a past scheduledAt is due from when it was stored or moved: dueAt, the claim and lateMs count from there', async () => {
        const s = await newSchedule({ scheduledAt: T0 - 3_600_000, now: T0 });
        expect(s.dueAt).toBe(T0);
        expect((await newSchedule({ scheduledAt: T0 + 10, now: T0 })).dueAt).toBe(T0 + 10); // a future instant is its own
        const moved = await store.scheduleUpdate({ now: T0 + 100, id: s.id, scheduledAt: T0 - 5_000 });
        expect(moved).toMatchObject({ scheduledAt: T0 - 5_000, dueAt: T0 + 100 });
        // A patch that leaves scheduledAt keeps the moment it became due.
        expect(await store.scheduleUpdate({ now: T0 + 200, id: s.id, name: 'renamed' })).toMatchObject({ dueAt: T0 + 100 });
        expect(await store.scheduleGet({ id: s.id })).toMatchObject({ dueAt: T0 + 100 });
        const claimed = await claim(T0 + 150);
        const mine = claimed.find((c) => c.jobId === s.id)!;
        expect(mine).toMatchObject({ scheduledFor: T0 - 5_000, dueAt: T0 + 100, attempt: 1 });
        await finish(mine, { startedAt: T0 + 160 });
        expect(await store.executionGet({ id: mine.executionId })).toMatchObject({ scheduledFor: T0 - 5_000, startedAt: T0 + 160, lateMs: 60 });
      });

      it("attempt 1's own start replaces the claim instant; later attempts never move it", async () => {
        await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0 + 5);
        await retryAt(a!, T0 + 100); // startedAt: scheduledFor + 3
        expect(await store.executionGet({ id: a!.executionId })).toMatchObject({ startedAt: T0 + 3, lateMs: 3 });
        const [b] = await claim(T0 + 100);
        await finish(b!, { startedAt: T0 + 101 });
        expect(await store.executionGet({ id: a!.executionId })).toMatchObject({ startedAt: T0 + 3, lateMs: 3 });
      });

      it('an outcome for another attempt than the one leased is ignored, even from the same node', async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        const [a1] = await claim(T0, { leaseMs: 1000 });
        const [a2] = await claim(T0 + 2000); // the same node takes its own expired lease again
        expect(a2).toMatchObject({ executionId: a1!.executionId, attempt: 2 });
        await finish(a1!, { status: 'Failed', statusCode: 500 }); // attempt 1's late outcome
        expect(await store.executionGet({ id: a1!.executionId })).toMatchObject({ status: 'Running', attempts: [] });
        await finish(a2!);
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Succeeded');
        expect((await store.executionGet({ id: a1!.executionId }))?.attempts.map((x) => x.number)).toEqual([2]);
      });

      it('an outcome for a Retrying execution (its lease released) is ignored', async () => {
        await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0);
        await retryAt(a!, T0 + 1000);
        await finish(a!); // the same outcome again, or a stray one
        expect(await store.executionGet({ id: a!.executionId })).toMatchObject({ status: 'Retrying', attempts: [{ number: 1 }] });
      });
    });

    // ---- cron policies -------------------------------------------------------------------------
    describe('cron misfire and overlap', () => {
      it('no misfire: the next occurrence follows the one claimed, so a claim late by less than a period drops none', async () => {
        const c = await newCron({ nextInvocation: T0, expression: EVERY_SECOND });
        expect((await claim(T0 + 800)).map((x) => x.scheduledFor)).toEqual([T0]);
        expect((await store.cronGet({ id: c.id }))?.nextInvocation).toBe(T0 + 1000);
        expect((await claim(T0 + 1000)).map((x) => x.scheduledFor)).toEqual([T0 + 1000]);
      });

      it("a claim late by more than a period is a misfire: with 'once', the missed occurrences collapse into the first", async () => {
        const c = await newCron({ nextInvocation: T0, expression: EVERY_SECOND });
        expect((await claim(T0 + 2500)).map((x) => x.scheduledFor)).toEqual([T0]);
        expect(await store.cronGet({ id: c.id })).toMatchObject({ invocations: 1, nextInvocation: T0 + 3000 });
        expect(await claim(T0 + 2999)).toEqual([]);
      });

      it('an occurrence exactly misfireThresholdMs late is no misfire; one ms more is', async () => {
        const a = await newCron({ nextInvocation: T0, misfire: 'skip', expression: HOURLY });
        expect((await claim(T0 + THRESHOLD)).map((x) => x.jobId)).toEqual([a.id]);
        const b = await newCron({ nextInvocation: T0, misfire: 'skip', expression: HOURLY });
        expect(await claim(T0 + THRESHOLD + 1)).toEqual([]);
        expect(await history('cron', b.id)).toMatchObject([{ scheduledFor: T0, status: 'Skipped' }]);
        const d = await newCron({ nextInvocation: T0, misfire: 'skip', expression: HOURLY });
        expect(await claim(T0 + 11, { misfireThresholdMs: 10 })).toEqual([]);
        expect(await history('cron', d.id)).toMatchObject([{ status: 'Skipped' }]);
      });

      it("misfire 'skip' records the first missed occurrence as Skipped, calls nothing, and goes on after now", async () => {
        const c = await newCron({ nextInvocation: T0 - 10 * 60_000, misfire: 'skip' });
        expect(await claim(T0)).toEqual([]);
        const [skipped] = await history('cron', c.id);
        expect(skipped).toEqual({
          id: expect.any(String),
          jobType: 'cron',
          jobId: c.id,
          scheduledFor: T0 - 10 * 60_000,
          status: 'Skipped',
          triggered: false,
          backfill: false,
          createdAt: T0,
          startedAt: null,
          finishedAt: T0,
          nextAttemptAt: null,
          lateMs: null,
          jitterMs: 0,
          missedOccurrences: null,
          attempts: [],
        });
        expect(await store.cronGet({ id: c.id })).toMatchObject({
          invocations: 1,
          nextInvocation: T0 + 60_000,
          lastInvocation: T0 - 10 * 60_000,
          lastStatus: 'Skipped',
          skippedOccurrences: 11,
        });
        expect(await store.nextDueAt()).toBe(T0 + 60_000);
        expect((await claim(T0 + 60_000)).map((x) => x.scheduledFor)).toEqual([T0 + 60_000]);
      });

      it("misfire 'once' after missed occurrences: the one execution records how many it stands for, first and last", async () => {
        const c = await newCron({ nextInvocation: T0 - 10 * 60_000, misfire: 'once' });
        const onTime = await newCron({ nextInvocation: T0, misfire: 'once' });
        const missed = { count: 11, first: T0 - 10 * 60_000, last: T0, capped: false };
        const [a, e, ...rest] = await claim(T0 + 1, { leaseMs: 10 });
        expect(rest).toEqual([]);
        // The occurrence on time stands for itself only.
        expect(e).toMatchObject({ jobId: onTime.id, scheduledFor: T0 });
        expect(e).not.toHaveProperty('missedOccurrences');
        expect(await store.executionGet({ id: e!.executionId })).toMatchObject({ missedOccurrences: null });
        expect(a).toMatchObject({ jobId: c.id, scheduledFor: T0 - 10 * 60_000, attempt: 1, missedOccurrences: missed });
        expect(await store.executionGet({ id: a!.executionId })).toMatchObject({ missedOccurrences: missed });
        expect((await history('cron', c.id)).map((e) => e.missedOccurrences)).toEqual([missed]);
        expect(await store.cronGet({ id: c.id })).toMatchObject({ invocations: 1, nextInvocation: T0 + 60_000, skippedOccurrences: 0 });
        // Every later attempt carries it: a retry, and a lease that expired (its node died).
        await retryAt(a!, T0 + 5000);
        const ofA = (items: ClaimedExecution[]) => items.find((x) => x.executionId === a!.executionId);
        expect(ofA(await claim(T0 + 5000, { leaseMs: 10 }))).toMatchObject({ attempt: 2, missedOccurrences: missed });
        expect(ofA(await claim(T0 + 5000 + 1_000_000))).toMatchObject({ attempt: 3, missedOccurrences: missed });
      });

      it("misfire 'once': one late occurrence alone stands for itself; beyond 1,000 missed the count is capped and last exact", async () => {
        const late = await newCron({ nextInvocation: T0, misfire: 'once', expression: HOURLY });
        const [x] = await claim(T0 + 10 * 60_000);
        expect(x).toMatchObject({ jobId: late.id, scheduledFor: T0 });
        expect(x).not.toHaveProperty('missedOccurrences');
        expect(await store.executionGet({ id: x!.executionId })).toMatchObject({ missedOccurrences: null });
        const o1 = T0 - 1500 * 60_000;
        const long = await newCron({ nextInvocation: o1, misfire: 'once' });
        const [y] = await claim(T0 + 30_000);
        const capped = { count: 1000, first: o1, last: T0, capped: true };
        expect(y).toMatchObject({ jobId: long.id, scheduledFor: o1, missedOccurrences: capped });
        expect(await store.executionGet({ id: y!.executionId })).toMatchObject({ missedOccurrences: capped });
      });

      it("misfire 'skip' counts the dropped occurrences on the job and in the claim's result, once each", async () => {
        const raw = (now: number) =>
          store.claimDue({ now, limit: 100, nodeId: 'node-a', leaseMs: LONG_LEASE, misfireThresholdMs: THRESHOLD });
        const c = await newCron({ nextInvocation: T0 - 10 * 60_000, misfire: 'skip' });
        const other = await newCron({ nextInvocation: T0 - 2 * 60_000, misfire: 'skip' });
        expect(await raw(T0)).toEqual({ claimed: [], skippedOccurrences: 11 + 3 });
        expect(await store.cronGet({ id: c.id })).toMatchObject({ skippedOccurrences: 11, invocations: 1, nextInvocation: T0 + 60_000 });
        expect(await store.cronGet({ id: other.id })).toMatchObject({ skippedOccurrences: 3 });
        expect(await raw(T0)).toEqual({ claimed: [], skippedOccurrences: 0 });
        // On time: it runs, and nothing is skipped.
        expect((await raw(T0 + 60_000)).skippedOccurrences).toBe(0);
        // A second outage adds to the total.
        const after = await raw(T0 + 60_000 + 5 * 60_000);
        expect(after.skippedOccurrences).toBe(5 + 5);
        expect(await store.cronGet({ id: c.id })).toMatchObject({ skippedOccurrences: 11 + 5 });
        expect(await store.cronGet({ id: other.id })).toMatchObject({ skippedOccurrences: 3 + 5 });
      });

      it("misfire 'all' runs every missed occurrence, oldest first", async () => {
        const c = await newCron({ nextInvocation: T0 - 4 * 60_000, misfire: 'all' });
        const claimed = await claim(T0 + 1);
        expect(claimed.map((x) => [x.scheduledFor, x.attempt])).toEqual([
          [T0 - 240_000, 1],
          [T0 - 180_000, 1],
          [T0 - 120_000, 1],
          [T0 - 60_000, 1],
          [T0, 1],
        ]);
        expect(await store.cronGet({ id: c.id })).toMatchObject({ invocations: 5, nextInvocation: T0 + 60_000, lastInvocation: T0 });
      });

      it("misfire 'all' beyond the limit: the rest wait as Pending and later claims take them, oldest first", async () => {
        const c = await newCron({ nextInvocation: T0 - 4 * 60_000, misfire: 'all' });
        const first = await claim(T0, { limit: 2 });
        expect(first.map((x) => x.scheduledFor)).toEqual([T0 - 240_000, T0 - 180_000]);
        expect(await store.cronGet({ id: c.id })).toMatchObject({ invocations: 5, nextInvocation: T0 + 60_000, lastStatus: 'Pending' });
        expect((await history('cron', c.id)).map((e) => e.status)).toEqual(['Pending', 'Pending', 'Pending', 'Running', 'Running']);
        expect(await store.nextDueAt()).toBe(T0 - 120_000);
        const second = await claim(T0, { limit: 2 });
        expect(second.map((x) => [x.scheduledFor, x.attempt])).toEqual([
          [T0 - 120_000, 1],
          [T0 - 60_000, 1],
        ]);
        expect((await claim(T0, { limit: 2 })).map((x) => x.scheduledFor)).toEqual([T0]);
        expect(await claim(T0, { limit: 2 })).toEqual([]);
        expect(await store.executionGet({ id: second[0]!.executionId })).toMatchObject({ startedAt: T0, lateMs: 120_000 });
      });

      it("misfire 'all' creates at most 1,000 executions: the oldest missed ones", async () => {
        const o1 = T0 - 1500 * 60_000;
        const c = await newCron({ nextInvocation: o1, misfire: 'all' });
        const got: ClaimedExecution[] = [];
        for (;;) {
          const batch = await claim(T0, { limit: 100 });
          expect(batch.length).toBeLessThanOrEqual(100);
          if (batch.length === 0) break;
          got.push(...batch);
        }
        expect(got.map((x) => x.scheduledFor)).toEqual(Array.from({ length: 1000 }, (_, i) => o1 + i * 60_000));
        expect(await store.cronGet({ id: c.id })).toMatchObject({ invocations: 1000, nextInvocation: T0 + 60_000 });
      });

      it("misfire 'all' with overlap 'skip': the first runs, the others are Skipped", async () => {
        const c = await newCron({ nextInvocation: T0 - 2 * 60_000, misfire: 'all', overlap: 'skip' });
        expect((await claim(T0)).map((x) => x.scheduledFor)).toEqual([T0 - 120_000]);
        expect((await history('cron', c.id)).map((e) => e.status)).toEqual(['Skipped', 'Skipped', 'Running']);
        expect((await store.cronGet({ id: c.id }))?.invocations).toBe(3);
      });

      it("overlap 'skip': an occurrence due while the previous one is Running or Retrying is Skipped", async () => {
        const c = await newCron({ nextInvocation: T0, overlap: 'skip' });
        const [a] = await claim(T0);
        expect(await claim(T0 + 60_000)).toEqual([]);
        expect(await store.cronGet({ id: c.id })).toMatchObject({
          invocations: 2,
          nextInvocation: T0 + 120_000,
          lastInvocation: T0 + 60_000,
          lastStatus: 'Skipped',
          skippedOccurrences: 0,
        });
        await retryAt(a!, T0 + 130_000);
        expect(await claim(T0 + 120_000)).toEqual([]);
        expect((await history('cron', c.id)).map((e) => [e.scheduledFor - T0, e.status])).toEqual([
          [120_000, 'Skipped'],
          [60_000, 'Skipped'],
          [0, 'Retrying'],
        ]);
        const [a2] = await claim(T0 + 130_000);
        expect(a2).toMatchObject({ executionId: a!.executionId, attempt: 2 });
        await finish(a2!);
        expect((await claim(T0 + 180_000)).map((x) => x.scheduledFor)).toEqual([T0 + 180_000]);
        expect(await store.cronGet({ id: c.id })).toMatchObject({ invocations: 4, lastInvocation: T0 + 180_000, lastStatus: 'Running' });
      });

      it("overlap 'skip' also counts a triggered execution not yet claimed", async () => {
        const c = await newCron({ nextInvocation: T0, overlap: 'skip' });
        const t = await store.jobTrigger({ jobType: 'cron', jobId: c.id, id: newId(), now: T0 - 1 });
        expect(t).not.toBe('not_found');
        // The trigger is due first (T0 - 1), so it runs, and the occurrence at T0 finds it Running.
        expect((await claim(T0)).map((x) => x.executionId)).toEqual([(t as Execution).id]);
        expect((await history('cron', c.id)).map((e) => [e.scheduledFor - T0, e.status])).toEqual([
          [0, 'Skipped'],
          [-1, 'Running'],
        ]);
      });

      it("overlap 'allow' (the default): occurrences run side by side", async () => {
        await newCron({ nextInvocation: T0 });
        const [a] = await claim(T0);
        const [b] = await claim(T0 + 60_000);
        expect(b?.scheduledFor).toBe(T0 + 60_000);
        expect(b?.executionId).not.toBe(a?.executionId);
      });

      it('lastInvocation and lastStatus follow the newest execution, by scheduledFor', async () => {
        const c = await newCron({ nextInvocation: T0 });
        expect(await store.cronGet({ id: c.id })).toMatchObject({ lastInvocation: null, lastStatus: null });
        const tid = newId();
        await store.jobTrigger({ jobType: 'cron', jobId: c.id, id: tid, now: T0 + 5 });
        expect(await store.cronGet({ id: c.id })).toMatchObject({ lastInvocation: T0 + 5, lastStatus: 'Pending' });
        // The occurrence at T0 is made after the trigger but is older: the trigger stays the newest.
        const claimed = await claim(T0 + 10);
        expect(claimed.map((x) => x.scheduledFor)).toEqual([T0, T0 + 5]);
        expect(await store.cronGet({ id: c.id })).toMatchObject({ lastInvocation: T0 + 5, lastStatus: 'Running' });
        await finish(claimed.find((x) => x.executionId === tid)!, { status: 'Failed', statusCode: 404 });
        expect(await store.cronGet({ id: c.id })).toMatchObject({ lastInvocation: T0 + 5, lastStatus: 'Failed' });
        await claim(T0 + 60_000);
        expect(await store.cronGet({ id: c.id })).toMatchObject({ invocations: 3, lastInvocation: T0 + 60_000, lastStatus: 'Running' });
        expect((await store.cronList())[0]).toMatchObject({ lastInvocation: T0 + 60_000, lastStatus: 'Running' });
        // A trigger stamped earlier than the newest occurrence (another node's clock lags) does not take its place.
        await store.jobTrigger({ jobType: 'cron', jobId: c.id, id: newId(), now: T0 + 30_000 });
        expect(await store.cronGet({ id: c.id })).toMatchObject({ invocations: 4, lastInvocation: T0 + 60_000, lastStatus: 'Running' });
      });
    });

    // ---- trigger -------------------------------------------------------------------------------
    describe('jobTrigger', () => {
      it('a Pending schedule: a Pending triggered execution due now; the schedule is Running and never fires at its time', async () => {
        const s = await newSchedule({ scheduledAt: T0 + 3_600_000 });
        const id = newId();
        const e = await store.jobTrigger({ jobType: 'schedule', jobId: s.id, id, now: T0 });
        expect(e).toEqual({
          id,
          jobType: 'schedule',
          jobId: s.id,
          scheduledFor: T0,
          status: 'Pending',
          triggered: true,
          backfill: false,
          createdAt: T0,
          startedAt: null,
          finishedAt: null,
          nextAttemptAt: null,
          lateMs: null,
          jitterMs: 0,
          missedOccurrences: null,
          attempts: [],
        });
        expect(await store.executionGet({ id })).toEqual(e);
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Running');
        expect(await store.nextDueAt()).toBe(T0);
        const claimed = await claim(T0, { leaseMs: 50 });
        expect(claimed).toEqual([
          {
            executionId: id,
            jobType: 'schedule',
            jobId: s.id,
            scheduledFor: T0,
            dueAt: T0,
            attempt: 1,
            endpoint: s.endpoint,
            data: s.data,
            retry: RETRY,
            timeoutMs: TIMEOUT,
            ...NO_REQUEST,
            successStatuses: ['2xx'],
            leaseExpiresAt: T0 + TIMEOUT + 50,
          },
        ]);
        expect(await store.executionGet({ id })).toMatchObject({ status: 'Running', startedAt: T0, lateMs: 0 });
        expect(await store.jobTrigger({ jobType: 'schedule', jobId: s.id, id: newId(), now: T0 + 1 })).toBe('not_pending');
        await finish(claimed[0]!);
        expect(await claim(T0 + 3_600_000)).toEqual([]);
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Succeeded');
        expect(await store.jobTrigger({ jobType: 'schedule', jobId: s.id, id: newId(), now: T0 + 2 })).toBe('not_pending');
        expect(await history('schedule', s.id)).toHaveLength(1);
      });

      it("an unknown job is 'not_found' (also a job of the other type)", async () => {
        const s = await newSchedule();
        const c = await newCron();
        expect(await store.jobTrigger({ jobType: 'schedule', jobId: newId(), id: newId(), now: T0 })).toBe('not_found');
        expect(await store.jobTrigger({ jobType: 'cron', jobId: newId(), id: newId(), now: T0 })).toBe('not_found');
        expect(await store.jobTrigger({ jobType: 'cron', jobId: s.id, id: newId(), now: T0 })).toBe('not_found');
        expect(await store.jobTrigger({ jobType: 'schedule', jobId: c.id, id: newId(), now: T0 })).toBe('not_found');
        expect(await store.nextDueAt()).toBe(T0);
      });

      it('a cron job triggered twice in the same ms gets two executions, Paused or not, and keeps its schedule', async () => {
        const c = await newCron({ nextInvocation: T0 + 3_600_000 });
        await store.cronUpdate({ id: c.id, status: 'Paused' });
        const [id1, id2] = [newId(), newId()];
        const e1 = await store.jobTrigger({ jobType: 'cron', jobId: c.id, id: id1, now: T0 });
        const e2 = await store.jobTrigger({ jobType: 'cron', jobId: c.id, id: id2, now: T0 });
        for (const e of [e1, e2]) expect(e).toMatchObject({ jobType: 'cron', jobId: c.id, scheduledFor: T0, status: 'Pending', triggered: true });
        expect(await store.cronGet({ id: c.id })).toMatchObject({
          status: 'Paused',
          invocations: 2,
          nextInvocation: T0 + 3_600_000,
          lastInvocation: T0,
          lastStatus: 'Pending',
          skippedOccurrences: 0,
        });
        const claimed = await claim(T0);
        expect(claimed.map((x) => [x.executionId, x.attempt, x.scheduledFor]).sort()).toEqual(
          [
            [id1, 1, T0],
            [id2, 1, T0],
          ].sort(),
        );
        expect((await history('cron', c.id)).map((e) => e.id).sort()).toEqual([id1, id2].sort());
      });

      it('a triggered execution whose job was deleted before its claim is Failed, not called', async () => {
        const c = await newCron({ nextInvocation: T0 + 3_600_000 });
        const id = newId();
        await store.jobTrigger({ jobType: 'cron', jobId: c.id, id, now: T0 });
        await store.cronDelete({ id: c.id });
        expect(await claim(T0)).toEqual([]);
        expect(await store.executionGet({ id })).toMatchObject({ status: 'Failed', finishedAt: T0, startedAt: null });
      });
    });

    // ---- executionGet / executionList ------------------------------------------------------------
    describe('executionGet and executionList', () => {
      it('get of an unknown id is null', async () => {
        expect(await store.executionGet({ id: newId() })).toBeNull();
      });

      it('pages newest first (scheduledFor, then id) with an opaque cursor; nextCursor is null on the last page', async () => {
        const c = await newCron({ nextInvocation: T0 });
        const occurrences: string[] = [];
        for (let i = 0; i < 5; i++) {
          const [x] = await claim(T0 + i * 60_000);
          occurrences.push(x!.executionId);
          await finish(x!, { startedAt: T0 + i * 60_000 + 1, responseBody: `r${i}` });
        }
        // Two triggers at the instant of the 5th occurrence: ties broken by id, descending.
        for (const n of [1, 2]) await store.jobTrigger({ jobType: 'cron', jobId: c.id, id: uuid(n), now: T0 + 240_000 });
        const expected = [occurrences[4]!, uuid(2), uuid(1), occurrences[3]!, occurrences[2]!, occurrences[1]!, occurrences[0]!];

        const p1 = await store.executionList({ jobType: 'cron', jobId: c.id, limit: 3, cursor: null });
        const p2 = await store.executionList({ jobType: 'cron', jobId: c.id, limit: 3, cursor: p1.nextCursor });
        const p3 = await store.executionList({ jobType: 'cron', jobId: c.id, limit: 3, cursor: p2.nextCursor });
        expect([p1, p2, p3].map((p) => p.executions.length)).toEqual([3, 3, 1]);
        expect(typeof p1.nextCursor).toBe('string');
        expect(typeof p2.nextCursor).toBe('string');
        expect(p3.nextCursor).toBeNull();
        expect([...p1.executions, ...p2.executions, ...p3.executions].map((e) => e.id)).toEqual(expected);
        // Attempts come with the page.
        expect(p1.executions[0]).toMatchObject({ status: 'Succeeded', attempts: [{ number: 1, responseBody: 'r4' }] });
        expect(p1.executions[1]).toMatchObject({ status: 'Pending', triggered: true, attempts: [] });
        expect(p3.executions[0]).toEqual(await store.executionGet({ id: occurrences[0]! }));
        // A page that ends exactly at the last execution has no next page.
        expect((await store.executionList({ jobType: 'cron', jobId: c.id, limit: 7, cursor: null })).nextCursor).toBeNull();
        expect((await store.executionList({ jobType: 'cron', jobId: c.id, limit: 6, cursor: null })).nextCursor).not.toBeNull();
      });

      it("a cursor this store did not make is InvalidInputError on '/query/cursor'", async () => {
        const c = await newCron();
        const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
        for (const cursor of ['', 'not a cursor!', 'AAAA', b64({}), b64([1]), b64(['x', 'y']), b64([1.5, 'a']), b64([1, '']), b64([1, 'a', 2])]) {
          const err = await store.executionList({ jobType: 'cron', jobId: c.id, limit: 10, cursor }).catch((e: unknown) => e);
          expect(err, cursor).toBeInstanceOf(InvalidInputError);
          expect((err as InvalidInputError).errors.map((e) => e.path)).toEqual(['/query/cursor']);
        }
      });

      it('a job without executions, or unknown, gives an empty page', async () => {
        const s = await newSchedule({ scheduledAt: T0 + 1000 });
        expect(await store.executionList({ jobType: 'schedule', jobId: s.id, limit: 20, cursor: null })).toEqual({ executions: [], nextCursor: null });
        expect(await store.executionList({ jobType: 'cron', jobId: newId(), limit: 20, cursor: null })).toEqual({ executions: [], nextCursor: null });
      });

      it("lists only that job's executions", async () => {
        const a = await newSchedule({ scheduledAt: T0 });
        const b = await newSchedule({ scheduledAt: T0 });
        const claimed = await claim(T0);
        const ofA = await store.executionList({ jobType: 'schedule', jobId: a.id, limit: 20, cursor: null });
        expect(ofA.executions.map((e) => e.id)).toEqual([claimed.find((x) => x.jobId === a.id)!.executionId]);
        expect((await store.executionList({ jobType: 'cron', jobId: b.id, limit: 20, cursor: null })).executions).toEqual([]);
      });
    });

    // ---- pruning -------------------------------------------------------------------------------
    describe('executionsPrune', () => {
      it('deletes only finished executions older than `before`, oldest first, at most `limit`, with their attempts', async () => {
        const done = async (at: number, o: Partial<AttemptOutcome> = {}) => {
          await newSchedule({ scheduledAt: at });
          const [x] = await claim(at);
          await finish(x!, { startedAt: at, durationMs: 10, ...o });
          return x!.executionId;
        };
        const old1 = await done(T0); // finished T0 + 10
        const old2 = await done(T0 + 100, { status: 'Failed', statusCode: 404 }); // T0 + 110
        const recent = await done(T0 + 10_000);
        await newSchedule({ scheduledAt: T0 + 200 });
        const [running] = await claim(T0 + 200);
        await newSchedule({ scheduledAt: T0 + 300 });
        const [retrying] = await claim(T0 + 300);
        await retryAt(retrying!, T0 + 1_000_000);
        // A cron job: its older execution goes, its newest (lastInvocation) stays.
        const c = await newCron({ nextInvocation: T0 });
        const [c1] = await claim(T0);
        await finish(c1!, { startedAt: T0, durationMs: 50 }); // finished T0 + 50
        const [c2] = await claim(T0 + 60_000);
        await finish(c2!, { startedAt: T0 + 60_000, durationMs: 1 });

        expect(await store.executionsPrune({ before: T0 + 5000, limit: 1 })).toBe(1);
        expect(await store.executionGet({ id: old1 })).toBeNull();
        expect(await store.executionGet({ id: old2 })).not.toBeNull();
        expect(await store.executionsPrune({ before: T0 + 5000, limit: 100 })).toBe(2); // old2, c1
        expect(await store.executionsPrune({ before: T0 + 5000, limit: 100 })).toBe(0);
        for (const id of [old1, old2, c1!.executionId]) expect(await store.executionGet({ id })).toBeNull();
        for (const id of [recent, running!.executionId, retrying!.executionId, c2!.executionId]) expect(await store.executionGet({ id })).not.toBeNull();
        expect(await store.cronGet({ id: c.id })).toMatchObject({ lastInvocation: T0 + 60_000, lastStatus: 'Succeeded' });
        // Far in the future every finished one is old, except each cron job's newest.
        expect(await store.executionsPrune({ before: T0 + 86_400_000, limit: 100 })).toBe(1); // recent
        expect((await history('cron', c.id)).map((e) => e.id)).toEqual([c2!.executionId]);
        expect(await store.executionsPrune({ before: T0 + 86_400_000, limit: 100 })).toBe(0);
        // Once the cron job is gone, its last execution may go too.
        await store.cronDelete({ id: c.id });
        expect(await store.executionsPrune({ before: T0 + 86_400_000, limit: 100 })).toBe(1);
      });

      it('a limit of 0, or nothing to prune, deletes nothing', async () => {
        await newSchedule({ scheduledAt: T0 });
        const [x] = await claim(T0);
        await finish(x!);
        expect(await store.executionsPrune({ before: T0 + 1000, limit: 0 })).toBe(0);
        expect(await store.executionsPrune({ before: T0, limit: 10 })).toBe(0);
        expect(await store.executionsPrune({ before: T0 + 1000, limit: 10 })).toBe(1);
      });
    });

    // ---- settings ------------------------------------------------------------------------------
    describe('settingGetOrCreate', () => {
      it('creates the value once; later calls read it without calling create', async () => {
        let calls = 0;
        const create = (v: string) => () => {
          calls++;
          return v;
        };
        expect(await store.settingGetOrCreate({ key: 'signing-secret', create: create('first') })).toBe('first');
        expect(await store.settingGetOrCreate({ key: 'signing-secret', create: create('second') })).toBe('first');
        expect(calls).toBe(1);
        expect(await store.settingGetOrCreate({ key: 'other', create: create('x') })).toBe('x');
      });

      it('settingGet reads a value, or null when absent, and creates nothing', async () => {
        expect(await store.settingGet({ key: 'absent' })).toBeNull();
        expect(await store.settingGet({ key: 'absent' })).toBeNull();
        await store.settingGetOrCreate({ key: 'present', create: () => 'v' });
        expect(await store.settingGet({ key: 'present' })).toBe('v');
      });

      it('concurrent calls agree on one value', async () => {
        const values = await Promise.all(
          ['a', 'b', 'c', 'd'].map((v) => store.settingGetOrCreate({ key: 'k', create: () => `value-${v}` })),
        );
        expect(new Set(values).size).toBe(1);
        expect(await store.settingGetOrCreate({ key: 'k', create: () => 'late' })).toBe(values[0]);
      });

      it('a create that throws stores nothing and rejects with its error', async () => {
        const boom = new Error('no entropy');
        await expect(
          store.settingGetOrCreate({
            key: 'k',
            create: () => {
              throw boom;
            },
          }),
        ).rejects.toBe(boom);
        expect(await store.settingGetOrCreate({ key: 'k', create: () => 'v' })).toBe('v');
      });
    });

    // ---- executionsFinish ----------------------------------------------------------------------
    describe('executionsFinish', () => {
      it('a success makes the schedule Succeeded, a failure Failed, in one batch', async () => {
        const ok = await newSchedule({ scheduledAt: T0 });
        const ko = await newSchedule({ scheduledAt: T0 + 1 });
        const claimed = await claim(T0 + 1);
        const byJob = new Map(claimed.map((c) => [c.jobId, c]));
        await store.executionsFinish({
          nodeId: 'node-a',
          outcomes: [
            outcome(byJob.get(ok.id)!),
            outcome(byJob.get(ko.id)!, { status: 'Failed', statusCode: null, error: 'timeout', responseBody: null }),
          ],
        });
        expect((await store.scheduleGet({ id: ok.id }))?.status).toBe('Succeeded');
        expect((await store.scheduleGet({ id: ko.id }))?.status).toBe('Failed');
        expect(await store.nextDueAt()).toBeNull();
        expect(await store.executionGet({ id: byJob.get(ko.id)!.executionId })).toMatchObject({
          status: 'Failed',
          finishedAt: T0 + 1 + 3 + 12,
          nextAttemptAt: null,
          attempts: [{ number: 1, startedAt: T0 + 4, durationMs: 12, statusCode: null, error: 'timeout', responseBody: null }],
        });
      });

      it('an outcome for a lease that was lost is ignored; the new holder decides', async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0, { nodeId: 'node-a', leaseMs: 1000 });
        const [b] = await claim(T0 + 2000, { nodeId: 'node-b', leaseMs: 1000 });
        await store.executionsFinish({ nodeId: 'node-a', outcomes: [outcome(a!)] });
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Running');
        expect(await store.executionGet({ id: a!.executionId })).toMatchObject({ status: 'Running', attempts: [] });
        expect(await store.nextDueAt()).toBe(T0 + 2000 + TIMEOUT + 1000);
        await store.executionsFinish({ nodeId: 'node-b', outcomes: [outcome(b!, { status: 'Failed', statusCode: 500 })] });
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Failed');
      });

      it('an outcome from a node that never held the lease is ignored', async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0, { nodeId: 'node-a' });
        await store.executionsFinish({ nodeId: 'intruder', outcomes: [outcome(a!)] });
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Running');
      });

      it('a second outcome for a finished execution is ignored', async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0);
        await store.executionsFinish({ nodeId: 'node-a', outcomes: [outcome(a!, { status: 'Failed', statusCode: 503 })] });
        await store.executionsFinish({ nodeId: 'node-a', outcomes: [outcome(a!)] });
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Failed');
        expect((await store.executionGet({ id: a!.executionId }))?.attempts).toHaveLength(1);
      });

      it('outcomes for a deleted schedule or an unknown execution, and an empty batch, are harmless', async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0);
        await store.scheduleDelete({ id: s.id });
        await store.executionsFinish({
          nodeId: 'node-a',
          outcomes: [outcome(a!), outcome({ ...a!, executionId: newId() })],
        });
        expect(await store.scheduleGet({ id: s.id })).toBeNull();
        expect(await store.nextDueAt()).toBeNull();
        expect(await store.executionGet({ id: a!.executionId })).toMatchObject({ status: 'Succeeded' });
      });

      it('a cron outcome ends the lease and leaves the job Active on its schedule', async () => {
        const c = await newCron({ nextInvocation: T0 });
        const [a] = await claim(T0, { leaseMs: 1000 });
        await store.executionsFinish({ nodeId: 'node-a', outcomes: [outcome(a!, { status: 'Failed', statusCode: 404 })] });
        expect(await store.cronGet({ id: c.id })).toEqual({
          ...c,
          invocations: 1,
          nextInvocation: T0 + 60_000,
          lastInvocation: T0,
          lastStatus: 'Failed',
          skippedOccurrences: 0,
          consecutiveFailures: 1,
        });
        expect(await store.nextDueAt()).toBe(T0 + 60_000);
      });

      it("records each attempt's trace id and span id (Trace Context), and reads them back in lists", async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        const [a1] = await claim(T0);
        const traceId = a1!.executionId.replaceAll('-', '');
        await finish(a1!, { status: 'Retrying', nextAttemptAt: T0 + 100, statusCode: 503, traceId, spanId: '00f067aa0ba902b7' });
        const [a2] = await claim(T0 + 100);
        await finish(a2!, { startedAt: T0 + 101, traceId, spanId: 'b7ad6b7169203331' });
        const ids = (e: Execution | null | undefined) => e?.attempts.map((a) => [a.number, a.traceId, a.spanId]);
        const expected = [[1, traceId, '00f067aa0ba902b7'], [2, traceId, 'b7ad6b7169203331']];
        expect(ids(await store.executionGet({ id: a1!.executionId }))).toEqual(expected);
        const page = await store.executionList({ jobType: 'schedule', jobId: s.id, limit: 10, cursor: null });
        expect(ids(page.executions[0])).toEqual(expected);
      });

      it('accepts fractional instants and durations (performance.now() differences); a retry is never early', async () => {
        await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0);
        await finish(a!, { status: 'Retrying', nextAttemptAt: T0 + 100.2, startedAt: T0 + 3.7, durationMs: 12.3456 });
        expect(await store.nextDueAt()).toBe(T0 + 101);
        expect((await store.executionGet({ id: a!.executionId }))?.attempts).toEqual([
          { number: 1, startedAt: T0 + 3, durationMs: 12, statusCode: 200, error: null, responseBody: 'ok', ...CALLED },
        ]);
        expect(await claim(T0 + 100)).toEqual([]);
        const [b] = await claim(T0 + 101);
        await finish(b!, { durationMs: 0.4 });
        expect(await store.nextDueAt()).toBeNull();
      });
    });

    // ---- the request of a job's calls ----------------------------------------------------------
    describe('request (method, headers, body, auth, secrets)', () => {
      const callOf = (c: ClaimedExecution | undefined) =>
        c && { method: c.method, headers: c.headers, body: c.body, auth: c.auth, secrets: c.secrets };

      it('a schedule patch keeps absent request fields, sets given ones, and null clears body, auth and secrets', async () => {
        const s = await store.scheduleCreate({ id: newId(), name: 'r', scheduledAt: T0, endpoint: 'https://example.com/r', data: {}, tags: [], retry: RETRY, timeoutMs: TIMEOUT, ...REQUEST, now: T0 - 1 });
        const kept = await store.scheduleUpdate({ id: s.id, name: 'renamed', now: T0 });
        expect(kept).toMatchObject({ name: 'renamed', ...REQUEST });
        const set = await store.scheduleUpdate({ id: s.id, method: 'DELETE', headers: { 'X-A': '1' }, secrets: { token: 'sealed:2' }, now: T0 });
        expect(set).toMatchObject({ method: 'DELETE', headers: { 'X-A': '1' }, body: REQUEST.body, auth: REQUEST.auth, secrets: { token: 'sealed:2' } });
        const cleared = await store.scheduleUpdate({ id: s.id, body: null, auth: null, secrets: null, now: T0 });
        expect(cleared).toMatchObject({ method: 'DELETE', headers: { 'X-A': '1' }, body: null, auth: null, secrets: null });
        expect(await store.scheduleGet({ id: s.id })).toEqual(cleared);
        expect(await store.scheduleList()).toEqual([cleared]);
        expect((await store.schedulePage({ limit: 10, cursor: null, status: null, name: null, tags: [] })).schedules).toEqual([cleared]);
      });

      it('a cron patch keeps absent request fields, sets given ones, and null clears body, auth and secrets', async () => {
        const c = await newCron();
        expect(c).toMatchObject(NO_REQUEST);
        const set = await store.cronUpdate({ id: c.id, ...REQUEST });
        expect(set).toMatchObject(REQUEST);
        expect(await store.cronUpdate({ id: c.id, name: 'x' })).toMatchObject(REQUEST);
        const cleared = await store.cronUpdate({ id: c.id, body: null, auth: null, secrets: null });
        expect(cleared).toMatchObject({ method: 'PUT', headers: REQUEST.headers, body: null, auth: null, secrets: null });
        expect(await store.cronList()).toEqual([cleared]);
        expect((await store.cronPage({ limit: 10, cursor: null, status: null, name: null, tags: [] })).cronJobs).toEqual([cleared]);
      });

      it('reaches the claim: a schedule start, a cron occurrence, and a retry with the job\'s current request', async () => {
        const s = await store.scheduleCreate({ id: newId(), name: 'r', scheduledAt: T0, endpoint: 'https://example.com/r', data: {}, tags: [], retry: RETRY, timeoutMs: TIMEOUT, ...REQUEST, now: T0 - 1 });
        const c = await store.cronCreate({ id: newId(), expression: EVERY_MINUTE, name: null, timezone: null, endpoint: 'https://example.com/c', data: null, nextInvocation: T0, retry: RETRY, timeoutMs: TIMEOUT, misfire: 'once', overlap: 'allow', ...CRON_REQUEST, now: T0 - 1 });
        const first = await claim(T0);
        expect(callOf(first.find((x) => x.jobId === s.id))).toEqual(REQUEST);
        expect(callOf(first.find((x) => x.jobId === c.id))).toEqual(CRON_REQUEST);
        // The cron job changes its request while its call is retried: the retry sends the new one.
        const cronClaim = first.find((x) => x.jobId === c.id)!;
        await retryAt(cronClaim, T0 + 10);
        await store.cronUpdate({ id: c.id, method: 'POST', headers: { 'X-B': '2' }, body: 'text', auth: null, secrets: null });
        const [retried] = await claim(T0 + 10);
        expect(retried?.executionId).toBe(cronClaim.executionId);
        expect(callOf(retried)).toEqual({ method: 'POST', headers: { 'X-B': '2' }, body: 'text', auth: null, secrets: null });
        // A triggered run (a waiting execution) reads the job's request too.
        await store.jobTrigger({ jobType: 'cron', jobId: c.id, id: newId(), now: T0 + 20 });
        expect(callOf((await claim(T0 + 20)).find((x) => x.jobId === c.id))).toMatchObject({ body: 'text' });
      });

      it('an attempt records the method and URL of its call', async () => {
        const s = await store.scheduleCreate({ id: newId(), name: 'r', scheduledAt: T0, endpoint: 'https://example.com/r?x=1', data: {}, tags: [], retry: RETRY, timeoutMs: TIMEOUT, ...REQUEST, now: T0 - 1 });
        const [a] = await claim(T0);
        await finish(a!);
        const e = await store.executionGet({ id: a!.executionId });
        expect(e?.attempts.map((x) => [x.method, x.url])).toEqual([['PUT', 'https://example.com/r?x=1']]);
        expect((await store.executionList({ jobType: 'schedule', jobId: s.id, limit: 10, cursor: null })).executions[0]?.attempts).toEqual(e?.attempts);
      });
    });

    // ---- nextDueAt -----------------------------------------------------------------------------
    describe('nextDueAt', () => {
      it('is null when nothing waits', async () => {
        expect(await store.nextDueAt()).toBeNull();
      });

      it('is the earliest Pending schedule, following updates and deletes', async () => {
        const a = await newSchedule({ scheduledAt: T0 + 500 });
        const b = await newSchedule({ scheduledAt: T0 + 300 });
        expect(await store.nextDueAt()).toBe(T0 + 300);
        await store.scheduleUpdate({ now: T0, id: a.id, scheduledAt: T0 + 100 });
        expect(await store.nextDueAt()).toBe(T0 + 100);
        await store.scheduleDelete({ id: a.id });
        expect(await store.nextDueAt()).toBe(T0 + 300);
        await store.scheduleDelete({ id: b.id });
        expect(await store.nextDueAt()).toBeNull();
      });

      it('is the earliest Active cron occurrence; Paused jobs do not count', async () => {
        const a = await newCron({ nextInvocation: T0 + 700 });
        await newCron({ nextInvocation: T0 + 900 });
        expect(await store.nextDueAt()).toBe(T0 + 700);
        await store.cronUpdate({ id: a.id, status: 'Paused' });
        expect(await store.nextDueAt()).toBe(T0 + 900);
      });

      it('counts the lease of a running execution until it finishes', async () => {
        await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0, { leaseMs: 5000 });
        expect(await store.nextDueAt()).toBe(T0 + TIMEOUT + 5000);
        await finish(a!);
        expect(await store.nextDueAt()).toBeNull();
      });

      it('is the minimum across the four kinds', async () => {
        await newSchedule({ scheduledAt: T0 });
        await claim(T0, { leaseMs: 300 }); // lease due at T0 + 1300
        await newSchedule({ scheduledAt: T0 + 1400 });
        const c = await newCron({ nextInvocation: T0 + 200 });
        await newSchedule({ scheduledAt: T0 + 1 });
        const [r] = await claim(T0 + 1);
        await retryAt(r!, T0 + 250); // waiting, due at T0 + 250
        expect(await store.nextDueAt()).toBe(T0 + 200);
        await store.cronDelete({ id: c.id });
        expect(await store.nextDueAt()).toBe(T0 + 250);
        await claim(T0 + 250, { leaseMs: 10_000 });
        expect(await store.nextDueAt()).toBe(T0 + 1300);
      });

      it('reports a past instant while due work waits (claim is then worth calling at once)', async () => {
        await newSchedule({ scheduledAt: T0 - 5000 });
        expect(await store.nextDueAt()).toBe(T0 - 5000);
      });
    });

    // ---- dueCount (the due-but-unclaimed gauge) ---------------------------------------------------
    describe('dueCount', () => {
      const NONE = { schedule: 0, cron: 0, waiting: 0, lease: 0 };

      it('is zero for every source when nothing waits', async () => {
        expect(await store.dueCount({ now: T0, limit: 100 })).toEqual(NONE);
      });

      it('counts Pending schedules and Active cron jobs due at now (inclusive); later, Paused and claimed ones do not count', async () => {
        await newSchedule({ scheduledAt: T0 - 1000 });
        await newSchedule({ scheduledAt: T0 });
        await newSchedule({ scheduledAt: T0 + 1 });
        await newCron({ nextInvocation: T0 - 120_000 }); // missed several occurrences: still one job due
        const paused = await newCron({ nextInvocation: T0 });
        await store.cronUpdate({ id: paused.id, status: 'Paused' });
        await newCron({ nextInvocation: T0 + 1 });
        expect(await store.dueCount({ now: T0, limit: 100 })).toEqual({ ...NONE, schedule: 2, cron: 1 });
        expect(await store.dueCount({ now: T0 + 1, limit: 100 })).toEqual({ ...NONE, schedule: 3, cron: 2 });
        expect(await store.dueCount({ now: T0 - 1001, limit: 100 })).toEqual({ ...NONE, cron: 1 });
        expect(await store.dueCount({ now: T0 - 120_001, limit: 100 })).toEqual(NONE);

        await claim(T0, { leaseMs: 10_000 }); // claimed work is Running under a live lease: not due
        expect(await store.dueCount({ now: T0, limit: 100 })).toEqual(NONE);
        expect(await store.dueCount({ now: T0 + 1, limit: 100 })).toEqual({ ...NONE, schedule: 1, cron: 1 });
      });

      it('counts waiting executions (retries, triggers) once their attempt is due, and expired leases', async () => {
        const s = await newSchedule({ scheduledAt: T0 });
        const [a] = await claim(T0, { leaseMs: 1000 }); // lease expires at T0 + TIMEOUT + 1000
        await newSchedule({ scheduledAt: T0 + 10 });
        const [r] = await claim(T0 + 10);
        await retryAt(r!, T0 + 500);
        const later = await newSchedule({ scheduledAt: T0 + 3_600_000 });
        await store.jobTrigger({ jobType: 'schedule', jobId: later.id, id: newId(), now: T0 + 20 });

        expect(await store.dueCount({ now: T0 + 20, limit: 100 })).toEqual({ ...NONE, waiting: 1 });
        expect(await store.dueCount({ now: T0 + 500, limit: 100 })).toEqual({ ...NONE, waiting: 2 });
        expect(await store.dueCount({ now: T0 + TIMEOUT + 999, limit: 100 })).toEqual({ ...NONE, waiting: 2 });
        expect(await store.dueCount({ now: T0 + TIMEOUT + 1000, limit: 100 })).toEqual({ ...NONE, waiting: 2, lease: 1 });

        await finish(a!); // the lease holder's outcome: no longer Running
        expect(await store.dueCount({ now: T0 + TIMEOUT + 1000, limit: 100 })).toEqual({ ...NONE, waiting: 2 });
        expect((await store.scheduleGet({ id: s.id }))?.status).toBe('Succeeded');
      });

      it('executionRetryingCount counts Retrying executions by job type, due or not, up to limit', async () => {
        expect(await store.executionRetryingCount({ limit: 100 })).toEqual({ schedule: 0, cron: 0 });
        for (let i = 0; i < 3; i++) await newSchedule({ scheduledAt: T0 - i });
        const c = await newCron({ nextInvocation: T0 });
        const claimed = await claim(T0);
        const schedules = claimed.filter((x) => x.jobType === 'schedule');
        await retryAt(schedules[0]!, T0 + 86_400_000); // not due for a day: still waiting
        await retryAt(schedules[1]!, T0 + 1);
        await retryAt(claimed.find((x) => x.jobId === c.id)!, T0 + 86_400_000);
        const later = await newSchedule({ scheduledAt: T0 + 3_600_000 });
        await store.jobTrigger({ jobType: 'schedule', jobId: later.id, id: newId(), now: T0 }); // Pending, not a retry
        expect(await store.executionRetryingCount({ limit: 100 })).toEqual({ schedule: 2, cron: 1 });
        expect(await store.executionRetryingCount({ limit: 1 })).toEqual({ schedule: 1, cron: 1 });
        await claim(T0 + 1); // the due retry runs again: Running, no longer waiting
        expect(await store.executionRetryingCount({ limit: 100 })).toEqual({ schedule: 1, cron: 1 });
      });

      it('stops counting each source at limit', async () => {
        for (let i = 0; i < 5; i++) await newSchedule({ scheduledAt: T0 - i });
        for (let i = 0; i < 4; i++) await newCron({ nextInvocation: T0 - i });
        expect(await store.dueCount({ now: T0, limit: 3 })).toEqual({ ...NONE, schedule: 3, cron: 3 });
        expect(await store.dueCount({ now: T0, limit: 1 })).toEqual({ ...NONE, schedule: 1, cron: 1 });
        expect(await store.dueCount({ now: T0, limit: 1000 })).toEqual({ ...NONE, schedule: 5, cron: 4 });
      });

      it('only reads: the work it counts is still claimed afterwards', async () => {
        await newSchedule({ scheduledAt: T0 });
        await newCron({ nextInvocation: T0 });
        await store.dueCount({ now: T0, limit: 100 });
        expect(await store.nextDueAt()).toBe(T0);
        expect(await claim(T0)).toHaveLength(2);
        expect(await store.dueCount({ now: T0, limit: 100 })).toEqual(NONE);
      });
    });
  });
}
