import { isBuiltinModel } from '@hindsight/embedding/builtin-models';
import { type EmbeddingSpace, sameSpace } from '../../memory/store-port.ts';

/** The store's settings the re-index reads: the same environment as memory-api's. */
const REINDEX_ENV =
  'VECTOR_STORE and DATA_DIR / DATABASE_URL / QDRANT_URL, and EMBEDDER_URL or EMBEDDINGS_PROVIDER, EMBEDDINGS_MODEL, EMBEDDINGS_DIM';

const reindexCommand = (action: string) =>
  `stop memory-api (every replica) and run \`npm run reindex\` (or \`npx hindsight reindex\`) with the new settings in the environment (${REINDEX_ENV}): it ${action}`;

const describe = (space: EmbeddingSpace) => `"${space.model}" (dimension ${space.dimension})`;

/** The message shown when a store and the configured embedder disagree. */
export function reindexInstruction(builtWith: EmbeddingSpace, configured: EmbeddingSpace, where: string): string {
  // A built-in model is named in a store with its dimension ("builtin-v8-512"); each one is still served by name.
  const builtinName = /^(builtin-v\d+)-\d+$/.exec(builtWith.model)?.[1];
  const previousBuiltin = builtinName !== undefined && isBuiltinModel(builtinName) ? builtinName : undefined;
  return [
    `${where} was built with embedding model ${describe(builtWith)},`,
    `but the configured embedder is ${describe(configured)}. Vectors of two models cannot be mixed.`,
    `To re-index the store into the new model, ${reindexCommand('re-embeds every memory in place, resumes if interrupted, then switches the store')}.`,
    // The built-in model changed under an upgrade: the previous one is still served by name.
    ...(previousBuiltin
      ? [
          `To keep the previous built-in model instead, set EMBEDDINGS_MODEL=${previousBuiltin} (on the embedder service too).`,
        ]
      : ['To keep the store as it is, restore the previous embedder settings.']),
    'Or copy the memories into a new store: with the old settings run `hindsight export > memories.ndjson`,',
    'move DATA_DIR (or the Qdrant collection) aside, start with the new settings and run',
    '`hindsight import memories.ndjson` (import re-embeds every memory).',
  ].join(' ');
}

/** The message shown when memory-api opens a store whose re-index was interrupted. */
export function unfinishedReindexInstruction(
  current: EmbeddingSpace,
  target: EmbeddingSpace,
  configured: EmbeddingSpace,
  where: string,
): string {
  return [
    `${where} is being re-indexed from ${describe(current)} to ${describe(target)}, and the re-index has not finished`,
    '(it was interrupted, or is still running). memory-api cannot serve it until it does.',
    `To finish it, ${reindexCommand('resumes where it stopped')}.`,
    `To stay on ${describe(current)} instead, run the re-index with those settings: it discards the unfinished one.`,
    ...(sameSpace(configured, current) || sameSpace(configured, target)
      ? []
      : [`(The configured embedder is ${describe(configured)}.)`]),
  ].join(' ');
}

/**
 * A space a SQL store's meta table records: `embedding_*` (the one it serves) or `reindex_*` (the
 * target of an unfinished re-index).
 */
export function recordedSpace(
  meta: ReadonlyMap<string, string>,
  prefix: 'embedding' | 'reindex',
): EmbeddingSpace | undefined {
  const model = meta.get(`${prefix}_model`);
  return model === undefined ? undefined : { model, dimension: Number(meta.get(`${prefix}_dimension`)) };
}
