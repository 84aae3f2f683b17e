import type { MemoryRecord } from '@hindsight/memory-model';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SecurityApp, startSecurityApp } from '../security/support/app.ts';
import type { RawResponse } from '../security/support/http.ts';
import { stateChanges, stateOf } from '../security/support/state.ts';
import { axisVector, makeRecord } from '../support/records.ts';

/**
 * A memory's history and the edits around supersedes (issue 12.5), over real HTTP against the
 * real memory-api: the chain is walked by index a page at a time, deleting or editing a memory
 * never leaves another pointing at an id that is gone or invisible for a reason it no longer has.
 */
let s: SecurityApp;
const acme = { authorization: 'Bearer key-acme', 'content-type': 'application/json' };

beforeAll(async () => {
  s = await startSecurityApp();
}, 60_000);
afterAll(async () => {
  await s?.close();
});

const send = (method: string, path: string, body?: unknown): Promise<RawResponse> =>
  s.client.send({
    method,
    path,
    headers: body === undefined ? { authorization: acme.authorization } : acme,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const json = (answer: RawResponse) => JSON.parse(answer.body);
const memory = async (id: string): Promise<MemoryRecord> => json(await send('GET', `/v1/memories/${id}`));

async function store(
  content: string,
  user: string,
): Promise<{ id: string; status: string; superseded_ids?: string[] }> {
  const answer = await send('POST', '/store', { content, memory_type: 'fact', user_id: user });
  expect(answer.status, answer.body).toBe(201);
  return json(answer);
}

async function found(query: string, user: string): Promise<string[]> {
  return json(await send('POST', '/retrieve', { query, user_id: user, min_score: 0 })).results.map(
    (r: { id: string }) => r.id,
  );
}

describe('GET /v1/memories/:id/history', () => {
  it('walks a chain of 800 supersedes a page at a time, every version exactly once', async () => {
    // A chain as 800 contradicting writes leave it: each memory superseded by the next one.
    const chain = Array.from({ length: 801 }, (_, i) =>
      makeRecord({
        tenant: 'acme',
        user_id: 'history-long',
        content: `The user's locker number is ${1000 + i}`,
        created_at: new Date(Date.UTC(2025, 0, 1, 0, i)).toISOString(),
      }),
    );
    chain.forEach((record, i) => {
      const newer = chain[i + 1];
      record.history = [{ at: record.created_at, action: 'created', content: record.content }];
      if (newer) Object.assign(record, { status: 'superseded', superseded_by: newer.id });
    });
    await s.t.deps.store.commit({
      inserts: chain.map((record, i) => ({ record, vector: axisVector(i % 8, s.t.deps.embedder.dimension) })),
      updates: [],
    });
    const head = chain[800] as MemoryRecord;

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const suffix: string = cursor ? `&cursor=${cursor}` : '';
      const answer = await send('GET', `/v1/memories/${head.id}/history?limit=100${suffix}`);
      expect(answer.status, answer.body).toBe(200);
      const page = json(answer) as { id: string; entries: Array<{ memory_id: string }>; next_cursor: string | null };
      expect(page.id).toBe(head.id);
      const ids = [...new Set(page.entries.map((e) => e.memory_id))];
      expect(ids.length).toBeLessThanOrEqual(100);
      seen.push(...ids);
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor !== null && pages < 20);
    expect(pages).toBe(9);
    expect(seen).toHaveLength(801);
    expect(new Set(seen)).toEqual(new Set(chain.map((r) => r.id)));
  });

  it('refuses a cursor it did not give with 400', async () => {
    const { id } = await store('The user keeps bees', 'history-cursor');
    const answer = await send('GET', `/v1/memories/${id}/history?cursor=not-a-cursor`);
    expect(answer.status).toBe(400);
    expect(json(answer).error.message).toMatch(/cursor/);
  });
});

describe('deleting a memory that superseded another', () => {
  it('makes the memory it superseded active again, found by search again', async () => {
    const user = 'history-delete';
    const berlin = await store('The user lives in Berlin', user);
    const madrid = await store('The user lives in Madrid', user);
    expect(madrid).toMatchObject({ status: 'superseded', superseded_ids: [berlin.id] });
    expect(await found('where does the user live', user)).toEqual([madrid.id]);

    const deleted = await send('DELETE', `/v1/memories/${madrid.id}`);
    expect(deleted.status, deleted.body).toBe(200);
    expect((await send('GET', `/v1/memories/${madrid.id}`)).status).toBe(404);
    const restored = await memory(berlin.id);
    expect(restored).toMatchObject({ status: 'active', superseded_by: null, valid_until: null });
    expect(restored.history.at(-1)?.note).toMatch(new RegExp(`superseded it \\(${madrid.id}\\) was deleted`));
    expect(await found('where does the user live', user)).toEqual([berlin.id]);
  });

  it('hands the older memory to the successor when the deleted one was itself superseded', async () => {
    const user = 'history-middle';
    const paris = await store('The user lives in Paris', user);
    const rome = await store('The user lives in Rome', user);
    const oslo = await store('The user lives in Oslo', user);
    expect([rome.superseded_ids, oslo.superseded_ids]).toEqual([[paris.id], [rome.id]]);

    expect((await send('DELETE', `/v1/memories/${rome.id}`)).status).toBe(200);
    expect(await memory(paris.id)).toMatchObject({ status: 'superseded', superseded_by: oslo.id });
    const history = json(await send('GET', `/v1/memories/${oslo.id}/history`));
    expect(new Set(history.entries.map((e: { memory_id: string }) => e.memory_id))).toEqual(
      new Set([oslo.id, paris.id]),
    );
    expect(await found('where does the user live', user)).toEqual([oslo.id]);
  });

  it('hands over once when ten deletes of the same memory arrive at once', async () => {
    const user = 'history-burst';
    const first = await store('The user lives in Turin', user);
    const second = await store('The user lives in Milan', user);
    const answers = await Promise.all(Array.from({ length: 10 }, () => send('DELETE', `/v1/memories/${second.id}`)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, ...Array(9).fill(404)]);
    const restored = await memory(first.id);
    expect(restored).toMatchObject({ status: 'active', superseded_by: null });
    expect(restored.history.filter((h) => h.action === 'restored')).toHaveLength(1);
  });

  it('does the same when the memory is forgotten through /v1/forget', async () => {
    const user = 'history-forget';
    const tea = await store('The user lives in Lisbon', user);
    const coffee = await store('The user lives in Porto', user);
    const forgotten = await send('POST', '/v1/forget', { memory_id: coffee.id });
    expect(json(forgotten)).toMatchObject({ count: 1, ids: [coffee.id] });
    expect(await memory(tea.id)).toMatchObject({ status: 'active', superseded_by: null });
  });
});

describe('PATCH /v1/memories/:id', () => {
  it('cannot grow a semantic memory past the semantic content limit, and changes nothing', async () => {
    const { id } = await store('The user collects vinyl records', 'history-patch');
    const before = await stateOf(s.t.deps, ['acme'], s.t.redisPrefix);
    const answer = await send('PATCH', `/v1/memories/${id}`, { content: 'x'.repeat(501) });
    expect(answer.status).toBe(422);
    expect(json(answer).error.message).toMatch(/semantic content must be at most 500 characters/);
    expect(stateChanges(before, await stateOf(s.t.deps, ['acme'], s.t.redisPrefix))).toEqual([]);
  });

  it('status "active" on a superseded memory restores it: out of superseded_by and valid_until, back in search', async () => {
    const user = 'history-reactivate';
    const cat = await store('The user lives in Vienna', user);
    const dog = await store('The user lives in Prague', user);
    expect((await memory(cat.id)).valid_until).not.toBeNull();
    const answer = await send('PATCH', `/v1/memories/${cat.id}`, { status: 'active' });
    expect(answer.status, answer.body).toBe(200);
    expect(json(answer)).toMatchObject({ status: 'active', superseded_by: null, valid_until: null });
    expect(json(answer).history.at(-1)).toMatchObject({ action: 'restored', note: 'was superseded' });
    expect(new Set(await found('where does the user live', user))).toEqual(new Set([cat.id, dog.id]));
  });
});
