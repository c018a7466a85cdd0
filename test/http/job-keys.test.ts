/**
 * Job keys over HTTP (docs/apply.md): `key` and `managedBy` on `POST`/`PATCH /schedules` and
 * `/cron`, a 409 problem naming `key` for a taken one (create, patch, batch), a 400 naming `key`
 * for one that breaks the pattern, the `key` filter of both lists; and the JSON Schema of
 * `punctual apply`'s file at `GET /schemas/punctual-file.json`, open, which validates the
 * example file of the repository (Ajv, draft 2020-12).
 */
import { readFile } from 'node:fs/promises';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, openHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await openHarness();
});
afterAll(async () => {
  await h?.close();
});

const send = (method: 'POST' | 'PATCH' | 'GET', url: string, payload?: unknown) =>
  h.app.inject({ method, url, headers: h.headers, ...(payload !== undefined && { payload: payload as object }) });
const schedule = (o: Record<string, unknown> = {}) => ({ name: 's', scheduledAt: '2030-01-01T00:00:00Z', endpoint: 'https://example.com/s', ...o });
const cron = (o: Record<string, unknown> = {}) => ({ expression: '0 * * * *', endpoint: 'https://example.com/c', ...o });

describe('job keys over HTTP', () => {
  it('creates with a key and managedBy, shows them, filters the lists by key', async () => {
    const s = await send('POST', '/schedules', schedule({ key: 'invoice:42', managedBy: 'apply' }));
    expect(s.statusCode).toBe(201);
    expect(s.json()).toMatchObject({ key: 'invoice:42', managedBy: 'apply' });
    const plain = await send('POST', '/schedules', schedule());
    expect(plain.json()).toMatchObject({ key: null, managedBy: null });
    const c = await send('POST', '/cron', cron({ key: 'invoice:42' }));
    expect([c.statusCode, c.json().key, c.json().managedBy]).toEqual([201, 'invoice:42', null]);

    const list = await send('GET', '/schedules?key=invoice%3A42');
    expect(list.json()).toMatchObject({ size: 1, schedules: [{ id: s.json().id }], nextCursor: null });
    expect((await send('GET', '/cron?key=invoice:42')).json()).toMatchObject({ size: 1, cronJobs: [{ id: c.json().id }] });
    expect((await send('GET', '/cron?key=other')).json()).toMatchObject({ size: 0, cronJobs: [] });
    const bad = expectProblem(await send('GET', '/schedules?key=a%20b'), 400);
    expect(bad.errors?.map((e) => e.path)).toEqual(['/query/key']);
  });

  it('answers 409 naming key for a taken key, on create, patch and batch; nothing changes', async () => {
    await send('POST', '/cron', cron({ key: 'taken' }));
    const other = (await send('POST', '/cron', cron({ key: 'free' }))).json();
    for (const res of [await send('POST', '/cron', cron({ key: 'taken' })), await send('PATCH', `/cron/${other.id}`, { key: 'taken', name: 'x' })]) {
      const p = expectProblem(res, 409);
      expect(p.errors).toEqual([{ path: '/key', message: 'is already the key of another cron job' }]);
    }
    expect((await send('GET', `/cron/${other.id}`)).json()).toMatchObject({ key: 'free', name: null });

    await send('POST', '/schedules', schedule({ key: 'taken' }));
    const s = (await send('POST', '/schedules', schedule({ key: 'mine' }))).json();
    expect(expectProblem(await send('PATCH', `/schedules/${s.id}`, { key: 'taken' }), 409).errors?.[0]?.path).toBe('/key');
    const batch = expectProblem(await send('POST', '/schedules/batch', { schedules: [schedule({ key: 'b1' }), schedule({ key: 'b1' })] }), 409);
    expect(batch.errors).toEqual([{ path: '/schedules/1/key', message: 'is the key of an earlier schedule of the batch' }]);
    expect(expectProblem(await send('POST', '/schedules/batch', { schedules: [schedule({ key: 'b2' }), schedule({ key: 'taken' })] }), 409).errors?.[0]?.path).toBe('/key');
    expect((await send('GET', '/schedules?key=b2')).json().size).toBe(0);
    // A batch takes keys too.
    const ok = await send('POST', '/schedules/batch', { schedules: [schedule({ key: 'b3' }), schedule()] });
    expect(ok.json().schedules.map((x: { key: string | null }) => x.key)).toEqual(['b3', null]);
  });

  it('answers 400 naming key for a bad key; a patch with null removes it; managedBy cannot be patched', async () => {
    for (const key of ['', 'a b', 'é', 'x'.repeat(129), 5]) {
      const p = expectProblem(await send('POST', '/cron', cron({ key })), 400);
      expect(p.errors?.map((e) => e.path)).toEqual(['/key']);
    }
    expect(expectProblem(await send('POST', '/schedules', schedule({ managedBy: 'terraform' })), 400).errors?.map((e) => e.path)).toEqual(['/managedBy']);
    const c = (await send('POST', '/cron', cron({ key: 'k'.repeat(128), managedBy: 'apply' }))).json();
    expect(expectProblem(await send('PATCH', `/cron/${c.id}`, { managedBy: null }), 400).errors?.map((e) => e.path)).toEqual(['/managedBy']);
    expect((await send('PATCH', `/cron/${c.id}`, { key: null })).json()).toMatchObject({ key: null, managedBy: 'apply' });
  });
});

describe('GET /schemas/punctual-file.json', () => {
  it('is open, a JSON Schema that validates the example file and refuses a faulty one', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/schemas/punctual-file.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/schema\+json/);
    const schema = res.json() as Record<string, unknown>;
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(JSON.stringify(schema)).not.toContain('"x-');
    const validate = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true }).compile(schema);

    const example = parseYaml(await readFile(new URL('../../examples/punctual.yaml', import.meta.url), 'utf8')) as Record<string, unknown>;
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
    const cronJobs = example.cron as Record<string, unknown>[];
    expect(validate({ ...example, cron: [{ ...cronJobs[0], key: 'a b', colour: 'red' }] })).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath).sort()).toEqual(['/cron/0', '/cron/0/key']);
    expect((example.flowControlKeys as unknown[]).length).toBeGreaterThan(0);
    const keys = example.flowControlKeys as Record<string, unknown>[];
    expect(validate({ ...example, flowControlKeys: [{ ...keys[0], period: 999, paused: 'yes', burst: 3 }] })).toBe(false);
    expect(validate.errors?.map((e) => e.instancePath).sort()).toEqual(['/flowControlKeys/0', '/flowControlKeys/0/paused', '/flowControlKeys/0/period']);
    expect(validate({ ...example, cron: [{ ...cronJobs[0], flowControlKey: 'a b' }] })).toBe(false);
    expect(validate({ version: 2 })).toBe(false);
    expect(validate({ version: 1, schedules: [{ key: 'x', name: 'n', endpoint: 'https://e' }] })).toBe(false);
  });
});
