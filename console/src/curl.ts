/**
 * A job's request as text: the lines shown on its page (secrets masked) and a curl command (secrets
 * as shell variables such as `$X_API_KEY`). The console never has a secret value: the API answers
 * only names and public parts (docs/calls.md, "The request in the console").
 */
import type { AuthPublic, HttpMethod } from './api';

/** What both job kinds share of the request. `data` is sent as JSON when `body` is null. */
export interface RequestView {
  method: HttpMethod;
  endpoint: string;
  headers: Record<string, string>;
  secretHeaderNames: string[];
  auth: AuthPublic | null;
  body: string | null;
  data: unknown;
}

/** What stands for a secret on the page. */
export const MASK = '••••••';

const hasBody = (m: HttpMethod) => m !== 'GET' && m !== 'HEAD';
const headerOf = (headers: Record<string, string>, name: string) =>
  Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];

/** The body sent and its content type (as the dispatcher does: text body typed by the job's header, else JSON of data). */
export function requestBody(r: RequestView): { body: string; contentType: string } | null {
  if (!hasBody(r.method)) return null;
  if (r.body !== null) return { body: r.body, contentType: headerOf(r.headers, 'content-type') ?? 'text/plain; charset=utf-8' };
  return { body: JSON.stringify(r.data ?? {}), contentType: 'application/json' };
}

/** The masked `Authorization` value of an auth, per type. */
export function maskedAuthorization(a: AuthPublic): string {
  if (a.type === 'basic') return `Basic ${MASK} (${a.username ?? ''}:${MASK})`;
  if (a.type === 'bearer') return `Bearer ${MASK}`;
  return `Bearer ${MASK} (a token from ${a.tokenUrl ?? ''}, client ${a.clientId ?? ''})`;
}

/** The header lines shown on the page: the job's headers, secret ones masked, then Authorization. */
export function maskedHeaderLines(r: RequestView): Array<{ name: string; value: string; secret: boolean }> {
  const lines = Object.entries(r.headers).map(([name, value]) => ({ name, value, secret: false }));
  for (const name of r.secretHeaderNames) lines.push({ name, value: MASK, secret: true });
  if (r.auth) lines.push({ name: 'Authorization', value: maskedAuthorization(r.auth), secret: true });
  return lines;
}

/** `s` in single quotes for a POSIX shell (nothing inside is expanded). */
export const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
/** `s` for inside double quotes: `\`, `"`, `$` and backquote escaped. */
const dq = (s: string) => s.replace(/[\\"$`]/g, (c) => `\\${c}`);

/** A shell variable name for a secret: `X-Api-Key` → `X_API_KEY`, unique among `taken`. */
function placeholder(name: string, taken: Set<string>): string {
  let base = name.toUpperCase().replace(/[^A-Z0-9]+/g, '_').replace(/^_+|_+$/g, '') || 'SECRET';
  if (/^\d/.test(base)) base = `_${base}`;
  let v = base;
  for (let i = 2; taken.has(v); i++) v = `${base}_${i}`;
  taken.add(v);
  return v;
}

/**
 * The curl command of the request: secrets as `$VARIABLES` in double quotes (set them before
 * running it), everything else single-quoted. Without the Standard Webhooks headers, which
 * Punctual computes per attempt. OAuth 2.0 adds a comment naming where `$ACCESS_TOKEN` comes from.
 */
export function curlCommand(r: RequestView): string {
  const taken = new Set<string>();
  const parts = ['curl', '-X', r.method, shellQuote(r.endpoint)];
  const body = requestBody(r);
  if (body && !headerOf(r.headers, 'content-type')) parts.push('-H', shellQuote(`Content-Type: ${body.contentType}`));
  for (const [name, value] of Object.entries(r.headers)) parts.push('-H', shellQuote(`${name}: ${value}`));
  for (const name of r.secretHeaderNames) parts.push('-H', `"${dq(name)}: $${placeholder(name, taken)}"`);
  let comment = '';
  if (r.auth?.type === 'basic') parts.push('-u', `"${dq(r.auth.username ?? '')}:$${placeholder('PASSWORD', taken)}"`);
  else if (r.auth?.type === 'bearer') parts.push('-H', `"Authorization: Bearer $${placeholder('TOKEN', taken)}"`);
  else if (r.auth?.type === 'oauth2') {
    const v = placeholder('ACCESS_TOKEN', taken);
    comment = `# ${v}: a token from ${r.auth.tokenUrl ?? ''} (OAuth 2.0 client credentials, client ${r.auth.clientId ?? ''})\n`;
    parts.push('-H', `"Authorization: Bearer $${v}"`);
  }
  if (body) parts.push('--data-binary', shellQuote(body.body));
  return comment + parts.join(' ');
}
