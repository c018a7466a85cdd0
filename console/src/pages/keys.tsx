/**
 * API keys (docs/keys-and-audit.md): the list with each key's scopes and expiry (expired keys
 * marked), a form to create one with its scopes (checkboxes) and expiry, and per key a rotation
 * with a grace period. A new token, from a creation or a rotation, is shown once.
 */
import { useEffect, useState } from 'preact/hooks';
import { API_KEY_SCOPES, createApiKey, listApiKeys, rotateApiKey, type ApiKey, type ApiKeyCreated, type ApiKeyScope } from '../api';
import { Alert, announce, errorText, ErrorSummary, Field, formErrors, Instant, NO_ERRORS, type FormErrors } from '../components/ui';

const LABELS: Record<string, string> = { name: 'Name', scopes: 'Scopes', expiresAt: 'Expires at', gracePeriodSeconds: 'Grace period' };

const SCOPE_TEXT: Record<ApiKeyScope, string> = {
  'jobs:read': 'Read schedules, cron jobs and executions',
  'jobs:write': 'Create, change, delete, trigger and replay jobs (includes reading them)',
  'keys:manage': 'Manage API keys and notification channels',
  'metrics:read': 'Read the metrics and the live nodes',
};

/** Whether the key has expired at `now` (epoch ms). */
const expired = (k: ApiKey, now: number) => k.expiresAt !== null && Date.parse(k.expiresAt) <= now;

export function KeysPage() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [shown, setShown] = useState<ApiKeyCreated | null>(null);

  const load = async () => {
    try {
      setKeys(await listApiKeys());
      setError(null);
    } catch (err) {
      setError(errorText(err));
    }
  };
  useEffect(() => {
    document.title = 'API keys · Punctual';
    void load();
  }, []);

  const show = async (created: ApiKeyCreated, what: string) => {
    setShown(created);
    announce(what);
    await load();
  };
  const now = Date.now();

  return (
    <>
      <div class="page-head">
        <h1 tabIndex={-1}>API keys</h1>
      </div>
      <p class="lead">Bearer tokens for the API and this console, each with its scopes and an optional expiry.</p>
      {shown && (
        <div class="card" role="status" data-new-token>
          <p>
            The token of <strong>{shown.name}</strong>, shown only this once: store it now.
          </p>
          <p>
            <code class="mono" data-token>
              {shown.token}
            </code>
          </p>
          <button type="button" class="button" onClick={() => setShown(null)}>
            I stored it
          </button>
        </div>
      )}
      {error && <Alert>Could not load the keys: {error}</Alert>}
      {keys === null && !error && <p aria-busy="true">Loading…</p>}
      {keys !== null && keys.length > 0 && (
        <div class="table-wrap">
          <table class="table stack">
            <caption class="visually-hidden">API keys, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Scopes</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id} data-key={k.id}>
                  <th scope="row" data-label="Name">
                    {k.name}
                  </th>
                  <td data-label="Status">{k.status}</td>
                  <td data-label="Scopes">
                    {k.scopes.map((s) => (
                      <span class="chip" key={s}>
                        {s}
                      </span>
                    ))}
                  </td>
                  <td data-label="Expires">
                    {k.expiresAt === null ? 'never' : <Instant iso={k.expiresAt} />}
                    {expired(k, now) && <span class="chip chip-danger"> expired</span>}
                  </td>
                  <td data-label="Last used">{k.lastUsed === null ? 'never' : <Instant iso={k.lastUsed} />}</td>
                  <td data-label="Actions">
                    <RotateForm apiKey={k} onRotated={(r) => show(r, `Rotated the key ${r.name}; its new token is shown once.`)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <KeyForm onCreated={(c) => show(c, `Created the key ${c.name}; its token is shown once.`)} />
    </>
  );
}

/** The rotation of one key: a grace period in seconds, then a button. */
function RotateForm({ apiKey, onRotated }: { apiKey: ApiKey; onRotated: (r: ApiKeyCreated) => Promise<void> }) {
  const [grace, setGrace] = useState('3600');
  const [problem, setProblem] = useState<string | null>(null);
  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    try {
      const rotated = await rotateApiKey(apiKey.id, Number(grace));
      setProblem(null);
      await onRotated(rotated);
    } catch (err) {
      setProblem(errorText(err));
    }
  };
  return (
    <form class="inline-form" onSubmit={(e) => void submit(e)} noValidate>
      <label>
        Grace (s)<span class="visually-hidden"> for the old token of {apiKey.name}</span>{' '}
        <input type="number" min={0} max={604800} name="gracePeriodSeconds" value={grace} onInput={(e) => setGrace(e.currentTarget.value)} size={7} />
      </label>{' '}
      <button type="submit" class="button">
        Rotate<span class="visually-hidden"> the key {apiKey.name}</span>
      </button>
      {problem && (
        <p class="field-error" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}

/** The form that creates a key. */
function KeyForm({ onCreated }: { onCreated: (c: ApiKeyCreated) => Promise<void> }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ApiKeyScope[]>(['jobs:read']);
  const [expiresAt, setExpiresAt] = useState('');
  const [errors, setErrors] = useState<FormErrors>(NO_ERRORS);
  const [busy, setBusy] = useState(false);

  const submit = async (e: SubmitEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      // datetime-local is the browser's local time; the API takes an instant.
      const expiry = expiresAt === '' ? null : new Date(expiresAt).toISOString();
      const created = await createApiKey({ name, scopes, expiresAt: expiry });
      setErrors(NO_ERRORS);
      setName('');
      setExpiresAt('');
      await onCreated(created);
    } catch (err) {
      setErrors(formErrors(err));
    } finally {
      setBusy(false);
    }
  };
  const toggle = (s: ApiKeyScope, on: boolean) => setScopes((list) => (on ? [...list, s] : list.filter((x) => x !== s)));

  return (
    <form class="card form" onSubmit={(e) => void submit(e)} noValidate aria-labelledby="add-key-title">
      <h2 id="add-key-title">Create a key</h2>
      <ErrorSummary errors={errors} labels={LABELS} />
      <Field name="name" label="Name" error={errors.fields.name}>
        {(a) => <input {...a} type="text" value={name} onInput={(e) => setName(e.currentTarget.value)} required />}
      </Field>
      <fieldset
        id="f-scopes"
        tabIndex={-1}
        class={`fieldset${errors.fields.scopes ? ' field-invalid' : ''}`}
        aria-describedby={errors.fields.scopes ? 'f-scopes-error' : undefined}
      >
        <legend>Scopes</legend>
        {errors.fields.scopes && (
          <p class="field-error" id="f-scopes-error">
            <span class="visually-hidden">Error: </span>
            {errors.fields.scopes}
          </p>
        )}
        {API_KEY_SCOPES.map((s) => (
          <label key={s} class="check">
            <input type="checkbox" name="scopes" value={s} checked={scopes.includes(s)} onChange={(e) => toggle(s, e.currentTarget.checked)} />
            <span>
              {SCOPE_TEXT[s]} <code>{s}</code>
            </span>
          </label>
        ))}
      </fieldset>
      <Field name="expiresAt" label="Expires at" hint="Empty: never. Your local time." error={errors.fields.expiresAt}>
        {(a) => <input {...a} type="datetime-local" value={expiresAt} onInput={(e) => setExpiresAt(e.currentTarget.value)} />}
      </Field>
      <div class="actions">
        <button type="submit" class="button button-primary" disabled={busy}>
          Create the key
        </button>
      </div>
    </form>
  );
}
