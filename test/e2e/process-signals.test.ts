/**
 * One server, stopped when told (docs/deployment.md, "Stopping"), with real processes: each way
 * of starting it (`npm start`, `npx punctual serve`, `node dist/cli.js serve`) × each way of
 * stopping it (SIGTERM to the first process alone, SIGINT to the process group as a terminal's
 * Ctrl-C, SIGKILL to the process group), on each store. After each, no process of the launch is
 * left and the port can be bound again. And a SIGTERM while calls are in flight: each call is
 * answered and recorded once, none is attempted again after a restart, and the schedules due
 * after the stop are called after the restart, once.
 *
 * Runs the build (dist/), as users do; builds it first only when a source is newer
 * (scripts/build-state.mjs), as `npm start` would.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staleReason } from '../../scripts/build-state.mjs';
import { call } from '../support/child.js';
import { launch, LAUNCHES, removeNpxFolder, survivors, type Launched } from '../support/launch.js';
import { freePort, portFreed } from '../support/ports.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { STORES, type TestDatabase } from '../support/stores.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TOKEN = 'signals-test-bootstrap-token-0123456789';
/** The grace period of these servers (ms): short, nothing here runs long. */
const GRACE_MS = 3_000;

const STOPS = ['SIGTERM to the parent alone', 'SIGINT to the process group', 'SIGKILL to the process group'] as const;

beforeAll(() => {
  const reason = staleReason();
  if (reason === null) return;
  const build = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  expect(build.status, `npm run build (${reason})`).toBe(0);
}, 300_000);
afterAll(removeNpxFolder);

/** The log lines of `server` with message `msg`. */
function logged(server: Launched, msg: string): string[] {
  return server.lines.filter((l) => l.includes(`"msg":"${msg}"`));
}

describe.each(STORES)('stopping punctual serve ($name)', (store) => {
  const databases: TestDatabase[] = [];
  afterAll(async () => {
    await Promise.all(databases.map((d) => d.drop()));
  });

  describe.each(LAUNCHES)('%s', (how) => {
    // The three stops of one way of starting run side by side (each on its own port and database).
    it.concurrent.for(STOPS)('%s: nothing of it is left, the port is free', async (stop, { expect }) => {
      const db = await store.create();
      databases.push(db);
      const port = await freePort();
      const server = await launch(how, {
        DATABASE_URL: db.url,
        PORT: String(port),
        HOST: '127.0.0.1',
        PUNCTUAL_SHUTDOWN_GRACE_MS: String(GRACE_MS),
      });
      if (stop === 'SIGTERM to the parent alone') server.proc.kill('SIGTERM');
      else process.kill(-server.pid, stop === 'SIGINT to the process group' ? 'SIGINT' : 'SIGKILL');
      await server.exited;
      // The server may outlive npm by its stop: under npm, up to a second to notice npm's end, then
      // the stop, bounded by the grace period + 5 s. SIGKILL leaves nothing at once.
      const left = await survivors(server.mark, stop.startsWith('SIGKILL') ? 2_000 : GRACE_MS + 8_000);
      expect(left, `left running; last lines:\n${server.lines.slice(-4).join('\n')}`).toEqual([]);
      expect(await portFreed(port)).toBe(true);
      await server.outputEnded;
      if (!stop.startsWith('SIGKILL')) {
        // One stop, whole: a second signal (npm forwards Ctrl-C, which also reached the server) is ignored.
        expect(logged(server, 'stopping: draining requests and calls in flight')).toHaveLength(1);
        expect(logged(server, 'punctual stopped')).toHaveLength(1);
        expect(server.lines.filter((l) => /"level":(50|60)/.test(l))).toEqual([]);
      }
      if (how === 'node dist/cli.js serve' && stop !== 'SIGKILL to the process group') {
        expect((await server.exited).code).toBe(0);
      }
    });
  });

  it('a SIGTERM while it starts (before it serves) stops it in order once started: exit 0, one stop', async () => {
    const db = await store.create();
    databases.push(db);
    const port = await freePort();
    // "store: …" is logged just before the store is opened and the server built: the signal comes
    // while they are under way.
    const server = await launch(
      'node dist/cli.js serve',
      { DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1', PUNCTUAL_SHUTDOWN_GRACE_MS: String(GRACE_MS) },
      '"msg":"store: ',
    );
    server.proc.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    await server.outputEnded;
    const stops = logged(server, 'stopping: draining requests and calls in flight');
    expect(stops).toHaveLength(1);
    expect(logged(server, 'punctual stopped')).toHaveLength(1);
    expect(await survivors(server.mark, 2_000)).toEqual([]);
    expect(await portFreed(port)).toBe(true);
  });

  describe('SIGTERM while calls are in flight', () => {
    let receiver: Receiver;
    beforeAll(async () => {
      receiver = await startReceiver();
    });
    afterAll(async () => {
      await receiver.close();
    });

    it('answers and records each call once; the ones due after the stop are called after the restart, once', async () => {
      const db = await store.create();
      databases.push(db);
      const env = {
        DATABASE_URL: db.url,
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN,
        PUNCTUAL_SHUTDOWN_GRACE_MS: String(GRACE_MS),
      };
      // Held 1 s by the receiver: in flight when the SIGTERM comes, answered within the grace period.
      receiver.respond('/held', { delayMs: 1_000 });
      const first = await launch('node dist/cli.js serve', env);
      const at = Date.now() + 1_000;
      const create = (name: string, path: string, when: number) =>
        call(first.url, TOKEN, 'POST', '/schedules', { name, scheduledAt: new Date(when).toISOString(), endpoint: `${receiver.url}${path}` });
      const held = await Promise.all(Array.from({ length: 8 }, (_, i) => create(`held-${i}`, '/held', at)));
      // Due during or after the stop: a stopping node claims nothing more, the restarted one calls them.
      const later = await Promise.all(Array.from({ length: 4 }, (_, i) => create(`later-${i}`, '/later', at + 1_500)));
      for (const r of [...held, ...later]) expect(r.status).toBe(201);
      await receiver.waitFor((a) => a.filter((x) => x.path === '/held').length === 8);
      first.proc.kill('SIGTERM');
      expect((await first.exited).code).toBe(0);
      expect(await survivors(first.mark, 5_000)).toEqual([]);
      await first.outputEnded;
      expect(first.lines.filter((l) => l.includes('calls still in flight at shutdown'))).toEqual([]);

      const second = await launch('node dist/cli.js serve', env);
      try {
        for (const r of held) {
          const id = (r.body as { id: string }).id;
          const schedule = (await call(second.url, TOKEN, 'GET', `/schedules/${id}`)).body as { status: string };
          expect(schedule.status).toBe('Succeeded');
          const page = (await call(second.url, TOKEN, 'GET', `/schedules/${id}/executions`)).body as {
            executions: { status: string; attempts?: unknown[] }[];
          };
          expect(page.executions).toHaveLength(1);
          expect(page.executions[0]!.status).toBe('Succeeded');
        }
        const arrivals = await receiver.waitFor((a) => a.filter((x) => x.path === '/later').length >= 4);
        const ids = arrivals.map((a) => a.headers['webhook-id']);
        expect(new Set(ids).size).toBe(ids.length);
        expect(arrivals.filter((a) => a.path === '/held')).toHaveLength(8);
        expect(arrivals.filter((a) => a.path === '/later')).toHaveLength(4);
      } finally {
        second.proc.kill('SIGTERM');
        await second.exited;
      }
    });
  });
});
