/** Create a cron job or edit one (POST /cron, PATCH /cron/{id}), with the expression explained as it is typed. */
import { useEffect, useState } from 'preact/hooks';
import { createCronJob, getCronJob, updateCronJob, type CronInput, type CronJob } from '../api';
import { CronPreview } from '../components/cron-preview';
import { Alert, announce, ErrorSummary, errorText, Field, formErrors, NO_ERRORS, type FormErrors } from '../components/ui';
import { LOCAL_ZONE } from '../format';
import { Link, navigate, useLocation } from '../router';
import { ZoneInput } from './cron-helper';
import { EMPTY_LIFE, LifeFields, lifeDraftOf, parseLife, type LifeDraft } from './cron-life-fields';
import { cronTitle } from './cron-list';
import {
  changed,
  COMMON_LABELS,
  deliveryDraft,
  DeliveryFields,
  EMPTY_DELIVERY,
  parseData,
  parseDelivery,
  type DeliveryDraft,
} from './form-common';
import { parsePauseAfter, parseSuccessStatuses, PauseAfterField, SuccessStatusesField, successStatusesText } from './outcome-fields';
import { EMPTY_REQUEST, hasBody, parseRequest, requestDraftOf, type RequestDraft } from './request-draft';
import { FlowControlKeyField, parseFlowControlKey } from './flow-control-fields';
import { splitTags } from './list-common';
import { RequestFields } from './request-fields';

const LABELS: Record<string, string> = {
  ...COMMON_LABELS,
  expression: 'Cron expression',
  timezone: 'Time zone',
  misfire: 'Missed occurrences',
  overlap: 'Overlap',
  successStatuses: 'Counts as success',
  pauseAfterFailures: 'Pause after failures',
  startAt: 'Start',
  endAt: 'End',
  maxInvocations: 'Most executions',
  jitterMs: 'Jitter',
  tags: 'Tags',
  flowControlKey: 'Flow-control key',
};

interface Draft {
  name: string;
  expression: string;
  timezone: string;
  endpoint: string;
  data: string;
  misfire: string;
  overlap: string;
  successStatuses: string;
  pauseAfterFailures: string;
  tags: string;
  flowControlKey: string;
  delivery: DeliveryDraft;
  request: RequestDraft;
  life: LifeDraft;
}

function draftOf(j: CronJob): Draft {
  return {
    name: j.name ?? '',
    expression: j.expression,
    timezone: j.timezone ?? '',
    endpoint: j.endpoint,
    data: j.data && Object.keys(j.data).length ? JSON.stringify(j.data, null, 2) : '',
    misfire: j.misfire,
    overlap: j.overlap,
    successStatuses: successStatusesText(j.successStatuses),
    pauseAfterFailures: j.pauseAfterFailures === null ? '' : String(j.pauseAfterFailures),
    tags: j.tags.join(', '),
    flowControlKey: j.flowControlKey ?? '',
    delivery: deliveryDraft(j.retry, j.timeoutMs),
    request: requestDraftOf(j),
    life: lifeDraftOf(j),
  };
}

export function CronFormPage({ id }: { id?: string }) {
  const editing = id !== undefined;
  const loc = useLocation();
  const [existing, setExisting] = useState<CronJob | null | undefined>(editing ? undefined : null);
  const [draft, setDraft] = useState<Draft>({
    name: '',
    expression: loc.query.get('expression') ?? '',
    timezone: loc.query.get('timezone') ?? LOCAL_ZONE,
    endpoint: '',
    data: '',
    misfire: 'once',
    overlap: 'allow',
    tags: '',
    successStatuses: '2xx',
    pauseAfterFailures: '',
    flowControlKey: '',
    delivery: EMPTY_DELIVERY,
    request: EMPTY_REQUEST,
    life: EMPTY_LIFE,
  });
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    document.title = `${editing ? 'Edit cron job' : 'New cron job'} · Punctual`;
    if (!id) return;
    getCronJob(id)
      .then((j) => {
        setExisting(j);
        if (j) setDraft(draftOf(j));
      })
      .catch((err) => setLoadError(errorText(err)));
  }, [id]);

  const set = (k: keyof Omit<Draft, 'delivery' | 'request' | 'life'>) => (e: Event) =>
    setDraft((d) => ({ ...d, [k]: (e.currentTarget as HTMLInputElement).value }));

  const submit = async (e: Event) => {
    e.preventDefault();
    const fields: Record<string, string> = {};
    const data = parseData(draft.data);
    if (data.error) fields.data = data.error;
    const delivery = parseDelivery(draft.delivery);
    Object.assign(fields, delivery.errors);
    const request = parseRequest(draft.request, existing ?? null);
    Object.assign(fields, request.errors);
    const pauseAfter = parsePauseAfter(draft.pauseAfterFailures);
    if (pauseAfter.error) fields.pauseAfterFailures = pauseAfter.error;
    const life = parseLife(draft.life);
    Object.assign(fields, life.errors);
    if (Object.keys(fields).length) {
      setErrors({ fields, general: null });
      return;
    }
    const input: CronInput = {
      name: draft.name.trim() === '' ? null : draft.name,
      expression: draft.expression.trim(),
      timezone: draft.timezone.trim() || null,
      endpoint: draft.endpoint.trim(),
      data: hasBody(draft.request.method) ? (data.value ?? null) : null,
      ...request.input,
      retry: delivery.retry,
      timeoutMs: delivery.timeoutMs,
      misfire: draft.misfire as CronInput['misfire'],
      overlap: draft.overlap as CronInput['overlap'],
      successStatuses: parseSuccessStatuses(draft.successStatuses),
      tags: splitTags(draft.tags),
      pauseAfterFailures: pauseAfter.value,
      flowControlKey: parseFlowControlKey(draft.flowControlKey),
      ...life.input,
    };
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      let saved: CronJob;
      if (existing) {
        const patch = changed(input, existing as unknown as Record<string, unknown>);
        saved = Object.keys(patch).length ? await updateCronJob(existing.id, patch) : existing;
        announce(`Cron job “${cronTitle(saved)}” saved.`);
      } else {
        for (const k of Object.keys(input) as Array<keyof CronInput>) if (input[k] === undefined) delete input[k];
        saved = await createCronJob(input);
        announce(`Cron job “${cronTitle(saved)}” created.`);
      }
      navigate(`/cron/${saved.id}`);
    } catch (err) {
      setErrors(formErrors(err));
    } finally {
      setBusy(false);
    }
  };

  const back = existing ? `/cron/${existing.id}` : '/cron';
  return (
    <>
      <p class="breadcrumb">
        <Link href={back}>← {existing ? cronTitle(existing) : 'Cron jobs'}</Link>
      </p>
      <h1 tabIndex={-1}>{editing ? 'Edit cron job' : 'New cron job'}</h1>
      {loadError && <Alert>Could not load the cron job: {loadError}</Alert>}
      {editing && existing === null && <Alert>No cron job has this id.</Alert>}
      {(!editing || existing) && (
        <form class="card form" onSubmit={submit} noValidate aria-label={editing ? 'Edit cron job' : 'New cron job'}>
          <ErrorSummary errors={errors} labels={LABELS} />
          <Field name="name" label="Name (optional)" error={errors.fields.name}>
            {(attrs) => <input {...attrs} type="text" value={draft.name} onInput={set('name')} />}
          </Field>
          <Field name="tags" label="Tags (optional)" hint="Separated by commas or spaces." error={errors.fields.tags}>
            {(attrs) => <input {...attrs} type="text" value={draft.tags} onInput={set('tags')} placeholder="nightly, eu" />}
          </Field>
          <div class="grid-2">
            <Field
              name="expression"
              label="Cron expression"
              hint={
                <>
                  5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first; <code>@daily</code> and the
                  other nicknames. <Link href="/cron-helper">Cron helper</Link>
                </>
              }
              error={errors.fields.expression}
            >
              {(attrs) => (
                <input
                  {...attrs}
                  type="text"
                  class="mono"
                  required
                  autocomplete="off"
                  spellcheck={false}
                  placeholder="0 9 * * MON-FRI"
                  value={draft.expression}
                  onInput={set('expression')}
                />
              )}
            </Field>
            <ZoneInput value={draft.timezone} onInput={(v) => setDraft((d) => ({ ...d, timezone: v }))} error={errors.fields.timezone} />
          </div>
          <div class="preview-box">
            <CronPreview expression={draft.expression} timezone={draft.timezone} count={3} />
          </div>
          <Field
            name="endpoint"
            label="Endpoint URL"
            hint="An absolute http or https URL; Punctual calls it at each occurrence with the method and request below."
            error={errors.fields.endpoint}
          >
            {(attrs) => (
              <input
                {...attrs}
                type="url"
                required
                inputMode="url"
                placeholder="https://example.com/hooks/punctual"
                value={draft.endpoint}
                onInput={set('endpoint')}
              />
            )}
          </Field>
          <RequestFields draft={draft} setDraft={setDraft} saved={existing ?? null} errors={errors} />
          <div class="grid-2">
            <Field
              name="misfire"
              label="Missed occurrences"
              hint="What runs after the service was down."
              error={errors.fields.misfire}
            >
              {(attrs) => (
                <select {...attrs} value={draft.misfire} onChange={set('misfire')}>
                  <option value="once">once: run one execution for all of them</option>
                  <option value="skip">skip: run none</option>
                  <option value="all">all: run each, oldest first</option>
                </select>
              )}
            </Field>
            <Field
              name="overlap"
              label="Overlap"
              hint="When an occurrence comes while the previous one still runs."
              error={errors.fields.overlap}
            >
              {(attrs) => (
                <select {...attrs} value={draft.overlap} onChange={set('overlap')}>
                  <option value="allow">allow: run it anyway</option>
                  <option value="skip">skip: record it as Skipped</option>
                </select>
              )}
            </Field>
          </div>
          <div class="grid-2">
            <SuccessStatusesField
              value={draft.successStatuses}
              onInput={(v) => setDraft((d) => ({ ...d, successStatuses: v }))}
              errors={errors}
            />
            <PauseAfterField
              value={draft.pauseAfterFailures}
              onInput={(v) => setDraft((d) => ({ ...d, pauseAfterFailures: v }))}
              errors={errors}
            />
          </div>
          <FlowControlKeyField value={draft.flowControlKey} onInput={(v) => setDraft((d) => ({ ...d, flowControlKey: v }))} errors={errors} />
          <LifeFields draft={draft.life} onChange={(life) => setDraft((d) => ({ ...d, life }))} errors={errors} />
          <DeliveryFields
            draft={draft.delivery}
            onChange={(delivery) => setDraft((d) => ({ ...d, delivery }))}
            errors={errors}
            creating={!editing}
          />
          <div class="actions">
            <button type="submit" class="button button-primary" disabled={busy}>
              {busy ? 'Saving…' : editing ? 'Save changes' : 'Create cron job'}
            </button>
            <Link href={back} class="button button-quiet">
              Cancel
            </Link>
          </div>
        </form>
      )}
    </>
  );
}
