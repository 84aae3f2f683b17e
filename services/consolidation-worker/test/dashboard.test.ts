import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromiumAvailable, launchChromium } from '@hindsight/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEYS, type Stack, startStack } from './support/stack.ts';

const describeWithBrowser = chromiumAvailable('dashboard test') ? describe : describe.skip;

let stack: Stack;
let jobId: string;
let screenshots: string;

describeWithBrowser('BullMQ dashboard at /admin/queues in headless Chromium', () => {
  beforeAll(async () => {
    screenshots = await mkdtemp(join(tmpdir(), 'hindsight-dashboard-'));
    stack = await startStack();
    await stack.client.appendTurns('dash-session', [
      { user_id: 'dash-user', role: 'user', content: "I'm allergic to shellfish." },
      { user_id: 'dash-user', role: 'assistant', content: 'Noted.' },
    ]);
    jobId = (await stack.client.endSession('dash-session', 'dash-user')).job_id;
    await stack.waitForJob(jobId, ['completed']);
  });
  afterAll(async () => {
    await stack?.close();
    if (screenshots) await rm(screenshots, { recursive: true, force: true });
  });

  it('answers 401 without the admin key and 403 with a tenant key', async () => {
    const anonymous = await fetch(`${stack.url}/admin/queues`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect((await fetch(`${stack.url}/admin/queues/api/queues`)).status).toBe(401);
    const tenant = await fetch(`${stack.url}/admin/queues`, { headers: { authorization: 'Bearer key-acme' } });
    expect(tenant.status).toBe(403);
  });

  it('shows the completed consolidation job', async () => {
    const browser = await launchChromium();
    try {
      // A browser sends the key as Basic credentials after the challenge; the test sets them up front.
      const context = await browser.newContext({
        httpCredentials: { username: 'admin', password: KEYS.ADMIN_API_KEY },
      });
      const page = await context.newPage();
      const response = await page.goto(`${stack.url}/admin/queues/queue/${stack.queueName}?status=completed`, {
        timeout: 30_000,
      });
      expect(response?.status()).toBe(200);
      await page.getByText(jobId).first().waitFor({ timeout: 30_000 });
      const text = await page.locator('body').textContent();
      expect(text).toContain(stack.queueName);
      expect(text).toMatch(/consolidate/);
      expect(text).toMatch(/completed/i);
      await page.screenshot({ path: join(screenshots, 'completed.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  });
});
