/**
 * The write-only secret fields of a job, for schedules and cron jobs alike (docs/calls.md,
 * "Secrets and authentication"): `secretHeaders`, `auth` (HTTP Basic, RFC 7617; bearer, RFC 6750;
 * the OAuth 2.0 client credentials grant, RFC 6749 §4.4) and `signingSecret`. Their rules, the
 * rules between them and the job's `headers`, and their sealing with the service's key ring
 * (secrets/job-secrets.ts): the values are stored sealed, responses show only names and public parts.
 */
import type { FieldProblem } from '../domain/errors.js';
import { headerValue, headerValueProblem } from '../domain/headers.js';
import { signingSecretProblem } from '../domain/signing-secret.js';
import type { JobRequest } from '../domain/types.js';
import { carriesSecrets, sealJobSecrets, secretHeaderNames, type TargetAuthInput } from '../secrets/job-secrets.js';
import { SECRETS_NEED_KEYS, type JobServiceContext } from './context.js';
import { headersProblems } from './request.js';
import { Checks, DEFAULT_RULE_CONTEXT, isJsonObject, type RuleContext } from './rules.js';

/** The secret fields of a create or patch: absent keeps (or, on a create, none), null removes, a value replaces. */
export interface SecretsInput {
  secretHeaders?: Record<string, string> | null;
  auth?: TargetAuthInput | null;
  signingSecret?: string | null;
}

/** The kinds of `auth`. */
export const AUTH_TYPES = ['basic', 'bearer', 'oauth2'] as const;

/** True when a patch gives a secret field, or `headers` (which the secret fields are checked against). */
export function touchesSecrets(patch: SecretsInput & { headers?: unknown }): boolean {
  return patch.secretHeaders !== undefined || patch.auth !== undefined || patch.signingSecret !== undefined || patch.headers !== undefined;
}

/** A text field of `auth`: a string, not empty, of visible ASCII, spaces or tabs. */
function authText(checks: Checks, path: string, value: unknown, required: boolean): void {
  if (value === undefined || value === null) {
    if (required) checks.add(path, 'is required');
    return;
  }
  if (typeof value !== 'string') checks.add(path, 'must be a string');
  else if (value.length === 0) checks.add(path, 'must not be empty');
  else if (headerValueProblem(value) !== null) checks.add(path, 'must be visible ASCII, spaces or tabs (no control characters)');
}

/**
 * Why an `auth` value (not null) breaks the rules, as field problems under `path`, by its `type`:
 * `basic`: `username` without `:` (RFC 7617 §2) and `password`; `bearer`: `token`; `oauth2`:
 * `tokenUrl` by the endpoint rule and SSRF policy, `clientId`, `clientSecret`, optional `scope`
 * and `audience`; no field of another type.
 */
export function authProblems(path: string, auth: unknown, rules: RuleContext = DEFAULT_RULE_CONTEXT): FieldProblem[] {
  const checks = new Checks(rules);
  if (!isJsonObject(auth)) return checks.add(path, 'must be an object with a type: basic, bearer or oauth2, or null').problems;
  const fields: Record<string, string[]> = {
    basic: ['type', 'username', 'password'],
    bearer: ['type', 'token'],
    oauth2: ['type', 'tokenUrl', 'clientId', 'clientSecret', 'scope', 'audience'],
  };
  const type = typeof auth.type === 'string' && Object.hasOwn(fields, auth.type) ? auth.type : null;
  if (type === null) return checks.add(`${path}/type`, `must be one of ${AUTH_TYPES.join(', ')}`).problems;
  for (const key of Object.keys(auth)) if (!fields[type]!.includes(key)) checks.add(`${path}/${key}`, `is not a field of ${type} auth`);
  if (type === 'basic') {
    authText(checks, `${path}/username`, auth.username, true);
    if (typeof auth.username === 'string' && auth.username.includes(':')) checks.add(`${path}/username`, 'must not contain ":" (RFC 7617)');
    authText(checks, `${path}/password`, auth.password, true);
  } else if (type === 'bearer') {
    authText(checks, `${path}/token`, auth.token, true);
  } else {
    checks.required(`${path}/tokenUrl`, auth.tokenUrl).rule(`${path}/tokenUrl`, 'endpoint', auth.tokenUrl);
    for (const f of ['clientId', 'clientSecret']) authText(checks, `${path}/${f}`, auth[f], true);
    for (const f of ['scope', 'audience']) authText(checks, `${path}/${f}`, auth[f], false);
  }
  return checks.problems;
}

/**
 * Checks the secret fields on their own: `secretHeaders` as `headers` (request.ts), `auth` by
 * {@link authProblems}, `signingSecret` as a `whsec_` secret (domain/signing-secret.ts).
 */
export function checkSecretsFields(checks: Checks, input: SecretsInput): Checks {
  if (input.secretHeaders !== undefined && input.secretHeaders !== null) {
    for (const p of headersProblems('/secretHeaders', input.secretHeaders)) checks.add(p.path, p.message);
  }
  if (input.auth !== undefined && input.auth !== null) for (const p of authProblems('/auth', input.auth, checks.ctx)) checks.add(p.path, p.message);
  if (typeof input.signingSecret === 'string') {
    const problem = signingSecretProblem(input.signingSecret);
    if (problem !== null) checks.add('/signingSecret', problem);
  } else if (input.signingSecret !== undefined && input.signingSecret !== null) {
    checks.add('/signingSecret', 'must be a string or null');
  }
  return checks;
}

/** What a job has stored of its request and secrets (null on a create). */
type StoredRequest = Pick<JobRequest, 'headers' | 'auth' | 'secrets'>;

/**
 * The `auth` and `secrets` to store for job `jobId` after `input` (a create: `stored` null), or
 * nothing when the input gives no secret field. Checked first, once the input is applied to the
 * job: a header name is not both in `headers` and `secretHeaders` (any case); `auth` does not come
 * with an `Authorization` header, plain or secret; secrets need the service's key ring.
 * @param headers the job's `headers` once the input is applied
 * @throws InvalidInputError naming the field
 */
export function applySecrets(
  ctx: Pick<JobServiceContext, 'keyRing'>,
  jobId: string,
  input: SecretsInput,
  stored: StoredRequest | null,
  headers: Record<string, string>,
): Partial<Pick<JobRequest, 'auth' | 'secrets'>> {
  const checks = new Checks();
  const secretNames = input.secretHeaders === undefined ? secretHeaderNames(stored?.secrets ?? null) : Object.keys(input.secretHeaders ?? {});
  for (const name of secretNames) {
    if (headerValue(headers, name) !== undefined) checks.add(`/secretHeaders/${name}`, 'is also in headers: a header is either plain or secret');
  }
  const hasAuth = input.auth === undefined ? (stored?.auth ?? null) !== null : input.auth !== null;
  const authorization = headerValue(headers, 'authorization') !== undefined || secretNames.some((n) => n.toLowerCase() === 'authorization');
  if (hasAuth && authorization) checks.add('/auth', 'cannot be combined with an Authorization header (plain or secret)');
  if (carriesSecrets(input) && !ctx.keyRing) {
    const field = input.secretHeaders ? '/secretHeaders' : input.auth ? '/auth' : '/signingSecret';
    checks.add(field, SECRETS_NEED_KEYS);
  }
  checks.throwIfAny();
  if (input.secretHeaders === undefined && input.auth === undefined && input.signingSecret === undefined) return {};
  // Without a key ring only removals get here (checked above): they seal nothing.
  return sealJobSecrets(ctx.keyRing ?? null, jobId, stored, input);
}
