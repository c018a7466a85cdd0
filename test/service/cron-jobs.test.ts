import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/domain/errors.js';
import { previewCron } from '../../src/service/cron-jobs.js';
import { STRICT_POLICY } from '../../src/net/ssrf.js';
import { DEFAULT_RULE_CONTEXT, RULES } from '../../src/service/rules.js';

/** The rules with the SSRF guard off: the endpoint cases below are about URL syntax only. */
const SYNTAX_ONLY = { ...DEFAULT_RULE_CONTEXT, endpointPolicy: { ...STRICT_POLICY, allowPrivate: true } };

const clock = { now: () => Date.parse('2026-11-21T10:00:00.000Z') };

describe('previewCron', () => {
  it('defaults to 5 occurrences after now, in UTC', () => {
    expect(previewCron({ clock }, { expression: '30 10 * * *' }).map((t) => new Date(t).toISOString())).toEqual([
      '2026-11-21T10:30:00.000Z',
      '2026-11-22T10:30:00.000Z',
      '2026-11-23T10:30:00.000Z',
      '2026-11-24T10:30:00.000Z',
      '2026-11-25T10:30:00.000Z',
    ]);
  });

  it('reports every faulty field with the prefix given', () => {
    const err = (() => {
      try {
        previewCron({ clock }, { expression: 'x', timezone: 'No/Where', from: 'now', count: 0 }, '/query');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(InvalidInputError);
    expect((err as InvalidInputError).errors.map((e) => e.path)).toEqual([
      '/query/expression',
      '/query/timezone',
      '/query/from',
      '/query/count',
    ]);
  });
});

describe('rules', () => {
  it.each([
    ['https://example.com', true],
    ['HTTP://example.com:8080/a?b#c', true],
    ['http://[::1]:80/', true],
    ['http:example.com', false],
    ['https://', false],
    [' https://example.com', false],
    ['file:///etc/passwd', false],
    ['javascript:alert(1)', false],
  ])('endpoint %j valid: %s', (url, ok) => {
    expect(RULES.endpoint(url, SYNTAX_ONLY) === null).toBe(ok);
  });

  it.each([
    ['2026-11-21T10:00:00Z', true],
    ['2026-11-21T10:00:00.123+05:45', true],
    ['2026-11-21T10:00:00', false],
    ['2026-11-21', false],
    ['2026-13-01T00:00:00Z', false],
  ])('instant %j valid: %s', (text, ok) => {
    expect(RULES.instant(text) === null).toBe(ok);
  });

  it.each([
    ['1', true],
    ['100', true],
    ['0', false],
    ['101', false],
    ['05', true],
    ['+5', false],
    ['1e1', false],
    ['', false],
  ])('preview count %j valid: %s', (text, ok) => {
    expect(RULES['preview-count'](text) === null).toBe(ok);
  });
});
