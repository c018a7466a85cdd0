/**
 * PostgreSQL without `PUNCTUAL_ENCRYPTION_KEYS` (docs/security.md, "Job secrets", where the key
 * comes from): the service runs without a key ring; every create or patch carrying a secret is a
 * 400 whose detail says why (`SECRETS_NEED_KEYS`) on the field that carries it, and stores
 * nothing; jobs without secrets are created and called as usual. A real server on a socket.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRETS_NEED_KEYS } from '../../src/service/context.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { POSTGRES } from '../support/stores.js';

interface Problem {
  status: number;
  detail: string;
  errors: { path: string; message: string }[];
}

describe.skipIf(POSTGRES === null)('PostgreSQL without PUNCTUAL_ENCRYPTION_KEYS (postgres)', () => {
  let server: TestServer;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startTestServer({}, { store: POSTGRES! });
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  const soon = () => new Date(Date.now() + 50).toISOString();
  const refusedOn = (res: { status: number; body: unknown }, field: string) => {
    expect(res.status).toBe(400);
    const problem = res.body as Problem;
    expect(problem.errors).toEqual([{ path: field, message: SECRETS_NEED_KEYS }]);
    expect(problem.detail).toContain(field);
    expect(problem.detail).toContain('PUNCTUAL_ENCRYPTION_KEYS');
  };

  it('has no key ring', () => {
    expect(server.keyRing).toBeNull();
  });

  it('refuses every secret with a 400 naming the field and saying why, and creates nothing', async () => {
    const schedule = { name: 'with secrets', scheduledAt: soon(), endpoint: `${receiver.url}/refused` };
    refusedOn(await server.api('POST', '/schedules', { ...schedule, secretHeaders: { 'X-Api-Key': 'k' } }), '/secretHeaders');
    refusedOn(await server.api('POST', '/schedules', { ...schedule, auth: { type: 'bearer', token: 't' } }), '/auth');
    refusedOn(await server.api('POST', '/schedules', { ...schedule, auth: { type: 'basic', username: 'u', password: 'p' } }), '/auth');
    refusedOn(await server.api('POST', '/schedules', { ...schedule, signingSecret: `whsec_${Buffer.alloc(32, 1).toString('base64')}` }), '/signingSecret');
    const cron = { expression: '0 0 1 1 *', endpoint: `${receiver.url}/refused` };
    refusedOn(await server.api('POST', '/cron', { ...cron, auth: { type: 'oauth2', tokenUrl: `${receiver.url}/t`, clientId: 'c', clientSecret: 's' } }), '/auth');
    refusedOn(await server.api('POST', '/cron', { ...cron, secretHeaders: { 'X-Api-Key': 'k' } }), '/secretHeaders');
    expect(((await server.api('GET', '/schedules')).body as { schedules: unknown[] }).schedules).toEqual([]);
    expect(((await server.api('GET', '/cron')).body as { cronJobs: unknown[] }).cronJobs).toEqual([]);
  });

  it('jobs without secrets are created and called; adding a secret to one is refused and changes nothing', async () => {
    const plain = await server.api('POST', '/schedules', { name: 'plain', scheduledAt: soon(), endpoint: `${receiver.url}/plain` });
    expect(plain.status).toBe(201);
    const cron = await server.api('POST', '/cron', { expression: '0 0 1 1 *', endpoint: `${receiver.url}/cron` });
    expect(cron.status).toBe(201);
    const cronId = (cron.body as { id: string }).id;

    refusedOn(await server.api('PATCH', `/cron/${cronId}`, { name: 'renamed', secretHeaders: { 'X-Api-Key': 'k' } }), '/secretHeaders');
    refusedOn(await server.api('POST', `/cron/${cronId}/signing-secret`), '/signingSecret');
    const after = (await server.api('GET', `/cron/${cronId}`)).body as Record<string, unknown>;
    expect(after).toMatchObject({ name: (cron.body as { name: string }).name, secretHeaderNames: [], auth: null, signingSecretSet: false });

    expect((await server.api('POST', `/cron/${cronId}/trigger`)).status).toBe(202);
    const arrivals = await receiver.waitFor((all) => all.some((a) => a.path === '/plain') && all.some((a) => a.path === '/cron'));
    expect(arrivals.some((a) => a.path === '/refused')).toBe(false);
  });
});
