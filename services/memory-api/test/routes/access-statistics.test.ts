import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { auth, startTestApp, TENANT_KEYS, type TestApp } from '../support/app.ts';

let t: TestApp;
const acme = auth('key-acme');

beforeAll(async () => {
  t = await startTestApp({ ...TENANT_KEYS, ERASE_JOB_WAIT_MS: '2000' });
});
afterAll(async () => {
  await t.close();
});

async function call(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) {
  const response = await t.app.inject({ method, url, headers: acme, ...(payload ? { payload } : {}) });
  return { status: response.statusCode, body: response.json() };
}

async function retrieveFirst(query: string, userId: string): Promise<string> {
  const { body } = await call('POST', '/retrieve', { query, user_id: userId });
  return body.results[0].id;
}

/** The access statistics rows in the store's file, read beside the running service. */
function accessRows(): number {
  const db = new Database(join(t.dataDir, 'memory.db'), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM memory_access').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

async function accessCountReaches(id: string, count: number): Promise<Record<string, unknown>> {
  return vi.waitFor(
    async () => {
      const { body } = await call('GET', `/v1/memories/${id}`);
      expect(body.access_count).toBe(count);
      return body;
    },
    { timeout: 5000, interval: 50 },
  );
}

describe('access statistics', () => {
  it('keeps counting across an edit of the memory, and the edit keeps what was counted', async () => {
    const { body } = await call('POST', '/store', {
      content: 'The user restores old sailing boats',
      memory_type: 'fact',
      user_id: 'sailor',
    });
    expect(await retrieveFirst('sailing boats', 'sailor')).toBe(body.id);
    expect(await retrieveFirst('sailing boats', 'sailor')).toBe(body.id);
    const counted = await accessCountReaches(body.id, 2);
    expect(counted.last_accessed_at).not.toBeNull();

    const edited = await call('PATCH', `/v1/memories/${body.id}`, {
      content: 'The user restores old wooden sailing boats',
    });
    expect(edited.status).toBe(200);
    expect(edited.body.access_count).toBe(2);
    expect((await call('GET', '/v1/memories?user_id=sailor')).body.items[0].access_count).toBe(2);

    expect(await retrieveFirst('wooden sailing boats', 'sailor')).toBe(body.id);
    await accessCountReaches(body.id, 3);
  });

  it('leaves no statistics behind a forgotten memory or an erased user', async () => {
    const { body } = await call('POST', '/store', {
      content: 'The user grows chillies on the balcony',
      memory_type: 'fact',
      user_id: 'grower',
    });
    expect(await retrieveFirst('chillies balcony', 'grower')).toBe(body.id);
    await accessCountReaches(body.id, 1);
    const before = accessRows();
    expect((await call('DELETE', `/v1/memories/${body.id}`)).status).toBe(200);
    expect(accessRows()).toBe(before - 1);

    expect(await retrieveFirst('sailing boats', 'sailor')).toBeDefined();
    expect(accessRows()).toBeGreaterThan(0);
    const erased = await call('DELETE', '/v1/users/sailor');
    expect(erased.body).toMatchObject({ status: 'completed', memories: 1 });
    expect(accessRows()).toBe(0);
  });
});
