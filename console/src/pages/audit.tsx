/**
 * Audit log: GET /audit-events, newest first, filtered by action, resource and actor key, a page at
 * a time (Previous / Next keep a stack of cursors); each event's changes shown as
 * "field: before → after" (secrets already read "[redacted]" on the wire).
 */
import { useEffect, useState } from 'preact/hooks';
import { listAuditEvents, type AuditEvent, type AuditFilter } from '../api';
import { Alert, errorText, Instant } from '../components/ui';

// Every action and resource type as a key: the compiler refuses one left out.
const ACTION_KEYS: Record<AuditEvent['action'], true> = {
  'schedule.create': true, 'schedule.update': true, 'schedule.delete': true, 'schedule.trigger': true,
  'cron.create': true, 'cron.update': true, 'cron.pause': true, 'cron.resume': true, 'cron.delete': true, 'cron.trigger': true,
  'cron.autoPause': true, 'cron.backfill': true, 'cron.bulk': true, 'schedule.bulk': true, 'execution.replay': true,
  'execution.bulkReplay': true,
  'apiKey.create': true, 'apiKey.update': true, 'apiKey.delete': true, 'apiKey.rotate': true,
  'channel.create': true, 'channel.update': true, 'channel.delete': true, 'auth.failure': true,
};
const RESOURCE_KEYS: Record<AuditEvent['resourceType'], true> = { schedule: true, cronJob: true, execution: true, apiKey: true, channel: true, address: true };
const ACTIONS = Object.keys(ACTION_KEYS);
const RESOURCES = Object.keys(RESOURCE_KEYS);
const PAGE = 50;

function actorText(a: AuditEvent['actor']): string {
  return typeof a === 'string' ? a : `${a.keyName} (${a.keyId})`;
}

function valueText(v: unknown): string {
  if (v === undefined) return '';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** The changes of an event, one line per field. */
function Changes({ changes }: { changes: AuditEvent['changes'] }) {
  const fields = Object.entries(changes);
  if (fields.length === 0) return <span class="muted">no field changed</span>;
  return (
    <ul class="plain" data-testid="audit-changes">
      {fields.map(([name, c]) => (
        <li key={name}>
          <code>{name}</code>:{' '}
          {'before' in c && <span>{valueText(c.before)}</span>}
          {'before' in c && 'after' in c && ' → '}
          {'after' in c && <span>{valueText(c.after)}</span>}
        </li>
      ))}
    </ul>
  );
}

export function AuditPage() {
  const [draft, setDraft] = useState<AuditFilter>({});
  const [filter, setFilter] = useState<AuditFilter>({});
  // The cursors of the pages before this one (the first page's is null), and this page's.
  const [cursors, setCursors] = useState<Array<string | null>>([null]);
  const [items, setItems] = useState<AuditEvent[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    document.title = 'Audit log · Punctual';
  }, []);

  const cursor = cursors[cursors.length - 1] ?? null;
  useEffect(() => {
    let live = true;
    setItems(null);
    listAuditEvents(filter, { limit: PAGE, cursor }).then(
      (page) => {
        if (!live) return;
        setItems(page.items);
        setNext(page.nextCursor);
        setError(null);
      },
      (err: unknown) => live && setError(errorText(err)),
    );
    return () => {
      live = false;
    };
  }, [filter, cursor]);

  const set = (k: keyof AuditFilter) => (e: Event) => setDraft({ ...draft, [k]: (e.target as HTMLInputElement).value.trim() });
  const submit = (e: Event) => {
    e.preventDefault();
    setFilter(draft);
    setCursors([null]);
  };

  return (
    <>
      <div class="page-head">
        <h1 tabIndex={-1}>Audit log</h1>
      </div>
      <p class="lead">Every change made through the API or the CLI, and by the service itself, newest first. Secrets read [redacted].</p>
      <form class="filters" role="search" aria-label="Filter the audit log" onSubmit={submit}>
        <div class="field">
          <label for="aud-action">Action</label>
          <select id="aud-action" value={draft.action ?? ''} onChange={set('action')}>
            <option value="">Any</option>
            {ACTIONS.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="aud-type">Resource type</label>
          <select id="aud-type" value={draft.resourceType ?? ''} onChange={set('resourceType')}>
            <option value="">Any</option>
            {RESOURCES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="aud-resource">Resource id</label>
          <input id="aud-resource" type="text" value={draft.resourceId ?? ''} onInput={set('resourceId')} />
        </div>
        <div class="field">
          <label for="aud-actor">Actor key id</label>
          <input id="aud-actor" type="text" value={draft.actorKeyId ?? ''} onInput={set('actorKeyId')} />
        </div>
        <div class="filter-actions">
          <button type="submit" class="button">
            Apply
          </button>
        </div>
      </form>
      {error && <Alert>Could not load the audit log: {error}</Alert>}
      {items === null && !error && <p aria-busy="true">Loading…</p>}
      {items !== null && items.length === 0 && <p class="empty">No event matches.</p>}
      {items !== null && items.length > 0 && (
        <div class="table-wrap">
          <table class="table stack">
            <caption class="visually-hidden">Audit events, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Actor</th>
                <th scope="col">Action</th>
                <th scope="col">Resource</th>
                <th scope="col">Changes</th>
              </tr>
            </thead>
            <tbody>
              {items.map((e) => (
                <tr key={e.id} data-testid="audit-event">
                  <td data-label="When">
                    <Instant iso={e.occurredAt} />
                  </td>
                  <td data-label="Actor">{actorText(e.actor)}</td>
                  <td data-label="Action">
                    <code>{e.action}</code>
                  </td>
                  <td data-label="Resource">
                    {e.resourceType} <code>{e.resourceId}</code>
                  </td>
                  <td data-label="Changes">
                    <Changes changes={e.changes} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {(cursors.length > 1 || next) && (
        <nav class="pager" aria-label="Audit log pages">
          <button type="button" class="button button-quiet" disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>
            Previous
          </button>
          <span>Page {cursors.length}</span>
          <button type="button" class="button button-quiet" disabled={!next} onClick={() => next && setCursors([...cursors, next])}>
            Next
          </button>
        </nav>
      )}
    </>
  );
}
