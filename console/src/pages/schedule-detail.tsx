/** A schedule: its fields, actions (edit, run now, delete) and its execution history. */
import { useEffect, useState } from 'preact/hooks';
import { deleteSchedule, getSchedule, triggerJob } from '../api';
import { ExecutionHistory } from '../components/executions';
import { RequestCard, SigningSecret } from '../components/request-view';
import { Alert, announce, ConfirmButton, errorText, Instant, StatusBadge } from '../components/ui';
import { formatDuration } from '../format';
import { Link, navigate } from '../router';
import { DeliveryFacts, useJob } from './detail-common';
import { FlowControlFact } from './flow-control-fields';
import { SuccessFacts } from './outcome-fields';

export function ScheduleDetailPage({ id }: { id: string }) {
  const { job: s, error, reload } = useJob(getSchedule, id);
  const [actionError, setActionError] = useState<string | null>(null);

  useEffect(() => {
    document.title = `${s ? s.name : 'Schedule'} · Punctual`;
  }, [s?.name]);

  const runNow = async () => {
    setActionError(null);
    try {
      const e = await triggerJob('schedule', id);
      announce(`Schedule triggered: execution ${e.id.slice(0, 8)}… is due now.`);
      await reload();
    } catch (err) {
      setActionError(errorText(err));
    }
  };

  const remove = async () => {
    setActionError(null);
    try {
      await deleteSchedule(id);
      announce(`Schedule “${s?.name ?? id}” deleted.`);
      navigate('/schedules');
    } catch (err) {
      setActionError(errorText(err));
    }
  };

  return (
    <>
      <p class="breadcrumb">
        <Link href="/schedules">← Schedules</Link>
      </p>
      <div class="page-head">
        <h1 tabIndex={-1}>
          {s ? s.name : s === null ? 'Schedule not found' : 'Schedule'} {s && <StatusBadge status={s.status} />}
        </h1>
        {s && (
          <div class="actions" role="group" aria-label="Schedule actions">
            {s.status === 'Pending' && (
              <Link href={`/schedules/${id}/edit`} class="button">
                Edit
              </Link>
            )}
            {s.status === 'Pending' && (
              <button type="button" class="button" onClick={runNow}>
                Run now
              </button>
            )}
            <ConfirmButton
              label="Delete"
              title="Delete this schedule?"
              body={
                <p>
                  “{s.name}” will never run{s.status === 'Pending' ? '' : ' again'}, and its executions go with it. This cannot
                  be undone.
                </p>
              }
              confirmLabel="Delete schedule"
              onConfirm={remove}
            />
          </div>
        )}
      </div>
      {error && <Alert>Could not load the schedule: {error}</Alert>}
      {actionError && <Alert>{actionError}</Alert>}
      {s === undefined && !error && <p aria-busy="true">Loading…</p>}
      {s === null && (
        <p>
          No schedule has the id <code>{id}</code>. It may have been deleted. <Link href="/schedules">Back to the list</Link>.
        </p>
      )}
      {s && (
        <>
          <section class="card" aria-labelledby="facts-title">
            <h2 id="facts-title" class="visually-hidden">
              Details
            </h2>
            <dl class="facts">
              <div>
                <dt>Scheduled at</dt>
                <dd>
                  <Instant iso={s.scheduledAt} />
                </dd>
              </div>
              <div>
                <dt>Endpoint</dt>
                <dd class="url">{s.endpoint}</dd>
              </div>
              <div>
                <dt>Tags</dt>
                <dd>{s.tags.length ? s.tags.map((t) => <span class="chip" key={t}>{t}</span>) : <span class="muted">none</span>}</dd>
              </div>
              <DeliveryFacts retry={s.retry} timeoutMs={s.timeoutMs} />
              <SuccessFacts successStatuses={s.successStatuses} />
              <FlowControlFact flowControlKey={s.flowControlKey} />
              <SigningSecret jobType="schedule" id={id} set={s.signingSecretSet} disabled={s.status !== 'Pending'} onSaved={() => void reload()} />
              <div>
                <dt>Created</dt>
                <dd>
                  <Instant iso={s.createdAt} />
                </dd>
              </div>
              <div>
                <dt>Id</dt>
                <dd>
                  <code>{s.id}</code>
                </dd>
              </div>
            </dl>
            {s.status === 'Pending' && (
              <p class="muted small">
                Runs {formatDuration(Math.max(0, new Date(s.scheduledAt).getTime() - Date.now()))} from now, unless run now or
                deleted.
              </p>
            )}
          </section>
          <RequestCard request={s} />
          <ExecutionHistory jobType="schedule" jobId={id} />
        </>
      )}
    </>
  );
}
