/**
 * The backfill form of a cron job's page (docs/cron.md, "Backfill"): a range of past instants, in
 * the browser's zone, and the count of executions created.
 */
import { useState } from 'preact/hooks';
import { backfillCron } from '../api';
import { fromLocalInput, toLocalInput } from '../format';
import { Alert, announce, errorText, Field } from './ui';

/** A `datetime-local` value `ms` before now (the browser's zone, whole seconds). */
const before = (ms: number) => toLocalInput(new Date(Math.floor((Date.now() - ms) / 1000) * 1000).toISOString());

/** Runs the past occurrences of the cron job `id` in [from, to) that have no execution. */
export function BackfillForm({ id }: { id: string }) {
  const [from, setFrom] = useState(() => before(86_400_000));
  const [to, setTo] = useState(() => before(0));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [count, setCount] = useState<number | null>(null);

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setCount(null);
    const f = fromLocalInput(from);
    const t = fromLocalInput(to);
    if (f === null || t === null) {
      setError('Give both instants.');
      return;
    }
    setBusy(true);
    try {
      const n = await backfillCron(id, f, t);
      setCount(n);
      announce(`Backfill: ${n} execution${n === 1 ? '' : 's'} created.`);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="backfill-title">
      <h2 id="backfill-title">Backfill</h2>
      <p class="muted">
        Runs the past occurrences in the range that have no execution (at most 1,000; within the execution retention), oldest
        first, at the pace of the overlap policy. Failed ones are replayed from the failures page instead.
      </p>
      <form onSubmit={(e) => void submit(e)}>
        <Field name="backfill-from" label="From (inclusive)">
          {(attrs) => (
            <input {...attrs} type="datetime-local" step={1} required value={from} onInput={(e) => setFrom((e.currentTarget as HTMLInputElement).value)} />
          )}
        </Field>
        <Field name="backfill-to" label="To (exclusive, not after now)">
          {(attrs) => (
            <input {...attrs} type="datetime-local" step={1} required value={to} onInput={(e) => setTo((e.currentTarget as HTMLInputElement).value)} />
          )}
        </Field>
        <button type="submit" class="button" disabled={busy}>
          Backfill
        </button>
      </form>
      {error && <Alert>{error}</Alert>}
      {count !== null && (
        <p role="status">
          {count === 0 ? 'Nothing to backfill: every occurrence in the range has an execution.' : `${count} execution${count === 1 ? '' : 's'} created.`}
        </p>
      )}
    </section>
  );
}
