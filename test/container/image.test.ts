/**
 * The container image (Dockerfile) and compose.yaml, built and run for real with podman.
 *
 * Skipped when podman is missing; with PUNCTUAL_TEST_REQUIRE_CONTAINER=1 (set by .ci/run) a
 * missing podman fails the run instead. No container registry is needed: the bases come from
 * Debian packages (scripts/container-base.sh, cached outside the repository). Everything a test
 * makes (containers, volumes, networks, the test image) is removed at the end; the cached bases
 * are kept.
 *
 * The receiver of the calls listens on the host, on the gateway address of the podman bridge the
 * containers are on (an address of this machine that only its containers reach); the endpoints
 * are private addresses, so the SSRF guard is told to let exactly that address through
 * (PUNCTUAL_ALLOWED_NETWORKS).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../support/child.js';
import { freePort } from '../support/ports.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import {
  buildImage,
  ensureBases,
  gatewayOf,
  podman,
  podmanPresent,
  poll,
  run,
  waitHealthy,
  type Bases,
} from './podman.js';

const present = podmanPresent();
if (!present && process.env.PUNCTUAL_TEST_REQUIRE_CONTAINER === '1') {
  throw new Error('PUNCTUAL_TEST_REQUIRE_CONTAINER=1 but podman is not installed: the container tests would be skipped.');
}

const RUN_ID = `${process.pid}-${randomBytes(3).toString('hex')}`;
const IMAGE = `localhost/punctual-test:${RUN_ID}`;
const TOKEN = `container-test-token-${randomBytes(16).toString('hex')}`;
/** Grace period of calls in flight at SIGTERM (PUNCTUAL_SHUTDOWN_GRACE_MS) in these tests. */
const GRACE_MS = 10_000;

describe.skipIf(!present)('container image', () => {
  let bases: Bases;
  const made = { containers: new Set<string>(), volumes: new Set<string>() };

  beforeAll(async () => {
    bases = await ensureBases();
    const ms = await buildImage(IMAGE, bases);
    const size = await podman('image', 'ls', IMAGE, '--format', '{{.Size}}');
    console.log(`container: image built in ${(ms / 1000).toFixed(1)} s, size ${size}`);
  }, 15 * 60_000);

  afterAll(async () => {
    for (const c of made.containers) await run('podman', ['rm', '-f', '-t', '0', c]);
    for (const v of made.volumes) await run('podman', ['volume', 'rm', '-f', v]);
    await run('podman', ['rmi', '-f', IMAGE]);
  }, 120_000);

  /** `podman run -d` of the image on `volume`, API published on a free port of 127.0.0.1. */
  async function start(name: string, volume: string, env: Record<string, string>): Promise<{ url: string; startedAt: number }> {
    made.containers.add(name);
    made.volumes.add(volume);
    const port = await freePort();
    const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const startedAt = Date.now();
    await podman('run', '-d', '--name', name, '-p', `127.0.0.1:${port}:8080`, '-v', `${volume}:/data`, ...envArgs, IMAGE);
    return { url: `http://127.0.0.1:${port}`, startedAt };
  }

  it('serves, calls the host, stops on SIGTERM with calls in flight finished, and keeps its jobs on the volume', async () => {
    const volume = `punctual-test-${RUN_ID}-data`;
    const gateway = await gatewayOf('podman');
    const env = { PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN, PUNCTUAL_ALLOWED_NETWORKS: gateway, PUNCTUAL_SHUTDOWN_GRACE_MS: String(GRACE_MS) };
    const first = await start(`punctual-test-${RUN_ID}-1`, volume, env);
    await waitHealthy(`punctual-test-${RUN_ID}-1`);
    const healthyMs = Date.now() - first.startedAt;
    console.log(`container: podman run → healthy in ${healthyMs} ms`);
    expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    // The image runs as the user node and keeps its database and key file in /data.
    expect(await podman('exec', `punctual-test-${RUN_ID}-1`, 'id', '-u')).toBe('1000');

    const receiver: Receiver = await startReceiver({ host: gateway });
    try {
      // A schedule due in a second arrives at the host, with its secret header (sealed with the key file in /data).
      const due = await call(first.url, TOKEN, 'POST', '/schedules', {
        name: 'now',
        endpoint: `${receiver.url}/now`,
        scheduledAt: new Date(Date.now() + 1_000).toISOString(),
        secretHeaders: { 'x-secret': 'sealed-in-the-volume' },
      });
      expect(due).toMatchObject({ status: 201 });
      await receiver.waitFor((a) => a.some((x) => x.path === '/now'), 20_000);
      expect(receiver.arrivals.find((x) => x.path === '/now')!.headers['x-secret']).toBe('sealed-in-the-volume');

      // A job for later, to be found by the next container.
      const later = await call(first.url, TOKEN, 'POST', '/schedules', {
        name: 'later',
        endpoint: `${receiver.url}/later`,
        scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
        secretHeaders: { 'x-secret': 'still-readable' },
      });
      expect(later).toMatchObject({ status: 201 });
      const laterId = (later.body as { id: string }).id;

      // SIGTERM while a call is in flight: the call finishes, then the process exits 0 within the grace period.
      receiver.respond('/slow', { delayMs: 2_000 });
      const slow = await call(first.url, TOKEN, 'POST', '/schedules', {
        name: 'slow',
        endpoint: `${receiver.url}/slow`,
        scheduledAt: new Date(Date.now() + 500).toISOString(),
      });
      const slowId = (slow.body as { id: string }).id;
      await receiver.waitFor((a) => a.some((x) => x.path === '/slow'), 20_000);
      const stopAt = Date.now();
      await podman('stop', '-t', String(GRACE_MS / 1000 + 5), `punctual-test-${RUN_ID}-1`);
      const stopMs = Date.now() - stopAt;
      console.log(`container: podman stop (SIGTERM, a 2 s call in flight) took ${stopMs} ms`);
      const state = await podman('inspect', `punctual-test-${RUN_ID}-1`, '--format', '{{.State.ExitCode}} {{.State.OOMKilled}}');
      expect(state).toBe('0 false');
      expect(stopMs).toBeLessThan(GRACE_MS);
      const logs = await run('podman', ['logs', `punctual-test-${RUN_ID}-1`]);
      expect(logs.stdout + logs.stderr).toContain('"signal":"SIGTERM"');
      expect(logs.stdout + logs.stderr).not.toContain(TOKEN);

      // A second container on the same volume has the jobs, the finished call, and the key of their secrets.
      const second = await start(`punctual-test-${RUN_ID}-2`, volume, env);
      await waitHealthy(`punctual-test-${RUN_ID}-2`);
      const kept = await call(second.url, TOKEN, 'GET', `/schedules/${laterId}`);
      expect(kept.status).toBe(200);
      expect((kept.body as { id: string; status: string }).status).toBe('Pending');
      const slowRuns = await call(second.url, TOKEN, 'GET', `/schedules/${slowId}/executions`);
      expect((slowRuns.body as { executions: { status: string }[] }).executions.map((e) => e.status)).toEqual(['Succeeded']);
      expect((await call(second.url, TOKEN, 'POST', `/schedules/${laterId}/trigger`)).status).toBe(202);
      await receiver.waitFor((a) => a.some((x) => x.path === '/later'), 20_000);
      expect(receiver.arrivals.find((x) => x.path === '/later')!.headers['x-secret']).toBe('still-readable');
      expect(receiver.arrivals.filter((x) => x.path === '/slow')).toHaveLength(1);
      await podman('stop', '-t', '15', `punctual-test-${RUN_ID}-2`);
    } finally {
      await receiver.close();
    }
  }, 180_000);

  it('compose.yaml: two nodes on PostgreSQL share the work, every call made once', async () => {
    const project = `punctual-test-${RUN_ID.replace(/[^a-z0-9]/g, '')}`;
    const secrets = mkdtempSync(join(tmpdir(), 'punctual-compose-'));
    const password = randomBytes(18).toString('hex');
    const files: Record<string, string> = {
      'postgres-password': password,
      'database-url': `postgres://punctual:${password}@postgres:5432/punctual`,
      'bootstrap-token': TOKEN,
      'encryption-keys': randomBytes(32).toString('base64'),
    };
    // Bind-mounted secrets keep the host file's mode: readable by the containers' users (uid 1000, postgres).
    for (const [name, value] of Object.entries(files)) writeFileSync(join(secrets, name), `${value}\n`, { mode: 0o644 });
    const [portA, portB] = [await freePort(), await freePort()];
    const env = {
      PUNCTUAL_IMAGE: IMAGE,
      PUNCTUAL_POSTGRES_IMAGE: bases.POSTGRES_IMAGE,
      PUNCTUAL_SECRETS_DIR: secrets,
      PUNCTUAL_PORT_A: String(portA),
      PUNCTUAL_PORT_B: String(portB),
      PUNCTUAL_ALLOWED_NETWORKS: 'host.containers.internal',
    };
    const compose = (...args: string[]) => run('podman-compose', ['-p', project, '-f', 'compose.yaml', ...args], { env });
    let receiver: Receiver | null = null;
    try {
      const up = await compose('up', '-d', '--no-build');
      if (up.code !== 0) throw new Error(`podman-compose up failed: ${up.stdout}\n${up.stderr}`);
      const nodes = [`http://127.0.0.1:${portA}`, `http://127.0.0.1:${portB}`];
      try {
        for (const url of nodes) await poll(`${url}/readyz`, async () => (await fetch(`${url}/readyz`)).status === 200, 120_000, 250);
      } catch (err) {
        const logs = await compose('logs');
        throw new Error(`${(err as Error).message}\n${logs.stdout.slice(-3000)}\n${logs.stderr.slice(-3000)}`);
      }

      // The host, as the containers see it: the gateway of the project's network.
      const network = (await podman('network', 'ls', '--format', '{{.Name}}')).split('\n').find((n) => n.startsWith(project));
      const gateway = await gatewayOf(network!);
      receiver = await startReceiver({ host: gateway });
      const port = new URL(receiver.url).port;

      const count = 200;
      const at = Date.now() + 3_000;
      const batch = Array.from({ length: count }, (_, i) => ({
        name: `c${i}`,
        endpoint: `http://host.containers.internal:${port}/c/${i}`,
        scheduledAt: new Date(at + (i % 20) * 100).toISOString(),
      }));
      const created = await call(nodes[0]!, TOKEN, 'POST', '/schedules/batch', { schedules: batch });
      expect(created).toMatchObject({ status: 201 });
      await receiver.waitFor((a) => a.length >= count, 60_000);
      // Any doubled call would arrive within the same instants; give it time to.
      await new Promise((r) => setTimeout(r, 2_000));
      const paths = receiver.arrivals.map((a) => a.path);
      expect(paths).toHaveLength(count);
      expect(new Set(paths).size).toBe(count);
      expect(new Set(receiver.arrivals.map((a) => a.headers['webhook-id'])).size).toBe(count);

      // Both nodes made calls: each node's own count of attempts (GET /metrics, per node).
      const made = await Promise.all(nodes.map(async (url) => {
        const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
        const text = await res.text();
        return [...text.matchAll(/^punctual_attempts_total\{[^}]*result="success"[^}]*\} (\d+)/gm)].reduce((s, m) => s + Number(m[1]), 0);
      }));
      console.log(`container: compose nodes made ${made.join(' + ')} calls`);
      expect(made[0]! + made[1]!).toBe(count);
      expect(made[0]).toBeGreaterThan(0);
      expect(made[1]).toBeGreaterThan(0);
    } finally {
      await receiver?.close();
      const logs = await compose('logs');
      // podman-compose 1.0 leaves the anonymous /data volumes of the nodes and the network behind: note them first.
      const ids = (await podman('ps', '-a', '-q', '--filter', `label=io.podman.compose.project=${project}`)).split('\n').filter(Boolean);
      const volumes = ids.length === 0 ? [] : (await podman('inspect', ...ids, '--format', '{{range .Mounts}}{{.Name}} {{end}}')).split(/\s+/).filter(Boolean);
      const down = await compose('down', '-v', '-t', '15');
      if (down.code !== 0) console.log(`podman-compose down: ${down.stderr}`);
      for (const v of volumes) await run('podman', ['volume', 'rm', '-f', v]);
      await run('podman', ['network', 'rm', '-f', `${project}_default`]);
      rmSync(secrets, { recursive: true, force: true });
      expect(logs.stdout + logs.stderr).not.toContain(TOKEN);
      expect(logs.stdout + logs.stderr).not.toContain(password);
    }
  }, 300_000);
});
