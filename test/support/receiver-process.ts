/**
 * A receiver in its own process (see `spawnReceiver` in child.ts): an HTTP server on an ephemeral
 * port of 127.0.0.1 that answers 200 at once (or after the delay set for a path prefix) and
 * reports each request's arrival time and Punctual headers to its parent over IPC, in batches.
 * Apart from the test process, its timestamps do not suffer from the test's own work, and a burst
 * of thousands of calls is answered without waiting for the test's event loop.
 *
 * Messages from the parent: `{ type: 'delay', prefix, ms }`. To the parent: `{ type: 'listening',
 * port }`, then `{ type: 'arrivals', arrivals }` every 20 ms while requests come.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Headers reported with each arrival. */
const REPORTED = ['webhook-id', 'punctual-attempt', 'punctual-scheduled-for', 'punctual-job-id', 'punctual-job-type'];

const delays: { prefix: string; ms: number }[] = [];
let pending: { at: number; path: string; method: string; headers: Record<string, string>; body: string }[] = [];

process.on('message', (m: { type: string; prefix: string; ms: number }) => {
  if (m.type === 'delay') delays.push({ prefix: m.prefix, ms: m.ms });
});

const server = createServer((req, res) => {
  const at = Date.now();
  const path = req.url ?? '/';
  const headers: Record<string, string> = {};
  for (const h of REPORTED) {
    const v = req.headers[h];
    if (typeof v === 'string') headers[h] = v;
  }
  req.resume();
  req.on('end', () => {
    pending.push({ at, path, method: req.method ?? '', headers, body: '' });
    const delay = delays.find((d) => path.startsWith(d.prefix))?.ms ?? 0;
    const send = () => {
      if (!res.destroyed) res.end('ok');
    };
    if (delay > 0) setTimeout(send, delay);
    else send();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.send!({ type: 'listening', port: (server.address() as AddressInfo).port });
});
setInterval(() => {
  if (pending.length === 0) return;
  process.send!({ type: 'arrivals', arrivals: pending });
  pending = [];
}, 20);
process.on('disconnect', () => process.exit(0));
