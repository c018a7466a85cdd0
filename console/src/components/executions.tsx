/** A job's execution history with each attempt (GET /schedules|cron/{id}/executions, cursor paging). */
import { useEffect, useRef, useState } from 'preact/hooks';
import { listExecutions, replayExecution, type Execution, type JobType } from '../api';
import { formatDuration, formatInstant, formatInstantMs } from '../format';
import { Alert, announce, errorText, Instant, StatusBadge } from './ui';

const PAGE_SIZE = 20;

/** Calls `fn` every `ms` while the tab is visible (and once at once). */
export function usePolling(fn: () => void | Promise<void>, ms: number, deps: unknown[]): void {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    let timer = 0;
    let alive = true;
    const tick = async () => {
      if (document.visibilityState !== 'hidden') {
        try {
          await saved.current();
        } catch {
          // the callee shows its own errors
        }
      }
      if (alive) timer = window.setTimeout(tick, ms);
    };
    void tick();
    return () => {
      alive = false;
      window.clearTimeout(timer);
    };
  }, deps);
}

/** "12 occurrences", or "at least 1000 occurrences" when the count stopped at its cap. */
function missedCount(m: NonNullable<Execution['missedOccurrences']>): string {
  return `${m.capped ? 'at least ' : ''}${m.count} occurrences`;
}

function lastCode(e: Execution): string {
  const a = e.attempts[e.attempts.length - 1];
  if (!a) return 'no attempt yet';
  return a.statusCode === null ? 'no answer' : `HTTP ${a.statusCode}`;
}

/**
 * The executions of a job, newest first, `PAGE_SIZE` at a time with "Load older", refreshed every
 * `pollMs` (new executions appear at the top). The newest one is open, showing its attempts.
 */
export function ExecutionHistory({ jobType, jobId, pollMs = 2_000 }: { jobType: JobType; jobId: string; pollMs?: number }) {
  const [items, setItems] = useState<Execution[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const olderPages = useRef(0);

  usePolling(
    async () => {
      try {
        const page = await listExecutions(jobType, jobId, { limit: PAGE_SIZE });
        setError(null);
        if (olderPages.current === 0) {
          setItems(page.items);
          setCursor(page.nextCursor);
          return;
        }
        setItems((prev) => {
          const fresh = new Map(page.items.map((e) => [e.id, e]));
          const rest = (prev ?? []).filter((e) => !fresh.has(e.id));
          return [...page.items, ...rest].sort((a, b) => b.scheduledFor.localeCompare(a.scheduledFor));
        });
      } catch (err) {
        setError(errorText(err));
      }
    },
    pollMs,
    [jobType, jobId],
  );

  const loadMore = async () => {
    if (!cursor) return;
    setLoadingMore(true);
    try {
      const page = await listExecutions(jobType, jobId, { limit: PAGE_SIZE, cursor });
      olderPages.current++;
      setItems((prev) => {
        const seen = new Set((prev ?? []).map((e) => e.id));
        return [...(prev ?? []), ...page.items.filter((e) => !seen.has(e.id))];
      });
      setCursor(page.nextCursor);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setLoadingMore(false);
    }
  };

  return (
    <section class="card" aria-labelledby="history-title">
      <div class="card-head">
        <h2 id="history-title">Executions</h2>
        <p class="muted">Newest first · refreshed every {Math.round(pollMs / 1_000)} s</p>
      </div>
      {error && <Alert>Could not load the executions: {error}</Alert>}
      {items === null && !error && <p aria-busy="true">Loading executions…</p>}
      {items !== null && items.length === 0 && <p class="empty">No executions yet.</p>}
      {items !== null && items.length > 0 && (
        <ol class="executions" aria-label="Executions, newest first">
          {items.map((e, i) => (
            <li key={e.id} class="execution" data-status={e.status}>
              <details open={i === 0}>
                <summary>
                  <StatusBadge status={e.status} />
                  <span class="execution-when">
                    <span class="visually-hidden">Scheduled for </span>
                    <time dateTime={e.scheduledFor} title={`${e.scheduledFor} (UTC)`}>
                      {formatInstant(e.scheduledFor)}
                    </time>
                  </span>
                  <span class="execution-meta">
                    {e.triggered && <span class="chip">run now</span>}
                    {e.waitingFor === 'flowControl' && (
                      <span class="chip" title={`Due, and waiting for the limits of the flow-control key ${e.flowControlKey ?? ''}`}>
                        waiting for flow control
                      </span>
                    )}
                    {e.missedOccurrences && (
                      <span class="chip" title="One run for several occurrences missed (misfire: once)">
                        stands for {missedCount(e.missedOccurrences)}
                      </span>
                    )}
                    <span>late {formatDuration(e.lateMs)}</span>
                    <span>
                      {e.attempts.length} attempt{e.attempts.length === 1 ? '' : 's'} · {lastCode(e)}
                    </span>
                  </span>
                </summary>
                <ExecutionBody
                  execution={e}
                  onReplayed={(r) => setItems((prev) => (prev ?? []).map((x) => (x.id === r.id ? r : x)))}
                />
              </details>
            </li>
          ))}
        </ol>
      )}
      {cursor && (
        <button type="button" class="button" onClick={loadMore} disabled={loadingMore}>
          {loadingMore ? 'Loading…' : 'Load older executions'}
        </button>
      )}
    </section>
  );
}

/**
 * "Replay" for a Failed execution (POST /executions/{id}/replay): it is called again, attempt N+1
 * with the same webhook-id and a fresh attempt budget. `onReplayed` gets the execution as replayed.
 */
export function ReplayButton({ execution, onReplayed }: { execution: Execution; onReplayed?: (e: Execution) => void }) {
  const [busy, setBusy] = useState(false);
  const replay = async () => {
    setBusy(true);
    try {
      const e = await replayExecution(execution.id);
      announce(`Execution replayed: attempt ${e.attempts.length + 1} is due now.`);
      onReplayed?.(e);
    } catch (err) {
      announce(`Could not replay the execution: ${errorText(err)}`, 'error');
    } finally {
      setBusy(false);
    }
  };
  return (
    <button type="button" class="button" onClick={replay} disabled={busy}>
      {busy ? 'Replaying…' : 'Replay'}
      <span class="visually-hidden">
        {' '}
        the execution scheduled for {formatInstant(execution.scheduledFor)}
      </span>
    </button>
  );
}

function ExecutionBody({ execution: e, onReplayed }: { execution: Execution; onReplayed?: (e: Execution) => void }) {
  return (
    <div class="execution-body">
      {e.status === 'Failed' && (
        <p class="actions">
          <ReplayButton execution={e} onReplayed={onReplayed} />{' '}
          <span class="muted">Calls it again: the same webhook-id, attempt {e.attempts.length + 1}, a fresh attempt budget.</span>
        </p>
      )}
      <dl class="facts facts-compact">
        <div>
          <dt>Execution id (webhook-id)</dt>
          <dd>
            <code>{e.id}</code>
          </dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>
            <Instant iso={e.startedAt} relative={false} />
          </dd>
        </div>
        <div>
          <dt>Finished</dt>
          <dd>
            <Instant iso={e.finishedAt} relative={false} />
          </dd>
        </div>
        {e.flowControlKey !== null && (
          <div>
            <dt>Flow-control key</dt>
            <dd>
              <code>{e.flowControlKey}</code>
            </dd>
          </div>
        )}
        {e.missedOccurrences && (
          <div>
            <dt>Missed occurrences (one run for all)</dt>
            <dd>
              {missedCount(e.missedOccurrences)}, from <time dateTime={e.missedOccurrences.first}>{formatInstantMs(e.missedOccurrences.first)}</time>{' '}
              to <time dateTime={e.missedOccurrences.last}>{formatInstantMs(e.missedOccurrences.last)}</time>
            </dd>
          </div>
        )}
      </dl>
      {e.attempts.length === 0 ? (
        <p class="muted">No attempt yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="table attempts">
            <caption class="visually-hidden">Attempts of this execution</caption>
            <thead>
              <tr>
                <th scope="col">#</th>
                <th scope="col">Started</th>
                <th scope="col">Request</th>
                <th scope="col">Status code</th>
                <th scope="col">Duration</th>
                <th scope="col">Error</th>
                <th scope="col">Response (first KiB)</th>
              </tr>
            </thead>
            <tbody>
              {e.attempts.map((a) => (
                <tr key={a.number}>
                  <td data-label="#">{a.number}</td>
                  <td data-label="Started">
                    <time dateTime={a.startedAt}>{formatInstantMs(a.startedAt)}</time>
                    {a.waitedMs !== null && <span class="muted"> after waiting {formatDuration(a.waitedMs)} for flow control</span>}
                  </td>
                  <td data-label="Request">
                    <code data-testid="attempt-method">{a.method}</code>{' '}
                    <span class="url" data-testid="attempt-url">
                      {a.url ?? '—'}
                    </span>
                  </td>
                  <td data-label="Status code">
                    {a.statusCode === null ? (
                      <span class="muted">none</span>
                    ) : (
                      <span class={a.statusCode >= 200 && a.statusCode < 300 ? 'code-ok' : 'code-bad'}>{a.statusCode}</span>
                    )}
                  </td>
                  <td data-label="Duration">{formatDuration(a.durationMs)}</td>
                  <td data-label="Error">{a.error ?? <span class="muted">—</span>}</td>
                  <td data-label="Response">
                    {a.responseBody === null || a.responseBody === '' ? (
                      <span class="muted">—</span>
                    ) : (
                      <pre class="excerpt">{a.responseBody}</pre>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
