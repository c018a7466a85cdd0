/**
 * Backfill as a receiver sees it (docs/cron.md, "Backfill"): the backfilled occurrences of a cron
 * job are called, each once, with `Punctual-Scheduled-For` the occurrence; with overlap `allow`
 * they run at once, with `skip` one at a time, oldest first, each starting as soon as the one
 * before ends (the finish makes the next due and wakes the dispatcher). Real server, real receiver
 * on 127.0.0.1, every store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { STORES } from '../support/stores.js';

const ANSWER_MS = 200;

describe.each(STORES)('backfill (real HTTP, $name)', (store) => {
  let server: TestServer;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startTestServer({}, { store });
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  /** A Paused every-minute job calling `path` (its own occurrences stay out of the way), backfilled over the last 4 whole minutes. */
  async function backfilled(path: string, overlap: 'allow' | 'skip'): Promise<string[]> {
    receiver.respond(path, { status: 200, delayMs: ANSWER_MS });
    const created = await server.api('POST', '/cron', { expression: '* * * * *', endpoint: receiver.url + path, overlap });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    expect((await server.api('PATCH', `/cron/${id}`, { status: 'Paused' })).status).toBe(200);
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    const res = await server.api('POST', `/cron/${id}/backfill`, { from: new Date(minute - 4 * 60_000).toISOString(), to: new Date(minute).toISOString() });
    expect(res.status).toBe(202);
    const body = res.body as { count: number; executions: { scheduledFor: string }[] };
    expect(body.count).toBe(4);
    return body.executions.map((e) => e.scheduledFor);
  }

  it('overlap allow: every backfilled occurrence is called, at once', async () => {
    const occurrences = await backfilled('/allow', 'allow');
    const calls = await receiver.waitFor((a) => a.filter((x) => x.path === '/allow').length >= 4, 10_000).then((a) => a.filter((x) => x.path === '/allow'));
    expect(calls.map((c) => c.headers['punctual-scheduled-for']).sort()).toEqual(occurrences);
    // All arrived before the first was answered: they ran side by side.
    expect(Math.max(...calls.map((c) => c.at)) - Math.min(...calls.map((c) => c.at))).toBeLessThan(ANSWER_MS);
  });

  it('overlap skip: one at a time, oldest first, each right after the previous one ends', async () => {
    const occurrences = await backfilled('/skip', 'skip');
    const calls = await receiver.waitFor((a) => a.filter((x) => x.path === '/skip').length >= 4, 15_000).then((a) => a.filter((x) => x.path === '/skip'));
    expect(calls.map((c) => c.headers['punctual-scheduled-for'])).toEqual(occurrences);
    for (let i = 1; i < calls.length; i++) {
      const gap = calls[i]!.at - calls[i - 1]!.at;
      expect(gap).toBeGreaterThanOrEqual(ANSWER_MS); // never two at once
      expect(gap).toBeLessThan(ANSWER_MS + 2_000); // woken by the finish, not by the one-minute recheck
    }
  });
});
