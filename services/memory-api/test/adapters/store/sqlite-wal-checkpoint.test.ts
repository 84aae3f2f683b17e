import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PooledSqliteStore } from '../../../src/adapters/store/sqlite/pooled-store.ts';
import { axisVector, makeRecord } from '../../support/records.ts';

const MIB = 1024 * 1024;
const SPACE = { model: 'test-512', dimension: 512 };

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return 0;
    throw error;
  }
}

async function eventually(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`not so after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the pooled sqlite store checkpoints the WAL off the serving connection', () => {
  it('answers a bulk write before copying it into the file, then copies it and cuts the WAL back, keeping every memory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-checkpoint-'));
    const path = join(dir, 'memory.db');
    const failures: Error[] = [];
    try {
      const store = new PooledSqliteStore(path, {}, 1, { onCheckpointError: (error) => failures.push(error) });
      await store.open(SPACE);
      const inserts = Array.from({ length: 3000 }, (_, i) => ({
        record: makeRecord({
          content: `owner ${i % 100} keeps note ${i}`,
          user_id: `owner-${i % 100}`,
          embedding_model: 'test-512',
        }),
        vector: axisVector(i, 512),
      }));
      const before = await sizeOf(path);
      await store.commit({ inserts, updates: [] });
      // Acknowledged (flushed in the WAL), and the serving connection copied none of it into the file.
      // Read synchronously at the answer: the access worker is asked to checkpoint by a timer, which
      // an awaited stat would let run (and copy the WAL in) before the file's size is read.
      const sizeNow = (file: string) => (existsSync(file) ? statSync(file).size : 0);
      const walAtAnswer = sizeNow(`${path}-wal`);
      const fileAtAnswer = sizeNow(path);
      expect(walAtAnswer).toBeGreaterThan(4 * MIB);
      expect(fileAtAnswer).toBe(before);

      // The access worker's checkpoint does, and truncates the WAL after the bulk write.
      await eventually(async () => (await sizeOf(`${path}-wal`)) === 0, 10_000);
      expect(await sizeOf(path)).toBeGreaterThan(4 * MIB);
      expect(await store.count({ tenant: 't1' })).toBe(3000);
      expect(failures).toEqual([]);
      await store.close();

      const reopened = new PooledSqliteStore(path, {}, 1);
      await reopened.open(SPACE);
      const hits = await reopened.vectorSearch({ tenant: 't1', userId: 'owner-7' }, axisVector(7, 512), 1);
      expect(hits.map((h) => h.id)).toEqual([inserts[7]?.record.id]);
      expect(await reopened.count({ tenant: 't1' })).toBe(3000);
      await reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
