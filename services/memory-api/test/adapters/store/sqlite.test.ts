import { readFileSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keywordTokens } from '@hindsight/text';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ownerTermPrefix } from '../../../src/adapters/store/keywords.ts';
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
      db.exec(`
        INSERT INTO memory_keywords (memory_keywords) VALUES ('delete-all');
        DELETE FROM memory_keyword_terms;
        UPDATE store_meta SET value = '0' WHERE key = 'keyword_index_version';
      `);
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

describe('sqlite forgets what was deleted (user erasure)', () => {
  const phrase = 'tamarillo-orchard-4417';
  const count = (bytes: Buffer, text: string) => {
    let n = 0;
    for (let at = bytes.indexOf(text); at !== -1; at = bytes.indexOf(text, at + 1)) n += 1;
    return n;
  };
  const onDisk = (path: string, text = phrase) =>
    ['', '-wal'].reduce((n, suffix) => {
      try {
        return n + count(readFileSync(`${path}${suffix}`), text);
      } catch {
        return n;
      }
    }, 0);

  it('leaves no byte of a deleted memory in the file or its WAL once purged', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-store-'));
    const path = join(dir, 'memory.db');
    try {
      const store = new SqliteMemoryStore(path);
      await store.open({ model: 'test-8', dimension: 8 });
      const first = makeRecord({ content: `The user keeps a ${phrase} by the lake` });
      await store.commit({ inserts: [{ record: first, vector: axisVector(0) }], updates: [] });
      // An edit: the old text moves into history, the row is rewritten in place.
      await store.commit({
        inserts: [],
        updates: [
          {
            record: {
              ...first,
              content: `The user sold the ${phrase}`,
              history: [{ at: first.created_at, action: 'updated', content: first.content }],
            },
          },
        ],
      });
      expect(onDisk(path)).toBeGreaterThan(0);
      await store.deleteMany('t1', [first.id]);
      expect(await store.purgeDeleted()).toMatchObject({ purged: true });
      expect(onDisk(path)).toBe(0);
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("leaves no byte of an erased user's words, though other users' entries were indexed beside them", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-store-'));
    const path = join(dir, 'memory.db');
    try {
      const store = new SqliteMemoryStore(path);
      await store.open({ model: 'test-8', dimension: 8 });
      // One term, as the keyword index holds it (the hyphens of \`phrase\` split it into three).
      const word = 'tamarillo4417';
      const erased = Array.from({ length: 3 }, (_, i) =>
        makeRecord({ content: `Note ${i}: the user keeps a ${word} by the lake`, user_id: 'erin' }),
      );
      const kept = Array.from({ length: 3 }, (_, i) =>
        makeRecord({ content: `Note ${i}: the user keeps a lemon tree by the lake`, user_id: 'frank' }),
      );
      // One commit, so both users' tokens sit in the same pages of the keyword index.
      await store.commit({
        inserts: [...erased, ...kept].map((record, i) => ({ record, vector: axisVector(i) })),
        updates: [],
      });
      // An edit of one of them: its entry is written anew.
      const [edited] = erased as [(typeof erased)[number]];
      await store.commit({
        inserts: [],
        updates: [{ record: { ...edited, content: `The user sold the ${word}` } }],
      });
      await store.commit({
        inserts: [
          { record: makeRecord({ content: 'The user likes plain tea', user_id: 'frank' }), vector: axisVector(6) },
        ],
        updates: [],
      });
      expect(onDisk(path, word)).toBeGreaterThan(0);

      await store.deleteMany(
        't1',
        erased.map((r) => r.id),
      );
      expect(await store.purgeDeleted()).toMatchObject({ purged: true });
      expect(onDisk(path, word)).toBe(0);
      const lemon = await store.keywordSearch({ tenant: 't1', userId: 'frank' }, keywordTokens('lemon tree lake'), 10);
      expect(lemon.map((h) => h.id).sort()).toEqual(kept.map((r) => r.id).sort());
      await store.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('scrubs, once, the free space of a store that predates secure deletes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-store-'));
    const path = join(dir, 'memory.db');
    try {
      const store = new SqliteMemoryStore(path);
      await store.open({ model: 'test-8', dimension: 8 });
      const record = makeRecord({ content: `The user once rented a ${phrase}` });
      await store.commit({ inserts: [{ record, vector: axisVector(0) }], updates: [] });
      await store.close();

      // As an older release deleted: no secure_delete, FTS5 delete markers, no scrub recorded.
      const db = new Database(path);
      db.pragma('secure_delete = OFF');
      const entry = db.prepare('SELECT rowid % 68719476736 AS rowid, terms FROM memory_keyword_terms').get() as {
        rowid: number;
        terms: string;
      };
      const scoped = entry.terms
        .split(' ')
        .map((term) => ownerTermPrefix(record.tenant, record.user_id) + term)
        .join(' ');
      db.exec("INSERT INTO memory_keywords (memory_keywords, rank) VALUES ('secure-delete', 0)");
      db.prepare("INSERT INTO memory_keywords (memory_keywords, rowid, terms) VALUES ('delete', ?, ?)").run(
        entry.rowid,
        scoped,
      );
      db.exec(`
        DELETE FROM memory_keyword_terms WHERE rowid % 68719476736 = (SELECT rowid FROM memories);
        DELETE FROM memories;
        DELETE FROM store_meta WHERE key = 'free_space_scrubbed';
      `);
      db.pragma('wal_checkpoint(TRUNCATE)');
      db.close();
      expect(onDisk(path)).toBeGreaterThan(0);

      const reopened = new SqliteMemoryStore(path);
      await reopened.open({ model: 'test-8', dimension: 8 });
      expect(await reopened.purgeDeleted()).toMatchObject({ purged: true });
      expect(onDisk(path)).toBe(0);
      await reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('sqlite write-ahead log', () => {
  it('is checkpointed and cut back after a bulk write, keeping every memory', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-store-'));
    const path = join(dir, 'memory.db');
    try {
      const store = new SqliteMemoryStore(path);
      await store.open({ model: 'test-512', dimension: 512 });
      // 9,000 memories of 300 owners in one transaction: tens of megabytes through the WAL.
      const inserts = Array.from({ length: 9000 }, (_, i) => ({
        record: makeRecord({
          content: `owner ${i % 300} keeps note ${i}`,
          user_id: `owner-${i % 300}`,
          embedding_model: 'test-512',
        }),
        vector: axisVector(i, 512),
      }));
      await store.commit({ inserts, updates: [] });
      const { size: databaseBytes } = await stat(path);
      const { size: walBytes } = await stat(`${path}-wal`);
      expect(databaseBytes).toBeGreaterThan(16 * 1024 * 1024);
      expect(walBytes).toBeLessThanOrEqual(8 * 1024 * 1024);
      expect(await store.count({ tenant: 't1' })).toBe(9000);
      await store.close();

      const reopened = new SqliteMemoryStore(path);
      await reopened.open({ model: 'test-512', dimension: 512 });
      const hits = await reopened.vectorSearch({ tenant: 't1', userId: 'owner-7' }, axisVector(7, 512), 1);
      expect(hits.map((h) => h.id)).toEqual([inserts[7]?.record.id]);
      await reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
