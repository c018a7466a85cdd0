/**
 * `/`, the address `punctual serve` logs at start: `GET` and `HEAD` redirect (302) to the
 * console at `/console/`, without authentication, over a real socket; other methods on `/` are
 * the usual 404 problem.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHarness, type Harness } from './harness.js';

let h: Harness;
let base: string;
beforeAll(async () => {
  h = await openHarness();
  base = await h.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await h?.close();
});

describe('the root of the server', () => {
  it.each(['GET', 'HEAD'])('%s / redirects to /console/ (302), with no API key', async (method) => {
    const res = await fetch(`${base}/`, { method, redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/console/');
    await res.arrayBuffer();
  });

  it('a browser following it lands on the console', async () => {
    const res = await fetch(`${base}/?from=log`);
    expect(new URL(res.url).pathname).toBe('/console/');
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    await res.arrayBuffer();
  });

  it('POST / is still the 404 problem', async () => {
    const res = await fetch(`${base}/`, { method: 'POST', headers: h.headers });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    await res.arrayBuffer();
  });
});
