/**
 * The web console: the static single-page app built by Vite from `console/` into
 * `dist/console/`, served at `/console/` by @fastify/static.
 *
 * - No authentication for these files: they hold no data. The app asks for an API key and sends
 *   it with each API call (`Authorization: Bearer`), as any other client does.
 * - Single-page fallback: a GET of `/console/<route>` whose last segment has no file extension
 *   (`/console/schedules/<id>`) answers `index.html`, so deep links and reloads work. A missing
 *   file (`/console/assets/nope.js`) is the usual 404 problem.
 * - Caching: Vite's hashed files under `assets/` are immutable for a year; everything else
 *   (`index.html`, the favicon) is revalidated on each use (`no-cache`, with ETags).
 * - Every answer carries a strict Content-Security-Policy (scripts, styles and connections to this
 *   origin only, no framing), since the page keeps an API key in sessionStorage.
 * - When the console was not built (`npm run build` not run), `/console/` answers a 503 page
 *   saying so; the API is unaffected.
 * - `GET /` (and `HEAD /`) redirects to `/console/` (302: a temporary redirect, so that nothing
 *   caches it), so the address the server logs at start opens the console in a browser.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { notFoundHandler } from './problem.js';
import { contentSecurityPolicy } from './csp.js';

/** URL path under which the console is served (also Vite's `base`, in console/vite.config.ts). */
export const CONSOLE_PREFIX = '/console';

/** Options of {@link consoleRoutes}. */
export interface ConsoleOptions {
  /**
   * Directory holding the built console (`index.html`, `assets/`); null: not built (the 503 page).
   * Default: the first of `<this module>/../console` (running from `dist/http/`) and
   * `<this module>/../../dist/console` (running from `src/http/` through tsx) that holds an
   * `index.html`, else null.
   */
  root?: string | null;
}

/** Content-Security-Policy of the console's files: same origin only, no inline script or style. */
export const CONSOLE_CSP = contentSecurityPolicy({ inlineStyles: false });

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

/** Where the built console is, or null when it was not built. */
export function findConsoleRoot(): string | null {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const candidate of [resolve(here, '../console'), resolve(here, '../../dist/console')]) {
    if (existsSync(join(candidate, 'index.html'))) return candidate;
  }
  return null;
}

/**
 * Route options that keep these routes out of the OpenAPI document (`hide`, read by
 * @fastify/swagger; the wildcard route of @fastify/static is hidden by that plugin itself).
 */
const HIDDEN = { schema: { hide: true } as FastifySchema };

const NOT_BUILT_PAGE =
  '<!doctype html><html lang="en"><meta charset="utf-8"><title>Punctual console not built</title>' +
  '<h1>The console is not built</h1><p>Run <code>npm run build</code> and restart Punctual.</p></html>';

/** True for a path that names a page of the app rather than a file: its last segment has no dot. */
function isAppRoute(url: string): boolean {
  const path = url.split('?')[0] ?? '';
  const last = path.slice(path.lastIndexOf('/') + 1);
  return !last.includes('.');
}

/**
 * Serves the console at `/console/` (and redirects `/` and `/console` there). Registered by
 * `buildApp` next to the health routes, outside the authenticated API scope.
 */
export const consoleRoutes: FastifyPluginAsync<ConsoleOptions> = async (app, opts) => {
  const root = opts.root === undefined ? findConsoleRoot() : opts.root;

  // The root of the server: a browser pointed at it lands on the console (Fastify answers HEAD too).
  app.get('/', HIDDEN, async (_req, reply) => reply.redirect(`${CONSOLE_PREFIX}/`, 302));

  await app.register(
    async (scope) => {
      scope.addHook('onSend', async (_req, reply, payload) => {
        for (const [name, value] of Object.entries(SECURITY_HEADERS)) reply.header(name, value);
        return payload;
      });

      if (root === null) {
        const notBuilt = async (_req: FastifyRequest, reply: FastifyReply) =>
          reply.code(503).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(NOT_BUILT_PAGE);
        scope.get('/', HIDDEN, notBuilt);
        scope.get('/*', HIDDEN, notBuilt);
        return;
      }

      const sendIndex = (reply: FastifyReply) =>
        reply.header('cache-control', 'no-cache').sendFile('index.html', root, { cacheControl: false });

      await scope.register(fastifyStatic, {
        root,
        prefix: '/',
        index: false,
        cacheControl: false,
        setHeaders: (res, path) => {
          const immutable = path.includes(`${join(root, 'assets')}/`);
          res.setHeader('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
        },
      });

      // `/console` and `/console/`: the first redirects (relative URLs in the app need the slash).
      scope.get('/', HIDDEN, async (req, reply) => {
        if (!req.url.split('?')[0]!.endsWith('/')) return reply.redirect(`${CONSOLE_PREFIX}/`, 302);
        return sendIndex(reply);
      });

      scope.setNotFoundHandler((req, reply) => {
        if ((req.method === 'GET' || req.method === 'HEAD') && isAppRoute(req.url)) return sendIndex(reply);
        return notFoundHandler(req, reply);
      });
    },
    { prefix: CONSOLE_PREFIX },
  );
};
