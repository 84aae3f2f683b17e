import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, startTestApp, TENANT_KEYS, type TestApp } from '../support/app.ts';

/** One request with the path sent byte for byte as given (fetch would normalise `/./` and more). */
function rawRequest(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error(`timed out: ${method} ${path}`)));
    req.end(body);
  });
}

/** Spellings of the admin and debug paths the router still resolves, or that a prefix check would miss. */
const ADMIN_READS = [
  '/%61dmin/queues/api/queues?activeQueue=hindsight&status=completed',
  '/adm%69n/queues/api/queues?activeQueue=hindsight&status=completed',
  '/%41dmin/queues/api/queues',
  '/%2561dmin/queues/api/queues',
  '//admin/queues/api/queues',
  '/./admin/queues/api/queues',
  '/admin/queues/api/queues/',
  '/ADMIN/queues/api/queues',
  '/Admin/queues/api/queues',
  '/%61%64%6d%69%6e/queues/api/queues',
  '/admin%2fqueues/api/queues',
  '/%64ebug/memory?tenant=acme',
  '/debu%67/memory',
  '/debug/memory/',
  '//debug/memory',
  '/DEBUG/memory',
  '/debug/memory?tenant=acme&',
  '/debug;x/memory',
];

let t: TestApp;
let port: number;

beforeAll(async () => {
  t = await startTestApp(TENANT_KEYS);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
}, 60_000);
afterAll(async () => {
  await t?.close();
});

describe('admin and debug routes are decided on the route the router matched', () => {
  const tenant = auth('key-globex');

  it.each(ADMIN_READS)('refuses a tenant key at %s', async (path) => {
    const response = await rawRequest(port, 'GET', path, tenant);
    expect([401, 403, 404]).toContain(response.status);
    expect(response.body).not.toMatch(/"queues"|"layers"|"total"/);
  });

  it.each(ADMIN_READS)('refuses a request without a key at %s', async (path) => {
    const response = await rawRequest(port, 'GET', path);
    expect([401, 403, 404]).toContain(response.status);
  });

  it('still serves the admin key on an encoded spelling the router resolves', async () => {
    const encoded = await rawRequest(port, 'GET', '/%64ebug/memory', auth('key-admin'));
    expect(encoded.status).toBe(200);
    expect(JSON.parse(encoded.body)).toHaveProperty('total');
    const board = await rawRequest(port, 'GET', '/%61dmin/queues/api/queues', auth('key-admin'));
    expect(board.status).toBe(200);
  });

  it('does not let a tenant key pause the queue or add a job through an encoded path', async () => {
    const queue = t.deps.dashboardQueues[0]!;
    for (const path of [
      `/%61dmin/queues/api/queues/${encodeURIComponent(queue.name)}/pause`,
      `/adm%69n/queues/api/queues/${encodeURIComponent(queue.name)}/pause`,
    ]) {
      const paused = await rawRequest(port, 'PUT', path, tenant);
      expect([401, 403, 404]).toContain(paused.status);
    }
    const added = await rawRequest(
      port,
      'POST',
      `/%61dmin/queues/api/queues/${encodeURIComponent(queue.name)}/add`,
      { ...tenant, 'content-type': 'application/json' },
      JSON.stringify({ name: 'consolidate', data: { tenant: 'acme', session_id: 's1', user_id: 'u1' } }),
    );
    expect([401, 403, 404]).toContain(added.status);
    expect(await queue.isPaused()).toBe(false);
    expect(await queue.getJobCounts()).toEqual(expect.objectContaining({ waiting: 0, delayed: 0, active: 0 }));
  });

  it('keeps /health and /ready public and the API documentation behind a key', async () => {
    expect((await rawRequest(port, 'GET', '/health')).status).toBe(200);
    expect((await rawRequest(port, 'GET', '/ready?verbose=1')).status).toBe(200);
    const anonymousDocs = await rawRequest(port, 'GET', '/docs/json');
    expect(anonymousDocs.status).toBe(401);
    expect((await rawRequest(port, 'GET', '/%64ocs/json')).status).toBe(401);
    expect((await rawRequest(port, 'GET', '/docs/json', tenant)).status).toBe(200);
  });

  it('answers 401 to an unmatched path without a key, not a public 404', async () => {
    expect((await rawRequest(port, 'GET', '/no/such/route')).status).toBe(401);
    expect((await rawRequest(port, 'GET', '/no/such/route', tenant)).status).toBe(404);
  });
});

/**
 * Spellings of a path: half of them ones the router still resolves to the same route (some
 * characters percent-encoded, upper or lower hex — what fooled the raw-URL check), the others
 * anything else a client may send (the other case, double encoding, doubled slashes, `.`
 * segments, trailing slash, parameter or query). Seeded, so a failure replays.
 */
function spellings(path: string, count: number, seed: number): string[] {
  const hexOf = (c: string) => c.charCodeAt(0).toString(16).padStart(2, '0');
  const resolvable = (c: string): fc.Arbitrary<string> =>
    c === '/'
      ? fc.constant('/')
      : fc.oneof(
          { weight: 4, arbitrary: fc.constant(c) },
          { weight: 1, arbitrary: fc.constantFrom(`%${hexOf(c).toUpperCase()}`, `%${hexOf(c)}`) },
        );
  const wild = (c: string): fc.Arbitrary<string> =>
    c === '/'
      ? fc.constantFrom('/', '/', '/', '//', '/./')
      : fc.constantFrom(c, c, c.toUpperCase(), `%${hexOf(c).toUpperCase()}`, `%${hexOf(c)}`, `%25${hexOf(c)}`);
  const spelled = (character: (c: string) => fc.Arbitrary<string>, suffix: fc.Arbitrary<string>) =>
    fc.tuple(fc.tuple(...[...path].map(character)), suffix).map(([chars, end]) => `${chars.join('')}${end}`);
  return fc.sample(
    fc.oneof(
      spelled(resolvable, fc.constantFrom('', '', '?x=1')),
      spelled(wild, fc.constantFrom('', '', '/', '?x=1', ';x', '%2f', '#')),
    ),
    { seed, numRuns: count },
  );
}

describe('generated spellings of every admin and debug route', () => {
  const ROUTES: Array<[method: string, path: string]> = [
    ['GET', '/admin/queues/api/queues'],
    ['GET', '/admin/queues/api/redis/stats'],
    ['PUT', '/admin/queues/api/queues/hindsight/pause'],
    ['POST', '/admin/maintenance/decay'],
    ['GET', '/debug/memory'],
  ];

  it.each(ROUTES)('%s %s: no spelling lets a tenant key or no key in', async (method, path) => {
    const refused: string[] = [];
    for (const [index, spelled] of spellings(path, 60, 20_251_201 + path.length).entries()) {
      for (const headers of [auth('key-globex'), {}]) {
        const response = await rawRequest(port, method, spelled, headers, method === 'GET' ? undefined : '{}');
        if (
          ![400, 401, 403, 404].includes(response.status) ||
          /"queues"|"layers"|"total"|"archived"/.test(response.body)
        ) {
          refused.push(`#${index} ${method} ${spelled} → ${response.status} ${response.body.slice(0, 120)}`);
        }
      }
    }
    expect(refused).toEqual([]);
    expect(await t.deps.dashboardQueues[0]!.isPaused()).toBe(false);
  });

  it('answers a path that is not percent-encoded UTF-8 in the error envelope', async () => {
    for (const path of ['/%C0%AFadmin/queues', '/v1/memories/%ED%A0%80', '/v1/memories/%zz', '/debug/%FF']) {
      const response = await rawRequest(port, 'GET', path, auth('key-globex'));
      expect(response.status, path).toBe(400);
      expect(JSON.parse(response.body), path).toEqual({
        error: { code: 'bad_request', message: expect.stringMatching(/percent-encoded UTF-8/) },
      });
    }
  });

  it('accepts the path ids the schemas accept (up to 128 characters) and refuses longer ones with 422', async () => {
    const id128 = 'i'.repeat(128);
    const found = await rawRequest(port, 'GET', `/v1/memories/${id128}`, auth('key-globex'));
    expect(found.status).toBe(404);
    const tooLong = await rawRequest(port, 'GET', `/v1/memories/${id128}x`, auth('key-globex'));
    expect(tooLong.status).toBe(422);
    expect(JSON.parse(tooLong.body).error.code).toBe('validation_failed');
  });
});
