import { EmbeddingMismatchError } from '@hindsight/errors';
import type { MemoryRecord } from '@hindsight/memory-model';
import { keywordTokens } from '@hindsight/text';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type EmbeddingSpace,
  type MemoryStore,
  NoStoreError,
  type ReindexableStore,
} from '../../../src/memory/store-port.ts';
import { axisVector, makeRecord } from '../../support/records.ts';

type Store = MemoryStore & ReindexableStore;

export interface ReindexStoreFactory {
  /** A fresh, empty store location; `store()` makes another instance over it (a new process would). */
  create(): Promise<{ store: () => Store; cleanup: () => Promise<void> }>;
}

const OLD: EmbeddingSpace = { model: 'old-8', dimension: 8 };
const NEW: EmbeddingSpace = { model: 'new-4', dimension: 4 };
const OTHER: EmbeddingSpace = { model: 'other-6', dimension: 6 };

/**
 * Memories of two tenants, both layers, every status, a session's turns: the old space puts each
 * along its own axis of 8, the new space along axis `newAxis` of 4 (so neighbours change).
 */
function seedRecords(): Array<{ record: MemoryRecord; oldAxis: number; newAxis: number }> {
  const at = (minute: number) => `2025-02-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
  const specs: Array<[Partial<MemoryRecord> & { content: string }, number]> = [
    [{ content: 'plays the cello on Sundays' }, 3],
    [{ content: 'allergic to peanuts', history: [{ at: at(1), action: 'created', content: 'allergic to nuts' }] }, 0],
    [{ content: 'lived in Berlin', status: 'superseded', superseded_by: 'someone-else' }, 1],
    [{ content: 'an archived thought', status: 'archived', decay_weight: 0.05 }, 2],
    [{ content: 'held for review', status: 'quarantined' }, 2],
    [
      {
        content: 'User: we booked the Lisbon flat',
        layer: 'episodic',
        category: 'turn',
        session_id: 's1',
        occurred_at: at(2),
      },
      1,
    ],
    [
      {
        content: 'Assistant: noted the Lisbon flat',
        layer: 'episodic',
        category: 'turn',
        session_id: 's1',
        occurred_at: at(3),
      },
      3,
    ],
    [{ content: 'another tenant entirely', tenant: 't2' }, 0],
    [{ content: 'a second user', user_id: 'u2', access_count: 4, version: 3 }, 1],
  ];
  return specs.map(([overrides, newAxis], oldAxis) => ({
    record: makeRecord({ embedding_model: OLD.model, ...overrides }),
    oldAxis,
    newAxis,
  }));
}

/** Runs a whole re-index pass the way `reindexStore` does, `batch` memories at a time. */
async function reembed(store: Store, axisOf: (record: MemoryRecord) => number, space: EmbeddingSpace, batch = 3) {
  let written = 0;
  for (;;) {
    const records = await store.nextToReindex(batch);
    if (records.length === 0) return written;
    await store.writeReindexed(
      records.map((record) => ({ record, vector: axisVector(axisOf(record), space.dimension) })),
    );
    written += records.length;
  }
}

/** The `ReindexableStore` contract: every adapter runs this same suite (see store-port.ts). */
export function runReindexContract(name: string, factory: ReindexStoreFactory): void {
  describe(`ReindexableStore contract — ${name}`, () => {
    let makeStore: () => Store;
    let cleanup: () => Promise<void>;
    const opened: Store[] = [];
    const instance = () => {
      const store = makeStore();
      opened.push(store);
      return store;
    };
    const seeded = seedRecords();
    const newAxisOf = (record: MemoryRecord) => seeded.find((s) => s.record.id === record.id)?.newAxis ?? 0;

    const seed = async () => {
      const store = instance();
      await store.open(OLD);
      await store.commit({
        inserts: seeded.map(({ record, oldAxis }) => ({ record, vector: axisVector(oldAxis) })),
        updates: [],
      });
      await store.close();
    };
    const stored = async (store: Store) => {
      const records: MemoryRecord[] = [];
      for (const tenant of ['t1', 't2'])
        records.push(
          ...(await store.getMany(
            tenant,
            seeded.map((s) => s.record.id),
          )),
        );
      return records.sort((a, b) => a.id.localeCompare(b.id));
    };
    const expected = (space: EmbeddingSpace) =>
      seeded
        .map(({ record }) => ({ ...record, embedding_model: space.model }))
        .sort((a, b) => a.id.localeCompare(b.id));

    beforeEach(async () => {
      ({ store: makeStore, cleanup } = await factory.create());
      seeded.splice(0, seeded.length, ...seedRecords());
    });
    afterEach(async () => {
      for (const store of opened.splice(0)) await store.close();
      await cleanup();
    });

    it('re-embeds every memory of every tenant, layer and status into the target and switches the store to it', async () => {
      await seed();
      const store = instance();
      const status = await store.beginReindex(NEW);
      expect(status).toMatchObject({ current: OLD, target: NEW, total: seeded.length, done: 0, resumed: false });
      expect(status.discarded).toBeUndefined();
      expect(await reembed(store, newAxisOf, NEW)).toBe(seeded.length);
      await store.finishReindex();
      await store.close();

      await expect(instance().open(OLD)).rejects.toBeInstanceOf(EmbeddingMismatchError);
      const served = instance();
      await served.open(NEW);
      // Nothing of any record changed but the model it is embedded with.
      expect(await stored(served)).toEqual(expected(NEW));
      // k-NN runs on the new vectors: axis 3 of 4 holds the cello fact (axis 0 of 8 before) and the assistant turn.
      const scope = { tenant: 't1', userId: 'u1' };
      const nearest = await served.vectorSearch(scope, axisVector(3, NEW.dimension), 2);
      expect(nearest.map((hit) => hit.id).sort()).toEqual(
        seeded
          .filter((s) => s.newAxis === 3 && s.record.user_id === 'u1')
          .map((s) => s.record.id)
          .sort(),
      );
      expect(nearest[0]?.score).toBeGreaterThan(0.99);
      const [similar] = [...(await served.similarities('t1', [seeded[1]?.record.id ?? ''], axisVector(0, 4))).values()];
      expect(similar).toBeGreaterThan(0.99);
      // Keyword search and turn context are untouched.
      const turns = await served.keywordSearch(scope, keywordTokens('booked Lisbon'), 5);
      expect(turns[0]?.id).toBe(seeded[5]?.record.id);
      // The switched store takes writes in the new space.
      const later = makeRecord({ content: 'written after the re-index', embedding_model: NEW.model });
      await served.commit({ inserts: [{ record: later, vector: axisVector(2, NEW.dimension) }], updates: [] });
      // Tenant t1 holds all seeded memories but one (t2's), and the new one.
      expect(await served.count({ tenant: 't1' })).toBe(seeded.length - 1 + 1);
    });

    it('resumes an interrupted run from its checkpoint; memory-api cannot open the store meanwhile', async () => {
      await seed();
      const first = instance();
      await first.beginReindex(NEW);
      const batch = await first.nextToReindex(4);
      expect(batch).toHaveLength(4);
      await first.writeReindexed(batch.map((record) => ({ record, vector: axisVector(newAxisOf(record), 4) })));
      // The next page is read but never written: the run stops here.
      await first.nextToReindex(4);
      await first.close();

      for (const space of [OLD, NEW]) {
        await expect(instance().open(space)).rejects.toThrow(/the re-index has not finished/);
      }
      const second = instance();
      const status = await second.beginReindex(NEW);
      expect(status).toMatchObject({ current: OLD, target: NEW, total: seeded.length, done: 4, resumed: true });
      const rest: string[] = [];
      for (;;) {
        const records = await second.nextToReindex(2);
        if (records.length === 0) break;
        rest.push(...records.map((r) => r.id));
        await second.writeReindexed(records.map((record) => ({ record, vector: axisVector(newAxisOf(record), 4) })));
      }
      // Exactly the memories the first run did not write.
      expect(rest.sort()).toEqual(
        seeded
          .map((s) => s.record.id)
          .filter((id) => !batch.some((r) => r.id === id))
          .sort(),
      );
      await second.finishReindex();
      await second.close();
      const served = instance();
      await served.open(NEW);
      expect(await stored(served)).toEqual(expected(NEW));
      const hits = await served.vectorSearch({ tenant: 't1', userId: 'u1' }, axisVector(0, 4), 1);
      expect(hits[0]?.id).toBe(seeded[1]?.record.id);
    });

    it('refuses to switch while a memory has no target vector, and switches nothing', async () => {
      await seed();
      const store = instance();
      await store.beginReindex(NEW);
      const batch = await store.nextToReindex(2);
      await store.writeReindexed(batch.map((record) => ({ record, vector: axisVector(0, 4) })));
      await expect(store.finishReindex()).rejects.toThrow(/no vector in the re-index target/);
      await store.close();
      await expect(instance().open(NEW)).rejects.toBeInstanceOf(EmbeddingMismatchError);
      const again = instance();
      expect(await again.beginReindex(NEW)).toMatchObject({ done: 2, resumed: true });
    });

    it('changes nothing when the store is already in the target space', async () => {
      await seed();
      const store = instance();
      expect(await store.beginReindex(OLD)).toEqual({
        current: OLD,
        target: OLD,
        total: seeded.length,
        done: seeded.length,
        resumed: false,
      });
      await store.close();
      const served = instance();
      await served.open(OLD);
      expect(await stored(served)).toEqual(expected(OLD));
      const hits = await served.vectorSearch({ tenant: 't1', userId: 'u1' }, axisVector(0), 1);
      expect(hits[0]?.id).toBe(seeded[0]?.record.id);
    });

    it('discards an unfinished re-index into another space, or to go back to the current one', async () => {
      await seed();
      const first = instance();
      await first.beginReindex(NEW);
      const batch = await first.nextToReindex(3);
      await first.writeReindexed(batch.map((record) => ({ record, vector: axisVector(0, 4) })));
      await first.close();

      const other = instance();
      expect(await other.beginReindex(OTHER)).toMatchObject({
        current: OLD,
        target: OTHER,
        done: 0,
        resumed: false,
        discarded: NEW,
      });
      await other.writeReindexed(
        (await other.nextToReindex(2)).map((record) => ({ record, vector: axisVector(1, 6) })),
      );
      await other.close();

      // Back to the space it serves: the unfinished one goes, and memory-api opens it as before.
      const back = instance();
      expect(await back.beginReindex(OLD)).toMatchObject({
        current: OLD,
        target: OLD,
        done: seeded.length,
        discarded: OTHER,
      });
      await back.close();
      const served = instance();
      await served.open(OLD);
      expect(await stored(served)).toEqual(expected(OLD));
    });

    it('creates nothing where there is no store', async () => {
      await expect(instance().beginReindex(NEW)).rejects.toBeInstanceOf(NoStoreError);
      await expect(instance().beginReindex(NEW)).rejects.toBeInstanceOf(NoStoreError);
    });
  });
}
