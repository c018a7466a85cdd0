/**
 * `npm run openapi`: writes `docs/openapi.json`, the OpenAPI 3.1 document of the HTTP API, as the
 * service generates it (issue #6 §1). The app is built on a throwaway SQLite store in a temp dir
 * (removed afterwards); the document depends on the code only, not on configuration, so it is the
 * one every server answers at `GET /openapi.json`. test/http/openapi.test.ts fails when the
 * committed file is stale.
 *
 * Usage: `node --import tsx scripts/openapi.ts [output]` (default `docs/openapi.json`).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildApp, type AppDeps } from '../src/http/app.js';
import { documentText, type OpenApiDocument } from '../src/http/openapi-document.js';
import { openStore } from '../src/store/open.js';

/** Where the committed document lives. */
export const OPENAPI_FILE = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));

/**
 * Metrics that record nothing: with them the app serves `GET /metrics` on the API port, behind an
 * API key, as a server does by default (without `PUNCTUAL_METRICS_PORT`); the document shows it.
 */
export const DOCUMENTED_METRICS: NonNullable<AppDeps['metrics']> = {
  contentType: 'text/plain; version=0.0.4; charset=utf-8',
  render: async () => '',
  observeRequest: () => undefined,
};

/**
 * The document the app generates now, as the text committed in `docs/openapi.json`: the app of a
 * default deployment (metrics on the API port).
 */
export async function generateOpenApiText(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'punctual-openapi-'));
  try {
    const store = await openStore('file:' + join(dir, 'openapi.db'));
    try {
      await store.migrate();
      const app = await buildApp({ store, clock: { now: () => Date.now() }, metrics: DOCUMENTED_METRICS });
      try {
        return documentText(app.swagger() as unknown as OpenApiDocument);
      } finally {
        await app.close();
      }
    } finally {
      await store.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const output = resolve(process.argv[2] ?? OPENAPI_FILE);
  await writeFile(output, await generateOpenApiText());
  console.log(`wrote ${output}`);
}
