import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BuiltinEmbedder, type Embedder } from '@hindsight/embedding';
import { createLogger } from '@hindsight/logger';
import { SearchRequest } from '@hindsight/memory-model';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteMemoryStore } from '../../src/adapters/store/sqlite/store.ts';
import { DEFAULT_DIALOGUE_FOCUS } from '../../src/memory/dialogue-focus.ts';
import { DEFAULT_RANKING } from '../../src/memory/ranking.ts';
import { DEFAULT_REDUNDANCY } from '../../src/memory/redundancy.ts';
import { createSearch } from '../../src/memory/search.ts';
import type { MemoryStore } from '../../src/memory/store-port.ts';
import { makeRecord } from '../support/records.ts';

/**
 * Issue 12 item 13: the read path on a real SQLite store whose calls are made to fail or stall
 * (a wrapper around the real adapter: a store that breaks on cue cannot be had otherwise), with
 * a real built-in embedder that answers slowly.
 */
const log = createLogger({ service: 'search-robustness-test', level: 'silent' });
const builtin = new BuiltinEmbedder({ dimension: 64 });
let dir: string;
let real: SqliteMemoryStore;

const slowEmbedder = (ms: number): Embedder => ({
  model: builtin.model,
  dimension: builtin.dimension,
  check: () => builtin.check(),
  embed: async (texts) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return builtin.embed(texts);
  },
});

/** The real store with one method replaced. */
const withStep = <K extends keyof MemoryStore>(name: K, step: MemoryStore[K]): MemoryStore =>
  new Proxy(real, {
    get: (target, property, receiver) =>
      property === name ? step : (Reflect.get(target, property, receiver) as unknown),
  }) as MemoryStore;

const settings = {
  ranking: DEFAULT_RANKING,
  dialogueFocus: DEFAULT_DIALOGUE_FOCUS,
  redundancy: DEFAULT_REDUNDANCY,
  deadlineMs: 300,
  candidateFactor: 4,
  minScore: 0,
  queryEmbedding: { timeoutMs: 2000, cooldownMs: 0 },
};
const request = (query: string) => SearchRequest.parse({ query, user_id: 'u1' });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hindsight-search-robustness-'));
  real = new SqliteMemoryStore(join(dir, 'memory.db'));
  await real.open({ model: builtin.model, dimension: builtin.dimension });
  const record = makeRecord({ tenant: 't1', content: 'The spare key is under the flowerpot' });
  await real.commit({ inserts: [{ record, vector: builtin.embedOne(record.content) }], updates: [] });
});
afterAll(async () => {
  await real.close();
  await rm(dir, { recursive: true, force: true });
});

describe('search robustness', () => {
  it('a keyword search failing while the query is embedded rejects the search, never the process', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const search = createSearch({
        store: withStep('keywordSearch', async () => {
          throw new Error('keyword index unreadable');
        }),
        embedder: slowEmbedder(100),
        settings,
        log,
      });
      await expect(search('t1', request('spare key'))).rejects.toThrow('keyword index unreadable');
      // Give a stray rejection the turn of the event loop it would need to surface.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('answers at the deadline with timed_out when the store stalls once the vector is known', async () => {
    // The store's part of the search (keywords, k-NN, rows) waits for the query vector, then never answers.
    const search = createSearch({
      store: withStep('searchCandidates', async (query) => {
        await query.vector;
        return new Promise(() => undefined);
      }),
      embedder: slowEmbedder(0),
      settings,
      log,
    });
    const answer = await search('t1', request('spare key'));
    expect(answer.timed_out).toBe(true);
    expect(answer.results).toEqual([]);
  });

  it('answers keyword results with timed_out when the query vector comes after the deadline', async () => {
    const search = createSearch({ store: real, embedder: slowEmbedder(1000), settings, log });
    const answer = await search('t1', request('spare key'));
    expect(answer.timed_out).toBe(true);
    expect(answer.results.map((r) => r.content)).toEqual(['The spare key is under the flowerpot']);
    expect(answer.results[0]?.scores.keyword).toBeGreaterThan(0);
  });

  it("counts a keyword-only candidate's similarity, read with its row", async () => {
    // The k-NN finds nothing: the memory is a keyword candidate only, and its cosine comes from the store's rows.
    const keywordOnly = createSearch({
      store: withStep('vectorSearch', async () => []),
      embedder: slowEmbedder(0),
      settings,
      log,
    });
    const both = createSearch({ store: real, embedder: slowEmbedder(0), settings, log });
    const [alone, found] = await Promise.all([
      keywordOnly('t1', request('spare key')),
      both('t1', request('spare key')),
    ]);
    expect(alone.timed_out).toBe(false);
    expect(alone.results.map((r) => r.id)).toEqual(found.results.map((r) => r.id));
    expect(alone.results[0]?.scores.similarity).toBeGreaterThan(0);
    expect(alone.results[0]?.scores.similarity).toBe(found.results[0]?.scores.similarity);
  });
});
