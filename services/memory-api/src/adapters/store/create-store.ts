import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import type { Logger } from '@hindsight/logger';
import type { MemoryApiConfig } from '../../config.ts';
import type { MemoryStore, ReindexableStore } from '../../memory/store-port.ts';
import { describeTarget } from './postgres/database.ts';
import { PostgresMemoryStore } from './postgres/store.ts';
import { QdrantMemoryStore } from './qdrant/store.ts';
import { PooledSqliteStore } from './sqlite/pooled-store.ts';
import { SqliteMemoryStore } from './sqlite/store.ts';

/** What a store is opened for: serving memory-api, or a re-index (`hindsight reindex`). */
export type StorePurpose = 'serve' | 'reindex';

/** Picks the long-term store adapter named by VECTOR_STORE. */
export function createMemoryStore(
  config: MemoryApiConfig,
  log: Logger,
  purpose: StorePurpose = 'serve',
): MemoryStore & ReindexableStore {
  const keywords = {
    keywordRanking: {
      k1: config.RANK_BM25_K1,
      b: config.RANK_BM25_B,
      contextWeight: config.RANK_TURN_CONTEXT_WEIGHT,
      commonWordDiscount: config.RANK_COMMON_WORD_DISCOUNT,
    },
    turnContext: { before: config.TURN_CONTEXT_BEFORE, after: config.TURN_CONTEXT_AFTER },
  };
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
  if (config.VECTOR_STORE === 'postgres') {
    if (config.DATABASE_URL === undefined) throw new Error('VECTOR_STORE=postgres needs DATABASE_URL');
    log.info(
      { backend: 'postgres', target: describeTarget(config.DATABASE_URL), schema: config.DATABASE_SCHEMA },
      'opening the long-term store',
    );
    const ssl = postgresTls(config);
    return new PostgresMemoryStore({
      connectionString: config.DATABASE_URL,
      schema: config.DATABASE_SCHEMA,
      poolSize: config.DATABASE_POOL_SIZE,
      statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
      ...(ssl !== undefined ? { ssl } : {}),
      reindexing: purpose === 'reindex',
      onIdleError: (error) => log.warn({ err: error }, 'an idle PostgreSQL connection failed; it will be replaced'),
      onUnindexedVectors: (dimension) =>
        log.warn(
          { dimension },
          "pgvector indexes at most 2000 dimensions: k-NN scans each user's vectors without an HNSW index",
        ),
      ...keywords,
    });
  }
  // A re-index has the file alone, so only a serving store reads through a pool.
  const readWorkers = purpose === 'serve' ? config.SQLITE_READ_WORKERS : 0;
  log.info({ backend: 'sqlite', path: config.DATABASE_PATH, readWorkers }, 'opening the long-term store');
  const options = {
    ...keywords,
    memory: { cacheBytes: config.SQLITE_CACHE_MIB * 1024 ** 2, mmapBytes: config.SQLITE_MMAP_MIB * 1024 ** 2 },
  };
  if (readWorkers > 0) {
    return new PooledSqliteStore(config.DATABASE_PATH, options, readWorkers, {
      onCheckpointError: (error) =>
        log.error({ err: error }, 'a checkpoint of the WAL failed; the next write asks again'),
    });
  }
  return new SqliteMemoryStore(config.DATABASE_PATH, options);
}

/** DATABASE_SSL as node-postgres TLS options; undefined leaves it to DATABASE_URL's sslmode. */
function postgresTls(config: MemoryApiConfig): false | ConnectionOptions | undefined {
  switch (config.DATABASE_SSL) {
    case undefined:
      return undefined;
    case 'disable':
      return false;
    case 'require':
      return { rejectUnauthorized: false };
    case 'verify-full':
      return {
        rejectUnauthorized: true,
        ...(config.DATABASE_SSL_CA_FILE ? { ca: readFileSync(config.DATABASE_SSL_CA_FILE, 'utf8') } : {}),
      };
  }
}
