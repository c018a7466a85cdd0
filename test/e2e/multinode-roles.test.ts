import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { RoleError, startServer, type RunningServer } from '../../src/main.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { POSTGRES, SQLITE, type TestDatabase } from '../support/stores.js';

const TOKEN = 'roles-test-bootstrap-token-0123456789abc';

const start = (url: string, role: string) =>
  startServer(
    loadConfig({
      PORT: '0',
      DATABASE_URL: url,
      PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN,
      PUNCTUAL_ROLE: role,
      PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS: 'true',
    }),
    { logger: pino({ level: 'silent' }) },
  );

const get = async (base: string, path: string) => {
  const res = await fetch(base + path, { headers: { authorization: `Bearer ${TOKEN}` } });
  return res.status;
};

/** `punctual serve --role all | api | dispatcher` (docs/multinode.md, "Roles"). */
describe('roles', () => {
  const servers: RunningServer[] = [];
  const dbs: TestDatabase[] = [];
  let receiver: Receiver | undefined;
  afterAll(async () => {
    for (const s of servers) await s.close();
    for (const d of dbs) await d.drop();
    await receiver?.close();
  });

  it('refuses api and dispatcher on the embedded store, which serves one node', async () => {
    const db = await SQLITE.create();
    dbs.push(db);
    for (const role of ['api', 'dispatcher']) {
      await expect(start(db.url, role)).rejects.toThrow(RoleError);
      await expect(start(db.url, role)).rejects.toThrow(/needs a store shared by several nodes/);
    }
    const all = await start(db.url, 'all');
    servers.push(all);
    expect(all.role).toBe('all');
    expect(all.dispatcher).not.toBeNull();
  });

  it.skipIf(POSTGRES === null)(
    'on PostgreSQL: an api node serves the API and calls nothing; a dispatcher node serves only the probes and is woken by NOTIFY',
    async () => {
      const db = await POSTGRES!.create();
      dbs.push(db);
      receiver = await startReceiver();
      const api = await start(db.url, 'api');
      servers.push(api);
      expect(api.dispatcher).toBeNull();
      const dispatcher = await start(db.url, 'dispatcher');
      servers.push(dispatcher);
      expect(dispatcher.dispatcher).not.toBeNull();

      // Probes on both; the API only on the api node.
      for (const s of [api, dispatcher]) {
        expect(await get(s.url, '/healthz')).toBe(200);
        expect(await get(s.url, '/readyz')).toBe(200);
      }
      expect(await get(api.url, '/schedules')).toBe(200);
      expect(await get(dispatcher.url, '/schedules')).toBe(404);
      expect(await get(dispatcher.url, '/api-keys')).toBe(404);

      // The dispatcher is idle (its timer may sleep up to 5 s); a schedule created on the api node
      // 300 ms ahead arrives on time: the store's NOTIFY woke the dispatcher, not its timer.
      await new Promise((r) => setTimeout(r, 500));
      const due = Date.now() + 300;
      const res = await fetch(`${api.url}/schedules`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'woken', scheduledAt: new Date(due).toISOString(), endpoint: `${receiver.url}/woken` }),
      });
      expect(res.status).toBe(201);
      const [arrival] = await receiver.waitFor((a) => a.some((x) => x.path === '/woken'), 10_000);
      expect(arrival!.at).toBeGreaterThanOrEqual(due);
      expect(arrival!.at - due).toBeLessThan(1_000);
    },
    20_000,
  );
});
