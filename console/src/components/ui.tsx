/** Small building blocks: status badges, labelled fields with their errors, dialogs, announcements. */
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type FieldProblem } from '../api';
import { formatInstant, formatRelative } from '../format';
import { useLocation } from '../router';

// ---- Announcements (one polite live region for the whole app) ---------------------------------

export interface Announcement {
  id: number;
  text: string;
  tone: 'info' | 'success' | 'error';
  at: number;
}

const announcementListeners = new Set<(a: Announcement) => void>();
let nextAnnouncement = 1;

/** Says `text` in the status area (read out by screen readers, shown for a few seconds). */
export function announce(text: string, tone: Announcement['tone'] = 'success'): void {
  const a = { id: nextAnnouncement++, text, tone, at: Date.now() };
  for (const l of announcementListeners) l(a);
}

/**
 * The live region of {@link announce}. A message stays 8 s, until dismissed, or until the next
 * navigation (a message said just before a navigation, "created", stays for the new page).
 */
export function StatusArea() {
  const [current, setCurrent] = useState<Announcement | null>(null);
  const { path } = useLocation();
  useEffect(() => {
    let timer = 0;
    const show = (a: Announcement) => {
      setCurrent(a);
      window.clearTimeout(timer);
      timer = window.setTimeout(() => setCurrent((c) => (c?.id === a.id ? null : c)), 8_000);
    };
    announcementListeners.add(show);
    return () => {
      announcementListeners.delete(show);
      window.clearTimeout(timer);
    };
  }, []);
  useEffect(() => {
    setCurrent((c) => (c && Date.now() - c.at > 1_000 ? null : c));
  }, [path]);
  return (
    <div class="status-area" role="status" aria-live="polite" aria-atomic="true">
      {current && (
        <p class={`toast toast-${current.tone}`} key={current.id}>
          <span>{current.text}</span>
          <button type="button" class="toast-close" onClick={() => setCurrent(null)} aria-label="Dismiss message">
            ×
          </button>
        </p>
      )}
    </div>
  );
}

// ---- Status badges -----------------------------------------------------------------------------

const TONE: Record<string, string> = {
  Pending: 'neutral',
  Running: 'info',
  Retrying: 'warn',
  Succeeded: 'ok',
  Failed: 'bad',
  Skipped: 'neutral',
  Active: 'ok',
  Paused: 'warn',
  Completed: 'neutral',
};

/** A job or execution status as a coloured pill with its name (colour is never the only cue). */
export function StatusBadge({ status }: { status: string | null }) {
  if (!status) return <span class="badge badge-neutral">none yet</span>;
  return <span class={`badge badge-${TONE[status] ?? 'neutral'}`}>{status}</span>;
}

// ---- Errors --------------------------------------------------------------------------------------

/** Field key of a problem path: `/retry/maxAttempts` → `retry.maxAttempts`, `/query/expression` → `expression`. */
export function fieldKey(path: string): string {
  return path.replace(/^\/(query|params)\//, '/').replace(/^\//, '').replace(/\//g, '.');
}

/** Field errors of a failed call, by field key; `general` holds the message when no field is named. */
export interface FormErrors {
  fields: Record<string, string>;
  general: string | null;
}

export const NO_ERRORS: FormErrors = { fields: {}, general: null };

/** The {@link FormErrors} of whatever a call threw. */
export function formErrors(err: unknown): FormErrors {
  if (err instanceof ApiError) {
    const fields: Record<string, string> = {};
    for (const e of err.fieldErrors as FieldProblem[]) {
      const key = fieldKey(e.path);
      fields[key] = fields[key] ? `${fields[key]}; ${e.message}` : e.message;
    }
    const general = Object.keys(fields).length ? null : `${err.problem.title}: ${err.problem.detail}`;
    return { fields, general };
  }
  return { fields: {}, general: err instanceof Error ? err.message : String(err) };
}

/** A message for an error shown outside a form. */
export function errorText(err: unknown): string {
  if (err instanceof ApiError) return err.problem.detail || err.problem.title;
  return err instanceof Error ? err.message : String(err);
}

/** An error message announced at once (role=alert). */
export function Alert({ children }: { children: ComponentChildren }) {
  return (
    <div class="alert" role="alert">
      {children}
    </div>
  );
}

/**
 * The list of a form's errors, at its top, with links to the fields; takes the focus when it
 * appears so that keyboard and screen-reader users land on it.
 */
export function ErrorSummary({ errors, labels }: { errors: FormErrors; labels: Record<string, string> }) {
  const ref = useRef<HTMLDivElement>(null);
  const entries = Object.entries(errors.fields);
  const any = entries.length > 0 || errors.general !== null;
  useEffect(() => {
    if (any) ref.current?.focus();
  }, [errors]);
  if (!any) return null;
  return (
    <div class="error-summary" role="alert" tabIndex={-1} ref={ref} aria-labelledby="error-summary-title">
      <h2 id="error-summary-title">Please check the form</h2>
      {errors.general && <p>{errors.general}</p>}
      {entries.length > 0 && (
        <ul>
          {entries.map(([key, message]) => {
            const target = fieldTarget(key, labels);
            return (
              <li key={key}>
                <a href={`#${target.id}`} onClick={(e) => focusField(e, target.id)}>
                  {target.label}
                </a>
                : {message}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}

/** The field element that shows the errors of `key` (a retry sub-field falls back to the fieldset). */
function fieldTarget(key: string, labels: Record<string, string>): { id: string; label: string } {
  if (labels[key]) return { id: fieldId(key), label: labels[key]! };
  const top = key.split('.')[0]!;
  if (labels[top]) return { id: fieldId(top), label: labels[top]! };
  return { id: fieldId(top), label: key || 'Request' };
}

function focusField(e: MouseEvent, id: string) {
  const el = document.getElementById(id);
  if (!el) return;
  e.preventDefault();
  el.focus();
  el.scrollIntoView({ block: 'center' });
}

/** The DOM id of a field's control. */
export const fieldId = (key: string) => `f-${key.replace(/\./g, '-')}`;

// ---- Fields -------------------------------------------------------------------------------------

interface FieldProps {
  name: string;
  label: string;
  hint?: ComponentChildren;
  error?: string;
  children: (attrs: {
    id: string;
    name: string;
    'aria-describedby'?: string;
    'aria-invalid'?: 'true';
  }) => JSX.Element;
  class?: string;
}

/** A label, the control made by `children` with the right ids, a hint and the field's error. */
export function Field({ name, label, hint, error, children, class: cls }: FieldProps) {
  const id = fieldId(name);
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field${error ? ' field-invalid' : ''}${cls ? ` ${cls}` : ''}`}>
      <label for={id}>{label}</label>
      {hint && (
        <div class="hint" id={`${id}-hint`}>
          {hint}
        </div>
      )}
      {error && (
        <p class="field-error" id={`${id}-error`}>
          <span class="visually-hidden">Error: </span>
          {error}
        </p>
      )}
      {children({ id, name, 'aria-describedby': describedBy, 'aria-invalid': error ? 'true' : undefined })}
    </div>
  );
}

// ---- Confirmation --------------------------------------------------------------------------------

/**
 * A modal confirmation (<dialog> with showModal: focus is kept inside, Escape cancels, and the
 * focus returns to the button that opened it).
 */
export function ConfirmButton({
  label,
  title,
  body,
  confirmLabel,
  onConfirm,
  class: cls = 'button button-danger',
}: {
  /** The button's text (it may add visually hidden words naming what it acts on). */
  label: ComponentChildren;
  title: string;
  body: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => void | Promise<void>;
  class?: string;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const titleId = useRef(`dlg-${Math.random().toString(36).slice(2)}`).current;
  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
      dialog.current?.close();
    }
  };
  return (
    <>
      <button type="button" class={cls} onClick={() => dialog.current?.showModal()}>
        {label}
      </button>
      <dialog ref={dialog} aria-labelledby={titleId} class="dialog">
        <h2 id={titleId}>{title}</h2>
        <div>{body}</div>
        <div class="actions">
          <button type="button" class="button" autofocus onClick={() => dialog.current?.close()}>
            Cancel
          </button>
          <button type="button" class="button button-danger" disabled={busy} onClick={confirm}>
            {confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}

/** A `<time>` with the instant in the browser's zone, its UTC form as a tooltip, and the relative time. */
export function Instant({ iso, zone, relative = true }: { iso: string | null; zone?: string; relative?: boolean }) {
  if (!iso) return <span>—</span>;
  return (
    <span class="instant">
      <time dateTime={iso} title={`${iso} (UTC)`}>
        {formatInstant(iso, zone)}
      </time>
      {relative && <span class="muted"> ({formatRelative(iso)})</span>}
    </span>
  );
}
