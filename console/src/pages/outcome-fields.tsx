/**
 * The fields that decide what a job's outcomes mean, for the forms and detail pages of schedules
 * and cron jobs: `successStatuses` (both kinds), and of cron jobs `pauseAfterFailures`,
 * `pausedReason` and `consecutiveFailures` (docs/calls.md, docs/cron.md "Auto-pause").
 */
import type { CronJob, Schedule } from '../api';
import { Field, type FormErrors } from '../components/ui';

/** One item of a job's `successStatuses`: a status code or a class such as `2xx`. */
type SuccessStatus = Schedule['successStatuses'][number];

/** A list as the form shows it: `2xx, 302`. */
export function successStatusesText(list: readonly SuccessStatus[]): string {
  return list.join(', ');
}

/** The list a form's text gives: items split at commas, digits read as a code (the API checks the rest). */
export function parseSuccessStatuses(text: string): SuccessStatus[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => (/^\d+$/.test(s) ? Number(s) : (s as SuccessStatus)));
}

/** `pauseAfterFailures` from the form's text: null when empty, else the number, or an error. */
export function parsePauseAfter(text: string): { value: number | null; error?: string } {
  const t = text.trim();
  if (t === '') return { value: null };
  return /^\d+$/.test(t) ? { value: Number(t) } : { value: null, error: 'Enter a whole number from 1 to 1000, or leave it empty.' };
}

/** The `successStatuses` input of a form. */
export function SuccessStatusesField({ value, onInput, errors }: { value: string; onInput: (v: string) => void; errors: FormErrors }) {
  return (
    <Field
      name="successStatuses"
      label="Counts as success"
      hint="Status codes and classes, separated by commas, e.g. 2xx, 302. Redirects are never followed. Default 2xx."
      error={errors.fields.successStatuses}
    >
      {(attrs) => (
        <input
          {...attrs}
          type="text"
          class="mono"
          autocomplete="off"
          spellcheck={false}
          placeholder="2xx"
          value={value}
          onInput={(e) => onInput((e.currentTarget as HTMLInputElement).value)}
        />
      )}
    </Field>
  );
}

/** The `pauseAfterFailures` input of the cron form. */
export function PauseAfterField({ value, onInput, errors }: { value: string; onInput: (v: string) => void; errors: FormErrors }) {
  return (
    <Field
      name="pauseAfterFailures"
      label="Pause after failures (optional)"
      hint="Pause the job after this many failed executions in a row (1–1000); a 410 Gone answer pauses it at once. Empty: never."
      error={errors.fields.pauseAfterFailures}
    >
      {(attrs) => <input {...attrs} type="text" inputMode="numeric" value={value} onInput={(e) => onInput((e.currentTarget as HTMLInputElement).value)} />}
    </Field>
  );
}

/** The success rule of a job, for a detail page's list of facts. */
export function SuccessFacts({ successStatuses }: { successStatuses: readonly SuccessStatus[] }) {
  return (
    <div>
      <dt>Counts as success</dt>
      <dd>
        <code>{successStatusesText(successStatuses)}</code>
      </dd>
    </div>
  );
}

/** A cron job's pause rule and state, for its detail page. */
export function PauseFacts({ job }: { job: CronJob }) {
  return (
    <>
      {job.status === 'Paused' && (
        <div>
          <dt>Paused because</dt>
          <dd>{job.pausedReason ?? <span class="muted">no reason given</span>}</dd>
        </div>
      )}
      <div>
        <dt>Pause after failures</dt>
        <dd>{job.pauseAfterFailures === null ? <span class="muted">never (a 410 Gone still pauses)</span> : `${job.pauseAfterFailures} in a row`}</dd>
      </div>
      <div>
        <dt>Failed executions in a row</dt>
        <dd>{job.consecutiveFailures}</dd>
      </div>
    </>
  );
}
