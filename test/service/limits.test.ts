/**
 * The limits and the endpoint policy in the service layer: the same rules the
 * HTTP layer applies, for callers other than HTTP, with the context's values; and the helpers
 * they rest on, checked against their definitions.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STRICT_POLICY } from '../../src/net/ssrf.js';
import { InvalidInputError } from '../../src/domain/errors.js';
import { createApiKey, updateApiKey } from '../../src/service/api-keys.js';
import type { JobServiceContext } from '../../src/service/context.js';
import { createCronJob, previewCron, updateCronJob } from '../../src/service/cron-jobs.js';
import { DEFAULT_LIMITS, exceedsLength, jsonByteLength } from '../../src/service/limits.js';
import { Checks, DEFAULT_RULE_CONTEXT, RULES, ruleContext, tagsProblems } from '../../src/service/rules.js';
import { createSchedule, updateSchedule } from '../../src/service/schedules.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { copyMigratedSqlite } from '../support/migrated.js';

async function problems(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(InvalidInputError);
  return (err as InvalidInputError).errors;
}

describe('exceedsLength', () => {
  it('agrees with counting code points, for any string and limit', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.nat(300), (text, max) => {
        expect(exceedsLength(text, max)).toBe([...text].length > max);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('jsonByteLength', () => {
  it('is the UTF-8 size of JSON.stringify, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonByteLength(value)).toBe(Buffer.byteLength(JSON.stringify(value), 'utf8'));
      }),
      { numRuns: 2_000 },
    );
  });

  it('also with unpaired surrogates and control characters, which JSON.stringify escapes', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' })), (value) => {
        expect(jsonByteLength(value)).toBe(Buffer.byteLength(JSON.stringify(value), 'utf8'));
      }),
      { numRuns: 1_000 },
    );
  });

  it('stops early past `stop`, and is safe at any depth', () => {
    expect(jsonByteLength({ x: 'a'.repeat(10_000_000) }, 100)).toBeGreaterThan(100);
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(jsonByteLength(deep)).toBe(400_002);
  });
});

describe('the rules take their limits and policy from the context', () => {
  const tight = ruleContext({ limits: { ...DEFAULT_LIMITS, nameLength: 2, endpointLength: 20, expressionLength: 9, tags: 1, tagLength: 1 } });

  it('name, endpoint, expression, tags', () => {
    expect(RULES.name('ab', tight)).toBeNull();
    expect(RULES.name('abc', tight)).toBe('must be at most 2 characters');
    expect(RULES.endpoint('https://example.com/', tight)).toBeNull();
    expect(RULES.endpoint('https://example.com/x', tight)).toBe('must be at most 20 characters');
    expect(RULES['cron-expression']('0 * * * *', tight)).toBeNull();
    expect(RULES['cron-expression']('0 0 * * * *', tight)).toBe('must be at most 9 characters');
    expect(tagsProblems('/tags', ['a'], tight)).toEqual([]);
    expect(tagsProblems('/tags', ['a', 'b'], tight)).toEqual([{ path: '/tags', message: 'must have at most 1 tags' }]);
    expect(tagsProblems('/tags', ['ab'], tight)).toEqual([{ path: '/tags/0', message: 'must be at most 1 characters' }]);
  });

  it('the length is checked before anything costly: a huge endpoint is refused for its length', () => {
    expect(RULES.endpoint('http://' + 'a'.repeat(5_000_000))).toBe('must be at most 2048 characters');
    expect(RULES['cron-expression']('* '.repeat(1_000_000))).toBe('must be at most 256 characters');
  });

  it('the endpoint rule applies the SSRF policy: strict by default, open when the context says so', () => {
    expect(RULES.endpoint('http://127.0.0.1/')).toMatch(/loopback address: calls to non-public addresses are refused/);
    expect(RULES.endpoint('http://127.0.0.1/', DEFAULT_RULE_CONTEXT)).not.toBeNull();
    expect(RULES.endpoint('http://127.0.0.1/', ruleContext({ endpointPolicy: { ...STRICT_POLICY, allowPrivate: true } }))).toBeNull();
    // The URL rule speaks first for what is not a URL at all.
    expect(RULES.endpoint('ftp://127.0.0.1/')).toBe('must be an absolute http or https URL');
  });

  it('Checks uses the context it is made with (default: DEFAULT_RULE_CONTEXT)', () => {
    expect(new Checks().rule('/name', 'name', 'n'.repeat(257)).problems).toEqual([{ path: '/name', message: 'must be at most 256 characters' }]);
    expect(new Checks(tight).rule('/name', 'name', 'abc').problems).toEqual([{ path: '/name', message: 'must be at most 2 characters' }]);
  });
});

describe('services with a real store, for callers other than HTTP', () => {
  let dir: string;
  let store: Store;
  let ctx: JobServiceContext;
  const clock = { now: () => Date.parse('2026-11-21T10:00:00.000Z') };

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'punctual-service-limits-'));
    await copyMigratedSqlite(join(dir, 'test.db'));
    store = await openStore('file:' + join(dir, 'test.db'));
    await store.migrate(); // nothing to do: the copy is migrated
    ctx = { store, clock, wake: () => undefined };
  });

  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  const schedule = { name: 's', scheduledAt: '2026-11-22T09:00:00Z', endpoint: 'https://example.com/' };
  const cron = { expression: '0 * * * *', endpoint: 'https://example.com/' };

  it('refuse private endpoints by default (no endpointPolicy in the context), before writing', async () => {
    expect(await problems(createSchedule(ctx, { ...schedule, endpoint: 'http://10.0.0.1/' }))).toEqual([
      { path: '/endpoint', message: expect.stringMatching(/private address/) },
    ]);
    expect(await problems(createCronJob(ctx, { ...cron, endpoint: 'http://[::1]/' }))).toEqual([
      { path: '/endpoint', message: expect.stringMatching(/loopback/) },
    ]);
    const s = await createSchedule(ctx, schedule);
    const c = await createCronJob(ctx, cron);
    expect((await problems(updateSchedule(ctx, s.id, { endpoint: 'http://localhost/' })))[0]!.path).toBe('/endpoint');
    expect((await problems(updateCronJob(ctx, c.id, { endpoint: 'http://169.254.169.254/' })))[0]!.path).toBe('/endpoint');
    expect((await store.scheduleList()).map((x) => x.endpoint)).toEqual(['https://example.com/']);
    expect((await store.cronList()).map((x) => x.endpoint)).toEqual(['https://example.com/']);
  });

  it('take private endpoints when the context allows them', async () => {
    const open = { ...ctx, endpointPolicy: { ...STRICT_POLICY, allowPrivate: true } };
    expect((await createSchedule(open, { ...schedule, endpoint: 'http://127.0.0.1:9000/' })).endpoint).toBe('http://127.0.0.1:9000/');
  });

  it('apply the context\'s limits: data size, tags, name, expression (also in the preview)', async () => {
    const small = { ...ctx, limits: { ...DEFAULT_LIMITS, dataBytes: 10, tags: 2, nameLength: 3, expressionLength: 9 } };
    expect(await problems(createSchedule(small, { ...schedule, name: 'abcd', data: { x: 'abc' }, tags: ['a', 'b', 'c'] }))).toEqual([
      { path: '/name', message: 'must be at most 3 characters' },
      { path: '/data', message: 'must be at most 10 bytes when serialised as JSON' },
      { path: '/tags', message: 'must have at most 2 tags' },
    ]);
    expect((await createSchedule(small, { ...schedule, name: 'abc', data: { x: 'ab' }, tags: ['a', 'b'] })).data).toEqual({ x: 'ab' });
    expect(await problems(createCronJob(small, { ...cron, expression: '0 0 * * * *' }))).toEqual([
      { path: '/expression', message: 'must be at most 9 characters' },
    ]);
    expect(() => previewCron(small, { expression: '0 0 * * * *' }, '/query')).toThrow(InvalidInputError);
    // Larger than the defaults: taken.
    const large = { ...ctx, limits: { ...DEFAULT_LIMITS, nameLength: 1_000 } };
    expect((await createCronJob(large, { ...cron, name: 'n'.repeat(1_000) })).name).toHaveLength(1_000);
  });

  it('API keys: the name limit comes from the rules passed (DEFAULT_RULE_CONTEXT when none)', async () => {
    expect(await problems(createApiKey(store, clock, { name: 'n'.repeat(257) }))).toEqual([
      { path: '/name', message: 'must be at most 256 characters' },
    ]);
    const rules = ruleContext({ limits: { ...DEFAULT_LIMITS, nameLength: 300 } });
    const { apiKey } = await createApiKey(store, clock, { name: 'n'.repeat(300) }, rules);
    expect(await problems(updateApiKey(store, apiKey.id, { name: 'n'.repeat(301) }, undefined, rules))).toEqual([
      { path: '/name', message: 'must be at most 300 characters' },
    ]);
    expect((await updateApiKey(store, apiKey.id, { name: 'm'.repeat(300) }, undefined, rules)).name).toHaveLength(300);
  });
});
