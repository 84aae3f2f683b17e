import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keywordTokens } from '@hindsight/text';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteMemoryStore } from '../../../src/adapters/store/sqlite/store.ts';
import { axisVector, makeRecord } from '../../support/records.ts';
import { runMemoryStoreContract } from './contract.ts';
import { runReindexContract } from './reindex-contract.ts';

runMemoryStoreContract('sqlite', {
  async create() {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-store-'));
    const path = join(dir, 'memory.db');
    return {
      store: new SqliteMemoryStore(path),
      reopen: () => new SqliteMemoryStore(path),
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  },
});

runReindexContract('sqlite', {
  async create() {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-store-'));
    const path = join(dir, 'memory.db');
    return { store: () => new SqliteMemoryStore(path), cleanup: () => rm(dir, { recursive: true, force: true }) };
  },
});

describe('sqlite keyword index', () => {
  it('is rebuilt when the keyword index version changes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-store-'));
    const path = join(dir, 'memory.db');
    try {
      const store = new SqliteMemoryStore(path);
      await store.open({ model: 'test-8', dimension: 8 });
      const record = makeRecord({ content: 'Rebuilding keyword terms for the sailing club' });
      await store.commit({ inserts: [{ record, vector: axisVector(0) }], updates: [] });
      await store.close();

      const db = new Database(path);
      db.exec("DELETE FROM memory_keywords; UPDATE store_meta SET value = '0' WHERE key = 'keyword_index_version'");
      db.close();

      const reopened = new SqliteMemoryStore(path);
      await reopened.open({ model: 'test-8', dimension: 8 });
      const hits = await reopened.keywordSearch({ tenant: 't1', userId: 'u1' }, keywordTokens('sailing club'), 5);
      expect(hits.map((h) => h.id)).toEqual([record.id]);
      await reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('sqlite schema migrations', () => {
  it('gives memories stored before versions existed version 1, and updates them by compare-and-swap', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-store-'));
    const path = join(dir, 'memory.db');
    try {
      const store = new SqliteMemoryStore(path);
      await store.open({ model: 'test-8', dimension: 8 });
      const record = makeRecord({ content: 'stored by an older release' });
      await store.commit({ inserts: [{ record, vector: axisVector(0) }], updates: [] });
      await store.close();

      // The file as schema version 2 left it: no version column.
      const db = new Database(path);
      db.exec(
        "ALTER TABLE memories DROP COLUMN version; UPDATE store_meta SET value = '2' WHERE key = 'schema_version'",
      );
      db.close();

      const upgraded = new SqliteMemoryStore(path);
      await upgraded.open({ model: 'test-8', dimension: 8 });
      const read = await upgraded.get('t1', record.id);
      expect(read).toEqual(record);
      await upgraded.commit({ inserts: [], updates: [{ record: { ...record, tags: ['upgraded'] } }] });
      expect(await upgraded.get('t1', record.id)).toMatchObject({ tags: ['upgraded'], version: 2 });
      await upgraded.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
