import { createLogger } from '@hindsight/logger';
import { createEmbedderFromConfig } from '../adapters/embedder.ts';
import { createMemoryStore } from '../adapters/store/create-store.ts';
import { loadMemoryApiConfig } from '../config.ts';
import { type ReindexProgress, type ReindexSummary, reindexStore } from './reindex.ts';

export { ConfigError } from '@hindsight/config';
export { NoStoreError, StoreInUseError, sameSpace } from '../memory/store-port.ts';
export type { ReindexProgress, ReindexSummary } from './reindex.ts';

export interface ReindexCommandOptions {
  /** memory-api's environment: the store (VECTOR_STORE, DATA_DIR, DATABASE_URL, QDRANT_URL …) and the embedder. */
  env: Record<string, string | undefined>;
  batchSize: number;
  progress: ReindexProgress;
}

/**
 * `hindsight reindex`: opens the store and the embedder memory-api's configuration names, and
 * re-embeds the store into the embedder's space (see `reindexStore`). Logs go to stderr, at
 * LOG_LEVEL (warn unless set), so stdout stays the command's own.
 */
export async function reindexFromEnvironment(options: ReindexCommandOptions): Promise<ReindexSummary> {
  const config = loadMemoryApiConfig(options.env);
  const log = createLogger({ service: 'hindsight-reindex', level: options.env.LOG_LEVEL ?? 'warn', toStderr: true });
  const embedder = await createEmbedderFromConfig(config, log);
  try {
    const store = createMemoryStore(config, log, 'reindex');
    try {
      return await reindexStore({ store, embedder, batchSize: options.batchSize }, options.progress);
    } finally {
      await store.close();
    }
  } finally {
    await embedder.close?.();
  }
}
