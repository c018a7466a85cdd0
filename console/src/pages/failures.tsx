/**
 * Failures: the last day's Failed executions (GET /executions?status=Failed&from=…), grouped by
 * job, each with its last attempt's status code and error, a "Replay" per execution
 * (POST /executions/{id}/replay) and "Replay all of this job" (POST /executions/replay with the
 * job and the same day). Refreshed every 5 s.
 */
import { useEffect, useState } from 'preact/hooks';
import { getCronJob, getSchedule, replayExecutions, searchExecutions, type Execution, type JobType } from '../api';
import { ReplayButton, usePolling } from '../components/executions';
import { Alert, announce, errorText, Instant } from '../components/ui';
import { Link } from '../router';
import { cronTitle } from './cron-list';

/** How far back the page looks, in ms. */
const WINDOW_MS = 24 * 3_600_000;
/** Most failures the page reads (pages of 1,000). */
const MAX = 5_000;

interface JobGroup {
  jobType: JobType;
  jobId: string;
  executions: Execution[];
}

/** Failures grouped by job, the job with the newest failure first (the executions come newest first). */
function groupByJob(executions: Execution[]): JobGroup[] {
  const groups = new Map<string, JobGroup>();
  for (const e of executions) {
    const key = `${e.jobType}:${e.jobId}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { jobType: e.jobType, jobId: e.jobId, executions: [] }));
    g.executions.push(e);
  }
  return [...groups.values()];
}

function lastAttempt(e: Execution): { code: string; error: string } {
  const a = e.attempts[e.attempts.length - 1];
  if (!a) return { code: '—', error: 'no attempt (the job was deleted)' };
  return { code: a.statusCode === null ? 'no answer' : String(a.statusCode), error: a.error ?? '—' };
}

export function FailuresPage() {
  const [items, setItems] = useState<Execution[] | null>(null);
  const [truncated, setTruncated] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [names, setNames] = useState<Record<string, string>>({});
  const [since, setSince] = useState(() => new Date(Date.now() - WINDOW_MS).toISOString());

  useEffect(() => {
    document.title = 'Failures · Punctual';
  }, []);

  const load = async () => {
    const from = new Date(Date.now() - WINDOW_MS).toISOString();
    try {
      const all: Execution[] = [];
      let cursor: string | null = null;
      do {
        const page: { items: Execution[]; nextCursor: string | null } = await searchExecutions({ status: ['Failed'], from }, { limit: 1_000, cursor });
        all.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor && all.length < MAX);
      setItems(all);
      setTruncated(cursor !== null);
      setSince(from);
      setError(null);
    } catch (err) {
      setError(errorText(err));
    }
  };
  usePolling(load, 5_000, []);

  // The jobs' names, once per job (a deleted job keeps its id).
  useEffect(() => {
    for (const g of groupByJob(items ?? [])) {
      const key = `${g.jobType}:${g.jobId}`;
      if (key in names) continue;
      setNames((n) => ({ ...n, [key]: '' }));
      const get = g.jobType === 'schedule' ? getSchedule(g.jobId).then((s) => s?.name) : getCronJob(g.jobId).then((c) => c && cronTitle(c));
      get.then(
        (name) => setNames((n) => ({ ...n, [key]: name ?? 'deleted job' })),
        () => undefined,
      );
    }
  }, [items]);

  const replayAll = async (g: JobGroup) => {
    try {
      const count = await replayExecutions({ jobType: g.jobType, jobId: g.jobId, from: since });
      announce(`${count} execution${count === 1 ? '' : 's'} replayed.`);
      await load();
    } catch (err) {
      announce(`Could not replay: ${errorText(err)}`, 'error');
    }
  };

  const groups = groupByJob(items ?? []);
  return (
    <>
      <div class="page-head">
        <h1 tabIndex={-1}>Failures</h1>
      </div>
      <p class="lead">
        Executions that failed in the last 24 hours, by job. A replay calls the same execution again: the same webhook-id, the
        next attempt number, and a fresh attempt budget from the job's retry policy.
      </p>
      {error && <Alert>Could not load the failures: {error}</Alert>}
      {items === null && !error && <p aria-busy="true">Loading…</p>}
      {items !== null && items.length === 0 && <p class="empty">No failures in the last 24 hours.</p>}
      {truncated && <p class="muted">Showing the newest {MAX.toLocaleString('en')} failures.</p>}
      {groups.map((g) => {
        const key = `${g.jobType}:${g.jobId}`;
        const title = names[key] || `${g.jobType === 'schedule' ? 'Schedule' : 'Cron job'} ${g.jobId}`;
        const headId = `failures-${g.jobId}`;
        return (
          <section key={key} class="card" aria-labelledby={headId} data-testid="failure-group">
            <div class="card-head">
              <div>
                <h2 id={headId}>
                  <Link href={`/${g.jobType === 'schedule' ? 'schedules' : 'cron'}/${g.jobId}`}>{title}</Link>
                </h2>
                <p class="muted">
                  {g.jobType === 'schedule' ? 'Schedule' : 'Cron job'} · {g.executions.length} failed
                </p>
              </div>
              <button type="button" class="button" onClick={() => replayAll(g)}>
                Replay all of this job<span class="visually-hidden"> ({title})</span>
              </button>
            </div>
            <div class="table-wrap">
              <table class="table stack">
                <caption class="visually-hidden">Failed executions of {title}, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Scheduled for</th>
                    <th scope="col">Attempts</th>
                    <th scope="col">Last status code</th>
                    <th scope="col">Last error</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {g.executions.map((e) => {
                    const last = lastAttempt(e);
                    return (
                      <tr key={e.id} data-testid="failure">
                        <td data-label="Scheduled for">
                          <Instant iso={e.scheduledFor} />
                        </td>
                        <td data-label="Attempts">{e.attempts.length}</td>
                        <td data-label="Last status code">
                          <span class="code-bad">{last.code}</span>
                        </td>
                        <td data-label="Last error">{last.error}</td>
                        <td data-label="Actions">
                          <ReplayButton execution={e} onReplayed={() => void load()} />
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          </section>
        );
      })}
    </>
  );
}
