/**
 * The bench's receiver, run in its own process (`fork` with an IPC channel, advanced
 * serialization). A node:http server on 127.0.0.1 that answers every POST with 200 `ok` and
 * records, for each request to `/r/<run>/<index>`, when its headers arrived (a run armed with
 * `delayMs` answers each request that much later, and counts the most it had in flight at once):
 *   - `hr`: a high-resolution epoch (performance.now() plus an offset calibrated against Date.now()
 *     when the run was armed), fractional ms — for lateness quantiles, once aligned on the wall
 *     clock (clock.ts);
 *   - `ms`: Date.now(), whole ms — used for the "never early" count, on the same clock the service
 *     compares `scheduledAt` with.
 * The parent drives it by messages (see receiver-client.ts): arm a run, poll its progress,
 * collect its arrays.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReceiverReply, ReceiverRequest } from './receiver-protocol.js';

interface Run {
  count: number;
  received: number;
  duplicates: number;
  hr: Float64Array;
  ms: Float64Array;
  hits: Uint32Array;
  firstHr: number;
  lastHr: number;
  offset: number;
  /** ms before each answer (0: at once). */
  delayMs: number;
  inFlight: number;
  maxInFlight: number;
}

const runs = new Map<string, Run>();
let unknown = 0;

/** Waits for Date.now() to tick, then returns Date.now() − performance.now() at that tick. */
function calibrate(): number {
  const start = Date.now();
  let now = start;
  while (now === start) now = Date.now();
  return now - performance.now();
}

const server = createServer((req, res) => {
  const hrNow = performance.now();
  const msNow = Date.now();
  const url = req.url ?? '';
  // /r/<run>/<index>
  const slash = url.indexOf('/', 3);
  const run = url.startsWith('/r/') && slash > 3 ? runs.get(url.slice(3, slash)) : undefined;
  const index = run ? Number(url.slice(slash + 1)) : -1;
  if (run && Number.isInteger(index) && index >= 0 && index < run.count) {
    const at = hrNow + run.offset;
    if (run.hits[index]! === 0) {
      run.hr[index] = at;
      run.ms[index] = msNow;
      run.received++;
      if (at < run.firstHr) run.firstHr = at;
      if (at > run.lastHr) run.lastHr = at;
    } else {
      run.duplicates++;
    }
    run.hits[index]!++;
  } else {
    unknown++;
  }
  if (run && run.delayMs > 0) {
    run.inFlight++;
    if (run.inFlight > run.maxInFlight) run.maxInFlight = run.inFlight;
    req.on('end', () =>
      setTimeout(() => {
        run.inFlight--;
        res.end('ok');
      }, run.delayMs),
    );
    req.resume();
    return;
  }
  req.on('end', () => res.end('ok'));
  req.resume();
});
server.keepAliveTimeout = 60_000;
server.headersTimeout = 65_000;
server.requestTimeout = 0;

function handle(msg: ReceiverRequest): ReceiverReply {
  switch (msg.type) {
    case 'arm': {
      runs.set(msg.run, {
        count: msg.count,
        received: 0,
        duplicates: 0,
        hr: new Float64Array(msg.count).fill(Number.NaN),
        ms: new Float64Array(msg.count).fill(Number.NaN),
        hits: new Uint32Array(msg.count),
        firstHr: Number.POSITIVE_INFINITY,
        lastHr: Number.NEGATIVE_INFINITY,
        offset: calibrate(),
        delayMs: msg.delayMs ?? 0,
        inFlight: 0,
        maxInFlight: 0,
      });
      return { seq: msg.seq, type: 'ok' };
    }
    case 'progress': {
      const r = runs.get(msg.run);
      if (!r) throw new Error(`no run ${msg.run}`);
      return { seq: msg.seq, type: 'progress', received: r.received, duplicates: r.duplicates, unknown, firstHr: r.firstHr, lastHr: r.lastHr };
    }
    case 'collect': {
      const r = runs.get(msg.run);
      if (!r) throw new Error(`no run ${msg.run}`);
      runs.delete(msg.run);
      return { seq: msg.seq, type: 'collect', hr: r.hr, ms: r.ms, hits: r.hits, duplicates: r.duplicates, unknown, maxInFlight: r.maxInFlight };
    }
    case 'close':
      server.closeAllConnections();
      server.close(() => process.exit(0));
      return { seq: msg.seq, type: 'ok' };
  }
}

process.on('message', (msg: ReceiverRequest) => {
  let reply: ReceiverReply;
  try {
    reply = handle(msg);
  } catch (err) {
    reply = { seq: msg.seq, type: 'error', message: err instanceof Error ? err.message : String(err) };
  }
  process.send!(reply);
});
process.on('disconnect', () => process.exit(0));

server.listen({ port: 0, host: '127.0.0.1', backlog: 4096 }, () => {
  const { port } = server.address() as AddressInfo;
  process.send!({ seq: 0, type: 'listening', url: `http://127.0.0.1:${port}` } satisfies ReceiverReply);
});
