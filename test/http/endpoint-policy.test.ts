/**
 * The SSRF guard at create and patch: an endpoint whose host is `localhost` or an
 * IP literal that is not public is a 400 naming `/endpoint`, unless the app's `endpointPolicy`
 * allows it. Host names are checked when called (the dispatcher's guarded lookup), not here.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseAllowedNetworks, STRICT_POLICY, type EndpointPolicy } from '../../src/net/ssrf.js';
import { buildApp } from '../../src/http/app.js';
import { expectProblem, openHarness, snapshot, type Harness } from './harness.js';

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

async function open(endpointPolicy?: EndpointPolicy): Promise<Harness> {
  h = await openHarness(endpointPolicy === undefined ? {} : { endpointPolicy });
  return h;
}

const schedule = { name: 'n', scheduledAt: '2026-11-22T09:00:00Z' };
const cron = { expression: '0 * * * *' };

const REFUSED = [
  ['loopback', 'http://127.0.0.1:9000/hook'],
  ['loopback (other /8 address)', 'http://127.1.2.3/'],
  ['loopback IPv6', 'http://[::1]:8080/'],
  ['localhost', 'http://localhost:9000/'],
  ['a localhost subdomain', 'https://api.localhost/'],
  ['localhost with a trailing dot', 'http://localhost./'],
  ['RFC 1918', 'http://10.0.0.5/'],
  ['RFC 1918 (172.16/12)', 'http://172.16.0.1/'],
  ['RFC 1918 (192.168/16)', 'https://192.168.1.1/'],
  ['carrier-grade NAT', 'http://100.64.0.1/'],
  ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data/'],
  ['unspecified', 'http://0.0.0.0/'],
  ['a decimal IPv4 literal (2130706433 = 127.0.0.1)', 'http://2130706433/'],
  ['a hex IPv4 literal', 'http://0x7f000001/'],
  ['IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]/'],
  ['unique-local IPv6', 'http://[fd00::1]/'],
  ['link-local IPv6', 'http://[fe80::1]/'],
  ['multicast', 'http://224.0.0.1/'],
  ['broadcast', 'http://255.255.255.255/'],
] as const;

describe('by default (STRICT_POLICY)', () => {
  it.each(REFUSED)('refuses %s at create and patch: 400 naming /endpoint, nothing stored', async (_label, endpoint) => {
    const { app, headers, store } = await open();
    const before = await snapshot(store);
    for (const [url, body] of [
      ['/schedules', { ...schedule, endpoint }],
      ['/cron', { ...cron, endpoint }],
    ] as const) {
      const problem = expectProblem(await app.inject({ method: 'POST', url, headers, payload: body }), 400);
      expect(problem.errors).toHaveLength(1);
      expect(problem.errors![0]!.path).toBe('/endpoint');
      expect(problem.errors![0]!.message).toMatch(/refused/);
    }
    expect(await snapshot(store)).toEqual(before);

    const s = (await app.inject({ method: 'POST', url: '/schedules', headers, payload: { ...schedule, endpoint: 'https://example.com/' } })).json();
    const c = (await app.inject({ method: 'POST', url: '/cron', headers, payload: { ...cron, endpoint: 'https://example.com/' } })).json();
    const mid = await snapshot(store);
    for (const url of [`/schedules/${s.id}`, `/cron/${c.id}`]) {
      const problem = expectProblem(await app.inject({ method: 'PATCH', url, headers, payload: { endpoint } }), 400);
      expect(problem.errors!.map((e) => e.path)).toEqual(['/endpoint']);
    }
    expect(await snapshot(store)).toEqual(mid);
  });

  it('says why, in the words of the guard', async () => {
    const { app, headers } = await open();
    const res = await app.inject({ method: 'POST', url: '/schedules', headers, payload: { ...schedule, endpoint: 'http://169.254.169.254/' } });
    expect(expectProblem(res, 400).errors).toEqual([
      {
        path: '/endpoint',
        message: '169.254.169.254, a linkLocal address: calls to non-public addresses are refused (PUNCTUAL_ALLOWED_NETWORKS allows some)',
      },
    ]);
    const local = await app.inject({ method: 'POST', url: '/cron', headers, payload: { ...cron, endpoint: 'http://localhost/' } });
    expect(expectProblem(local, 400).errors).toEqual([
      {
        path: '/endpoint',
        message:
          'localhost is a loopback host: calls to non-public addresses are refused (to try Punctual on one machine, set PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS=true)',
      },
    ]);
  });

  it.each(['http://127.0.0.1:9000/hook', 'http://localhost:9000/hook', 'http://[::1]:9000/hook', 'http://api.localhost/', 'http://[::ffff:127.0.0.1]/'])(
    'a loopback endpoint (%s) is refused with the setting that lets one machine try Punctual',
    async (endpoint) => {
      const { app, headers } = await open();
      const res = await app.inject({ method: 'POST', url: '/schedules', headers, payload: { ...schedule, endpoint } });
      const body = expectProblem(res, 400);
      expect(body.errors![0]!.message).toContain('to try Punctual on one machine, set PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS=true');
      expect(body.detail).toContain('PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS=true');
    },
  );

  it('other non-public endpoints name PUNCTUAL_ALLOWED_NETWORKS only, not the switch that turns the guard off', async () => {
    const { app, headers } = await open();
    for (const endpoint of ['http://10.0.0.5/', 'http://169.254.169.254/', 'http://[fd00::1]/']) {
      const res = await app.inject({ method: 'POST', url: '/schedules', headers, payload: { ...schedule, endpoint } });
      expect(expectProblem(res, 400).errors![0]!.message).not.toContain('PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS');
    }
  });

  it.each([
    'https://example.com/hook',
    'http://93.184.216.34/',
    'http://[2606:2800:220:1:248:1893:25c8:1946]/',
    // A host name is resolved and checked when called, not at create (DNS may change meanwhile).
    'https://internal.corp.example/',
  ])('accepts %s', async (endpoint) => {
    const { app, headers } = await open();
    expect((await app.inject({ method: 'POST', url: '/schedules', headers, payload: { ...schedule, endpoint } })).statusCode).toBe(201);
  });

  it('a PATCH without endpoint does not re-check the stored one (stored before the guard was turned on)', async () => {
    const { app, headers, store, clock } = await open({ ...STRICT_POLICY, allowPrivate: true });
    const c = (await app.inject({ method: 'POST', url: '/cron', headers, payload: { ...cron, endpoint: 'http://127.0.0.1/' } })).json();
    const strict = await buildApp({ store, clock });
    try {
      const res = await strict.inject({ method: 'PATCH', url: `/cron/${c.id}`, headers, payload: { name: 'renamed' } });
      expect(res.statusCode).toBe(200);
    } finally {
      await strict.close();
    }
  });
});

describe('the switches', () => {
  it('allowPrivate (PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS=true) lets every host through', async () => {
    const { app, headers } = await open({ ...STRICT_POLICY, allowPrivate: true });
    for (const [, endpoint] of REFUSED) {
      const res = await app.inject({ method: 'POST', url: '/schedules', headers, payload: { ...schedule, endpoint } });
      expect(res.statusCode, endpoint).toBe(201);
    }
  });

  it('allowed networks (PUNCTUAL_ALLOWED_NETWORKS=10.1.0.0/16,fd00::/8) let their addresses through, and only those', async () => {
    const { app, headers } = await open({ allowPrivate: false, ...parseAllowedNetworks('10.1.0.0/16,fd00::/8') });
    const create = (endpoint: string) => app.inject({ method: 'POST', url: '/cron', headers, payload: { ...cron, endpoint } });
    expect((await create('http://10.1.2.3/')).statusCode).toBe(201);
    expect((await create('http://[fd12::1]/')).statusCode).toBe(201);
    expectProblem(await create('http://10.2.0.1/'), 400);
    expectProblem(await create('http://127.0.0.1/'), 400);
    expectProblem(await create('http://[fe80::1]/'), 400);
  });

  it('allowed hosts (PUNCTUAL_ALLOWED_NETWORKS=localhost) let that host through, and only that one', async () => {
    const { app, headers } = await open({ allowPrivate: false, ...parseAllowedNetworks('localhost') });
    const create = (endpoint: string) => app.inject({ method: 'POST', url: '/schedules', headers, payload: { ...schedule, endpoint } });
    expect((await create('http://localhost:9000/hook')).statusCode).toBe(201);
    expect((await create('http://LOCALHOST/')).statusCode).toBe(201);
    expectProblem(await create('http://api.localhost/'), 400);
    expectProblem(await create('http://127.0.0.1/'), 400);
  });

  it('an allowed address literal (PUNCTUAL_ALLOWED_NETWORKS=127.0.0.1) is taken as a /32', async () => {
    const { app, headers } = await open({ allowPrivate: false, ...parseAllowedNetworks('127.0.0.1') });
    const create = (endpoint: string) => app.inject({ method: 'POST', url: '/schedules', headers, payload: { ...schedule, endpoint } });
    expect((await create('http://127.0.0.1:9000/')).statusCode).toBe(201);
    expectProblem(await create('http://127.0.0.2/'), 400);
  });
});
