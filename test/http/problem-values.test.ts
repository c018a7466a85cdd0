/**
 * Which values a sent request's problem may quote (docs/interface.md, "Errors"): a `detail` or
 * `message` may quote a value that helps to correct it (a time zone name, the faulty part of a
 * cron expression, an endpoint's host), never the value of a secret field (`secretHeaders`
 * values, `auth` credentials, `signingSecret`), nor of a plain header, nor a whole endpoint URL.
 * Each invalid value below carries a marker; the whole answer must not, on create and on patch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, openHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => {
  await h?.close();
});

const MARK = 'Zq7mark';
const schedule = { name: 'n', scheduledAt: '2026-11-22T09:00:00Z', endpoint: 'https://example.com/hook' };
const cron = { expression: '0 * * * *', endpoint: 'https://example.com/hook' };

/** Invalid values of secret fields (and of other fields whose values are never quoted), each holding {@link MARK}. */
const NEVER_QUOTED: [string, Record<string, unknown>, string][] = [
  ['a secret header with a control character', { secretHeaders: { 'X-Api-Key': `k_${MARK}\u0001` } }, '/secretHeaders/X-Api-Key'],
  ['a secret header over 8 KiB', { secretHeaders: { 'X-Api-Key': MARK.repeat(2_000) } }, '/secretHeaders/X-Api-Key'],
  ['a plain header with a line break', { headers: { 'X-Note': `a${MARK}\r\nX-Evil: 1` } }, '/headers/X-Note'],
  ['a Basic password with a control character', { auth: { type: 'basic', username: 'u', password: `p${MARK}\u0007` } }, '/auth/password'],
  ['a Basic user name with a colon', { auth: { type: 'basic', username: `u${MARK}:x`, password: 'p' } }, '/auth/username'],
  ['a bearer token with a line break', { auth: { type: 'bearer', token: `t${MARK}\n` } }, '/auth/token'],
  [
    'an OAuth 2.0 client secret with a control character',
    { auth: { type: 'oauth2', tokenUrl: 'https://auth.example.com/token', clientId: 'c', clientSecret: `s${MARK}\u0002` } },
    '/auth/clientSecret',
  ],
  [
    'an OAuth 2.0 token URL with credentials, on a loopback host',
    { auth: { type: 'oauth2', tokenUrl: `http://u:${MARK}@127.0.0.1/token?key=${MARK}`, clientId: 'c', clientSecret: 's' } },
    '/auth/tokenUrl',
  ],
  ['a signing secret that is not whsec_ and base64', { signingSecret: `whsec_${MARK}!!` }, '/signingSecret'],
  ['an endpoint with a token in its query, on a private host', { endpoint: `http://10.0.0.1/hook?token=${MARK}` }, '/endpoint'],
];

describe('a problem never quotes a secret value', () => {
  it.each(NEVER_QUOTED)('%s: 400 naming the field, the value nowhere in the answer', async (_label, fields, path) => {
    for (const [url, base] of [
      ['/schedules', schedule],
      ['/cron', cron],
    ] as const) {
      const res = await h.app.inject({ method: 'POST', url, headers: h.headers, payload: { ...base, ...fields } });
      const body = expectProblem(res, 400);
      expect(body.errors!.map((e) => e.path)).toContain(path);
      expect(res.body).not.toContain(MARK);
    }
    const created = await h.app.inject({ method: 'POST', url: '/schedules', headers: h.headers, payload: schedule });
    const res = await h.app.inject({ method: 'PATCH', url: `/schedules/${created.json().id}`, headers: h.headers, payload: fields });
    expectProblem(res, 400);
    expect(res.body).not.toContain(MARK);
  });
});

describe('a problem may quote a value that helps to correct it', () => {
  it('a time zone name, the faulty part of a cron expression, an endpoint host', async () => {
    const zone = await h.app.inject({ method: 'POST', url: '/cron', headers: h.headers, payload: { ...cron, timezone: 'Europe/Paaris' } });
    expect(expectProblem(zone, 400).detail).toContain("'Europe/Paaris'");
    const expr = await h.app.inject({ method: 'POST', url: '/cron', headers: h.headers, payload: { ...cron, expression: '0 9 * * FOO' } });
    expect(expectProblem(expr, 400).detail).toContain("'FOO'");
    const host = await h.app.inject({ method: 'POST', url: '/schedules', headers: h.headers, payload: { ...schedule, endpoint: 'http://192.168.1.7/x' } });
    expect(expectProblem(host, 400).detail).toContain('192.168.1.7');
  });
});
