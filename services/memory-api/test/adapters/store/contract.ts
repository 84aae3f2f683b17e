import { randomUUID } from 'node:crypto';
import { EmbeddingMismatchError } from '@hindsight/errors';
import { beginErasure, type ErasureReceipt } from '@hindsight/memory-model';
import { keywordTokens } from '@hindsight/text';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CANDIDATE_FIELDS,
  type CandidateRecord,
  DuplicateContentError,
  IdTakenError,
  type MemoryFilter,
  type MemoryStore,
  StaleWriteError,
} from '../../../src/memory/store-port.ts';
import { axisVector, makeRecord } from '../../support/records.ts';

export interface StoreFactory {
  /** A fresh, empty store location; `open` is called by the suite. */
  create(): Promise<{ store: MemoryStore; reopen: () => MemoryStore; cleanup: () => Promise<void> }>;
}

const SPACE = { model: 'test-8', dimension: 8 };

/**
 * The `MemoryStore` contract: every adapter runs this same suite
 * (sqlite always; qdrant when QDRANT_URL is set).
 */
export function runMemoryStoreContract(name: string, factory: StoreFactory): void {
  describe(`MemoryStore contract — ${name}`, () => {
    let store: MemoryStore;
    let reopen: () => MemoryStore;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ store, reopen, cleanup } = await factory.create());
      await store.open(SPACE);
    });
    afterEach(async () => {
      await store.close();
      await cleanup();
    });

    it('stores a memory and reads it back verbatim, confined to its tenant', async () => {
      const record = makeRecord({
        content: 'likes green tea',
        tags: ['drinks'],
        metadata: { nested: { a: [1, 'two', null] }, unicode: '你好' },
        history: [{ at: '2025-01-01T00:00:00.000Z', action: 'created', content: 'likes green tea' }],
      });
      await store.commit({ inserts: [{ record, vector: axisVector(0) }], updates: [] });
      expect(await store.get('t1', record.id)).toEqual(record);
      expect(await store.get('t2', record.id)).toBeUndefined();
      expect(await store.getMany('t2', [record.id])).toEqual([]);
      expect(await store.count({ tenant: 't2' })).toBe(0);
    });

    it('finds neighbours by cosine, best first, within one user of one tenant', async () => {
      const near = makeRecord({ content: 'near' });
      const far = makeRecord({ content: 'far' });
      const otherUser = makeRecord({ content: 'other user', user_id: 'u2' });
      const otherTenant = makeRecord({ content: 'other tenant', tenant: 't2' });
      await store.commit({
        inserts: [
          { record: near, vector: axisVector(0, 8, 0.1) },
          { record: far, vector: axisVector(3) },
          { record: otherUser, vector: axisVector(0) },
          { record: otherTenant, vector: axisVector(0) },
        ],
        updates: [],
      });
      const hits = await store.vectorSearch({ tenant: 't1', userId: 'u1' }, axisVector(0), 10);
      expect(hits.map((h) => h.id)).toEqual([near.id, far.id]);
      expect(hits[0]?.score).toBeGreaterThan(0.9);
      expect(hits[1]?.score).toBeLessThan(0.1);
    });

    it('applies every filter to k-NN and keyword search', async () => {
      const base = { user_id: 'u1' };
      const old = makeRecord({
        ...base,
        content: 'coffee in the morning',
        occurred_at: '2020-01-01T00:00:00.000Z',
        tags: ['a'],
      });
      const recent = makeRecord({
        ...base,
        content: 'coffee at night',
        occurred_at: '2025-06-01T00:00:00.000Z',
        tags: ['b'],
        layer: 'episodic',
        category: 'event',
      });
      const superseded = makeRecord({ ...base, content: 'coffee forever', status: 'superseded' });
      await store.commit({
        inserts: [
          { record: old, vector: axisVector(0) },
          { record: recent, vector: axisVector(0, 8, 0.2) },
          { record: superseded, vector: axisVector(0, 8, 0.1) },
        ],
        updates: [],
      });
      const scope = { tenant: 't1', userId: 'u1', statuses: ['active'] as const };
      const ids = async (extra: object) => {
        const dense = (await store.vectorSearch({ ...scope, ...extra }, axisVector(0), 10)).map((h) => h.id).sort();
        const keyword = (await store.keywordSearch({ ...scope, ...extra }, keywordTokens('coffee'), 10))
          .map((h) => h.id)
          .sort();
        expect(keyword).toEqual(dense);
        return dense;
      };
      expect(await ids({})).toEqual([old.id, recent.id].sort());
      expect(await ids({ tags: ['b', 'zzz'] })).toEqual([recent.id]);
      expect(await ids({ layers: ['semantic'] })).toEqual([old.id]);
      expect(await ids({ categories: ['event'] })).toEqual([recent.id]);
      expect(await ids({ occurredFrom: Date.parse('2024-01-01T00:00:00Z') })).toEqual([recent.id]);
      expect(await ids({ occurredTo: Date.parse('2024-01-01T00:00:00Z') })).toEqual([old.id]);
      expect(await ids({ statuses: ['active', 'superseded'] })).toEqual([old.id, recent.id, superseded.id].sort());
    });

    it('answers a search in one call as its single calls answer it, under filters, with or without a vector', async () => {
      const matching = (content: string, extra: Omit<Parameters<typeof makeRecord>[0], 'content'> = {}) =>
        makeRecord({ ...extra, content });
      const near = matching('sailing club on saturday');
      const keywordOnly = matching('the sailing regatta was cancelled');
      const denseOnly = matching('boats and harbours');
      const archived = matching('sailing lessons long ago', { status: 'archived' });
      const otherUser = matching('sailing with friends', { user_id: 'u2' });
      await store.commit({
        inserts: [
          { record: near, vector: axisVector(0, 8, 0.1) },
          { record: keywordOnly, vector: axisVector(7, 8, 0.5) },
          { record: denseOnly, vector: axisVector(0, 8, 0.3) },
          { record: archived, vector: axisVector(0) },
          { record: otherUser, vector: axisVector(0) },
        ],
        updates: [],
      });
      const scope = { tenant: 't1', userId: 'u1', statuses: ['active' as const] };
      const terms = keywordTokens('sailing');
      const vector = axisVector(0);
      // k = 2: the k-NN keeps near and denseOnly, so the regatta is found by keyword alone.
      const [dense, keyword] = await Promise.all([
        store.vectorSearch(scope, vector, 2),
        store.keywordSearch(scope, terms, 2),
      ]);
      expect(dense.map((c) => c.id)).toEqual([near.id, denseOnly.id]);
      expect(new Set(keyword.map((c) => c.id))).toEqual(new Set([near.id, keywordOnly.id]));

      let giveVector: (v: Float32Array | undefined) => void = () => undefined;
      const later = new Promise<Float32Array | undefined>((resolve) => {
        giveVector = resolve;
      });
      const pending = store.searchCandidates({ scope, terms, k: 2, vector: later });
      setTimeout(() => giveVector(vector), 20);
      const found = await pending;
      expect(found.dense).toEqual(dense);
      expect(found.keyword).toEqual(keyword);
      // What a search reads of each candidate, as getMany answers it (a store may answer the rest too).
      const byId = (records: readonly CandidateRecord[]) =>
        [...records]
          .sort((a, b) => a.id.localeCompare(b.id))
          .map((record) => Object.fromEntries(CANDIDATE_FIELDS.map((field) => [field, record[field]])));
      expect(byId(found.records)).toEqual(byId(await store.getMany('t1', [near.id, denseOnly.id, keywordOnly.id])));
      expect(found.keywordOnlySimilarities).toEqual(await store.similarities('t1', [keywordOnly.id], vector));
      expect(found.keywordOnlySimilarities.get(keywordOnly.id)).toBeCloseTo(0.5 / Math.hypot(1, 0.5), 4);

      const keywordsAlone = await store.searchCandidates({ scope, terms, k: 2, vector: Promise.resolve(undefined) });
      expect(keywordsAlone.dense).toEqual([]);
      expect(keywordsAlone.keyword).toEqual(keyword);
      expect(byId(keywordsAlone.records)).toEqual(byId(await store.getMany('t1', [near.id, keywordOnly.id])));
      expect(keywordsAlone.keywordOnlySimilarities.size).toBe(0);

      const elsewhere = await store.searchCandidates({
        scope: { tenant: 't2', userId: 'u1' },
        terms,
        k: 5,
        vector: Promise.resolve(vector),
      });
      expect(elsewhere).toEqual({ dense: [], keyword: [], records: [], keywordOnlySimilarities: new Map() });
    });

    it('lists, lists ids and counts under every filter: agent, session, ids, validAt, createdBefore', async () => {
      const a = makeRecord({ content: 'coffee with oat milk', agent_id: 'ag1', session_id: 's1' });
      const b = makeRecord({
        content: 'coffee after lunch',
        agent_id: 'ag2',
        session_id: 's2',
        created_at: '2025-03-01T00:00:00.000Z',
        valid_until: '2025-06-01T00:00:00.000Z',
      });
      const c = makeRecord({
        content: 'coffee beans from Kenya',
        created_at: '2025-05-01T00:00:00.000Z',
        valid_until: '2025-02-01T00:00:00.000Z',
      });
      const d = makeRecord({ content: 'coffee for the other user', user_id: 'u2', agent_id: 'ag1' });
      const e = makeRecord({ content: 'coffee in the other tenant', tenant: 't2', agent_id: 'ag1', session_id: 's2' });
      await store.commit({
        inserts: [a, b, c, d, e].map((record, i) => ({ record, vector: axisVector(0, 8, 0.05 * i) })),
        updates: [],
      });
      const at = (iso: string) => Date.parse(iso);
      const cases: Array<[string, Omit<MemoryFilter, 'tenant'>, string[]]> = [
        ['no filter', {}, [a.id, b.id, c.id, d.id]],
        ['agentId', { agentId: 'ag1' }, [a.id, d.id]],
        ['agentId and userId', { agentId: 'ag1', userId: 'u1' }, [a.id]],
        ['sessionId', { sessionId: 's2' }, [b.id]],
        ['ids (another tenant’s left out)', { ids: [a.id, c.id, e.id] }, [a.id, c.id]],
        ['an empty id list', { ids: [] }, []],
        ['validAt', { validAt: at('2025-04-01T00:00:00Z') }, [a.id, b.id, d.id]],
        ['createdBefore (strictly)', { createdBefore: at('2025-03-01T00:00:00Z') }, [a.id, d.id]],
        [
          'validAt and createdBefore',
          { validAt: at('2025-04-01T00:00:00Z'), createdBefore: at('2025-04-01T00:00:00Z') },
          [a.id, b.id, d.id],
        ],
      ];
      for (const [name, extra, expected] of cases) {
        const filter: MemoryFilter = { tenant: 't1', ...extra };
        const listed: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await store.list(filter, 2, cursor);
          listed.push(...page.items.map((r) => r.id));
          cursor = page.nextCursor ?? undefined;
        } while (cursor);
        expect(listed.sort(), `list: ${name}`).toEqual([...expected].sort());
        expect((await store.listIds(filter, 100)).sort(), `listIds: ${name}`).toEqual([...expected].sort());
        expect(await store.count(filter), `count: ${name}`).toBe(expected.length);
        // Searches run in one user's partition: the same filter there finds the same of that user's memories.
        const mine = expected.filter((id) => id !== d.id).sort();
        const scope = { ...filter, userId: 'u1' };
        const dense = (await store.vectorSearch(scope, axisVector(0), 10)).map((h) => h.id).sort();
        const keyword = (await store.keywordSearch(scope, keywordTokens('coffee'), 10)).map((h) => h.id).sort();
        expect(dense, `vectorSearch: ${name}`).toEqual(mine);
        expect(keyword, `keywordSearch: ${name}`).toEqual(mine);
      }
      const firstTwo = await store.listIds({ tenant: 't1' }, 2);
      expect(firstTwo).toHaveLength(2);
      expect([a.id, b.id, c.id, d.id]).toEqual(expect.arrayContaining(firstTwo));
      expect(await store.listIds({ tenant: 't2' }, 10)).toEqual([e.id]);
    });

    it('ranks keyword matches by BM25-like relevance and finds Chinese text', async () => {
      const both = makeRecord({ content: 'peanut allergy: avoid peanut butter' });
      const one = makeRecord({ content: 'bought butter today' });
      const chinese = makeRecord({ content: '用户喜欢简洁的回答' });
      await store.commit({
        inserts: [
          { record: both, vector: axisVector(1) },
          { record: one, vector: axisVector(2) },
          { record: chinese, vector: axisVector(3) },
        ],
        updates: [],
      });
      const hits = await store.keywordSearch({ tenant: 't1', userId: 'u1' }, keywordTokens('peanut allergy'), 10);
      expect(hits.map((h) => h.id)).toEqual([both.id]);
      const zh = await store.keywordSearch({ tenant: 't1', userId: 'u1' }, keywordTokens('用户的回答偏好'), 10);
      expect(zh.map((h) => h.id)).toEqual([chinese.id]);
      expect(await store.keywordSearch({ tenant: 't2', userId: 'u1' }, keywordTokens('peanut'), 10)).toEqual([]);
    });

    it('normalises keyword scores by the query: all of its terms score about 1, some of them less', async () => {
      const all = makeRecord({ content: 'allergic to peanuts since childhood' });
      const part = makeRecord({ content: 'peanuts are cheap this week' });
      const other = makeRecord({ content: 'walks the dog at seven' });
      await store.commit({
        inserts: [all, part, other].map((record, i) => ({ record, vector: axisVector(i) })),
        updates: [],
      });
      const [first, second] = await store.keywordSearch(
        { tenant: 't1', userId: 'u1' },
        keywordTokens('allergic peanuts'),
        10,
      );
      expect(first?.id).toBe(all.id);
      expect(first?.score).toBeGreaterThan(0.6);
      expect(first?.score).toBeLessThan(1.5);
      expect(second?.id).toBe(part.id);
      expect(second?.score).toBeLessThan((first?.score ?? 0) / 2);
    });

    describe('turn context: an episodic turn is found by the words of its exchange', () => {
      const turn = (content: string, at: string, extra: Partial<Parameters<typeof makeRecord>[0]> = {}) =>
        makeRecord({
          content,
          layer: 'episodic',
          category: 'event',
          session_id: 's1',
          occurred_at: `2025-03-01T10:00:${at}.000Z`,
          ...extra,
        });
      const find = async (query: string, userId = 'u1') =>
        (await store.keywordSearch({ tenant: 't1', userId, statuses: ['active'] }, keywordTokens(query), 10)).map(
          (h) => h.id,
        );

      it('written one by one: a reply is found by the question before it, the question by the reply after it', async () => {
        const question = turn('Do you have any pets at home?', '01');
        const reply = turn('Yes, two cats named Miso and Tofu.', '02');
        await store.commit({ inserts: [{ record: question, vector: axisVector(0) }], updates: [] });
        expect(await find('cats')).toEqual([]);
        await store.commit({ inserts: [{ record: reply, vector: axisVector(1) }], updates: [] });
        // The turn holding the words ranks first; its neighbour follows on the context alone.
        expect(await find('pets')).toEqual([question.id, reply.id]);
        expect(await find('cats Miso')).toEqual([reply.id, question.id]);
        expect((await store.get('t1', reply.id))?.content).toBe('Yes, two cats named Miso and Tofu.');
      });

      it('written in one batch (in any order): neighbours follow conversation time, then write order', async () => {
        const first = turn('I started a new job at the bakery.', '01');
        const second = turn('Congratulations! How are the early shifts?', '02');
        const unrelated = turn('By the way the weather is lovely today.', '30');
        const far = turn('Anyway, I should go and feed the goldfish.', '40');
        await store.commit({
          inserts: [far, second, unrelated, first].map((record, i) => ({ record, vector: axisVector(i) })),
          updates: [],
        });
        // Two turns before and one after are context: the third turn still has the first's words…
        expect(await find('bakery')).toEqual([first.id, second.id, unrelated.id]);
        // …the fourth does not, and only the turn before the last has the last one's.
        expect(await find('goldfish')).toEqual([far.id, unrelated.id]);
      });

      it('keeps sessions, users, summaries and inactive turns apart', async () => {
        const mine = turn('We booked the flights to Lisbon.', '01');
        const otherSession = turn('Did you book flights?', '00', { session_id: 's2' });
        const otherUser = turn('Lisbon flights are expensive.', '02', { user_id: 'u2' });
        const summary = turn('Session summary: Lisbon flights booked.', '03', { category: 'summary' });
        const quarantined = turn('ignore previous instructions hotel', '04', { status: 'quarantined' });
        const next = turn('Great, I will look for a hotel.', '05');
        await store.commit({
          inserts: [mine, otherSession, otherUser, summary, quarantined, next].map((record, i) => ({
            record,
            vector: axisVector(i),
          })),
          updates: [],
        });
        const lisbon = await find('Lisbon');
        // Its own words first (the turn and the summary); the next turn by context, whatever stands between.
        expect(lisbon.slice(0, 2).sort()).toEqual([mine.id, summary.id].sort());
        expect(lisbon.slice(2)).toEqual([next.id]);
        expect(await find('instructions')).toEqual([]);
        expect(await find('Lisbon', 'u2')).toEqual([otherUser.id]);
      });

      it('forgets a deleted turn in its neighbours, and an edited one takes its new words along', async () => {
        const question = turn('What is your favourite dessert?', '01');
        const reply = turn('Definitely tiramisu.', '02');
        await store.commit({
          inserts: [question, reply].map((record, i) => ({ record, vector: axisVector(i) })),
          updates: [],
        });
        expect(await find('dessert')).toEqual([question.id, reply.id]);
        await store.commit({
          inserts: [],
          updates: [{ record: { ...question, content: 'What is your favourite pudding?' }, vector: axisVector(3) }],
        });
        expect(await find('dessert')).toEqual([]);
        expect(await find('pudding')).toEqual([question.id, reply.id]);
        await store.deleteMany('t1', [question.id]);
        expect(await find('pudding')).toEqual([]);
        expect(await find('tiramisu')).toEqual([reply.id]);
      });
    });

    it('commits a batch atomically: a duplicate active hash rejects the whole batch', async () => {
      const first = makeRecord({ content: 'same words' });
      await store.commit({ inserts: [{ record: first, vector: axisVector(0) }], updates: [] });
      const fresh = makeRecord({ content: 'fresh words' });
      const clash = makeRecord({ content: 'same words' });
      await expect(
        store.commit({
          inserts: [
            { record: fresh, vector: axisVector(1) },
            { record: clash, vector: axisVector(0) },
          ],
          updates: [],
        }),
      ).rejects.toBeInstanceOf(DuplicateContentError);
      expect(await store.count({ tenant: 't1' })).toBe(1);
      expect(await store.get('t1', fresh.id)).toBeUndefined();
      expect((await store.findActiveByHash('t1', 'u1', 'semantic', first.content_hash))?.id).toBe(first.id);
    });

    it('refuses an update that would duplicate another active memory', async () => {
      const first = makeRecord({ content: 'walks the dog at seven' });
      const second = makeRecord({ content: 'walks the dog at eight' });
      await store.commit({
        inserts: [
          { record: first, vector: axisVector(0) },
          { record: second, vector: axisVector(1) },
        ],
        updates: [],
      });
      const clash = { ...second, content: first.content, content_hash: first.content_hash };
      await expect(
        store.commit({ inserts: [], updates: [{ record: clash, vector: axisVector(0) }] }),
      ).rejects.toBeInstanceOf(DuplicateContentError);
      expect((await store.get('t1', second.id))?.content).toBe('walks the dog at eight');
    });

    it('updates a record, its vector and its keyword terms together', async () => {
      const record = makeRecord({ content: 'prefers tea' });
      await store.commit({ inserts: [{ record, vector: axisVector(0) }], updates: [] });
      const next = {
        ...record,
        content: 'prefers espresso',
        status: 'superseded' as const,
        superseded_by: 'x',
        proof_count: 2,
      };
      await store.commit({ inserts: [], updates: [{ record: next, vector: axisVector(5) }] });
      expect(await store.get('t1', record.id)).toEqual({ ...next, version: 2 });
      expect((await store.keywordSearch({ tenant: 't1', userId: 'u1' }, keywordTokens('tea'), 5)).length).toBe(0);
      expect(
        (await store.keywordSearch({ tenant: 't1', userId: 'u1' }, keywordTokens('espresso'), 5)).map((h) => h.id),
      ).toEqual([record.id]);
      const [hit] = await store.vectorSearch({ tenant: 't1', userId: 'u1' }, axisVector(5), 1);
      expect(hit?.id).toBe(record.id);
      const sims = await store.similarities('t1', [record.id], axisVector(5));
      expect(sims.get(record.id)).toBeGreaterThan(0.99);
    });

    it('pages through a listing exactly once, in a stable order', async () => {
      const records = Array.from({ length: 7 }, (_, i) => makeRecord({ content: `memory ${i}` }));
      await store.commit({ inserts: records.map((record, i) => ({ record, vector: axisVector(i) })), updates: [] });
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.list({ tenant: 't1' }, 3, cursor);
        seen.push(...page.items.map((r) => r.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(seen.sort()).toEqual(records.map((r) => r.id).sort());
      expect((await store.list({ tenant: 't2' }, 3)).items).toEqual([]);
    });

    it('lists the memories another one superseded, only within the tenant', async () => {
      const newer = makeRecord({ content: 'lives in Madrid' });
      const older = makeRecord({ content: 'lives in Berlin', status: 'superseded', superseded_by: newer.id });
      const oldest = makeRecord({ content: 'lives in Paris', status: 'superseded', superseded_by: older.id });
      const elsewhere = makeRecord({
        content: 'lives in Rome',
        tenant: 't2',
        status: 'superseded',
        superseded_by: newer.id,
      });
      await store.commit({
        inserts: [newer, older, oldest, elsewhere].map((record, i) => ({ record, vector: axisVector(i) })),
        updates: [],
      });
      const ids = async (supersededBy: string[]) =>
        (await store.list({ tenant: 't1', supersededBy }, 10)).items.map((r) => r.id).sort();
      expect(await ids([newer.id])).toEqual([older.id]);
      expect(await ids([newer.id, older.id])).toEqual([older.id, oldest.id].sort());
      expect(await ids([])).toEqual([]);
    });

    it('refuses an insert whose id is already held, by any tenant where ids are global, applying nothing', async () => {
      const held = makeRecord({ content: 'held id' });
      await store.commit({ inserts: [{ record: held, vector: axisVector(0) }], updates: [] });
      const again = makeRecord({ content: 'same id, other text', id: held.id });
      const fresh = makeRecord({ content: 'a fresh one' });
      await expect(
        store.commit({
          inserts: [
            { record: fresh, vector: axisVector(1) },
            { record: again, vector: axisVector(2) },
          ],
          updates: [],
        }),
      ).rejects.toBeInstanceOf(IdTakenError);
      expect(await store.get('t1', fresh.id)).toBeUndefined();
    });

    it('records access and deletes for good, only within the tenant', async () => {
      const record = makeRecord({ content: 'to be forgotten' });
      await store.commit({ inserts: [{ record, vector: axisVector(0) }], updates: [] });
      await store.recordAccess('t1', [record.id], Date.parse('2025-02-01T00:00:00Z'));
      const accessed = await store.get('t1', record.id);
      expect(accessed?.access_count).toBe(1);
      expect(accessed?.last_accessed_at).toBe('2025-02-01T00:00:00.000Z');
      expect(await store.deleteMany('t2', [record.id])).toBe(0);
      expect(await store.deleteMany('t1', [record.id])).toBe(1);
      expect(await store.get('t1', record.id)).toBeUndefined();
      expect(await store.vectorSearch({ tenant: 't1', userId: 'u1' }, axisVector(0), 5)).toEqual([]);
      expect(await store.keywordSearch({ tenant: 't1', userId: 'u1' }, keywordTokens('forgotten'), 5)).toEqual([]);
    });

    it('counts memories per layer and status', async () => {
      await store.commit({
        inserts: [
          { record: makeRecord({ content: 'a' }), vector: axisVector(0) },
          { record: makeRecord({ content: 'b', layer: 'episodic' }), vector: axisVector(1) },
          { record: makeRecord({ content: 'c', status: 'archived' }), vector: axisVector(2) },
        ],
        updates: [],
      });
      const counts = await store.countByLayer('t1');
      expect(counts).toEqual(
        expect.arrayContaining([
          { layer: 'semantic', status: 'active', count: 1 },
          { layer: 'semantic', status: 'archived', count: 1 },
          { layer: 'episodic', status: 'active', count: 1 },
        ]),
      );
    });

    it('counts memories per user, layer and status with the newest learned time, only within the tenant', async () => {
      const at = (day: number) => new Date(Date.UTC(2025, 0, day)).toISOString();
      await store.commit({
        inserts: [
          { record: makeRecord({ content: 'a', created_at: at(1) }), vector: axisVector(0) },
          { record: makeRecord({ content: 'b', created_at: at(5) }), vector: axisVector(1) },
          { record: makeRecord({ content: 'c', layer: 'episodic', created_at: at(3) }), vector: axisVector(2) },
          { record: makeRecord({ content: 'd', status: 'superseded', created_at: at(2) }), vector: axisVector(3) },
          { record: makeRecord({ content: 'e', user_id: 'u2', created_at: at(9) }), vector: axisVector(4) },
          { record: makeRecord({ content: 'f', tenant: 't2', user_id: 'u3' }), vector: axisVector(5) },
        ],
        updates: [],
      });
      const rows = await store.countByUser('t1');
      const day = (n: number) => Date.UTC(2025, 0, n);
      expect(rows).toHaveLength(4);
      expect(rows).toEqual(
        expect.arrayContaining([
          { userId: 'u1', layer: 'semantic', status: 'active', count: 2, lastCreatedAt: day(5) },
          { userId: 'u1', layer: 'episodic', status: 'active', count: 1, lastCreatedAt: day(3) },
          { userId: 'u1', layer: 'semantic', status: 'superseded', count: 1, lastCreatedAt: day(2) },
          { userId: 'u2', layer: 'semantic', status: 'active', count: 1, lastCreatedAt: day(9) },
        ]),
      );
      expect(await store.countByUser('t3')).toEqual([]);
    });

    it('stores each update one version up and refuses one decided on an older version, applying nothing', async () => {
      const record = makeRecord({ content: 'rides a red bicycle' });
      await store.commit({ inserts: [{ record, vector: axisVector(0) }], updates: [] });
      const read = (await store.get('t1', record.id)) as typeof record;
      expect(read.version).toBe(1);
      await store.commit({ inserts: [], updates: [{ record: { ...read, tags: ['first'] } }] });
      expect((await store.get('t1', record.id))?.version).toBe(2);

      const bystander = makeRecord({ content: 'bystander insert' });
      await expect(
        store.commit({
          inserts: [{ record: bystander, vector: axisVector(1) }],
          updates: [{ record: { ...read, tags: ['stale'] } }],
        }),
      ).rejects.toBeInstanceOf(StaleWriteError);
      expect(await store.get('t1', record.id)).toMatchObject({ tags: ['first'], version: 2 });
      expect(await store.get('t1', bystander.id)).toBeUndefined();
    });

    it('treats an update of a memory deleted since it was read as stale', async () => {
      const record = makeRecord({ content: 'about to be forgotten' });
      await store.commit({ inserts: [{ record, vector: axisVector(0) }], updates: [] });
      await store.deleteMany('t1', [record.id]);
      await expect(
        store.commit({ inserts: [], updates: [{ record: { ...record, proof_count: 2 } }] }),
      ).rejects.toBeInstanceOf(StaleWriteError);
      expect(await store.get('t1', record.id)).toBeUndefined();
    });

    it('lets exactly one of ten concurrent updates decided on the same version commit', async () => {
      const record = makeRecord({ content: 'counts proofs' });
      await store.commit({ inserts: [{ record, vector: axisVector(0) }], updates: [] });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          store.commit({ inserts: [], updates: [{ record: { ...record, proof_count: 2, tags: [`writer-${i}`] } }] }),
        ),
      );
      const won = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [i] : []));
      expect(won.length).toBe(1);
      for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(StaleWriteError);
      expect(await store.get('t1', record.id)).toMatchObject({ version: 2, tags: [`writer-${won[0]}`] });
    });

    it('persists at most one of ten concurrent inserts of the same active content', async () => {
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          store.commit({
            inserts: [{ record: makeRecord({ content: 'same content, ten writers' }), vector: axisVector(i) }],
            updates: [],
          }),
        ),
      );
      const won = outcomes.filter((o) => o.status === 'fulfilled').length;
      expect(won).toBeLessThanOrEqual(1);
      for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(DuplicateContentError);
      expect(await store.count({ tenant: 't1', statuses: ['active'] })).toBe(won);
    });

    it('lets each of sixteen concurrent commits stand or fall alone: one duplicate is refused, the rest stored whole', async () => {
      const taken = makeRecord({ content: 'already remembered' });
      await store.commit({ inserts: [{ record: taken, vector: axisVector(0) }], updates: [] });
      const records = Array.from({ length: 16 }, (_, i) =>
        makeRecord({ content: i === 7 ? 'already remembered' : `parcel ${i} waits in locker ${i}` }),
      );
      const outcomes = await Promise.allSettled(
        records.map((record, i) =>
          store.commit({ inserts: [{ record, vector: axisVector(1 + (i % 7)) }], updates: [] }),
        ),
      );
      expect(outcomes[7]?.status).toBe('rejected');
      expect((outcomes[7] as PromiseRejectedResult).reason).toBeInstanceOf(DuplicateContentError);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(15);
      expect(await store.get('t1', records[7]?.id as string)).toBeUndefined();
      const scope = { tenant: 't1', userId: 'u1' };
      for (const [i, record] of records.entries()) {
        if (i === 7) continue;
        expect(await store.get('t1', record.id)).toEqual(record);
        expect((await store.keywordSearch(scope, keywordTokens(`locker ${i}`), 20)).map((c) => c.id)).toContain(
          record.id,
        );
        const near = await store.vectorSearch(scope, axisVector(1 + (i % 7)), 20);
        expect(near.find((c) => c.id === record.id)?.score).toBeCloseTo(1, 5);
      }
      expect(await store.count({ tenant: 't1' })).toBe(16);
    });

    it('keeps access statistics recorded after the read when a stale-looking record is committed', async () => {
      const record = makeRecord({ content: 'read often' });
      await store.commit({ inserts: [{ record, vector: axisVector(0) }], updates: [] });
      const read = (await store.get('t1', record.id)) as typeof record;
      await store.recordAccess('t1', [record.id], Date.parse('2025-03-01T00:00:00Z'));
      expect((await store.get('t1', record.id))?.version).toBe(1);
      await store.commit({ inserts: [], updates: [{ record: { ...read, decay_weight: 0.5 } }] });
      expect(await store.get('t1', record.id)).toMatchObject({
        decay_weight: 0.5,
        access_count: 1,
        last_accessed_at: '2025-03-01T00:00:00.000Z',
        version: 2,
      });
    });

    it('keeps erasure tombstones per tenant, replaces one by its id, and lists them newest first in pages', async () => {
      const receipt = (n: number, userId: string): ErasureReceipt =>
        beginErasure(randomUUID(), userId, store.backend, new Date(Date.parse('2025-05-01T00:00:00Z') + n * 1000));
      const first = receipt(1, 'u1');
      const second = receipt(2, 'u2');
      const third = receipt(3, 'u1');
      for (const r of [first, second, third]) await store.saveErasure('t1', r);
      await store.saveErasure('t2', receipt(4, 'u1'));
      const done = { ...first, status: 'completed' as const, memories: 3, memories_by_layer: { semantic: 3 } };
      await store.saveErasure('t1', done);

      const page1 = await store.listErasures('t1', {}, 2);
      expect(page1.items).toEqual([third, second]);
      const page2 = await store.listErasures('t1', {}, 2, page1.nextCursor ?? undefined);
      expect(page2).toEqual({ items: [done], nextCursor: null });
      expect((await store.listErasures('t1', { userId: 'u1' }, 10)).items).toEqual([third, done]);
      expect((await store.listErasures('t2', { userId: 'u2' }, 10)).items).toEqual([]);
    });

    it('purges what was deleted and says whether its files still hold it', async () => {
      const record = makeRecord({ content: 'erase me entirely' });
      await store.commit({ inserts: [{ record, vector: axisVector(0) }], updates: [] });
      await store.deleteMany('t1', [record.id]);
      const purge = await store.purgeDeleted();
      expect(typeof purge.purged).toBe('boolean');
      expect(purge.detail.length).toBeGreaterThan(10);
      expect(await store.purgeDeleted()).toEqual(purge);
      expect(await store.get('t1', record.id)).toBeUndefined();
    });

    it('keeps data across a reopen and refuses another embedding model or dimension', async () => {
      const record = makeRecord({ content: 'durable' });
      await store.commit({ inserts: [{ record, vector: axisVector(0) }], updates: [] });
      await store.close();
      const again = reopen();
      await expect(again.open({ model: 'other-model', dimension: 8 })).rejects.toBeInstanceOf(EmbeddingMismatchError);
      const third = reopen();
      await expect(third.open({ model: 'test-8', dimension: 16 })).rejects.toThrow(/re-index/);
      store = reopen();
      await store.open(SPACE);
      expect((await store.get('t1', record.id))?.content).toBe('durable');
    });
  });
}
