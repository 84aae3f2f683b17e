import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HistoryEntry, MemoryRecord } from '@hindsight/memory-model';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BurstReply, type BurstRequest, burst } from '../support/burst.ts';
import { type ServiceProcess, spawnService } from '../support/process.ts';

/**
 * Decide-and-commit under concurrency (issue 12, items 6–9), from the client's side: two real
 * memory-api replicas on one SQLite file and one Redis (as two replicas behind a load balancer),
 * requests released together by a barrier and spread over both, and each outcome compared with
 * what the same writes give one after the other.
 */
let dataDir: string;
let replicas: ServiceProcess[];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'hindsight-concurrency-'));
  const env = { DATA_DIR: dataDir, REDIS_PREFIX: `test-${randomUUID()}` };
  // One after the other: the first creates the schema, the second opens it.
  const first = await spawnService('memory-api', env);
  const second = await spawnService('memory-api', env);
  replicas = [first, second];
}, 90_000);

afterAll(async () => {
  await Promise.all((replicas ?? []).map((r) => r.stop('SIGTERM')));
  await rm(dataDir, { recursive: true, force: true });
});

const replica = (i: number) => (replicas[i % replicas.length] as ServiceProcess).url;

/** The same requests released together, alternating between the replicas. */
function together(path: string, bodies: readonly unknown[], headers?: Record<string, string>): Promise<BurstReply[]> {
  const requests: BurstRequest[] = bodies.map((body, i) => ({
    url: `${replica(i)}${path}`,
    body,
    ...(headers ? { headers } : {}),
  }));
  return burst(requests);
}

async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(`${replica(0)}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as T };
}

async function one(body: Record<string, unknown>): Promise<{ id: string; status: string; superseded_ids?: string[] }> {
  const reply = await call<{ id: string; status: string; superseded_ids?: string[] }>('POST', '/store', body);
  expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300);
  return reply.body;
}

async function memoriesOf(userId: string, status?: string): Promise<MemoryRecord[]> {
  const query = new URLSearchParams({ user_id: userId, limit: '1000', ...(status ? { status } : {}) });
  const reply = await call<{ items: MemoryRecord[] }>('GET', `/v1/memories?${query}`);
  expect(reply.status).toBe(200);
  return reply.body.items;
}

const memory = async (id: string): Promise<MemoryRecord> =>
  (await call<MemoryRecord>('GET', `/v1/memories/${id}`)).body;
const user = (name: string) => `${name}-${randomUUID().slice(0, 8)}`;
const noServerErrors = (replies: readonly BurstReply[]) =>
  expect(replies.filter((r) => r.status >= 500).map((r) => JSON.stringify(r.body))).toEqual([]);
const count = (entries: readonly HistoryEntry[], action: HistoryEntry['action']) =>
  entries.filter((e) => e.action === action).length;

describe('contradicting writes at the same moment (item 6)', () => {
  it('leaves exactly one of "I love Kenyan coffee" / "I quit Kenyan coffee" active, in every trial', async () => {
    const trials = 8;
    const active: number[] = [];
    for (let trial = 0; trial < trials; trial++) {
      const owner = user('pair');
      const replies = await together('/store', [
        { content: 'I love Kenyan coffee', memory_type: 'preference', user_id: owner },
        { content: 'I quit Kenyan coffee', memory_type: 'preference', user_id: owner },
      ]);
      noServerErrors(replies);
      active.push((await memoriesOf(owner, 'active')).length);
    }
    // One after the other, the second always supersedes the first.
    const owner = user('pair-sequential');
    await one({ content: 'I love Kenyan coffee', memory_type: 'preference', user_id: owner });
    await one({ content: 'I quit Kenyan coffee', memory_type: 'preference', user_id: owner });
    expect((await memoriesOf(owner, 'active')).length).toBe(1);
    expect(active).toEqual(Array(trials).fill(1));
  });

  it('leaves one of ten statements of the same key active, each superseded by another', async () => {
    for (let trial = 0; trial < 6; trial++) {
      const owner = user('timezone');
      const replies = await together(
        '/store',
        Array.from({ length: 10 }, (_, i) => ({
          content: `My timezone is UTC+${i + 1}`,
          memory_type: 'fact',
          user_id: owner,
        })),
      );
      noServerErrors(replies);
      const all = await memoriesOf(owner);
      expect(all.filter((m) => m.status === 'active').length).toBe(1);
      const ids = new Set(all.map((m) => m.id));
      for (const m of all.filter((r) => r.status === 'superseded')) expect(ids.has(m.superseded_by ?? '')).toBe(true);
    }
  });
});

describe('identical and near-identical writes at the same moment (item 7)', () => {
  it.each([
    ['semantic', 'fact'],
    ['episodic', 'episodic'],
  ])(
    'keeps one %s row with proof_count 20 for 20 identical writes, answering created once and duplicate 19 times',
    async (_layer, memoryType) => {
      const owner = user('identical');
      const replies = await together(
        '/store',
        Array.from({ length: 20 }, () => ({
          content: 'The user keeps a spare key under the mat',
          memory_type: memoryType,
          user_id: owner,
        })),
      );
      noServerErrors(replies);
      const statuses = replies.map((r) => (r.body as { status: string }).status).sort();
      expect(statuses).toEqual(['created', ...Array(19).fill('duplicate')]);
      const rows = await memoriesOf(owner);
      expect(rows.length).toBe(1);
      expect(rows[0]?.proof_count).toBe(20);
    },
  );

  it('merges 20 near-duplicates into what the same writes give one at a time, every merge in the history', async () => {
    const variants = [
      '.',
      '!',
      '!!',
      '...',
      ' :)',
      ' ☕',
      '?!',
      '!!!!',
      ';',
      ' !',
      '. ',
      '!!!',
      ' :-)',
      ' ;)',
      ' 🍵',
      ' …',
      ' ~',
      ' 👍',
      ' ^^',
      ' =)',
    ];
    const contents = variants.map((v) => `The user likes green tea${v}`);
    const sequential = user('near-sequential');
    for (const content of contents) await one({ content, memory_type: 'preference', user_id: sequential });
    const expected = await memoriesOf(sequential, 'active');
    // One after the other, the variants merge into one memory.
    expect(expected.length).toBe(1);

    const owner = user('near');
    const replies = await together(
      '/store',
      contents.map((content) => ({ content, memory_type: 'preference', user_id: owner })),
    );
    noServerErrors(replies);
    const active = await memoriesOf(owner, 'active');
    expect(active.length).toBe(expected.length);
    expect(active.reduce((sum, m) => sum + m.proof_count, 0)).toBe(20);
    // Every acknowledged merge left its trace in the memory it was merged into.
    const merged = replies.map((r) => r.body as { id: string; status: string }).filter((r) => r.status === 'merged');
    const mergesInto = new Map<string, number>();
    for (const { id } of merged) mergesInto.set(id, (mergesInto.get(id) ?? 0) + 1);
    for (const [id, n] of mergesInto) expect(count((await memory(id)).history, 'merged')).toBe(n);
  });

  it('lets only one of two writers supersede the same memory', async () => {
    for (let trial = 0; trial < 5; trial++) {
      const owner = user('claim');
      const seed = await one({
        content: 'The user drinks coffee every morning',
        memory_type: 'preference',
        user_id: owner,
      });
      const replies = await together('/store', [
        { content: 'The user has quit coffee', memory_type: 'preference', user_id: owner },
        { content: 'The user no longer drinks coffee', memory_type: 'preference', user_id: owner },
      ]);
      noServerErrors(replies);
      const claims = replies
        .map((r) => r.body as { id: string; superseded_ids?: string[] })
        .filter((r) => r.superseded_ids?.includes(seed.id));
      expect(claims.length).toBe(1);
      expect((await memory(seed.id)).superseded_by).toBe(claims[0]?.id);
    }
  });
});

describe('Idempotency-Key under concurrency (item 8)', () => {
  it('applies ten simultaneous twins once, answers each with the first answer, and replays it later', async () => {
    const owner = user('idem');
    const body = { content: 'The user parks on level 3 of the garage', memory_type: 'fact', user_id: owner };
    const key = `idem-${randomUUID()}`;
    const replies = await together('/store', Array(10).fill(body), { 'idempotency-key': key });
    noServerErrors(replies);
    const first = replies[0] as BurstReply;
    expect(first.status).toBe(201);
    for (const reply of replies) expect(reply).toEqual(first);
    const rows = await memoriesOf(owner);
    expect(rows.map((m) => m.proof_count)).toEqual([1]);

    const later = await fetch(`${replica(1)}/store`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    });
    expect({ status: later.status, body: await later.json() }).toEqual(first);
  });
});

describe('the same lost update elsewhere (item 9)', () => {
  it('never lets a decay pass bring back a memory superseded while it ran', async () => {
    const owner = user('decay');
    const lockers = 60;
    const ids: string[] = [];
    const items = Array.from({ length: lockers }, (_, i) => ({
      content: `The code of locker ${i} is ${1000 + i}`,
      memory_type: 'fact',
      user_id: owner,
    }));
    for (let i = 0; i < items.length; i += 20) {
      const reply = await call<{ items: Array<{ id: string }> }>('POST', '/v1/memories', {
        items: items.slice(i, i + 20),
      });
      expect(reply.status).toBe(201);
      ids.push(...reply.body.items.map((r) => r.id));
    }
    // Decay passes run back to back on one replica (each a day later, so every pass rewrites every
    // weight) while the other replica supersedes every locker's code.
    let passes = 0;
    let writing = true;
    const decay = (async () => {
      while (writing) {
        const now = new Date(Date.now() + (++passes % 20) * 86_400_000).toISOString();
        const reply = await fetch(`${replica(0)}/admin/maintenance/decay`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ now }),
        });
        expect(reply.status).toBeLessThan(500);
        await reply.arrayBuffer();
      }
    })();
    const claimed = new Set<string>();
    for (let i = 0; i < lockers; i += 10) {
      const replies = await burst(
        Array.from({ length: 10 }, (_, j) => ({
          url: `${replica(1)}/store`,
          body: { content: `The code of locker ${i + j} is ${5000 + i + j}`, memory_type: 'fact', user_id: owner },
        })),
      );
      noServerErrors(replies);
      for (const reply of replies)
        for (const id of (reply.body as { superseded_ids?: string[] }).superseded_ids ?? []) claimed.add(id);
    }
    writing = false;
    await decay;
    expect(passes).toBeGreaterThan(1);
    expect(claimed.size).toBeGreaterThan(lockers / 2);
    // Every memory a write answered as superseded is still superseded, linked to its successor.
    const all = await memoriesOf(owner);
    const back = all
      .filter((m) => claimed.has(m.id) && (m.status !== 'superseded' || m.superseded_by === null))
      .map((m) => m.content);
    expect(back).toEqual([]);
    expect(ids.length).toBe(lockers);
  });

  it.each([1, 2, 3, 4, 5])('keeps every one of five simultaneous PATCHes of different fields (trial %i)', async () => {
    const owner = user('patch');
    const { id } = await one({ content: 'The user collects vintage stamps', memory_type: 'fact', user_id: owner });
    const replies = await burst(
      [
        { tags: ['hobby'] },
        { confidence: 0.4 },
        { importance: 0.9 },
        { metadata: { source: 'chat' } },
        { category: 'preference' },
      ].map((body, i) => ({ url: `${replica(i)}/v1/memories/${id}`, method: 'PATCH' as const, body })),
    );
    noServerErrors(replies);
    expect(await memory(id)).toMatchObject({
      tags: ['hobby'],
      confidence: 0.4,
      importance: 0.9,
      metadata: { source: 'chat' },
      category: 'preference',
    });
  });

  it('keeps the previous text of each of ten simultaneous content edits in the history', async () => {
    const owner = user('edits');
    const { id } = await one({ content: 'The user walks the dog at 7', memory_type: 'fact', user_id: owner });
    const replies = await burst(
      Array.from({ length: 10 }, (_, i) => ({
        url: `${replica(i)}/v1/memories/${id}`,
        method: 'PATCH' as const,
        body: { content: `The user walks the dog at ${8 + i}` },
      })),
    );
    noServerErrors(replies);
    const edited = await memory(id);
    expect(count(edited.history, 'updated')).toBe(10);
  });

  it('keeps both a restore and a simultaneous tag edit of the same memory', async () => {
    for (let trial = 0; trial < 5; trial++) {
      const owner = user('restore');
      const old = await one({ content: 'The user lives in Berlin', memory_type: 'fact', user_id: owner });
      await one({ content: 'The user moved from Berlin to Madrid', memory_type: 'fact', user_id: owner });
      expect((await memory(old.id)).status).toBe('superseded');
      const replies = await burst([
        { url: `${replica(0)}/v1/memories/${old.id}/restore`, body: {} },
        { url: `${replica(1)}/v1/memories/${old.id}`, method: 'PATCH' as const, body: { tags: ['moved'] } },
      ]);
      noServerErrors(replies);
      expect(await memory(old.id)).toMatchObject({ status: 'active', superseded_by: null, tags: ['moved'] });
    }
  });

  it('keeps one active profile when summarize jobs save at the same moment, earlier texts in its history', async () => {
    const owner = user('profile');
    const replies = await burst(
      Array.from({ length: 10 }, (_, i) => ({
        url: `${replica(i)}/v1/users/${owner}/summary`,
        method: 'PUT' as const,
        body: { content: `Profile draft ${i}: likes tea, lives in Lisbon, works as a nurse.` },
      })),
    );
    noServerErrors(replies);
    const profiles = (await memoriesOf(owner, 'active')).filter((m) => m.category === 'profile');
    expect(profiles.length).toBe(1);
    expect(count((profiles[0] as MemoryRecord).history, 'updated')).toBe(9);
  });
});
