import { createHmac } from 'node:crypto';
import { generateSigningSecret, signingSecretProblem } from '../../domain/signing-secret.js';
import type { DispatchStore } from '../../store/contract/dispatch.js';

/** Key of the generated signing secret in the store's settings. */
export const SIGNING_SECRET_SETTING = 'signing_secret';

/**
 * Standard Webhooks signatures (standardwebhooks.com, "Verifying webhooks"): each call carries
 * `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`, a space-separated
 * list of `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per active secret, so receivers
 * can rotate without a gap.
 *
 * The HMAC is node:crypto's (OpenSSL). The `standardwebhooks` package signs with a JavaScript
 * SHA-256 (fast-sha256): measured 12 µs a signature against 2 µs here, and 15 % of the CPU it
 * takes to start a call (`--cpu-prof`). Tests verify every call with the package,
 * and test/unit/signing.test.ts checks that both give the same signatures.
 */
export class WebhookSigner {
  /** The secrets' keys: the base64 after `whsec_`, decoded. */
  private readonly keys: Buffer[];

  /**
   * @param secrets one or more `whsec_<base64>` secrets (the first is the newest)
   * @throws Error when a secret is not `whsec_` followed by base64 of at least 24 bytes
   */
  constructor(secrets: readonly string[]) {
    if (secrets.length === 0) throw new Error('at least one signing secret is needed');
    for (const s of secrets) assertSecret(s);
    this.keys = secrets.map((s) => Buffer.from(s.slice('whsec_'.length), 'base64'));
  }

  /**
   * The three Standard Webhooks headers for one call.
   * @param id the execution id (identical on every attempt, so receivers can deduplicate)
   * @param timestampMs epoch ms (UTC) of the attempt; sent in whole seconds
   * @param body the exact request body
   */
  headers(id: string, timestampMs: number, body: string): Record<string, string> {
    return this.sign({}, id, timestampMs, body);
  }

  /**
   * Writes the three headers of {@link headers} into `into` (a call's headers, built once per
   * call: no object of their own, deliver.ts).
   * @returns `into`
   */
  sign(into: Record<string, string>, id: string, timestampMs: number, body: string): Record<string, string> {
    const timestamp = String(Math.floor(timestampMs / 1000));
    const content = `${id}.${timestamp}.${body}`;
    const keys = this.keys;
    let signature = `v1,${createHmac('sha256', keys[0]!).update(content).digest('base64')}`;
    for (let i = 1; i < keys.length; i++) signature += ` v1,${createHmac('sha256', keys[i]!).update(content).digest('base64')}`;
    into['webhook-id'] = id;
    into['webhook-timestamp'] = timestamp;
    into['webhook-signature'] = signature;
    return into;
  }
}

export { generateSigningSecret };

/**
 * Splits `PUNCTUAL_SIGNING_SECRET` (one or more secrets separated by spaces) and checks each.
 * @throws Error naming the position of a malformed secret (never its value)
 */
export function parseSigningSecrets(value: string): string[] {
  const secrets = value.trim().split(/\s+/).filter(Boolean);
  secrets.forEach((s, i) => {
    try {
      assertSecret(s);
    } catch {
      throw new Error(`secret #${i + 1} must be whsec_ followed by base64 of at least 24 bytes`);
    }
  });
  return secrets;
}

function assertSecret(secret: string): void {
  const problem = signingSecretProblem(secret);
  if (problem !== null) throw new Error(`a signing secret ${problem}`);
}

/**
 * The secrets calls are signed with: `configured` (from `PUNCTUAL_SIGNING_SECRET`) when given;
 * otherwise the secret kept in the store, generated at the first start (so every node of one
 * store signs alike, and a restart keeps it).
 */
export async function resolveSigningSecrets(store: Pick<DispatchStore, 'settingGetOrCreate'>, configured: string[] | null): Promise<string[]> {
  if (configured !== null && configured.length > 0) return configured;
  return [await store.settingGetOrCreate({ key: SIGNING_SECRET_SETTING, create: generateSigningSecret })];
}
