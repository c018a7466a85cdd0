import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveSigningSecrets } from '../../src/dispatch/call/signing.js';
import { startTestServer, type TestServer } from '../support/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The verifying receiver of docs/calls.md (examples/verifying-receiver.mjs), run as its own process
 * with the secret `punctual signing-secret` prints, against real calls.
 */
describe('the receiver of docs/calls.md verifies real calls with standardwebhooks', () => {
  let server: TestServer;
  let receiver: ChildProcess;
  const lines: string[] = [];
  let url = '';

  beforeAll(async () => {
    // No PUNCTUAL_SIGNING_SECRET: the secret is generated at first start and kept in the store.
    server = await startTestServer();
    const [secret] = await resolveSigningSecrets(server.store, null);
    expect(secret).toMatch(/^whsec_/);
    receiver = spawn(process.execPath, ['examples/verifying-receiver.mjs', '0'], {
      cwd: ROOT,
      env: { ...process.env, PUNCTUAL_SIGNING_SECRET: secret },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    url = await new Promise<string>((resolve) => {
      receiver.stdout!.on('data', (c: Buffer) => {
        for (const line of c.toString().split('\n').filter(Boolean)) {
          lines.push(line);
          const m = /on (http:\/\/\S+)/.exec(line);
          if (m) resolve(m[1]!);
        }
      });
    });
  });
  afterAll(async () => {
    receiver?.kill();
    await server?.stop();
  });

  const waitLine = (re: RegExp) =>
    expect
      .poll(() => lines.find((l) => re.test(l)), { timeout: 10_000, interval: 50, message: `no line ${re} in:\n${lines.join('\n')}` })
      .toBeDefined();

  it('accepts a signed call and refuses a forged one', async () => {
    const res = await server.api('POST', '/schedules', {
      name: 'verified',
      scheduledAt: new Date(Date.now() + 100).toISOString(),
      endpoint: `${url}/hook`,
      data: { order: 42 },
    });
    const id = (res.body as { id: string }).id;
    await waitLine(new RegExp(`^verified \\S+ attempt 1 job ${id}: \\{"order":42\\}$`));

    const forged = await fetch(`${url}/hook`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'msg_forged',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': `v1,${Buffer.alloc(32).toString('base64')}`,
      },
      body: '{"order":42}',
    });
    expect(forged.status).toBe(401);
    await waitLine(/^rejected: /);
  });
});
