import { afterEach, describe, expect, it } from 'vitest';
import { loadMemoryApiConfig } from '../../src/config.ts';
import { auth, startTestApp, TENANT_KEYS, type TestApp } from '../support/app.ts';

describe('rate limit per API key', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('does not throttle one busy application (one key, many users) at the default limit', async () => {
    // The test app turns the limit off; put the shipped default back.
    const shipped = loadMemoryApiConfig({}).RATE_LIMIT_PER_MINUTE;
    expect(shipped).toBeGreaterThan(0);
    t = await startTestApp({ ...TENANT_KEYS, RATE_LIMIT_PER_MINUTE: String(shipped) });
    const app = t.app;
    // 7,000 requests within the minute from 32 concurrent "clients" of one key: the old default (6,000) refused most.
    const statuses = new Map<number, number>();
    const requests = Array.from({ length: 7000 }, (_, i) => i);
    for (let start = 0; start < requests.length; start += 32) {
      const answers = await Promise.all(
        requests.slice(start, start + 32).map((i) =>
          app.inject({
            method: 'POST',
            url: '/retrieve',
            headers: auth('key-acme'),
            payload: { query: 'what does the user like?', user_id: `user-${i % 200}` },
          }),
        ),
      );
      for (const answer of answers) statuses.set(answer.statusCode, (statuses.get(answer.statusCode) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: 7000 });
  }, 120_000);

  it('answers 429 in the error envelope with Retry-After past a configured limit, per key, probes exempt', async () => {
    t = await startTestApp({ ...TENANT_KEYS, RATE_LIMIT_PER_MINUTE: '5' });
    const call = (key: string) =>
      (t as TestApp).app.inject({
        method: 'POST',
        url: '/retrieve',
        headers: auth(key),
        payload: { query: 'anything' },
      });
    for (let i = 0; i < 5; i++) expect((await call('key-acme')).statusCode).toBe(200);
    const refused = await call('key-acme');
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    // Another key has its own budget; health probes are never counted.
    expect((await call('key-globex')).statusCode).toBe(200);
    for (let i = 0; i < 10; i++) {
      expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    }
  });
});
