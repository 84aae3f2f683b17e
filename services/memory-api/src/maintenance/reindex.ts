import type { Embedder } from '@hindsight/embedding';
import { searchableText } from '@hindsight/memory-model';
import { type EmbeddingSpace, type ReindexableStore, type ReindexStatus, sameSpace } from '../memory/store-port.ts';

export interface ReindexDeps {
  store: ReindexableStore;
  embedder: Embedder;
  /** Memories embedded and written per step (one checkpoint each). */
  batchSize: number;
}

export interface ReindexProgress {
  /** The store is open and the target prepared: what is to be done. */
  started(status: ReindexStatus): void;
  /** `count` more memories are re-embedded (and checkpointed). */
  advanced(count: number): void;
}

export interface ReindexSummary {
  /** `reindexed`: the store now serves `to`; `unchanged`: it already did, nothing was written. */
  outcome: 'reindexed' | 'unchanged';
  from: EmbeddingSpace;
  to: EmbeddingSpace;
  /** Memories in the store (every tenant, layer and status). */
  total: number;
  /** Re-embedded by this run. */
  reembedded: number;
  /** Already re-embedded by an earlier, interrupted run this one continued (0 when it started afresh). */
  resumedAt: number;
  /** An unfinished re-index into another space that was discarded. */
  discarded?: EmbeddingSpace;
  tookMs: number;
}

/**
 * Re-embeds every long-term memory of every tenant (both layers, every status) with `embedder`, in
 * place, into the embedder's space, then switches the store to it. Each batch is written with its
 * checkpoint, so a run killed at any moment is continued by the next one; a store already in the
 * embedder's space is left as it is.
 */
export async function reindexStore(deps: ReindexDeps, progress: ReindexProgress): Promise<ReindexSummary> {
  const started = performance.now();
  const target: EmbeddingSpace = { model: deps.embedder.model, dimension: deps.embedder.dimension };
  const status = await deps.store.beginReindex(target);
  progress.started(status);
  const summary = {
    from: status.current,
    to: target,
    total: status.total,
    resumedAt: status.resumed ? status.done : 0,
    ...(status.discarded ? { discarded: status.discarded } : {}),
  };
  if (sameSpace(status.current, target)) {
    return { ...summary, outcome: 'unchanged', reembedded: 0, tookMs: performance.now() - started };
  }
  let reembedded = 0;
  for (;;) {
    const records = await deps.store.nextToReindex(deps.batchSize);
    if (records.length === 0) break;
    const vectors = await deps.embedder.embed(records.map(searchableText));
    await deps.store.writeReindexed(records.map((record, i) => ({ record, vector: vectors[i] as Float32Array })));
    reembedded += records.length;
    progress.advanced(records.length);
  }
  await deps.store.finishReindex();
  return { ...summary, outcome: 'reindexed', reembedded, tookMs: performance.now() - started };
}
