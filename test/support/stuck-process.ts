/**
 * Endpoints in their own process, one origin each (see `spawnStuckServers` and
 * `spawnAnsweringServers` in child.ts): `argv[2]` servers on ephemeral ports of 127.0.0.1.
 *
 * - Mode `hang` (the default): TCP servers, then the process blocks its only thread for good. The
 *   kernel still completes each connection's handshake and queues it (listen backlog 511) with the
 *   request's bytes in its receive buffer, but nothing ever accepts, reads or answers: what a
 *   client sees of a server whose application is stuck. It costs no CPU while calls hang on it, so
 *   a test measuring the caller's lateness measures the caller.
 * - Mode `answer` (`argv[3]`): HTTP servers that answer every request with 200 at once and keep
 *   connections alive: the same origins, healthy, for a test's control rounds.
 *
 * To the parent, once: `{ type: 'listening', ports }`. Ends only by a signal.
 */
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';

const count = Number(process.argv[2] ?? '1');
const answer = process.argv[3] === 'answer';

function make(): Server {
  if (!answer) return createServer();
  const server = createHttpServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  server.keepAliveTimeout = 60_000;
  return server;
}

const ports = await Promise.all(
  Array.from(
    { length: count },
    () =>
      new Promise<number>((resolve) => {
        const server = make();
        server.listen({ port: 0, host: '127.0.0.1', backlog: 511 }, () => resolve((server.address() as AddressInfo).port));
      }),
  ),
);
process.send!({ type: 'listening', ports }, () => {
  // Block the event loop's thread: libuv never runs again, so no connection is ever accepted.
  if (!answer) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
});
