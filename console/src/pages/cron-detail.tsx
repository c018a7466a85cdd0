/** A cron job: its fields, actions (edit, pause/resume, run now, delete), its execution history and its backfill. */
import { useEffect, useState } from 'preact/hooks';
import { deleteCronJob, getCronJob, triggerJob, updateCronJob, type CronStatus } from '../api';
import { BackfillForm } from '../components/backfill-form';
import { CronPreview, describeCron } from '../components/cron-preview';
import { ExecutionHistory } from '../components/executions';
import { RequestCard, SigningSecret } from '../components/request-view';
import { Alert, announce, ConfirmButton, errorText, Instant, StatusBadge } from '../components/ui';
import { Link, navigate } from '../router';
import { cronTitle } from './cron-list';
import { DeliveryFacts, useJob } from './detail-common';
import { FlowControlFact } from './flow-control-fields';
import { PauseFacts, SuccessFacts } from './outcome-fields';

const MISFIRE: Record<string, string> = {
  once: 'once — missed occurrences run once, together',
  skip: 'skip — missed occurrences do not run',
  all: 'all — each missed occurrence runs, oldest first',
};
const OVERLAP: Record<string, string> = {
  allow: 'allow — every occurrence runs',
  skip: 'skip — an occurrence due while the previous one still runs is skipped',
};

export function CronDetailPage({ id }: { id: string }) {
  const { job, error, reload, set } = useJob(getCronJob, id);
  const [actionError, setActionError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [pauseReason, setPauseReason] = useState('');

  useEffect(() => {
    document.title = `${job ? cronTitle(job) : 'Cron job'} · Punctual`;
  }, [job?.name, job?.expression]);

  const act = async (what: () => Promise<void>) => {
    setActionError(null);
    setBusy(true);
    try {
      await what();
    } catch (err) {
      setActionError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  const setStatus = (status: CronStatus) =>
    act(async () => {
      const reason = pauseReason.trim();
      set(await updateCronJob(id, status === 'Paused' && reason !== '' ? { status, pausedReason: reason } : { status }));
      setPauseReason('');
      announce(status === 'Paused' ? 'Cron job paused: it will not run until resumed.' : 'Cron job resumed.');
    });

  const runNow = () =>
    act(async () => {
      const e = await triggerJob('cron', id);
      announce(`Cron job triggered: execution ${e.id.slice(0, 8)}… is due now.`);
      await reload();
    });

  const remove = () =>
    act(async () => {
      await deleteCronJob(id);
      announce('Cron job deleted.');
      navigate('/cron');
    });

  return (
    <>
      <p class="breadcrumb">
        <Link href="/cron">← Cron jobs</Link>
      </p>
      <div class="page-head">
        <h1 tabIndex={-1}>
          {job ? cronTitle(job) : job === null ? 'Cron job not found' : 'Cron job'} {job && <StatusBadge status={job.status} />}
        </h1>
        {job && (
          <div class="actions" role="group" aria-label="Cron job actions">
            <Link href={`/cron/${id}/edit`} class="button">
              Edit
            </Link>
            {job.status === 'Active' ? (
              <>
                <input
                  type="text"
                  class="pause-reason"
                  aria-label="Reason for pausing (optional)"
                  placeholder="Reason (optional)"
                  maxLength={512}
                  value={pauseReason}
                  onInput={(e) => setPauseReason((e.currentTarget as HTMLInputElement).value)}
                  onKeyDown={(e) => {
                    if (e.key === 'Enter' && !busy) void setStatus('Paused');
                  }}
                />
                <button type="button" class="button" disabled={busy} onClick={() => setStatus('Paused')}>
                  Pause
                </button>
              </>
            ) : (
              <button type="button" class="button" disabled={busy} onClick={() => setStatus('Active')}>
                Resume
              </button>
            )}
            <button type="button" class="button" disabled={busy} onClick={runNow}>
              Run now
            </button>
            <ConfirmButton
              label="Delete"
              title="Delete this cron job?"
              body={<p>“{cronTitle(job)}” will never run again, and its executions go with it. This cannot be undone.</p>}
              confirmLabel="Delete cron job"
              onConfirm={remove}
            />
          </div>
        )}
      </div>
      {error && <Alert>Could not load the cron job: {error}</Alert>}
      {actionError && <Alert>{actionError}</Alert>}
      {job === undefined && !error && <p aria-busy="true">Loading…</p>}
      {job === null && (
        <p>
          No cron job has the id <code>{id}</code>. It may have been deleted. <Link href="/cron">Back to the list</Link>.
        </p>
      )}
      {job && (
        <>
          <section class="card" aria-labelledby="facts-title">
            <h2 id="facts-title" class="visually-hidden">
              Details
            </h2>
            <dl class="facts">
              <div>
                <dt>Expression</dt>
                <dd>
                  <code>{job.expression}</code>
                  <div class="muted">{describeCron(job.expression) ?? ''}</div>
                </dd>
              </div>
              <div>
                <dt>Time zone</dt>
                <dd>{job.timezone ?? 'UTC'}</dd>
              </div>
              <div>
                <dt>{job.status === 'Paused' ? 'Would run next (if resumed now)' : 'Next run'}</dt>
                <dd>
                  {job.status === 'Completed' ? <span class="muted">none: completed</span> : <Instant iso={job.nextInvocation} />}
                </dd>
              </div>
              <div>
                <dt>Runs between</dt>
                <dd>
                  {job.startAt ? <Instant iso={job.startAt} relative={false} /> : 'creation'} and{' '}
                  {job.endAt ? <Instant iso={job.endAt} relative={false} /> : 'no end'}
                </dd>
              </div>
              <div>
                <dt>Limit</dt>
                <dd>{job.maxInvocations === null ? 'none' : `${job.invocations} of ${job.maxInvocations} executions`}</dd>
              </div>
              <div>
                <dt>Jitter</dt>
                <dd>{job.jitterMs === 0 ? 'none' : `up to ${job.jitterMs} ms per occurrence`}</dd>
              </div>
              <div>
                <dt>Last run</dt>
                <dd>
                  {job.lastInvocation ? (
                    <>
                      <StatusBadge status={job.lastStatus} /> <Instant iso={job.lastInvocation} />
                    </>
                  ) : (
                    <span class="muted">never</span>
                  )}
                </dd>
              </div>
              <div>
                <dt>Executions so far</dt>
                <dd>{job.invocations}</dd>
              </div>
              <div>
                <dt>Endpoint</dt>
                <dd class="url">{job.endpoint}</dd>
              </div>
              <DeliveryFacts retry={job.retry} timeoutMs={job.timeoutMs} />
              <SuccessFacts successStatuses={job.successStatuses} />
              <FlowControlFact flowControlKey={job.flowControlKey} />
              <PauseFacts job={job} />
              <SigningSecret jobType="cron" id={id} set={job.signingSecretSet} disabled={false} onSaved={() => void reload()} />
              <div>
                <dt>Missed occurrences</dt>
                <dd>{MISFIRE[job.misfire] ?? job.misfire}</dd>
              </div>
              <div>
                <dt>Occurrences skipped (misfire)</dt>
                <dd>{job.skippedOccurrences}</dd>
              </div>
              <div>
                <dt>Overlap</dt>
                <dd>{OVERLAP[job.overlap] ?? job.overlap}</dd>
              </div>
              <div>
                <dt>Created</dt>
                <dd>
                  <Instant iso={job.createdAt} />
                </dd>
              </div>
              <div>
                <dt>Id</dt>
                <dd>
                  <code>{job.id}</code>
                </dd>
              </div>
            </dl>
          </section>
          <RequestCard request={job} />
          <ExecutionHistory jobType="cron" jobId={id} />
          <BackfillForm id={id} />
          <section class="card" aria-labelledby="upcoming-title">
            <h2 id="upcoming-title">Upcoming occurrences</h2>
            <CronPreview expression={job.expression} timezone={job.timezone ?? ''} count={5} startAt={job.startAt ?? job.createdAt} />
          </section>
        </>
      )}
    </>
  );
}
