import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WriteConflictError } from '@hindsight/errors';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteMemoryStore } from '../../src/adapters/store/sqlite/store.ts';
import { decideAgain } from '../../src/memory/decide-again.ts';
import { axisVector, makeRecord } from '../support/records.ts';

/** The retry policy of every read-decide-commit step, against a real SQLite store and a real rival writer. */
let dir: string;
let store: SqliteMemoryStore;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hindsight-decide-'));
  store = new SqliteMemoryStore(join(dir, 'memory.db'));
  await store.open({ model: 'test-8', dimension: 8 });
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('decideAgain', () => {
  it('decides again from fresh state after a rival commit, and keeps both changes', async () => {
    const record = makeRecord({ content: 'counts visits' });
    await store.commit({ inserts: [{ record, vector: axisVector(0) }], updates: [] });
    let attempts = 0;
    await decideAgain(async () => {
      attempts += 1;
      const read = (await store.get('t1', record.id)) as typeof record;
      // A rival writer commits between this step's read and its commit, once.
      if (attempts === 1) await store.commit({ inserts: [], updates: [{ record: { ...read, tags: ['rival'] } }] });
      await store.commit({ inserts: [], updates: [{ record: { ...read, proof_count: read.proof_count + 1 } }] });
    });
    expect(attempts).toBe(2);
    expect(await store.get('t1', record.id)).toMatchObject({ tags: ['rival'], proof_count: 2, version: 3 });
  });

  it('gives up with 409 write_conflict when the state keeps changing, having written nothing of its own', async () => {
    const record = makeRecord({ content: 'contended' });
    await store.commit({ inserts: [{ record, vector: axisVector(0) }], updates: [] });
    let attempts = 0;
    const outcome = decideAgain(async () => {
      attempts += 1;
      const read = (await store.get('t1', record.id)) as typeof record;
      await store.commit({ inserts: [], updates: [{ record: { ...read, tags: [`rival-${attempts}`] } }] });
      await store.commit({ inserts: [], updates: [{ record: { ...read, content: 'never written' } }] });
    });
    await expect(outcome).rejects.toBeInstanceOf(WriteConflictError);
    await expect(outcome).rejects.toMatchObject({ status: 409, code: 'write_conflict' });
    expect(attempts).toBe(4);
    expect((await store.get('t1', record.id))?.content).toBe('contended');
  });

  it('lets other failures through at once', async () => {
    let attempts = 0;
    await expect(
      decideAgain(async () => {
        attempts += 1;
        throw new Error('disk full');
      }),
    ).rejects.toThrow('disk full');
    expect(attempts).toBe(1);
  });
});
