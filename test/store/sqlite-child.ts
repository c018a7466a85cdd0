/**
 * A separate process working on a SQLite store, for the process-level tests of sqlite.test.ts.
 * Run as `node --import tsx test/store/sqlite-child.ts <mode> <db path> [args]`:
 *
 * - `create <db> <n>`: creates n schedules, one commit each, then exits (fsync count under strace).
 * - `ack <db>`: creates schedules forever, printing each id once its create resolved (kill -9 test).
 * - `claim <db> <nodeId>`: prints `ready`, reads a start instant (epoch ms) on stdin, spins until
 *   then, claims in batches of 2 until two claims in a row come back empty, and prints one JSON
 *   array of the job ids it claimed.
 */
import { createInterface } from 'node:readline';
import { newId } from '../../src/domain/ids.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';

const T0 = Date.UTC(2030, 0, 1);

function createSchedule(store: Store, i: number) {
  return store.scheduleCreate({
    id: newId(),
    name: `s${i}`,
    scheduledAt: T0 + i,
    endpoint: 'https://example.com/hook',
    data: { i },
    tags: [],
    retry: { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 3_600_000 },
    timeoutMs: 30_000,
    now: T0,
  });
}

async function main(): Promise<void> {
  const [mode, path, arg] = process.argv.slice(2);
  if (!mode || !path) throw new Error('usage: sqlite-child.ts <create|ack|claim> <db> [arg]');
  const store = await openStore(path);
  await store.migrate();
  if (mode === 'create') {
    for (let i = 0; i < Number(arg); i++) await createSchedule(store, i);
  } else if (mode === 'ack') {
    for (let i = 0; ; i++) {
      const s = await createSchedule(store, i);
      process.stdout.write(`${s.id}\n`);
    }
  } else if (mode === 'claim') {
    process.stdout.write('ready\n');
    const rl = createInterface({ input: process.stdin });
    const startAt = await new Promise<number>((resolve) => rl.once('line', (line) => resolve(Number(line))));
    rl.close();
    while (Date.now() < startAt); // both processes start claiming at the same instant
    const ids: string[] = [];
    for (let empty = 0; empty < 2; ) {
      const claimed = (await store.claimDue({
        now: T0 + 1_000_000,
        limit: 2,
        nodeId: arg ?? 'child',
        leaseMs: 600_000,
        misfireThresholdMs: 60_000,
      })).claimed;
      empty = claimed.length === 0 ? empty + 1 : 0;
      ids.push(...claimed.map((c) => c.jobId));
    }
    process.stdout.write(`${JSON.stringify(ids)}\n`);
  }
  await store.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
