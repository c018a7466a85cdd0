/**
 * The table "Every accepted form" of docs/cron.md matches what the service accepts: each example,
 * sent over HTTP to GET /cron/preview (UTC, from the table's instant, `startAt` the same for
 * `@every`), answers 200 with the two first occurrences the table gives.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHarness, T0, type Harness } from './harness.js';

const FROM = '2026-01-01T00:00:00Z';

interface Row {
  form: string;
  example: string;
  occurrences: string[];
}

/** The rows of the table under the heading "### Every accepted form". */
function tableRows(): Row[] {
  const doc = readFileSync(new URL('../../docs/cron.md', import.meta.url), 'utf8');
  const section = doc.split('### Every accepted form')[1]!.split(/\n#{2,3} /)[0]!;
  expect(section.replace(/\s+/g, ' ')).toContain(`from ${FROM}`);
  const rows = section.split('\n').filter((l) => /^\|/.test(l) && !/^\|\s*(Form|---)/.test(l));
  return rows.map((line) => {
    const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
    expect(cells, line).toHaveLength(4);
    const example = /^`([^`]+)`$/.exec(cells[1]!)?.[1];
    expect(example, line).toBeDefined();
    return { form: cells[0]!, example: example!, occurrences: [...cells[3]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!) };
  });
}

const rows = tableRows();

describe('docs/cron.md, every accepted form, through GET /cron/preview', () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await openHarness();
    base = await h.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => h?.close());

  it('the table lists the forms of the grammar', () => {
    expect(rows.length).toBeGreaterThanOrEqual(30);
    const examples = rows.map((r) => r.example).join('\n');
    for (const form of [/^@every /m, /\bL\b/, /LW/, /\d+W/, /[A-Z]{3}#L/, /#\d/, /\d#\d/, /\dL/, /^@yearly$/m, /\*\/100/, /^\S+ \S+ \S+ \S+ \S+ \S+$/m]) {
      expect(examples).toMatch(form);
    }
    for (const r of rows) expect(r.occurrences, r.example).toHaveLength(2);
  });

  it.each(rows.map((r) => [r.example, r] as const))('%s', async (_example, row) => {
    const query = new URLSearchParams({ expression: row.example, from: FROM, count: '2', startAt: FROM });
    const res = await fetch(`${base}/cron/preview?${query}`, { headers: h.headers });
    expect(res.status, row.form).toBe(200);
    const body = (await res.json()) as { occurrences: string[] };
    expect(body.occurrences.map((o) => o.replace('.000Z', 'Z')), row.form).toEqual(row.occurrences);
  });
});

describe('GET /cron/preview: @every and refusals of the new forms', () => {
  let h: Harness;
  let base: string;
  beforeAll(async () => {
    h = await openHarness();
    base = await h.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => h?.close());

  const preview = async (q: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> => {
    const res = await fetch(`${base}/cron/preview?${new URLSearchParams(q)}`, { headers: h.headers });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('@every counts from now without startAt, from startAt with it (k ≥ 0), in absolute time', async () => {
    const now = new Date(T0).toISOString();
    expect((await preview({ expression: '@every 1h30m', count: '2' })).body.occurrences).toEqual([
      new Date(T0 + 5_400_000).toISOString(),
      new Date(T0 + 10_800_000).toISOString(),
    ]);
    // startAt before from: the multiples after from; startAt after from: startAt itself first.
    expect((await preview({ expression: '@every 1h', startAt: '2026-11-21T08:20:00Z', count: '2' })).body.occurrences).toEqual([
      '2026-11-21T10:20:00.000Z',
      '2026-11-21T11:20:00.000Z',
    ]);
    expect((await preview({ expression: '@every 1d', startAt: '2026-12-01T09:00:00Z', from: now, count: '1' })).body.occurrences).toEqual([
      '2026-12-01T09:00:00.000Z',
    ]);
    // The zone changes nothing: an hour is an hour across New York's spring change.
    expect(
      (await preview({ expression: '@every 1h', timezone: 'America/New_York', startAt: '2026-03-08T05:30:00Z', from: '2026-03-08T05:30:00Z', count: '3' }))
        .body.occurrences,
    ).toEqual(['2026-03-08T06:30:00.000Z', '2026-03-08T07:30:00.000Z', '2026-03-08T08:30:00.000Z']);
  });

  it.each([
    ['@every 0s', '/query/expression', /from 1s to 366d/],
    ['@every 367d', '/query/expression', /from 1s to 366d/],
    ['@every 30m1h', '/query/expression', /in that order/],
    ['0 0 L-2 * *', '/query/expression', /cannot be part of a range/],
    ['0 0 * * MON#6', '/query/expression', /1 to 5/],
    ['0 0 30W 2 *', '/query/expression', /never fires/],
  ])('refuses %j: 400 naming %s', async (expression, path, message) => {
    const { status, body } = await preview({ expression });
    expect(status).toBe(400);
    expect(body.errors).toEqual([{ path, message: expect.stringMatching(message) }]);
  });

  it('refuses a startAt that is not an instant', async () => {
    const { status, body } = await preview({ expression: '@every 1h', startAt: 'tomorrow' });
    expect(status).toBe(400);
    expect((body.errors as { path: string }[]).map((e) => e.path)).toEqual(['/query/startAt']);
  });
});
