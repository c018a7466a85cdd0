import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { generateSigningSecret, parseSigningSecrets, WebhookSigner } from '../../src/dispatch/call/signing.js';

describe('Standard Webhooks signing', () => {
  it('produces headers the standardwebhooks package verifies, with every secret', () => {
    const [a, b] = [generateSigningSecret(), generateSigningSecret()];
    const signer = new WebhookSigner([a, b]);
    const body = JSON.stringify({ hello: 'world' });
    const headers = signer.headers('0193e0a0-0000-7000-8000-000000000001', Date.now(), body);
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(new Webhook(a).verify(body, headers)).toEqual({ hello: 'world' });
    expect(new Webhook(b).verify(body, headers)).toEqual({ hello: 'world' });
    expect(() => new Webhook(generateSigningSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(a).verify(body.replace('world', 'WORLD'), headers)).toThrow();
  });

  it('signs exactly as the standardwebhooks package does (property)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 24, maxLength: 64 }),
        fc.uuid(),
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        (key, id, ms, text) => {
          const secret = `whsec_${Buffer.from(key).toString('base64')}`;
          const body = JSON.stringify({ text });
          const ours = new WebhookSigner([secret]).headers(id, ms, body)['webhook-signature'];
          expect(ours).toBe(new Webhook(secret).sign(id, new Date(Math.floor(ms / 1000) * 1000), body));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('parses several secrets and refuses malformed ones without echoing them', () => {
    const s = generateSigningSecret();
    expect(parseSigningSecrets(`  ${s}   ${s} `)).toEqual([s, s]);
    expect(() => parseSigningSecrets(`${s} whsec_c2hvcnQ=`)).toThrow(/secret #2/);
    try {
      parseSigningSecrets('not-a-secret-value');
    } catch (err) {
      expect((err as Error).message).not.toContain('not-a-secret-value');
    }
  });
});
