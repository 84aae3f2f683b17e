import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumAvailable, launchChromium } from '@hindsight/testing';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, startTestApp, TENANT_KEYS, type TestApp } from '../support/app.ts';
import { type ServiceProcess, spawnService } from '../support/process.ts';

const describeWithBrowser = chromiumAvailable('console browser test') ? describe : describe.skip;

// These run inside the page (page.evaluate), where the DOM's storage globals exist.
declare const sessionStorage: { length: number; setItem(key: string, value: string): void };
declare const localStorage: { length: number };

/**
 * Screenshots for the README go to docs/console with CONSOLE_SCREENSHOTS=1 (`npm run screenshots
 * -w services/memory-api`); otherwise to a temp dir, so a test run leaves no changed file behind.
 */
const DOCS = fileURLToPath(new URL('../../docs/console/', import.meta.url));
const writeDocs = process.env.CONSOLE_SCREENSHOTS === '1';

const acme = auth('key-acme');
const queueName = `hindsight-console-${Math.random().toString(36).slice(2, 10)}`;
let t: TestApp;
let url: string;
let worker: ServiceProcess;
let browser: Browser;
let shots: string;
const ids: Record<string, string> = {};

const WAIT = { timeout: 20_000, interval: 100 };

/** The first match's text, or '' while there is none yet (so the poll, not the read, waits). */
function shownText(locator: Locator): Promise<string> {
  return (
    locator
      .first()
      // biome-ignore lint/performance/useDomNodeTextContent: Playwright's Locator.innerText, the text a person sees.
      .innerText({ timeout: 1000 })
      .catch(() => '')
  );
}

/** The first match's text contains `expected` (or matches it), once the page settles. */
async function seeText(locator: Locator, expected: string | RegExp) {
  const read = () => shownText(locator);
  if (typeof expected === 'string') await expect.poll(read, WAIT).toContain(expected);
  else await expect.poll(read, WAIT).toMatch(expected);
}

async function seeExact(locator: Locator, expected: string | RegExp) {
  const read = async () => (await shownText(locator)).trim();
  if (typeof expected === 'string') await expect.poll(read, WAIT).toBe(expected);
  else await expect.poll(read, WAIT).toMatch(expected);
}

async function seeVisible(locator: Locator) {
  await locator.first().waitFor({ state: 'visible', timeout: WAIT.timeout });
}

async function seeCount(locator: Locator, count: number) {
  await expect.poll(() => locator.count(), WAIT).toBe(count);
}

async function seeAttr(locator: Locator, name: string, value: string, options: { timeout?: number } = {}) {
  await expect.poll(() => locator.first().getAttribute(name), { ...WAIT, ...options }).toBe(value);
}

/** Two turns of a session in which the user tells of a shellfish allergy (working memory, not yet consolidated). */
async function tellShellfishAllergy(userId: string, sessionId: string): Promise<void> {
  const turns = await t.app.inject({
    method: 'POST',
    url: `/v1/sessions/${sessionId}/turns`,
    headers: acme,
    payload: {
      turns: [
        { user_id: userId, role: 'user', content: 'I am allergic to shellfish, please remember that.' },
        { user_id: userId, role: 'assistant', content: 'Noted: no shellfish.' },
      ],
    },
  });
  expect(turns.statusCode).toBe(201);
}

async function store(body: object, headers = acme): Promise<{ id: string; status: string }> {
  const response = await t.app.inject({ method: 'POST', url: '/v1/memories', headers, payload: body });
  expect(response.statusCode, response.body).toBeLessThan(300);
  return response.json();
}

async function newPage(viewport = { width: 1280, height: 900 }): Promise<Page> {
  const context = await browser.newContext({ viewport, colorScheme: 'light' });
  const page = await context.newPage();
  page.on('pageerror', (error) => {
    throw error;
  });
  return page;
}

async function logIn(page: Page, key: string, tenant?: string) {
  await page.goto(`${url}/console/`);
  await page.getByLabel('API key').fill(key);
  if (tenant) await page.getByLabel(/^Tenant/).fill(tenant);
  await page.getByRole('button', { name: 'Open the console' }).click();
}

async function shot(page: Page, name: string) {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

async function search(page: Page, query: string) {
  await page.getByRole('link', { name: 'Search' }).click();
  await page.getByLabel('Query').fill(query);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.locator('.answer').waitFor();
}

describeWithBrowser(
  'the memory console at /console, in headless Chromium against a real memory-api',
  { timeout: 90_000 },
  () => {
    beforeAll(async () => {
      shots = writeDocs ? DOCS : await mkdtemp(join(tmpdir(), 'hindsight-console-'));
      await mkdir(shots, { recursive: true });
      t = await startTestApp({
        ...TENANT_KEYS,
        QUEUE_NAME: queueName,
        SESSION_IDLE_SECONDS: '0',
        JOB_BACKOFF_MS: '200',
      });
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const address = t.app.server.address();
      url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      worker = await spawnService('consolidation-worker', {
        MEMORY_API_URL: url,
        MEMORY_API_KEY: TENANT_KEYS.ADMIN_API_KEY,
        REDIS_PREFIX: t.redisPrefix,
        QUEUE_NAME: queueName,
        SCHEDULES_ENABLED: 'false',
        SUMMARY_DELAY_MS: '0',
        ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
      });

      await store({ content: 'Maria is allergic to peanuts', memory_type: 'fact', user_id: 'maria' });
      await store({ content: 'Maria works as a nurse in Lisbon', memory_type: 'fact', user_id: 'maria' });
      await store({ content: 'Maria prefers short answers', memory_type: 'preference', user_id: 'maria' });
      ids.coffee = (await store({ content: 'Maria likes coffee', memory_type: 'preference', user_id: 'maria' })).id;
      const quit = await store({ content: 'Maria has quit coffee', memory_type: 'preference', user_id: 'maria' });
      expect(quit.status).toBe('superseded');
      ids.quit = quit.id;
      await store({
        content: 'Maria asked for a vegetarian restaurant in Porto',
        memory_type: 'episodic',
        user_id: 'maria',
        occurred_at: new Date(Date.now() - 86_400_000).toISOString(),
      });
      await store({ content: 'Tom likes hiking', memory_type: 'preference', user_id: 'tom' });
      await store(
        { content: 'Gus of globex likes opera', memory_type: 'preference', user_id: 'gus' },
        auth('key-globex'),
      );
      await tellShellfishAllergy('maria', 'maria-s1');

      browser = await launchChromium();
    }, 120_000);
    afterAll(async () => {
      await browser?.close();
      await worker?.stop('SIGTERM');
      await t?.close();
      if (shots && !writeDocs) await rm(shots, { recursive: true, force: true });
    });

    it('shows the key prompt again for a wrong key, with the API’s message', async () => {
      const page = await newPage();
      await logIn(page, 'not-a-key');
      await seeText(page.getByRole('alert'), /^The API refused the key: missing or invalid API key/);
      await seeCount(page.getByRole('alert'), 1);
      await seeVisible(page.getByLabel('API key'));
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
      await shot(page, 'login');
      await page.context().close();
    });

    it('lists the tenant’s users with counts per layer; search finds the expected memory first with its score parts and context', async () => {
      const page = await newPage();
      await logIn(page, 'key-acme');
      await seeExact(page.getByTestId('tenant'), 'acme');
      const maria = page.locator('tr[data-user="maria"]');
      await seeVisible(maria);
      // working 2 turns, episodic 1, semantic 4 active (the coffee preference is superseded), 1 inactive, 1 session
      await expect
        .poll(() => maria.locator('td').allInnerTexts())
        .toEqual(['2', '1', '4', '1', '1', expect.stringMatching(/^\d{4}-/)]);
      await seeCount(page.locator('tr[data-user="gus"]'), 0);
      expect(page.url()).not.toContain('key-acme');
      expect(await page.evaluate(() => localStorage.length)).toBe(0);
      await maria.getByRole('button', { name: 'maria' }).click();
      await seeExact(page.getByTestId('current-user'), 'maria');
      await shot(page, 'users');

      await search(page, 'does maria have any food allergy?');
      const first = page.locator('.result').first();
      await seeExact(first.locator('.content'), 'Maria is allergic to peanuts');
      await seeText(first.locator('.scores'), /similarity.*keyword.*recency.*confidence/s);
      await seeText(first.locator('.provenance'), 'source: api');
      await seeText(page.getByTestId('context'), /^\[\d{4}-\d{2}-\d{2}\] fact: Maria is allergic to peanuts/);
      await seeExact(page.getByTestId('context-tokens'), /^[1-9]\d* tokens$/);
      await seeExact(page.getByTestId('context-truncated'), 'no');
      await shot(page, 'search');

      // A tiny budget cuts the context, and the console says so.
      await page.getByText('Filters and options').click();
      await page.getByLabel('Token budget').fill('12');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await seeExact(page.getByTestId('context-truncated'), 'yes');
      // The API's validation message, as it gave it.
      await page.getByLabel('Top k').fill('100000');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await seeText(page.getByRole('alert'), /422 validation_failed.*top_k/);

      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByLabel('Top k').fill('10');
      await page.getByLabel('Token budget').fill('2048');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await seeExact(page.locator('.result').first().locator('.content'), 'Maria is allergic to peanuts');
      await shot(page, 'search-phone');
      await page.context().close();
    });

    it('opens a memory’s history after a supersede, with the reason, and shows the API’s validation message on a bad edit', async () => {
      const page = await newPage();
      await logIn(page, 'key-acme');
      await page.locator('tr[data-user="maria"]').getByRole('button', { name: 'maria' }).click();
      await search(page, 'does maria drink coffee?');
      const hit = page.locator('.result', { hasText: 'Maria has quit coffee' });
      await hit.getByRole('link', { name: 'History and edit' }).click();
      const superseded = page.locator('table.history tr[data-action="superseded"]');
      await seeText(superseded, 'Maria likes coffee');
      await seeText(superseded, /rule:|judge:/);
      await superseded.getByRole('link').click();
      await seeExact(page.locator('.memory .content'), 'Maria likes coffee');
      await seeText(page.locator('.memory .meta'), 'superseded');
      await page.getByRole('link', { name: ids.quit as string }).click();
      await seeExact(page.locator('.memory .content'), 'Maria has quit coffee');

      await page.getByRole('button', { name: 'Edit' }).click();
      await page.getByLabel('Confidence').fill('2');
      await page.getByRole('button', { name: 'Save' }).click();
      await seeText(page.getByRole('alert'), /422.*confidence/);
      await page.getByLabel('Content').fill('Maria has quit coffee, she drinks tea now');
      await page.getByLabel('Confidence').fill('0.8');
      await page.getByRole('button', { name: 'Save' }).click();
      await seeText(page.locator('.fields'), '0.80');
      await seeCount(page.locator('table.history tr[data-action="updated"]'), 1);
      await shot(page, 'memory-history');

      await page.getByRole('link', { name: 'Facts' }).click();
      await seeVisible(page.locator('article.category h3').first());
      await seeText(page.locator('.facts').first(), 'Maria is allergic to peanuts');
      await shot(page, 'facts');
      await page.context().close();
    });

    it('forgets with a preview first, and the memory is gone from search', async () => {
      // A user of its own: what it forgets no other test looks for.
      const kiwi = await store({ content: 'Rita is allergic to kiwi', memory_type: 'fact', user_id: 'rita' });
      const page = await newPage();
      await logIn(page, 'key-acme');
      await page.locator('tr[data-user="rita"]').getByRole('button', { name: 'rita' }).click();
      await search(page, 'does rita have any food allergy?');
      await page
        .locator('.result', { hasText: 'Rita is allergic to kiwi' })
        .getByRole('link', { name: 'Forget…' })
        .click();
      await page.getByRole('button', { name: 'Preview what would be forgotten' }).click();
      const preview = page.getByTestId('forget-preview');
      await seeText(preview, '1 memory would be forgotten');
      await seeText(preview, 'Rita is allergic to kiwi');
      await shot(page, 'forget');
      // The dry run changed nothing.
      expect((await t.app.inject({ method: 'GET', url: `/v1/memories/${kiwi.id}`, headers: acme })).statusCode).toBe(
        200,
      );
      await preview.getByRole('button', { name: /Forget 1 memory for good/ }).click();
      await seeExact(page.getByTestId('forgotten'), 'Forgot 1 memory.');
      expect((await t.app.inject({ method: 'GET', url: `/v1/memories/${kiwi.id}`, headers: acme })).statusCode).toBe(
        404,
      );

      await search(page, 'does rita have any food allergy?');
      await seeCount(page.locator('.result', { hasText: 'Rita is allergic to kiwi' }), 0);

      // Erase a user: the receipt is shown.
      await page.getByRole('link', { name: 'Forget', exact: true }).click();
      await page.getByLabel('User id').fill('tom');
      await page.getByLabel('Type it again').fill('tom');
      await page.getByRole('button', { name: 'Erase user' }).click();
      await seeText(page.getByTestId('erase-receipt'), '"user_id": "tom"');
      await page.context().close();
    });

    it('ends a session and shows the consolidation job’s result; the timeline shows its summary', async () => {
      // A user and session of its own: consolidating them changes nothing another test counts.
      await store({
        content: 'Sofia asked for a vegetarian restaurant in Porto',
        memory_type: 'episodic',
        user_id: 'sofia',
        occurred_at: new Date(Date.now() - 86_400_000).toISOString(),
      });
      await tellShellfishAllergy('sofia', 'sofia-s1');
      const page = await newPage();
      await logIn(page, 'key-acme');
      await page.locator('tr[data-user="sofia"]').getByRole('button', { name: 'sofia' }).click();
      await page.getByRole('link', { name: 'Sessions' }).click();
      await page.getByRole('link', { name: 'sofia-s1' }).click();
      await seeCount(page.locator('.turns li'), 2);
      await page.getByRole('button', { name: 'End session' }).click();
      const job = page.getByTestId('job');
      await seeAttr(job, 'data-state', 'completed', { timeout: 60_000 });
      await seeExact(job.locator('[data-count="created"]'), /^[1-9]\d*$/);
      await seeExact(job.locator('[data-count="turns"]'), '2');
      // Consolidated: the session's working memory was cleared, and the page shows it.
      await seeCount(page.locator('.turns li'), 0);
      await shot(page, 'sessions');

      await page.getByRole('link', { name: 'Timeline' }).click();
      const group = page.locator('.session-group[data-session="sofia-s1"]');
      await seeText(group.locator('.summary'), 'Consolidation summary');
      await seeVisible(page.locator('.session-group', { hasText: 'vegetarian restaurant in Porto' }));
      await shot(page, 'timeline');

      await search(page, 'is she allergic to shellfish?');
      await seeText(page.locator('.result').first().locator('.content'), /shellfish/i);
      await page.context().close();
    });

    it('shows stats: memories per day, retrieval latency, and /debug/memory for the admin key', async () => {
      // A search of its own to time, whichever tests searched before.
      const searched = await t.app.inject({
        method: 'POST',
        url: '/v1/search',
        headers: acme,
        payload: { query: 'what does maria prefer?', user_id: 'maria' },
      });
      expect(searched.statusCode).toBe(200);
      const page = await newPage();
      await logIn(page, 'key-acme');
      await page.locator('tr[data-user="maria"]').getByRole('button', { name: 'maria' }).click();
      await page.getByRole('link', { name: 'Stats' }).click();
      await seeText(page.getByTestId('latency-summary'), /[1-9]\d* searches/);
      await seeCount(page.locator('.chart'), 2);
      await seeVisible(page.getByText('Only the admin key sees /debug/memory'));
      await page.getByRole('button', { name: 'Log out' }).click();

      await logIn(page, TENANT_KEYS.ADMIN_API_KEY, 'acme');
      await seeVisible(page.getByText('admin', { exact: true }));
      await page.locator('tr[data-user="maria"]').getByRole('button', { name: 'maria' }).click();
      await page.getByRole('link', { name: 'Stats' }).click();
      await seeText(page.getByTestId('debug-memory'), 'semantic');
      await shot(page, 'stats');
      await page.getByRole('link', { name: 'Sessions' }).click();
      await seeAttr(page.getByRole('link', { name: /admin\/queues/ }), 'href', '/admin/queues');
      await page.context().close();
    });

    it('sends a person whose key stops working back to the key prompt', async () => {
      const page = await newPage();
      await logIn(page, 'key-acme');
      await seeExact(page.getByTestId('tenant'), 'acme');
      await page.evaluate(() =>
        sessionStorage.setItem('hindsight-console:credentials', JSON.stringify({ key: 'revoked-key' })),
      );
      await page.reload();
      await seeVisible(page.getByLabel('API key'));
      await seeText(page.getByRole('alert'), /^The API refused the key: missing or invalid API key/);
      await page.context().close();
    });

    it('works from the keyboard alone: log in, move between pages, search', async () => {
      const page = await newPage();
      await page.goto(`${url}/console/`);
      const focused = () =>
        page.evaluate(() => {
          const active = (
            globalThis as unknown as { document: { activeElement: { textContent: string | null; id: string } } }
          ).document.activeElement;
          return { text: active.textContent?.trim(), id: active.id };
        });
      await expect.poll(async () => (await focused()).id, WAIT).toBe('key'); // the prompt focuses the key field
      await page.keyboard.type('key-acme');
      await page.keyboard.press('Enter');
      await seeExact(page.getByTestId('tenant'), 'acme');
      // The page took the focus after logging in; Tab on through the page and round to the navigation.
      for (let i = 0; i < 40 && (await focused()).text !== 'Search'; i++) await page.keyboard.press('Tab');
      expect((await focused()).text).toBe('Search');
      await page.keyboard.press('Enter');
      // The new page takes the focus once it is shown; the next Tab reaches its first field.
      await expect.poll(async () => (await focused()).id, WAIT).toBe('main');
      await page.keyboard.press('Tab');
      expect((await focused()).id).toBe('search-query');
      await page.keyboard.type('does maria drink coffee?');
      await page.keyboard.press('Tab');
      await page.keyboard.type('maria'); // the user field
      await page.keyboard.press('Enter');
      await seeText(page.locator('.results'), /coffee/);
      await page.context().close();
    });

    it('shows another tenant’s key none of it', async () => {
      const page = await newPage();
      await logIn(page, 'key-globex');
      await seeExact(page.getByTestId('tenant'), 'globex');
      await seeVisible(page.locator('tr[data-user="gus"]'));
      await seeCount(page.locator('tr[data-user="maria"]'), 0);
      await page.getByLabel(/Open a user by id/).fill('maria');
      await page.getByRole('button', { name: 'Open', exact: true }).click();
      await page.getByLabel('Query').fill('maria coffee allergy shellfish');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await seeText(page.locator('.answer'), '0 results');
      await page.getByRole('link', { name: 'Facts' }).click();
      await seeVisible(page.getByText('No active semantic memories.'));
      await page.getByRole('link', { name: 'Sessions' }).click();
      await seeVisible(page.getByText('No open sessions.'));
      await page.goto(`${url}/console/#/memory/${ids.quit}`);
      await seeText(page.getByRole('alert'), '404');
      await page.context().close();
    });
  },
);
