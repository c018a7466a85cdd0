import { Dispatcher, type DispatcherOptions } from '../../src/dispatch/dispatcher.js';
import { generateSigningSecret, WebhookSigner } from '../../src/dispatch/call/signing.js';
import { systemClock } from '../../src/domain/clock.js';

/** A logger that drops everything (the dispatcher's four methods). */
export const silentLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * A real {@link Dispatcher} for tests that build one beside a store: the system clock, a silent
 * logger, `User-Agent: Punctual/test` and a fresh signing secret, unless `opts` says otherwise.
 */
export function testDispatcher(opts: Pick<DispatcherOptions, 'store'> & Partial<DispatcherOptions>): Dispatcher {
  return new Dispatcher({
    clock: systemClock,
    logger: silentLogger,
    userAgent: 'Punctual/test',
    signer: new WebhookSigner([generateSigningSecret()]),
    ...opts,
  });
}
