/** The request fields of both job forms: method, headers, secret headers, text body, authentication. */
import { HTTP_METHODS, type HttpMethod } from '../api';
import { Field, fieldId, type FormErrors } from '../components/ui';
import { DataField } from './form-common';
import { hasBody, type AuthChoice, type AuthDraft, type HeaderRow, type JobRequest, type RequestDraft } from './request-draft';

/** The messages of `key` and of its sub-keys (`headers.X-Foo`), joined. */
function groupError(errors: FormErrors, key: string): string | undefined {
  const messages = Object.entries(errors.fields)
    .filter(([k]) => k === key || k.startsWith(`${key}.`))
    .map(([, m]) => m);
  return messages.length ? messages.join('; ') : undefined;
}

function FieldsetError({ id, error }: { id: string; error: string | undefined }) {
  if (!error) return null;
  return (
    <p class="field-error" id={id}>
      <span class="visually-hidden">Error: </span>
      {error}
    </p>
  );
}

/** A text input, or a password input for a secret (preact types the two apart). */
function TextInput({
  secret,
  onValue,
  ...props
}: {
  secret: boolean;
  value: string;
  onValue: (value: string) => void;
  id?: string;
  name?: string;
  class?: string;
  placeholder?: string;
  'aria-label'?: string;
  'aria-describedby'?: string;
  'aria-invalid'?: 'true';
}) {
  const onInput = (e: Event) => onValue((e.currentTarget as HTMLInputElement).value);
  return secret ? (
    <input {...props} type="password" autocomplete="new-password" spellcheck={false} onInput={onInput} />
  ) : (
    <input {...props} type="text" autocomplete="off" spellcheck={false} onInput={onInput} />
  );
}

/** Editable header rows (name, value; add, remove); `secret` makes the values password inputs. */
function HeaderRows({
  rows,
  onChange,
  label,
  secret,
}: {
  rows: HeaderRow[];
  onChange: (rows: HeaderRow[]) => void;
  label: string;
  secret: boolean;
}) {
  const edit = (i: number, patch: Partial<HeaderRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <>
      {rows.map((r, i) => (
        <div class="header-row" key={i}>
          <input
            type="text"
            class="mono"
            aria-label={`${label} ${i + 1} name`}
            autocomplete="off"
            spellcheck={false}
            placeholder={secret ? 'X-Api-Key' : 'X-Request-Source'}
            value={r.name}
            onInput={(e) => edit(i, { name: e.currentTarget.value })}
          />
          <TextInput
            secret={secret}
            class="mono"
            aria-label={`${label} ${i + 1} value`}
            value={r.value}
            onValue={(value) => edit(i, { value })}
          />
          <button type="button" class="button button-quiet" onClick={() => onChange(rows.filter((_, j) => j !== i))}>
            Remove<span class="visually-hidden"> {label.toLowerCase()} {i + 1}</span>
          </button>
        </div>
      ))}
      <button type="button" class="button" onClick={() => onChange([...rows, { name: '', value: '' }])}>
        Add {label.toLowerCase()}
      </button>
    </>
  );
}

/** The saved secret headers: names with "set", and a way to replace or remove them. */
function SecretHeaders({ draft, saved, onChange }: { draft: RequestDraft; saved: JobRequest | null; onChange: (rows: HeaderRow[] | null) => void }) {
  const names = saved?.secretHeaderNames ?? [];
  if (draft.secretHeaders === null) {
    return (
      <>
        <ul class="secret-list">
          {names.map((n) => (
            <li key={n}>
              <code>{n}</code>: <span class="chip">set</span>
            </li>
          ))}
        </ul>
        <button type="button" class="button" onClick={() => onChange(names.map((name) => ({ name, value: '' })))}>
          Replace secret headers
        </button>
      </>
    );
  }
  return (
    <>
      {names.length > 0 && (
        <p class="hint">
          Saving replaces all secret headers with these: type every value again. No rows removes them.{' '}
          <button type="button" class="link-button" onClick={() => onChange(null)}>
            Keep the saved ones
          </button>
        </p>
      )}
      <HeaderRows rows={draft.secretHeaders} onChange={onChange} label="Secret header" secret />
    </>
  );
}

const AUTH_CHOICES: Array<[AuthChoice, string]> = [
  ['none', 'None'],
  ['basic', 'Basic (username and password)'],
  ['bearer', 'Bearer token'],
  ['oauth2', 'OAuth 2.0 client credentials'],
];

/** The authentication section: a type and its fields; secrets in password inputs, "set" when saved. */
function AuthFields({ auth, saved, onChange, errors }: { auth: AuthDraft; saved: JobRequest | null; onChange: (a: AuthDraft) => void; errors: FormErrors }) {
  const kept = saved?.auth?.type === auth.type;
  const input = (key: keyof Omit<AuthDraft, 'type'>, label: string, secret = false, hint?: string) => (
    <Field name={`auth.${key}`} label={label} hint={secret && kept ? 'Secret set. Leave blank to keep it, unless you change the fields above.' : hint} error={errors.fields[`auth.${key}`]}>
      {(attrs) => (
        <TextInput
          {...attrs}
          secret={secret}
          placeholder={secret && kept ? 'secret set' : undefined}
          value={auth[key]}
          onValue={(value) => onChange({ ...auth, [key]: value })}
        />
      )}
    </Field>
  );
  return (
    <fieldset class="fieldset" id={fieldId('auth')} tabIndex={-1}>
      <legend>Authentication</legend>
      <FieldsetError id="auth-error" error={errors.fields.auth} />
      <Field name="auth.type" label="Authentication" hint="Sends an Authorization header; secrets are stored encrypted and never shown again.">
        {(attrs) => (
          <select {...attrs} value={auth.type} onChange={(e) => onChange({ ...auth, type: e.currentTarget.value as AuthChoice })}>
            {AUTH_CHOICES.map(([v, text]) => (
              <option value={v} key={v}>
                {text}
              </option>
            ))}
          </select>
        )}
      </Field>
      {auth.type === 'basic' && (
        <div class="grid-2">
          {input('username', 'Username')}
          {input('password', 'Password', true)}
        </div>
      )}
      {auth.type === 'bearer' && input('token', 'Token', true)}
      {auth.type === 'oauth2' && (
        <div class="grid-2">
          {input('tokenUrl', 'Token URL', false, 'The token endpoint of the authorisation server.')}
          {input('clientId', 'Client id')}
          {input('clientSecret', 'Client secret', true)}
          {input('scope', 'Scope (optional)')}
          {input('audience', 'Audience (optional)')}
        </div>
      )}
    </fieldset>
  );
}

/** A job form's draft as far as the request goes: the data textarea's text and the request draft. */
interface WithRequest {
  data: string;
  request: RequestDraft;
}

/**
 * Method, the data (JSON) and text body (both only when the method has one), headers, secret
 * headers and authentication, of a form whose draft holds `data` and `request`.
 */
export function RequestFields<D extends WithRequest>({
  draft: form,
  setDraft,
  saved,
  errors,
}: {
  draft: D;
  setDraft: (update: (d: D) => D) => void;
  saved: JobRequest | null;
  errors: FormErrors;
}) {
  const draft = form.request;
  const onChange = (request: RequestDraft) => setDraft((d) => ({ ...d, request }));
  const dataField = <DataField value={form.data} onInput={(data) => setDraft((d) => ({ ...d, data }))} error={errors.fields.data} />;
  const headersError = groupError(errors, 'headers');
  const secretError = groupError(errors, 'secretHeaders');
  return (
    <>
      <Field name="method" label="Method" error={errors.fields.method} hint="GET and HEAD calls carry no body.">
        {(attrs) => (
          <select {...attrs} value={draft.method} onChange={(e) => onChange({ ...draft, method: e.currentTarget.value as HttpMethod })}>
            {HTTP_METHODS.map((m) => (
              <option value={m} key={m}>
                {m}
              </option>
            ))}
          </select>
        )}
      </Field>
      {hasBody(draft.method) && dataField}
      {hasBody(draft.method) && (
        <Field name="body" label="Body (text)" hint="Sent as it is instead of the JSON data (leave the data blank); typed by a Content-Type header, else text/plain." error={errors.fields.body}>
          {(attrs) => (
            <textarea {...attrs} rows={3} spellcheck={false} class="mono" value={draft.body} onInput={(e) => onChange({ ...draft, body: e.currentTarget.value })} />
          )}
        </Field>
      )}
      <fieldset class="fieldset" id={fieldId('headers')} tabIndex={-1}>
        <legend>Headers</legend>
        <FieldsetError id="headers-error" error={headersError} />
        <HeaderRows rows={draft.headers} onChange={(headers) => onChange({ ...draft, headers })} label="Header" secret={false} />
      </fieldset>
      <fieldset class="fieldset" id={fieldId('secretHeaders')} tabIndex={-1}>
        <legend>Secret headers</legend>
        <p class="hint">For API keys and tokens: stored encrypted, never shown again.</p>
        <FieldsetError id="secretHeaders-error" error={secretError} />
        <SecretHeaders draft={draft} saved={saved} onChange={(secretHeaders) => onChange({ ...draft, secretHeaders })} />
      </fieldset>
      <AuthFields auth={draft.auth} saved={saved} onChange={(auth) => onChange({ ...draft, auth })} errors={errors} />
    </>
  );
}
