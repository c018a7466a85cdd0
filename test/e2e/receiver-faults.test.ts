import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliver } from '../../src/dispatch/call/deliver.js';
import { createHttpAgent } from '../../src/dispatch/call/http-agent.js';
import { classifyAttempt } from '../../src/dispatch/call/retry.js';
import { generateSigningSecret, WebhookSigner } from '../../src/dispatch/call/signing.js';
import { STRICT_POLICY } from '../../src/net/ssrf.js';
import type { ClaimedExecution } from '../../src/domain/types.js';
import { claimedExecution } from '../support/claims.js';

const OPEN = { ...STRICT_POLICY, allowPrivate: true };

/**
 * Receivers that misbehave, over real sockets: a huge answer, an answer that never
 * comes, a reset connection, a name that does not resolve. Each attempt ends within its timeout
 * with a clear error, and the retry rules classify it.
 */
describe('misbehaving receivers', () => {
  let server: Server;
  let base = '';
  let bytesSent = 0;

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      if (req.url === '/huge') {
        // 10 MB, written chunk by chunk while the client keeps reading.
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 'x');
        let left = 10 * 1024 * 1024;
        const write = () => {
          while (left > 0) {
            left -= chunk.length;
            bytesSent += chunk.length;
            if (!res.write(chunk)) return void res.once('drain', write);
          }
          res.end();
        };
        res.on('close', () => (left = 0));
        write();
      } else if (req.url === '/silent') {
        // accepted, never answered
      } else if (req.url === '/reset') {
        req.socket.destroy();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );

  const claim = (endpoint: string, timeoutMs = 2_000): ClaimedExecution =>
    claimedExecution({
      executionId: '01a1fded-0000-7000-8000-00000000000a',
      jobType: 'cron',
      jobId: '01a1fded-0000-7000-8000-00000000000b',
      scheduledFor: Date.now(),
      dueAt: Date.now(),
      endpoint,
      data: { hello: 'world' },
      retry: { maxAttempts: 3, initialDelayMs: 100, maxDelayMs: 1000 },
      timeoutMs,
      leaseExpiresAt: Date.now() + 10_000,
    });
  const options = (resolve?: Parameters<typeof createHttpAgent>[0]['resolve']) => ({
    dispatcher: createHttpAgent({ policy: OPEN, resolve }),
    signer: new WebhookSigner([generateSigningSecret()]),
    userAgent: 'Punctual/test',
    now: () => Date.now(),
    policy: OPEN,
  });

  it('reads only the first KiB of a 10 MB answer, then drops the connection', async () => {
    const result = await deliver(claim(`${base}/huge`), options());
    expect(result.statusCode).toBe(200);
    expect(result.ok).toBe(true);
    expect(result.responseBody).toBe('x'.repeat(1024));
    await new Promise((r) => setTimeout(r, 100)); // let the server notice the closed socket
    expect(bytesSent).toBeLessThan(10 * 1024 * 1024);
  });

  it('gives up on an answer that never comes at the timeout, and retries it', async () => {
    const result = await deliver(claim(`${base}/silent`, 1_000), options());
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'timeout after 1000 ms', refused: false });
    expect(result.durationMs).toBeGreaterThanOrEqual(990);
    expect(result.durationMs).toBeLessThan(1_500);
    expect(classifyAttempt(result.statusCode)).toBe('retry');
  });

  it('reports a reset connection, and retries it', async () => {
    const result = await deliver(claim(`${base}/reset`), options());
    expect(result.ok).toBe(false);
    expect(result.statusCode).toBeNull();
    expect(result.error).toMatch(/ECONNRESET|other side closed|socket/i);
    expect(classifyAttempt(result.statusCode)).toBe('retry');
  });

  it('reports a DNS failure, and retries it (it is not an SSRF refusal)', async () => {
    const failing = ((host: string, _o: unknown, cb: (e: NodeJS.ErrnoException) => void) => {
      const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${host}`);
      err.code = 'ENOTFOUND';
      cb(err);
    }) as unknown as Parameters<typeof createHttpAgent>[0]['resolve'];
    const result = await deliver(claim('http://no-such-host.example/hook'), options(failing));
    expect(result).toMatchObject({ ok: false, statusCode: null, refused: false });
    expect(result.error).toMatch(/ENOTFOUND/);
    expect(classifyAttempt(result.statusCode)).toBe('retry');
  });
});
