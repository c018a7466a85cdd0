/**
 * The end of an HTTP server's connections at a graceful stop. Node's `server.close()` (which
 * Fastify's `close()` calls) stops accepting and closes the connections idle at that moment, then
 * waits for every other connection to end; two kinds never end by themselves:
 *
 * - a connection a client opened and has not sent a request on yet (HTTP clients open ahead,
 *   load balancers probe): Node counts it as busy (its header timer runs from the accept), so
 *   `closeIdleConnections()` leaves it, and the check that would time it out stops with the
 *   server. A client that keeps such connections (a pooled HTTP client under load) holds the
 *   stop until it lets them go, seen as a node that does not exit on SIGTERM;
 * - a keep-alive connection whose request was in flight at the stop: once answered it is idle,
 *   but nothing closes it until the keep-alive timeout (Fastify's 72 s).
 *
 * {@link drainConnections} tracks the connections and requests itself: at the stop it destroys
 * every connection with no request in flight, and ends each other one as soon as its last response
 * is sent (after the bytes are written). Requests in flight are answered as usual.
 */
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** What {@link drainConnections} returns. */
export interface ConnectionDrain {
  /**
   * Starts the drain (idempotent): destroys the connections with no request in flight, and any
   * accepted from now on; ends the others once their requests are answered. Call it just before
   * the server's `close()`.
   */
  start(): void;
}

/** Tracks the connections of `server` (from now on) for {@link ConnectionDrain.start}. */
export function drainConnections(server: Server): ConnectionDrain {
  /** Requests in flight on each open connection. */
  const inFlight = new Map<Socket, number>();
  /** Responses not yet sent. */
  const responses = new Set<ServerResponse>();
  let draining = false;

  server.on('connection', (socket: Socket) => {
    if (draining) {
      socket.destroy();
      return;
    }
    inFlight.set(socket, 0);
    socket.once('close', () => inFlight.delete(socket));
  });
  server.on('request', (req, res) => {
    const socket = req.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    // A response still to be written closes its connection after it (`Connection: close`).
    if (draining && !res.headersSent) res.shouldKeepAlive = false;
    responses.add(res);
    res.once('close', () => {
      responses.delete(res);
      const count = inFlight.get(socket);
      if (count === undefined) return;
      inFlight.set(socket, count - 1);
      // After the response's bytes: end() flushes what is queued, then the socket is destroyed.
      if (draining && count === 1) socket.end(() => socket.destroy());
    });
  });

  return {
    start() {
      if (draining) return;
      draining = true;
      for (const [socket, count] of inFlight) {
        if (count === 0) socket.destroy();
      }
      for (const res of responses) {
        if (!res.headersSent) res.shouldKeepAlive = false;
      }
    },
  };
}
