/**
 * Size limits (docs/security.md): each at its boundary — exactly the limit passes, one more fails
 * with a problem naming the field — with the defaults and with configured values.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_LISTED_PROBLEMS } from '../../src/http/problem.js';
import { DEFAULT_LIMITS } from '../../src/service/limits.js';
import { expectProblem, openHarness, type Harness } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await openHarness();
});
afterEach(async () => {
  await h.close();
});

const schedule = { name: 'n', scheduledAt: '2026-11-22T09:00:00Z', endpoint: 'https://example.com/hook' };
const cron = { expression: '0 * * * *', endpoint: 'https://example.com/tick' };

const post = (url: string, payload: unknown, app = h.app) =>
  app.inject({ method: 'POST', url, headers: { ...h.headers, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
const patch = (url: string, payload: unknown) => h.app.inject({ method: 'PATCH', url, headers: h.headers, payload: payload as object });

/** A valid cron expression of exactly `length` characters (a long minute list). */
function expressionOf(length: number): string {
  const tail = '0 * * * *';
  const extra = length - tail.length; // made of one '10,' (when odd) and '1,'s
  const e = (extra % 2 === 1 ? '10,' : '') + '1,'.repeat(Math.floor((extra - (extra % 2) * 3) / 2)) + tail;
  expect(e.length).toBe(length);
  return e;
}

/** Checks a 400 naming exactly `path` with `message`, and that nothing was stored. */
async function refused(res: Awaited<ReturnType<typeof post>>, path: string, message: string) {
  const body = expectProblem(res, 400);
  expect(body.errors).toEqual([{ path, message }]);
}

describe('name: at most 256 characters', () => {
  const at = 'n'.repeat(DEFAULT_LIMITS.nameLength);
  const over = at + 'n';

  it('schedules, cron jobs and API keys take exactly 256 and refuse 257, naming /name', async () => {
    expect((await post('/schedules', { ...schedule, name: at })).statusCode).toBe(201);
    await refused(await post('/schedules', { ...schedule, name: over }), '/name', 'must be at most 256 characters');
    expect((await post('/cron', { ...cron, name: at })).statusCode).toBe(201);
    await refused(await post('/cron', { ...cron, name: over }), '/name', 'must be at most 256 characters');
    expect((await post('/api-keys', { name: at })).statusCode).toBe(201);
    await refused(await post('/api-keys', { name: over }), '/name', 'must be at most 256 characters');
    expect((await h.store.scheduleList()).map((s) => s.name)).toEqual([at]);
    expect((await h.store.cronList()).map((c) => c.name)).toEqual([at]);
    expect((await h.store.apiKeyList()).map((k) => k.name)).toEqual(['harness', at]);
  });

  it('counts characters (code points), not UTF-16 units: 256 emoji pass, 257 do not', async () => {
    expect((await post('/schedules', { ...schedule, name: '😀'.repeat(256) })).statusCode).toBe(201);
    await refused(await post('/schedules', { ...schedule, name: '😀'.repeat(257) }), '/name', 'must be at most 256 characters');
  });

  it('applies to PATCH too, and a refused patch changes nothing', async () => {
    const s = (await post('/schedules', schedule)).json();
    const c = (await post('/cron', cron)).json();
    const k = (await post('/api-keys', { name: 'k' })).json();
    for (const url of [`/schedules/${s.id}`, `/cron/${c.id}`, `/api-keys/${k.id}`]) {
      await refused(await patch(url, { name: over }), '/name', 'must be at most 256 characters');
      expect((await patch(url, { name: at })).json().name).toBe(at);
    }
  });
});

describe('tags: at most 32, each at most 64 characters', () => {
  it('takes 32 tags of 64 characters; refuses a 33rd tag (/tags) and a 65-character tag (/tags/<i>)', async () => {
    const tags = Array.from({ length: 32 }, (_, i) => String(i).padEnd(64, 'x'));
    expect((await post('/schedules', { ...schedule, tags })).json().tags).toEqual(tags);
    await refused(await post('/schedules', { ...schedule, tags: [...tags, 'x'] }), '/tags', 'must have at most 32 tags');
    await refused(
      await post('/schedules', { ...schedule, tags: ['ok', 'y'.repeat(65)] }),
      '/tags/1',
      'must be at most 64 characters',
    );
    expect(await h.store.scheduleList()).toHaveLength(1);
  });

  it('a huge array of wrong items costs one error, not one per item', async () => {
    const res = await post('/schedules', { ...schedule, tags: Array.from({ length: 100_000 }, () => 1) });
    await refused(res, '/tags', 'must have at most 32 tags');
  });

  it('still names a tag that is not a string', async () => {
    await refused(await post('/schedules', { ...schedule, tags: ['a', null] }), '/tags/1', 'must be a string');
  });
});

describe('endpoint: at most 2,048 characters', () => {
  const base = 'https://example.com/';
  const at = base + 'p'.repeat(DEFAULT_LIMITS.endpointLength - base.length);

  it('takes exactly 2048 and refuses 2049 (schedules and cron jobs, create and patch)', async () => {
    expect(at).toHaveLength(2048);
    expect((await post('/schedules', { ...schedule, endpoint: at })).statusCode).toBe(201);
    await refused(await post('/schedules', { ...schedule, endpoint: at + 'p' }), '/endpoint', 'must be at most 2048 characters');
    const c = await post('/cron', { ...cron, endpoint: at });
    expect(c.statusCode).toBe(201);
    await refused(await post('/cron', { ...cron, endpoint: at + 'p' }), '/endpoint', 'must be at most 2048 characters');
    await refused(await patch(`/cron/${c.json().id}`, { endpoint: at + 'p' }), '/endpoint', 'must be at most 2048 characters');
  });
});

describe('expression: at most 256 characters', () => {
  it('takes exactly 256 and refuses 257, in bodies and in the preview query', async () => {
    const at = expressionOf(256);
    const over = expressionOf(257);
    expect((await post('/cron', { ...cron, expression: at })).statusCode).toBe(201);
    await refused(await post('/cron', { ...cron, expression: over }), '/expression', 'must be at most 256 characters');
    const q = (e: string) =>
      h.app.inject({ method: 'GET', url: `/cron/preview?expression=${encodeURIComponent(e)}&count=1`, headers: h.headers });
    expect((await q(at)).statusCode).toBe(200);
    await refused(await q(over), '/query/expression', 'must be at most 256 characters');
  });
});

describe('data: at most 256 KiB serialised', () => {
  // {"x":"…"} is 8 bytes around the string.
  const dataOf = (bytes: number) => ({ x: 'a'.repeat(bytes - 8) });

  it('takes exactly 262,144 bytes and refuses 262,145 with a 400 naming /data (not a 413)', async () => {
    expect(JSON.stringify(dataOf(262_144))).toHaveLength(262_144);
    expect((await post('/schedules', { ...schedule, data: dataOf(262_144) })).statusCode).toBe(201);
    await refused(
      await post('/schedules', { ...schedule, data: dataOf(262_145) }),
      '/data',
      'must be at most 262144 bytes when serialised as JSON',
    );
    const c = await post('/cron', { ...cron, data: dataOf(262_144) });
    expect(c.statusCode).toBe(201);
    await refused(await patch(`/cron/${c.json().id}`, { data: dataOf(262_145) }), '/data', 'must be at most 262144 bytes when serialised as JSON');
  });

  it('counts bytes of UTF-8, not characters', async () => {
    const twoByte = { x: 'é'.repeat((262_144 - 8) / 2) };
    expect(Buffer.byteLength(JSON.stringify(twoByte))).toBe(262_144);
    expect((await post('/schedules', { ...schedule, data: twoByte })).statusCode).toBe(201);
    await refused(
      await post('/schedules', { ...schedule, data: { x: twoByte.x + 'é' } }),
      '/data',
      'must be at most 262144 bytes when serialised as JSON',
    );
  });

  it('refuses a number JSON cannot carry (1e999 parses to Infinity) instead of storing null', async () => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/schedules',
      headers: { ...h.headers, 'content-type': 'application/json' },
      payload: '{"name":"n","scheduledAt":"2026-11-22T09:00:00Z","endpoint":"https://example.com/","data":{"big":[1e999]}}',
    });
    await refused(res, '/data', 'must not contain numbers beyond the range of a double (such as 1e999)');
    expect(await h.store.scheduleList()).toEqual([]);
  });
});

describe('the request body: at most 1 MiB', () => {
  /** A valid schedule body padded with JSON whitespace to exactly `bytes`. */
  const bodyOf = (bytes: number) => {
    const json = JSON.stringify(schedule);
    return json.slice(0, -1) + ' '.repeat(bytes - json.length) + '}';
  };

  it('takes a body of exactly 1,048,576 bytes and answers 413 to one more byte', async () => {
    const send = (payload: string) =>
      h.app.inject({ method: 'POST', url: '/schedules', headers: { ...h.headers, 'content-type': 'application/json' }, payload });
    expect(bodyOf(1_048_576)).toHaveLength(1_048_576);
    expect((await send(bodyOf(1_048_576))).statusCode).toBe(201);
    const body = expectProblem(await send(bodyOf(1_048_577)), 413);
    expect(body.type).toBe('urn:punctual:problem:payload_too_large');
    expect(body.detail).toBe('The request body is larger than the service accepts: at most 1048576 bytes for this request (set by PUNCTUAL_MAX_BODY_BYTES).');
    expect(await h.store.scheduleList()).toHaveLength(1);
  });

  it('names the limit in force (PUNCTUAL_MAX_BODY_BYTES) and the variable, over a real socket', async () => {
    const other = await openHarness({ limits: { bodyBytes: 2_000 } });
    try {
      const base = await other.app.listen({ port: 0, host: '127.0.0.1' });
      const post = async (path: string, body: unknown) => {
        const res = await fetch(`${base}${path}`, {
          method: 'POST',
          headers: { ...other.headers, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(res.status).toBe(413);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        return ((await res.json()) as { detail: string }).detail;
      };
      const big = { ...schedule, data: { x: 'a'.repeat(2_000) } };
      expect(await post('/schedules', big)).toBe(
        'The request body is larger than the service accepts: at most 2000 bytes for this request (set by PUNCTUAL_MAX_BODY_BYTES).',
      );
      // A batch may be 16 times as large: its answer names its own limit.
      expect(await post('/schedules/batch', { schedules: Array.from({ length: 16 }, () => big) })).toBe(
        'The request body is larger than the service accepts: at most 32000 bytes for this request (set by PUNCTUAL_MAX_BODY_BYTES).',
      );
    } finally {
      await other.close();
    }
  });
});

describe('configured limits (AppDeps.limits)', () => {
  it('larger than the defaults: HTTP validation and the services both take values up to them', async () => {
    const other = await openHarness({
      limits: { nameLength: 300, tags: 40, tagLength: 100, endpointLength: 3_000, expressionLength: 300, dataBytes: 300_000 },
    });
    try {
      const send = (method: 'POST' | 'PATCH', url: string, payload: object) =>
        other.app.inject({ method, url, headers: other.headers, payload });
      const name = 'n'.repeat(300);
      const endpoint = 'https://example.com/' + 'p'.repeat(3_000 - 20);
      const tags = Array.from({ length: 40 }, () => 't'.repeat(100));
      const data = { x: 'a'.repeat(300_000 - 8) };
      const s = await send('POST', '/schedules', { ...schedule, name, endpoint, tags, data });
      expect(s.statusCode).toBe(201);
      expect(s.json()).toMatchObject({ name, endpoint, tags, data });
      expect((await send('PATCH', `/schedules/${s.json().id}`, { name, endpoint, tags, data })).statusCode).toBe(200);
      const c = await send('POST', '/cron', { ...cron, name, endpoint, data, expression: expressionOf(300) });
      expect(c.statusCode).toBe(201);
      expect((await send('PATCH', `/cron/${c.json().id}`, { name, expression: expressionOf(299) })).statusCode).toBe(200);
      const k = await send('POST', '/api-keys', { name });
      expect(k.statusCode).toBe(201);
      expect((await send('PATCH', `/api-keys/${k.json().id}`, { name })).statusCode).toBe(200);
      const e = expectProblem(await send('POST', '/schedules', { ...schedule, name: name + 'n' }), 400);
      expect(e.errors).toEqual([{ path: '/name', message: 'must be at most 300 characters' }]);
    } finally {
      await other.close();
    }
  });

  it('smaller than the defaults: each applies at its own boundary', async () => {
    const other = await openHarness({
      limits: { bodyBytes: 2_000, dataBytes: 20, nameLength: 3, tags: 1, tagLength: 2, endpointLength: 24, expressionLength: 9 },
    });
    try {
      const send = (url: string, payload: unknown) =>
        other.app.inject({ method: 'POST', url, headers: { ...other.headers, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });
      const ok = { name: 'abc', scheduledAt: '2026-11-22T09:00:00Z', endpoint: 'https://example.com/1234', data: { x: 'a'.repeat(12) }, tags: ['ab'] };
      expect(ok.endpoint).toHaveLength(24);
      expect(JSON.stringify(ok.data)).toHaveLength(20);
      expect((await send('/schedules', ok)).statusCode).toBe(201);
      const res = await send('/schedules', { ...ok, name: 'abcd', endpoint: ok.endpoint + '6', data: { x: 'a'.repeat(13) }, tags: ['ab', 'c'] });
      expect(expectProblem(res, 400).errors).toEqual([
        { path: '/name', message: 'must be at most 3 characters' },
        { path: '/endpoint', message: 'must be at most 24 characters' },
        { path: '/data', message: 'must be at most 20 bytes when serialised as JSON' },
        { path: '/tags', message: 'must have at most 1 tags' },
      ]);
      await refused(await send('/schedules', { ...ok, tags: ['abc'] }), '/tags/0', 'must be at most 2 characters');
      expect((await send('/cron', { expression: '0 * * * *', endpoint: ok.endpoint })).statusCode).toBe(201);
      await refused(await send('/cron', { expression: '0 0 * * * *', endpoint: ok.endpoint }), '/expression', 'must be at most 9 characters');
      await refused(await send('/api-keys', { name: 'abcd' }), '/name', 'must be at most 3 characters');
      expect((await send('/api-keys', { name: 'abc' })).statusCode).toBe(201);

      const padded = (bytes: number) => {
        const json = JSON.stringify(ok);
        return json.slice(0, -1) + ' '.repeat(bytes - json.length) + '}';
      };
      const raw = (payload: string) =>
        other.app.inject({ method: 'POST', url: '/schedules', headers: { ...other.headers, 'content-type': 'application/json' }, payload });
      expect((await raw(padded(2_000))).statusCode).toBe(201);
      expectProblem(await raw(padded(2_001)), 413);
    } finally {
      await other.close();
    }
  });
});

describe('error lists are bounded', () => {
  it(`lists at most ${MAX_LISTED_PROBLEMS} problems, and says how many there were`, async () => {
    const body: Record<string, unknown> = { ...schedule };
    for (let i = 0; i < 5_000; i++) body[`extra${i}`] = i;
    const problem = expectProblem(await post('/schedules', body), 400);
    expect(problem.errors).toHaveLength(MAX_LISTED_PROBLEMS);
    expect(problem.errors![0]).toEqual({ path: '/extra0', message: 'is not an allowed field' });
    expect(problem.detail).toBe(`5000 problems were found; the first ${MAX_LISTED_PROBLEMS} are listed.`);
  });
});

describe('text that cannot be stored as given', () => {
  it.each([
    ['a NUL character', 'a\u0000b', 'must not contain the NUL character (U+0000)'],
    ['an unpaired surrogate', 'a\ud800b', 'must be well-formed Unicode (no unpaired surrogates)'],
  ])('a name with %s is refused (a database would not give it back as sent)', async (_label, name, message) => {
    await refused(await post('/schedules', { ...schedule, name }), '/name', message);
    await refused(await post('/api-keys', { name }), '/name', message);
    await refused(await post('/schedules', { ...schedule, tags: [name] }), '/tags/0', message);
    expect(await h.store.scheduleList()).toEqual([]);
  });

  it('data may hold any string: JSON carries NUL and unpaired surrogates as escapes, and they come back as sent', async () => {
    const data = { nul: 'a\u0000b', lone: '\ud800', pair: '😀', rtl: '\u202e' };
    const res = await post('/schedules', { ...schedule, data });
    expect(res.statusCode).toBe(201);
    expect((await h.store.scheduleGet({ id: res.json().id }))!.data).toEqual(data);
  });
});
