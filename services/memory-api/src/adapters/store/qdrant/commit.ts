import { randomUUID } from 'node:crypto';
import type { MemoryRecord } from '@hindsight/memory-model';
import type { Schemas } from '@qdrant/js-client-rest';
import { DuplicateContentError, IdTakenError, StaleWriteError, type WriteBatch } from '../../../memory/store-port.ts';
import type { QdrantConnection } from './connection.ts';
import { activeHashFilter } from './filter.ts';
import { chunks } from './paging.ts';
import { denseOf, type MemoryPayload, type MemoryPoint, memoryIdOf, pointIdOf, toPoint } from './points.ts';

/**
 * The compensating commit protocol of the Qdrant store: `MemoryStore.commit` on a server without
 * multi-point transactions. What it guarantees:
 * - A batch that breaks a rule (an update whose memory is gone or no longer at the
 *   version it was decided on, an insert whose id exists, an active duplicate of
 *   stored content or within the batch) is rejected after reading the current state
 *   and before anything is written.
 * - Updates are conditional upserts (`update_filter` on the version read), stamped
 *   with the commit's id: of two writers racing on one version, only the first
 *   lands; the other sees another commit's stamp, undoes its own part and throws
 *   `StaleWriteError`.
 * - Each point is written whole (payload, dense and sparse vector in one upsert),
 *   so no reader ever sees a row without its vectors or with stale keywords.
 * - The batch goes out as ordered batch-update requests (`wait`, strong ordering)
 *   of `batchSize` points. Should a request fail, or a concurrent writer have
 *   inserted the same active content meanwhile, every point this commit inserted is
 *   deleted and every point it updated restored to what it was before the batch,
 *   then the error is thrown. A concurrent duplicate makes the writer that sees the other's point
 *   back off, so a duplicate never persists (both may back off; the write path
 *   then retries).
 * - Not guaranteed: readers may see part of a batch while it is being applied, and
 *   a memory-api process killed mid-batch leaves the part already applied (whole
 *   points, never torn ones). Writes carry fixed point ids, so a retried request
 *   (Idempotency-Key) converges to the same state.
 */
export async function commitBatch(qdrant: QdrantConnection, collection: string, batch: WriteBatch): Promise<void> {
  const insertIds = batch.inserts.map(({ record }) => pointIdOf(record.tenant, record.id));
  const updateIds = batch.updates.map(({ record }) => pointIdOf(record.tenant, record.id));
  const [taken, before] = await Promise.all([
    qdrant.retrieve(collection, insertIds, { with_payload: ['id'] }),
    qdrant.retrieve(collection, updateIds, { with_payload: true, with_vector: true }),
  ]);
  const firstTaken = taken[0];
  if (firstTaken) throw new IdTakenError(memoryIdOf(firstTaken));
  const beforeById = new Map(before.map((point) => [String(point.id), point]));
  const stale = batch.updates
    .filter(({ record }, i) => storedVersion(beforeById.get(updateIds[i] ?? '')) !== record.version)
    .map(({ record }) => record.id);
  if (stale.length > 0) throw new StaleWriteError(stale);

  // Updates count too: an edit may give a memory the content of another active one.
  const active = [...batch.inserts, ...batch.updates].map(({ record }) => record).filter((r) => r.status === 'active');
  const repeated = firstRepeatedKey(active);
  if (repeated) throw new DuplicateContentError(repeated.content_hash);
  const stored = await activeClashes(qdrant, collection, active, new Set(updateIds));
  if (stored) throw new DuplicateContentError(stored);

  const commitId = randomUUID();
  const inserts = batch.inserts.map(({ record, vector }) => ({ ...toPoint(record, vector), commitId }));
  const updates = batch.updates.map(({ record, vector }, i) => {
    const previous = beforeById.get(updateIds[i] ?? '');
    const next = { ...withAccessOf(record, previous), version: record.version + 1 };
    return { ...toPoint(next, vector ?? denseOf(previous, record.id)), commitId, expected: record.version };
  });
  try {
    await writePoints(qdrant, collection, inserts, updates);
    // A conditional update that lost its race leaves the point as the winner wrote it.
    const landed = await landedOf(qdrant, collection, commitId, updateIds);
    const lost = batch.updates.filter((_, i) => !landed.has(updateIds[i] ?? '')).map(({ record }) => record.id);
    if (lost.length > 0) throw new StaleWriteError(lost);
    const raced = await activeClashes(qdrant, collection, active, new Set([...insertIds, ...updateIds]));
    if (raced) throw new DuplicateContentError(raced);
  } catch (error) {
    try {
      await undo(qdrant, collection, commitId, insertIds, before);
    } catch (undoError) {
      throw new AggregateError([error, undoError], 'a Qdrant write failed and undoing its applied part failed too');
    }
    throw error;
  }
}

/**
 * Sends inserts (insert_only: an existing point is never overwritten) and updates (update_only:
 * a memory deleted meanwhile is not resurrected; conditional on the version each was decided
 * on, so of two writers racing on one version only the first lands) in ordered chunks.
 */
async function writePoints(
  qdrant: QdrantConnection,
  collection: string,
  inserts: ReadonlyArray<MemoryPoint & { commitId: string }>,
  updates: ReadonlyArray<MemoryPoint & { commitId: string; expected: number }>,
): Promise<void> {
  const stamped = (point: MemoryPoint & { commitId: string }) =>
    ({
      id: point.id,
      vector: point.vector,
      payload: { ...point.payload, commit_id: point.commitId },
    }) as Schemas['PointStruct'];
  const tagged = [
    ...inserts.map((point) => ({ point, expected: undefined })),
    ...updates.map((point) => ({ point, expected: point.expected })),
  ];
  for (const chunk of chunks(tagged, qdrant.batchSize)) {
    const operations: Schemas['UpdateOperation'][] = [];
    const fresh = chunk.filter((entry) => entry.expected === undefined).map((entry) => stamped(entry.point));
    if (fresh.length > 0) operations.push({ upsert: { points: fresh, update_mode: 'insert_only' } });
    for (const expected of new Set(chunk.flatMap((entry) => (entry.expected === undefined ? [] : [entry.expected])))) {
      const points = chunk.filter((entry) => entry.expected === expected).map((entry) => stamped(entry.point));
      operations.push({ upsert: { points, update_mode: 'update_only', update_filter: versionFilter(expected) } });
    }
    await qdrant.call(() => qdrant.client.batchUpdate(collection, { operations, wait: true, ordering: 'strong' }));
  }
}

/** Of the given points, those whose stored version was written by `commitId`. */
async function landedOf(
  qdrant: QdrantConnection,
  collection: string,
  commitId: string,
  pointIds: readonly string[],
): Promise<Set<string>> {
  const points = await qdrant.retrieve(collection, pointIds, { with_payload: ['commit_id'] });
  return new Set(
    points
      .filter((point) => (point.payload as Partial<MemoryPayload> | undefined)?.commit_id === commitId)
      .map((point) => String(point.id)),
  );
}

/**
 * Puts the points a failed commit wrote back as they were before it: only those this commit
 * wrote (a point another writer won stays as that writer left it).
 */
async function undo(
  qdrant: QdrantConnection,
  collection: string,
  commitId: string,
  insertedIds: readonly string[],
  before: readonly Schemas['Record'][],
): Promise<void> {
  const ours = await landedOf(qdrant, collection, commitId, [
    ...insertedIds,
    ...before.map((point) => String(point.id)),
  ]);
  for (const chunk of chunks(
    insertedIds.filter((id) => ours.has(id)),
    qdrant.batchSize,
  )) {
    await qdrant.call(() => qdrant.client.delete(collection, { points: chunk, wait: true, ordering: 'strong' }));
  }
  const restore = before
    .filter((point) => ours.has(String(point.id)))
    .map((point) => ({ id: point.id, vector: point.vector ?? {}, payload: point.payload ?? {} }));
  for (const chunk of chunks(restore, qdrant.batchSize)) {
    await qdrant.call(() =>
      qdrant.client.batchUpdate(collection, {
        operations: [
          {
            upsert: {
              points: chunk as Schemas['PointStruct'][],
              update_mode: 'update_only',
              update_filter: { must: [{ key: 'commit_id', match: { value: commitId } }] },
            },
          },
        ],
        wait: true,
        ordering: 'strong',
      }),
    );
  }
}

/**
 * The content hash of a stored active memory that clashes with one of `records`
 * on (tenant, user, layer, content_hash), ignoring the points in `own`.
 */
async function activeClashes(
  qdrant: QdrantConnection,
  collection: string,
  records: readonly MemoryRecord[],
  own: ReadonlySet<string>,
): Promise<string | undefined> {
  const byTenant = new Map<string, MemoryRecord[]>();
  for (const record of records) byTenant.set(record.tenant, [...(byTenant.get(record.tenant) ?? []), record]);
  for (const [tenant, group] of byTenant) {
    const wanted = new Set(group.map(uniquenessKey));
    const filter = activeHashFilter(
      tenant,
      [...new Set(group.map((r) => r.user_id))],
      [...new Set(group.map((r) => r.content_hash))],
    );
    let offset: Schemas['ExtendedPointId'] | undefined;
    do {
      const page = await qdrant.call(() =>
        qdrant.client.scroll(collection, {
          filter,
          limit: 256,
          with_payload: ['user_id', 'layer', 'content_hash', 'tenant'],
          with_vector: false,
          ...(offset !== undefined ? { offset } : {}),
        }),
      );
      for (const point of page.points) {
        const payload = point.payload as Pick<MemoryPayload, 'user_id' | 'layer' | 'content_hash'>;
        if (!own.has(String(point.id)) && wanted.has(uniquenessKey(payload))) return payload.content_hash;
      }
      const next = page.next_page_offset;
      offset = typeof next === 'string' || typeof next === 'number' ? next : undefined;
    } while (offset !== undefined);
  }
  return undefined;
}

/** The version a stored point is at (1 for points written before versions existed); undefined when it is gone. */
export function storedVersion(point: Schemas['Record'] | undefined): number | undefined {
  if (!point) return undefined;
  const version = (point.payload as Partial<MemoryPayload> | null | undefined)?.version;
  return typeof version === 'number' ? version : 1;
}

/** Matches a point still at `version` (points from before versions existed count as version 1). */
export function versionFilter(version: number): Schemas['Filter'] {
  const atVersion: Schemas['Condition'] = { key: 'version', match: { value: version } };
  return version === 1 ? { should: [atVersion, { is_empty: { key: 'version' } }] } : { must: [atVersion] };
}

/** The record with the access statistics the stored point gathered meanwhile (they never go down). */
function withAccessOf(record: MemoryRecord, stored: Schemas['Record'] | undefined): MemoryRecord {
  const payload = stored?.payload as Partial<MemoryPayload> | null | undefined;
  const storedAccess = Number(payload?.access_count ?? 0);
  const storedAt = typeof payload?.last_accessed_at === 'number' ? payload.last_accessed_at : null;
  const givenAt = record.last_accessed_at === null ? null : Date.parse(record.last_accessed_at);
  const lastAt = storedAt === null ? givenAt : givenAt === null ? storedAt : Math.max(storedAt, givenAt);
  return {
    ...record,
    access_count: Math.max(record.access_count, storedAccess),
    last_accessed_at: lastAt === null ? null : new Date(lastAt).toISOString(),
  };
}

function uniquenessKey(record: Pick<MemoryRecord, 'user_id' | 'layer' | 'content_hash'>): string {
  return `${record.user_id}\u001f${record.layer}\u001f${record.content_hash}`;
}

function firstRepeatedKey(records: readonly MemoryRecord[]): MemoryRecord | undefined {
  const seen = new Set<string>();
  for (const record of records) {
    const key = `${record.tenant}\u001f${uniquenessKey(record)}`;
    if (seen.has(key)) return record;
    seen.add(key);
  }
  return undefined;
}
