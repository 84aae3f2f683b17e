import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, startTestApp, TENANT_KEYS, type TestApp } from '../support/app.ts';

let t: TestApp;
const acme = auth('key-acme');
const globex = auth('key-globex');
/** The worker: the admin key acting for a tenant, naming its job. */
const worker = (jobId: string) => ({ ...auth('key-admin'), 'x-tenant-id': 'acme', 'x-hindsight-job': jobId });

beforeAll(async () => {
  t = await startTestApp({ ...TENANT_KEYS, SESSION_IDLE_SECONDS: '0', ERASE_JOB_WAIT_MS: '2000' });
});
afterAll(async () => {
  await t.close();
});

async function call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object, headers = acme) {
  const response = await t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  return { status: response.statusCode, body: response.json() };
}

describe('the erasure receipt and tombstones', () => {
  it('answers what was removed where and keeps it, without content, for the tenant alone', async () => {
    await call('POST', '/store', { content: 'Gwen collects antique maps', memory_type: 'preference', user_id: 'gwen' });
    await call('POST', '/store', { content: 'Gwen flew to Oslo', memory_type: 'episodic', user_id: 'gwen' });
    await call('POST', '/v1/sessions/s-gwen/turns', { user_id: 'gwen', role: 'user', content: 'I love old maps' });

    const erased = await call('DELETE', '/v1/users/gwen');
    expect(erased.status).toBe(200);
    expect(erased.body).toMatchObject({
      user_id: 'gwen',
      status: 'completed',
      memories: 2,
      memories_by_layer: { semantic: 1, episodic: 1 },
      sessions: 1,
      turns: 1,
      jobs: 0,
      incomplete: [],
      store: { backend: 'sqlite', purged: true },
    });
    expect(erased.body.completed_at >= erased.body.requested_at).toBe(true);
    expect(JSON.stringify(erased.body)).not.toMatch(/maps|Oslo/);

    const listed = await call('GET', '/v1/erasures?user_id=gwen');
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ items: [erased.body], next_cursor: null });
    expect((await call('GET', '/v1/erasures', undefined, globex)).body.items).toEqual([]);

    // Erasing again finds nothing left, and is recorded too.
    const again = await call('DELETE', '/v1/users/gwen');
    expect(again.body).toMatchObject({ status: 'completed', memories: 0, sessions: 0 });
    const both = await call('GET', '/v1/erasures?user_id=gwen&limit=1');
    expect(both.body.items.map((e: { erasure_id: string }) => e.erasure_id)).toEqual([again.body.erasure_id]);
    const older = await call('GET', `/v1/erasures?user_id=gwen&limit=1&cursor=${both.body.next_cursor}`);
    expect(older.body.items.map((e: { erasure_id: string }) => e.erasure_id)).toEqual([erased.body.erasure_id]);
  });

  it('drops the kept Idempotency-Key replies that name the erased user or their memories', async () => {
    const first = await t.app.inject({
      method: 'POST',
      url: '/store',
      headers: { ...acme, 'idempotency-key': 'hal-note-1' },
      payload: { content: 'Hal restores sailboats', user_id: 'hal' },
    });
    expect(first.statusCode).toBe(201);
    const keep = await t.app.inject({
      method: 'POST',
      url: '/store',
      headers: { ...acme, 'idempotency-key': 'ida-note-1' },
      payload: { content: 'Ida restores pianos', user_id: 'ida' },
    });
    expect(keep.statusCode).toBe(201);
    const replies = async () => (await t.deps.redis.keys(`${t.redisPrefix}:idem:acme:*`)).length;
    expect(await replies()).toBe(2);

    const erased = await call('DELETE', '/v1/users/hal');
    expect(erased.body.idempotency_replies).toBe(1);
    expect(await replies()).toBe(1);
    // A retry of the erased write is a new write now, not a replay of an id that no longer exists.
    const retried = await t.app.inject({
      method: 'POST',
      url: '/store',
      headers: { ...acme, 'idempotency-key': 'hal-note-1' },
      payload: { content: 'Hal restores sailboats', user_id: 'hal' },
    });
    expect(retried.statusCode).toBe(201);
    expect(retried.json().id).not.toBe(first.json().id);
  });
});

describe('the erasure fence', () => {
  it('refuses writes of a job enqueued before its user was erased, and nothing else', async () => {
    await call('POST', '/v1/sessions/s-jo/turns', { user_id: 'jo', role: 'user', content: 'I sing in a choir' });
    const ended = await call('POST', '/v1/sessions/s-jo/end', { user_id: 'jo' });
    const jobId = ended.body.job_id as string;
    // The job exists before the erase: a write on its behalf is fine.
    const before = await call('POST', '/v1/memories', { content: 'Jo sings alto', user_id: 'jo' }, worker(jobId));
    expect(before.status).toBe(201);

    expect((await call('DELETE', '/v1/users/jo')).body.status).toBe('completed');

    // The same job (the erase removed it from the queue) writes for jo again: refused, nothing stored.
    for (const [method, url, payload] of [
      ['POST', '/v1/memories', { content: 'Jo sings alto', user_id: 'jo' }],
      ['POST', '/store', { content: 'Jo sings soprano', user_id: 'jo' }],
      ['PUT', '/v1/users/jo/summary', { content: 'Jo: choir singer.' }],
    ] as const) {
      const refused = await call(method, url, payload, worker(jobId));
      expect(refused.status, url).toBe(410);
      expect(refused.body.error.code).toBe('user_erased');
    }
    expect((await call('GET', '/v1/memories?user_id=jo')).body.items).toEqual([]);
    expect((await call('GET', '/v1/users/jo/summary')).body.summary).toBeNull();

    // A job enqueued after the erase, and the user's own requests, write as usual.
    await call('POST', '/v1/sessions/s-jo-2/turns', { user_id: 'jo', role: 'user', content: 'back again' });
    const later = await call('POST', '/v1/sessions/s-jo-2/end', { user_id: 'jo' });
    expect(
      (await call('POST', '/store', { content: 'Jo joined a band', user_id: 'jo' }, worker(later.body.job_id))).status,
    ).toBe(201);
    expect((await call('POST', '/store', { content: 'Jo plays drums', user_id: 'jo' })).status).toBe(201);
    // Another user's writes for the old job's tenant are not fenced by jo's erasure.
    expect((await call('POST', '/store', { content: 'Kim sings bass', user_id: 'kim' }, worker(jobId))).status).toBe(
      201,
    );
  });
});
