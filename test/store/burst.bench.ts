/**
 * The store's share of the burst, measured without HTTP: 100,000 schedules due at one
 * instant are claimed in batches (as the dispatcher does) and their outcomes recorded in batches,
 * on a real database file with the production settings (WAL, synchronous FULL). Prints µs per
 * claimed item and per recorded outcome.
 *
 * Not a test (vitest runs `*.test.ts` only): `npx tsx test/store/burst.bench.ts [count] [batch]`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';
import type { AttemptOutcome, ClaimedExecution } from '../../src/domain/types.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';

const T0 = Date.UTC(2030, 0, 1);
const count = Number(process.argv[2] ?? 100_000);
const batch = Number(process.argv[3] ?? 256);

const dir = await mkdtemp(join(tmpdir(), 'punctual-burst-'));
const path = join(dir, 'punctual.db');
try {
  const store = SqliteStore.open(path);
  await store.migrate();
  await store.close();

  // Seed in one transaction on a side connection (setup, not measured).
  const seed = new Database(path);
  const insert = seed.prepare(
    `INSERT INTO schedules (id, name, scheduled_at, status, endpoint, data, tags, created_at)
     VALUES (?, 'burst', ?, 'Pending', 'http://127.0.0.1:1/hook', '{"n":1}', '[]', ?)`,
  );
  seed.transaction(() => {
    for (let i = 0; i < count; i++) insert.run(uuidv7(), T0, T0 - 60_000);
  })();
  seed.close();

  const s = SqliteStore.open(path);
  await s.migrate();
  const claimed: ClaimedExecution[] = [];
  let t = performance.now();
  for (;;) {
    const got = (await s.claimDue({
      now: T0 + 1,
      limit: batch,
      nodeId: 'bench',
      leaseMs: 5000,
      misfireThresholdMs: 60_000,
    })).claimed;
    if (got.length === 0) break;
    for (const c of got) claimed.push(c);
  }
  const claimMs = performance.now() - t;

  const outcomeOf = (c: ClaimedExecution, status: AttemptOutcome['status']): AttemptOutcome => ({
    executionId: c.executionId,
    attempt: c.attempt,
    status,
    nextAttemptAt: status === 'Retrying' ? T0 + 10_000 : null,
    startedAt: T0 + 2,
    durationMs: 1.25,
    statusCode: status === 'Succeeded' ? 200 : 503,
    error: status === 'Succeeded' ? null : 'HTTP 503',
    responseBody: 'ok',
  });
  // The first tenth retries (a Retrying outcome), the rest succeed: both paths measured.
  const tenth = Math.floor(claimed.length / 10);
  t = performance.now();
  for (let i = 0; i < tenth; i += batch) {
    await s.executionsFinish({ nodeId: 'bench', outcomes: claimed.slice(i, Math.min(i + batch, tenth)).map((c) => outcomeOf(c, 'Retrying')) });
  }
  const retryMs = performance.now() - t;
  t = performance.now();
  for (let i = tenth; i < claimed.length; i += batch) {
    await s.executionsFinish({ nodeId: 'bench', outcomes: claimed.slice(i, i + batch).map((c) => outcomeOf(c, 'Succeeded')) });
  }
  const finishMs = performance.now() - t;

  t = performance.now();
  const reclaimed: ClaimedExecution[] = [];
  for (;;) {
    const got = (await s.claimDue({ now: T0 + 10_000, limit: batch, nodeId: 'bench', leaseMs: 5000, misfireThresholdMs: 60_000 })).claimed;
    if (got.length === 0) break;
    for (const c of got) reclaimed.push(c);
  }
  const reclaimMs = performance.now() - t;

  t = performance.now();
  let pruned = 0;
  for (let n; (n = await s.executionsPrune({ before: T0 + 86_400_000, limit: 1000 })) > 0; ) pruned += n;
  const pruneMs = performance.now() - t;
  await s.close();

  const us = (ms: number, n: number) => ((ms * 1000) / Math.max(1, n)).toFixed(1);
  console.log(`rows ${count}, batch ${batch}, SQLite WAL synchronous=FULL, file in ${tmpdir()}`);
  console.log(`claim (new executions):      ${claimed.length} items  ${claimMs.toFixed(0)} ms  ${us(claimMs, claimed.length)} µs/item`);
  console.log(`finish Retrying outcomes:    ${tenth} outcomes  ${retryMs.toFixed(0)} ms  ${us(retryMs, tenth)} µs/outcome`);
  console.log(`finish Succeeded outcomes:   ${claimed.length - tenth} outcomes  ${finishMs.toFixed(0)} ms  ${us(finishMs, claimed.length - tenth)} µs/outcome`);
  console.log(`claim retries (attempt 2):   ${reclaimed.length} items  ${reclaimMs.toFixed(0)} ms  ${us(reclaimMs, reclaimed.length)} µs/item`);
  console.log(`prune (batches of 1,000):    ${pruned} executions  ${pruneMs.toFixed(0)} ms  ${us(pruneMs, pruned)} µs/execution`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
