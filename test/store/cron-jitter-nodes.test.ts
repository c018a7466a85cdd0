/**
 * The jitter of cron occurrences is fixed per occurrence across a restart and across nodes
 * (docs/cron.md, "Jitter"): two store instances on one database (two nodes, or the same node
 * before and after a restart) record and claim the same delays, and never early. SQLite (a file
 * two stores open) and, when PUNCTUAL_TEST_DATABASE_URL is set, PostgreSQL (clock 'caller', so
 * time is injected). No sleeps.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { occurrenceJitterMs } from '../../src/store/rules/cron-life.js';
import { openStore } from '../../src/store/open.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import type { Store } from '../../src/store/store.js';
import { createTestSchema, pgTestUrl } from '../support/pg.js';

const T0 = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;
const JITTER = 50_000;

interface Database {
  name: string;
  /** A new store instance (a node) on the shared database. */
  open(): Promise<Store>;
  drop(): Promise<void>;
}

const sqlite = async (): Promise<Database> => {
  const dir = await mkdtemp(join(tmpdir(), 'punctual-jitter-'));
  const url = `file:${join(dir, 'punctual.db')}`;
  return { name: 'sqlite', open: () => openStore(url), drop: () => rm(dir, { recursive: true, force: true }) };
};
const postgres = async (): Promise<Database> => {
  const schema = await createTestSchema(pgTestUrl()!);
  return { name: 'postgres', open: async () => PostgresStore.open(schema.url, { clock: 'caller' }), drop: () => schema.drop() };
};

const open: Store[] = [];
let db: Database | null = null;
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
  await db?.drop();
  db = null;
});

const STORES = pgTestUrl() ? [{ name: 'sqlite', make: sqlite }, { name: 'postgres', make: postgres }] : [{ name: 'sqlite', make: sqlite }];

describe.each(STORES)('jitter across nodes and restarts ($name)', ({ make }) => {
  it('a second node and a restarted node compute the same delay per occurrence, and claim it not before then', async () => {
    db = await make();
    const nodeA = await db.open();
    open.push(nodeA);
    await nodeA.migrate();
    const nodeB = await db.open();
    open.push(nodeB);
    const claim = (s: Store, now: number, nodeId: string) =>
      s.claimDue({ now, limit: 10, nodeId, leaseMs: 30 * 86_400_000, misfireThresholdMs: MINUTE }).then((r) => r.claimed);
    const job = await nodeA.cronCreate({
      id: newId(),
      expression: '* * * * *',
      name: 'jittered',
      timezone: null,
      endpoint: 'https://example.com/cron',
      data: null,
      nextInvocation: T0,
      retry: { maxAttempts: 1, initialDelayMs: 1000, maxDelayMs: 1000, delaysMs: null },
      timeoutMs: 1000,
      misfire: 'once',
      overlap: 'allow',
      jitterMs: JITTER,
      now: T0 - MINUTE,
    });
    const d0 = occurrenceJitterMs(job.id, T0, JITTER);
    const d1 = occurrenceJitterMs(job.id, T0 + MINUTE, JITTER);

    // Node A records occurrence T0 (Pending, due at T0 + d0); node B records T0 + 1 min.
    expect(await claim(nodeA, T0, 'a')).toEqual([]);
    expect(await claim(nodeB, T0 + MINUTE, 'b')).toHaveLength(d0 <= MINUTE ? 1 : 0); // A's occurrence, if due by then
    // Node A restarts: a new instance on the same database.
    await nodeA.close();
    const restarted = await db.open();
    open.push(restarted);
    const due = [T0 + d0, T0 + MINUTE + d1].sort((x, y) => x - y);
    const seen = new Map<number, number>();
    if (d0 <= MINUTE) seen.set(T0, T0 + d0); // taken above by node B (its due instant is checked below)
    for (const at of due) {
      for (const c of await claim(restarted, at - 1, 'a2')) seen.set(c.scheduledFor, -1); // never before its due instant
      for (const c of await claim(nodeB, at, 'b')) seen.set(c.scheduledFor, c.dueAt);
    }
    expect(seen.get(T0)).toBe(T0 + d0);
    expect(seen.get(T0 + MINUTE)).toBe(T0 + MINUTE + d1);
    const list = await nodeB.executionList({ jobType: 'cron', jobId: job.id, limit: 10, cursor: null });
    expect(list.executions.map((e) => [e.scheduledFor, e.jitterMs]).sort()).toEqual(
      [
        [T0, d0],
        [T0 + MINUTE, d1],
      ].sort(),
    );
  });
});
