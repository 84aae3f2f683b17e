import type { EmbeddingSpace } from '../../memory/store-port.ts';

/** The message shown when a store and the configured embedder disagree. */
export function reindexInstruction(builtWith: EmbeddingSpace, configured: EmbeddingSpace, where: string): string {
  return [
    `${where} was built with embedding model "${builtWith.model}" (dimension ${builtWith.dimension}),`,
    `but the configured embedder is "${configured.model}" (dimension ${configured.dimension}). Vectors of two models cannot be mixed.`,
    'Either restore the previous embedder settings, or re-index: with the old settings run',
    '`hindsight export > memories.ndjson`, move DATA_DIR (or the Qdrant collection) aside,',
    'start with the new settings and run `hindsight import memories.ndjson` (import re-embeds every memory).',
  ].join(' ');
}
