/**
 * The request shape of a job's calls over HTTP (docs/calls.md, "Method, headers and body"): the
 * fields on schedules and cron jobs alike, and every refusal a 400 naming the field that changes
 * nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { createApiKey } from '../../src/service/api-keys.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { copyMigratedSqlite } from '../support/migrated.js';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const clock = { t: T0, now() { return this.t; } };

let dir: string;
let store: Store;
let app: FastifyInstance;
let auth: Record<string, string>;

beforeEach(async () => {
  clock.t = T0;
  dir = await mkdtemp(join(tmpdir(), 'punctual-http-request-'));
  await copyMigratedSqlite(join(dir, 'test.db'));
  store = await openStore('file:' + join(dir, 'test.db'));
  await store.migrate(); // nothing to do: the copy is migrated
  app = await buildApp({ store, clock, wake: () => undefined });
  auth = { authorization: `Bearer ${(await createApiKey(store, clock, { name: 't' })).token}` };
});

afterEach(async () => {
  await app.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const KINDS = [
  { kind: 'schedules', url: '/schedules', valid: { name: 'n', scheduledAt: '2026-11-22T09:00:00Z', endpoint: 'https://example.com/h' } },
  { kind: 'cron jobs', url: '/cron', valid: { expression: '0 * * * *', endpoint: 'https://example.com/h' } },
] as const;

const paths = (res: { json(): unknown }) => ((res.json() as { errors?: { path: string }[] }).errors ?? []).map((e) => e.path);

describe.each(KINDS)('$kind', ({ url, valid }) => {
  const post = (body: object) => app.inject({ method: 'POST', url, headers: auth, payload: { ...valid, ...body } });
  const patch = (id: string, body: object) => app.inject({ method: 'PATCH', url: `${url}/${id}`, headers: auth, payload: body });
  const get = async (id: string) => (await app.inject({ method: 'GET', url: `${url}/${id}`, headers: auth })).json() as Record<string, unknown>;
  const count = async () => (url === '/cron' ? (await store.cronList()).length : (await store.scheduleList()).length);

  it('stores method, headers (names as given) and body; secrets are not on the wire', async () => {
    const res = await post({ method: 'PUT', headers: { 'X-Tenant': 'acme', 'Content-Type': 'text/csv' }, body: 'a,b\n1,2' });
    expect(res.statusCode).toBe(201);
    const job = res.json() as Record<string, unknown>;
    expect(job).toMatchObject({ method: 'PUT', headers: { 'X-Tenant': 'acme', 'Content-Type': 'text/csv' }, body: 'a,b\n1,2' });
    expect(job).toMatchObject({ auth: null, secretHeaderNames: [], signingSecretSet: false });
    expect(job).not.toHaveProperty('secrets');
    expect(await get(job.id as string)).toEqual(job);
    // The sealed form is never accepted from a client, and auth is checked by its type.
    expect(paths(await post({ secrets: { auth: 'v1.x' } }))).toEqual(['/secrets']);
    expect(paths(await post({ auth: { type: 'bearer' } }))).toEqual(['/auth/token']);
  });

  it.each([
    ['CR/LF in a value', { 'X-A': 'v\r\nInjected: 1' }, '/headers/X-A'],
    ['NUL in a value', { 'X-A': 'v\u0000' }, '/headers/X-A'],
    ['a non-ASCII value', { 'X-A': 'caf\u00e9' }, '/headers/X-A'],
    ['a name that is not a token', { 'X A': 'v' }, '/headers/X A'],
    ['Host', { Host: 'evil.example' }, '/headers/Host'],
    ['Content-Length', { 'content-length': '1' }, '/headers/content-length'],
    ['Transfer-Encoding', { 'Transfer-Encoding': 'chunked' }, '/headers/Transfer-Encoding'],
    ['Proxy-*', { 'Proxy-Authorization': 'x' }, '/headers/Proxy-Authorization'],
    ['webhook-signature', { 'Webhook-Signature': 'v1,x' }, '/headers/Webhook-Signature'],
    ['Punctual-*', { 'PUNCTUAL-ATTEMPT': '9' }, '/headers/PUNCTUAL-ATTEMPT'],
    ['traceparent (Trace Context: the attempt sets it)', { TraceParent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }, '/headers/TraceParent'],
    ['tracestate', { tracestate: 'vendor=x' }, '/headers/tracestate'],
    ['a name repeated in other case', { 'X-A': '1', 'x-a': '2' }, '/headers/x-a'],
    ['a value over 8 KiB', { 'X-A': 'v'.repeat(8_193) }, '/headers/X-A'],
    ['33 headers', Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`X-${i}`, 'v'])), '/headers'],
    ['a value that is not a string', { 'X-A': 1 }, '/headers/X-A'],
  ])('refuses %s with a 400 naming the header, and stores nothing', async (_what, headers, path) => {
    const res = await post({ headers });
    expect(res.statusCode).toBe(400);
    expect(paths(res)).toContain(path);
    expect(await count()).toBe(0);
  });

  it('accepts 32 headers, a value of exactly 8 KiB, and Content-Type and User-Agent', async () => {
    const headers = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`X-${i}`, 'v']));
    const res = await post({ headers: { ...headers, 'User-Agent': 'me/1', 'X-Big': 'v'.repeat(8_192) } });
    expect(res.statusCode).toBe(201);
  });

  it('refuses data with body, and data or body with GET and HEAD, naming the field', async () => {
    expect(paths(await post({ data: { a: 1 }, body: 'x' }))).toEqual(['/body']);
    expect(paths(await post({ method: 'GET', data: { a: 1 } }))).toEqual(['/data']);
    expect(paths(await post({ method: 'HEAD', body: '' }))).toEqual(['/body']);
    expect(paths(await post({ method: 'OPTIONS' }))).toEqual(['/method']);
    expect(await count()).toBe(0);
    expect((await post({ method: 'GET', data: {} })).statusCode).toBe(201);
    expect((await post({ data: {}, body: 'x' })).statusCode).toBe(201);
  });

  it('a PATCH is checked against the stored data and body, and changes nothing when refused', async () => {
    const job = (await post({ data: { a: 1 } })).json() as { id: string };
    const before = await get(job.id);
    expect(paths(await patch(job.id, { method: 'GET' }))).toEqual(['/method']);
    expect(paths(await patch(job.id, { body: 'text' }))).toEqual(['/body']);
    expect(paths(await patch(job.id, { headers: { Connection: 'close' } }))).toEqual(['/headers/Connection']);
    expect(await get(job.id)).toEqual(before);
    // Replacing data by a body, then going GET after clearing it.
    expect(await (await patch(job.id, { data: {}, body: 'text' })).json()).toMatchObject({ data: {}, body: 'text' });
    expect(paths(await patch(job.id, { method: 'HEAD' }))).toEqual(['/method']);
    expect(await (await patch(job.id, { method: 'GET', body: null, headers: { Accept: 'text/csv' } })).json()).toMatchObject({
      method: 'GET',
      body: null,
      headers: { Accept: 'text/csv' },
    });
  });
});
