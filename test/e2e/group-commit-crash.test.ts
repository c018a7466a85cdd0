/**
 * Durability of grouped creates (src/store/group-commit.ts): 64 clients create schedules in a loop
 * against `punctual serve` in a child process, the child is killed with SIGKILL in the middle of
 * the stream, then started again on the same database; every schedule whose 201 a client received
 * must be there. On every store: a SQLite file in a temp dir, and PostgreSQL in a fresh schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, type ChildServer } from '../support/child.js';
import { STORES, type TestDatabase } from '../support/stores.js';

const TOKEN = 'group-commit-crash-token-0123456789';
const CLIENTS = 64;
/** 201s received before the kill is sent. */
const KILL_AFTER = 2_000;

describe.each(STORES)('SIGKILL during 64 concurrent creates ($name)', (storeUnderTest) => {
  let db: TestDatabase;
  const children: ChildServer[] = [];

  beforeAll(async () => {
    db = await storeUnderTest.create();
  });
  afterAll(async () => {
    for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
    await db?.drop();
  });

  it('keeps every schedule whose 201 was received', async () => {
    const env = { DATABASE_URL: db.url, PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN };
    const first = await spawnServer(env);
    children.push(first);

    const acked = new Map<string, string>(); // id → name
    const unexpected: string[] = [];
    let killNow!: () => void;
    const killRequested = new Promise<void>((resolve) => (killNow = resolve));
    let killSent = false;
    let lostAtKill = 0;

    /** Creates schedules one after the other until a request fails (the child died). */
    const client = async (c: number): Promise<void> => {
      for (let i = 0; ; i++) {
        const name = `c${c}-${i}`;
        let status: number;
        let body: { id?: string; name?: string };
        try {
          const res = await fetch(`${first.url}/schedules`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify({ name, scheduledAt: '2099-01-01T00:00:00Z', endpoint: 'https://example.com/hook' }),
          });
          status = res.status;
          body = (await res.json()) as typeof body;
        } catch (err) {
          if (killSent) lostAtKill++;
          else unexpected.push(`${name}: ${(err as Error).message}`);
          killNow();
          return;
        }
        if (status !== 201 || body.name !== name || typeof body.id !== 'string') {
          unexpected.push(`${name}: ${status} ${JSON.stringify(body)}`);
          killNow();
          return;
        }
        acked.set(body.id, name);
        if (acked.size >= KILL_AFTER) killNow();
      }
    };
    const running = Array.from({ length: CLIENTS }, (_, c) => client(c));

    await killRequested;
    killSent = true;
    first.proc.kill('SIGKILL');
    expect((await first.exited).signal).toBe('SIGKILL');
    await Promise.all(running);
    expect(unexpected).toEqual([]);
    // Each client's last request was cut by the kill: the kill came mid-stream.
    expect(lostAtKill).toBe(CLIENTS);
    expect(acked.size).toBeGreaterThanOrEqual(KILL_AFTER);

    const second = await spawnServer(env);
    children.push(second);
    const stored = new Map<string, string>();
    let cursor: string | null = null;
    do {
      const query: string = `limit=1000${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
      const res = await fetch(`${second.url}/schedules?${query}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(200);
      const page = (await res.json()) as { schedules: { id: string; name: string }[]; nextCursor: string | null };
      for (const s of page.schedules) stored.set(s.id, s.name);
      cursor = page.nextCursor;
    } while (cursor !== null);

    const missing = [...acked].filter(([id, name]) => stored.get(id) !== name);
    expect(missing).toEqual([]);
    // Requests cut by the kill may or may not have committed; nothing else was stored.
    expect(stored.size).toBeGreaterThanOrEqual(acked.size);
    expect(stored.size).toBeLessThanOrEqual(acked.size + CLIENTS);

    second.proc.kill('SIGTERM');
    expect(await second.exited).toEqual({ code: 0, signal: null });
  }, 120_000);
});
