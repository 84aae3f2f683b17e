import { randomBytes } from 'node:crypto';
import { keywordTokens } from '@hindsight/text';
import { QdrantClient } from '@qdrant/js-client-rest';
import { describe, expect, it } from 'vitest';
import { pointIdOf } from '../../../src/adapters/store/qdrant/points.ts';
import { QdrantMemoryStore } from '../../../src/adapters/store/qdrant/store.ts';
import { axisVector, makeRecord } from '../../support/records.ts';
import { runMemoryStoreContract } from './contract.ts';
import { runReindexContract } from './reindex-contract.ts';

/**
 * The store contract against a real Qdrant (>= 1.17). Run it with
 * `QDRANT_URL=http://127.0.0.1:6333 npx vitest run services/memory-api/test/adapters/store/qdrant.test.ts`.
 * Each test works in collections under its own random prefix and deletes them afterwards.
 */
const url = process.env.QDRANT_URL;
const apiKey = process.env.QDRANT_API_KEY;

if (url === undefined || url === '') {
  // Said out loud too: the default reporter shows a skipped file only as a count.
  console.warn(
    'SKIPPED: MemoryStore contract — qdrant (QDRANT_URL not set; run it with QDRANT_URL=http://127.0.0.1:6333 npx vitest run services/memory-api/test/adapters/store/qdrant.test.ts)',
  );
  describe.skip('MemoryStore contract — qdrant (skipped: QDRANT_URL not set)', () => {
    it('runs the whole store contract against the Qdrant server named by QDRANT_URL', () => undefined);
  });
} else {
  const admin = new QdrantClient({ url, ...(apiKey ? { apiKey } : {}), checkCompatibility: false });
  const makeStore = (collectionPrefix: string) =>
    new QdrantMemoryStore({ url, ...(apiKey ? { apiKey } : {}), collectionPrefix });
  const dropPrefix = async (prefix: string) => {
    const { collections } = await admin.getCollections();
    for (const { name } of collections) if (name.startsWith(`${prefix}_`)) await admin.deleteCollection(name);
  };
  const freshPrefix = () => `hstest${randomBytes(5).toString('hex')}`;

  runMemoryStoreContract('qdrant', {
    async create() {
      const prefix = freshPrefix();
      return { store: makeStore(prefix), reopen: () => makeStore(prefix), cleanup: () => dropPrefix(prefix) };
    },
  });

  runReindexContract('qdrant', {
    async create() {
      const prefix = freshPrefix();
      return { store: () => makeStore(prefix), cleanup: () => dropPrefix(prefix) };
    },
  });

  describe('QdrantMemoryStore — beyond the port', () => {
    it('fuses dense and keyword candidates in Qdrant with one query, under the same filters', async () => {
      const prefix = freshPrefix();
      const store = makeStore(prefix);
      try {
        await store.open({ model: 'test-8', dimension: 8 });
        const byMeaning = makeRecord({ content: 'enjoys hiking in the alps' });
        const byWord = makeRecord({ content: 'peanut allergy noted' });
        const otherUser = makeRecord({ content: 'peanut allergy too', user_id: 'u2' });
        await store.commit({
          inserts: [
            { record: byMeaning, vector: axisVector(0) },
            { record: byWord, vector: axisVector(4) },
            { record: otherUser, vector: axisVector(0) },
          ],
          updates: [],
        });
        const hits = await store.hybridSearch(
          { tenant: 't1', userId: 'u1' },
          axisVector(0),
          keywordTokens('peanut'),
          5,
        );
        expect(hits.map((h) => h.id).sort()).toEqual([byMeaning.id, byWord.id].sort());
        expect(store.collectionName).toBe(`${prefix}_test-8_8`);
      } finally {
        await store.close();
        await dropPrefix(prefix);
      }
    });

    it('rebuilds keyword vectors written by another tokenizer version when it opens', async () => {
      const prefix = freshPrefix();
      const space = { model: 'test-8', dimension: 8 };
      const store = makeStore(prefix);
      try {
        await store.open(space);
        const record = makeRecord({ content: 'peanut allergy noted' });
        await store.commit({ inserts: [{ record, vector: axisVector(0) }], updates: [] });
        const collection = store.collectionName;
        await store.close();
        // Simulate an index written by an older tokenizer: terms that match nothing today.
        await admin.updateVectors(collection, {
          points: [{ id: pointIdOf('t1', record.id), vector: { keywords: { indices: [1], values: [1] } } }],
          wait: true,
        });
        const info = await admin.getCollection(collection);
        await admin.api().updateCollection({
          collection_name: collection,
          metadata: { ...(info.config.metadata ?? {}), keyword_tokenizer_version: 0 },
        });
        const again = makeStore(prefix);
        await again.open(space);
        const hits = await again.keywordSearch({ tenant: 't1', userId: 'u1' }, keywordTokens('peanut'), 5);
        expect(hits.map((h) => h.id)).toEqual([record.id]);
        await again.close();
      } finally {
        await dropPrefix(prefix);
      }
    });
  });
}
