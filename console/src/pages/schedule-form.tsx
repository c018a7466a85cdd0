/** Create a schedule, or edit a Pending one (POST /schedules, PATCH /schedules/{id}). */
import { useEffect, useState } from 'preact/hooks';
import { createSchedule, getSchedule, updateSchedule, type Schedule, type ScheduleInput } from '../api';
import { Alert, announce, ErrorSummary, errorText, Field, formErrors, NO_ERRORS, type FormErrors } from '../components/ui';
import { fromLocalInput, LOCAL_ZONE, toLocalInput } from '../format';
import { Link, navigate } from '../router';
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
import { FlowControlKeyField, parseFlowControlKey } from './flow-control-fields';
import { splitTags } from './list-common';
import { parseSuccessStatuses, SuccessStatusesField, successStatusesText } from './outcome-fields';
import { EMPTY_REQUEST, hasBody, parseRequest, requestDraftOf, type RequestDraft } from './request-draft';
import { RequestFields } from './request-fields';

const LABELS: Record<string, string> = { ...COMMON_LABELS, scheduledAt: 'When', tags: 'Tags', successStatuses: 'Counts as success', flowControlKey: 'Flow-control key' };

interface Draft {
  name: string;
  when: string;
  endpoint: string;
  data: string;
  tags: string;
  successStatuses: string;
  flowControlKey: string;
  delivery: DeliveryDraft;
  request: RequestDraft;
}

function draftOf(s: Schedule): Draft {
  return {
    name: s.name,
    when: toLocalInput(s.scheduledAt),
    endpoint: s.endpoint,
    data: Object.keys(s.data).length ? JSON.stringify(s.data, null, 2) : '',
    tags: s.tags.join(', '),
    successStatuses: successStatusesText(s.successStatuses),
    flowControlKey: s.flowControlKey ?? '',
    delivery: deliveryDraft(s.retry, s.timeoutMs),
    request: requestDraftOf(s),
  };
}

const inMinutes = (m: number) => toLocalInput(new Date(Date.now() + m * 60_000).toISOString());

export function ScheduleFormPage({ id }: { id?: string }) {
  const editing = id !== undefined;
  const [existing, setExisting] = useState<Schedule | null | undefined>(editing ? undefined : null);
  const [draft, setDraft] = useState<Draft>({
    name: '',
    when: inMinutes(5),
    endpoint: '',
    data: '',
    tags: '',
    successStatuses: '2xx',
    flowControlKey: '',
    delivery: EMPTY_DELIVERY,
    request: EMPTY_REQUEST,
  });
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    document.title = `${editing ? 'Edit schedule' : 'New schedule'} · Punctual`;
    if (!id) return;
    getSchedule(id)
      .then((s) => {
        setExisting(s);
        if (s) setDraft(draftOf(s));
      })
      .catch((err) => setLoadError(errorText(err)));
  }, [id]);

  const set = (k: keyof Omit<Draft, 'delivery' | 'request'>) => (e: Event) =>
    setDraft((d) => ({ ...d, [k]: (e.currentTarget as HTMLInputElement).value }));

  const submit = async (e: Event) => {
    e.preventDefault();
    const fields: Record<string, string> = {};
    const scheduledAt = fromLocalInput(draft.when);
    if (!scheduledAt) fields.scheduledAt = 'Enter a date and time.';
    const data = parseData(draft.data);
    if (data.error) fields.data = data.error;
    const delivery = parseDelivery(draft.delivery);
    Object.assign(fields, delivery.errors);
    const request = parseRequest(draft.request, existing ?? null);
    Object.assign(fields, request.errors);
    if (Object.keys(fields).length) {
      setErrors({ fields, general: null });
      return;
    }
    const input: ScheduleInput = {
      name: draft.name,
      scheduledAt: scheduledAt!,
      endpoint: draft.endpoint.trim(),
      data: hasBody(draft.request.method) ? (data.value ?? {}) : {},
      ...request.input,
      tags: splitTags(draft.tags),
      retry: delivery.retry,
      timeoutMs: delivery.timeoutMs,
      successStatuses: parseSuccessStatuses(draft.successStatuses),
      flowControlKey: parseFlowControlKey(draft.flowControlKey),
    };
    setBusy(true);
    setErrors(NO_ERRORS);
    try {
      if (existing) {
        const patch = changed(input, existing as unknown as Record<string, unknown>);
        const saved = Object.keys(patch).length ? await updateSchedule(existing.id, patch) : existing;
        announce(`Schedule “${saved.name}” saved.`);
        navigate(`/schedules/${saved.id}`);
      } else {
        if (input.retry === undefined) delete input.retry;
        if (input.timeoutMs === undefined) delete input.timeoutMs;
        const saved = await createSchedule(input);
        announce(`Schedule “${saved.name}” created.`);
        navigate(`/schedules/${saved.id}`);
      }
    } catch (err) {
      setErrors(formErrors(err));
    } finally {
      setBusy(false);
    }
  };

  const back = existing ? `/schedules/${existing.id}` : '/schedules';
  return (
    <>
      <p class="breadcrumb">
        <Link href={back}>← {existing ? existing.name : 'Schedules'}</Link>
      </p>
      <h1 tabIndex={-1}>{editing ? 'Edit schedule' : 'New schedule'}</h1>
      {loadError && <Alert>Could not load the schedule: {loadError}</Alert>}
      {editing && existing === null && <Alert>No schedule has this id.</Alert>}
      {existing && existing.status !== 'Pending' && (
        <Alert>This schedule is {existing.status}: only a Pending schedule can be changed.</Alert>
      )}
      {(!editing || existing) && (
        <form class="card form" onSubmit={submit} noValidate aria-label={editing ? 'Edit schedule' : 'New schedule'}>
          <ErrorSummary errors={errors} labels={LABELS} />
          <Field name="name" label="Name" error={errors.fields.name}>
            {(attrs) => <input {...attrs} type="text" required value={draft.name} onInput={set('name')} />}
          </Field>
          <Field
            name="scheduledAt"
            label="When"
            error={errors.fields.scheduledAt}
            hint={
              <>
                In your time zone ({LOCAL_ZONE}); sent as{' '}
                <code>{fromLocalInput(draft.when) ?? '—'}</code>. A past instant runs at once.{' '}
                <span class="quick">
                  Set to:{' '}
                  {[1, 60, 24 * 60].map((m) => (
                    <button
                      type="button"
                      class="link-button"
                      key={m}
                      onClick={() => setDraft((d) => ({ ...d, when: inMinutes(m) }))}
                    >
                      {m === 1 ? 'in 1 minute' : m === 60 ? 'in 1 hour' : 'in 1 day'}
                    </button>
                  ))}
                </span>
              </>
            }
          >
            {(attrs) => <input {...attrs} type="datetime-local" step={1} required value={draft.when} onInput={set('when')} />}
          </Field>
          <Field
            name="endpoint"
            label="Endpoint URL"
            hint="An absolute http or https URL; Punctual calls it with the method and request below."
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
          <Field name="tags" label="Tags" hint="Separated by commas or spaces." error={errors.fields.tags}>
            {(attrs) => <input {...attrs} type="text" value={draft.tags} onInput={set('tags')} placeholder="billing, eu" />}
          </Field>
          <SuccessStatusesField value={draft.successStatuses} onInput={(v) => setDraft((d) => ({ ...d, successStatuses: v }))} errors={errors} />
          <FlowControlKeyField value={draft.flowControlKey} onInput={(v) => setDraft((d) => ({ ...d, flowControlKey: v }))} errors={errors} />
          <DeliveryFields
            draft={draft.delivery}
            onChange={(delivery) => setDraft((d) => ({ ...d, delivery }))}
            errors={errors}
            creating={!editing}
          />
          <div class="actions">
            <button type="submit" class="button button-primary" disabled={busy || (existing ? existing.status !== 'Pending' : false)}>
              {busy ? 'Saving…' : editing ? 'Save changes' : 'Create schedule'}
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
