/**
 * Wire schemas of a job's secret fields (docs/calls.md, "Secrets and authentication"):
 * write-only values in create and patch bodies (`secretHeaders`, `auth` with its secret part,
 * `signingSecret`), and what responses show instead (`secretHeaderNames`, `auth` without its
 * secret, `signingSecretSet`). The rules are the service's (service/secrets-input.ts), run by Ajv
 * through the `x-check` keyword.
 */
import { Type } from 'typebox';
import { MAX_HEADER_VALUE_BYTES, MAX_JOB_HEADERS } from '../../domain/headers.js';
import type { JobRequest } from '../../domain/types.js';
import { hasSigningSecret, secretHeaderNames, type TargetAuthInput, type TargetAuthPublic } from '../../secrets/job-secrets.js';
import { AUTH_TYPES } from '../../service/secrets-input.js';
import { CHECK_KEYWORD } from '../ajv.js';
import { Nullable } from './common.js';

const SECRET_HEADERS_DESCRIPTION =
  'Headers sent on every attempt whose values are secrets (API keys, tokens): write-only, stored encrypted (AES-256-GCM), ' +
  'never returned (responses show `secretHeaderNames`). Same rules as `headers` (at most ' +
  `${MAX_JOB_HEADERS}, values at most ${MAX_HEADER_VALUE_BYTES} bytes); a name may not be in both. ` +
  'A PATCH replaces the whole object; null removes them all.';

const AUTH_DESCRIPTION =
  'Authentication to the target, write-only in its secret parts (stored encrypted): `{"type": "basic", "username", "password"}` ' +
  '(RFC 7617), `{"type": "bearer", "token"}` (RFC 6750), or `{"type": "oauth2", "tokenUrl", "clientId", "clientSecret", ' +
  '"scope"?, "audience"?}` (the OAuth 2.0 client credentials grant, RFC 6749 §4.4; tokens cached and shared, refreshed after a 401). ' +
  'Sends `Authorization`; not with an `Authorization` header. Null removes it; a PATCH replaces it whole.';

const text = (description: string) => Type.String({ description });

/** `auth` in a create or patch body: one object for the three types (the `x-check` keyword checks each type's fields). */
const AuthInput = Nullable(
  Type.Unsafe<TargetAuthInput>(Type.Object(
    {
      type: Type.Unsafe<(typeof AUTH_TYPES)[number]>({ type: 'string', enum: [...AUTH_TYPES], description: 'basic, bearer or oauth2.' }),
      username: Type.Optional(text('basic: the user id (no ":").')),
      password: Type.Optional(text('basic: the password (write-only).')),
      token: Type.Optional(text('bearer: the token (write-only).')),
      tokenUrl: Type.Optional(text('oauth2: the token endpoint (passes the SSRF guard).')),
      clientId: Type.Optional(text('oauth2: the client id.')),
      clientSecret: Type.Optional(text('oauth2: the client secret (write-only).')),
      scope: Type.Optional(Nullable(text('oauth2: the scope requested, optional.'))),
      audience: Type.Optional(Nullable(text('oauth2: the audience requested, optional.'))),
    },
    {
      additionalProperties: false,
      [CHECK_KEYWORD]: 'auth',
      description: AUTH_DESCRIPTION,
      examples: [
        { type: 'basic', username: 'reports', password: 'correct horse battery staple' },
        { type: 'bearer', token: 'eyJhbGciOi…' },
        { type: 'oauth2', tokenUrl: 'https://auth.example.com/oauth/token', clientId: 'punctual', clientSecret: 's3cr3t', scope: 'jobs:write' },
      ],
    },
  )),
);

/** The secret fields of a create or patch body (each optional). */
export const secretInputFields = {
  secretHeaders: Type.Optional(
    Nullable(
      Type.Unsafe<Record<string, string>>({
        type: 'object',
        additionalProperties: { type: 'string' },
        [CHECK_KEYWORD]: 'headers',
        description: SECRET_HEADERS_DESCRIPTION,
        examples: [{ 'X-Api-Key': 'k_live_…' }],
      }),
    ),
  ),
  auth: Type.Optional(AuthInput),
  signingSecret: Type.Optional(
    Nullable(
      Type.String({
        description:
          "The job's own Standard Webhooks signing secret (`whsec_` + base64 of at least 24 bytes), write-only: its calls are signed " +
          "with it instead of the deployment's secret. Null: the deployment's secret signs. `POST …/{id}/signing-secret` generates one.",
      }),
    ),
  ),
};

/** `auth` in a response: its public part. */
const AuthWire = Nullable(
  Type.Object(
    {
      type: Type.Unsafe<(typeof AUTH_TYPES)[number]>({ type: 'string', enum: [...AUTH_TYPES], description: 'basic, bearer or oauth2.' }),
      username: Type.Optional(text('basic: the user id.')),
      tokenUrl: Type.Optional(text('oauth2: the token endpoint.')),
      clientId: Type.Optional(text('oauth2: the client id.')),
      scope: Type.Optional(Nullable(text('oauth2: the scope requested.'))),
      audience: Type.Optional(Nullable(text('oauth2: the audience requested.'))),
    },
    { additionalProperties: false, description: 'Authentication to the target without its secret part (`password`, `token`, `clientSecret`), or null.' },
  ),
);

/** The secret fields of a job in a response: names and public parts only. */
export const secretWireFields = {
  secretHeaderNames: Type.Array(Type.String(), { description: 'Names of the secret headers, sorted (their values are never returned).' }),
  auth: AuthWire,
  signingSecretSet: Type.Boolean({ description: 'True when the job has its own signing secret.' }),
};

/** The secret fields of a job on the wire. */
export interface SecretsWire {
  secretHeaderNames: string[];
  auth: TargetAuthPublic | null;
  signingSecretSet: boolean;
}

/** A job's secrets as responses show them: names and public parts, never a value. */
export function secretsToWire(j: Pick<JobRequest, 'auth' | 'secrets'>): SecretsWire {
  return { secretHeaderNames: secretHeaderNames(j.secrets), auth: j.auth, signingSecretSet: hasSigningSecret(j.secrets) };
}
