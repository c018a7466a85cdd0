/**
 * The PostgreSQL store: the conformance suite against a real server (a fresh schema per test,
 * clock 'caller' so time is the suite's), then what only PostgreSQL has: migrations under an
 * advisory lock, SKIP LOCKED with concurrent claimers, the database clock, LISTEN/NOTIFY across
 * store instances, once-per-cluster duties, connection failures, URLs.
 *
 * Needs `PUNCTUAL_TEST_DATABASE_URL` (skipped without it; test/support/global-setup.ts says so).
 */
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidInputError, StoreUnavailableError } from '../../src/domain/errors.js';
import { newId } from '../../src/domain/ids.js';
import type { ClaimedExecution } from '../../src/domain/types.js';
import { describeDatabaseUrl, openStore } from '../../src/store/open.js';
import { candidatesSql, dueCountSql, DUE_CRON_SQL, NEXT_DUE_SQL, RELET_SQL, START_SCHEDULES_SQL } from '../../src/store/postgres/claim/sql.js';
import { finishSql } from '../../src/store/postgres/queries/executions.js';
import { connectionConfig, toStoreError } from '../../src/store/postgres/connection.js';
import { PostgresStore, type PostgresStoreOptions } from '../../src/store/postgres/store.js';
import { LATEST_VERSION, migrate, MIGRATIONS } from '../../src/store/postgres/migrations/index.js';
import { channelOf } from '../../src/store/postgres/notify.js';
import type { ClaimDueParams, Store } from '../../src/store/store.js';
import { MigratedSchemaPool } from '../support/migrated.js';
import { adminQuery, createTestSchema, pgTestUrl, type TestSchema } from '../support/pg.js';
import { freePort } from '../support/ports.js';
import { exerciseStore, T0 } from './conformance/index.js';
import { expectOldRetryKept, OLD_RETRY_SEED, oldRetryIds } from './migration-retry.js';
import { SEARCH_PLAN_CASES } from './execution-search-plans.js';
import { searchPageSql } from '../../src/store/sql/execution-search.js';
import { PG_PLACEHOLDER } from '../../src/store/postgres/connection.js';

const BASE = pgTestUrl();

const RETRY = { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 3_600_000, delaysMs: null };

/** A schedule due at `scheduledAt`. */
function schedule(store: Store, scheduledAt: number, o: { data?: Record<string, unknown>; name?: string } = {}) {
  return store.scheduleCreate({
    id: newId(),
    name: o.name ?? 's',
    scheduledAt,
    endpoint: 'https://example.com/',
    data: o.data ?? {},
    tags: [],
    retry: RETRY,
    timeoutMs: 1000,
    now: T0,
  });
}

/** A cron job due at `nextInvocation`. */
function cron(store: Store, nextInvocation: number) {
  return store.cronCreate({
    id: newId(),
    expression: '* * * * *',
    name: null,
    timezone: null,
    endpoint: 'https://example.com/c',
    data: null,
    nextInvocation,
    retry: RETRY,
    timeoutMs: 1000,
    misfire: 'once',
    overlap: 'allow',
    now: T0,
  });
}

/** claimDue params of these tests. */
function claimAt(now: number, o: Partial<ClaimDueParams> = {}): ClaimDueParams {
  return {
    now,
    limit: 100,
    nodeId: 'n',
    leaseMs: 60_000,
    misfireThresholdMs: 60_000,
    ...o,
  };
}

/** Resolves when `predicate` holds, polling every 20 ms; rejects after `ms`. */
async function until(predicate: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe.skipIf(!BASE)('PostgreSQL store', () => {
  const pool = new MigratedSchemaPool(BASE ?? '');
  afterAll(() => pool.close());
  exerciseStore('postgres', async () => {
    const schema = await pool.take();
    const store = PostgresStore.open(schema.url, { clock: 'caller' });
    return {
      store,
      cleanup: async () => {
        await store.close();
        await schema.drop();
      },
    };
  });

  describe('PostgreSQL only', () => {
    let schema: TestSchema;
    const stores: PostgresStore[] = [];

    beforeEach(async () => {
      schema = await createTestSchema(BASE!);
    });
    afterEach(async () => {
      await Promise.all(stores.splice(0).map((s) => s.close()));
      await schema.drop();
    });

    /** A store on this test's schema (migrated unless told), closed after the test. */
    const open = async (opts: PostgresStoreOptions & { migrate?: boolean } = {}): Promise<PostgresStore> => {
      const s = PostgresStore.open(schema.url, { clock: 'caller', ...opts });
      stores.push(s);
      if (opts.migrate !== false) await s.migrate();
      return s;
    };

    describe('migrations', () => {
      it('three nodes migrating at once: one applies, the others wait and find nothing to do', async () => {
        // A schema that does not exist yet: the migration creates it, under the same lock.
        const fresh = `${schema.schema}_new`;
        const url = new URL(schema.url);
        url.searchParams.set('schema', fresh);
        const nodes = [1, 2, 3].map(() => PostgresStore.open(url.toString(), { clock: 'caller' }));
        stores.push(...nodes);
        try {
          await Promise.all(nodes.map((s) => s.migrate()));
          const rows = await adminQuery<{ version: number }>(BASE!, `SELECT version FROM "${fresh}".schema_migrations ORDER BY version`);
          expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
          await Promise.all(nodes.map((s) => s.migrate())); // and again: nothing to do
          const s = await schedule(nodes[0]!, T0);
          expect(await nodes[2]!.scheduleGet({ id: s.id })).toEqual(s);
        } finally {
          await Promise.all(nodes.map((s) => s.close()));
          await adminQuery(BASE!, `DROP SCHEMA IF EXISTS "${fresh}" CASCADE`);
        }
      });

      it('refuses a schema migrated by a newer Punctual, with a clear message', async () => {
        const s = await open();
        await s.sql.rows('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, 0)', [LATEST_VERSION + 1]);
        await expect(s.migrate()).rejects.toThrow(/newer than this version of Punctual knows/);
      });

      it('migration 8 (retry steps): jobs stored before keep their exponential policy, their waiting retries too', async () => {
        const ids = oldRetryIds();
        const u = new URL(BASE!);
        u.searchParams.delete('schema');
        const client = new pg.Client({ connectionString: u.toString() });
        await client.connect();
        try {
          await client.query(`SET search_path TO "${schema.schema}"`);
          await migrate(client, schema.schema, null, MIGRATIONS.filter((m) => m.version <= 7));
          for (const sql of OLD_RETRY_SEED(ids)) await client.query(sql);
        } finally {
          await client.end();
        }
        await expectOldRetryKept(await open(), ids);
      });

      it('using a store before migrate says so', async () => {
        const s = await open({ migrate: false });
        await expect(s.scheduleList()).rejects.toThrow(/migrate it first/);
      });

      it('every table and index of the schema exists, with the partial indexes of the hot queries', async () => {
        await open();
        const indexes = await adminQuery<{ indexname: string; indexdef: string }>(
          BASE!,
          `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname`,
          [schema.schema],
        );
        const defs = Object.fromEntries(indexes.map((i) => [i.indexname, i.indexdef]));
        expect(defs.schedules_pending_due).toMatch(/\(scheduled_at\) WHERE \(status = 'Pending'::text\)/);
        expect(defs.cron_jobs_active_due).toMatch(/\(next_invocation\) WHERE \(status = 'Active'::text\)/);
        expect(defs.executions_waiting).toMatch(/\(next_attempt_at\) WHERE/);
        expect(defs.executions_running_lease).toMatch(/\(lease_expires_at\) WHERE \(status = 'Running'::text\)/);
        expect(defs.executions_in_progress).toMatch(/\(job_id\) WHERE/);
        expect(defs.executions_finished).toMatch(/\(finished_at\) WHERE \(finished_at IS NOT NULL\)/);
        expect(defs.executions_by_job).toMatch(/\(job_type, job_id, scheduled_for, id\)/);
        expect(defs.executions_occurrence).toMatch(/UNIQUE INDEX .*\(job_type, job_id, scheduled_for\) WHERE \(NOT triggered\)/);
      });
    });

    describe('concurrent claimers (FOR UPDATE SKIP LOCKED)', () => {
      it('three nodes claiming 3,000 due schedules and 30 cron jobs at once take every item once', async () => {
        const [a, b, c] = [await open(), await open({ migrate: false }), await open({ migrate: false })];
        await a.sql.rows(
          `INSERT INTO schedules (id, name, scheduled_at, status, endpoint, created_at)
           SELECT 's-' || lpad(g::text, 5, '0'), 'burst', $1::bigint - g, 'Pending', 'https://example.com/', 0
             FROM generate_series(1, 3000) AS g`,
          [T0],
        );
        for (let i = 0; i < 30; i++) await cron(a, T0 - i);
        const got = new Map<string, ClaimedExecution[]>();
        await Promise.all(
          ([['a', a], ['b', b], ['c', c]] as const).map(async ([node, s]) => {
            const mine: ClaimedExecution[] = [];
            got.set(node, mine);
            for (;;) {
              const batch = (await s.claimDue(claimAt(T0, { nodeId: node, limit: 50 }))).claimed;
              if (batch.length === 0) break;
              mine.push(...batch);
            }
          }),
        );
        const all = [...got.values()].flat();
        expect(all).toHaveLength(3030);
        expect(new Set(all.map((x) => x.jobId)).size).toBe(3030);
        expect(new Set(all.map((x) => x.executionId)).size).toBe(3030);
        for (const [node, mine] of got) expect(mine.length, `node ${node} claimed some`).toBeGreaterThan(0);
        const [counts] = await a.sql.rows<{ executions: number; pending: number }>(
          `SELECT (SELECT count(*) FROM executions) AS executions, (SELECT count(*) FROM schedules WHERE status = 'Pending') AS pending`,
        );
        expect(counts).toEqual({ executions: 3030, pending: 0 });
        // The lease holder of each execution is the node that got it.
        const owners = await a.sql.rows<{ id: string; lease_owner: string }>('SELECT id, lease_owner FROM executions');
        const byId = new Map(owners.map((o) => [o.id, o.lease_owner]));
        for (const [node, mine] of got) for (const x of mine) expect(byId.get(x.executionId)).toBe(node);
      });

      it('a row locked by another claimer is skipped, not waited for', async () => {
        const s = await open();
        const locked = await schedule(s, T0 - 2);
        const free = await schedule(s, T0 - 1);
        const c = new pg.Client(connectionConfig(schema.url).config);
        await c.connect();
        try {
          await c.query('BEGIN');
          await c.query('SELECT 1 FROM schedules WHERE id = $1 FOR UPDATE', [locked.id]);
          const t = Date.now();
          expect(((await s.claimDue(claimAt(T0))).claimed).map((x) => x.jobId)).toEqual([free.id]);
          expect(Date.now() - t).toBeLessThan(2_000);
          await c.query('ROLLBACK');
        } finally {
          await c.end();
        }
        expect(((await s.claimDue(claimAt(T0))).claimed).map((x) => x.jobId)).toEqual([locked.id]);
      });

      /** 5,000 schedules (1 in 50 Pending, the rest Succeeded) with an execution each, analysed: a history the planner must skip. */
      const seedHistory = async (s: PostgresStore): Promise<void> => {
        await s.sql.rows(
          `INSERT INTO schedules (id, name, scheduled_at, status, endpoint, created_at)
           SELECT 'h-' || g, 'history', g, CASE WHEN g % 50 = 0 THEN 'Pending' ELSE 'Succeeded' END, 'https://e/', 0
             FROM generate_series(1, 5000) AS g`,
        );
        await s.sql.rows(
          `INSERT INTO executions (id, job_type, job_id, scheduled_for, status, attempt, created_at, finished_at)
           SELECT 'e-' || g, 'schedule', 'h-' || g, g, 'Succeeded', 1, 0, g FROM generate_series(1, 5000) AS g`,
        );
        await s.sql.rows('ANALYZE');
      };

      it('the claim reads each source through its partial index', async () => {
        const s = await open();
        await seedHistory(s);
        const plan = async (text: string, values: unknown[]) =>
          (await s.sql.rows<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${text}`, values)).map((r) => r['QUERY PLAN']).join('\n');
        const claimPlan = await plan(candidatesSql('caller'), [100, schema.schema, 100, T0]);
        expect(claimPlan).toMatch(/LockRows\s+->\s+Index Scan using schedules_pending_due/);
        expect(claimPlan).toMatch(/LockRows\s+->\s+Index Scan using executions_waiting/);
        expect(claimPlan).toMatch(/LockRows\s+->\s+Index Scan using executions_running_lease/);
        expect(claimPlan).not.toMatch(/Seq Scan on (schedules|executions)/);
        const nextPlan = await plan(NEXT_DUE_SQL, []);
        for (const index of ['schedules_pending_due', 'executions_waiting', 'executions_running_lease']) {
          expect(nextPlan).toMatch(new RegExp(`Index Only Scan using ${index}`));
        }
      });

      it('the executions list across jobs: every branch a backward index-only search stopped by its limit', async () => {
        const s = await open();
        await s.sql.rows(
          `INSERT INTO executions (id, job_type, job_id, scheduled_for, status, attempt, created_at, finished_at)
           SELECT 'e-' || g, CASE WHEN g % 3 = 0 THEN 'cron' ELSE 'schedule' END, CASE WHEN g % 2 = 0 THEN 'j-5' ELSE 'j-' || g END, g,
                  (ARRAY['Succeeded', 'Failed', 'Succeeded', 'Skipped'])[1 + g % 4], 1, 0, g
             FROM generate_series(1, 20000) AS g`,
        );
        await s.sql.rows('ANALYZE');
        for (const c of SEARCH_PLAN_CASES) {
          const { keys } = searchPageSql(c.params, PG_PLACEHOLDER);
          const text = (await s.sql.rows<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${keys.sql}`, keys.params))
            .map((r) => r['QUERY PLAN'])
            .join('\n');
          const scans = text.match(new RegExp(`Limit\\s+->  Index (Only )?Scan Backward using ${c.index} on executions`, 'g')) ?? [];
          expect(scans, `${c.name}\n${text}`).toHaveLength(c.branches);
          // Running executions (the calls in flight and held leases) through their partial index.
          expect(text.match(/(Index|Index Only|Bitmap Index) Scan (Backward )?(using|on) executions_running_lease/g) ?? [], `${c.name}\n${text}`).toHaveLength(c.running);
          expect(text, c.name).not.toMatch(/Seq Scan on executions/);
        }
      });

      it('dueCount reads each source through its partial index only, at most limit entries', async () => {
        const s = await open();
        await seedHistory(s);
        const text = (await s.sql.rows<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${dueCountSql('caller')}`, [10_000, T0]))
          .map((r) => r['QUERY PLAN'])
          .join('\n');
        for (const index of ['schedules_pending_due', 'executions_waiting', 'executions_running_lease']) {
          expect(text).toMatch(new RegExp(`Index Only Scan using ${index}`));
        }
        expect(text).not.toMatch(/Seq Scan on (schedules|executions)/);
        expect(text.match(/-> {2}Limit/g)).toHaveLength(4); // each source stops at $1 entries
        expect(await s.dueCount({ now: 5000, limit: 10_000 })).toEqual({ schedule: 100, cron: 0, waiting: 0, lease: 0 });
        expect(await s.dueCount({ now: 5000, limit: 7 })).toEqual({ schedule: 7, cron: 0, waiting: 0, lease: 0 });
      });
    });

    it('the writes after the candidates reach their rows by key, never through a partial index, even with stale statistics', async () => {
      const s = await open();
      await s.sql.rows('ANALYZE'); // statistics of empty tables: the worst case, a fresh install at its first burst
      await s.sql.rows(
        `INSERT INTO schedules (id, name, scheduled_at, status, endpoint, created_at)
         SELECT 's-' || g, 'x', g, 'Pending', 'https://e/', 0 FROM generate_series(1, 20000) AS g`,
      );
      await s.sql.rows(
        `INSERT INTO executions (id, job_type, job_id, scheduled_for, status, attempt, created_at, next_attempt_at, lease_owner, lease_expires_at)
         SELECT 'e-' || g, 'schedule', 's-' || g, g, CASE WHEN g % 2 = 0 THEN 'Running' ELSE 'Retrying' END, 1, 0,
                CASE WHEN g % 2 = 0 THEN NULL ELSE g END, CASE WHEN g % 2 = 0 THEN 'n' END, CASE WHEN g % 2 = 0 THEN g END
           FROM generate_series(1, 20000) AS g`,
      );
      const ids = (n: string) => Array.from({ length: 256 }, (_, i) => `${n}-${i * 2 + 2}`);
      const plan = async (text: string, values: unknown[]) =>
        (await s.sql.rows<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${text}`, values)).map((r) => r['QUERY PLAN']).join('\n');
      const partial = /schedules_pending_due|cron_jobs_active_due|executions_waiting|executions_running_lease/;
      const finishCols = [ids('e'), ids('e').map(() => 1), ids('e').map(() => 'Succeeded'), ids('e').map(() => null), ids('e').map(() => T0),
        ids('e').map(() => 1), ids('e').map(() => 200), ids('e').map(() => null), ids('e').map(() => 'ok'),
        ids('e').map(() => 'POST'), ids('e').map(() => 'https://example.com/'), ids('e').map(() => null), ids('e').map(() => null)];
      expect(await plan(START_SCHEDULES_SQL, [ids('s'), ids('s').map(() => newId()), T0, 'n', 1000])).not.toMatch(partial);
      expect(await plan(RELET_SQL, [ids('e'), T0, 'n', 1000, T0 + 100])).not.toMatch(partial);
      expect(await plan(finishSql('database'), ['n', ...finishCols, 'ch', ids('e').map(() => null), ids('e').map(() => null)])).not.toMatch(partial);
      expect(await plan(DUE_CRON_SQL, [ids('c'), T0])).not.toMatch(partial);
    });

    describe('the database clock decides (clock: database)', () => {
      it('now() is the database time; with clock caller it is null', async () => {
        const s = await open({ clock: 'database' });
        const before = Date.now();
        const now = await s.now();
        expect(now).not.toBeNull();
        // Same machine: the database's clock and ours agree to well within a second.
        expect(Math.abs(now! - before)).toBeLessThan(1_000);
        expect(Number.isInteger(now)).toBe(true);
        expect(await (await open({ migrate: false, clock: 'caller' })).now()).toBeNull();
      });

      it('a node whose clock is 5 s ahead claims nothing due in 2 s', async () => {
        const s = await open({ clock: 'database' });
        const dbNow = (await s.now())!;
        const soon = await schedule(s, dbNow + 2_000);
        const c = await cron(s, dbNow + 2_000);
        const skewed = claimAt(dbNow + 5_000, { nodeId: 'fast' });
        expect((await s.claimDue(skewed)).claimed).toEqual([]);
        expect((await s.scheduleGet({ id: soon.id }))?.status).toBe('Pending');
        expect((await s.cronGet({ id: c.id }))?.invocations).toBe(0);
        expect(await s.nextDueAt()).toBe(dbNow + 2_000);
      });

      it("a node whose clock is behind still claims what the database says is due, leased on the database's clock", async () => {
        const s = await open({ clock: 'database' });
        const dbNow = (await s.now())!;
        const due = await schedule(s, dbNow - 10);
        const [x] = (await s.claimDue(claimAt(dbNow - 3_600_000, { leaseMs: 5_000 }))).claimed;
        expect(x?.jobId).toBe(due.id);
        const after = (await s.now())!;
        expect(x!.leaseExpiresAt).toBeGreaterThanOrEqual(dbNow + 1_000 + 5_000);
        expect(x!.leaseExpiresAt).toBeLessThanOrEqual(after + 1_000 + 5_000);
        const e = await s.executionGet({ id: x!.executionId });
        expect(e!.startedAt).toBeGreaterThanOrEqual(dbNow);
        expect(e!.startedAt).toBeLessThanOrEqual(after);
      });
    });

    describe('LISTEN/NOTIFY', () => {
      it('work created on one node wakes the listener of another; far work and other schemas do not', async () => {
        const a = await open({ clock: 'database' });
        const b = await open({ clock: 'database', migrate: false });
        const heard: number[] = [];
        const stop = a.onWork((due) => heard.push(due));
        await a.listening();

        // Another schema's work is not ours.
        const other = await createTestSchema(BASE!);
        const elsewhere = PostgresStore.open(other.url, { clock: 'database' });
        try {
          await elsewhere.migrate();
          await schedule(elsewhere, (await elsewhere.now())! + 500);
        } finally {
          await elsewhere.close();
          await other.drop();
        }

        const dbNow = (await b.now())!;
        await schedule(b, dbNow + 3_600_000); // not soon: not announced
        const near = await schedule(b, dbNow + 1_000);
        await until(() => heard.length > 0);
        expect(heard).toEqual([near.scheduledAt]);

        const c = await cron(b, dbNow + 2_000);
        await until(() => heard.length > 1);
        expect(heard[1]).toBe(c.nextInvocation);

        await b.scheduleUpdate({ now: dbNow, id: near.id, scheduledAt: dbNow + 500 });
        await until(() => heard.length > 2);
        expect(heard[2]).toBe(dbNow + 500);

        const triggered = await b.jobTrigger({ jobType: 'cron', jobId: c.id, id: newId(), now: dbNow + 100 });
        expect(triggered).not.toBe('not_found');
        await until(() => heard.length > 3);
        expect(heard[3]).toBe(dbNow + 100);

        stop();
        await schedule(b, dbNow + 700);
        await new Promise((r) => setTimeout(r, 200));
        expect(heard).toHaveLength(4);
      });

      it('a Retrying outcome due soon is announced', async () => {
        const a = await open({ clock: 'database' });
        const b = await open({ clock: 'database', migrate: false });
        const dbNow = (await a.now())!;
        await schedule(b, dbNow - 1);
        const [x] = (await b.claimDue(claimAt(0, { nodeId: 'b' }))).claimed;
        const heard: number[] = [];
        a.onWork((due) => heard.push(due));
        await a.listening();
        await b.executionsFinish({
          nodeId: 'b',
          outcomes: [{ executionId: x!.executionId, attempt: 1, status: 'Retrying', nextAttemptAt: dbNow + 1500, startedAt: dbNow, durationMs: 3, statusCode: 503, error: 'HTTP 503', responseBody: null }],
        });
        await until(() => heard.length > 0);
        expect(heard).toEqual([dbNow + 1500]);
      });

      it('with clock caller every such write is announced (the store has no clock to judge "soon")', async () => {
        const s = await open({ clock: 'caller' });
        const heard: number[] = [];
        s.onWork((due) => heard.push(due));
        await s.listening();
        const far = await schedule(s, T0 + 86_400_000);
        await until(() => heard.length > 0);
        expect(heard).toEqual([far.scheduledAt]);
      });

      it('the LISTEN connection comes back after the server ends it, and tells the next due instant', async () => {
        const s = await open({ clock: 'caller' });
        const heard: number[] = [];
        s.onWork((due) => heard.push(due));
        await s.listening();
        const pending = await schedule(s, T0 + 42);
        await until(() => heard.length > 0);
        heard.length = 0;
        const killed = await adminQuery<{ n: number }>(
          BASE!,
          `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
            WHERE application_name = 'punctual' AND query ILIKE 'LISTEN%' AND query LIKE $1`,
          [`%${channelOf(schema.schema)}%`],
        );
        expect(killed[0]?.n).toBe(1);
        // On reconnection the listeners hear nextDueAt (the pending schedule), standing for what was missed.
        await until(() => heard.includes(pending.scheduledAt), 15_000);
        await s.listening();
        const later = await schedule(s, T0 + 99);
        await until(() => heard.includes(later.scheduledAt));
      });

      it('the channel is per schema', () => {
        expect(channelOf('public')).toBe('punctual_work');
        expect(channelOf('tenant_a')).toBe('punctual_work_tenant_a');
        expect(channelOf('x'.repeat(80)).length).toBeLessThanOrEqual(63);
      });
    });

    it('node heartbeats and the dead are judged on the database clock, whatever the caller says', async () => {
      const s = await open({ clock: 'database' });
      const before = (await s.now())!;
      await s.nodeRegister({ nodeId: 'a', role: 'all', now: 0 });
      expect(await s.nodeHeartbeat({ nodeId: 'a', now: before + 3_600_000 })).toBe(true);
      const [a] = await s.nodesLive({ now: 0, timeoutMs: 10_000 });
      expect(a!.heartbeatAt).toBeGreaterThanOrEqual(before);
      expect(a!.heartbeatAt).toBeLessThanOrEqual((await s.now())!);
      // A caller whose clock is an hour ahead reaps nobody: the database says "a" is alive.
      expect(await s.nodesReap({ now: before + 3_600_000, timeoutMs: 10_000 })).toEqual({ nodeIds: [], released: 0 });
      expect((await s.nodesLive({ now: before + 3_600_000, timeoutMs: 10_000 })).map((n) => n.nodeId)).toEqual(['a']);
    });

    describe('once-per-cluster duties', () => {
      /** Holds an advisory lock of the store (as another node's transaction would) until released. */
      const holdLock = async (duty: 'prune' | 'reclaim' | 'liveness') => {
        const c = new pg.Client(connectionConfig(schema.url).config);
        await c.connect();
        await c.query(`SELECT pg_advisory_lock(hashtext('punctual.${duty}'), hashtext($1::text))`, [schema.schema]);
        return async () => {
          await c.end();
        };
      };

      it('executionsPrune returns 0 at once while another node prunes, and prunes once the lock is free', async () => {
        const s = await open();
        await schedule(s, T0);
        const [x] = (await s.claimDue(claimAt(T0))).claimed;
        await s.executionsFinish({
          nodeId: 'n',
          outcomes: [{ executionId: x!.executionId, attempt: 1, status: 'Succeeded', nextAttemptAt: null, startedAt: T0, durationMs: 1, statusCode: 200, error: null, responseBody: 'ok' }],
        });
        const release = await holdLock('prune');
        const t = Date.now();
        expect(await s.executionsPrune({ before: T0 + 1000, limit: 10 })).toBe(0);
        expect(Date.now() - t).toBeLessThan(2_000);
        expect(await s.executionGet({ id: x!.executionId })).not.toBeNull();
        await release();
        expect(await s.executionsPrune({ before: T0 + 1000, limit: 10 })).toBe(1);
      });

      it('nodesReap returns nothing at once while another node reaps, and reaps once the lock is free', async () => {
        const s = await open();
        await s.nodeRegister({ nodeId: 'dead', role: 'dispatcher', now: T0 });
        const release = await holdLock('liveness');
        const t = Date.now();
        expect(await s.nodesReap({ now: T0 + 20_000, timeoutMs: 10_000 })).toEqual({ nodeIds: [], released: 0 });
        expect(Date.now() - t).toBeLessThan(2_000);
        await release();
        expect((await s.nodesReap({ now: T0 + 20_000, timeoutMs: 10_000 })).nodeIds).toEqual(['dead']);
      });

      it('expired leases are re-leased by one claimer at a time: a claim without the lock skips them (and takes the rest)', async () => {
        const s = await open();
        await schedule(s, T0);
        const [first] = (await s.claimDue(claimAt(T0, { leaseMs: 10 }))).claimed; // expires at T0 + 1010
        const fresh = await schedule(s, T0 + 1000);
        const release = await holdLock('reclaim');
        expect(((await s.claimDue(claimAt(T0 + 5000, { nodeId: 'b' }))).claimed).map((x) => x.jobId)).toEqual([fresh.id]);
        await release();
        const [again] = (await s.claimDue(claimAt(T0 + 5000, { nodeId: 'b' }))).claimed;
        expect(again).toMatchObject({ executionId: first!.executionId, attempt: 2 });
      });
    });

    describe('failures', () => {
      it('an unreachable server is StoreUnavailableError, without the password or SQL in the message', async () => {
        const port = await freePort(); // nothing listens on it
        const url = `postgres://postgres:s3cret-pw@127.0.0.1:${port}/test`;
        const err = await openStore(url).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(StoreUnavailableError);
        expect((err as Error).message).not.toMatch(/s3cret|SELECT/);
        const s = PostgresStore.open(url);
        stores.push(s);
        await expect(s.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(s.claimDue(claimAt(T0))).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(s.now()).rejects.toBeInstanceOf(StoreUnavailableError);
        // onWork never throws, even with no server: it keeps trying in the background.
        expect(() => s.onWork(() => undefined)()).not.toThrow();
      });

      it('a statement past statement_timeout is StoreUnavailableError', async () => {
        const s = await open({ statementTimeoutMs: 200 });
        const c = await cron(s, T0);
        const other = new pg.Client(connectionConfig(schema.url).config);
        await other.connect();
        try {
          await other.query('BEGIN');
          await other.query('SELECT 1 FROM cron_jobs WHERE id = $1 FOR UPDATE', [c.id]);
          await expect(s.cronUpdate({ id: c.id, name: 'x' })).rejects.toBeInstanceOf(StoreUnavailableError);
          await other.query('ROLLBACK');
        } finally {
          await other.end();
        }
        expect((await s.cronUpdate({ id: c.id, name: 'x' }))?.name).toBe('x');
      });

      it('connections ended by the server (admin shutdown) are replaced: the store keeps working', async () => {
        // A name of this test's own (the URL's application_name wins), so only its connections are ended.
        const name = `punctual_${schema.schema}`;
        const u = new URL(schema.url);
        u.searchParams.set('application_name', name);
        const s = PostgresStore.open(u.toString(), { clock: 'caller' });
        stores.push(s);
        await s.migrate();
        await Promise.all([1, 2, 3].map(() => s.ping()));
        const [killed] = await adminQuery<{ n: number }>(
          BASE!,
          `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE application_name = $1`,
          [name],
        );
        expect(killed!.n).toBeGreaterThan(0);
        await new Promise((r) => setTimeout(r, 100));
        // A connection may still be found dead on first use: that is StoreUnavailableError, then it works.
        for (let i = 0; ; i++) {
          try {
            await s.ping();
            break;
          } catch (err) {
            expect(err).toBeInstanceOf(StoreUnavailableError);
            if (i > 10) throw err;
          }
        }
        expect(await s.scheduleList()).toEqual([]);
      });

      it('maps server errors: 57P01 admin shutdown is unavailable; a unique violation is not', async () => {
        const victim = new pg.Client(connectionConfig(schema.url).config);
        victim.on('error', () => undefined);
        await victim.connect();
        const [{ pid }] = (await victim.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows as [{ pid: number }];
        const sleeping = victim.query('SELECT pg_sleep(10)').catch((e: unknown) => e);
        await new Promise((r) => setTimeout(r, 100));
        await adminQuery(BASE!, 'SELECT pg_terminate_backend($1)', [pid]);
        const err = await sleeping;
        expect((err as { code?: string }).code).toBe('57P01');
        const mapped = toStoreError(err);
        expect(mapped).toBeInstanceOf(StoreUnavailableError);
        expect((mapped as Error).message).toBe('The store is unavailable (PostgreSQL 57P01).');
        await victim.end().catch(() => undefined);

        const s = await open();
        const id = newId();
        await s.apiKeyCreate({ id, name: 'a', status: 'Enabled', digest: 'd', now: T0 });
        const dup = await s.apiKeyCreate({ id: newId(), name: 'b', status: 'Enabled', digest: 'd', now: T0 }).catch((e: unknown) => e);
        expect(dup).not.toBeInstanceOf(StoreUnavailableError);
        expect((dup as { code?: string }).code).toBe('23505');
      });

      it('after close, everything is StoreUnavailableError and close again is harmless', async () => {
        const s = await open();
        s.onWork(() => undefined);
        await s.close();
        await expect(s.nextDueAt()).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(s.executionsFinish({ nodeId: 'n', outcomes: [] })).rejects.toBeInstanceOf(StoreUnavailableError);
        await expect(s.close()).resolves.toBeUndefined();
      });
    });

    describe('values', () => {
      it('data keeps its text: key order, U+0000 and lone surrogates in strings (json, not jsonb)', async () => {
        const s = await open();
        const data = { z: 1, a: { y: 'nul \u0000 here', b: 'lone \ud800 surrogate' }, m: [3, 2, 1] };
        const created = await schedule(s, T0, { data });
        const read = (await s.scheduleGet({ id: created.id }))!;
        expect(read.data).toEqual(data);
        expect(JSON.stringify(read.data)).toBe(JSON.stringify(data));
        const [x] = (await s.claimDue(claimAt(T0))).claimed;
        expect(JSON.stringify(x!.data)).toBe(JSON.stringify(data));
      });

      it('a name with U+0000 (which PostgreSQL text cannot hold) is InvalidInputError, not a 500', async () => {
        const s = await open();
        await expect(schedule(s, T0, { name: 'a\u0000b' })).rejects.toBeInstanceOf(InvalidInputError);
      });

      it("a receiver's response with U+0000 is recorded with U+FFFD in its place", async () => {
        const s = await open();
        await schedule(s, T0);
        const [x] = (await s.claimDue(claimAt(T0))).claimed;
        await s.executionsFinish({
          nodeId: 'n',
          outcomes: [{ executionId: x!.executionId, attempt: 1, status: 'Failed', nextAttemptAt: null, startedAt: T0, durationMs: 1, statusCode: 500, error: 'bad\u0000', responseBody: '\u0000bin' }],
        });
        expect((await s.executionGet({ id: x!.executionId }))?.attempts[0]).toMatchObject({ error: 'bad\uFFFD', responseBody: '\uFFFDbin' });
      });

      it('ids order bytewise (COLLATE "C") whatever the database collation', async () => {
        const s = await open();
        const [{ collation }] = (await s.sql.rows<{ collation: string }>(
          `SELECT collation_name AS collation FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'executions' AND column_name = 'id'`,
          [schema.schema],
        )) as [{ collation: string }];
        expect(collation).toBe('C');
      });
    });

    describe('openStore and DATABASE_URL', () => {
      it('postgres:// and postgresql:// open a PostgreSQL store, with the database clock by default', async () => {
        for (const scheme of ['postgres', 'postgresql']) {
          const url = schema.url.replace(/^postgres(ql)?:/, `${scheme}:`);
          const s = await openStore(url);
          try {
            expect(s).toBeInstanceOf(PostgresStore);
            expect((s as PostgresStore).clock).toBe('database');
            await s.migrate();
            expect(await s.now()).not.toBeNull();
          } finally {
            await s.close();
          }
        }
        const caller = await openStore(schema.url, { clock: 'caller' });
        expect(await caller.now()).toBeNull();
        await caller.close();
      });

      it('the schema parameter isolates; options=-c search_path=… works too', async () => {
        const a = await open();
        await schedule(a, T0);
        const u = new URL(schema.url);
        u.searchParams.delete('schema');
        u.searchParams.set('options', `-c search_path=${schema.schema}`);
        const viaOptions = PostgresStore.open(u.toString(), { clock: 'caller' });
        stores.push(viaOptions);
        expect(await viaOptions.scheduleList()).toHaveLength(1);
        const other = await createTestSchema(BASE!);
        const b = PostgresStore.open(other.url, { clock: 'caller' });
        try {
          await b.migrate();
          expect(await b.scheduleList()).toEqual([]);
        } finally {
          await b.close();
          await other.drop();
        }
      });

      it('an invalid schema parameter is refused', () => {
        expect(() => PostgresStore.open('postgres://h/db?schema=Robert%27;drop')).toThrow(/schema parameter/);
      });

      it('describeDatabaseUrl never shows a password or the query, but names the schema', () => {
        const d = describeDatabaseUrl('postgres://alice:s3cr%40t@db.example:5432/punctual?schema=tenant_a&sslmode=require&password=hunter2');
        expect(d).toBe('PostgreSQL postgres://alice@db.example:5432/punctual (schema tenant_a)');
        expect(describeDatabaseUrl('postgresql://:only-pass@h/d?options=-c%20search_path%3Dx')).toBe('PostgreSQL postgresql://h/d (schema x)');
        expect(describeDatabaseUrl('postgres://u:pw@h/d')).not.toMatch(/pw/);
      });

      it('sessions are named punctual and carry the timeouts', async () => {
        const s = await open({ statementTimeoutMs: 12_345 });
        const [r] = await s.sql.rows<{ app: string; st: string; lt: string; it: string }>(
          `SELECT current_setting('application_name') AS app, current_setting('statement_timeout') AS st,
                  current_setting('lock_timeout') AS lt, current_setting('idle_in_transaction_session_timeout') AS it`,
        );
        expect(r).toEqual({ app: 'punctual', st: '12345ms', lt: '10s', it: '1min' });
      });
    });
  });
});
