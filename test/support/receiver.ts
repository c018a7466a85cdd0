import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request that reached the receiver. `at` is epoch ms (UTC) when its headers arrived. */
export interface Arrival {
  at: number;
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real HTTP server on 127.0.0.1 that records every request and answers `status` (default 200). */
export interface Receiver {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  arrivals: Arrival[];
  /** Sets the answer for later requests to `path` (status, and delay in ms before answering). */
  respond(path: string, answer: { status?: number; delayMs?: number; body?: string }): void;
  /** Resolves when `pred` holds for the arrivals so far, checked on each arrival; rejects after `timeoutMs`. */
  waitFor(pred: (arrivals: Arrival[]) => boolean, timeoutMs?: number): Promise<Arrival[]>;
  close(): Promise<void>;
}

/** Starts a {@link Receiver} on an ephemeral port of 127.0.0.1. */
export async function startReceiver(): Promise<Receiver> {
  const arrivals: Arrival[] = [];
  const answers = new Map<string, { status?: number; delayMs?: number; body?: string }>();
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      arrivals.push({ at, path, method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      for (const w of [...waiters]) w();
      const answer = answers.get(path) ?? {};
      const send = () => {
        res.statusCode = answer.status ?? 200;
        res.end(answer.body ?? 'ok');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    arrivals,
    respond: (path, answer) => answers.set(path, answer),
    waitFor(pred, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pred(arrivals)) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(arrivals);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver: condition not met within ${timeoutMs} ms (${arrivals.length} arrivals)`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
