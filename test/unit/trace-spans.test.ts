import { describe, expect, it } from 'vitest';
import type { AttemptOutcome, ClaimedExecution } from '../../src/domain/types.js';
import { attemptAttributes, attemptErrorType, redactedUrl, requestSpanName, responseAttributes } from '../../src/tracing/spans.js';
import { claimedExecution } from '../support/claims.js';

const claim = (over: Partial<ClaimedExecution> = {}): ClaimedExecution =>
  claimedExecution({
    executionId: '019aa8e0-1f40-7b6d-a1c3-5d9e7f2b8c04',
    jobType: 'cron',
    jobId: '019aa5c2-5e00-7c3a-8d2b-3f6e1a9b4c70',
    endpoint: 'https://hooks.example.com/run?x=1',
    method: 'PUT',
    ...over,
  });
const outcome = (over: Partial<AttemptOutcome> = {}): AttemptOutcome => ({
  executionId: claim().executionId,
  attempt: 1,
  status: 'Succeeded',
  nextAttemptAt: null,
  startedAt: 0,
  durationMs: 5,
  statusCode: 200,
  error: null,
  responseBody: null,
  ...over,
});

describe('span attributes (src/tracing/spans.ts)', () => {
  it('an attempt is an HTTP client call: method, url.full, server.address and port, status, and Punctual ids', () => {
    expect(attemptAttributes(claim(), outcome())).toEqual({
      'http.request.method': 'PUT',
      'url.full': 'https://hooks.example.com/run?x=REDACTED',
      'server.address': 'hooks.example.com',
      'server.port': 443,
      'http.response.status_code': 200,
      'punctual.execution.id': claim().executionId,
      'punctual.job.type': 'cron',
      'punctual.job.id': claim().jobId,
      'punctual.attempt': 1,
      'punctual.outcome': 'Succeeded',
    });
    const retried = attemptAttributes(claim({ attempt: 3, endpoint: 'http://[::1]:8080/h' }), outcome({ status: 'Failed', statusCode: null, error: 'timeout after 10000 ms' }));
    expect(retried).toMatchObject({ 'server.address': '::1', 'server.port': 8080, 'http.request.resend_count': 2, 'error.type': 'timeout' });
    expect(retried).not.toHaveProperty('http.response.status_code');
  });

  it('error.type: the status of any answer but a 2xx, else the kind of failure; none on success', () => {
    expect(attemptErrorType(outcome())).toBeUndefined();
    expect(attemptErrorType(outcome({ status: 'Retrying', statusCode: 503 }))).toBe('503');
    expect(attemptErrorType(outcome({ status: 'Failed', statusCode: 302 }))).toBe('302');
    expect(attemptErrorType(outcome({ status: 'Failed', statusCode: null, error: 'refused: a private address' }))).toBe('refused');
    expect(attemptErrorType(outcome({ status: 'Retrying', statusCode: null, error: 'ECONNREFUSED: connect' }))).toBe('connection_error');
  });

  it('url.full hides credentials and every query value (names kept); other URLs are kept as they are', () => {
    expect(redactedUrl('https://user:pw@example.com/h')).toBe('https://REDACTED:REDACTED@example.com/h');
    expect(redactedUrl('https://example.com/h?sig=abc&x=1&x=2&token')).toBe('https://example.com/h?sig=REDACTED&x=REDACTED&token=REDACTED');
    expect(redactedUrl('https://example.com/h?a%20b=c%26d')).toBe('https://example.com/h?a%20b=REDACTED');
    expect(redactedUrl('https://example.com/a%20b')).toBe('https://example.com/a%20b');
    expect(redactedUrl('not a url')).toBe('not a url');
  });

  it('a request span is named by method and route, an error only for a 5xx', () => {
    expect(requestSpanName({ method: 'GET', route: '/schedules/:id' })).toBe('GET /schedules/:id');
    expect(requestSpanName({ method: 'GET', route: undefined })).toBe('GET');
    expect(responseAttributes(404)).toEqual({ 'http.response.status_code': 404 });
    expect(responseAttributes(503)).toEqual({ 'http.response.status_code': 503, 'error.type': '503' });
  });
});
