/**
 * Flow control (docs/flow-control.md): every key in use with its limits and its live state
 * (calls waiting, in flight, started in the rate's window; a pause; a receiver's hold), refreshed
 * every 2 s; per key a pause or resume, its limits set in the form below, and deletion. A key named
 * by jobs but never configured is listed without limits.
 */
import { useEffect, useState } from 'preact/hooks';
import {
  deleteFlowControlKey,
  listFlowControlKeys,
  putFlowControlKey,
  setFlowControlKeyPaused,
  type FlowControlKey,
  type FlowControlKeyInput,
} from '../api';
import { usePolling } from '../components/executions';
import {
  Alert,
  announce,
  ConfirmButton,
  errorText,
  ErrorSummary,
  Field,
  fieldId,
  formErrors,
  Instant,
  NO_ERRORS,
  StatusBadge,
  type FormErrors,
} from '../components/ui';
import { formatDuration } from '../format';
import { parseWhole } from './form-common';

const POLL_MS = 2_000;

const LABELS: Record<string, string> = { key: 'Key', parallelism: 'Parallelism', rate: 'Rate', period: 'Period', paused: 'Paused' };

/** The limits of a key as one phrase: `2 at once · 10 per 1 s`. */
function limitsText(k: FlowControlKey): string {
  const parts: string[] = [];
  if (k.parallelism !== null) parts.push(`${k.parallelism} at once`);
  if (k.rate !== null) parts.push(`${k.rate} per ${formatDuration(k.period)}`);
  return parts.length ? parts.join(' · ') : 'none';
}

/** The form's fields as typed. */
interface Draft {
  key: string;
  parallelism: string;
  rate: string;
  period: string;
  paused: boolean;
}

const EMPTY: Draft = { key: '', parallelism: '', rate: '', period: '', paused: false };

const draftOf = (k: FlowControlKey): Draft => ({
  key: k.key,
  parallelism: k.parallelism === null ? '' : String(k.parallelism),
  rate: k.rate === null ? '' : String(k.rate),
  period: String(k.period),
  paused: k.paused,
});

export function FlowControlPage() {
  const [keys, setKeys] = useState<FlowControlKey[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [preset, setPreset] = useState<Draft | null>(null);

  const load = async () => {
    try {
      setKeys(await listFlowControlKeys());
      setError(null);
    } catch (err) {
      setError(errorText(err));
    }
  };
  useEffect(() => {
    document.title = 'Flow control · Punctual';
  }, []);
  usePolling(load, POLL_MS, []);

  const act = async (what: () => Promise<unknown>, done: string) => {
    try {
      await what();
      announce(done);
      await load();
    } catch (err) {
      announce(errorText(err), 'error');
    }
  };

  return (
    <>
      <div class="page-head">
        <h1 tabIndex={-1}>Flow control</h1>
      </div>
      <p class="lead">
        A flow-control key limits the calls of every job naming it: how many are in flight at once (parallelism) and how many
        start in any window of a period (rate). Calls over the limits wait; none is dropped. Refreshed every{' '}
        {POLL_MS / 1_000} s.
      </p>
      {error && <Alert>Could not load the flow-control keys: {error}</Alert>}
      {keys === null && !error && <p aria-busy="true">Loading…</p>}
      {keys !== null && keys.length === 0 && <p class="empty">No flow-control key yet: set the limits of one below, or name one in a job.</p>}
      {keys !== null && keys.length > 0 && (
        <div class="table-wrap">
          <table class="table stack">
            <caption class="visually-hidden">Flow-control keys, by name</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Limits</th>
                <th scope="col">State</th>
                <th scope="col">Waiting</th>
                <th scope="col">In flight</th>
                <th scope="col">Rate used</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.key} data-flow-key={k.key}>
                  <th scope="row" data-label="Key">
                    <code>{k.key}</code>
                  </th>
                  <td data-label="Limits">{limitsText(k)}</td>
                  <td data-label="State">
                    {k.configured ? <StatusBadge status={k.paused ? 'Paused' : 'Active'} /> : <span class="muted">not configured</span>}
                    {k.holdUntil !== null && (
                      <span title="A receiver answered 429 or 503 with Retry-After">
                        {' '}
                        held until <Instant iso={k.holdUntil} />
                      </span>
                    )}
                  </td>
                  <td data-label="Waiting">
                    {k.waiting}
                    {k.oldestWaitingSince !== null && (
                      <span class="muted">
                        {' '}
                        (oldest due <Instant iso={k.oldestWaitingSince} relative={false} />)
                      </span>
                    )}
                  </td>
                  <td data-label="In flight">{k.inFlight}</td>
                  <td data-label="Rate used">{k.rateUsed === null ? <span class="muted">—</span> : `${k.rateUsed} of ${k.rate ?? '?'}`}</td>
                  <td data-label="Actions">
                    {k.configured && (
                      <button
                        type="button"
                        class="button"
                        onClick={() => void act(() => setFlowControlKeyPaused(k.key, !k.paused), `${k.paused ? 'Resumed' : 'Paused'} the key ${k.key}.`)}
                      >
                        {k.paused ? 'Resume' : 'Pause'}
                        <span class="visually-hidden"> the key {k.key}</span>
                      </button>
                    )}{' '}
                    <button type="button" class="button" onClick={() => setPreset(draftOf(k))}>
                      Set limits<span class="visually-hidden"> of the key {k.key}</span>
                    </button>{' '}
                    {k.configured && (
                      <ConfirmButton
                        label={
                          <>
                            Delete<span class="visually-hidden"> the key {k.key}</span>
                          </>
                        }
                        title={`Delete the key ${k.key}?`}
                        body={<p>Its limits are removed and its waiting calls start at once. Jobs naming it keep it, without limits.</p>}
                        confirmLabel="Delete the key"
                        onConfirm={() => act(() => deleteFlowControlKey(k.key), `Deleted the key ${k.key}.`)}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <LimitsForm preset={preset} onSaved={load} />
    </>
  );
}

/** The form that sets a key's limits (PUT: it replaces them all); `preset` fills it with a listed key's. */
function LimitsForm({ preset, onSaved }: { preset: Draft | null; onSaved: () => Promise<void> }) {
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!preset) return;
    setDraft(preset);
    setErrors(NO_ERRORS);
    const first = document.getElementById(fieldId('parallelism'));
    first?.focus();
    first?.scrollIntoView({ block: 'center' });
  }, [preset]);

  const set = (k: Exclude<keyof Draft, 'paused'>) => (e: Event) => setDraft((d) => ({ ...d, [k]: (e.currentTarget as HTMLInputElement).value }));

  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    const key = draft.key.trim();
    const fields: Record<string, string> = {};
    if (key === '') fields.key = 'Enter the key’s name.';
    const body: FlowControlKeyInput = {
      parallelism: parseWhole(draft.parallelism, 'parallelism', fields) ?? null,
      rate: parseWhole(draft.rate, 'rate', fields) ?? null,
      period: parseWhole(draft.period, 'period', fields),
      paused: draft.paused,
    };
    if (Object.keys(fields).length) {
      setErrors({ fields, general: null });
      return;
    }
    if (body.period === undefined) delete body.period;
    setBusy(true);
    try {
      await putFlowControlKey(key, body);
      setErrors(NO_ERRORS);
      setDraft(EMPTY);
      announce(`Saved the limits of the key ${key}.`);
      await onSaved();
    } catch (err) {
      setErrors(formErrors(err));
    } finally {
      setBusy(false);
    }
  };

  const number = (name: 'parallelism' | 'rate' | 'period', label: string, hint: string) => (
    <Field name={name} label={label} hint={hint} error={errors.fields[name]}>
      {(a) => <input {...a} type="text" inputMode="numeric" autocomplete="off" value={draft[name]} onInput={set(name)} />}
    </Field>
  );

  return (
    <form class="card form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="limits-title">
      <h2 id="limits-title">Set a key’s limits</h2>
      <p class="hint">Replaces all the key’s limits; give at least one of parallelism and rate unless it is paused.</p>
      <ErrorSummary errors={errors} labels={LABELS} />
      <Field name="key" label="Key" hint="1 to 128 of A–Z a–z 0–9 . _ : -, as jobs name it." error={errors.fields.key}>
        {(a) => <input {...a} type="text" class="mono" autocomplete="off" spellcheck={false} value={draft.key} onInput={set('key')} required />}
      </Field>
      <div class="grid-2">
        {number('parallelism', 'Parallelism (optional)', 'Most calls in flight at once, 1 to 10,000. Empty: no bound.')}
        {number('rate', 'Rate (optional)', 'Most calls started in any window of the period, 1 to 100,000. Empty: no bound.')}
        {number('period', 'Period (ms)', 'The window of the rate, 1,000 to 86,400,000 ms. Empty: 1,000.')}
      </div>
      <label class="check">
        <input
          type="checkbox"
          id={fieldId('paused')}
          name="paused"
          checked={draft.paused}
          onChange={(e) => setDraft((d) => ({ ...d, paused: e.currentTarget.checked }))}
        />
        <span>Paused: start none of its calls until resumed</span>
      </label>
      <div class="actions">
        <button type="submit" class="button button-primary" disabled={busy}>
          Save the limits
        </button>
      </div>
    </form>
  );
}
