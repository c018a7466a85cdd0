/**
 * The API reference page in a real browser: a real Punctual server (in-process,
 * fresh SQLite database) and Debian's Chromium driven by playwright-core render `/docs` (Swagger
 * UI) under its Content-Security-Policy, with every operation of the document.
 *
 * Needs /usr/bin/chromium (`apt-get install -y chromium`); without it the test is skipped with one
 * line saying so. Browser-side code is passed to `page.evaluate` as strings (no DOM types here).
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPENAPI_FILE } from '../../scripts/openapi.js';
import { startTestServer, type TestServer } from '../support/server.js';

const CHROMIUM = process.env.PUNCTUAL_CHROMIUM || '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--disable-sync'];

if (!HAS_CHROMIUM) {
  process.stdout.write(`⚠ Reference page browser test skipped: ${CHROMIUM} not found (install it with: apt-get install -y chromium).\n`);
}

describe.skipIf(!HAS_CHROMIUM)('/docs in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let operations: number;

  beforeAll(async () => {
    const doc = JSON.parse(await readFile(OPENAPI_FILE, 'utf8')) as { paths: Record<string, Record<string, unknown>> };
    operations = Object.values(doc.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    server = await startTestServer();
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('renders every operation of the document, with no script error or CSP violation', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const requested: string[] = [];
    page.on('request', (req) => requested.push(new URL(req.url()).pathname));
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
    });
    const res = await page.goto(`${server.url}/docs`);
    expect(res?.status()).toBe(200);
    await page.waitForSelector('.opblock', { timeout: 20_000 });
    const seen = await page.evaluate<{ title: string; page: string; topbar: number; blocks: number; ids: string[]; tags: string[] }>(`(() => ({
      title: document.querySelector('.info .title')?.textContent ?? '',
      page: document.title,
      topbar: document.querySelectorAll('.topbar, .topbar-wrapper img').length,
      blocks: document.querySelectorAll('.opblock').length,
      ids: [...document.querySelectorAll('.opblock-summary-operation-id')].map((e) => e.textContent),
      tags: [...document.querySelectorAll('.opblock-tag')].map((e) => e.getAttribute('data-tag')),
    }))()`);
    expect(seen.title).toContain('Punctual');
    // Titled for Punctual, without the plugin's top bar and logo; the document read is /openapi.json.
    expect(seen.page).toBe('Punctual API reference');
    expect(seen.topbar).toBe(0);
    expect(requested).toContain('/openapi.json');
    expect(requested).not.toContain('/docs/json');
    // Operations tagged twice (a job's executions: its job's tag and Executions) show twice.
    expect(seen.blocks).toBeGreaterThanOrEqual(operations);
    expect(seen.ids).toEqual(expect.arrayContaining(['createSchedule', 'listCronJobExecutions', 'previewCron', 'deleteApiKey']));
    expect(seen.tags).toEqual(expect.arrayContaining(['Schedules', 'Cron jobs', 'Executions', 'API keys', 'Health']));
    expect(problems).toEqual([]);
    await page.close();
  });
});
