/**
 * The overview: jobs by state, calls of the last hour by outcome, lateness over the last hour,
 * and what comes next. Built from the lists and from the executions of the jobs that ran in the
 * last hour (the API has no global execution feed): at most {@link MAX_JOBS} jobs and
 * {@link MAX_PAGES} pages of 100 executions each, newest first.
 */
import { useEffect, useState } from 'preact/hooks';
import { listAll, listCronJobs, listExecutions, listSchedules, type CronJob, type Execution, type JobType, type Schedule } from '../api';
import { BarList, LatenessChart, type Bar, type LatePoint } from '../components/charts';
import { usePolling } from '../components/executions';
import { Alert, errorText, Instant, StatusBadge } from '../components/ui';
import { formatInstant } from '../format';
import { Link } from '../router';
import { cronTitle } from './cron-list';

const WINDOW_MS = 60 * 60_000;
const MAX_JOBS = 100;
const MAX_PAGES = 10;
const REFRESH_MS = 15_000;

interface Overview {
  at: number;
  schedules: Schedule[];
  cronJobs: CronJob[];
  executions: Execution[];
  jobsRead: number;
  jobsSkipped: number;
  truncated: boolean;
}

async function executionsSince(jobType: JobType, id: string, since: number): Promise<{ items: Execution[]; truncated: boolean }> {
  const items: Execution[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < MAX_PAGES; page++) {
    const p = await listExecutions(jobType, id, { limit: 100, cursor });
    for (const e of p.items) if (Date.parse(e.scheduledFor) >= since) items.push(e);
    const last = p.items[p.items.length - 1];
    if (!p.nextCursor || !last || Date.parse(last.scheduledFor) < since) return { items, truncated: false };
    cursor = p.nextCursor;
  }
  return { items, truncated: true };
}

async function load(): Promise<Overview> {
  const at = Date.now();
  const since = at - WINDOW_MS;
  const [schedules, cronJobs] = await Promise.all([listAll(listSchedules), listAll(listCronJobs)]);
  const recent: Array<{ jobType: JobType; id: string; at: number }> = [
    ...schedules
      .filter((s) => s.status !== 'Pending' && Math.max(Date.parse(s.scheduledAt), Date.parse(s.createdAt)) >= since)
      .map((s) => ({ jobType: 'schedule' as const, id: s.id, at: Date.parse(s.scheduledAt) })),
    ...cronJobs
      .filter((j) => j.lastInvocation && Date.parse(j.lastInvocation) >= since)
      .map((j) => ({ jobType: 'cron' as const, id: j.id, at: Date.parse(j.lastInvocation!) })),
  ].sort((a, b) => b.at - a.at);
  const read = recent.slice(0, MAX_JOBS);
  const executions: Execution[] = [];
  let truncated = false;
  // A few at a time: the service serves other clients too.
  for (let i = 0; i < read.length; i += 4) {
    const batch = await Promise.all(read.slice(i, i + 4).map((j) => executionsSince(j.jobType, j.id, since)));
    for (const b of batch) {
      executions.push(...b.items);
      truncated ||= b.truncated;
    }
  }
  return { at, schedules, cronJobs, executions, jobsRead: read.length, jobsSkipped: recent.length - read.length, truncated };
}

function callBars(executions: Execution[], since: number): Bar[] {
  const counts = { ok: 0, redirect: 0, refused: 0, server: 0, none: 0 };
  for (const e of executions)
    for (const a of e.attempts) {
      if (Date.parse(a.startedAt) < since) continue;
      const c = a.statusCode;
      if (c === null) counts.none++;
      else if (c < 300) counts.ok++;
      else if (c < 400) counts.redirect++;
      else if (c < 500) counts.refused++;
      else counts.server++;
    }
  return [
    { label: '2xx success', count: counts.ok, tone: 'ok' },
    { label: '4xx refused', count: counts.refused, tone: 'bad' },
    { label: '5xx server error', count: counts.server, tone: 'bad' },
    { label: '3xx redirect', count: counts.redirect, tone: 'warn' },
    { label: 'No answer (error, timeout)', count: counts.none, tone: 'warn' },
  ];
}

function executionBars(executions: Execution[]): Bar[] {
  const order: Array<[Execution['status'], Bar['tone']]> = [
    ['Succeeded', 'ok'],
    ['Failed', 'bad'],
    ['Retrying', 'warn'],
    ['Running', 'info'],
    ['Pending', 'neutral'],
    ['Skipped', 'neutral'],
  ];
  return order.map(([status, tone]) => ({ label: status, count: executions.filter((e) => e.status === status).length, tone }));
}

export function OverviewPage() {
  const [data, setData] = useState<Overview | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [refreshing, setRefreshing] = useState(false);

  useEffect(() => {
    document.title = 'Overview · Punctual';
  }, []);

  const refresh = async () => {
    setRefreshing(true);
    try {
      setData(await load());
      setError(null);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setRefreshing(false);
    }
  };
  usePolling(refresh, REFRESH_MS, []);

  const since = (data?.at ?? Date.now()) - WINDOW_MS;
  const points: LatePoint[] = (data?.executions ?? [])
    .filter((e) => e.lateMs !== null)
    .map((e) => ({ at: Date.parse(e.scheduledFor), lateMs: e.lateMs!, failed: e.status === 'Failed' }));
  const calls = data ? callBars(data.executions, since) : [];
  const totalCalls = calls.reduce((n, b) => n + b.count, 0);

  const upcoming = data
    ? [
        ...data.schedules
          .filter((s) => s.status === 'Pending')
          .map((s) => ({ href: `/schedules/${s.id}`, name: s.name, kind: 'Schedule', at: s.scheduledAt })),
        ...data.cronJobs
          .filter((j) => j.status === 'Active' && j.nextInvocation !== null)
          .map((j) => ({ href: `/cron/${j.id}`, name: cronTitle(j), kind: 'Cron job', at: j.nextInvocation ?? '' })),
      ]
        .sort((a, b) => a.at.localeCompare(b.at))
        .slice(0, 6)
    : [];

  const count = <T extends { status: string }>(list: T[], status: string) => list.filter((x) => x.status === status).length;

  return (
    <>
      <div class="page-head">
        <h1 tabIndex={-1}>Overview</h1>
        <div class="actions">
          <span class="muted small" aria-live="polite">
            {data ? `As of ${formatInstant(new Date(data.at).toISOString())}` : ''}
          </span>
          <button type="button" class="button" onClick={refresh} disabled={refreshing}>
            {refreshing ? 'Refreshing…' : 'Refresh'}
          </button>
        </div>
      </div>
      {error && <Alert>Could not load the overview: {error}</Alert>}
      {!data && !error && <p aria-busy="true">Loading…</p>}
      {data && (
        <>
          <div class="stats">
            <Link href="/schedules" class="stat card">
              <span class="stat-value">{data.schedules.length}</span>
              <span class="stat-label">schedules</span>
              <span class="stat-detail">
                {count(data.schedules, 'Pending')} pending · {count(data.schedules, 'Running')} running ·{' '}
                {count(data.schedules, 'Failed')} failed
              </span>
            </Link>
            <Link href="/cron" class="stat card">
              <span class="stat-value">{data.cronJobs.length}</span>
              <span class="stat-label">cron jobs</span>
              <span class="stat-detail">
                {count(data.cronJobs, 'Active')} active · {count(data.cronJobs, 'Paused')} paused
              </span>
            </Link>
            <div class="stat card">
              <span class="stat-value">{totalCalls}</span>
              <span class="stat-label">calls in the last hour</span>
              <span class="stat-detail">{data.executions.length} executions</span>
            </div>
          </div>
          <div class="grid-overview">
            <section class="card" aria-labelledby="calls-title">
              <h2 id="calls-title">Calls in the last hour, by outcome</h2>
              <BarList bars={calls} label="Calls by outcome" />
              <h3 class="small-heading">Executions by status</h3>
              <BarList bars={executionBars(data.executions)} label="Executions by status" />
            </section>
            <section class="card" aria-labelledby="late-chart-title">
              <h2 id="late-chart-title">Lateness</h2>
              <p class="muted small">How long after its instant each execution's first call started.</p>
              <LatenessChart points={points} from={since} to={data.at} />
            </section>
          </div>
          <section class="card" aria-labelledby="next-title">
            <h2 id="next-title">Coming up</h2>
            {upcoming.length === 0 ? (
              <p class="empty">
                Nothing is due. <Link href="/schedules/new">New schedule</Link> · <Link href="/cron/new">New cron job</Link>
              </p>
            ) : (
              <ul class="upcoming">
                {upcoming.map((u) => (
                  <li key={u.href}>
                    <Link href={u.href}>{u.name}</Link> <span class="muted small">{u.kind}</span> <Instant iso={u.at} />
                  </li>
                ))}
              </ul>
            )}
          </section>
          {data.cronJobs.some((j) => j.lastStatus === 'Failed') && (
            <section class="card" aria-labelledby="failing-title">
              <h2 id="failing-title">Cron jobs whose last run failed</h2>
              <ul class="upcoming">
                {data.cronJobs
                  .filter((j) => j.lastStatus === 'Failed')
                  .map((j) => (
                    <li key={j.id}>
                      <Link href={`/cron/${j.id}`}>{cronTitle(j)}</Link> <StatusBadge status={j.lastStatus} />{' '}
                      <Instant iso={j.lastInvocation} />
                    </li>
                  ))}
              </ul>
            </section>
          )}
          <p class="muted small">
            From the executions of {data.jobsRead} job{data.jobsRead === 1 ? '' : 's'} that ran in the last hour
            {data.jobsSkipped > 0 ? ` (${data.jobsSkipped} more not read)` : ''}
            {data.truncated ? '; busy jobs are counted from their newest 1,000 executions' : ''}. Refreshed every{' '}
            {REFRESH_MS / 1_000} s.
          </p>
        </>
      )}
    </>
  );
}
