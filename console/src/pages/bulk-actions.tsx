/**
 * Acting on every job a list's filter selects (POST /cron/bulk, POST /schedules/bulk): one button
 * per action, shown when the filter has a tag or a status; each first asks the service how many
 * jobs the action would change (a dry run), shows that count in a confirmation, and acts only on
 * confirm. The name filter is not part of a bulk filter: the buttons say so.
 */
import { useRef, useState } from 'preact/hooks';
import type { BulkFilter } from '../api';
import { Alert, announce, errorText } from '../components/ui';
import { splitTags, type Filters } from './list-common';

/** One action: its verb (button and question) and the call (dry or not) answering the count. */
export interface BulkAction {
  verb: string;
  run: (filter: BulkFilter, dryRun: boolean) => Promise<number>;
}

/** The bulk filter of a list's filters, or null when it has neither tag nor status. */
export function bulkFilterOf(filters: Filters): BulkFilter | null {
  const tag = splitTags(filters.tag);
  const f: BulkFilter = { ...(tag.length > 0 && { tag }), ...(filters.status && { status: filters.status }) };
  return Object.keys(f).length === 0 ? null : f;
}

/** The bulk action buttons of a list (`noun`: the jobs, plural), and their confirmation. */
export function BulkActions({ filters, noun, actions, onDone }: { filters: Filters; noun: string; actions: BulkAction[]; onDone: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [pending, setPending] = useState<{ action: BulkAction; count: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const filter = bulkFilterOf(filters);
  if (filter === null) return null;

  const ask = async (action: BulkAction) => {
    setError(null);
    try {
      const count = await action.run(filter, true);
      setPending({ action, count });
      dialog.current?.showModal();
    } catch (err) {
      setError(errorText(err));
    }
  };
  const confirm = async () => {
    if (!pending) return;
    setBusy(true);
    try {
      const count = await pending.action.run(filter, false);
      announce(`${count} ${noun}: ${pending.action.verb} done.`);
      onDone();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
      dialog.current?.close();
    }
  };

  return (
    <div class="bulk-actions">
      <span class="muted small">Every {noun.replace(/s$/, '')} matching the tag and status filters{filters.name ? ' (the name filter is not applied)' : ''}:</span>{' '}
      {actions.map((a) => (
        <button type="button" class="button" key={a.verb} onClick={() => void ask(a)}>
          {a.verb[0]!.toUpperCase() + a.verb.slice(1)} matching…
        </button>
      ))}
      {error && <Alert>Could not act on the {noun}: {error}</Alert>}
      <dialog ref={dialog} aria-labelledby="bulk-title" class="dialog">
        <h2 id="bulk-title">{pending ? `${pending.action.verb[0]!.toUpperCase()}${pending.action.verb.slice(1)} ${pending.count} ${noun}?` : ''}</h2>
        <div>
          {pending?.count === 0 ? <p>No {noun.replace(/s$/, '')} would change.</p> : <p>{pending?.count} {noun} match; {pending?.action.verb} them?</p>}
        </div>
        <div class="actions">
          <button type="button" class="button" autofocus onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="button" class="button button-danger" disabled={busy || pending?.count === 0} onClick={() => void confirm()}>
            {pending ? pending.action.verb[0]!.toUpperCase() + pending.action.verb.slice(1) : ''}
          </button>
        </div>
      </dialog>
    </div>
  );
}
