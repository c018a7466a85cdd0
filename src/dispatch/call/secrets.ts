/**
 * What a call adds from its job's secrets (docs/calls.md, "Secrets and authentication"): the
 * secret headers, the `Authorization` of its authentication to the target (target-auth.ts), and
 * the signer of its own signing secret. The secrets are opened for one call and never kept.
 */
import type { ClaimedExecution } from '../../domain/types.js';
import { SecretDecryptError, SecretKeyMissingError, SecretTamperedError } from '../../secrets/errors.js';
import { openJobSecrets } from '../../secrets/job-secrets.js';
import { KeyRing } from '../../secrets/key-ring.js';
import { WebhookSigner } from './signing.js';
import { authorizationHeader, TokenError, type OAuth2Credentials, type OAuthTokens } from './target-auth.js';

/** What the calls need to open secrets and authenticate. */
export interface CallSecretsOptions {
  /** The key ring of job secrets; null when the service has none (then a job's secrets cannot open). */
  keyRing: KeyRing | null;
  /** OAuth 2.0 access tokens, cached across calls. */
  tokens: OAuthTokens;
  /** Told of each secret that could not be opened (the `dispatch:secret-failed` event). */
  onSecretFailure?: (error: SecretDecryptError) => void;
}

/** A call's additions from its job's secrets. */
export interface PreparedSecrets {
  /** Secret headers and `authorization`, as given (case kept). */
  headers: Record<string, string>;
  /** The signer of the job's own signing secret, or null (the deployment's signs). */
  signer: WebhookSigner | null;
  /** The OAuth 2.0 credentials and the token sent, to refresh after a 401; null otherwise. */
  oauth: { creds: OAuth2Credentials; token: string } | null;
}

/** Why a call cannot be made: the attempt fails with `error`; `permanent`: not retried. */
export interface SecretsFailure {
  error: string;
  permanent: boolean;
}

/**
 * Opens `claim`'s secrets and builds what the call adds. A secret that cannot be opened (its key
 * missing, or tampered) fails the attempt, retried like any failure (the key may come back); a
 * token endpoint that refuses the client (4xx) or an SSRF-refused token URL fails it for good.
 */
export async function prepareSecrets(claim: ClaimedExecution, opts: CallSecretsOptions): Promise<PreparedSecrets | SecretsFailure> {
  if (claim.secrets === null && claim.auth === null) return { headers: {}, signer: null, oauth: null };
  let opened: ReturnType<typeof openJobSecrets>;
  try {
    if (opts.keyRing === null) throw missingKey(claim);
    opened = openJobSecrets(opts.keyRing, claim.jobId, claim.auth, claim.secrets);
  } catch (err) {
    if (!(err instanceof SecretDecryptError)) throw err;
    opts.onSecretFailure?.(err);
    return { error: err.message, permanent: false };
  }
  const headers = { ...opened.headers };
  let oauth: PreparedSecrets['oauth'] = null;
  if (opened.auth !== null) {
    try {
      headers.authorization = await authorizationHeader(opened.auth, opts.tokens, claim.timeoutMs);
    } catch (err) {
      if (!(err instanceof TokenError)) throw err;
      return { error: err.message, permanent: !err.retryable };
    }
    if (opened.auth.type === 'oauth2') oauth = { creds: opened.auth, token: headers.authorization.slice('Bearer '.length) };
  }
  return { headers, signer: opened.signingSecret === null ? null : new WebhookSigner([opened.signingSecret]), oauth };
}

/**
 * After a `401` from the target with an OAuth 2.0 token: drops that token and gets a new one
 * (once, however many calls ask), for the call to be made once more within the same attempt.
 * @returns the new `Authorization` value, or the failure to get one
 */
export async function refreshedAuthorization(
  oauth: NonNullable<PreparedSecrets['oauth']>,
  opts: CallSecretsOptions,
  timeoutMs: number,
): Promise<string | SecretsFailure> {
  opts.tokens.invalidate(oauth.creds, oauth.token);
  try {
    return `Bearer ${await opts.tokens.token(oauth.creds, timeoutMs)}`;
  } catch (err) {
    if (!(err instanceof TokenError)) throw err;
    return { error: err.message, permanent: !err.retryable };
  }
}

/** The failure of a job whose secrets cannot open because the service has no key at all. */
function missingKey(claim: ClaimedExecution): SecretDecryptError {
  const sealed = Object.values(claim.secrets ?? {})[0];
  const keyId = sealed === undefined ? null : KeyRing.keyIdIn(sealed);
  return keyId === null ? new SecretTamperedError() : new SecretKeyMissingError(keyId);
}

