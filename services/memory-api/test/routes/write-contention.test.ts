import type { MemoryRecord } from '@hindsight/memory-model';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownerLockKey } from '../../src/adapters/redis/owner-lock.ts';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * What a client sees when a decision cannot be made in time: another replica holds the user's
 * lock (it crashed mid-write, or is stuck) — a clean 503 with Retry-After and nothing written,
 * and the write goes through once the lease has run out.
 */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ OWNER_LOCK_WAIT_MS: '150', OWNER_LOCK_LEASE_MS: '2000' });
});
afterAll(async () => {
  await t.close();
});

const memoriesOf = async (userId: string) =>
  (await t.app.inject({ method: 'GET', url: `/v1/memories?user_id=${userId}` })).json().items as MemoryRecord[];

describe('a user whose lock another replica holds', () => {
  it('answers 503 busy with Retry-After for merge/supersede writes, writes nothing, and recovers after the lease', async () => {
    const user = 'stuck-owner';
    // A replica that died while deciding: its lock stays until the lease ends.
    await t.deps.redis.set(ownerLockKey(t.redisPrefix, 'default', user), 'crashed-replica', 'PX', 600);
    const refused = await t.app.inject({
      method: 'POST',
      url: '/store',
      payload: { content: 'The user lives in Oslo', memory_type: 'fact', user_id: user },
    });
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json().error).toMatchObject({ code: 'busy', message: expect.stringMatching(/retry/) });
    expect(await memoriesOf(user)).toEqual([]);

    // Another user of the same tenant is not held up.
    const other = await t.app.inject({
      method: 'POST',
      url: '/store',
      payload: { content: 'The user lives in Bergen', memory_type: 'fact', user_id: 'free-owner' },
    });
    expect(other.statusCode).toBe(201);

    await new Promise((resolve) => setTimeout(resolve, 700));
    const later = await t.app.inject({
      method: 'POST',
      url: '/store',
      payload: { content: 'The user lives in Oslo', memory_type: 'fact', user_id: user },
    });
    expect(later.statusCode).toBe(201);
    expect((await memoriesOf(user)).map((m) => m.content)).toEqual(['The user lives in Oslo']);
  });

  it('refuses a PATCH, a restore and a profile summary the same way, changing nothing', async () => {
    const user = 'stuck-editor';
    const stored = (
      await t.app.inject({
        method: 'POST',
        url: '/store',
        payload: { content: 'The user collects stamps', memory_type: 'fact', user_id: user },
      })
    ).json();
    await t.deps.redis.set(ownerLockKey(t.redisPrefix, 'default', user), 'crashed-replica', 'PX', 5000);
    const patch = await t.app.inject({
      method: 'PATCH',
      url: `/v1/memories/${stored.id}`,
      payload: { tags: ['hobby'] },
    });
    const restore = await t.app.inject({ method: 'POST', url: `/v1/memories/${stored.id}/restore` });
    const summary = await t.app.inject({
      method: 'PUT',
      url: `/v1/users/${user}/summary`,
      payload: { content: 'Collects stamps.' },
    });
    expect([patch.statusCode, restore.statusCode, summary.statusCode]).toEqual([503, 503, 503]);
    expect(await memoriesOf(user)).toMatchObject([{ id: stored.id, tags: [], version: 1 }]);
    await t.deps.redis.del(ownerLockKey(t.redisPrefix, 'default', user));
  });
});
