/**
 * The store becoming unavailable: a real fault, not a closed store object — the
 * SQLite file runs out of room ("disk full"), PostgreSQL drops every connection of the service
 * (what a restart or failover does to it; only the connections of this file's server, named for it). During the fault the API answers 503 problem+json
 * (never a stack, never SQL, never 500) and the process stays up; once the store is back the
 * service recovers by itself, and nothing answered 2xx is lost.
 *
 * How "disk full" is made on SQLite: `PRAGMA max_page_count` caps the database file, and SQLite
 * answers SQLITE_FULL exactly as it does when the file system is full. The cap is a setting of
 * one connection (not stored in the file), so it is set on the server's own connection, reached
 * through the store's private field `db` (TypeScript `private` is not enforced at run time). That
 * needs no hook in the sources and leaves every code path of the service as in production; a
 * tmpfs filled to the brim would need root, and a second connection's cap would not apply to the
 * server's writes.
 */
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { adminQuery, pgTestUrl } from '../support/pg.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { POSTGRES, SQLITE, type StoreKind } from '../support/stores.js';

let server: TestServer | null = null;
let receiver: Receiver | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
  await receiver?.close();
  receiver = null;
});

/** What an error body may not show: stacks, files, SQL, driver messages. */
const INTERNALS = /\n\s+at |\bat .+:\d+:\d+|\.(ts|js|mjs|cjs)\b|node_modules|\/tmp\/|\.db\b|\bSQL\b|SELECT|INSERT|UPDATE |DELETE FROM|constraint|Error:|ECONNRESET|terminat/i;

/** A raw request, to see the content type and the body as text. */
async function raw(s: TestServer, method: string, path: string, body?: unknown) {
  const res = await fetch(s.url + path, {
    method,
    headers: {
      authorization: 'Bearer test-bootstrap-token-0123456789abcdef',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

function expect503(res: { status: number; type: string; text: string }) {
  expect(res.status).toBe(503);
  expect(res.type).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(res.text) as Record<string, unknown>;
  expect(body.status).toBe(503);
  expect(Object.keys(body).sort()).toEqual(['detail', 'status', 'title', 'type']);
  expect(res.text).not.toMatch(INTERNALS);
}

const FAR = '2099-01-01T00:00:00Z';

describe(`store unavailable [${SQLITE.name}]: disk full (max_page_count on the server's connection)`, () => {
  it('writes answer 503 problem+json, reads still answer, the process stays up; raising the limit recovers with nothing lost', async () => {
    server = await startTestServer({}, { store: SQLITE });
    const db = (server.store as unknown as { db: Database.Database }).db;
    expect(db.open).toBe(true);

    const ok: string[] = [];
    const create = (i: number) =>
      raw(server!, 'POST', '/schedules', { name: `s${i}`, scheduledAt: FAR, endpoint: 'https://example.com/', data: { pad: 'x'.repeat(20_000) } });
    for (let i = 0; i < 3; i++) {
      const res = await create(i);
      expect(res.status).toBe(201);
      ok.push((JSON.parse(res.text) as { id: string }).id);
    }

    // Cap the file at its current size: the next writes that need a new page fail with SQLITE_FULL.
    const pages = Number(db.pragma('page_count', { simple: true }));
    const before = Number(db.pragma('max_page_count', { simple: true }));
    expect(Number(db.pragma(`max_page_count = ${pages}`, { simple: true }))).toBe(pages);

    let refused = 0;
    for (let i = 3; i < 40 && refused < 3; i++) {
      const res = await create(i);
      if (res.status === 201) ok.push((JSON.parse(res.text) as { id: string }).id);
      else {
        expect503(res);
        refused++;
      }
    }
    expect(refused).toBe(3); // the disk is full: writes are refused, not crashed on
    // Reads still answer, with everything answered 201 so far; the process is up.
    for (const id of ok) expect((await server.api('GET', `/schedules/${id}`)).status).toBe(200);
    expect((await server.api('GET', '/schedules')).status).toBe(200);
    expect((await fetch(server.url + '/healthz')).status).toBe(200);

    // The disk has room again: the very next write succeeds, and nothing answered 2xx is lost.
    db.pragma(`max_page_count = ${before}`);
    const after = await create(99);
    expect(after.status).toBe(201);
    ok.push((JSON.parse(after.text) as { id: string }).id);
    for (const id of ok) {
      const got = await server.api('GET', `/schedules/${id}`);
      expect(got.status).toBe(200);
      expect((got.body as { id: string }).id).toBe(id);
    }
    expect((await fetch(server.url + '/readyz')).status).toBe(200);
  });
});

describe.skipIf(!POSTGRES)(`store unavailable [postgres]: the server drops every connection (restart, failover)`, () => {
  it('requests during the outage answer 503 or succeed, never 500; the pool reconnects by itself and every 201 fires', async () => {
    receiver = await startReceiver();
    // A name of this server's own (the URL's application_name wins over the default `punctual`):
    // only its connections are ended, not those of other test files on the same PostgreSQL.
    const name = `punctual_outage_${process.pid}_${Date.now()}`;
    const named: StoreKind = {
      name: 'postgres',
      async create() {
        const db = await POSTGRES!.create();
        const u = new URL(db.url);
        u.searchParams.set('application_name', name);
        return { ...db, url: u.toString() };
      },
    };
    server = await startTestServer({}, { store: named });
    const base = pgTestUrl()!;
    const terminate = () =>
      adminQuery(base, 'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()', [name]);

    const accepted: { id: string; path: string }[] = [];
    const statuses: number[] = [];
    let n = 0;
    const create = async () => {
      const path = `/fire-${n++}`;
      const res = await raw(server!, 'POST', '/schedules', {
        name: path,
        scheduledAt: new Date(Date.now() + 1_500).toISOString(),
        endpoint: receiver!.url + path,
      });
      statuses.push(res.status);
      if (res.status === 201) accepted.push({ id: (JSON.parse(res.text) as { id: string }).id, path });
      else expect503(res);
      return res.status;
    };
    const read = async () => {
      const res = await raw(server!, 'GET', '/schedules');
      statuses.push(res.status);
      if (res.status !== 200) expect503(res);
    };

    for (let i = 0; i < 3; i++) expect(await create()).toBe(201);
    const killed = await terminate();
    expect(killed.length).toBeGreaterThan(0); // the pool, and the LISTEN connection

    // During the outage (and while connections are being re-made): 503 or success, nothing else.
    // Connections are dropped again and again while requests run, so some die mid-statement.
    let outage = true;
    const killer = (async () => {
      while (outage) {
        await terminate().catch(() => undefined);
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    try {
      for (let round = 0; round < 15; round++) await Promise.all([create(), read(), create(), read(), read()]);
    } finally {
      outage = false;
      await killer;
    }
    expect(statuses.filter((s) => s === 503).length).toBeGreaterThan(0); // the outage was felt
    expect(statuses.every((s) => s === 200 || s === 201 || s === 503)).toBe(true);

    // Afterwards it works by itself: no restart, no intervention.
    const deadline = Date.now() + 10_000;
    let ready = 0;
    while (Date.now() < deadline) {
      ready = (await fetch(server.url + '/readyz')).status;
      if (ready === 200) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(ready).toBe(200);
    for (let i = 0; i < 3; i++) expect(await create()).toBe(201);
    expect((await fetch(server.url + '/healthz')).status).toBe(200);

    // Every schedule answered 201 is there, and fires.
    for (const { id } of accepted) expect((await server.api('GET', `/schedules/${id}`)).status).toBe(200);
    const paths = accepted.map((a) => a.path);
    await receiver.waitFor((a) => paths.every((p) => a.some((x) => x.path === p)), 20_000);
    expect(paths.length).toBeGreaterThanOrEqual(6);
  }, 60_000);
});
