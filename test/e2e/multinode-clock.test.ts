import { afterEach, describe, expect, it } from 'vitest';
import type { Dispatcher } from '../../src/dispatch/dispatcher.js';
import { DEFAULT_RETRY_POLICY } from '../../src/domain/retry-policy.js';
import { offsetClock } from '../../src/domain/clock.js';
import { newId } from '../../src/domain/ids.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { testDispatcher } from '../support/dispatcher.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { SQLITE, type TestDatabase } from '../support/stores.js';

/**
 * Whose clock decides, in-process and without PostgreSQL: a dispatcher whose local
 * clock is 5 s ahead, on a store that has a clock of its own (`now()` not null), fires nothing
 * early and does not spin while it waits. The store is the real SQLite store; only its `now()` is
 * given a clock (the true one, `Date.now()`), as PostgreSQL's `now()` would be. The control case
 * shows the test can fail: the same skewed node on a store without a clock fires 5 s early.
 * (The same property on real PostgreSQL with real processes: multinode.test.ts.)
 */
describe('dispatcher on a store with its own clock (local clock 5 s ahead)', () => {
  const SKEW_MS = 5_000;
  let db: TestDatabase | undefined;
  let base: Store | undefined;
  let dispatcher: Dispatcher | undefined;
  let receiver: Receiver | undefined;

  afterEach(async () => {
    await dispatcher?.stop(0);
    await base?.close();
    await db?.drop();
    await receiver?.close();
    dispatcher = base = db = receiver = undefined;
  });

  /** Runs 20 schedules due 300–1,250 ms from now (true time); returns lateness (ms) and claim calls. */
  async function run(storeHasClock: boolean): Promise<{ lateness: number[]; claims: number; offset: number }> {
    db = await SQLITE.create();
    base = await openStore(db.url);
    await base.migrate();
    receiver = await startReceiver();
    let claims = 0;
    const real = base;
    const store = new Proxy(real, {
      get(target, prop, receiverObj) {
        if (prop === 'now') return async () => (storeHasClock ? Date.now() : null);
        if (prop === 'claimDue') {
          return (p: Parameters<Store['claimDue']>[0]) => {
            claims++;
            return target.claimDue(p);
          };
        }
        const v = Reflect.get(target, prop, receiverObj) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    dispatcher = testDispatcher({ store, clock: offsetClock(SKEW_MS) });
    const due = new Map<string, number>();
    const start = Date.now() + 300;
    for (let i = 0; i < 20; i++) {
      const at = start + i * 50;
      due.set(`/c/${i}`, at);
      await store.scheduleCreate({
        id: newId(),
        name: `c${i}`,
        scheduledAt: at,
        endpoint: `${receiver.url}/c/${i}`,
        data: {},
        tags: [],
        retry: DEFAULT_RETRY_POLICY,
        timeoutMs: 5_000,
        now: Date.now(),
      });
    }
    dispatcher.start();
    const arrivals = await receiver.waitFor((a) => a.length >= 20, 10_000);
    const lateness = arrivals.map((a) => a.at - due.get(a.path)!);
    return { lateness, claims, offset: dispatcher.clockOffsetMs };
  }

  it('fires nothing early and claims a bounded number of times while it waits', async () => {
    const { lateness, claims, offset } = await run(true);
    console.log(
      `store clock, local +5 s: ${lateness.length} calls, earliest ${Math.min(...lateness)} ms, ` +
        `latest ${Math.max(...lateness)} ms after due; ${claims} claims; measured offset ${offset} ms`,
    );
    expect(Math.min(...lateness)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...lateness)).toBeLessThan(200);
    expect(offset).toBeLessThanOrEqual(-SKEW_MS + 5);
    expect(offset).toBeGreaterThan(-SKEW_MS - 50);
    // 20 due instants over ~1.25 s: about one claim each, not a spin (thousands).
    expect(claims).toBeLessThan(100);
  });

  it('control: on a store without a clock, the skewed local clock decides and fires about 5 s early', async () => {
    const { lateness } = await run(false);
    expect(Math.max(...lateness)).toBeLessThan(0);
  });
});
