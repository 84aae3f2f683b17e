import type { Logger } from '@hindsight/logger';
import type { MemoryApiConfig } from '../../config.ts';
import type { MemoryStore } from '../../memory/store-port.ts';
import { QdrantMemoryStore } from './qdrant/store.ts';
import { SqliteMemoryStore } from './sqlite/store.ts';

/** Picks the long-term store adapter named by VECTOR_STORE. */
export function createMemoryStore(config: MemoryApiConfig, log: Logger): MemoryStore {
  if (config.VECTOR_STORE === 'qdrant') {
    // The config schema rejects VECTOR_STORE=qdrant without QDRANT_URL; this keeps the type honest.
    if (config.QDRANT_URL === undefined) throw new Error('VECTOR_STORE=qdrant needs QDRANT_URL');
    log.info(
      { backend: 'qdrant', url: config.QDRANT_URL, collectionPrefix: config.QDRANT_COLLECTION_PREFIX },
      'opening the long-term store',
    );
    return new QdrantMemoryStore({
      url: config.QDRANT_URL,
      ...(config.QDRANT_API_KEY ? { apiKey: config.QDRANT_API_KEY } : {}),
      collectionPrefix: config.QDRANT_COLLECTION_PREFIX,
    });
  }
  log.info({ backend: 'sqlite', path: config.DATABASE_PATH }, 'opening the long-term store');
  return new SqliteMemoryStore(config.DATABASE_PATH);
}
