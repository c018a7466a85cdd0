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

/** How the receiver answers one request. */
export interface Answer {
  /** Default 200. */
  status?: number;
  /** Wait before answering (ms). */
  delayMs?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Never answer (the connection stays open until the client gives up). */
  hang?: boolean;
}

/**
 * A real HTTP server that records every request and answers `status` (default 200). The one
 * receiver of the tests: in-process calls, e2e servers, and containers (on a host they reach).
 */
export interface Receiver {
  /** Base URL, e.g. `http://127.0.0.1:41234` (or the host it was started on). */
  url: string;
  arrivals: Arrival[];
  /**
   * Sets the answers for later requests to `path`: one answer for all, or a sequence used one
   * request after another (the last one repeats).
   */
  respond(path: string, answer: Answer | Answer[]): void;
  /** Resolves when `pred` holds for the arrivals so far, checked on each arrival; rejects after `timeoutMs`. */
  waitFor(pred: (arrivals: Arrival[]) => boolean, timeoutMs?: number): Promise<Arrival[]>;
  close(): Promise<void>;
}

/** Options of {@link startReceiver}. */
export interface ReceiverOptions {
  /** The address to listen on (default `127.0.0.1`), e.g. a podman bridge's gateway for containers. */
  host?: string;
  /** The answer to requests whose path has none set by `respond` (default `{}`: 200 `ok`). */
  answer?: Answer;
}

/** Starts a {@link Receiver} on an ephemeral port of `options.host` (default 127.0.0.1). */
export async function startReceiver(options: ReceiverOptions = {}): Promise<Receiver> {
  const host = options.host ?? '127.0.0.1';
  const fallback = [options.answer ?? {}];
  const arrivals: Arrival[] = [];
  const answers = new Map<string, Answer[]>();
  const served = new Map<string, number>();
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      arrivals.push({ at, path, method: req.method ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      for (const w of [...waiters]) w();
      const list = answers.get(path) ?? fallback;
      const n = served.get(path) ?? 0;
      served.set(path, n + 1);
      const answer = list[Math.min(n, list.length - 1)]!;
      if (answer.hang) return;
      const send = () => {
        if (res.destroyed) return;
        res.statusCode = answer.status ?? 200;
        for (const [k, v] of Object.entries(answer.headers ?? {})) res.setHeader(k, v);
        res.end(answer.body ?? 'ok');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    arrivals,
    respond: (path, answer) => {
      answers.set(path, Array.isArray(answer) ? answer : [answer]);
      served.set(path, 0);
    },
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
