import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { Store } from '../store/store.js';

/** Key of the generated signing secret in the store's settings. */
export const SIGNING_SECRET_SETTING = 'signing_secret';

/**
 * Standard Webhooks signatures (standardwebhooks.com, "Verifying webhooks"): each call carries
 * `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`, a space-separated
 * list of `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per active secret, so receivers
 * can rotate without a gap. Signing is done by the `standardwebhooks` package itself.
 */
export class WebhookSigner {
  private readonly webhooks: Webhook[];

  /**
   * @param secrets one or more `whsec_<base64>` secrets (the first is the newest)
   * @throws Error when a secret is not `whsec_` followed by base64 of at least 24 bytes
   */
  constructor(secrets: readonly string[]) {
    if (secrets.length === 0) throw new Error('at least one signing secret is needed');
    for (const s of secrets) assertSecret(s);
    this.webhooks = secrets.map((s) => new Webhook(s));
  }

  /**
   * The three Standard Webhooks headers for one call.
   * @param id the execution id (identical on every attempt, so receivers can deduplicate)
   * @param timestampMs epoch ms (UTC) of the attempt; sent in whole seconds
   * @param body the exact request body
   */
  headers(id: string, timestampMs: number, body: string): Record<string, string> {
    const at = new Date(Math.floor(timestampMs / 1000) * 1000);
    return {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(timestampMs / 1000)),
      'webhook-signature': this.webhooks.map((w) => w.sign(id, at, body)).join(' '),
    };
  }
}

/** A new random signing secret: `whsec_` + base64 of 32 random bytes. */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

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
  const m = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(secret);
  if (!m || Buffer.from(m[1]!, 'base64').length < 24) {
    throw new Error('a signing secret must be whsec_ followed by base64 of at least 24 bytes');
  }
}

/**
 * The secrets calls are signed with: `configured` (from `PUNCTUAL_SIGNING_SECRET`) when given;
 * otherwise the secret kept in the store, generated at the first start (so every node of one
 * store signs alike, and a restart keeps it).
 */
export async function resolveSigningSecrets(store: Store, configured: string[] | null): Promise<string[]> {
  if (configured !== null && configured.length > 0) return configured;
  return [await store.settingGetOrCreate({ key: SIGNING_SECRET_SETTING, create: generateSigningSecret })];
}
