/** The list of cron jobs, with filters and paging. */
import { useEffect } from 'preact/hooks';
import { bulkCronJobs, CRON_JOB_STATUSES, listCronJobs, type CronJob } from '../api';
import { describeCron } from '../components/cron-preview';
import { Alert, Instant, StatusBadge } from '../components/ui';
import { Link, useLocation } from '../router';
import { BulkActions, type BulkAction } from './bulk-actions';
import { FilterForm, filtersFrom, Pager, usePagedList } from './list-common';

/** The bulk actions of the cron list. */
const CRON_BULK: BulkAction[] = (['pause', 'resume', 'delete'] as const).map((verb) => ({
  verb,
  run: (filter, dryRun) => bulkCronJobs(verb, filter, dryRun),
}));

/** A cron job's display name: its name, or its expression when it has none. */
export function cronTitle(job: Pick<CronJob, 'name' | 'expression'>): string {
  return job.name ?? `Cron job ${job.expression}`;
}

export function CronListPage() {
  const loc = useLocation();
  const filters = filtersFrom(loc.query);
  const list = usePagedList(listCronJobs, filters);

  useEffect(() => {
    document.title = 'Cron jobs · Punctual';
  }, []);

  return (
    <>
      <div class="page-head">
        <h1 tabIndex={-1}>Cron jobs</h1>
        <Link href="/cron/new" class="button button-primary">
          New cron job
        </Link>
      </div>
      <p class="lead">Recurring jobs: Punctual calls the endpoint at each occurrence of the expression, in its time zone.</p>
      <FilterForm path="/cron" filters={filters} statuses={CRON_JOB_STATUSES} withTags label="cron jobs" />
      <BulkActions filters={filters} noun="cron jobs" actions={CRON_BULK} onDone={list.reload} />
      {list.error && <Alert>Could not load the cron jobs: {list.error}</Alert>}
      {list.items === null && !list.error && <p aria-busy="true">Loading…</p>}
      {list.items !== null && list.items.length === 0 && list.hasNext && (
        <p class="empty">No cron job on this page matches these filters; the service looked at a stretch of the list. Go on with Next.</p>
      )}
      {list.items !== null && list.items.length === 0 && !list.hasNext && (
        <p class="empty">
          {filters.name || filters.status || filters.tag ? 'No cron job matches these filters.' : 'No cron jobs yet.'}{' '}
          <Link href="/cron/new">Create one</Link>.
        </p>
      )}
      {list.items !== null && list.items.length > 0 && (
        <div class="table-wrap">
          <table class="table stack" aria-busy={list.loading ? 'true' : 'false'}>
            <caption class="visually-hidden">Cron jobs, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Schedule</th>
                <th scope="col">Status</th>
                <th scope="col">Next run</th>
                <th scope="col">Last run</th>
                <th scope="col">Tags</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((j) => (
                <tr key={j.id}>
                  <th scope="row" data-label="Name">
                    <Link href={`/cron/${j.id}`}>{cronTitle(j)}</Link>
                  </th>
                  <td data-label="Schedule">
                    <code>{j.expression}</code>
                    <div class="muted small">
                      {describeCron(j.expression) ?? ''} · {j.timezone ?? 'UTC'}
                    </div>
                  </td>
                  <td data-label="Status">
                    <StatusBadge status={j.status} />
                  </td>
                  <td data-label="Next run">{j.status === 'Active' ? <Instant iso={j.nextInvocation} /> : <span class="muted">{j.status.toLowerCase()}</span>}</td>
                  <td data-label="Last run">
                    {j.lastInvocation ? (
                      <>
                        <StatusBadge status={j.lastStatus} /> <Instant iso={j.lastInvocation} />
                      </>
                    ) : (
                      <span class="muted">never</span>
                    )}
                  </td>
                  <td data-label="Tags">
                    {j.tags.length ? j.tags.map((t) => <span class="chip" key={t}>{t}</span>) : <span class="muted">—</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.items !== null && (list.pageNumber > 1 || list.hasNext) && <Pager list={list} label="Cron job" />}
    </>
  );
}
