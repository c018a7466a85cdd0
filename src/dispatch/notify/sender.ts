/**
 * Sending one notification message (dispatch/notify/messages.ts) to a channel: a signed JSON POST
 * through the dispatcher's undici agent (http-agent.ts), so the SSRF guard applies to the address
 * actually connected to, as for calls; an IP-literal host is checked here, as deliver.ts does.
 * Redirects are not followed. Used by the notifier and by `POST /notification-channels/{id}/test`.
 */
import { performance } from 'node:perf_hooks';
import { request, type Dispatcher as HttpDispatcher } from 'undici';
import { newId } from '../../domain/ids.js';
import type { NotificationChannel } from '../../domain/notifications.js';
import { literalHostProblem, type EndpointPolicy } from '../../net/ssrf.js';
import { createHttpAgent } from '../call/http-agent.js';
import { testMessage, type OutgoingMessage } from './messages.js';
import type { WebhookSigner } from '../call/signing.js';

/** Bytes of a receiver's answer kept in a {@link SendResult}. */
const EXCERPT_BYTES = 512;

/** How one message went: the receiver's status code (null when none answered), the duration, why it failed. */
export interface SendResult {
  /** The HTTP status the receiver answered, or null (no answer: refused, timed out, unreachable). */
  statusCode: number | null;
  /** Milliseconds from the start of the request to the end of the answer (or the failure). */
  durationMs: number;
  /** Null on a 2xx; otherwise why it failed (`HTTP 500`, a connection error). Never holds the URL. */
  error: string | null;
}

/** Options of {@link NotificationSender}. */
export interface NotificationSenderOptions {
  /** Signs every message (Standard Webhooks; the deployment's signing secrets). */
  signer: WebhookSigner;
  /** The SSRF guard's policy (`PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS`, `PUNCTUAL_ALLOWED_NETWORKS`). */
  policy: EndpointPolicy;
  /** The `user-agent` header, e.g. `Punctual/1.2.3`. */
  userAgent: string;
  /** Timeout of one message in ms (default 10,000). */
  timeoutMs?: number;
  /** undici dispatcher; default an agent of http-agent.ts under `policy`, closed by {@link NotificationSender.close}. */
  agent?: HttpDispatcher;
  /** Epoch ms now (the `webhook-timestamp`); default `Date.now`. */
  now?: () => number;
}

/** Sends notification messages (see above). */
export class NotificationSender {
  private readonly agent: HttpDispatcher;
  private readonly ownAgent: boolean;
  readonly timeoutMs: number;

  constructor(private readonly opts: NotificationSenderOptions) {
    this.ownAgent = opts.agent === undefined;
    this.agent = opts.agent ?? createHttpAgent({ policy: opts.policy });
    this.timeoutMs = opts.timeoutMs ?? 10_000;
  }

  /** POSTs `message` to the channel's URL, signed with `webhook-id` = the message's id. Never throws. */
  async send(channel: NotificationChannel, message: OutgoingMessage): Promise<SendResult> {
    const start = performance.now();
    const elapsed = () => Math.round(performance.now() - start);
    const refused = literalHostProblem(channel.url, this.opts.policy);
    if (refused !== null) return { statusCode: null, durationMs: 0, error: `refused by the SSRF guard: ${refused}` };
    const headers: Record<string, string> = { 'content-type': 'application/json', 'user-agent': this.opts.userAgent };
    this.opts.signer.sign(headers, message.id, (this.opts.now ?? Date.now)(), message.body);
    try {
      const res = await request(channel.url, {
        method: 'POST',
        headers,
        body: message.body,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.timeoutMs),
        headersTimeout: this.timeoutMs + 1_000,
        bodyTimeout: this.timeoutMs + 1_000,
      });
      await readExcerpt(res.body);
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      return { statusCode: res.statusCode, durationMs: elapsed(), error: ok ? null : `HTTP ${res.statusCode}` };
    } catch (err) {
      return { statusCode: null, durationMs: elapsed(), error: failure(err) };
    }
  }

  /** Sends the test message of `POST /notification-channels/{id}/test` (id `test_<uuid>`) at once. */
  test(channel: NotificationChannel): Promise<SendResult> {
    return this.send(channel, testMessage(channel, `test_${newId()}`, (this.opts.now ?? Date.now)()));
  }

  /** Closes the agent when it is this sender's own. Idempotent. */
  async close(): Promise<void> {
    if (this.ownAgent) await this.agent.close().catch(() => undefined);
  }
}

/** Reads at most {@link EXCERPT_BYTES} of an answer, then drops the rest. */
async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<void> {
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size >= EXCERPT_BYTES) {
      body.destroy();
      return;
    }
  }
}

/** Why a request failed, without its URL (a Slack URL is a credential). */
function failure(err: unknown): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'timed out';
  const code = e?.cause?.code ?? e?.code;
  const message = (e?.cause?.message ?? e?.message ?? String(err)).replace(/https?:\/\/\S+/g, '<url>');
  return code ? `${code}: ${message}` : message;
}
