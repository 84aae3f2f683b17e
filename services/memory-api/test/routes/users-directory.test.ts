import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, startTestApp, TENANT_KEYS, type TestApp } from '../support/app.ts';

let t: TestApp;
const acme = auth('key-acme');
const globex = auth('key-globex');

async function write(payload: object, headers = acme): Promise<{ id: string }> {
  const response = await t.app.inject({ method: 'POST', url: '/v1/memories', headers, payload });
  expect(response.statusCode, response.body).toBe(201);
  return response.json();
}

beforeAll(async () => {
  t = await startTestApp(TENANT_KEYS);
  await write({ content: 'Ana likes green tea', memory_type: 'preference', user_id: 'ana' });
  await write({ content: 'Ana is allergic to peanuts', memory_type: 'fact', user_id: 'ana' });
  await write({ content: 'Ana asked about flights to Porto', memory_type: 'episodic', user_id: 'ana' });
  await write({ content: 'Ben prefers short answers', memory_type: 'preference', user_id: 'ben' });
  await write({ content: 'Globex user likes opera', memory_type: 'preference', user_id: 'gus' }, globex);
  const turn = await t.app.inject({
    method: 'POST',
    url: '/v1/sessions/ben-s1/turns',
    headers: acme,
    payload: { user_id: 'ben', role: 'user', content: 'Book me a table for two' },
  });
  expect(turn.statusCode).toBe(201);
});
afterAll(async () => {
  await t.close();
});

async function get(url: string, headers = acme) {
  const response = await t.app.inject({ method: 'GET', url, headers });
  return { status: response.statusCode, body: response.json() };
}

describe('GET /v1/users', () => {
  it('lists the tenant’s users with active counts per layer, statuses, open sessions and last activity', async () => {
    const { status, body } = await get('/v1/users');
    expect(status).toBe(200);
    expect(body.items.map((u: { user_id: string }) => u.user_id)).toEqual(['ben', 'ana']);
    const [ben, ana] = body.items;
    expect(ana.layers).toEqual({ working: 0, episodic: 1, semantic: 2 });
    expect(ana.statuses).toEqual({ semantic: { active: 2 }, episodic: { active: 1 } });
    expect(ana.open_sessions).toBe(0);
    expect(ben.layers).toEqual({ working: 1, episodic: 0, semantic: 1 });
    expect(ben.open_sessions).toBe(1);
    expect(Date.parse(ben.last_activity_at)).toBeGreaterThanOrEqual(Date.parse(ana.last_activity_at));
    expect(body.next_cursor).toBeNull();
  });

  it('pages with next_cursor and each user comes once', async () => {
    const first = await get('/v1/users?limit=1');
    expect(first.body.items).toHaveLength(1);
    expect(first.body.next_cursor).toBe('1');
    const second = await get(`/v1/users?limit=1&cursor=${first.body.next_cursor}`);
    expect(second.body.items.map((u: { user_id: string }) => u.user_id)).toEqual(['ana']);
    expect(second.body.next_cursor).toBeNull();
  });

  it('shows another tenant none of them, and refuses a bad cursor or limit with 422 or 400', async () => {
    const other = await get('/v1/users', globex);
    expect(other.body.items.map((u: { user_id: string }) => u.user_id)).toEqual(['gus']);
    const badCursor = await get('/v1/users?cursor=abc');
    expect([400, 422]).toContain(badCursor.status);
    expect(badCursor.body.error.message).toMatch(/cursor/);
    expect([400, 422]).toContain((await get('/v1/users?limit=0')).status);
    expect([400, 422]).toContain((await get('/v1/users?sort=name')).status);
    expect((await get('/v1/users', auth('wrong-key'))).status).toBe(401);
  });
});

describe('GET /v1/users/:id/sessions', () => {
  it('lists the user’s open sessions with their turns, and nothing of another user or tenant', async () => {
    const ben = await get('/v1/users/ben/sessions');
    expect(ben.status).toBe(200);
    expect(ben.body.user_id).toBe('ben');
    expect(ben.body.items).toEqual([{ session_id: 'ben-s1', turns: 1, last_seq: 1, updated_at: expect.any(String) }]);
    expect((await get('/v1/users/ana/sessions')).body.items).toEqual([]);
    expect((await get('/v1/users/ben/sessions', globex)).body.items).toEqual([]);
  });

  it('drops a session once it is deleted', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/v1/sessions/ben-s2/turns',
      headers: acme,
      payload: { user_id: 'ben', role: 'user', content: 'Temporary' },
    });
    expect((await get('/v1/users/ben/sessions')).body.items).toHaveLength(2);
    const deleted = await t.app.inject({ method: 'DELETE', url: '/v1/sessions/ben-s2', headers: acme });
    expect(deleted.statusCode).toBe(200);
    expect((await get('/v1/users/ben/sessions')).body.items.map((s: { session_id: string }) => s.session_id)).toEqual([
      'ben-s1',
    ]);
  });
});

describe('POST /v1/forget dry run', () => {
  it('previews the memories that would go and changes nothing; the confirmed run forgets them', async () => {
    // A user of its own (forgotten whole by the end), so the directory tests count the same in any order.
    await write({ content: 'Cleo likes green tea', memory_type: 'preference', user_id: 'cleo' });
    const forget = (payload: object) => t.app.inject({ method: 'POST', url: '/v1/forget', headers: acme, payload });
    const preview = (await forget({ user_id: 'cleo', categories: ['preference'], dry_run: true })).json();
    expect(preview).toMatchObject({ count: 1, dry_run: true });
    expect(preview.preview).toEqual([
      expect.objectContaining({
        id: preview.ids[0],
        content: 'Cleo likes green tea',
        user_id: 'cleo',
        layer: 'semantic',
      }),
    ]);
    expect((await get(`/v1/memories/${preview.ids[0]}`)).status).toBe(200);
    const done = (await forget({ user_id: 'cleo', categories: ['preference'] })).json();
    expect(done).toMatchObject({ count: 1, ids: preview.ids, dry_run: false });
    expect(done.preview).toBeUndefined();
    expect((await get(`/v1/memories/${preview.ids[0]}`)).status).toBe(404);
  });
});
