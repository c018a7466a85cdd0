import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateSigningSecret } from '../../src/domain/signing-secret.js';
import type { Arrival } from '../support/receiver.js';
import { STORES } from '../support/stores.js';
import { secretsRig } from '../support/token-endpoint.js';

const KEY = Buffer.alloc(32, 9).toString('base64');
const DEPLOYMENT_SECRET = generateSigningSecret();

interface Job {
  id: string;
  secretHeaderNames: string[];
  auth: Record<string, unknown> | null;
  signingSecretSet: boolean;
}
interface Problem {
  errors: { path: string; message: string }[];
}

/**
 * Secret headers, authentication to the target and signing secrets per job, end to end on every
 * store: a real server on a socket, a real receiver and a real token endpoint on 127.0.0.1.
 */
describe.each(STORES)('job secrets ($name)', (store) => {
  const rig = secretsRig(store, { PUNCTUAL_ENCRYPTION_KEYS: KEY, PUNCTUAL_SIGNING_SECRET: DEPLOYMENT_SECRET });

  const soon = () => new Date(Date.now() + 50).toISOString();
  const schedule = (path: string, fields: Record<string, unknown>) =>
    rig.server.api('POST', '/schedules', { name: path, scheduledAt: soon(), endpoint: rig.receiver.url + path, ...fields });
  const arrival = async (path: string, n = 1): Promise<Arrival[]> =>
    (await rig.receiver.waitFor((all) => all.filter((a) => a.path === path).length >= n, 15_000)).filter((a) => a.path === path);
  /** The schedule's execution once it has ended (polled over the API; the dispatcher writes it). */
  const finished = async (id: string) => {
    type E = { status: string; attempts: { error: string | null; statusCode: number | null }[] };
    for (let i = 0; ; i++) {
      const [e] = ((await rig.server.api('GET', `/schedules/${id}/executions`)).body as { executions: E[] }).executions;
      if (e && (e.status === 'Succeeded' || e.status === 'Failed')) return e;
      if (i > 300) throw new Error(`execution of ${id} did not end`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const verify = (a: Arrival, secret: string) => new Webhook(secret).verify(a.body, a.headers as Record<string, string>);

  it('secret headers and a bearer token arrive; responses and lists show names and the public part only', async () => {
    const res = await schedule('/bearer', { secretHeaders: { 'X-Api-Key': 'api-key-value-1' }, auth: { type: 'bearer', token: 'bearer-token-value-1' } });
    expect(res.status).toBe(201);
    const job = res.body as Job;
    expect(job).toMatchObject({ secretHeaderNames: ['X-Api-Key'], auth: { type: 'bearer' }, signingSecretSet: false });
    const [a] = await arrival('/bearer');
    expect(a!.headers['x-api-key']).toBe('api-key-value-1');
    expect(a!.headers.authorization).toBe('Bearer bearer-token-value-1');
    verify(a!, DEPLOYMENT_SECRET);
    const shown = JSON.stringify([(await rig.server.api('GET', `/schedules/${job.id}`)).body, (await rig.server.api('GET', '/schedules')).body]);
    const attempts = JSON.stringify((await rig.server.api('GET', `/schedules/${job.id}/executions`)).body);
    for (const text of [JSON.stringify(job), shown, attempts]) {
      expect(text).not.toContain('api-key-value-1');
      expect(text).not.toContain('bearer-token-value-1');
    }
  });

  it('a cron job calls with its method, headers, secret headers and each kind of auth', async () => {
    const cron = (path: string, fields: Record<string, unknown>) =>
      rig.server.api('POST', '/cron', { expression: '* * * * * *', endpoint: rig.receiver.url + path, ...fields });
    const kinds: [string, Record<string, unknown>, (a: Arrival) => void][] = [
      ['/cron-basic', { auth: { type: 'basic', username: 'u', password: 'cron-pass' } }, (a) => expect(a.headers.authorization).toBe(`Basic ${Buffer.from('u:cron-pass').toString('base64')}`)],
      ['/cron-bearer', { auth: { type: 'bearer', token: 'cron-token' } }, (a) => expect(a.headers.authorization).toBe('Bearer cron-token')],
      ['/cron-oauth', { auth: { type: 'oauth2', tokenUrl: rig.tokens.url, clientId: 'cron', clientSecret: 'cron-client-secret' } }, (a) => expect(a.headers.authorization).toMatch(/^Bearer tok-\d+$/)],
    ];
    const ids: string[] = [];
    for (const [path, auth] of kinds) {
      const res = await cron(path, { method: 'PUT', headers: { 'X-Plain': 'p' }, secretHeaders: { 'X-Secret': 'cron-secret-header' }, body: 'a=1', ...auth });
      expect(res.status).toBe(201);
      ids.push((res.body as Job).id);
    }
    for (const [path, , check] of kinds) {
      const [a] = await arrival(path);
      expect([a!.method, a!.headers['x-plain'], a!.headers['x-secret'], a!.body]).toEqual(['PUT', 'p', 'cron-secret-header', 'a=1']);
      check(a!);
      // The signature covers the text body as sent (verify() parses JSON, so sign and compare).
      const h = a!.headers as Record<string, string>;
      expect(h['webhook-signature']).toBe(new Webhook(DEPLOYMENT_SECRET).sign(h['webhook-id']!, new Date(Number(h['webhook-timestamp']) * 1000), a!.body));
    }
    for (const id of ids) await rig.server.api('DELETE', `/cron/${id}`);
  });

  it('HTTP Basic: Authorization is base64 of user:password (RFC 7617)', async () => {
    const res = await schedule('/basic', { auth: { type: 'basic', username: 'reports', password: 'pa55-word' } });
    expect((res.body as Job).auth).toEqual({ type: 'basic', username: 'reports' });
    const [a] = await arrival('/basic');
    expect(a!.headers.authorization).toBe(`Basic ${Buffer.from('reports:pa55-word').toString('base64')}`);
  });

  it('OAuth 2.0: one token for many calls; a 401 refreshes it once within the same attempt', async () => {
    const auth = { type: 'oauth2', tokenUrl: rig.tokens.url, clientId: 'cid', clientSecret: 'client-secret-value-1', scope: 'jobs' };
    const before = rig.tokens.requests.length;
    const created = await Promise.all([1, 2, 3, 4].map(() => schedule('/oauth', { auth })));
    for (const c of created) expect((c.body as Job).auth).toEqual({ type: 'oauth2', tokenUrl: rig.tokens.url, clientId: 'cid', scope: 'jobs', audience: null });
    const calls = await arrival('/oauth', 4);
    expect(rig.tokens.requests.length - before).toBe(1);
    expect(new Set(calls.map((c) => c.headers.authorization)).size).toBe(1);

    rig.receiver.respond('/oauth-401', [{ status: 401 }, { status: 200 }]);
    const refused = (await schedule('/oauth-401', { auth })).body as Job;
    const [first, second] = await arrival('/oauth-401', 2);
    expect(second!.headers.authorization).not.toBe(first!.headers.authorization);
    const execution = await finished(refused.id);
    expect(rig.tokens.requests.length - before).toBe(2);
    // One attempt made both calls, and succeeded.
    expect(execution.status).toBe('Succeeded');
    expect(execution.attempts).toHaveLength(1);
    expect(execution.attempts[0]!.statusCode).toBe(200);
  });

  it("a token endpoint's 400 fails the attempt at once, quoting its error code", async () => {
    rig.tokens.answers.push({ status: 400, body: { error: 'invalid_client' } });
    const auth = { type: 'oauth2', tokenUrl: rig.tokens.url, clientId: 'bad', clientSecret: 'wrong-secret-value' };
    const job = (await schedule('/never', { auth, retry: { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 1000 } })).body as Job;
    const execution = await finished(job.id);
    expect(execution.status).toBe('Failed');
    expect(execution.attempts).toHaveLength(1);
    expect(execution.attempts[0]!.error).toBe('token endpoint answered HTTP 400 (invalid_client)');
    expect(JSON.stringify(execution)).not.toContain('wrong-secret-value');
  });

  it("a job's own signing secret signs its calls; POST …/signing-secret makes one and shows it once", async () => {
    const own = generateSigningSecret();
    const res = await schedule('/own', { signingSecret: own });
    expect((res.body as Job).signingSecretSet).toBe(true);
    const [a] = await arrival('/own');
    verify(a!, own);
    expect(() => verify(a!, DEPLOYMENT_SECRET)).toThrow();

    const cron = (await rig.server.api('POST', '/cron', { expression: '* * * * * *', endpoint: rig.receiver.url + '/cron-own' })).body as Job;
    const made = await rig.server.api('POST', `/cron/${cron.id}/signing-secret`);
    expect(made.status).toBe(200);
    const { signingSecret } = made.body as { signingSecret: string };
    expect(signingSecret).toMatch(/^whsec_/);
    expect(((await rig.server.api('GET', `/cron/${cron.id}`)).body as Job).signingSecretSet).toBe(true);
    expect(JSON.stringify((await rig.server.api('GET', `/cron/${cron.id}`)).body)).not.toContain(signingSecret);
    const calls = await arrival('/cron-own', 1);
    verify(calls.at(-1)!, signingSecret);
    await rig.server.api('DELETE', `/cron/${cron.id}`);
  });

  it('refuses, naming the field and changing nothing: auth with an Authorization header, a name both plain and secret, bad auth, a bad signing secret', async () => {
    const paths = async (fields: Record<string, unknown>) => {
      const res = await schedule('/x', fields);
      expect(res.status).toBe(400);
      return (res.body as Problem).errors.map((e) => e.path);
    };
    expect(await paths({ auth: { type: 'bearer', token: 't' }, headers: { Authorization: 'Bearer x' } })).toEqual(['/auth']);
    expect(await paths({ auth: { type: 'bearer', token: 't' }, secretHeaders: { authorization: 'Bearer x' } })).toEqual(['/auth']);
    expect(await paths({ headers: { 'X-Key': 'a' }, secretHeaders: { 'x-key': 'b' } })).toEqual(['/secretHeaders/x-key']);
    expect(await paths({ auth: { type: 'basic', username: 'a:b', password: 'p' } })).toEqual(['/auth/username']);
    expect(await paths({ auth: { type: 'oauth2', tokenUrl: 'ftp://x', clientId: 'c', clientSecret: 's' } })).toEqual(['/auth/tokenUrl']);
    expect(await paths({ auth: { type: 'digest' } })).toEqual(['/auth/type']);
    expect(await paths({ secretHeaders: { 'X-A': 'v\r\nInjected: 1' } })).toEqual(['/secretHeaders/X-A']);
    expect(await paths({ secretHeaders: { Host: 'h' } })).toEqual(['/secretHeaders/Host']);
    expect(await paths({ signingSecret: 'whsec_short' })).toEqual(['/signingSecret']);
    expect(rig.receiver.arrivals.some((a) => a.path === '/x')).toBe(false);
  });

  it('PATCH replaces secret headers whole, null removes them and auth', async () => {
    const created = (await rig.server.api('POST', '/schedules', {
      name: 'later',
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
      endpoint: rig.receiver.url + '/later',
      secretHeaders: { A: '1', B: '2' },
      auth: { type: 'bearer', token: 't' },
    })).body as Job;
    const replaced = (await rig.server.api('PATCH', `/schedules/${created.id}`, { secretHeaders: { C: '3' } })).body as Job;
    expect(replaced).toMatchObject({ secretHeaderNames: ['C'], auth: { type: 'bearer' } });
    const cleared = (await rig.server.api('PATCH', `/schedules/${created.id}`, { secretHeaders: null, auth: null })).body as Job;
    expect(cleared).toMatchObject({ secretHeaderNames: [], auth: null });
  });
});
