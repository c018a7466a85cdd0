/**
 * Vite build of the web console: `console/` → `dist/console/`, served by the service
 * at `/console/` (src/http/console.ts). Preact through Vite's own JSX transform (no Babel).
 *
 * `npm run build:console` builds it; `npx vite --config console/vite.config.ts` serves it with
 * hot reload at http://localhost:5173/console/, proxying the API to `PUNCTUAL_URL`
 * (default http://127.0.0.1:8080).
 */
import { defineConfig } from 'vite';

const root = decodeURIComponent(new URL('.', import.meta.url).pathname);
const env = (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env ?? {};
const api = env.PUNCTUAL_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  root,
  base: '/console/',
  publicDir: 'public',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    target: 'es2022',
    // Keep the CSP strict (src/http/console.ts): no inline data: scripts or fonts.
    assetsInlineLimit: 0,
  },
  server: {
    proxy: Object.fromEntries(['/schedules', '/cron', '/executions', '/api-keys'].map((p) => [p, api])),
  },
});
