import { contentHash } from '@hindsight/memory-model';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auth, startTestApp, TENANT_KEYS, type TestApp } from '../support/app.ts';

let t: TestApp;
const acme = auth('key-acme');
const globex = auth('key-globex');
const admin = auth('key-admin');

beforeAll(async () => {
  // Idle trigger on (an hour, so it never fires during the test), size trigger at 5 turns.
  t = await startTestApp({ ...TENANT_KEYS, SESSION_IDLE_SECONDS: '3600', WORKING_MAX_TURNS: '5' });
});
afterAll(async () => {
  await t.close();
});

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

async function callOn(
  on: TestApp,
  method: Method,
  url: string,
  payload?: object,
  headers: Record<string, string> = acme,
) {
  const response = await on.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  return { status: response.statusCode, body: response.json() };
}

type Call = (
  method: Method,
  url: string,
  payload?: object,
  headers?: Record<string, string>,
) => ReturnType<typeof callOn>;

/**
 * Runs `steps` on an app of its own: decay runs for the whole tenant at a later time, so no other
 * test's memories age with it.
 */
async function onAppOfItsOwn(steps: (call: Call) => Promise<void>): Promise<void> {
  const own = await startTestApp(TENANT_KEYS);
  try {
    await steps((method, url, payload, headers) => callOn(own, method, url, payload, headers));
  } finally {
    await own.close();
  }
}

/** A request to the app the tests of this file share. */
const call = (method: Method, url: string, payload?: object, headers?: Record<string, string>) =>
  callOn(t, method, url, payload, headers);

const turn = (content: string, extra: object = {}) => ({ user_id: 'alice', role: 'user', content, ...extra });

describe('working memory turns', () => {
  it('appends turns in order with sequence ids and a refreshed TTL', async () => {
    const first = await call('POST', '/v1/sessions/s-order/turns', turn('I am planning a trip to Kyoto'));
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ session_id: 's-order', turn_ids: ['t1'], last_seq: 1, pending_turns: 1 });
    const batch = await call('POST', '/v1/sessions/s-order/turns', {
      turns: [
        { user_id: 'alice', role: 'assistant', content: 'Kyoto is lovely in spring.' },
        {
          user_id: 'alice',
          role: 'tool',
          content: 'weather: 18C',
          tool: { name: 'weather', input: { city: 'Kyoto' }, result: { c: 18 } },
        },
      ],
    });
    expect(batch.body.turn_ids).toEqual(['t2', 't3']);
    const read = await call('GET', '/v1/sessions/s-order/turns');
    expect(read.status).toBe(200);
    expect(read.body.user_id).toBe('alice');
    expect(read.body.turns.map((x: { id: string; role: string }) => `${x.id}:${x.role}`)).toEqual([
      't1:user',
      't2:assistant',
      't3:tool',
    ]);
    expect(read.body.turns[2].tool).toEqual({ name: 'weather', input: { city: 'Kyoto' }, result: { c: 18 } });
    expect(read.body.ttl_seconds).toBeGreaterThan(7000);
    expect(read.body.ttl_seconds).toBeLessThanOrEqual(7200);
  });

  it('rejects bad turns with a clear 4xx and changes nothing', async () => {
    await call('POST', '/v1/sessions/s-bad/turns', turn('hello there'));
    const cases: Array<[object, number, RegExp]> = [
      [{ role: 'user', content: 'no user' }, 422, /user_id/],
      [turn(''), 422, /content/],
      [turn('x'.repeat(8001)), 422, /8000/],
      [{ ...turn('bad role'), role: 'robot' }, 422, /role/],
      [{ ...turn('bad time'), timestamp: 'yesterday' }, 422, /timestamp/],
      [{ turns: [] }, 422, /turns/],
      [{ ...turn('another user'), user_id: 'mallory' }, 409, /another user/],
      [{ turns: [turn('a'), { ...turn('b'), user_id: 'bob' }] }, 409, /same user_id/],
    ];
    for (const [payload, status, message] of cases) {
      const response = await call('POST', '/v1/sessions/s-bad/turns', payload);
      expect(response.status, JSON.stringify(payload).slice(0, 80)).toBe(status);
      expect(response.body.error.message).toMatch(message);
    }
    const read = await call('GET', '/v1/sessions/s-bad/turns');
    expect(read.body.turns.map((x: { content: string }) => x.content)).toEqual(['hello there']);
    expect(read.body.last_seq).toBe(1);
  });

  it('keeps tenants apart: another tenant sees an empty session of the same id', async () => {
    await call('POST', '/v1/sessions/s-shared/turns', turn('acme secret plan'));
    const other = await call('GET', '/v1/sessions/s-shared/turns', undefined, globex);
    expect(other.body.turns).toEqual([]);
    expect(other.body.user_id).toBeNull();
  });

  it('writes memory_type "working" from /store into the session, and refuses it without a session_id', async () => {
    const refused = await call('POST', '/store', { content: 'scratch: compare hotel prices', memory_type: 'working' });
    expect(refused.status).toBe(422);
    expect(refused.body.error.message).toMatch(/session_id/);
    const stored = await call('POST', '/store', {
      content: 'scratch: compare hotel prices',
      memory_type: 'working',
      metadata: { session_id: 's-note', user_id: 'alice' },
    });
    expect(stored.status).toBe(201);
    expect(stored.body).toMatchObject({ status: 'created', layer: 'working' });
    const read = await call('GET', '/v1/sessions/s-note/turns');
    expect(read.body.turns).toMatchObject([{ role: 'note', content: 'scratch: compare hotel prices' }]);
    const longTerm = await call('GET', '/v1/memories?user_id=alice&session_id=s-note');
    expect(longTerm.body.items).toEqual([]);
  });

  it('makes working memory searchable at once through /retrieve with session_id', async () => {
    await call('POST', '/v1/sessions/s-search/turns', {
      turns: [turn('My flight number is LH 714 tomorrow morning'), turn('What a nice day')],
    });
    const found = await call('POST', '/retrieve', {
      query: 'what is my flight number',
      user_id: 'alice',
      session_id: 's-search',
    });
    expect(found.status).toBe(200);
    expect(found.body.results[0]).toMatchObject({
      layer: 'working',
      content: 'My flight number is LH 714 tomorrow morning',
    });
    expect(found.body.results[0].source).toMatchObject({ session_id: 's-search', turn_ids: ['t1'] });
    const withoutSession = await call('POST', '/retrieve', { query: 'what is my flight number', user_id: 'alice' });
    expect(withoutSession.body.results.filter((r: { layer: string }) => r.layer === 'working')).toEqual([]);
    const otherUser = await call('POST', '/retrieve', {
      query: 'what is my flight number',
      user_id: 'bob',
      session_id: 's-search',
    });
    expect(otherUser.body.results).toEqual([]);
  });
});

describe('ending sessions and jobs', () => {
  it('ends a session once: the second end returns the same job, and the idle job is the one promoted', async () => {
    await call('POST', '/v1/sessions/s-end/turns', turn('I prefer aisle seats'));
    await call('POST', '/v1/sessions/s-end/turns', turn('Book the 9am train'));
    // Debounced idle trigger: only the job for the latest turn count is pending.
    const delayed = await t.deps.dashboardQueues[0]!.getJobs(['delayed']);
    const mine = delayed.filter((j) => j.data.session_id === 's-end');
    expect(mine.map((j) => j.data.through_seq)).toEqual([2]);

    const first = await call('POST', '/v1/sessions/s-end/end', { user_id: 'alice' });
    expect(first.status).toBe(202);
    expect(first.body.deduplicated).toBe(false);
    expect(first.body.job_id).toBe(mine[0]?.id);
    const second = await call('POST', '/v1/sessions/s-end/end', { user_id: 'alice' });
    expect(second.body.job_id).toBe(first.body.job_id);
    expect(second.body.deduplicated).toBe(true);

    const job = await call('GET', `/v1/jobs/${first.body.job_id}`);
    expect(job.status).toBe(200);
    expect(job.body).toMatchObject({
      id: first.body.job_id,
      name: 'consolidate',
      state: 'waiting',
      attempts: 0,
      max_attempts: 5,
    });
    const payload = (await t.deps.dashboardQueues[0]!.getJob(first.body.job_id))?.data;
    expect(payload).toEqual({ tenant: 'acme', user_id: 'alice', session_id: 's-end', through_seq: 2, trigger: 'end' });
    expect((await call('GET', `/v1/jobs/${first.body.job_id}`, undefined, globex)).status).toBe(404);
  });

  it('refuses to end an unknown session or another user’s session, enqueueing nothing', async () => {
    const before = await t.deps.dashboardQueues[0]!.getJobCounts('waiting');
    const unknown = await call('POST', '/v1/sessions/never-seen/end', { user_id: 'alice' });
    expect(unknown.status).toBe(404);
    await call('POST', '/v1/sessions/s-owned/turns', turn('mine'));
    const stolen = await call('POST', '/v1/sessions/s-owned/end', { user_id: 'mallory' });
    expect(stolen.status).toBe(409);
    const missing = await call('POST', '/v1/sessions/s-owned/end', {});
    expect(missing.status).toBe(422);
    expect(await t.deps.dashboardQueues[0]!.getJobCounts('waiting')).toEqual(before);
  });

  it('starts a consolidation when the size threshold is reached', async () => {
    const reply = await call('POST', '/v1/sessions/s-size/turns', {
      turns: ['one', 'two', 'three', 'four', 'five'].map((c) => turn(`turn ${c}`)),
    });
    expect(reply.body.pending_turns).toBe(5);
    expect(reply.body.consolidation_job_id).toMatch(/^consolidate-[0-9a-f]+-5$/);
    const job = await call('GET', `/v1/jobs/${reply.body.consolidation_job_id}`);
    expect(job.body.state).toBe('waiting');
  });

  it('deletes a session with its pending jobs; with `through` clears only consolidated turns', async () => {
    await call('POST', '/v1/sessions/s-clear/turns', { turns: [turn('a1'), turn('a2'), turn('a3')] });
    const cleared = await call('DELETE', '/v1/sessions/s-clear?through=2');
    expect(cleared.body).toMatchObject({ deleted: true, removed_turns: 2 });
    const read = await call('GET', '/v1/sessions/s-clear/turns');
    expect(read.body.turns.map((x: { id: string }) => x.id)).toEqual(['t3']);
    expect(read.body.last_seq).toBe(3);
    // Numbers are never reused after clearing: the next turn is t4.
    expect((await call('POST', '/v1/sessions/s-clear/turns', turn('a4'))).body.turn_ids).toEqual(['t4']);

    const deleted = await call('DELETE', '/v1/sessions/s-clear');
    expect(deleted.body).toMatchObject({ deleted: true, jobs: 1 });
    expect((await call('GET', '/v1/sessions/s-clear/turns')).body).toMatchObject({
      turns: [],
      user_id: null,
      last_seq: 0,
    });
    const pending = await t.deps.dashboardQueues[0]!.getJobs(['delayed', 'waiting']);
    expect(pending.filter((j) => j.data.session_id === 's-clear')).toEqual([]);
  });
});

describe('users', () => {
  it('stores and refreshes a profile summary, keeping the earlier text in history', async () => {
    const empty = await call('GET', '/v1/users/carol/summary');
    expect(empty.body).toEqual({ user_id: 'carol', summary: null, updated_at: null, memory_id: null });
    const first = await call('PUT', '/v1/users/carol/summary', { content: 'Carol: vegetarian, lives in Oslo.' });
    expect(first.status).toBe(200);
    const second = await call('PUT', '/v1/users/carol/summary', { content: 'Carol: vegetarian, moved to Bergen.' });
    expect(second.body.memory_id).toBe(first.body.memory_id);
    const read = await call('GET', '/v1/users/carol/summary');
    expect(read.body.summary).toBe('Carol: vegetarian, moved to Bergen.');
    const history = await call('GET', `/v1/memories/${first.body.memory_id}/history`);
    expect(history.body.entries.map((e: { content: string }) => e.content)).toContain(
      'Carol: vegetarian, lives in Oslo.',
    );
    expect((await call('PUT', '/v1/users/carol/summary', { content: '' })).status).toBe(422);
    expect((await call('GET', '/v1/users/carol/summary')).body.summary).toBe('Carol: vegetarian, moved to Bergen.');
  });

  it('keeps a profile that repeats one memory word for word, and refuses an edit onto an existing memory', async () => {
    const fact = await call('POST', '/store', {
      content: 'Frank is allergic to peanuts.',
      memory_type: 'fact',
      user_id: 'frank',
    });
    const profile = await call('PUT', '/v1/users/frank/summary', { content: 'Frank is allergic to peanuts.' });
    expect(profile.status).toBe(200);
    expect((await call('PUT', '/v1/users/frank/summary', { content: 'Frank is allergic to peanuts.' })).status).toBe(
      200,
    );
    const other = await call('POST', '/store', {
      content: 'Frank lives in Porto.',
      memory_type: 'fact',
      user_id: 'frank',
    });
    const clash = await call('PATCH', `/v1/memories/${other.body.id}`, { content: 'Frank is allergic to peanuts.' });
    expect(clash.status).toBe(409);
    expect((await call('GET', `/v1/memories/${other.body.id}`)).body.content).toBe('Frank lives in Porto.');
    expect((await call('GET', `/v1/memories/${fact.body.id}`)).body.status).toBe('active');
  });

  it('never erases a session of another user that someone tried to write into', async () => {
    await call('POST', '/v1/sessions/s-ivy/turns', { user_id: 'ivy', role: 'user', content: 'my locker code is 4411' });
    const intruder = await call('POST', '/v1/sessions/s-ivy/turns', {
      user_id: 'jack',
      role: 'user',
      content: 'hello',
    });
    expect(intruder.status).toBe(409);
    expect((await call('DELETE', '/v1/users/jack')).body).toMatchObject({ user_id: 'jack', sessions: 0 });
    const kept = await call('GET', '/v1/sessions/s-ivy/turns');
    expect(kept.body.turns.map((t: { content: string }) => t.content)).toEqual(['my locker code is 4411']);
  });

  it('erases everything of one user and nothing of another', async () => {
    await call('POST', '/store', { content: 'Dave likes jazz', memory_type: 'preference', user_id: 'dave' });
    await call('POST', '/store', { content: 'Erin likes opera', memory_type: 'preference', user_id: 'erin' });
    await call('PUT', '/v1/users/dave/summary', { content: 'Dave: jazz fan.' });
    await call('POST', '/v1/sessions/s-dave/turns', { user_id: 'dave', role: 'user', content: 'play some jazz' });
    await call('POST', '/v1/sessions/s-dave/end', { user_id: 'dave' });

    const erased = await call('DELETE', '/v1/users/dave');
    expect(erased.status).toBe(200);
    expect(erased.body).toMatchObject({ user_id: 'dave', memories: 2, sessions: 1, jobs: 1, status: 'completed' });
    expect((await call('GET', '/v1/memories?user_id=dave')).body.items).toEqual([]);
    expect((await call('GET', '/v1/sessions/s-dave/turns')).body.turns).toEqual([]);
    expect((await call('GET', '/v1/users/dave/summary')).body.summary).toBeNull();
    const jobs = await t.deps.dashboardQueues[0]!.getJobs(['waiting', 'delayed', 'completed', 'failed']);
    expect(jobs.filter((j) => j.data.user_id === 'dave')).toEqual([]);
    expect((await call('GET', '/v1/memories?user_id=erin')).body.items).toHaveLength(1);
  });
});

describe('service access and maintenance', () => {
  it('documents the session, job and user routes in the OpenAPI document', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/docs/json', headers: acme });
    expect(response.statusCode).toBe(200);
    const paths = Object.keys(response.json().paths);
    for (const path of [
      '/v1/sessions/{id}/turns',
      '/v1/sessions/{id}/end',
      '/v1/jobs/{id}',
      '/v1/users/{id}/summary',
      '/v1/users/{id}',
    ]) {
      expect(paths).toContain(path);
    }
  });

  it('lets the admin key act for a tenant named in X-Tenant-Id, and nobody else', async () => {
    const asAcme = await call(
      'POST',
      '/v1/memories',
      { content: 'Frank speaks Finnish', memory_type: 'fact', user_id: 'frank' },
      {
        ...admin,
        'x-tenant-id': 'acme',
      },
    );
    expect(asAcme.status).toBe(201);
    expect((await call('GET', `/v1/memories/${asAcme.body.id}`)).status).toBe(200);
    expect((await call('GET', `/v1/memories/${asAcme.body.id}`, undefined, globex)).status).toBe(404);
    // A tenant key cannot switch tenants with the header.
    const spoof = await call('GET', `/v1/memories/${asAcme.body.id}`, undefined, { ...globex, 'x-tenant-id': 'acme' });
    expect(spoof.status).toBe(404);
    expect((await call('GET', '/v1/memories', undefined, { 'x-tenant-id': 'acme' })).status).toBe(401);
  });

  it('restarts the decay clock of a restored memory', async () => {
    const old = {
      ...(
        await call('POST', '/store', { content: 'Hal decided to learn Rust', memory_type: 'decision', user_id: 'hal' })
      ).body,
    };
    const record = (await call('GET', `/v1/memories/${old.id}`)).body;
    // Learned four years ago: imported with its original times.
    const content = 'Hal decided to learn Go';
    const aged = {
      ...record,
      id: 'hal-old-decision',
      content,
      content_hash: contentHash(content),
      created_at: '2021-01-01T00:00:00.000Z',
      updated_at: '2021-01-01T00:00:00.000Z',
    };
    const imported = await t.app.inject({
      method: 'POST',
      url: '/v1/import',
      headers: { ...acme, 'content-type': 'application/x-ndjson' },
      payload: `${JSON.stringify(aged)}\n`,
    });
    expect(imported.statusCode).toBe(200);
    await call('POST', '/admin/maintenance/decay', {}, admin);
    expect((await call('GET', '/v1/memories/hal-old-decision')).body.status).toBe('archived');
    await call('POST', '/v1/memories/hal-old-decision/restore');
    await call('POST', '/admin/maintenance/decay', { now: new Date(Date.now() + 86_400_000).toISOString() }, admin);
    expect((await call('GET', '/v1/memories/hal-old-decision')).body.status).toBe('active');
  });

  it('decays by category: archives faded memories (restorable), deletes them after retention', async () => {
    await onAppOfItsOwn(async (call) => {
      const decision = await call('POST', '/store', {
        content: 'Gina decided to use Postgres',
        memory_type: 'decision',
        user_id: 'gina',
      });
      const preference = await call('POST', '/store', {
        content: 'Gina prefers dark roast coffee',
        memory_type: 'preference',
        user_id: 'gina',
      });
      const day = 86_400_000;
      const later = (days: number) => new Date(Date.now() + days * day).toISOString();

      expect((await call('POST', '/admin/maintenance/decay', { now: later(30) }, acme)).status).toBe(403);
      expect((await call('POST', '/admin/maintenance/decay', { now: 'soon' }, admin)).status).toBe(422);
      const pass = await call('POST', '/admin/maintenance/decay', { now: later(30) }, admin);
      expect(pass.status).toBe(200);
      expect(pass.body.archived).toBeGreaterThanOrEqual(1);
      // decision λ=0.1: exp(−3) ≈ 0.05 < 0.1 → archived; preference λ=0.02: exp(−0.6) ≈ 0.55 → reweighted.
      const d = (await call('GET', `/v1/memories/${decision.body.id}`)).body;
      const p = (await call('GET', `/v1/memories/${preference.body.id}`)).body;
      expect(d.status).toBe('archived');
      expect(p.status).toBe('active');
      expect(p.decay_weight).toBeCloseTo(Math.exp(-0.6), 2);
      const search = await call('POST', '/retrieve', { query: 'which database did Gina decide on', user_id: 'gina' });
      expect(search.body.results.map((r: { id: string }) => r.id)).not.toContain(decision.body.id);

      const restored = await call('POST', `/v1/memories/${decision.body.id}/restore`);
      expect(restored.body.status).toBe('active');
      await call('POST', '/admin/maintenance/decay', { now: later(30) }, admin);
      // Archived 30 days from now, still there 100 days later (90-day retention not yet passed from the archive)…
      await call('POST', '/admin/maintenance/decay', { now: later(100) }, admin);
      expect((await call('GET', `/v1/memories/${decision.body.id}`)).body.status).toBe('archived');
      // …and gone once the retention has passed.
      const final = await call('POST', '/admin/maintenance/decay', { now: later(200) }, admin);
      expect(final.body.deleted).toBeGreaterThanOrEqual(1);
      expect((await call('GET', `/v1/memories/${decision.body.id}`)).status).toBe(404);
    });
  });

  it('hands what a memory deleted after its retention had superseded on as archived, never superseded by a missing id', async () => {
    await onAppOfItsOwn(async (call) => {
      const berlin = await call('POST', '/store', {
        content: 'Hana lives in Berlin',
        memory_type: 'fact',
        user_id: 'hana',
      });
      const madrid = await call('POST', '/store', {
        content: 'Hana lives in Madrid',
        memory_type: 'fact',
        user_id: 'hana',
      });
      expect(madrid.body).toMatchObject({ status: 'superseded', superseded_ids: [berlin.body.id] });
      const later = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
      // fact λ=0.05: exp(−2.5) ≈ 0.08 < 0.1 → Madrid archived at day 50, deleted once 90 days have passed since.
      await call('POST', '/admin/maintenance/decay', { now: later(50) }, admin);
      expect((await call('GET', `/v1/memories/${madrid.body.id}`)).body.status).toBe('archived');
      const pass = await call('POST', '/admin/maintenance/decay', { now: later(150) }, admin);
      expect(pass.body.deleted).toBe(1);
      expect((await call('GET', `/v1/memories/${madrid.body.id}`)).status).toBe(404);
      const older = (await call('GET', `/v1/memories/${berlin.body.id}`)).body;
      expect(older).toMatchObject({ status: 'archived', superseded_by: null });
      expect(older.history.at(-1).note).toMatch(
        new RegExp(`superseded it \\(${madrid.body.id}\\) was deleted after its retention`),
      );
      // Out of search like any archived memory: a contradicted fact does not come back because its successor faded.
      const search = await call('POST', '/retrieve', { query: 'where does Hana live', user_id: 'hana', min_score: 0 });
      expect(search.body.results.map((r: { id: string }) => r.id)).not.toContain(berlin.body.id);
      // It fades after it: gone once its own retention has passed.
      expect((await call('POST', '/admin/maintenance/decay', { now: later(250) }, admin)).body.deleted).toBe(1);
      expect((await call('GET', `/v1/memories/${berlin.body.id}`)).status).toBe(404);
    });
  });
});
