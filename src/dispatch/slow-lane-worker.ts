/**
 * The slow lane's thread (see slow-lane.ts): sends the calls it is given over its own undici
 * `Agent` (http-agent.ts, with the SSRF guard's lookup when a policy is given), aborted at their
 * deadlines by its own sweeper (deadlines.ts), and posts each result back with the call's id.
 *
 * Messages in: {@link SlowLaneRequest}. Messages out: {@link SlowLaneReply}.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { DeadlineSweeper } from './call/deadlines.js';
import { sendCall } from './call/deliver.js';
import { createHttpAgent } from './call/http-agent.js';
import type { SlowLaneReply, SlowLaneRequest, SlowLaneWorkerData } from './slow-lane.js';
import { policyFromData } from '../net/ssrf.js';

/**
 * The thread's nice value (Linux: 19 is the lowest priority, 0 the default). The lane moves work
 * off the event loop's thread but not off the machine: with the lane at the process's priority,
 * on 2 cores, its connects and aborts still took the CPU from the event loop (and from receivers)
 * when a wave of 100 calls to hanging endpoints started or timed out, and the isolation test
 * failed 2 runs of 5 (healthy p99 4 vs 9 ms; test/e2e/isolation.test.ts, 2026-11-21). At 19 it
 * held 10 runs of 10 (ratios 1.0-1.67). Calls to slow origins wait for spare CPU: on a machine
 * saturated by healthy calls they are started later, which is the order the launch queue already
 * gives them.
 */
const NICE = 19;

/**
 * Lowers this thread's priority (not the process's): on Linux `setpriority(PRIO_PROCESS, tid)`
 * applies to the one thread, whose id `/proc/thread-self` gives. Elsewhere, or when refused,
 * nothing changes.
 */
function lowerPriority(): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) setPriority(tid, NICE);
  } catch {
    // not Linux, or not allowed: the lane runs at the process's priority
  }
}
lowerPriority();

const port = parentPort!;
const { policy, connectTimeoutMs } = workerData as SlowLaneWorkerData;
const agent = createHttpAgent({ ...(policy !== null && { policy: policyFromData(policy) }), connectTimeoutMs });
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
