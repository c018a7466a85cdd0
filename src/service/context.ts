import type { EndpointPolicy } from '../net/ssrf.js';
import type { Clock } from '../domain/clock.js';
import type { DeliverySettings } from '../domain/types.js';
import type { KeyRing } from '../secrets/key-ring.js';
import type { Store } from '../store/store.js';
import type { InputLimits } from './limits.js';

/**
 * The `detail` of the 400 problem that refuses a job carrying secrets when no key ring is
 * configured (PostgreSQL without `PUNCTUAL_ENCRYPTION_KEYS`; docs/security.md, "Job secrets").
 */
export const SECRETS_NEED_KEYS =
  'secrets cannot be stored: this service has no encryption key. Set PUNCTUAL_ENCRYPTION_KEYS ' +
  '(base64 of 32 random bytes, e.g. `openssl rand -base64 32`) on every node, then restart it.';

/**
 * What the job use cases (schedules, cron jobs, executions) work with.
 * `wake(dueAtMs)` is called after a create, patch or trigger with the instant (epoch ms, UTC) at
 * which the job is next due, so the dispatcher can re-arm its timer earlier; it
 * must be cheap and must not throw.
 */
export interface JobServiceContext {
  store: Store;
  clock: Clock;
  wake: (dueAtMs: number) => void;
  /**
   * Delivery settings a new job takes for the fields it does not give: the retry policy comes
   * from `PUNCTUAL_RETRY_DELAYS` and `PUNCTUAL_RETRY_MAX_ATTEMPTS`, the timeout from
   * `PUNCTUAL_REQUEST_TIMEOUT_MS`. Absent: `DEFAULT_DELIVERY` of `delivery.ts` (8 attempts after
   * steps of 5 s … 10 h, DEFAULT_RETRY_POLICY; 30,000 ms).
   */
  defaults?: DeliverySettings;
  /** Size limits of the fields. Absent: `DEFAULT_LIMITS` of `limits.ts`. */
  limits?: InputLimits;
  /**
   * Which endpoint hosts are accepted at create and patch. Absent: `STRICT_POLICY`
   * (no IP literal that is not public, no `localhost`).
   */
  endpointPolicy?: EndpointPolicy;
  /**
   * The keys that seal job secrets (src/secrets/key-ring.ts), or null when the service has none
   * (PostgreSQL without `PUNCTUAL_ENCRYPTION_KEYS`): then a job carrying secrets is refused with a
   * 400 whose detail is {@link SECRETS_NEED_KEYS}. Absent: null.
   */
  keyRing?: KeyRing | null;
  /**
   * How long finished executions are kept (`PUNCTUAL_EXECUTION_RETENTION`, ms): a backfill may not
   * start before now minus this. Absent: 7 days.
   */
  executionRetentionMs?: number;
}
