/**
 * The slow lane's thread (see slow-lane.ts): sends the calls it is given over its own undici
 * `Agent` (http-agent.ts, with the SSRF guard's lookup when a policy is given), aborted at their
 * deadlines by its own sweeper (deadlines.ts), and posts each result back with the call's id.
 *
 * Messages in: {@link SlowLaneRequest}. Messages out: {@link SlowLaneReply}.
 */
import { Agent } from 'undici';
import { parentPort, workerData } from 'node:worker_threads';
import { DeadlineSweeper } from './deadlines.js';
import { sendCall } from './deliver.js';
import { createHttpAgent } from './http-agent.js';
import type { SlowLaneReply, SlowLaneRequest, SlowLaneWorkerData } from './slow-lane.js';
import { policyFromData } from './ssrf.js';

const port = parentPort!;
const { policy, connectTimeoutMs } = workerData as SlowLaneWorkerData;
const agent =
  policy === null
    ? new Agent({ keepAliveTimeout: 10_000, connect: { timeout: connectTimeoutMs } })
    : createHttpAgent({ policy: policyFromData(policy), connectTimeoutMs });
const deadlines = new DeadlineSweeper();

port.on('message', (m: SlowLaneRequest) => {
  if (m.type === 'send') {
    void sendCall(m.req, agent, deadlines).then((result) => port.postMessage({ type: 'result', id: m.id, result } satisfies SlowLaneReply));
    return;
  }
  void (m.destroy ? agent.destroy() : agent.close())
    .catch(() => undefined)
    .then(() => {
      deadlines.close();
      port.postMessage({ type: 'closed' } satisfies SlowLaneReply);
    });
});
