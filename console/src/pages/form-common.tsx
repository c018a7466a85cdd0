/** Form pieces shared by the schedule and cron job forms: delivery settings and the JSON data. */
import type { RetryPolicy } from '../api';
import { Field, fieldId, type FormErrors } from '../components/ui';
import { REQUEST_LABELS } from './request-draft';

/**
 * The delivery fields as typed (strings; blank means "the default" at create, "unchanged" never).
 * `delaysMs` is the retry steps in ms separated by commas; blank at create is the default, blank
 * when editing (`editing`) is the exponential rule (`delaysMs: null`). The steps are always sent
 * when editing, so that the other retry fields, sent too, never switch the job's rule.
 */
export interface DeliveryDraft {
  maxAttempts: string;
  delaysMs: string;
  initialDelayMs: string;
  maxDelayMs: string;
  timeoutMs: string;
  editing: boolean;
}

export const EMPTY_DELIVERY: DeliveryDraft = { maxAttempts: '', delaysMs: '', initialDelayMs: '', maxDelayMs: '', timeoutMs: '', editing: false };

export function deliveryDraft(retry: RetryPolicy, timeoutMs: number): DeliveryDraft {
  return {
    maxAttempts: String(retry.maxAttempts),
    delaysMs: retry.delaysMs ? retry.delaysMs.join(', ') : '',
    initialDelayMs: String(retry.initialDelayMs),
    maxDelayMs: String(retry.maxDelayMs),
    timeoutMs: String(timeoutMs),
    editing: true,
  };
}

/** Labels of every field key, for the error summary. */
export const COMMON_LABELS: Record<string, string> = {
  name: 'Name',
  endpoint: 'Endpoint URL',
  data: 'Data (JSON)',
  retry: 'Retries',
  'retry.maxAttempts': 'Attempts in all',
  'retry.delaysMs': 'Retry steps',
  'retry.initialDelayMs': 'First retry delay',
  'retry.maxDelayMs': 'Longest retry delay',
  timeoutMs: 'Timeout per attempt',
  ...REQUEST_LABELS,
};

/**
 * A whole number typed in a text field: undefined when blank; when it is not one, undefined, and
 * `message` in `errors[key]`.
 */
export function parseWhole(text: string, key: string, errors: Record<string, string>, message = 'Enter a whole number.'): number | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  if (/^\d+$/.test(t)) return Number(t);
  errors[key] = message;
  return undefined;
}

/** Parses the delivery draft: the values to send and the client-side errors (whole numbers only). */
export function parseDelivery(d: DeliveryDraft): {
  retry: Partial<RetryPolicy> | undefined;
  timeoutMs: number | undefined;
  errors: Record<string, string>;
} {
  const errors: Record<string, string> = {};
  const num = (key: string, text: string) => parseWhole(text, key, errors);
  const retry: Partial<RetryPolicy> = {};
  const maxAttempts = num('retry.maxAttempts', d.maxAttempts);
  const initialDelayMs = num('retry.initialDelayMs', d.initialDelayMs);
  const maxDelayMs = num('retry.maxDelayMs', d.maxDelayMs);
  if (maxAttempts !== undefined) retry.maxAttempts = maxAttempts;
  if (initialDelayMs !== undefined) retry.initialDelayMs = initialDelayMs;
  if (maxDelayMs !== undefined) retry.maxDelayMs = maxDelayMs;
  const steps = d.delaysMs.trim();
  if (steps === '') {
    if (d.editing) retry.delaysMs = null;
  } else if (/^\d+(\s*,\s*\d+)*$/.test(steps)) {
    retry.delaysMs = steps.split(',').map((x) => Number(x.trim()));
  } else {
    errors['retry.delaysMs'] = 'Enter whole numbers of ms separated by commas, such as 5000, 300000.';
  }
  const timeoutMs = num('timeoutMs', d.timeoutMs);
  return { retry: Object.keys(retry).length ? retry : undefined, timeoutMs, errors };
}

/** Parses the data textarea: a JSON object, or undefined for blank; an error message otherwise. */
export function parseData(text: string): { value: Record<string, unknown> | undefined; error?: string } {
  const t = text.trim();
  if (t === '') return { value: undefined };
  try {
    const v = JSON.parse(t) as unknown;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return { value: undefined, error: 'Enter a JSON object, such as {"key": "value"}.' };
    return { value: v as Record<string, unknown> };
  } catch (err) {
    return { value: undefined, error: `Not valid JSON: ${(err as Error).message}` };
  }
}

/** The retry and timeout fields, in a fieldset that also shows problems about `retry` as a whole. */
export function DeliveryFields({
  draft,
  onChange,
  errors,
  creating,
}: {
  draft: DeliveryDraft;
  onChange: (d: DeliveryDraft) => void;
  errors: FormErrors;
  creating: boolean;
}) {
  const input = (key: Exclude<keyof DeliveryDraft, 'editing'>, errorKey: string, label: string, hint: string) => (
    <Field name={errorKey} label={label} hint={hint} error={errors.fields[errorKey]}>
      {(attrs) => (
        <input
          {...attrs}
          type="text"
          inputMode="numeric"
          autocomplete="off"
          value={draft[key]}
          placeholder={creating ? 'default' : undefined}
          onInput={(e) => onChange({ ...draft, [key]: e.currentTarget.value })}
        />
      )}
    </Field>
  );
  return (
    <fieldset class="fieldset" id={fieldId('retry')} tabIndex={-1} aria-describedby={errors.fields.retry ? 'retry-error' : undefined}>
      <legend>Delivery</legend>
      <p class="hint">
        Failed calls (no answer, a timeout, 3xx, 408, 429 or 5xx) are retried after the steps given (each ±20 %), or, without
        steps, with exponential delays.
        {creating && ' Leave a field blank for the service’s default.'}
      </p>
      {errors.fields.retry && (
        <p class="field-error" id="retry-error">
          <span class="visually-hidden">Error: </span>
          {errors.fields.retry}
        </p>
      )}
      <div class="grid-2">
        {input('maxAttempts', 'retry.maxAttempts', 'Attempts in all', '1 to 20 (default 8).')}
        {input(
          'delaysMs',
          'retry.delaysMs',
          'Retry steps (ms)',
          'Delays before retries 1, 2, … separated by commas; the last repeats (default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). Blank when editing: exponential.',
        )}
        {input('timeoutMs', 'timeoutMs', 'Timeout per attempt (ms)', '1,000 to 900,000 (default 30,000).')}
        {input('initialDelayMs', 'retry.initialDelayMs', 'First retry delay (ms)', 'Exponential only: upper bound, doubled each retry (default 1,000).')}
        {input('maxDelayMs', 'retry.maxDelayMs', 'Longest retry delay (ms)', 'Cap of Retry-After and of exponential delays.')}
      </div>
    </fieldset>
  );
}

/** The data textarea. */
export function DataField({ value, onInput, error }: { value: string; onInput: (v: string) => void; error?: string }) {
  return (
    <Field name="data" label="Data (JSON)" hint="A JSON object sent as the body of each call. Blank: {}." error={error}>
      {(attrs) => (
        <textarea
          {...attrs}
          rows={5}
          spellcheck={false}
          class="mono"
          value={value}
          placeholder='{"invoice": 42}'
          onInput={(e) => onInput(e.currentTarget.value)}
        />
      )}
    </Field>
  );
}

/**
 * Only the entries of `next` that differ from `current` (a PATCH changes only what changed, so
 * that an unchanged expression does not move `nextInvocation`). `retry` is compared by the fields
 * given.
 */
export function changed<T extends object>(next: T, current: Record<string, unknown>): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(next) as Array<[keyof T & string, T[keyof T]]>) {
    if (v === undefined) continue;
    const cur = current[k];
    const same =
      k === 'retry' && typeof v === 'object' && v !== null && typeof cur === 'object' && cur !== null
        ? Object.entries(v).every(([field, value]) => JSON.stringify((cur as Record<string, unknown>)[field] ?? null) === JSON.stringify(value))
        : JSON.stringify(cur) === JSON.stringify(v);
    if (!same) out[k] = v as T[keyof T & string];
  }
  return out;
}
