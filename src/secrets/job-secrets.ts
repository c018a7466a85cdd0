/**
 * The secrets of one job, sealed one value at a time (docs/security.md, "Secrets at rest"): its
 * secret headers, the secret part of its authentication to the target, and its own signing
 * secret. They are kept as one map, field → sealed text, where the field is the value's place in
 * the job and part of its associated data:
 *
 *   `header:<name>`   a secret header's value (the name as given)
 *   `auth`            JSON of the secret part of `auth`: `{password}`, `{token}` or `{clientSecret}`
 *   `signingSecret`   the job's own `whsec_…` signing secret
 *
 * A value sealed for one job or field does not open as another's.
 */
import type { KeyRing } from './key-ring.js';

/** Field → sealed text ({@link KeyRing.seal}); never shown on the wire or in logs. */
export type SealedSecrets = Record<string, string>;

/** The public part of a job's authentication to its target (what responses show). */
export type TargetAuthPublic =
  | { type: 'basic'; username: string }
  | { type: 'bearer' }
  | { type: 'oauth2'; tokenUrl: string; clientId: string; scope: string | null; audience: string | null };

/** Authentication to the target as given by a client: the public part with its secret. */
export type TargetAuthInput =
  | { type: 'basic'; username: string; password: string }
  | { type: 'bearer'; token: string }
  | { type: 'oauth2'; tokenUrl: string; clientId: string; clientSecret: string; scope?: string | null; audience?: string | null };

/** Authentication to the target with its secret opened (what the dispatcher uses). */
export type TargetAuthOpened =
  | { type: 'basic'; username: string; password: string }
  | { type: 'bearer'; token: string }
  | { type: 'oauth2'; tokenUrl: string; clientId: string; clientSecret: string; scope: string | null; audience: string | null };

/**
 * A change to a job's secrets: each field absent keeps what is stored, null removes it, a value
 * replaces it whole (all secret headers at once).
 */
export interface JobSecretsPatch {
  secretHeaders?: Record<string, string> | null;
  auth?: TargetAuthInput | null;
  signingSecret?: string | null;
}

/** What a job stores for its secrets: the public part of `auth` and the sealed values. */
export interface StoredJobSecrets {
  auth: TargetAuthPublic | null;
  secrets: SealedSecrets | null;
}

const HEADER = 'header:';
const AUTH = 'auth';
const SIGNING = 'signingSecret';

/** Whether `patch` carries any secret value (to refuse it when no key is configured). */
export function carriesSecrets(patch: JobSecretsPatch): boolean {
  return (
    (patch.secretHeaders != null && Object.keys(patch.secretHeaders).length > 0) || patch.auth != null || patch.signingSecret != null
  );
}

/** The public part of an authentication (`scope` and `audience` null when absent). */
export function publicAuth(auth: TargetAuthInput): TargetAuthPublic {
  switch (auth.type) {
    case 'basic':
      return { type: 'basic', username: auth.username };
    case 'bearer':
      return { type: 'bearer' };
    case 'oauth2':
      return { type: 'oauth2', tokenUrl: auth.tokenUrl, clientId: auth.clientId, scope: auth.scope ?? null, audience: auth.audience ?? null };
  }
}

/** The secret part of an authentication, as the JSON that is sealed under `auth`. */
function secretPart(auth: TargetAuthInput): string {
  switch (auth.type) {
    case 'basic':
      return JSON.stringify({ password: auth.password });
    case 'bearer':
      return JSON.stringify({ token: auth.token });
    case 'oauth2':
      return JSON.stringify({ clientSecret: auth.clientSecret });
  }
}

/**
 * The stored secrets of job `jobId` after `patch` (a create: `stored` null): each value of the
 * patch sealed with the ring's newest key; what the patch leaves is kept as it was sealed.
 * @param ring null when the service has no key: then `patch` may only remove (see {@link carriesSecrets})
 * @throws Error when `patch` carries a value to seal and `ring` is null
 */
export function sealJobSecrets(ring: KeyRing | null, jobId: string, stored: StoredJobSecrets | null, patch: JobSecretsPatch): StoredJobSecrets {
  const seal = (value: string, field: string): string => {
    if (ring === null) throw new Error('no key ring to seal a secret with');
    return ring.seal(value, { jobId, field });
  };
  const secrets: SealedSecrets = { ...(stored?.secrets ?? {}) };
  let auth = stored?.auth ?? null;
  if (patch.secretHeaders !== undefined) {
    for (const field of Object.keys(secrets)) if (field.startsWith(HEADER)) delete secrets[field];
    for (const [name, value] of Object.entries(patch.secretHeaders ?? {})) {
      secrets[HEADER + name] = seal(value, HEADER + name);
    }
  }
  if (patch.auth !== undefined) {
    delete secrets[AUTH];
    auth = patch.auth === null ? null : publicAuth(patch.auth);
    if (patch.auth !== null) secrets[AUTH] = seal(secretPart(patch.auth), AUTH);
  }
  if (patch.signingSecret !== undefined) {
    delete secrets[SIGNING];
    if (patch.signingSecret !== null) secrets[SIGNING] = seal(patch.signingSecret, SIGNING);
  }
  return { auth, secrets: Object.keys(secrets).length > 0 ? secrets : null };
}

/** The names of a job's secret headers, sorted (what responses show instead of the values). */
export function secretHeaderNames(secrets: SealedSecrets | null): string[] {
  return Object.keys(secrets ?? {})
    .filter((f) => f.startsWith(HEADER))
    .map((f) => f.slice(HEADER.length))
    .sort();
}

/** Whether a job has a signing secret of its own. */
export function hasSigningSecret(secrets: SealedSecrets | null): boolean {
  return secrets?.[SIGNING] !== undefined;
}

/** A job's secrets, opened for one call. */
export interface OpenedJobSecrets {
  /** Secret header name → value. */
  headers: Record<string, string>;
  auth: TargetAuthOpened | null;
  /** The job's own `whsec_…` secret, or null (the deployment's signs). */
  signingSecret: string | null;
}

/**
 * Opens the secrets of job `jobId` for a call.
 * @throws SecretDecryptError (secrets/errors.ts) when a value's key is missing or it was tampered
 *   with or moved from another job or field
 */
export function openJobSecrets(ring: KeyRing, jobId: string, auth: TargetAuthPublic | null, secrets: SealedSecrets | null): OpenedJobSecrets {
  const all = secrets ?? {};
  const headers: Record<string, string> = {};
  for (const [field, sealed] of Object.entries(all)) {
    if (field.startsWith(HEADER)) headers[field.slice(HEADER.length)] = ring.open(sealed, { jobId, field });
  }
  let opened: TargetAuthOpened | null = null;
  if (auth !== null && all[AUTH] !== undefined) {
    const part = JSON.parse(ring.open(all[AUTH], { jobId, field: AUTH })) as { password?: string; token?: string; clientSecret?: string };
    if (auth.type === 'basic') opened = { ...auth, password: part.password ?? '' };
    else if (auth.type === 'bearer') opened = { ...auth, token: part.token ?? '' };
    else opened = { ...auth, clientSecret: part.clientSecret ?? '' };
  }
  const signing = all[SIGNING];
  return { headers, auth: opened, signingSecret: signing === undefined ? null : ring.open(signing, { jobId, field: SIGNING }) };
}

/**
 * Every sealed value re-sealed with the ring's newest key (values already sealed with it are
 * returned as they are), for `punctual secrets rekey`.
 * @returns the new map, and whether anything changed
 * @throws SecretDecryptError when a value cannot be opened (its key is missing)
 */
export function resealJobSecrets(ring: KeyRing, jobId: string, secrets: SealedSecrets): { secrets: SealedSecrets; changed: boolean } {
  const out: SealedSecrets = {};
  let changed = false;
  for (const [field, sealed] of Object.entries(secrets)) {
    out[field] = ring.resealed(sealed, { jobId, field });
    if (out[field] !== sealed) changed = true;
  }
  return { secrets: out, changed };
}
