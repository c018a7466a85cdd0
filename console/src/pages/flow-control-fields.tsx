/**
 * A job's `flowControlKey` in the forms and detail pages of schedules and cron jobs
 * (docs/flow-control.md): the key its calls count against, shared with every job naming it.
 */
import { Field, type FormErrors } from '../components/ui';
import { Link } from '../router';

/** `flowControlKey` from the form's text: null when empty (the service checks the rest). */
export function parseFlowControlKey(text: string): string | null {
  return text.trim() || null;
}

/** The `flowControlKey` input of a job form. */
export function FlowControlKeyField({ value, onInput, errors }: { value: string; onInput: (v: string) => void; errors: FormErrors }) {
  return (
    <Field
      name="flowControlKey"
      label="Flow-control key (optional)"
      hint={
        <>
          Its calls count against this key’s limits, shared with every job naming it (<Link href="/flow-control">Flow control</Link>);
          1 to 128 of A–Z a–z 0–9 . _ : -. Empty: none.
        </>
      }
      error={errors.fields.flowControlKey}
    >
      {(attrs) => (
        <input
          {...attrs}
          type="text"
          class="mono"
          autocomplete="off"
          spellcheck={false}
          value={value}
          onInput={(e) => onInput((e.currentTarget as HTMLInputElement).value)}
        />
      )}
    </Field>
  );
}

/** A job's key, for a detail page's list of facts. */
export function FlowControlFact({ flowControlKey }: { flowControlKey: string | null }) {
  return (
    <div>
      <dt>Flow-control key</dt>
      <dd>
        {flowControlKey === null ? (
          <span class="muted">none</span>
        ) : (
          <Link href="/flow-control">
            <code>{flowControlKey}</code>
          </Link>
        )}
      </dd>
    </div>
  );
}
