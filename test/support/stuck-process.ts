/**
 * Endpoints that hang, in their own process (see `spawnStuckServers` in child.ts): `argv[2]` TCP
 * servers on ephemeral ports of 127.0.0.1, then the process blocks its only thread for good. The
 * kernel still completes each connection's handshake and queues it (listen backlog 511) with the
 * request's bytes in its receive buffer, but nothing ever accepts, reads or answers: what a client
 * sees of a server whose application is stuck. It costs no CPU while calls hang on it, so a test
 * measuring the caller's lateness measures the caller.
 *
 * To the parent, once: `{ type: 'listening', ports }`. Ends only by a signal.
 */
import { createServer, type AddressInfo } from 'node:net';

const count = Number(process.argv[2] ?? '1');
const ports = await Promise.all(
  Array.from(
    { length: count },
    () =>
      new Promise<number>((resolve) => {
        const server = createServer();
        server.listen({ port: 0, host: '127.0.0.1', backlog: 511 }, () => resolve((server.address() as AddressInfo).port));
      }),
  ),
);
process.send!({ type: 'listening', ports }, () => {
  // Block the event loop's thread: libuv never runs again, so no connection is ever accepted.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
});
