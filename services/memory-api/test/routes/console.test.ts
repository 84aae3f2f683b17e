import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, startTestApp, TENANT_KEYS, type TestApp } from '../support/app.ts';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp(TENANT_KEYS);
});
afterAll(async () => {
  await t.close();
});

describe('GET /console', () => {
  it('serves the page and its bundle without a key (they hold no data), same-origin only', async () => {
    const redirect = await t.app.inject({ method: 'GET', url: '/console' });
    expect(redirect.statusCode).toBe(308);
    expect(redirect.headers.location).toBe('/console/');

    const page = await t.app.inject({ method: 'GET', url: '/console/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const scriptUrl = /src="(console\.js\?v=[^"]+)"/.exec(page.body)?.[1];
    const styleUrl = /href="(console\.css\?v=[^"]+)"/.exec(page.body)?.[1];
    expect(scriptUrl).toBeDefined();
    expect(styleUrl).toBeDefined();
    // Everything comes from this server: no CDN, works offline.
    expect(page.body).not.toMatch(/https?:\/\//);

    const script = await t.app.inject({ method: 'GET', url: `/console/${scriptUrl}` });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    expect(script.body).toContain('/v1/whoami');
    expect(script.body).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
    const style = await t.app.inject({ method: 'GET', url: `/console/${styleUrl}` });
    expect(style.statusCode).toBe(200);
    expect(style.headers['content-type']).toMatch(/^text\/css/);
  });

  it('answers 304 to a matching ETag', async () => {
    const first = await t.app.inject({ method: 'GET', url: '/console/console.js' });
    const etag = String(first.headers.etag);
    const again = await t.app.inject({ method: 'GET', url: '/console/console.js', headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('keeps the data behind the key: the console’s API calls answer 401 without one', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/v1/users' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/v1/whoami', headers: auth('wrong') })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/console/anything-else' })).statusCode).toBe(401);
  });
});
