/**
 * A receiver that counts the calls it holds at once, for the flow-control tests: a real HTTP
 * server on 127.0.0.1 that timestamps each call's start, keeps each group's calls in flight (the
 * group is the first segment of the path, `/a/1` → `a`), their peak and every change of their
 * number, and answers as told per group. A call counts from its headers' arrival until its answer
 * is written (or its connection closes unanswered: the caller went away).
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One call that reached the receiver. Instants are epoch ms (UTC). */
export interface Call {
  /** When its headers arrived. */
  at: number;
  path: string;
  group: string;
  /** `webhook-id`: the execution's id. */
  id: string;
  /** `punctual-attempt`. */
  attempt: number;
  /** `punctual-scheduled-for`, epoch ms. */
  scheduledFor: number;
  /** The client's port (one of the calling process's sockets). */
  remotePort: number;
  /** When its answer was written; null while in flight, or when it was never answered. */
  answeredAt: number | null;
  /** Its connection closed before it was answered. */
  aborted: boolean;
}

/** How the receiver answers one call. */
export interface CallAnswer {
  /** Default 200. */
  status?: number;
  /** Wait before answering (ms). */
  delayMs?: number;
  headers?: Record<string, string>;
}

/** See the file's comment. */
export interface CountingReceiver {
  url: string;
  calls: Call[];
  /** The calls of `group` (in order of arrival). */
  of(group: string): Call[];
  /** Calls of `group` in flight now. */
  inFlight(group: string): number;
  /** The most calls of `group` in flight at once so far. */
  peak(group: string): number;
  /** Every change of the calls of `group` in flight: the instant and the number after it. */
  timeline(group: string): { at: number; n: number }[];
  /** How later calls of `group` are answered: `fn(call, n)` with n the call's rank in its group (0 first). */
  answer(group: string, fn: (call: Call, n: number) => CallAnswer): void;
  /** Resolves once `pred` holds, checked on each arrival and each answer; rejects after `timeoutMs`. */
  waitFor(pred: () => boolean, timeoutMs?: number, what?: string): Promise<void>;
  close(): Promise<void>;
}

/** Starts a {@link CountingReceiver} on an ephemeral port of 127.0.0.1. */
export async function startCountingReceiver(): Promise<CountingReceiver> {
  const calls: Call[] = [];
  const byGroup = new Map<string, { calls: Call[]; inFlight: number; peak: number; timeline: { at: number; n: number }[] }>();
  const answers = new Map<string, (call: Call, n: number) => CallAnswer>();
  const waiters = new Set<() => void>();
  const groupOf = (name: string) => {
    let g = byGroup.get(name);
    if (!g) byGroup.set(name, (g = { calls: [], inFlight: 0, peak: 0, timeline: [] }));
    return g;
  };
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  const server: Server = createServer((req, res: ServerResponse) => {
    const at = Date.now();
    const path = req.url ?? '/';
    const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : '');
    const call: Call = {
      at,
      path,
      group: path.split('/')[1] ?? '',
      id: header('webhook-id'),
      attempt: Number(header('punctual-attempt')),
      scheduledFor: Date.parse(header('punctual-scheduled-for')),
      remotePort: req.socket.remotePort ?? 0,
      answeredAt: null,
      aborted: false,
    };
    const g = groupOf(call.group);
    const n = g.calls.length;
    calls.push(call);
    g.calls.push(call);
    g.inFlight++;
    g.peak = Math.max(g.peak, g.inFlight);
    g.timeline.push({ at, n: g.inFlight });
    let done = false;
    const end = (aborted: boolean) => {
      if (done) return;
      done = true;
      g.inFlight--;
      g.timeline.push({ at: Date.now(), n: g.inFlight });
      if (aborted) call.aborted = true;
      notify();
    };
    res.on('close', () => end(!res.writableFinished));
    notify();
    req.resume();
    req.on('end', () => {
      const answer = answers.get(call.group)?.(call, n) ?? {};
      const send = () => {
        if (res.destroyed) return;
        res.statusCode = answer.status ?? 200;
        for (const [k, v] of Object.entries(answer.headers ?? {})) res.setHeader(k, v);
        call.answeredAt = Date.now();
        // Out of flight from the moment the answer is written: the caller cannot start the next call before it reads it.
        end(false);
        res.end('ok');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    of: (group) => groupOf(group).calls,
    inFlight: (group) => groupOf(group).inFlight,
    peak: (group) => groupOf(group).peak,
    timeline: (group) => groupOf(group).timeline,
    answer: (group, fn) => answers.set(group, fn),
    waitFor(pred, timeoutMs = 15_000, what = 'condition') {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!pred()) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver: ${what} not met within ${timeoutMs} ms (${calls.length} calls)`));
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
