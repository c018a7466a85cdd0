/**
 * `punctual_secret_decrypt_failures_total{reason}` (docs/metrics.md): at 0 for both reasons from the
 * start, counted by `ServerMetrics.countSecretDecryptFailure` and from the dispatcher's
 * `dispatch:secret-failed` events, with the errors real failed openings throw.
 */
import { describe, expect, it } from 'vitest';
import { DispatcherEvents } from '../../src/dispatch/events.js';
import { ServerMetrics } from '../../src/metrics/metrics.js';
import { SecretDecryptError } from '../../src/secrets/errors.js';
import { KeyRing } from '../../src/secrets/key-ring.js';

const place = { jobId: 'job-1', field: 'token' };

/** The error `ring.open(sealed, at)` throws. */
function failure(ring: KeyRing, sealed: string, at = place): SecretDecryptError {
  try {
    ring.open(sealed, at);
  } catch (err) {
    return err as SecretDecryptError;
  }
  throw new Error('expected the opening to fail');
}

/** The value of the series for `reason` in the exposition `text`. */
function valueOf(text: string, reason: string): number {
  const m = new RegExp(`^punctual_secret_decrypt_failures_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(text);
  expect(m, `series for ${reason}`).not.toBeNull();
  return Number(m![1]);
}

describe('punctual_secret_decrypt_failures_total', () => {
  it('starts at 0 for both reasons and counts failures by reason, directly and from dispatcher events', async () => {
    const metrics = new ServerMetrics({ version: 'test', role: 'all' });
    let text = await metrics.render();
    expect(valueOf(text, 'key_missing')).toBe(0);
    expect(valueOf(text, 'tampered')).toBe(0);

    const sealed = KeyRing.ephemeral().seal('s3cr3t', place);
    const ring = KeyRing.ephemeral();
    metrics.countSecretDecryptFailure(failure(ring, sealed));

    const events = new DispatcherEvents();
    const stop = metrics.watchDispatcher({ events, callsInFlight: 0, hungCallsInFlight: 0 });
    const own = ring.seal('s3cr3t', place);
    events.emit('dispatch:secret-failed', failure(ring, own, { ...place, field: 'other' }));
    events.emit('dispatch:secret-failed', failure(ring, sealed));
    text = await metrics.render();
    expect(valueOf(text, 'key_missing')).toBe(2);
    expect(valueOf(text, 'tampered')).toBe(1);

    stop();
    events.emit('dispatch:secret-failed', failure(ring, sealed));
    expect(valueOf(await metrics.render(), 'key_missing')).toBe(2);
  });
});
