/** The list of schedules, with filters and paging. */
import { useEffect } from 'preact/hooks';
import { bulkSchedules, listSchedules, SCHEDULE_STATUSES } from '../api';
import { Alert, Instant, StatusBadge } from '../components/ui';
import { Link, useLocation } from '../router';
import { BulkActions } from './bulk-actions';
import { FilterForm, filtersFrom, Pager, usePagedList } from './list-common';

export function ScheduleListPage() {
  const loc = useLocation();
  const filters = filtersFrom(loc.query);
  const list = usePagedList(listSchedules, filters);

  useEffect(() => {
    document.title = 'Schedules · Punctual';
  }, []);

  return (
    <>
      <div class="page-head">
        <h1 tabIndex={-1}>Schedules</h1>
        <Link href="/schedules/new" class="button button-primary">
          New schedule
        </Link>
      </div>
      <p class="lead">One-time jobs: Punctual calls the endpoint once, at the instant given.</p>
      <FilterForm path="/schedules" filters={filters} statuses={SCHEDULE_STATUSES} withTags label="schedules" />
      <BulkActions filters={filters} noun="schedules" actions={[{ verb: 'delete', run: bulkSchedules }]} onDone={list.reload} />
      {list.error && <Alert>Could not load the schedules: {list.error}</Alert>}
      {list.items === null && !list.error && <p aria-busy="true">Loading…</p>}
      {list.items !== null && list.items.length === 0 && list.hasNext && (
        <p class="empty">No schedule on this page matches these filters; the service looked at a stretch of the list. Go on with Next.</p>
      )}
      {list.items !== null && list.items.length === 0 && !list.hasNext && (
        <p class="empty">
          {filters.name || filters.status || filters.tag ? 'No schedule matches these filters.' : 'No schedules yet.'}{' '}
          <Link href="/schedules/new">Create one</Link>.
        </p>
      )}
      {list.items !== null && list.items.length > 0 && (
        <div class="table-wrap">
          <table class="table stack" aria-busy={list.loading ? 'true' : 'false'}>
            <caption class="visually-hidden">Schedules, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Scheduled at</th>
                <th scope="col">Endpoint</th>
                <th scope="col">Tags</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((s) => (
                <tr key={s.id}>
                  <th scope="row" data-label="Name">
                    <Link href={`/schedules/${s.id}`}>{s.name}</Link>
                  </th>
                  <td data-label="Status">
                    <StatusBadge status={s.status} />
                  </td>
                  <td data-label="Scheduled at">
                    <Instant iso={s.scheduledAt} />
                  </td>
                  <td data-label="Endpoint" class="url">
                    {s.endpoint}
                  </td>
                  <td data-label="Tags">
                    {s.tags.length ? s.tags.map((t) => <span class="chip" key={t}>{t}</span>) : <span class="muted">—</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.items !== null && (list.pageNumber > 1 || list.hasNext) && <Pager list={list} label="Schedule" />}
    </>
  );
}
