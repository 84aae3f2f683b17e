import type { Embedder } from '@hindsight/embedding';
import type { MemoryRecord, WriteResult } from '@hindsight/memory-model';
import { decideAgain } from './decide-again.ts';
import type { PreparedItem } from './prepare.ts';
import { reconcileSemantic } from './reconcile.ts';
import { DuplicateContentError, type MemoryUpdate, type NewMemory, StaleWriteError } from './store-port.ts';
import type { WriteDeps } from './write.ts';

const isConcurrentChange = (error: unknown) =>
  error instanceof StaleWriteError || error instanceof DuplicateContentError;

/**
 * Dedup, merge/supersede and commit of validated long-term items, as one atomic step per owner.
 *
 * Merge and supersede read an owner's neighbours: two such writes deciding at once could each miss
 * the other (two contradicting inserts conflict on no stored row), so they decide holding the lock
 * of every user the items belong to. Exact dedup alone (episodic items, quarantined ones) needs no
 * lock: every race it can lose is caught by the store at commit (the unique active hash, the
 * version of the memory whose proof is counted), so it commits optimistically and only a write
 * that met a concurrent change decides again under the lock. Vectors depend on the text alone:
 * they are computed while the items are prepared, the lock is taken and exact duplicates are looked up.
 */
export async function commitLongTerm(
  deps: WriteDeps,
  prepared: readonly PreparedItem[],
  pending: PendingVectors,
  now: number,
): Promise<WriteResult[]> {
  // Settled at once, so a refused lock leaves no stray rejection behind.
  const embedding = pending.of(prepared).then(
    (vectors) => ({ vectors }),
    (error: unknown) => ({ error }),
  );
  const vectorsOf = async () => {
    const embedded = await embedding;
    if ('error' in embedded) throw embedded.error;
    return embedded.vectors;
  };
  // Each attempt decides from the prepared items as they were, not as an earlier attempt left them.
  const decide = async () =>
    decideAndCommit(
      deps,
      prepared.map((item) => ({ ...item, record: structuredClone(item.record) })),
      vectorsOf,
      now,
    );
  const reconciles = prepared.some((item) => item.record.layer === 'semantic' && item.record.status === 'active');
  if (!reconciles) {
    try {
      return await decide();
    } catch (error) {
      if (!isConcurrentChange(error)) throw error;
      deps.log.info(
        { reason: (error as Error).message },
        'write met a concurrent change; deciding again under the lock',
      );
    }
  }
  const tenant = (prepared[0] as PreparedItem).record.tenant;
  return deps.lock.hold(
    tenant,
    prepared.map((item) => item.record.user_id),
    () =>
      decideAgain(decide, {
        concurrent: isConcurrentChange,
        onConflict: (attempt, error) =>
          deps.log.info({ attempt, reason: error.message }, 'write met a concurrent change; deciding again'),
      }),
  );
}

/**
 * The vectors of a write's items, asked for as the items are prepared: one embed call per chunk,
 * one vector per distinct text.
 */
export class PendingVectors {
  private readonly byText = new Map<string, Promise<Float32Array>>();

  constructor(private readonly embedder: Embedder) {}

  /** Sends the texts of `items` not asked for yet to be embedded. */
  request(items: readonly PreparedItem[]): void {
    const texts = [...new Set(items.map((item) => item.embedText))].filter((text) => !this.byText.has(text));
    if (texts.length === 0) return;
    const vectors = this.embedder.embed(texts);
    texts.forEach((text, i) => {
      const vector = vectors.then((all) => all[i] as Float32Array);
      // A write refused after this call never asks for the vector: its failure is not left unhandled.
      vector.catch(() => undefined);
      this.byText.set(text, vector);
    });
  }

  /** The vectors of `items`, in their order (asked for now when they were not yet). */
  of(items: readonly PreparedItem[]): Promise<Float32Array[]> {
    this.request(items);
    return Promise.all(items.map((item) => this.byText.get(item.embedText) as Promise<Float32Array>));
  }
}

async function decideAndCommit(
  deps: WriteDeps,
  items: readonly PreparedItem[],
  vectorsOf: () => Promise<readonly Float32Array[]>,
  now: number,
): Promise<WriteResult[]> {
  const at = new Date(now).toISOString();
  const results: WriteResult[] = new Array(items.length);
  const updates = new Map<string, MemoryUpdate>();
  const inserts: Array<{ index: number; item: PreparedItem }> = [];
  const insertedByHash = new Map<string, MemoryRecord>();

  const confirm = (existing: MemoryRecord, item: PreparedItem): MemoryRecord => {
    const update = updates.get(existing.id) ?? { record: structuredClone(existing) };
    const record = update.record;
    record.proof_count += 1;
    // A second independent source lifts the single-source cap.
    record.confidence = Math.min(1, Math.max(record.confidence, item.record.confidence));
    record.updated_at = at;
    updates.set(record.id, update);
    return record;
  };

  for (const [index, item] of items.entries()) {
    const { record } = item;
    const key = `${record.user_id}\u001f${record.layer}\u001f${record.content_hash}`;
    const earlier = insertedByHash.get(key);
    if (earlier) {
      earlier.proof_count += 1;
      results[index] = { id: earlier.id, status: 'duplicate', layer: earlier.layer };
      continue;
    }
    const existing =
      record.status === 'active'
        ? await deps.store.findActiveByHash(record.tenant, record.user_id, record.layer, record.content_hash)
        : undefined;
    if (existing) {
      const confirmed = confirm(existing, item);
      results[index] = { id: confirmed.id, status: 'duplicate', layer: confirmed.layer };
      continue;
    }
    insertedByHash.set(key, record);
    inserts.push({ index, item });
  }

  // Exact duplicates were looked up while the vectors were on their way.
  const vectors = await vectorsOf();
  const newRows: NewMemory[] = [];
  for (const { index, item } of inserts) {
    const vector = vectors[index] as Float32Array;
    const { record } = item;
    if (record.layer === 'semantic' && record.status === 'active') {
      const pending = newRows.filter((row) => row.record.layer === 'semantic');
      const decision = await reconcileSemantic(deps, record, vector, updates, pending, at);
      if (decision.kind === 'merged') {
        results[index] = { id: decision.id, status: 'merged', layer: record.layer };
        continue;
      }
      if (decision.kind === 'historical') {
        results[index] = { id: record.id, status: 'created', layer: record.layer, superseded_by: decision.by };
        newRows.push({ record, vector });
        continue;
      }
      if (decision.kind === 'superseded') {
        results[index] = { id: record.id, status: 'superseded', layer: record.layer, superseded_ids: decision.ids };
        newRows.push({ record, vector });
        continue;
      }
    }
    results[index] = {
      id: record.id,
      status: record.status === 'quarantined' ? 'quarantined' : 'created',
      layer: record.layer,
    };
    newRows.push({ record, vector });
  }
  await deps.store.commit({ inserts: newRows, updates: [...updates.values()] });
  return results;
}
