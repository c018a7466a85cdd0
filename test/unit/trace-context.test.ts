import { describe, expect, it } from 'vitest';
import { attemptHeaders, callBody } from '../../src/dispatch/call/deliver.js';
import { WebhookSigner } from '../../src/dispatch/call/signing.js';
import { newId } from '../../src/domain/ids.js';
import { attemptTraceIds, newSpanId, parseTraceparent, traceIdOf, traceparent } from '../../src/domain/trace-context.js';
import type { ClaimedExecution } from '../../src/domain/types.js';
import { claimedExecution } from '../support/claims.js';

/** W3C Trace Context, version 00: version-traceid-parentid-flags, lowercase hex. */
const FORMAT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/;

describe('Trace Context of attempts (domain/trace-context.ts)', () => {
  it('formats traceparent as 00-<32 hex>-<16 hex>-<2 hex>, sampled 01 when exported, else 00', () => {
    const id = newId();
    const ids = attemptTraceIds(id);
    expect(traceparent(ids, true)).toMatch(FORMAT);
    expect(traceparent(ids, true)).toBe(`00-${id.replaceAll('-', '')}-${ids.spanId}-01`);
    expect(traceparent(ids, false)).toBe(`00-${id.replaceAll('-', '')}-${ids.spanId}-00`);
    expect(parseTraceparent(traceparent(ids, true))).toEqual({ ...ids, sampled: true });
    expect(parseTraceparent(traceparent(ids, false))).toEqual({ ...ids, sampled: false });
  });

  it('the trace id is the execution id (same on every attempt), the span id new per attempt and never all zeros', () => {
    const id = newId();
    const spans = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const ids = attemptTraceIds(id);
      expect(ids.traceId).toBe(id.replaceAll('-', ''));
      expect(ids.spanId).toMatch(/^[0-9a-f]{16}$/);
      expect(ids.spanId).not.toBe('0'.repeat(16));
      spans.add(ids.spanId);
    }
    expect(spans.size).toBe(2_000); // 64 random bits: a repeat here would be a broken generator
    expect(newSpanId()).not.toBe(newSpanId());
  });

  it('an id that is not 32 hex digits, or is all zeros, gets a hashed trace id, never all zeros', () => {
    for (const id of ['not-a-uuid', '00000000-0000-0000-0000-000000000000', '', 'ABCDEF']) {
      const traceId = traceIdOf(id);
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(traceId).not.toBe('0'.repeat(32));
      expect(traceIdOf(id)).toBe(traceId); // stable
    }
    expect(traceIdOf('0AF76519-16CD-43DD-8448-EB211C80319C')).toBe('0af7651916cd43dd8448eb211c80319c');
  });

  it('reads only valid traceparent values (W3C Trace Context, 3.2 and 4.3)', () => {
    const ok = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    expect(parseTraceparent(ok)).toEqual({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', sampled: true });
    expect(parseTraceparent('01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-09-later')).toMatchObject({ sampled: true });
    for (const bad of [
      undefined,
      '',
      ok.toUpperCase(),
      `${ok}-extra`, // version 00 is exactly 55 characters
      'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      `00-${'0'.repeat(32)}-b7ad6b7169203331-01`,
      `00-0af7651916cd43dd8448eb211c80319c-${'0'.repeat(16)}-01`,
      '00-0af7651916cd43dd8448eb211c80319-b7ad6b7169203331-01',
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b716920333-01',
      '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-1',
    ]) {
      expect(parseTraceparent(bad), String(bad)).toBeNull();
    }
  });
});

describe('attemptHeaders with a traceparent', () => {
  const claim = (headers: Record<string, string>): ClaimedExecution => claimedExecution({ executionId: newId(), jobId: newId(), headers });
  const signer = new WebhookSigner(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw']);

  it("sends the attempt's traceparent and drops a job's own traceparent and tracestate stored before they were refused", () => {
    const c = claim({ TraceParent: '00-11111111111111111111111111111111-2222222222222222-01', TraceState: 'v=1', 'X-Kept': 'yes' });
    const tp = traceparent(attemptTraceIds(c.executionId), false);
    const headers = attemptHeaders(c, callBody(c), 0, { signer, userAgent: 'Punctual/test', traceparent: tp });
    expect(Object.keys(headers).filter((k) => /^trace/i.test(k))).toEqual(['traceparent']);
    expect(headers.traceparent).toBe(tp);
    expect(headers['X-Kept']).toBe('yes');
  });

  it('leaves the headers alone without one', () => {
    const c = claim({ 'X-Kept': 'yes' });
    const headers = attemptHeaders(c, callBody(c), 0, { signer, userAgent: 'Punctual/test' });
    expect(headers).not.toHaveProperty('traceparent');
  });
});
