import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, startTestApp, TENANT_KEYS, type TestApp } from '../support/app.ts';

let t: TestApp;
const acme = auth('key-acme');
const globex = auth('key-globex');

beforeAll(async () => {
  t = await startTestApp(TENANT_KEYS);
});
afterAll(async () => {
  await t.close();
});

async function store(body: object, headers = acme) {
  const response = await t.app.inject({ method: 'POST', url: '/store', headers, payload: body });
  return { status: response.statusCode, body: response.json() };
}

async function retrieve(body: object, headers = acme) {
  const response = await t.app.inject({ method: 'POST', url: '/retrieve', headers, payload: body });
  expect(response.statusCode).toBe(200);
  return response.json();
}

describe('store and retrieve', () => {
  it('returns a stored fact first for a paraphrased query, in English', async () => {
    const user = 'paraphrase-en';
    for (const content of [
      'The user is allergic to peanuts',
      'The user works as a nurse in Lisbon',
      'The user prefers window seats on flights',
      'The user has two cats named Miso and Tofu',
    ]) {
      expect((await store({ content, memory_type: 'fact', user_id: user })).status).toBe(201);
    }
    const found = await retrieve({ query: 'does the user have a peanut allergy?', user_id: user });
    expect(found.results[0].content).toBe('The user is allergic to peanuts');
    expect(found.context.split('\n')[0]).toMatch(/^\[\d{4}-\d{2}-\d{2}\] fact: The user is allergic to peanuts$/);
    expect(found.timed_out).toBe(false);
  });

  it('returns a stored preference first for a paraphrased query, in Chinese', async () => {
    const user = 'paraphrase-zh';
    await store({ content: '用户喜欢简洁的回答', memory_type: 'preference', user_id: user });
    await store({ content: '用户住在上海，喜欢喝茶', memory_type: 'fact', user_id: user });
    await store({ content: '用户下周要去北京出差', memory_type: 'event', user_id: user });
    const found = await retrieve({ query: '用户的回答偏好', user_id: user });
    expect(found.results[0].content).toBe('用户喜欢简洁的回答');
    expect(found.results[0].category).toBe('preference');
  });

  it('keeps metadata verbatim and reads owner and time from short-form metadata', async () => {
    const metadata = {
      user_id: 'meta-user',
      session_id: 's-9',
      timestamp: '2024-03-15T10:00:00Z',
      deep: { list: [1, { x: null }] },
    };
    const { status, body } = await store({ content: 'Booked a table at Nopa for Friday', metadata });
    expect(status).toBe(201);
    expect(body.layer).toBe('episodic');
    const record = (await t.app.inject({ method: 'GET', url: `/v1/memories/${body.id}`, headers: acme })).json();
    expect(record.metadata).toEqual(metadata);
    expect(record.user_id).toBe('meta-user');
    expect(record.session_id).toBe('s-9');
    expect(record.occurred_at).toBe('2024-03-15T10:00:00.000Z');
  });

  it('excludes what time_range and tags should exclude', async () => {
    const user = 'filters';
    const now = Date.now();
    await store({
      content: 'Visited the dentist about a toothache',
      user_id: user,
      occurred_at: new Date(now - 2 * 3600_000).toISOString(),
      tags: ['health'],
    });
    await store({
      content: 'Visited the dentist for a cleaning',
      user_id: user,
      occurred_at: new Date(now - 20 * 86_400_000).toISOString(),
      tags: ['routine'],
    });
    const recent = await retrieve({ query: 'dentist visit', user_id: user, time_range: '24h' });
    expect(recent.results.map((r: { content: string }) => r.content)).toEqual([
      'Visited the dentist about a toothache',
    ]);
    const week = await retrieve({ query: 'dentist visit', user_id: user, time_range: '7d' });
    expect(week.results).toHaveLength(1);
    const all = await retrieve({ query: 'dentist visit', user_id: user, time_range: '30d' });
    expect(all.results).toHaveLength(2);
    const window = await retrieve({
      query: 'dentist visit',
      user_id: user,
      time_range: {
        from: new Date(now - 30 * 86_400_000).toISOString(),
        to: new Date(now - 10 * 86_400_000).toISOString(),
      },
    });
    expect(window.results.map((r: { content: string }) => r.content)).toEqual(['Visited the dentist for a cleaning']);
    const tagged = await retrieve({ query: 'dentist visit', user_id: user, tags: ['routine', 'other'] });
    expect(tagged.results.map((r: { tags: string[] }) => r.tags)).toEqual([['routine']]);
  });

  it('cuts results to the token budget and says so', async () => {
    const user = 'budget';
    for (let i = 0; i < 6; i++) {
      await store({ content: `Project Falcon status note number ${i}: ${'details '.repeat(30)}`, user_id: user });
    }
    const small = await retrieve({ query: 'project falcon status', user_id: user, token_budget: 120 });
    expect(small.truncated).toBe(true);
    expect(small.results.length).toBeGreaterThan(0);
    expect(small.results.length).toBeLessThan(6);
    const large = await retrieve({ query: 'project falcon status', user_id: user, token_budget: 4000 });
    expect(large.truncated).toBe(false);
    expect(large.results).toHaveLength(6);
  });
});

describe('access statistics', () => {
  it('counts how often a memory was returned, off the hot path, and writes what is pending on close', async () => {
    const { body } = await store({
      content: 'The user keeps bees in the garden',
      memory_type: 'fact',
      user_id: 'access',
    });
    const found = await retrieve({ query: 'bees garden', user_id: 'access' });
    expect(found.results[0].id).toBe(body.id);
    await retrieve({ query: 'bees garden', user_id: 'access' });
    // Batched per window: flushing is what shutdown does, so nothing gathered is lost on a clean stop.
    await t.deps.memory.close();
    const record = (await t.app.inject({ method: 'GET', url: `/v1/memories/${body.id}`, headers: acme })).json();
    expect(record.access_count).toBe(2);
    expect(record.last_accessed_at).not.toBeNull();
  });
});

describe('access statistics under load', () => {
  it('counts every return of 20 concurrent searches while writes commit beside them', async () => {
    const { body } = await store({
      content: 'The user rows a scull on the river',
      memory_type: 'fact',
      user_id: 'rower',
    });
    const searches = Array.from({ length: 20 }, () => retrieve({ query: 'scull river', user_id: 'rower' }));
    const writes = Array.from({ length: 10 }, (_, i) =>
      store({ content: `Rowing log entry number ${i} for the week`, user_id: 'rower-log' }),
    );
    const [found] = await Promise.all([Promise.all(searches), Promise.all(writes)]);
    expect(found.every((answer) => answer.results[0]?.id === body.id)).toBe(true);
    await t.deps.memory.close();
    const record = (await t.app.inject({ method: 'GET', url: `/v1/memories/${body.id}`, headers: acme })).json();
    expect(record.access_count).toBe(20);
    expect(record.version).toBe(1);
  });
});

describe('duplicates, merge and supersede', () => {
  it('answers duplicate for the same content and bumps proof_count', async () => {
    const first = await store({ content: 'The user speaks Portuguese', memory_type: 'fact', user_id: 'dup' });
    const again = await store({ content: '  the user speaks   portuguese ', memory_type: 'fact', user_id: 'dup' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, status: 'duplicate' });
    const record = (await t.app.inject({ method: 'GET', url: `/v1/memories/${first.body.id}`, headers: acme })).json();
    expect(record.proof_count).toBe(2);
  });

  it('supersedes "likes coffee" with "has quit coffee", keeping both in history', async () => {
    const user = 'coffee';
    const liked = await store({ content: 'The user likes coffee', memory_type: 'preference', user_id: user });
    const quit = await store({ content: 'The user has quit coffee', memory_type: 'preference', user_id: user });
    expect(quit.status).toBe(201);
    expect(quit.body).toMatchObject({ status: 'superseded', superseded_ids: [liked.body.id] });

    const current = await retrieve({ query: 'coffee', user_id: user });
    expect(current.results.map((r: { content: string }) => r.content)).toEqual(['The user has quit coffee']);

    const both = await retrieve({ query: 'coffee', user_id: user, include_superseded: true });
    expect(both.results.map((r: { content: string }) => r.content).sort()).toEqual([
      'The user has quit coffee',
      'The user likes coffee',
    ]);
    expect(both.context.split('\n')[0]).toContain('The user has quit coffee');

    const old = (await t.app.inject({ method: 'GET', url: `/v1/memories/${liked.body.id}`, headers: acme })).json();
    expect(old).toMatchObject({ status: 'superseded', superseded_by: quit.body.id });
    expect(old.valid_until).not.toBeNull();

    const history = (
      await t.app.inject({ method: 'GET', url: `/v1/memories/${quit.body.id}/history`, headers: acme })
    ).json();
    const contents = history.entries.map((e: { content: string }) => e.content);
    expect(contents).toContain('The user likes coffee');
    expect(contents).toContain('The user has quit coffee');
  });

  it('supersedes in Chinese too', async () => {
    const user = 'coffee-zh';
    const liked = await store({ content: '用户喜欢喝咖啡', memory_type: 'preference', user_id: user });
    const quit = await store({ content: '用户已经戒了咖啡，不再喝咖啡', memory_type: 'preference', user_id: user });
    expect(quit.body).toMatchObject({ status: 'superseded', superseded_ids: [liked.body.id] });
  });

  it('restores a superseded memory into search', async () => {
    const user = 'restore';
    const liked = await store({ content: 'The user likes jazz', memory_type: 'preference', user_id: user });
    await store({ content: 'The user no longer likes jazz', memory_type: 'preference', user_id: user });
    const restored = await t.app.inject({
      method: 'POST',
      url: `/v1/memories/${liked.body.id}/restore`,
      headers: acme,
    });
    expect(restored.statusCode).toBe(200);
    expect(restored.json().status).toBe('active');
    const found = await retrieve({ query: 'jazz', user_id: user });
    expect(found.results.map((r: { id: string }) => r.id)).toContain(liked.body.id);
  });

  it('replays the first reply for a retried Idempotency-Key and refuses a reused key with another body', async () => {
    const headers = { ...acme, 'idempotency-key': 'retry-1' };
    const first = await t.app.inject({
      method: 'POST',
      url: '/v1/memories',
      headers,
      payload: { content: 'Paid the electricity bill', user_id: 'idem' },
    });
    const retry = await t.app.inject({
      method: 'POST',
      url: '/v1/memories',
      headers,
      payload: { content: 'Paid the electricity bill', user_id: 'idem' },
    });
    expect(retry.statusCode).toBe(first.statusCode);
    expect(retry.json()).toEqual(first.json());
    const other = await t.app.inject({
      method: 'POST',
      url: '/v1/memories',
      headers,
      payload: { content: 'Something else', user_id: 'idem' },
    });
    expect(other.statusCode).toBe(409);
  });
});

describe('the /v1 memory routes', () => {
  it('writes a batch, lists it page by page, edits, forgets', async () => {
    const user = 'crud';
    const items = Array.from({ length: 5 }, (_, i) => ({
      content: `Grocery item ${i}: oat milk number ${i}`,
      user_id: user,
      tags: ['groceries'],
    }));
    const batch = await t.app.inject({ method: 'POST', url: '/v1/memories', headers: acme, payload: { items } });
    expect(batch.statusCode).toBe(201);
    expect(batch.json().items).toHaveLength(5);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const url: string = `/v1/memories?user_id=${user}&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = (await t.app.inject({ method: 'GET', url, headers: acme })).json();
      seen.push(...page.items.map((r: { id: string }) => r.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen.sort()).toEqual(
      batch
        .json()
        .items.map((i: { id: string }) => i.id)
        .sort(),
    );

    const id = seen[0];
    const patched = await t.app.inject({
      method: 'PATCH',
      url: `/v1/memories/${id}`,
      headers: acme,
      payload: { content: 'Grocery item: almond milk', tags: ['groceries', 'edited'] },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().history.at(-1).action).toBe('updated');
    const found = await retrieve({ query: 'almond milk', user_id: user });
    expect(found.results[0].id).toBe(id);

    const dry = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/forget',
        headers: acme,
        payload: { user_id: user, tags: ['groceries'], dry_run: true },
      })
    ).json();
    expect(dry).toMatchObject({ count: 5, dry_run: true });
    expect(
      (await t.app.inject({ method: 'GET', url: `/v1/memories?user_id=${user}`, headers: acme })).json().items,
    ).toHaveLength(5);
    const forgot = (
      await t.app.inject({
        method: 'POST',
        url: '/v1/forget',
        headers: acme,
        payload: { user_id: user, tags: ['groceries'] },
      })
    ).json();
    expect(forgot.count).toBe(5);
    expect(
      (await t.app.inject({ method: 'GET', url: `/v1/memories?user_id=${user}`, headers: acme })).json().items,
    ).toHaveLength(0);
  });

  it('answers ids that are UUIDs and sort in the order the memories were written', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      // Apart by more than the millisecond the ids' time is counted in.
      await new Promise((resolve) => setTimeout(resolve, 3));
      const { status, body } = await store({ content: `Parcel ${i} arrived at locker ${i * 7}`, user_id: 'id-order' });
      expect(status).toBe(201);
      ids.push(body.id);
    }
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
  });

  it('deletes one memory for good', async () => {
    const { body } = await store({ content: 'Temporary note about parking spot 42', user_id: 'del' });
    expect((await t.app.inject({ method: 'DELETE', url: `/v1/memories/${body.id}`, headers: acme })).statusCode).toBe(
      200,
    );
    expect((await t.app.inject({ method: 'GET', url: `/v1/memories/${body.id}`, headers: acme })).statusCode).toBe(404);
  });
});

describe('tenant isolation', () => {
  it('never shows one tenant the memories of another', async () => {
    const { body } = await store({
      content: 'Acme launch code name is Bluebird',
      memory_type: 'fact',
      user_id: 'shared-user',
      tags: ['secret'],
    });
    const get = await t.app.inject({ method: 'GET', url: `/v1/memories/${body.id}`, headers: globex });
    expect(get.statusCode).toBe(404);
    const list = (
      await t.app.inject({ method: 'GET', url: '/v1/memories?user_id=shared-user', headers: globex })
    ).json();
    expect(list.items).toEqual([]);
    const search = await retrieve({ query: 'launch code name Bluebird', user_id: 'shared-user' }, globex);
    expect(search.results).toEqual([]);
    const forget = (
      await t.app.inject({ method: 'POST', url: '/v1/forget', headers: globex, payload: { tags: ['secret'] } })
    ).json();
    expect(forget.count).toBe(0);
    for (const method of ['PATCH', 'DELETE'] as const) {
      const response = await t.app.inject({
        method,
        url: `/v1/memories/${body.id}`,
        headers: globex,
        ...(method === 'PATCH' ? { payload: { tags: ['x'] } } : {}),
      });
      expect(response.statusCode).toBe(404);
    }
    expect((await t.app.inject({ method: 'GET', url: `/v1/memories/${body.id}`, headers: acme })).json().tags).toEqual([
      'secret',
    ]);
  });

  it('refuses requests without a valid key, but answers /health and /ready', async () => {
    expect((await t.app.inject({ method: 'POST', url: '/retrieve', payload: { query: 'x' } })).statusCode).toBe(401);
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/retrieve',
      headers: auth('nope'),
      payload: { query: 'x' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error.code).toBe('unauthorized');
    expect((await t.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/ready' })).json().status).toBe('ready');
    expect((await t.app.inject({ method: 'GET', url: '/ready?verbose=1' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/debug/memory?x=/health', headers: acme })).statusCode).toBe(403);
  });

  it('serves the OpenAPI document to a key holder only', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/docs/json' })).statusCode).toBe(401);
    const spec = (await t.app.inject({ method: 'GET', url: '/docs/json', headers: acme })).json();
    expect(Object.keys(spec.paths)).toEqual(
      expect.arrayContaining(['/store', '/retrieve', '/v1/memories', '/v1/search', '/v1/forget']),
    );
  });
});
