/**
 * Idempotency-Key end to end: `punctual serve` (startServer) on a real socket, on every store,
 * through the typed client and plain fetch. Concurrent duplicates on PostgreSQL race in the
 * database itself (several pool connections).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPunctualClient, type PunctualClient } from '../../src/client/index.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../support/server.js';
import { STORES } from '../support/stores.js';

const schedule = { name: 'invoice', scheduledAt: '2030-01-01T09:00:00Z', endpoint: 'https://example.com/hook' };

describe.each(STORES)('Idempotency-Key over a real socket ($name)', (storeUnderTest) => {
  let server: TestServer;
  let client: PunctualClient;

  beforeAll(async () => {
    server = await startTestServer({}, { store: storeUnderTest });
    client = createPunctualClient({ baseUrl: server.url, token: TEST_TOKEN });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const post = (path: string, key: string, body: unknown) =>
    fetch(server.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    });

  it("the client's idempotencyKey makes a retried create and trigger answer the first result", async () => {
    const a = await client.schedules.create(schedule, { idempotencyKey: 'e2e-create' });
    const b = await client.schedules.create(schedule, { idempotencyKey: 'e2e-create' });
    expect(b).toEqual(a);
    const run1 = await client.schedules.trigger(a.id, { idempotencyKey: 'e2e-run' });
    const run2 = await client.schedules.trigger(a.id, { idempotencyKey: 'e2e-run' });
    expect(run2).toEqual(run1);
    expect((await client.schedules.executions(a.id)).executions).toHaveLength(1);
    const replay = await post('/schedules', 'e2e-create', schedule);
    expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    expect(await replay.json()).toEqual(a);
    expect((await post('/schedules', 'e2e-create', { ...schedule, name: 'other' })).status).toBe(422);
  });

  it('ten requests with one key at once create one schedule; the others get a 409 or its replay', async () => {
    const body = { ...schedule, name: 'race' };
    const answers = await Promise.all(Array.from({ length: 10 }, () => post('/schedules', 'e2e-race', body)));
    const texts = await Promise.all(answers.map((r) => r.text()));
    const fresh = answers.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
    expect(fresh).toHaveLength(1);
    const created = texts[answers.indexOf(fresh[0]!)]!;
    for (const [i, r] of answers.entries()) {
      if (r === fresh[0]) continue;
      if (r.status === 409) expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      else expect([r.status, r.headers.get('idempotent-replayed'), texts[i]]).toEqual([201, 'true', created]);
    }
    const all = [];
    for await (const s of client.schedules.listAll({ name: 'race' })) all.push(s);
    expect(all).toHaveLength(1);
  });
});
