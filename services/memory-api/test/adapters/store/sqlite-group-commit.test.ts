import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemoryRecord } from '@hindsight/memory-model';
import { keywordTokens } from '@hindsight/text';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteMemoryStore } from '../../../src/adapters/store/sqlite/store.ts';
import { DuplicateContentError, StaleWriteError, type WriteBatch } from '../../../src/memory/store-port.ts';
import { axisVector, makeRecord } from '../../support/records.ts';

/**
 * Sixteen writes that reach the embedded store together share one transaction. When one of them
 * throws, the transaction is rolled back and the others are applied again: what they did the first
 * time must leave no trace (owner statistics counted twice, a turn's context written twice), so a
 * store that went through that answers exactly as one that received only the fifteen.
 */
const SPACE = { model: 'test-8', dimension: 8 };
const USERS = ['u1', 'u2', 'u3'];
const WORDS = ['sailing', 'cello', 'garden', 'violin', 'harbour', 'pottery', 'chess', 'orchard'];

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function openStore(): Promise<SqliteMemoryStore> {
  const dir = await mkdtemp(join(tmpdir(), 'hindsight-group-commit-'));
  const store = new SqliteMemoryStore(join(dir, 'memory.db'));
  await store.open(SPACE);
  cleanups.push(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
  return store;
}

const fact = (n: number, userId: string) =>
  makeRecord({
    content: `${WORDS[n % WORDS.length]} note ${n} about ${WORDS[(n * 3 + 1) % WORDS.length]}`,
    user_id: userId,
  });

/** Turns of one session, so every write also rewrites its neighbours' context entries. */
const turn = (n: number, userId: string) =>
  makeRecord({
    content: `turn ${n}: we talked about ${WORDS[(n + 2) % WORDS.length]} and ${WORDS[(n + 5) % WORDS.length]}`,
    user_id: userId,
    layer: 'episodic',
    category: 'conversation',
    session_id: `session-${userId}`,
    occurred_at: new Date(Date.UTC(2025, 0, 1, 0, n)).toISOString(),
  });

/** Write i of a group: a fact, a turn, or a batch of two facts, for one of three users. */
function groupWrite(i: number): WriteBatch {
  const userId = USERS[i % USERS.length] as string;
  const records =
    i % 4 === 1 ? [turn(i, userId)] : i % 4 === 3 ? [fact(i, userId), fact(i + 100, userId)] : [fact(i, userId)];
  return { inserts: records.map((record, j) => ({ record, vector: axisVector(i + j, 8, 0.3) })), updates: [] };
}

/** What a client can read of the store: every record, each user's counts, keyword and vector rankings. */
async function observed(store: SqliteMemoryStore) {
  const records = (await store.list({ tenant: 't1' }, 1000)).items.map((r: MemoryRecord) => ({
    content: r.content,
    proof_count: r.proof_count,
    version: r.version,
  }));
  const rankings: unknown[] = [];
  for (const userId of USERS) {
    for (const word of WORDS) {
      const hits = await store.keywordSearch({ tenant: 't1', userId }, keywordTokens(word), 10);
      rankings.push(await Promise.all(hits.map(async (h) => [(await store.get('t1', h.id))?.content, h.score])));
    }
    for (let axis = 0; axis < 8; axis++) {
      const hits = await store.vectorSearch({ tenant: 't1', userId }, axisVector(axis), 5);
      rankings.push(await Promise.all(hits.map(async (h) => [(await store.get('t1', h.id))?.content, h.score])));
    }
  }
  const counts = (await store.countByUser('t1')).map(({ lastCreatedAt: _, ...count }) => count);
  return { records, rankings, counts };
}

/** Commits the writes without waiting between them: one group, one transaction. */
function commitTogether(store: SqliteMemoryStore, writes: readonly WriteBatch[]) {
  return Promise.allSettled(writes.map((write) => store.commit(write)));
}

describe('sqlite group commit when one write of the group fails', () => {
  const kinds = [
    {
      name: 'a duplicate of a stored memory',
      error: DuplicateContentError,
      failing: (stored: MemoryRecord): WriteBatch => ({
        // The first item is written before the second fails: it must go too.
        inserts: [
          { record: fact(900, 'u2'), vector: axisVector(2) },
          { record: makeRecord({ content: stored.content, user_id: stored.user_id }), vector: axisVector(1) },
        ],
        updates: [],
      }),
    },
    {
      name: 'an update of a changed memory',
      error: StaleWriteError,
      failing: (stored: MemoryRecord): WriteBatch => ({
        inserts: [{ record: fact(901, 'u3'), vector: axisVector(3) }],
        updates: [{ record: { ...stored, content: 'rewritten from an old read', version: stored.version + 5 } }],
      }),
    },
  ];

  for (const kind of kinds) {
    it.each([0, 7, 15])(
      `refuses write %i of 16 (${kind.name}) and leaves the store as the other fifteen alone would`,
      async (k) => {
        const seed = [fact(500, 'u1'), turn(0, 'u2'), fact(501, 'u3')];
        const stores = [await openStore(), await openStore()];
        for (const store of stores) {
          await store.commit({ inserts: seed.map((record, i) => ({ record, vector: axisVector(i) })), updates: [] });
        }
        const [grouped, alone] = stores as [SqliteMemoryStore, SqliteMemoryStore];
        const writes = Array.from({ length: 15 }, (_, i) => groupWrite(i));
        const withFailure = [...writes.slice(0, k), kind.failing(seed[0] as MemoryRecord), ...writes.slice(k)];

        const outcomes = await commitTogether(grouped, withFailure);
        expect(outcomes.map((o) => o.status)).toEqual(withFailure.map((_, i) => (i === k ? 'rejected' : 'fulfilled')));
        expect((outcomes[k] as PromiseRejectedResult).reason).toBeInstanceOf(kind.error);

        await commitTogether(alone, writes);
        expect(await observed(grouped)).toEqual(await observed(alone));

        // The store goes on counting right: the next writes of the same owners land on the same statistics.
        const later = [groupWrite(20), groupWrite(21), groupWrite(23)];
        await commitTogether(grouped, later);
        await commitTogether(alone, later);
        expect(await observed(grouped)).toEqual(await observed(alone));
      },
    );
  }
});
