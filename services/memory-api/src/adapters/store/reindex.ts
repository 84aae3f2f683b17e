import type { EmbeddingSpace } from '../../memory/store-port.ts';

/** The message shown when a store and the configured embedder disagree. */
export function reindexInstruction(builtWith: EmbeddingSpace, configured: EmbeddingSpace, where: string): string {
  return [
    `${where} was built with embedding model "${builtWith.model}" (dimension ${builtWith.dimension}),`,
    `but the configured embedder is "${configured.model}" (dimension ${configured.dimension}). Vectors of two models cannot be mixed.`,
    // The built-in model changed under an upgrade: the previous one is still served by name.
    ...(builtWith.model.startsWith('builtin-v2')
      ? [`To keep the previous built-in model, set EMBEDDINGS_MODEL=builtin-v2 (on the embedder service too).`]
      : []),
    'Either restore the previous embedder settings, or re-index: with the old settings run',
    '`hindsight export > memories.ndjson`, move DATA_DIR (or the Qdrant collection) aside,',
    'start with the new settings and run `hindsight import memories.ndjson` (import re-embeds every memory).',
  ].join(' ');
}
