/** The life of a cron job in its form: start, end, most executions and jitter (docs/cron.md, "Start, end and limits", "Jitter"). */
import type { CronJob } from '../api';
import { Field, type FormErrors } from '../components/ui';
import { parseWhole } from './form-common';

/** The four fields as typed. */
export interface LifeDraft {
  startAt: string;
  endAt: string;
  maxInvocations: string;
  jitterMs: string;
}

/** An empty draft: no start, no end, no limit, no jitter. */
export const EMPTY_LIFE: LifeDraft = { startAt: '', endAt: '', maxInvocations: '', jitterMs: '' };

/** The draft of a stored job. */
export function lifeDraftOf(j: CronJob): LifeDraft {
  return {
    startAt: j.startAt ?? '',
    endAt: j.endAt ?? '',
    maxInvocations: j.maxInvocations === null ? '' : String(j.maxInvocations),
    jitterMs: j.jitterMs === 0 ? '' : String(j.jitterMs),
  };
}

/** The fields of a create or patch body (empty text: null, or 0 for the jitter), and the errors of those that are not whole numbers. */
export function parseLife(d: LifeDraft): {
  input: { startAt: string | null; endAt: string | null; maxInvocations: number | null; jitterMs: number };
  errors: Record<string, string>;
} {
  const errors: Record<string, string> = {};
  const whole = (t: string, field: string, message: string): number | null => parseWhole(t, field, errors, message) ?? null;
  return {
    input: {
      startAt: d.startAt.trim() || null,
      endAt: d.endAt.trim() || null,
      maxInvocations: whole(d.maxInvocations, 'maxInvocations', 'Enter a whole number from 1 to 1,000,000,000, or leave it empty.'),
      jitterMs: whole(d.jitterMs, 'jitterMs', 'Enter a whole number of ms from 0 to 3,600,000, or leave it empty.') ?? 0,
    },
    errors,
  };
}

/** The four inputs, two rows of two. */
export function LifeFields({ draft, onChange, errors }: { draft: LifeDraft; onChange: (d: LifeDraft) => void; errors: FormErrors }) {
  const set = (k: keyof LifeDraft) => (e: Event) => onChange({ ...draft, [k]: (e.currentTarget as HTMLInputElement).value });
  return (
    <>
      <div class="grid-2">
        <Field name="startAt" label="Start (optional)" hint="No run before this instant, ISO 8601 with Z or an offset, e.g. 2027-01-01T09:00:00+01:00." error={errors.fields.startAt}>
          {(attrs) => <input {...attrs} type="text" class="mono" autocomplete="off" value={draft.startAt} onInput={set('startAt')} />}
        </Field>
        <Field name="endAt" label="End (optional)" hint="No run at or after this instant; the job is then Completed." error={errors.fields.endAt}>
          {(attrs) => <input {...attrs} type="text" class="mono" autocomplete="off" value={draft.endAt} onInput={set('endAt')} />}
        </Field>
      </div>
      <div class="grid-2">
        <Field
          name="maxInvocations"
          label="Most executions (optional)"
          hint="The job is Completed after this many executions (triggers and skipped ones count). Empty: no limit."
          error={errors.fields.maxInvocations}
        >
          {(attrs) => <input {...attrs} type="text" inputMode="numeric" value={draft.maxInvocations} onInput={set('maxInvocations')} />}
        </Field>
        <Field
          name="jitterMs"
          label="Jitter, ms (optional)"
          hint="Delay each run by up to this many ms (at most 3,600,000), the same delay for an occurrence on every node. Empty: none."
          error={errors.fields.jitterMs}
        >
          {(attrs) => <input {...attrs} type="text" inputMode="numeric" value={draft.jitterMs} onInput={set('jitterMs')} />}
        </Field>
      </div>
    </>
  );
}
