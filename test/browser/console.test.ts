/**
 * The web console end to end: a real Punctual server (in-process, fresh SQLite
 * database), a real receiver on 127.0.0.1, and Debian's Chromium driven by playwright-core.
 *
 * Needs /usr/bin/chromium (`apt-get install -y chromium`); without it the browser tests are
 * skipped with one line saying so. Builds the console first when dist/console is missing or older
 * than its sources. Writes (with UPDATE_SCREENSHOTS=1) the screenshots of docs/screenshots/ (desktop overview, a detail page
 * with its history, a cron job paused with a reason, the cron helper, the notification channels, the failures page, the
 * phone view).
 *
 * Browser-side code is passed to `page.evaluate` as strings: the test project has no DOM types.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRoutes } from '../../src/http/console.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../support/server.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHROMIUM = process.env.PUNCTUAL_CHROMIUM || '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
// The README's screenshots are rewritten only on request (UPDATE_SCREENSHOTS=1 npx vitest run
// test/browser); an ordinary run writes them to a temp dir, so tests leave the checkout unchanged.
const SHOTS = process.env.UPDATE_SCREENSHOTS === '1' ? join(ROOT, 'docs/screenshots') : join(tmpdir(), 'punctual-screenshots');
/** `expect.poll` with a timeout that suits a browser on a busy 2-core machine (the default is 1 s). */
const eventually = <T>(fn: () => T | Promise<T>, timeout = 10_000) => expect.poll(fn, { timeout });
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/** Chromium's flags on this kind of machine (no sandbox as root; no background traffic on a closed network). */
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

if (!HAS_CHROMIUM) {
  process.stdout.write(`⚠ Browser suite skipped: ${CHROMIUM} not found (install it with: apt-get install -y chromium).\n`);
}

/** Newest modification time (ms) of the files under `dir`. */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds dist/console unless it is newer than every file of console/. */
function ensureConsoleBuilt(): void {
  const index = join(ROOT, 'dist/console/index.html');
  if (existsSync(index) && statSync(index).mtimeMs >= newestMtime(join(ROOT, 'console'))) return;
  execFileSync(process.execPath, [join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'console/vite.config.ts'], {
    cwd: ROOT,
    stdio: 'pipe',
  });
}

describe('console static files', () => {
  let server: TestServer;
  beforeAll(async () => {
    ensureConsoleBuilt();
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('serves the app without a key, answers index.html for deep links and 404 for missing files', async () => {
    const redirect = await fetch(`${server.url}/console`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('/console/');
    await redirect.arrayBuffer(); // every body is read: an unread one keeps its connection busy at stop()

    for (const path of ['/console/', '/console/schedules/0190a1b2-0000-7000-8000-000000000000', '/console/cron-helper?x=1']) {
      const res = await fetch(server.url + path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(await res.text()).toContain('<div id="app">');
    }

    const html = await (await fetch(`${server.url}/console/`)).text();
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(server.url + script!);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect((await asset.text()).length).toBeGreaterThan(1_000);

    const missing = await fetch(`${server.url}/console/assets/missing.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await missing.json()) as { status: number }).status).toBe(404);

    // The API itself still wants a key.
    const api = await fetch(`${server.url}/schedules`);
    expect(api.status).toBe(401);
    await api.arrayBuffer();
  });

  it('answers a page saying so when the console was not built, leaving the API alone', async () => {
    const app = Fastify();
    await app.register(consoleRoutes, { root: null });
    try {
      for (const url of ['/console/', '/console/cron/x']) {
        const res = await app.inject({ method: 'GET', url });
        expect(res.statusCode).toBe(503);
        expect(res.body).toContain('npm run build');
      }
    } finally {
      await app.close();
    }
  });
});

describe.skipIf(!HAS_CHROMIUM)('console in Chromium', () => {
  let server: TestServer;
  let receiver: Receiver;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const pageErrors: string[] = [];

  const url = (path: string) => `${server.url}/console${path}`;
  const heading = (p: Page = page) => p.locator('main h1');
  const nav = (name: string, p: Page = page) => p.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
  const shot = async (name: string, p: Page = page, fullPage = true) => {
    mkdirSync(SHOTS, { recursive: true });
    // A transient message ("Schedule created.") would cover part of the page: dismiss it (keyboard
    // users can too). The console's CSP refuses injected styles, so it cannot be hidden by one.
    const dismiss = p.getByRole('button', { name: 'Dismiss message' });
    if (await dismiss.count()) await dismiss.click();
    await p.mouse.move(0, 0); // no hover effect in the picture
    await p.screenshot({ path: join(SHOTS, name), fullPage });
  };
  const watchErrors = (p: Page) => {
    p.on('pageerror', (err) => pageErrors.push(`pageerror: ${err.message}`));
    p.on('console', (msg) => {
      // Refusals the tests provoke (a wrong key, an unknown zone, a bad expression) are logged by
      // Chromium as failed loads; anything else (a CSP violation, an exception) is a failure.
      if (msg.type() === 'error' && !/Failed to load resource: the server responded with a status of 40[01]/.test(msg.text())) {
        pageErrors.push(`console: ${msg.text()}`);
      }
    });
  };
  const signIn = async (p: Page) => {
    await p.goto(url('/'));
    await p.getByLabel('API key').fill(TEST_TOKEN);
    await p.getByRole('button', { name: 'Sign in' }).click();
    await eventually(() => heading(p).textContent()).toBe('Overview');
  };

  beforeAll(async () => {
    ensureConsoleBuilt();
    receiver = await startReceiver();
    server = await startTestServer({ PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS: 'true' });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
    context = await browser.newContext({
      viewport: { width: 1280, height: 860 },
      locale: 'en-GB',
      timezoneId: 'Europe/Berlin',
    });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    watchErrors(page);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await receiver?.close();
  });

  it('signs in with an API key, refusing a wrong one, and keeps it in sessionStorage only', async () => {
    await page.goto(url('/'));
    expect(await heading().textContent()).toBe('Sign in to Punctual');

    // The first Tab reaches the skip link.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');

    const key = page.getByLabel('API key');
    await key.fill('pk_not-a-real-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await eventually(() => page.locator('#f-token-error').textContent()).toContain('was not accepted');
    expect(await key.getAttribute('aria-invalid')).toBe('true');

    await key.fill(TEST_TOKEN);
    await key.press('Enter');
    await eventually(() => heading().textContent()).toBe('Overview');
    const stored = await page.evaluate('JSON.stringify([sessionStorage.getItem("punctual.apiKey"), localStorage.length, document.cookie])');
    expect(JSON.parse(stored as string)).toEqual([TEST_TOKEN, 0, '']);
    expect(await page.locator('nav[aria-label="Main"] a[aria-current="page"]').textContent()).toBe('Overview');
  });

  it('creates a cron job through the form, showing the service’s errors next to their fields, then pauses it', async () => {
    await nav('Cron jobs').click();
    await eventually(() => heading().textContent()).toBe('Cron jobs');
    await page.getByRole('link', { name: 'New cron job' }).click();
    await eventually(() => heading().textContent()).toBe('New cron job');

    await page.getByLabel('Name (optional)').fill('Nightly report');
    await page.getByLabel('Cron expression').fill('0 3 * * MON-FRI');
    await page.getByLabel('Time zone').fill('Europe/Berlin');
    await page.getByLabel('Endpoint URL').fill(`${receiver.url}/report`);
    await page.getByLabel('Data (JSON)').fill('{"report": "nightly"}');
    await page.getByLabel('Attempts in all').fill('3');
    await page.getByLabel('Retry steps (ms)').fill('5000, 60000');
    await page.getByLabel('Counts as success').fill('2xx, 302');
    await page.getByLabel('Pause after failures (optional)').fill('5');
    await eventually(() => page.getByTestId('cron-description').textContent()).toContain('At 03:00, Monday through Friday');
    await eventually(() => page.getByTestId('occurrences').locator('li').count()).toBe(3);

    // The service refuses an unknown zone: its problem+json names /timezone, shown at that field.
    await page.getByLabel('Time zone').fill('Mars/Olympus_Mons');
    await page.getByRole('button', { name: 'Create cron job' }).click();
    await eventually(() => page.locator('#f-timezone-error').textContent()).toMatch(/zone/i);
    expect(await page.getByLabel('Time zone').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('.error-summary').textContent()).toContain('Time zone');
    // The summary took the focus, so keyboard and screen-reader users land on it.
    // (Focus moves in an effect after the render: wait for it rather than read it at once.)
    await eventually(() => page.evaluate('document.activeElement.className')).toBe('error-summary');
    // Client-side: data that is not JSON is refused before anything is sent.
    await page.getByLabel('Data (JSON)').fill('{report: nightly}');
    await page.getByRole('button', { name: 'Create cron job' }).click();
    await eventually(() => page.locator('#f-data-error').textContent()).toContain('Not valid JSON');
    expect(((await server.api('GET', '/cron')).body as { size: number }).size).toBe(0);

    await page.getByLabel('Time zone').fill('Europe/Berlin');
    await page.getByLabel('Data (JSON)').fill('{"report": "nightly"}');
    await page.getByRole('button', { name: 'Create cron job' }).click();
    await page.waitForURL(/\/console\/cron\/[0-9a-f-]{36}$/);
    await eventually(() => heading().textContent()).toContain('Nightly report');
    expect(await heading().locator('.badge').textContent()).toBe('Active');
    const id = UUID.exec(page.url())![0];
    const created = (await server.api('GET', `/cron/${id}`)).body as Record<string, unknown>;
    expect(created).toMatchObject({
      name: 'Nightly report',
      expression: '0 3 * * MON-FRI',
      timezone: 'Europe/Berlin',
      endpoint: `${receiver.url}/report`,
      data: { report: 'nightly' },
      status: 'Active',
      retry: { maxAttempts: 3, delaysMs: [5000, 60000] },
      misfire: 'once',
      overlap: 'allow',
      successStatuses: ['2xx', 302],
      pauseAfterFailures: 5,
    });
    // Focus moved to the new page's heading.
    expect(await page.evaluate('document.activeElement.tagName')).toBe('H1');
    expect(await page.locator('.facts').textContent()).toContain('retries after 5 s, 1 min');

    await page.getByLabel('Reason for pausing (optional)').fill('report template being rewritten');
    await page.getByRole('button', { name: 'Pause' }).click();
    await eventually(() => heading().locator('.badge').textContent()).toBe('Paused');
    await eventually(() => page.getByRole('status').first().textContent()).toContain('Cron job paused');
    expect((await server.api('GET', `/cron/${id}`)).body).toMatchObject({ status: 'Paused', pausedReason: 'report template being rewritten' });
    expect(await page.locator('.facts').textContent()).toContain('report template being rewritten');
    expect(await page.getByRole('button', { name: 'Resume' }).isVisible()).toBe(true);
    await shot('console-cron-paused.png');

    // Edit: the form comes filled in; only what changed is sent, so the paused job keeps its occurrence.
    const before = (await server.api('GET', `/cron/${id}`)).body as { nextInvocation: string };
    await page.getByRole('link', { name: 'Edit' }).click();
    await eventually(() => heading().textContent()).toBe('Edit cron job');
    await eventually(() => page.getByLabel('Cron expression').inputValue()).toBe('0 3 * * MON-FRI');
    expect(await page.getByLabel('Attempts in all').inputValue()).toBe('3');
    expect(await page.getByLabel('Retry steps (ms)').inputValue()).toBe('5000, 60000');
    await page.getByLabel('Name (optional)').fill('Nightly sales report');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await eventually(() => heading().textContent()).toContain('Nightly sales report');
    expect((await server.api('GET', `/cron/${id}`)).body).toMatchObject({
      name: 'Nightly sales report',
      status: 'Paused',
      expression: '0 3 * * MON-FRI',
      nextInvocation: before.nextInvocation,
      retry: { maxAttempts: 3, delaysMs: [5000, 60000] },
    });

    // The list shows it, and its filters work.
    await page.getByRole('link', { name: '← Cron jobs' }).click();
    await eventually(() => page.locator('tbody tr').count()).toBe(1);
    await page.getByLabel('Status').selectOption('Active');
    await page.getByRole('button', { name: 'Apply' }).click();
    await eventually(() => page.locator('.empty').textContent()).toContain('No cron job matches');

    // Resuming clears the reason; pausing without one says so. (Left paused: it must not run during the suite.)
    await page.goto(url(`/cron/${id}`));
    await eventually(() => heading().locator('.badge').textContent()).toBe('Paused');
    await page.getByRole('button', { name: 'Resume' }).click();
    await eventually(() => heading().locator('.badge').textContent()).toBe('Active');
    expect((await server.api('GET', `/cron/${id}`)).body).toMatchObject({ status: 'Active', pausedReason: null });
    expect(await page.locator('.facts').textContent()).not.toContain('report template being rewritten');
    expect(await page.locator('.facts').textContent()).not.toContain('Paused because');
    await page.getByRole('button', { name: 'Pause' }).click();
    await eventually(() => heading().locator('.badge').textContent()).toBe('Paused');
    expect((await server.api('GET', `/cron/${id}`)).body).toMatchObject({ status: 'Paused', pausedReason: null });
    expect(await page.locator('.facts').textContent()).toContain('no reason given');

    // The backfill form: the service's refusal of an empty range is shown; a range without an
    // occurrence (the last second; the job runs at 03:00 on weekdays) creates none, and says so.
    const backfill = page.getByRole('region', { name: 'Backfill' });
    const to = await backfill.getByLabel('To (exclusive, not after now)').inputValue();
    await backfill.getByLabel('From (inclusive)').fill(to);
    await backfill.getByRole('button', { name: 'Backfill' }).click();
    await eventually(() => backfill.getByRole('alert').textContent()).toContain('must be before to');
    const second = new Date(Math.floor(Date.now() / 1000) * 1000 - 2_000);
    const local = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 19);
    await backfill.getByLabel('From (inclusive)').fill(local(second));
    await backfill.getByLabel('To (exclusive, not after now)').fill(local(new Date(second.getTime() + 1_000)));
    await backfill.getByRole('button', { name: 'Backfill' }).click();
    await eventually(() => backfill.getByRole('status').textContent()).toContain('Nothing to backfill');
  });

  it('creates a schedule due in a second and shows its execution and each attempt on its detail page', async () => {
    receiver.respond('/hello', [{ status: 503, body: 'warming up' }, { status: 200, body: 'hello from the receiver' }]);
    await nav('Schedules').click();
    await page.getByRole('link', { name: 'New schedule' }).click();
    await eventually(() => heading().textContent()).toBe('New schedule');

    await page.getByLabel('Name').fill('Say hello');
    await page.getByLabel('Endpoint URL').fill(`${receiver.url}/hello`);
    await page.getByLabel('Data (JSON)').fill('{"greeting": "hi"}');
    await page.getByLabel('Tags').fill('demo, console');
    await page.getByLabel('First retry delay (ms)').fill('100');
    // "When" in the browser's zone (Europe/Berlin here), a second from now.
    const when = (await page.evaluate(`(() => {
      const d = new Date(Date.now() + 1500);
      const p = (n) => String(n).padStart(2, '0');
      return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate()) + 'T' + p(d.getHours()) + ':' + p(d.getMinutes()) + ':' + p(d.getSeconds());
    })()`)) as string;
    await page.getByLabel('When').fill(when);
    await page.getByRole('button', { name: 'Create schedule' }).click();
    await page.waitForURL(/\/console\/schedules\/[0-9a-f-]{36}$/);
    const id = UUID.exec(page.url())![0];
    await eventually(() => heading().textContent()).toContain('Say hello');

    // The history refreshes by itself: the execution appears, with its failed and its good attempt.
    const execution = page.locator('.execution').first();
    await eventually(() => execution.getAttribute('data-status'), 20_000).toBe('Succeeded');
    const rows = execution.locator('table.attempts tbody tr');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).locator('td[data-label="Status code"]').textContent()).toBe('503');
    expect(await rows.nth(0).locator('td[data-label="Response"]').textContent()).toBe('warming up');
    expect(await rows.nth(1).locator('td[data-label="Status code"]').textContent()).toBe('200');
    expect(await rows.nth(1).locator('td[data-label="Response"]').textContent()).toBe('hello from the receiver');
    expect(await rows.nth(1).locator('td[data-label="Duration"]').textContent()).toMatch(/\d+ ms|s$/);
    // Each attempt's start to the millisecond, those of the instant the API gave (a retry can come
    // 100 ms after the first attempt: seconds alone would not tell them apart).
    for (const i of [0, 1]) {
      const started = rows.nth(i).locator('td[data-label="Started"] time');
      const iso = (await started.getAttribute('datetime'))!;
      expect(await started.textContent()).toMatch(new RegExp(`\\d{2}:\\d{2}:\\d{2}[.,]${iso.slice(20, 23)}$`));
    }
    await eventually(() => heading().locator('.badge').textContent()).toBe('Succeeded');

    const arrivals = receiver.arrivals.filter((a) => a.path === '/hello');
    expect(arrivals).toHaveLength(2);
    expect(JSON.parse(arrivals[1]!.body)).toEqual({ greeting: 'hi' });
    const api = (await server.api('GET', `/schedules/${id}`)).body as { tags: string[]; scheduledAt: string };
    expect(api.tags).toEqual(['demo', 'console']);
    // Sent as the instant typed, read in the browser's zone (Europe/Berlin).
    expect(api.scheduledAt).toBe(await page.evaluate(`new Date('${when}').toISOString()`));

    // A finished schedule cannot be edited or run again.
    expect(await page.getByRole('link', { name: 'Edit' }).count()).toBe(0);
    await shot('console-schedule-detail.png');
  });

  it('explains a cron expression in plain language and lists the occurrences the service computes', async () => {
    await nav('Cron helper').click();
    await eventually(() => heading().textContent()).toBe('Cron helper');
    await page.getByLabel('Cron expression').fill('30 8 * * MON-FRI');
    await page.getByLabel('Time zone').fill('America/New_York');
    await page.getByLabel('Occurrences to show').selectOption('5');
    await eventually(() => page.getByTestId('cron-description').textContent()).toContain('At 08:30, Monday through Friday');
    await eventually(() => page.getByTestId('occurrences').locator('li').count()).toBe(5);
    const times = page.getByTestId('occurrences').locator('time');
    const shown = await Promise.all([0, 1, 2, 3, 4].map((i) => times.nth(i).getAttribute('datetime')));
    const preview = (await server.api('GET', '/cron/preview?expression=30+8+*+*+MON-FRI&timezone=America/New_York&count=5'))
      .body as { occurrences: string[] };
    expect(shown).toEqual(preview.occurrences);
    expect(await page.getByTestId('occurrences').locator('li').first().textContent()).toContain('08:30');

    // The service's refusal is shown in place of the reading.
    await page.getByLabel('Cron expression').fill('61 * * * *');
    await eventually(() => page.getByTestId('cron-description').locator('.field-error').count()).toBe(1);

    // The calendar words and @every are read aloud and previewed by the service too.
    await page.getByLabel('Cron expression').fill('0 17 * * FRI#L');
    await eventually(() => page.getByTestId('cron-description').textContent()).toContain('on the last Friday of the month');
    await eventually(() => page.getByTestId('occurrences').locator('li').count()).toBe(5);
    await page.getByLabel('Cron expression').fill('@every 1h30m');
    await eventually(() => page.getByTestId('cron-description').textContent()).toContain('Every 1 hour 30 minutes');
    await eventually(async () => {
      const t = await page.getByTestId('occurrences').locator('time').evaluateAll((els) => els.map((e) => Date.parse(e.getAttribute('datetime')!)));
      return t.length === 5 && t.slice(1).every((x, i) => x - t[i]! === 5_400_000);
    }).toBe(true);

    await page.getByLabel('Cron expression').fill('0 9 * * MON-FRI');
    await page.getByLabel('Time zone').fill('Europe/Berlin');
    await page.getByLabel('Occurrences to show').selectOption('10');
    await eventually(() => page.getByTestId('occurrences').locator('li').count()).toBe(10);
    await shot('console-cron-helper.png');
  });

  it('shows the calls of the last hour by outcome and their lateness on the overview', async () => {
    receiver.respond('/fail', { status: 500, body: 'boom' });
    receiver.respond('/refuse', { status: 404, body: 'no such hook' });
    const now = Date.now();
    for (let i = 0; i < 4; i++) {
      const res = await server.api('POST', '/schedules', {
        name: `Invoice ${i + 1}`,
        scheduledAt: new Date(now + 300 + i * 400).toISOString(),
        endpoint: `${receiver.url}/ok`,
        tags: ['billing'],
      });
      expect(res.status).toBe(201);
    }
    for (const [name, path] of [['Sync CRM', '/fail'], ['Old webhook', '/refuse']] as const) {
      const res = await server.api('POST', '/schedules', {
        name,
        scheduledAt: new Date(now + 500).toISOString(),
        endpoint: `${receiver.url}${path}`,
        retry: { maxAttempts: 1 },
      });
      expect(res.status).toBe(201);
    }
    const tick = (await server.api('POST', '/cron', {
      name: 'Heartbeat',
      expression: '* * * * * *',
      endpoint: `${receiver.url}/tick`,
    })).body as { id: string };
    await server.api('POST', '/schedules', {
      name: 'Quarterly report',
      scheduledAt: new Date(now + 3 * 3_600_000).toISOString(),
      endpoint: `${receiver.url}/ok`,
    });
    await receiver.waitFor((a) => a.filter((x) => x.path === '/tick').length >= 6 && a.filter((x) => x.path === '/ok').length >= 4, 20_000);
    await receiver.waitFor((a) => a.some((x) => x.path === '/fail') && a.some((x) => x.path === '/refuse'), 10_000);
    await server.api('PATCH', `/cron/${tick.id}`, { status: 'Paused' });
    // Let the last executions finish before the overview reads them.
    const running = async () =>
      ((await server.api('GET', '/schedules')).body as { schedules: Array<{ status: string }> }).schedules.filter(
        (s) => s.status === 'Running',
      ).length;
    await eventually(running).toBe(0);

    await nav('Overview').click();
    await eventually(() => heading().textContent()).toBe('Overview');
    await page.getByRole('button', { name: 'Refresh' }).click();
    const bar = (label: string) => page.locator('.bars li', { hasText: label }).locator('.bar-count').first().textContent();
    await eventually(async () => Number(await bar('2xx success'))).toBeGreaterThanOrEqual(4 + 6 + 1);
    // /fail's 500, and the 503 of "Say hello"'s first attempt (previous test).
    expect(Number(await bar('5xx server error'))).toBe(2);
    expect(Number(await bar('4xx refused'))).toBe(1);
    expect(await page.locator('.chart circle').count()).toBeGreaterThanOrEqual(11);
    expect(await page.locator('.chart circle.dot-bad').count()).toBe(2);
    expect(await page.locator('.chart figcaption').textContent()).toMatch(/median lateness \d/);
    expect(await page.locator('.upcoming').first().textContent()).toContain('Quarterly report');
    await shot('console-overview.png');

    // The cron job's page lists its executions, newest first.
    await page.goto(url(`/cron/${tick.id}`));
    await eventually(() => page.locator('.execution').count()).toBeGreaterThanOrEqual(6);
    expect(await page.locator('.execution').first().getAttribute('data-status')).toBe('Succeeded');
    await eventually(() => page.getByTestId('occurrences').locator('li').count()).toBe(5);
    await shot('console-cron-detail.png');
  });

  it('runs a cron job now, then deletes it after a keyboard-usable confirmation', async () => {
    const job = (await server.api('POST', '/cron', { name: 'Temporary', expression: '@daily', endpoint: `${receiver.url}/tmp` })).body as {
      id: string;
    };
    await page.goto(url(`/cron/${job.id}`));
    await eventually(() => heading().textContent()).toContain('Temporary');
    expect(await page.locator('.facts').textContent()).toContain('At 00:00');

    // Run now: a triggered execution appears in the history and reaches the receiver.
    await page.getByRole('button', { name: 'Run now' }).click();
    await eventually(() => page.locator('.execution').first().getAttribute('data-status'), 15_000).toBe('Succeeded');
    expect(await page.locator('.execution').first().locator('.chip').textContent()).toBe('run now');
    expect(receiver.arrivals.filter((a) => a.path === '/tmp')).toHaveLength(1);

    await page.getByRole('button', { name: 'Delete' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await eventually(() => dialog.isVisible()).toBe(true);
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Cancel');
    await page.keyboard.press('Escape');
    await eventually(() => dialog.isVisible()).toBe(false);
    expect((await server.api('GET', `/cron/${job.id}`)).body).not.toBeNull();

    await page.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Delete cron job' }).click();
    await page.waitForURL(/\/console\/cron$/);
    expect((await server.api('GET', `/cron/${job.id}`)).body).toBeNull();
  });

  it('pauses every cron job of a tag from the list, after a confirmation showing the dry run\'s count', async () => {
    const mk = async (tags: string[]) =>
      ((await server.api('POST', '/cron', { name: `Bulk ${tags.join(' ')}`, expression: '@daily', endpoint: `${receiver.url}/bulk`, tags })).body as { id: string }).id;
    const a = await mk(['bulk-night']);
    const b = await mk(['bulk-night', 'eu']);
    const other = await mk(['bulk-day']);
    await page.goto(url('/cron?tag=bulk-night'));
    await eventually(() => page.locator('tbody tr').count()).toBe(2);
    await page.getByRole('button', { name: 'Pause matching…' }).click();
    const dialog = page.getByRole('dialog');
    await eventually(() => dialog.isVisible()).toBe(true);
    expect(await dialog.textContent()).toContain('2 cron jobs match; pause them?');
    await dialog.getByRole('button', { name: 'Pause', exact: true }).click();
    await eventually(async () => ((await server.api('GET', `/cron/${a}`)).body as { status: string }).status).toBe('Paused');
    expect(((await server.api('GET', `/cron/${b}`)).body as { status: string }).status).toBe('Paused');
    expect(((await server.api('GET', `/cron/${other}`)).body as { status: string }).status).toBe('Active');
  });

  it('adds a notification channel, showing the service’s errors, sends it a test message, then deletes it', async () => {
    await nav('Channels').click();
    await eventually(() => heading().textContent()).toBe('Notification channels');
    await page.getByRole('button', { name: 'Add the channel' }).click();
    await eventually(() => page.locator('#f-url-error').textContent()).toContain('absolute http or https URL');

    await page.getByLabel('Name', { exact: true }).fill('On call');
    await page.getByLabel('URL', { exact: true }).fill(`${receiver.url}/channel`);
    await page.getByLabel(/A job succeeded again/).check();
    await page.getByRole('button', { name: 'Add the channel' }).click();
    const row = page.locator('tbody tr', { hasText: 'On call' });
    await eventually(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain('execution.failed');
    expect(await row.textContent()).toContain('job.recovered');
    const [stored] = ((await server.api('GET', '/notification-channels')).body as { notificationChannels: { events: string[]; url: string }[] })
      .notificationChannels;
    expect(stored).toMatchObject({ events: ['execution.failed', 'job.recovered'], url: `${receiver.url}/channel` });

    await row.getByRole('button', { name: 'Send a test' }).click();
    await eventually(() => row.locator('.test-result').textContent()).toMatch(/^Delivered \(HTTP 200, \d+ ms\)\./);
    const arrival = receiver.arrivals.find((a) => a.path === '/channel')!;
    expect(JSON.parse(arrival.body)).toMatchObject({ type: 'notifications.test', data: { channel: { name: 'On call' } } });

    // A second channel, whose receiver refuses: its test says so, in its own row.
    receiver.respond('/slack-gone', { status: 404, body: 'no_service' });
    const slack = (await server.api('POST', '/notification-channels', {
      name: 'Platform team (Slack)',
      type: 'slack',
      url: `${receiver.url}/slack-gone`,
      events: ['execution.failed', 'cron.auto_paused'],
    })).body as { id: string };
    await page.reload();
    const slackRow = page.locator('tbody tr', { hasText: 'Platform team' });
    await eventually(() => page.locator('tbody tr').count()).toBe(2);
    await slackRow.getByRole('button', { name: 'Send a test' }).click();
    await eventually(() => slackRow.locator('.test-result').textContent()).toMatch(/^Not delivered: the receiver answered HTTP 404 \(\d+ ms\)\./);
    await row.getByRole('button', { name: 'Send a test' }).click();
    await eventually(() => row.locator('.test-result').textContent()).toMatch(/^Delivered/);
    await shot('console-channels.png');
    expect((await server.api('DELETE', `/notification-channels/${slack.id}`)).status).toBe(204);

    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete the channel' }).click();
    await eventually(() => row.count()).toBe(0);
    expect(((await server.api('GET', '/notification-channels')).body as { size: number }).size).toBe(0);
  });

  it('creates a key with scopes and an expiry on the keys page, shows its token once, then rotates it', async () => {
    await nav('Keys').click();
    await eventually(() => heading().textContent()).toBe('API keys');
    // No scope at all: the service's error, next to the scopes.
    await page.getByLabel('Name', { exact: true }).fill('Dashboard');
    await page.getByLabel(/Read schedules, cron jobs/).uncheck();
    await page.getByRole('button', { name: 'Create the key' }).click();
    await eventually(() => page.locator('#f-scopes-error').textContent()).toContain('fewer than 1 items');

    await page.getByLabel(/Read schedules, cron jobs/).check();
    await page.getByLabel(/Read the metrics/).check();
    await page.getByLabel('Expires at').fill('2099-06-01T12:00');
    await page.getByRole('button', { name: 'Create the key' }).click();
    const token = page.locator('[data-token]');
    await eventually(() => token.count()).toBe(1);
    const first = (await token.textContent())!.trim();
    expect(first).toMatch(/^pk_/);
    const row = page.locator('tbody tr', { hasText: 'Dashboard' });
    expect(await row.textContent()).toContain('jobs:read');
    expect(await row.textContent()).toContain('metrics:read');
    expect(await row.textContent()).not.toContain('keys:manage');
    const listed = ((await server.api('GET', '/api-keys')).body as { apiKeys: { id: string; name: string; scopes: string[]; expiresAt: string }[] })
      .apiKeys.find((k) => k.name === 'Dashboard')!;
    expect(listed.scopes).toEqual(['jobs:read', 'metrics:read']);
    expect(listed.expiresAt).toBe('2099-06-01T10:00:00.000Z'); // Europe/Berlin, summer time
    // The new key reads jobs but cannot manage keys.
    const as = (t: string, path: string) => fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${t}` } }).then((r) => r.status);
    expect(await as(first, '/schedules')).toBe(200);
    expect(await as(first, '/api-keys')).toBe(403);

    await page.getByRole('button', { name: 'I stored it' }).click();
    await eventually(() => token.count()).toBe(0);
    await row.getByLabel(/Grace/).fill('600');
    await row.getByRole('button', { name: /Rotate/ }).click();
    await eventually(() => token.count()).toBe(1);
    const second = (await token.textContent())!.trim();
    expect(second).not.toBe(first);
    expect([await as(first, '/schedules'), await as(second, '/schedules')]).toEqual([200, 200]);
    await shot('console-keys.png');
    expect((await server.api('DELETE', `/api-keys/${listed.id}`)).status).toBe(204);
  });

  it('shows the audit log: the changes made so far, filtered by action, a channel URL redacted', async () => {
    await nav('Audit log').click();
    await eventually(() => heading().textContent()).toBe('Audit log');
    const rows = page.getByTestId('audit-event');
    await eventually(() => rows.count()).toBeGreaterThan(2);
    await page.getByLabel('Action', { exact: true }).selectOption('channel.create');
    await page.getByRole('button', { name: 'Apply' }).click();
    await eventually(() => rows.count()).toBe(2);
    for (const text of await rows.allTextContents()) {
      expect(text).toContain('channel.create');
      expect(text).toContain('url: [redacted]');
    }
    expect(await page.locator('main').textContent()).not.toContain(`${receiver.url}/channel`);
    await page.getByLabel('Action', { exact: true }).selectOption('channel.delete');
    await page.getByRole('button', { name: 'Apply' }).click();
    // The list is replaced once the new page arrives (two deletes, as two creates: wait for the action).
    await eventually(async () => ((await rows.first().textContent()) ?? '').includes('channel.delete')).toBe(true);
    expect(await rows.count()).toBe(2);
    // A delete shows the channel as it was (its events as the channels' case left them), its URL redacted.
    const deleted = await rows.first().textContent();
    expect(deleted).toMatch(/events: \["execution\.failed"/);
    expect(deleted).toContain('url: [redacted]');
    await shot('console-audit.png');
  });

  it('sends a PUT with a header, a secret header and a bearer token set in the form, never showing a secret again', async () => {
    const API_KEY = 'k_live_console-secret-header-4f1c';
    const TOKEN = 'console-bearer-token-9d2e';
    receiver.respond('/inventory', { status: 200, body: 'stocked' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await page.goto(url('/schedules/new'));
    await eventually(() => heading().textContent()).toBe('New schedule');
    await page.getByLabel('Name', { exact: true }).fill('Sync inventory');
    await page.getByRole('button', { name: 'in 1 day' }).click();
    await page.getByLabel('Endpoint URL').fill(`${receiver.url}/inventory`);
    await page.getByLabel('Method').selectOption('PUT');
    await page.getByLabel('Data (JSON)').fill('{"sku": 7}');
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Header 1 name', { exact: true }).fill('X-Source');
    await page.getByLabel('Header 1 value', { exact: true }).fill('console');
    await page.getByRole('button', { name: 'Add secret header' }).click();
    await page.getByLabel('Secret header 1 name').fill('X-Api-Key');
    await page.getByLabel('Secret header 1 value').fill(API_KEY);
    expect(await page.getByLabel('Secret header 1 value').getAttribute('type')).toBe('password');
    await page.getByLabel('Authentication', { exact: true }).selectOption('bearer');
    await page.getByLabel('Token', { exact: true }).fill(TOKEN);
    await page.getByRole('button', { name: 'Create schedule' }).click();
    await page.waitForURL(/\/console\/schedules\/[0-9a-f-]{36}$/);
    const id = UUID.exec(page.url())![0];
    expect((await server.api('GET', `/schedules/${id}`)).body).toMatchObject({
      method: 'PUT',
      headers: { 'X-Source': 'console' },
      secretHeaderNames: ['X-Api-Key'],
      auth: { type: 'bearer' },
      data: { sku: 7 },
    });

    // The page shows the request with the secrets masked, and never a secret value.
    const request = page.getByTestId('request');
    await eventually(() => request.textContent()).toContain(`PUT ${receiver.url}/inventory`);
    expect(await request.textContent()).toContain('X-Source: console');
    expect(await request.textContent()).toContain('X-Api-Key: ••••••');
    expect(await request.textContent()).toContain('Authorization: Bearer ••••••');
    expect(await request.textContent()).toContain('{"sku":7}');
    const noSecret = async () => {
      const html = await page.content();
      expect(html).not.toContain(API_KEY);
      expect(html).not.toContain(TOKEN);
    };
    await noSecret();

    // Copy as curl: placeholders for the secrets, the same text as the command shown.
    await page.getByRole('button', { name: 'Copy as curl' }).click();
    await eventually(() => page.getByRole('status').first().textContent()).toContain('Copied as curl');
    const copied = (await page.evaluate('navigator.clipboard.readText()')) as string;
    expect(copied).toBe(await page.getByTestId('curl').textContent());
    expect(copied).toContain(`curl -X PUT '${receiver.url}/inventory'`);
    expect(copied).toContain(`-H 'X-Source: console'`);
    expect(copied).toContain('-H "X-Api-Key: $X_API_KEY"');
    expect(copied).toContain('-H "Authorization: Bearer $TOKEN"');
    expect(copied).toContain(`--data-binary '{"sku":7}'`);
    expect(copied).not.toContain(API_KEY);
    expect(copied).not.toContain(TOKEN);

    // Editing: the saved secrets show as set; saving other changes leaves them as they are.
    await page.getByRole('link', { name: 'Edit' }).click();
    await eventually(() => heading().textContent()).toBe('Edit schedule');
    const secrets = page.locator(`#f-secretHeaders`);
    await eventually(() => secrets.textContent()).toContain('X-Api-Key: set');
    expect(await page.getByLabel('Token', { exact: true }).inputValue()).toBe('');
    expect(await page.getByLabel('Token', { exact: true }).getAttribute('placeholder')).toBe('secret set');
    await noSecret();
    await page.getByLabel('Name', { exact: true }).fill('Sync inventory now');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await eventually(() => heading().textContent()).toContain('Sync inventory now');

    // A new signing secret, shown once; the call is signed with it.
    await page.getByRole('button', { name: 'New signing secret' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Generate' }).click();
    const signing = (await eventually(() => page.getByTestId('signing-secret').textContent()).toMatch(/^whsec_/), await page.getByTestId('signing-secret').textContent())!;
    expect(((await server.api('GET', `/schedules/${id}`)).body as { signingSecretSet: boolean }).signingSecretSet).toBe(true);

    await page.getByRole('button', { name: 'Run now' }).click();
    const arrival = (await receiver.waitFor((a) => a.some((x) => x.path === '/inventory'), 15_000), receiver.arrivals.find((x) => x.path === '/inventory')!);
    expect(arrival.method).toBe('PUT');
    expect(arrival.headers['x-source']).toBe('console');
    expect(arrival.headers['x-api-key']).toBe(API_KEY);
    expect(arrival.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(JSON.parse(arrival.body)).toEqual({ sku: 7 });
    expect(() => new Webhook(signing).verify(arrival.body, arrival.headers as Record<string, string>)).not.toThrow();

    // The attempt shows its method and URL.
    const attempt = page.locator('.execution').first().locator('table.attempts tbody tr').first();
    await eventually(() => attempt.locator('td[data-label="Request"]').textContent(), 15_000).toBe(`PUT ${receiver.url}/inventory`);
    await noSecret();
  });

  it('shows basic auth as a -u placeholder, and asks for the secret again when the auth changes', async () => {
    const job = (await server.api('POST', '/cron', {
      name: 'Basic report',
      expression: '@daily',
      endpoint: `${receiver.url}/basic`,
      method: 'GET',
      auth: { type: 'basic', username: 'reports', password: 'pw-never-shown-71' },
    })).body as { id: string };
    await page.goto(url(`/cron/${job.id}`));
    await eventually(() => page.getByTestId('request').textContent()).toContain('Authorization: Basic ••••••');
    const curl = await page.getByTestId('curl').textContent();
    expect(curl).toBe(`curl -X GET '${receiver.url}/basic' -u "reports:$PASSWORD"`);
    expect(await page.content()).not.toContain('pw-never-shown-71');

    await page.getByRole('link', { name: 'Edit' }).click();
    await eventually(() => page.getByLabel('Username').inputValue()).toBe('reports');
    await page.getByLabel('Username').fill('reports-eu');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await eventually(() => page.locator('#f-auth-password-error').textContent()).toContain('Enter the secret again');
    expect(((await server.api('GET', `/cron/${job.id}`)).body as { auth: { username: string } }).auth.username).toBe('reports');
  });

  it('lists the last day’s failures by job, and replays one execution, all of a job, and one from a job’s history', async () => {
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await server.api(method, path, body);
      expect(res.status, `${method} ${path}`).toBeLessThan(300);
      return res.body as { id: string; status: string };
    };
    const failed = (jobId: string, n: number) =>
      eventually(async () => ((await server.api('GET', `/executions?status=Failed&jobId=${jobId}`)).body as { size: number }).size, 15_000).toBe(n);
    // Two schedules failed in the overview's case: "Sync CRM" (/fail, HTTP 500) and "Old webhook"
    // (/refuse, HTTP 404). A cron job whose endpoint never answers adds two timed-out executions.
    const { schedules } = (await server.api('GET', '/schedules')).body as { schedules: Array<{ id: string; name: string }> };
    const crm = schedules.find((x) => x.name === 'Sync CRM')!;
    const hook = schedules.find((x) => x.name === 'Old webhook')!;
    await failed(crm.id, 1);
    await failed(hook.id, 1);
    receiver.respond('/warehouse/export', [{ hang: true }, { hang: true }, { status: 200 }]);
    const c = await api('POST', '/cron', {
      name: 'Export warehouse stock',
      expression: '0 0 1 1 *',
      endpoint: `${receiver.url}/warehouse/export`,
      retry: { maxAttempts: 1 },
      timeoutMs: 1_000,
    });
    await api('POST', `/cron/${c.id}/trigger`);
    await api('POST', `/cron/${c.id}/trigger`);
    await failed(c.id, 2);

    await nav('Failures').click();
    await eventually(() => heading().textContent()).toBe('Failures');
    const groups = page.getByTestId('failure-group');
    await eventually(() => groups.count()).toBe(3);
    // The groups take their jobs' names once those are read; the job with the newest failure first.
    const cron = groups.filter({ hasText: 'Export warehouse stock' });
    const schedule = groups.filter({ hasText: 'Sync CRM' });
    const gone = groups.filter({ hasText: 'Old webhook' });
    await eventually(() => cron.getByTestId('failure').count()).toBe(2);
    await eventually(() => schedule.getByTestId('failure').count()).toBe(1);
    await eventually(() => gone.getByTestId('failure').count()).toBe(1);
    expect(await groups.first().locator('h2').textContent()).toBe('Export warehouse stock');
    const cell = (group: typeof cron, label: string) => group.getByTestId('failure').first().locator(`td[data-label="${label}"]`).textContent();
    expect(await cell(cron, 'Last status code')).toBe('no answer');
    expect(await cell(cron, 'Last error')).toBe('timeout after 1000 ms');
    expect(await cell(schedule, 'Last status code')).toBe('500');
    expect(await cell(schedule, 'Last error')).toBe('HTTP 500');
    expect(await cell(gone, 'Last status code')).toBe('404');
    await shot('console-failures.png');

    // One execution: called again, attempt 2 of the same execution (the same webhook-id); its schedule then Succeeded.
    receiver.respond('/fail', { status: 200, body: 'synced' });
    await schedule.getByRole('button', { name: /^Replay the execution/ }).click();
    await eventually(() => page.getByRole('status').first().textContent()).toContain('Execution replayed: attempt 2 is due now.');
    await eventually(() => groups.count(), 15_000).toBe(2);
    await eventually(async () => (await api('GET', `/schedules/${crm.id}`)).status, 15_000).toBe('Succeeded');
    const calls = receiver.arrivals.filter((a) => a.path === '/fail');
    expect(calls.map((a) => a.headers['punctual-attempt'])).toEqual(['1', '2']);
    expect(new Set(calls.map((a) => a.headers['webhook-id'])).size).toBe(1);

    // All of a job at once.
    await cron.getByRole('button', { name: /^Replay all of this job/ }).click();
    await eventually(() => page.getByRole('status').first().textContent()).toContain('2 executions replayed.');
    await eventually(() => groups.count(), 15_000).toBe(1);
    await eventually(async () => ((await server.api('GET', `/executions?status=Succeeded&jobId=${c.id}`)).body as { size: number }).size, 15_000).toBe(2);

    // From a job's own history.
    receiver.respond('/refuse', { status: 200, body: 'moved back' });
    await page.goto(url(`/schedules/${hook.id}`));
    const execution = page.locator('.execution').first();
    await eventually(() => execution.getAttribute('data-status')).toBe('Failed');
    await execution.getByRole('button', { name: /^Replay the execution/ }).click();
    await eventually(() => execution.getAttribute('data-status'), 15_000).toBe('Succeeded');
    expect(await execution.locator('table.attempts tbody tr').count()).toBe(2);

    await nav('Failures').click();
    await eventually(() => page.getByText('No failures in the last 24 hours.').count(), 15_000).toBe(1);
    expect(pageErrors).toEqual([]);
  });

  it('lists the flow-control keys with their live state; pauses, resumes, sets limits (showing the service’s errors) and deletes one', async () => {
    // Deterministic: the key is paused before its schedule, due now, is created, so its call waits.
    expect((await server.api('PUT', '/flow-control-keys/fc-billing', { parallelism: 2, paused: true })).status).toBe(201);
    const schedule = (await server.api('POST', '/schedules', {
      name: 'Keyed call',
      scheduledAt: new Date().toISOString(),
      endpoint: `${receiver.url}/keyed`,
      flowControlKey: 'fc-billing',
    })).body as { id: string };
    const cron = (await server.api('POST', '/cron', { name: 'Keyed cron', expression: '@daily', endpoint: `${receiver.url}/keyed-cron`, flowControlKey: 'fc-named' }))
      .body as { id: string };
    const key = async (name: string) => (await server.api('GET', `/flow-control-keys/${name}`)).body as Record<string, unknown> | null;

    // The schedule's history says its execution waits, and its facts name the key.
    await page.goto(url(`/schedules/${schedule.id}`));
    await eventually(() => page.locator('.execution').first().locator('.chip').textContent()).toBe('waiting for flow control');
    await eventually(() => page.locator('.facts').first().textContent()).toContain('fc-billing');

    await nav('Flow control').click();
    await eventually(() => heading().textContent()).toBe('Flow control');
    const billing = page.locator('tr[data-flow-key="fc-billing"]');
    const named = page.locator('tr[data-flow-key="fc-named"]');
    await eventually(() => billing.locator('td[data-label="Waiting"]').textContent()).toMatch(/^1 \(oldest due /);
    expect(await billing.locator('td[data-label="State"]').textContent()).toBe('Paused');
    expect(await billing.locator('td[data-label="Limits"]').textContent()).toBe('2 at once');
    expect(await named.locator('td[data-label="State"]').textContent()).toBe('not configured');
    expect(await named.locator('td[data-label="Limits"]').textContent()).toBe('none');
    expect(await named.getByRole('button', { name: /^Pause/ }).count()).toBe(0);

    // Resume: the call goes out; pause again.
    await billing.getByRole('button', { name: 'Resume the key fc-billing' }).click();
    await eventually(async () => (await key('fc-billing'))?.paused).toBe(false);
    await eventually(() => receiver.arrivals.filter((a) => a.path === '/keyed').length).toBe(1);
    await eventually(() => billing.locator('td[data-label="Waiting"]').textContent()).toBe('0');
    await billing.getByRole('button', { name: 'Pause the key fc-billing' }).click();
    await eventually(async () => (await key('fc-billing'))?.paused).toBe(true);
    await eventually(() => billing.locator('td[data-label="State"]').textContent()).toBe('Paused');

    // Set the limits of the key only named by a job: a bad value is refused at its field, a good one saved.
    await named.getByRole('button', { name: 'Set limits of the key fc-named' }).click();
    await eventually(() => page.getByLabel('Key', { exact: true }).inputValue()).toBe('fc-named');
    await page.getByLabel('Parallelism (optional)').fill('0');
    await page.getByRole('button', { name: 'Save the limits' }).click();
    await eventually(() => page.locator('#f-parallelism-error').textContent()).toContain('must be at least 1');
    expect(await page.locator('.error-summary').textContent()).toContain('Parallelism');
    await page.getByLabel('Parallelism (optional)').fill('3');
    await page.getByLabel('Rate (optional)').fill('10');
    await page.getByLabel('Period (ms)').fill('60000');
    await page.getByRole('button', { name: 'Save the limits' }).click();
    await eventually(() => named.locator('td[data-label="Limits"]').textContent()).toBe('3 at once · 10 per 1 min');
    expect(await key('fc-named')).toMatchObject({ configured: true, parallelism: 3, rate: 10, period: 60_000, paused: false });
    expect(await named.locator('td[data-label="Rate used"]').textContent()).toBe('0 of 10');
    await shot('console-flow-control.png');

    // The attempt tells how long it waited for its key.
    await page.goto(url(`/schedules/${schedule.id}`));
    await eventually(() => page.locator('.execution').first().getAttribute('data-status')).toBe('Succeeded');
    await eventually(() => page.locator('table.attempts td[data-label="Started"]').first().textContent()).toMatch(/after waiting [\d.]+ (ms|s) for flow control$/);

    // Delete, once no job names the key: it leaves the list.
    expect((await server.api('DELETE', `/schedules/${schedule.id}`)).status).toBe(204);
    await nav('Flow control').click();
    await billing.getByRole('button', { name: 'Delete the key fc-billing' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete the key' }).click();
    await eventually(() => billing.count()).toBe(0);
    expect(await key('fc-billing')).toBeNull();

    // The cron form shows the job's key, and clears it.
    await page.goto(url(`/cron/${cron.id}/edit`));
    const field = page.getByLabel('Flow-control key (optional)');
    await eventually(() => field.inputValue()).toBe('fc-named');
    await field.fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL(/\/console\/cron\/[0-9a-f-]{36}$/);
    expect(((await server.api('GET', `/cron/${cron.id}`)).body as { flowControlKey: string | null }).flowControlKey).toBeNull();
    expect((await server.api('DELETE', `/cron/${cron.id}`)).status).toBe(204);
    expect((await server.api('DELETE', '/flow-control-keys/fc-named')).status).toBe(204);
  });

  it('labels every form control and keeps the pages free of script and CSP errors', async () => {
    for (const path of ['/schedules/new', '/cron/new', '/cron-helper', '/schedules', '/cron', '/channels', '/keys', '/failures', '/flow-control', '/audit']) {
      await page.goto(url(path));
      await page.locator('main h1').waitFor();
      const unlabelled = await page.evaluate(`[...document.querySelectorAll('input, select, textarea')]
        .filter((el) => el.type !== 'hidden' && el.labels.length === 0 && !el.getAttribute('aria-label'))
        .map((el) => el.outerHTML)`);
      expect(unlabelled, path).toEqual([]);
      expect(await page.locator('main').count()).toBe(1);
      expect(await page.locator('header nav[aria-label="Main"]').count()).toBe(1);
    }
    expect(pageErrors).toEqual([]);
  });

  it('is readable on a phone (390×844): no sideways scrolling, tables as cards', async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      locale: 'en-GB',
      timezoneId: 'Europe/Berlin',
    });
    try {
      const p = await phone.newPage();
      watchErrors(p);
      await signIn(p);
      const overflow = 'document.documentElement.scrollWidth - document.documentElement.clientWidth';
      expect(await p.evaluate(overflow)).toBe(0);
      await shot('console-phone.png', p, false);

      await nav('Schedules', p).click();
      await eventually(() => heading(p).textContent()).toBe('Schedules');
      await p.locator('table.stack').waitFor();
      expect(await p.evaluate(overflow)).toBe(0);
      // Rows are stacked cards: the header row is hidden and each cell carries its label.
      expect(await p.locator('table.stack thead').boundingBox()).toMatchObject({ width: 1 });

      await p.getByRole('link', { name: 'Say hello' }).click();
      await p.locator('.execution').first().waitFor();
      expect(await p.evaluate(overflow)).toBe(0);
      expect(pageErrors).toEqual([]);
    } finally {
      await phone.close();
    }
  });

  it('signs out, clearing the key from the tab', async () => {
    await page.goto(url('/'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await eventually(() => heading().textContent()).toBe('Sign in to Punctual');
    expect(await page.evaluate('sessionStorage.getItem("punctual.apiKey")')).toBeNull();
    await page.reload();
    expect(await heading().textContent()).toBe('Sign in to Punctual');
    expect(await page.locator('nav[aria-label="Main"]').count()).toBe(0);
  });
});
