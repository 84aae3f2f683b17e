import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemoryRecord } from '@hindsight/memory-model';
import { seededRandom } from '@hindsight/testing';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../../src/adapters/store/sqlite/migrations.ts';
import { PooledSqliteStore } from '../../../src/adapters/store/sqlite/pooled-store.ts';
import { SqliteMemoryStore } from '../../../src/adapters/store/sqlite/store.ts';
import {
  type Neighbour,
  preparedOnce,
  SqliteVectors,
  storedForms,
  vectorTablesDefinition,
} from '../../../src/adapters/store/sqlite/vectors.ts';
import { makeRecord } from '../../support/records.ts';

const DIMENSION = 64;
const SPACE = { model: 'test-64', dimension: DIMENSION };

let dir: string;
let path: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hindsight-vectors-'));
  path = join(dir, 'memory.db');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Unit vectors with a little shared direction, as text embeddings have. */
function randomVectors(count: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const v = Float32Array.from({ length: DIMENSION }, (_, i) => random() * 2 - 1 + (i < 4 ? 0.5 : 0));
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += (a[i] as number) * (b[i] as number);
  return dot;
}

async function fill(
  store: Pick<SqliteMemoryStore, 'commit'>,
  owners: (i: number) => string,
  vectors: readonly Float32Array[],
) {
  const records = vectors.map((_, i) => makeRecord({ content: `memory number ${i}`, user_id: owners(i) }));
  for (let at = 0; at < records.length; at += 500) {
    await store.commit({
      inserts: records.slice(at, at + 500).map((record, j) => ({ record, vector: vectors[at + j] as Float32Array })),
      updates: [],
    });
  }
  return records;
}

describe('sqlite k-NN over binary codes rescored with the exact vectors', () => {
  it('returns the exact nearest memory first for one owner holding thousands', async () => {
    const store = new SqliteMemoryStore(path);
    await store.open(SPACE);
    // Past the int8 scan's limit (4,096): candidates come from the codes.
    const vectors = randomVectors(5000, 11);
    const records = await fill(store, () => 'u1', vectors);
    try {
      for (const query of randomVectors(25, 97)) {
        let best = 0;
        for (let i = 1; i < vectors.length; i++) {
          if (cosine(query, vectors[i] as Float32Array) > cosine(query, vectors[best] as Float32Array)) best = i;
        }
        const hits = await store.vectorSearch({ tenant: 't1', userId: 'u1' }, query, 10);
        expect(hits).toHaveLength(10);
        expect(hits[0]?.id).toBe(records[best]?.id);
        expect(hits[0]?.score).toBeCloseTo(cosine(query, vectors[best] as Float32Array), 5);
        // Nearest first, by the exact similarity.
        const scores = hits.map((h) => h.score);
        expect(scores).toEqual([...scores].sort((a, b) => b - a));
      }
    } finally {
      await store.close();
    }
  });

  it('ranks each of many owners written interleaved exactly, with float32 similarities', async () => {
    const store = new SqliteMemoryStore(path);
    await store.open(SPACE);
    const vectors = randomVectors(2400, 41);
    const owner = (i: number) => `user-${(i * 7919) % 40}`;
    const records = await fill(store, owner, vectors);
    try {
      for (const [q, query] of randomVectors(40, 43).entries()) {
        const userId = `user-${q % 40}`;
        const own = vectors.map((v, i) => ({ i, similarity: cosine(query, v) })).filter(({ i }) => owner(i) === userId);
        own.sort((a, b) => b.similarity - a.similarity);
        const hits = await store.vectorSearch({ tenant: 't1', userId }, query, 10);
        expect(hits.map((h) => h.id)).toEqual(own.slice(0, 10).map(({ i }) => records[i]?.id));
        for (const [rank, hit] of hits.entries()) expect(hit.score).toBeCloseTo(own[rank]?.similarity as number, 4);
        const similar = await store.similarities('t1', [records[(own.at(-1) as { i: number }).i]?.id as string], query);
        expect([...similar.values()][0]).toBeCloseTo((own.at(-1) as { similarity: number }).similarity, 4);
      }
    } finally {
      await store.close();
    }
  });

  it('keeps no trace of an owner whose last memory is deleted', async () => {
    const store = new SqliteMemoryStore(path);
    await store.open(SPACE);
    const records = await fill(store, (i) => (i === 0 ? 'leaving-user' : 'u1'), randomVectors(3, 9));
    await store.deleteMany('t1', [records[0]?.id as string]);
    await store.close();
    const db = new Database(path, { readonly: true });
    const owners = db.prepare('SELECT scope FROM memory_vectors_owners').pluck().all();
    db.close();
    expect(owners).toEqual(['t1\u001fu1']);
  });

  it('reads only the owner searched for, and forgets a deleted memory', async () => {
    const store = new SqliteMemoryStore(path);
    await store.open(SPACE);
    const vectors = randomVectors(40, 5);
    const records = await fill(store, (i) => (i % 2 === 0 ? 'u1' : 'u2'), vectors);
    try {
      const query = vectors[3] as Float32Array;
      const other = await store.vectorSearch({ tenant: 't1', userId: 'u1' }, query, 5);
      expect(other.map((h) => h.id)).not.toContain(records[3]?.id);
      const own = await store.vectorSearch({ tenant: 't1', userId: 'u2' }, query, 5);
      expect(own[0]).toMatchObject({ id: records[3]?.id });
      await store.deleteMany('t1', [records[3]?.id as string]);
      const after = await store.vectorSearch({ tenant: 't1', userId: 'u2' }, query, 5);
      expect(after.map((h) => h.id)).not.toContain(records[3]?.id);
      expect(await store.similarities('t1', [records[3]?.id as string], query)).toEqual(new Map());
    } finally {
      await store.close();
    }
  });

  it('takes about as many bytes per memory for 600 owners of one memory as for one owner of 600', async () => {
    const bytes = async (file: string, owners: (i: number) => string) => {
      const store = new SqliteMemoryStore(file);
      await store.open(SPACE);
      await fill(store, owners, randomVectors(600, 3));
      await store.close();
      return (
        (await stat(file)).size +
        (await stat(`${file}-wal`).then(
          (s) => s.size,
          () => 0,
        ))
      );
    };
    const oneOwner = await bytes(join(dir, 'one.db'), () => 'u1');
    const manyOwners = await bytes(join(dir, 'many.db'), (i) => `user-${i}`);
    expect(manyOwners).toBeLessThan(oneOwner * 1.5);
  });
});

describe('sqlite k-NN of a small owner: int8 cosine in WebAssembly', () => {
  it.each([64, 100])(
    'ranks an owner as sqlite-vec ranks its int8 vectors, with the same distances (%i-d)',
    (dimension) => {
      const db = new Database(path);
      sqliteVec.load(db);
      db.exec(vectorTablesDefinition('memory_vectors'));
      db.exec('CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
      const vectors = new SqliteVectors(preparedOnce(db), 'memory_vectors', dimension);
      const random = seededRandom(dimension);
      const vector = () => Float32Array.from({ length: dimension }, () => random() * 2 - 1);
      // Two owners interleaved; one memory holds a zero vector (its distance is undefined: NULL in SQL).
      db.transaction(() => {
        for (let rowid = 1; rowid <= 600; rowid++) {
          const stored = rowid === 77 ? new Float32Array(dimension) : vector();
          vectors.add(BigInt(rowid), rowid % 3 === 0 ? 'other' : 'owner', stored);
        }
      })();
      const owner = db.prepare("SELECT owner FROM memory_vectors_owners WHERE scope = 'owner'").pluck().get();
      const bySqliteVec = db.prepare(
        `SELECT key - @owner * 68719476736 AS rowid,
           vec_distance_cosine(vec_int8(quantised), vec_int8(@query)) AS distance
         FROM memory_vectors WHERE key >= @owner * 68719476736 AND key < (@owner + 1) * 68719476736
         ORDER BY distance, key LIMIT @n`,
      );
      try {
        for (const n of [1, 26, 400, 500]) {
          const query = vector();
          const expected = (bySqliteVec.all({ owner, query: storedForms(query).quantised, n }) as Neighbour[]).map(
            ({ rowid, distance }) => ({ rowid, distance: distance ?? Number.NaN }),
          );
          expect(expected).toHaveLength(Math.min(n, 400));
          expect(expected[0]).toEqual({ rowid: 77, distance: Number.NaN });
          expect(vectors.nearest('owner', query, n)).toEqual(expected);
        }
      } finally {
        db.close();
      }
    },
  );
});

describe('sqlite k-NN of a large owner: its candidates ranked by int8 cosine in WebAssembly', () => {
  it('ranks them as sqlite-vec ranks their int8 vectors, with the same distances, and never a deleted one', () => {
    const db = new Database(path);
    sqliteVec.load(db);
    db.exec(vectorTablesDefinition('memory_vectors'));
    db.exec('CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    const dimension = 100;
    const vectors = new SqliteVectors(preparedOnce(db), 'memory_vectors', dimension);
    const random = seededRandom(31);
    const vector = () => Float32Array.from({ length: dimension }, () => random() * 2 - 1);
    // Past the int8 scan's limit (4,096), another owner's interleaved; one memory holds a zero vector.
    const stored = new Map<number, Float32Array>();
    db.transaction(() => {
      for (let rowid = 1; rowid <= 5200; rowid++) {
        const v = rowid === 77 ? new Float32Array(dimension) : vector();
        if (rowid % 13 === 0) vectors.add(BigInt(rowid), 'other', v);
        else {
          vectors.add(BigInt(rowid), 'owner', v);
          stored.set(rowid, v);
        }
      }
    })();
    const owner = db.prepare("SELECT owner FROM memory_vectors_owners WHERE scope = 'owner'").pluck().get();
    const bySqliteVec = db.prepare(
      `SELECT key - @owner * 68719476736 AS rowid,
         vec_distance_cosine(vec_int8(quantised), vec_int8(@query)) AS distance
       FROM memory_vectors WHERE key >= @owner * 68719476736 AND key < (@owner + 1) * 68719476736
       ORDER BY distance, key LIMIT @n`,
    );
    const sqliteVecOf = (query: Float32Array, n: number) =>
      (bySqliteVec.all({ owner, query: storedForms(query).quantised, n }) as Neighbour[]).map(
        ({ rowid, distance }) => ({
          rowid,
          distance: distance ?? Number.NaN,
        }),
      );
    try {
      // Asked for half the owner or more, every vector is a candidate: the whole ranking, the zero vector first.
      const query = vector();
      const whole = sqliteVecOf(query, 3000);
      expect(whole[0]).toEqual({ rowid: 77, distance: Number.NaN });
      expect(vectors.nearest('owner', query, 3000)).toEqual(whole);
      for (const rowid of [5, 1234, 4321]) {
        // A stored vector asked for finds itself first, then candidates by the codes as sqlite-vec ranks them.
        const own = stored.get(rowid) as Float32Array;
        const hits = vectors.nearest('owner', own, 40);
        expect(hits).toHaveLength(40);
        expect(hits[0]?.rowid).toBe(rowid);
        const ranked = sqliteVecOf(own, 5200);
        const distanceOf = new Map(ranked.map((r) => [r.rowid, r.distance]));
        expect(hits.map((h) => h.distance)).toEqual(hits.map((h) => distanceOf.get(h.rowid)));
        expect(hits).toEqual(
          [...hits].sort((a, b) => (a.distance as number) - (b.distance as number) || a.rowid - b.rowid),
        );
        vectors.remove(BigInt(rowid), 'owner');
        expect(vectors.nearest('owner', own, 40).map((h) => h.rowid)).not.toContain(rowid);
      }
    } finally {
      db.close();
    }
  });
});

describe("sqlite k-NN of a small owner: each read connection's int8 vectors in memory", () => {
  it('sees a memory edited in place, a deleted one and a rowid taken again at once, and answers as the single connection does', async () => {
    const pooled = new PooledSqliteStore(path, {}, 1);
    await pooled.open(SPACE);
    const single = new SqliteMemoryStore(path);
    try {
      const vectors = randomVectors(600, 31);
      const records = await fill(pooled, (i) => (i % 3 === 0 ? 'u2' : 'u1'), vectors);
      await single.open(SPACE);
      const scope = { tenant: 't1', userId: 'u1' };
      const [query, elsewhere] = randomVectors(2, 77) as [Float32Array, Float32Array];
      const search = async () => {
        const hits = await pooled.vectorSearch(scope, query, 10);
        expect(hits).toEqual(await single.vectorSearch(scope, query, 10));
        return hits;
      };
      const before = await search();
      expect(before).toHaveLength(10);

      // Its vector rewritten after the worker read the owner's vectors: found by the new one.
      const edited = records.find((r) => r.user_id === 'u1' && !before.some((h) => h.id === r.id)) as MemoryRecord;
      await pooled.commit({ inserts: [], updates: [{ record: { ...edited, content: 'edited' }, vector: query }] });
      const afterEdit = await search();
      expect(afterEdit[0]).toMatchObject({ id: edited.id });
      expect(afterEdit[0]?.score).toBeCloseTo(1, 4);

      // And rewritten away again: the owner's neighbours are the first ones.
      const [current] = await pooled.getMany('t1', [edited.id]);
      await pooled.commit({ inserts: [], updates: [{ record: current as MemoryRecord, vector: elsewhere }] });
      expect(await search()).toEqual(before);

      // A new memory, then deleted; the next one takes its rowid (the highest) with another vector.
      const newest = makeRecord({ content: 'the newest memory', user_id: 'u1' });
      await pooled.commit({ inserts: [{ record: newest, vector: elsewhere }], updates: [] });
      expect((await search()).map((h) => h.id)).not.toContain(newest.id);
      await pooled.deleteMany('t1', [newest.id]);
      const taking = makeRecord({ content: 'written where the newest was', user_id: 'u1' });
      await pooled.commit({ inserts: [{ record: taking, vector: query }], updates: [] });
      const afterReuse = await search();
      expect(afterReuse[0]).toMatchObject({ id: taking.id });
      expect(afterReuse[0]?.score).toBeCloseTo(1, 4);
      expect(afterReuse.map((h) => h.id)).not.toContain(newest.id);

      // Erasure: every memory of u1 goes; the other owner's stay searchable.
      await pooled.deleteMany('t1', [...records.filter((r) => r.user_id === 'u1').map((r) => r.id), taking.id]);
      expect(await search()).toEqual([]);
      expect(await pooled.vectorSearch({ tenant: 't1', userId: 'u2' }, query, 10)).toHaveLength(10);
    } finally {
      await single.close();
      await pooled.close();
    }
  });
});

describe("sqlite k-NN of a large owner: each read connection's codes in memory", () => {
  it('sees a new memory, a deleted one and an erased owner at once, and answers as the single connection does', async () => {
    const pooled = new PooledSqliteStore(path, {}, 1);
    await pooled.open(SPACE);
    const single = new SqliteMemoryStore(path);
    try {
      const vectors = randomVectors(5000, 23);
      const records = await fill(pooled, (i) => (i % 50 === 0 ? 'u2' : 'u1'), vectors);
      await single.open(SPACE);
      const scope = { tenant: 't1', userId: 'u1' };
      const [query] = randomVectors(1, 5) as [Float32Array];
      const before = await pooled.vectorSearch(scope, query, 10);
      expect(before).toHaveLength(10);
      expect(before).toEqual(await single.vectorSearch(scope, query, 10));

      // Written on the serving connection after the worker read the owner's codes.
      const written = makeRecord({ content: 'the newest memory', user_id: 'u1' });
      await pooled.commit({ inserts: [{ record: written, vector: query }], updates: [] });
      const withNew = await pooled.vectorSearch(scope, query, 10);
      expect(withNew[0]?.id).toBe(written.id);
      expect(withNew[0]?.score).toBeCloseTo(1, 4);
      expect(withNew).toEqual(await single.vectorSearch(scope, query, 10));

      await pooled.deleteMany('t1', [written.id]);
      const afterDelete = await pooled.vectorSearch(scope, query, 10);
      expect(afterDelete.map((h) => h.id)).not.toContain(written.id);
      expect(afterDelete).toEqual(before);

      // Erasure: every memory of u1 goes; the other owner's stay searchable.
      const ofU1 = records.filter((r) => r.user_id === 'u1').map((r) => r.id);
      await pooled.deleteMany('t1', ofU1);
      expect(await pooled.vectorSearch(scope, query, 10)).toEqual([]);
      expect(await pooled.vectorSearch({ tenant: 't1', userId: 'u2' }, query, 10)).toHaveLength(10);
      // A new memory of the erased owner is found alone.
      const again = makeRecord({ content: 'written after the erasure', user_id: 'u1' });
      await pooled.commit({ inserts: [{ record: again, vector: query }], updates: [] });
      expect((await pooled.vectorSearch(scope, query, 10)).map((h) => h.id)).toEqual([again.id]);
    } finally {
      await single.close();
      await pooled.close();
    }
  });
});

describe('sqlite k-NN of a large owner: a rowid taken again or a vector rewritten in place', () => {
  it('ranks the memory by its new code, through a read worker and the single connection alike', async () => {
    const pooled = new PooledSqliteStore(path, {}, 1);
    await pooled.open(SPACE);
    const single = new SqliteMemoryStore(path);
    try {
      // Past the int8 scan's limit (4,096): candidates come from the codes each connection holds.
      const vectors = randomVectors(5000, 41);
      const records = await fill(pooled, () => 'u1', vectors);
      await single.open(SPACE);
      const scope = { tenant: 't1', userId: 'u1' };
      const [query] = randomVectors(1, 9) as [Float32Array];
      const opposite = query.map((x) => -x);
      const search = async () => {
        const hits = await pooled.vectorSearch(scope, query, 10);
        expect(hits).toEqual(await single.vectorSearch(scope, query, 10));
        return hits;
      };
      const before = await search();
      expect(before).toHaveLength(10);

      // Edited in place (same rowid, same count, same highest rowid): the farthest memory now sits on the query.
      let farthest = 0;
      for (let i = 1; i < vectors.length; i++) {
        if (cosine(query, vectors[i] as Float32Array) < cosine(query, vectors[farthest] as Float32Array)) farthest = i;
      }
      const edited = records[farthest] as MemoryRecord;
      await pooled.commit({ inserts: [], updates: [{ record: { ...edited, content: 'edited' }, vector: query }] });
      const afterEdit = await search();
      expect(afterEdit[0]).toMatchObject({ id: edited.id });
      expect(afterEdit[0]?.score).toBeCloseTo(1, 4);

      // The newest memory, opposite the query, read into the codes; deleted, and its rowid (the
      // highest) taken by a new one on the query: count and highest rowid are as they were.
      const newest = makeRecord({ content: 'the newest memory', user_id: 'u1' });
      await pooled.commit({ inserts: [{ record: newest, vector: opposite }], updates: [] });
      expect((await search()).map((h) => h.id)).not.toContain(newest.id);
      await pooled.deleteMany('t1', [newest.id]);
      const taking = makeRecord({ content: 'written where the newest was', user_id: 'u1' });
      await pooled.commit({ inserts: [{ record: taking, vector: query }], updates: [] });
      const afterReuse = await search();
      expect(
        afterReuse
          .slice(0, 2)
          .map((h) => h.id)
          .sort(),
      ).toEqual([edited.id, taking.id].sort());
      expect(afterReuse[1]?.score).toBeCloseTo(1, 4);
      expect(afterReuse.map((h) => h.id)).not.toContain(newest.id);
    } finally {
      await single.close();
      await pooled.close();
    }
  });
});

describe('sqlite migration 6: vectors out of vec0', () => {
  /** A store file as schema 5 left it: vectors in the per-owner vec0 partitions of memory_embeddings. */
  function buildSchema5Store(file: string, vectors: readonly Float32Array[], reindexing: boolean) {
    const db = new Database(file);
    sqliteVec.load(db);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    const setMeta = db.prepare('INSERT OR REPLACE INTO store_meta (key, value) VALUES (?, ?)');
    for (const migration of MIGRATIONS.filter((m) => m.version <= 5)) migration.up(db, DIMENSION);
    setMeta.run('schema_version', '5');
    setMeta.run('embedding_model', SPACE.model);
    setMeta.run('embedding_dimension', String(DIMENSION));
    const insertRow = db.prepare(
      `INSERT INTO memories (rowid, id, tenant, user_id, layer, category, content, tags, metadata, confidence,
         proof_count, source, occurred_at, created_at, updated_at, status, history, access_count, decay_weight,
         content_hash, embedding_model)
       VALUES (?, ?, 't1', ?, 'semantic', 'fact', ?, '[]', '{}', 0.9, 1, '{"kind":"api"}', 0, 0, 0, 'active', '[]', 0, 1, ?, ?)`,
    );
    const insertVector = db.prepare('INSERT INTO memory_embeddings (rowid, scope, embedding) VALUES (?, ?, ?)');
    vectors.forEach((vector, i) => {
      const user = `u${i % 3}`;
      insertRow.run(BigInt(i + 1), `m-${i}`, user, `old memory ${i}`, `hash-${i}`, SPACE.model);
      insertVector.run(BigInt(i + 1), `t1\u001f${user}`, Buffer.from(vector.buffer));
    });
    if (reindexing) {
      // A re-index to 32-d stopped after its first memories.
      db.exec(`CREATE VIRTUAL TABLE memory_embeddings_g2 USING vec0(
        scope TEXT PARTITION KEY, embedding float[32] distance_metric=cosine, chunk_size=128)`);
      db.prepare('INSERT INTO memory_embeddings_g2 (rowid, scope, embedding) VALUES (1, ?, ?)').run(
        't1\u001fu0',
        Buffer.from(new Float32Array(32).fill(0.1).buffer),
      );
      setMeta.run('reindex_model', 'test-32');
      setMeta.run('reindex_dimension', '32');
      setMeta.run('reindex_table', 'memory_embeddings_g2');
      setMeta.run('reindex_after', '1');
    }
    db.close();
  }

  it('moves every vector of a store built by schema 5 and searches it as before', async () => {
    const vectors = randomVectors(90, 21);
    buildSchema5Store(path, vectors, false);

    const store = new SqliteMemoryStore(path);
    await store.open(SPACE);
    try {
      for (const i of [0, 1, 2, 45, 89]) {
        const hits = await store.vectorSearch({ tenant: 't1', userId: `u${i % 3}` }, vectors[i] as Float32Array, 3);
        expect(hits[0]).toMatchObject({ id: `m-${i}` });
        expect(hits[0]?.score).toBeCloseTo(1, 5);
      }
      const similar = await store.similarities('t1', ['m-4', 'm-7'], vectors[4] as Float32Array);
      expect(similar.get('m-4')).toBeCloseTo(1, 5);
      expect(similar.get('m-7')).toBeCloseTo(cosine(vectors[4] as Float32Array, vectors[7] as Float32Array), 5);
      // New writes land beside the moved ones.
      const record = makeRecord({ content: 'written after the upgrade', user_id: 'u1' });
      const vector = randomVectors(1, 77)[0] as Float32Array;
      await store.commit({ inserts: [{ record, vector }], updates: [] });
      expect((await store.vectorSearch({ tenant: 't1', userId: 'u1' }, vector, 1))[0]?.id).toBe(record.id);
    } finally {
      await store.close();
    }
    const db = new Database(path, { readonly: true });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    const meta = new Map(
      (db.prepare('SELECT key, value FROM store_meta').all() as Array<{ key: string; value: string }>).map((r) => [
        r.key,
        r.value,
      ]),
    );
    db.close();
    expect(tables.filter((name) => name.startsWith('memory_embeddings'))).toEqual([]);
    expect(meta.get('vector_table')).toBe('memory_vectors');
    expect(meta.get('schema_version')).toBe(String(MIGRATIONS.at(-1)?.version));
  });

  it('moves an unfinished re-index with it, so the re-index resumes from its checkpoint', async () => {
    buildSchema5Store(path, randomVectors(6, 8), true);
    // memory-api refuses a store in the middle of a re-index, as before the upgrade …
    const refused = new SqliteMemoryStore(path);
    await expect(refused.open(SPACE)).rejects.toThrow(/re-index/);
    // … and the re-index itself opens it, migrates it and resumes after memory 1.
    const store = new SqliteMemoryStore(path);
    const status = await store.beginReindex({ model: 'test-32', dimension: 32 });
    try {
      expect(status).toMatchObject({ resumed: true, done: 1, total: 6 });
      const next = await store.nextToReindex(10);
      expect(next.map((r) => r.id)).toEqual(['m-1', 'm-2', 'm-3', 'm-4', 'm-5']);
      await store.writeReindexed(next.map((record) => ({ record, vector: new Float32Array(32).fill(0.2) })));
      await store.finishReindex();
      const hits = await store.vectorSearch({ tenant: 't1', userId: 'u0' }, new Float32Array(32).fill(0.1), 2);
      expect(hits.map((h) => h.id).sort()).toEqual(['m-0', 'm-3']);
    } finally {
      await store.close();
    }
  });
});

describe('sqlite migration 7: exact vectors out of the blocks, clustered by owner', () => {
  /** A store file as schema 6 left it (float32 blocks of consecutive rowids and codes), with `vectors` over 3 users. */
  function buildSchema6Store(file: string, vectors: readonly Float32Array[]) {
    const db = new Database(file);
    sqliteVec.load(db);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
    const setMeta = db.prepare('INSERT OR REPLACE INTO store_meta (key, value) VALUES (?, ?)');
    for (const migration of MIGRATIONS.filter((m) => m.version <= 5)) migration.up(db, DIMENSION);
    setMeta.run('embedding_model', SPACE.model);
    setMeta.run('embedding_dimension', String(DIMENSION));
    const insertRow = db.prepare(
      `INSERT INTO memories (rowid, id, tenant, user_id, layer, category, content, tags, metadata, confidence,
         proof_count, source, occurred_at, created_at, updated_at, status, history, access_count, decay_weight,
         content_hash, embedding_model)
       VALUES (?, ?, 't1', ?, 'semantic', 'fact', ?, '[]', '{}', 0.9, 1, '{"kind":"api"}', 0, 0, 0, 'active', '[]', 0, 1, ?, ?)`,
    );
    const insertVector = db.prepare('INSERT INTO memory_embeddings (rowid, scope, embedding) VALUES (?, ?, ?)');
    vectors.forEach((vector, i) => {
      const user = `u${(i * 5) % 3}`;
      insertRow.run(BigInt(i + 1), `m-${i}`, user, `old memory ${i}`, `hash-${i}`, SPACE.model);
      insertVector.run(BigInt(i + 1), `t1\u001f${user}`, Buffer.from(vector.buffer));
    });
    (MIGRATIONS.find((m) => m.version === 6) as (typeof MIGRATIONS)[number]).up(db, DIMENSION);
    setMeta.run('schema_version', '6');
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    db.close();
    return tables;
  }

  it('moves every vector of a store built by schema 6 and searches it as a store written today does', async () => {
    const vectors = randomVectors(700, 33);
    const schema6Tables = buildSchema6Store(path, vectors);
    expect(schema6Tables).toEqual(expect.arrayContaining(['memory_vectors', 'memory_vectors_codes']));
    expect(schema6Tables).not.toContain('memory_vectors_owners');

    const migrated = new SqliteMemoryStore(path);
    await migrated.open(SPACE);
    // The same memories written by today's store, for comparison.
    const freshPath = join(dir, 'fresh.db');
    const fresh = new SqliteMemoryStore(freshPath);
    await fresh.open(SPACE);
    const records = await fill(fresh, (i) => `u${(i * 5) % 3}`, vectors);
    try {
      for (const [q, query] of randomVectors(15, 35).entries()) {
        const userId = `u${q % 3}`;
        const old = await migrated.vectorSearch({ tenant: 't1', userId }, query, 10);
        const now = await fresh.vectorSearch({ tenant: 't1', userId }, query, 10);
        expect(old.map((h) => h.id)).toEqual(now.map((h) => `m-${records.findIndex((r) => r.id === h.id)}`));
        for (const [rank, hit] of old.entries()) expect(hit.score).toBeCloseTo(now[rank]?.score as number, 6);
      }
      const similar = await migrated.similarities('t1', ['m-4', 'm-7'], vectors[4] as Float32Array);
      expect(similar.get('m-4')).toBeCloseTo(1, 5);
      expect(similar.get('m-7')).toBeCloseTo(cosine(vectors[4] as Float32Array, vectors[7] as Float32Array), 4);
      await migrated.deleteMany('t1', ['m-4']);
      expect(await migrated.similarities('t1', ['m-4'], vectors[4] as Float32Array)).toEqual(new Map());
    } finally {
      await fresh.close();
      await migrated.close();
    }
    const db = new Database(path, { readonly: true });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
    const owners = db.prepare('SELECT scope, vectors FROM memory_vectors_owners ORDER BY scope').all();
    const version = db.prepare("SELECT value FROM store_meta WHERE key = 'schema_version'").pluck().get();
    db.close();
    expect(tables.filter((name) => name.includes('schema6'))).toEqual([]);
    expect(owners).toEqual([
      { scope: 't1\u001fu0', vectors: 234 },
      { scope: 't1\u001fu1', vectors: 233 },
      // m-4 was deleted after the move.
      { scope: 't1\u001fu2', vectors: 232 },
    ]);
    expect(version).toBe(String(MIGRATIONS.at(-1)?.version));
  });
});

describe('sqlite migration 12: exact vectors keyed by owner', () => {
  it('answers the searches and similarities of a schema-11 file as before, and erasure leaves none of an owner', async () => {
    const vectors = randomVectors(300, 41);
    const store = new SqliteMemoryStore(path);
    await store.open(SPACE);
    const records = await fill(store, (i) => `u${i % 3}`, vectors);
    const queries = randomVectors(12, 43);
    const answers = async (searched: SqliteMemoryStore) => ({
      dense: await Promise.all(
        queries.map((query, q) => searched.vectorSearch({ tenant: 't1', userId: `u${q % 3}` }, query, 10)),
      ),
      similar: await searched.similarities(
        't1',
        records.slice(0, 9).map((r) => r.id),
        queries[0] as Float32Array,
      ),
    });
    const before = await answers(store);
    await store.close();

    // The file as schema 11 left it: exact vectors keyed by rowid alone.
    const db = new Database(path);
    db.exec(`
      CREATE TABLE exact_by_rowid (rowid INTEGER PRIMARY KEY, exact BLOB NOT NULL);
      INSERT INTO exact_by_rowid (rowid, exact) SELECT key % 68719476736, exact FROM memory_vectors_exact;
      DROP TABLE memory_vectors_exact;
      ALTER TABLE exact_by_rowid RENAME TO memory_vectors_exact;
      UPDATE store_meta SET value = '11' WHERE key = 'schema_version';
    `);
    db.close();

    const migrated = new SqliteMemoryStore(path);
    await migrated.open(SPACE);
    try {
      const after = await answers(migrated);
      expect(after.similar.size).toBe(9);
      expect(after).toEqual(before);
      // The memories of u1, every third one, erased.
      await migrated.deleteMany(
        't1',
        records.filter((_, i) => i % 3 === 1).map((r) => r.id),
      );
      expect(await migrated.vectorSearch({ tenant: 't1', userId: 'u1' }, queries[1] as Float32Array, 10)).toEqual([]);
    } finally {
      await migrated.close();
    }
    const file = new Database(path, { readonly: true });
    const columns = file.prepare("SELECT name FROM pragma_table_info('memory_vectors_exact')").pluck().all();
    const exactRows = file.prepare('SELECT count(*) FROM memory_vectors_exact').pluck().get();
    const version = file.prepare("SELECT value FROM store_meta WHERE key = 'schema_version'").pluck().get();
    file.close();
    expect(columns).toEqual(['key', 'exact']);
    expect(exactRows).toBe(200);
    expect(version).toBe(String(MIGRATIONS.at(-1)?.version));
  });
});

describe("sqlite k-NN of a large owner: another owner's removals", () => {
  it("leave the large owner's codes in memory; its own removal reads them again", async () => {
    const store = new SqliteMemoryStore(path);
    await store.open(SPACE);
    try {
      await fill(store, () => 'big', randomVectors(5000, 43));
      const [other] = await fill(store, () => 'small', randomVectors(3, 44));
      const [query] = randomVectors(1, 45) as [Float32Array];
      const big = { tenant: 't1', userId: 'big' };
      await store.vectorSearch(big, query, 10);

      // Every read of a large owner's codes from the start (rowid > 0): what a cache reload costs (~50 ms at 100,000).
      const statement = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as {
        get: (...args: unknown[]) => unknown;
      };
      const reloads: unknown[][] = [];
      const get = statement.get;
      statement.get = function (this: { source: string }, ...args: unknown[]) {
        if (this.source.includes('_codes WHERE scope = ? AND rowid > ?') && args[1] === 0) reloads.push(args);
        return get.apply(this, args);
      };
      try {
        await store.deleteMany('t1', [(other as MemoryRecord).id]);
        const afterOther = await store.vectorSearch(big, query, 10);
        expect(reloads).toHaveLength(0);

        const ownFirst = afterOther[0]?.id as string;
        await store.deleteMany('t1', [ownFirst]);
        const afterOwn = await store.vectorSearch(big, query, 10);
        expect(reloads).toHaveLength(1);
        expect(afterOwn.map((h) => h.id)).not.toContain(ownFirst);
      } finally {
        statement.get = get;
      }
    } finally {
      await store.close();
    }
  });
});
