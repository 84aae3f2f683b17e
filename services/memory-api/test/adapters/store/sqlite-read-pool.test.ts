import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { AppError } from '@hindsight/errors';
import type { MemoryRecord } from '@hindsight/memory-model';
import { seededRandom } from '@hindsight/testing';
import { keywordTokens } from '@hindsight/text';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PooledSqliteStore } from '../../../src/adapters/store/sqlite/pooled-store.ts';
import { SqliteMemoryStore } from '../../../src/adapters/store/sqlite/store.ts';
import { CANDIDATE_FIELDS, type MemoryStore, type SearchScope } from '../../../src/memory/store-port.ts';
import { makeRecord } from '../../support/records.ts';
import { runMemoryStoreContract } from './contract.ts';

runMemoryStoreContract('sqlite with a read pool', {
  async create() {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-store-'));
    const path = join(dir, 'memory.db');
    return {
      store: new PooledSqliteStore(path, {}, 2),
      reopen: () => new PooledSqliteStore(path, {}, 2),
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  },
});

/**
 * The worker threads of a pooled store's read pool, for killing one as a crash would (nothing
 * outside the pool holds them).
 */
function readerThreads(store: PooledSqliteStore): Worker[] {
  const pool = (store as unknown as { pool: { workers: Array<{ worker: Worker }> } }).pool;
  return pool.workers.map((w) => w.worker);
}

const DIMENSION = 16;
const SPACE = { model: 'test-16', dimension: DIMENSION };
const WORDS =
  'garden sailing cello peanut allergy berlin madrid coffee tea running knee doctor invoice flight window seat cat dog piano spanish lesson budget quarterly report birthday gift'.split(
    ' ',
  );

function randomVector(random: () => number): Float32Array {
  const v = Float32Array.from({ length: DIMENSION }, () => random() * 2 - 1);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

function sentence(random: () => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
}

describe('sqlite read pool', () => {
  let dir: string;
  let pooled: PooledSqliteStore;
  let single: SqliteMemoryStore;
  const records: MemoryRecord[] = [];
  const random = seededRandom(18);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hindsight-read-pool-'));
    const path = join(dir, 'memory.db');
    pooled = new PooledSqliteStore(path, {}, 2);
    await pooled.open(SPACE);
    // 600 memories over 3 users, some archived, tagged, in sessions and at different times.
    const inserts = Array.from({ length: 600 }, (_, i) => {
      const record = makeRecord({
        content: `${sentence(random, 4 + (i % 9))} (note ${i})`,
        user_id: `u${i % 3}`,
        layer: i % 4 === 0 ? 'episodic' : 'semantic',
        session_id: i % 4 === 0 ? `s${i % 5}` : null,
        status: i % 17 === 0 ? 'archived' : 'active',
        tags: i % 6 === 0 ? ['work'] : [],
        occurred_at: new Date(Date.UTC(2025, 0, 1 + (i % 200))).toISOString(),
        embedding_model: SPACE.model,
      });
      records.push(record);
      return { record, vector: randomVector(random) };
    });
    for (let i = 0; i < inserts.length; i += 100) {
      await pooled.commit({ inserts: inserts.slice(i, i + 100), updates: [] });
    }
    // The single-connection path: the same file, the same adapter, reading on its own connection.
    single = new SqliteMemoryStore(path);
    await single.open(SPACE);
  });
  afterAll(async () => {
    await single?.close();
    await pooled?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const scopes = (): SearchScope[] => [
    { tenant: 't1', userId: 'u0', statuses: ['active'] },
    { tenant: 't1', userId: 'u1', statuses: ['active'], layers: ['semantic'] },
    { tenant: 't1', userId: 'u2', tags: ['work'] },
    { tenant: 't1', userId: 'u0', occurredFrom: Date.UTC(2025, 1, 1), occurredTo: Date.UTC(2025, 3, 1) },
    { tenant: 't2', userId: 'u0' },
  ];

  it('answers every read exactly as the single connection does, on the same fixture and queries', async () => {
    const queryRandom = seededRandom(7);
    for (let q = 0; q < 40; q++) {
      const vector = randomVector(queryRandom);
      const terms = keywordTokens(sentence(queryRandom, 1 + (q % 5)));
      for (const scope of scopes()) {
        const both = async <T>(read: (store: MemoryStore) => Promise<T>) => {
          const [a, b] = await Promise.all([read(pooled), read(single)]);
          expect(a).toEqual(b);
          return a;
        };
        const dense = await both((s) => s.vectorSearch(scope, vector, 20));
        const keyword = await both((s) => s.keywordSearch(scope, terms, 20));
        const ids = [...new Set([...dense, ...keyword].map((c) => c.id))];
        await both((s) => s.getMany(scope.tenant, ids));
        await both((s) => s.similarities(scope.tenant, ids, vector));
        await both((s) => s.count(scope));
        await both((s) => s.listIds(scope, 50));
      }
    }
    expect((await pooled.vectorSearch(scopes()[0] as SearchScope, randomVector(queryRandom), 20)).length).toBe(20);
  });

  it('answers whole searches exactly as the single connection does, vectors arriving in any order', async () => {
    const queryRandom = seededRandom(11);
    const searches = Array.from({ length: 60 }, (_, q) => ({
      scope: scopes()[q % scopes().length] as SearchScope,
      terms: keywordTokens(sentence(queryRandom, 1 + (q % 5))),
      vector: q % 7 === 0 ? undefined : randomVector(queryRandom),
      delayMs: Math.floor(queryRandom() * 15),
    }));
    // All at once on the pool: each worker holds several searches waiting for their vectors, which
    // come after a delay of their own (as query embeddings finish in any order).
    const pooledAnswers = await Promise.all(
      searches.map(({ scope, terms, vector, delayMs }) =>
        pooled.searchCandidates({
          scope,
          terms,
          k: 20,
          vector: new Promise((resolve) => setTimeout(() => resolve(vector), delayMs)),
        }),
      ),
    );
    for (const [i, { scope, terms, vector }] of searches.entries()) {
      const expected = await single.searchCandidates({ scope, terms, k: 20, vector: Promise.resolve(vector) });
      expect(pooledAnswers[i]).toEqual(expected);
      // And as the single calls answer it.
      const dense = vector ? await single.vectorSearch(scope, vector, 20) : [];
      expect(expected.dense).toEqual(dense);
      expect(expected.keyword).toEqual(await single.keywordSearch(scope, terms, 20));
      const ids = [...new Set([...expected.dense, ...expected.keyword].map((c) => c.id))];
      // What a search reads of each, as getMany answers it, and nothing more to read and copy across the thread.
      const whole = await single.getMany(scope.tenant, ids);
      expect(expected.records).toEqual(
        whole.map((record) => Object.fromEntries(CANDIDATE_FIELDS.map((field) => [field, record[field]]))),
      );
      for (const record of expected.records) expect(Object.keys(record).sort()).toEqual([...CANDIDATE_FIELDS].sort());
      const denseIds = new Set(dense.map((c) => c.id));
      const keywordOnly = expected.keyword.filter((c) => !denseIds.has(c.id)).map((c) => c.id);
      expect(expected.keywordOnlySimilarities).toEqual(
        vector ? await single.similarities(scope.tenant, keywordOnly, vector) : new Map(),
      );
    }
    expect(pooledAnswers.filter((a) => a.keywordOnlySimilarities.size > 0).length).toBeGreaterThan(0);
  });

  it('gives searches sent one at a time to every worker in turn, each answering as the single connection', async () => {
    const scope = scopes()[0] as SearchScope;
    const terms = keywordTokens('sailing berlin coffee');
    const vector = randomVector(seededRandom(9));
    const expected = await single.searchCandidates({ scope, terms, k: 20, vector: Promise.resolve(vector) });
    const threads = readerThreads(pooled);
    const before = threads.map((t) => t.performance.eventLoopUtilization());
    // One client: each search is answered before the next is sent, so every worker is equally idle.
    for (let i = 0; i < 8; i++) {
      expect(await pooled.searchCandidates({ scope, terms, k: 20, vector: Promise.resolve(vector) })).toEqual(expected);
    }
    const worked = threads.map((t, i) => t.performance.eventLoopUtilization(before[i]).active);
    expect(worked.every((ms) => ms > 0)).toBe(true);
  });

  it('fails the searches of a worker that dies, and answers the next ones from its replacement', async () => {
    const scope = scopes()[0] as SearchScope;
    const terms = keywordTokens('garden cello peanut');
    const vector = randomVector(seededRandom(5));
    const expected = await single.searchCandidates({ scope, terms, k: 20, vector: Promise.resolve(vector) });
    // Searches waiting on both workers for their vector, when one worker thread is killed.
    let giveVector: (v: Float32Array) => void = () => undefined;
    const later = new Promise<Float32Array | undefined>((resolve) => {
      giveVector = resolve;
    });
    const waiting = Array.from({ length: 4 }, () =>
      pooled.searchCandidates({ scope, terms, k: 20, vector: later }).then(
        (answer) => {
          expect(answer).toEqual(expected);
          return 'answered';
        },
        (error: Error) => error.message,
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await readerThreads(pooled)[0]?.terminate();
    giveVector(vector);
    const outcomes = await Promise.all(waiting);
    // Those on the killed worker fail at once; those on the other one answer when their vector comes.
    expect(outcomes.filter((o) => o === 'answered').length).toBeGreaterThan(0);
    expect(outcomes.filter((o) => /read worker stopped/.test(o)).length).toBeGreaterThan(0);
    expect(outcomes.every((o) => o === 'answered' || /read worker stopped/.test(o))).toBe(true);
    for (let i = 0; i < 6; i++) {
      expect(await pooled.searchCandidates({ scope, terms, k: 20, vector: Promise.resolve(vector) })).toEqual(expected);
    }
  });

  it('pages lists and reads single records like the single connection', async () => {
    for (const scope of scopes()) {
      let cursor: string | undefined;
      let pages = 0;
      do {
        const [a, b] = await Promise.all([pooled.list(scope, 37, cursor), single.list(scope, 37, cursor)]);
        expect(a).toEqual(b);
        cursor = a.nextCursor ?? undefined;
        pages++;
      } while (cursor !== undefined);
      expect(pages).toBeGreaterThan(0);
    }
    const some = records.slice(0, 30);
    for (const record of some) {
      expect(await pooled.get('t1', record.id)).toEqual(await single.get('t1', record.id));
      expect(
        await pooled.findActiveByHash('t1', record.user_id, record.layer as 'semantic', record.content_hash),
      ).toEqual(await single.findActiveByHash('t1', record.user_id, record.layer as 'semantic', record.content_hash));
    }
    expect(await pooled.countByLayer('t1')).toEqual(await single.countByLayer('t1'));
  });

  it('sees every acknowledged write at once, under concurrent writes and reads', async () => {
    const writes = Array.from({ length: 40 }, (_, i) => {
      const record = makeRecord({
        content: `read your writes zebracrossing ${i}`,
        user_id: 'ryw',
        embedding_model: SPACE.model,
      });
      return { record, vector: randomVector(random) };
    });
    await Promise.all(
      writes.map(async ({ record, vector }) => {
        await pooled.commit({ inserts: [{ record, vector }], updates: [] });
        // Acknowledged: every read from here on, on whichever worker, finds it.
        const scope = { tenant: 't1', userId: 'ryw' };
        const [got, dense, keyword] = await Promise.all([
          pooled.get('t1', record.id),
          pooled.vectorSearch(scope, vector, 1),
          pooled.keywordSearch(scope, keywordTokens(`zebracrossing ${record.content.split(' ').at(-1)}`), 50),
        ]);
        expect(got).toEqual(record);
        expect(dense[0]?.id).toBe(record.id);
        expect(keyword.map((k) => k.id)).toContain(record.id);
      }),
    );
    // An update and a delete are seen at once too.
    const first = writes[0]?.record as MemoryRecord;
    await pooled.commit({ inserts: [], updates: [{ record: { ...first, status: 'archived' } }] });
    expect((await pooled.get('t1', first.id))?.status).toBe('archived');
    expect(await pooled.deleteMany('t1', [first.id])).toBe(1);
    expect(await pooled.get('t1', first.id)).toBeUndefined();
  });

  it('keeps a read error typed across the thread boundary', async () => {
    const refused = await pooled.list({ tenant: 't1' }, 10, 'bm90LWEtY3Vyc29y').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).status).toBe(400);
    expect((refused as AppError).message).toMatch(/cursor/);
  });

  it('refuses to start readers on a store built in another space, and opens nothing', async () => {
    const other = new PooledSqliteStore(join(dir, 'memory.db'), {}, 1);
    await expect(other.open({ model: 'test-16', dimension: 8 })).rejects.toThrow(/dimension/);
  });
});
