/**
 * The grouping rules of src/store/group-commit.ts, with an in-memory writer function (a fake of the
 * store's `write`, not of a store): which units share a write, the row bound, the writes at once,
 * and the retries alone. The stores' own behaviour is in the conformance suite
 * (test/store/conformance/batch.ts).
 */
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../src/domain/errors.js';
import { GroupCommit } from '../../src/store/group-commit.js';

/** A writer that answers each row doubled, records each call, and refuses rows listed in `bad`. */
function recorder(bad: Set<number> = new Set()) {
  const calls: number[][] = [];
  const write = (rows: number[]): number[] => {
    calls.push([...rows]);
    if (rows.some((r) => bad.has(r))) throw new Error(`refused ${rows.find((r) => bad.has(r))}`);
    return rows.map((r) => r * 2);
  };
  return { calls, write };
}

/** A writer whose calls wait until the test settles them. */
function deferred() {
  const pending: { rows: number[]; settle: () => void; fail: (err: unknown) => void }[] = [];
  const write = (rows: number[]) =>
    new Promise<number[]>((resolve, reject) => {
      pending.push({ rows: [...rows], settle: () => resolve(rows.map((r) => r * 2)), fail: reject });
    });
  return { pending, write };
}

/**
 * Resolves once the drains scheduled so far have run, and those scheduled by writes settled just
 * before the call (whose callbacks then run after this one's first hop).
 */
const turn = () => new Promise<void>((r) => setImmediate(() => setImmediate(r)));

describe('GroupCommit', () => {
  it('writes the units added in one turn in one call, and gives each caller its own results', async () => {
    const w = recorder();
    const g = new GroupCommit({ write: w.write, maxRows: 100, maxInFlight: 1 });
    const answers = await Promise.all([g.add([1]), g.add([2, 3, 4]), g.add([5]), g.add([6, 7])]);
    expect(w.calls).toEqual([[1, 2, 3, 4, 5, 6, 7]]);
    expect(answers).toEqual([[2], [4, 6, 8], [10], [12, 14]]);
  });

  it('answers an empty unit at once, writing nothing', async () => {
    const w = recorder();
    const g = new GroupCommit({ write: w.write, maxRows: 10, maxInFlight: 1 });
    expect(await g.add([])).toEqual([]);
    expect(w.calls).toEqual([]);
  });

  it('holds at most maxRows rows in a group, whole units only, but a larger unit alone', async () => {
    const w = recorder();
    const g = new GroupCommit({ write: w.write, maxRows: 4, maxInFlight: 1 });
    const answers = await Promise.all([g.add([1, 2]), g.add([3]), g.add([4, 5]), g.add([6, 7, 8, 9, 10, 11]), g.add([12])]);
    expect(w.calls).toEqual([[1, 2, 3], [4, 5], [6, 7, 8, 9, 10, 11], [12]]);
    expect(answers).toEqual([[2, 4], [6], [8, 10], [12, 14, 16, 18, 20, 22], [24]]);
  });

  it('resolves nothing before its write resolved, and writes at most maxInFlight groups at once', async () => {
    const w = deferred();
    const g = new GroupCommit({ write: w.write, maxRows: 2, maxInFlight: 2 });
    const done: number[][] = [];
    for (const u of [[1], [2], [3], [4], [5]]) void g.add(u).then((r) => done.push(r));
    await turn();
    expect(w.pending.map((p) => p.rows)).toEqual([[1, 2], [3, 4]]);
    expect(g.queued).toBe(1);
    // Added while two groups are in flight: waits for the next drain, with [5].
    void g.add([6]).then((r) => done.push(r));
    await turn();
    expect(w.pending).toHaveLength(2);
    expect(done).toEqual([]);
    w.pending[1]!.settle();
    await turn();
    expect(done).toEqual([[6], [8]]);
    expect(w.pending.map((p) => p.rows)).toEqual([[1, 2], [3, 4], [5, 6]]);
    w.pending[0]!.settle();
    w.pending[2]!.settle();
    await turn();
    expect(done).toEqual([[6], [8], [2], [4], [10], [12]]);
  });

  it('writes each unit alone when the group fails: only the refused unit fails', async () => {
    const w = recorder(new Set([3]));
    const g = new GroupCommit({ write: w.write, maxRows: 100, maxInFlight: 1 });
    const settled = await Promise.allSettled([g.add([1]), g.add([2, 3, 4]), g.add([5])]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[0] as PromiseFulfilledResult<number[]>).value).toEqual([2]);
    expect((settled[1] as PromiseRejectedResult).reason).toEqual(new Error('refused 3'));
    expect((settled[2] as PromiseFulfilledResult<number[]>).value).toEqual([10]);
    expect(w.calls).toEqual([[1, 2, 3, 4, 5], [1], [2, 3, 4], [5]]);
  });

  it('does not write a lone failed unit again', async () => {
    const w = recorder(new Set([1]));
    const g = new GroupCommit({ write: w.write, maxRows: 100, maxInFlight: 1 });
    await expect(g.add([1, 2])).rejects.toThrow('refused 1');
    expect(w.calls).toEqual([[1, 2]]);
  });

  it('fails every unit of the group with a StoreUnavailableError, without retries', async () => {
    const calls: number[][] = [];
    const down = new StoreUnavailableError('The store is closed.');
    const g = new GroupCommit<number, number>({
      write: (rows) => {
        calls.push(rows);
        throw down;
      },
      maxRows: 100,
      maxInFlight: 1,
    });
    const settled = await Promise.allSettled([g.add([1]), g.add([2])]);
    expect(settled).toEqual([
      { status: 'rejected', reason: down },
      { status: 'rejected', reason: down },
    ]);
    expect(calls).toEqual([[1, 2]]);
  });

  it('keeps writing after a failed group', async () => {
    const w = deferred();
    const g = new GroupCommit({ write: w.write, maxRows: 100, maxInFlight: 1 });
    const first = g.add([1]);
    await turn();
    const second = g.add([2]);
    w.pending[0]!.fail(new StoreUnavailableError('down'));
    await expect(first).rejects.toThrow('down');
    await turn();
    w.pending[1]!.settle();
    expect(await second).toEqual([4]);
  });

  it('refuses bounds that are not integers ≥ 1', () => {
    const write = recorder().write;
    expect(() => new GroupCommit({ write, maxRows: 0, maxInFlight: 1 })).toThrow(RangeError);
    expect(() => new GroupCommit({ write, maxRows: 10, maxInFlight: 1.5 })).toThrow(RangeError);
  });
});
