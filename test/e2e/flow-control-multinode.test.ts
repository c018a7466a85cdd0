import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeLog, spawnServer, stopChild, type ChildServer } from '../support/child.js';
import { startCountingReceiver, type Call, type CountingReceiver } from '../support/counting-receiver.js';
import { flowHelpers, plan } from '../support/flow-control.js';
import { portFreed } from '../support/ports.js';
import { POSTGRES, type TestDatabase } from '../support/stores.js';

/**
 * Flow control across nodes (docs/multinode.md): three `punctual serve` processes on one
 * PostgreSQL database share a key's limits, the key's row locked by the claim that starts its
 * calls. A receiver in this process counts the key's calls in flight, whichever node sends them.
 * Then one node is killed with SIGKILL while calls it started are at the receiver: nothing is
 * lost, only those calls arrive again (same webhook-id, a later attempt), once their lease ends,
 * and the key has all its slots back.
 *
 * Which node sent a call: the receiver keeps each call's client port, and /proc tells which of
 * the nodes holds that socket (Linux).
 */
const TOKEN = 'flow-control-multinode-token-0123456789abc';
/** Jobs' call timeout: a dead node's lease ends this + LEASE_MARGIN_MS (5 s) + CLAIM_AHEAD_MS (100 ms) after its claim. */
const TIMEOUT_MS = 1_000;
const LEASE_MS = TIMEOUT_MS + 5_000 + 100;

/** The inode of the TCP socket on 127.0.0.1:`localPort` connected to `remotePort` (/proc/net/tcp), or null. */
function socketInode(localPort: number, remotePort: number): string | null {
  const hex = (p: number) => p.toString(16).toUpperCase().padStart(4, '0');
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f[1]?.endsWith(`:${hex(localPort)}`) && f[2]?.endsWith(`:${hex(remotePort)}`)) return f[9] ?? null;
  }
  return null;
}

/** Which of `pids` holds the socket of inode `inode`, or null. */
function holderOf(inode: string, pids: number[]): number | null {
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`) return pid;
      } catch {
        // closed meanwhile
      }
    }
  }
  return null;
}

/** The pids of the processes whose parent is `pid` (/proc/<pid>/stat, field 4). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

describe.skipIf(POSTGRES === null || process.platform !== 'linux')('flow control across three nodes on one PostgreSQL database (real processes)', () => {
  let db: TestDatabase;
  let receiver: CountingReceiver;
  let nodes: ChildServer[] = [];
  /** The node the test talks to (a survivor once one is killed). */
  let via: ChildServer;
  const { putKey, getKey, create, allDone } = flowHelpers(
    () => via.url,
    TOKEN,
    () => receiver,
  );
  const alive = (n: ChildServer) => n.proc.exitCode === null && n.proc.signalCode === null;

  beforeAll(async () => {
    db = await POSTGRES!.create();
    receiver = await startCountingReceiver();
    const env = {
      DATABASE_URL: db.url,
      PUNCTUAL_BOOTSTRAP_TOKEN: TOKEN,
      PUNCTUAL_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
      PUNCTUAL_SHUTDOWN_GRACE_MS: '1000',
      PUNCTUAL_RATE_LIMIT_PER_SECOND: '0',
      LOG_LEVEL: 'debug',
    };
    // The first migrates the schema; the two others then start together.
    nodes = [await spawnServer(env)];
    nodes.push(...(await Promise.all([spawnServer(env), spawnServer(env)])));
    via = nodes[0]!;
  }, 60_000);
  afterAll(async () => {
    await Promise.all(nodes.map((n) => stopChild(n, 3_000)));
    await receiver?.close();
    await db?.drop();
  });

  /** Which node sent `call` (its socket still open: keep-alive), or null. */
  const senderOf = (call: Call): ChildServer | null => {
    const inode = socketInode(call.remotePort, Number(new URL(receiver.url).port));
    const pid = inode === null ? null : holderOf(inode, nodes.filter(alive).map((n) => n.proc.pid!));
    return nodes.find((n) => n.proc.pid === pid) ?? null;
  };
  const idsOf = (calls: Call[]) => new Set(calls.map((c) => c.id));

  it('parallelism 5 across three nodes: 300 calls in 20 waves due at once, never more than 5 in flight, each delivered once', async () => {
    await putKey('mn', { parallelism: 5 });
    receiver.answer('mn', () => ({ delayMs: 10 }));
    // Waves of 15 calls due at one instant, 200 ms apart: the key is idle between waves, so at each
    // wave's instant every node claims at once and the key's lock decides. (A node that finishes
    // a call claims again at once: a key kept busy stays on the node that holds its slots.)
    const WAVES = 20;
    const PER_WAVE = 15;
    const first = Date.now() + 1_000;
    await create(plan('mn', 'mn', WAVES * PER_WAVE, (i) => first + Math.floor(i / PER_WAVE) * 200));
    await allDone('mn', WAVES * PER_WAVE, 20_000);
    const calls = receiver.of('mn');
    expect(idsOf(calls).size).toBe(WAVES * PER_WAVE);
    expect(calls).toHaveLength(WAVES * PER_WAVE);
    expect(receiver.peak('mn')).toBe(5);
    const ids = idsOf(calls);
    const shares = nodes.map((n) => nodeLog(n).finished.filter((f) => ids.has(f.executionId)).length);
    console.log(
      `3 nodes, parallelism 5: ${WAVES * PER_WAVE} calls in ${Math.max(...calls.map((c) => c.at)) - first} ms; ` +
        `peak ${receiver.peak('mn')}; shares by node ${shares.join(' / ')}`,
    );
    expect(shares.reduce((a, b) => a + b, 0)).toBe(WAVES * PER_WAVE);
    // More than one node started the key's calls: the limit held across nodes, not within one.
    expect(shares.filter((s) => s > 0).length).toBeGreaterThanOrEqual(2);
  }, 30_000);

  it('SIGKILL of a node holding slots: nothing lost, only its calls on the wire again (same webhook-id), the slots back within the lease', async () => {
    await putKey('kill', { parallelism: 5 });
    receiver.answer('kill', () => ({ delayMs: 200 }));
    const due = Date.now() + 500;
    const CALLS = 30;
    await create(plan('kill', 'kill', CALLS, () => due));
    // A moment with all 5 slots at the receiver; the victim is the node sending most of them.
    let victim: ChildServer | null = null;
    let onWire: Call[] = [];
    await receiver.waitFor(
      () => {
        if (receiver.inFlight('kill') < 5) return false;
        const inFlight = receiver.of('kill').filter((c) => c.answeredAt === null && !c.aborted);
        const by = new Map<ChildServer, Call[]>();
        for (const c of inFlight) {
          const s = senderOf(c);
          if (s) by.set(s, [...(by.get(s) ?? []), c]);
        }
        const [top] = [...by.entries()].sort((a, b) => b[1].length - a[1].length);
        if (!top) return false;
        [victim, onWire] = top;
        return true;
      },
      15_000,
      'a node with calls at the receiver',
    );
    const killed = victim! as ChildServer;
    const port = Number(new URL(killed.url).port);
    const pid = killed.proc.pid!;
    const killAt = Date.now();
    killed.proc.kill('SIGKILL');
    expect((await killed.exited).signal).toBe('SIGKILL');
    via = nodes.find(alive)!;
    // No process left behind, its port free again.
    expect(childrenOf(pid)).toEqual([]);
    expect(await portFreed(port)).toBe(true);

    await allDone('kill', CALLS + onWire.length, LEASE_MS + 10_000);
    const calls = receiver.of('kill');
    const answered = calls.filter((c) => c.answeredAt !== null);
    const aborted = calls.filter((c) => c.aborted);
    // Nothing lost: every call answered once.
    expect(idsOf(answered).size).toBe(CALLS);
    expect(answered).toHaveLength(CALLS);
    // The calls cut off are the victim's: those seen on the wire, maybe one more it started meanwhile.
    expect(aborted.length).toBeGreaterThan(0);
    for (const c of onWire) expect(idsOf(aborted).has(c.id), `${c.id} was on the wire at the kill`).toBe(true);
    for (const c of aborted) expect(c.at).toBeLessThanOrEqual(killAt);
    // Duplicates only for them: each again as a later attempt, once its lease ended (not before the kill).
    const byId = new Map<string, Call[]>();
    for (const c of calls) byId.set(c.id, [...(byId.get(c.id) ?? []), c]);
    const twice = [...byId.entries()].filter(([, l]) => l.length > 1);
    expect(new Set(twice.map(([id]) => id))).toEqual(idsOf(aborted));
    const back: number[] = [];
    for (const [, [first, ...again]] of twice) {
      expect(first!.aborted).toBe(true);
      expect(again).toHaveLength(1);
      expect(again[0]!.attempt).toBeGreaterThan(first!.attempt);
      expect(again[0]!.at).toBeLessThanOrEqual(first!.at + LEASE_MS + 2_000);
      back.push(again[0]!.at - killAt);
    }
    expect(receiver.peak('kill')).toBeLessThanOrEqual(5);
    console.log(
      `kill: node ${nodes.indexOf(killed)} had ${onWire.length} of 5 slots (${aborted.length} calls cut off); ` +
        `they came again ${Math.min(...back)}–${Math.max(...back)} ms after the kill (lease ${LEASE_MS} ms); peak ${receiver.peak('kill')}`,
    );
    // Every slot back: the key has nothing in flight, and 5 calls run at once again.
    expect(await getKey('kill')).toMatchObject({ inFlight: 0, waiting: 0 });
    receiver.answer('again', () => ({ delayMs: 200 }));
    await create(plan('again', 'kill', 10, () => Date.now() + 300));
    await allDone('again', 10, 10_000);
    expect(receiver.peak('again')).toBe(5);
  }, 45_000);
});
