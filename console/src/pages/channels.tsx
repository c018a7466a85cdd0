/**
 * Notification channels (docs/when-calls-fail.md): the list, a form to add one, and per channel a
 * test message and deletion.
 */
import { useEffect, useState } from 'preact/hooks';
import {
  CHANNEL_TYPES,
  createChannel,
  deleteChannel,
  listChannels,
  NOTIFICATION_EVENTS,
  testChannel,
  type NotificationChannel,
  type NotificationChannelInput,
  type NotificationChannelTest,
} from '../api';
import { Alert, announce, ConfirmButton, errorText, ErrorSummary, Field, formErrors, Instant, NO_ERRORS, type FormErrors } from '../components/ui';

type EventName = NotificationChannelInput['events'][number];
type ChannelType = NotificationChannelInput['type'];

const LABELS: Record<string, string> = { name: 'Name', type: 'Type', url: 'URL', events: 'Events', jobIds: 'Only these jobs' };

const EVENT_TEXT: Record<EventName, string> = {
  'execution.failed': 'An execution failed',
  'execution.succeeded': 'An execution succeeded',
  'job.recovered': 'A job succeeded again after failing',
  'cron.auto_paused': 'A cron job was paused by Punctual',
};

/** The test result of a channel, as one sentence. */
function testText(r: NotificationChannelTest): string {
  if (r.error === null) return `Delivered (HTTP ${r.statusCode ?? '?'}, ${r.durationMs} ms).`;
  if (r.statusCode !== null && r.error === `HTTP ${r.statusCode}`) return `Not delivered: the receiver answered HTTP ${r.statusCode} (${r.durationMs} ms).`;
  return `Not delivered: ${r.error} (${r.statusCode === null ? 'no answer' : `HTTP ${r.statusCode}`}, ${r.durationMs} ms).`;
}

export function ChannelsPage() {
  const [channels, setChannels] = useState<NotificationChannel[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [results, setResults] = useState<Record<string, string>>({});

  const load = async () => {
    try {
      setChannels(await listChannels());
      setError(null);
    } catch (err) {
      setError(errorText(err));
    }
  };
  useEffect(() => {
    document.title = 'Notification channels · Punctual';
    void load();
  }, []);

  const test = async (c: NotificationChannel) => {
    try {
      const text = testText(await testChannel(c.id));
      setResults((r) => ({ ...r, [c.id]: text }));
      announce(`${c.name}: ${text}`);
    } catch (err) {
      setResults((r) => ({ ...r, [c.id]: errorText(err) }));
    }
  };
  const remove = async (c: NotificationChannel) => {
    try {
      await deleteChannel(c.id);
      announce(`Deleted the channel ${c.name}.`);
      await load();
    } catch (err) {
      announce(errorText(err), 'error');
    }
  };

  return (
    <>
      <div class="page-head">
        <h1 tabIndex={-1}>Notification channels</h1>
      </div>
      <p class="lead">Where Punctual tells people that calls failed, succeeded again, or that a cron job was paused.</p>
      {error && <Alert>Could not load the channels: {error}</Alert>}
      {channels === null && !error && <p aria-busy="true">Loading…</p>}
      {channels !== null && channels.length === 0 && <p class="empty">No channels yet: add one below.</p>}
      {channels !== null && channels.length > 0 && (
        <div class="table-wrap">
          <table class="table stack">
            <caption class="visually-hidden">Notification channels, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Events</th>
                <th scope="col">URL</th>
                <th scope="col">Created</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {channels.map((c) => (
                <tr key={c.id} data-channel={c.id}>
                  <th scope="row" data-label="Name">
                    {c.name}
                  </th>
                  <td data-label="Type">{c.type}</td>
                  <td data-label="Events">
                    {c.events.map((e) => (
                      <span class="chip" key={e}>
                        {e}
                      </span>
                    ))}
                    {c.jobIds !== null && <span class="muted"> ({c.jobIds.length} jobs)</span>}
                  </td>
                  <td data-label="URL" class="url">
                    {c.url}
                  </td>
                  <td data-label="Created">
                    <Instant iso={c.createdAt} />
                  </td>
                  <td data-label="Actions">
                    <button type="button" class="button" onClick={() => void test(c)}>
                      Send a test<span class="visually-hidden"> message to {c.name}</span>
                    </button>{' '}
                    <ConfirmButton
                      label={
                        <>
                          Delete<span class="visually-hidden"> the channel {c.name}</span>
                        </>
                      }
                      title={`Delete the channel ${c.name}?`}
                      body={<p>Its notifications not yet sent are deleted too.</p>}
                      confirmLabel="Delete the channel"
                      onConfirm={() => remove(c)}
                    />
                    {results[c.id] && (
                      <p class="test-result" role="status">
                        {results[c.id]}
                      </p>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ChannelForm onCreated={load} />
    </>
  );
}

/** The form that adds a channel. */
function ChannelForm({ onCreated }: { onCreated: () => Promise<void> }) {
  const [name, setName] = useState('');
  const [type, setType] = useState<ChannelType>('webhook');
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventName[]>(['execution.failed']);
  const [jobIds, setJobIds] = useState('');
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);

  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      const ids = jobIds.split(/[\s,]+/).filter(Boolean);
      const created = await createChannel({ name, type, url, events, ...(ids.length > 0 && { jobIds: ids }) });
      setErrors(NO_ERRORS);
      setName('');
      setUrl('');
      setJobIds('');
      announce(`Created the channel ${created.name}.`);
      await onCreated();
    } catch (err) {
      setErrors(formErrors(err));
    } finally {
      setBusy(false);
    }
  };
  const toggle = (ev: EventName, on: boolean) => setEvents((list) => (on ? [...list, ev] : list.filter((x) => x !== ev)));

  return (
    <form class="card form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="add-channel-title">
      <h2 id="add-channel-title">Add a channel</h2>
      <ErrorSummary errors={errors} labels={LABELS} />
      <Field name="name" label="Name" error={errors.fields.name}>
        {(a) => <input {...a} type="text" value={name} onInput={(e) => setName(e.currentTarget.value)} required />}
      </Field>
      <Field name="type" label="Type" hint="Slack also fits Mattermost and Discord (…/slack) webhooks." error={errors.fields.type}>
        {(a) => (
          <select {...a} value={type} onChange={(e) => setType(e.currentTarget.value as ChannelType)}>
            {CHANNEL_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field name="url" label="URL" error={errors.fields.url}>
        {(a) => <input {...a} type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} required />}
      </Field>
      <fieldset
        id="f-events"
        tabIndex={-1}
        class={`fieldset${errors.fields.events ? ' field-invalid' : ''}`}
        aria-describedby={errors.fields.events ? 'f-events-error' : undefined}
      >
        <legend>Events</legend>
        {errors.fields.events && (
          <p class="field-error" id="f-events-error">
            <span class="visually-hidden">Error: </span>
            {errors.fields.events}
          </p>
        )}
        {NOTIFICATION_EVENTS.map((ev) => (
          <label key={ev} class="check">
            <input type="checkbox" name="events" value={ev} checked={events.includes(ev)} onChange={(e) => toggle(ev, e.currentTarget.checked)} />
            <span>
              {EVENT_TEXT[ev]} <code>{ev}</code>
            </span>
          </label>
        ))}
      </fieldset>
      <Field name="jobIds" label="Only these jobs" hint="Job ids separated by spaces or commas; empty: every job." error={errors.fields.jobIds}>
        {(a) => <input {...a} type="text" class="mono" value={jobIds} onInput={(e) => setJobIds(e.currentTarget.value)} />}
      </Field>
      <div class="actions">
        <button type="submit" class="button button-primary" disabled={busy}>
          Add the channel
        </button>
      </div>
    </form>
  );
}
