import { type MemoryApiProcess, type PgliteServer, spawnMemoryApi, startPgliteServer } from '@hindsight/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRecords, rest } from '../support/rest.ts';

const KEY = 'move-key';
const SERVICE_ENV = { API_KEYS: `acme:${KEY}`, ADMIN_API_KEY: 'move-admin' };

const call = <T>(url: string, method: string, path: string, body?: unknown, type?: string): Promise<T> =>
  rest<T>(url, method, path, { key: KEY, body, ...(type ? { type } : {}) });

describe('moving a deployment from SQLite to PostgreSQL by export and import (real processes)', () => {
  let database: PgliteServer;
  let sqlite: MemoryApiProcess;
  let postgres: MemoryApiProcess;

  beforeAll(async () => {
    database = await startPgliteServer();
    [sqlite, postgres] = await Promise.all([
      spawnMemoryApi({ env: SERVICE_ENV }),
      spawnMemoryApi({ env: { ...SERVICE_ENV, VECTOR_STORE: 'postgres', DATABASE_URL: database.url } }),
    ]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([sqlite?.stop(), postgres?.stop()]);
    await database?.stop();
  });

  it('keeps every id, history entry, status and timestamp, and the copy answers searches', async () => {
    const url = sqlite.url;
    await call(url, 'POST', '/v1/memories', {
      items: [
        {
          content: 'Met Priya at the climbing gym',
          user_id: 'u-a',
          occurred_at: '2023-04-01T10:00:00.123Z',
          metadata: { dia_id: 'D1:1', nested: { a: [1, null, 'два'] }, zh: '攀岩' },
          tags: ['social', 'sport'],
        },
        { content: 'Flight to Oslo is on May 3rd', user_id: 'u-a', memory_type: 'commitment', session_id: 's-1' },
        { content: '用户每天早上喝绿茶', user_id: 'u-b', memory_type: 'preference', confidence: 0.6 },
      ],
    });
    await call(url, 'POST', '/store', { content: 'The user likes coffee', memory_type: 'preference', user_id: 'u-a' });
    const superseding = await call<{ status: string }>(url, 'POST', '/store', {
      content: 'The user has quit coffee',
      memory_type: 'preference',
      user_id: 'u-a',
    });
    expect(superseding.status).toBe('superseded');
    const edited = await call<{ id: string }>(url, 'POST', '/store', {
      content: 'Lives in Porto',
      memory_type: 'fact',
      user_id: 'u-b',
    });
    await call(url, 'PATCH', `/v1/memories/${edited.id}`, { content: 'Lives in Lisbon', metadata: { moved: true } });
    const archived = await call<{ id: string }>(url, 'POST', '/store', {
      content: 'Old locker code is 12',
      user_id: 'u-b',
    });
    await call(url, 'PATCH', `/v1/memories/${archived.id}`, { status: 'archived' });
    // Read and recorded: access counts and times travel too.
    await call(url, 'POST', '/retrieve', { query: 'where does the user live?', user_id: 'u-b' });

    const original = await allRecords(url, KEY, 3);
    expect(original.size).toBe(7);
    expect(original.get(edited.id)?.history.map((h) => h.action)).toEqual(['created', 'updated']);

    const exported = await call<string>(url, 'GET', '/v1/export');
    expect(exported.trim().split('\n')).toHaveLength(7);
    const imported = await call(postgres.url, 'POST', '/v1/import', exported, 'application/x-ndjson');
    expect(imported).toEqual({ lines: 7, imported: 7, skipped: 0, duplicates: 0, quarantined: 0 });

    expect(await allRecords(postgres.url, KEY, 3)).toEqual(original);

    const found = await call<{ results: Array<{ id: string }> }>(postgres.url, 'POST', '/v1/search', {
      query: 'coffee',
      user_id: 'u-a',
    });
    expect(found.results[0]?.id).toBe([...original.values()].find((r) => r.content === 'The user has quit coffee')?.id);
    const zh = await call<{ results: Array<{ content: string }> }>(postgres.url, 'POST', '/v1/search', {
      query: '绿茶',
      user_id: 'u-b',
    });
    expect(zh.results[0]?.content).toBe('用户每天早上喝绿茶');
  });
});
