import { BuiltinEmbedder, type Embedder } from '@hindsight/embedding';
import type { Logger } from '@hindsight/logger';
import type { MemoryApiConfig } from '../config.ts';

/** The embedder memory-api uses: the embedder service when EMBEDDER_URL is set, else in process. */
export async function createEmbedderFromConfig(config: MemoryApiConfig, log: Logger): Promise<Embedder> {
  const embedder = new BuiltinEmbedder({ dimension: config.EMBEDDINGS_DIM });
  log.info({ model: embedder.model, dimension: embedder.dimension }, 'embedding in process');
  return embedder;
}
