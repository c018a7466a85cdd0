/**
 * Generators of hostile HTTP requests for the fuzz suite: every route of the API,
 * with bodies that are mostly almost-valid (so they reach deep validation and the store) and
 * partly garbage, odd query strings, ids, headers and values — huge and non-finite numbers, deep
 * nesting, long and unusual Unicode (unpaired surrogates, NUL, bidi overrides), prototype keys,
 * duplicate keys, truncated and non-JSON bodies, wrong media types.
 *
 * Bodies are generated as JSON *text* (not values run through JSON.stringify), so that what no
 * JavaScript value serialises to can be sent too: `1e999`, `-0`, 30-digit integers, duplicate
 * keys, `"__proto__"` keys, escaped unpaired surrogates.
 */
import fc from 'fast-check';

/** One request for `app.inject`. */
export interface FuzzRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT' | 'HEAD' | 'OPTIONS';
  url: string;
  headers: Record<string, string>;
  payload?: string;
  /** The client address (the auth-failure guard counts by it). */
  remoteAddress: string;
}

/**
 * Ids the requests may name: resources that exist (or existed) in the store under test. The
 * runner adds the ids of what the requests create, so later requests patch, trigger and delete
 * those too.
 */
export interface IdPool {
  schedules: string[];
  cronJobs: string[];
  apiKeys: string[];
  executions: string[];
}

/**
 * Generated URLs name pool ids by reference, `{{<kind>:<n>}}`, resolved when the request is sent
 * (the pool grows meanwhile): the id at `n` modulo the pool's size.
 */
export function resolveIds(url: string, pool: IdPool): string {
  return url.replace(/\{\{(schedules|cronJobs|apiKeys|executions):(\d+)\}\}/g, (_m, kind: keyof IdPool, n: string) => {
    const ids = pool[kind];
    return ids.length === 0 ? '00000000-0000-7000-8000-000000000000' : ids[Number(n) % ids.length]!;
  });
}

// ---- Strings and numbers ------------------------------------------------------------------------

const ODD_STRINGS = [
  '',
  ' ',
  '\t\n',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '😀',
  '👩‍👩‍👧‍👦',
  '\u202eevil\u202c',
  '\ufeffbom',
  'e\u0301',
  'İı',
  'ﬃ',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  '\r\n\r\n',
  '<script>alert(1)</script>',
  "'; DROP TABLE schedules; --",
  '" OR 1=1 --',
  '%00',
  '%s%n%x',
  '../../etc/passwd',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'null',
  'undefined',
  'NaN',
  '${7*7}',
  'x'.repeat(257),
  'é'.repeat(3_000),
  '😀'.repeat(300),
];

/** Strings of every kind: random (any code point, unpaired surrogates included), graphemes, odd ones. */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 3, arbitrary: fc.constantFrom(...ODD_STRINGS) },
);

/** JSON text of a string (JSON.stringify escapes unpaired surrogates and control characters). */
const stringText = fc.oneof(
  oddString.map((s) => JSON.stringify(s)),
  fc.constantFrom('"\\ud800"', '"\\u0000"', '"\\udfff\\ud800"', '"\\/"', '"\\u00e9"'),
);

/** JSON text of a number, including what no double prints as. */
const numberText = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => JSON.stringify(n)),
  fc.constantFrom('1e999', '-1e999', '-0', '9007199254740993', '5e-324'),
  fc.constantFrom(
    '0',
    '-0',
    '1e308',
    '-1e308',
    '1e999',
    '-1e999',
    '1E400',
    '5e-324',
    '1e-400',
    '9007199254740993',
    '123456789012345678901234567890',
    '0.1',
    '2.5',
    '1.0',
    '-1',
    '100',
    '1000',
    '900000',
    '900001',
    '86400000',
  ),
);

const KEYS = [
  'name',
  'scheduledAt',
  'endpoint',
  'data',
  'tags',
  'retry',
  'timeoutMs',
  'expression',
  'timezone',
  'status',
  'misfire',
  'overlap',
  'method',
  'headers',
  'body',
  'maxAttempts',
  'initialDelayMs',
  'maxDelayMs',
  'token',
  'id',
  'createdAt',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  '',
];

const keyText = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...KEYS).map((k) => JSON.stringify(k)) },
  { weight: 1, arbitrary: stringText },
);

/** Deeply nested arrays or objects, as text (around the 64-level limit, and far beyond it). */
const deepText = fc
  .tuple(
    fc.oneof({ weight: 8, arbitrary: fc.constantFrom(1, 62, 63, 64, 65, 500) }, { weight: 1, arbitrary: fc.constantFrom(5_000, 100_000) }),
    fc.boolean(),
  )
  .map(([depth, objects]) => (objects ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) : '['.repeat(depth) + ']'.repeat(depth)));

/** Any JSON value as text. */
export const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string; leaf: string; array: string; object: string }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, tie('leaf'), tie('array'), tie('object')),
  leaf: fc.oneof(
    { weight: 6, arbitrary: numberText },
    { weight: 6, arbitrary: stringText },
    { weight: 2, arbitrary: fc.constantFrom('true', 'false', 'null') },
    { weight: 1, arbitrary: deepText },
  ),
  array: fc.array(tie('value'), { maxLength: 5 }).map((items) => `[${items.join(',')}]`),
  object: fc.array(fc.tuple(keyText, tie('value')), { maxLength: 6 }).map((es) => `{${es.map(([k, v]) => `${k}:${v}`).join(',')}}`),
})).value;

/** A JSON object as text. */
const objectText = fc.array(fc.tuple(keyText, jsonText), { maxLength: 6 }).map((es) => `{${es.map(([k, v]) => `${k}:${v}`).join(',')}}`);

// ---- Almost-valid bodies --------------------------------------------------------------------------

const t = (arb: fc.Arbitrary<unknown>) => arb.map((v) => JSON.stringify(v));

/** Mostly `valid`, sometimes `odd`. */
function mostly<T>(valid: fc.Arbitrary<T>, odd: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.oneof({ weight: 15, arbitrary: valid }, { weight: 1, arbitrary: odd });
}

const instant = mostly(
  fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom(
    '2026-11-22T09:00:00Z',
    '2026-11-22T10:30:00.5+01:30',
    '2026-02-30T09:00:00Z',
    '2026-11-22T09:00:00',
    '2026-11-22',
    '9999-12-31T23:59:59Z',
    '0000-01-01T00:00:00Z',
    '+275760-09-13T00:00:00.000Z',
    '2026-11-22T24:00:00Z',
    '2026-11-22T09:00:00.1234567891Z',
    'tomorrow',
  ),
);

const endpoint = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom('https://example.com/hook', 'http://example.org/a?b=c#d', 'https://93.184.216.34:8443/x') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'http://127.0.0.1:9000/',
      'http://localhost/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:10.0.0.1]/',
      'http://2130706433/',
      'http://[fe80::1%25eth0]/',
      'javascript:alert(1)',
      'file:///etc/passwd',
      'https://',
      'https://example.com/' + 'p'.repeat(2_100),
      'https://user:pass@example.com/',
      'https://example.com/%00',
      'https://xn--n3h.example/',
      'https://☃.example/',
      'http://example.com:99999/',
      'HTTP://EXAMPLE.COM/',
    ),
  },
  { weight: 1, arbitrary: oddString.map((s) => 'https://example.com/' + s) },
);

const expression = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.constantFrom('* * * * *', '0 9 * * MON-FRI', '@daily', '*/15 * * * *', '0 0 1 1 *', '30 2 * * *', '0 0 * * * *'),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '*/0 * * * *',
      '0 0 31 2 *',
      '60 * * * *',
      'L * * * *',
      '0 0 * * 1#2',
      '0 0 * * * * *',
      '@reboot',
      '1-59/0 * * * *',
      '5-1 * * * *',
      '* * * * 8',
      '0 0 29 2 *',
      '1,'.repeat(200) + '0 * * * *',
      '',
    ),
  },
  { weight: 1, arbitrary: oddString },
);

const timezone = mostly(
  fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'US/Eastern', 'Etc/GMT+14'),
  fc.oneof(fc.constantFrom('Nowhere/City', '+05:00', 'europe/berlin', '', 'Europe/Berlin\u0000', 'A'.repeat(100), 'EST5EDT', 'localtime'), oddString),
);

const retry = fc.record(
  {
    maxAttempts: mostly(fc.integer({ min: 1, max: 20 }), fc.oneof(fc.integer({ min: -5, max: 30 }), fc.constantFrom(2.5, 1e308))),
    initialDelayMs: mostly(fc.integer({ min: 100, max: 5_000 }), fc.oneof(fc.integer({ min: 0, max: 4_000_000 }), fc.constant(99))),
    // Small maxima make later patches of initialDelayMs alone break maxDelayMs ≥ initialDelayMs.
    maxDelayMs: mostly(
      fc.oneof(fc.integer({ min: 1_000, max: 5_000 }), fc.integer({ min: 5_000, max: 86_400_000 })),
      fc.oneof(fc.integer({ min: 0, max: 90_000_000 }), fc.constant(999)),
    ),
  },
  { requiredKeys: [] },
);

/** A field: a valid-looking value (mostly), any JSON (sometimes), or absent. */
function field(name: string, valid: fc.Arbitrary<string>): fc.Arbitrary<string | null> {
  return fc.oneof(
    { weight: 50, arbitrary: valid.map((v) => `${JSON.stringify(name)}:${v}`) },
    { weight: 1, arbitrary: jsonText.map((v) => `${JSON.stringify(name)}:${v}`) },
    { weight: 1, arbitrary: fc.constant(null) },
  );
}


/** A body: the fields given (in any order), maybe an extra or duplicate key, as JSON text. */
function body(fields: fc.Arbitrary<string | null>[]): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.tuple(...fields),
      fc.oneof({ weight: 12, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.tuple(keyText, jsonText) }),
      fc.boolean(),
    )
    .map(([parts, extra, reverse]) => {
      const members = parts.filter((p): p is string => p !== null);
      if (reverse) members.reverse();
      if (extra !== null) members.push(`${extra[0]}:${extra[1]}`);
      return `{${members.join(',')}}`;
    });
}

const name = mostly(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }), oddString);
const dataText = fc.oneof(
  {
    weight: 10,
    // fast-check likes keys such as "__proto__" (refused as a whole, 400): rarer here, common below.
    arbitrary: t(fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 5 })).filter(
      (text) => !text.includes('"__proto__"') && !text.includes('"constructor"'),
    ),
  },
  // Odd leaves in an otherwise valid object: they must be refused or come back exactly.
  {
    weight: 5,
    arbitrary: fc
      .tuple(numberText, stringText, fc.array(numberText, { maxLength: 3 }))
      .map(([n, s, ns]) => `{"n":${n},"s":${s},"ns":[${ns.join(',')}]}`),
  },
  { weight: 1, arbitrary: deepText.map((deep) => `{"deep":${deep}}`) },
  { weight: 1, arbitrary: objectText },
  { weight: 1, arbitrary: jsonText },
);
const tagsText = mostly(
  t(fc.array(fc.string({ unit: 'grapheme', maxLength: 20 }), { maxLength: 5 })),
  fc.oneof(t(fc.array(fc.string({ maxLength: 70 }), { maxLength: 35 })), t(fc.array(oddString, { maxLength: 5 })), jsonText),
);
const timeoutMs = mostly(fc.integer({ min: 1_000, max: 900_000 }).map(String), numberText);

// The request of a job's calls (docs/calls.md): mostly valid, sometimes reserved, repeated in
// another case, or with CR/LF/NUL (each a 400 naming the header).
const method = t(mostly(fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'), fc.constantFrom('get', 'OPTIONS', '')));
const headerName = mostly(
  fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,15}$/),
  fc.constantFrom('Host', 'content-length', 'Proxy-Authorization', 'Punctual-Attempt', 'webhook-id', 'X A', '', 'x-a'),
);
const jobHeaderValue = mostly(fc.stringMatching(/^[ -~]{0,20}$/), fc.constantFrom('a\r\nb: c', 'nul\u0000', 'caf\u00e9', 'v'.repeat(8_193)));
const headersText = mostly(t(fc.dictionary(headerName, jobHeaderValue, { maxKeys: 4 })), jsonText);
const bodyText = fc.oneof({ weight: 8, arbitrary: fc.constant('null') }, { weight: 2, arbitrary: t(fc.string({ maxLength: 30 })) }, { weight: 1, arbitrary: stringText });
const requestFields = [field('method', method), field('headers', headersText), field('body', bodyText)];

const scheduleBody = body([
  field('name', t(name)),
  field('scheduledAt', t(instant)),
  field('endpoint', t(endpoint)),
  field('data', dataText),
  field('tags', tagsText),
  field('retry', t(retry)),
  field('timeoutMs', timeoutMs),
  ...requestFields,
]);

const cronFields = [
  field('expression', t(expression)),
  field('name', fc.oneof(t(name), fc.constant('null'))),
  field('timezone', fc.oneof(t(timezone), fc.constant('null'))),
  field('endpoint', t(endpoint)),
  field('data', fc.oneof(dataText, fc.constant('null'))),
  field('retry', t(retry)),
  field('timeoutMs', timeoutMs),
  field('misfire', t(mostly(fc.constantFrom('skip', 'once', 'all'), fc.constant('never')))),
  field('overlap', t(mostly(fc.constantFrom('allow', 'skip'), fc.constant('forbid')))),
  ...requestFields,
];
const cronCreateBody = body(cronFields);
const cronPatchBody = body([
  ...cronFields,
  field('status', t(mostly(fc.constantFrom('Active', 'Paused'), fc.constantFrom('active', 'Pending', '')))),
]);

const apiKeyBody = body([
  field('name', t(name)),
  field('status', fc.oneof(t(mostly(fc.constantFrom('Enabled', 'Disabled'), fc.constantFrom('enabled', 'Active'))), fc.constant('null'))),
]);

/** A body that is not JSON, or not whole JSON. */
const garbage = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 60 }),
  fc.constantFrom('', ' ', '{', '{"name":', '{"a":1}}', 'null', '[]', '"str"', '42', 'true', '\u0000', '{"a":1,}', "{'a':1}", '{"a":NaN}', '{"a":Infinity}', '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}'),
  jsonText,
  deepText,
);

// ---- Requests ------------------------------------------------------------------------------------

/** Percent-encodes the UTF-8 bytes of `s` (unpaired surrogates become U+FFFD, as a client would send them). */
function encode(s: string): string {
  return encodeURIComponent(Buffer.from(s, 'utf8').toString('utf8'));
}

function idArb(kind: keyof IdPool): fc.Arbitrary<string> {
  const odd = fc.oneof(
    fc.uuid().map(encode),
    oddString.map(encode),
    fc.constantFrom('%ZZ', '%', '%E0%A4%A', '%00', '..', '%2e%2e', '%2F', 'x'.repeat(150), 'null', '__proto__', 'constructor', '0', '-1'),
  );
  const known = fc.nat(1_000_000).map((n) => `{{${kind}:${n}}}`);
  return fc.oneof({ weight: 3, arbitrary: known }, { weight: 2, arbitrary: odd });
}

/**
 * A query string: mostly the route's own parameters (each present or not, `required` ones almost
 * always), sometimes odd parameter names and values or broken encodings.
 */
function queryArb(params: Record<string, fc.Arbitrary<string>>, required: string[] = []): fc.Arbitrary<string> {
  const own = fc
    .tuple(
      ...Object.entries(params).map(([k, v]) =>
        fc.option(v.map((value) => `${k}=${encode(value)}`), { freq: required.includes(k) ? 20 : 2 }),
      ),
    )
    .map((pairs) => pairs.filter((p): p is string => p !== null));
  const odd = fc.oneof(
    fc.tuple(oddString, oddString).map(([k, v]) => `${encode(k)}=${encode(v)}`),
    fc.constantFrom('__proto__=1', '__proto__[x]=1', 'constructor[prototype][x]=1', 'a=%ZZ', '=', '&&', 'a', 'a=1&a=2', '%', 'count=1&count=2'),
  );
  return fc
    .oneof({ weight: 8, arbitrary: own }, { weight: 1, arbitrary: fc.tuple(own, odd).map(([ps, o]) => [...ps, o]) })
    .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.join('&')}`));
}

const previewQuery = queryArb(
  {
  expression,
  timezone,
  from: instant,
    count: mostly(fc.integer({ min: 1, max: 100 }).map(String), fc.oneof(fc.integer({ min: -5, max: 150 }).map(String), fc.constantFrom('1e2', '05', '+5', '', '5.0', '99999999999999999999'))),
  },
  ['expression'],
);
const pageQuery = queryArb({
  limit: mostly(fc.integer({ min: 1, max: 100 }).map(String), fc.oneof(fc.integer({ min: -5, max: 150 }).map(String), fc.constantFrom('1e1', '', '020'))),
  cursor: fc.oneof(oddString, fc.base64String({ maxLength: 40 }), fc.constantFrom('eyJ4IjoxfQ', 'null', '{}')),
});
const noQuery = queryArb({});

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json; charset=utf-16',
  'application/json; charset=iso-8859-1',
  'application/merge-patch+json',
  'application/problem+json',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/json, text/plain',
  ';;;',
];

/** Header values as a client can send them: visible ASCII and spaces. */
const headerValue = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 80 });

/**
 * Requests over every route, authenticated with `token` most of the time. URLs name pool ids by
 * reference: send them through {@link resolveIds}.
 */
export function requestArb(token: string): fc.Arbitrary<FuzzRequest> {
  const ids = {
    schedules: idArb('schedules'),
    cron: idArb('cronJobs'),
    keys: idArb('apiKeys'),
    executions: idArb('executions'),
  };
  /** [method, path, query, body] generators per route; the writes of bodies more often. */
  type Route = [FuzzRequest['method'], string, string, string | undefined];
  const often = (arbitrary: fc.Arbitrary<Route>) => ({ weight: 3, arbitrary });
  const routes: (fc.Arbitrary<Route> | { weight: number; arbitrary: fc.Arbitrary<Route> })[] = [
    often(fc.tuple(fc.constant('POST' as const), fc.constant('/schedules'), noQuery, scheduleBody)),
    often(fc.tuple(fc.constant('PATCH' as const), ids.schedules.map((id) => `/schedules/${id}`), noQuery, scheduleBody)),
    often(fc.tuple(fc.constant('POST' as const), fc.constant('/cron'), noQuery, cronCreateBody)),
    often(fc.tuple(fc.constant('PATCH' as const), ids.cron.map((id) => `/cron/${id}`), noQuery, cronPatchBody)),
    fc.tuple(fc.constant('POST' as const), fc.constant('/api-keys'), noQuery, apiKeyBody),
    fc.tuple(fc.constant('PATCH' as const), ids.keys.map((id) => `/api-keys/${id}`), noQuery, apiKeyBody),
    fc.tuple(
      fc.constant('POST' as const),
      fc.oneof(ids.schedules.map((id) => `/schedules/${id}/trigger`), ids.cron.map((id) => `/cron/${id}/trigger`)),
      noQuery,
      fc.option(fc.oneof(fc.constant('{}'), jsonText), { freq: 2 }).map((b) => b ?? undefined),
    ),
    fc.tuple(fc.constant('GET' as const), fc.constant('/cron/preview'), previewQuery, fc.constant(undefined)),
    fc.tuple(
      fc.constant('GET' as const),
      fc.oneof(ids.schedules.map((id) => `/schedules/${id}/executions`), ids.cron.map((id) => `/cron/${id}/executions`)),
      pageQuery,
      fc.constant(undefined),
    ),
    fc.tuple(
      fc.constantFrom('GET' as const, 'DELETE' as const, 'HEAD' as const),
      fc.oneof(
        ids.schedules.map((id) => `/schedules/${id}`),
        ids.cron.map((id) => `/cron/${id}`),
        ids.keys.map((id) => `/api-keys/${id}`),
        ids.executions.map((id) => `/executions/${id}`),
      ),
      noQuery,
      fc.constant(undefined),
    ),
    fc.tuple(
      fc.constantFrom('GET' as const, 'POST' as const, 'PUT' as const, 'OPTIONS' as const),
      fc.constantFrom('/schedules', '/cron', '/api-keys', '/executions', '/healthz', '/readyz', '/', '/schedules/', '//cron', '/CRON'),
      noQuery,
      fc.option(garbage, { freq: 2 }).map((b) => b ?? undefined),
    ),
    fc.tuple(
      fc.constantFrom('GET' as const, 'POST' as const, 'DELETE' as const),
      fc.array(oddString.map(encode), { minLength: 1, maxLength: 4 }).map((segments) => '/' + segments.join('/')),
      noQuery,
      fc.constant(undefined),
    ),
  ];

  const authorization = fc.oneof(
    { weight: 40, arbitrary: fc.constant(`Bearer ${token}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        'Bearer',
        'Bearer ',
        `bearer ${token}`,
        `Bearer  ${token} `,
        `Bearer ${token}x`,
        `Bearer ${token.slice(0, -1)}`,
        `Basic ${Buffer.from('a:b').toString('base64')}`,
        'Bearer pk_' + 'A'.repeat(43),
        `Bearer ${token}, Bearer ${token}`,
      ),
    },
    { weight: 1, arbitrary: headerValue },
    { weight: 1, arbitrary: fc.constant(null) },
  );

  return fc
    .tuple(
      fc.oneof(...routes),
      authorization,
      fc.oneof(
        { weight: 40, arbitrary: fc.constant('application/json') },
        { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
        { weight: 1, arbitrary: fc.constant(null) },
      ),
      fc.oneof({ weight: 30, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: garbage }),
      fc.array(fc.tuple(fc.constantFrom('x-forwarded-for', 'x-real-ip', 'accept', 'accept-encoding', 'origin', 'x-http-method-override', 'if-none-match', 'range'), headerValue), {
        maxLength: 2,
      }),
      fc.constantFrom('127.0.0.1', '203.0.113.9', '::1', '2001:db8::7', '::ffff:198.51.100.3'),
    )
    .map(([[method, path, query, routeBody], auth, contentType, replaceBody, extra, remoteAddress]) => {
      const headers: Record<string, string> = {};
      for (const [k, v] of extra) headers[k] = v;
      if (auth !== null) headers.authorization = auth;
      const payload = replaceBody ?? routeBody;
      if (payload !== undefined && contentType !== null) headers['content-type'] = contentType;
      return { method, url: path + query, headers, payload, remoteAddress };
    });
}
