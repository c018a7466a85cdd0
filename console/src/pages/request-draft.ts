/**
 * The request part of both job forms as typed: method, headers, secret headers, text body and
 * authentication to the target; what it sends at create and in a PATCH (docs/calls.md, "The
 * request in the console").
 *
 * Secrets are write-only: the console never has their values. A saved secret header or auth shows
 * as "set"; leaving it untouched sends nothing, and changing it sends it whole again (a PATCH
 * replaces `secretHeaders` and `auth` whole), so its secret must be typed again.
 */
import type { AuthInput, AuthPublic, HttpMethod, Schedule } from '../api';

/** One header row: a name and its value (a secret one in a password input). */
export interface HeaderRow {
  name: string;
  value: string;
}

/** The authentication choices of the form: none, or one of the API's `auth.type`s. */
export type AuthChoice = 'none' | AuthPublic['type'];

/** Every field of every auth type, as typed (only those of `type` are sent). */
export interface AuthDraft {
  type: AuthChoice;
  username: string;
  password: string;
  token: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope: string;
  audience: string;
}

export interface RequestDraft {
  method: HttpMethod;
  headers: HeaderRow[];
  /** The secret headers typed; null while the saved ones are left untouched (nothing is sent). */
  secretHeaders: HeaderRow[] | null;
  /** Text body; blank means none (the JSON of `data` is sent). */
  body: string;
  auth: AuthDraft;
}

/** What a job's request looks like on the wire, for both job kinds. */
export type JobRequest = Pick<Schedule, 'method' | 'headers' | 'body' | 'secretHeaderNames' | 'auth' | 'signingSecretSet'>;

const NO_AUTH: AuthDraft = {
  type: 'none',
  username: '',
  password: '',
  token: '',
  tokenUrl: '',
  clientId: '',
  clientSecret: '',
  scope: '',
  audience: '',
};

export const EMPTY_REQUEST: RequestDraft = { method: 'POST', headers: [], secretHeaders: [], body: '', auth: NO_AUTH };

/** The draft of a saved job: its public parts filled in, its secrets blank (and untouched). */
export function requestDraftOf(j: JobRequest): RequestDraft {
  const a = j.auth;
  return {
    method: j.method,
    headers: Object.entries(j.headers).map(([name, value]) => ({ name, value })),
    secretHeaders: j.secretHeaderNames.length ? null : [],
    body: j.body ?? '',
    auth: a
      ? {
          ...NO_AUTH,
          type: a.type,
          username: a.username ?? '',
          tokenUrl: a.tokenUrl ?? '',
          clientId: a.clientId ?? '',
          scope: a.scope ?? '',
          audience: a.audience ?? '',
        }
      : NO_AUTH,
  };
}

/** GET and HEAD calls carry no body (RFC 9110 §9.3.1, §9.3.2; the service refuses one). */
export const hasBody = (method: HttpMethod) => method !== 'GET' && method !== 'HEAD';

/** The request fields to send; `undefined` leaves a field out (the default, or unchanged in a PATCH). */
export interface RequestInput {
  method: HttpMethod;
  headers: Record<string, string>;
  body: string | null;
  secretHeaders?: Record<string, string> | null;
  auth?: AuthInput | null;
}

/** Rows with a name or a value, as an object; an error for a row with a value and no name. */
function rowsToObject(rows: HeaderRow[], key: string, errors: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of rows) {
    if (r.name.trim() === '' && r.value === '') continue;
    if (r.name.trim() === '') errors[key] = 'Every header needs a name.';
    else out[r.name.trim()] = r.value;
  }
  return out;
}

const PUBLIC_AUTH_FIELDS = ['username', 'tokenUrl', 'clientId', 'scope', 'audience'] as const;

/**
 * The `auth` to send: undefined when unchanged (or none before and after), null to remove it, else
 * the whole object, whose secret must then be typed (a PATCH replaces `auth` whole).
 */
function authInput(a: AuthDraft, saved: AuthPublic | null, errors: Record<string, string>): AuthInput | null | undefined {
  if (a.type === 'none') return saved ? null : undefined;
  const secretKey = a.type === 'basic' ? 'password' : a.type === 'bearer' ? 'token' : 'clientSecret';
  const unchanged =
    saved !== null &&
    saved.type === a.type &&
    a[secretKey] === '' &&
    PUBLIC_AUTH_FIELDS.every((k) => (saved[k] ?? '') === a[k].trim());
  if (unchanged) return undefined;
  if (a[secretKey] === '') {
    errors[`auth.${secretKey}`] = saved ? 'Enter the secret again: a change replaces the authentication whole.' : 'Enter the secret.';
  }
  if (a.type === 'basic') return { type: 'basic', username: a.username.trim(), password: a.password };
  if (a.type === 'bearer') return { type: 'bearer', token: a.token };
  return {
    type: 'oauth2',
    tokenUrl: a.tokenUrl.trim(),
    clientId: a.clientId.trim(),
    clientSecret: a.clientSecret,
    scope: a.scope.trim() || null,
    audience: a.audience.trim() || null,
  };
}

/**
 * Parses the request draft against the saved job (null at create).
 * @returns the fields to send, and client-side errors by field key (`headers`, `auth.password`, …)
 */
export function parseRequest(d: RequestDraft, saved: JobRequest | null): { input: RequestInput; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const input: RequestInput = {
    method: d.method,
    headers: rowsToObject(d.headers, 'headers', errors),
    body: hasBody(d.method) && d.body !== '' ? d.body : null,
  };
  if (d.secretHeaders !== null) {
    const secrets = rowsToObject(d.secretHeaders, 'secretHeaders', errors);
    if (Object.keys(secrets).length) input.secretHeaders = secrets;
    else if (saved?.secretHeaderNames.length) input.secretHeaders = null;
  }
  const auth = authInput(d.auth, saved?.auth ?? null, errors);
  if (auth !== undefined) input.auth = auth;
  return { input, errors };
}

/** Labels of the request's field keys, for the error summary. */
export const REQUEST_LABELS: Record<string, string> = {
  method: 'Method',
  headers: 'Headers',
  secretHeaders: 'Secret headers',
  body: 'Body (text)',
  auth: 'Authentication',
  'auth.username': 'Username',
  'auth.password': 'Password',
  'auth.token': 'Token',
  'auth.tokenUrl': 'Token URL',
  'auth.clientId': 'Client id',
  'auth.clientSecret': 'Client secret',
  signingSecret: 'Signing secret',
};
