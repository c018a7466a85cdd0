/**
 * The stop's end of connections (src/http/drain.ts) on a real Fastify server and real sockets: a
 * connection opened and never used, and a kept-alive one, do not hold `close()`; a request in
 * flight at the stop is answered, with `Connection: close`, and its connection then ends.
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { drainConnections } from '../../src/http/drain.js';

let app: FastifyInstance | null = null;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await app?.close();
  app = null;
});

/** A server with `GET /slow` answered after `release` is called, and `GET /fast`. */
async function server(): Promise<{ port: number; release: () => void; drain: ReturnType<typeof drainConnections> }> {
  let release = () => undefined as void;
  const held = new Promise<void>((r) => (release = r));
  app = Fastify();
  app.get('/fast', async () => 'fast');
  app.get('/slow', async () => {
    await held;
    return 'slow';
  });
  const drain = drainConnections(app.server);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { port: (app.server.address() as { port: number }).port, release, drain };
}

/** A raw connection to `port`; `received` is everything read so far. */
async function open(port: number): Promise<{ socket: Socket; received: () => string; closed: Promise<unknown> }> {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  let data = '';
  socket.on('data', (c: Buffer) => (data += c.toString()));
  const closed = once(socket, 'close');
  await once(socket, 'connect');
  return { socket, received: () => data, closed };
}

/** Resolves with true once `p` settles within `ms`, false otherwise. */
function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  return Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))]);
}

describe('drainConnections', () => {
  it('ends connections opened and never used, and kept-alive ones, so close() does not wait for them', async () => {
    const { port, drain } = await server();
    const unused = await open(port);
    const kept = await open(port);
    kept.socket.write('GET /fast HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise<void>((r) => kept.socket.on('data', () => r()));
    expect(kept.received()).toContain('keep-alive');
    drain.start();
    expect(await within(app!.close(), 2_000)).toBe(true);
    expect(await within(Promise.all([unused.closed, kept.closed]), 1_000)).toBe(true);
    app = null;
  });

  it('answers a request in flight with Connection: close, then ends its connection', async () => {
    const { port, release, drain } = await server();
    const busy = await open(port);
    busy.socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((r) => setTimeout(r, 100)); // the request has reached the handler
    drain.start();
    const closing = app!.close();
    release();
    expect(await within(closing, 2_000)).toBe(true);
    await busy.closed;
    expect(busy.received()).toMatch(/^HTTP\/1\.1 200/);
    expect(busy.received().toLowerCase()).toContain('connection: close');
    expect(busy.received()).toContain('slow');
    app = null;
  });
});
